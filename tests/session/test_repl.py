"""An interactive session driven through its REPL: prompt_toolkit's pipe input, a dummy output.

One session on fixtures/wave_seeded accepts patches, rejects one, edits one in $EDITOR, undoes
one, asks the (scripted) model, quits, and is resumed by `porter session --resume` in a new
process, which finishes the port. The output tree and the ledger say exactly what was decided.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from porter.llm.scripted import ScriptedModel
from porter.session.controller import Session
from porter.session.repl import Repl, prompt_reader
from porter.state import PortOptions

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SEEDED = FIXTURES / "wave_seeded"
PORTER = Path(sys.executable).with_name("porter")
EDITOR = """import sys
from pathlib import Path
path = Path(sys.argv[1])
path.write_text(path.read_text().replace("offset = warpSize / 2;", "offset = warpSize >> 1;"))
"""
ANSWER = "The ballot is 64 bits wide on a 64-lane wavefront, so `unsigned` drops lanes 32-63."


def drive(session: Session, lines: list[str]) -> tuple[int, str]:
    """Run the REPL on `lines` typed one after another; return its exit code and what it printed."""
    console = Console(file=io.StringIO(), width=120, color_system=None)
    with create_pipe_input() as pipe:
        pipe.send_text("".join(line + "\n" for line in lines))
        pipe.close()  # then the end of input: a REPL still asking gets EOF, not a hang
        code = Repl(session, console, prompt_reader(pipe, DummyOutput())).run()
    return code, console.file.getvalue()


def ledger(out: Path) -> list[tuple[str, str, str]]:
    rows = [json.loads(line) for line in (out / ".porter" / "ledger.jsonl").read_text().splitlines()]
    return [(r["kind"], r["patch"]["origin"], r["patch"]["rule"]) for r in rows]


def test_review_edit_undo_quit_and_resume_in_a_new_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    monkeypatch.delenv("VISUAL", raising=False)
    out = tmp_path / "out"
    source_before = (SEEDED / "seeded.cu").read_bytes()
    model = ScriptedModel([ANSWER])
    session = Session.start(SEEDED, out, PortOptions(verify=False), provider=model)
    with session:
        code, text = drive(session, [
            "a",  # HIP002: the runtime header
            "x",  # bad input: a reason, then the prompt again
            "a",  # HIP001: the API renames
            "e",  # WAVE002: the butterfly start, edited to `warpSize >> 1`
            "r",  # WAVE006: the all-lanes masks, rejected
            "a",  # WAVE003: the lane, accepted ...
            "/undo",  # ... undone, and proposed again ...
            "r",  # ... and rejected; WAVE004 is next
            "/ask why does the ballot need 64 bits?",
            "/explain WAVE004",
            "/frobnicate",
            "/status",
            "/quit",
        ])
        run_id = session.run_id
    assert code == 0
    assert "HIP002" in text and "+#include <hip/hip_runtime.h>" in text  # a diff with its rule id
    assert "'x': expected one of a, r, e, A, ?" in text
    assert "unknown command '/frobnicate'" in text
    assert ANSWER in text
    assert [p.task for p in model.prompts] == ["session/ask"]
    assert "why does the ballot need 64 bits?" in model.prompts[0].messages[0].content
    assert "WAVE004 (microarch" in text and "undone WAVE003 on seeded.cu (ledger 3)" in text
    assert text.count("· WAVE003 (rule)") == 2  # proposed again after the undo
    assert f"porter session --resume {run_id}" in text
    assert ledger(out) == [("apply", "rule", "HIP002"), ("apply", "rule", "HIP001"), ("apply", "user", "WAVE002"),
                           ("apply", "rule", "WAVE003"), ("revert", "rule", "WAVE003")]

    # A new process continues exactly at WAVE004, reading answers from a pipe.
    done = subprocess.run([str(PORTER), "session", "--resume", run_id, str(out)],
                          input="/status\nA\n", capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "120"})
    assert "seeded.cu · 4/4 · WAVE004" in done.stdout, done.stdout + done.stderr
    assert f"session {run_id} finished" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 1  # verification was off: the unit is not checked, which needs a person

    ported = (out / "seeded.cu").read_text()
    assert "#include <hip/hip_runtime.h>" in ported and "hipMalloc" in ported  # accepted
    assert "offset = warpSize >> 1;" in ported  # the person's edit
    assert "__shfl_xor_sync(__activemask(), v, offset)" in ported  # WAVE006 rejected
    assert "threadIdx.x & 31" in ported  # WAVE003 undone, then rejected
    assert "unsigned long long votes" in ported and "__popcll(votes)" in ported  # WAVE004, after the resume
    assert ledger(out)[5:] == [("apply", "rule", "WAVE004")]
    assert (SEEDED / "seeded.cu").read_bytes() == source_before
    with Session.resume(run_id, out) as again:
        actions = [(d.action, d.rule) for d in again.state.decisions]
        assert again.finished
    assert actions == [("accepted", "HIP002"), ("accepted", "HIP001"), ("edited", "WAVE002"),
                       ("rejected", "WAVE006"), ("accepted", "WAVE003"), ("undone", "WAVE003"),
                       ("rejected", "WAVE003"), ("accepted", "WAVE004")]
    report = json.loads((out / "porter-report.json").read_text())
    assert any(step["origin"] == "user" for change in report["changes"] for step in change["steps"])
