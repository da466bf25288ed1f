"""`porter port SRC -o OUT --model openai-compatible:http://127.0.0.1:PORT/v1#m` end to end, then
the same run replayed from its cassettes with nothing listening."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porter.cli import app

SOURCE = "#include <cuda_runtime.h>\n\nvoid run(float* x) {\n  cudaFooBar(x);\n}\n"
ANSWER = ("cudaFooBar only waited for the device.\n\n```\nk.cu\n<<<<<<< SEARCH\n  cudaFooBar(x);\n=======\n"
          "  (void)hipDeviceSynchronize();\n>>>>>>> REPLACE\n```\n")
runner = CliRunner()


@pytest.mark.toolchain("clang")
def test_port_against_a_local_openai_compatible_server_then_replay(wire, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(SOURCE)
    wire.openai(ANSWER, tokens=(1200, 80))
    tape = tmp_path / "tape"
    live = runner.invoke(app, ["port", str(src), "-o", str(tmp_path / "live"), "--model",
                               f"openai-compatible:{wire.url}/v1#m", "--record", str(tape),
                               "--model-price", "0.5,1.5", "--model-budget-calls", "4"], terminal_width=200)
    assert live.exit_code == 0, live.stdout
    (request,) = wire.seen
    assert request.path == "/v1/chat/completions" and request.body["model"] == "m"
    assert "HIP005" in request.body["messages"][1]["content"]
    assert "(void)hipDeviceSynchronize();" in (tmp_path / "live" / "k.cu").read_text()
    assert "Model calls" in live.stdout and "1280" not in live.stdout  # tokens shown in/out, not summed
    report = json.loads((tmp_path / "live" / "porter-report.json").read_text())
    (call,) = report["model_calls"]
    assert call["call"]["model"] == f"openai-compatible:{wire.url}/v1#m" and call["call"]["outcome"] == "patched"
    assert report["model_use"][-1] == {"agent": "total", "calls": 1, "input_tokens": 1200, "output_tokens": 80,
                                       "cost_usd": 0.00072, "patched": 1, "rejected": 0, "reverted": 0}
    md = (tmp_path / "live" / "porter-report.md").read_text()
    assert "| translator | 1 | 1200 | 80 | 0.0007 | 1 | 0 | 0 |" in md
    assert "budget: calls 4" in md

    replayed = runner.invoke(app, ["port", str(src), "-o", str(tmp_path / "replayed"), "--replay", str(tape)],
                             terminal_width=200)
    assert replayed.exit_code == 0, replayed.stdout
    assert len(wire.seen) == 1  # nothing went to the network
    assert (tmp_path / "replayed" / "k.cu").read_text() == (tmp_path / "live" / "k.cu").read_text()


def test_bad_model_options_are_bad_input(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(SOURCE)
    for args, says in ((["--model", "gpt-4o"], "expected anthropic:MODEL"),
                       (["--replay", str(tmp_path / "none")], "no such directory"),
                       (["--model", "openai:gpt-4o", "--model-price", "x"], "--model-price"),
                       (["--model-budget-calls", "-1"], "max_calls")):
        result = runner.invoke(app, ["port", str(src), "-o", str(tmp_path / "out"), "--force", *args],
                               env={"OPENAI_API_KEY": ""}, terminal_width=200)
        assert result.exit_code == 2, (args, result.output)
        assert says in " ".join(result.output.split()), (args, result.output)
