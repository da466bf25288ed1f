"""porter.verify.checks: a project's own check, original against port, through its own build files.

No GPU here: the projects below are host C programs built by `cc` from their own Makefiles, and
the executor's environments are the plain environment (`executor_envs` is what picks nvcc or
porter's hipcc; it is tested on its own where a compiler is present). What is tested is the
flow: copies under the work folder, one build per folder, two runs of the original, the
comparison, the timeout that kills the process group, and build-only verdicts.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from porter.verify import checks
from porter.verify.checks import copy_tree, run_step, verify_checks
from porter.verify.discover import discover_checks

PROGRAM = """#include <stdio.h>
int main(void) {
  double sum = 0;
  for (int i = 0; i < 64; ++i) sum += %s;
  printf("sum = %%.6f\\n", sum);
  printf("took %%d ms\\n", (int)(__LINE__ * 0));
  return 0;
}
"""
MAKEFILE = "prog: prog.c\n\tcc -O1 -o prog prog.c\n\nrun: prog\n\t./prog\n"


def project(root: Path, term: str, makefile: str = MAKEFILE) -> Path:
    root.mkdir(parents=True)
    (root / "Makefile").write_text(makefile)
    (root / "prog.c").write_text(PROGRAM % term)
    return root


@pytest.fixture()
def plain_envs(monkeypatch: pytest.MonkeyPatch) -> None:
    env = dict(os.environ)
    monkeypatch.setattr(checks, "executor_envs", lambda executor, workdir, base=None: (env, env))


def test_port_that_prints_the_same_values_passes(tmp_path: Path, plain_envs: None) -> None:
    src, out = project(tmp_path / "src", "i * 0.5"), project(tmp_path / "out", "0.5 * i")
    (out / ".porter").mkdir()
    (out / "porter-report.md").write_text("report")
    (check,) = discover_checks(src).checks
    (v,) = verify_checks([check], src, out, "hip-on-cuda", out / ".porter" / "verify")
    assert v.status == "pass" and v.passed and v.ran, v.reason
    assert v.comparison.compared == 1 and [e.reason for e in v.comparison.excluded] == ["timing"]
    assert len(v.original_runs) == 2 and v.port_run.stdout.startswith("sum = 1008.000000")
    work = out / ".porter" / "verify"
    assert (work / "original" / "prog").is_file() and (work / "port" / "prog").is_file()
    assert not (src / "prog").exists()  # the source tree is never built in
    assert not (work / "port" / ".porter").exists() and not (work / "port" / "porter-report.md").exists()


def test_port_that_computes_otherwise_fails_with_both_lines(tmp_path: Path, plain_envs: None) -> None:
    src, out = project(tmp_path / "src", "i * 0.5"), project(tmp_path / "out", "(i % 32) * 0.5")
    (check,) = discover_checks(src).checks
    (v,) = verify_checks([check], src, out, "hip-on-cuda", tmp_path / "work")
    assert v.status == "mismatch" and not v.passed
    assert (v.comparison.original_line, v.comparison.port_line) == ("sum = 1008.000000", "sum = 496.000000")


def test_values_seeded_by_the_clock_are_excluded(tmp_path: Path, plain_envs: None) -> None:
    """A program seeded by time(NULL) (cuda-samples' fp16ScalarProduct) prints other values in every
    second: the original's two runs start in different seconds, so its values are excluded, not
    compared against a port that ran with other data."""
    seeded = ("#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n"
              "int main(void) { srand((unsigned)time(NULL)); printf(\"Result : %d\\n\", rand() % 1000000);"
              " puts(\"PASSED\"); return 0; }\n")
    src, out = project(tmp_path / "src", "i"), project(tmp_path / "out", "i")
    for root in (src, out):
        (root / "prog.c").write_text(seeded)
    (check,) = discover_checks(src).checks
    (v,) = verify_checks([check], src, out, "hip-on-cuda", tmp_path / "work")
    first, second = (r.stdout for r in v.original_runs)
    assert first != second, "the original's two runs started in the same second"
    assert v.status == "pass", v.reason
    assert [e.reason for e in v.comparison.excluded] == ["differs between two runs of the original"]


def test_port_whose_build_fails(tmp_path: Path, plain_envs: None) -> None:
    src = project(tmp_path / "src", "i")
    out = project(tmp_path / "out", "i", MAKEFILE.replace("cc -O1", "nvcc -arch=sm_60 -O1 --no-such-nvcc-flag"))
    (check,) = discover_checks(src).checks
    (v,) = verify_checks([check], src, out, "hip-on-cuda", tmp_path / "work")
    assert v.status == "port-build-failed" and not v.ran and "`make` exited" in v.reason


def test_a_hanging_check_is_killed_with_its_process_group(tmp_path: Path, plain_envs: None) -> None:
    src = project(tmp_path / "src", "i", MAKEFILE.replace("\t./prog", "\tsleep 30 & sleep 30"))
    (check,) = discover_checks(src).checks
    start = time.monotonic()
    (v,) = verify_checks([check], src, src, "hip-on-cuda", tmp_path / "work", timeout=1)
    assert time.monotonic() - start < 20
    assert v.status == "original-failed" and "timed out" in v.reason and not v.passed


def test_build_only_is_compiled_only(tmp_path: Path, plain_envs: None) -> None:
    src, out = project(tmp_path / "src", "i"), project(tmp_path / "out", "i")
    (check,) = discover_checks(src).checks
    (v,) = verify_checks([check], src, out, "gfx950", tmp_path / "work")
    assert v.status == "compiled-only" and not v.passed and not v.ran
    assert not (tmp_path / "work" / "original").exists()  # build only: the original is not even copied


def test_missing_toolchain_is_not_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from porter.toolchains import ToolchainMissing

    def missing(*a, **k):
        raise ToolchainMissing("nvcc", ["/usr/local/cuda/bin/nvcc"], "PORTER_NVCC")

    monkeypatch.setattr(checks, "executor_envs", missing)
    src = project(tmp_path / "src", "i")
    (check,) = discover_checks(src).checks
    (v,) = verify_checks([check], src, src, "hip-on-cuda", tmp_path / "work")
    assert v.status == "not-checked" and "nvcc" in v.reason


def test_run_step_reports_timeouts(tmp_path: Path) -> None:
    r = run_step("echo started; sleep 20", tmp_path, os.environ, 0.5)
    assert r.timed_out and r.rc is None and "killed after 0.5 s" in r.stderr and r.stdout == "started\n"
    r = run_step("echo hi; exit 3", tmp_path, os.environ, 10)
    assert (r.rc, r.stdout, r.ok) == (3, "hi\n", False)


def test_copy_tree_replaces_an_old_copy(tmp_path: Path) -> None:
    src = project(tmp_path / "src", "i")
    (src / ".porter-build").mkdir()
    dest = copy_tree(src, tmp_path / "copy")
    (dest / "stale").write_text("x")
    copy_tree(src, dest)
    assert sorted(p.name for p in dest.iterdir()) == ["Makefile", "prog.c"]


def test_unknown_executor_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="expected one of cuda, hip-on-cuda, rocm, gfx950"):
        checks.executor_envs("metal", tmp_path)


def test_checks_of_one_folder_share_one_build_when_run_in_parallel(tmp_path: Path, plain_envs: None) -> None:
    src = project(tmp_path / "src", "i", MAKEFILE + "\ntest: prog\n\t./prog\n\techo build-count $$(cat built)\n")
    (src / "Makefile").write_text((src / "Makefile").read_text().replace("cc -O1 -o prog prog.c",
                                                                         "cc -O1 -o prog prog.c; echo x >> built"))
    found = discover_checks(src).checks
    assert [c.run for c in found] == ["make -s run", "make -s test"]
    verdicts = verify_checks(found, src, src, "hip-on-cuda", tmp_path / "work", jobs=2)
    assert [v.status for v in verdicts] == ["pass", "pass"]
    assert verdicts[0].port_build == verdicts[1].port_build
    assert (tmp_path / "work" / "port" / "built").read_text() == "x\n"  # built once
