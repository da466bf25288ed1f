"""WAVE010: a 64-bit lane mask narrowed to 32 bits by a local's type or a function's return type.

Why: on CDNA a ballot (`__ballot`, `__activemask`) and a lane mask built from `__lane_id()` have
    64 bits, one per lane of the wavefront. Kept in a 32-bit local, or returned through a
    function declared `unsigned`, they lose lanes 32-63: counts come out halved and the upper
    half-wave is never selected. This is what inline-PTX helpers written for 32-lane warps look
    like once their asm is rewritten (`unsigned mask; mask = (1ull << __lane_id()) - 1;
    return mask;`): the rewrite is right, the declarations around it are not. Seen on an H200
    under porter's wave64 emulation (docs/evidence): a stream compaction counted 1069 of 2130.

Before:
    __device__ unsigned lanemask_lt() {
      unsigned mask;
      mask = ((1ull << __lane_id()) - 1);
      return mask;
    }
After:
    __device__ unsigned long long lanemask_lt() {
      unsigned long long mask;
      mask = ((1ull << __lane_id()) - 1);
      return mask;
    }

Fix safety: none here: widening a return type changes every caller, which may live in other
    files and keep the result in 32 bits again; the finding names the function so a person (or
    the model) widens it and its callers together.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter.rules import Hit, RuleContext, rule
from porter.syntax import SourceFile

NARROW = frozenset({"unsigned", "unsigned int", "int", "uint32_t", "int32_t", "uint", "unsigned long"})
WIDE_SOURCE = re.compile(r"__ballot\w*\s*\(|__activemask\s*\(|\b1ull\s*<<\s*__lane_id\s*\(|__lanemask_\w+\s*\(")
_FUNCTIONS = "(function_definition) @fn"
_RETURNS = "(return_statement (identifier) @name) @ret"
_ASSIGN = "(assignment_expression left: (identifier) @name right: (_) @value) @a"
_INIT = "(init_declarator declarator: (identifier) @name value: (_) @value) @a"
_DECLS = "(declaration) @decl"


@rule(id="WAVE010", lang="cuda", severity="error")
def mask_narrowing(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    for fn in unit.captures(_FUNCTIONS):
        body = fn.child_by_field_name("body")
        if body is None:
            continue
        masks = _mask_variables(unit, body)
        if not masks:
            continue
        for name, decl in _narrow_locals(unit, body, masks):
            yield Hit(decl.start_byte, decl.end_byte,
                      f"`{name}` holds a 64-bit lane mask (one bit per lane of a CDNA wavefront) in a 32-bit "
                      "variable: lanes 32-63 are lost; declare it unsigned long long")
        type_node = fn.child_by_field_name("type")
        ret_type = " ".join(unit.text(type_node).split()) if type_node is not None else ""
        if ret_type not in NARROW:
            continue
        for m in unit.matches(_RETURNS, body):
            name = unit.text(m["name"][0])
            if name in masks:
                ret = m["ret"][0]
                yield Hit(ret.start_byte, ret.end_byte,
                          f"returns the 64-bit lane mask `{name}` through the 32-bit return type `{ret_type}`: "
                          "lanes 32-63 are lost; widen the return type to unsigned long long, and its callers")


def _mask_variables(unit: SourceFile, body) -> set[str]:
    """Locals of the function assigned or initialised with a ballot or a 64-bit lane mask."""
    found = set()
    for query in (_ASSIGN, _INIT):
        for m in unit.matches(query, body):
            if WIDE_SOURCE.search(unit.text(m["value"][0])):
                found.add(unit.text(m["name"][0]))
    return found


def _narrow_locals(unit: SourceFile, body, masks: set[str]):
    for decl in unit.captures(_DECLS, body):
        type_node = decl.child_by_field_name("type")
        if type_node is None or " ".join(unit.text(type_node).split()) not in NARROW:
            continue
        for child in decl.children_by_field_name("declarator"):
            target = child.child_by_field_name("declarator") if child.type == "init_declarator" else child
            if target is not None and target.type == "identifier" and unit.text(target) in masks:
                yield unit.text(target), decl
