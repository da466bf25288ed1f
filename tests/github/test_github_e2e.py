"""End to end: a PR adding a CUDA kernel with a wave32 reduction, through the App and the fake GitHub.

The App gets signed webhook deliveries, authenticates with a JWT for an installation token (the
fake checks the signature with the App's public key), downloads the head, ports it in the
sandbox and posts: one check run, one review whose suggestions apply cleanly, one summary
comment. The test applies the suggestions as GitHub's "Commit suggestion" would, pushes, and
the second run is clean and edits the same summary comment.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import HERE, payload, signed
from fastapi.testclient import TestClient

from porter.github.app import create_app

REPO = "octo-org/kernels"
TRANSCRIPT = Path(__file__).parents[2] / "docs" / "github" / "demo-transcript.json"
BASE_FILES = {"README.md": b"# kernels\n\nCUDA kernels of octo-org.\n"}


def apply_suggestions(text: str, comments: list[dict]) -> str:
    """What "Commit suggestion" does for each review comment: replace its lines by the block's."""
    lines = text.split("\n")
    for c in sorted(comments, key=lambda c: c["line"], reverse=True):
        block = re.search(r"^(`{3,})suggestion\n(.*?)\n\1$", c["body"], re.S | re.M)
        assert block, c["body"]
        first = c.get("start_line") or c["line"]
        lines[first - 1:c["line"]] = block.group(2).split("\n")
    return "\n".join(lines)


def deliver(client: TestClient, event: str, body: dict) -> dict:
    raw, headers = signed(body, event)
    r = client.post("/webhook", content=raw, headers=headers)
    assert r.status_code in (200, 202), r.text
    return r.json()


@pytest.mark.toolchain("clang")
def test_wave32_reduction_pr_end_to_end(fake, app_env, request):
    base = fake.add_repo(REPO, BASE_FILES)
    kernel = (HERE / "data" / "block_sum.cu").read_bytes()
    pr = fake.open_pr(REPO, base, {**BASE_FILES, "src/block_sum.cu": kernel})
    head1 = pr.head
    fake.repos[REPO].permissions["octocat"] = "admin"
    api = create_app(app_env, transport=fake.transport, start_worker=False)
    with TestClient(api) as client:
        opened = payload("pull_request.opened")
        opened["pull_request"]["head"]["sha"], opened["pull_request"]["base"]["sha"] = pr.head, base
        assert deliver(client, "pull_request", opened)["status"] == "queued"
        worker = api.state.worker
        assert worker.run_once()
        assert [j.status for j in api.state.store.jobs()] == ["done"], api.state.store.jobs()

        state = fake.repos[REPO]
        assert len(state.check_runs) == 1
        run = state.check_runs[0]
        assert run["head_sha"] == pr.head and run["status"] == "completed"
        assert run["conclusion"] == "success", run["output"]["summary"]
        assert "compiled" in run["output"]["summary"]  # the verifier's evidence
        assert len(state.reviews[pr.number]) == 1
        review = state.reviews[pr.number][0]
        rules = {r for c in review["comments"] for r in re.findall(r"WAVE\d{3}", c["body"])}
        assert {"WAVE002", "WAVE003", "WAVE005"} <= rules
        summaries = [c for c in state.comments if "<!-- porter:summary -->" in c["body"]]
        assert len(summaries) == 1 and summaries[0]["edits"] == 0
        assert "/porter port" in summaries[0]["body"]

        fixed = apply_suggestions(kernel.decode(), review["comments"])
        assert "% warpSize" in fixed and "offset = warpSize / 2" in fixed and "partial[64]" in fixed
        head2 = fake.push(REPO, pr.number, {**BASE_FILES, "src/block_sum.cu": fixed.encode()})
        sync = payload("pull_request.synchronize")
        sync["pull_request"]["head"]["sha"], sync["pull_request"]["base"]["sha"] = head2, base
        assert deliver(client, "pull_request", sync)["status"] == "queued"
        assert worker.run_once()
        assert [j.status for j in api.state.store.jobs()] == ["done", "done"], api.state.store.jobs()

    assert [r["head_sha"] for r in state.check_runs] == [head1, head2]  # one per head
    clean = state.check_runs[1]
    assert clean["conclusion"] == "success" and clean["output"]["annotations"] == []
    assert "| suggestions in the review | 0 |" in clean["output"]["summary"]
    assert len(state.reviews[pr.number]) == 1  # nothing left to suggest: no second review
    summaries = [c for c in state.comments if "<!-- porter:summary -->" in c["body"]]
    assert len(summaries) == 1 and summaries[0]["edits"] == 1 and head2[:7] in summaries[0]["body"]
    assert all(e["status"] < 400 for e in fake.log), [e for e in fake.log if e["status"] >= 400]

    calls = [{k: e[k] for k in ("method", "path", "query", "status", "request")} for e in fake.log]
    if request.config.getoption("--update-snapshots"):
        TRANSCRIPT.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"about": "porter's GitHub App on a PR adding a wave32 reduction "
                                                   "(tests/github/test_github_e2e.py): the fake GitHub's request "
                                                   "log, first push then the push that applied the suggestions",
                           "requests": calls}, indent=2, ensure_ascii=False) + "\n"
        TRANSCRIPT.write_text(text.replace(str(app_env.work.parent), "<tmp>"))
    recorded = json.loads(TRANSCRIPT.read_text())["requests"]
    assert [(c["method"], c["path"], c["status"]) for c in recorded] == \
        [(c["method"], c["path"], c["status"]) for c in calls]


@pytest.mark.toolchain("clang")
def test_port_command_pushes_the_full_port_to_a_branch_only_on_request(fake, app_env):
    base = fake.add_repo(REPO, BASE_FILES)
    kernel = (HERE / "data" / "block_sum.cu").read_bytes()
    pr = fake.open_pr(REPO, base, {**BASE_FILES, "src/block_sum.cu": kernel})
    fake.repos[REPO].permissions["octocat"] = "write"
    api = create_app(app_env, transport=fake.transport, start_worker=False)
    with TestClient(api) as client:
        opened = payload("pull_request.opened")
        deliver(client, "pull_request", opened)
        assert api.state.worker.run_once()
        state = fake.repos[REPO]
        assert set(state.refs) == {"heads/main"}  # a review pushes nothing
        comment = payload("issue_comment.created")
        comment["comment"]["body"] = "/porter verify"
        deliver(client, "issue_comment", comment)
        assert api.state.worker.run_once()
        assert set(state.refs) == {"heads/main"} and len(state.check_runs) == 1  # verify re-runs, pushes nothing
        comment = payload("issue_comment.created")
        comment["comment"]["body"] = "/porter port src\nplease"
        deliver(client, "issue_comment", comment)
        assert api.state.worker.run_once()
    assert [j.status for j in api.state.store.jobs()] == ["done", "done", "done"], api.state.store.jobs()
    branch = state.refs["heads/porter/pr-7"]
    assert state.parents[branch] == [pr.head]
    ported = state.commits[branch]["src/block_sum.cu"].decode()
    assert "#include <hip/hip_runtime.h>" in ported and "hipStream_t" in ported and "warpSize / 2" in ported
    assert state.commits[branch]["README.md"] == BASE_FILES["README.md"]
    assert [r["content"] for r in state.reactions] == ["eyes", "rocket", "eyes", "rocket"]
    assert "pushed the full port (1 file(s)) to branch `porter/pr-7`" in state.comments[-1]["body"]
    assert len(state.check_runs) == 1 and len(state.reviews[pr.number]) == 1  # same head: updated, not repeated
