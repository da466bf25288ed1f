"""A fake GitHub REST API on httpx.MockTransport, for porter's PR bot tests.

It keeps repositories (commits as path -> bytes), pull requests, check runs, reviews, issue
comments, reactions, collaborators' permissions and git refs in memory, and enforces the rules
GitHub enforces that the bot must respect:
- a review comment whose line(s) are not in one hunk of the PR's diff (RIGHT side) fails the
  whole review with 422 ("pull_request_review_thread.line must be part of the diff");
- at most 50 annotations per check-run request (422);
- check-run output summary/text, comment and review bodies at most 65,535 characters (422);
- writes need a token with write access (a fork PR's token is read-only: 403);
- installation tokens only for a JWT signed with the App's key (RS256, iss = App id).
Every request is logged (method, path, status, a short digest of the body) for the transcript.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import io
import itertools
import json
import re
import tarfile
from dataclasses import dataclass, field

import httpx
import jwt

LIMIT = 65_535
NOW = "2026-12-01T12:00:00Z"


def sha_of(*parts: object) -> str:
    return hashlib.sha1(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def unified_patch(old: bytes | None, new: bytes | None) -> str:
    """The `patch` field GitHub gives for a file: the unified diff body from the first @@, 3 lines of context."""
    a = (old or b"").decode().splitlines()
    b = (new or b"").decode().splitlines()
    lines = list(difflib.unified_diff(a, b, lineterm="", n=3))
    return "\n".join(lines[2:])


def right_hunks(patch: str) -> list[range]:
    """The head-side line ranges of each hunk (an independent reading of the @@ headers)."""
    out = []
    for m in re.finditer(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", patch, re.M):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        out.append(range(start, start + count))
    return out


@dataclass
class PR:
    number: int
    base: str
    head: str
    user: str
    head_repo: str
    title: str = "Add a block reduction kernel"


@dataclass
class RepoState:
    full_name: str
    id: int
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)  # sha -> files
    parents: dict[str, list[str]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)  # "heads/main" -> sha
    prs: dict[int, PR] = field(default_factory=dict)
    check_runs: list[dict] = field(default_factory=list)
    reviews: dict[int, list[dict]] = field(default_factory=dict)
    comments: list[dict] = field(default_factory=list)  # issue comments (any PR)
    reactions: list[dict] = field(default_factory=list)
    permissions: dict[str, str] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)
    trees: dict[str, dict[str, bytes]] = field(default_factory=dict)


class FakeGitHub:
    def __init__(self, *, app_id: int = 4242, public_key: str | None = None) -> None:
        self.app_id = app_id
        self.public_key = public_key
        self.repos: dict[str, RepoState] = {}
        self.tokens: dict[str, str] = {}  # token -> "write" | "read"
        self.log: list[dict] = []
        self._ids = itertools.count(1001)
        self.transport = httpx.MockTransport(self.handle)

    # test-side setup

    def add_repo(self, full_name: str, files: dict[str, bytes]) -> str:
        repo = RepoState(full_name=full_name, id=next(self._ids))
        self.repos[full_name] = repo
        sha = self.commit(full_name, files, parent=None)
        repo.refs["heads/main"] = sha
        return sha

    def commit(self, full_name: str, files: dict[str, bytes], parent: str | None) -> str:
        repo = self.repos[full_name]
        sha = sha_of(sorted((k, v.decode(errors="replace")) for k, v in files.items()), parent)
        repo.commits[sha] = dict(files)
        repo.parents[sha] = [parent] if parent else []
        return sha

    def open_pr(self, full_name: str, base: str, files: dict[str, bytes], user: str = "octocat",
                head_repo: str | None = None) -> PR:
        repo = self.repos[full_name]
        head = self.commit(full_name, files, parent=base)
        pr = PR(number=len(repo.prs) + 7, base=base, head=head, user=user, head_repo=head_repo or full_name)
        repo.prs[pr.number] = pr
        return pr

    def push(self, full_name: str, number: int, files: dict[str, bytes]) -> str:
        repo = self.repos[full_name]
        pr = repo.prs[number]
        pr.head = self.commit(full_name, files, parent=pr.head)
        return pr.head

    def token(self, access: str = "write") -> str:
        tok = f"ghs_{next(self._ids)}{access}"
        self.tokens[tok] = access
        return tok

    # the API

    def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        status, data = self._dispatch(request, body)
        self.log.append({"method": request.method, "path": request.url.path,
                         "query": dict(request.url.params), "status": status, "request": _digest(body),
                         "response": _digest(data) if status >= 400 else None})
        if isinstance(data, bytes):
            return httpx.Response(status, content=data, headers={"content-type": "application/x-gzip"})
        return httpx.Response(status, json=data)

    def _auth(self, request: httpx.Request) -> str | None:
        header = request.headers.get("authorization", "")
        token = header.split(" ", 1)[1] if " " in header else ""
        return self.tokens.get(token)

    def _dispatch(self, request: httpx.Request, body):
        method, path = request.method, request.url.path
        m = re.fullmatch(r"/app/installations/(\d+)/access_tokens", path)
        if m and method == "POST":
            token = request.headers.get("authorization", "").removeprefix("Bearer ")
            try:
                claims = jwt.decode(token, self.public_key, algorithms=["RS256"])
            except jwt.PyJWTError as e:
                return 401, {"message": f"A JSON web token could not be decoded: {e}"}
            if str(claims.get("iss")) != str(self.app_id):
                return 401, {"message": "'Issuer' claim ('iss') must be the App id"}
            tok = self.token("write")
            return 201, {"token": tok, "expires_at": "2099-01-01T00:00:00Z", "permissions": {
                "checks": "write", "pull_requests": "write", "issues": "write", "contents": "write"},
                "repository_selection": "all"}
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)(/.*)?", path)
        if not m or m.group(1) not in self.repos:
            return 404, {"message": "Not Found"}
        access = self._auth(request)
        if access is None:
            return 401, {"message": "Bad credentials"}
        if method != "GET" and access != "write":
            return 403, {"message": "Resource not accessible by integration"}
        repo = self.repos[m.group(1)]
        return self._repo(repo, method, m.group(2) or "", request, body)

    def _repo(self, repo: RepoState, method: str, rest: str, request: httpx.Request, body):  # noqa: C901 - one branch per faked GitHub route; legacy, over the limit when ruff came in
        q = request.url.params
        if (m := re.fullmatch(r"/pulls/(\d+)", rest)) and method == "GET":
            return 200, self._pr_json(repo, repo.prs[int(m.group(1))])
        if (m := re.fullmatch(r"/pulls/(\d+)/files", rest)) and method == "GET":
            files = self._files(repo, repo.prs[int(m.group(1))])
            return 200, _page(files, q)
        if (m := re.fullmatch(r"/tarball/(.+)", rest)) and method == "GET":
            return 200, self._tarball(repo, m.group(1))
        if (m := re.fullmatch(r"/collaborators/([^/]+)/permission", rest)) and method == "GET":
            user = m.group(1)
            if user not in repo.permissions:
                return 404, {"message": f"{user} is not a user"}
            perm = repo.permissions[user]
            return 200, {"permission": perm, "role_name": perm, "user": _user(user)}
        if (m := re.fullmatch(r"/commits/([^/]+)/check-runs", rest)) and method == "GET":
            runs = [r for r in repo.check_runs if r["head_sha"] == m.group(1)
                    and (not q.get("check_name") or r["name"] == q.get("check_name"))]
            return 200, {"total_count": len(runs), "check_runs": runs}
        if rest == "/check-runs" and method == "POST":
            if (err := _check_output(body)) is not None:
                return 422, err
            run = {"id": next(self._ids), "head_sha": body["head_sha"], "name": body["name"],
                   "status": body.get("status", "queued"), "conclusion": body.get("conclusion"),
                   "output": _output(None, body.get("output")), "node_id": "CR_x", "external_id": "",
                   "url": "", "html_url": "", "details_url": "", "started_at": NOW, "completed_at": NOW,
                   "check_suite": {"id": 1}, "app": None, "pull_requests": []}
            repo.check_runs.append(run)
            return 201, run
        if (m := re.fullmatch(r"/check-runs/(\d+)", rest)) and method == "PATCH":
            run = next(r for r in repo.check_runs if r["id"] == int(m.group(1)))
            if (err := _check_output(body)) is not None:
                return 422, err
            for k in ("status", "conclusion", "name"):
                if k in body:
                    run[k] = body[k]
            run["output"] = _output(run["output"], body.get("output"))
            return 200, run
        if (m := re.fullmatch(r"/pulls/(\d+)/reviews", rest)):
            number = int(m.group(1))
            if method == "GET":
                return 200, _page(repo.reviews.get(number, []), q)
            return self._create_review(repo, repo.prs[number], body)
        if (m := re.fullmatch(r"/issues/(\d+)/comments", rest)):
            number = int(m.group(1))
            if method == "GET":
                return 200, _page([c for c in repo.comments if c["issue"] == number], q)
            if len(body["body"]) > LIMIT:
                return 422, {"message": "Validation Failed", "errors": [{"field": "body", "code": "too_long"}]}
            c = {"id": next(self._ids), "issue": number, "body": body["body"], "user": _user("porter-gpu[bot]", "Bot"),
                 "created_at": NOW, "updated_at": NOW, "edits": 0}
            repo.comments.append(c)
            return 201, c
        if (m := re.fullmatch(r"/issues/comments/(\d+)", rest)) and method == "PATCH":
            c = next(c for c in repo.comments if c["id"] == int(m.group(1)))
            if len(body["body"]) > LIMIT:
                return 422, {"message": "Validation Failed", "errors": [{"field": "body", "code": "too_long"}]}
            c["body"], c["edits"] = body["body"], c["edits"] + 1
            return 200, c
        if (m := re.fullmatch(r"/issues/comments/(\d+)/reactions", rest)) and method == "POST":
            r = {"id": next(self._ids), "comment": int(m.group(1)), "content": body["content"],
                 "user": _user("porter-gpu[bot]", "Bot"), "created_at": NOW, "node_id": "R_x"}
            repo.reactions.append(r)
            return 201, r
        if (m := re.fullmatch(r"/git/commits/([0-9a-f]+)", rest)) and method == "GET":
            return 200, {"sha": m.group(1), "tree": {"sha": "tree-" + m.group(1), "url": ""}}
        if rest == "/git/blobs" and method == "POST":
            data = base64.b64decode(body["content"])
            sha = sha_of("blob", data.decode(errors="replace"))
            repo.blobs[sha] = data
            return 201, {"sha": sha, "url": ""}
        if rest == "/git/trees" and method == "POST":
            base = repo.commits[body["base_tree"].removeprefix("tree-")]
            files = dict(base)
            for entry in body["tree"]:
                files[entry["path"]] = repo.blobs[entry["sha"]]
            sha = sha_of("tree", sorted((k, v.decode(errors="replace")) for k, v in files.items()))
            repo.trees[sha] = files
            return 201, {"sha": sha, "tree": [], "truncated": False, "url": ""}
        if rest == "/git/commits" and method == "POST":
            sha = sha_of("commit", body["tree"], body["parents"], body["message"])
            repo.commits[sha] = repo.trees[body["tree"]]
            repo.parents[sha] = body["parents"]
            return 201, {"sha": sha, "message": body["message"], "tree": {"sha": body["tree"]}}
        if (m := re.fullmatch(r"/git/ref/(.+)", rest)) and method == "GET":
            if m.group(1) not in repo.refs:
                return 404, {"message": "Not Found"}
            return 200, {"ref": "refs/" + m.group(1), "object": {"sha": repo.refs[m.group(1)], "type": "commit"}}
        if rest == "/git/refs" and method == "POST":
            repo.refs[body["ref"].removeprefix("refs/")] = body["sha"]
            return 201, {"ref": body["ref"], "object": {"sha": body["sha"], "type": "commit"}}
        if (m := re.fullmatch(r"/git/refs/(.+)", rest)) and method == "PATCH":
            repo.refs[m.group(1)] = body["sha"]
            return 200, {"ref": "refs/" + m.group(1), "object": {"sha": body["sha"], "type": "commit"}}
        return 404, {"message": f"fake GitHub has no {method} {rest}"}

    def _files(self, repo: RepoState, pr: PR) -> list[dict]:
        base, head = repo.commits[pr.base], repo.commits[pr.head]
        out = []
        for path in sorted(set(base) | set(head)):
            if base.get(path) == head.get(path):
                continue
            status = "added" if path not in base else "removed" if path not in head else "modified"
            out.append({"sha": sha_of(path, pr.head), "filename": path, "status": status,
                        "additions": 0, "deletions": 0, "changes": 0, "blob_url": "", "raw_url": "",
                        "contents_url": "", "patch": unified_patch(base.get(path), head.get(path))})
        return out

    def _tarball(self, repo: RepoState, ref: str) -> bytes:
        files = repo.commits[ref]
        buf = io.BytesIO()
        top = f"{repo.full_name.replace('/', '-')}-{ref[:7]}"
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            for path, data in sorted(files.items()):
                info = tarfile.TarInfo(f"{top}/{path}")
                info.size, info.mtime = len(data), 0
                tar.addfile(info, io.BytesIO(data))
        return buf.getvalue()

    def _create_review(self, repo: RepoState, pr: PR, body: dict):
        if len(body.get("body") or "") > LIMIT:
            return 422, {"message": "Validation Failed", "errors": [{"field": "body", "code": "too_long"}]}
        patches = {f["filename"]: right_hunks(f["patch"]) for f in self._files(repo, pr)}
        for c in body.get("comments", []):
            first, last = c.get("start_line") or c["line"], c["line"]
            hunks = patches.get(c["path"], [])
            if c.get("side", "RIGHT") != "RIGHT" or not any(first in h and last in h for h in hunks):
                return 422, {"message": "Unprocessable Entity",
                             "errors": ["Pull request review thread line must be part of the diff"]}
            if len(c["body"]) > LIMIT:
                return 422, {"message": "Validation Failed", "errors": [{"field": "body", "code": "too_long"}]}
        review = {"id": next(self._ids), "commit_id": body.get("commit_id", pr.head), "body": body.get("body", ""),
                  "state": "COMMENTED", "user": _user("porter-gpu[bot]", "Bot"), "node_id": "PRR_x",
                  "html_url": "", "pull_request_url": "", "submitted_at": NOW, "author_association": "NONE",
                  "_links": {"html": {"href": ""}, "pull_request": {"href": ""}},
                  "comments": body.get("comments", [])}
        repo.reviews.setdefault(pr.number, []).append(review)
        return 200, review

    def _pr_json(self, repo: RepoState, pr: PR) -> dict:
        return {"number": pr.number, "title": pr.title, "state": "open", "draft": False,
                "user": _user(pr.user), "base": {"sha": pr.base, "ref": "main",
                                                  "repo": {"full_name": repo.full_name}},
                "head": {"sha": pr.head, "ref": "feature", "repo": {"full_name": pr.head_repo}}}


def _user(login: str, kind: str = "User") -> dict:
    return {"login": login, "id": abs(hash(login)) % 10**6, "type": kind, "node_id": "U_x", "avatar_url": "",
            "url": "", "html_url": "", "site_admin": False}


def _page(items: list, q) -> list:
    per_page, page = int(q.get("per_page", 30)), int(q.get("page", 1))
    return items[(page - 1) * per_page: page * per_page]


def _check_output(body: dict) -> dict | None:
    out = body.get("output") or {}
    if len(out.get("annotations") or []) > 50:
        return {"message": "Invalid request.\n\nOnly 50 annotations may be sent per request."}
    for key in ("summary", "text"):
        if len(out.get(key) or "") > LIMIT:
            return {"message": f"Invalid request.\n\noutput.{key} is too long (maximum is 65535 characters)"}
    for a in out.get("annotations") or []:
        if a["annotation_level"] not in ("notice", "warning", "failure") or a["start_line"] > a["end_line"]:
            return {"message": "Invalid request.\n\nbad annotation"}
    return None


def _output(old: dict | None, new: dict | None) -> dict:
    """Check-run output: annotations accumulate across requests (GitHub appends them)."""
    old = old or {"title": None, "summary": None, "text": None, "annotations": [], "annotations_count": 0}
    if new is None:
        return old
    annotations = old["annotations"] + list(new.get("annotations") or [])
    return {"title": new.get("title", old["title"]), "summary": new.get("summary", old["summary"]),
            "text": new.get("text", old["text"]), "annotations": annotations,
            "annotations_count": len(annotations)}


def _digest(data) -> object:
    """A short, stable view of a body for the request log."""
    if data is None:
        return None
    if isinstance(data, bytes):
        return f"<{len(data)} bytes>"
    if isinstance(data, dict):
        return {k: _digest(v) if isinstance(v, (dict, list)) else (v if not isinstance(v, str) or len(v) <= 700
                                                                   else v[:697] + "...")
                for k, v in data.items()}
    if isinstance(data, list):
        return [_digest(v) for v in data[:60]]
    return data
