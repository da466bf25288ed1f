"""What porter posts on a pull request, computed before anything is posted: the Plan.

One check run per PR head (conclusion from porter's exit code, annotations for open hazards on
the lines the change added, the markdown report with the verifier's evidence as its text), one
review holding ```suggestion blocks for the fixes `porter.github.suggest` offers whose lines lie
in one hunk of the diff (the rest become annotations: GitHub rejects a whole review with 422 for
one comment outside the diff), and one summary comment that the next run edits in place.

Everything here is a pure function of the Report, the suggestions and the parsed diff, so
`porter github --dry-run` prints exactly what a live run would send. GitHub's limits are kept
here: text fields under 65,535 characters; annotations are sent 50 per request by the publisher.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from porter import rules as rule_catalog
from porter.github.diff import FileDiff
from porter.github.suggest import Suggestion
from porter.report.model import Report
from porter.state import Finding, Severity

CHECK_NAME = "porter"
SUMMARY_MARKER = "<!-- porter:summary -->"
REVIEW_MARKER = "<!-- porter:review -->"
MAX_FIELD = 65_535  # GitHub's limit on a check run's summary/text, a comment or review body
MAX_TITLE = 255
ANNOTATIONS_PER_REQUEST = 50
COMMANDS = (
    ("/porter port [paths]", "push the full port of the change (or of PATHS) to a branch `porter/pr-N`"),
    ("/porter verify", "run again, compiling the port for the target (and running it where an executor is set)"),
    ("/porter explain RULE", "reply with a rule's documentation, e.g. `/porter explain WAVE003`"),
    ("/porter retry", "run the last job of this pull request again"),
    ("/porter stop", "stop this pull request's queued and running jobs"),
    ("/porter help", "reply with this list"),
)


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Annotation(_Part):
    path: str
    start_line: int
    end_line: int
    annotation_level: Literal["notice", "warning", "failure"]
    message: str
    title: str = ""
    raw_details: str = ""


class CheckRunPlan(_Part):
    name: str = CHECK_NAME
    head_sha: str
    conclusion: Literal["success", "failure", "neutral"]
    title: str
    summary: str
    text: str
    annotations: list[Annotation]


class ReviewComment(_Part):
    path: str
    line: int
    start_line: int | None = None
    side: Literal["RIGHT"] = "RIGHT"
    body: str


class ReviewPlan(_Part):
    commit_id: str
    body: str
    comments: list[ReviewComment]


class Plan(_Part):
    """Everything one run posts. `review` is None when there is nothing to suggest."""

    head_sha: str
    exit_code: int
    ported: bool  # False: the change touches nothing porter ports (then no new comment is opened)
    check_run: CheckRunPlan
    review: ReviewPlan | None
    summary_comment: str
    sarif: str = ""
    notes: list[str] = []


def fit(text: str, limit: int = MAX_FIELD) -> str:
    """`text` cut to GitHub's field limit, saying where it was cut."""
    if len(text) <= limit:
        return text
    tail = "\n\n… cut here: GitHub takes at most 65,535 characters; the full report is in porter-report.md.\n"
    return text[: limit - len(tail)] + tail


def conclusion(exit_code: int, report: Report | None) -> Literal["success", "failure", "neutral"]:
    """porter's exit code as a check conclusion: 0 passes; 1 fails, except that a run whose only
    cause is units porter could not check (no compiler on this host) is neutral, not the PR's fault."""
    if exit_code == 0:
        return "success"
    if exit_code == 1 and report is not None and report.blocking and all(
            "not checked" in cause for cause in report.blocking):
        return "neutral"
    return "failure"


def _fence(text: str) -> str:
    longest = 2
    run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * (longest + 1)


def _suggestion_body(s: Suggestion) -> str:
    lines = [f"**porter {', '.join(s.rules)}**: right on NVIDIA and on AMD's 64-lane wavefronts."]
    lines += [f"- {f.rule} (line {f.location.line}): {f.message}" for f in s.findings]
    fence = _fence(s.text)
    lines += ["", f"{fence}suggestion", s.text, fence]
    return "\n".join(lines)


def _finding_annotation(f: Finding) -> Annotation:
    level = "failure" if f.severity is Severity.error else "warning"
    try:
        title = f"{f.rule}: {rule_catalog.get(f.rule).title}"
    except KeyError:
        title = f.rule
    loc = f.location
    return Annotation(path=loc.path, start_line=loc.line, end_line=max(loc.end_line or loc.line, loc.line),
                      annotation_level=level, message=fit(f.message), title=title[:MAX_TITLE],
                      raw_details=fit(f.detail or f.snippet))


def build_plan(*, head_sha: str, report: Report | None, exit_code: int, diffs: dict[str, FileDiff],
               suggestions: list[Suggestion], markdown: str, sarif: str = "", pr_number: int | None = None,
               notes: list[str] | None = None) -> Plan:
    """The plan of one run. `report` is None when the change touches nothing porter ports."""
    notes = list(notes or [])
    comments: list[ReviewComment] = []
    annotations: list[Annotation] = []
    for s in suggestions:
        d = diffs.get(s.path)
        if d is None:
            continue  # a header staged as context, not part of this change
        hunk = d.hunk_for(s.first, s.last) if d.has_patch else None
        if hunk is None:  # GitHub would reject the whole review: the check run carries it instead
            annotations.append(Annotation(
                path=s.path, start_line=s.first, end_line=s.last, annotation_level="notice",
                title=f"porter suggests a change ({', '.join(s.rules)})"[:MAX_TITLE],
                message=fit("; ".join(f"{f.rule}: {f.message}" for f in s.findings) or "suggested change"),
                raw_details=fit(s.text)))
            continue
        comments.append(ReviewComment(path=s.path, line=s.last, start_line=s.first if s.first != s.last else None,
                                      body=fit(_suggestion_body(s))))
    for f in (report.open_findings if report else []):
        if f.location.path in diffs:
            annotations.append(_finding_annotation(f))
    verdict = conclusion(exit_code, report)
    if report is None:
        title = "nothing to port in this change"
    elif report.blocking:
        title = f"{verdict}: " + ", ".join(report.blocking)
    else:
        title = "ported cleanly: every unit compiled, no open hazard"
    summary = _check_summary(report, verdict, len(comments), annotations, notes)
    check = CheckRunPlan(head_sha=head_sha, conclusion=verdict, title=title[:MAX_TITLE], summary=fit(summary),
                         text=fit(markdown), annotations=annotations)
    review = None
    if comments:
        body = (f"{REVIEW_MARKER}\nporter suggests {len(comments)} change{'s' if len(comments) != 1 else ''} "
                "that keep this CUDA right on NVIDIA and make it right on AMD Instinct (64-lane wavefronts, "
                f"gfx950). Each is one click; the check run `{CHECK_NAME}` has the rest.")
        review = ReviewPlan(commit_id=head_sha, body=body, comments=comments)
    return Plan(head_sha=head_sha, exit_code=exit_code, ported=report is not None, check_run=check, review=review,
                summary_comment=fit(_summary_comment(report, verdict, head_sha, len(comments), annotations,
                                                     pr_number)),
                sarif=sarif, notes=notes)


def _check_summary(report: Report | None, verdict: str, n_suggestions: int, annotations: list[Annotation],
                   notes: list[str]) -> str:
    if report is None:
        return "This change touches no CUDA, C++, Triton or build file: porter has nothing to check."
    s = report.summary
    lines = [f"**{verdict}** (porter exit code {report.exit_code})", "",
             "| | |", "|---|---:|",
             f"| files ported | {s.files} |", f"| kernels | {s.kernels} |",
             f"| units compiled for {report.options.arch} | {s.units_compiled} |",
             f"| units failed | {s.units_failed} |", f"| units not checked | {s.units_not_checked} |",
             f"| hazards fixed by the port | {sum(f.fixed for f in report.findings if f.severity is not Severity.info)} |",
             f"| open hazards | {s.open_hazards} |",
             f"| suggestions in the review | {n_suggestions} |",
             f"| annotations | {len(annotations)} |"]
    evidence = [f"- `{u.unit}`: {u.verdict}" + (f" ({u.toolchain})" if u.toolchain else "")
                + (f": {u.reason}" if u.reason else "") + (f"; `{u.error}`" if u.error else "")
                for u in report.units]
    if evidence:
        lines += ["", "**Evidence** (the verifier's verdict per unit):", *evidence]
    if notes:
        lines += ["", *[f"- {n}" for n in notes]]
    return "\n".join(lines)


def _summary_comment(report: Report | None, verdict: str, head_sha: str, n_suggestions: int,
                     annotations: list[Annotation], pr_number: int | None) -> str:
    icon = {"success": "✅", "failure": "❌", "neutral": "➖"}[verdict]
    lines = [SUMMARY_MARKER, f"### {icon} porter: {verdict} at {head_sha[:7]}", ""]
    if report is None:
        lines.append("This change touches no CUDA, C++, Triton or build file.")
    else:
        s = report.summary
        fixed = sum(f.fixed for f in report.findings if f.severity is not Severity.info)
        lines.append(f"{s.files} file{'s' if s.files != 1 else ''} checked for {report.options.arch}: "
                     f"{s.units_compiled} unit(s) compiled, {s.units_failed} failed, {s.units_not_checked} not checked; "
                     f"{fixed} hazard(s) the port fixes, {s.open_hazards} open; "
                     f"{n_suggestions} suggestion(s) in the review, {len(annotations)} annotation(s) "
                     f"in the check run `{CHECK_NAME}`.")
        if report.blocking:
            lines.append("")
            lines.append("Why it does not pass: " + ", ".join(report.blocking) + ".")
    branch = f"`porter/pr-{pr_number}`" if pr_number is not None else "a branch"
    lines += ["", "<details><summary>Commands (comment on the first line; needs write permission)</summary>", ""]
    lines += [f"- `{cmd}`: {what}".replace("a branch `porter/pr-N`", branch) for cmd, what in COMMANDS]
    lines += ["", "</details>", "", "This comment is edited in place on every run; porter pushes nothing unasked."]
    return "\n".join(lines)


def help_text() -> str:
    return "\n".join(["porter's commands (first line of a new comment; write permission needed):", "",
                      *[f"- `{cmd}`: {what}" for cmd, what in COMMANDS]])
