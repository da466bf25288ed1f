"""The composite Action: action.yml parses, inputs reach the script only through env, and its
run step works against a local checkout (a PR's base and head commits, an event file)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import HERE, payload

ROOT = Path(__file__).parents[2]
EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


@pytest.fixture(scope="module")
def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def test_action_yml_is_a_composite_whose_scripts_never_interpolate(action):
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], f"{step['name']}: expressions belong in env:, not in run:"
            assert step["shell"] == "bash"
        for value in (step.get("env") or {}).values():
            for expr in EXPR.findall(str(value)):
                name = expr.split(".", 1)[1] if expr.startswith("inputs.") else None
                assert name is None or name in action["inputs"], expr
    assert set(action["outputs"]) == {"sarif", "conclusion"}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def _checkout(tmp_path: Path, *, change_far_line: bool) -> tuple[Path, str, str]:
    repo = tmp_path / "checkout"
    (repo / "src").mkdir(parents=True)
    kernel = (HERE / "data" / "block_sum.cu").read_text()
    _git(repo, "init", "-q")
    (repo / "README.md").write_text("# kernels\n")
    if change_far_line:  # the kernel is old; the PR only edits its last line
        (repo / "src" / "block_sum.cu").write_text(kernel)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    base = _git(repo, "rev-parse", "HEAD")
    if change_far_line:
        text = kernel.split("\n")
        text[-3] = text[-3] + "  // grid of 256-thread blocks"  # the launch, far from the kernel's hazards
        kernel = "\n".join(text)
    (repo / "src" / "block_sum.cu").write_text(kernel)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "head")
    return repo, base, _git(repo, "rev-parse", "HEAD")


def _run_step(action: dict, tmp_path: Path, checkout: Path, event: dict, inputs: dict[str, str],
              token: str = "") -> subprocess.CompletedProcess:
    """Run the action's porter step as the runner would: its env evaluated, its script under bash."""
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "porter")
    event_file = tmp_path / "event.json"
    event_file.write_text(json.dumps(event))
    context = {"github.token": token, "github.workspace": str(checkout)}
    values = {k: str(v.get("default", "")) for k, v in action["inputs"].items()} | inputs

    def evaluate(text: str) -> str:
        def one(m):
            expr = m.group(1)
            if expr.startswith("inputs."):
                return EXPR.sub(lambda n: context[n.group(1)], values[expr[len("inputs."):]])
            return context[expr]
        return EXPR.sub(one, str(text))

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PORTER_"))}
    env.update({k: evaluate(v) for k, v in step["env"].items()})
    env.update(GITHUB_EVENT_PATH=str(event_file), GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
               GITHUB_OUTPUT=str(tmp_path / "output.txt"),
               PATH=str(Path(sys.executable).parent) + os.pathsep + env["PATH"])
    return subprocess.run(["bash", "-c", step["run"]], cwd=checkout, env=env, capture_output=True, text=True,
                          timeout=300)


def _event(base: str, head: str, *, fork: bool) -> dict:
    event = payload("pull_request.opened")
    event["pull_request"]["base"]["sha"], event["pull_request"]["head"]["sha"] = base, head
    if fork:
        event["pull_request"]["head"]["repo"] = event["pull_request"]["head"]["repo"] | {
            "full_name": "octocat/kernels", "fork": True}
    return event


def test_run_step_dry_run_on_a_local_checkout(action, tmp_path):
    checkout, base, head = _checkout(tmp_path, change_far_line=False)
    r = _run_step(action, tmp_path, checkout, _event(base, head, fork=False),
                  {"dry-run": "true", "verify": "false"})
    assert r.returncode == 0, r.stderr + r.stdout
    assert f"== check run `porter` on {head[:12]}" in r.stdout
    assert "== review on" in r.stdout and "```suggestion" in r.stdout and "src/block_sum.cu:14" in r.stdout
    sarif = json.loads((checkout / "porter.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    assert sarif["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] == checkout.resolve().as_uri() + "/"
    outputs = (tmp_path / "output.txt").read_text()
    assert "sarif=porter.sarif" in outputs and "conclusion=" in outputs


def test_fork_pull_request_posts_nothing_and_annotates_through_workflow_commands(action, tmp_path):
    checkout, base, head = _checkout(tmp_path, change_far_line=True)
    r = _run_step(action, tmp_path, checkout, _event(base, head, fork=True),
                  {"verify": "false", "model": "anthropic:claude-x"}, token="ghs_readonly")
    assert r.returncode == 0, r.stderr + r.stdout
    assert "fork pull request: no model" in r.stdout
    assert "fork pull request: read-only token: posting nothing" in r.stdout
    notices = [line for line in r.stdout.splitlines() if line.startswith("::notice file=src/block_sum.cu")]
    assert notices, r.stdout  # the suggestions lie outside the one-line hunk: annotations, not a review
    assert "porter:summary" in (tmp_path / "summary.md").read_text()


def test_same_repository_pull_request_posts_through_the_token(tmp_path, fake):
    import io

    from porter.github.action import run

    checkout, base, head = _checkout(tmp_path, change_far_line=False)
    files = {"README.md": b"# kernels\n"}
    fake_base = fake.add_repo("octo-org/kernels", files)
    kernel = (checkout / "src" / "block_sum.cu").read_bytes()
    pr = fake.open_pr("octo-org/kernels", fake_base, {**files, "src/block_sum.cu": kernel})
    event = _event(base, head, fork=False)
    event["pull_request"]["head"]["sha"] = head  # the local commit; the fake keys its PR by number
    out = io.StringIO()
    code = run(checkout, event=event, base=None, head=None, dry_run=False, sarif=tmp_path / "p.sarif", model="none",
               token=fake.token("write"), api_url="https://api.github.test", out=out, verify=False,
               transport=fake.transport)
    state = fake.repos["octo-org/kernels"]
    assert code == 1  # --no-verify: units not checked
    assert [r["conclusion"] for r in state.check_runs] == ["neutral"]
    assert len(state.reviews[pr.number]) == 1 and len(state.comments) == 1
    assert "check run" in out.getvalue()
