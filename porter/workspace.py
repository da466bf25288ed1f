"""The output tree and its single writer.

`Workspace.create` lays the source tree into the output tree (the source is only ever read),
and `Workspace.apply` lands agents' patches there. Every landed patch is appended to a ledger
(`.porter/ledger.jsonl`) with the content hashes before and after, and the replaced text is
kept under `.porter/blobs/`, so the history of each unit can be read and its last patch from a
given agent reverted. Applying is idempotent: a patch whose result is already on disk (a run
resumed after the write but before the checkpoint) is recognised and not applied twice.

Files are read and patched through their UTF-8 view (porter.encoding): a UTF-16 or CP-1252
file is edited as UTF-8 and written back in its own encoding, its other bytes unchanged. Hashes
in patches, the ledger and blobs are of views.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from porter.encoding import Encoding, detect
from porter.state import Patch, content_hash

STATE_DIR = ".porter"
VCS_DIR = ".git"  # a session may keep the output tree in git; never porting input


class BadInput(ValueError):
    """The user's input cannot be ported as asked; the message names the file (and line)."""


class PatchConflict(RuntimeError):
    """A patch no longer matches the file it was written against."""


@dataclass(frozen=True)
class Landed:
    seq: int
    patch: Patch
    before: str | None  # content hash before (None: the file was created)
    after: str
    kind: str = "apply"  # or "revert": the entry undid an earlier apply of the same patch


@dataclass(frozen=True)
class CopyNote:
    path: str
    note: str
    target: str | None = None  # a symbolic link to this path inside the tree: recreated as a link


def check_output_dir(source: Path, output: Path, *, force: bool, resume: bool = False) -> None:
    """Refuse an output tree inside the source, the source itself, or one that has content."""
    src, out = source.resolve(), output.resolve()
    if not src.is_dir():
        raise BadInput(f"{source}: not a directory")
    if out == src or src in out.parents:
        raise BadInput(f"{output}: the output tree must not be inside the source tree {source}")
    if out in src.parents:
        raise BadInput(f"{output}: the output tree must not contain the source tree {source}")
    if resume:
        if not (out / STATE_DIR).is_dir():
            raise BadInput(f"{output}: nothing to resume (no {STATE_DIR}/ here)")
        return
    if out.exists() and not out.is_dir():
        raise BadInput(f"{output}: exists and is not a directory")
    blocker = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise BadInput(f"{output}: cannot be created: {blocker} is a file, not a directory")
    if out.exists() and any(out.iterdir()) and not force:
        raise BadInput(f"{output}: output directory is not empty (pass --force to port into it anyway)")
    try:
        (out / STATE_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BadInput(f"{output}: cannot be created: {e.strerror}") from None
    if not os.access(out / STATE_DIR, os.W_OK | os.X_OK):
        raise BadInput(f"{output}: not writable")


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.state_dir = root / STATE_DIR
        self.ledger = self.state_dir / "ledger.jsonl"
        self.blobs = self.state_dir / "blobs"
        self._entries = _LedgerReader(self.ledger)

    @classmethod
    def create(cls, source: Path, output: Path) -> tuple[Workspace, list[CopyNote]]:
        """Copy the source tree into the output tree. Links that leave the tree are not followed."""
        ws = cls(output)
        ws.blobs.mkdir(parents=True, exist_ok=True)
        files, notes = tree_files(source)
        for rel in files:
            target = output / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / rel, target)
            shutil.copymode(source / rel, target)
        for note in notes:
            if note.target is not None and note.path == display_path(note.path):
                link = output / note.path
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(os.path.relpath(output / note.target, link.parent))
        return ws, notes

    def files(self) -> list[str]:
        """Relative posix paths of every regular file in the output tree, porter's own state and links excluded."""
        return tree_files(self.root)[0]

    def read(self, rel: str) -> bytes:
        """A file's UTF-8 view (its raw bytes when it is binary)."""
        return self._load(self.root / rel)[0]

    @staticmethod
    def _load(path: Path) -> tuple[bytes, Encoding | None]:
        data = path.read_bytes()
        enc, _ = detect(data)
        return (data, None) if enc is None else (enc.view(data), enc)

    @staticmethod
    def _store(path: Path, view: bytes, enc: Encoding | None) -> None:
        path.write_bytes(view if enc is None else enc.encode(view))

    def apply(self, patches: list[Patch]) -> list[Patch]:
        """Land patches in order; return those that changed the tree or were already there."""
        landed = []
        history = {raw["after"] for raw in self._entries.raw()}
        for patch in patches:
            path = self._confined(patch.path)
            current, enc = self._load(path) if path.exists() else (None, None)
            if patch.base_hash is None:
                new = patch.apply_to(b"")
                if current is not None and content_hash(current) == content_hash(new) and content_hash(new) in history:
                    landed.append(patch)  # landed before a resume
                    continue
                if current is not None:
                    raise PatchConflict(f"{patch.path}: exists; a create patch cannot replace it")
                before = None
            else:
                if current is None:
                    raise PatchConflict(f"{patch.path}: no such file in the output tree")
                have = content_hash(current)
                if have != patch.base_hash:
                    if have in history and self._result_of(patch) == have:
                        landed.append(patch)
                        continue
                    raise PatchConflict(f"{patch.path}: changed since the patch was made ({patch.rule or patch.origin})")
                new = patch.apply_to(current)
                before = have
                (self.blobs / have).write_bytes(current)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._store(path, new, enc)
            after = content_hash(new)
            (self.blobs / after).write_bytes(new)
            self._record(patch, before, after)
            landed.append(patch)
        return landed

    def history(self, rel: str | None = None) -> list[Landed]:
        """The ledger's entries in the order they landed; with `rel`, those of that file only."""
        return self._entries.landed(rel)

    def revert_last(self, rel: str, agent: str) -> Patch | None:
        """Undo the latest patch `agent` landed on `rel`, with any later patches on that file.

        Returns the reverted patch, or None when the agent has no patch there.
        """
        entries = self.history(rel)
        live = _live(entries)
        idx = next((i for i in reversed(live) if entries[i].patch.agent == agent), None)
        if idx is None:
            return None
        target = entries[idx]
        path = self._confined(rel)
        if target.before is None:
            path.unlink()
        else:
            self._store(path, (self.blobs / target.before).read_bytes(), self._load(path)[1])
        self._record(target.patch.model_copy(update={"reason": f"revert: {target.patch.reason}"}),
                     target.after, target.before or "", kind="revert")
        return target.patch

    def keep(self, data: bytes) -> str:
        """Keep `data` among the blobs (a text a patch was written against); return its hash."""
        digest = content_hash(data)
        self.blobs.mkdir(parents=True, exist_ok=True)
        if not (self.blobs / digest).exists():
            (self.blobs / digest).write_bytes(data)
        return digest

    def live(self) -> list[Landed]:
        """Applied patches that no revert has undone, in the order they landed."""
        entries = self.history()
        by_path: dict[str, list[int]] = {}
        for i, e in enumerate(entries):
            by_path.setdefault(e.patch.path, []).append(i)
        alive = {idxs[i] for idxs in by_path.values() for i in _live([entries[j] for j in idxs])}
        return [entries[i] for i in sorted(alive)]

    def revert(self, seq: int) -> Patch:
        """Undo the applied patch recorded as ledger entry `seq`; its file must be as it left it."""
        entry = next((e for e in self.live() if e.seq == seq), None)
        if entry is None:
            raise PatchConflict(f"ledger entry {seq}: no such applied patch, or already reverted")
        path = self._confined(entry.patch.path)
        have = content_hash(path.read_bytes()) if path.exists() else None
        if have != entry.after:
            raise PatchConflict(f"{entry.patch.path}: changed since ledger entry {seq} landed")
        if entry.before is None:
            path.unlink()
        else:
            path.write_bytes((self.blobs / entry.before).read_bytes())
        self._record(entry.patch.model_copy(update={"reason": f"revert: {entry.patch.reason}"}),
                     entry.after, entry.before or "", kind="revert")
        return entry.patch

    def snapshot(self, dest: Path, *, agents: set[str]) -> Path:
        """Write the tree as it stood with only `agents`' patches landed, into `dest`.

        With {"translator"} this is each unit's direct-hipify port: the baseline a port must
        beat. Agents run in order, so a file's state before the first patch of any other agent
        is that baseline; files another agent created are left out.
        """
        if dest.exists():
            shutil.rmtree(dest)
        for rel in self.files():
            later = next((e for e in self.history(rel) if e.patch.agent not in agents), None)
            view, enc = self._load(self.root / rel)
            if later is None:
                data = view
            elif later.before is None:
                continue
            else:
                data = (self.blobs / later.before).read_bytes()
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            self._store(dest / rel, data, enc)
        return dest

    def _result_of(self, patch: Patch) -> str | None:
        for entry in self.history(patch.path):
            if entry.patch == patch:
                return entry.after
        return None

    def _record(self, patch: Patch, before: str | None, after: str, kind: str = "apply") -> None:
        seq = len(self._entries.raw())
        with self.ledger.open("a") as fh:
            fh.write(json.dumps({"seq": seq, "kind": kind, "before": before, "after": after,
                                 "patch": patch.model_dump(mode="json")}) + "\n")

    def _confined(self, rel: str) -> Path:
        """The absolute path of `rel`, refusing anything that escapes the output tree."""
        path = (self.root / rel).resolve()
        if self.root.resolve() not in path.parents:
            raise PatchConflict(f"{rel}: outside the output tree")
        if STATE_DIR in Path(rel).parts:
            raise PatchConflict(f"{rel}: porter's own state is not patchable")
        return path


class _LedgerReader:
    """A workspace's view of its ledger: the entries as read so far, by file, and each one's
    `Landed` once asked for. Entries are only ever appended, so a later read parses only the
    lines past those already read, and the whole file again only where it was replaced or cut.

    A landing asks for the next sequence number and a port lands a patch per file: read whole
    and validated for every one, a 1,000-file port spent ten minutes in its ledger.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: tuple[int, int] | None = None  # (device, inode) of the file read
        self._offset = 0  # bytes read: whole lines only (a line still being written is read next time)
        self._raw: list[dict] = []
        self._by_path: dict[str, list[int]] = {}
        self._landed: dict[int, Landed] = {}

    def raw(self) -> list[dict]:
        """Every entry as its JSON object, in ledger order."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._reset(None)
            return self._raw
        if (st.st_dev, st.st_ino) != self._file or st.st_size < self._offset:
            self._reset((st.st_dev, st.st_ino))
        if st.st_size > self._offset:
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                chunk = fh.read(st.st_size - self._offset)
            whole = chunk.rfind(b"\n") + 1
            for line in chunk[:whole].splitlines():
                raw = json.loads(line)
                self._by_path.setdefault(raw["patch"]["path"], []).append(len(self._raw))
                self._raw.append(raw)
            self._offset += whole
        return self._raw

    def landed(self, rel: str | None = None) -> list[Landed]:
        """The entries (of file `rel`) as `Landed`, each validated once."""
        raws = self.raw()
        indices = range(len(raws)) if rel is None else self._by_path.get(rel, [])
        return [self._entry(i) for i in indices]

    def _entry(self, i: int) -> Landed:
        entry = self._landed.get(i)
        if entry is None:
            raw = self._raw[i]
            entry = self._landed[i] = Landed(raw["seq"], Patch.model_validate(raw["patch"]), raw["before"],
                                             raw["after"], raw.get("kind", "apply"))
        return entry

    def _reset(self, file: tuple[int, int] | None) -> None:
        self._file, self._offset = file, 0
        self._raw, self._by_path, self._landed = [], {}, {}


def _live(entries: list[Landed]) -> list[int]:
    """Indices of the applies among one file's `entries` that no later revert undid.

    A revert is recorded as an entry too; neither it nor the apply it undid is live, or a
    second revert would put the first one's patch back.
    """
    live: list[int] = []
    for i, e in enumerate(entries):
        if e.kind == "apply":
            live.append(i)
        else:
            undid = next((j for j in reversed(live)
                          if (entries[j].before, entries[j].after) == (e.after or None, e.before)), None)
            if undid is not None:
                live.remove(undid)
    return live


def tree_files(source: Path) -> tuple[list[str], list[CopyNote]]:
    """Relative paths of the regular files of a tree, each real file once, and notes on the rest.

    The walk follows no symbolic link, so it meets no link loop and reaches each real file by its
    one real path. A link to a file or directory inside the tree is noted with its `target`
    (`Workspace.create` recreates it in the output tree, pointing at the ported file); a link that
    leaves the tree, dangles or loops is noted and left out. porter's own state directory and a
    git directory are skipped, so an output tree can be scanned like a source tree.
    """
    root = source.resolve()
    files: list[str] = []
    notes: list[CopyNote] = []
    stack = [root]
    while stack:
        here = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError as e:
            notes.append(CopyNote(display_path(here.relative_to(root).as_posix()), f"not readable ({e.strerror}): skipped"))
            continue
        subdirs = []
        for entry in entries:
            path = Path(entry.path)
            rel = path.relative_to(root).as_posix()
            if entry.is_symlink():
                notes.append(_link_note(root, path, rel))
            elif entry.is_dir(follow_symlinks=False):
                if entry.name not in (STATE_DIR, VCS_DIR):
                    subdirs.append(path)
            elif entry.is_file(follow_symlinks=False):
                files.append(rel)
            else:
                notes.append(CopyNote(display_path(rel), "not a regular file: skipped"))
        stack.extend(reversed(subdirs))
    return sorted(files), notes


def _link_note(root: Path, path: Path, rel: str) -> CopyNote:
    link = os.readlink(path)
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):  # ELOOP, or a link to nothing
        return CopyNote(display_path(rel), f"symbolic link to {display_path(link)} loops or dangles: skipped")
    if target != root and root not in target.parents:
        return CopyNote(display_path(rel), f"symbolic link to {display_path(link)} leaves the source tree: not followed")
    inside = target.relative_to(root).as_posix()
    if inside == STATE_DIR or inside.startswith(STATE_DIR + "/"):
        return CopyNote(display_path(rel), "symbolic link into porter's state: skipped")
    return CopyNote(display_path(rel), f"symbolic link to {display_path(inside) or '.'} in the tree: kept as a link, "
                                       "what it names is ported once", target=inside)


def display_path(rel: str) -> str:
    """A path as text: a file name that is not UTF-8 (kept by Python as surrogate escapes) is
    shown with backslash escapes, so reports and checkpoints can hold it."""
    return os.fsencode(rel).decode("utf-8", "backslashreplace")
