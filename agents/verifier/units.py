"""The verifier's per-unit checks, fanned out through the run's dispatcher (porter.cluster).

Each C/C++/CUDA unit is two tasks: its port compiled for the target by clang 22 (`clang22`
resource) and its original built by nvcc (`nvcc` resource); a Triton module is one task (AOT
compiles and interpreter numerics, CPU only). In-process the tasks read the output and source
trees where they are and write their build products under `OUT/.porter` (build/, and
estimate/ for the direct hipify's compile behind a HIP estimate), as porter always has. On Ray
a task reads snapshots of the two trees (every file up to `cluster.MAX_SHIPPED_BYTES`) and writes
to a scratch directory; it returns its UnitResult with the driver's paths and the files it wrote
as bytes, which the driver puts under `OUT/.porter`.

A missing toolchain is not an error of the port, in-process or on a cluster: a unit whose
compiler is absent, that no node of the cluster can compile, or whose task was lost twice with
its node is "not-checked", with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from porter import cluster
from porter.includes import is_extension
from porter.perfmodel.isa import KernelIsa
from porter.state import BuildResult, Frozen, KernelResources, PerfEstimate, PortState, UnitResult
from porter.syntax import SourceFile, lang_for
from porter.toolchains import ToolchainMissing, clang_hip, nvcc
from porter.verify.failures import first_error, toolchain_gap
from porter.workspace import Workspace


@dataclass(frozen=True)
class UnitJob:
    """What every unit's task shares: the trees, where build products go, the target."""

    port: cluster.Tree
    original: cluster.Tree
    hipify: cluster.Tree | None  # the direct hipify, baseline of the HIP estimates (hipify_tree)
    state: str  # the driver's OUT/.porter: builds go to build/<unit>/, estimate compiles to estimate/<unit>/
    arch: str


class OriginalBuild(Frozen):
    """The original's nvcc build of a unit; None when nvcc is absent."""

    build: BuildResult | None = None


def check_units(state: PortState, ws: Workspace, todo: list[str],
                on_done: Callable[[int, int, str], None]) -> dict[str, UnitResult]:
    """Every unit in `todo` compiled (or checked, for Triton), results in `todo`'s order."""
    dispatcher = cluster.current()
    job = _job(dispatcher, state, ws, todo)
    results: dict[str, UnitResult] = {}
    triton = [u for u in todo if u.endswith(".py")]
    cuda = []
    for unit in todo:
        if unit in triton:
            continue
        if is_extension(SourceFile(unit, (ws.root / unit).read_bytes(), lang_for(unit) or "cpp")):
            results[unit] = UnitResult(
                unit=unit, verdict="not-checked",
                reason="PyTorch extension unit: compiling it needs PyTorch's ROCm headers (ATen/hip), "
                       "which no installable torch build here ships; build it with a ROCm PyTorch")
        else:
            cuda.append(unit)
    finished = [0]

    def done(_i: int, _n: int, unit: str) -> None:
        finished[0] += 1
        on_done(finished[0], len(todo), unit)

    for unit in results:
        done(0, 0, unit)
    ports = _run(dispatcher, port_compile, cuda, cluster.GFX950_COMPILE, job, done)
    compiled = [u for u in cuda if ports[u].port_build is not None]
    originals = _run(dispatcher, original_build, compiled, cluster.NVCC_BUILD, job, None)
    for unit in cuda:
        result = ports[unit]
        original = originals.get(unit)
        if isinstance(original, OriginalBuild) and original.build is not None:
            result = result.model_copy(update={"original_build": original.build})
        results[unit] = result
    results.update(_run(dispatcher, triton_check, triton, cluster.TRITON_CHECK, job, done))
    return {u: results[u] for u in todo}


def _job(dispatcher: cluster.Dispatcher, state: PortState, ws: Workspace, todo: list[str]) -> UnitJob:
    source = Path(state.source)
    port = dispatcher.tree(ws.root, cluster.shipped_paths(ws.root))
    original = dispatcher.tree(source, cluster.shipped_paths(source))
    hipify = hipify_tree(ws, todo)  # written by the driver, under OUT/.porter
    return UnitJob(port=port, original=original,
                   hipify=dispatcher.tree(hipify, cluster.shipped_paths(hipify)) if hipify else None,
                   state=str(ws.state_dir), arch=state.options.arch)


def _run(dispatcher: cluster.Dispatcher, fn, units: list[str], resources: cluster.Resources, job: UnitJob,
         on_done) -> dict[str, object]:
    """`fn` over `units` on the dispatcher; the results landed, a task that gave none "not-checked"."""
    if not units:
        return {}
    try:
        returned = dispatcher.map(fn, units, resources=resources, shared=job, on_done=on_done)
    except cluster.ClusterError as e:
        returned = [cluster.TaskFailed(str(e))] * len(units)
    out: dict[str, object] = {}
    for unit, r in zip(units, returned):
        if isinstance(r, cluster.TaskFailed):
            out[unit] = UnitResult(unit=unit, verdict="not-checked", reason=r.reason) \
                if fn is not original_build else OriginalBuild()
        else:
            out[unit] = r.land()
    return out


def port_compile(job: UnitJob, unit: str) -> cluster.Returned[UnitResult]:
    """The port of `unit` compiled for the target by clang 22; kernels' resources and, for a unit
    with a kernel spec, the HIP estimates against the direct hipify, on success."""
    trees = {"port": job.port, **({"hipify": job.hipify} if job.hipify else {})}
    with cluster.task_places(trees, job.state) as (local, scratch, finish):
        ported = local["port"] / unit
        try:
            port_build, kernels = clang_hip.compile_unit(
                ported, clang_hip.ClangHipOptions(arch=job.arch, include_dirs=(str(ported.parent),)),
                scratch.path / "build" / unit / "port")
        except ToolchainMissing as e:
            return finish(UnitResult(unit=unit, verdict="not-checked", reason=str(e)))
        if port_build.ok:
            return finish(UnitResult(
                unit=unit, verdict="compiled", port_build=port_build,
                kernels=tuple(k.model_copy(update={"unit": unit}) for k in kernels),
                estimates=hip_estimates(job.arch, local["port"], unit, port_build, kernels, local.get("hipify"),
                                        scratch.path)))
        error = first_error(port_build.stderr)
        if gap := toolchain_gap(error):
            return finish(UnitResult(unit=unit, verdict="not-checked", port_build=port_build, reason=gap))
        return finish(UnitResult(
            unit=unit, verdict="failed", port_build=port_build, failure_class=error.failure_class if error else "other",
            reason=f"{error.file}:{error.line}:{error.column}: {error.message}" if error else port_build.stderr[-500:]))


def original_build(job: UnitJob, unit: str) -> cluster.Returned[OriginalBuild]:
    """The original of `unit` built by nvcc (compile only)."""
    with cluster.task_places({"original": job.original}, job.state) as (trees, scratch, finish):
        original = trees["original"] / unit
        try:
            build = nvcc.compile_unit(original, nvcc.NvccOptions(include_dirs=(str(original.parent),)),
                                      scratch.path / "build" / unit / "original")
        except ToolchainMissing:
            build = None
        return finish(OriginalBuild(build=build))


def triton_check(job: UnitJob, unit: str) -> cluster.Returned[UnitResult]:
    """A Triton module: each [[verify.triton]] kernel compiled for gfx950 (the PTX build of the
    original as the control) and run under Triton's interpreter against the original. A GEMM-like
    kernel also gets the perfmodel's estimate of its gfx950 time against the direct hipify's
    (agents/verifier/estimate.py): a prediction, labelled as one, that never fails the unit."""
    from porter.agents.verifier.estimate import estimate_kernel
    from porter.verify.spec import SpecError, load_spec
    from porter.verify.triton_units import verify_triton_unit

    with cluster.task_places({"port": job.port, "original": job.original}, job.state) as (trees, scratch, finish):
        port_root, source_root = trees["port"], trees["original"]
        try:
            entries = load_spec(port_root).triton_for(unit)
        except SpecError as e:
            return finish(UnitResult(unit=unit, verdict="not-checked", reason=f"bad verify spec: {e}"))
        if not entries:
            return finish(UnitResult(
                unit=unit, verdict="not-checked",
                reason="Triton module with no [[verify.triton]] spec in porter.toml: nothing says how to launch it"))
        result = verify_triton_unit(source_root, port_root, entries, scratch.path / "build" / unit, unit=unit).unit_result()
        original, port = source_root / unit, port_root / unit
        if not (original.is_file() and port.is_file()):
            return finish(result)
        texts = original.read_text(encoding="utf-8"), port.read_text(encoding="utf-8")
        estimates = tuple(e for entry in entries if (e := estimate_kernel(entry, *texts)) is not None)
        return finish(result.model_copy(update={"estimates": estimates}))


def hipify_tree(ws: Workspace, units: list[str]) -> Path | None:
    """The translator-only tree (the direct hipify), written once per verifier pass when a C++ unit
    to verify has a [[verify.kernel]] spec: the baseline of the HIP estimates."""
    from porter.verify.spec import SpecError, load_spec

    if not (ws.root / "porter.toml").is_file():
        return None
    try:
        wanted = {k.unit for k in load_spec(ws.root).kernels} & {u for u in units if not u.endswith(".py")}
    except SpecError:
        return None
    return ws.snapshot(ws.state_dir / "estimate" / "hipify", agents={"translator"}) if wanted else None


def hip_estimates(arch: str, port_root: Path, unit: str, port_build: BuildResult, kernels: list[KernelResources],
                  hipify: Path | None, state_dir: Path) -> tuple[PerfEstimate, ...]:
    """For each [[verify.kernel]] of the unit (the spec of `port_root`), the perfmodel's estimate of
    the port's gfx950 time against the direct hipify's (the translator-only tree `hipify`, written
    by `hipify_tree`, compiled the same way under `state_dir`), from both assemblies' instruction
    mix (agents/verifier/estimate.py): a prediction, labelled as one, that never fails the unit.
    No spec entry, no estimate."""
    from porter.agents.verifier.estimate import estimate_hip_kernel, kernel_named
    from porter.verify.spec import SpecError, load_spec

    try:
        entries = [k for k in load_spec(port_root).kernels if k.unit == unit]
    except SpecError:
        return ()  # the numerics check reports a bad spec
    if not entries or hipify is None:  # hipify_tree writes the tree whenever a spec names a unit to verify
        return ()
    opts = clang_hip.ClangHipOptions(arch=arch)
    port = clang_hip.kernel_isa(Path(port_build.artifacts[0]).read_text(), kernels)
    base_src = hipify / unit
    baseline: dict[str, KernelIsa] = {}
    error = ""
    if base_src.is_file():
        base_build, base_kernels = clang_hip.compile_unit(
            base_src, replace(opts, include_dirs=(base_src.parent,)), state_dir / "estimate" / unit / "build")
        if base_build.ok:
            baseline = clang_hip.kernel_isa(Path(base_build.artifacts[0]).read_text(), base_kernels)
        else:
            err = first_error(base_build.stderr)
            error = f"the direct hipify does not compile for {opts.arch}" + (f": {err.message}" if err else "")
    else:
        error = "the direct hipify has no such unit"
    return tuple(estimate_hip_kernel(e, kernel_named(port, e.name), kernel_named(baseline, e.name), error, opts.arch)
                 for e in entries)
