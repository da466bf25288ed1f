"""Kernel time from what the compiler emitted: an instruction-mix model for C++/HIP kernels.

Where no GPU runs a kernel, the verifier compares a HIP port with its direct-hipify baseline
from their gfx950 device assembly; the same method is checked against measured times on the
H200 with sm_90 SASS (bench/isa_rank.py). The toolchain wrappers classify each instruction
(porter.toolchains.clang_hip for AMDGCN, porter.toolchains.nvcc for SASS); this module is a
pure function of those classes, the launch, and the device data in porter/hardware.

Static counts become per-thread dynamic counts through the hot loop: the loop that does the
most work per iteration (FP operations when the launch gives a reduction depth, global bytes
loaded otherwise) runs until the thread has done its share of the launch's work, and every
other instruction runs once. The time is the largest of these terms, each over the whole
device:
    issue     vector instructions per SIMD at one per clock (warp/wave instructions)
    dram      the launch's compulsory bytes at HBM bandwidth (hbm_efficiency), times what strided
              or scattered accesses move over what they ask for (whole sectors)
    cache     bytes the global accesses move at the L2-to-CU rate: a lane's own bytes where
              neighbouring lanes touch neighbouring addresses, 1/wave of them where the whole
              wave reads one address, a sector (hardware data: sector_bytes) where lanes are
              strided or scattered; the pattern comes from the address arithmetic
              (porter.perfmodel.lanes)
    lds       LDS bytes at the LDS rate (no bank-conflict model)
    compute   FP and matrix operations at the device's fp32 vector / matrix rate
    atomic    global atomics, as if all went to one address (hardware data: atomics_per_clk);
              an atomic after a cross-lane reduction is issued once per wave (after shuffles)
              or once per workgroup (after a barrier), the way reductions end
    latency   one DRAM latency per global-load batch (hot-loop iteration), per round of
              resident workgroups
An estimate: it ranks variants of one kernel, it does not predict absolute time closely.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from porter.hardware import Device
from porter.perfmodel.roofline import LAUNCH_OVERHEAD_S

CLASSES = ("global_load", "global_store", "atomic", "lds_read", "lds_write", "matrix", "fp", "barrier", "shuffle",
           "other")
MEMORY = ("global_load", "global_store", "atomic", "lds_read", "lds_write")
GLOBAL = ("global_load", "global_store", "atomic")
PATTERNS = ("contiguous", "uniform", "strided", "irregular")


@dataclass(frozen=True)
class Instr:
    """One instruction as the toolchain classified it: its class, bytes per lane moved (memory
    classes), and FP operations per lane (fp: 1 for add/mul, 2 for fma, x2 for packed; matrix:
    the MACs of the instruction per lane x 2)."""

    cls: str
    bytes: int = 0
    flops: int = 0
    # Global accesses: how neighbouring lanes' addresses relate (porter.perfmodel.lanes):
    # "contiguous", "uniform" (one address for the wave), "strided" (stride bytes apart; 0 when
    # the stride is a runtime value) or "irregular" (not an affine function of the lane).
    pattern: str = "contiguous"
    stride: int = 0

    def __post_init__(self) -> None:
        if self.cls not in CLASSES:
            raise ValueError(f"instruction class {self.cls!r}: expected one of {', '.join(CLASSES)}")
        if self.pattern not in PATTERNS:
            raise ValueError(f"access pattern {self.pattern!r}: expected one of {', '.join(PATTERNS)}")

    def lane_bytes(self, wave: int, sector: int) -> float:
        """Bytes the memory system moves per lane for this access: the wave's requests are served
        in sectors, so a lane apart from its neighbours costs a whole sector."""
        if self.pattern == "uniform":
            return self.bytes / wave
        if self.pattern == "contiguous":
            return float(self.bytes)
        if self.pattern == "strided" and self.stride:
            return float(max(self.bytes, min(abs(self.stride), sector)))
        return float(max(self.bytes, sector))


@dataclass(frozen=True)
class KernelIsa:
    """One kernel's code: instructions in address order, each loop as the indices of its
    instructions (nested loops' included), and its resources."""

    name: str
    instrs: tuple[Instr, ...]
    loops: tuple[tuple[int, ...], ...]
    registers: int  # per lane (VGPRs + AGPRs on AMD)
    lds_bytes: int  # static shared memory per workgroup

    def counts(self, lo: int = 0, hi: int | None = None) -> dict[str, float]:
        out = dict.fromkeys(CLASSES, 0.0)
        for i in self.instrs[lo:hi]:
            out[i.cls] += 1
        return out


@dataclass(frozen=True)
class Launch:
    """The launch the estimate is for (from the verify spec): total threads, threads per
    workgroup, bytes the launch must move (its arrays in and out), and each thread's share of
    the work: FP operations (a reduction depth was given) or global bytes loaded."""

    threads: int
    block: int
    compulsory_bytes: float
    work_per_thread: float
    work_unit: str  # "flops" | "bytes"

    def __post_init__(self) -> None:
        if self.work_unit not in ("flops", "bytes"):
            raise ValueError(f"work_unit {self.work_unit!r}: expected flops or bytes")
        if self.threads < 1 or self.block < 1:
            raise ValueError("a launch has at least one thread per workgroup")


@dataclass(frozen=True)
class IsaPrediction:
    time_s: float
    bound: str
    terms: dict[str, float]
    trip: float  # hot-loop iterations per thread
    resident: int  # workgroups per CU
    dynamic: dict[str, float] = field(default_factory=dict)  # per-thread instruction counts


def _work(instrs: tuple[Instr, ...], unit: str) -> float:
    if unit == "flops":
        return float(sum(i.flops for i in instrs if i.cls in ("fp", "matrix")))
    return float(sum(i.bytes for i in instrs if i.cls == "global_load"))


def dynamic_counts(isa: KernelIsa, launch: Launch, lanes_per_wave: int, sector: int = 32
                   ) -> tuple[dict[str, float], dict[str, float], float, int]:
    """(instructions per thread by class, bytes per thread by memory class as the memory system
    moves them, hot-loop trip, load batches). moved["requested"] is what the global accesses
    asked for, so moved global / requested is the access pattern's amplification."""
    def of(indices) -> tuple[Instr, ...]:
        return tuple(isa.instrs[k] for k in indices)

    hot = set(max(isa.loops, key=lambda lp: _work(of(lp), launch.work_unit), default=()))
    body = of(sorted(hot))
    per_iter = _work(body, launch.work_unit)
    if not hot or per_iter == 0:
        trip, weight = 1.0, [1.0] * len(isa.instrs)
    else:
        outside = _work(of(k for k in range(len(isa.instrs)) if k not in hot), launch.work_unit)
        trip = max(1.0, (launch.work_per_thread - outside) / per_iter)
        weight = [trip if k in hot else 1.0 for k in range(len(isa.instrs))]
    counts = dict.fromkeys(CLASSES, 0.0)
    moved = dict.fromkeys((*MEMORY, "requested"), 0.0)
    flops = 0.0
    tail = None  # the last cross-lane step seen: "shuffle" or "barrier"
    for k, ins in enumerate(isa.instrs):
        if ins.cls in ("shuffle", "barrier"):
            tail = ins.cls
        elif ins.cls == "atomic" and tail is not None:
            weight[k] /= lanes_per_wave if tail == "shuffle" else launch.block
    for w, ins in zip(weight, isa.instrs, strict=True):
        counts[ins.cls] += w
        if ins.cls in GLOBAL:
            moved[ins.cls] += w * ins.lane_bytes(lanes_per_wave, sector)
            if ins.cls != "atomic" and ins.pattern != "uniform":
                moved["requested"] += w * ins.bytes
        elif ins.cls in MEMORY:
            moved[ins.cls] += w * ins.bytes
        flops += w * ins.flops
    counts["flops"] = flops
    loads_in_loop = any(i.cls == "global_load" for i in body)
    loads_outside = any(i.cls == "global_load" for k, i in enumerate(isa.instrs) if k not in hot)
    batches = (math.ceil(trip) if loads_in_loop else 0) + (1 if loads_outside else 0)
    return counts, moved, trip, batches


def resident_workgroups(isa: KernelIsa, block: int, dev: Device) -> int:
    """Workgroups one CU holds at once: by waves, registers and LDS (at least 1)."""
    waves = math.ceil(block / dev.wave_size)
    by_waves = dev.spec.max_waves_per_cu.value // waves
    reg_bytes = max(isa.registers, 1) * 4 * waves * dev.wave_size
    by_regs = dev.spec.register_bytes_per_cu.value // reg_bytes
    by_lds = dev.spec.lds_bytes_per_cu.value // isa.lds_bytes if isa.lds_bytes else by_waves
    return int(max(1, min(by_waves, by_regs, by_lds)))


def predict(isa: KernelIsa, launch: Launch, dev: Device) -> IsaPrediction:
    sector = int(dev.model.sector_bytes.value)
    counts, moved, trip, batches = dynamic_counts(isa, launch, dev.wave_size, sector)
    spread = sum(moved[c] for c in GLOBAL if c != "atomic")
    # Data touched once still comes from DRAM a sector at a time: strided and scattered accesses
    # multiply the compulsory traffic by what they move over what they ask for.
    amplification = max(1.0, spread / moved["requested"]) if moved["requested"] else 1.0
    clk = dev.clock_hz
    cus = dev.cus
    waves = launch.threads / dev.wave_size
    simds = cus * dev.spec.simds_per_cu.value
    instructions = sum(counts[c] for c in CLASSES)
    resident = resident_workgroups(isa, launch.block, dev)
    blocks = math.ceil(launch.threads / launch.block)
    rounds = math.ceil(blocks / (cus * resident))
    fp32 = dev.peak_tflops("fp32") * 1e12
    matrix_flops = sum(i.flops for i in isa.instrs if i.cls == "matrix")
    matrix_rate = dev.peak_tflops("bf16") * 1e12 if matrix_flops else fp32
    terms = {
        "issue": instructions * waves / (simds * clk),
        "dram": launch.compulsory_bytes * amplification
        / (dev.spec.hbm_tbps.value * 1e12 * dev.node.hbm_efficiency.value),
        "cache": (moved["global_load"] + moved["global_store"] + moved["atomic"]) * launch.threads
        / (dev.model.l2_bytes_per_clk_per_cu.value * cus * clk),
        "lds": (moved["lds_read"] + moved["lds_write"]) * launch.threads
        / (dev.model.lds_bytes_per_clk_per_cu.value * cus * clk),
        "compute": counts["flops"] * launch.threads / (matrix_rate if matrix_flops else fp32),
        "atomic": counts["atomic"] * launch.threads / (dev.model.atomics_per_clk.value * clk),
        "latency": rounds * batches * dev.model.dram_latency_ns.value * 1e-9,
    }
    bound = max(terms, key=lambda k: terms[k])
    return IsaPrediction(time_s=terms[bound] + LAUNCH_OVERHEAD_S, bound=bound, terms=terms, trip=trip,
                         resident=resident, dynamic=counts)


def verdict(port_s: float, baseline_s: float, band: float) -> tuple[float, str]:
    """(port / baseline, faster | slower | equal), equal within `band` of 1."""
    ratio = port_s / baseline_s
    return ratio, "equal" if abs(ratio - 1) <= band else "faster" if ratio < 1 else "slower"
