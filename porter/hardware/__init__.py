"""Devices as data: one TOML file per device under data/, every value with its source.

The perfmodel reads nothing else about a GPU. Values follow ../shared/HARDWARE.md's
conventions: a source that starts with "(d)" is derived (clock x per-unit rate), one with "?"
is a third-party figure or an estimate and stays marked as such wherever it is shown.

    >>> from porter import hardware
    >>> hardware.get("gfx950").name
    'MI350X'
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DTYPES = ("bf16", "fp16", "fp8", "fp6", "fp4", "tf32", "fp32")


class Sourced(BaseModel):
    """One number and where it comes from."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    value: float
    source: str

    @property
    def uncertain(self) -> bool:
        return self.source.startswith("?")


class Spec(BaseModel):
    """What the datasheets and the compilers say. Per-CU figures use "CU" for an NVIDIA SM too."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    compute_units: Sourced
    xcds: Sourced
    simds_per_cu: Sourced
    wave_size: Sourced
    clock_mhz: Sourced
    max_waves_per_cu: Sourced
    register_bytes_per_cu: Sourced
    max_registers_per_lane: Sourced
    lds_bytes_per_cu: Sourced
    lds_bytes_per_workgroup: Sourced
    lds_banks: Sourced  # 4-byte banks of LDS (shared memory); porter.lds's bank-conflict model
    vgpr_granule: Sourced  # registers per lane are allocated in multiples of this
    l2_bytes_per_xcd: Sourced
    mall_bytes: Sourced
    hbm_bytes: Sourced
    hbm_tbps: Sourced
    # Type conversions an NVIDIA SM completes per clock (the CUDA programming guide's arithmetic
    # throughput table); perfmodel.gemm charges them on sm_90's mma.sync path, where Triton converts
    # every fp8 fragment element to f16. None where no such path is modelled (AMD) or no figure is on file.
    conversions_per_clk_per_cu: Sourced | None = None


class ModelParams(BaseModel):
    """Figures porter's perfmodel needs that no datasheet states; mostly marked estimates."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    l2_tbps: Sourced
    mall_tbps: Sourced
    l2_bytes_per_clk_per_cu: Sourced
    lds_bytes_per_clk_per_cu: Sourced
    dram_latency_ns: Sourced
    # Share of the datasheet matrix rate a Triton GEMM main loop sustains (clock under load,
    # issue and synchronisation), and of that share on the fallback path (mma.sync on sm_90,
    # where wgmma is the only way to the full rate; 1 on AMD, which has one MFMA path). On sm_90
    # the wgmma tiles have their own terms (perfmodel.gemm) and use neither.
    matrix_efficiency: Sourced
    fallback_matrix_efficiency: Sourced
    iteration_overhead_clk: Sourced  # per K-iteration of a workgroup: loop, barriers, waits
    sector_bytes: Sourced  # the unit a wave's global accesses are served in (porter.perfmodel.isa)
    # The least the L2 fetches from DRAM (or the MALL) per miss: a contiguous run shorter than this
    # (a GEMM tile row's run per K-step: BK x element bytes K-major, BM / BN x element bytes MN-major)
    # moves the whole unit (perfmodel.gemm).
    dram_fetch_bytes: Sourced
    atomics_per_clk: Sourced  # same-address global atomics the device completes per clock (perfmodel.isa)
    # sm_90 only (perfmodel.gemm, wgmma tiles): the share of the datasheet fp8 rate an fp8 wgmma main
    # loop sustains, measured per K-step on the H200.
    wgmma_fp8_efficiency: Sourced | None = None
    # The share of a wave's DRAM time that the pipeline does not hide behind its other work (added to
    # the wave's time); None: fully hidden, as the model had it.
    dram_exposed_share: Sourced | None = None
    # sm_90 only (perfmodel.gemm, fp8 on mma.sync): bytes per clock an SM reads out of shared memory
    # one byte per lane (LDS.U8), as Triton reads an MN-major fp8 fragment there; measured on the H200.
    mma_byte_loads_per_clk_per_cu: Sourced | None = None
    # sm_90 only (perfmodel.gemm, wgmma tiles ptxas serializes): clocks a workgroup's K-step gains when
    # every wgmma of its warpgroups is waited to completion before the next; measured on the H200.
    wgmma_serialized_clk: Sourced | None = None
    # sm_90 only (perfmodel.gemm, 16-bit wgmma tiles with a row-major B): the shared-memory bytes per clock
    # a K-step sustains, wgmma's operand reads and the bytes cp.async lands together; measured on the H200.
    wgmma_mn_major_smem_bytes_per_clk: Sourced | None = None
    # Clocks of the SM's load path per warp-wide load of one element per lane (sm_90; T16, perfmodel gemm).
    scalar_load_request_clk: Sourced | None = None
    # Clocks one constant-bank load (LDC) adds to a K-step where a compile rebuilds B's scalar-load addresses from
    # B's stride in the loop (sm_90; T17, perfmodel gemm).
    scalar_b_constant_load_clk: Sourced | None = None
    # Clocks a 16-bit scalar-B K-step waits per latency round for its scalar loads of B, in the workgroup's own time
    # after its requests issue (sm_90; T18, perfmodel gemm); None: dram_latency_ns, as T13-T17 had it.
    scalar_b_latency_clk: Sourced | None = None


class Node(BaseModel):
    """What a training step sees beyond one kernel: the node's GPU links and sustained HBM streaming.

    `switched` is 1 where a switch gives every pair of GPUs the full link rate (NVSwitch) and 0 for
    a point-to-point mesh with one link per peer (AMD's OAM platforms), where a GPU that talks to
    k peers has only k links' bandwidth. Read by porter.codesign.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    links: Sourced
    link_gbs: Sourced  # per link, both directions together, as datasheets state it
    gpus_per_node: Sourced
    switched: Sourced
    collective_efficiency: Sourced  # share of the per-direction link rate a large collective reaches
    collective_latency_us: Sourced
    hbm_efficiency: Sourced  # share of hbm_tbps a streaming kernel sustains
    gather_efficiency: Sourced  # share of hbm_tbps random row gathers and scatters (embedding lookups) sustain

    def bandwidth_bps(self, peers: int) -> float:
        """Bytes per second one GPU can send to `peers` others at once, one direction, after efficiency."""
        links = self.links.value if self.switched.value else min(self.links.value, peers)
        return links * self.link_gbs.value / 2 * 1e9 * self.collective_efficiency.value


class Device(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    arch: str
    vendor: Literal["amd", "nvidia"]
    # How Ray labels a node with this GPU (its `accelerator_type`); porter.cluster asks for it.
    ray_accelerator_type: str = ""
    # AMD targets: the NVIDIA compute capability (as sm_XY: 70 for sm_70) whose CUDA C++ device
    # features HIP offers on this target, so a port decides `#if __CUDA_ARCH__ >= 700` as a build
    # for that SM would (HIP016). None on NVIDIA devices, whose compilers define __CUDA_ARCH__.
    cuda_features_sm: Sourced | None = None
    spec: Spec
    matrix_tflops: dict[str, Sourced] = Field(description="dense matrix-unit peak per dtype; fp32 is the vector rate")
    model: ModelParams
    node: Node

    # Plain numbers the model's arithmetic uses; the Sourced fields stay the record.
    @property
    def cus(self) -> int:
        return int(self.spec.compute_units.value)

    @property
    def xcds(self) -> int:
        return int(self.spec.xcds.value)

    @property
    def wave_size(self) -> int:
        return int(self.spec.wave_size.value)

    @property
    def clock_hz(self) -> float:
        return self.spec.clock_mhz.value * 1e6

    @property
    def l2_bytes(self) -> float:
        """All of L2: per XCD times XCDs on AMD, the one L2 on NVIDIA."""
        return self.spec.l2_bytes_per_xcd.value * (self.xcds if self.vendor == "amd" else 1)

    def peak_tflops(self, dtype: str) -> float:
        """Dense matrix peak for dtype; KeyError naming what the device has when it has no such rate."""
        rate = self.matrix_tflops.get(dtype)
        if rate is None or rate.value <= 0:
            have = ", ".join(k for k, v in self.matrix_tflops.items() if v.value > 0)
            raise KeyError(f"{self.name} ({self.arch}) has no native {dtype} matrix rate; it has: {have}")
        return rate.value

    def flops_per_clk_per_cu(self, dtype: str) -> float:
        return self.peak_tflops(dtype) * 1e12 / (self.cus * self.clock_hz)

    def rows(self) -> list[tuple[str, str, str]]:
        """(field, value, source) for every number, in file order: what `porter hw NAME` prints."""
        out = []
        for group in (self.spec, self.model, self.node):
            for name, v in group:
                if v is not None:  # an optional figure the device has none of
                    out.append((name, _fmt(v.value), v.source))
        out.extend((f"matrix_tflops.{k}", _fmt(v.value), v.source) for k, v in self.matrix_tflops.items())
        return out


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


@cache
def devices() -> tuple[Device, ...]:
    """Every device porter knows, in file-name order."""
    data = resources.files(__package__) / "data"
    found = []
    for entry in sorted(data.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".toml"):
            found.append(Device.model_validate(tomllib.loads(entry.read_text())))
    return tuple(found)


def get(name_or_arch: str) -> Device:
    """A device by name (MI350X, h200) or arch (gfx950, sm_90). An arch shared by several devices
    names the first in this order: the porting target first (MI350X for gfx950), then H100 for sm_90."""
    key = name_or_arch.lower()
    by_name = {d.name.lower(): d for d in devices()}
    if key in by_name:
        return by_name[key]
    if key in _ARCH_DEFAULT:
        return by_name[_ARCH_DEFAULT[key]]
    matches = [d for d in devices() if d.arch == key]
    if matches:
        return matches[0]
    known = ", ".join(f"{d.name} ({d.arch})" for d in devices())
    raise KeyError(f"unknown device {name_or_arch!r}; known: {known}")


_ARCH_DEFAULT = {"gfx950": "mi350x", "sm_90": "h100"}
# The target porter ports for unless told otherwise (`porter port --arch`).
TARGET = "gfx950"


@cache
def amd_archs() -> tuple[str, ...]:
    """The AMD targets porter knows (and compiles ports for), as sorted arch names: gfx942, gfx950."""
    return tuple(sorted({d.arch for d in devices() if d.vendor == "amd"}))
