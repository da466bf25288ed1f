"""`porter session`'s terminal client: a REPL on prompt_toolkit (input) and rich (output).

One client of porter.session.controller.Session: it shows what the graph waits for (a patch
as a rich diff with its rule ids, why and fix safety; a verifier verdict that routes back),
reads one line, and maps it to one controller call. Bad input gets one line saying why and the
prompt again; Ctrl-C stops the step running, not the session; /quit leaves everything
checkpointed for `porter session --resume`.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table

from porter.session.commands import PATCH_KEYS, ROUTE_KEYS, help_text
from porter.session.controller import Session, SessionError, Step
from porter.session.state import APPROVALS, Decision

MARK = {"accepted": "[green]accepted[/]", "edited": "[cyan]edited[/]", "auto": "[green]landed[/]",
        "rejected": "[red]rejected[/]", "stale": "[yellow]no longer applies[/]", "proposed": "[blue]proposed[/]",
        "undone": "[magenta]undone[/]", "routed": "[cyan]routed[/]", "stopped": "[yellow]stopped[/]"}

Reader = Callable[[str], str]  # shows the prompt, returns one line; EOFError at the end, KeyboardInterrupt on Ctrl-C


def prompt_reader(pt_input=None, pt_output=None) -> Reader:
    """prompt_toolkit's line editor (history, Ctrl-C as KeyboardInterrupt); pipe input in tests."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import InMemoryHistory

    session: PromptSession = PromptSession(history=InMemoryHistory(), input=pt_input, output=pt_output)
    return lambda message: session.prompt(message)


def line_reader(stream: TextIO, echo: Console | None = None) -> Reader:
    """Plain lines from a stream that is not a terminal (answers piped in from a file); with
    `echo`, each prompt and answer is printed there, so the output reads as a transcript."""
    def read(message: str) -> str:
        line = stream.readline()
        if not line:
            raise EOFError
        if echo is not None:
            echo.print(f"{message}{line.rstrip()}", markup=False, highlight=False)
        return line.rstrip("\n")
    return read


class Repl:
    def __init__(self, session: Session, console: Console, read: Reader) -> None:
        self.s = session
        self.out = console
        self.read = read

    def run(self) -> int:
        """Drive the session until it finishes (exit code of its report) or the person quits (0)."""
        self.out.print(f"porter session [bold]{self.s.run_id}[/] in {escape(str(self.s.output))} "
                       f"(approvals: {self.s.state.approvals}; /help lists the commands)")
        self._do(self.s.advance)
        code: int | None = None
        while True:
            if code is None and self.s.finished:
                code = self._finish()
            try:
                line = self.read(self._prompt())
            except EOFError:
                return self._quit(code)
            except KeyboardInterrupt:
                self.out.print("[dim](Ctrl-C cancels a running step; /quit leaves the session)[/]")
                continue
            if self.handle(line.strip()) == "quit":
                return self._quit(code)

    def _prompt(self) -> str:
        pending = self.s.pending
        if pending is None:
            return "porter (finished)> " if self.s.finished else "porter> "
        if pending["kind"] == "patch":
            return f"[{pending['path']} {pending['index']}/{pending['of']}] a/r/e/A/? > "
        return f"[verifier -> {pending['route']}] a/s/? > "

    def handle(self, line: str) -> str | None:
        if not line:
            self._show_pending()
            return None
        if line.startswith("/"):
            name, _, arg = line.partition(" ")
            return self._command(name, arg.strip())
        pending = self.s.pending
        if pending is None:
            self._say(f"{line!r}: no decision is pending" + ("; the run is finished" if self.s.finished
                                                             else "; /next runs on") + " (/help lists commands)")
            return None
        keys = PATCH_KEYS if pending["kind"] == "patch" else ROUTE_KEYS
        if line not in keys and not (pending["kind"] == "route" and line == "r"):
            self._say(f"{line!r}: expected one of {', '.join(keys)} (or a /command)")
            return None
        if line == "?":
            self._explain_pending(pending)
        elif pending["kind"] == "route":
            self._do(self.s.go_on if line == "a" else self.s.stop)
        elif line == "a":
            self._do(self.s.accept)
        elif line == "r":
            self._do(self.s.reject)
        elif line == "A":
            self._do(self.s.accept_unit)
        else:
            self._edit(pending)
        return None

    def _command(self, name: str, arg: str) -> str | None:
        if name == "/quit":
            return "quit"
        if name == "/help":
            self.out.print(escape(help_text()))
        elif name == "/status":
            self._status()
        elif name == "/next":
            if self.s.pending is not None:
                self._show_pending()
            else:
                self._do(self.s.advance)
        elif name == "/undo":
            self._do(self.s.undo)
            if self.s.finished:
                self.out.print("[dim]the report predates this undo; /verify re-checks the tree[/]")
        elif name == "/ask":
            self._guard(lambda: self.out.print(escape(self.s.ask(arg))))
        elif name == "/evidence":
            self._guard(lambda: self._evidence(arg or self.s.current_unit() or ""))
        elif name == "/verify":
            self._guard(lambda: self._verify(arg or None))
        elif name == "/explain":
            self._explain(arg)
        elif name == "/approvals":
            if arg not in APPROVALS:
                self._say(f"/approvals {arg}: expected one of {', '.join(APPROVALS)}".rstrip())
            else:
                self._do(lambda: self.s.set_approvals(arg))
                self.out.print(f"approvals: {arg}")
        else:
            self._say(f"unknown command {name!r}: /help lists them")
        return None

    # -- running controller calls

    def _guard(self, call: Callable[[], object]) -> None:
        try:
            call()
        except SessionError as e:
            self._say(str(e))
        except KeyboardInterrupt:
            self.out.print("[yellow]cancelled[/]: the step stopped; the session is where it was (/next runs on)")

    def _do(self, action: Callable[[], Step]) -> None:
        def run() -> None:
            self._show_step(action())
        self._guard(run)

    def _say(self, message: str) -> None:
        self.out.print(f"[red]![/] {escape(message)}")

    # -- rendering

    def _show_step(self, step: Step) -> None:
        for d in step.decisions:
            self._decision(d)
        for note in step.notes:
            self.out.print(f"[dim]note: {escape(note)}[/]")
        if step.pending is not None:
            self._show(step.pending)

    def _decision(self, d: Decision) -> None:
        what = f"{d.rule or d.agent} on {d.path}" if d.path else d.agent
        ledger = f" (ledger {d.seq})" if d.seq is not None else ""
        self.out.print(f"  {MARK.get(d.action, d.action)} {escape(what)}{ledger}: {escape(d.detail)}")
        if d.diff:
            self.out.print(Syntax(d.diff, "diff", theme="ansi_dark", background_color="default"))

    def _show_pending(self) -> None:
        pending = self.s.pending
        if pending is None:
            self.out.print("nothing pending" + (": the run is finished" if self.s.finished else "; /next runs on"))
        else:
            self._show(pending)

    def _show(self, p: dict) -> None:
        for note in p.get("notes", []):
            self.out.print(f"[yellow]note:[/] {escape(note)}")
        if p["kind"] == "route":
            self.out.rule(f"verifier, after round {p['iteration']} of {p['max_iterations']}")
            for f in p["failed"]:
                self.out.print(f"  [red]{escape(f['unit'])}[/] {escape(f['failure_class'])}: {escape(f['reason'])}")
            self.out.print(f"The verifier would send {len(p['failed'])} unit(s) back to [bold]{p['route']}[/].")
            return
        rules = ", ".join(p["rules"]) or p["origin"]
        self.out.rule(f"{p['agent']} · {escape(p['path'])} · {p['index']}/{p['of']} · {rules} ({p['origin']})")
        self.out.print(f"[bold]{escape(p['reason'])}[/]")
        if p["why"]:
            self.out.print(f"[dim]why:[/] {escape(_first_line(p['why']))}")
        if p["safety"]:
            self.out.print(f"[dim]fix safety:[/] {escape(_first_line(p['safety']))}")
        self.out.print(Syntax(p["diff"], "diff", theme="ansi_dark", background_color="default"))

    def _explain_pending(self, p: dict) -> None:
        if p["kind"] == "route":
            self.out.print("a: the units go back to the agent owning their failure class for round "
                           f"{p['iteration'] + 1} of {p['max_iterations']}; s: the loop ends here and the report "
                           "says what still fails")
            return
        self.out.print(escape(p["why"] or p["reason"]))
        if p["safety"]:
            self.out.print(f"[bold]fix safety[/]\n{escape(p['safety'])}")
        for rule_id in p["rules"]:
            self.out.print(f"[dim](/explain {rule_id} for the whole rule)[/]")

    def _explain(self, rule_id: str) -> None:
        from porter import rules

        if not rule_id:
            self._say("/explain needs a rule id, e.g. /explain WAVE003")
            return
        try:
            r = rules.get(rule_id)
        except KeyError as e:
            self._say(str(e.args[0]))
            return
        self.out.print(f"[bold]{r.id}[/] ({r.agent}, {r.severity.value}, fix: {r.fix})  {r.module}")
        self.out.print(r.doc.strip(), markup=False, highlight=False)

    def _edit(self, p: dict) -> None:
        editor = shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
        with tempfile.TemporaryDirectory(prefix="porter-edit-") as tmp:
            path = Path(tmp) / Path(p["path"]).name
            path.write_text(p["proposed"])
            try:
                rc = subprocess.run([*editor, str(path)], check=False).returncode
            except FileNotFoundError:
                self._say(f"editor {editor[0]!r} not found: set $EDITOR")
                return
            if rc != 0:
                self._say(f"the editor exited with {rc}: nothing changed")
                return
            text = path.read_text()
        self._do(lambda: self.s.edit(text))

    def _status(self) -> None:
        st = self.s.status()
        where = "finished" if st["finished"] else (", ".join(st["next"]) or "not started")
        self.out.print(f"run {st['run_id']} · iteration {st['iteration']} · at {where} · approvals {st['approvals']}"
                       + (" · git" if st["git"] else ""))
        table = Table(title="units")
        table.add_column("unit")
        table.add_column("verdict")
        for unit, verdict in st["units"].items():
            table.add_row(unit, verdict)
        self.out.print(table)
        counts = ", ".join(f"{n} {a}" for a, n in st["decisions"].items() if n)
        self.out.print(f"decisions: {counts or 'none yet'}; {st['landed']} patch(es) landed"
                       + (f", last {escape(st['last_landed'])}" if st["last_landed"] else "")
                       + (f"; {st['queued']} item(s) waiting" if st["queued"] else ""))
        self.out.print(f"open hazards: {len(st['hazards'])}")
        for h in st["hazards"][:20]:
            self.out.print(f"  {escape(h)}")

    def _evidence(self, unit: str) -> None:
        if not unit:
            raise SessionError("/evidence needs a unit")
        r = self.s.evidence(unit)
        self.out.print(f"[bold]{escape(unit)}[/]: {r.verdict}" + (f" ({escape(r.reason)})" if r.reason else ""))
        if r.port_build is not None:
            log = (r.port_build.stderr or r.port_build.stdout).strip()
            self.out.print(f"[dim]compile ({r.port_build.toolchain}, rc {r.port_build.rc}, "
                           f"{r.port_build.seconds:.1f} s):[/] {escape(' '.join(r.port_build.cmd))}")
            if log:
                self.out.print(escape("\n".join(log.splitlines()[-30:])))
        if r.kernels:
            table = Table(title="ISA (compiler's resource usage)")
            for col in ("kernel", "arch", "VGPR", "AGPR", "SGPR", "LDS B", "scratch B", "spills", "occupancy", "MFMA"):
                table.add_column(col)
            for k in r.kernels:
                table.add_row(k.kernel, k.arch, str(k.vgprs), str(k.agprs), str(k.sgprs), str(k.lds_bytes),
                              str(k.scratch_bytes), str(k.vgpr_spill + k.sgpr_spill), str(k.occupancy),
                              str(k.mfma_count))
            self.out.print(table)
        for c in r.checks:
            err = f" max abs err {c.max_abs_error:g}" if c.max_abs_error is not None else ""
            self.out.print(f"numerics {c.kernel} ({c.executor}): {c.status}{err} {escape(c.reason)}".rstrip())
        for e in r.estimates:
            self.out.print(f"perf {e.kernel}: {e.verdict} {e.label}"
                           + (f", {e.ratio:.2f}x the baseline" if e.ratio is not None else ""))
        if not (r.kernels or r.checks or r.estimates):
            self.out.print("[dim]no ISA table, numerics or estimate recorded for this unit[/]")

    def _verify(self, unit: str | None) -> None:
        self.out.print("[dim]verifying...[/]")
        results = self.s.verify(unit)
        table = Table(title="verify now")
        for col in ("unit", "verdict", "reason"):
            table.add_column(col)
        for u, r in results.items():
            table.add_row(u, r.verdict, r.reason or r.failure_class)
        self.out.print(table)

    def _quit(self, code: int | None) -> int:
        """Leave: the report's exit code when the run finished, else 0 (everything is checkpointed)."""
        if code is not None:
            return code
        self.out.print(f"checkpointed. Resume with: porter session --resume {self.s.run_id} {self.s.output}")
        return 0

    def _finish(self) -> int:
        from porter.graph import report_context
        from porter.report import build_report
        from porter.report.console import render_console

        report = build_report(self.s.state, **report_context())
        render_console(report, self.out)
        self.out.print(f"session {self.s.run_id} finished; /evidence, /verify and /undo still work, /quit leaves")
        return report.exit_code


def _first_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0] + (" (? for more)" if len(lines) > 1 else "") if lines else ""
