"""Triton launch configurations re-derived for gfx950, and what the TRI rules read from Triton sources.

Pure functions: `derive(...)` turns the knobs an NVIDIA author chose (num_warps, num_stages, tile sizes) into
  gfx950 knobs. TRI020 (autotune config lists) and TRI021 (launch keyword arguments) apply it.
  For a GEMM-like kernel whose tiles are visible, `model_knobs` lets porter's perfmodel pick
  the knobs for those tiles (below); otherwise AMD's documented defaults for the MI350X apply
  (shared/HARDWARE.md, "Triton on AMD: the knobs"). What the rules read from Triton sources
  (kernels, their dots, import aliases) is porter/triton_source.py.

The defaults, knob by knob (AMD's Triton backend, third_party/amd/backend/compiler.py HIPOptions):
- num_warps counts 64-lane wavefronts on AMD (workgroup = num_warps x 64 threads), 32-lane warps
  on NVIDIA. An NVIDIA count sized the threads of a program (elements per thread, registers per
  thread); halving it keeps that thread count, so the per-thread work and register pressure the
  author chose stay the same. Floor 1; ceiling 16 (1024 threads, the workgroup limit). A GEMM
  keeps at least 4 waves, one per SIMD of the CU, which AMD's GEMM configs use (4 or 8).
- num_stages is the depth of AMD's stream pipeliner, which stages dot operands through LDS:
  2 for a single GEMM, 1 for fused attention (two dots share the loop and their LDS), at most 2
  for kernels without a dot. LDS use ~ (num_stages - 1) x (A tile + B tile) must fit the 160 KiB
  (163,840 B) a gfx950 workgroup may address; a config that does not is cut back to 1.
- waves_per_eu (GEMM only): 0 (no occupancy hint), or 2 when the fp32 accumulator alone takes
  128 or more VGPRs per lane (BLOCK_M x BLOCK_N / (num_warps x 64)): the kernel then sits near the
  256-VGPR step, and the hint keeps it at 2 waves per SIMD instead of 1.
- matrix_instr_nonkdim=16 (16x16 MFMA, the full-rate v_mfma_f32_16x16x32 on gfx950) and kpack=1
  (gfx950 accepts only 1; the backend overwrites anything else with a warning).

The perfmodel pick (issue 6): the tiles are the author's and stay; every legal combination of
num_warps 4/8, num_stages 1-3, waves_per_eu 0/2 and matrix_instr_nonkdim 16/32 (kpack 1) for
them is scored by porter.perfmodel.gemm on a few representative shapes, and the least total
predicted time wins. Fused attention (two dots) keeps the defaults: the GEMM model does not
describe it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import numpy as np

from porter import hardware
from porter.perfmodel.gemm import Candidates, Gemm, GemmConfig, Traits, evaluate


# LLVM AMDGPU: addressable LDS per workgroup on gfx950 (shared/HARDWARE.md, Devices).
LDS_BYTES_GFX950 = 163_840
WAVE = 64
MAX_WAVES_PER_WORKGROUP = 1024 // WAVE
# Operand element size when the source does not say: fp16/bf16, the usual dot operands.
DEFAULT_ELEM_BYTES = 2
AMD_GEMM_EXTRAS = ("waves_per_eu", "matrix_instr_nonkdim", "kpack")
# What a triton.Config or a launch that omits the knob runs with (Triton's defaults).
CONFIG_DEFAULTS = {"num_warps": 4, "num_stages": 3}
# The constexpr names a config or launch gives its tiles under: KernelShape's block_m .. group_m.
TILE_KEYS = {"m": ("BLOCK_M", "BLOCK_SIZE_M"), "n": ("BLOCK_N", "BLOCK_SIZE_N"), "k": ("BLOCK_K", "BLOCK_SIZE_K"),
             "group": ("GROUP_M", "GROUP_SIZE_M")}
NOTE = "AMD defaults"
# What model_knobs scores a tile on: a square GEMM, a decode-like skinny one (16 tokens), and a
# tall one with a narrow N. The pick is the least total time over them.
REPRESENTATIVE_SHAPES = ((4096, 4096, 4096), (16, 4096, 4096), (8192, 1024, 4096))
# The knobs model_knobs tries, in order of preference: on a tie (the model often cannot tell
# num_warps or matrix_instr_nonkdim apart) the first wins, i.e. AMD's usual GEMM config.
KNOB_SPACE = {"num_warps": (4, 8), "num_stages": (2, 1, 3), "waves_per_eu": (0, 2), "matrix_instr_nonkdim": (16, 32)}
# Operand bytes -> the dtype the perfmodel rates. 4 B operands of tl.dot run as tf32 on NVIDIA
# (Triton's default input_precision), which gfx950 has no matrix rate for: defaults then.
MODEL_DTYPES = {2: "bf16", 1: "fp8", 4: "tf32"}
# AMD-only knobs are passed through this helper, which the shim agent defines in the module
# (SHIM030): NVIDIA's backend rejects unknown launch options ("Keyword argument waves_per_eu was
# specified but unrecognised", Triton 3.6 on an H200), and a port must still run there.
AMD_KNOBS_HELPER = "_porter_amd_knobs"


def amd_knobs_splat(knobs: dict[str, int]) -> str:
    """`**_porter_amd_knobs(waves_per_eu=2, ...)`: the knobs on AMD, nothing elsewhere."""
    return f"**{AMD_KNOBS_HELPER}({', '.join(f'{k}={v}' for k, v in knobs.items())})"


@dataclass(frozen=True)
class KernelShape:
    """What the derivation needs to know of a kernel: how many tl.dot it has, and its tiles if visible."""

    dots: int = 0
    block_m: int | None = None
    block_n: int | None = None
    block_k: int | None = None
    group_m: int | None = None  # GROUP_M / GROUP_SIZE_M when the config or launch says
    layout: str = "nn"  # the first tl.dot's operand layout (porter.perfmodel.gemm.LAYOUTS)
    layout_read: bool = False  # read from the kernel's loads, not assumed

    def layout_note(self) -> str:
        how = "read from the kernel's loads" if self.layout_read else "assumed: the strides are runtime arguments"
        return f"layout {self.layout}, {how}"

    @property
    def gemm(self) -> bool:
        return self.dots >= 1

    @property
    def attention(self) -> bool:
        return self.dots >= 2


@dataclass(frozen=True)
class AmdConfig:
    num_warps: int | None
    num_stages: int | None
    waves_per_eu: int | None = None
    matrix_instr_nonkdim: int | None = None
    kpack: int | None = None
    lds_bytes: int | None = None
    origin: str = NOTE  # where the knobs came from, for the rules' messages

    def extras(self) -> dict[str, int]:
        """The AMD-only knobs to add (GEMM-like kernels), in a fixed order."""
        return {k: v for k in AMD_GEMM_EXTRAS if (v := getattr(self, k)) is not None}


def amd_num_warps(nv_warps: int, shape: KernelShape) -> int:
    """Wavefronts for a program an NVIDIA author gave `nv_warps` 32-lane warps: same thread count."""
    waves = max(1, min(MAX_WAVES_PER_WORKGROUP, nv_warps // 2))
    if shape.gemm:
        waves = max(waves, 4)
    return waves


def lds_bytes(shape: KernelShape, num_stages: int, elem_bytes: int = DEFAULT_ELEM_BYTES) -> int | None:
    """LDS the stream pipeliner needs for the dot operands: (num_stages - 1) x (A tile + B tile).

    With num_stages 1 the operands still pass through LDS once (one buffer). None when a tile
    size is not visible in the source.
    """
    if None in (shape.block_m, shape.block_n, shape.block_k):
        return None
    tiles = (shape.block_m * shape.block_k + shape.block_k * shape.block_n) * elem_bytes  # type: ignore[operator]
    return max(1, num_stages - 1) * tiles


def amd_num_stages(nv_stages: int | None, shape: KernelShape, elem_bytes: int = DEFAULT_ELEM_BYTES) -> int | None:
    if shape.attention:
        return 1
    if shape.gemm:
        stages = 2
        need = lds_bytes(shape, stages, elem_bytes)
        if need is not None and need > LDS_BYTES_GFX950:
            stages = 1
        return stages
    if nv_stages is None:
        return None
    return max(1, min(nv_stages, 2))


def amd_waves_per_eu(shape: KernelShape, num_warps: int) -> int:
    if shape.block_m is None or shape.block_n is None:
        return 0
    acc_vgprs = shape.block_m * shape.block_n // (num_warps * WAVE)
    return 2 if acc_vgprs >= 128 else 0


@dataclass(frozen=True)
class KnobChoice:
    """The perfmodel's knobs for one tile (None when it cannot choose), and where they came from."""

    config: GemmConfig | None
    origin: str
    lds_bytes: int | None = None  # what the model counts for the pick


@cache
def model_knobs(shape: KernelShape, elem_bytes: int = DEFAULT_ELEM_BYTES, arch: str = "gfx950") -> KnobChoice:
    """The perfmodel's pick of num_warps, num_stages, waves_per_eu, matrix_instr_nonkdim (kpack 1) for `shape`'s tiles.

    Every combination in KNOB_SPACE is predicted on REPRESENTATIVE_SHAPES; illegal ones (LDS or
    registers overflow) are infinite. The least total time wins; ties go to the earlier entry of
    KNOB_SPACE. No choice (config None, the reason in `origin`) for fused attention, hidden
    tiles, a dtype the device has no matrix rate for, or when no combination is legal.
    """
    if not shape.gemm or shape.attention:
        return KnobChoice(None, NOTE if not shape.gemm else f"{NOTE} (fused attention: no GEMM model)")
    if None in (shape.block_m, shape.block_n, shape.block_k):
        return KnobChoice(None, f"{NOTE} (tile sizes not visible)")
    dev = hardware.get(arch)
    dtype = MODEL_DTYPES.get(elem_bytes, "")
    try:
        dev.peak_tflops(dtype)
    except KeyError:
        return KnobChoice(None, f"{NOTE} (the perfmodel has no {dtype or f'{elem_bytes}-byte'} matrix rate for {arch})")
    configs = [GemmConfig(shape.block_m, shape.block_n, shape.block_k, group_m=shape.group_m or 8,  # type: ignore[arg-type]
                          num_warps=nw, num_stages=ns, waves_per_eu=wpe, matrix_instr_nonkdim=nonk, kpack=1)
               for nw, ns, wpe, nonk in itertools.product(*KNOB_SPACE.values())]
    traits = Traits(shape.layout)
    cands = Candidates(configs, dev, dtype, traits)
    times = [evaluate(Gemm(m, n, k, dtype, traits), cands)[0] for m, n, k in REPRESENTATIVE_SHAPES]
    total = np.sum(times, axis=0)
    best = int(np.argmin(total))  # the first of equal minima
    if not np.isfinite(total[best]):
        return KnobChoice(None, f"{NOTE} (no knob combination for these tiles fits {arch} in the perfmodel)")
    m, n, k = REPRESENTATIVE_SHAPES[0]
    return KnobChoice(configs[best], f"perfmodel pick for {arch} ({times[0][best] * 1e6:.1f} us predicted at {m}x{n}x{k}; "
                                     f"{shape.layout_note()})", int(cands.lds[best]))


def derive(nv_warps: int | None, nv_stages: int | None, shape: KernelShape,
           elem_bytes: int = DEFAULT_ELEM_BYTES) -> AmdConfig:
    """The gfx950 knobs for one NVIDIA config (None where the source left a knob to its default).

    A GEMM-like kernel always gets num_stages (Config's default is 3, deeper than AMD's 2) and the
    AMD-only knobs: the perfmodel's pick when it can make one (model_knobs), else AMD's defaults.
    Other kernels only have the knobs their author wrote re-derived.
    """
    warps = amd_num_warps(nv_warps, shape) if nv_warps is not None else None
    stages = amd_num_stages(nv_stages, shape, elem_bytes)
    if not shape.gemm:
        return AmdConfig(warps, stages)
    choice = model_knobs(shape, elem_bytes)
    if choice.config is not None:
        c = choice.config
        return AmdConfig(c.num_warps, c.num_stages, waves_per_eu=c.waves_per_eu,
                         matrix_instr_nonkdim=c.matrix_instr_nonkdim, kpack=c.kpack,
                         lds_bytes=choice.lds_bytes, origin=choice.origin)
    waves_for_acc = warps if warps is not None else 4  # Config's default num_warps
    return AmdConfig(warps, stages, waves_per_eu=amd_waves_per_eu(shape, waves_for_acc),
                     matrix_instr_nonkdim=16, kpack=1, lds_bytes=lds_bytes(shape, stages or 1, elem_bytes),
                     origin=choice.origin)
