"""BLD004: CUDA compile settings and nvcc options in CMake.

Why: with the sources compiled as HIP (BLD001), nothing CMake keys on the CUDA language
applies to them any more (`CMAKE_CUDA_FLAGS`, `CMAKE_CUDA_STANDARD`, the `CUDA_STANDARD` property and
`$<COMPILE_LANGUAGE:CUDA>` expressions; CMake 3.21 added the HIP twin of each). The flags they
carry are nvcc's and ROCm's clang rejects most of them: `--expt-relaxed-constexpr` is dropped
(clang allows constexpr host calls from device code by default), `-lineinfo` becomes
`-gline-tables-only`, `--use_fast_math` becomes `-ffast-math`, `-Xcompiler=X` becomes `X`, and
`-gencode`/`-arch` become `--offload-arch=gfx950`.

Before:
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --expt-relaxed-constexpr -lineinfo")
    target_compile_options(gemm PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math>)
After:
    set(CMAKE_HIP_STANDARD 17)
    set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -gline-tables-only")
    target_compile_options(gemm PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-ffast-math>)

Fix safety: safe for the options in porter's nvcc table; options with no clang meaning
(`-maxrregcount`, `-Xnvlink`) and option pairs split over two CMake arguments are reported only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.agents.translator.buildfiles import (
    FlagChange,
    Token,
    argument_value,
    arguments,
    cmake_flag_tokens,
    cmake_tree,
    commands,
    nvcc_arch_changes,
    nvcc_flag_changes,
)
from porter.rules import Hit, RuleContext, TextFile, rule
from porter.state import Edit, Severity

_RENAME = re.compile(rb"\b(?:CMAKE_CUDA_(?:FLAGS(?:_[A-Z]+)?|STANDARD(?:_REQUIRED)?|EXTENSIONS|COMPILER)"
                     rb"|CUDA_(?:STANDARD(?:_REQUIRED)?|EXTENSIONS))\b")
_GENEX = re.compile(rb"\$<(?:COMPILE|LINK)_(?:LANGUAGE|LANG_AND_ID):([^>]*)>")
_GENEX_WORD = re.compile(rb"(?<=[:,])(?:CUDA|NVIDIA)(?=[,>])")
_GENEX_NEW = {"CUDA": "HIP", "NVIDIA": "Clang"}
_HOST_COMPILER = re.compile(rb"\bCMAKE_CUDA_HOST_COMPILER\b")
# Commands whose arguments are compiler flags: each argument is a ;-list of options.
_OPTION_COMMANDS = ("target_compile_options", "add_compile_options", "target_link_options", "add_link_options")
_FLAGS_VAR = re.compile(r"^CMAKE_(?:CUDA|HIP)_FLAGS(?:_[A-Z]+)?$")


@rule(id="BLD004", lang="cmake", severity="info", fix="safe")
def cuda_flags(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    data = unit.data
    for name, cmd in commands(cmake_tree(data)):
        args = arguments(cmd)
        values = [argument_value(a) for a in args]
        texts = [data[s:e].decode() for s, e in values]
        for start, end in values:
            for m in _RENAME.finditer(data, start, end):
                if name == "message" and data[m.start() - 2:m.start()] != b"${":
                    continue  # prose in a message, not the variable
                new = m.group().decode().replace("CUDA", "HIP", 1)
                yield Hit(m.start(), m.end(), f"{m.group().decode()} -> {new}: HIP sources read the HIP setting "
                          "(CMake 3.21)", (Edit(start=m.start(), end=m.end(), text=new),))
            for m in _HOST_COMPILER.finditer(data, start, end):
                yield Hit(m.start(), m.end(), "CMAKE_CUDA_HOST_COMPILER has no HIP meaning: clang compiles host "
                          "and device code itself", severity=Severity.warning)
        flag_args: range = range(0)
        if name in _OPTION_COMMANDS:
            flag_args = range(len(args))
        elif name == "set" and texts and _FLAGS_VAR.match(texts[0]):
            flag_args = range(1, next((i for i, t in enumerate(texts) if t in ("CACHE", "PARENT_SCOPE")), len(args)))
        elif name == "string" and len(texts) > 1 and texts[0] in ("APPEND", "PREPEND") and _FLAGS_VAR.match(texts[1]):
            flag_args = range(2, len(args))
        removed: set[int] = set()
        yield from _flags(data, [(i, *values[i]) for i in flag_args], args, removed,
                          whole_args=name in _OPTION_COMMANDS, arch=ctx.options.arch)
        for i in flag_args:
            if i not in removed:
                yield from _genex(data, *values[i])


def _genex(data: bytes, start: int, end: int) -> Iterator[Hit]:
    for m in _GENEX.finditer(data, start, end):
        for w in _GENEX_WORD.finditer(data, m.start(1) - 1, m.end()):
            old = w.group().decode()
            new = _GENEX_NEW[old]
            yield Hit(w.start(), w.end(), f"{m.group().decode()}: {old} -> {new}: the sources compile as HIP "
                      "with ROCm's clang (compiler id Clang)", (Edit(start=w.start(), end=w.end(), text=new),))


def _flags(data: bytes, spans: list[tuple[int, int, int]], args, removed: set[int], *, whole_args: bool,
           arch: str) -> Iterator[Hit]:
    """nvcc options in the flag arguments `spans` (index, start, end); adds to `removed` the arguments
    that go whole."""
    tokens: list[Token] = []
    owner: list[int] = []
    for i, start, end in spans:
        for tok in cmake_flag_tokens(data, start, end):
            tokens.append(tok)
            owner.append(i)
    texts = [t.text for t in tokens]
    changes = sorted([*nvcc_flag_changes(texts), *nvcc_arch_changes(texts, arch)], key=lambda c: c.first)
    per_arg: dict[int, list[FlagChange]] = {}
    for c in changes:
        span = tokens[c.first:c.first + c.count]
        if not c.fix or len({owner[k] for k in range(c.first, c.first + c.count)}) > 1:
            why = c.why if not c.fix else f"{c.why} (split over two CMake arguments: join them and re-run)"
            yield Hit(span[0].start, span[-1].end, why, severity=Severity.warning)
        else:
            per_arg.setdefault(owner[c.first], []).append(c)
    for i, arg_changes in per_arg.items():
        idx = [k for k in range(len(tokens)) if owner[k] == i]
        if whole_args and i > 0 and _all_dropped(idx, arg_changes):
            # an option argument left empty goes whole, with the blank before it
            removed.add(i)
            yield Hit(args[i].start_byte, args[i].end_byte, "; ".join(c.why for c in arg_changes),
                      (Edit(start=args[i - 1].end_byte, end=args[i].end_byte, text=""),))
        else:
            yield _rewrite(data, tokens, arg_changes, sep=";" if whole_args else " ", first=idx[0])


def _all_dropped(idx: list[int], changes: list[FlagChange]) -> bool:
    gone = {k for c in changes if not c.new for k in range(c.first, c.first + c.count)}
    return gone.issuperset(idx)


def _rewrite(data: bytes, tokens: list[Token], changes: list[FlagChange], *, sep: str, first: int) -> Hit:
    """One edit per argument: the changed tokens rewritten, separators kept, a dropped token
    going with the separator before it."""
    repl: dict[int, tuple[str, ...]] = {}
    for c in changes:
        for k in range(c.first, c.first + c.count):
            repl[k] = ()
        repl[c.first] = c.new
    why = "; ".join(c.why for c in changes)
    sev = Severity.warning if any(c.severity == Severity.warning for c in changes) else None
    lo, hi = min(repl), max(repl)
    start = tokens[lo - 1].end if lo > first else tokens[lo].start
    out, emitted = [], lo > first
    for k in range(lo, hi + 1):
        if repl.get(k) == ():
            continue
        if emitted:
            out.append(data[tokens[k - 1].end:tokens[k].start].decode())
        out.append(sep.join(repl[k]) if k in repl else tokens[k].text)
        emitted = True
    return Hit(tokens[lo].start, tokens[hi].end, why, (Edit(start=start, end=tokens[hi].end, text="".join(out)),), sev)
