"""`porter hw` and `porter tune`."""

from typer.testing import CliRunner

from porter.cli import app

runner = CliRunner()


def test_hw_lists_devices_and_shows_sources():
    listing = runner.invoke(app, ["hw"], env={"COLUMNS": "200"})
    assert listing.exit_code == 0
    assert "MI350X" in listing.output and "H200" in listing.output
    one = runner.invoke(app, ["hw", "gfx950"], env={"COLUMNS": "200"})
    assert one.exit_code == 0
    assert "MI350X (gfx950, amd)" in one.output
    assert "LLVM AMDGPU addressable LDS for gfx950" in one.output
    assert runner.invoke(app, ["hw", "gfx1100"]).exit_code == 2


def test_tune_prints_pick_runner_up_and_prediction():
    r = runner.invoke(app, ["tune", "--op", "matmul", "--shape", "4096,4096,4096", "--dtype", "bf16",
                            "--arch", "gfx950"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    for text in ("pick", "runner-up", "matrix_instr_nonkdim", "predicted time", "TFLOP/s", "legal configs scored"):
        assert text in r.output


def test_tune_bad_input_exits_2_with_a_message():
    r = runner.invoke(app, ["tune", "--op", "matmul", "--shape", "4096,x", "--dtype", "bf16"])
    assert r.exit_code == 2
    assert "--shape 4096,x" in r.output
    r = runner.invoke(app, ["tune", "--op", "matmul", "--shape", "64,64,64", "--dtype", "tf32", "--arch", "gfx950"])
    assert r.exit_code == 2 and "tf32" in r.output
