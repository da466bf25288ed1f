"""Port real CUDA programs and build each port with its own build files through the gfx950 stand-in.

For every program in bench/real_projects.toml (NVIDIA/cuda-samples, yuhc/gpu-rodinia):
1. stage the program folder and the folders its build files reach into a scratch tree;
2. build the original with its own build files here (nvcc, as installed);
3. `porter port SRC -o OUT --no-verify`;
4. build the port with the same build files, now ported, through porter's gfx950 hipcc
   stand-in (porter.toolchains.hipcc: clang 22, --offload-arch=gfx950, no GPU needed);
5. read the open findings from OUT/porter-report.json.
Prints one row per program and the totals; the goal is that >= 95% of the ports whose original
builds here also build through the stand-in.

    python bench/real_projects.py --corpus /work/src [--only NAME-SUBSTRING] [--keep DIR] [--md FILE]

The corpus root holds one extracted repository per folder (NVIDIA+cuda-samples, yuhc+gpu-rodinia);
`--corpus` or $PORTER_CORPUS names it. Nothing of the corpus is committed here, only program names.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from porter.state import BuildResult
from porter.toolchains.hipcc import hipcc_root, run_build

HERE = Path(__file__).resolve().parent
LIST = HERE / "real_projects.toml"
TIMEOUT_S = 900


@dataclass
class Row:
    name: str
    original: str = "-"  # built | failed | skipped
    port: str = "-"  # ported | failed
    port_build: str = "-"  # built | failed | -
    open_findings: dict[str, int] = field(default_factory=dict)
    outside: list[str] = field(default_factory=list)  # includes reaching outside the tree (BLD findings)
    why: str = ""  # the first error of a failed build
    seconds: float = 0.0


def stage(corpus: Path, prog: dict, dest: Path) -> Path:
    """Copy the program and its support paths into dest, at their relative paths; returns the program dir."""
    repo = corpus / prog["corpus"]
    for rel in [prog["program"], *prog.get("support", [])]:
        for src in sorted(glob.glob(str(repo / rel))):
            target = dest / Path(src).relative_to(repo)
            target.parent.mkdir(parents=True, exist_ok=True)
            if Path(src).is_dir():
                shutil.copytree(src, target, dirs_exist_ok=True)
            else:
                shutil.copy2(src, target)
    return dest / prog["program"]


# cuda-samples' CMakeLists set CMAKE_CUDA_ARCHITECTURES to nine SM versions after project(); the
# original is checked for sm_90 only (the H200 here), so a watch pins the variable to 90 whatever
# the file sets. Only the original's build is pinned; the port builds exactly as ported.
PIN_SM90 = """function(_porter_pin_sm90 var access value)
  if(access STREQUAL "MODIFIED_ACCESS" AND NOT value STREQUAL "90")
    set(CMAKE_CUDA_ARCHITECTURES 90 PARENT_SCOPE)
  endif()
endfunction()
variable_watch(CMAKE_CUDA_ARCHITECTURES _porter_pin_sm90)
"""


def build(kind: str, program: Path, work: Path, root: Path | None) -> BuildResult:
    """The program's own build: make in its folder, or CMake configure + build into `work`."""
    def run(cmd: list[str]) -> BuildResult:
        if root is not None:
            return run_build(cmd, program, root, timeout=TIMEOUT_S)
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=program, capture_output=True, text=True, errors="replace",
                                  timeout=TIMEOUT_S)
            rc, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = 124, "", f"timed out after {TIMEOUT_S} s"
        return BuildResult(toolchain="nvcc", cmd=tuple(cmd), rc=rc, stdout=out, stderr=err,
                           seconds=round(time.monotonic() - start, 3))

    if kind == "make":
        return run(["make", "-j2"])
    extra = []
    if root is None:
        work.mkdir(parents=True, exist_ok=True)
        (work / "porter-pin-sm90.cmake").write_text(PIN_SM90)
        extra = [f"-DCMAKE_PROJECT_INCLUDE={work / 'porter-pin-sm90.cmake'}"]
    configure = run(["cmake", "-S", str(program), "-B", str(work), "-DCMAKE_BUILD_TYPE=Release", *extra])
    if not configure.ok:
        return configure
    return run(["cmake", "--build", str(work), "-j2"])


_ERROR = re.compile(r"(error|Error|ERROR|not found|No such file|undefined reference)")


def first_error(b: BuildResult) -> str:
    for line in (b.stderr + "\n" + b.stdout).splitlines():
        if _ERROR.search(line) and "warning" not in line:
            return line.strip()[:220]
    return f"rc {b.rc}"


def open_findings(report: Path) -> tuple[dict[str, int], list[str]]:
    data = json.loads(report.read_text())
    counts: dict[str, int] = {}
    outside = []
    for f in data.get("findings", []):
        if f.get("fixed"):
            continue
        rule = f.get("rule", "?")
        counts[rule] = counts.get(rule, 0) + 1
        if rule == "BLD030":
            outside.append(f.get("message", ""))
    return counts, outside


def run_one(corpus: Path, prog: dict, scratch: Path, root: Path) -> Row:
    row = Row(prog["name"])
    start = time.monotonic()
    src = scratch / "src"
    program = stage(corpus, prog, src)
    rel = program.relative_to(src)
    cached = scratch.parent / "original-builds.json"
    known = json.loads(cached.read_text()) if cached.is_file() else {}
    if prog["name"] in known:  # the original does not change between runs: --keep reuses its verdict
        orig_ok, orig_error = known[prog["name"]]
    else:
        orig = build(prog["build"], program, scratch / "build-original", None)
        (scratch / "original-build.log").write_text(f"$ {' '.join(orig.cmd)}\n{orig.stdout}\n{orig.stderr}")
        orig_ok, orig_error = orig.ok, first_error(orig)
        known[prog["name"]] = [orig_ok, orig_error]
        cached.write_text(json.dumps(known, indent=1))
    row.original = "built" if orig_ok else "failed"
    if not orig_ok:
        row.why = "original: " + orig_error
    out = scratch / "port"
    proc = subprocess.run([sys.executable, "-c", "from porter.cli import app; app()", "port", str(src), "-o",
                           str(out), "--no-verify"], capture_output=True, text=True, timeout=TIMEOUT_S)
    report = out / "porter-report.json"
    if not report.is_file():
        row.port = "failed"
        row.why = f"porter exited {proc.returncode}: {(proc.stderr or proc.stdout).strip()[-200:]}"
        row.seconds = round(time.monotonic() - start, 1)
        return row
    row.port = "ported"
    row.open_findings, row.outside = open_findings(report)
    # the original's build outputs were copied along only if porter copies them: build from clean
    pb = build(prog["build"], out / rel, scratch / "build-port", root)
    row.port_build = "built" if pb.ok else "failed"
    (scratch / "port-build.log").write_text(f"$ {' '.join(pb.cmd)}\n{pb.stdout}\n{pb.stderr}")
    if not pb.ok and orig_ok:
        row.why = "port: " + first_error(pb)
    row.seconds = round(time.monotonic() - start, 1)
    return row


def table(rows: list[Row]) -> str:
    lines = ["| program | original builds (nvcc) | port builds (gfx950 stand-in) | open findings | note |",
             "|---|---|---|---|---|"]
    for r in rows:
        findings = ", ".join(f"{k} x{v}" for k, v in sorted(r.open_findings.items())) or "none"
        lines.append(f"| {r.name} | {r.original} | {r.port_build if r.port == 'ported' else 'port failed'} | "
                     f"{findings} | {r.why.replace('|', '/')} |")
    built = [r for r in rows if r.original == "built"]
    ok = [r for r in built if r.port_build == "built"]
    also = [r for r in rows if r.original != "built" and r.port_build == "built"]
    pct = 100.0 * len(ok) / len(built) if built else 0.0
    lines += ["", f"programs: {len(rows)}; originals that build here: {len(built)}; of those, ports that build "
              f"through the gfx950 stand-in: {len(ok)} ({pct:.1f}%); ports that build where the original "
              f"does not: {len(also)}",
              f"open findings: {sum(sum(r.open_findings.values()) for r in rows)} over "
              f"{sum(1 for r in rows if r.open_findings)} programs"]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=os.environ.get("PORTER_CORPUS"),
                    help="folder holding NVIDIA+cuda-samples and yuhc+gpu-rodinia (or $PORTER_CORPUS)")
    ap.add_argument("--only", action="append", default=[], help="run programs whose name contains this")
    ap.add_argument("--keep", type=Path, help="keep each program's scratch tree under this folder")
    ap.add_argument("--md", type=Path, help="also write the table to this markdown file")
    args = ap.parse_args()
    if not args.corpus or not Path(args.corpus).is_dir():
        print("real_projects: no corpus. Pass --corpus DIR or set PORTER_CORPUS to a folder holding the "
              "extracted repositories NVIDIA+cuda-samples and yuhc+gpu-rodinia.", file=sys.stderr)
        return 2
    corpus = Path(args.corpus)
    programs = tomllib.loads(LIST.read_text())["program"]
    if args.only:
        programs = [p for p in programs if any(s in p["name"] for s in args.only)]
    missing = sorted({p["corpus"] for p in programs if not (corpus / p["corpus"]).is_dir()})
    if missing:
        print(f"real_projects: {corpus} lacks {', '.join(missing)}", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory(prefix="porter-real-") as tmp:
        root = hipcc_root("gfx950", Path(tmp) / "toolchain")
        for prog in programs:
            scratch = (args.keep or Path(tmp)) / re.sub(r"[^\w.+-]", "_", prog["name"])
            if scratch.exists():
                shutil.rmtree(scratch)  # original-builds.json, one level up, survives
            scratch.mkdir(parents=True)
            row = run_one(corpus, prog, scratch, root)
            rows.append(row)
            print(f"{row.name:45} original {row.original:7} port {row.port_build:7} "
                  f"findings {sum(row.open_findings.values()):3} {row.seconds:6.1f}s {row.why[:110]}", flush=True)
            if not args.keep:
                shutil.rmtree(scratch, ignore_errors=True)
    text = table(rows)
    print()
    print(text)
    if args.md:
        cmd = "python bench/real_projects.py " + " ".join(sys.argv[1:])
        args.md.write_text(f"# Real programs: ports built by their own build files for gfx950 ({date.today()})\n\n"
                           f"Command: `{cmd}`\n\n{text}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
