"""HIP012: CUDA's typed integer min/max (umin, umax, llmin, llmax, ullmin, ullmax) -> min/max.

Why: CUDA's device math API has integer minimum and maximum functions named by type
(`umin(unsigned int, unsigned int)`, `llmax(long long, long long)`, ...). HIP has none of them
(HIPIFY's "CUDA Device API supported by HIP" table lists umin/umax/llmin/llmax/ullmin/ullmax
with no HIP name), so a port that keeps them stops at "use of undeclared identifier 'umin'"
(cuda-samples' mergeSort). HIP's device `min`/`max` templates (clang's __clang_hip_math.h,
`template <class T> T min(T, T)`) give the same result once both arguments have the type the
CUDA function takes, so each call becomes `min`/`max` with both arguments cast to that type,
which keeps CUDA's conversions (a negative int passed to umin is compared as unsigned).

Before:
    uint newPos = umin(pos + stride, L);
After:
    uint newPos = min(static_cast<unsigned int>(pos + stride), static_cast<unsigned int>(L));

Fix safety: safe: the casts are the conversions CUDA's prototypes apply to the arguments. A file
that defines its own `umin` (a function or macro in the file or a project header it includes) is
left alone; a `static` helper of the same name in another file of the tree (cuda-samples'
mergeSort_host.cpp) is not visible here and does not count.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.rules import Hit, RuleContext, any_of, rule
from porter.state import Edit
from porter.syntax import SourceFile

# CUDA name -> (HIP function, the type CUDA's prototype takes)
FUNCTIONS = {"umin": ("min", "unsigned int"), "umax": ("max", "unsigned int"),
             "llmin": ("min", "long long"), "llmax": ("max", "long long"),
             "ullmin": ("min", "unsigned long long"), "ullmax": ("max", "unsigned long long")}
_CALLS = "(call_expression function: (identifier) @fn arguments: (argument_list) @args) @call"
_WANTED = re.compile(rb"\b(?:u|ll|ull)(?:min|max)\s*\(")


_MIN_MAX = any_of(("min", "max"))
_NAMES = any_of(("umin", "umax", "llmin", "llmax"))  # one is in every match of _WANTED (ullmin holds llmin)


def _trigger(data: bytes, ctx: RuleContext) -> bool:
    # Substring searches first, where the regex (from a `\b`) tries every position: min or max
    # (absent from most files), then the names' own spellings (fminf and max( are common).
    return _MIN_MAX(data, ctx) and _NAMES(data, ctx) and _WANTED.search(data) is not None


@rule(id="HIP012", lang="cuda", severity="info", fix="safe", trigger=_trigger)
def integer_min_max(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for found in unit.matches(_CALLS):
        fn = found["fn"][0]
        name = unit.text(fn)
        if name not in FUNCTIONS or _defines(unit, ctx, name):
            continue
        args = [n for n in found["args"][0].named_children if n.type != "comment"]
        if len(args) != 2:
            continue
        hip, ty = FUNCTIONS[name]
        edits = [Edit(start=fn.start_byte, end=fn.end_byte, text=hip)]
        for arg in args:
            edits += [Edit(start=arg.start_byte, end=arg.start_byte, text=f"static_cast<{ty}>("),
                      Edit(start=arg.end_byte, end=arg.end_byte, text=")")]
        yield Hit(fn.start_byte, found["call"][0].end_byte,
                  f"{name} has no HIP counterpart: {hip}() with both arguments as {ty}, as CUDA converts them",
                  tuple(edits))


def _defines(unit: SourceFile, ctx: RuleContext, name: str) -> bool:
    """Whether this file or a project header it includes defines `name` (a function or a macro)."""
    if name not in ctx.project:
        return False
    pattern = re.compile(rb"#\s*define\s+" + name.encode() + rb"\b|\b[\w:<>*&]+\s+" + name.encode()
                         + rb"\s*\([^;{}()]*\)\s*(?:const\s*)?\{")
    return any(pattern.search(f.data) for f in (unit, *ctx.included(unit)))
