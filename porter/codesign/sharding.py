"""Where each embedding table lives on G GPUs, and what that costs in memory and traffic.

Four placements, as TorchRec and FBGEMM name them:
- table-wise (TW): the whole table on one GPU; the pooled outputs of all G x B samples go out in
  one all-to-all (and their gradients back in another).
- column-wise (CW): the table split along its embedding dim into k pieces on k GPUs; the same
  all-to-all bytes as TW, spread over k GPUs. For a table too large for one GPU's free HBM.
- row-wise (RW): rows split over all G GPUs; every GPU produces a partial sum for every sample,
  so a reduce-scatter forward and an all-gather backward move G times TW's bytes.
- data-parallel (DP): a copy on every GPU, no lookup traffic, its gradient all-reduced. For
  tables smaller than the pooled outputs they would send.

The planner keeps the fewest, largest shards the memory allows: DP where it is cheaper than the
all-to-all and every GPU can hold a copy, TW by largest-first placement on the least-loaded GPU,
CW into the fewest pieces that fit, RW last. Pure functions of (config, batch, GPUs, capacity).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from porter.codesign.config import DTYPE_BYTES, Embedding, TrainingConfig

Placement = Literal["data-parallel", "table-wise", "column-wise", "row-wise"]
# Optimizer state per weight element (fp32 moments), and per row for the row-wise Adagrad of TBE.
STATE_PER_ELEMENT = {"sgd": 0, "momentum": 4, "adagrad": 4, "rowwise_adagrad": 0, "adam": 8}
STATE_PER_ROW = {"rowwise_adagrad": 4}
INDEX_BYTES = 8  # int64 indices, as PyTorch and TorchRec pass them


@dataclass(frozen=True)
class Shard:
    table: str
    placement: Placement
    gpus: tuple[int, ...]
    bytes_per_gpu: float  # weights, gradient and optimizer state this shard puts on each of its GPUs
    dim: int  # embedding columns each of its GPUs computes


@dataclass(frozen=True)
class ShardingPlan:
    shards: tuple[Shard, ...]
    load: tuple[float, ...]  # table bytes per GPU
    fits: bool

    @property
    def pieces(self) -> int:
        """Shards counted as pieces on GPUs (a CW table in k pieces is k; a DP copy counts once)."""
        return sum(1 if s.placement == "data-parallel" else len(s.gpus) for s in self.shards)

    def count(self, placement: Placement) -> int:
        return sum(1 for s in self.shards if s.placement == placement)

    def summary(self) -> str:
        """"18 table-wise, 8 data-parallel": tables per placement."""
        counts = [(p, self.count(p)) for p in ("table-wise", "column-wise", "row-wise", "data-parallel")]
        return ", ".join(f"{n} {p}" for p, n in counts if n) or "no tables"


def tables(cfg: TrainingConfig) -> list[tuple[str, Embedding]]:
    """Each table once, named `name` or `name#i` for the i-th of `count` identical ones."""
    out = []
    for e in cfg.embedding:
        out += [(e.name if e.count == 1 else f"{e.name}#{i}", e) for i in range(e.count)]
    return out


def table_footprint(cfg: TrainingConfig, e: Embedding, global_batch: int, fraction: float = 1.0) -> float:
    """Bytes a (fraction of a) table needs on its GPU during a step: weights, optimizer state, gradient."""
    rows = e.rows * fraction
    weights = rows * e.dim * DTYPE_BYTES[e.dtype]
    state = rows * (e.dim * STATE_PER_ELEMENT[cfg.optimizer.embedding] + STATE_PER_ROW.get(cfg.optimizer.embedding, 0))
    if cfg.optimizer.embedding_grad == "dense":
        grad = weights
    else:  # the rows the step touched, at most the whole shard
        grad = min(rows, global_batch * e.pooling * fraction) * e.dim * DTYPE_BYTES[e.dtype]
    return weights + state + grad


def lookup_bytes(e: Embedding, global_batch: int) -> float:
    """Pooled outputs of one table for the global batch: what TW/CW all-to-all moves one way."""
    return global_batch * e.dim * DTYPE_BYTES[e.dtype]


def plan(cfg: TrainingConfig, batch: int, gpus: int, capacity: float) -> ShardingPlan:
    """Place every table on `gpus` GPUs with `capacity` bytes each left for tables."""
    gb = batch * gpus
    named = tables(cfg)
    load = [0.0] * gpus
    shards: list[Shard] = []
    rest = []
    if gpus > 1:
        # DP first: cheaper than its all-to-all (2 x (G-1)/G x grad bytes against 2 x lookups)
        # and small enough that a copy on every GPU keeps a quarter of the capacity for the rest.
        budget = capacity / 4
        for name, e in sorted(named, key=lambda t: table_footprint(cfg, t[1], gb)):
            grad = e.rows * e.dim * DTYPE_BYTES[e.dtype]
            size = table_footprint(cfg, e, gb)
            if grad * (gpus - 1) / gpus < lookup_bytes(e, gb) and size <= budget:
                budget -= size
                load = [x + size for x in load]
                shards.append(Shard(name, "data-parallel", tuple(range(gpus)), size, e.dim))
            else:
                rest.append((name, e))
    else:
        rest = named
    fits = True
    for name, e in sorted(rest, key=lambda t: -table_footprint(cfg, t[1], gb)):
        size = table_footprint(cfg, e, gb)
        order = sorted(range(gpus), key=lambda g: load[g])
        if load[order[0]] + size <= capacity or gpus == 1:
            g = order[0]
            load[g] += size
            shards.append(Shard(name, "table-wise", (g,), size, e.dim))
            fits &= load[g] <= capacity
            continue
        placed = False
        for k in range(2, gpus + 1):  # the fewest column pieces that fit, each at least 4 columns wide
            if e.dim % k or e.dim // k < 4:
                continue
            piece = table_footprint(cfg, e, gb) / k
            if all(load[g] + piece <= capacity for g in order[:k]):
                for g in order[:k]:
                    load[g] += piece
                shards.append(Shard(name, "column-wise", tuple(sorted(order[:k])), piece, e.dim // k))
                placed = True
                break
        if not placed:
            piece = table_footprint(cfg, e, gb, 1 / gpus)
            load = [x + piece for x in load]
            shards.append(Shard(name, "row-wise", tuple(range(gpus)), piece, e.dim))
            fits &= max(load) <= capacity
    return ShardingPlan(tuple(shards), tuple(load), fits and max(load) <= capacity)


def traffic(cfg: TrainingConfig, sp: ShardingPlan, batch: int, gpus: int) -> dict[str, float]:
    """Bytes the busiest GPU sends per step, by collective (one direction, forward and backward together)."""
    if gpus == 1:
        return {"all-to-all": 0.0, "reduce-scatter/all-gather": 0.0, "all-reduce (tables)": 0.0}
    gb = batch * gpus
    by_name = dict(tables(cfg))
    a2a = [0.0] * gpus
    rs = 0.0
    ar = 0.0
    share = (gpus - 1) / gpus
    for s in sp.shards:
        e = by_name[s.table]
        if s.placement in ("table-wise", "column-wise"):
            for g in s.gpus:  # forward outputs out, their gradients back in: both one way for this GPU
                a2a[g] += 2 * gb * s.dim * DTYPE_BYTES[e.dtype] * share
        elif s.placement == "row-wise":
            rs += 2 * gb * e.dim * DTYPE_BYTES[e.dtype] * share
        else:
            ar += 2 * share * e.rows * e.dim * DTYPE_BYTES[e.dtype]
    return {"all-to-all": max(a2a), "reduce-scatter/all-gather": rs, "all-reduce (tables)": ar}

