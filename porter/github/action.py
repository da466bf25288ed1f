"""`porter github`: the GitHub Action's front end, and local dry runs.

In a workflow on `pull_request`, the event file names the PR, its base and head; the diff is
`git diff BASE HEAD` of the checkout (fetch-depth 0), and the code porter reads is the head
commit exported with `git archive` into a directory outside the checkout (actions/checkout
checks out the merge commit by default, whose line numbers are not the head's).

A fork's pull request runs with a read-only token and no secrets: porter then uses no model
(deterministic rules only), posts nothing through the API, and reports through what a
read-only run may write: workflow-command annotations (`::error file=...`), the job summary
and the SARIF file, which the documented `github/codeql-action/upload-sarif` step uploads.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from porter.github.analyze import analyze
from porter.github.diff import from_git_diff
from porter.github.plan import Annotation, Plan
from porter.state import ModelOptions, PortOptions


@dataclass(frozen=True)
class PullRequest:
    number: int | None
    base: str
    head: str
    repo: str  # owner/name of the base repository
    fork: bool


def from_event(event: dict) -> PullRequest:
    """The pull request of a `pull_request` or `pull_request_target` event payload."""
    pr = event.get("pull_request")
    if pr is None:
        raise ValueError("the event has no pull_request: run porter's Action on pull_request")
    base_repo = event["repository"]["full_name"]
    head_repo = (pr["head"].get("repo") or {}).get("full_name")
    return PullRequest(number=pr["number"], base=pr["base"]["sha"], head=pr["head"]["sha"], repo=base_repo,
                       fork=head_repo != base_repo)


def _git(checkout: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(checkout), *args], check=True, capture_output=True, text=True).stdout


def export_head(checkout: Path, sha: str, into: Path) -> Path:
    """The files of commit `sha` (not the merge commit a PR checkout may hold), written under `into`."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(checkout), "archive", "--format=tar", sha], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def workflow_command(a: Annotation) -> str:
    """A read-only annotation: the `::error`/`::warning`/`::notice` workflow command for one annotation."""
    level = {"failure": "error", "warning": "warning", "notice": "notice"}[a.annotation_level]

    def esc(text: str, prop: bool = False) -> str:
        text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return text.replace(":", "%3A").replace(",", "%2C") if prop else text

    props = f"file={esc(a.path, True)},line={a.start_line},endLine={a.end_line},title={esc(a.title, True)}"
    return f"::{level} {props}::{esc(a.message)}"


def render_dry_run(plan: Plan, out: TextIO) -> None:
    """What a live run would post, one request's worth at a time."""
    c = plan.check_run
    print(f"== check run `{c.name}` on {c.head_sha[:12]}: {c.conclusion}: {c.title}", file=out)
    print(c.summary, file=out)
    print(f"-- {len(c.annotations)} annotation(s), sent {50} per request", file=out)
    for a in c.annotations:
        print(f"  {a.annotation_level} {a.path}:{a.start_line}-{a.end_line} {a.title}: {a.message}", file=out)
    if plan.review is None:
        print("== no review: nothing to suggest on the diff's lines", file=out)
    else:
        print(f"== review on {plan.review.commit_id[:12]} with {len(plan.review.comments)} comment(s)", file=out)
        print(plan.review.body, file=out)
        for cm in plan.review.comments:
            where = f"{cm.start_line}-{cm.line}" if cm.start_line else f"{cm.line}"
            print(f"-- {cm.path}:{where}\n{cm.body}", file=out)
    print("== summary comment (edited in place)", file=out)
    print(plan.summary_comment, file=out)


def run(checkout: Path, *, event: dict | None, base: str | None, head: str | None, dry_run: bool,
        sarif: Path | None, model: str, token: str | None, api_url: str | None, out: TextIO,
        step_summary: Path | None = None, github_output: Path | None = None, verify: bool = True,
        transport=None) -> int:
    """One Action run (or a local dry run with `base`/`head`); returns porter's exit code.
    `transport` replaces the network (tests hand in the fake GitHub's)."""
    if event is not None:
        pr = from_event(event)
    elif base and head:
        pr = PullRequest(number=None, base=_git(checkout, "rev-parse", base).strip(),
                         head=_git(checkout, "rev-parse", head).strip(), repo="", fork=False)
    else:
        raise ValueError("give --event (GITHUB_EVENT_PATH) or both --base and --head")
    if pr.fork and model != "none":
        print("fork pull request: no model (read-only token, no secrets); deterministic rules only", file=out)
        model = "none"
    diffs = from_git_diff(_git(checkout, "diff", "--no-color", "--no-ext-diff", "-M", pr.base, pr.head))
    options = PortOptions(verify=verify, model=ModelOptions(spec=model))
    with tempfile.TemporaryDirectory(prefix="porter-pr-") as tmp:
        head_tree = export_head(checkout, pr.head, Path(tmp) / "head")
        analysis = analyze(head_tree, diffs, pr.head, Path(tmp) / "work", options, pr_number=pr.number)
        plan = analysis.plan
        if sarif is not None and plan.sarif:
            # The SARIF names the exported head tree's paths relative to SRCROOT; point it at the checkout.
            text = plan.sarif.replace(json.dumps(head_tree.resolve().as_uri() + "/")[1:-1],
                                      json.dumps(checkout.resolve().as_uri() + "/")[1:-1])
            sarif.write_text(text, encoding="utf-8")
    if github_output is not None and sarif is not None:
        with github_output.open("a") as fh:
            fh.write(f"sarif={sarif}\nexit-code={plan.exit_code}\nconclusion={plan.check_run.conclusion}\n")
    if dry_run:
        render_dry_run(plan, out)
        return plan.exit_code
    if pr.fork or not token or pr.number is None:
        why = ("fork pull request: read-only token" if pr.fork else
               "no GITHUB_TOKEN" if not token else "no pull request")
        print(f"{why}: posting nothing; annotations as workflow commands, summary in the job summary", file=out)
        for a in plan.check_run.annotations:
            print(workflow_command(a), file=out)
        if step_summary is not None:
            with step_summary.open("a", encoding="utf-8") as fh:
                fh.write(plan.summary_comment + "\n\n" + plan.check_run.summary + "\n")
        return plan.exit_code
    from porter.github.publish import Repo, client

    posted = Repo(client(token, base_url=api_url, transport=transport), pr.repo).publish(plan, pr.number)
    print(f"check run {posted.check_run_id} ({plan.check_run.conclusion}), review {posted.review_id}, "
          f"summary comment {posted.comment_id}", file=out)
    return plan.exit_code


def env_paths() -> tuple[Path | None, Path | None]:
    """$GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT, where the runner sets them."""
    return tuple(Path(os.environ[k]) if os.environ.get(k) else None  # type: ignore[return-value]
                 for k in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"))
