"""Where a pull request's diff lets a review comment land: the hunks of each changed file.

GitHub accepts a review comment only on a line of the diff it shows (`side: RIGHT` is the
head's side: added lines and context lines of a hunk), and a multi-line comment only when its
first and last line lie in the same hunk; one comment outside makes it reject the whole review
with 422. So positions come from the diff porter parses here, never from a model. The diff is
either the `patch` field of the pull request's files (the App, from the REST API) or the output
of `git diff` between base and head (the Action, in its checkout); both are unified diffs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_GIT_FILE = re.compile(r"^diff --git a/(.*) b/(.*)$")


@dataclass(frozen=True)
class Hunk:
    """One `@@` block: the head-side lines it shows and which of them it adds."""

    new_start: int
    new_count: int
    added: frozenset[int]

    @property
    def lines(self) -> range:
        return range(self.new_start, self.new_start + self.new_count)

    def holds(self, first: int, last: int) -> bool:
        return first in self.lines and last in self.lines


@dataclass(frozen=True)
class FileDiff:
    """A changed file of the pull request as the diff shows it (`patch` is None for binary or huge files)."""

    path: str
    status: str  # added | modified | removed | renamed | copied | changed | unchanged
    hunks: tuple[Hunk, ...] = ()
    has_patch: bool = True

    @property
    def added(self) -> frozenset[int]:
        return frozenset(n for h in self.hunks for n in h.added)

    def hunk_for(self, first: int, last: int) -> Hunk | None:
        """The hunk that shows head lines first..last, or None when a comment there would be rejected."""
        return next((h for h in self.hunks if h.holds(first, last)), None)

    def touches(self, first: int, last: int) -> bool:
        """Whether the change added any of the head lines first..last."""
        return any(first <= n <= last for n in self.added)


def parse_patch(patch: str) -> tuple[Hunk, ...]:
    """The hunks of one file's unified diff body (what the REST API gives as `patch`)."""
    hunks: list[Hunk] = []
    start = count = line = 0
    added: set[int] = set()
    for text in patch.splitlines():
        m = _HUNK.match(text)
        if m:
            if count:
                hunks.append(Hunk(start, count, frozenset(added)))
            start = line = int(m.group(3))
            count = 1 if m.group(4) is None else int(m.group(4))
            added = set()
            continue
        if not count or text.startswith("\\"):  # "\ No newline at end of file"
            continue
        if text.startswith("+"):
            added.add(line)
            line += 1
        elif text.startswith(" ") or text == "":
            line += 1
    if count:
        hunks.append(Hunk(start, count, frozenset(added)))
    return tuple(hunks)


def from_api_files(files: list[dict]) -> dict[str, FileDiff]:
    """The diffs of `GET /repos/{owner}/{repo}/pulls/{n}/files` entries, by head path."""
    out = {}
    for f in files:
        patch = f.get("patch")
        out[f["filename"]] = FileDiff(path=f["filename"], status=f["status"],
                                      hunks=parse_patch(patch) if patch else (), has_patch=patch is not None)
    return out


@dataclass
class _GitFile:
    path: str
    status: str = "modified"
    body: list[str] = field(default_factory=list)


def from_git_diff(text: str) -> dict[str, FileDiff]:
    """The diffs of `git diff --no-color --no-ext-diff -M BASE HEAD` output, by head path."""
    files: list[_GitFile] = []
    for line in text.splitlines():
        m = _GIT_FILE.match(line)
        if m:
            files.append(_GitFile(path=m.group(2)))
            continue
        if not files:
            continue
        cur = files[-1]
        if cur.body or line.startswith("@@"):
            cur.body.append(line)
        elif line.startswith("new file mode"):
            cur.status = "added"
        elif line.startswith("deleted file mode"):
            cur.status = "removed"
        elif line.startswith("rename to "):
            cur.status = "renamed"
    return {f.path: FileDiff(path=f.path, status=f.status, hunks=parse_patch("\n".join(f.body)),
                             has_patch=bool(f.body) or f.status == "removed")
            for f in files}
