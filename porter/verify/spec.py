"""Verification specs: what the verifier runs to prove a port computes what the original did.

A project describes its checks in `porter.toml` (table `[verify]`) or in `pyproject.toml`
(table `[tool.porter.verify]`). Two kinds:

- `[[verify.command]]`: the project's own test program: a build command, a run command and a
  pass criterion (exit code 0 and/or a regex that must match a line of stdout, e.g. `^PASS`).
- `[[verify.kernel]]`: one kernel of one unit, driven by a generated driver
  (`porter.verify.driver`): launch geometry, each argument in the kernel's parameter order
  (an array with dtype, shape, initialiser and intent, or a scalar), the outputs to compare
  and the tolerance class. A kernel without such a spec is reported "not exercised".
- `[[verify.triton]]`: one @triton.jit kernel of one Python module (`porter.verify.triton_units`):
  its specialisation for the ahead-of-time compiles (signature, constexprs, divisible_by_16,
  num_warps/num_stages), its grid, and the arguments, outputs and tolerance of the interpreter
  check (the same ArrayArg/ScalarArg shapes as a CUDA kernel's). Optional `[verify.triton.port]`
  and `[verify.triton.original]` tables override constexprs, grid, num_warps and num_stages for
  one side, for a port that retiles.

Sizes are named integers (`sizes = { n = 1048576 }`); shapes, grid, block, scalar values and
the accumulation depth may be integer expressions over them (`"ceil_div(n, 256)"`), evaluated
here, so the generated driver only holds numbers.

Unknown keys are errors that name the file and the key; TOML syntax errors name the file and
line. This module reads files and validates; it runs nothing.
"""

from __future__ import annotations

import ast
import math
import operator
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError, field_validator, model_validator

DType = Literal["f32", "f16", "bf16", "f64", "i32", "u32", "i64", "u8"]
# Scalars are passed by value; half-precision scalars are rare in kernel signatures and would
# need the device headers' conversion on the host, so they are not offered.
ScalarDType = Literal["f32", "f64", "i32", "u32", "i64", "u8"]
ToleranceClass = Literal["exact", "elementwise", "reduction", "matmul"]
Intent = Literal["in", "out", "inout"]
Expr = int | float | str

FLOAT_DTYPES = frozenset({"f32", "f16", "bf16", "f64"})
SPEC_FILE = "porter.toml"


class SpecError(ValueError):
    """A spec file that cannot be used; the message names the file and the key or line."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


# ---------------------------------------------------------------------------------- expressions

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_FUNCS = {"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max}


def evaluate(expr: Expr, sizes: dict[str, int]) -> int | float:
    """The value of a size expression: numbers, names from `sizes`, + - * / // % **, ceil_div, min, max.

    Walks the AST itself (no eval): a spec is data, never code.
    """
    if isinstance(expr, bool):
        raise ValueError(f"{expr!r}: expected a number or an expression")
    if isinstance(expr, int | float):
        return expr
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        raise ValueError(f"{expr!r}: not an expression") from None
    return _eval(tree.body, sizes, expr)


def _eval(node: ast.AST, sizes: dict[str, int], text: str) -> int | float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in sizes:
            raise ValueError(f"{text!r}: unknown size {node.id!r}; known: {', '.join(sorted(sizes)) or 'none'}")
        return sizes[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _eval(node.operand, sizes, text)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, sizes, text), _eval(node.right, sizes, text))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS and not node.keywords:
        return _FUNCS[node.func.id](*(_eval(a, sizes, text) for a in node.args))
    raise ValueError(f"{text!r}: only numbers, sizes, + - * / // % ** and ceil_div/min/max are allowed")


def evaluate_int(expr: Expr, sizes: dict[str, int], what: str) -> int:
    value = evaluate(expr, sizes)
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{what} = {expr!r} is {value}, not an integer")
        value = int(value)
    return value


# ---------------------------------------------------------------------------------- initialisers

_INIT = re.compile(r"\s*(?P<kind>uniform|normal|arange|zeros|ones|const)\s*(?:\((?P<args>[^()]*)\))?\s*")
_INIT_ARITY = {"uniform": 2, "normal": 2, "arange": 0, "zeros": 0, "ones": 0, "const": 1}


class Initialiser(_Strict):
    """How the driver fills an array before the launch: uniform(lo, hi), normal(mean, std), arange,
    zeros, ones, const(v). Random draws come from the driver's own PRNG (splitmix64), so the CUDA
    and HIP builds of one driver see the same bits."""

    kind: Literal["uniform", "normal", "arange", "zeros", "ones", "const"]
    params: tuple[float, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Initialiser:
        m = _INIT.fullmatch(text)
        if not m:
            raise ValueError(f"initialiser {text!r}: expected uniform(lo,hi), normal(mean,std), arange, zeros, "
                             "ones or const(v)")
        kind, raw = m["kind"], m["args"]
        try:
            params = tuple(float(a) for a in raw.split(",")) if raw and raw.strip() else ()
        except ValueError:
            raise ValueError(f"initialiser {text!r}: arguments must be numbers") from None
        if not all(math.isfinite(p) for p in params):
            raise ValueError(f"initialiser {text!r}: arguments must be finite")
        if len(params) != _INIT_ARITY[kind]:
            raise ValueError(f"initialiser {text!r}: {kind} takes {_INIT_ARITY[kind]} argument(s)")
        if kind == "uniform" and not params[0] < params[1]:
            raise ValueError(f"initialiser {text!r}: uniform needs lo < hi")
        if kind == "normal" and not params[1] > 0:
            raise ValueError(f"initialiser {text!r}: normal needs std > 0")
        return cls(kind=kind, params=params)

    def __str__(self) -> str:
        return f"{self.kind}({', '.join(repr(p) for p in self.params)})" if self.params else self.kind


# ---------------------------------------------------------------------------------- kernel specs

_IDENT = r"[A-Za-z_]\w*"
# A kernel is named as C++ names it at the launch: a qualified name, optionally with template arguments.
_KERNEL_NAME = re.compile(rf"(?:{_IDENT}::)*{_IDENT}(?:<[\w\s,:.+\-*]*>)?")


class ArrayArg(_Strict):
    name: Annotated[str, Field(pattern=f"^{_IDENT}$")]
    dtype: DType
    shape: Annotated[tuple[Expr, ...], Field(min_length=1)]
    init: Initialiser = Initialiser(kind="zeros")
    intent: Intent = "in"

    @field_validator("init", mode="before")
    @classmethod
    def _parse_init(cls, v: Any) -> Any:
        return Initialiser.parse(v) if isinstance(v, str) else v

    @model_validator(mode="after")
    def _init_fits_dtype(self) -> ArrayArg:
        if self.dtype not in FLOAT_DTYPES and self.init.kind == "normal":
            raise ValueError(f"argument {self.name}: normal() initialises floating-point arrays only")
        return self


class ScalarArg(_Strict):
    name: Annotated[str, Field(pattern=f"^{_IDENT}$")]
    dtype: ScalarDType
    value: Expr


def _arg_kind(data: Any) -> str:
    if isinstance(data, dict):
        return "array" if "shape" in data else "scalar"
    return "array" if isinstance(data, ArrayArg) else "scalar"


Arg = Annotated[Annotated[ArrayArg, Tag("array")] | Annotated[ScalarArg, Tag("scalar")], Discriminator(_arg_kind)]
Dim = Expr | Annotated[list[Expr], Field(min_length=1, max_length=3)]


class NumericsSpec(_Strict):
    """What a CUDA kernel's and a Triton kernel's numerics check share: named sizes, the arguments,
    which of them are outputs, and how closely the port's outputs must match."""

    sizes: dict[str, int] = {}
    args: list[Arg] = Field(default=[], alias="arg")
    outputs: list[str] | None = None  # default: every out/inout array
    tolerance: ToleranceClass = "elementwise"
    # Terms accumulated into one output element: the reduction length, or K of a GEMM.
    # Reduction default: the largest input array; matmul requires it.
    depth: Expr | None = None
    rtol: float | None = Field(default=None, ge=0)  # overrides of the tolerance table
    atol: float | None = Field(default=None, ge=0)

    @property
    def arrays(self) -> list[ArrayArg]:
        return [a for a in self.args if isinstance(a, ArrayArg)]

    @property
    def scalars(self) -> list[ScalarArg]:
        return [a for a in self.args if isinstance(a, ScalarArg)]

    @property
    def output_names(self) -> list[str]:
        if self.outputs is not None:
            return list(self.outputs)
        return [a.name for a in self.arrays if a.intent != "in"]

    def arg(self, name: str) -> ArrayArg | ScalarArg:
        return next(a for a in self.args if a.name == name)

    def shape_of(self, a: ArrayArg) -> tuple[int, ...]:
        return tuple(evaluate_int(d, self.sizes, f"{a.name}.shape") for d in a.shape)

    def _check_unique_args(self, what: str) -> None:
        names = [a.name for a in self.args]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"{what}: duplicate argument(s) {', '.join(dupes)}")

    def _check_outputs(self, what: str) -> None:
        """Outputs are writable arrays, there is one, and a matmul says its depth."""
        writable = {a.name for a in self.arrays if a.intent != "in"}
        for out in self.outputs or ():
            if out not in writable:
                raise ValueError(f"{what}: output {out!r} is not an out/inout array argument")
        if not self.output_names:
            raise ValueError(f"{what}: no output: give an array intent = \"out\" or \"inout\"")
        if self.tolerance == "matmul" and self.depth is None:
            raise ValueError(f"{what}: tolerance \"matmul\" needs depth (the K of the product)")

    def _check_shape(self, a: ArrayArg) -> None:
        if any(d < 0 for d in self.shape_of(a)):
            raise ValueError(f"argument {a.name}: negative extent in shape {list(a.shape)}")


class KernelSpec(NumericsSpec):
    name: str
    unit: str  # the translation unit, relative to the project root; same path in source and port
    grid: Dim
    block: Dim
    shared_bytes: Expr = 0  # dynamic shared memory per block
    seed: int = Field(default=0, ge=0, lt=2**64)
    warmup: int = Field(default=3, ge=0, le=1000)
    runs: int = Field(default=20, ge=1, le=10000)

    @field_validator("name")
    @classmethod
    def _kernel_name(cls, v: str) -> str:
        if not _KERNEL_NAME.fullmatch(v):
            raise ValueError(f"{v!r}: expected a kernel name as written at its launch, e.g. sgemm or sgemm<64>")
        return v

    @field_validator("unit")
    @classmethod
    def _relative_unit(cls, v: str) -> str:
        p = Path(v)
        if p.is_absolute() or ".." in p.parts:
            raise ValueError(f"{v!r}: the unit must be a path inside the project")
        return p.as_posix()

    @model_validator(mode="after")
    def _consistent(self) -> KernelSpec:
        self._check_unique_args(f"kernel {self.name}")
        self._check_outputs(f"kernel {self.name}")
        # Evaluate every expression now, so a typo is reported with the file, not at run time.
        self.grid_dims()
        self.block_dims()
        evaluate_int(self.shared_bytes, self.sizes, "shared_bytes")
        for a in self.arrays:
            self._check_shape(a)
        for s in self.scalars:
            evaluate(s.value, self.sizes)
        if self.depth is not None:
            evaluate_int(self.depth, self.sizes, "depth")
        return self

    def _dims(self, dim: Dim, what: str) -> tuple[int, int, int]:
        items = dim if isinstance(dim, list) else [dim]
        values = [evaluate_int(d, self.sizes, what) for d in items]
        if any(v < 1 for v in values):
            raise ValueError(f"{what} = {dim!r}: every extent must be >= 1, got {values}")
        return tuple(values + [1] * (3 - len(values)))  # type: ignore[return-value]

    def grid_dims(self) -> tuple[int, int, int]:
        return self._dims(self.grid, "grid")

    def block_dims(self) -> tuple[int, int, int]:
        return self._dims(self.block, "block")

    def depth_value(self) -> int:
        """Terms per output element, for the reduction and matmul tolerances."""
        if self.depth is not None:
            return evaluate_int(self.depth, self.sizes, "depth")
        inputs = [math.prod(self.shape_of(a)) for a in self.arrays if a.intent != "out"]
        return max(inputs, default=1)


class CommandSpec(_Strict):
    """The project's own test program, run in the project directory (source or port) by a shell."""

    name: str
    build: str | None = None
    run: str
    expect_rc: bool = True  # pass needs exit code 0
    stdout_regex: str | None = None  # pass needs a match on some line of stdout (re.MULTILINE)
    timeout_s: int = Field(default=600, ge=1, le=86400)

    @field_validator("stdout_regex")
    @classmethod
    def _compiles(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                re.compile(v)
            except re.error as e:
                raise ValueError(f"stdout_regex {v!r}: {e}") from None
        return v

    @model_validator(mode="after")
    def _has_criterion(self) -> CommandSpec:
        if not self.expect_rc and self.stdout_regex is None:
            raise ValueError(f"command {self.name}: no pass criterion (expect_rc = false and no stdout_regex)")
        return self


# ---------------------------------------------------------------------------------- Triton specs

# spec dtypes -> Triton's type names (triton.language.core), as Specialisation.signature writes them.
TRITON_TYPES: dict[str, str] = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "f64": "fp64", "i32": "i32",
                                "u32": "u32", "i64": "i64", "u8": "u8"}
ConstexprValue = bool | int | float  # bool first: a TOML true stays a bool
TritonGrid = Expr | Annotated[list[Expr], Field(min_length=1, max_length=3)]


class TritonSide(_Strict):
    """Overrides for one side of a Triton check (`[verify.triton.port]`, `[verify.triton.original]`):
    a port may retile (other BLOCK sizes, so another grid) or launch with other knobs."""

    constexprs: dict[str, ConstexprValue] = {}  # merged over the entry's constexprs
    grid: TritonGrid | None = None
    num_warps: int | None = None
    num_stages: int | None = None


class TritonSpec(NumericsSpec):
    """One @triton.jit kernel: its AOT specialisation, its grid and its interpreter check."""

    module: str  # the .py file, relative to the project root; same path in source and port
    kernel: Annotated[str, Field(pattern=f"^{_IDENT}$")]  # the @triton.jit function's name
    name: Annotated[str, Field(pattern=r"^[\w.\-]+$")] | None = None  # label, when one kernel is checked twice
    # Non-constexpr arguments -> Triton type ("*fp32", "i32"); default: derived from the args' dtypes.
    signature: dict[str, str] | None = None
    constexprs: dict[str, ConstexprValue] = {}
    divisible_by_16: list[str] = []
    grid: TritonGrid  # expressions over sizes and the integer constexprs
    # args (NumericsSpec) are passed by name (keywords), in any order.
    seed: int = Field(default=0, ge=0, lt=2**63)
    num_warps: int = 4  # the AOT compiles' launch knobs (both sides, unless a side overrides)
    num_stages: int = 2
    waves_per_eu: int = Field(default=0, ge=0, le=8)  # gfx950 compile only
    interpret: bool = True  # false: compile only (the interpreter cannot run inline asm or libdevice)
    port: TritonSide = TritonSide()
    original: TritonSide = TritonSide()

    @field_validator("module")
    @classmethod
    def _relative_module(cls, v: str) -> str:
        p = Path(v)
        if p.is_absolute() or ".." in p.parts or p.suffix != ".py":
            raise ValueError(f"{v!r}: the module must be a .py file inside the project")
        return p.as_posix()

    @model_validator(mode="after")
    def _consistent(self) -> TritonSpec:
        from porter.toolchains.triton_aot import Specialisation, TritonAotOptions

        what = f"triton kernel {self.label}"
        self._check_unique_args(what)
        derived = self.derived_signature()
        if self.signature is not None:
            if set(self.signature) != set(derived):
                missing, extra = sorted(set(derived) - set(self.signature)), sorted(set(self.signature) - set(derived))
                raise ValueError(f"{what}: signature and args name different arguments"
                                 + (f"; no signature for {', '.join(missing)}" if missing else "")
                                 + (f"; no arg for {', '.join(extra)}" if extra else ""))
            for n, ty in self.signature.items():
                if ty != derived[n]:
                    raise ValueError(f"{what}: signature {n} = {ty!r} but its arg's dtype makes it {derived[n]!r}")
        self._check_outputs(what)
        for side in ("original", "port"):
            Specialisation(signature=self.signature_types(), constexprs=self.constexprs_of(side),
                           divisible_by_16=frozenset(self.divisible_by_16))
            TritonAotOptions(target="gfx950" if side == "port" else "sm_90", num_warps=self.num_warps_of(side),
                             num_stages=self.num_stages_of(side),
                             waves_per_eu=self.waves_per_eu if side == "port" else 0)
            self.grid_of(side)
        for a in self.args:
            if isinstance(a, ArrayArg):
                self._check_shape(a)
            elif a.dtype[0] in "iu":
                evaluate_int(a.value, self.sizes, a.name)
            else:
                evaluate(a.value, self.sizes)
        # The hint is a promise to the compiler: an integer argument it names must be a multiple
        # of 16 in the very launch the interpreter checks.
        for name in self.divisible_by_16:
            a = next((a for a in self.args if a.name == name), None)
            if isinstance(a, ScalarArg) and a.dtype[0] in "iu" and evaluate_int(a.value, self.sizes, name) % 16:
                raise ValueError(f"{what}: divisible_by_16 names {name}, whose value "
                                 f"{evaluate_int(a.value, self.sizes, name)} is not a multiple of 16")
        if self.depth is not None and evaluate_int(self.depth, self.sizes, "depth") < 1:
            raise ValueError(f"{what}: depth {self.depth!r} must be >= 1")
        return self

    @property
    def label(self) -> str:
        return self.name or self.kernel

    def derived_signature(self) -> dict[str, str]:
        return {a.name: ("*" if isinstance(a, ArrayArg) else "") + TRITON_TYPES[a.dtype] for a in self.args}

    def signature_types(self) -> dict[str, str]:
        return dict(self.signature) if self.signature is not None else self.derived_signature()

    def constexprs_of(self, side: Literal["original", "port"]) -> dict[str, ConstexprValue]:
        return {**self.constexprs, **getattr(self, side).constexprs}

    def grid_exprs(self, side: Literal["original", "port"]) -> tuple[Expr, ...]:
        grid = getattr(self, side).grid
        grid = self.grid if grid is None else grid
        return tuple(grid) if isinstance(grid, list) else (grid,)

    def grid_of(self, side: Literal["original", "port"]) -> tuple[int, ...]:
        names = {**self.sizes, **{k: v for k, v in self.constexprs_of(side).items() if type(v) is int}}
        dims = tuple(evaluate_int(g, names, "grid") for g in self.grid_exprs(side))
        if any(d < 1 for d in dims):
            raise ValueError(f"grid {list(self.grid_exprs(side))} evaluates to {list(dims)}: every extent must be >= 1")
        return dims

    def num_warps_of(self, side: Literal["original", "port"]) -> int:
        value = getattr(self, side).num_warps
        return self.num_warps if value is None else value

    def num_stages_of(self, side: Literal["original", "port"]) -> int:
        value = getattr(self, side).num_stages
        return self.num_stages if value is None else value

    def depth_value(self) -> int:
        if self.depth is not None:
            return evaluate_int(self.depth, self.sizes, "depth")
        if self.tolerance != "reduction":
            return 1
        inputs = [math.prod(evaluate_int(d, self.sizes, a.name) for d in a.shape)
                  for a in self.args if isinstance(a, ArrayArg) and a.intent != "out"]
        return max(inputs, default=1)


class VerifySpec(_Strict):
    commands: list[CommandSpec] = Field(default=[], alias="command")
    kernels: list[KernelSpec] = Field(default=[], alias="kernel")
    triton: list[TritonSpec] = []
    source: str = ""  # the file it was read from, for messages

    @model_validator(mode="after")
    def _unique_kernels(self) -> VerifySpec:
        keys = [(k.unit, k.name) for k in self.kernels]
        dupes = sorted({f"{u}:{n}" for u, n in keys if keys.count((u, n)) > 1})
        if dupes:
            raise ValueError(f"kernel spec given twice: {', '.join(dupes)}")
        keys = [(t.module, t.label) for t in self.triton]
        dupes = sorted({f"{m}:{n}" for m, n in keys if keys.count((m, n)) > 1})
        if dupes:
            raise ValueError(f"triton spec given twice (give each a distinct name): {', '.join(dupes)}")
        return self

    def triton_for(self, module: str) -> list[TritonSpec]:
        """The `[[verify.triton]]` entries of one module (a path relative to the project root)."""
        module = Path(module).as_posix()
        return [t for t in self.triton if t.module == module]

    def kernel(self, name: str, unit: str | None = None) -> KernelSpec | None:
        return next((k for k in self.kernels if _base_name(k.name) == name and unit in (None, k.unit)), None)


def _base_name(kernel: str) -> str:
    """`ns::sgemm<64>` -> `sgemm`: the name the scan reports for a __global__ function."""
    return kernel.split("<", 1)[0].rsplit("::", 1)[-1]


# ---------------------------------------------------------------------------------- loading

def load_spec(project: Path) -> VerifySpec:
    """The verify spec of the project at `project` (a directory or a porter.toml/pyproject.toml file).

    porter.toml wins over pyproject.toml. A project with neither (or neither holding a verify
    table) has an empty spec: every kernel is then "not exercised".
    """
    if project.is_file():
        return _load_file(project)
    for name in (SPEC_FILE, "pyproject.toml"):
        if (project / name).is_file():
            spec = _load_file(project / name)
            if spec.kernels or spec.commands or spec.triton or name == SPEC_FILE:
                return spec
    return VerifySpec()


def _load_file(path: Path) -> VerifySpec:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        # Python 3.11's TOMLDecodeError has no lineno attribute; the position is in the message.
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        where = f"{path}:{m[1]}:{m[2]}" if m else str(path)
        raise SpecError(f"{where}: TOML syntax error: {re.sub(r' [(]at line.*[)]', '', str(e))}") from None
    except UnicodeDecodeError as e:
        raise SpecError(f"{path}: not UTF-8 text ({e.reason})") from None
    prefix: tuple[str, ...] = ("tool", "porter", "verify") if path.name == "pyproject.toml" else ("verify",)
    table: Any = doc
    for key in prefix:
        table = table.get(key, {}) if isinstance(table, dict) else {}
    if not isinstance(table, dict):
        raise SpecError(f"{path}: {'.'.join(prefix)} must be a table")
    return parse_spec(table, path, prefix)


def parse_spec(table: dict[str, Any], path: Path, prefix: tuple[str, ...] = ("verify",)) -> VerifySpec:
    """Validate a verify table; errors become one SpecError naming `path` and every bad key."""
    try:
        spec = VerifySpec.model_validate(table)
    except ValidationError as e:
        problems = []
        for err in e.errors():
            loc = _dotted(prefix + tuple(str(p) for p in err["loc"] if not _is_tag(p)))
            msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"].removeprefix("Value error, ")
            problems.append(f"{path}: {loc}: {msg}")
        raise SpecError("\n".join(problems)) from None
    return spec.model_copy(update={"source": str(path)})


def _is_tag(part: object) -> bool:
    return part in ("array", "scalar")


def _dotted(parts: tuple[str, ...]) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if p.isdigit() else (f".{p}" if out else p)
    return out
