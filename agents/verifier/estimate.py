"""The perfmodel's estimate of a port on gfx950 against its direct-hipify baseline.

HIP C++ kernels (estimate_hip_kernel, at the end): porter.perfmodel.isa on the instruction mix of
the port's and the direct hipify's gfx950 assembly, at the launch of the spec's [[verify.kernel]].

Triton GEMMs:

Where no AMD GPU runs the port, the verifier records for each GEMM-like `[[verify.triton]]`
kernel (one tl.dot) what porter.perfmodel.gemm predicts on gfx950 for
- the port's launch config(s): its @triton.autotune list as ported (TRI020), else the spec's
  port side (constexprs, num_warps, num_stages, waves_per_eu);
- the direct-hipify baseline: the original's config(s) run unchanged on gfx950, where
  num_warps counts 64-lane waves and num_stages stays as written. The model rejects a config
  whose LDS or registers overflow; a baseline with no config left "does not fit".
An autotuned kernel counts as its best config at the shape: what the autotuner would pick.

The problem is the spec's launch: M and N from its first 2-D output array, K from `depth` (or
from the 2-D input whose first extent is M); the operand dtype from that input (f16, bf16; f32
is tf32 on NVIDIA, which gfx950 has no matrix rate for). Where the arguments do not say,
DEFAULT_SHAPE, and `shape_from` says so. Note that a spec sized for the interpreter gives a
small problem, where launch overhead dominates both sides. Fused attention (two dots) is not a
GEMM: its estimate is "not-estimated". Pure functions of the two source texts and the spec.
"""

from __future__ import annotations

import math

import libcst as cst

from porter import hardware
from porter import triton_source as src
from porter.agents.microarch import triton_configs as tc
from porter.perfmodel import isa
from porter.perfmodel.gemm import Candidates, Gemm, GemmConfig, evaluate
from porter.state import PerfEstimate
from porter.verify.executors import MIN_NOISE
from porter.verify.spec import ArrayArg, KernelSpec, TritonSpec, evaluate_int

ARCH = "gfx950"
DEFAULT_SHAPE = (4096, 4096, 4096)
DEFAULT_DTYPE = "bf16"
# Spec dtype of the dot operands -> the perfmodel's dtype. f32 operands of tl.dot run as tf32
# on NVIDIA (Triton's default input_precision).
SPEC_DTYPES = {"f16": "fp16", "bf16": "bf16", "f32": "tf32"}
# Within this ratio band the two count as equal, as for a measured verdict (executors.MIN_NOISE).
EQUAL_BAND = MIN_NOISE


def estimate_kernel(entry: TritonSpec, original: str, port: str) -> PerfEstimate | None:
    """The estimate for one spec entry, given both modules' source text; None when it has no tl.dot."""
    try:
        sides = {"original": cst.parse_module(original), "port": cst.parse_module(port)}
    except cst.ParserSyntaxError as e:
        return _not_estimated(entry, f"cannot parse the module: {e.message}")
    dots = max(_dots(module, entry.kernel) for module in sides.values())
    if dots == 0:
        return None
    if dots >= 2:
        return _not_estimated(entry, "fused attention (two tl.dot): the GEMM model does not describe it")
    (m, n, k), dtype, shape_from = problem_of(entry)
    dev = hardware.get(ARCH)
    try:
        dev.peak_tflops(dtype)
    except KeyError as e:
        return _not_estimated(entry, str(e.args[0]), shape=(m, n, k), dtype=dtype, shape_from=shape_from)
    problem = Gemm(m, n, k, dtype)
    picks = {}
    for side, module in sides.items():
        configs = launch_configs(module, entry, side)
        if not configs:
            return _not_estimated(entry, f"the {side}'s tile sizes (BLOCK_M/N/K) are not visible",
                                  shape=(m, n, k), dtype=dtype, shape_from=shape_from)
        picks[side] = _fastest(problem, configs, dev)
    (port_s, port_cfg), (base_s, base_cfg) = picks["port"], picks["original"]
    common = dict(kernel=entry.label, device=ARCH, shape=(m, n, k), dtype=dtype, shape_from=shape_from,
                  port_config=port_cfg.label() if port_cfg else "", baseline_config=base_cfg.label() if base_cfg else "",
                  port_us=_us(port_s), baseline_us=_us(base_s))
    if port_cfg is None:
        return PerfEstimate(**common, verdict="port-does-not-fit",
                            reason=f"no config of the port fits {ARCH} (LDS or registers) in the perfmodel")
    if base_cfg is None:
        return PerfEstimate(**common, verdict="baseline-does-not-fit",
                            reason=f"the original's config(s) run unchanged overflow {ARCH}'s LDS or registers "
                                   "in the perfmodel: the direct hipify would not launch")
    ratio = port_s / base_s
    verdict = "equal" if abs(ratio - 1) <= EQUAL_BAND else "faster" if ratio < 1 else "slower"
    return PerfEstimate(**common, ratio=round(ratio, 4), verdict=verdict)


def problem_of(entry: TritonSpec) -> tuple[tuple[int, int, int], str, str]:
    """(M, N, K), the perfmodel dtype, and where they came from, for a spec's launch."""
    arrays = [a for a in entry.args if isinstance(a, ArrayArg)]
    out = next((a for a in arrays if a.intent != "in" and len(a.shape) == 2), None)
    if out is None:
        return DEFAULT_SHAPE, DEFAULT_DTYPE, _default("the spec has no 2-D output [M, N]")
    m, n = (evaluate_int(d, entry.sizes, out.name) for d in out.shape)
    a_in = next((a for a in arrays if a.intent != "out" and len(a.shape) == 2
                 and evaluate_int(a.shape[0], entry.sizes, a.name) == m), None)
    operand = a_in or next((a for a in arrays if a.intent != "out" and a.dtype in SPEC_DTYPES), None)
    dtype = SPEC_DTYPES.get(operand.dtype, DEFAULT_DTYPE) if operand is not None else DEFAULT_DTYPE
    if entry.depth is not None:
        k, k_from = entry.depth_value(), "depth"
    elif a_in is not None:
        k, k_from = evaluate_int(a_in.shape[1], entry.sizes, a_in.name), f"{a_in.name} [M, K]"
    else:
        return DEFAULT_SHAPE, dtype, _default("the spec gives no K (no depth, no 2-D input [M, K])")
    return (m, n, k), dtype, f"the spec: {out.name} [M, N], K from {k_from}"


def launch_configs(module: cst.Module, entry: TritonSpec, side: str) -> list[GemmConfig]:
    """The configs one side launches the kernel with: its literal autotune list, else the spec's side.

    Tiles a config leaves out come from the spec's constexprs; a config whose tiles are still
    unknown is left out. The original's AMD-only knobs, if any, are ignored: the baseline is
    the NVIDIA config run unchanged.
    """
    names = src.aliases(module)
    fn = src.kernels(module, names).get(entry.kernel)
    listed = _autotune_list(fn, names) if fn is not None else None
    if listed is None:
        knobs = {"num_warps": entry.num_warps_of(side), "num_stages": entry.num_stages_of(side)}  # type: ignore[arg-type]
        if side == "port":
            knobs["waves_per_eu"] = entry.waves_per_eu
        listed = [({}, knobs)]
    spec_tiles = {k: v for k, v in entry.constexprs_of(side).items() if type(v) is int}  # type: ignore[arg-type]
    out = []
    for meta, knobs in listed:
        tiles = {**spec_tiles, **meta}
        dims = {d: next((tiles[k] for k in ks if k in tiles), None) for d, ks in tc.TILE_KEYS.items()}
        if None in (dims["m"], dims["n"], dims["k"]):
            continue
        amd = {k: v for k, v in knobs.items() if k in tc.AMD_GEMM_EXTRAS} if side == "port" else {}
        out.append(GemmConfig(dims["m"], dims["n"], dims["k"], group_m=dims["group"] or 8,  # type: ignore[arg-type]
                              num_warps=knobs.get("num_warps", tc.CONFIG_DEFAULTS["num_warps"]),
                              num_stages=knobs.get("num_stages", tc.CONFIG_DEFAULTS["num_stages"]), **amd))
    return out


def _autotune_list(fn: cst.FunctionDef, names: dict[str, str]) -> list[tuple[dict[str, int], dict[str, int]]] | None:
    """(meta-parameters, knobs) of each literal triton.Config of the kernel's @triton.autotune, or
    None when it is not autotuned or its list is built elsewhere. The knobs include those the port
    passes through `**_porter_amd_knobs(...)` (SHIM030)."""
    for dec in fn.decorators:
        if not (isinstance(dec.decorator, cst.Call) and src.decorator_name(dec, names) == "triton.autotune"):
            continue
        arg = src.arg(dec.decorator, "configs", 0)
        if arg is None or not isinstance(arg.value, cst.List):
            return None
        found = []
        for el in arg.value.elements:
            call = el.value
            if not (isinstance(call, cst.Call) and src.call_name(call, names) == "triton.Config"):
                continue
            meta_arg = src.arg(call, "kwargs", 0)
            meta: dict[str, int] = {}
            knobs = {k: v for k in ("num_warps", "num_stages")
                     if (a := src.arg(call, k, {"num_warps": 1, "num_stages": 2}[k])) is not None
                     and (v := src.int_value(a.value)) is not None}
            if meta_arg is not None and isinstance(meta_arg.value, cst.Dict):
                for item in meta_arg.value.elements:
                    if isinstance(item, cst.DictElement) and isinstance(item.key, cst.SimpleString):
                        if (v := src.int_value(item.value)) is not None:
                            meta[str(item.key.evaluated_value)] = v
                    elif isinstance(item, cst.StarredDictElement) and isinstance(item.value, cst.Call):
                        knobs |= {a.keyword.value: v for a in item.value.args
                                  if a.keyword is not None and (v := src.int_value(a.value)) is not None}
            knobs |= {k: meta.pop(k) for k in tc.AMD_GEMM_EXTRAS if k in meta}
            found.append((meta, knobs))
        return found
    return None


def _fastest(problem: Gemm, configs: list[GemmConfig], dev: hardware.Device) -> tuple[float, GemmConfig | None]:
    """The least predicted time over `configs` and its config; (inf, None) when none is legal."""
    seconds, _ = evaluate(problem, Candidates(configs, dev, problem.dtype))
    best = min(range(len(configs)), key=lambda i: seconds[i])  # the first of equal minima
    t = float(seconds[best])
    return (t, configs[best]) if t != float("inf") else (t, None)


def _dots(module: cst.Module, kernel: str) -> int:
    names = src.aliases(module)
    fn = src.kernels(module, names).get(kernel)
    return src.count_dots(fn, names) if fn is not None else 0


def _us(seconds: float) -> float | None:
    return round(seconds * 1e6, 3) if seconds != float("inf") else None


def _default(why: str) -> str:
    m, n, k = DEFAULT_SHAPE
    return f"default {m}x{n}x{k} {DEFAULT_DTYPE}: {why}"


def _not_estimated(entry: TritonSpec, reason: str, *, shape: tuple[int, int, int] = DEFAULT_SHAPE,
                   dtype: str = DEFAULT_DTYPE, shape_from: str = "") -> PerfEstimate:
    return PerfEstimate(kernel=entry.label, device=ARCH, shape=shape, dtype=dtype, shape_from=shape_from,
                        verdict="not-estimated", reason=reason)


# ---- HIP C++ kernels: the instruction-mix model (porter.perfmodel.isa) -------------------------
# Bytes per element of the spec's dtypes.
DTYPE_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "u32": 4, "u8": 1}


def launch_of(entry: KernelSpec) -> isa.Launch:
    """The spec's launch as the ISA model takes it: threads, workgroup size, the bytes its arrays
    move (an inout array both ways), and each thread's share of the work: 2 x depth FP operations
    per output element when the spec gives a depth (a matmul or reduction), else the input bytes."""
    block = math.prod(entry.block_dims())
    threads = math.prod(entry.grid_dims()) * block
    moved = inputs = 0.0
    for a in entry.arrays:
        size = math.prod(entry.shape_of(a)) * DTYPE_BYTES[a.dtype]
        moved += size * (2 if a.intent == "inout" else 1)
        inputs += size if a.intent != "out" else 0
    if entry.depth is not None:
        out = entry.arg(entry.output_names[0])
        elements = math.prod(entry.shape_of(out))  # type: ignore[arg-type]
        return isa.Launch(threads, block, moved, 2.0 * entry.depth_value() * elements / threads, "flops")
    return isa.Launch(threads, block, moved, inputs / threads, "bytes")


def estimate_hip_kernel(entry: KernelSpec, port: isa.KernelIsa | None, baseline: isa.KernelIsa | None,
                        baseline_error: str = "", arch: str = ARCH) -> PerfEstimate:
    """The port's predicted gfx950 time against the direct hipify's, from both compiles' assembly.

    `baseline` None with `baseline_error` set: the direct hipify did not compile for the target
    (a port that needed porter's rewrites to build at all)."""
    dev = hardware.get(arch)
    launch = launch_of(entry)
    grid = "x".join(str(g) for g in entry.grid_dims() if g > 1) or "1"
    block = "x".join(str(b) for b in entry.block_dims() if b > 1) or "1"
    common = dict(kernel=entry.name, device=arch, method="isa", launch=f"grid {grid} x block {block}",
                  shape_from="the spec's [[verify.kernel]] launch and arrays")
    if port is None:
        return PerfEstimate(**common, verdict="not-estimated", reason="no kernel of this name in the port's assembly")
    p = isa.predict(port, launch, dev)
    if baseline is None:
        return PerfEstimate(**common, port_us=_us(p.time_s), bound=p.bound,
                            verdict="baseline-does-not-compile" if baseline_error else "not-estimated",
                            reason=baseline_error or "no kernel of this name in the hipify's assembly")
    b = isa.predict(baseline, launch, dev)
    ratio, verdict = isa.verdict(p.time_s, b.time_s, EQUAL_BAND)
    return PerfEstimate(**common, port_us=_us(p.time_s), baseline_us=_us(b.time_s), ratio=round(ratio, 4),
                        verdict=verdict, bound=p.bound, baseline_bound=b.bound)


def kernel_named(found: dict[str, isa.KernelIsa], name: str) -> isa.KernelIsa | None:
    """The kernel a spec names (`sgemm` or `sgemm<64>`) among demangled names (`void sgemm<64>(float*)`)."""
    want = "".join(name.split())
    for full, k in found.items():
        head = "".join(full.split("(")[0].split())
        head = head.removeprefix("void")
        if head == want or head.split("<")[0] == want:
            return k
    return None
