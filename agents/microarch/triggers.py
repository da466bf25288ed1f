"""Byte prechecks (porter.rules.Rule.trigger) shared by several microarch and shim rules.

A trigger must be a necessary condition of its rule hitting the file: false only where the rule
cannot yield a hit. Each is built from the names the rules themselves look for (the sets and
patterns of porter.cuda_patterns and wave_model), so that a name added there widens the trigger.
"""

from __future__ import annotations

import posixpath
import re

from porter import cuda_patterns as patterns
from porter.agents.microarch import wave_model
from porter.rules import RuleContext


def _identifier(pattern: re.Pattern[str]) -> bytes:
    """A whole-identifier pattern of cuda_patterns (`(?i)^(...)$`) as a search for that identifier in bytes."""
    source = pattern.pattern
    if not (source.startswith("(?i)^") and source.endswith("$")):
        raise ValueError(f"expected a case-insensitive whole-name pattern, got {source!r}")
    return rb"(?<![A-Za-z0-9_])(?:" + source[len("(?i)^"):-1].encode() + rb")(?![A-Za-z0-9_])"


# What every wave-size quantity of wave_model (and so every WAVE003 and WAVE011 hit) is made of:
# a cross-lane call or __lane_id, warpSize or a warp-size constant (its name says warp, or it is
# used beside a thread index or as a shuffle width), a thread index, lane or warp id, blockDim
# (warps per block), a kernel (its shared arrays and launches), or a WMMA fragment call (rocWMMA).
_WAVE_WORDS = re.compile(b"|".join([
    rb"warp", rb"lane", rb"blockdim", rb"wmma", rb"__global__",
    *(re.escape(name.encode()) for name in sorted(wave_model.CROSS_LANE, key=len, reverse=True)),
    _identifier(patterns.THREAD_INDEX_NAME), _identifier(patterns.WARP_ID_NAME),
]), re.I)


def wave_words(data: bytes, ctx: RuleContext) -> bool:
    """Some word a wave-size quantity is made of occurs in the file (WAVE003).

    Asked of one file's bytes by WAVE003, WAVE008 and WAVE011 in turn: the answer for the last
    bytes is kept (the search, case-insensitive and from every byte, was 25 ms per asking over
    bench/translate.py's 300-file corpus)."""
    last = _LAST_WAVE_WORDS[0]  # one tuple, read and replaced whole: safe across threads
    if last is not None and last[0] is data:
        return last[1]
    found = _WAVE_WORDS.search(data) is not None
    _LAST_WAVE_WORDS[0] = (data, found)
    return found


_LAST_WAVE_WORDS: list[tuple[bytes, bool] | None] = [None]


_STRING = re.compile(rb'"([^"\n]*)"')


def includes_project_header(data: bytes, ctx: RuleContext) -> bool:
    """A string in the file names, by its last path component, one of the run's project headers
    (RuleContext.sources): a superset of the headers RuleContext.included can find for it."""
    if not ctx.sources:
        return False
    names = {posixpath.basename(path) for path in ctx.sources}
    for m in _STRING.finditer(data):
        base = posixpath.basename(m.group(1).decode("utf-8", "replace"))
        if base in names or base in ("", ".", ".."):
            return True
    return False


def wave_model_words(data: bytes, ctx: RuleContext) -> bool:
    """wave_words, or a project header included (a warp-size constant or a strategy it imposes)."""
    return wave_words(data, ctx) or includes_project_header(data, ctx)
