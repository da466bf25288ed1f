"""Check a ported Triton kernel's numbers on the CPU with Triton's interpreter (TRITON_INTERPRET=1).

Where no GPU is present, the verifier runs the original kernel and its port through the
interpreter on the same seeded inputs and compares every output with
`porter.verify.compare.compare_arrays` (the original is the reference). The inputs are
described like a CUDA kernel's (`porter.verify.spec.ArrayArg` / `ScalarArg`: dtype, shape,
initialiser); each side has its own `TritonLaunch` (file, kernel, grid, constexprs), because a
port may retile (a different BLOCK_M changes the grid).

Why a subprocess, not importlib in this process: `@triton.jit` picks the interpreter
(`InterpretedFunction`) when it decorates, from `knobs.runtime.interpret`, so TRITON_INTERPRET
must be set before the kernel's module is executed. Setting it in porter's own process would
flip every Triton kernel imported afterwards and race with other graph nodes; a module imported
earlier in compiled mode would be served from sys.modules; and the bf16 fix below patches
Triton's interpreter, which should not leak. A fresh interpreter process (one for both sides,
so the inputs are generated once) also bounds a hung or crashing kernel with a timeout and
turns it into data. The cost is one Python start with torch and triton, about 2 s.

bf16 tl.dot: Triton 3.9's interpreter keeps bf16 tensors as their uint16 bit patterns
(`_get_np_dtype`) and `InterpreterBuilder.create_dot` calls np.matmul on them directly, so it
multiplies integers (2^14-sized values) instead of the numbers they encode. With `bf16_dot_fix`
porter replaces create_dot for bf16 operands or accumulators: operands widen exactly to
float32 (a bf16 is the top half of an f32), the product accumulates in float32 as MFMA and
Tensor Cores do, and a bf16 accumulator is rounded back to nearest even.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import numpy as np

from porter.state import BuildResult, Frozen
from porter.toolchains import process
from porter.toolchains.triton_aot import load_kernel, require_python_packages, run_worker
from porter.verify.compare import NPY_DTYPES, Comparison, compare_arrays
from porter.verify.spec import ArrayArg, Expr, ScalarArg, ToleranceClass, evaluate_int

TOOLCHAIN = "triton-interpret"
RUN_TIMEOUT_S = process.TIMEOUT_S
SIDES = ("original", "port")


@dataclass(frozen=True)
class TritonLaunch:
    """One side of a check: which kernel, its constexprs, and its grid.

    Grid extents are expressions over the check's sizes and this launch's integer constexprs,
    e.g. ("ceil_div(M, BLOCK_M)", "ceil_div(N, BLOCK_N)").
    """

    src: Path
    kernel: str
    grid: tuple[Expr, ...]
    constexprs: Mapping[str, int | float | bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "src", Path(self.src))
        object.__setattr__(self, "grid", tuple(self.grid))
        object.__setattr__(self, "constexprs", MappingProxyType(dict(self.constexprs)))
        if not self.kernel.isidentifier():
            raise ValueError(f"kernel {self.kernel!r}: expected a Python name")
        if not 1 <= len(self.grid) <= 3:
            raise ValueError(f"grid {self.grid}: expected 1 to 3 extents")
        for name, value in self.constexprs.items():
            if not name.isidentifier() or not isinstance(value, int | float | bool):
                raise ValueError(f"constexprs: {name} = {value!r}: expected a name and a number or bool")

    def grid_dims(self, sizes: Mapping[str, int]) -> tuple[int, ...]:
        names = {**sizes, **{k: v for k, v in self.constexprs.items() if type(v) is int}}
        dims = tuple(evaluate_int(g, names, "grid") for g in self.grid)
        if any(d < 1 for d in dims):
            raise ValueError(f"grid {self.grid} evaluates to {dims}: every extent must be >= 1")
        return dims


@dataclass(frozen=True)
class InterpCheck:
    """The kernel arguments (by name, passed as keywords), the outputs to compare and how."""

    args: tuple[ArrayArg | ScalarArg, ...]
    sizes: Mapping[str, int] = field(default_factory=dict)
    outputs: tuple[str, ...] = ()  # default: every out/inout array
    tolerance: ToleranceClass = "elementwise"
    depth: Expr = 1  # terms per output element: K of a GEMM, n of a reduction
    rtol: float | None = None
    atol: float | None = None
    seed: int = 0
    bf16_dot_fix: bool = True
    timeout_s: int = RUN_TIMEOUT_S

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "sizes", MappingProxyType(dict(self.sizes)))
        object.__setattr__(self, "outputs", tuple(self.outputs))
        names = [a.name for a in self.args]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate argument names in {names}")
        writable = [a.name for a in self.args if isinstance(a, ArrayArg) and a.intent != "in"]
        for out in self.outputs:
            if out not in writable:
                raise ValueError(f"output {out!r} is not an out/inout array argument")
        if not self.output_names:
            raise ValueError("no output: give an array intent=\"out\" or \"inout\"")
        for a in self.args:
            if isinstance(a, ArrayArg):
                self.shape_of(a)
            elif a.dtype[0] in "iu":
                evaluate_int(a.value, dict(self.sizes), a.name)
        if evaluate_int(self.depth, dict(self.sizes), "depth") < 1:
            raise ValueError(f"depth {self.depth!r} must be >= 1")
        if not 0 <= self.seed < 2**63:
            raise ValueError(f"seed {self.seed}: expected 0 <= seed < 2**63")
        if not 1 <= self.timeout_s <= 3600:
            raise ValueError(f"timeout_s {self.timeout_s}: expected 1..3600")
        for tol in (self.rtol, self.atol):
            if tol is not None and tol < 0:
                raise ValueError("rtol and atol must be >= 0")

    @property
    def output_names(self) -> tuple[str, ...]:
        return self.outputs or tuple(a.name for a in self.args if isinstance(a, ArrayArg) and a.intent != "in")

    def shape_of(self, a: ArrayArg) -> tuple[int, ...]:
        shape = tuple(evaluate_int(d, dict(self.sizes), f"shape of {a.name}") for d in a.shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"argument {a.name}: negative extent in {shape}")
        return shape


class InterpRun(Frozen):
    """One interpreter process: the build-like record and, per side, its input and output .npy files."""

    build: BuildResult
    inputs: dict[str, str] = {}  # argument name -> .npy (shared by both sides)
    outputs: dict[str, dict[str, str]] = {}  # side -> output name -> .npy


class InterpResult(Frozen):
    run: InterpRun
    comparisons: tuple[Comparison, ...] = ()
    passed: bool = False
    reason: str = ""


def check_port(original: TritonLaunch, port: TritonLaunch, check: InterpCheck, workdir: Path) -> InterpResult:
    """Run both kernels under the interpreter on the same inputs and compare the port's outputs."""
    run = run_interpreted({"original": original, "port": port}, check, workdir)
    if not run.build.ok:
        return InterpResult(run=run, reason=f"interpreter run failed (rc {run.build.rc})")
    depth = evaluate_int(check.depth, dict(check.sizes), "depth")
    comparisons = []
    for name in check.output_names:
        dtype = next(a.dtype for a in check.args if a.name == name)
        comparisons.append(compare_arrays(
            np.load(run.outputs["original"][name], allow_pickle=False),
            np.load(run.outputs["port"][name], allow_pickle=False),
            name=name, dtype=dtype, cls=check.tolerance, depth=depth, rtol=check.rtol, atol=check.atol))
    failed = [c.name for c in comparisons if not c.passed]
    return InterpResult(run=run, comparisons=tuple(comparisons), passed=not failed,
                        reason=f"mismatch in {', '.join(failed)}" if failed else "")


def run_interpreted(launches: Mapping[str, TritonLaunch], check: InterpCheck, workdir: Path) -> InterpRun:
    """Run each named launch in one TRITON_INTERPRET=1 process; inputs and outputs land as .npy.

    A kernel that fails to import or raises is a failed BuildResult with the traceback in stderr.
    Raises ToolchainMissing when this Python cannot import triton and torch.
    """
    require_python_packages("triton", "torch")
    workdir = workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    request = {
        "seed": check.seed, "bf16_dot_fix": check.bf16_dot_fix, "out": str(workdir),
        "args": [_arg_request(a, check) for a in check.args], "outputs": list(check.output_names),
        "launches": {side: {"src": str(launch.src.resolve()), "kernel": launch.kernel,
                            "grid": list(launch.grid_dims(check.sizes)), "constexprs": dict(launch.constexprs)}
                     for side, launch in launches.items()},
    }
    request_file = workdir / "interpret.request.json"
    request_file.write_text(json.dumps(request, indent=1))
    done = run_worker("porter.verify.triton_interp", request_file, workdir, check.timeout_s,
                      set_env={"TRITON_INTERPRET": "1"})
    inputs = {a.name: str(workdir / f"in_{a.name}.npy") for a in check.args if isinstance(a, ArrayArg)}
    outputs = {side: {n: str(workdir / side / f"out_{n}.npy") for n in check.output_names} for side in launches}
    files = [*inputs.values(), *(p for side in outputs.values() for p in side.values())]
    ok = done.rc == 0 and all(Path(p).is_file() for p in files)
    build = BuildResult(toolchain=TOOLCHAIN, cmd=done.cmd, rc=done.rc or (0 if ok else 1),
                        stdout=done.stdout, stderr=done.stderr, artifacts=tuple(files) if ok else (),
                        seconds=done.seconds)
    return InterpRun(build=build, inputs=inputs if ok else {}, outputs=outputs if ok else {})


def _arg_request(a: ArrayArg | ScalarArg, check: InterpCheck) -> dict:
    if isinstance(a, ArrayArg):
        return {"name": a.name, "dtype": a.dtype, "shape": list(check.shape_of(a)),
                "init": a.init.kind, "params": list(a.init.params)}
    value = evaluate_int(a.value, dict(check.sizes), a.name) if a.dtype[0] in "iu" else float(a.value)
    return {"name": a.name, "dtype": a.dtype, "value": value}


# ------------------------------------------------------------------------------------ inputs

def seeded_array(rng: np.random.Generator, dtype: str, shape: tuple[int, ...], init: str,
                 params: tuple[float, ...]) -> np.ndarray:
    """An input as its .npy is stored (bf16 as uint16 bits), drawn from `rng` in float64 first."""
    n = math.prod(shape)
    if init == "uniform":
        values = rng.uniform(params[0], params[1], n)
    elif init == "normal":
        values = rng.normal(params[0], params[1], n)
    elif init == "arange":
        values = np.arange(n, dtype=np.float64)
    elif init == "const":
        values = np.full(n, params[0])
    else:
        values = np.full(n, 1.0 if init == "ones" else 0.0)
    values = values.reshape(shape)
    if dtype == "bf16":
        return bf16_bits(values.astype(np.float32))
    if dtype[0] in "iu":
        values = np.floor(values) if init in ("uniform", "normal") else values
    return values.astype(NPY_DTYPES[dtype])


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns, rounded to nearest even; NaN stays a quiet NaN."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = ((bits + (0x7FFF + ((bits >> 16) & 1))) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), rounded)


def bf16_values(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns -> float32, exactly."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


# ------------------------------------------------------------------------------------ bf16 tl.dot

def install_bf16_dot_fix() -> None:
    """Make the interpreter's tl.dot compute with bf16 values, not their bit patterns (see module doc)."""
    import triton.language as tl
    from triton.runtime import interpreter

    plain = interpreter.InterpreterBuilder.create_dot
    if getattr(plain, "porter_bf16_fix", False):
        return

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        if tl.bfloat16 not in (a.dtype.scalar, b.dtype.scalar, d.dtype.scalar):
            return plain(self, a, b, d, input_precision, max_num_imprecise_acc)

        def widen(h):
            return bf16_values(h.data) if h.dtype.scalar == tl.bfloat16 else h.data.astype(np.float32)

        acc = np.matmul(widen(a), widen(b), dtype=np.float32) + widen(d)
        out = bf16_bits(acc) if d.dtype.scalar == tl.bfloat16 else acc.astype(d.data.dtype)
        return interpreter.TensorHandle(out, d.dtype.scalar)

    create_dot.porter_bf16_fix = True
    interpreter.InterpreterBuilder.create_dot = create_dot


# ------------------------------------------------------------------------------------ worker process

def _worker(request_file: Path) -> int:
    """Run a request's launches in this (TRITON_INTERPRET=1) process. Exit 0 ok, 1 failed."""
    import traceback

    req = json.loads(request_file.read_text())
    out = Path(req["out"])
    try:
        import torch

        if req["bf16_dot_fix"]:
            install_bf16_dot_fix()
        rng = np.random.default_rng(req["seed"])
        arrays: dict[str, np.ndarray] = {}
        scalars: dict[str, int | float] = {}
        for a in req["args"]:
            if "shape" in a:
                arrays[a["name"]] = seeded_array(rng, a["dtype"], tuple(a["shape"]), a["init"], tuple(a["params"]))
                np.save(out / f"in_{a['name']}.npy", arrays[a["name"]])
            else:
                scalars[a["name"]] = a["value"]
        dtypes = {a["name"]: a["dtype"] for a in req["args"]}
        for side, launch in req["launches"].items():
            kernel = load_kernel(launch["src"], launch["kernel"], f"porter_interp_{side}")
            if kernel is None:
                raise LookupError(f"{launch['src']}: no kernel named {launch['kernel']!r}")
            tensors = {n: _to_torch(torch, arr.copy(), dtypes[n]) for n, arr in arrays.items()}
            kernel[tuple(launch["grid"])](**tensors, **scalars, **launch["constexprs"])
            (out / side).mkdir(exist_ok=True)
            for name in req["outputs"]:
                np.save(out / side / f"out_{name}.npy", _from_torch(torch, tensors[name], dtypes[name]))
    except Exception:  # noqa: BLE001 - the kernel's failure is the result, reported in full
        traceback.print_exc()
        return 1
    return 0


def _to_torch(torch, arr: np.ndarray, dtype: str):
    t = torch.from_numpy(arr)
    return t.view(torch.bfloat16) if dtype == "bf16" else t


def _from_torch(torch, t, dtype: str) -> np.ndarray:
    return (t.view(torch.int16).numpy().view(np.uint16) if dtype == "bf16" else t.numpy()).copy()


__all__ = [
    "InterpCheck", "InterpResult", "InterpRun", "TritonLaunch", "bf16_bits", "bf16_values", "check_port",
    "install_bf16_dot_fix", "run_interpreted", "seeded_array",
]

if __name__ == "__main__":
    sys.exit(_worker(Path(sys.argv[1])))
