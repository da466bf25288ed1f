"""`porter port` end to end through the graph: golden trees, the source left alone, bad input, resume."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from porter.run import port, run_ids
from porter.state import FileKind, PortOptions
from porter.workspace import BadInput

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
GOLDEN = FIXTURES / "golden"
NOT_PROJECTS = {"golden", "rules", "reports", "toolchains", "hip_on_cuda", "verify"}  # inputs of other tests
PROJECTS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name not in NOT_PROJECTS)
REPORTS = ("porter-report.md", "porter-report.json", "porter-report.sarif")


def tree_digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".porter" not in p.relative_to(root).parts}


def ported_files(out: Path) -> dict[str, bytes]:
    return {rel: (out / rel).read_bytes() for rel in tree_digest(out) if rel not in REPORTS}


@pytest.mark.parametrize("name", PROJECTS)
def test_port_matches_golden_tree(name: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    source = FIXTURES / name
    before = tree_digest(source)
    out = tmp_path / name
    state = port(source, out, PortOptions(verify=False))
    assert tree_digest(source) == before, "the source tree was modified"
    for report in REPORTS:
        assert (out / report).is_file()
    got = ported_files(out)
    golden = GOLDEN / name
    if request.config.getoption("--update-goldens"):
        shutil.rmtree(golden, ignore_errors=True)
        for rel, data in got.items():
            (golden / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden / rel).write_bytes(data)
    want = {rel: (golden / rel).read_bytes() for rel in tree_digest(golden)}
    assert sorted(got) == sorted(want)
    for rel in want:
        assert got[rel].decode() == want[rel].decode(), f"{name}/{rel} differs from its golden port"
    assert state.patches, "nothing was ported"
    assert {u.verdict for u in state.units.values()} == {"not-checked"}


def test_bad_input_is_copied_flagged_and_translated(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "blob.bin").write_bytes(b"\x00\x01cudaMalloc\xff")
    (src / "latin1.cu").write_bytes("// caf\xe9\nint x;\n".encode("latin-1"))
    (src / "broken.cu").write_text("__global__ void k( {\n  cudaMalloc(&p, 4);\n")
    outside = tmp_path / "outside.h"
    outside.write_text("cudaFree(p);\n")
    (src / "link.h").symlink_to(outside)
    out = tmp_path / "out"
    state = port(src, out, PortOptions(verify=False))
    kinds = {f.path: f for f in state.files}
    assert (out / "blob.bin").read_bytes() == (src / "blob.bin").read_bytes()
    assert (out / "latin1.cu").read_bytes() == (src / "latin1.cu").read_bytes()
    assert kinds["blob.bin"].kind == FileKind.binary and "NUL" in kinds["blob.bin"].note
    # Latin-1 is text (issue 14): ported through its UTF-8 view, its bytes kept
    assert kinds["latin1.cu"].kind == FileKind.cuda and kinds["latin1.cu"].encoding == "cp1252"
    assert not kinds["blob.bin"].unported  # not a source file: copying it is all porter owes it
    assert not kinds["broken.cu"].parsed and "token by token" in kinds["broken.cu"].note
    assert "hipMalloc(&p, 4);" in (out / "broken.cu").read_text()
    assert not (out / "link.h").exists()
    assert any("link.h" in n and "leaves the source tree" in n for n in state.notes)


def test_output_inside_source_or_not_empty_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "reduce", src)
    with pytest.raises(BadInput, match="inside the source"):
        port(src, src / "out", PortOptions(verify=False))
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(BadInput, match="not empty"):
        port(src, out, PortOptions(verify=False))
    assert (out / "notes.txt").read_text() == "mine"


def test_resume_continues_an_interrupted_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from porter.agents.verifier import node as verifier

    real = verifier.verifier
    calls = {"n": 0}

    def crash_once(state, ws):
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt("interrupted")
        return real(state, ws)

    monkeypatch.setattr(verifier, "verifier", crash_once)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        port(FIXTURES / "reduce", out, PortOptions(verify=False))
    assert not (out / "porter-report.md").exists()
    (run_id,) = run_ids(out)
    state = port(FIXTURES / "reduce", out, PortOptions(verify=False), resume=run_id)
    assert state.run_id == run_id and (out / "porter-report.md").is_file()
    assert calls["n"] == 2
    # the translator's patches landed once, before the interruption, and were not re-applied
    assert len({p.path for p in state.patches if p.agent == "translator"}) == len(
        [p for p in state.patches if p.agent == "translator"])
    with pytest.raises(BadInput, match="no run"):
        port(FIXTURES / "reduce", out, PortOptions(verify=False), resume="nope")


def test_the_state_a_port_returns_is_its_last_checkpoint(tmp_path: Path) -> None:
    """port() takes the final state from the graph's stream (reading a 1,000-file port's last
    checkpoint back took seconds); it is the checkpoint's, and a finished run resumed reads it."""
    import sqlite3
    from contextlib import closing

    from langgraph.checkpoint.sqlite import SqliteSaver

    from porter.graph import build_graph
    from porter.run import CHECKPOINTS, _serde
    from porter.state import PortState

    out = tmp_path / "out"
    state = port(FIXTURES / "reduce", out, PortOptions(verify=False))
    config = {"configurable": {"thread_id": state.run_id}}
    with closing(sqlite3.connect(out / ".porter" / CHECKPOINTS, check_same_thread=False)) as conn:
        stored = PortState.model_validate(build_graph(SqliteSaver(conn, serde=_serde())).get_state(config).values)
    assert state == stored and state.findings and state.patches and state.units
    assert port(FIXTURES / "reduce", out, PortOptions(verify=False), resume=state.run_id) == stored
