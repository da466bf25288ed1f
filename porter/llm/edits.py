"""The one edit format a model answers in: SEARCH/REPLACE blocks, parsed into Patches.

    kernels/reduce.cu
    <<<<<<< SEARCH
    exact lines of the file as it is now
    =======
    the lines that replace them
    >>>>>>> REPLACE

Text before the first block is the rationale (its first line becomes the patch's reason).
Each SEARCH must match exactly one place of the file as the model was shown it; blocks of one
file become the edits of one Patch against that text, so they must not overlap. An empty SEARCH
creates a file that does not exist yet. Paths are confined to the output tree: relative, no
`..`, never porter's own `.porter/`. Anything wrong is an `EditRejected` whose message is what
goes back to the model ("block 2: the SEARCH text is not in k.cu; the closest line is 41: ...").
Model text is only ever data here: it is matched and spliced, never run.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from porter.state import Edit, Patch, content_hash
from porter.workspace import STATE_DIR

MODEL_RULE = "MODEL"  # the rule id model patches carry, so reports and reverts can tell them apart
_SEARCH = re.compile(r"^\s*<{5,9} ?SEARCH\s*$")
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_REPLACE = re.compile(r"^\s*>{5,9} ?REPLACE\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


class EditRejected(ValueError):
    """The answer's edits cannot be applied; the message says exactly why, for the model."""


@dataclass(frozen=True)
class Block:
    number: int  # 1-based, in the answer's order
    path: str
    search: str
    replace: str


@dataclass(frozen=True)
class Answer:
    rationale: str
    blocks: tuple[Block, ...]


def parse_answer(text: str) -> Answer:
    """Split a model's answer into its rationale and its blocks (none is a valid answer)."""
    lines = text.splitlines(keepends=True)
    blocks: list[Block] = []
    prose: list[str] = []  # lines outside blocks since the last block: the rationale, then a path
    rationale = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if not _SEARCH.match(line):
            if not _FENCE.match(line) and line.strip():
                prose.append(line.strip())
            i += 1
            continue
        number = len(blocks) + 1
        if not prose:
            raise EditRejected(f"block {number}: no file path on the line before '<<<<<<< SEARCH'")
        path = prose.pop().strip("`*: ").removeprefix("File").strip("`*: ")
        if not blocks:
            rationale = " ".join(prose)
        prose = []
        search, i = _collect(lines, i + 1, _DIVIDER, f"block {number} ({path}): no '=======' line after SEARCH")
        replace, i = _collect(lines, i, _REPLACE, f"block {number} ({path}): no '>>>>>>> REPLACE' line")
        blocks.append(Block(number, path, search, replace))
    if not blocks:
        rationale = " ".join(prose)
    return Answer(rationale=rationale, blocks=tuple(blocks))


def _collect(lines: list[str], start: int, end: re.Pattern[str], missing: str) -> tuple[str, int]:
    """The text from `start` up to the line matching `end`, and the index after that line."""
    for j in range(start, len(lines)):
        if end.match(lines[j]):
            return "".join(lines[start:j]), j + 1
    raise EditRejected(missing)


def confine(path: str) -> str:
    """`path` as a relative posix path inside the output tree, or EditRejected."""
    p = PurePosixPath(path.replace("\\", "/"))
    if not path or p.is_absolute() or ".." in p.parts or (p.parts and p.parts[0].endswith(":")):
        raise EditRejected(f"{path!r}: paths are relative to the output tree and stay inside it")
    if STATE_DIR in p.parts:
        raise EditRejected(f"{path!r}: porter's own state ({STATE_DIR}/) is not editable")
    return p.as_posix()


def to_patches(answer: Answer, read: Callable[[str], bytes | None], *, agent: str) -> list[Patch]:
    """One Patch per file the answer edits, written against what `read` returns for it."""
    by_path: dict[str, list[Block]] = {}
    for block in answer.blocks:
        by_path.setdefault(confine(block.path), []).append(block)
    reason = f"model: {answer.rationale}"[:200] if answer.rationale else "model edit"
    patches = []
    for path, blocks in by_path.items():
        base = read(path)
        if base is None:
            patches.append(_create(path, blocks, agent, reason))
            continue
        edits = sorted((_locate(path, base, b) for b in blocks), key=lambda e: (e[0].start, e[1]))
        for (a, na), (b, nb) in zip(edits, edits[1:]):
            if b.start < a.end:
                raise EditRejected(f"blocks {na} and {nb} overlap in {path}: merge them into one block")
        patches.append(Patch(path=path, base_hash=content_hash(base), edits=tuple(e for e, _ in edits),
                             agent=agent, origin="model", rule=MODEL_RULE, reason=reason))
    return patches


def _create(path: str, blocks: list[Block], agent: str, reason: str) -> Patch:
    if len(blocks) > 1 or blocks[0].search.strip():
        raise EditRejected(f"block {blocks[0].number}: {path} is not a file of the output tree; "
                           "to create it, give one block with an empty SEARCH")
    return Patch.create(path, blocks[0].replace, agent=agent, rule=MODEL_RULE, reason=reason).model_copy(
        update={"origin": "model"})


def _locate(path: str, base: bytes, block: Block) -> tuple[Edit, int]:
    """The edit `block` makes in `base`, with the block's number, or why it cannot."""
    n = block.number
    if not block.search.strip():
        raise EditRejected(f"block {n}: empty SEARCH on {path}, which exists; quote the lines next to the new code")
    if block.search == block.replace:
        raise EditRejected(f"block {n}: SEARCH and REPLACE are the same; the block changes nothing in {path}")
    needle = block.search.encode()
    at = base.find(needle)
    if at < 0:
        raise EditRejected(f"block {n}: the SEARCH text is not in {path}{_closest(base, block.search)}; "
                           "SEARCH must copy the file's lines exactly, whitespace included")
    again = base.find(needle, at + 1)
    if again >= 0:
        lines = [base.count(b"\n", 0, m.start()) + 1 for m in re.finditer(re.escape(needle), base)]
        raise EditRejected(f"block {n}: the SEARCH text matches {len(lines)} places in {path} "
                           f"(lines {', '.join(map(str, lines))}); quote more lines to make it unique")
    return Edit(start=at, end=at + len(needle), text=block.replace, rule=MODEL_RULE), n


def _closest(base: bytes, search: str) -> str:
    first = next((line.strip() for line in search.splitlines() if line.strip()), "")
    lines = base.decode(errors="replace").splitlines()
    stripped = [line.strip() for line in lines]
    match = difflib.get_close_matches(first, stripped, n=1, cutoff=0.6)
    if not match:
        return ""
    return f"; the closest line is {stripped.index(match[0]) + 1}: {lines[stripped.index(match[0])].strip()!r}"
