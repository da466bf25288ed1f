"""Compile one ported HIP translation unit for gfx950 (or gfx942) with clang 22, device only.

The verifier calls `compile_unit` on each port: it proves the unit compiles for the target
and reads what the AMDGPU backend says about every kernel (registers, LDS, scratch,
spills, occupancy) plus how many MFMA instructions it issues. No GPU and no linking are
needed: clang stops at device assembly (-S --cuda-device-only), which carries both the
resource remarks (on stderr) and the instructions porter counts.

Headers: Debian ships HIP 5.2 headers, but a port is judged by ROCm 6.3+ rules. The
overlay in porter.shims/hip (HEADER_SET) goes first on the include path; it adds the
ROCm 6.3 API (64-bit-mask *_sync warp functions, hip_bf16.h, typed allocation wrappers,
declarations of hipBLAS, hipBLASLt, hipFFT and hipSPARSE) and makes the 5.2 headers build
under clang 22. Device libraries: Debian's rocm-device-libs
5.2 has no gfx942/gfx950 bitcode, so porter passes -nogpulib.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from porter.state import BuildResult, KernelResources
from porter.toolchains import ToolchainMissing, find_tool

HEADER_SET = "porter rocm-6.3 overlay (porter.shims/hip) on Debian HIP 5.2 headers"

SUPPORTED_ARCHS = ("gfx942", "gfx950")
CLANG_CANDIDATES = ("clang++-22", "/usr/lib/llvm-22/bin/clang++")
DEMANGLERS = ("llvm-cxxfilt-22", "/usr/lib/llvm-22/bin/llvm-cxxfilt", "c++filt")
REMARK_FLAG = "-Rpass-analysis=kernel-resource-usage"
COMPILE_TIMEOUT_S = 600


def overlay_dir() -> Path:
    """The header overlay's include directory (contains hip/, hipblas/)."""
    return Path(str(files("porter.shims") / "hip"))


def find_clang() -> Path:
    """clang++ 22: $PORTER_CLANG, then clang++-22 on PATH, then Debian's LLVM 22 prefix."""
    return find_tool("clang++ 22", "PORTER_CLANG", CLANG_CANDIDATES)


@dataclass(frozen=True)
class ClangHipOptions:
    arch: str = "gfx950"
    include_dirs: tuple[Path, ...] = ()
    defines: tuple[str, ...] = ()  # "NAME" or "NAME=VALUE"
    std: str = "c++17"
    opt: str = "-O3"

    def __post_init__(self) -> None:
        if self.arch not in SUPPORTED_ARCHS:
            raise ValueError(f"arch {self.arch!r}: porter compiles ports for {', '.join(SUPPORTED_ARCHS)}")
        if not re.fullmatch(r"(c|gnu)\+\+(17|20|23|2b|2c)", self.std):
            raise ValueError(f"std {self.std!r}: expected c++17, c++20, c++23 or a gnu++ variant")
        if self.opt not in ("-O0", "-O1", "-O2", "-O3", "-Os"):
            raise ValueError(f"opt {self.opt!r}: expected one of -O0 -O1 -O2 -O3 -Os")
        for d in self.defines:
            if not re.fullmatch(r"[A-Za-z_]\w*(=.*)?", d):
                raise ValueError(f"define {d!r}: expected NAME or NAME=VALUE")
        object.__setattr__(self, "include_dirs", tuple(Path(p) for p in self.include_dirs))


def wavefront_define(arch: str) -> str:
    """`-D__AMDGCN_WAVEFRONT_SIZE=<n>` for `arch`, the wave size read from porter's hardware data.

    clang 22 no longer predefines the macro (LLVM deprecated it in clang 20); Debian's HIP 5.2
    headers read it wherever they are reached (amd_warp_functions.h initialises warpSize from it),
    not only through the overlay's hip_runtime.h. Every compile porter drives for an AMD target
    passes it: this per-unit check and the hipcc / CMake HIP stand-ins of porter.toolchains.hipcc.
    """
    from porter import hardware
    return f"-D__AMDGCN_WAVEFRONT_SIZE={hardware.get(arch).wave_size}"


def build_command(clang: Path, src: Path, opts: ClangHipOptions, asm_out: Path) -> list[str]:
    cmd = [
        str(clang), "-x", "hip", f"--offload-arch={opts.arch}",
        "--cuda-device-only", "-nogpulib", "-S",
        f"-std={opts.std}", opts.opt,
        "-I", str(overlay_dir()),  # first, so <hip/hip_runtime.h> is the overlay's
        wavefront_define(opts.arch),
    ]
    for d in opts.include_dirs:
        cmd += ["-I", str(d)]
    cmd += [f"-D{d}" for d in opts.defines]
    cmd += [REMARK_FLAG, str(src), "-o", str(asm_out)]
    return cmd


def compile_unit(src: Path, opts: ClangHipOptions, workdir: Path) -> tuple[BuildResult, list[KernelResources]]:
    """Compile `src` for `opts.arch`; the device assembly is written under `workdir`.

    Returns the build record and one KernelResources per kernel (empty when the compile
    failed). Raises ToolchainMissing when clang 22 is absent; nothing else raises for a
    bad unit.
    """
    clang = find_clang()
    src = src.resolve()  # clang runs in workdir so that anything it writes stays there
    workdir.mkdir(parents=True, exist_ok=True)
    asm_out = workdir / f"{src.stem}-hip-amdgcn-amd-amdhsa-{opts.arch}.s"
    cmd = build_command(clang, src, opts, asm_out)
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=workdir, timeout=COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        # A hung compile is a failed compile: data, with the exit status timeout(1) uses.
        proc = subprocess.CompletedProcess(cmd, 124, "", f"timed out after {COMPILE_TIMEOUT_S} s")
    seconds = time.monotonic() - start
    ok = proc.returncode == 0 and asm_out.is_file()
    build = BuildResult(
        toolchain="clang-hip", cmd=tuple(cmd), rc=proc.returncode, stdout=proc.stdout,
        stderr=proc.stderr, artifacts=(str(asm_out),) if ok else (), seconds=round(seconds, 3),
    )
    if not ok:
        return build, []
    asm = asm_out.read_text()
    kernels = parse_resource_usage(proc.stderr, str(src), opts.arch, metadata=asm)
    mfma = count_mfma(asm)
    names = demangle([k.kernel for k in kernels])
    return build, [
        k.model_copy(update={"kernel": names[k.kernel], "mfma_count": mfma.get(k.kernel, 0)})
        for k in kernels
    ]


# clang prints one remark per line: "<file>:<l>:<c>: remark: <key>: <value> [-Rpass-analysis=...]".
# Keys as printed by LLVM's AMDGPUAsmPrinter::emitResourceUsageRemarks (LLVM 19+).
_REMARK = re.compile(
    r"remark:\s+(?P<key>[A-Za-z][^:\n]*?):\s+(?P<value>[^\n]*?)\s+\[" + re.escape(REMARK_FLAG) + r"\]"
)
_FIELDS = {
    "TotalSGPRs": "sgprs",
    "VGPRs": "vgprs",
    "AGPRs": "agprs",
    "ScratchSize [bytes/lane]": "scratch_bytes",
    "Occupancy [waves/SIMD]": "occupancy",
    "SGPRs Spill": "sgpr_spill",
    "VGPRs Spill": "vgpr_spill",
    "LDS Size [bytes/block]": "lds_bytes",
}
# Where a symbolic remark can be read back from the kernel's HSA metadata.
_METADATA_KEYS = {"sgprs": "sgpr_count", "vgprs": "vgpr_count", "agprs": "agpr_count",
                  "scratch_bytes": "private_segment_fixed_size", "sgpr_spill": "sgpr_spill_count",
                  "vgpr_spill": "vgpr_spill_count", "lds_bytes": "group_segment_fixed_size"}


def parse_resource_usage(text: str, unit: str, arch: str, metadata: str = "") -> list[KernelResources]:
    """KernelResources for each kernel named in clang's kernel-resource-usage remarks.

    A kernel that calls a function defined outside the unit (e.g. __ocml_sin_f32 under
    -nogpulib) gets symbolic remarks ("VGPRs: k.num_vgpr"), because its register use is
    only final once the callee is known. For those, pass the device assembly as
    `metadata`: its amdhsa metadata holds the counts the assembler resolved for this
    unit alone (callees not counted; vgprs is then .vgpr_count, which on gfx90a+ includes
    AGPRs), and occupancy is recomputed from them. Without it, a symbolic value raises
    ValueError.
    """
    blocks: list[dict[str, str]] = []
    for m in _REMARK.finditer(text):
        key, value = m["key"].strip(), m["value"].strip()
        if key == "Function Name":
            blocks.append({"kernel": value})
        elif blocks and key in _FIELDS:
            blocks[-1][_FIELDS[key]] = value
    meta = _kernel_metadata(metadata)
    out = []
    for b in blocks:
        name = b["kernel"]
        missing = [f for f in _FIELDS.values() if f not in b]
        if missing:
            raise ValueError(f"{unit}: kernel {name}: no remark for {', '.join(missing)}")
        values: dict[str, int] = {}
        for field in _FIELDS.values():
            if field == "occupancy":
                continue
            values[field] = _resolve(b[field], name, field, meta.get(name))
        values["occupancy"] = (
            int(b["occupancy"]) if b["occupancy"].isdigit()
            else _occupancy(b["occupancy"], values["sgprs"], values["vgprs"], name)
        )
        out.append(KernelResources(kernel=name, unit=unit, arch=arch, **values))
    return out


def _resolve(value: str, kernel: str, field: str, meta: dict[str, str] | None) -> int:
    if value.isdigit():
        return int(value)
    key = _METADATA_KEYS[field]
    if meta is None or key not in meta:
        raise ValueError(f"kernel {kernel}: {field} is symbolic ({value}) and no metadata resolves it")
    return int(meta[key])


def _kernel_metadata(asm: str) -> dict[str, dict[str, str]]:
    """Per-kernel scalar keys of the amdhsa.kernels YAML in device assembly, by kernel name."""
    start = asm.find(".amdgpu_metadata")
    if start < 0:
        return {}
    section = asm[start: asm.find(".end_amdgpu_metadata", start)]
    kernels: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    # Each kernel is a YAML list item "  - .key: value"; its scalar keys sit 4 columns in,
    # the nested .args list deeper.
    for line in section.splitlines():
        item = re.match(r"  - \.(\w+):\s*(\S*)$", line)
        scalar = re.match(r"    \.(\w+):\s*(\S+)$", line)
        if item:
            current = {item[1]: item[2]}
        elif scalar:
            current[scalar[1]] = scalar[2]
            if scalar[1] == "name":
                kernels[scalar[2]] = current
    return kernels


# LLVM's AMDGPUMCExpr occupancy(MaxWaves, Granule, TotalNumVGPRs, Generation, InitOccupancy,
# NumSGPRs, NumVGPRs): the target's constants are the first arguments of the remark.
_OCCUPANCY = re.compile(r"occupancy\((\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),")


def _occupancy(expr: str, sgprs: int, total_vgprs: int, kernel: str) -> int:
    m = _OCCUPANCY.match(expr)
    if not m:
        raise ValueError(f"kernel {kernel}: occupancy expression not understood: {expr}")
    max_waves, granule, vgpr_budget, _generation, init = (int(g) for g in m.groups())
    # VGPRs are allocated in granules; a SIMD holds vgpr_budget per lane (512 on gfx90a+).
    allocated = -(-max(total_vgprs, 1) // granule) * granule
    by_vgpr = min(max(vgpr_budget // allocated, 1), max_waves)
    # GFX8+ SGPR rule (AMDGPU::IsaInfo::getOccupancyWithNumSGPRs): 10/9/8/7 waves up to
    # 80/88/100/more SGPRs.
    by_sgpr = 10 if sgprs <= 80 else 9 if sgprs <= 88 else 8 if sgprs <= 100 else 7
    return min(init, max_waves, by_vgpr, by_sgpr)


# A function body in AMDGPU assembly runs from its "name:" label to ".Lfunc_endN:".
_FUNC_START = re.compile(r"^(?P<name>[A-Za-z_.$][\w.$]*):", re.M)
_FUNC_END = re.compile(r"^\.Lfunc_end\d+:", re.M)
# v_mfma_* are the dense matrix-core ops; v_smfmac_* (sparse) issue on the same unit.
_MFMA = re.compile(r"^\s+v_s?mfma", re.M)


def count_mfma(asm: str) -> dict[str, int]:
    """Matrix-core instructions per function (mangled name) in AMDGPU device assembly."""
    counts: dict[str, int] = {}
    typed = set(re.findall(r"^\s*\.type\s+([\w.$]+),@function", asm, re.M))
    for m in _FUNC_START.finditer(asm):
        name = m["name"]
        if name not in typed:
            continue
        end = _FUNC_END.search(asm, m.end())
        body = asm[m.end(): end.start() if end else len(asm)]
        counts[name] = len(_MFMA.findall(body))
    return counts


def demangle(names: list[str]) -> dict[str, str]:
    """Itanium names to C++ with llvm-cxxfilt-22 (or c++filt); unchanged when neither exists."""
    tool = next((t for t in DEMANGLERS if shutil.which(t)), None)
    if tool is None or not names:
        return {n: n for n in names}
    proc = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True, timeout=60)
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != len(names):
        return {n: n for n in names}
    return dict(zip(names, lines, strict=True))


__all__ = [
    "HEADER_SET", "ClangHipOptions", "ToolchainMissing", "compile_unit", "count_mfma",
    "demangle", "find_clang", "overlay_dir", "parse_resource_usage", "wavefront_define",
]
