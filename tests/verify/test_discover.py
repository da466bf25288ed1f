"""porter.verify.discover: a project's own checks, found from its build files and sources.

The fixture projects in fixtures/verify/projects each hold one idiom: a Makefile `run` target,
a self-checking program built by a Makefile (`CC := $(shell which nvcc)`, objects by a pattern
rule), CTest `add_test` (one test reads a file that is not there), a pytest suite over a CUDA
extension, a Rodinia-style `run` script reading data outside the tree, and a program that
needs arguments nobody wrote down.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from porter.verify.discover import DiscoveredCheck, data_files_of, discover_checks, expand, needs_arguments, parse_makefile, self_checking

PROJECTS = Path(__file__).resolve().parents[2] / "fixtures" / "verify" / "projects"


def test_make_run_target() -> None:
    d = discover_checks(PROJECTS / "make_run")
    (check,) = d.checks
    assert (check.kind, check.origin, check.build, check.run) == ("make-target", "Makefile:7", "make", "make -s run")
    assert check.command_spec().run == "make -s run" and d.undiscovered == ()  # -s: make's echo is no output


def test_self_checking_program_of_a_makefile() -> None:
    (check,) = discover_checks(PROJECTS / "make_selfcheck").checks
    assert (check.kind, check.name, check.build, check.run) == ("self-checking", ".:lanes", "make", "./lanes")
    assert check.sources == ("lanes.cu",) and check.covers("lanes.cu") and not check.covers("other.cu")


def test_ctest_entries_and_the_one_whose_data_is_missing() -> None:
    d = discover_checks(PROJECTS / "ctest")
    (check,) = d.checks
    assert check.kind == "ctest" and check.name == ".:ctest saxpy_small"
    assert check.run == "ctest --test-dir .porter-build -R '^saxpy_small$' --output-on-failure"
    assert check.build.startswith("cmake -S . -B .porter-build") and check.data_files == ("data/small.txt",)
    (missing,) = d.undiscovered
    assert missing.where == "CMakeLists.txt:8" and "saxpy_large reads data/large.txt" in missing.reason


def test_pytest_suite_builds_the_extension_in_place() -> None:
    (check,) = discover_checks(PROJECTS / "pytest_suite").checks
    assert check.kind == "pytest" and check.origin == "tests"
    assert check.build == "${PYTHON:-python3} setup.py build_ext --inplace"
    assert check.run.endswith("-m pytest -q -p no:cacheprovider tests")


def test_run_script_reading_data_outside_the_tree_is_reported() -> None:
    d = discover_checks(PROJECTS / "rodinia_style")
    assert d.checks == ()
    (missing,) = d.undiscovered
    assert missing.where == "run"
    assert missing.reason == ("reads ../../data/hotspot/temp_512, ../../data/hotspot/power_512, "
                              "which is not in the tree")  # output.out is what it writes


def test_run_script_with_its_data_in_the_tree(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "rodinia_style", root)
    (root / "run").write_text("./hotspot 512 2 2 data/temp_512 data/power_512\n")
    (root / "data").mkdir()
    for name in ("temp_512", "power_512"):
        (root / "data" / name).write_text("0\n")
    (check,) = discover_checks(root).checks
    assert (check.kind, check.build, check.run) == ("run-script", "make", "sh run")
    assert check.data_files == ("data/temp_512", "data/power_512")


def test_include_outside_the_tree_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "rodinia_style", root)
    (root / "Makefile").write_text((root / "Makefile").read_text().replace("common/make.config",
                                                                           "../../common/make.config"))
    (skipped,) = discover_checks(root).undiscovered
    assert skipped.where == "Makefile" and "../../common/make.config" in skipped.reason


def test_program_that_needs_arguments_is_not_guessed() -> None:
    d = discover_checks(PROJECTS / "needs_args")
    assert d.checks == ()
    assert [u.reason for u in d.undiscovered] == [
        "histo needs command-line arguments and no run target or run script says which"]


def test_every_fixture_project_at_once() -> None:
    d = discover_checks(PROJECTS)
    assert sorted(c.name for c in d.checks) == [
        "ctest:ctest saxpy_small", "make_run:make run", "make_selfcheck:lanes", "pytest pytest_suite/tests"]
    selfcheck = next(c for c in d.checks if c.kind == "self-checking")
    assert selfcheck.command_spec().build == "cd make_selfcheck && make"
    assert selfcheck.covers("make_selfcheck/lanes.cu")
    assert len(d.covering("make_run/scale.cu")) == 2  # its make target, and the pytest run from the root


def test_cmake_executable_that_checks_itself(tmp_path: Path) -> None:
    (tmp_path / "CMakeLists.txt").write_text("project(vectorAdd LANGUAGES CXX CUDA)\n"
                                             "add_executable(vectorAdd vectorAdd.cu)\n")
    (tmp_path / "vectorAdd.cu").write_text('int main() { printf("Test PASSED\\n"); }\n')
    (check,) = discover_checks(tmp_path).checks
    assert (check.kind, check.run, check.sources) == ("self-checking", "./.porter-build/vectorAdd", ("vectorAdd.cu",))
    (tmp_path / "vectorAdd.cu").write_text('int main() { printf("clock %d\\n", c); }\n')
    d = discover_checks(tmp_path)
    assert d.checks == () and "vectorAdd prints no PASS/FAIL marker" in d.undiscovered[0].reason


def test_makefile_without_checks_says_so(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("lib.o: lib.cu\n\tnvcc -c lib.cu -o lib.o\n")
    (tmp_path / "lib.cu").write_text("__global__ void k() {}\n")
    d = discover_checks(tmp_path)
    assert d.checks == () and "no run/test/check target" in d.undiscovered[0].reason


def test_makefile_parsing_and_expansion() -> None:
    mk = parse_makefile("A = x\nA += y\nB ?= z\nB ?= w\nC := $(A)-${B}\\\n  more\nt: p1 p2 ; echo hi\n\tcc $@\n")
    assert mk.variables == {"A": "x y", "B": "z", "C": "$(A)-${B}   more"}
    assert mk.rules == [("t", ["p1", "p2"], ["echo hi", "cc $@"], 7)]  # numbered as in the file
    assert expand("$(C) $(NONE)$@", mk.variables) == "x y-z   more $@"


@pytest.mark.parametrize(("text", "expected"), [
    ('int main() { printf("Result = PASS\\n"); }', True),
    ('int main() { puts(ok ? "ok" : "mismatch"); }', True),
    ('void f() { printf("Test passed"); }', False),  # no main
    ('int main() { printf("sum %f", s); }', False),  # prints values, no marker
])
def test_self_checking(text: str, expected: bool) -> None:
    assert self_checking(text) is expected


def test_needs_arguments() -> None:
    assert needs_arguments("if (argc < 2) return usage();")
    assert needs_arguments("if (argc != 7) {")
    assert not needs_arguments("int n = argc > 1 ? atoi(argv[1]) : 1024;")


def test_data_files_of(tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("1")
    found, missing = data_files_of("./prog -n 5 -f in.txt -o out.bin 3.5 --x=1 ../outside.dat $HOME/y",
                                   tmp_path, tmp_path)
    assert found == ["in.txt"] and missing == ["../outside.dat"]  # -o out.bin is written, not read


def test_check_without_sources_covers_its_folder() -> None:
    c = DiscoveredCheck(name="x", kind="make-target", origin="a/Makefile", directory="a", run="make run")
    assert c.covers("a/b.cu") and not c.covers("ab.cu") and not c.covers("b.cu")


def test_program_that_checks_itself_by_exit_status_across_sources(tmp_path: Path) -> None:
    """cuda-samples' asyncAPI and scan: main in one file, EXIT_FAILURE or the FAILED text in another."""
    (tmp_path / "CMakeLists.txt").write_text("project(scan LANGUAGES CXX CUDA)\nadd_executable(scan main.cpp scan.cu)\n")
    (tmp_path / "main.cpp").write_text("int main() { bool ok = run(); exit(ok ? EXIT_SUCCESS : EXIT_FAILURE); }\n")
    (tmp_path / "scan.cu").write_text("__global__ void k() {}\n")
    (check,) = discover_checks(tmp_path).checks
    assert check.kind == "self-checking" and check.exit_status_is_check
    assert check.sources == ("main.cpp", "scan.cu")


def test_lines_printed_from_a_timer_are_found_in_the_sources(tmp_path: Path) -> None:
    """cuda-samples' simpleStreams prints times in ms under labels that say nothing of time."""
    from porter.verify.discover import timed_lines
    source = r'''
    float time_memcpy, elapsed_time;
    cudaEventElapsedTime(&time_memcpy, start_event, stop_event);
    printf("memcopy:\t%.2f\n", time_memcpy);
    cudaEventElapsedTime(&elapsed_time, start_event, stop_event);
    float per_rep = elapsed_time / nreps;
    fprintf(stdout, "%d streams:" "\t%.2f\n", nstreams, per_rep);
    sdkStopTimer(&timer); double t = sdkGetTimerValue(&timer);
    printf("CPU: %f\n", t);
    printf("sum = %d\n", sum);
    '''
    assert timed_lines([source]) == ("memcopy:\t#", "# streams:\t#", "CPU: #")
    assert timed_lines(['printf("sum = %d\\n", sum);']) == ()
    (tmp_path / "Makefile").write_text("prog: prog.cu\n\tnvcc -o prog prog.cu\n\nrun: prog\n\t./prog\n")
    (tmp_path / "prog.cu").write_text(source)
    (check,) = discover_checks(tmp_path).checks
    assert check.timed_lines == ("memcopy:\t#", "# streams:\t#", "CPU: #")
