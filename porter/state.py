"""Typed state that flows through porter's LangGraph graph.

One `PortState` goes from `scan` through the four agents to `report`. A node reads it and
returns only the fields it changes; list fields merge through the reducers declared here.
The parts (`Finding`, `Patch`, `BuildResult`, ...) are frozen pydantic models so that the
SQLite checkpointer can store every step and a resumed run sees exactly what was recorded.
"""

from __future__ import annotations

import hashlib
import weakref
from enum import StrEnum
from itertools import chain, islice
from operator import itemgetter, le
from typing import Annotated, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1
# The rule id of a finding that records porter's own failure (porter.containment): not a hazard
# of the code but a unit porter could not finish. Any such finding makes the run exit 3.
INTERNAL_ERROR = "internal-error"


def content_hash(data: bytes) -> str:
    """sha256 of a file's bytes: the base a Patch is written against."""
    return hashlib.sha256(data).hexdigest()


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Severity(StrEnum):
    error = "error"  # the port is wrong or does not build on the target
    warning = "warning"  # likely wrong on the target; needs a look
    info = "info"  # a change or fact worth knowing


class FileKind(StrEnum):
    cuda = "cuda"  # .cu .cuh
    cpp = "cpp"  # .cpp .cc .cxx .c .h .hpp .hxx
    cmake = "cmake"  # CMakeLists.txt, *.cmake
    makefile = "makefile"  # Makefile, *.mk
    setup_py = "setup_py"  # setup.py
    python = "python"
    triton = "triton"  # a .py module that imports triton: ported by the TRI rules
    text = "text"  # anything else readable: copied as is
    binary = "binary"  # not UTF-8 or has NUL bytes: copied unchanged


class Location(Frozen):
    """A place in a file of the *source* tree (same relative path in the output tree).

    Lines and columns are 1-based; columns count characters, as editors and SARIF do.
    """

    path: str
    line: int
    column: int = 1
    end_line: int | None = None
    end_column: int | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


class Finding(Frozen):
    """A hazard or change a rule saw at one location."""

    rule: str
    severity: Severity
    message: str
    location: Location
    snippet: str = ""
    agent: str = ""
    fixable: bool = False  # the rule has a fixer for this occurrence
    fixed: bool = False  # the fix landed in the output tree
    detail: str = ""  # long text, e.g. a whole inline-asm block, for the report

    @property
    def key(self) -> tuple[str, str, int, int] | tuple[str, str, int, int, str]:
        if self.rule == INTERNAL_ERROR:  # several steps may fail on one file: one finding each
            return (self.rule, self.location.path, self.location.line, self.location.column,
                    self.detail.split(":", 1)[0])
        return (self.rule, self.location.path, self.location.line, self.location.column)


class Edit(NamedTuple):
    """Replace bytes [start, end) of the base text by `text`.

    A named tuple, not a model: a translated file carries one edit per renamed token, and
    building thousands of pydantic models per file was most of the translator's time.
    """

    start: int
    end: int
    text: str
    rule: str = ""


_START_END = itemgetter(0, 1)  # an Edit's (start, end), in C
# Patch.known_result's bytes, by the patch's id, with a weak reference to it (its callback drops the entry).
_RESULTS: dict[int, tuple[weakref.ref, bytes]] = {}
_START, _END, _TEXT = itemgetter(0), itemgetter(1), itemgetter(2)


class Patch(Frozen):
    """A change an agent proposes to one file of the output tree.

    Agents never write files: they return patches, and `porter.workspace.Workspace`
    is the one writer. `base_hash` is the sha256 of the file the edits were computed
    against (None creates a new file, whose content is the single edit's text).
    """

    path: str
    base_hash: str | None
    edits: tuple[Edit, ...]
    agent: str
    origin: Literal["rule", "model", "user"] = "rule"  # user: a person's edit in a session (porter.session)
    rule: str = ""  # the rule id, or several joined by "," for a translator pass
    reason: str = ""

    @classmethod
    def create(cls, path: str, text: str, *, agent: str, rule: str, reason: str) -> Patch:
        return cls(path=path, base_hash=None, edits=(Edit(start=0, end=0, text=text, rule=rule),),
                   agent=agent, rule=rule, reason=reason)

    def apply_to(self, base: bytes) -> bytes:
        """The patched bytes. Edits must not overlap and must stay inside the file.

        Where the process that made this patch applied it already (`known_result`), and `base`
        is the text it was written against (its hash is `base_hash`), those bytes (once: a
        later call applies the edits)."""
        if self.base_hash is None:
            return self.edits[0].text.encode()
        known = _RESULTS.get(id(self))
        if known is not None and known[0]() is self and content_hash(base) == self.base_hash:
            _RESULTS.pop(id(self), None)  # landed: not held for the rest of the run
            return known[1]
        edits = sorted(self.edits, key=_START_END)  # by (start, end), stable
        starts, ends, texts = list(map(_START, edits)), list(map(_END, edits)), list(map(_TEXT, edits))
        size = len(base)
        bounds = [0, *chain.from_iterable(zip(starts, ends)), size]
        if all(map(le, bounds, islice(bounds, 1, None))):
            # Every edit in order and inside the file: the pieces cut and joined in C; a translated
            # file says each HIP name many times, each encoded once.
            gaps = list(map(base.__getitem__, map(slice, [0, *ends], [*starts, size])))
            encoded = {text: text.encode() for text in set(texts)}
            pieces = list(chain.from_iterable(zip(gaps, map(encoded.__getitem__, texts))))
            pieces.append(gaps[-1])
            return b"".join(pieces)
        return self._apply_one_by_one(base)  # raises, naming the first edit out of place

    def known_result(self, result: bytes) -> None:
        """Record `result` as this patch applied to its base (the bytes whose hash is `base_hash`),
        for `apply_to`: a rule run applies its patch where it has the bytes (a worker process,
        which sends them back beside the patch), and the driver, which lands the patches one
        after the other, then only writes (bench/results/translate-2026-12-01j.md). Kept by
        identity, until the first `apply_to` that returns it or while this patch lives: a copy
        (model_copy, a round trip through pickle) is another patch and applies its edits."""
        key = id(self)

        def drop(_: weakref.ref) -> None:
            _RESULTS.pop(key, None)

        _RESULTS[key] = (weakref.ref(self, drop), result)

    def _apply_one_by_one(self, base: bytes) -> bytes:
        pieces: list[bytes] = []
        add = pieces.append
        encoded: dict[str, bytes] = {}  # a translated file says each HIP name many times: encoded once
        at, size = 0, len(base)
        for start, end, text, _ in sorted(self.edits, key=_START_END):  # by (start, end), stable
            if not at <= start <= end <= size:
                raise ValueError(f"{self.path}: edit [{start},{end}) overlaps or leaves the file")
            add(base[at:start])
            raw = encoded.get(text)
            if raw is None:
                raw = encoded[text] = text.encode()
            add(raw)
            at = end
        add(base[at:])
        return b"".join(pieces)


class FileRecord(Frozen):
    path: str  # relative to the source root, posix separators
    kind: FileKind
    lines: int = 0
    parsed: bool = True  # tree-sitter parsed it without ERROR nodes
    note: str = ""  # why it was copied unchanged, not parsed, or skipped
    # A source file (by its name) that porter copied unported: not text, or a module no parser
    # read. Any such file makes the run exit 1, with `note` as the reason.
    unported: bool = False
    encoding: str = "utf-8"  # the text encoding porter read it in (porter.encoding); "" for binary


class LaunchSite(Frozen):
    location: Location
    text: str


class KernelInfo(Frozen):
    """A __global__ function found by the scan."""

    name: str
    location: Location
    launches: tuple[LaunchSite, ...] = ()
    static_shared_bytes: int | None = None  # None: a size the scan could not evaluate
    warp_ops: tuple[str, ...] = ()  # warp-level intrinsics it calls (__shfl_down_sync, ...)


class KernelResources(Frozen):
    """What the gfx9 compiler reports for one kernel (clang -Rpass-analysis=kernel-resource-usage)."""

    kernel: str
    unit: str
    arch: str
    vgprs: int
    agprs: int
    sgprs: int
    lds_bytes: int
    scratch_bytes: int  # per lane
    vgpr_spill: int
    sgpr_spill: int
    occupancy: int  # waves per SIMD
    mfma_count: int = 0


class BuildResult(Frozen):
    """One compiler invocation. A failed compile is data, not an exception."""

    toolchain: str  # "clang-hip" | "nvcc" | "hipcc"
    cmd: tuple[str, ...]
    rc: int
    stdout: str = ""
    stderr: str = ""
    artifacts: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.rc == 0


UnitVerdict = Literal["compiled", "failed", "not-checked"]


# How a kernel run from its spec ended (porter.verify.project, porter.verify.triton_units).
KernelStatus = Literal["pass", "mismatch", "port-build-failed", "port-run-failed", "baseline-failed",
                       "not-checked", "not-exercised"]
# How a project's own check ended, run on the original and the port (porter.verify.checks).
CheckStatus = Literal["pass", "mismatch", "port-build-failed", "port-failed", "timeout", "nothing-comparable",
                      "original-build-failed", "original-failed", "compiled-only", "not-checked"]
Timing = Literal["faster", "slower", "equal"]


class KernelCheck(Frozen):
    """One kernel run from its spec, or one project check: the port's outputs against the original's, and its time."""

    kernel: str
    executor: str
    status: KernelStatus | CheckStatus
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    worst_index: tuple[int, ...] | None = None
    port_ms: float | None = None
    baseline_ms: float | None = None  # the direct-hipify port on the same executor (rocm only)
    timing: Timing | Literal[""] = ""  # "" when not measured on the target
    reason: str = ""


class PerfEstimate(Frozen):
    """The perfmodel's predicted time of one ported kernel against its direct-hipify baseline.

    A prediction, never a measurement: shown as "estimated (perfmodel, gfx950)" wherever it is
    shown (porter.perfmodel). Two methods: "gemm", the tile model of a Triton GEMM
    (agents/verifier/estimate.py), and "isa", the instruction-mix model of a C++/HIP kernel from
    its gfx950 device assembly and the spec's launch (porter.perfmodel.isa).
    """

    kernel: str
    device: str = "gfx950"
    method: Literal["gemm", "isa"] = "gemm"
    shape: tuple[int, int, int] = (0, 0, 0)  # gemm: M, N, K of the GEMM the times are for
    dtype: str = ""  # gemm: the perfmodel's operand dtype: fp16, bf16, ...
    shape_from: str = ""  # where the problem came from: the spec's arguments, or a default and why
    launch: str = ""  # isa: the spec's grid x block the times are for
    port_config: str = ""  # the config the prediction is for (the best of an autotune list)
    port_us: float | None = None
    baseline_config: str = ""  # the original's config, run unchanged on the device
    baseline_us: float | None = None
    ratio: float | None = None  # port / baseline: < 1 is faster
    bound: str = ""  # isa: what limits the port (issue, dram, cache, lds, compute, atomic, latency)
    baseline_bound: str = ""
    verdict: Literal["faster", "slower", "equal", "baseline-does-not-fit", "baseline-does-not-compile",
                     "port-does-not-fit", "not-estimated"]
    reason: str = ""

    @property
    def label(self) -> str:
        return f"estimated (perfmodel, {self.device})" if self.method == "gemm" else \
            f"estimated (perfmodel isa, {self.device})"

    @property
    def problem(self) -> str:
        """What the times are for: `MxNxK dtype` (gemm) or the launch (isa)."""
        if self.method == "isa":
            return self.launch
        return f"{self.shape[0]}x{self.shape[1]}x{self.shape[2]} {self.dtype}"


class UnitResult(Frozen):
    """The verifier's evidence for one translation unit."""

    unit: str
    verdict: UnitVerdict
    port_build: BuildResult | None = None
    original_build: BuildResult | None = None
    kernels: tuple[KernelResources, ...] = ()
    checks: tuple[KernelCheck, ...] = ()  # numerics and timing, when an executor ran the kernels
    controls: tuple[str, ...] = ()  # "kernel: summary" of the original built for NVIDIA (Triton's PTX control)
    estimates: tuple[PerfEstimate, ...] = ()  # predicted, not measured: Triton GEMMs, HIP kernels with a spec
    failure_class: str = ""  # e.g. "missing-declaration", "syntax", "sync-mask-width"
    reason: str = ""  # for not-checked: why (missing toolchain, not a unit, ...)


class Attempt(Frozen):
    """One trip round the verifier loop for one unit."""

    iteration: int
    unit: str
    failure_class: str
    routed_to: str
    message: str
    reverted: Literal["", "rule", "model"] = ""  # origin of the patch the verifier undid first, if any


class ModelCall(Frozen):
    """One exchange with the model: what was asked, what it cost, and what became of the answer.

    A conversation about one unit may take several calls: an answer whose edits do not apply
    goes back with the reason (`round` counts them). Model patches land like any other and are
    judged by the verifier; a patch that leaves its unit no better is reverted (an Attempt says so).
    """

    agent: str
    task: str  # the prompt's path under prompts/, e.g. "repair/compile_error"
    unit: str
    iteration: int
    round: int = 1
    model: str  # "anthropic:claude-sonnet-4-5", "openai-compatible:http://host/v1#m", "scripted", ...
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None  # None: no price known for the model
    outcome: Literal["patched", "edit-rejected", "no-edit", "error"]  # patched: its patch went to the workspace
    detail: str = ""  # the patch's reason, why its edits were rejected, or the provider's error
    paths: tuple[str, ...] = ()  # files the applied patch changed


class ModelOptions(Frozen):
    """Which model the agents may ask, and how much they may spend (porter.llm reads these).

    `spec` is "none" (rules only), "anthropic:MODEL", "openai:MODEL" or
    "openai-compatible:URL#MODEL". A budget of None is no limit on that count.
    """

    spec: str = "none"
    record: str = ""  # a directory: write every exchange there as a cassette
    replay: str = ""  # a directory: answer from its cassettes, with no network
    max_calls: int | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=0)
    max_usd: float | None = Field(default=None, ge=0)
    price: tuple[float, float] | None = None  # USD per million input, output tokens; overrides prices.toml
    timeout_s: float = Field(default=120.0, gt=0)
    retries: int = Field(default=3, ge=0, le=10)
    edit_rounds: int = Field(default=3, ge=1, le=10)  # answers per conversation before giving up on it

    @property
    def enabled(self) -> bool:
        return self.spec != "none" or bool(self.replay)


class PortOptions(Frozen):
    launch: Literal["chevron", "hipLaunchKernelGGL"] = "chevron"
    # Matrix-core rewrites: porter's MFMA helpers (shims/, verified here) or rocWMMA calls.
    matrix: Literal["porter", "rocwmma"] = "porter"
    # CUDA libraries to the hip* wrappers (default) or straight to the ROCm library, as HIPIFY's -roc.
    blas: Literal["hipblas", "rocblas"] = "hipblas"
    sparse: Literal["hipsparse", "rocsparse"] = "hipsparse"
    solver: Literal["hipsolver", "rocsolver"] = "hipsolver"
    rand: Literal["hiprand", "rocrand"] = "hiprand"
    dnn: Literal["none", "miopen"] = "none"  # none: cuDNN use is reported (HIP006); miopen: renamed
    arch: str = "gfx950"
    max_iterations: int = Field(default=3, ge=1, le=20)
    verify: bool = True  # compile the ports and originals
    # Run the kernels with specs on this executor after they compile: "hip-on-cuda" on an
    # NVIDIA machine (AMD wave semantics emulated), "rocm" on an AMD one.
    executor: Literal["none", "hip-on-cuda", "rocm"] = "none"
    force: bool = False
    model: ModelOptions = ModelOptions()


def merge_findings(old: list[Finding], new: list[Finding]) -> list[Finding]:
    """Reducer: a finding at the same (rule, place) replaces the earlier one."""
    merged = {f.key: f for f in old}
    for f in new:
        merged[f.key] = f
    return list(merged.values())


def merge_units(old: dict[str, UnitResult], new: dict[str, UnitResult]) -> dict[str, UnitResult]:
    return {**old, **new}


def append(old: list, new: list) -> list:
    return [*old, *new]


class PortState(BaseModel):
    """Everything a run knows; the checkpointer stores one of these per step."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    source: str  # absolute path of the source tree (read only)
    output: str  # absolute path of the output tree (the only place porter writes)
    options: PortOptions = PortOptions()
    files: list[FileRecord] = []
    kernels: list[KernelInfo] = []
    findings: Annotated[list[Finding], merge_findings] = []
    patches: Annotated[list[Patch], append] = []  # every patch that landed, in order
    units: Annotated[dict[str, UnitResult], merge_units] = {}
    attempts: Annotated[list[Attempt], append] = []
    model_calls: Annotated[list[ModelCall], append] = []
    notes: Annotated[list[str], append] = []  # run-level facts for the report
    iteration: int = 0
    pending: list[str] = []  # units the verifier sent back for another round
    route: str = ""  # the verifier's decision: an agent name, or "report"


class AgentOutput(Frozen):
    """What an agent node returns: proposals for the workspace, and what it learnt.

    The graph lands `patches` through the workspace; findings, attempts and notes go into the
    state through their reducers.
    """

    findings: tuple[Finding, ...] = ()
    patches: tuple[Patch, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    model_calls: tuple[ModelCall, ...] = ()
    notes: tuple[str, ...] = ()
