"""Bad input never crashes or hangs porter: one test per cause found by generating bad trees (issue 14).

Each case ports a small generated tree with `porter port --no-verify` through the CLI and checks
the exit code, that no traceback was printed, that porter did not fail (exit 3), and what the
report says about the odd input.
"""

from __future__ import annotations

import codecs
import json
import os
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porter.cli import app
from porter.scan import find_kernels
from porter.syntax import SourceFile, int_literal

runner = CliRunner()

SHARED = "__global__ void k(float* x) {{ __shared__ float s[{}]; s[threadIdx.x] = x[threadIdx.x]; x[0] = s[0]; }}\n"
KERNEL = """// (c) Jos\u00e9 M\u00fcller \u00a9 2019, caf\u00e9
#include <cuda_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }
int main() { float* d; cudaMalloc(&d, 64); k<<<1, 64>>>(d); printf("\u00b5s\\n"); cudaFree(d); return 0; }
"""


def _port(src: Path, out: Path, *extra: str):
    result = runner.invoke(app, ["port", str(src), "-o", str(out), "--no-verify", *extra], terminal_width=200)
    assert "Traceback" not in result.output, result.output
    return result


def _report(out: Path) -> dict:
    return json.loads((out / "porter-report.json").read_text())


@pytest.mark.parametrize(("literal", "value"), [("010", 8), ("0x10", 16), ("0b101", 5), ("1'024", 1024),
                                                ("0X1fULL", 31), ("16.0", None), ("10e2", None), ("08", None)])
def test_shared_sizes_in_every_literal_form(literal: str, value: int | None) -> None:
    assert (int_literal(literal) or (None,))[0] == value
    if literal == "08":
        return  # not a C literal at all: tree-sitter leaves the declaration an ERROR, which the scan skips
    kernels = find_kernels(SourceFile("a.cu", SHARED.format(literal).encode(), "cuda"))
    assert kernels[0].static_shared_bytes == (None if value is None else 4 * value)


def test_absurd_shared_size_is_not_evaluated_and_the_run_finishes(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text(SHARED.format("99999999999999999999999999"))
    result = _port(src, tmp_path / "out")
    assert result.exit_code == 1, result.output  # not verified (--no-verify), but ported
    assert _report(tmp_path / "out")["summary"]["units_incomplete"] == 0


@pytest.fixture(scope="module")
def utf8_port(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The port of KERNEL as UTF-8: what every other encoding's port must hold, in its own encoding."""
    root = tmp_path_factory.mktemp("utf8")
    (root / "src").mkdir()
    (root / "src" / "a.cu").write_text(KERNEL, encoding="utf-8")
    _port(root / "src", root / "out")
    return (root / "out" / "a.cu").read_text(encoding="utf-8")


@pytest.mark.parametrize(("codec", "bom"), [("utf-8", b""), ("utf-8", codecs.BOM_UTF8), ("latin-1", b""),
                                            ("cp1252", b""), ("utf-16-le", codecs.BOM_UTF16_LE),
                                            ("utf-16-be", codecs.BOM_UTF16_BE)])
def test_text_in_any_common_encoding_is_ported_keeping_other_bytes(tmp_path: Path, utf8_port: str, codec: str,
                                                                    bom: bytes) -> None:
    raw = bom + KERNEL.encode(codec)
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_bytes(raw)
    assert _port(src, tmp_path / "out").exit_code == 1  # not verified (--no-verify), but ported
    assert "hipMalloc" in utf8_port and "\u00a9 2019" in utf8_port
    # the UTF-8 port's edits, and every other byte (the BOM, the accents) exactly as it was
    assert (tmp_path / "out" / "a.cu").read_bytes() == bom + utf8_port.encode(codec)
    assert (src / "a.cu").read_bytes() == raw
    assert _report(tmp_path / "out")["summary"]["files_not_ported"] == 0


def test_only_true_binaries_are_copied_and_a_binary_source_exits_1_with_the_reason(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "blob.cu").write_bytes(bytes(range(256)) * 4)
    (src / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    (src / "ok.txt").write_text("fine\n")
    result = _port(src, tmp_path / "out")
    assert result.exit_code == 1
    report = _report(tmp_path / "out")
    assert [(n["path"], "NUL" in n["reason"]) for n in report["not_ported"]] == [("blob.cu", True)]
    assert "1 source file not ported" in " ".join(result.stdout.split())
    assert (tmp_path / "out" / "blob.cu").read_bytes() == (src / "blob.cu").read_bytes()


def test_a_file_name_that_is_not_utf8_is_copied_and_reported(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.cu").write_text(SHARED.format(32))
    bad = os.path.join(os.fsencode(src), b"caf\xe9.cu")
    with open(bad, "wb") as fh:
        fh.write(SHARED.format(32).encode())
    result = _port(src, tmp_path / "out")
    assert result.exit_code == 1, result.output
    assert [n["path"] for n in _report(tmp_path / "out")["not_ported"]] == ["caf\\xe9.cu"]
    assert os.path.exists(os.path.join(os.fsencode(tmp_path / "out"), b"caf\xe9.cu"))


def test_symlink_loops_are_not_followed_and_each_real_file_is_ported_once(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "d" / "e").mkdir(parents=True)
    (src / "d" / "a.cu").write_text(SHARED.format(32))
    (src / "d" / "e" / "b.cu").write_text(SHARED.format(32))
    (src / "loop1.cu").symlink_to("loop2.cu")
    (src / "loop2.cu").symlink_to("loop1.cu")
    (src / "d" / "e" / "up").symlink_to("..")
    (src / "d" / "self").symlink_to("../d")
    started = time.monotonic()
    result = _port(src, tmp_path / "out")
    assert time.monotonic() - started < 60
    assert result.exit_code == 1, result.output
    report = _report(tmp_path / "out")
    assert report["summary"]["files"] == 2
    notes = " ".join(report["notes"])
    assert "loop1.cu: symbolic link to loop2.cu loops or dangles" in notes
    assert (tmp_path / "out" / "d" / "self").is_symlink() and (tmp_path / "out" / "d" / "e" / "up").is_symlink()


def test_a_setup_py_nested_300_deep_is_reported_not_ported(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "setup.py").write_text("from setuptools import setup\n" + "setup(" * 300 + ")" * 300 + "\n")
    result = _port(src, tmp_path / "out")
    assert result.exit_code == 1, result.output
    [reason] = [n["reason"] for n in _report(tmp_path / "out")["not_ported"]]
    assert "nested 300 deep" in reason


def test_a_3000_operand_shuffle_expression_is_bounded_and_reported(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    expr = " + ".join(f"__shfl_down_sync(0xffffffff, v + {i}, 16)" for i in range(3000))
    (src / "a.cu").write_text(f"__global__ void k(float* x) {{ float v = x[0];\n x[1] = {expr}; }}\n")
    started = time.monotonic()
    result = _port(src, tmp_path / "out")
    assert time.monotonic() - started < 90  # hours before the depth bound
    assert result.exit_code == 1, result.output
    limits = [f for f in _report(tmp_path / "out")["findings"] if f["rule"] == "input-limit"]
    assert len(limits) == 1 and "nests 30" in limits[0]["message"]


def test_a_long_line_with_many_hazards_ports_in_linear_time(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    # one 560 KB line, 20,000 lane expressions: each finding used to decode and copy the whole line
    (src / "a.cu").write_text("__global__ void k(float* x) { " + "x[threadIdx.x % 32] += 1.0f; " * 20000 + "}")
    started = time.monotonic()
    result = _port(src, tmp_path / "out")
    assert time.monotonic() - started < 120
    assert result.exit_code == 1, result.output
    assert all(len(f["snippet"]) < 200 for f in _report(tmp_path / "out")["findings"])


def test_columns_and_snippets_on_a_5mb_line_cost_no_more_than_the_line() -> None:
    from porter.syntax import FileText

    text = FileText("a.cu", b"x = 1; " * 750_000)  # 5 MB, one line
    started = time.monotonic()
    spots = [(text.line_col(at), text.snippet(at)) for at in range(0, len(text.data), 250)]  # 21,000 findings
    assert time.monotonic() - started < 10  # was a decode of the line prefix and a copy of the line each
    assert spots[-1][0] == (1, 5_249_751) and max(len(s) for _, s in spots) < 200


@pytest.mark.parametrize("where", ["is a file", "under a file", "not creatable"])
def test_an_unusable_output_tree_exits_2_with_a_message(tmp_path: Path, where: str) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text(SHARED.format(32))
    (tmp_path / "file").write_text("x")
    out = {"is a file": tmp_path / "file", "under a file": tmp_path / "file" / "out",
           "not creatable": Path("/proc/porter-test/out")}[where]
    result = _port(src, out)
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert said.startswith("error: ") and str(out) in said
