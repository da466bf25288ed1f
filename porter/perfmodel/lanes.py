"""How neighbouring lanes' addresses relate: a one-pass abstract interpretation of the address
arithmetic in device assembly, shared by the SASS and AMDGCN readers (porter.toolchains).

Each register holds an abstract value: how it changes from one lane to the next.
    int n       an affine function of the lane index (threadIdx.x) with coefficient n (0: the
                same in every lane: parameters, block indices, constants, threadIdx.y/z)
    SCALED      the lane index times a runtime value (a row stride): lanes far apart
    None        anything else (a loaded value, a division, a hash): no pattern known
An address's value says its access pattern (`pattern`). The pass runs once in address order:
a value redefined on another path or in a later loop iteration keeps its first-pass value.
"""

from __future__ import annotations

SCALED = "scaled"
Value = int | str | None


def add(*vals: Value) -> Value:
    if any(v is None for v in vals):
        return None
    if any(v == SCALED for v in vals):
        return SCALED
    return sum(vals)  # type: ignore[arg-type]


def scale(v: Value, c: int) -> Value:
    """v times the constant c."""
    return v * c if isinstance(v, int) else v


def times(a: Value, b: Value) -> Value:
    """a times b, both runtime values (0 here is "the same in every lane", not the number 0)."""
    if a == 0 and b == 0:
        return 0
    if a is None or b is None:
        return None
    return SCALED


def shift_right(v: Value, k: int) -> Value:
    """v >> k: lanes 2^k apart share a value; a coefficient below 2^k becomes 0 (within a group)."""
    if isinstance(v, int):
        return v >> k if v >= 0 else -((-v) >> k)
    return v


def merge(a: Value, b: Value) -> Value:
    """A register some lanes wrote (b) and others kept (a)."""
    return a if a == b else None


def opaque(*vals: Value) -> Value:
    """Any other operation: uniform when its inputs are, otherwise unknown."""
    return 0 if all(v == 0 for v in vals) else None


def pattern(v: Value, width: int) -> tuple[str, int]:
    """(pattern, stride bytes) of an access of `width` bytes per lane at an address of value v."""
    if v is None:
        return "irregular", 0
    if v == SCALED:
        return "strided", 0
    assert isinstance(v, int)
    if v == 0:
        return "uniform", 0
    if abs(v) <= width:
        return "contiguous", 0
    return "strided", abs(v)
