"""Control set for shims/hip_on_cuda: known-correct HIP programs, built and run twice.

Each program of bench/hip_on_cuda_control.txt (ROCm/rocm-examples: self-checking HIP programs
that officially support the NVIDIA platform; porter wrote none of them) is built with nvcc:

  emulated  HIP on gfx950 as porter's executor runs it: shims/hip_on_cuda, wave64 emulation;
  native    the same source on HIP's NVIDIA platform: the same headers with
            -DPORTER_HOC_PLATFORM_NVIDIA (32-lane warps, CUDA's warp functions, the CUDA
            libraries). HIP 5.2's own hip/nvidia_detail headers (Debian's, here) do not build
            with CUDA 13 (cudaDeviceProp lost clockRate and friends), so this is the control.

    python bench/hip_on_cuda_control.py build --corpus /work/src --out DIR   # build gate, no GPU
    python bench/hip_on_cuda_control.py run --bin DIR --out results.json     # on the GPU

`build` writes DIR/<mode>/<name> executables and DIR/build.json (one entry per program and
mode: built or not, and the first error lines) and fails when an emulated build fails for a
program whose line in the list has no "note:" explaining it (the CI-like gate, no GPU needed); `run` runs every built executable (exit status
0 is the program's self-check passing), times it, and writes the results with the build's. The
corpus is found through --corpus or $PORTER_CORPUS (a folder holding ROCm+rocm-examples); the
CUDA libraries' headers and libraries (cuBLAS, cuFFT, cuRAND, cuSPARSE) through --cuda-libs or
$PORTER_CUDA_LIBS (a folder with include/ and lib/, e.g. the nvidia/cu13 folder of the
nvidia-cublas & co. wheels); programs that need them are reported as not built without it.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # porter.toolchains: standard library only
from porter.toolchains import find_cuda_libs  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LIST = HERE / "hip_on_cuda_control.txt"
SHIM = ROOT / "shims" / "hip_on_cuda"
MODES = ("emulated", "native")
FAIL_WORDS = re.compile(r"validation failed|FAILED|mismatch", re.IGNORECASE)


@dataclass
class Program:
    path: str
    sources: list[str]
    libs: list[str]
    skip: str = ""
    note: str = ""  # why it is expected to fail emulated (an explained failure)

    @property
    def name(self) -> str:
        return self.path.replace("/", "__")


@dataclass
class Outcome:
    program: str
    mode: str
    built: bool = False
    build_s: float = 0.0
    build_error: str = ""
    ran: bool = False
    passed: bool = False
    exit_code: int | None = None
    run_s: float | None = None
    output_tail: list[str] = field(default_factory=list)


def read_list(path: Path = LIST) -> list[Program]:
    programs = []
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].rstrip() if raw.lstrip().startswith("#") else raw.rstrip()
        if not line.strip():
            continue
        skip = note = ""
        if "note:" in line:
            line, note = line.split("note:", 1)
            note = note.strip()
        if "skip:" in line:
            line, skip = line.split("skip:", 1)
            skip = skip.strip()
        cols = line.split()
        libs = [] if cols[2] == "-" else cols[2].split(",")
        programs.append(Program(cols[0], cols[1].split(","), libs, skip, note))
    return programs


def find_corpus(arg: str | None) -> Path:
    base = arg or os.environ.get("PORTER_CORPUS")
    if not base:
        sys.exit("hip_on_cuda_control: give --corpus or set PORTER_CORPUS to the folder holding "
                 "ROCm+rocm-examples (the rocm-examples checkout)")
    root = Path(base)
    for cand in (root / "ROCm+rocm-examples", root):
        if (cand / "HIP-Basic").is_dir():
            return cand
    sys.exit(f"hip_on_cuda_control: no rocm-examples checkout (HIP-Basic/) under {root}")


LIB_NAMES = {"cublas": ["cublas", "cublasLt"], "cufft": ["cufft"], "curand": ["curand"],
             "cusparse": ["cusparse"]}


def build_one(prog: Program, mode: str, corpus: Path, out: Path, nvcc: str, arch: str,
              cuda_libs: Path | None) -> Outcome:
    res = Outcome(prog.path, mode)
    exe = out / mode / prog.name
    exe.parent.mkdir(parents=True, exist_ok=True)
    src_dir = corpus / prog.path
    # the native control as HIP's NVIDIA platform builds it: the renames without the emulation's register cap
    opts = SHIM / ("nvcc_platform_nvidia.opts" if mode == "native" else "nvcc.opts")
    cmd = [nvcc, "-std=c++17", "-O2", f"-arch={arch}", "-cudart", "shared", f"-I{SHIM}",
           "--options-file", str(opts), f"-I{corpus / 'Common'}", f"-I{src_dir}"]
    if mode == "native":
        cmd.append("-DPORTER_HOC_PLATFORM_NVIDIA")
    if prog.libs:
        if cuda_libs is None:
            res.build_error = f"needs {','.join(prog.libs)}: no CUDA libraries (--cuda-libs)"
            return res
        cmd += [f"-I{cuda_libs / 'include'}", f"-L{cuda_libs / 'lib'}", f"-Xlinker=-rpath,{cuda_libs / 'lib'}"]
        for lib in prog.libs:
            for so in LIB_NAMES[lib]:
                found = sorted((cuda_libs / "lib").glob(f"lib{so}.so*"))
                cmd.append(f"-l:{found[0].name}" if found else f"-l{so}")
    cmd += ["-x", "cu"] + [str(src_dir / s) for s in prog.sources] + ["-o", str(exe)]
    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    res.build_s = round(time.time() - t0, 1)
    res.built = proc.returncode == 0 and exe.is_file()
    if not res.built:
        errs = [l for l in (proc.stderr + proc.stdout).splitlines() if "error" in l.lower()]
        res.build_error = "\n".join(errs[:6]) or (proc.stderr + proc.stdout)[-600:]
    return res


def cmd_build(args: argparse.Namespace) -> int:
    corpus = find_corpus(args.corpus)
    cuda_libs = find_cuda_libs(args.cuda_libs)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    programs = [p for p in read_list() if not p.skip]
    if args.only:
        programs = [p for p in programs if any(o in p.path for o in args.only)]
    modes = args.modes.split(",")
    jobs = [(p, m) for p in programs for m in modes]
    results: list[Outcome] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futs = {pool.submit(build_one, p, m, corpus, out, args.nvcc, args.arch, cuda_libs): (p, m) for p, m in jobs}
        for fut in concurrent.futures.as_completed(futs):
            r = fut.result()
            results.append(r)
            state = "built" if r.built else "NOT BUILT"
            print(f"{r.mode:9s} {r.program:42s} {state} ({r.build_s}s)", flush=True)
            if not r.built:
                print("    " + r.build_error.replace("\n", "\n    ")[:1200], flush=True)
    results.sort(key=lambda r: (r.program, r.mode))
    skipped = [{"program": p.path, "reason": p.skip} for p in read_list() if p.skip]
    (out / "build.json").write_text(json.dumps({"results": [asdict(r) for r in results],
                                                "skipped": skipped}, indent=1))
    emu = [r for r in results if r.mode == "emulated"]
    noted = {p.path for p in read_list() if p.note}
    unexplained = [r.program for r in emu if not r.built and r.program not in noted]
    print(f"emulated: {sum(r.built for r in emu)}/{len(emu)} built; "
          f"not built without a note in the list: {unexplained or 'none'}")
    return 0 if not unexplained or args.allow_failures else 1


def run_one(exe: Path, timeout: float) -> tuple[int | None, float, str]:
    t0 = time.time()
    try:
        proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout, cwd=exe.parent)
        return proc.returncode, time.time() - t0, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"") + (e.stderr or b"")
        return None, time.time() - t0, out.decode(errors="replace") if isinstance(out, bytes) else str(out)


def cmd_run(args: argparse.Namespace) -> int:
    bins = Path(args.bin)
    data = json.loads((bins / "build.json").read_text())
    results = [Outcome(**r) for r in data["results"]]
    for r in results:
        if not r.built:
            continue
        exe = bins / r.mode / r.program.replace("/", "__")
        code, secs, text = run_one(exe, args.timeout)
        r.ran, r.exit_code, r.run_s = True, code, round(secs, 3)
        r.passed = code == 0 and not FAIL_WORDS.search(text)
        r.output_tail = text.strip().splitlines()[-6:]
        print(f"{r.mode:9s} {r.program:42s} {'PASS' if r.passed else 'FAIL'} exit={code} {secs:.2f}s", flush=True)
        if not r.passed:
            print("    " + "\n    ".join(r.output_tail), flush=True)
    summary = summarize(results)
    Path(args.out).write_text(json.dumps({"summary": summary, "results": [asdict(r) for r in results],
                                          "skipped": data.get("skipped", [])}, indent=1))
    print(json.dumps(summary, indent=1))
    return 0


def summarize(results: list[Outcome]) -> dict:
    by = {(r.program, r.mode): r for r in results}
    progs = sorted({r.program for r in results})
    native_ok = [p for p in progs if (p, "native") in by and by[p, "native"].passed]
    emu_ok = [p for p in native_ok if (p, "emulated") in by and by[p, "emulated"].passed]
    ratios = {p: round(by[p, "emulated"].run_s / by[p, "native"].run_s, 2)
              for p in emu_ok if by[p, "native"].run_s}
    return {
        "programs": len(progs),
        "native_built": sum(by[p, "native"].built for p in progs if (p, "native") in by),
        "native_passed": len(native_ok),
        "emulated_built": sum(by[p, "emulated"].built for p in progs if (p, "emulated") in by),
        "emulated_passed": sum(by[p, "emulated"].passed for p in progs if (p, "emulated") in by),
        "emulated_passed_of_native_passed": len(emu_ok),
        "pass_share": round(len(emu_ok) / len(native_ok), 3) if native_ok else None,
        "time_ratio_emulated_over_native": ratios,
        "emulated_failures_where_native_passed": [p for p in native_ok if p not in emu_ok],
    }


def render_report(data: dict, collectives: dict[str, dict[str, float]] | None, command: str, date: str) -> str:
    """Markdown for docs/evidence from a `run` result (and the collectives bench, if given)."""
    summ = data["summary"]
    by = {(r["program"], r["mode"]): r for r in data["results"]}
    progs = sorted({r["program"] for r in data["results"]})
    lines = [
        f"# hip-on-cuda control set on the H200 ({date})",
        "",
        "Known-correct, self-checking HIP programs porter did not write (ROCm/rocm-examples, the list in",
        "bench/hip_on_cuda_control.txt), each built with nvcc twice - `emulated` (shims/hip_on_cuda, gfx950",
        "wave64 emulation, as porter's hip-on-cuda executor runs ports) and `native` (the same headers with",
        "-DPORTER_HOC_PLATFORM_NVIDIA: HIP's NVIDIA-platform semantics, 32-lane warps; HIP 5.2's own",
        "hip/nvidia_detail headers do not build with CUDA 13) - and run; exit status 0 is the program's",
        "self-check passing.",
        "",
        "Command:",
        "",
        "    " + command,
        "",
        f"**Pass share: {summ['emulated_passed_of_native_passed']} of the {summ['native_passed']} programs that build "
        f"and pass natively also pass emulated = {summ['pass_share']}** (goal >= 0.95).",
        "",
        "| program | native | emulated | native s | emulated s | emulated / native |",
        "|---|---|---|---|---|---|",
    ]

    def state(r: dict | None) -> str:
        if r is None:
            return "-"
        if not r["built"]:
            return "not built"
        return "PASS" if r["passed"] else f"FAIL (exit {r['exit_code']})"

    for p in progs:
        n, e = by.get((p, "native")), by.get((p, "emulated"))
        ns = f"{n['run_s']:.2f}" if n and n.get("run_s") is not None else "-"
        es = f"{e['run_s']:.2f}" if e and e.get("run_s") is not None else "-"
        ratio = summ["time_ratio_emulated_over_native"].get(p, "-")
        lines.append(f"| {p} | {state(n)} | {state(e)} | {ns} | {es} | {ratio} |")
    notes = {p.path: p.note for p in read_list()}
    lines += ["", "## Emulated failures of programs that pass natively, explained", ""]
    for p in summ["emulated_failures_where_native_passed"]:
        e = by.get((p, "emulated"))
        what = (e["build_error"].splitlines()[0][:200] if e and not e["built"] and e["build_error"]
                else " / ".join(e["output_tail"][-2:]) if e else "")
        lines.append(f"- {p}: {state(e)}: `{what}`. {notes.get(p) or 'NOT EXPLAINED'}")
    if not summ["emulated_failures_where_native_passed"]:
        lines.append("- none")
    lines += ["", "Not built either way or skipped (listed so that the whole set stays visible):", ""]
    for p in progs:
        n, e = by.get((p, "native")), by.get((p, "emulated"))
        if n and not n["built"]:
            lines.append(f"- {p}: not built natively: `{n['build_error'].splitlines()[0][:160] if n['build_error'] else ''}`")
        elif e and not e["built"]:
            lines.append(f"- {p}: not built emulated: `{e['build_error'].splitlines()[0][:160] if e['build_error'] else ''}`")
    for s in data.get("skipped", []):
        lines.append(f"- {s['program']}: skipped: {s['reason']}")
    if collectives:
        lines += ["", "## Collectives and MFMA (bench/hip_on_cuda_collectives.hip, ms per launch, mean of 5)", "",
                  "| case | emulated | native | emulated / native |", "|---|---|---|---|"]
        emu, nat = collectives.get("emulated", {}), collectives.get("native", {})
        for k in emu:
            if k in nat and nat[k]:
                lines.append(f"| {k} | {emu[k]:.4f} | {nat[k]:.4f} | {emu[k] / nat[k]:.1f} |")
    return "\n".join(lines) + "\n"


def read_collectives(path: Path) -> dict[str, float]:
    out: dict[str, float] = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                out[parts[0]] = float(parts[1])
            except ValueError:
                pass
    return out


def cmd_report(args: argparse.Namespace) -> int:
    data = json.loads(Path(args.results).read_text())
    coll = None
    if args.collectives:
        d = Path(args.collectives)
        coll = {m: read_collectives(d / f"collectives_{m}.txt") for m in ("emulated", "native")
                if (d / f"collectives_{m}.txt").is_file()}
    Path(args.out).write_text(render_report(data, coll, args.command, args.date))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--corpus")
    b.add_argument("--cuda-libs")
    b.add_argument("--out", required=True)
    b.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    b.add_argument("--arch", default="sm_90")
    b.add_argument("--modes", default="emulated,native")
    b.add_argument("--jobs", type=int, default=2)
    b.add_argument("--only", nargs="*")
    b.add_argument("--allow-failures", action="store_true")
    r = sub.add_parser("run")
    r.add_argument("--bin", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--timeout", type=float, default=60)
    rep = sub.add_parser("report", help="markdown for docs/evidence from a run's results")
    rep.add_argument("--results", required=True)
    rep.add_argument("--collectives", help="folder with collectives_{emulated,native}.txt")
    rep.add_argument("--command", required=True)
    rep.add_argument("--date", required=True)
    rep.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    return {"build": cmd_build, "run": cmd_run, "report": cmd_report}[args.cmd](args)


if __name__ == "__main__":
    raise SystemExit(main())
