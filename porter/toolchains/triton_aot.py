"""Compile one Triton kernel ahead of time, without a GPU: for gfx950 (the port) and for NVIDIA (the control).

The verifier calls `compile_kernel` on a Triton unit (a Python file and a kernel name) with the
specialisation the kernel really runs with: the dtypes of its pointer and scalar arguments, its
constexprs, and the arguments the caller knows are multiples of 16 (what the JIT's "D"
specialisation would mark). Triton lowers the kernel through TTIR, TTGIR and LLVM IR to
AMDGPU assembly (`asm["amdgcn"]`) or PTX; porter reads the kernel's resources from those:

- gfx950/gfx942: `porter.state.KernelResources` from the AMDGPU asm printer's "Kernel info"
  block and amdhsa metadata (VGPRs, AGPRs, SGPRs, scratch, spills), LDS from Triton's
  metadata (`shared`: Triton allocates LDS dynamically, so the asm's group segment says 0),
  and the count of v_mfma/v_smfmac instructions.
- NVIDIA (sm_80, sm_90, ...): `PtxResources`, shared memory from the metadata, registers and
  spills from `ptxas -v` (Triton's bundled ptxas; metadata holds no register count before a
  driver loads the cubin), and the mma/wgmma/tcgen05.mma instructions in the PTX.

Each compile runs in a fresh interpreter (`python -m porter.toolchains.triton_aot REQUEST`):
importing the kernel's file executes it, a port may come from a model, and a crash inside
Triton's MLIR/LLVM pipeline (an abort, not an exception) must come back as a failed
BuildResult, never take the graph down. The request JSON and every stage's text are kept in
the workdir, so a failure can be replayed with the BuildResult's `cmd`.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from porter import hardware
from porter.state import BuildResult, Frozen, KernelResources
from porter.toolchains import ToolchainMissing, process

TOOLCHAIN = "triton-aot"
AMD_ARCHS = hardware.amd_archs()
COMPILE_TIMEOUT_S = process.TIMEOUT_S

# Triton signature types (triton.language.core's type names), "*" for a pointer to one.
_SCALAR_TYPES = ("i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64",
                 "fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16")
_TYPE = re.compile(r"(\*k?)?(" + "|".join(_SCALAR_TYPES) + r")")
_IDENT = re.compile(r"[A-Za-z_]\w*")

# gfx9 CDNA (gfx90a, gfx942, gfx950) share these (porter.hardware's data, from LLVM's AMDGPU backend:
# getMaxWavesPerEU, getVGPRAllocGranule, getTotalNumVGPRs for the unified register file): 512 VGPRs
# per lane shared by arch VGPRs and AGPRs, allocated in granules of 8; at most 8 waves per SIMD;
# 4 SIMDs per CU. LDS per CU differs by arch (`occupancy_by_lds`).
_GFX9 = hardware.get(hardware.TARGET).spec
SIMDS_PER_CU = int(_GFX9.simds_per_cu.value)
MAX_WAVES_PER_SIMD = int(_GFX9.max_waves_per_cu.value) // SIMDS_PER_CU
VGPR_BUDGET = int(_GFX9.max_registers_per_lane.value)
VGPR_GRANULE = int(_GFX9.vgpr_granule.value)


@dataclass(frozen=True)
class Specialisation:
    """The types and facts a kernel is compiled for, as the JIT would specialise one launch.

    `signature` maps every non-constexpr argument to a Triton type ("*bf16", "*fp32", "i32",
    "fp32"); `constexprs` gives each tl.constexpr argument its value; `divisible_by_16` names the
    pointer and integer arguments known to be multiples of 16 (pointers: 16-byte aligned), which
    lets Triton vectorise loads and pick MFMA/wgmma tiles without masking.
    """

    signature: Mapping[str, str]
    constexprs: Mapping[str, int | float | bool] = field(default_factory=dict)
    divisible_by_16: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "signature", MappingProxyType(dict(self.signature)))
        object.__setattr__(self, "constexprs", MappingProxyType(dict(self.constexprs)))
        object.__setattr__(self, "divisible_by_16", frozenset(self.divisible_by_16))
        for name, ty in self.signature.items():
            if not _IDENT.fullmatch(name):
                raise ValueError(f"signature: {name!r} is not an argument name")
            if not isinstance(ty, str) or not _TYPE.fullmatch(ty):
                raise ValueError(f"signature: {name}: {ty!r} is not a Triton type such as *fp32, *bf16, i32, fp32")
        for name, value in self.constexprs.items():
            if not _IDENT.fullmatch(name):
                raise ValueError(f"constexprs: {name!r} is not an argument name")
            if name in self.signature:
                raise ValueError(f"{name}: both in the signature and a constexpr")
            if not isinstance(value, int | float | bool):
                raise ValueError(f"constexprs: {name} = {value!r}: expected a number or a bool")
        for name in self.divisible_by_16:
            ty = self.signature.get(name)
            if ty is None:
                raise ValueError(f"divisible_by_16: {name!r} is not in the signature")
            if not (ty.startswith("*") or ty[0] in "iu"):
                raise ValueError(f"divisible_by_16: {name} is {ty}; only pointers and integers carry the hint")


@dataclass(frozen=True)
class TritonAotOptions:
    """Target and launch options; `target` is written as its vendor writes it: gfx950, sm_90."""

    target: str = "gfx950"
    num_warps: int = 4
    num_stages: int = 2
    waves_per_eu: int = 0  # AMD only: an occupancy hint to LLVM, 0 = none
    matrix_instr_nonkdim: int = 0  # AMD only: 16 or 32 (MFMA 16x16 / 32x32), 0 = the backend's choice
    kpack: int = 1  # AMD only: K packing of MFMA operands (gfx950 accepts only 1)
    fp_fusion: bool = True  # a*b+c -> fma; Triton 3.9's default, stated so the compile does not warn
    timeout_s: int = COMPILE_TIMEOUT_S

    def __post_init__(self) -> None:
        if self.target not in AMD_ARCHS and not re.fullmatch(r"sm_(8[0-9]|9[0-9]|1[0-2][0-9])", self.target):
            raise ValueError(f"target {self.target!r}: expected {', '.join(AMD_ARCHS)} or an NVIDIA sm_XY (sm_80+)")
        if self.num_warps not in (1, 2, 4, 8, 16):
            raise ValueError(f"num_warps {self.num_warps}: expected 1, 2, 4, 8 or 16")
        if not 1 <= self.num_stages <= 8:
            raise ValueError(f"num_stages {self.num_stages}: expected 1..8")
        if not 0 <= self.waves_per_eu <= MAX_WAVES_PER_SIMD:
            raise ValueError(f"waves_per_eu {self.waves_per_eu}: expected 0..{MAX_WAVES_PER_SIMD}")
        if self.matrix_instr_nonkdim not in (0, 16, 32):
            raise ValueError(f"matrix_instr_nonkdim {self.matrix_instr_nonkdim}: expected 0, 16 or 32")
        if self.kpack not in (1, 2):
            raise ValueError(f"kpack {self.kpack}: expected 1 or 2")
        if (self.waves_per_eu or self.matrix_instr_nonkdim or self.kpack != 1) and not self.is_amd:
            raise ValueError("waves_per_eu, matrix_instr_nonkdim and kpack are AMD options; the target is NVIDIA")
        if not 1 <= self.timeout_s <= 3600:
            raise ValueError(f"timeout_s {self.timeout_s}: expected 1..3600")

    @property
    def is_amd(self) -> bool:
        return self.target in AMD_ARCHS

    def gpu_target(self) -> tuple[str, str | int, int]:
        """GPUTarget's arguments: ("hip", "gfx950", 64) or ("cuda", 90, 32)."""
        if self.is_amd:
            return ("hip", self.target, hardware.get(self.target).wave_size)
        return ("cuda", int(self.target.removeprefix("sm_")), 32)

    def triton_options(self) -> dict[str, int | bool]:
        opts: dict[str, int | bool] = {"num_warps": self.num_warps, "num_stages": self.num_stages,
                                       "enable_fp_fusion": self.fp_fusion}
        if self.is_amd:
            opts |= {"waves_per_eu": self.waves_per_eu, "matrix_instr_nonkdim": self.matrix_instr_nonkdim,
                     "kpack": self.kpack}
        return opts


class PtxResources(Frozen):
    """What the NVIDIA control compile of one Triton kernel uses (the PTX and ptxas -v)."""

    kernel: str
    unit: str
    arch: str  # sm_90
    ptx_target: str  # the PTX .target line: sm_90a when Triton uses wgmma
    shared_bytes: int
    registers: int | None  # None: ptxas could not be run
    spill_store_bytes: int | None
    spill_load_bytes: int | None
    mma_count: int  # mma.sync + wgmma.mma_async + tcgen05.mma
    mma_kinds: tuple[tuple[str, int], ...] = ()  # ("wgmma.mma_async", 4), ...


def run_worker(module: str, request: Path, workdir: Path, timeout_s: float, *,
               set_env: Mapping[str, str] = MappingProxyType({}), drop_env: tuple[str, ...] = ()
               ) -> process.Finished:
    """Run `python -m module request` in `workdir`; a timeout is a result (exit 124), not an error.

    The worker imports porter from the same tree as this process, installed or not.
    """
    cmd = [sys.executable, "-m", module, str(request)]
    env = {k: v for k, v in os.environ.items() if k not in drop_env} | dict(set_env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(__file__).resolve().parents[2]),
                                                     env.get("PYTHONPATH", "")) if p)
    return process.run(cmd, workdir, env=env, timeout=timeout_s)


def compile_kernel(src: Path, kernel: str, spec: Specialisation, opts: TritonAotOptions,
                   workdir: Path) -> tuple[BuildResult, KernelResources | PtxResources | None]:
    """Compile `kernel` of the Python file `src` for `opts.target`; stage texts go under `workdir`.

    Returns the build record and the kernel's resources (None when the compile failed). A kernel
    that does not exist, does not match the specialisation, or does not compile is a failed
    BuildResult whose stderr holds Triton's message. Raises ToolchainMissing when this Python
    cannot import triton (install porter-gpu[triton]).
    """
    require_python_packages("triton")
    src = src.resolve()
    workdir = workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    stem = f"{kernel}-{opts.target}"
    request = {
        "src": str(src), "kernel": kernel, "target": list(opts.gpu_target()), "options": opts.triton_options(),
        "signature": dict(spec.signature), "constexprs": dict(spec.constexprs),
        "divisible_by_16": sorted(spec.divisible_by_16), "out": str(workdir / stem),
    }
    request_file = workdir / f"{stem}.request.json"
    request_file.write_text(json.dumps(request, indent=1))
    # Compile into the workdir's own cache, so a stale ~/.triton entry never answers for a new
    # Triton; an interpreted @triton.jit has nothing to compile, so TRITON_INTERPRET is dropped.
    done = run_worker("porter.toolchains.triton_aot", request_file, workdir, opts.timeout_s,
                      set_env={"TRITON_CACHE_DIR": str(workdir / "triton-cache")}, drop_env=("TRITON_INTERPRET",))
    asm_path = workdir / f"{stem}.{'amdgcn' if opts.is_amd else 'ptx'}"
    meta_path = workdir / f"{stem}.metadata.json"
    ok = done.rc == 0 and asm_path.is_file() and meta_path.is_file()
    artifacts = tuple(str(p) for p in sorted(workdir.glob(f"{stem}.*")) if ok and p != request_file)
    build = BuildResult(toolchain=TOOLCHAIN, cmd=done.cmd, rc=done.rc or (0 if ok else 1),
                        stdout=done.stdout, stderr=done.stderr, artifacts=artifacts, seconds=done.seconds)
    if not ok:
        return build, None
    metadata = json.loads(meta_path.read_text())
    asm = asm_path.read_text()
    if opts.is_amd:
        return build, amdgpu_resources(asm, metadata, unit=str(src), arch=opts.target)
    ptxas_log = workdir / f"{stem}.ptxas.log"
    log = ptxas_log.read_text() if ptxas_log.is_file() else None
    return build, ptx_resources(asm, metadata, log, unit=str(src), arch=opts.target)


def require_python_packages(*names: str) -> None:
    """Raise ToolchainMissing unless this interpreter (which the worker reuses) can import each of `names`."""
    for name in names:
        if importlib.util.find_spec(name) is None:
            raise ToolchainMissing(f"Python package {name}", [f"import {name} with {sys.executable}"], "PYTHONPATH")


# ------------------------------------------------------------------------------------ gfx9 resources

# AMDGPUAsmPrinter's "; Kernel info:" comment block, one "; Key: value" per line.
_INFO = re.compile(r"^; (?P<key>[A-Za-z][\w ]*?)\s*:\s*(?P<value>\d+)\s*$", re.M)
_META = re.compile(r"^\s+\.(?P<key>\w+):\s+(?P<value>\S+)\s*$", re.M)
# v_mfma_* are the dense matrix-core ops; v_smfmac_* (sparse) issue on the same unit.
_MFMA = re.compile(r"^\s+v_s?mfma", re.M)


def amdgpu_resources(asm: str, metadata: Mapping, *, unit: str, arch: str) -> KernelResources:
    """KernelResources of the one kernel in Triton's AMDGPU assembly and compile metadata."""
    info = {m["key"]: int(m["value"]) for m in _INFO.finditer(asm)}
    meta = {m["key"]: m["value"] for m in _META.finditer(asm[asm.find(".amdgpu_metadata"):])}
    missing = [k for k in ("NumVgprs", "NumAgprs", "TotalNumSgprs", "ScratchSize") if k not in info]
    if missing:
        raise ValueError(f"{unit}: AMDGPU asm has no kernel info for {', '.join(missing)}")
    vgprs, agprs, sgprs = info["NumVgprs"], info["NumAgprs"], info["TotalNumSgprs"]
    lds = int(metadata.get("shared", 0)) + int(meta.get("group_segment_fixed_size", 0))
    by_registers = info.get("Occupancy") or occupancy_by_registers(vgprs, agprs)
    return KernelResources(
        kernel=str(metadata.get("name", "")), unit=unit, arch=arch, vgprs=vgprs, agprs=agprs, sgprs=sgprs,
        lds_bytes=lds, scratch_bytes=info["ScratchSize"],
        vgpr_spill=int(meta.get("vgpr_spill_count", 0)), sgpr_spill=int(meta.get("sgpr_spill_count", 0)),
        occupancy=min(by_registers, occupancy_by_lds(lds, int(metadata.get("num_warps", 4)), arch)),
        mfma_count=len(_MFMA.findall(asm)),
    )


def occupancy_by_registers(vgprs: int, agprs: int) -> int:
    """Waves per SIMD that the unified VGPR file allows on gfx90a/gfx942/gfx950.

    LLVM (AMDGPU::getTotalNumVGPRs): with AGPRs in use, the arch VGPRs are rounded up to 4 and
    the AGPRs follow them (the accum_offset); the total is allocated in granules of 8.
    """
    total = (-(-vgprs // 4) * 4 + agprs) if agprs else vgprs
    allocated = -(-max(total, 1) // VGPR_GRANULE) * VGPR_GRANULE
    return max(1, min(MAX_WAVES_PER_SIMD, VGPR_BUDGET // allocated))


def occupancy_by_lds(lds_bytes: int, num_warps: int, arch: str) -> int:
    """Waves per SIMD that LDS allows: whole workgroups per CU, their waves spread over 4 SIMDs.

    Triton's LDS is dynamic, so LLVM's "Occupancy" (which sees 0 bytes) does not include it.
    """
    if lds_bytes <= 0:
        return MAX_WAVES_PER_SIMD
    groups = int(hardware.get(arch).spec.lds_bytes_per_cu.value) // lds_bytes
    return max(1, min(MAX_WAVES_PER_SIMD, math.ceil(groups * num_warps / SIMDS_PER_CU)))


# ------------------------------------------------------------------------------------ NVIDIA control

# PTX matrix instructions: Ampere mma.sync, Hopper wgmma.mma_async, Blackwell tcgen05.mma.
_PTX_MMA = re.compile(r"^\s*(?:@%?\w+\s+)?(?P<op>mma\.sync|wgmma\.mma_async|tcgen05\.mma)\b", re.M)
_PTXAS_REGS = re.compile(r"Used (\d+) registers")
_PTXAS_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def ptx_resources(ptx: str, metadata: Mapping, ptxas_log: str | None, *, unit: str, arch: str) -> PtxResources:
    """PtxResources from Triton's PTX, its metadata and (when ptxas ran) the `ptxas -v` log."""
    kinds: dict[str, int] = {}
    for m in _PTX_MMA.finditer(ptx):
        kinds[m["op"]] = kinds.get(m["op"], 0) + 1
    target = re.search(r"^\.target\s+(\S+)", ptx, re.M)
    regs = _PTXAS_REGS.search(ptxas_log or "")
    spill = _PTXAS_SPILL.search(ptxas_log or "")
    return PtxResources(
        kernel=str(metadata.get("name", "")), unit=unit, arch=arch, ptx_target=target[1] if target else "",
        shared_bytes=int(metadata.get("shared", 0)), registers=int(regs[1]) if regs else None,
        spill_store_bytes=int(spill[1]) if spill else None, spill_load_bytes=int(spill[2]) if spill else None,
        mma_count=sum(kinds.values()), mma_kinds=tuple(sorted(kinds.items())),
    )


# ------------------------------------------------------------------------------------ worker process

def load_kernel(src: str, kernel: str, module_name: str):
    """Import the Python file `src` as `module_name` (running it: worker processes only) and return
    its attribute `kernel`, None when it has none."""
    spec = importlib.util.spec_from_file_location(module_name, src)
    if spec is None or spec.loader is None:
        raise ImportError(f"{src}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, kernel, None)


def _worker(request_file: Path) -> int:
    """Compile one request in this process; writes `<out>.<stage>` files. Exit 0 ok, 1 failed."""
    import traceback

    req = json.loads(request_file.read_text())
    out = Path(req["out"])
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource

        fn = load_kernel(req["src"], req["kernel"], f"porter_triton_unit_{Path(req['src']).stem}")
        if fn is None or not hasattr(fn, "arg_names"):
            raise LookupError(f"{req['src']}: no @triton.jit kernel named {req['kernel']!r}")
        signature, constexprs = _full_signature(fn.arg_names, req["signature"], req["constexprs"])
        # Triton 3.9: attrs are keyed by argument-index paths (tuples, for nested tuple args);
        # "tt.divisibility" 16 is what the JIT's "D" specialisation produces (BaseBackend.parse_attr).
        attrs = {(fn.arg_names.index(n),): [["tt.divisibility", 16]] for n in req["divisible_by_16"]}
        source = ASTSource(fn, signature, constexprs=constexprs, attrs=attrs)
        compiled = triton.compile(source, target=GPUTarget(*req["target"]), options=req["options"])
    except Exception:  # noqa: BLE001 - any failure of the user's kernel is the result, reported in full
        traceback.print_exc()
        return 1
    for stage in ("ttir", "ttgir", "llir", "amdgcn", "ptx"):
        if stage in compiled.asm:
            Path(f"{out}.{stage}").write_text(compiled.asm[stage])
    if "ptx" in compiled.asm:
        _ptxas_log(Path(f"{out}.ptx"), req["target"][1], Path(f"{out}.ptxas.log"))
    metadata = {k: v for k, v in compiled.metadata._asdict().items() if isinstance(v, int | float | str | bool)}
    Path(f"{out}.metadata.json").write_text(json.dumps(metadata, indent=1, sort_keys=True))
    print(json.dumps({"kernel": compiled.name, "stages": sorted(compiled.asm.keys())}))
    return 0


def _full_signature(arg_names: list[str], signature: dict[str, str],
                    constexprs: dict[str, object]) -> tuple[dict[str, str], dict[str, object]]:
    """ASTSource wants every argument in order, constexprs typed "constexpr"; no name left over."""
    known = set(arg_names)
    extra = sorted((set(signature) | set(constexprs)) - known)
    if extra:
        raise ValueError(f"not arguments of the kernel: {', '.join(extra)}; it takes {', '.join(arg_names)}")
    untyped = [n for n in arg_names if n not in signature and n not in constexprs]
    if untyped:
        raise ValueError(f"no type or constexpr value for: {', '.join(untyped)}")
    return {n: "constexpr" if n in constexprs else signature[n] for n in arg_names}, dict(constexprs)


def _ptxas_log(ptx: Path, capability: int, log: Path) -> None:
    """`ptxas -v` on the PTX with Triton's own ptxas; no log when it cannot run (the PTX stats stand)."""
    try:
        from triton.backends.nvidia.compiler import get_ptxas

        target = re.search(r"^\.target\s+(\S+)", ptx.read_text(), re.M)
        arch = target[1] if target else f"sm_{capability}"
        done = process.run([get_ptxas(capability).path, "-v", f"--gpu-name={arch}", str(ptx),
                            "-o", str(ptx.with_suffix(".cubin"))])
    except (OSError, RuntimeError) as e:
        print(f"ptxas not run: {e}", file=sys.stderr)
        return
    if done.timed_out:
        print(f"ptxas not run: {done.stderr.strip()}", file=sys.stderr)
        return
    log.write_text(done.stderr + done.stdout)


__all__ = [
    "AMD_ARCHS", "PtxResources", "Specialisation", "TritonAotOptions", "amdgpu_resources", "compile_kernel",
    "occupancy_by_lds", "occupancy_by_registers", "ptx_resources", "require_python_packages",
]

if __name__ == "__main__":
    sys.exit(_worker(Path(sys.argv[1])))
