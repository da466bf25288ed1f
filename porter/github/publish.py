"""Sending a Plan to GitHub through githubkit, and the few reads a run needs.

The rules of a quiet bot are kept here: one check run per PR head (found by name on the head
commit and updated, never duplicated), annotations sent at most 50 per request (the first batch
with the create, the rest as updates that repeat the output's title and summary, as the Checks
API requires), at most one porter review per head commit, and one summary comment found by its
marker and edited in place. A branch with the full port is pushed only by `push_port`, which
only the `/porter port` command calls.
"""

from __future__ import annotations

import base64
import io
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import httpx
from githubkit import GitHub
from githubkit.cache import BaseCacheStrategy
from githubkit.exception import RequestFailed

from porter.github.plan import ANNOTATIONS_PER_REQUEST, REVIEW_MARKER, SUMMARY_MARKER, Plan

PER_PAGE = 100


def client(auth, *, base_url: str | None = None, transport: httpx.BaseTransport | None = None,
           tokens: BaseCacheStrategy | None = None) -> GitHub:
    """A githubkit client. No HTTP cache: a run must see the check runs and comments as they are now.
    `tokens` keeps installation tokens between jobs (one cache per App worker, not githubkit's global one)."""
    return GitHub(auth, base_url=base_url, transport=transport, http_cache=False, user_agent="porter-gpu",
                  cache_strategy=tokens)


@dataclass(frozen=True)
class Posted:
    check_run_id: int
    review_id: int | None
    comment_id: int
    annotation_requests: int


class Repo:
    """One repository, through one authenticated client."""

    def __init__(self, gh: GitHub, full_name: str) -> None:
        self.gh = gh
        self.owner, self.name = full_name.split("/", 1)

    # reads

    def pull(self, number: int) -> dict:
        return self.gh.rest.pulls.get(self.owner, self.name, number).json()

    def pull_files(self, number: int) -> list[dict]:
        files, page = [], 1
        while True:
            batch = self.gh.rest.pulls.list_files(self.owner, self.name, number, per_page=PER_PAGE, page=page).json()
            files += batch
            if len(batch) < PER_PAGE:
                return files
            page += 1

    def permission(self, user: str) -> str:
        """The user's permission on the repository, as the API says it (never the payload's author_association)."""
        try:
            data = self.gh.rest.repos.get_collaborator_permission_level(self.owner, self.name, user).json()
        except RequestFailed as e:
            if e.response.status_code == 404:
                return "none"
            raise
        return data.get("permission", "none")  # admin, write, read or none (maintain counts as write)

    def download(self, ref: str, into: Path) -> Path:
        """The tree at `ref`, from one tarball request, unpacked under `into` (the archive's top folder stripped)."""
        data = self.gh.rest.repos.download_tarball_archive(self.owner, self.name, ref).content
        into.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
            members = []
            for m in tar.getmembers():
                parts = PurePosixPath(m.name).parts
                if len(parts) < 2 or not (m.isfile() or m.isdir()):
                    continue  # the top folder, and links: a PR's symlink must not point porter elsewhere
                m.name = str(PurePosixPath(*parts[1:]))
                members.append(m)
            tar.extractall(into, members=members, filter="data")
        return into

    def _comments(self, number: int) -> list[dict]:
        out, page = [], 1
        while True:
            batch = self.gh.rest.issues.list_comments(self.owner, self.name, number, per_page=PER_PAGE,
                                                      page=page).json()
            out += batch
            if len(batch) < PER_PAGE:
                return out
            page += 1

    # writes

    def publish(self, plan: Plan, number: int | None) -> Posted:
        check_id, requests = self._check_run(plan)
        review_id = self._review(plan, number) if number is not None else None
        comment_id = (self.upsert_summary(number, plan.summary_comment, create=plan.ported)
                      if number is not None else 0)
        return Posted(check_run_id=check_id, review_id=review_id, comment_id=comment_id, annotation_requests=requests)

    def _check_run(self, plan: Plan) -> tuple[int, int]:
        c = plan.check_run
        batches = [c.annotations[i:i + ANNOTATIONS_PER_REQUEST]
                   for i in range(0, len(c.annotations), ANNOTATIONS_PER_REQUEST)] or [[]]

        def output(batch) -> dict:
            out = {"title": c.title, "summary": c.summary, "text": c.text}
            if batch:
                out["annotations"] = [a.model_dump(exclude_defaults=True) for a in batch]
            return out

        found = self.gh.rest.checks.list_for_ref(self.owner, self.name, c.head_sha, check_name=c.name).json()
        runs = [r for r in found.get("check_runs", []) if r["head_sha"] == c.head_sha]
        body = {"name": c.name, "status": "completed", "conclusion": c.conclusion, "output": output(batches[0])}
        if runs:
            check_id = runs[0]["id"]
            self.gh.rest.checks.update(self.owner, self.name, check_id, data=body)
        else:
            check_id = self.gh.rest.checks.create(self.owner, self.name,
                                                  data={**body, "head_sha": c.head_sha}).json()["id"]
        for batch in batches[1:]:
            self.gh.rest.checks.update(self.owner, self.name, check_id, data={"output": output(batch)})
        return check_id, len(batches)

    def _review(self, plan: Plan, number: int) -> int | None:
        if plan.review is None:
            return None
        page, reviews = 1, []
        while True:
            batch = self.gh.rest.pulls.list_reviews(self.owner, self.name, number, per_page=PER_PAGE, page=page).json()
            reviews += batch
            if len(batch) < PER_PAGE:
                break
            page += 1
        for r in reviews:
            if r.get("commit_id") == plan.review.commit_id and REVIEW_MARKER in (r.get("body") or ""):
                return r["id"]  # this head already has porter's review: a re-run does not repeat it
        data = {"commit_id": plan.review.commit_id, "body": plan.review.body, "event": "COMMENT",
                "comments": [c.model_dump(exclude_none=True) | ({"start_side": "RIGHT"} if c.start_line else {})
                             for c in plan.review.comments]}
        return self.gh.rest.pulls.create_review(self.owner, self.name, number, data=data).json()["id"]

    def upsert_summary(self, number: int, body: str, *, create: bool = True) -> int:
        """Edit porter's summary comment in place; open it only when `create` (a change with nothing to
        port gets no new comment, but one opened on an earlier push is brought up to date). 0: none."""
        for c in self._comments(number):
            if SUMMARY_MARKER in (c.get("body") or ""):
                if c["body"] != body:
                    self.gh.rest.issues.update_comment(self.owner, self.name, c["id"], data={"body": body})
                return c["id"]
        if not create:
            return 0
        return self.gh.rest.issues.create_comment(self.owner, self.name, number, data={"body": body}).json()["id"]

    def reply(self, number: int, body: str) -> int:
        return self.gh.rest.issues.create_comment(self.owner, self.name, number, data={"body": body}).json()["id"]

    def react(self, comment_id: int, content: str) -> None:
        self.gh.rest.reactions.create_for_issue_comment(self.owner, self.name, comment_id, data={"content": content})

    def push_port(self, branch: str, head_sha: str, files: dict[str, bytes], message: str) -> str:
        """Commit `files` on top of `head_sha` as branch `branch` (created, or moved there); the commit's sha."""
        base_tree = self.gh.rest.git.get_commit(self.owner, self.name, head_sha).json()["tree"]["sha"]
        tree = []
        for path, data in sorted(files.items()):
            blob = self.gh.rest.git.create_blob(self.owner, self.name, data={
                "content": base64.b64encode(data).decode(), "encoding": "base64"}).json()["sha"]
            tree.append({"path": path, "mode": "100644", "type": "blob", "sha": blob})
        tree_sha = self.gh.rest.git.create_tree(self.owner, self.name,
                                                data={"base_tree": base_tree, "tree": tree}).json()["sha"]
        commit = self.gh.rest.git.create_commit(self.owner, self.name, data={
            "message": message, "tree": tree_sha, "parents": [head_sha]}).json()["sha"]
        try:
            self.gh.rest.git.get_ref(self.owner, self.name, f"heads/{branch}")
        except RequestFailed as e:
            if e.response.status_code != 404:
                raise
            self.gh.rest.git.create_ref(self.owner, self.name, data={"ref": f"refs/heads/{branch}", "sha": commit})
        else:
            self.gh.rest.git.update_ref(self.owner, self.name, f"heads/{branch}", data={"sha": commit, "force": True})
        return commit
