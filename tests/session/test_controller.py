"""The session controller as a Python API: approval modes, git commits and undo, Ctrl-C, routing."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from porter.run import port
from porter.session.controller import Session, SessionError
from porter.session.repl import Repl, prompt_reader
from porter.state import PortOptions
from porter.workspace import BadInput

SEEDED = Path(__file__).resolve().parents[2] / "fixtures" / "wave_seeded"
OFF = PortOptions(verify=False)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def kinds(out: Path) -> list[str]:
    return [json.loads(line)["kind"] for line in (out / ".porter" / "ledger.jsonl").read_text().splitlines()]


def test_auto_verified_lands_what_porter_port_lands_and_plan_lands_nothing(tmp_path: Path) -> None:
    ported = port(SEEDED, tmp_path / "port", OFF)
    with pytest.raises(BadInput, match="is a `porter port` run, not a session"):
        Session.resume(ported.run_id, tmp_path / "port")
    with Session.start(SEEDED, tmp_path / "auto", OFF, approvals="auto-verified") as s:
        step = s.advance()
        assert step.finished and step.pending is None
        assert {d.action for d in s.state.decisions} == {"auto"}
    assert (tmp_path / "auto" / "seeded.cu").read_bytes() == (tmp_path / "port" / "seeded.cu").read_bytes()

    with Session.start(SEEDED, tmp_path / "plan", OFF, approvals="plan") as s:
        step = s.advance()
        assert step.finished
        proposed = [d for d in s.state.decisions if d.action == "proposed"]
        assert [d.rule for d in proposed] == ["HIP002", "HIP001", "WAVE002", "WAVE006", "WAVE003", "WAVE004"]
        assert all(d.diff.startswith("--- a/seeded.cu") for d in proposed)
        assert all(not f.fixed for f in s.state.findings if f.rule.startswith("WAVE"))
    assert (tmp_path / "plan" / "seeded.cu").read_bytes() == (SEEDED / "seeded.cu").read_bytes()
    assert not (tmp_path / "plan" / ".porter" / "ledger.jsonl").exists()


def test_switching_approvals_at_a_decision_lands_the_rest(tmp_path: Path) -> None:
    with Session.start(SEEDED, tmp_path / "out", OFF) as s:
        step = s.advance()
        assert step.pending["kind"] == "patch" and step.pending["rule"] == "HIP002"
        with pytest.raises(SessionError, match="a \\(go on\\) or s|a, r, e, A or \\?|no decision"):
            s.go_on()
        s.reject()
        step = s.set_approvals("auto-verified")
        assert step.finished
        assert [d.action for d in s.state.decisions] == ["rejected", "auto", "auto", "auto", "auto", "auto"]
    assert "#include <cuda_runtime.h>" in (tmp_path / "out" / "seeded.cu").read_text()


def test_git_commits_each_reviewed_unit_and_undo_drops_only_porters_unpushed_commit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    git(out, "init", "-q")
    with Session.start(SEEDED, out, OFF) as s:
        assert s.state.git  # OUT is the top of a work tree
        s.advance()
        s.accept_unit()  # the translator's items
        step = s.accept_unit()  # the microarch agent's
        assert step.finished
        log = git(out, "log", "--format=%an|%s").splitlines()
        assert log == ["porter|porter microarch: seeded.cu (WAVE002, WAVE003, WAVE004, WAVE006)",
                       "porter|porter translator: seeded.cu (HIP001, HIP002)",
                       "porter|porter: copy of wave_seeded (session " + s.run_id + ")"]
        assert "Porter-Ledger: 2 3 4 5" in git(out, "log", "-1", "--format=%B")
        assert git(out, "status", "--porcelain", "--untracked-files=all").splitlines() == [
            "?? porter-report.json", "?? porter-report.md", "?? porter-report.sarif"]
        after_translator = git(out, "show", "HEAD~1:seeded.cu")

        s.undo()  # the microarch commit: its four patches through the ledger, then the commit
        assert (out / "seeded.cu").read_text() == after_translator
        assert kinds(out) == ["apply"] * 6 + ["revert"] * 4
        assert len(git(out, "log", "--format=%H").splitlines()) == 2

        remote = tmp_path / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
        git(out, "remote", "add", "origin", str(remote))
        git(out, "push", "-q", "origin", "HEAD:refs/heads/main")
        git(out, "fetch", "-q", "origin")
        with pytest.raises(SessionError, match="pushed"):
            s.undo()
        assert kinds(out) == ["apply"] * 6 + ["revert"] * 4


def test_ctrl_c_cancels_the_running_step_and_next_runs_it_again(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from porter.agents.verifier import node as verifier

    real, calls = verifier.verifier, []

    def interrupted_once(state, ws):
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(state, ws)

    monkeypatch.setattr(verifier, "verifier", interrupted_once)
    console = Console(file=io.StringIO(), width=120, color_system=None)
    with Session.start(SEEDED, tmp_path / "out", OFF, approvals="auto-verified") as s, create_pipe_input() as pipe:
        pipe.send_text("/status\n/next\n/quit\n")
        pipe.close()  # then the end of input: a REPL still asking gets EOF, not a hang
        code = Repl(s, console, prompt_reader(pipe, DummyOutput())).run()
        assert s.finished
    text = console.file.getvalue()
    assert "cancelled" in text and "at verifier" in text and f"session {s.run_id} finished" in text
    assert len(calls) == 2 and code == 1


@pytest.mark.toolchain("clang")
def test_a_verdict_that_routes_back_waits_for_a_person(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "bad.cu").write_text("__global__ void k(float* p) { p[0] = not_declared_anywhere(p); }\n")
    with Session.start(src, tmp_path / "out", PortOptions(), approvals="auto-verified") as s:
        step = s.advance()
        assert step.pending["kind"] == "route"
        assert [f["unit"] for f in step.pending["failed"]] == ["bad.cu"]
        with pytest.raises(SessionError, match="route decision"):
            s.reject()
        step = s.stop()
        assert step.finished
        assert any("a person ended the verifier loop at iteration 1" in n for n in s.state.notes)
        assert s.state.decisions[-1].action == "stopped"


@pytest.mark.toolchain("clang")
def test_model_patches_are_reviewed_like_rule_patches_and_ask_edits_nothing(tmp_path: Path) -> None:
    from porter.llm import ScriptedModel

    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("#include <cuda_runtime.h>\n\n__global__ void scale(float* x, float a) "
                              "{ x[threadIdx.x] *= a; }\n\nvoid run(float* x) {\n  scale<<<1, 64>>>(x, 2.0f);\n"
                              "  cudaFooBar(x);\n}\n")

    def edit(search: str, replace: str, why: str) -> str:
        return f"{why}\n\nk.cu\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"

    script = ScriptedModel([edit("  cudaFooBar(x);\n", "  hipDeviceSynchronize()\n", "cudaFooBar waits."),
                            edit("  hipDeviceSynchronize()\n", "  (void)hipDeviceSynchronize();\n", "Semicolon."),
                            "Nothing in k.cu depends on the wavefront size."])
    with Session.start(src, tmp_path / "out", PortOptions(), provider=script) as s:
        step = s.advance()
        seen = []
        while step.pending is not None:
            p = step.pending
            seen.append((p["kind"], p.get("origin"), p.get("rule")))
            if p["kind"] == "patch" and p["rule"] == "HIP002":
                step = s.reject()  # the model's patch, written after it, is carried onto the file without it
            elif p["kind"] == "route" and p["iteration"] == 2:
                step = s.stop()  # the header is still CUDA's: the person ends the loop
            else:
                step = s.accept()
        assert seen == [("patch", "rule", "HIP002"), ("patch", "model", "MODEL"), ("route", None, None),
                        ("patch", "model", "MODEL"), ("route", None, None)]
        assert s.state.units["k.cu"].failure_class == "header-not-found"
        # the verifier still judges an accepted model patch: the second left the unit no better
        assert [a.reverted for a in s.state.attempts if a.reverted] == ["model"]
        before = (tmp_path / "out" / "k.cu").read_bytes()
        assert "wavefront" in s.ask("does the kernel depend on the wave size?", "k.cu")
        assert (tmp_path / "out" / "k.cu").read_bytes() == before
        assert script.prompts[-1].task == "session/ask" and script.left == 0
    ported = (tmp_path / "out" / "k.cu").read_text()
    assert ported.startswith("#include <cuda_runtime.h>") and "  hipDeviceSynchronize()\n}" in ported
