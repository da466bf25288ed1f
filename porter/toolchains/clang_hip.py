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
from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path

from porter import hardware
from porter.perfmodel import lanes
from porter.perfmodel.isa import Instr, KernelIsa
from porter.state import BuildResult, KernelResources
from porter.toolchains import ToolchainMissing, find_tool, process

HEADER_SET = "porter rocm-6.3 overlay (porter.shims/hip) on Debian HIP 5.2 headers"

SUPPORTED_ARCHS = hardware.amd_archs()
CLANG_CANDIDATES = ("clang++-22", "/usr/lib/llvm-22/bin/clang++")
DEMANGLERS = ("llvm-cxxfilt-22", "/usr/lib/llvm-22/bin/llvm-cxxfilt", "c++filt")
REMARK_FLAG = "-Rpass-analysis=kernel-resource-usage"


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
    build = process.build_result("clang-hip", process.run(cmd, workdir), [asm_out])
    if not build.artifacts:
        return build, []
    asm = asm_out.read_text()
    kernels = parse_resource_usage(build.stderr, str(src), opts.arch, metadata=asm)
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
    done = process.run([tool], input="\n".join(names) + "\n")
    lines = done.stdout.splitlines()
    if done.rc != 0 or len(lines) != len(names):
        return {n: n for n in names}
    return dict(zip(names, lines, strict=True))


__all__ = [
    "HEADER_SET", "ClangHipOptions", "ToolchainMissing", "classify_amdgcn", "compile_unit", "count_mfma",
    "demangle", "find_clang", "kernel_isa", "overlay_dir", "parse_resource_usage", "wavefront_define",
]


# ---- The instruction mix porter.perfmodel.isa reads (the verifier's estimate of HIP ports) ----
_BLOCK = re.compile(r"^(\.L(BB\w+)|; %bb\.\d+):")
_LOOP_OF = re.compile(r"(?:Parent Loop|in Loop: Header=)\s*(BB\w+)")
_INSTR = re.compile(r"^\s+([a-z]\w*)\s*([^;\n]*)")
_MFMA_SHAPE = re.compile(r"v_s?mfma\w*?_(\d+)x(\d+)x(\d+)")
# Bytes per lane of a memory instruction, by the size suffix of its mnemonic.
_WIDTHS = (("dwordx4", 16), ("b128", 16), ("dwordx3", 12), ("b96", 12), ("dwordx2", 8), ("b64", 8),
           ("dword", 4), ("b32", 4), ("short", 2), ("b16", 2), ("u16", 2), ("i16", 2), ("byte", 1),
           ("b8", 1), ("u8", 1), ("i8", 1))
# FP operations per lane of the vector FP instructions (fma = 2; packed = x2).
_FLOPS = {"v_fma_f32": 2, "v_fmac_f32": 2, "v_fmaak_f32": 2, "v_fmamk_f32": 2, "v_mac_f32": 2, "v_add_f32": 1,
          "v_sub_f32": 1, "v_subrev_f32": 1, "v_mul_f32": 1, "v_pk_fma_f32": 4, "v_pk_add_f32": 2,
          "v_pk_mul_f32": 2, "v_fma_f16": 2, "v_pk_fma_f16": 4, "v_add_f16": 1, "v_mul_f16": 1,
          "v_fma_f64": 2, "v_add_f64": 1, "v_mul_f64": 1, "v_max_f32": 1, "v_min_f32": 1}


def _width(op: str) -> int:
    n = next((n for suffix, n in _WIDTHS if suffix in op.split("_")[-1] or op.endswith(suffix)), 4)
    return 2 * n if "read2" in op or "write2" in op or "load_2" in op or "store_2" in op else n


_VREG = re.compile(r"^v\[?(\d+)")
_INT = re.compile(r"^-?(0x[0-9a-fA-F]+|\d+)$")


def _amd_value(regs: dict[str, lanes.Value], token: str) -> lanes.Value:
    m = _VREG.match(token.strip().lstrip("-"))
    return regs.get(f"v{m[1]}", 0) if m else 0  # SGPRs, literals, vcc, exec: the same in every lane


def _amd_imm(token: str) -> int | None:
    t = token.strip()
    return int(t, 0) if _INT.match(t) else None


def _amdgcn_step(op: str, ops: list[str], regs: dict[str, lanes.Value]) -> None:  # noqa: C901 - one branch per instruction class; legacy, over the limit when ruff came in
    """Update `regs` with what one AMDGCN vector instruction writes (see porter.perfmodel.lanes)."""
    if not ops or not _VREG.match(ops[0]) or op.startswith(("global_store", "buffer_store", "flat_store", "ds_write")):
        return
    dest = f"v{_VREG.match(ops[0])[1]}"
    name = re.sub(r"_e(32|64)$", "", op)
    src = [o for o in ops[1:] if not (o.startswith("s[") and name.startswith(("v_add_co", "v_sub_co", "v_mad_u64",
                                                                               "v_mad_i64")) and o is ops[1])]
    if name.startswith(("v_add_co", "v_sub_co", "v_addc", "v_subb")) and len(ops) > 3:
        src = ops[2:]  # d, carry-out, a, b
    vals = [_amd_value(regs, o) for o in src]
    k = _amd_imm(src[1]) if len(src) > 1 else None
    if name.startswith(("global_load", "buffer_load", "flat_load", "ds_read", "ds_load", "global_atomic",
                        "ds_bpermute", "ds_swizzle", "v_readlane", "v_readfirstlane")):
        regs[dest] = None
    elif name == "v_mbcnt_lo_u32_b32" and len(vals) == 2:
        regs[dest] = lanes.add(1, vals[1])  # mbcnt(~0, x): the lane index (plus x)
    elif name == "v_mbcnt_hi_u32_b32" and len(vals) == 2:
        regs[dest] = vals[1]
    elif name in ("v_mov_b32", "v_mov_b64") and vals:
        regs[dest] = vals[0]
    elif name in ("v_add_u32", "v_add_co_u32", "v_add_i32", "v_add3_u32", "v_or_b32", "v_or3_b32", "v_xad_u32",
                  "v_add_nc_u32") and vals:
        regs[dest] = lanes.add(*vals)
    elif name in ("v_sub_u32", "v_sub_co_u32", "v_sub_i32") and len(vals) == 2:
        regs[dest] = lanes.add(vals[0], lanes.scale(vals[1], -1))
    elif name in ("v_subrev_u32", "v_subrev_co_u32") and len(vals) == 2:
        regs[dest] = lanes.add(vals[1], lanes.scale(vals[0], -1))
    elif name in ("v_lshlrev_b32", "v_lshlrev_b64") and (sh := _amd_imm(src[0])) is not None:
        regs[dest] = lanes.scale(vals[1], 1 << sh)
    elif name in ("v_lshrrev_b32", "v_ashrrev_i32", "v_lshrrev_b64", "v_ashrrev_i64") and \
            (sh := _amd_imm(src[0])) is not None:
        regs[dest] = lanes.shift_right(vals[1], sh)
    elif name in ("v_bfe_u32", "v_bfe_i32") and k is not None:
        regs[dest] = lanes.shift_right(vals[0], k)
    elif name in ("v_lshl_add_u32", "v_lshl_add_u64", "v_lshl_or_b32") and k is not None and len(vals) == 3:
        regs[dest] = lanes.add(lanes.scale(vals[0], 1 << k), vals[2])
    elif name == "v_add_lshl_u32" and len(vals) == 3 and (sh := _amd_imm(src[2])) is not None:
        regs[dest] = lanes.scale(lanes.add(vals[0], vals[1]), 1 << sh)
    elif name.startswith(("v_mul_lo", "v_mul_u32_u24", "v_mul_i32_i24", "v_mad_u32_u24", "v_mad_i32_i24",
                          "v_mad_u64_u32", "v_mad_i64_i32", "v_mad_u32")) and len(vals) >= 2:
        a, b = _amd_imm(src[0]), _amd_imm(src[1])
        product = lanes.scale(vals[0], b) if b is not None else lanes.scale(vals[1], a) if a is not None \
            else lanes.times(vals[0], vals[1])
        regs[dest] = lanes.add(product, vals[2]) if len(vals) > 2 and "mad" in name else product
    elif name == "v_and_b32" and len(vals) == 2 and sum(v != 0 for v in vals) == 1 \
            and any(_amd_imm(o) is not None for o in src):
        regs[dest] = next(v for v in vals if v != 0)  # a mask (x & 0x3ff) keeps neighbours neighbours
    elif name == "v_cndmask_b32" and len(vals) >= 2:
        regs[dest] = lanes.merge(vals[0], vals[1])
    else:
        regs[dest] = lanes.opaque(*vals)


def _address_operand(op: str, rest: str) -> int | None:
    """Which operand of a global memory instruction holds the per-lane address (None: no VGPR address)."""
    if op.startswith(("global_load", "flat_load")):
        return 1
    if op.startswith(("buffer_load", "buffer_store", "buffer_atomic")):
        return 1 if ("offen" in rest or "idxen" in rest) else None
    if op.startswith(("global_atomic", "flat_atomic")):
        return 1 if re.search(r"\b(glc|sc0)\b", rest) else 0
    return 0


def classify_amdgcn(op: str, wave: int = 64) -> Instr | None:
    """The perfmodel class of one AMDGCN mnemonic (None for what issues no work: s_nop, waits)."""
    if op in ("s_nop", "s_waitcnt", "s_endpgm") or op.startswith(("s_waitcnt", "s_set", "s_sleep")):
        return None
    if op.startswith(("global_atomic", "buffer_atomic", "flat_atomic")):
        return Instr("atomic", _width(op))
    if op.startswith(("global_load", "buffer_load", "flat_load")):
        return Instr("global_load", _width(op))
    if op.startswith(("global_store", "buffer_store", "flat_store")):
        return Instr("global_store", _width(op))
    if op.startswith(("ds_bpermute", "ds_permute", "ds_swizzle")) or op.startswith("v_permlane") or "_dpp" in op:
        return Instr("shuffle")
    if op.startswith(("ds_read", "ds_load")):
        return Instr("lds_read", _width(op))
    if op.startswith("ds_"):
        return Instr("lds_write", _width(op))
    if op == "s_barrier":
        return Instr("barrier")
    if m := _MFMA_SHAPE.match(op):
        mm, nn, kk = (int(g) for g in m.groups())
        return Instr("matrix", flops=2 * mm * nn * kk // wave)
    if op.replace("_e32", "").replace("_e64", "") in _FLOPS:
        return Instr("fp", flops=_FLOPS[op.replace("_e32", "").replace("_e64", "")])
    return Instr("other")


def kernel_isa(asm: str, kernels: list[KernelResources], wave: int = 64) -> dict[str, KernelIsa]:
    """Each kernel's classified instructions and loops, by the kernel's name as `kernels` gives it
    (demangled); resources from the compiler's report. A loop is the instructions of every block
    LLVM's loop comments place in it ("Loop Header", "in Loop: Header=", "Parent Loop"). Calls
    (noinline helpers) are counted as the call instruction only."""
    bodies = _function_bodies(asm)
    mangled = demangle(list(bodies))
    by_name = {mangled[m]: body for m, body in bodies.items()}
    out = {}
    for k in kernels:
        body = by_name.get(k.kernel)
        if body is None:
            continue
        instrs: list[Instr] = []
        members: dict[str, list[int]] = {}
        regs: dict[str, lanes.Value] = {"v0": 1}  # the work-item id: x in v0's low bits
        block: set[str] = set()
        label = ""
        for line in body.splitlines():
            if m := _BLOCK.match(line):
                block, label = set(), m[2] or ""
            if line.lstrip().startswith(";") or _BLOCK.match(line):
                block |= set(_LOOP_OF.findall(line))
                if "Loop Header" in line and label:
                    block.add(label)
                continue
            m = _INSTR.match(line)
            if not m or m[1].startswith("."):
                continue
            ins = classify_amdgcn(m[1], wave)
            if ins is None:
                continue
            ops = [o.strip() for o in re.split(r",\s*", m[2].split(" offset")[0]) if o.strip()]
            ops = [o.split()[0] for o in ops]
            if ins.cls in ("global_load", "global_store", "atomic"):
                at = _address_operand(m[1], m[2])
                value = _amd_value(regs, ops[at]) if at is not None and at < len(ops) else 0
                pat, stride = lanes.pattern(value, ins.bytes)
                ins = replace(ins, pattern=pat, stride=stride)
            _amdgcn_step(m[1], ops, regs)
            for header in block:
                members.setdefault(header, []).append(len(instrs))
            instrs.append(ins)
        loops = tuple(tuple(v) for v in members.values())
        out[k.kernel] = KernelIsa(k.kernel, tuple(instrs), loops, k.vgprs + k.agprs, k.lds_bytes)
    return out


def _function_bodies(asm: str) -> dict[str, str]:
    typed = set(re.findall(r"^\s*\.type\s+([\w.$]+),@function", asm, re.M))
    bodies = {}
    for m in _FUNC_START.finditer(asm):
        if m["name"] in typed:
            end = _FUNC_END.search(asm, m.end())
            bodies[m["name"]] = asm[m.end(): end.start() if end else len(asm)]
    return bodies
