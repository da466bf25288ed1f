"""Generate the C++ driver that runs one kernel spec: the same text builds as CUDA and as HIP.

`render_driver(spec)` fills `templates/driver.cu.tmpl` (string.Template, every variable
required and every variable used) with numbers only: the spec's expressions are evaluated in
`porter.verify.spec`, so the driver holds no logic the spec could inject. The template carries
the PRNG (splitmix64, Box-Muller), the .npy writer, the CUDA/HIP macro layer and the timing
loop; its header comment documents the stdout protocol that `porter.verify.executors` parses.
Output is deterministic: the same spec always gives the same bytes.
"""

from __future__ import annotations

from importlib.resources import files
from string import Template

from porter.verify.spec import ArrayArg, KernelSpec, ScalarArg, evaluate, evaluate_int

TEMPLATE = "driver.cu.tmpl"

CTYPES = {"f32": "float", "f64": "double", "f16": "porter_f16_t", "bf16": "porter_bf16_t",
          "i32": "int32_t", "u32": "uint32_t", "i64": "int64_t", "u8": "uint8_t"}
_ENUM = {"f32": "F32", "f16": "F16", "bf16": "BF16", "f64": "F64", "i32": "I32", "u32": "U32", "i64": "I64",
         "u8": "U8"}
_INTENT = {"in": "IN", "out": "OUT", "inout": "INOUT"}
_INIT = {"uniform": "UNIFORM", "normal": "NORMAL", "arange": "ARANGE", "zeros": "ZEROS", "ones": "ONES",
         "const": "CONST"}
MAX_NDIM = 8  # Array::shape in the template


class TemplateMismatch(RuntimeError):
    """The template and the variables rendered into it disagree: a bug in porter, not in a spec."""


def template_text(name: str = TEMPLATE) -> str:
    return (files("porter.verify") / "templates" / name).read_text(encoding="utf-8")


def render_strict(text: str, variables: dict[str, str]) -> str:
    """string.Template.substitute, also refusing variables the template does not use."""
    tmpl = Template(text)
    wanted = set(tmpl.get_identifiers())
    if wanted != set(variables):
        raise TemplateMismatch(f"template wants {sorted(wanted - set(variables))} unset, "
                               f"{sorted(set(variables) - wanted)} unused")
    return tmpl.substitute(variables)


def render_driver(spec: KernelSpec, spec_file: str = "porter.toml") -> str:
    """The driver source for `spec`, ready to write as a .cu (CUDA) or .hip (HIP) file."""
    dtypes = {a.dtype for a in spec.arrays}
    return render_strict(template_text(), {
        "kernel": spec.name,
        "unit": spec.unit,
        "spec_file": spec_file,
        "needs_f16": "1" if "f16" in dtypes else "0",
        "needs_bf16": "1" if "bf16" in dtypes else "0",
        "array_table": "\n".join(_array_row(spec, a) for a in spec.arrays),
        "seed": str(spec.seed),
        "scalar_decls": "\n".join(_scalar_decl(spec, s) for s in spec.scalars),
        "grid": ", ".join(str(d) for d in spec.grid_dims()),
        "block": ", ".join(str(d) for d in spec.block_dims()),
        "shared_bytes": str(evaluate(spec.shared_bytes, spec.sizes)),
        "launch_args": ", ".join(_launch_arg(spec, a) for a in spec.args),
        "warmup": str(spec.warmup),
        "runs": str(spec.runs),
    })


def _array_row(spec: KernelSpec, a: ArrayArg) -> str:
    shape = spec.shape_of(a)
    if len(shape) > MAX_NDIM:
        raise ValueError(f"argument {a.name}: {len(shape)} dimensions; the driver holds at most {MAX_NDIM}")
    p = (*a.init.params, 0.0, 0.0)[:2]
    dims = ", ".join(f"{d}" for d in shape)
    return (f'  {{"{a.name}", {_ENUM[a.dtype]}, {_INTENT[a.intent]}, {_INIT[a.init.kind]}, '
            f"{_double(p[0])}, {_double(p[1])}, {len(shape)}, {{{dims}}}}},")


def _scalar_decl(spec: KernelSpec, s: ScalarArg) -> str:
    if s.dtype in ("f32", "f64"):
        literal = _double(float(evaluate(s.value, spec.sizes)))
    else:
        literal = str(evaluate_int(s.value, spec.sizes, f"{s.name}.value"))
    return f"  const {CTYPES[s.dtype]} arg_{s.name} = static_cast<{CTYPES[s.dtype]}>({literal});"


def _launch_arg(spec: KernelSpec, a: ArrayArg | ScalarArg) -> str:
    if isinstance(a, ScalarArg):
        return f"arg_{a.name}"
    return f"static_cast<{CTYPES[a.dtype]}*>(dev[{spec.arrays.index(a)}])"


def _double(x: float) -> str:
    """A C++ double literal that reads back as exactly `x` (repr round-trips binary64)."""
    text = repr(float(x))
    if text in ("inf", "-inf", "nan"):
        raise ValueError(f"{x}: not a finite number")
    return text if any(c in text for c in ".e") else text + ".0"
