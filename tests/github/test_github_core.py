"""The core's parts: diff parsing, the plan's placement rules and limits, the publisher against
the fake GitHub's rules, the sandbox's environment, and the suggestions' claim to be right on NVIDIA."""

from __future__ import annotations

import subprocess

import httpx
import pytest
from fake_github import FakeGitHub
from githubkit.exception import RequestFailed

from porter import rules
from porter.github.diff import FileDiff, from_api_files, from_git_diff, parse_patch
from porter.github.plan import MAX_FIELD, Annotation, build_plan, fit
from porter.github.publish import Repo, client
from porter.github.sandbox import SandboxError, child_env, run_port
from porter.github.suggest import SOURCE_VALID_FIXES, Suggestion, suggestions
from porter.state import Finding, Location, ModelOptions, PortOptions, Severity

PATCH = """@@ -1,3 +1,4 @@
 a
-b
+B
+c
 d
@@ -10,2 +11,3 @@ int f()
 x
+y
 z
\\ No newline at end of file"""


def test_parse_patch_counts_head_lines():
    h1, h2 = parse_patch(PATCH)
    assert (h1.new_start, h1.new_count, sorted(h1.added)) == (1, 4, [2, 3])
    assert (h2.new_start, h2.new_count, sorted(h2.added)) == (11, 3, [12])
    d = FileDiff("f.cu", "modified", (h1, h2))
    assert d.hunk_for(2, 4) is h1 and d.hunk_for(4, 11) is None and d.hunk_for(13, 13) is h2
    assert from_api_files([{"filename": "big.cu", "status": "modified"}])["big.cu"].has_patch is False


def test_git_diff_matches_api_patch(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()

    def git(*a):
        return subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", *a],
                              check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    (repo / "k.cu").write_text("".join(f"line {i}\n" for i in range(1, 21)))
    git("add", "-A")
    git("commit", "-qm", "base")
    (repo / "k.cu").write_text("".join(f"line {i}\n" if i != 12 else "changed\n" for i in range(1, 21)))
    (repo / "new.cuh").write_text("#pragma once\n")
    git("add", "-A")
    git("commit", "-qm", "head")
    diffs = from_git_diff(git("diff", "HEAD~1", "HEAD"))
    assert diffs["new.cuh"].status == "added" and diffs["new.cuh"].added == {1}
    assert diffs["k.cu"].added == {12} and diffs["k.cu"].hunk_for(9, 15) is not None
    assert diffs["k.cu"].hunk_for(1, 1) is None


def _finding(path, line, rule="WAVE003", severity=Severity.error, fixed=True):
    return Finding(rule=rule, severity=severity, message="m", location=Location(path=path, line=line), fixed=fixed)


def test_suggestions_outside_the_hunks_become_annotations():
    diffs = {"k.cu": FileDiff("k.cu", "modified", parse_patch("@@ -5,3 +5,4 @@\n a\n+b\n c\n d")),
             "huge.cu": FileDiff("huge.cu", "modified", (), has_patch=False)}
    inside = Suggestion("k.cu", 6, 6, "x % 32", "x % warpSize", (_finding("k.cu", 6),))
    outside = Suggestion("k.cu", 40, 40, "y % 32", "y % warpSize", (_finding("k.cu", 40),))
    no_patch = Suggestion("huge.cu", 3, 3, "z % 32", "z % warpSize", (_finding("huge.cu", 3),))
    context = Suggestion("hdr.cuh", 1, 1, "a", "b", ())  # a header staged as context only
    plan = build_plan(head_sha="f" * 40, report=None, exit_code=0, diffs=diffs,
                      suggestions=[inside, outside, no_patch, context], markdown="")
    assert [(c.path, c.line) for c in plan.review.comments] == [("k.cu", 6)]
    assert "```suggestion\nx % warpSize\n```" in plan.review.comments[0].body
    assert [(a.path, a.start_line, a.annotation_level) for a in plan.check_run.annotations] == \
        [("k.cu", 40, "notice"), ("huge.cu", 3, "notice")]


def test_fields_are_cut_to_githubs_limit():
    assert fit("x" * 10) == "x" * 10
    cut = fit("x" * 200_000)
    assert len(cut) <= MAX_FIELD and "cut here" in cut
    plan = build_plan(head_sha="a" * 40, report=None, exit_code=0, diffs={}, suggestions=[], markdown="y" * 100_000)
    assert len(plan.check_run.text) <= MAX_FIELD


@pytest.fixture
def repo_with_pr(fake: FakeGitHub):
    base = fake.add_repo("o/r", {"k.cu": b"".join(b"line %d\n" % i for i in range(1, 301))})
    head = {"k.cu": b"".join((b"line %d\n" % i) if i != 150 else b"new line\n" for i in range(1, 301))}
    pr = fake.open_pr("o/r", base, head)
    return Repo(client(fake.token("write"), base_url="https://api.github.test", transport=fake.transport), "o/r"), pr


def test_fake_github_rejects_a_review_comment_outside_the_diff(repo_with_pr):
    repo, pr = repo_with_pr
    data = {"commit_id": pr.head, "body": "b", "event": "COMMENT",
            "comments": [{"path": "k.cu", "line": 150, "side": "RIGHT", "body": "in"},
                         {"path": "k.cu", "line": 10, "side": "RIGHT", "body": "outside"}]}
    with pytest.raises(RequestFailed) as e:
        repo.gh.rest.pulls.create_review("o", "r", pr.number, data=data)
    assert e.value.response.status_code == 422
    data["comments"].pop()
    assert repo.gh.rest.pulls.create_review("o", "r", pr.number, data=data).status_code == 200


def test_annotations_go_50_per_request_and_the_fake_refuses_51(repo_with_pr, fake):
    repo, pr = repo_with_pr
    many = [Suggestion("k.cu", n, n, "a", "b", (_finding("k.cu", n),)) for n in range(1, 121) if n not in range(147, 154)]
    diffs = from_api_files(repo.pull_files(pr.number))
    plan = build_plan(head_sha=pr.head, report=None, exit_code=0, diffs=diffs, suggestions=many, markdown="")
    plan = plan.model_copy(update={"ported": True})  # as if the port had run: the summary comment is opened
    assert len(plan.check_run.annotations) == 120
    posted = repo.publish(plan, pr.number)
    assert posted.annotation_requests == 3
    [run] = fake.repos["o/r"].check_runs
    assert run["output"]["annotations_count"] == 120
    body = {"name": "x", "head_sha": pr.head, "output": {"title": "t", "summary": "s", "annotations": [
        Annotation(path="k.cu", start_line=1, end_line=1, annotation_level="notice", message="m").model_dump()] * 51}}
    # githubkit refuses 51 client-side; the fake refuses what GitHub refuses, sent raw
    raw = httpx.Client(transport=fake.transport, base_url="https://api.github.test",
                       headers={"Authorization": f"token {fake.token('write')}"})
    assert raw.post("/repos/o/r/check-runs", json=body).status_code == 422
    body["output"] = {"title": "t", "summary": "s" * 65_536}
    assert raw.post("/repos/o/r/check-runs", json=body).status_code == 422
    body["output"]["summary"] = "s" * 65_535
    assert raw.post("/repos/o/r/check-runs", json=body).status_code == 201
    fake.repos["o/r"].check_runs.pop()
    # a second publish on the same head updates the one check run and edits the one summary comment
    repo.publish(plan, pr.number)
    assert len(fake.repos["o/r"].check_runs) == 1
    assert len([c for c in fake.repos["o/r"].comments if "porter:summary" in c["body"]]) == 1


def test_fork_token_is_read_only(fake):
    base = fake.add_repo("o/r", {"a": b"a\n"})
    pr = fake.open_pr("o/r", base, {"a": b"b\n"})
    repo = Repo(client(fake.token("read"), base_url="https://api.github.test", transport=fake.transport), "o/r")
    with pytest.raises(RequestFailed) as e:
        repo.reply(pr.number, "hi")
    assert e.value.response.status_code == 403


def test_sandbox_environment_holds_no_secrets(tmp_path):
    env = {"PATH": "/usr/bin", "PORTER_WEBHOOK_SECRET": "s", "GITHUB_TOKEN": "t", "ANTHROPIC_API_KEY": "k",
           "PORTER_APP_PRIVATE_KEY": "/k.pem", "AWS_SECRET_ACCESS_KEY": "a", "PORTER_CLANG": "/usr/bin/clang"}
    out = child_env(tmp_path, PortOptions(), env)
    assert set(out) == {"PATH", "PORTER_CLANG", "HOME", "TMPDIR", "PYTHONDONTWRITEBYTECODE"}
    with_model = child_env(tmp_path, PortOptions(model=ModelOptions(spec="anthropic:claude-x")), env)
    assert with_model["ANTHROPIC_API_KEY"] == "k" and "GITHUB_TOKEN" not in with_model


def test_sandbox_times_out(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k() {}\n")
    with pytest.raises(SandboxError, match="timed out"):
        run_port(src, tmp_path / "out", PortOptions(verify=False), timeout_s=0.05)


def test_source_valid_fixes_say_they_are_right_on_nvidia_too():
    for rule_id in SOURCE_VALID_FIXES:
        safety = rules.get(rule_id).section("Fix safety") + rules.get(rule_id).section("After")
        assert any(p in safety for p in ("both vendors", "on both", "32-lane targets", "either vendor")), rule_id


@pytest.mark.toolchain("nvcc")
def test_applied_suggestions_still_compile_with_nvcc(tmp_path):
    from pathlib import Path

    from porter.toolchains.nvcc import find_nvcc

    src = Path(__file__).parent / "data" / "block_sum.cu"
    found = suggestions(src.parent, [src.name])
    assert {s.rules[0] for s in found} >= {"WAVE002", "WAVE003", "WAVE005"}
    lines = src.read_text().split("\n")
    for s in sorted(found, key=lambda s: s.first, reverse=True):
        lines[s.first - 1:s.last] = s.text.split("\n")
    fixed = tmp_path / "block_sum.cu"
    fixed.write_text("\n".join(lines))
    r = subprocess.run([str(find_nvcc()), "-arch=sm_90", "-c", str(fixed), "-o", str(tmp_path / "o.o")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert suggestions(tmp_path, ["block_sum.cu"]) == []


def test_a_change_with_nothing_to_port_gets_a_check_run_and_no_new_comment(fake):
    base = fake.add_repo("o/r", {"README.md": b"a\n"})
    pr = fake.open_pr("o/r", base, {"README.md": b"b\n"})
    repo = Repo(client(fake.token("write"), base_url="https://api.github.test", transport=fake.transport), "o/r")
    plan = build_plan(head_sha=pr.head, report=None, exit_code=0, diffs=from_api_files(repo.pull_files(pr.number)),
                      suggestions=[], markdown="")
    posted = repo.publish(plan, pr.number)
    state = fake.repos["o/r"]
    assert [(r["conclusion"], r["output"]["title"]) for r in state.check_runs] == [("success", "nothing to port in this change")]
    assert posted.comment_id == 0 and state.comments == [] and pr.number not in state.reviews
