"""porter.toolchains.process: the one way porter runs a command; a failure or a hang is data."""

from __future__ import annotations

from pathlib import Path

from porter.toolchains import process


def test_a_finished_command_keeps_its_status_output_and_input(tmp_path: Path) -> None:
    done = process.run(["/bin/sh", "-c", "cat; echo err >&2; exit 3"], tmp_path, input="in\n")
    assert (done.rc, done.stdout, done.stderr, done.timed_out) == (3, "in\n", "err\n", False)
    assert done.cmd == ("/bin/sh", "-c", "cat; echo err >&2; exit 3")


def test_a_hung_command_is_killed_with_its_children_and_reported(tmp_path: Path) -> None:
    # The child `sleep` holds the pipes open: only killing the process group ends the wait.
    done = process.run(["/bin/sh", "-c", "echo started; sleep 30 & wait"], tmp_path, timeout=0.5)
    assert done.timed_out and done.rc == process.TIMED_OUT == 124
    assert done.stdout == "started\n" and "killed after 0.5 s" in done.stderr
    assert done.seconds < 10


def test_undecodable_output_is_replaced_not_raised(tmp_path: Path) -> None:
    done = process.run(["/bin/sh", "-c", r"printf 'caf\351\n'"], tmp_path)
    assert done.rc == 0 and done.stdout == "caf\ufffd\n"


def test_build_result_lists_artifacts_only_when_the_build_made_them(tmp_path: Path) -> None:
    out = tmp_path / "a.o"
    made = process.build_result("nvcc", process.run(["/bin/sh", "-c", f"touch {out}"], tmp_path), [out])
    assert made.ok and made.artifacts == (str(out),) and made.toolchain == "nvcc"
    missing = process.build_result("nvcc", process.run(["true"], tmp_path), [tmp_path / "b.o"])
    assert missing.rc == 0 and missing.artifacts == ()
    failed = process.build_result("nvcc", process.run(["false"], tmp_path), [out])
    assert not failed.ok and failed.artifacts == ()
