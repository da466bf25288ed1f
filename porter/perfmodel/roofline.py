"""Roofline models of memory-bound Triton kernels: elementwise, row reductions, softmax, norms.

Such a kernel moves its bytes once; the model charges the larger of the device's DRAM time for
them and the time its programs take in waves over the CUs, each program paying one DRAM latency
plus its bytes at one CU's L2 bandwidth. The config is BLOCK_SIZE (a row's padded length for the
row ops, a chunk for elementwise) and num_warps; it is legal while a lane's share of the block
fits in registers. Pure functions of (op, shape, dtype, config, device).

    elementwise (n,)         reads 2n, writes n elements  (c = a op b)
    reduction   (rows, cols) reads rows x cols, writes rows
    softmax     (rows, cols) reads and writes rows x cols
    layernorm   (rows, cols) reads and writes rows x cols, reads 2 x cols of weights
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from porter.hardware import Device
from porter.perfmodel.gemm import ELEM_BYTES as GEMM_ELEM_BYTES
from porter.perfmodel.gemm import LAUNCH_OVERHEAD_S, Prediction

OPS = ("elementwise", "reduction", "softmax", "layernorm")
# The dtypes a row kernel is modelled in (tf32 is a matmul mode), with the GEMM model's element sizes.
ELEM_BYTES = {d: GEMM_ELEM_BYTES[d] for d in ("fp32", "bf16", "fp16", "fp8")}
# fp32 values a lane keeps per element of its share (input and one temporary), and the rest.
REGISTERS_PER_ELEMENT = 2
REGISTER_OVERHEAD = 24


@dataclass(frozen=True)
class RowConfig:
    block_size: int
    num_warps: int

    def knobs(self, vendor: str) -> dict[str, int]:
        return {"num_warps": self.num_warps}

    def label(self) -> str:
        return f"BLOCK_SIZE={self.block_size} w{self.num_warps}"


def _traffic(op: str, shape: tuple[int, ...], e: int) -> tuple[int, float, int]:
    """(programs' work items, bytes moved, elements per work item) for op at shape."""
    if op == "elementwise":
        if len(shape) != 1:
            raise ValueError(f"elementwise takes a shape N; got {shape}")
        return shape[0], 3.0 * shape[0] * e, 1
    if len(shape) != 2:
        raise ValueError(f"{op} takes a shape ROWS,COLS; got {shape}")
    rows, cols = shape
    bytes_ = {"reduction": rows * cols * e + rows * e, "softmax": 2.0 * rows * cols * e,
              "layernorm": 2.0 * rows * cols * e + 2.0 * cols * e}[op]
    return rows, bytes_, cols


def predict(op: str, shape: tuple[int, ...], dtype: str, config: RowConfig, dev: Device) -> Prediction | None:
    """Predicted seconds and residency of one config, or None when it cannot hold its block."""
    e = ELEM_BYTES[dtype]
    items, total_bytes, per_item = _traffic(op, shape, e)
    if op == "elementwise":
        programs = math.ceil(items / config.block_size)
        program_bytes = 3.0 * config.block_size * e
    else:
        if config.block_size < per_item:
            return None  # the row must fit the block
        programs = items
        program_bytes = total_bytes / items
    threads = config.num_warps * dev.wave_size
    regs = math.ceil(config.block_size / threads) * REGISTERS_PER_ELEMENT + REGISTER_OVERHEAD
    if regs > dev.spec.max_registers_per_lane.value or threads > 1024:
        return None
    resident = int(min(dev.spec.max_waves_per_cu.value // config.num_warps,
                       dev.spec.register_bytes_per_cu.value // (regs * 4 * threads), 32))
    if resident < 1:
        return None
    clk = dev.clock_hz
    latency = dev.model.dram_latency_ns.value * 1e-9
    cu_bw = dev.model.l2_bytes_per_clk_per_cu.value * clk
    waves = math.ceil(programs / (dev.cus * resident))
    per_cu = min(resident, math.ceil(programs / dev.cus))
    cu_time = waves * (latency + per_cu * program_bytes / cu_bw)
    dram_time = total_bytes / (dev.spec.hbm_tbps.value * 1e12)
    seconds = max(cu_time, dram_time) + LAUNCH_OVERHEAD_S
    return Prediction(config=config, time_s=seconds, tflops=0.0,
                      bound="dram" if dram_time >= cu_time else "memory-latency", waves=waves,
                      resident=resident, lds_bytes=0, registers=regs,
                      utilization=items * per_item / (programs * config.block_size))


def space(op: str, shape: tuple[int, ...]) -> list[RowConfig]:
    blocks = [1 << p for p in range(8, 15)] if op == "elementwise" else \
        [1 << max(4, math.ceil(math.log2(shape[-1])))]
    return [RowConfig(b, w) for b in blocks for w in (1, 2, 4, 8, 16)]


def select(op: str, shape: tuple[int, ...], dtype: str, dev: Device) -> tuple[Prediction, Prediction | None, int]:
    """(best, runner-up or None, candidates considered) for a memory-bound op."""
    if dtype not in ELEM_BYTES:
        raise ValueError(f"unknown dtype {dtype!r} for {op}; known: {', '.join(ELEM_BYTES)}")
    scored = [p for cfg in space(op, shape) if (p := predict(op, shape, dtype, cfg, dev)) is not None]
    if not scored:
        raise ValueError(f"no legal {op} config for shape {shape} on {dev.name}")
    scored.sort(key=lambda p: p.time_s)
    return scored[0], (scored[1] if len(scored) > 1 else None), len(scored)
