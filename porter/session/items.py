"""Review items: an agent's patches cut into the pieces a person decides on, and kept applicable.

An agent returns one patch per file (a translator pass carries every HIP rule's edits). A
session shows them rule by rule: `split` cuts each rule patch into one item per rule id, each
still written against the file the agent read. As the person accepts, rejects or edits items,
the file moves on; `rebase` carries a waiting item's edits onto the file as it is now, or says
why it no longer applies (its text was changed by an edit or an undo). `user_patch` turns the
text a person saved in their editor into a patch like any other, landed through the workspace.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from porter.state import Edit, Patch, content_hash
from porter.workspace import Workspace

# Inside a block of changed lines, offsets are matched character by character; past this many
# bytes such a block counts as changed throughout (difflib is quadratic there).
FINE_MATCH_LIMIT = 20_000


def split(patches: list[Patch]) -> list[Patch]:
    """One item per (file, rule id), in file order then by where the rule's first edit is."""
    items: list[Patch] = []
    for patch in sorted(patches, key=lambda p: p.path):
        if patch.base_hash is None or patch.origin != "rule" or len({e.rule for e in patch.edits}) < 2:
            items.append(patch)
            continue
        by_rule: dict[str, list[Edit]] = {}
        for e in sorted(patch.edits, key=lambda e: (e.start, e.end)):
            by_rule.setdefault(e.rule or patch.rule, []).append(e)
        for rule, edits in by_rule.items():
            items.append(patch.model_copy(update={
                "edits": tuple(edits), "rule": rule,
                "reason": f"{len(edits)} edit{'s' if len(edits) > 1 else ''} by {rule}"}))
    return items


def rules_of(patch: Patch) -> list[str]:
    return sorted({r for r in patch.rule.split(",") if r} | {e.rule for e in patch.edits if e.rule})


def rebase(ws: Workspace, item: Patch) -> tuple[Patch | None, str]:
    """`item` rewritten against the file as it is now, or (None, why it no longer applies)."""
    path = ws.root / item.path
    current = path.read_bytes() if path.is_file() else None
    if item.base_hash is None:
        if current is None or current == item.apply_to(b""):
            return item, ""
        return None, f"{item.path} exists now; the item would create it"
    if current is None:
        return None, f"{item.path} no longer exists"
    have = content_hash(current)
    if have == item.base_hash:
        return item, ""
    base_blob = ws.blobs / item.base_hash
    if not base_blob.is_file():
        return None, f"{item.path} changed, and the text the item was written against is not kept"
    blocks = equal_blocks(base_blob.read_bytes(), current)
    moved = []
    for e in item.edits:
        at = next((j - i for i, j, n in blocks if i <= e.start and e.end <= i + n), None)
        if at is None:
            line = base_blob.read_bytes()[: e.start].count(b"\n") + 1
            return None, f"{item.path}:{line}: the text {item.rule or 'the item'} edits was changed since it was proposed"
        moved.append(e._replace(start=e.start + at, end=e.end + at))
    return item.model_copy(update={"base_hash": have, "edits": tuple(moved)}), ""


def equal_blocks(a: bytes, b: bytes) -> list[tuple[int, int, int]]:
    """Byte ranges a and b share, as (offset in a, offset in b, length): lines first, then
    characters inside changed lines, so two rules editing one line still both map."""
    al, bl = a.splitlines(keepends=True), b.splitlines(keepends=True)
    aoff, boff = _offsets(al), _offsets(bl)
    blocks = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, al, bl, autojunk=False).get_opcodes():
        if tag == "equal":
            blocks.append((aoff[i1], boff[j1], aoff[i2] - aoff[i1]))
        elif tag == "replace":
            x, y = a[aoff[i1]:aoff[i2]], b[boff[j1]:boff[j2]]
            if len(x) + len(y) > FINE_MATCH_LIMIT:
                continue
            for i, j, n in difflib.SequenceMatcher(None, x, y, autojunk=False).get_matching_blocks():
                if n:
                    blocks.append((aoff[i1] + i, boff[j1] + j, n))
    return blocks


def _offsets(lines: list[bytes]) -> list[int]:
    out = [0]
    for line in lines:
        out.append(out[-1] + len(line))
    return out


def unified_diff(path: str, before: bytes | None, after: bytes, context: int = 3) -> str:
    old = (before or b"").decode(errors="replace").splitlines(keepends=True)
    new = after.decode(errors="replace").splitlines(keepends=True)
    lines = difflib.unified_diff(old, new, f"a/{path}" if before is not None else "/dev/null", f"b/{path}", n=context)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def user_patch(path: str, current: bytes | None, text: str, *, rule: str, reason: str) -> Patch | None:
    """A person's saved text as a patch on the file as it is now; None when nothing changed."""
    new = text.encode()
    if current is None:
        return Patch.create(path, text, agent="user", rule=rule, reason=reason).model_copy(update={"origin": "user"})
    if new == current:
        return None
    al, bl = current.splitlines(keepends=True), new.splitlines(keepends=True)
    aoff = _offsets(al)
    edits = tuple(Edit(aoff[i1], aoff[i2], b"".join(bl[j1:j2]).decode(), "")
                  for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, al, bl, autojunk=False).get_opcodes()
                  if tag != "equal")
    return Patch(path=path, base_hash=content_hash(current), edits=edits, agent="user", origin="user",
                 rule=rule, reason=reason)


def read(ws: Workspace, rel: str) -> bytes | None:
    path: Path = ws.root / rel
    return path.read_bytes() if path.is_file() else None
