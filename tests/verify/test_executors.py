"""porter.verify.executors and verify_project: command lines, output parsing, timing verdicts, and the
whole flow with a stand-in executor (no GPU)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from porter.state import BuildResult
from porter.toolchains import ToolchainMissing
from porter.verify.__main__ import summary
from porter.verify.executors import (
    CudaExecutor,
    Executor,
    HipOnCudaExecutor,
    RocmExecutor,
    RunResult,
    get_executor,
    parse_run_output,
    run_result,
    verdict,
)
from porter.verify.project import run_commands, verify_project
from porter.verify.spec import load_spec

VERIFY = Path(__file__).parents[2] / "fixtures" / "verify"
RECORDED = VERIFY / "recorded"
UNIT, DRIVER, BIN = Path("/p"), Path("/w/porter_driver.cu"), Path("/w/driver")


def test_cuda_command_line() -> None:
    cmd = CudaExecutor(arch="sm_90").build_command(Path("/cuda/bin/nvcc"), UNIT, DRIVER, BIN)
    assert cmd == ["/cuda/bin/nvcc", "-std=c++17", "-O3", "-arch=sm_90", "-x", "cu", "-I", "/p",
                   "/w/porter_driver.cu", "-o", "/w/driver"]


def test_hip_on_cuda_command_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PORTER_HIP_ON_CUDA", str(tmp_path))
    cmd = HipOnCudaExecutor(arch="native").build_command(Path("/n/nvcc"), UNIT, Path("/w/d.hip"), BIN)
    assert cmd == ["/n/nvcc", "-std=c++17", "-O3", "-arch=native", "-DPORTER_GPU_API_HIP", "-I", str(tmp_path),
                   "--options-file", str(tmp_path / "nvcc.opts"), "-x", "cu", "-I", "/p", "/w/d.hip", "-o", "/w/driver"]


def test_hip_on_cuda_default_headers_are_porters_shims(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PORTER_HIP_ON_CUDA", raising=False)
    cmd = HipOnCudaExecutor().api_flags() if (Path(__file__).parents[2] / "shims" / "hip_on_cuda").is_dir() else None
    if cmd is None:
        pytest.skip("shims/hip_on_cuda absent")
    assert Path(cmd[2]).parts[-2:] == ("shims", "hip_on_cuda")


def test_rocm_command_lines() -> None:
    assert RocmExecutor().build_command(Path("/opt/rocm/bin/hipcc"), UNIT, Path("/w/d.hip"), BIN) == [
        "/opt/rocm/bin/hipcc", "-std=c++17", "-O3", "--offload-arch=gfx950", "-x", "hip", "-I", "/p",
        "/w/d.hip", "-o", "/w/driver"]
    cmd = RocmExecutor(arch="gfx942").build_command(Path("/opt/rocm/llvm/bin/amdclang++"), UNIT, DRIVER, BIN)
    assert "--offload-arch=gfx942" in cmd and "--hip-link" in cmd


@pytest.mark.parametrize(("cls", "arch"), [(CudaExecutor, "gfx950"), (RocmExecutor, "sm_90"), (RocmExecutor, "gfx90a")])
def test_bad_arch(cls, arch: str) -> None:
    with pytest.raises(ValueError):
        cls(arch=arch)


def test_get_executor() -> None:
    assert isinstance(get_executor("hip-on-cuda"), HipOnCudaExecutor)
    assert get_executor("rocm", "gfx942").arch == "gfx942"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="expected one of cuda, hip-on-cuda, rocm"):
        get_executor("metal")


def test_missing_hipcc_raises(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PORTER_HIPCC", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr("porter.verify.executors.HIPCC_CANDIDATES", ("hipcc", "/nonexistent/rocm/bin/hipcc"))
    with pytest.raises(ToolchainMissing) as err:
        RocmExecutor().build(tmp_path, tmp_path / "d.hip", tmp_path / "w")
    assert all(s in str(err.value) for s in ("hipcc", "/nonexistent/rocm/bin/hipcc", "PORTER_HIPCC"))


def test_missing_hip_on_cuda_headers_raise(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PORTER_HIP_ON_CUDA", str(tmp_path / "absent"))
    with pytest.raises(ToolchainMissing, match="PORTER_HIP_ON_CUDA"):
        HipOnCudaExecutor().find_compiler()


def test_parse_recorded_cuda_output() -> None:
    run = run_result(["driver"], 0, (RECORDED / "saxpy_cuda_stdout.txt").read_text(), "", 0.5)
    assert run.ok and run.api == "cuda" and len(run.timings_ms) == 5
    assert run.median_ms == pytest.approx(0.006368)
    assert run.input_hashes == {"x": "41625f7a84b410c0", "y": "4dd475dc39bc6443"}
    assert list(run.outputs) == ["y"]


def test_parse_rocm_sample_output() -> None:
    run = run_result(["driver"], 0, (RECORDED / "rocm_gfx950_sample_stdout.txt").read_text(), "", 0.4)
    assert run.ok and run.api == "hip" and run.median_ms == pytest.approx(0.00804)
    assert run.outputs["out"].endswith("/port/out/out.npy") and set(run.input_hashes) == {"in", "out"}
    failed = run_result(["driver"], 2, "PORTER_DRIVER hip reduceSumKernel\n",
                        (RECORDED / "rocm_gfx950_sample_failed_stderr.txt").read_text(), 0.1)
    assert not failed.ok and "illegal memory access" in failed.error


def test_parse_ignores_the_units_own_prints() -> None:
    parsed = parse_run_output("hello PORTER_TIME_MS 9\nPORTER_TIME_MS 1.5\nPORTER_DONE\n")
    assert parsed.timings_ms == (1.5,) and parsed.done


def test_crash_without_done_is_not_ok() -> None:
    run = run_result(["driver"], -11, "PORTER_DRIVER cuda k\n", "", 0.1)
    assert not run.ok and "signal 11" in run.error
    assert "before PORTER_DONE" in run_result(["d"], 0, "PORTER_DRIVER cuda k\n", "", 0.1).error


def _run(times: list[float]) -> RunResult:
    return run_result(["d"], 0, "".join(f"PORTER_TIME_MS {t}\n" for t in times) + "PORTER_DONE\n", "", 1.0)


def test_timing_verdicts() -> None:
    base = _run([1.0, 1.01, 0.99, 1.0, 1.0])
    assert verdict(_run([0.8, 0.8, 0.81, 0.79, 0.8]), base).verdict == "faster"
    assert verdict(_run([1.2, 1.2, 1.21, 1.19, 1.2]), base).verdict == "slower"
    assert verdict(_run([1.02, 1.02, 1.02, 1.02, 1.02]), base).verdict == "equal"  # inside MIN_NOISE
    noisy = _run([0.7, 1.0, 1.3, 0.8, 1.2, 0.9, 1.1, 1.0])  # IQR / median = 0.3
    v = verdict(_run([0.8] * 5), noisy)
    assert v.verdict == "equal" and v.noise == pytest.approx(0.3, abs=0.05)
    tiny = verdict(_run([0.0045] * 5), _run([0.006] * 5))  # 1.5 us apart: launch jitter, not speed
    assert tiny.verdict == "equal"
    assert verdict(_run([]), base) is None


class ReplayExecutor(Executor):
    """Stands in for a GPU: its 'driver' is a script that prints recorded output and copies saved arrays."""

    toolchain = "replay"
    driver_suffix = ".cu"

    def __init__(self, name: str, arrays: dict[str, Path], median_ms: float) -> None:
        self.name, self.arrays, self.median_ms = name, arrays, median_ms  # type: ignore[misc]

    def find_compiler(self) -> Path:
        return Path("/bin/true")

    def build_command(self, compiler: Path, unit_dir: Path, driver: Path, binary: Path) -> list[str]:
        return [str(compiler)]

    def build(self, unit_dir: Path, driver: Path, workdir: Path) -> BuildResult:
        assert "PORTER_DRIVER" in driver.read_text()
        lines = ["#!/bin/sh", 'echo "PORTER_DRIVER cuda saxpy"', 'echo "PORTER_INPUT x 1234"']
        for name, src in self.arrays.items():
            lines += [f'cp {src} "$1/{name}.npy"', f'echo "PORTER_OUTPUT {name} $1/{name}.npy"']
        lines += [f'echo "PORTER_TIME_MS {self.median_ms}"'] * 3 + ['echo "PORTER_DONE"']
        workdir.mkdir(parents=True, exist_ok=True)
        script = workdir / "driver"
        script.write_text("\n".join(lines) + "\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        return BuildResult(toolchain="replay", cmd=("replay",), rc=0, artifacts=(str(script),))


def test_verify_project_flow(tmp_path: Path) -> None:
    spec = load_spec(VERIFY / "saxpy")
    only_saxpy = spec.model_copy(update={"kernels": spec.kernels[:1]})
    good = RECORDED / "saxpy_y_cuda_head.npy"
    baseline = ReplayExecutor("cuda", {"y": good}, 0.0100)
    ok = verify_project(VERIFY / "saxpy", only_saxpy, ReplayExecutor("hip-on-cuda", {"y": good}, 0.0060),
                        VERIFY / "saxpy", baseline_executor=baseline, workdir=tmp_path / "ok",
                        all_kernels=[("saxpy.cu", "saxpy"), ("saxpy.cu", "blockSum")])
    assert [(v.kernel, v.status) for v in ok] == [("saxpy", "pass"), ("blockSum", "not-exercised")]
    assert ok[0].timing.verdict == "faster" and ok[0].inputs_match  # type: ignore[union-attr]
    assert (tmp_path / "ok" / "saxpy.cu-saxpy" / "port" / "porter_driver.cu").is_file()

    broken = ReplayExecutor("hip-on-cuda", {"y": RECORDED / "saxpy_y_broken_head.npy"}, 0.0100)
    (bad,) = verify_project(VERIFY / "saxpy", only_saxpy, broken, VERIFY / "saxpy", baseline_executor=baseline,
                            workdir=tmp_path / "bad")
    assert bad.status == "mismatch" and bad.outputs[0].worst_index == (777,) and "y: 1 of 1024" in bad.reason
    doc = json.loads(json.dumps(summary([bad], [], "hip-on-cuda")))
    assert doc["counts"] == {"mismatch": 1} and doc["kernels"][0]["outputs"][0]["worst_index"] == [777]

    missing = ReplayExecutor("hip-on-cuda", {}, 0.01)
    (gone,) = verify_project(VERIFY / "saxpy", only_saxpy, missing, VERIFY / "saxpy", baseline_executor=baseline,
                             workdir=tmp_path / "gone")
    assert gone.status == "mismatch" and "no .npy from the port run" in gone.reason


def test_verify_project_missing_unit_and_toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_spec(VERIFY / "saxpy")
    (v, *_rest) = verify_project(tmp_path, spec, CudaExecutor(), VERIFY / "saxpy", workdir=tmp_path / "w")
    assert v.status == "port-build-failed" and "does not exist" in v.reason
    monkeypatch.setenv("PORTER_HIP_ON_CUDA", str(tmp_path / "absent"))
    (v, *_rest) = verify_project(VERIFY / "saxpy", spec, HipOnCudaExecutor(), VERIFY / "saxpy", workdir=tmp_path / "w")
    assert v.status == "not-checked" and "hip_on_cuda headers not found" in v.reason


def test_run_commands(tmp_path: Path) -> None:
    (tmp_path / "porter.toml").write_text("""
[[verify.command]]
name = "ok"
build = "printf 'echo PASS all' > t.sh"
run = "sh t.sh"
stdout_regex = "^PASS"

[[verify.command]]
name = "wrong-output"
run = "echo FAIL; exit 0"
stdout_regex = "^PASS"

[[verify.command]]
name = "build-fails"
build = "exit 3"
run = "true"
""")
    ok, wrong, broken = run_commands(tmp_path, load_spec(tmp_path), {"PORTER_EXECUTOR": "cuda"})
    assert ok.passed and ok.build is not None and ok.build.ok
    assert not wrong.passed and "no stdout line matches" in wrong.reason
    assert not broken.passed and broken.reason.startswith("build exited 3")


def test_cli_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from porter.verify.__main__ import main

    assert main([str(tmp_path / "nope"), "--source", str(tmp_path)]) == 2
    (tmp_path / "porter.toml").write_text("[verify]\nkernal = 1\n")
    assert main([str(tmp_path), "--source", str(tmp_path), "--no-scan"]) == 2
    assert "verify.kernal: unknown key" in capsys.readouterr().err
