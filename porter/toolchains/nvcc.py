"""Compile one original CUDA translation unit with nvcc: the baseline that a port is held to.

The verifier compiles the original next to its port, so that a unit which never built
with nvcc is not blamed on the port. Compile only (-c): no GPU and no link are needed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from porter.perfmodel import lanes
from porter.perfmodel.isa import Instr, KernelIsa
from porter.state import BuildResult
from porter.toolchains import find_tool, process

NVCC_CANDIDATES = ("nvcc", "/usr/local/cuda/bin/nvcc")


def find_nvcc() -> Path:
    """nvcc: $PORTER_NVCC, then nvcc on PATH, then the CUDA toolkit's default prefix."""
    return find_tool("nvcc", "PORTER_NVCC", NVCC_CANDIDATES)


@dataclass(frozen=True)
class NvccOptions:
    arch: str = "sm_90"
    include_dirs: tuple[Path, ...] = ()
    defines: tuple[str, ...] = ()  # "NAME" or "NAME=VALUE"
    std: str = "c++17"

    def __post_init__(self) -> None:
        # sm_XY, with the a/f suffixes of arch-specific (sm_90a) and family (sm_100f) targets.
        if not re.fullmatch(r"sm_\d{2,3}[af]?", self.arch):
            raise ValueError(f"arch {self.arch!r}: expected an NVIDIA target such as sm_90")
        if self.std not in ("c++17", "c++20"):
            raise ValueError(f"std {self.std!r}: nvcc accepts c++17 or c++20 here")
        for d in self.defines:
            if not re.fullmatch(r"[A-Za-z_]\w*(=.*)?", d):
                raise ValueError(f"define {d!r}: expected NAME or NAME=VALUE")
        object.__setattr__(self, "include_dirs", tuple(Path(p) for p in self.include_dirs))


def build_command(nvcc: Path, src: Path, opts: NvccOptions, obj_out: Path) -> list[str]:
    cmd = [str(nvcc), "-c", f"-std={opts.std}", f"-arch={opts.arch}"]
    for d in opts.include_dirs:
        cmd += ["-I", str(d)]
    cmd += [f"-D{d}" for d in opts.defines]
    cmd += [str(src), "-o", str(obj_out)]
    return cmd


def compile_unit(src: Path, opts: NvccOptions, workdir: Path) -> BuildResult:
    """Compile `src` to an object file under `workdir`. Raises only ToolchainMissing."""
    nvcc = find_nvcc()
    src = src.resolve()  # nvcc runs in workdir so that its temporaries stay there
    workdir.mkdir(parents=True, exist_ok=True)
    obj_out = workdir / f"{src.stem}.{opts.arch}.o"
    cmd = build_command(nvcc, src, opts, obj_out)
    return process.build_result("nvcc", process.run(cmd, workdir), [obj_out])

# ---- SASS: the instruction mix porter.perfmodel.isa reads (bench/isa_rank.py) ----------------
CUOBJDUMP_CANDIDATES = ("cuobjdump", "/usr/local/cuda/bin/cuobjdump")
_SASS_FUNCTION = re.compile(r"^\s*Function : (\S+)", re.M)
# "        /*0140*/              @!P0 BRA 0xaf0 ;"  (address, optional predicate, opcode, operands)
_SASS_LINE = re.compile(r"^\s+/\*(?P<addr>[0-9a-f]{4,})\*/\s+(?P<pred>@!?U?P[T0-9]+\s+)?(?P<op>[A-Z][\w.]*)(?P<rest>[^;]*);")
_PTXAS_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PTXAS_USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")
# FP operations per lane of the vector FP instructions (fma = 2; packed half2 = x2).
_SASS_FLOPS = {"FFMA": 2, "FADD": 1, "FMUL": 1, "DFMA": 2, "DADD": 1, "DMUL": 1, "HFMA2": 4, "HADD2": 2,
               "HMUL2": 2, "FMNMX": 1}
# Matrix instructions: MACs of one warp instruction (m x n x k), per lane x 2.
_SASS_MMA = re.compile(r"^(HMMA|IMMA|DMMA|HGMMA|QGMMA|IGMMA)\.(\d+)")
_MMA_SHAPES = {"16816": (16, 8, 16), "1688": (16, 8, 8), "884": (8, 8, 4), "8816": (8, 8, 16), "16832": (16, 8, 32)}


def find_cuobjdump() -> Path:
    """cuobjdump: $PORTER_CUOBJDUMP, then cuobjdump on PATH, then the CUDA toolkit's prefix, then the
    copy Triton's wheel ships (triton/backends/nvidia/bin: an nvcc install without the toolkit's
    binary utilities, as on Debian's CUDA packages, still disassembles through it)."""
    return find_tool("cuobjdump", "PORTER_CUOBJDUMP", (*CUOBJDUMP_CANDIDATES, *_triton_bundled("cuobjdump")))


def _triton_bundled(tool: str) -> tuple[str, ...]:
    """Where Triton's wheel keeps its copy of a CUDA binary utility, if Triton is installed (found
    without importing it)."""
    import importlib.util

    spec = importlib.util.find_spec("triton")
    if spec is None or spec.origin is None:
        return ()
    return (str(Path(spec.origin).parent / "backends" / "nvidia" / "bin" / tool),)


def _sass_width(op: str) -> int:
    parts = op.split(".")
    for p, n in (("128", 16), ("64", 8), ("U8", 1), ("S8", 1), ("U16", 2), ("S16", 2)):
        if p in parts:
            return n
    return 4


def classify_sass(op: str) -> Instr | None:
    """The perfmodel class of one SASS opcode (None for NOP: not issued work)."""
    base = op.split(".")[0]
    if base == "NOP":
        return None
    if base in ("LDG", "LD") or op.startswith("LDGSTS"):
        return Instr("global_load", _sass_width(op))
    if base in ("STG", "ST"):
        return Instr("global_store", _sass_width(op))
    if base in ("RED", "REDG", "ATOM", "ATOMG"):
        return Instr("atomic", _sass_width(op))
    if base in ("LDS", "LDSM"):
        return Instr("lds_read", 16 if base == "LDSM" else _sass_width(op))
    if base in ("STS", "ATOMS"):
        return Instr("lds_write", _sass_width(op))
    if base in ("SHFL", "VOTE", "MATCH", "REDUX"):
        return Instr("shuffle")
    if base in ("BAR", "BARRIER"):
        return Instr("barrier")
    m = _SASS_MMA.match(op)
    if m and m[2] in _MMA_SHAPES:
        mm, nn, kk = _MMA_SHAPES[m[2]]
        return Instr("matrix", flops=2 * mm * nn * kk // 32)
    if base in _SASS_FLOPS and op != "HFMA2.MMA":  # HFMA2.MMA with RZ operands is a register move
        return Instr("fp", flops=_SASS_FLOPS[base])
    return Instr("other")


def parse_ptxas_usage(text: str) -> dict[str, tuple[int, int]]:
    """(registers, static shared bytes) per kernel from `nvcc -Xptxas -v` output."""
    out: dict[str, tuple[int, int]] = {}
    current = None
    for line in text.splitlines():
        if m := _PTXAS_ENTRY.search(line):
            current = m[1]
        elif current and (m := _PTXAS_USED.search(line)):
            out[current] = (int(m[1]), int(m[2] or 0))
            current = None
    return out


_REG = re.compile(r"^(-?)(U?R)(\d+|Z)\b")
_IMM = re.compile(r"^-?(0x[0-9a-f]+|\d+)$")
_ADDRESS = re.compile(r"\[(R\d+)(?:\.64)?[^\]]*\]\s*$|\[(R\d+)(?:\.64)?[^\]]*\]")


def _operands(rest: str) -> list[str]:
    return [o.strip() for o in rest.split(",") if o.strip()]


def _value(regs: dict[str, lanes.Value], token: str) -> lanes.Value:
    m = _REG.match(token)
    if m:
        if m[2] == "UR" or m[3] == "Z":
            return 0  # uniform registers and RZ are the same in every lane
        v = regs.get(f"R{m[3]}", 0)
        return lanes.scale(v, -1) if m[1] else v
    return 0  # immediates, constant bank c[..][..], predicates


def _imm(token: str) -> int | None:
    t = token.strip()
    if t in ("RZ", "URZ"):
        return 0
    return int(t, 16) if t.lstrip("-").startswith("0x") and _IMM.match(t) else int(t) if _IMM.match(t) else None


def _sass_step(op: str, ops: list[str], regs: dict[str, lanes.Value]) -> None:
    """Update `regs` with what one SASS instruction writes (see porter.perfmodel.lanes)."""
    if not ops or not re.match(r"^R\d+$", ops[0].split(".")[0]):
        return
    dest, src = ops[0].split(".")[0], [o for o in ops[1:] if not re.match(r"^!?U?P(\d+|T)$", o)]
    base = op.split(".")[0]
    vals = [_value(regs, o) for o in src]
    if op.startswith("S2R"):
        regs[dest] = 1 if src and src[0] in ("SR_TID.X", "SR_LANEID") else 0
    elif base in ("LDG", "LD", "LDS", "LDL", "SHFL", "ATOM", "ATOMG", "LDSM"):
        regs[dest] = None  # loaded data: no lane pattern known
    elif base == "MOV" and vals:
        regs[dest] = vals[0]
    elif base == "IMAD" and len(src) >= 3 and not any(x in op for x in (".HI", ".X")):
        a, b = _imm(src[0]), _imm(src[1])
        product = lanes.scale(vals[0], b) if b is not None else lanes.scale(vals[1], a) if a is not None \
            else lanes.times(vals[0], vals[1])
        regs[dest] = lanes.add(product, vals[2])
    elif base in ("IADD3", "VIADD", "IADD") and ".X" not in op:
        regs[dest] = lanes.add(*vals)
    elif base == "LEA" and ".HI" not in op and len(src) >= 3 and (k := _imm(src[2])) is not None:
        regs[dest] = lanes.add(lanes.scale(vals[0], 1 << k), vals[1])
    elif base == "SHF" and ".L" in op and not {"S64", "U64", "HI"} & set(op.split(".")) and len(src) >= 2 \
            and (k := _imm(src[1])) is not None:
        regs[dest] = lanes.scale(vals[0], 1 << k)
    elif base == "SHF" and ".R" in op and not {"S64", "U64", "HI"} & set(op.split(".")) and len(src) >= 2 \
            and (k := _imm(src[1])) is not None:
        regs[dest] = lanes.shift_right(vals[0], k)
    elif base == "LOP3" and sum(v != 0 for v in vals) == 1 and sum(_imm(o) is None for o in src[:3]) == 1:
        regs[dest] = next(v for v in vals if v != 0)  # a mask (x & 15) keeps neighbours neighbours
    else:
        regs[dest] = lanes.opaque(*vals)


def parse_sass(text: str, usage: dict[str, tuple[int, int]]) -> list[KernelIsa]:
    """Each kernel of `cuobjdump -sass` output: classified instructions and loops (backward BRA)."""
    kernels = []
    starts = list(_SASS_FUNCTION.finditer(text))
    for i, f in enumerate(starts):
        body = text[f.end(): starts[i + 1].start() if i + 1 < len(starts) else len(text)]
        instrs: list[Instr] = []
        index: dict[int, int] = {}
        branches: list[tuple[int, int]] = []
        regs: dict[str, lanes.Value] = {}
        guard: dict[str, str] = {}
        for line in body.splitlines():
            m = _SASS_LINE.match(line)
            if not m:
                continue
            addr = int(m["addr"], 16)
            ins = classify_sass(m["op"])
            if ins is None:
                continue
            if ins.cls in ("global_load", "global_store", "atomic") and (a := _ADDRESS.search(m["rest"])):
                pat, stride = lanes.pattern(regs.get(a[1] or a[2], 0), ins.bytes)
                ins = replace(ins, pattern=pat, stride=stride)
            before = dict(regs)
            _sass_step(m["op"], _operands(m["rest"]), regs)
            pred = (m["pred"] or "").strip()
            for r in [r for r, v in regs.items() if r not in before or before[r] != v]:
                # A write under a predicate keeps, in the other lanes, what an earlier write under
                # another predicate (or none) left there.
                if pred and r in before and guard.get(r) != pred:
                    regs[r] = lanes.merge(before[r], regs[r])
                guard[r] = pred
            index[addr] = len(instrs)
            if m["op"].startswith("BRA") and (t := re.search(r"0x([0-9a-f]+)", m["rest"])):
                target = int(t[1], 16)
                if target < addr:  # `BRA` to itself after EXIT is padding, not a loop
                    branches.append((target, len(instrs)))
            instrs.append(ins)
        loops = []
        for target, at in branches:
            first = next((index[a] for a in sorted(index) if a >= target), at)
            loops.append(tuple(range(first, at + 1)))
        regs, smem = usage.get(f[1], (0, 0))
        kernels.append(KernelIsa(f[1], tuple(instrs), tuple(loops), regs, smem))
    return kernels
