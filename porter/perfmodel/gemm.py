"""An analytical model of a tiled GEMM (C[M,N] = A[M,K] @ B[K,N]) as Triton lowers it, on AMD and NVIDIA.

Pure functions of (problem, configs, device): no GPU, no compiler, no state. One code path,
vectorised over candidate configs with numpy, so `select` scores thousands of configs for a
shape in well under a millisecond; `predict` is the same arithmetic on a single config.

The model, in the shape of the published analytical GEMM models (../shared/HARDWARE.md,
"Analytical GEMM selection"; AMD's tritonBLAS / origami):

1. Resources per workgroup: LDS (shared memory) for the pipelined A and B tiles, registers per
   lane for the fp32 accumulator and the operand fragments. They give the workgroups resident
   per CU (SM) and rule out configs that cannot compile without spilling or overflowing LDS.
2. Per K-iteration on one CU, three times, overlapped when the loop is pipelined:
   - compute: 2·BM·BN·BK at the matrix unit's dense rate for the dtype (the device data), at a
     fitted share of it; on sm_90's wgmma tiles instead the math at the datasheet rate plus the
     bytes cp.async lands in shared memory (fp8: at least its sustained share), and for fp8 on
     mma.sync the 16-bit rate, the conversion of every fragment element and the byte-wise loads
     of an MN-major fragment, whichever binds;
   - operand reads out of LDS (shared memory) into the matrix unit, at the CU's LDS bandwidth,
     plus, on sm_90's wgmma path, the byte-wise transposing store of an MN-major fp8 tile
     (serialized over the warp's lanes along MN: bank conflicts);
   - global loads of the A and B tiles, at the smaller of the CU's L2 bandwidth and what the
     pipeline keeps in flight (Little's law: min(stages - 1, K-steps) tiles per workgroup /
     DRAM latency); on sm_90's wgmma path an MN-major fp8 operand is loaded un-pipelined, one
     latency per K-step that only the CU's other workgroups hide, and a tile whose wgmma ptxas
     serializes (Triton 3.6's BN-256 8-warp tiles of the one-tile-per-program nt kernel) pays a
     measured wait per K-step the same way; so does a row-major B whose N is off a multiple of 16,
     which Triton loads one element per lane into a single buffer (more registers, fewer resident).
3. Waves of workgroups over the CUs: timesteps = ceil(tiles / (CUs x resident)); the last,
   partial wave runs fewer workgroups per CU (wave quantisation).
4. Per wave, the device-wide limits: all tile loads through L2; the unique A and B panels of
   the concurrently resident tiles (with GROUP_M's grouped ordering) from DRAM, or once per
   problem when A and B fit in L2; a tile row's run per K-step (BK elements K-major, BM / BN
   MN-major) shorter than the L2's fetch unit (hardware data: dram_fetch_bytes) moves the whole
   unit. On AMD, workgroups go round-robin over the XCDs, each with its own 4 MiB L2: every XCD
   fetches the wave's panels from the MALL, which holds A and B. Where the device data has a
   dram_exposed_share, that share of the wave's DRAM time is added to it (not hidden).
5. Prologue (first loads, one DRAM latency) and epilogue (storing the C tile) per wave.

What the model does not know is said where it matters: the compiler's real register and LDS
allocation (checked against Triton's AOT compile by bench/perfmodel_validate.py --cross-check),
bank conflicts, clock throttling under load, and instruction-issue limits beyond the above.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, fields
from functools import cache
from importlib import resources
from typing import Protocol

import numpy as np

from porter.hardware import Device

# Bytes per element of the operands as Triton sees them; the output is bf16/fp16 (2 B), as in
# the usual fp8 GEMM with a 16-bit result.
ELEM_BYTES = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}
OUT_BYTES = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 2}

# Instruction K (elements) of the matrix instructions Triton emits, by vendor and operand bytes:
# NVIDIA mma.sync m16n8k16 / wgmma k16 for 16-bit, k32 for fp8 (PTX ISA); AMD gfx950
# v_mfma_f32_16x16x32_{bf16,f16} and the fp8 16x16x128 / 32x32x64 forms (../shared/HARDWARE.md).
MIN_BLOCK_K = {("nvidia", 4): 8, ("nvidia", 2): 16, ("nvidia", 1): 32,
               ("amd", 4): 4, ("amd", 2): 32, ("amd", 1): 64}
# Registers per lane besides the accumulator and operand fragments: addresses, loop state,
# masks. An estimate; the AOT cross-check reports the compiler's real count.
REGISTER_OVERHEAD = 40
# Resident workgroups per CU (SM) at most, whatever else fits: 32 blocks per SM on sm_90 (CUDA
# programming guide) and, on gfx9, 32 waves per CU, i.e. 32 one-wave workgroups.
MAX_WORKGROUPS_PER_CU = 32
LAUNCH_OVERHEAD_S = 3e-6
# Bytes through shared memory per byte of a transposed fp8 tile and per conflicting lane, per K-step
# (wgmma only; see _tile_costs). Bank arithmetic alone gives 4 (one byte written per 4-byte bank
# access); the register round trip, the barrier and the proxy fence before wgmma reads are not
# modelled apart. Fit on the fit half of the "nn" fp8 shapes of
# bench/results/perfmodel-h200-raw-nn-2026-12-01.json (bench/perfmodel_fitscore.py; 4-32 tried,
# 10-16 score the same, 12 taken, clear of the drop at 18). Since the eleventh look (T15) the lanes
# count at least FP8_TRANSPOSE_MIN_LANES, and the figure is halved to 6, which keeps BN 32's price
# (2 lanes x 12 = 4 x 6) and halves BN >= 64's (the fit score: 5 0.868, 6-8 0.886, 10 0.854 nn fp8).
FP8_TRANSPOSE_PASSES = 6
# The least lanes a transposing fp8 store serializes over (T15, eleventh look): measured on nn fp8 fit rows,
# a BN-32 and a BN-64 tile with the same B elements per K-step, BM and residency take the same time
# (256x32x128 w8 s3 and 256x64x64 w8 s4-s5, 2 resident: 1275 and 1281-1303 clk per workgroup K-step at
# 4096x4096x8192, 1279 and 1281-1311 at 2048x8192x8192) where 2 and 4 conflicting lanes would double it,
# while from BN 64 to BN 256 (4 to 16 lanes) the cost per byte rises ~4x (seventh look, 12288x12288x32).
FP8_TRANSPOSE_MIN_LANES = 4
# The most stack a compiled config may have and still run (T16, twelfth look; read where a table of compiled
# resources has the config): bf16 256x128x64 w8 s3 at N off 16 compiles with 40 B of stack (6 LDL per K-step, priced
# as requests in evaluate) and is the measured best of four nn fit shapes; stacks of hundreds of bytes (128x128x128:
# 176-208 B, 67-68 LDL/STL per K-step; fp8 BK 256: 600-1400 B) lose. Fit rows (bench/perfmodel_fitscore.py, all fit):
# 0 B 0.9435, 64 B 0.9476, 128 B 0.9436 (fp8 falls), any 0.93.
SCALAR_B_STACK_MAX_BYTES = 64


def lds_bytes(bm, bn, bk, num_stages, elem_bytes):
    """LDS a Triton GEMM's pipeline allocates: num_stages buffers of the A and B tiles, at least one.

    Both backends. (../shared/HARDWARE.md says ~(num_stages - 1) on AMD; Triton 3.9's gfx950 compile
    allocates num_stages: every pick of `bench/perfmodel_validate.py crosscheck` had exactly twice
    that at num_stages=2.) Scalars or numpy arrays of configs alike.
    """
    return np.maximum(1, num_stages) * ((bm + bn) * bk * elem_bytes)


@dataclass(frozen=True)
class GemmConfig:
    """One Triton launch configuration of a GEMM kernel. AMD-only knobs are 0 where unused."""

    block_m: int
    block_n: int
    block_k: int
    group_m: int = 8
    num_warps: int = 4
    num_stages: int = 2
    waves_per_eu: int = 0
    matrix_instr_nonkdim: int = 0
    kpack: int = 1

    def knobs(self, vendor: str) -> dict[str, int]:
        """The Config's keyword arguments (AMD knobs only on AMD)."""
        out = {"num_warps": self.num_warps, "num_stages": self.num_stages}
        if vendor == "amd":
            out |= {"waves_per_eu": self.waves_per_eu, "matrix_instr_nonkdim": self.matrix_instr_nonkdim,
                    "kpack": self.kpack}
        return out

    def label(self) -> str:
        s = f"{self.block_m}x{self.block_n}x{self.block_k} g{self.group_m} w{self.num_warps} s{self.num_stages}"
        if self.matrix_instr_nonkdim or self.waves_per_eu or self.kpack != 1:
            s += f" wpe{self.waves_per_eu} mi{self.matrix_instr_nonkdim} kp{self.kpack}"
        return s


FIELDS = tuple(f.name for f in fields(GemmConfig))


# Operand layouts, BLAS-style letters for A and B of C = A @ B with row-major storage: "n" keeps
# the operand as written (A[M,K] with K contiguous, B[K,N] with N contiguous), "t" stores it
# transposed (A as [K,M], B as W[N,K]: K contiguous). "nt" is a linear layer (x @ W^T), the
# layout the first validation measured; "nn" is Triton's matmul tutorial.
LAYOUTS = ("nt", "nn", "tn", "tt")


@dataclass(frozen=True)
class Traits:
    """What the kernel in hand does besides its shape, where the hardware's cost depends on it.

    layout: which operands are K-contiguous. Hopper's fp8 wgmma reads both operands K-major only
    (PTX ISA, wgmma: "transpose" is supported for 16-bit types alone), so an MN-major fp8 operand
    sends Triton to mma.sync; gfx950 reads an MN-major operand out of LDS with its transposing
    reads, 64 bits at a time instead of 128 (../shared/HARDWARE.md, CDNA4 LDS).
    persistent: one program per CU walks the tiles (Triton's persistent matmul, grid = CUs), so a
    CU holds one workgroup whatever else would fit.
    triton: the Triton release (major, minor) that compiles the kernel, where its code generation
    changes the cost (`serializes_wide_wgmma`); None when unknown, read as the release the sm_90
    terms were measured with (3.6, the H200 sweeps of the evidence note of 2026-12-01).
    """

    layout: str = "nt"
    persistent: bool = False
    triton: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"unknown GEMM layout {self.layout!r}; known: {', '.join(LAYOUTS)}")

    @property
    def serializes_wide_wgmma(self) -> bool:
        """Whether this Triton's sm_90 compile serializes the one-tile kernel's BN-256 8-warp wgmma.

        Read from compiles of the same kernel (evidence note of 2026-12-01, seventh and eighth
        looks): Triton 3.6.0 with its ptxas of CUDA 12.8 does (ptxas C7515), Triton 3.9.0 does not.
        Releases in between were not compiled; they are taken as 3.6.
        """
        return self.triton is None or self.triton < (3, 9)

    @property
    def a_k_major(self) -> bool:
        return self.layout[0] == "n"

    @property
    def b_k_major(self) -> bool:
        return self.layout[1] == "t"

    def label(self) -> str:
        return self.layout + (" persistent" if self.persistent else "")


def triton_release(version: str) -> tuple[int, int]:
    """(major, minor) of a Triton version string: "3.6.0" -> (3, 6); "3.9.0+git1a2b" -> (3, 9)."""
    parts = version.split(".")
    try:
        return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) if len(parts) > 1 else 0)
    except ValueError:
        raise ValueError(f"not a Triton version: {version!r}") from None


@dataclass(frozen=True)
class Gemm:
    m: int
    n: int
    k: int
    dtype: str = "bf16"
    traits: Traits = Traits()

    def __post_init__(self) -> None:
        if min(self.m, self.n, self.k) < 1:
            raise ValueError(f"GEMM shape must be positive, got M={self.m} N={self.n} K={self.k}")
        if self.dtype not in ELEM_BYTES:
            raise ValueError(f"unknown GEMM dtype {self.dtype!r}; known: {', '.join(ELEM_BYTES)}")

    @property
    def flops(self) -> float:
        return 2.0 * self.m * self.n * self.k


class Candidates:
    """A set of configs as columns (one numpy array per field), and what does not depend on the shape.

    Built once per (device, dtype) and reused for every shape: resources, residency and the
    per-iteration costs of a tile depend only on the config.
    """

    def __init__(self, configs: list[GemmConfig], dev: Device, dtype: str, traits: Traits = Traits()):
        if not configs:
            raise ValueError("no candidate configs")
        self.configs = configs
        self.device = dev
        self.dtype = dtype
        self.traits = traits
        col = {f: np.array([getattr(c, f) for c in configs], dtype=np.float64) for f in FIELDS}
        self.bm, self.bn, self.bk = col["block_m"], col["block_n"], col["block_k"]
        self.gm, self.nw, self.ns = col["group_m"], col["num_warps"], col["num_stages"]
        self.wpe, self.nonk, self.kpack = col["waves_per_eu"], col["matrix_instr_nonkdim"], col["kpack"]
        _tile_costs(self, dev, dtype, traits)

    def __len__(self) -> int:
        return len(self.configs)

    def scalar_b_at(self, n: int) -> bool:
        """Whether a problem with this N loads a row-major B one element per lane (T13: N off a
        multiple of 16 on sm_90, `_scalar_b_costs`), so that the scalar_b_* columns apply."""
        return self.scalar_b and n % 16 != 0

    def resources(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(legal, resident workgroups per CU, LDS bytes, registers per lane) of every config, for a
        problem with this N."""
        if self.scalar_b_at(n):
            return self.scalar_b_legal, self.scalar_b_resident, self.scalar_b_lds, self.scalar_b_regs
        return self.legal, self.resident, self.lds, self.regs


def _warp_grid(bm, bn, nw, min_m):
    """Warps along M and N as Triton's MMA layouts place them: along M while rows last (min_m rows
    per warp, or per warpgroup of 4 on wgmma), the rest along N."""
    along_m = np.minimum(nw, np.maximum(1, bm // min_m))
    return along_m, nw / along_m


def _mma_v2_warps(bm, bn, nw):
    """Warps along M and N of Triton's mma.sync (MMAv2) layout: doubled one at a time on the side with
    more m16n8 instruction tiles per warp (Triton's warpsPerTileV2). Read from Triton 3.9's sm_90
    compiles: 32x128 w4 -> [1, 4], 32x32 w4 -> [2, 2], 16x64 w8 -> [1, 8]."""
    along_m, along_n = np.ones_like(bm), np.ones_like(bm)
    for _ in range(int(np.log2(max(1.0, float(np.max(nw)))))):
        grow = along_m * along_n < nw
        m_side = (bm / 16 / along_m >= bn / (8 * along_n)) & (along_m < bm / 16)
        along_m = np.where(grow & m_side, along_m * 2, along_m)
        along_n = np.where(grow & ~m_side, along_n * 2, along_n)
    return along_m, along_n


def _tile_costs(c: Candidates, dev: Device, dtype: str, traits: Traits) -> None:
    """Shape-independent terms: legality, LDS and registers, residency, per-iteration cycles."""
    a_b, lanes, amd = ELEM_BYTES[dtype], dev.wave_size, dev.vendor == "amd"
    spec, model = dev.spec, dev.model
    granule = spec.vgpr_granule.value
    threads = c.nw * lanes
    tile_bytes = (c.bm + c.bn) * c.bk * a_b
    c.lds = lds_bytes(c.bm, c.bn, c.bk, c.ns, a_b)

    # The matrix-unit path and how warps tile the block.
    if amd:
        wgmma = np.zeros_like(c.bm, dtype=bool)
        nonk = np.where(c.nonk == 0, 16, c.nonk)
        wm_n, wn_n = _warp_grid(c.bm, c.bn, c.nw, nonk)
    else:
        wgmma = (dev.arch == "sm_90") & (c.nw % 4 == 0) & (c.bm >= 64)

        wm_wg, wn_wg = _warp_grid(c.bm, c.bn, c.nw / 4, 64)  # warpgroups
        wm_mma, wn_mma = _warp_grid(c.bm, c.bn, c.nw, 16)  # warps
        wm_n, wn_n = np.where(wgmma, wm_wg, wm_mma), np.where(wgmma, wn_wg, wn_mma)
    wm, wn = c.bm / wm_n, c.bn / wn_n  # rows and columns per warp (per warpgroup on wgmma)
    c.wgmma = wgmma

    # Registers per lane: the fp32 accumulator spread over the block's threads, the A/B fragments
    # a warp holds for one BK step (none on wgmma: its operands stay in shared memory), overhead.
    acc = c.bm * c.bn / threads
    frags = np.where(wgmma, 0.0, (wm + wn) * c.bk * a_b / 4 / lanes)
    regs = acc + frags + REGISTER_OVERHEAD
    if amd:
        # AMD's pipeliner stages the next A and B tiles through VGPRs on their way to LDS, and
        # double-buffers the operand fragments it reads out of LDS (the AOT cross-check's counts).
        regs = np.ceil((regs + frags + tile_bytes / (threads * 4)) / granule) * granule
    c.regs = regs
    max_regs = spec.max_registers_per_lane.value
    if amd:  # waves_per_eu N caps the VGPRs at what N waves per SIMD can have
        cap = np.where(c.wpe > 0, np.floor(max_regs / np.maximum(c.wpe, 1) / granule) * granule, max_regs)
    else:
        cap = np.full_like(regs, max_regs)

    min_k = MIN_BLOCK_K[(dev.vendor, a_b)]
    # A warp's share of the tile must hold whole matrix instructions: 16 or 32 square on AMD
    # (matrix_instr_nonkdim), m16n8 for mma.sync; a warpgroup's wgmma is m64 by construction.
    fits_warp = (wm >= nonk) & (wn >= nonk) if amd else (wm >= 16) & (wn >= 8)
    c.shape_legal = (c.bk >= min_k) & (threads <= 1024) & fits_warp  # what a compile's resources do not decide
    c.legal = (c.lds <= spec.lds_bytes_per_workgroup.value) & (regs <= cap) & c.shape_legal
    if amd and dev.arch == "gfx950":
        c.legal &= c.kpack == 1  # gfx950 accepts only kpack=1 (Triton's AMD backend overrides others)

    c.resident = _residency(spec, c.lds, c.nw, regs, threads, traits.persistent)
    # The instruction streams that fill each other's gaps at the matrix unit: the CU's resident
    # workgroups, counted in evaluate(). A persistent kernel has one workgroup per CU for the whole
    # run, and there its warps (waves) do it: one stream per SM sub-partition (SIMD) they fill, a
    # warpgroup of 4 on sm_90. Fitted on the persistent fit shapes of
    # bench/results/perfmodel-h200-raw-persistent-2026-12-01.json (docs/evidence/perfmodel-variants-h200-2026-12-01.md).
    c.streams = (np.maximum(1.0, c.nw / spec.simds_per_cu.value) if traits.persistent
                 else np.ones_like(c.resident))

    # Per K-iteration cycles of one workgroup on a CU.
    flops_clk = dev.flops_per_clk_per_cu(dtype)
    rate = dev.model.matrix_efficiency.value * np.where(wgmma | amd, 1.0, dev.model.fallback_matrix_efficiency.value)
    c.compute_clk = 2 * c.bm * c.bn * c.bk / (flops_clk * rate)
    # The matrix pipe a further co-resident workgroup adds (T20, `pipes_clk` below): without the fallback share,
    # which is a lone workgroup's own gaps, not the pipe's rate.
    mma_pipe_clk = 2 * c.bm * c.bn * c.bk / (flops_clk * dev.model.matrix_efficiency.value)
    # Operand reads from LDS: each warp reads its A rows and B columns (mma.sync, MFMA); a
    # warpgroup's wgmma reads A once per 64 rows and B once per 64-row instruction.
    a_reads = np.where(wgmma, c.bm * c.bk * a_b, c.nw * wm * c.bk * a_b)
    b_reads = np.where(wgmma, np.ceil(c.bm / 64) * c.bn * c.bk * a_b, c.nw * wn * c.bk * a_b)
    if amd:  # an MN-major operand comes out of LDS through the 64-bit transposing reads: half the rate
        a_reads = a_reads * (1 if traits.a_k_major else 2)
        b_reads = b_reads * (1 if traits.b_k_major else 2)
    op_bytes = a_reads + b_reads
    lds_clk_rate = model.lds_bytes_per_clk_per_cu.value
    if amd and dev.arch == "gfx942":  # kpack=2 turns 64-bit LDS reads into 128-bit ones (AMD Triton docs)
        lds_clk_rate = np.where(c.kpack == 2, lds_clk_rate, lds_clk_rate / 2)
    # fp8 wgmma reads its operands K-major only (PTX ISA: the transpose bits are for 16-bit types);
    # an MN-major fp8 tile is transposed on its way into shared memory every K-step, a cost that
    # grows with that tile alone: measured, it makes tall-thin tiles (BM 256, BN 32-64) win.
    # NVIDIA only, and only on the wgmma path: Triton asks for the K-major shared layout for MMAv3
    # alone (AccelerateMatmul: no transpose for 8-bit MMAv3 operands). On mma.sync the tile stays in
    # shared memory as loaded (cp.async) and each warp's fragment reads transpose 16-bit pairs with
    # ldmatrix.trans, the bytes then shuffled in registers: no extra shared-memory traffic. (gfx950's
    # counterpart, the half-rate transposing LDS reads, is in a_reads / b_reads above.)
    # The store itself: the tile comes out of global memory in 16-byte vectors along MN, so
    # min(warp, MN bytes / 16) lanes of a warp lie along MN; written K-major, one byte each, their
    # bytes land 16 rows apart, a whole number of the 128-byte swizzle's 8-row period: one bank,
    # and the store serializes over those lanes (bank conflicts growing with BN: measured, the
    # nn fp8 cost per byte rises ~4x from BN 64 to BN 256 at 12288x12288x32), but over no fewer than
    # FP8_TRANSPOSE_MIN_LANES (T15: BN 32 and BN 64 measure alike per byte; a warp's byte store
    # takes that many shared-memory passes however few of its lanes conflict).
    if not amd and a_b == 1:
        lanes_a = np.maximum(FP8_TRANSPOSE_MIN_LANES, np.minimum(lanes, c.bm * a_b / 16))
        lanes_b = np.maximum(FP8_TRANSPOSE_MIN_LANES, np.minimum(lanes, c.bn * a_b / 16))
        transposed = ((0 if traits.b_k_major else c.bn * c.bk * lanes_b)
                      + (0 if traits.a_k_major else c.bm * c.bk * lanes_a))
        op_bytes = op_bytes + np.where(wgmma, FP8_TRANSPOSE_PASSES * transposed * a_b, 0.0)
        c.transpose_b_clk = np.where(wgmma, FP8_TRANSPOSE_PASSES * (0 if traits.b_k_major else c.bn * c.bk * lanes_b)
                                     * a_b, 0.0) / lds_clk_rate
    else:
        c.transpose_b_clk = np.zeros_like(c.bm)
    c.lds_clk = op_bytes / lds_clk_rate
    # sm_90's wgmma tiles (NVIDIA only; measured per K-step on the H200's fit rows, the evidence note
    # of 2026-12-01, sixth look): a K-step costs its math at the datasheet rate plus the bytes
    # cp.async lands in shared memory for the next stages at the shared memory's bandwidth
    # (lds_bytes_per_clk_per_cu), one after the other, not overlapped: 16-bit tiles measure
    # 0.56-0.63 of the peak in that proportion (two 128x128x64 workgroups 909 clk per K-step for
    # 512 of math and 32 KiB landed; one 256x128x64 1637-1668 for 1024 and 48 KiB). fp8 tiles measure
    # a flat share of their (twice as fast) datasheet rate instead, whatever they land
    # (128x128x128 two resident and 256x128x64 alone both ~729 clk for 512 of math):
    # [model] wgmma_fp8_efficiency, the larger of the two binds.
    if not amd:
        math_clk = 2 * c.bm * c.bn * c.bk / flops_clk
        wg_clk = math_clk + tile_bytes / lds_clk_rate
        if a_b == 1 and model.wgmma_fp8_efficiency is not None:
            wg_clk = np.maximum(wg_clk, math_clk / model.wgmma_fp8_efficiency.value)
        # 16-bit wgmma with a row-major B (Triton's nn kernel: A K-major, B MN-major, read by wgmma with its
        # transpose bit; evidence note of 2026-12-01, eleventh look, T14): the K-step is bound by the shared
        # memory's traffic, wgmma's operand reads (op_bytes: A once, B once per 64-row instruction) and the
        # bytes cp.async lands, together at [model] wgmma_mn_major_smem_bytes_per_clk, or by the math if that
        # is longer. Measured on a fit shape (nn bf16 2048x8192x8192): 128x256x64 and 256x128x64 w8 s4 take
        # 1249 and 1398 clk per K-step for 128 and 144 KiB, 105 B/clk both, where math + landed bytes (the
        # form above, measured on nt) prices the two alike (1408) and caps nn at 73% of the peak (it
        # reaches 80%). A 256x128 tile reads B four times per K-step against 128x256's two: that is why
        # 128x256 wins on nn (by 12-18% per K-step on the probe's three fit shapes). K-major B (nt, persistent) stays
        # on the form above: the same probe measures its unserialized K-steps at 72-97 B/clk (bf16), and
        # one figure for every layout moves nt / persistent picks both ways on their fit rows (decode tiles
        # w4 -> w8); AMD has its own LDS terms.
        if (a_b == 2 and traits.layout == "nn" and dev.arch == "sm_90"
                and model.wgmma_mn_major_smem_bytes_per_clk is not None):
            smem_clk = (op_bytes + tile_bytes) / model.wgmma_mn_major_smem_bytes_per_clk.value
            wg_clk = np.maximum(math_clk, smem_clk)
        c.compute_clk = np.where(wgmma, wg_clk, c.compute_clk)
        # fp8 on sm_90's mma.sync path, as Triton 3.9 compiles it for sm_90a (SASS read with cuobjdump; the
        # evidence note of 2026-12-01, seventh look): the fragments are converted to f16 and multiplied by
        # HMMA.16816.F32, so the math runs at the 16-bit rate; every element of both operands' fragments
        # is converted (F2FP.F16.E4M3.UNPACK_B, two per instruction) in either layout, at the SM's
        # conversion throughput ([spec] conversions_per_clk_per_cu); an MN-major operand's fragment is
        # read out of shared memory a byte per lane (LDS.U8, no ldmatrix), at [model]
        # mma_byte_loads_per_clk_per_cu bytes per clock. Three pipes (tensor, conversion, shared
        # memory) fed by the same warps: the busiest binds.
        if (dev.arch == "sm_90" and a_b == 1 and spec.conversions_per_clk_per_cu is not None
                and model.mma_byte_loads_per_clk_per_cu is not None):
            v2_m, v2_n = _mma_v2_warps(c.bm, c.bn, c.nw)
            frag_m, frag_n = c.bm / v2_m, c.bn / v2_n  # rows of A and columns of B per warp
            hmma_clk = c.compute_clk * flops_clk / dev.flops_per_clk_per_cu("fp16")
            convert_clk = c.nw * (frag_m + frag_n) * c.bk / 2 / spec.conversions_per_clk_per_cu.value
            mn_bytes = c.nw * ((0 if traits.b_k_major else frag_n) + (0 if traits.a_k_major else frag_m)) * c.bk
            byte_load_clk = mn_bytes / model.mma_byte_loads_per_clk_per_cu.value
            c.compute_clk = np.where(wgmma, c.compute_clk, np.maximum.reduce([hmma_clk, convert_clk, byte_load_clk]))
            mma_pipe_clk = np.maximum.reduce([mma_pipe_clk * flops_clk / dev.flops_per_clk_per_cu("fp16"),
                                              convert_clk, byte_load_clk])
    # An MN-major fp8 operand on sm_90's wgmma path (Triton 3.9's sm_90a SASS, the evidence note's seventh
    # look): it is not cp.async-pipelined like the K-major one but loaded into registers (LDG.E.128) in
    # the K-step that stores it transposed into its one shared buffer (STS.U8) and feeds it to wgmma
    # (waited to zero): each K-step of the workgroup waits one memory latency ([model] dram_latency_ns),
    # which only other resident workgroups hide (evaluate's `own`).
    mn_major_fp8 = not amd and a_b == 1 and not (traits.a_k_major and traits.b_k_major)
    c.exposed_latencies = np.where(wgmma, 1.0, 0.0) if mn_major_fp8 else np.zeros_like(c.bm)
    # The loop overhead a workgroup cannot hide alone (evaluate's `own`) is its warps' work: on a
    # wgmma tile each warpgroup (a warp per SM sub-partition) runs its own share of it, so a lone
    # 8-warp workgroup waits half as long (measured, lone 128x128x64 bf16: w4 ~260 clk per K-step over
    # two resident workgroups, w8 ~100-115).
    c.overhead_share = np.where(wgmma, 1.0 / np.maximum(1.0, c.nw / spec.simds_per_cu.value), 1.0)
    # Serialized wgmma (sm_90; read from Triton 3.6.0's sm_90a compiles, the Triton the H200 sweeps ran, with
    # its ptxas of CUDA 12.8; the evidence note of 2026-12-01, eighth look): in the one-tile-per-program kernel
    # with both operands K-major, a BN-256 tile on 8 warps compiles with every wgmma waited to completion
    # before the next (ptxas C7515, "wgmma.mma_async instructions are serialized due to non wgmma
    # instructions defining accumulator registers"), where its BM-256 twin, the persistent kernel and a
    # row-major B keep one wgmma group in flight; 4 warps do too. Only when the output's row stride is
    # 16-divisible (evaluate): with N off a multiple of 16 the same tile compiles unserialized. Each K-step
    # of such a workgroup gains [model] wgmma_serialized_clk in its own time. Triton 3.9.0's compile of the
    # same kernel is not serialized (seventh look): the term follows the kernel's Triton (Traits.triton).
    serializes = (wgmma & (c.bn >= 256) & (c.nw == 8) & traits.a_k_major & traits.b_k_major
                  & (not traits.persistent) & (dev.arch == "sm_90") & traits.serializes_wide_wgmma)
    c.serialized_clk = (np.where(serializes, model.wgmma_serialized_clk.value, 0.0)
                        if model.wgmma_serialized_clk is not None else np.zeros_like(c.bm))
    c.pipelined = c.ns >= 2
    _scalar_b_costs(c, dev, traits, threads)
    _compiled_aligned_costs(c, dev, traits, threads)
    # T20: what each further co-resident workgroup adds to the SM's K-step where the lone step is measured
    # (`_lone_step_costs`): its busiest pipe, the core of a wgmma tile, on mma.sync the matrix pipe at its rate
    # (fp8: or the conversions, or the byte loads), or its shared-memory reads.
    c.pipes_clk = np.maximum(np.where(wgmma, c.compute_clk, mma_pipe_clk), c.lds_clk)
    _lone_step_costs(c, dev, traits)


def _residency(spec, lds, nw, regs, threads, persistent: bool) -> np.ndarray:
    """Workgroups resident per CU: LDS, warps, registers (per lane, as allocated) and the hardware's
    block limit, whichever binds first; one for a persistent kernel (one program per CU)."""
    by_lds = np.floor(spec.lds_bytes_per_cu.value / lds)
    by_waves = np.floor(spec.max_waves_per_cu.value / nw)
    by_regs = np.floor(spec.register_bytes_per_cu.value / (regs * 4 * threads))
    resident = np.maximum(1, np.minimum.reduce([by_lds, by_waves, by_regs, np.full_like(by_lds, MAX_WORKGROUPS_PER_CU)]))
    return np.ones_like(resident) if persistent else resident


def _compiled_rows(table: dict[str, CompiledResources], c: Candidates) -> Iterator[tuple[int, CompiledResources]]:
    """(index, compile) of each candidate a compile table holds (keyed `BMxBNxBK wW sS`)."""
    for i, cfg in enumerate(c.configs):
        row = table.get(f"{cfg.block_m}x{cfg.block_n}x{cfg.block_k} w{cfg.num_warps} s{cfg.num_stages}")
        if row is not None:
            yield i, row


def _compiled_legal(c: Candidates, i: int, row: CompiledResources, spec) -> bool:
    """Candidate i as compiled: legal for its shape, not spilling past SCALAR_B_STACK_MAX_BYTES, its shared
    memory within a workgroup's."""
    return bool(c.shape_legal[i] and row.stack_bytes <= SCALAR_B_STACK_MAX_BYTES
                and row.shared_bytes <= spec.lds_bytes_per_workgroup.value)


def _compiled_aligned_costs(c: Candidates, dev: Device, traits: Traits, threads: np.ndarray) -> None:
    """T19 (fifteenth look): registers, shared memory and legality as Triton compiled the kernel at N on 16.

    Where the kernel's Triton release and target have a table of the nn kernel compiled with M, N, K and the strides
    16-divisible (`compiled_aligned`: Triton 3.6 on sm_90, fp8, every config of the H200 space; the evidence note of
    2026-12-01, fifteenth look), the compile decides the resources the count above estimated, as T16 does at N off 16:
    registers and shared memory as compiled give the residency, and a config whose compile spills past
    SCALAR_B_STACK_MAX_BYTES is ruled out. What the count got wrong, read from the table (fp8, 420 configs): every
    config compiles to less shared memory than num_stages buffers of the A and B tiles (mma.sync tiles allocate
    num_stages - 1: 16x64x128 w4 s4 30 KiB against 40; wgmma tiles 1.2-4.6 tiles' worth, 256x64x128 w8 s2 72 KiB
    against 80), and 168 of 236 wgmma configs compile to more registers than counted (256x64x64 w4 s3: 226 against
    168, so two resident, not three); the residency rises for 229 configs and falls for 16, and one more config is
    ruled out (it spills). The scalar-B arrays (N off 16) keep their own table; configs the table lacks keep the count.
    """
    table = compiled_aligned(traits, dev.arch, c.dtype)
    if table is None:
        return
    spec = dev.spec
    compiled = np.zeros_like(c.bm, dtype=bool)
    regs, lds = c.regs.copy(), c.lds.copy()
    for i, row in _compiled_rows(table, c):
        compiled[i] = True
        regs[i], lds[i] = row.registers, row.shared_bytes
        c.legal[i] = _compiled_legal(c, i, row, spec)
    granule = spec.vgpr_granule.value
    resident = _residency(spec, lds, c.nw, np.ceil(regs / granule) * granule, threads, traits.persistent)
    c.regs, c.lds = np.where(compiled, regs, c.regs), np.where(compiled, lds, c.lds)
    c.resident = np.where(compiled, resident, c.resident)


def _lone_step_costs(c: Candidates, dev: Device, traits: Traits) -> None:
    """T20: the K-step of a lone mma.sync workgroup per SM as measured, where the kernel's Triton release and target
    have a table of it.

    `lone_steps` (Triton 3.6 on sm_90, the nn kernel at N on 16: bench/perfmodel_lone_steps.py timed every config with
    BM 16, 32 and 64 on the H200 at M = BM, N = 132 x BN, one workgroup on each SM, the slope of the time over K; the
    evidence note of 2026-12-02, sixteenth section) gives c.lone_clk, the SM's K-step with one workgroup on each SM, for
    the configs that run on mma.sync (not `wgmma`: BM 16 and 32); NaN elsewhere, and those keep the analytical step.
    evaluate prices a covered config's SM K-step as the lone step plus `pipes_clk` for each further co-resident
    workgroup. A lone mma.sync workgroup's K-step is its own chain (its loads waited at latency, its conversions, byte
    loads and mma.sync one after the other), which the model's throughput terms do not give: on the fp8 fit rows
    their lone step is 0.41-2.0 of the one read from the same rows, and the measured table agrees with those
    readings within ~10% (BK 256's irregular stage counts included). The others' K-steps add their pipes (median
    0.92 of the marginal read on those rows). wgmma tiles (BM >= 64) keep the analytical step: with the table's lone
    step and pipes they fall on the 16-bit fit rows at M > 64 (0.962 -> 0.949), where many resident workgroups
    overlap better than one pipe each.
    """
    c.lone_clk = np.full_like(c.bm, np.nan)
    table = lone_steps(traits, dev.arch, c.dtype)
    if table is not None:
        for i, row in _compiled_rows(table, c):
            if not c.wgmma[i]:
                c.lone_clk[i] = row.lone_clk
    measured = ~np.isnan(c.lone_clk)
    c.lone_measured = measured if measured.any() else None  # evaluate's mask (shape-independent); None: no config


def _scalar_b_costs(c: Candidates, dev: Device, traits: Traits, threads: np.ndarray) -> None:
    """The same configs when a row-major B's row (N) is not a multiple of 16 elements (T13, sm_90).

    Read from Triton 3.6.0's sm_90a compiles of bench/gemm_kernel.py's nn kernel (the Triton the H200
    sweeps ran; pointers, K and A's stride marked 16-divisible, N and B's stride not, as Triton
    specializes N = 5000; the evidence note of 2026-12-01, ninth look). Triton cannot prove 16-byte
    runs along N, so B is loaded one element per lane (LDG.E.U16 / LDG.E.U8: B's BK x BN elements over
    the threads, one load each per K-step, in 16 configs read), in the K-step that uses it, into one
    shared buffer (81920 B = 4 A stages + 1 B at 128x128x64 s4): the loop waits for those loads, stores
    them (STS.U16 / STS.U8 one per element; fp8 wgmma packs bytes into stmatrix, its transposing store
    already priced above), then runs the K-step's wgmma / mma.sync waited to zero. So per K-step:
    - one memory latency ([model] dram_latency_ns) in the workgroup's own time, as T11;
    - the scalar loads and stores issued through the SM's L1 / shared memory, one warp-wide access
      of [spec] lds_banks lanes per clock (lds_bytes_per_clk_per_cu = 32 banks x 4 B);
    - registers: each loaded element holds a 64-bit address and its value (the SASS gives every
      LDG its own address pair): 3 more per element a thread loads. Where that passes the 255 cap
      the config is ruled out, as the model rules out any config it expects to spill (of 79
      configs compiled, none of the 52 under the cap spilled; 13 of the 27 over it did, up to
      712 B of stack at 256x128x128 bf16 and 6 KB on mma.sync 32x256x128 fp8);
    - shared memory: num_stages A tiles and one B tile.
    nt is not affected (its B stride is K; compiled unchanged: same LDGSTS, registers, shared memory),
    nor any other device here (not compiled). Evaluate uses these arrays when N % 16 != 0.

    T16 (the evidence note's twelfth look) replaces the count where the kernel's Triton release and target have a
    table of compiled resources (`compiled_scalar_b`: Triton 3.6 on sm_90, every config of the H200 space): the
    count rules out configs that compile to 255 registers without a stack and win (fp8 128x128x64 w4 s3, bf16
    256x128x64 w8 s3), and keeps 16x128x32 w4 s3, which compiles to 56 registers that wait 8 latencies per K-step.
    It also prices, for every N-off-16 config, B's scalar loads as warp-wide requests through the SM
    ([model] scalar_load_request_clk per request, in evaluate's loads), the growth of the K-step with B's
    elements that one latency per K-step left unpriced.
    """
    c.scalar_b = (not traits.b_k_major) and dev.vendor == "nvidia" and dev.arch == "sm_90"
    if not c.scalar_b:
        return
    spec, a_b = dev.spec, ELEM_BYTES[c.dtype]
    elems = c.bn * c.bk  # B elements per K-step, one scalar load (and one store) each
    fp8_wgmma = c.wgmma & (a_b == 1)
    accesses = elems * np.where(fp8_wgmma, 1.0, 2.0)
    lds_clk = c.lds_clk + accesses / spec.lds_banks.value
    requests = elems / dev.wave_size  # warp-wide scalar loads of B per K-step (T16)
    regs = c.regs + 3 * elems / threads
    legal = c.legal & (regs <= spec.max_registers_per_lane.value)
    lds = np.maximum(1, c.ns) * c.bm * c.bk * a_b + elems * a_b
    rounds = np.ones_like(c.bm)
    constant_loads = np.zeros_like(c.bm)
    compiled = np.zeros_like(c.bm, dtype=bool)
    # T16 (twelfth look): where a table of the kernel's compiles for its Triton release and target has the config,
    # the compile decides what T13 counted: registers and shared memory as compiled (residency), ruled out only
    # when it spills past SCALAR_B_STACK_MAX_BYTES; the memory latencies a K-step waits, from the order of the
    # loop's loads and stores (one where every load is issued before the first store; 8 at bf16 16x128x32 w4 s3,
    # 56 registers, which interleaves them); its spill traffic (LDL / STL per K-step) as warp-wide requests like
    # B's loads; and no transposing byte store for an fp8 wgmma tile whose loop packs B's bytes along K into
    # 16-byte stores (no STS.U8 in the loop: 71 of 232 fp8 wgmma configs; the others store per byte, T2 stays).
    table = compiled_scalar_b(traits, dev.arch, c.dtype)
    if table is not None:
        for i, row in _compiled_rows(table, c):
            compiled[i] = True
            regs[i], lds[i] = row.registers, row.shared_bytes
            legal[i] = _compiled_legal(c, i, row, spec)
            requests[i] += row.loop_local_accesses * c.configs[i].num_warps
            rounds[i] = max(1.0, row.loop_latency_rounds)
            constant_loads[i] = row.loop_constant_loads
            if fp8_wgmma[i] and row.loop_byte_stores == 0:
                lds_clk[i] -= c.transpose_b_clk[i]
    c.scalar_b_legal, c.scalar_b_lds_clk, c.scalar_b_requests = legal, lds_clk, requests
    granule = spec.vgpr_granule.value
    c.scalar_b_resident = _residency(spec, lds, c.nw, np.ceil(regs / granule) * granule, threads, traits.persistent)
    c.scalar_b_regs, c.scalar_b_lds = regs, lds
    c.scalar_b_latencies = rounds
    # T17 (thirteenth look): a compile short of registers rematerializes B's row addresses in the loop, each from
    # B's row stride reloaded out of the constant bank (LDC c[0x0][0x238], then IMAD and IMAD.WIDE, then the
    # scalar LDG): bf16 128x128x64 w4 s3 has 53 such LDC per K-step, its 255-register twin 64x128x64 w4 s3 two.
    # Each sits on its load's address chain, so the K-step's loads issue one constant-load latency apart:
    # evaluate adds loop_constant_loads x [model] scalar_b_constant_load_clk to the workgroup's own time.
    c.scalar_b_constant_loads = constant_loads
    c.scalar_b_compiled = compiled
    # T18 (fourteenth look; 16-bit dtypes, configs the table has, scalar_b_compiled): the loop issues all of a K-step's scalar loads
    # of B (LDG.E.U16, one warp-wide request each), then waits for them (latency_rounds), then stores them (STS.U16)
    # and runs the K-step's wgmma waited to zero: one chain per workgroup, so evaluate puts the workgroup's own
    # requests (scalar_b_requests x scalar_load_request_clk) in its own time, next to the wait, and the wait is the
    # scalar load's latency ([model] scalar_b_latency_clk), not the pipelined loads' effective DRAM latency
    # (dram_latency_ns, fitted on nt's cp.async pipeline). Measured on the nn bf16 / fp16 fit rows at N off 16 with
    # several waves (bf16 1000x50257x1600): one resident 256x128x64 w8 s3 K-step 4264 clk = 1404 core + 304 requests
    # x 5 + ~1300; two resident 128x128x32 w4 s3 2196 clk per pair of K-steps where the model without T18 said 3332
    # (its own time: 448 core + 2449 latency, requests not in it); the model without T18 priced every tile but the
    # one-resident BM/BN-256 w8 ones 1.3-1.5x too slow and picked those (0.70-0.81 of the best on MID shapes).


@dataclass(frozen=True)
class CompiledResources:
    """One config's resources as a Triton release compiled it (a row of a porter/perfmodel/data table)."""

    registers: int
    stack_bytes: int
    shared_bytes: int
    loop_instructions: int
    loop_scalar_b_loads: int
    loop_local_accesses: int
    loop_byte_stores: int
    loop_latency_rounds: float
    loop_constant_loads: int


@dataclass(frozen=True)
class LoneStep:
    """One config's K-step per SM as measured (a row of a porter/perfmodel/data lone-step table; clk at the model's
    clock): one workgroup per SM on all SMs, the same on a quarter of them, two and three per SM; and the r = 1
    time at the middle K over the line through the two ends (1.0: linear in K)."""

    lone_clk: float
    lone_quarter_clk: float
    step2_clk: float
    step3_clk: float
    linearity: float


# Tables of compiled resources: (Triton release, target arch, layout) -> the data file. Each file says how it was made.
COMPILED_TABLES = {((3, 6), "sm_90", "nn"): "triton-3.6-sm90a-nn-scalar-b.json"}
# T19: tables of the same kernel compiled at N on 16 (M, N, K and the strides 16-divisible), keyed alike.
COMPILED_ALIGNED_TABLES = {((3, 6), "sm_90", "nn"): "triton-3.6-sm90a-nn-aligned.json"}
# T20: tables of the nn kernel's lone K-step measured at N on 16 (bench/perfmodel_lone_steps.py), keyed alike.
LONE_STEP_TABLES = {((3, 6), "sm_90", "nn"): "triton-3.6-sm90a-nn-lone.json"}
# The release the sm_90 terms were measured with, assumed where Traits.triton is unknown (as serializes_wide_wgmma).
ASSUMED_TRITON = (3, 6)


def compiled_scalar_b(traits: Traits, arch: str, dtype: str) -> dict[str, CompiledResources] | None:
    """The compiled resources of the nn kernel at N off 16 for the kernel's Triton release and target, per config
    label "BMxBNxBK wW sS"; None where no table matches (the model then keeps T13's count)."""
    name = COMPILED_TABLES.get((traits.triton or ASSUMED_TRITON, arch, traits.layout))
    return None if name is None else _load_table(name).get(dtype)


def compiled_aligned(traits: Traits, arch: str, dtype: str) -> dict[str, CompiledResources] | None:
    """The compiled resources of the nn kernel at N on 16 (T19) for the kernel's Triton release and target, per config
    label "BMxBNxBK wW sS"; None where no table matches or the table lacks the dtype (the model then keeps its count)."""
    name = COMPILED_ALIGNED_TABLES.get((traits.triton or ASSUMED_TRITON, arch, traits.layout))
    return None if name is None else _load_table(name).get(dtype)


def lone_steps(traits: Traits, arch: str, dtype: str) -> dict[str, LoneStep] | None:
    """The measured lone K-steps of the nn kernel at N on 16 (T20) for the kernel's Triton release and target, per
    config label "BMxBNxBK wW sS"; None where no table matches or the table lacks the dtype (the model then keeps its
    analytical step)."""
    name = LONE_STEP_TABLES.get((traits.triton or ASSUMED_TRITON, arch, traits.layout))
    return None if name is None else _load_table(name, LoneStep).get(dtype)


@cache
def _load_table(name: str, row_type: type | None = None) -> dict[str, dict]:
    """A porter/perfmodel/data table: per dtype, config label -> a row_type (CompiledResources unless said)."""
    row_type = row_type or CompiledResources
    data = json.loads((resources.files(__package__) / "data" / name).read_text())
    cols = data["columns"]
    return {dt: {cfg: row_type(**dict(zip(cols, row))) for cfg, row in rows.items()}
            for dt, rows in data["configs"].items()}


class LaunchConfig(Protocol):
    """A kernel's launch configuration as a prediction names it: a GemmConfig, or roofline's RowConfig."""

    def knobs(self, vendor: str) -> dict[str, int]: ...

    def label(self) -> str: ...


@dataclass(frozen=True)
class Prediction:
    """The model's view of one config on one shape. Times in seconds."""

    config: LaunchConfig
    time_s: float
    tflops: float
    bound: str  # compute, lds, memory-latency, l2, dram, mall
    waves: int  # timesteps of workgroups over the device
    resident: int  # workgroups per CU
    lds_bytes: int
    registers: int  # estimated per lane
    utilization: float  # useful MNK / launched MNK


BOUNDS = ("compute", "lds", "memory-latency", "l2", "dram", "mall")


def evaluate(problem: Gemm, c: Candidates) -> tuple[np.ndarray, np.ndarray]:
    """Predicted seconds for every candidate (inf where illegal), and the index of what binds."""
    dev, a_b, o_b = c.device, ELEM_BYTES[problem.dtype], OUT_BYTES[problem.dtype]
    if problem.dtype != c.dtype or problem.traits != c.traits:
        raise ValueError(f"candidates were built for {c.dtype} {c.traits.label()}, "
                         f"problem is {problem.dtype} {problem.traits.label()}")
    m, n, k = problem.m, problem.n, problem.k
    clk = dev.clock_hz
    cus = dev.cus
    latency = dev.model.dram_latency_ns.value * 1e-9
    cu_bw = dev.model.l2_bytes_per_clk_per_cu.value * clk
    overhead = dev.model.iteration_overhead_clk.value / clk
    exposed = None if dev.model.dram_exposed_share is None else dev.model.dram_exposed_share.value
    tiles_m, tiles_n = np.ceil(m / c.bm), np.ceil(n / c.bn)
    tiles = tiles_m * tiles_n
    iters = np.ceil(k / c.bk)
    # Bytes a K-step loads: rows and columns past the matrix edge are masked, never fetched.
    tile_bytes = (np.minimum(c.bm, m) + np.minimum(c.bn, n)) * c.bk * a_b
    scalar_b = c.scalar_b_at(n)  # T13: B row-major with N off 16 (_scalar_b_costs)
    legal, resident, _, _ = c.resources(n)
    request_clk = 0.0 if dev.model.scalar_load_request_clk is None else dev.model.scalar_load_request_clk.value
    constant_clk = (0.0 if dev.model.scalar_b_constant_load_clk is None
                    else dev.model.scalar_b_constant_load_clk.value)
    scalar_latency = (None if dev.model.scalar_b_latency_clk is None
                      else dev.model.scalar_b_latency_clk.value / clk)
    lds_clk = c.scalar_b_lds_clk if scalar_b else c.lds_clk
    exposed_latencies = np.maximum(c.exposed_latencies, c.scalar_b_latencies) if scalar_b else c.exposed_latencies
    slots = cus * resident
    fetch = dev.model.dram_fetch_bytes.value
    # DRAM units moved per useful unit of each operand (see `unique` below): one K-step of a tile
    # reads each of its rows in one contiguous run, BK elements long for a K-major operand (unless
    # that step covers the whole of K: then the tile's rows join into one block) and BM or BN long
    # for an MN-major one. A run shorter than the L2's fetch unit costs the whole unit.
    k_run = np.where(c.bk < k, np.maximum(1.0, fetch / (c.bk * a_b)), 1.0)
    a_run = k_run if c.traits.a_k_major else np.maximum(1.0, fetch / (np.minimum(c.bm, m) * a_b))
    b_run = k_run if c.traits.b_k_major else np.maximum(1.0, fetch / (np.minimum(c.bn, n) * a_b))
    # K-steps in flight per workgroup: (stages - 1), but never more than the loop has. Triton's
    # pipeliners (NVIDIA's and AMD's stream pipeliner alike) issue the prologue loads for the first
    # stages - 1 iterations and predicate off those past the last one; the LDS stays allocated.
    depth = np.maximum(1, np.minimum(c.ns - 1, iters))
    # Serialized wgmma (see _tile_costs) only where the output's row stride (N) is 16-divisible.
    serialized = c.serialized_clk / clk if n % 16 == 0 else np.zeros_like(c.serialized_clk)

    # T20 (`_lone_step_costs`): the configs whose lone K-step is measured, at N on 16 (B's cp.async loads).
    lone = c.lone_measured if n % 16 == 0 and not scalar_b else None

    # Waves: full ones with `resident` workgroups per CU, then a last one with fewer.
    full = np.floor(tiles / slots)
    rest = tiles - full * slots
    per_cu_last = np.ceil(rest / cus)

    def wave_time(per_cu, active):
        """Seconds for one wave with `per_cu` workgroups on each busy CU, `active` in all; and what binds."""
        compute = per_cu * c.compute_clk / clk
        lds = per_cu * lds_clk / clk
        # Global loads of one K-step for the CU's workgroups: the bytes at the CU's L2 bandwidth,
        # and, with `depth` steps in flight per workgroup, one latency per that many steps.
        transfer = per_cu * tile_bytes / cu_bw
        if scalar_b:  # T16: B's scalar loads (and spill traffic) go through the SM one warp-wide request at a time
            transfer = transfer + per_cu * c.scalar_b_requests * request_clk / clk
        load = np.maximum(transfer, (latency + transfer) / depth)
        core = np.maximum(compute, lds)
        # The CU's matrix unit is shared by its workgroups, but each workgroup also waits on its
        # own loop overhead (barriers, waits for its operands): one workgroup alone cannot fill
        # the unit; a second one fills the first one's gaps (c.streams: a persistent kernel's
        # warpgroups do it instead), and so does any load latency it waits out
        # un-pipelined (c.exposed_latencies).
        own = (core / (per_cu * c.streams) + overhead * c.overhead_share + exposed_latencies * latency
               + serialized)
        if scalar_b:  # T17: B's row addresses rebuilt from constant loads, one latency apart (_scalar_b_costs)
            own = own + c.scalar_b_constant_loads * constant_clk / clk
        if scalar_b and a_b == 2 and scalar_latency is not None:
            # T18 (fourteenth look): a 16-bit scalar-B K-step is a chain in the workgroup's own time: its B requests
            # issue one warp-wide load at a time, then it waits its latency rounds at the scalar load's latency
            # ([model] scalar_b_latency_clk), then stores and multiplies (core). (_scalar_b_costs says why.)
            own = np.where(c.scalar_b_compiled, own - exposed_latencies * latency + exposed_latencies * scalar_latency
                           + c.scalar_b_requests * request_clk / clk, own)
        busy = np.maximum(core, own)
        step = np.where(c.pipelined, np.maximum(busy, load), busy + load)
        per_iter_bound = np.select([step < load * 1.0001, core == compute], [2, 0], 1)
        if lone is not None:
            # T20: where the lone K-step is measured, the SM's K-step is it plus each further workgroup's pipes,
            # or the CU's L2 transfer if that is longer.
            measured = np.maximum((c.lone_clk + (per_cu - 1) * c.pipes_clk) / clk, transfer)
            step = np.where(lone, measured, step)
            per_iter_bound = np.where(lone, np.where(measured < transfer * 1.0001, 2, 0), per_iter_bound)
        cu_time = iters * step + latency + per_cu * c.bm * c.bn * o_b / cu_bw
        # Device-wide: every tile load crosses L2; unique panels come from DRAM (or the MALL).
        l2_bytes = active * iters * tile_bytes
        rows = np.minimum(tiles_m, np.minimum(c.gm, active) * np.ceil(active / (c.gm * tiles_n)))
        cols = np.minimum(tiles_n, np.ceil(active / np.minimum(c.gm, tiles_m)))
        # Each operand streams out of DRAM in runs of one tile row per K-step (a_run / b_run); a run
        # shorter than the L2's fetch unit moves the whole unit (both vendors: the device's figure).
        # For a K-major operand the rest of the unit is the next K-step's run of the same row, read
        # a whole K-step later, after the other rows' runs: a separate DRAM access to the unit again
        # (measured, H200 bf16 262144x32x128, DRAM-bound: BK 32, 64-byte runs, 1.2x the time of BK 64
        # in the median of 40 otherwise equal configs; without this the model ranked them equal).
        unique = (np.minimum(rows * c.bm, m) * a_run + np.minimum(cols * c.bn, n) * b_run) * k * a_b
        whole = (m + n) * k * a_b
        share = active / tiles
        out = active * c.bm * c.bn * o_b
        hbm = dev.spec.hbm_tbps.value * 1e12
        l2_time = l2_bytes / (dev.model.l2_tbps.value * 1e12)
        if dev.vendor == "amd":
            mall_time = np.minimum(dev.xcds * unique, l2_bytes) / (dev.model.mall_tbps.value * 1e12)
            dram_bytes = np.where(whole <= dev.spec.mall_bytes.value, whole * share, unique)
        else:
            mall_time = np.zeros_like(l2_time)
            dram_bytes = np.where(whole <= dev.l2_bytes / 2, whole * share, unique)
        dram_time = (dram_bytes + out) / hbm
        t = np.maximum.reduce([cu_time, l2_time, dram_time, mall_time])
        bound = np.select([t == cu_time, t == l2_time, t == dram_time], [per_iter_bound, 3, 4], 5)
        if exposed is not None:
            # The pipeline does not hide all of the wave's DRAM time behind its other work: the first
            # K-steps of each tile wait on misses, the CTAs that share a panel wait on the same lines.
            t = t + exposed * np.minimum(dram_time, t)
        return t, bound

    t_full, b_full = wave_time(resident, slots)
    t_last, b_last = wave_time(np.maximum(per_cu_last, 1), np.maximum(rest, 1))
    total = full * t_full + np.where(rest > 0, t_last, 0.0) + LAUNCH_OVERHEAD_S
    bound = np.where(full > 0, b_full, b_last)
    return np.where(legal, total, np.inf), bound


def prediction(problem: Gemm, c: Candidates, i: int, seconds: np.ndarray, bound: np.ndarray) -> Prediction:
    cfg = c.configs[i]
    tiles = np.ceil(problem.m / cfg.block_m) * np.ceil(problem.n / cfg.block_n)
    launched = tiles * cfg.block_m * cfg.block_n * np.ceil(problem.k / cfg.block_k) * cfg.block_k
    _, residents, lds_bytes, registers = c.resources(problem.n)
    resident, lds, regs = residents[i], lds_bytes[i], registers[i]
    return Prediction(config=cfg, time_s=float(seconds[i]), tflops=problem.flops / float(seconds[i]) / 1e12,
                      bound=BOUNDS[int(bound[i])], waves=int(np.ceil(tiles / (c.device.cus * resident))),
                      resident=int(resident), lds_bytes=int(lds), registers=int(regs),
                      utilization=float(problem.m * problem.n * problem.k / launched))


def predict(problem: Gemm, config: GemmConfig, dev: Device) -> Prediction:
    """The model on one config. Raises ValueError when the config cannot run on the device."""
    c = Candidates([config], dev, problem.dtype, problem.traits)
    legal, _, lds_bytes, registers = c.resources(problem.n)
    if not legal[0]:
        lds, regs = lds_bytes[0], registers[0]
        raise ValueError(f"{config.label()} is not a legal {problem.dtype} config on {dev.name}"
                         f"{f' at N = {problem.n}' if c.scalar_b_at(problem.n) else ''}: "
                         f"LDS {int(lds)} B (max {int(dev.spec.lds_bytes_per_workgroup.value)}), "
                         f"~{int(regs)} registers per lane")
    seconds, bound = evaluate(problem, c)
    return prediction(problem, c, 0, seconds, bound)
