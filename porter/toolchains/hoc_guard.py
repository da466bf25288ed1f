"""The exit guard of hip-on-cuda: every kernel of a translation unit starts with one.

shims/hip_on_cuda emulates an AMD wave of 64 lanes with two NVIDIA warps. When one warp of a
wave has returned, the other must stop waiting for it at the next collective, and nothing on an
NVIDIA GPU tells a warp that another warp has exited (shims/hip_on_cuda/porter_hoc/wave.h, "Wave
barrier"). A kernel can tell it, though, if every lane leaves a mark on its way out: the guard
object `porter_hoc::KernelExit`, declared first in the kernel's body, whose destructor runs on
every return path of every lane and sets the lane's bit in its warp's exited mask.

`instrument` also gives a kernel without `__launch_bounds__` the register cap of the bound
hip-clang compiles it with (1024 threads per block: `__maxnreg__(64)` on the NVIDIA GPU), and
puts that declaration after the opening brace of every `__global__` function
definition tree-sitter finds in a source (templates, `extern "C"`, static and member-free
kernels alike), under `#ifdef PORTER_HOC_EXIT_GUARD` (defined by porter_hoc/wave.h, so a file
that never includes the HIP headers is left as it was), with `#line` directives that keep every
diagnostic, `__LINE__` and `__FILE__` on the user's file and line. What it cannot instrument it
reports: kernels written by a macro (`#define` bodies are not parsed) and kernels inside a region
tree-sitter could not parse. Kernels defined in the headers a source includes are not seen here
(only the source is rewritten); they keep the bounded wait.

porter's hip-on-cuda `hipcc` (porter.toolchains.hipcc) compiles every source through this;
`python -m porter.toolchains.hoc_guard IN OUT` writes one instrumented file (used to build the
device benchmarks, whose machine has no tree-sitter).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Node, Parser

from porter import syntax

GUARD_MACRO = "PORTER_HOC_EXIT_GUARD"
GUARD_DECL = "::porter_hoc::KernelExit porter_hoc_exit_guard;"
# hip-clang compiles a kernel without __launch_bounds__ for blocks of up to 1024 threads (its
# default --gpu-max-threads-per-block); nvcc, given no bound, may use more than the 64 registers
# a 1024-thread block can have, and such a launch fails on the NVIDIA GPU though it runs on AMD.
# `__maxnreg__(64)` caps the registers and nothing else: `__launch_bounds__(1024)` caps them too
# but also changes how ptxas schedules (it recomputed thread indices inside the benchmark's
# collective loops instead of keeping them: 20% slower on the H200,
# docs/evidence/hip-on-cuda-speed-h200-2026-12-01.md).
REGISTER_CAP = "__maxnreg__(64)"
_BOUNDED = re.compile(rb"__launch_bounds__|__maxnreg__|launch_bounds\s*\(|maxnreg\s*\(")
_GLOBAL = re.compile(rb"(?<![A-Za-z0-9_])__global__(?![A-Za-z0-9_])")


@dataclass(frozen=True)
class Skipped:
    """A kernel the transform saw but could not instrument."""

    line: int  # 1-based
    reason: str


@dataclass(frozen=True)
class Instrumented:
    text: bytes
    kernels: list[str] = field(default_factory=list)  # names of the instrumented kernels
    skipped: list[Skipped] = field(default_factory=list)


def _quoted(path: str) -> str:
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _is_kernel(fn: Node) -> bool:
    return any(c.type == "__global__" for c in fn.children)


def _name(fn: Node) -> str:
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    inner = decl.child_by_field_name("declarator") if decl is not None else None
    return inner.text.decode(errors="replace") if inner is not None and inner.text else "?"


def _walk(node: Node, kernels: list[Node], raw: list[Node]) -> None:
    if node.type == "function_definition" and _is_kernel(node):
        kernels.append(node)
    elif node.type in ("preproc_arg", "ERROR"):
        raw.append(node)
    for child in node.children:
        _walk(child, kernels, raw)


def instrument(source: bytes, path: str) -> Instrumented:
    """`source` with the exit guard first in every kernel body; `path` is the name diagnostics use."""
    tree = Parser(syntax.language("cuda")).parse(source)
    kernels: list[Node] = []
    raw: list[Node] = []
    _walk(tree.root_node, kernels, raw)
    skipped = []
    for node in raw:
        text = node.text or b""
        for m in _GLOBAL.finditer(text):
            line = node.start_point[0] + text[:m.start()].count(b"\n") + 1
            why = ("a kernel written by a macro (#define bodies are not parsed)" if node.type == "preproc_arg"
                   else "a kernel in a region tree-sitter could not parse")
            skipped.append(Skipped(line, why))
    name = _quoted(path).encode()
    inserts: list[tuple[int, bytes]] = []
    names = []
    for fn in kernels:
        body = fn.child_by_field_name("body")
        if body is None or body.type != "compound_statement" or body.child_count == 0 or body.children[0].type != "{":
            skipped.append(Skipped(fn.start_point[0] + 1, f"kernel {_name(fn)}: no plain body"))
            continue
        decl = fn.child_by_field_name("declarator")
        head = source[fn.start_byte:body.start_byte]
        if decl is not None and decl.type == "function_declarator" and not _BOUNDED.search(head):
            inserts.append((decl.start_byte, REGISTER_CAP.encode() + b" "))
        brace = body.children[0]
        line = brace.end_point[0] + 1  # the line the rest of the brace's line keeps
        inserts.append((brace.end_byte, b"\n#ifdef " + GUARD_MACRO.encode() + b"\n" + GUARD_DECL.encode()
                        + b"\n#endif\n#line " + str(line).encode() + b" " + name + b"\n"))
        names.append(_name(fn))
    if not inserts:
        return Instrumented(source, [], skipped)
    out = bytearray(b"#line 1 " + name + b"\n")
    pos = 0
    for at, text in sorted(inserts):
        out += source[pos:at] + text
        pos = at
    out += source[pos:]
    return Instrumented(bytes(out), names, skipped)


def report(result: Instrumented, path: str) -> str:
    """One line per kernel the transform could not instrument (empty when none)."""
    return "".join(f"porter hip-on-cuda: {path}:{s.line}: not instrumented ({s.reason}); a collective whose "
                   f"partner warp exited waits the bounded time there\n" for s in result.skipped)


def guarded_copy(src: Path, shown: str) -> tuple[Path | None, str]:
    """A copy of `src` beside it (`.<stem>.porter-hoc<pid><suffix>`, so its quoted includes resolve
    as before) whose kernels start with the exit guard, and what to say on stderr for `shown`: the
    "not instrumented" lines. No copy (None) when `src` defines no kernel or its folder cannot be
    written (said: compiled without the guard)."""
    result = instrument(src.read_bytes(), shown)
    notes = report(result, shown)
    if not result.kernels:
        return None, notes
    copy = src.with_name(f".{src.stem}.porter-hoc{os.getpid()}{src.suffix}")
    try:
        copy.write_bytes(result.text)
    except OSError:
        return None, notes + f"porter hip-on-cuda: {src}: cannot write beside it; compiled without the exit guard\n"
    return copy, notes


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m porter.toolchains.hoc_guard IN OUT", file=sys.stderr)
        return 2
    src, dest = Path(argv[0]), Path(argv[1])
    result = instrument(src.read_bytes(), str(src))
    dest.write_bytes(result.text)
    sys.stderr.write(report(result, str(src)))
    print(f"{src}: {len(result.kernels)} kernel(s) instrumented: {', '.join(result.kernels) or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
