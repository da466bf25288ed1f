"""Executors: build a generated kernel driver against a unit, run it, and read what it printed.

One interface, three implementations, chosen by name (`EXECUTORS`):

- `cuda`: nvcc builds the driver as CUDA against the original unit (the reference).
- `hip-on-cuda`: nvcc builds the driver as HIP against the port, with porter's hip_on_cuda
  headers first on the include path, so a HIP port runs on an NVIDIA GPU with AMD wave64
  semantics; `.hip` files are compiled as CUDA (-x cu); the unit's kernels start with the
  emulation's exit guard, as porter's hip-on-cuda hipcc compiles them (`guard_driver`).
- `rocm`: hipcc (or amdclang++) from ROCm builds the port for gfx950 (or gfx942) to run on
  an AMD GPU.

A build is `porter.state.BuildResult` (a failed compile is data); a missing compiler raises
`porter.toolchains.ToolchainMissing`. A run is `RunResult`: the driver's stdout parsed by
`parse_run_output` (protocol in templates/driver.cu.tmpl), plus exit code and wall time.
`verdict()` turns two runs' timings into faster / slower / equal within noise.
"""

from __future__ import annotations

import re
import statistics
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from porter import hardware
from porter.state import BuildResult, Frozen, Timing
from porter.toolchains import find_tool, process
from porter.toolchains.hipcc import hip_on_cuda_dir, hip_on_cuda_flags
from porter.toolchains.nvcc import find_nvcc

BUILD_TIMEOUT_S = process.TIMEOUT_S
HIPCC_CANDIDATES = ("hipcc", "/opt/rocm/bin/hipcc", "amdclang++", "/opt/rocm/llvm/bin/amdclang++")


class RunResult(Frozen):
    """One run of a driver binary."""

    cmd: tuple[str, ...]
    rc: int
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    api: str = ""  # "cuda" | "hip": which API the driver was built against
    timings_ms: tuple[float, ...] = ()
    median_ms: float | None = None  # median of timings_ms, computed here
    outputs: dict[str, str] = {}  # argument name -> .npy path
    input_hashes: dict[str, str] = {}  # argument name -> fnv1a64 of its initial bytes
    done: bool = False  # the driver printed PORTER_DONE
    error: str = ""  # PORTER_ERROR lines from stderr, or why the run did not finish

    @property
    def ok(self) -> bool:
        return self.rc == 0 and self.done


@dataclass(frozen=True)
class ParsedRun:
    api: str = ""
    timings_ms: tuple[float, ...] = ()
    outputs: dict[str, str] = field(default_factory=dict)
    input_hashes: dict[str, str] = field(default_factory=dict)
    done: bool = False


_LINE = re.compile(r"^PORTER_(?P<tag>DRIVER|INPUT|OUTPUT|TIME_MS|MEDIAN_MS|DONE)\b ?(?P<rest>.*)$", re.M)


def parse_run_output(stdout: str) -> ParsedRun:
    """Read the driver's protocol lines; the unit's own prints in between are ignored."""
    api, timings, outputs, hashes, done = "", [], {}, {}, False
    for m in _LINE.finditer(stdout):
        tag, rest = m["tag"], m["rest"].strip()
        if tag == "DRIVER":
            api = rest.split()[0] if rest else ""
        elif tag == "INPUT":
            name, digest = rest.split(maxsplit=1)
            hashes[name] = digest
        elif tag == "OUTPUT":
            name, path = rest.split(maxsplit=1)
            outputs[name] = path
        elif tag == "TIME_MS":
            timings.append(float(rest))
        elif tag == "DONE":
            done = True
    return ParsedRun(api=api, timings_ms=tuple(timings), outputs=outputs, input_hashes=hashes, done=done)


class Executor(ABC):
    """Builds and runs kernel drivers on one kind of machine."""

    name: ClassVar[str]
    toolchain: ClassVar[str]  # BuildResult.toolchain
    driver_suffix: ClassVar[str]  # how the driver file is named for this executor

    @abstractmethod
    def find_compiler(self) -> Path:
        """The compiler; raises ToolchainMissing."""

    @abstractmethod
    def build_command(self, compiler: Path, unit_dir: Path, driver: Path, binary: Path) -> list[str]:
        """The compile-and-link command for `driver`, with `unit_dir` (the project root) on the include path."""

    def build(self, unit_dir: Path, driver: Path, workdir: Path) -> BuildResult:
        """Compile `driver` into `workdir`/driver. Raises only ToolchainMissing."""
        compiler = self.find_compiler()
        workdir.mkdir(parents=True, exist_ok=True)
        binary = workdir.resolve() / "driver"
        cmd = self.build_command(compiler, unit_dir.resolve(), driver.resolve(), binary)
        return process.build_result(self.toolchain, process.run(cmd, workdir, timeout=BUILD_TIMEOUT_S), [binary])

    def run_command(self, binary: Path, out_dir: Path) -> list[str]:
        return [str(binary), str(out_dir)]

    def run(self, binary: Path, workdir: Path, timeout: float) -> RunResult:
        """Run the driver in `workdir`; its .npy outputs go to `workdir`/out. A crash or timeout is data."""
        out_dir = workdir.resolve() / "out"
        out_dir.mkdir(parents=True, exist_ok=True)
        cmd = self.run_command(binary.resolve(), out_dir)
        done = process.run(cmd, workdir, timeout=timeout)
        return run_result(cmd, done.rc, done.stdout, done.stderr, done.seconds)


def run_result(cmd: list[str], rc: int, stdout: str, stderr: str, seconds: float) -> RunResult:
    """A RunResult from a finished process's output (also used on recorded output in tests)."""
    parsed = parse_run_output(stdout)
    errors = [line for line in stderr.splitlines() if line.startswith("PORTER_ERROR")]
    if not errors and rc != 0:
        errors = [f"exit code {rc}" + (f" (signal {-rc})" if rc < 0 else "") + (f": {stderr.strip()[-300:]}"
                                                                                if stderr.strip() else "")]
    elif not errors and not parsed.done:
        errors = ["the driver stopped before PORTER_DONE"]
    return RunResult(cmd=tuple(cmd), rc=rc, stdout=stdout, stderr=stderr, seconds=round(seconds, 3), api=parsed.api,
                     timings_ms=parsed.timings_ms,
                     median_ms=statistics.median(parsed.timings_ms) if parsed.timings_ms else None,
                     outputs=parsed.outputs, input_hashes=parsed.input_hashes, done=parsed.done,
                     error="\n".join(errors))


_NV_ARCH = re.compile(r"sm_\d{2,3}[af]?|native|all-major")
COMMON_FLAGS = ("-std=c++17", "-O3")


class CudaExecutor(Executor):
    """The original: the driver as CUDA, built by nvcc for an NVIDIA GPU."""

    name = "cuda"
    toolchain = "nvcc"
    driver_suffix = ".cu"

    def __init__(self, arch: str = "sm_90", extra_flags: tuple[str, ...] = ()) -> None:
        if not _NV_ARCH.fullmatch(arch):
            raise ValueError(f"arch {arch!r}: expected an NVIDIA target such as sm_90, or native")
        self.arch = arch
        self.extra_flags = tuple(extra_flags)

    def find_compiler(self) -> Path:
        return find_nvcc()

    def api_flags(self) -> list[str]:
        return []

    def build_command(self, compiler: Path, unit_dir: Path, driver: Path, binary: Path) -> list[str]:
        return [str(compiler), *COMMON_FLAGS, f"-arch={self.arch}", *self.api_flags(), *self.extra_flags,
                "-x", "cu", "-I", str(unit_dir), str(driver), "-o", str(binary)]


class HipOnCudaExecutor(CudaExecutor):
    """The port on an NVIDIA GPU: HIP source, nvcc, porter's headers emulating AMD wave64."""

    name = "hip-on-cuda"
    toolchain = "nvcc"
    driver_suffix = ".hip"

    def find_compiler(self) -> Path:
        hip_on_cuda_dir()  # a missing header set is a missing toolchain, found before nvcc runs
        return find_nvcc()

    def api_flags(self) -> list[str]:
        # PORTER_GPU_API_HIP selects the driver's HIP names; nvcc defines no HIP macro itself.
        return ["-DPORTER_GPU_API_HIP", *hip_on_cuda_flags(hip_on_cuda_dir())]

    def build(self, unit_dir: Path, driver: Path, workdir: Path) -> BuildResult:
        """As the CUDA build, with every kernel of the unit starting with hip_on_cuda's exit guard
        (`guard_driver`), as porter's hip-on-cuda hipcc builds a port; the guarded copies are
        removed after the build, kernels the transform could not instrument are named in stderr."""
        compiler = self.find_compiler()
        guarded, made, notes = guard_driver(unit_dir.resolve(), driver.resolve())
        try:
            workdir.mkdir(parents=True, exist_ok=True)
            binary = workdir.resolve() / "driver"
            cmd = self.build_command(compiler, unit_dir.resolve(), guarded, binary)
            result = process.build_result(self.toolchain, process.run(cmd, workdir, timeout=BUILD_TIMEOUT_S), [binary])
        finally:
            for path in made:
                path.unlink(missing_ok=True)
        return result.model_copy(update={"stderr": notes + result.stderr}) if notes else result


_QUOTED_INCLUDE = re.compile(r'^(\s*#\s*include\s*")([^"]+)(")', re.M)


def guard_driver(unit_dir: Path, driver: Path) -> tuple[Path, list[Path], str]:
    """A copy of `driver` whose quoted includes of files under `unit_dir` that define kernels name
    copies of them with hip_on_cuda's exit guard in every kernel (porter.toolchains.hoc_guard),
    written beside the originals so that their own includes resolve as before.

    Returns the driver to build, the files written (to delete after the build), and the
    transform's "not instrumented" lines. The driver is returned unchanged when no unit file
    defines a kernel.
    """
    from porter.toolchains.hipcc import guard_transform

    hoc_guard = guard_transform()
    if hoc_guard is None:
        return driver, [], ""
    text = driver.read_text()
    made: list[Path] = []
    notes = []

    def swap(m: re.Match[str]) -> str:
        src = unit_dir / m[2]
        if not src.is_file() or src.suffix not in (".cu", ".hip", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp"):
            return m[0]
        copy, said = hoc_guard.guarded_copy(src, str(src))
        notes.append(said)
        if copy is None:
            return m[0]
        made.append(copy)
        return m[1] + str(Path(m[2]).with_name(copy.name)) + m[3]

    new = _QUOTED_INCLUDE.sub(swap, text)
    if not made:
        return driver, [], "".join(notes)
    out = driver.with_name(f"{driver.stem}.guarded{driver.suffix}")
    out.write_text(new)
    made.append(out)
    return out, made, "".join(notes)


class RocmExecutor(Executor):
    """The port on an AMD GPU: hipcc (or amdclang++) from ROCm, for gfx950 by default."""

    name = "rocm"
    toolchain = "hipcc"
    driver_suffix = ".hip"

    def __init__(self, arch: str = "gfx950", extra_flags: tuple[str, ...] = ()) -> None:
        if arch not in hardware.amd_archs():
            raise ValueError(f"arch {arch!r}: porter ports for gfx950 and gfx942")
        self.arch = arch
        self.extra_flags = tuple(extra_flags)

    def find_compiler(self) -> Path:
        """$PORTER_HIPCC, then hipcc on PATH, ROCm's hipcc, then amdclang++."""
        return find_tool("hipcc", "PORTER_HIPCC", HIPCC_CANDIDATES)

    def build_command(self, compiler: Path, unit_dir: Path, driver: Path, binary: Path) -> list[str]:
        # amdclang++ is clang: it links a HIP program only when told to (hipcc adds this itself).
        link = ["--hip-link"] if compiler.name.startswith("amdclang") else []
        return [str(compiler), *COMMON_FLAGS, f"--offload-arch={self.arch}", *self.extra_flags, *link,
                "-x", "hip", "-I", str(unit_dir), str(driver), "-o", str(binary)]


EXECUTORS: dict[str, type[Executor]] = {e.name: e for e in (CudaExecutor, HipOnCudaExecutor, RocmExecutor)}


def get_executor(name: str, arch: str | None = None) -> Executor:
    if name not in EXECUTORS:
        raise ValueError(f"executor {name!r}: expected one of {', '.join(EXECUTORS)}")
    cls = EXECUTORS[name]
    return cls() if arch is None else cls(arch=arch)  # type: ignore[call-arg]


# ---------------------------------------------------------------------------------- timing

# Two medians closer than this are equal: clock boost varies run to run by a few percent.
MIN_NOISE = 0.03
# ... or closer than this in absolute terms: a pair of events around one launch jitters by a
# microsecond or two. Measured on an H200: the same 6 us kernel built twice timed 0.78x.
ABS_NOISE_MS = 0.002


class TimingVerdict(Frozen):
    verdict: Timing  # the port, against the baseline
    port_median_ms: float
    baseline_median_ms: float
    ratio: float  # port / baseline: < 1 is faster
    noise: float  # the relative band within which the two count as equal
    port_runs: int
    baseline_runs: int


def relative_spread(timings: tuple[float, ...] | list[float]) -> float:
    """Interquartile range over the median: a noise measure that ignores the odd preempted run."""
    if len(timings) < 4:
        return 0.0
    q1, med, q3 = statistics.quantiles(timings, n=4, method="inclusive")
    return (q3 - q1) / med if med > 0 else 0.0


def verdict(port: RunResult, baseline: RunResult) -> TimingVerdict | None:
    """faster / slower / equal within noise, for two runs of the same driver (None without timings).

    ratio = port median / baseline median; noise = max(MIN_NOISE, ABS_NOISE_MS / baseline median,
    the relative IQR of either run). |ratio - 1| <= noise is "equal"; below that band "faster",
    above it "slower".
    """
    if not port.median_ms or not baseline.median_ms:
        return None
    ratio = port.median_ms / baseline.median_ms
    noise = max(MIN_NOISE, ABS_NOISE_MS / baseline.median_ms, relative_spread(port.timings_ms),
                relative_spread(baseline.timings_ms))
    kind: Timing = "equal" if abs(ratio - 1.0) <= noise else ("faster" if ratio < 1.0 else "slower")
    return TimingVerdict(verdict=kind, port_median_ms=port.median_ms, baseline_median_ms=baseline.median_ms,
                         ratio=round(ratio, 4), noise=round(noise, 4), port_runs=len(port.timings_ms),
                         baseline_runs=len(baseline.timings_ms))
