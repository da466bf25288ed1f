"""porter.verify.outputs: the port's printed output against two runs of the original.

The recorded outputs in fixtures/verify/outputs are shaped as the programs print them
(cuda-samples' matrixMul with its timing line and Result marker; a reduction that prints its
random seed and its sum, with a wave32 bug that leaves half the sum in the port).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.verify.outputs import ProgramRun, compare_outputs, float_tolerance, line_kind, markers, numbers_of, stable_values, values_agree

RECORDED = Path(__file__).resolve().parents[2] / "fixtures" / "verify" / "outputs"


def run(text: str, rc: int = 0, **kw) -> ProgramRun:
    return ProgramRun(rc=rc, stdout=text, **kw)


def recorded(name: str, rc: int = 0) -> ProgramRun:
    return run((RECORDED / name).read_text(), rc)


def test_numbers_are_replaced_by_a_placeholder() -> None:
    assert numbers_of("GPU sum = 524288.125000, n=1e-3 at [12] 0x1f") == \
        ("GPU sum = #, n=# at [#] #", ("524288.125000", "1e-3", "12", "0x1f"))
    # digits inside names are not values
    assert numbers_of("sm_90 float4 matrixMul2") == ("sm_90 float4 matrixMul2", ())


@pytest.mark.parametrize(("line", "kind"), [
    ("Performance= 2519.81 GFlop/s, Time= 0.052 msec, Size= 131072000 Ops", "timing"),
    ("kernel took 0.214 ms", "timing"),
    ("Elapsed: 12 s", "timing"),
    ('GPU Device 0: "Hopper" with compute capability 9.0', "environment"),
    ("warp size 32", "environment"),
    ("Using device 0", "environment"),
    ("GPU sum = 524288.125000", "value"),
    ("sum = 524288.125000", "value"),
    ("Result = PASS", "text"),
    # what the port prints of the device it runs as (real cuda-samples output, H200 run 2026-12-01)
    ("> Detected Compute SM 9.5 hardware with 132 multi-processors", "environment"),
    ("MapSMtoCores for SM 9.5 is undefined.  Default to use 128 Cores/SM", "environment"),
    ("AMD Instinct MI350X supports SM 9.0", "environment"),
    ("NVIDIA H200 has 132 MP(s) x 128 (Cores/MP) = 16896 (Cores)", "environment"),
    # Rodinia srad_v1: a time in seconds with its unit alone
    ("0.000027000000 s, 0.0119 % : COMPRESS IMAGE", "timing"),
    ("total = 3 s", "timing"),
    ("s = 3.5", "value"),
])
def test_line_kinds(line: str, kind: str) -> None:
    assert line_kind(line) == kind


def test_markers_read_pass_fail_and_negations() -> None:
    text = "Test passed\nResult = FAIL\n0 mismatches\nmismatch at 12: 3.0 vs 4.0\nno errors found\nerrors: 0\nFAILED"
    passes, fails = markers(text)
    assert passes == ["Test passed"]
    assert fails == ["Result = FAIL", "mismatch at 12: 3.0 vs 4.0", "FAILED"]
    assert markers("Running 5 passes over the data\nbypass") == ([], [])
    # cuda-samples simpleAssert: the assertion is meant to fail
    assert markers("Device assert failed as expected, CUDA error message is: device-side assert triggered") == ([], [])


@pytest.mark.parametrize(("a", "b", "agree"), [
    ("3.14159", "3.14160", True),  # 6 significant digits: rtol 1e-5 is below the float32 floor 1e-4
    ("3.14", "3.15", True),  # 3 digits printed: 1 % is what the print can tell apart
    ("3.14", "3.20", False),
    ("524288.125000", "524288.156250", True),
    ("524288.125000", "262144.062500", False),
    ("0.000", "0.001", True),  # one unit in the last printed place: rounding
    ("0.000", "0.500", False),
    ("1.000000E-06", "1.0000001E-06", True),
    ("12", "12", True),
    ("12", "13", False),  # integers exactly
    ("0x1f", "31", True),
    ("nan", "nan", True),
    ("nan", "1.0", False),
    ("inf", "inf", True),
    ("-inf", "inf", False),
])
def test_values_agree(a: str, b: str, agree: bool) -> None:
    assert values_agree(a, b) is agree


def test_float_tolerance_follows_the_printed_precision() -> None:
    assert float_tolerance("1.5", "1.6") == (1e-2, 0.1)  # clamped to 1 %
    assert float_tolerance("1.23456789", "1.23456780") == (1e-4, 1e-8)  # floored at float32's reordering noise
    rtol, atol = float_tolerance("1.234e-05", "1.235e-05")
    assert rtol == pytest.approx(1e-3) and atol == pytest.approx(1e-8)


def test_values_that_differ_between_original_runs_are_excluded() -> None:
    lines, stable, excluded = stable_values((RECORDED / "reduction_seed_1.txt").read_text(),
                                            (RECORDED / "reduction_seed_2.txt").read_text())
    assert [(e.line, e.reason) for e in excluded] == [
        ("seed = 1733049621", "differs between two runs of the original"),
        ("kernel took 0.214 ms", "timing")]
    assert {lines[i].text for i, _ in stable} == {"n = 1048576 elements, block 256", "GPU sum = 524288.125000",
                                                  "CPU sum = 524288.093750"}


def test_matrixmul_port_that_passes() -> None:
    c = compare_outputs(recorded("matrixMul_cuda_1.txt"), recorded("matrixMul_cuda_2.txt"),
                        recorded("matrixMul_cuda_2.txt"))
    assert c.status == "pass" and c.passed
    assert c.markers == ("Checking computed result for correctness: Result = PASS",)
    assert c.compared == 4  # MatrixA(320,320), MatrixB(640,320); the timing and device lines are excluded
    assert {e.reason for e in c.excluded} == {"timing", "environment"}


def test_matrixmul_port_that_fails_shows_its_marker() -> None:
    c = compare_outputs(recorded("matrixMul_cuda_1.txt"), recorded("matrixMul_cuda_2.txt"),
                        recorded("matrixMul_port_fail.txt"))
    assert c.status == "mismatch" and not c.passed
    assert c.reason == "the port printed 'Result = FAIL'"
    assert c.original_line == "Checking computed result for correctness: Result = PASS"
    assert c.port_line.startswith("Checking computed result for correctness: Error! Matrix[00000]=3.19999981")


def test_wave32_bug_shows_the_first_differing_line_of_each_side() -> None:
    c = compare_outputs(recorded("reduction_seed_1.txt"), recorded("reduction_seed_2.txt"),
                        recorded("reduction_wave32_port.txt"))
    assert c.status == "mismatch"
    assert (c.original_line, c.port_line) == ("GPU sum = 524288.125000", "GPU sum = 262144.062500")
    assert c.reason == "value 1 differs: 524288.125000 against 262144.062500"


def test_reordered_float_sum_passes_and_seed_and_timing_are_excluded() -> None:
    c = compare_outputs(recorded("reduction_seed_1.txt"), recorded("reduction_seed_2.txt"),
                        recorded("reduction_ok_port.txt"))
    assert c.status == "pass" and c.compared == 4 and not c.markers
    assert "seed = 1733049621" in {e.line for e in c.excluded}


def test_exit_codes_must_agree() -> None:
    c = compare_outputs(run("sum = 1.0"), run("sum = 1.0"), run("sum = 1.0", rc=139))
    assert c.status == "port-failed" and "exit code 139" in c.reason
    c = compare_outputs(run("x", rc=2), run("x", rc=2), run("x", rc=2))
    assert c.status == "original-failed"


def test_original_that_fails_its_own_check_decides_nothing() -> None:
    c = compare_outputs(run("Test failed!"), run("Test failed!"), run("Test failed!"))
    assert c.status == "original-failed" and "'Test failed!'" in c.reason


def test_a_missing_pass_marker_fails_the_port() -> None:
    c = compare_outputs(run("Test passed"), run("Test passed"), run("done"))
    assert c.status == "mismatch" and c.original_line == "Test passed"


def test_a_value_line_the_port_never_printed_fails() -> None:
    c = compare_outputs(run("a = 1\nb = 2"), run("a = 1\nb = 2"), run("a = 1"))
    assert c.status == "mismatch" and c.original_line == "b = 2"


def test_timeouts_are_never_a_pass() -> None:
    c = compare_outputs(run("Test passed"), run("Test passed"),
                        ProgramRun(rc=None, stdout="Test passed", timed_out=True, seconds=300))
    assert c.status == "timeout" and "300 s" in c.reason
    c = compare_outputs(ProgramRun(rc=None, timed_out=True), run("x"), run("x"))
    assert c.status == "original-failed"


def test_nothing_comparable_is_not_a_pass() -> None:
    timing_only = "Processing time: 12.5 ms\nBye"
    c = compare_outputs(run(timing_only), run("Processing time: 13.1 ms\nBye"), run(timing_only))
    assert c.status == "nothing-comparable" and not c.passed
    c = compare_outputs(run("seed 5"), run("seed 9"), run("seed 7"))
    assert c.status == "nothing-comparable"


def test_exit_status_is_the_check_of_a_self_checking_program() -> None:
    quiet = "time spent executing by the GPU: 12.50\n"
    c = compare_outputs(run(quiet), run(quiet), run(quiet), exit_status_is_check=True)
    assert c.status == "pass" and "exit status 0 on both sides" in c.reason
    c = compare_outputs(run(quiet), run(quiet), run(quiet, rc=1), exit_status_is_check=True)
    assert c.status == "port-failed"


def test_printf_templates_are_the_templates_of_the_lines_printed() -> None:
    from porter.verify.outputs import printf_templates
    assert printf_templates(r"%d streams:\t%.2f\n") == [numbers_of("4 streams:\t1.23")[0]]
    assert printf_templates(r"Time = %5.3f ms\nGFlop/s: %.2f\n") == ["Time = # ms", "GFlop/s: #"]
    assert printf_templates(r"%s took %f\n") == []  # a text conversion: no fixed template
    assert printf_templates(r"done\n") == []


def test_a_line_printed_from_a_timer_is_a_timing_whatever_its_words() -> None:
    assert line_kind("non-streamed:\t1.31") == "value"
    assert line_kind("non-streamed:\t1.31", timed=("non-streamed:\t#",)) == "timing"
    first = run("non-streamed:\t1.31\nsum = 42\n")
    port = run("non-streamed:\t1.41\nsum = 42\n")
    assert compare_outputs(first, first, port).status == "mismatch"
    verdict = compare_outputs(first, first, port, timed=("non-streamed:\t#",))
    assert verdict.status == "pass" and verdict.compared == 1, verdict.reason
