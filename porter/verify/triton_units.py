"""Verify one ported Triton unit (a Python module) from its `[[verify.triton]]` specs, without a GPU.

For each spec entry (one @triton.jit kernel of the module) three independent jobs run, each in
its own subprocess, concurrently:

- the gfx950 AOT compile of the PORT (`porter.toolchains.triton_aot.compile_kernel`): the
  kernel's `KernelResources` (VGPRs, AGPRs, LDS, spills, occupancy, v_mfma count), with the
  unit path relative to the project root;
- the sm_90 AOT compile of the ORIGINAL, the control: its `PtxResources`, summarised as a line
  of text for the report (registers, spills, shared memory, mma/wgmma count);
- the numerics: original and port run under TRITON_INTERPRET=1 on the same seeded inputs
  (`porter.verify.triton_interp.run_interpreted`), the port's outputs compared with the
  original's (`compare_arrays`, the spec's tolerance class), as a `porter.state.KernelCheck`
  with executor "triton-interpreter".

Failures are data: a compile that fails is a failed BuildResult, a side that raises under the
interpreter is a check status (port-run-failed, or baseline-failed when the original itself
cannot run), a missing triton/torch is "not-checked".

Autotuned and heuristics-wrapped kernels: `triton.autotune` / `triton.heuristics` return
wrappers that neither ASTSource nor an explicit-constexpr launch accepts (the autotuner refuses
meta-parameters it tunes). Each side is therefore loaded through a small generated module that
imports the real file by path and exposes the innermost @triton.jit function under the kernel's
name; the spec's constexprs stand for the config the autotuner would have picked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from porter.state import BuildResult, Frozen, KernelCheck, KernelResources, KernelStatus, UnitResult, UnitVerdict
from porter.toolchains import ToolchainMissing
from porter.toolchains.triton_aot import PtxResources, Specialisation, TritonAotOptions, compile_kernel
from porter.verify.compare import Comparison, compare_arrays
from porter.verify.spec import ArrayArg, TritonSpec
from porter.verify.triton_interp import InterpCheck, TritonLaunch, run_interpreted

EXECUTOR = "triton-interpreter"
PORT_TARGET = "gfx950"
CONTROL_TARGET = "sm_90"


class TritonKernelResult(Frozen):
    """One `[[verify.triton]]` entry: both compiles and the numerics."""

    kernel: str  # the @triton.jit function
    label: str  # the entry's name (the kernel's, unless the spec names it)
    port_build: BuildResult | None = None  # gfx950 AOT compile of the port
    resources: KernelResources | None = None
    original_build: BuildResult | None = None  # sm_90 AOT compile of the original (the control)
    control: PtxResources | None = None
    control_summary: str = ""  # the control as one line of text, for the report
    interp: BuildResult | None = None  # the interpreter process (both sides)
    comparisons: tuple[Comparison, ...] = ()
    check: KernelCheck


class TritonUnitResult(Frozen):
    """The verifier's evidence for one Triton module; `unit_result()` is the state's form."""

    unit: str
    verdict: UnitVerdict
    kernels: tuple[TritonKernelResult, ...] = ()
    failure_class: str = ""  # triton-compile | port-run-failed | mismatch
    reason: str = ""

    def unit_result(self) -> UnitResult:
        def first(builds: list[BuildResult | None]) -> BuildResult | None:
            present = [b for b in builds if b is not None]
            return next((b for b in present if not b.ok), present[0] if present else None)

        return UnitResult(unit=self.unit, verdict=self.verdict,
                          port_build=first([k.port_build for k in self.kernels]),
                          original_build=first([k.original_build for k in self.kernels]),
                          kernels=tuple(k.resources for k in self.kernels if k.resources is not None),
                          checks=tuple(k.check for k in self.kernels),
                          controls=tuple(f"{k.kernel}: {k.control_summary}" for k in self.kernels if k.control_summary),
                          failure_class=self.failure_class, reason=self.reason)


# ------------------------------------------------------------------------------------ verification

def verify_triton_unit(source_root: Path, port_root: Path, entries: list[TritonSpec], workdir: Path, *,
                       unit: str | None = None, max_workers: int | None = None) -> TritonUnitResult:
    """Compile and check every entry of one module (all `entries` name the same module).

    `unit` names the module when `entries` is empty (the result is then "not-checked"). Stage
    texts, request files and .npy inputs/outputs are kept under `workdir/<label>/`.
    """
    modules = {e.module for e in entries}
    if len(modules) > 1:
        raise ValueError(f"entries of several modules: {', '.join(sorted(modules))}")
    unit = unit or (entries[0].module if entries else None)
    if unit is None:
        raise ValueError("no entries and no unit")
    if entries and unit != entries[0].module:
        raise ValueError(f"unit {unit!r} but the entries are for {entries[0].module!r}")
    if not entries:
        return TritonUnitResult(unit=unit, verdict="not-checked", reason="no [[verify.triton]] spec: not exercised")
    source, port = Path(source_root).resolve() / unit, Path(port_root).resolve() / unit
    for side, path in (("original", source), ("port", port)):
        if not path.is_file():
            return TritonUnitResult(unit=unit, verdict="not-checked", reason=f"the {side} has no {unit}")
    workdir = Path(workdir).resolve()
    jobs = len(entries) * 3
    try:
        with ThreadPoolExecutor(max_workers=max_workers or min(jobs, max(2, os.cpu_count() or 2))) as pool:
            futures = [(e, pool.submit(_port_compile, e, port, workdir / e.label),
                        pool.submit(_control_compile, e, source, workdir / e.label),
                        pool.submit(_numerics, e, source, port, workdir / e.label)) for e in entries]
            results = [_kernel_result(e, unit, pc.result(), cc.result(), nc.result()) for e, pc, cc, nc in futures]
    except ToolchainMissing as e:
        return TritonUnitResult(unit=unit, verdict="not-checked", reason=str(e))
    return _unit_result(unit, results)


def _unit_result(unit: str, results: list[TritonKernelResult]) -> TritonUnitResult:
    broken = [r for r in results if r.port_build is None or not r.port_build.ok]
    if broken:
        b = broken[0].port_build
        return TritonUnitResult(unit=unit, verdict="failed", kernels=tuple(results), failure_class="triton-compile",
                                reason=f"{broken[0].label}: gfx950 compile failed: {_last_line(b.stderr if b else '')}")
    for status in ("port-run-failed", "mismatch"):
        bad = [r for r in results if r.check.status == status]
        if bad:
            return TritonUnitResult(unit=unit, verdict="failed", kernels=tuple(results), failure_class=status,
                                    reason=f"{bad[0].label}: {bad[0].check.reason}")
    return TritonUnitResult(unit=unit, verdict="compiled", kernels=tuple(results))


def _kernel_result(e: TritonSpec, unit: str, port: tuple, control: tuple, numerics: tuple) -> TritonKernelResult:
    port_build, resources = port
    original_build, ptx = control
    interp, comparisons, check = numerics
    if isinstance(resources, KernelResources):
        resources = resources.model_copy(update={"unit": unit, "kernel": resources.kernel or e.kernel})
    if isinstance(ptx, PtxResources):
        ptx = ptx.model_copy(update={"unit": unit})
    return TritonKernelResult(
        kernel=e.kernel, label=e.label, port_build=port_build,
        resources=resources if isinstance(resources, KernelResources) else None,
        original_build=original_build, control=ptx if isinstance(ptx, PtxResources) else None,
        control_summary=control_summary(ptx) if isinstance(ptx, PtxResources) else
        f"{CONTROL_TARGET} compile failed: {_last_line(original_build.stderr)}",
        interp=interp, comparisons=comparisons, check=check)


def control_summary(r: PtxResources) -> str:
    """The NVIDIA control as one line: `sm_90a: 40 registers, spills 0/0 B, 0 B shared, no mma`."""
    regs = f"{r.registers} registers" if r.registers is not None else "registers unknown (ptxas not run)"
    spills = (f"spills {r.spill_store_bytes}/{r.spill_load_bytes} B (store/load)"
              if r.spill_store_bytes is not None else "spills unknown")
    mma = ", ".join(f"{op} x{n}" for op, n in r.mma_kinds) if r.mma_kinds else "no mma"
    return f"{r.ptx_target or r.arch}: {regs}, {spills}, {r.shared_bytes} B shared, {mma}"


# ------------------------------------------------------------------------------------ the three jobs

def _specialisation(e: TritonSpec, side: str) -> Specialisation:
    return Specialisation(signature=e.signature_types(), constexprs=e.constexprs_of(side),  # type: ignore[arg-type]
                          divisible_by_16=frozenset(e.divisible_by_16))


def _port_compile(e: TritonSpec, port: Path, workdir: Path) -> tuple[BuildResult, object]:
    shim = _shim(port, e.kernel, workdir / "shim-port")
    opts = TritonAotOptions(target=PORT_TARGET, num_warps=e.num_warps_of("port"), num_stages=e.num_stages_of("port"),
                            waves_per_eu=e.waves_per_eu)
    return compile_kernel(shim, e.kernel, _specialisation(e, "port"), opts, workdir / f"port-{PORT_TARGET}")


def _control_compile(e: TritonSpec, source: Path, workdir: Path) -> tuple[BuildResult, object]:
    shim = _shim(source, e.kernel, workdir / "shim-original")
    opts = TritonAotOptions(target=CONTROL_TARGET, num_warps=e.num_warps_of("original"),
                            num_stages=e.num_stages_of("original"))
    return compile_kernel(shim, e.kernel, _specialisation(e, "original"), opts, workdir / f"original-{CONTROL_TARGET}")


def _numerics(e: TritonSpec, source: Path, port: Path, workdir: Path
              ) -> tuple[BuildResult | None, tuple[Comparison, ...], KernelCheck]:
    if not e.interpret:
        return None, (), KernelCheck(kernel=e.label, executor=EXECUTOR, status="not-checked",
                                     reason="interpret = false in the spec: compiled only")
    check = InterpCheck(args=tuple(e.args), sizes=e.sizes, outputs=tuple(e.output_names), tolerance=e.tolerance,
                        depth=e.depth_value(), rtol=e.rtol, atol=e.atol, seed=e.seed)
    interp_dir = workdir / "interp"
    shutil.rmtree(interp_dir, ignore_errors=True)  # which side failed is read from the outputs present
    launches = {side: TritonLaunch(src=_shim(path, e.kernel, workdir / f"shim-{side}"), kernel=e.kernel,
                                   grid=e.grid_exprs(side), constexprs=e.constexprs_of(side))  # type: ignore[arg-type]
                for side, path in (("original", source), ("port", port))}
    run = run_interpreted(launches, check, interp_dir)
    if not run.build.ok:
        original_done = all((interp_dir / "original" / f"out_{n}.npy").is_file() for n in e.output_names)
        status: KernelStatus = "port-run-failed" if original_done else "baseline-failed"
        who = "the port" if original_done else "the original"
        return run.build, (), KernelCheck(kernel=e.label, executor=EXECUTOR, status=status,
                                          reason=f"{who} failed under the interpreter: {_last_line(run.build.stderr)}")
    comparisons = []
    for name in e.output_names:
        arg = next(a for a in e.args if a.name == name)
        assert isinstance(arg, ArrayArg)
        comparisons.append(compare_arrays(
            np.load(run.outputs["original"][name], allow_pickle=False),
            np.load(run.outputs["port"][name], allow_pickle=False),
            name=name, dtype=arg.dtype, cls=e.tolerance, depth=e.depth_value(), rtol=e.rtol, atol=e.atol))
    failed = [c for c in comparisons if not c.passed]
    worst = max(failed or comparisons, key=lambda c: (c.mismatches, c.max_abs_error))
    reason = "; ".join(f"{c.name}: {c.reason or f'{c.mismatches} of {c.elements} elements out of tolerance'}"
                       for c in failed)
    return run.build, tuple(comparisons), KernelCheck(
        kernel=e.label, executor=EXECUTOR, status="mismatch" if failed else "pass",
        max_abs_error=max(c.max_abs_error for c in comparisons),
        max_rel_error=max(c.max_rel_error for c in comparisons),
        worst_index=worst.worst_index, reason=reason)


# ------------------------------------------------------------------------------------ the shim module

_SHIM = '''"""porter: load {src} and expose its kernel {kernel} unwrapped (autotune/heuristics)."""
import importlib.util as _util
import sys as _sys

_SRC = {src_json}
_sys.path.insert(0, {dir_json})
_spec = _util.spec_from_file_location({modname_json}, _SRC)
_module = _util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
try:
    _kernel = getattr(_module, {kernel_json})
except AttributeError:
    raise LookupError(_SRC + ": no kernel named " + {kernel_json}) from None
from triton.runtime.autotuner import Autotuner as _Autotuner, Heuristics as _Heuristics
while isinstance(_kernel, (_Autotuner, _Heuristics)):
    _kernel = _kernel.fn
{kernel} = _kernel
'''


def _shim(src: Path, kernel: str, folder: Path) -> Path:
    """A module that imports `src` by path and binds the innermost @triton.jit function to `kernel`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"porter_shim_{kernel}.py"
    modname = re.sub(r"\W", "_", f"porter_src_{folder.name}_{src.stem}")
    path.write_text(_SHIM.format(src=src.name, kernel=kernel, src_json=json.dumps(str(src)),
                                 dir_json=json.dumps(str(src.parent)), modname_json=json.dumps(modname),
                                 kernel_json=json.dumps(kernel)))
    return path


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:500] if lines else "(no message)"


__all__ = ["EXECUTOR", "TritonKernelResult", "TritonUnitResult", "control_summary", "verify_triton_unit"]
