"""The command line: verbs, exit codes (0 verified, 1 open hazards or failures, 2 bad input)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from porter.cli import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def said(stream: str) -> str:
    """Output with rich's line wrapping undone."""
    return " ".join(stream.split())


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("porter 0.")


def test_rules_lists_every_family_present() -> None:
    result = runner.invoke(app, ["rules"], terminal_width=200)
    assert result.exit_code == 0
    for rule_id in ("HIP001", "WAVE001", "SHIM001"):
        assert rule_id in result.stdout


def test_explain_prints_the_docstring_and_rejects_unknown_ids() -> None:
    result = runner.invoke(app, ["explain", "hip001"], terminal_width=200)
    assert result.exit_code == 0
    assert "HIP001" in result.stdout and "Why:" in result.stdout and "Before:" in result.stdout
    bad = runner.invoke(app, ["explain", "NOPE999"])
    assert bad.exit_code == 2 and "no rule" in said(bad.stderr)


def test_scan_shows_inventory_and_hazards_and_writes_nothing(tmp_path: Path) -> None:
    source = ROOT / "fixtures" / "reduce"
    before = sorted(p.name for p in source.iterdir())
    result = runner.invoke(app, ["scan", str(source)], terminal_width=250)
    assert result.exit_code == 1  # warp-size hazards are open
    assert "reduceSumKernel" in result.stdout and "WAVE003" in result.stdout
    assert sorted(p.name for p in source.iterdir()) == before


def test_port_bad_input_exits_2(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text("int main() { cudaDeviceSynchronize(); }\n")
    inside = runner.invoke(app, ["port", str(src), "-o", str(src / "out")])
    assert inside.exit_code == 2 and "inside the source" in said(inside.stderr)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    full = runner.invoke(app, ["port", str(src), "-o", str(tmp_path / "full")])
    assert full.exit_code == 2 and "not empty" in said(full.stderr)
    missing = runner.invoke(app, ["port", str(tmp_path / "nope"), "-o", str(tmp_path / "o")])
    assert missing.exit_code == 2 and "not a directory" in said(missing.stderr)
    launch = runner.invoke(app, ["port", str(src), "-o", str(tmp_path / "o2"), "--launch", "bogus"])
    assert launch.exit_code == 2 and "launch" in said(launch.stderr)


def test_port_writes_reports_and_exit_code(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["port", str(ROOT / "fixtures" / "matmul_tiled"), "-o", str(out), "--no-verify"],
                           terminal_width=200)
    assert result.exit_code == 1  # not verified: the report says why and the exit code says so
    assert "run id" in result.stdout
    for name in ("porter-report.md", "porter-report.json", "porter-report.sarif"):
        assert (out / name).is_file()
