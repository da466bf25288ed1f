"""One training step on one device: bytes per GPU by category, and time by part with what binds it.

Memory (per GPU, the step's peak as PyTorch's caching allocator sees it, `max_memory_allocated`):
- tables: weights, optimizer state and gradients of the embedding shards this GPU holds;
- dense: MLP weights (param dtype), their gradients and optimizer state, and the compute-dtype
  copies autocast keeps for backward;
- activations: what forward keeps for backward for the local batch (each layer's output, the
  pooled lookups, the interaction, the indices), less the MLPs' when they are recomputed;
- workspace: the embedding backward's sort buffers.
The peak is the larger of the end of forward (activations alive, no gradients: they are set to
None between steps) and the end of backward (all gradients alive, the MLPs' activations freed).

Time (per GPU, parts in sequence, collectives not overlapped with compute):
- GEMMs: the MLPs' forward, input-gradient and weight-gradient GEMMs at the perfmodel's pick for
  each shape (porter.perfmodel.select), in the GEMM dtype;
- lookups and embedding backward/optimizer: bytes at the device's sustained HBM rate (random row
  gathers counted at full rows), the backward's index sort as radix passes over the indices;
- elementwise: activations written, read back and their gradients, at the same rate;
- collectives: bytes over the node's links (porter/hardware `[node]`) plus a fixed cost each;
- host: eager PyTorch issues every kernel from the CPU; a step cannot run faster than that.
Every figure a device contributes comes from porter/hardware; the few that describe the framework
rather than the device are named constants here, marked as estimates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from porter.codesign.config import DTYPE_BYTES, TrainingConfig
from porter.codesign.sharding import INDEX_BYTES, STATE_PER_ELEMENT, ShardingPlan, plan, tables, traffic
from porter.hardware import Device
from porter.perfmodel import select
from porter.perfmodel.gemm import LAUNCH_OVERHEAD_S

# Eager PyTorch, not a device: CPU time per kernel issued (fit with the H200's efficiencies on the
# calibration half: bench/codesign_validate.py fit bench/results/codesign-h200-raw-2026-12-01.json),
# and ? estimates of kernels per linear layer per step (forward addmm and activation, backward
# GEMMs, activation and bias gradients, casts), per table (lookup, backward sort and scatter,
# zeroing, update) and per step.
HOST_S_PER_KERNEL = 39e-6
KERNELS_PER_LAYER = 10
KERNELS_PER_TABLE = 12
KERNELS_PER_STEP = 40
# PyTorch's embedding backward (aten/src/ATen/native/cuda/EmbeddingBackwardKernel.cu) radix-sorts
# (index, position) pairs of int64 on the bits the row count needs, 8 bits a pass, then sums each
# row's lookups in partial segments of at most NROWS_PER_THREAD lookups, one fp32 row each.
SORT_BITS_PER_PASS = 8
NROWS_PER_THREAD = 10
BACKWARD_ROWS = 4
OPTIMIZER_TRAFFIC = {"sgd": 3, "momentum": 5, "adagrad": 5, "rowwise_adagrad": 3, "adam": 7}  # bytes per weight byte


@dataclass(frozen=True)
class Part:
    """One part of the step: seconds, what bounds it, and the work behind the figure."""

    name: str
    seconds: float
    bound: str
    detail: str = ""


@dataclass(frozen=True)
class StepEstimate:
    device: str
    batch: int
    gpus: int
    memory: dict[str, float]  # bytes per GPU by category, peak composition
    peak_bytes: float
    capacity_bytes: float  # what the config lets the step use (HBM less reserve, or the cap)
    parts: tuple[Part, ...]
    host_seconds: float
    sharding: ShardingPlan
    traffic: dict[str, float] = field(default_factory=dict)

    @property
    def device_seconds(self) -> float:
        return sum(p.seconds for p in self.parts)

    @property
    def seconds(self) -> float:
        return max(self.device_seconds, self.host_seconds)

    @property
    def fits(self) -> bool:
        return self.peak_bytes <= self.capacity_bytes and self.sharding.fits

    @property
    def samples_per_second(self) -> float:
        return self.batch * self.gpus / self.seconds


def layers(cfg: TrainingConfig) -> list[tuple[int, int]]:
    """(in, out) of every linear layer, bottom MLP then top MLP."""
    d = cfg.dense
    bottom = list(zip(d.bottom[:-1], d.bottom[1:]))
    top_in = interaction_width(cfg)
    widths = [top_in, *d.top]
    return bottom + list(zip(widths[:-1], widths[1:]))


def interaction_width(cfg: TrainingConfig) -> int:
    d = cfg.dense
    if d.interaction == "cat":
        return d.bottom[-1] + sum(e.dim * e.count for e in cfg.embedding)
    f = cfg.tables + 1
    return d.bottom[-1] + f * (f - 1) // 2


def dense_parameters(cfg: TrainingConfig) -> int:
    return sum(i * o + o for i, o in layers(cfg))


def unique_rows(rows: float, lookups: float) -> float:
    """Expected distinct rows among `lookups` uniform draws from `rows`."""
    return rows * -math.expm1(-lookups / rows) if rows else 0.0


def backward_rows(rows: float, lookups: float) -> float:
    """fp32 rows the dense embedding backward materialises for one table: one per partial segment."""
    return unique_rows(rows, lookups) + lookups / NROWS_PER_THREAD


def sort_passes(rows: float) -> int:
    return max(1, math.ceil(math.log2(max(rows, 2)) / SORT_BITS_PER_PASS))


def capacity(cfg: TrainingConfig, dev: Device) -> float:
    usable = dev.spec.hbm_bytes.value * (1 - cfg.memory.reserve_fraction)
    return min(usable, cfg.memory.cap_gb * 1e9) if cfg.memory.cap_gb else usable


def activations(cfg: TrainingConfig, batch: int) -> dict[str, float]:
    """Bytes forward keeps for backward on one GPU for `batch` local samples, as PyTorch keeps them.

    A Linear keeps its input (in the compute dtype under autocast), a ReLU its output (the next
    Linear's input, the same tensor); the dot interaction keeps both operands of its batched GEMM;
    EmbeddingBag keeps its indices and a bag index per lookup (int64). The pooled fp32 lookups and
    the fp32 concatenation live only within the forward pass.
    """
    ec = DTYPE_BYTES[cfg.dense.dtype]
    d = cfg.dense
    outs = d.bottom[1:] + d.top
    mlp = batch * (d.bottom[0] * (4 + ec) + interaction_width(cfg) * ec + sum(outs) * ec)
    f = cfg.tables + 1
    # autocast casts both bmm operands, z and its transpose, to separate compute-dtype copies
    inter = 2 * batch * f * d.bottom[-1] * ec if d.interaction == "dot" else 0
    lookups = batch * sum(e.pooling * e.count for e in cfg.embedding)
    indices = 2 * lookups * INDEX_BYTES + batch * cfg.tables * INDEX_BYTES
    return {"mlp": mlp, "interaction": inter, "indices": indices}


def estimate(cfg: TrainingConfig, dev: Device, batch: int, gpus: int, *,
             sharding: ShardingPlan | None = None) -> StepEstimate:
    """The step of `cfg` at `batch` samples per GPU on `gpus` of `dev`; `sharding` imposes a table
    placement (e.g. the one another device needed) instead of planning one for this device."""
    cap = capacity(cfg, dev)
    p = dense_parameters(cfg)
    pb = DTYPE_BYTES[cfg.dense.param_dtype]
    ec = DTYPE_BYTES[cfg.dense.dtype]
    dense_state = p * STATE_PER_ELEMENT[cfg.optimizer.dense]
    dense_weights = p * pb + (p * ec if ec != pb else 0)
    grads = p * pb
    act = activations(cfg, batch)
    mlp_kept = 0.0 if cfg.memory.recompute else act["mlp"]
    # The embedding backward runs one table at a time: its sorted (index, position) pairs, in and
    # out, and its partial-segment rows; meanwhile the fp32 gradient of the concatenated features
    # (whose slices are the pooled lookups' gradients) stays alive until the last table is done.
    workspace = max((4 * batch * gpus * e.pooling * INDEX_BYTES + backward_rows(e.rows, batch * gpus * e.pooling) * e.dim * 4
                     for e in cfg.embedding), default=0.0)
    workspace += batch * (cfg.tables + 1) * cfg.dense.bottom[-1] * 4 if cfg.embedding else 0.0
    kept = dense_weights + dense_state + act["interaction"] + act["indices"]
    # Tables meet their gradients at the backward peak: their room is what that peak leaves (the
    # forward peak, with activations instead of table gradients, is checked as a whole below).
    table_room = cap - kept - grads - workspace
    sp = sharding or plan(cfg, batch, gpus, max(table_room, 0.0))
    table_bytes = max(sp.load) if sp.load else 0.0
    # Forward peak: no gradients yet (set to None between steps); backward peak: every gradient,
    # the MLPs' activations freed, one table's sort buffers.
    # Backward starts with every activation alive and, beside them at the widest layer, its output
    # gradient, input gradient and the activation's gradient in and out: four rows per sample (two
    # in a first model; the 2026-12-01 H200 batch sweeps measured four, bench/codesign_validate.py).
    widest = max(max(cfg.dense.bottom), max(cfg.dense.top), interaction_width(cfg))
    fwd = table_bytes_without_grads(cfg, sp) + kept + mlp_kept + BACKWARD_ROWS * batch * widest * ec
    bwd = table_bytes + kept + grads + workspace
    memory = {"tables": table_bytes, "dense weights": dense_weights, "dense optimizer": dense_state,
              "dense gradients": grads, "activations": mlp_kept + act["interaction"] + act["indices"],
              "workspace": workspace}
    parts, host = _time(cfg, dev, batch, gpus, sp)
    return StepEstimate(dev.name, batch, gpus, memory, max(fwd, bwd), cap, parts, host, sp,
                        traffic(cfg, sp, batch, gpus))


def table_bytes_without_grads(cfg: TrainingConfig, sp: ShardingPlan) -> float:
    """The busiest GPU's table bytes before backward allocates the embedding gradients."""
    by_name = dict(tables(cfg))
    per_gpu = [0.0] * len(sp.load)
    for s in sp.shards:
        e = by_name[s.table]
        frac = s.dim / e.dim if s.placement == "column-wise" else (1 / len(s.gpus) if s.placement == "row-wise" else 1)
        weights = e.rows * e.dim * DTYPE_BYTES[e.dtype] * frac
        state = e.rows * frac * (e.dim * STATE_PER_ELEMENT[cfg.optimizer.embedding]
                                 + (4 if cfg.optimizer.embedding == "rowwise_adagrad" else 0))
        for g in s.gpus:
            per_gpu[g] += weights + state
    return max(per_gpu) if per_gpu else 0.0


def _time(cfg: TrainingConfig, dev: Device, batch: int, gpus: int, sp: ShardingPlan) -> tuple[tuple[Part, ...], float]:
    hbm = dev.spec.hbm_tbps.value * 1e12 * dev.node.hbm_efficiency.value
    gather = dev.spec.hbm_tbps.value * 1e12 * dev.node.gather_efficiency.value
    ec = DTYPE_BYTES[cfg.dense.dtype]
    # A dtype the device has no matrix rate for (TF32 on gfx950) runs at its fp32 rate.
    rate = dev.matrix_tflops.get(cfg.dense.dtype)
    gemm_dtype = cfg.dense.dtype if rate and rate.value > 0 else "fp32"
    parts = []

    gemm_s, shapes = 0.0, 0
    for i, (k_in, n_out) in enumerate(layers(cfg)):
        passes = [(batch, n_out, k_in), (n_out, k_in, batch)]  # forward, weight gradient
        if i > 0:
            passes.append((batch, k_in, n_out))  # input gradient (the first layer's input needs none)
        if cfg.memory.recompute:
            passes.append((batch, n_out, k_in))
        for shape in passes:
            gemm_s += select("matmul", shape, gemm_dtype, dev.name).best.time_s
            shapes += 1
    note = "" if gemm_dtype == cfg.dense.dtype else f" ({cfg.dense.dtype} is not native on {dev.name})"
    parts.append(Part("GEMMs", gemm_s, "compute", f"{shapes} GEMMs in {gemm_dtype} at the perfmodel's picks{note}"))

    by_name = dict(tables(cfg))
    gb = batch * gpus
    lookup = backward = zeroing = update = 0.0
    busiest = {g: [] for g in range(gpus)}
    for s in sp.shards:
        for g in s.gpus:
            busiest[g].append(s)
    mine = max(busiest.values(), key=lambda ss: sum(by_name[s.table].rows * s.dim for s in ss)) if busiest else []
    for s in mine:
        e = by_name[s.table]
        eb = DTYPE_BYTES[e.dtype]
        samples = batch if s.placement == "data-parallel" else gb
        rows_frac = 1 / len(s.gpus) if s.placement == "row-wise" else 1.0
        n = samples * e.pooling * rows_frac
        rows = e.rows * rows_frac
        lookup += n * (s.dim * eb + INDEX_BYTES) + samples * s.dim * 4
        # Each lookup reads its bag's gradient row; partial segments are written and read back;
        # each touched row is written once. The sort reads and writes its pairs once a pass.
        partial = backward_rows(rows, n)
        scatter = (n + 2 * partial) * s.dim * 4 + unique_rows(rows, n) * s.dim * eb
        sort = sort_passes(rows) * 2 * n * 2 * INDEX_BYTES
        shard_bytes = rows * s.dim * eb
        backward += scatter + sort
        if cfg.optimizer.embedding_grad == "dense":
            zeroing += shard_bytes  # the table-sized gradient, zeroed before the scatter
            update += OPTIMIZER_TRAFFIC[cfg.optimizer.embedding] * shard_bytes
        else:
            update += OPTIMIZER_TRAFFIC[cfg.optimizer.embedding] * unique_rows(rows, n) * s.dim * eb
    parts.append(Part("embedding lookups", lookup / gather, "hbm (gather)", f"{lookup / 1e9:.2f} GB gathered"))
    parts.append(Part("embedding backward", backward / gather, "hbm (gather)", f"{backward / 1e9:.2f} GB sorted and scattered"))
    if zeroing:
        parts.append(Part("gradient zeroing", zeroing / hbm, "hbm", f"{zeroing / 1e9:.2f} GB"))
    parts.append(Part("embedding optimizer", update / hbm, "hbm",
                      f"{cfg.optimizer.embedding}, {cfg.optimizer.embedding_grad} gradients: {update / 1e9:.2f} GB"))

    act = activations(cfg, batch)
    p = dense_parameters(cfg)
    pb = DTYPE_BYTES[cfg.dense.param_dtype]
    lookups_out = batch * sum(e.dim * e.count for e in cfg.embedding) * (4 + 4 + ec)  # fp32 out, cat, cast
    # Activations written, read back and their gradients; pooled lookups through the concatenation;
    # the weights cast to the compute dtype.
    elementwise = 3 * (act["mlp"] + act["interaction"]) + 2 * lookups_out + p * (pb + ec)
    dense_update = OPTIMIZER_TRAFFIC[cfg.optimizer.dense] * p * pb
    parts.append(Part("elementwise", elementwise / hbm, "hbm", f"{elementwise / 1e9:.2f} GB"))
    parts.append(Part("dense optimizer", dense_update / hbm, "hbm", f"{cfg.optimizer.dense}, {p / 1e6:.1f} M parameters"))

    kernels = KERNELS_PER_STEP + KERNELS_PER_LAYER * len(layers(cfg)) + KERNELS_PER_TABLE * len(mine)
    parts.append(Part("launch gaps", kernels * LAUNCH_OVERHEAD_S, "launch", f"{kernels} kernels"))
    if gpus > 1:
        t = traffic(cfg, sp, batch, gpus)
        link = dev.node.bandwidth_bps(gpus - 1)
        lat = dev.node.collective_latency_us.value * 1e-6
        dense_ar = 2 * (gpus - 1) / gpus * p * pb
        n_coll = 2 + (2 if t["reduce-scatter/all-gather"] else 0) + (1 if t["all-reduce (tables)"] else 0) + 1
        comm = (sum(t.values()) + dense_ar) / link + n_coll * lat
        parts.append(Part("collectives", comm, "links",
                          f"{(sum(t.values()) + dense_ar) / 1e9:.2f} GB at {link / 1e9:.0f} GB/s, {n_coll} collectives"))
    host = kernels * HOST_S_PER_KERNEL if cfg.runtime.launch == "eager" else 0.0
    return tuple(parts), host
