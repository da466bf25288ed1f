"""BLD010: nvcc, the CUDA install path and CUDA libraries in a Makefile.

Why: the port builds with hipcc, which ROCm installs as $(ROCM_PATH)/bin/hipcc (ROCM_PATH
defaults to /opt/rocm; ROCm 6.3 "ROCm installation"); hipcc compiles `.cu` files as HIP. The
CUDA install variables (CUDA_PATH, CUDA_HOME, ...) become ROCM_PATH, paths under /usr/local/cuda
move under it, and ROCm keeps its libraries in lib/, not lib64/. Each CUDA library has a hip*
twin; -lcudart and -lcuda -> -lamdhip64 (runtime and driver API), -lcublas -> -lhipblas,
-lcurand -> -lhiprand, -lcufft -> -lhipfft, -lcusparse -> -lhipsparse, -lcusolver -> -lhipsolver.

Before:
    CUDA_PATH = /usr/local/cuda
    NVCC := $(CUDA_PATH)/bin/nvcc
    LDFLAGS := -L$(CUDA_PATH)/lib64 -lcudart -lcublas
After:
    ROCM_PATH ?= /opt/rocm
    NVCC := $(ROCM_PATH)/bin/hipcc
    LDFLAGS := -L$(ROCM_PATH)/lib -lamdhip64 -lhipblas

Fix safety: safe. The variable that holds the compiler keeps its name (NVCC), so every rule that
uses it still does; comments, quoted text and $(info)/$(warning)/$(error) messages are left alone.
When the file sets no install path, `ROCM_PATH ?= /opt/rocm` is added above its first statement;
an install path set with `=` or `:=` becomes `?=`, so that `$ROCM_PATH` in the environment wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.translator.buildfiles import MakeLine, Token, make_lines
from porter.rules import Hit, RuleContext, TextFile, rule
from porter.state import Edit, Severity

CUDA_VARS = ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT", "CUDA_DIR", "CUDA_INSTALL_PATH", "CUDA_TOOLKIT_ROOT_DIR")
LIBS = {"-lcudart": "-lamdhip64", "-lcudart_static": "-lamdhip64", "-lcuda": "-lamdhip64",
        "-lcublas": "-lhipblas", "-lcublasLt": "-lhipblaslt", "-lcurand": "-lhiprand", "-lcufft": "-lhipfft",
        "-lcusparse": "-lhipsparse", "-lcusolver": "-lhipsolver"}
_VAR_REF = re.compile(r"\$[({](?:" + "|".join(CUDA_VARS) + r")[)}]")
_CUDA_DIR = re.compile(r"/usr/local/cuda(?:-[\d.]+)?(?=/|$)")
_LIB64 = re.compile(r"\$\(ROCM_PATH\)/lib64\b")
_NVCC_PATH = re.compile(r"(?:\$\(ROCM_PATH\)|/opt/rocm)/bin/nvcc\b")
_NVCC = re.compile(r"^(?:(?:\$\(ROCM_PATH\)|/opt/rocm)/bin/)?nvcc$"
                   r"|^\$[({]shell (?:which|command -v|type -P) nvcc(?: 2>/dev/null)?[)}]$")
ROCM = "$(ROCM_PATH)"


@rule(id="BLD010", lang="makefile", severity="info", fix="safe")
def make_compiler(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    lines = list(make_lines(unit.data))
    defined = any(ln.kind == "assign" and ln.name in ("ROCM_PATH", *CUDA_VARS) for ln in lines)
    seen_path_var = False
    needs_def = False
    for line in lines:
        if line.kind == "assign" and line.name in CUDA_VARS:
            words = [w.text for w in line.words]
            if len(words) == 1 and _VAR_REF.fullmatch(words[0]):
                # CUDA_PATH ?= $(CUDA_HOME): both are ROCM_PATH now, and ROCM_PATH = $(ROCM_PATH) would
                # be a variable that references itself (GNU make 6.2)
                if seen_path_var:
                    yield Hit(line.start, line.end, f"{line.name} -> ROCM_PATH, already set above: line dropped",
                              (Edit(start=line.start, end=min(line.end + 1, len(unit.data)), text=""),))
                    continue
                w = line.words[0]
                yield Hit(w.start, w.end, f"{w.text} -> /opt/rocm: {line.name} becomes ROCM_PATH itself",
                          (Edit(start=w.start, end=w.end, text="/opt/rocm"),))
            seen_path_var = True
            yield from _overridable(unit.data, line)
            yield Hit(line.name_start, line.name_start + len(line.name),
                      f"{line.name} -> ROCM_PATH: the ROCm install root (default /opt/rocm)",
                      (Edit(start=line.name_start, end=line.name_start + len(line.name), text="ROCM_PATH"),))
        in_root = line.kind == "assign" and line.name in ("ROCM_PATH", *CUDA_VARS)
        for word in line.words:
            if in_root and len(line.words) == 1 and _VAR_REF.fullmatch(word.text):
                continue  # rewritten above
            hit = _word(word, line, in_root)
            if hit is not None:
                needs_def = needs_def or (ROCM in hit.edits[0].text and not defined)
                yield hit
    if needs_def:
        # above the first line that is not a comment: a recipe line must not be split from its rule
        at = next((ln.start for ln in lines if ln.words), 0)
        yield Hit(at, at, "ROCM_PATH ?= /opt/rocm added: the ported paths are under it",
                  (Edit(start=at, end=at, text="ROCM_PATH ?= /opt/rocm\n"),))


_OP = re.compile(rb"[ \t]*(::?=|:::=|=)")


def _overridable(data: bytes, line: MakeLine) -> Iterator[Hit]:
    """`CUDA_DIR = /usr/local/cuda` -> `ROCM_PATH ?= /opt/rocm`: a plain assignment in a file beats
    the environment (GNU make 6.10), so a ROCm elsewhere, announced by $ROCM_PATH as ROCm's own
    tools expect, would never be used. The same holds for `CUDA_INSTALL_PATH = $(CUDA_DIR)`, whose
    reference becomes /opt/rocm."""
    words = [w.text for w in line.words]
    if len(words) != 1 or not (_CUDA_DIR.match(words[0]) or _VAR_REF.fullmatch(words[0])):
        return
    m = _OP.match(data, line.name_start + len(line.name), line.anchor)
    if m is None or m.end() != line.anchor:
        return
    yield Hit(m.start(1), m.end(1), f"{line.name} {m.group(1).decode()} -> ROCM_PATH ?=: the install root "
              "honours $ROCM_PATH from the environment, as ROCm's own Makefiles do",
              (Edit(start=m.start(1), end=m.end(1), text="?="),))


def _word(word: Token, line: MakeLine, in_root: bool) -> Hit | None:
    text, why = word.text, []
    new = _VAR_REF.sub(ROCM, text)
    if new != text:
        why.append("CUDA install variable -> $(ROCM_PATH)")
    dirs = _CUDA_DIR.sub("/opt/rocm" if in_root else ROCM, new)
    if dirs != new:
        why.append("/usr/local/cuda -> " + ("/opt/rocm" if in_root else "$(ROCM_PATH)"))
    new = _LIB64.sub(f"{ROCM}/lib", dirs)
    if new != dirs:
        why.append("lib64 -> lib: ROCm installs its libraries in $(ROCM_PATH)/lib")
    tool = _NVCC_PATH.sub(f"{ROCM}/bin/hipcc", new)
    if tool != new:
        why.append("$(ROCM_PATH)/bin/nvcc -> $(ROCM_PATH)/bin/hipcc")
        new = tool
    if line.kind in ("assign", "recipe"):
        if _NVCC.match(new):
            new = f"{ROCM}/bin/hipcc"
            why.append("nvcc -> $(ROCM_PATH)/bin/hipcc: hipcc compiles .cu files as HIP")
        elif new in LIBS:
            why.append(f"{new} -> {LIBS[new]}: the ROCm library with the same API")
            new = LIBS[new]
        elif new == "-lcudadevrt":
            return Hit(word.start, word.end, "-lcudadevrt has no ROCm library: clang links relocatable device "
                       "code itself (-fgpu-rdc --hip-link); remove it by hand", severity=Severity.warning)
    if new == text:
        return None
    return Hit(word.start, word.end, "; ".join(why), (Edit(start=word.start, end=word.end, text=new),))
