"""Per-SASS-instruction warp stall samples of the hip-on-cuda collectives, from Nsight Compute.

Reads the exports of bench/hip_on_cuda_profile_device.sh (one folder, e.g. the ncu/ folder of its
results.tgz): for each profiled kernel src_VERSION_CASE.csv (`ncu -i REP --page source --csv
--print-source sass`: one row per SASS instruction) and, when present, raw_VERSION_CASE.csv
(`ncu -i REP --page raw --csv`: the kernel's duration, gpu__time_duration.sum). VERSION is
baseline (main's shims, guarded build), native (CUDA's warp operations) or a variant of wave.h;
CASE is xor_cross (loop<1>, shfl_xor(32)), down_full (loop<2>, 64-lane shfl_down), ballot
(loop<3>) or barrier (loop<4>, the bare wave barrier).

Prints, per kernel, the samples, the duration and the stall reasons overall, then its top
instructions by samples with their stall reasons; then side by side, by SASS opcode and by stall
reason, the ballot loop against the shfl_xor loop (and every variant's ballot against the
baseline's): which instructions and reasons the first spends more time on, in ns per loop
iteration (a kernel's share of samples times its duration over the 4096 iterations; without a
duration, in shares of samples).

Column layout (the source page as CSV): NVIDIA's Nsight Compute documentation,
https://docs.nvidia.com/nsight-compute/NsightComputeCli/index.html (options --page source,
--print-source, --csv, --import-source) and the Source page of
https://docs.nvidia.com/nsight-compute/NsightCompute/index.html (the per-instruction columns
"Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued
Samples)", "Instructions Executed"; the stall reasons of
https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html, sampled per reason as
smsp__pcsamp_warps_issue_stalled_REASON). The documentation names these columns but shows no
CSV export in full: the header is found by its "Address" and "Source" cells wherever it is, and
per-reason columns are taken both as `stall_REASON` (the short names the Source page shows) and
as the metric names; a file without a samples column is an error that prints the header seen.

    python3 bench/hip_on_cuda_profile_read.py DIR [--top 12] [--iterations 4096]
        [--compare baseline:ballot baseline:xor_cross]...
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

SAMPLES_ALL = "Warp Stall Sampling (All Samples)"
SAMPLES_NOT_ISSUED = "Warp Stall Sampling (Not-issued Samples)"
EXECUTED = "Instructions Executed"
CASES = ("xor_cross", "down_full", "ballot", "barrier")
ITERATIONS = 4096  # bench/hip_on_cuda_collectives.hip's loop count
_REASON_SHORT = re.compile(r"^stall_([a-z0-9_]+)$")
_REASON_METRIC = re.compile(r"^smsp__pcsamp_warps_issue_stalled_([a-z0-9_]+)$")
_FILE = re.compile(r"^src_(.+)_(" + "|".join(CASES) + r")\.csv$")
_TIME_UNITS = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9}


class ProfileFormatError(ValueError):
    """An export this reader cannot read (no header row, no samples column)."""


@dataclass
class Instruction:
    address: str
    source: str
    samples: float
    not_issued: float
    executed: float | None
    reasons: dict[str, float] = field(default_factory=dict)

    @property
    def opcode(self) -> str:
        return opcode(self.source)


@dataclass
class KernelProfile:
    label: str
    instructions: list[Instruction]
    reason_names: list[str]
    duration_ns: float | None = None

    @property
    def samples(self) -> float:
        return sum(i.samples for i in self.instructions)

    def reason_totals(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for ins in self.instructions:
            for r, v in ins.reasons.items():
                out[r] = out.get(r, 0.0) + v
        return out

    def by_opcode(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for ins in self.instructions:
            out[ins.opcode] = out.get(ins.opcode, 0.0) + ins.samples
        return out

    def scale(self, iterations: int) -> tuple[float, str]:
        """Factor from samples to the unit printed: ns per iteration, or % of samples."""
        total = self.samples
        if total <= 0:
            return 0.0, "samples"
        if self.duration_ns:
            return self.duration_ns / iterations / total, "ns/iter"
        return 100.0 / total, "% samples"


def number(text: str) -> float:
    """A cell as a number: '' and '-' are 0, thousands separators dropped."""
    t = text.strip().replace(",", "")
    if t in ("", "-", "n/a", "N/A"):
        return 0.0
    return float(t)


def opcode(source: str) -> str:
    """The SASS mnemonic of an instruction's text: '@!P0 BRA `(.L_x_3) ;' -> 'BRA'."""
    tokens = source.strip().rstrip(";").split()
    if tokens and tokens[0].startswith("@"):
        tokens = tokens[1:]
    return tokens[0] if tokens else "?"


def _reason_name(header: str) -> str | None:
    h = header.strip()
    if h.endswith("(Not Issued)") or h.endswith("_not_issued"):
        return None
    m = _REASON_SHORT.match(h) or _REASON_METRIC.match(h)
    return m.group(1) if m else None


def parse_source_csv(text: str, label: str = "") -> KernelProfile:
    """One kernel's source page (SASS view) as CSV -> its instructions with samples and reasons."""
    rows = list(csv.reader(io.StringIO(text)))
    head_at = next((n for n, r in enumerate(rows) if {"Address", "Source"} <= {c.strip() for c in r}), None)
    if head_at is None:
        raise ProfileFormatError(f"{label}: no header row with 'Address' and 'Source' (first row: {rows[0] if rows else 'none'})")
    header = [c.strip() for c in rows[head_at]]
    col = {name: n for n, name in reversed(list(enumerate(header)))}
    if SAMPLES_ALL not in col:
        raise ProfileFormatError(f"{label}: no '{SAMPLES_ALL}' column; header: {header}")
    meta = [" ".join(c for c in r if c.strip()) for r in rows[:head_at] if any(c.strip() for c in r)]
    reasons = {n: name for n, h in enumerate(header) if (name := _reason_name(h))}
    out: list[Instruction] = []
    for r in rows[head_at + 1:]:
        if len(r) < len(header) or [c.strip() for c in r] == header:
            continue  # a blank or short row, or the header repeated for another function
        address = r[col["Address"]].strip()
        if not address:
            continue
        out.append(Instruction(
            address=address,
            source=r[col["Source"]].strip(),
            samples=number(r[col[SAMPLES_ALL]]),
            not_issued=number(r[col[SAMPLES_NOT_ISSUED]]) if SAMPLES_NOT_ISSUED in col else 0.0,
            executed=number(r[col[EXECUTED]]) if EXECUTED in col else None,
            reasons={name: v for n, name in reasons.items() if (v := number(r[n])) > 0},
        ))
    if not out:
        raise ProfileFormatError(f"{label}: a header but no instruction rows")
    return KernelProfile(label=label or (meta[0] if meta else "?"), instructions=out, reason_names=sorted(set(reasons.values())))


def parse_duration_ns(text: str) -> float | None:
    """gpu__time_duration.sum from `--page raw --csv` (a header row, a units row, values)."""
    rows = [r for r in csv.reader(io.StringIO(text)) if r]
    for n, r in enumerate(rows):
        cells = [c.strip() for c in r]
        if "gpu__time_duration.sum" not in cells:
            continue
        i = cells.index("gpu__time_duration.sum")
        unit, values = "nsecond", rows[n + 1:]
        if values and len(values[0]) > i and values[0][i].strip() in _TIME_UNITS:
            unit, values = values[0][i].strip(), values[1:]
        for v in values:
            if len(v) > i and v[i].strip():
                try:
                    return number(v[i]) * _TIME_UNITS[unit]
                except ValueError:
                    return None
    return None


def load_dir(folder: Path) -> dict[tuple[str, str], KernelProfile]:
    out: dict[tuple[str, str], KernelProfile] = {}
    for path in sorted(folder.glob("src_*.csv")):
        m = _FILE.match(path.name)
        if not m:
            continue
        version, case = m.group(1), m.group(2)
        try:
            prof = parse_source_csv(path.read_text(errors="replace"), f"{version}:{case}")
        except ProfileFormatError as e:
            print(f"UNREADABLE {path.name}: {e}")
            continue
        raw = folder / f"raw_{version}_{case}.csv"
        if raw.is_file():
            prof.duration_ns = parse_duration_ns(raw.read_text(errors="replace"))
        out[(version, case)] = prof
    return out


def _top_reasons(reasons: dict[str, float], total: float, n: int = 3) -> str:
    if total <= 0 or not reasons:
        return "-"
    return " ".join(f"{r} {100 * v / total:.0f}%" for r, v in sorted(reasons.items(), key=lambda kv: -kv[1])[:n])


def report_kernel(p: KernelProfile, top: int, iterations: int) -> list[str]:
    k, unit = p.scale(iterations)
    dur = f"{p.duration_ns / 1e3:.1f} us" if p.duration_ns else "duration unknown"
    lines = [f"== {p.label}: {p.samples:.0f} samples, {dur}, {len(p.instructions)} instructions; "
             f"reasons: {_top_reasons(p.reason_totals(), p.samples, 6)}"]
    if not p.reason_names:
        lines.append("   (no per-reason columns in this export: reasons unknown)")
    lines.append(f"   {'address':>8} {'samples':>8} {unit:>9}  reasons / instruction")
    for ins in sorted(p.instructions, key=lambda i: -i.samples)[:top]:
        if ins.samples <= 0:
            break
        lines.append(f"   {ins.address[-8:]:>8} {ins.samples:8.0f} {ins.samples * k:9.2f}  "
                     f"[{_top_reasons(ins.reasons, ins.samples)}] {ins.source[:70]}")
    return lines


def compare(a: KernelProfile, b: KernelProfile, iterations: int, top: int = 15) -> list[str]:
    """a against b by opcode and by stall reason: where a spends more (ns/iter or % samples)."""
    ka, ua = a.scale(iterations)
    kb, ub = b.scale(iterations)
    if ua != ub:  # one of them without a duration: compare shares
        ka, kb, ua = 100.0 / a.samples if a.samples else 0.0, 100.0 / b.samples if b.samples else 0.0, "% samples"
    lines = [f"== {a.label} against {b.label} ({ua}; + = more in {a.label}): "
             f"total {a.samples * ka:.2f} against {b.samples * kb:.2f}"]
    for title, da, db in (("opcode", a.by_opcode(), b.by_opcode()), ("stall reason", a.reason_totals(), b.reason_totals())):
        keys = set(da) | set(db)
        diff = sorted(keys, key=lambda x: -abs(da.get(x, 0.0) * ka - db.get(x, 0.0) * kb))
        lines.append(f"   {title:<34} {a.label:>16} {b.label:>16} {'difference':>11}")
        for x in diff[:top]:
            va, vb = da.get(x, 0.0) * ka, db.get(x, 0.0) * kb
            lines.append(f"   {x[:34]:<34} {va:16.2f} {vb:16.2f} {va - vb:+11.2f}")
    return lines


def default_pairs(profiles: dict[tuple[str, str], KernelProfile]) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    pairs = [(("baseline", "ballot"), ("baseline", "xor_cross")), (("native", "ballot"), ("native", "xor_cross")),
             (("baseline", "ballot"), ("native", "ballot"))]
    for version, case in sorted(profiles):
        if version not in ("baseline", "native") and case == "ballot":
            pairs.append(((version, "ballot"), ("baseline", "ballot")))
    return [(x, y) for x, y in pairs if x in profiles and y in profiles]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--iterations", type=int, default=ITERATIONS)
    ap.add_argument("--compare", nargs=2, action="append", metavar=("VERSION:CASE", "VERSION:CASE"))
    args = ap.parse_args(argv)
    profiles = load_dir(args.folder)
    if not profiles:
        print(f"no readable src_VERSION_CASE.csv in {args.folder}")
        return 1
    for key in sorted(profiles):
        print("\n".join(report_kernel(profiles[key], args.top, args.iterations)))
    pairs = [(tuple(x.split(":", 1)), tuple(y.split(":", 1))) for x, y in args.compare] if args.compare else default_pairs(profiles)
    for x, y in pairs:
        if x not in profiles or y not in profiles:
            print(f"== {':'.join(x)} against {':'.join(y)}: not both profiled")
            continue
        print("\n".join(compare(profiles[x], profiles[y], args.iterations)))  # type: ignore[index]
    return 0


if __name__ == "__main__":
    sys.exit(main())
