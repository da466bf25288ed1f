"""Git in a session's output tree: one commit by porter per reviewed unit, and undoing only those.

Used when OUT is the top of a git work tree, or with `--git` (which makes one). porter commits
as the author `porter` with the ledger entries it landed named in a `Porter-Ledger:` trailer,
so `/undo` can tell porter's own commits from a person's, and refuses a commit that any remote
branch already contains. porter's state directory is kept out of git through .git/info/exclude,
not through a .gitignore in the tree.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from porter.workspace import STATE_DIR

AUTHOR = "porter"
EMAIL = "porter@localhost"
TRAILER = "Porter-Ledger:"


class GitError(RuntimeError):
    """A git command failed, or git refuses what was asked; the message is one line."""


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = ["git", "-C", str(root), "-c", f"user.name={AUTHOR}", "-c", f"user.email={EMAIL}",
           "-c", "commit.gpgsign=false", *args]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed (needed for a session in a git work tree or --git)") from None
    if check and done.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    return done


def is_top_of_work_tree(root: Path) -> bool:
    """Whether `root` is the top of a git work tree (a folder inside someone's repository is not)."""
    if not (root / ".git").exists():
        return False
    done = _git(root, "rev-parse", "--show-toplevel", check=False)
    return done.returncode == 0 and Path(done.stdout.strip()).resolve() == root.resolve()


def prepare(root: Path, message: str) -> None:
    """Make `root` a work tree if it is not one, keep .porter/ out of it, commit the copied tree."""
    if not is_top_of_work_tree(root):
        _git(root, "init", "-q")
    exclude = root / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    lines = exclude.read_text().splitlines() if exclude.exists() else []
    if f"/{STATE_DIR}/" not in lines:
        exclude.write_text("\n".join([*lines, f"/{STATE_DIR}/"]) + "\n")
    _git(root, "add", "-A")
    if _git(root, "diff", "--cached", "--quiet", check=False).returncode != 0:
        _git(root, "commit", "-q", "--author", f"{AUTHOR} <{EMAIL}>", "-m", message)


def commit(root: Path, paths: list[str], subject: str, body: list[str], seqs: list[int]) -> str | None:
    """Commit `paths` as porter, naming the ledger entries; None when nothing is staged.

    Idempotent: a unit whose entries HEAD already names is not committed again (a resumed node).
    """
    if not seqs or set(seqs) <= set(_porter_seqs(root, "HEAD")):
        return None
    _git(root, "add", "-A", "--", *paths)
    if _git(root, "diff", "--cached", "--quiet", check=False).returncode == 0:
        return None
    message = "\n".join([subject, "", *body, "", f"{TRAILER} {' '.join(map(str, seqs))}"])
    _git(root, "commit", "-q", "--author", f"{AUTHOR} <{EMAIL}>", "-m", message)
    return _git(root, "rev-parse", "--short", "HEAD").stdout.strip()


def undoable_head(root: Path, seq: int) -> list[int] | None:
    """The ledger entries of HEAD when HEAD is porter's unpushed commit holding entry `seq`.

    None when `seq` is in no commit (the patch is not committed yet). Raises GitError when
    `seq` is committed but its commit may not be undone: a person's, pushed, or not HEAD.
    """
    head = _porter_seqs(root, "HEAD")
    if seq not in head:
        if any(seq in seqs for seqs in _all_porter_seqs(root)):
            raise GitError(f"ledger entry {seq} is in a commit below HEAD; porter only undoes its own last commit")
        return None
    author = _git(root, "log", "-1", "--format=%an", "HEAD").stdout.strip()
    if author != AUTHOR:
        raise GitError(f"HEAD is {author}'s commit, not porter's; porter leaves it alone")
    if _git(root, "branch", "-r", "--contains", "HEAD", check=False).stdout.strip():
        raise GitError("porter's last commit is pushed; porter does not rewrite pushed history")
    if _git(root, "rev-parse", "-q", "--verify", "HEAD~1", check=False).returncode != 0:
        raise GitError("HEAD is the first commit; nothing below it to go back to")
    return head


def drop_head(root: Path) -> None:
    """Move the branch back past porter's last commit; the work tree, already reverted, stays."""
    _git(root, "reset", "-q", "HEAD~1")


def _porter_seqs(root: Path, rev: str) -> list[int]:
    done = _git(root, "log", "-1", "--format=%B", rev, check=False)
    return _seqs_in(done.stdout) if done.returncode == 0 else []


def _all_porter_seqs(root: Path) -> list[list[int]]:
    done = _git(root, "log", "--format=%B%x1e", check=False)
    return [_seqs_in(body) for body in done.stdout.split("\x1e")] if done.returncode == 0 else []


def _seqs_in(message: str) -> list[int]:
    m = re.search(rf"^{TRAILER} ([\d ]+)$", message, re.M)
    return [int(x) for x in m.group(1).split()] if m else []
