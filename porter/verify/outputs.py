"""Compare what a program printed when built from the original and from the port.

A project's own check (porter.verify.discover) is a program the project already has: it
prints what it computed and often says PASS or FAIL. `compare_outputs` decides, from two runs
of the original and one of the port, whether the port behaved the same:

- exit codes must agree, and a run that was killed (timeout) or crashed is never a pass;
- PASS/FAIL markers ("Test passed", "Result = FAIL", "mismatch at 12") must agree, and a
  port that prints a failure marker the original did not fails;
- the values the program prints must agree: every number on a line that is not a timing or
  an environment line (device name, clock), aligned line by line after replacing numbers with
  a placeholder. A value that differs between the two runs of the original (a timing nobody
  labelled, a clock, a random seed, a pointer) is excluded and reported as excluded; a line the
  two original runs do not share is excluded whole. Floats agree within a tolerance read from
  how precisely they were printed (`float_tolerance`); integers agree exactly.

Nothing comparable (no marker and no stable value, both exits 0) is its own verdict, never a
pass. Pure functions of recorded text: this module runs nothing and imports only pydantic.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Collection
from typing import Literal

from porter.state import Frozen

OutputStatus = Literal["pass", "mismatch", "port-failed", "original-failed", "nothing-comparable", "timeout"]

# A printed number: hex, or decimal with optional fraction and exponent; nan/inf as printf writes them.
_NUMBER = re.compile(r"(?<![\w.])(?:0[xX][0-9a-fA-F]+|[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)\b)",
                     re.I)
# Lines whose numbers measure the machine, not the computation. Matched case-insensitively.
_TIMING = re.compile(r"\b(?:time[ds]?|timing|elapsed|duration|ms|msecs?|usecs?|us|sec|secs|seconds?|"
                     r"[gmk]?flops?(?:/s)?|gb/s|mb/s|bandwidth|throughput|perf(?:ormance)?|speed ?up|"
                     r"clocks?|cycles|latency|iterations? per|per second|fps)\b", re.I)
# On the line with its numbers replaced by "#": a number with a bare unit of time after it
# ("0.000027 s, 0.0119 % : COMPRESS IMAGE", Rodinia's srad).
_TIME_UNIT = re.compile(r"#\s*(?:s|ns)\b(?!\s*[=:])", re.I)
# Matched on the line with its numbers replaced by "#": "GPU Device #:", "compute capability #".
_ENVIRONMENT = re.compile(r"\b(?:device\s*#|devices?\s*(?:count|id)|compute capability|capability|driver|"
                          r"runtime version|multiprocessors?|clock rate|warp ?size|wavefront size|pci|uuid|hostname|"
                          r"pid|sm_\d+|gfx\d+|global memory|shared memory per|registers per|"
                          # the GPU itself, which the port runs as another: "AMD Instinct MI350X supports SM 9.5",
                          # "MapSMtoCores for SM 9.5 is undefined"
                          r"sm\s*#(?:\.#)?|sm\s*version|mapsmtocores|nvidia|amd|instinct|geforce|tesla|quadro|radeon|"
                          r"h100|h200|b200|mi\d{3}x?)(?!\w)", re.I)
_PASS = re.compile(r"\b(?:PASS(?:ED)?|test(?:s)? passed|result\s*=\s*pass|all .*(?:correct|passed)|"
                   r"verification (?:successful|succeeded|passed)|(?:results?|test|check) (?:ok|correct)|"
                   r"correct results?)\b", re.I)
_FAIL = re.compile(r"\b(?:FAIL(?:ED|URE|S)?|test(?:s)? failed|result\s*=\s*fail|incorrect|wrong (?:result|answer)|"
                   r"verification failed|mismatch(?:es|ed)?|does not match|doesn't match|not match)\b", re.I)
# "0 mismatches", "no errors", "mismatch count: 0", "failed: 0", "assert failed as expected" say the
# opposite of the word they hold.
_NEGATED = re.compile(r"\b(?:0|no|zero|without)\s+(?:\w+\s+)?(?:mismatch(?:es|ed)?|fail(?:ures|ed|s)?|errors?)\b|"
                      r"\b(?:fail(?:ed|s|ure)?)\s+(?:as\s+expected|expectedly)\b|\bexpected\s+failure\b|"
                      r"\b(?:mismatch(?:es|ed)?|fail(?:ures|ed|s)?|errors?)\s*(?:count)?\s*[:=]\s*0\b(?!\.\d*[1-9])",
                      re.I)
FLOAT_RTOL_FLOOR = 1e-4  # float32 sums reordered by another compiler differ by about this much
MAX_RTOL = 1e-2  # a value printed with 2 significant digits still has to agree to 1 %


class ProgramRun(Frozen):
    """One run of a check's program: what it printed and how it ended."""

    rc: int | None  # None: killed (timeout)
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    timed_out: bool = False


class Exclusion(Frozen):
    """A value (or a whole line) left out of the comparison, and why."""

    line: str  # the original's line
    reason: Literal["timing", "environment", "differs between two runs of the original", "only in one original run"]


class OutputComparison(Frozen):
    status: OutputStatus
    reason: str = ""
    compared: int = 0  # values compared
    markers: tuple[str, ...] = ()  # the original's PASS/FAIL marker lines
    excluded: tuple[Exclusion, ...] = ()
    original_line: str = ""  # the first differing line of each side, when a value or line differs
    port_line: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "pass"


class _Line(Frozen):
    text: str
    template: str  # the line with each number replaced by "#"
    numbers: tuple[str, ...]


def numbers_of(line: str) -> tuple[str, tuple[str, ...]]:
    """(template, numbers): the line with every printed number replaced by `#`, and the numbers as printed."""
    numbers = tuple(m.group(0) for m in _NUMBER.finditer(line))
    return _NUMBER.sub("#", line).strip(), numbers


# A printf conversion that prints a number, and the ones that print text (a line with text
# conversions has no fixed template).
_NUMERIC_CONVERSION = re.compile(r"%[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t|q)?[diouxXeEfFgGaA]")
_TEXT_CONVERSION = re.compile(r"%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?l?[scpn]")
_C_ESCAPES = {"\\t": "\t", "\\n": "\n", "\\\\": "\\", '\\"': '"', "%%": "%"}


def printf_templates(fmt: str) -> list[str]:
    """The templates (as `numbers_of` makes them) of the lines a C format string prints: each numeric
    conversion a `#`, one template per printed line that holds one. `"%d streams:\\t%.2f\\n"` ->
    `["# streams:\t#"]`. Lines with a text conversion (%s) have no fixed template and are left out."""
    text = re.sub(r'\\[tn"\\]|%%', lambda m: _C_ESCAPES[m[0]], fmt)
    out = []
    for line in text.split("\n"):
        if _TEXT_CONVERSION.search(line) or not _NUMERIC_CONVERSION.search(line):
            continue
        out.append(numbers_of(_NUMERIC_CONVERSION.sub("0", line))[0])
    return out


def line_kind(line: str, timed: Collection[str] = ()) -> Literal["timing", "environment", "value", "text"]:
    """How a line's numbers are treated: ignored (timing, environment), compared (value), or no numbers.

    `timed`: templates (`numbers_of`) of lines the program's sources print from a measured time
    whatever their words say ("non-streamed:\t#" of cuda-samples' simpleStreams): porter.verify.discover
    reads them from printf calls whose arguments hold a timer's result."""
    template, numbers = numbers_of(line)
    if not numbers:
        return "text"
    if template in timed or _TIMING.search(template.replace("#", " ")) or _TIME_UNIT.search(template):
        return "timing"
    if _ENVIRONMENT.search(template):
        return "environment"
    return "value"


def markers(text: str) -> tuple[list[str], list[str]]:
    """(pass lines, fail lines) of a program's output; a negated failure ("0 mismatches") is neither."""
    passes, fails = [], []
    for line in text.splitlines():
        stripped = _NEGATED.sub(" ", line)
        if _FAIL.search(stripped):
            fails.append(line.strip())
        elif _PASS.search(stripped):
            passes.append(line.strip())
    return passes, fails


def _is_float(token: str) -> bool:
    t = token.lower()
    return not t.startswith(("0x", "-0x", "+0x")) and any(c in t for c in ".e") or t.lstrip("+-") in ("nan", "inf")


def _significant_digits(token: str) -> int:
    mantissa = re.split(r"[eE]", token.lstrip("+-"))[0]
    digits = mantissa.replace(".", "").lstrip("0")
    return max(len(digits), 1)


def _decimals(token: str) -> int:
    mantissa, _, exponent = token.lower().lstrip("+-").partition("e")
    frac = mantissa.partition(".")[2]
    return len(frac) - (int(exponent) if exponent else 0)


def float_tolerance(a: str, b: str) -> tuple[float, float]:
    """(rtol, atol) for two floats as printed: rtol from the fewer significant digits printed
    (one unit in the last digit, clamped to [FLOAT_RTOL_FLOOR, MAX_RTOL]); atol one unit in the last
    decimal place printed, so `0.000` against `0.001` (rounding) agrees and `0.000` against `0.5` does not."""
    sig = min(_significant_digits(a), _significant_digits(b))
    rtol = min(max(10.0 ** (1 - sig), FLOAT_RTOL_FLOOR), MAX_RTOL)
    atol = 10.0 ** -min(_decimals(a), _decimals(b))
    return rtol, atol


def values_agree(a: str, b: str) -> bool:
    """Two printed numbers: integers (and hex) exactly, floats within `float_tolerance`."""
    if a == b:
        return True
    if not (_is_float(a) or _is_float(b)):
        try:
            return int(a, 0) == int(b, 0) if a.lower().startswith(("0x", "-0x")) else int(a) == int(b)
        except ValueError:
            return False
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    rtol, atol = float_tolerance(a, b)
    return abs(x - y) <= max(atol, rtol * max(abs(x), abs(y)))


def _lines(text: str) -> list[_Line]:
    out = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        template, numbers = numbers_of(raw)
        out.append(_Line(text=raw.strip(), template=template, numbers=numbers))
    return out


def _aligned(a: list[_Line], b: list[_Line]) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Pairs of lines with the same template, in order; and the indices of a and b left unpaired."""
    matcher = difflib.SequenceMatcher(a=[x.template for x in a], b=[x.template for x in b], autojunk=False)
    pairs = [(block.a + k, block.b + k) for block in matcher.get_matching_blocks() for k in range(block.size)]
    paired_a, paired_b = {i for i, _ in pairs}, {j for _, j in pairs}
    return pairs, [i for i in range(len(a)) if i not in paired_a], [j for j in range(len(b)) if j not in paired_b]


def stable_values(first: str, second: str,
                  timed: Collection[str] = ()) -> tuple[list[_Line], set[tuple[int, int]], list[Exclusion]]:
    """The first run's lines, the (line, position) of every comparable value in them, and what was excluded.

    Comparable: on a value line, printed the same (within tolerance) by both runs of the original.
    """
    a, b = _lines(first), _lines(second)
    pairs, only_a, _only_b = _aligned(a, b)
    stable: set[tuple[int, int]] = set()
    excluded: list[Exclusion] = []
    for i, j in pairs:
        line = a[i]
        if not line.numbers:
            continue
        kind = line_kind(line.text, timed)
        if kind in ("timing", "environment"):
            excluded.append(Exclusion(line=line.text, reason=kind))
            continue
        unstable = False
        for k, (x, y) in enumerate(zip(line.numbers, b[j].numbers, strict=True)):
            if values_agree(x, y):
                stable.add((i, k))
            else:
                unstable = True
        if unstable:
            excluded.append(Exclusion(line=line.text, reason="differs between two runs of the original"))
    excluded += [Exclusion(line=a[i].text, reason="only in one original run") for i in only_a if a[i].numbers]
    return a, stable, excluded


def compare_outputs(original: ProgramRun, original_again: ProgramRun, port: ProgramRun, *,
                    exit_status_is_check: bool = False, timed: Collection[str] = ()) -> OutputComparison:
    """The port's run against two runs of the original (see the module docstring).

    `exit_status_is_check`: the program (or test runner) reports its own check by its exit status
    (`exit(ok ? EXIT_SUCCESS : EXIT_FAILURE)`, CTest, pytest), so exit 0 on both sides is a pass
    even where nothing printed is comparable. `timed`: line templates printed from a measured time
    (see `line_kind`).
    """
    if original.timed_out or original_again.timed_out:
        return OutputComparison(status="original-failed", reason="the original timed out: nothing to compare against")
    o_pass, o_fail = markers(original.stdout)
    if original.rc != 0 or o_fail:
        why = f"exit code {original.rc}" if original.rc != 0 else f"it printed {o_fail[0]!r}"
        return OutputComparison(status="original-failed", markers=tuple(o_pass + o_fail),
                                reason=f"the original does not pass its own check ({why}): nothing to compare against")
    if port.timed_out:
        return OutputComparison(status="timeout", reason=f"the port timed out after {port.seconds:g} s")
    p_pass, p_fail = markers(port.stdout)
    if port.rc != original.rc:
        return OutputComparison(status="port-failed", markers=tuple(o_pass),
                                reason=f"exit code {port.rc}, the original's {original.rc}"
                                       + (f"; the port printed {p_fail[0]!r}" if p_fail else ""),
                                port_line=_last_line(port))
    if p_fail:
        return OutputComparison(status="mismatch", markers=tuple(o_pass), reason=f"the port printed {p_fail[0]!r}",
                                **_first_difference(original.stdout, port.stdout, ("", p_fail[0]), timed))
    if o_pass and not p_pass:
        return OutputComparison(status="mismatch", markers=tuple(o_pass),
                                reason=f"the original printed {o_pass[0]!r}, the port no PASS marker",
                                **_first_difference(original.stdout, port.stdout, (o_pass[0], ""), timed))
    lines, stable, excluded = stable_values(original.stdout, original_again.stdout, timed)
    port_lines = _lines(port.stdout)
    pairs, only_o, only_p = _aligned(lines, port_lines)
    excluded_lines = {e.line for e in excluded}
    compared = 0
    for i, j in pairs:
        for k, (x, y) in enumerate(zip(lines[i].numbers, port_lines[j].numbers, strict=True)):
            if (i, k) not in stable:
                continue
            compared += 1
            if not values_agree(x, y):
                return OutputComparison(status="mismatch", markers=tuple(o_pass), excluded=tuple(excluded),
                                        compared=compared, reason=f"value {k + 1} differs: {x} against {y}",
                                        original_line=lines[i].text, port_line=port_lines[j].text)
    # A comparable line of the original the port did not print at all is a difference too.
    missing = [i for i in only_o if any((i, k) in stable for k in range(len(lines[i].numbers)))
               and lines[i].text not in excluded_lines]
    if missing:
        i = missing[0]
        near = next((port_lines[j].text for j in only_p), "")
        return OutputComparison(status="mismatch", markers=tuple(o_pass), excluded=tuple(excluded), compared=compared,
                                reason="the port did not print a line the original printed",
                                original_line=lines[i].text, port_line=near)
    if not compared and not o_pass and exit_status_is_check:
        return OutputComparison(status="pass", excluded=tuple(excluded),
                                reason="exit status 0 on both sides, and the program checks itself by its exit status")
    if not compared and not o_pass:
        return OutputComparison(status="nothing-comparable", excluded=tuple(excluded),
                                reason="no PASS/FAIL marker and no value that two runs of the original print alike")
    what = [f"{compared} value(s) agree"] if compared else []
    what += ["PASS marker on both sides"] if o_pass else []
    return OutputComparison(status="pass", markers=tuple(o_pass), excluded=tuple(excluded), compared=compared,
                            reason="; ".join(what))


def _first_difference(original: str, port: str, fallback: tuple[str, str],
                      timed: Collection[str] = ()) -> dict[str, str]:
    """The first line pair that differs, timing and environment lines aside: {original_line, port_line}."""
    a = [x for x in _lines(original) if line_kind(x.text, timed) not in ("timing", "environment")]
    b = [x for x in _lines(port) if line_kind(x.text, timed) not in ("timing", "environment")]
    matcher = difflib.SequenceMatcher(a=[x.text for x in a], b=[x.text for x in b], autojunk=False)
    for tag, i1, _i2, j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return {"original_line": a[i1].text if i1 < len(a) else "", "port_line": b[j1].text if j1 < len(b) else ""}
    return {"original_line": fallback[0], "port_line": fallback[1]}


def _last_line(run: ProgramRun) -> str:
    lines = [ln.strip() for ln in (run.stdout + "\n" + run.stderr).splitlines() if ln.strip()]
    return lines[-1] if lines else ""
