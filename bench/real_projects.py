"""Port real CUDA programs and build each port with its own build files through the gfx950 stand-in.

For every program in bench/real_projects.toml (NVIDIA/cuda-samples, yuhc/gpu-rodinia):
1. stage the program folder and the folders its build files reach into a scratch tree;
2. build the original with its own build files here (nvcc, as installed);
3. `porter port SRC -o OUT --no-verify`;
4. build the port with the same build files, now ported, through porter's gfx950 hipcc
   stand-in (porter.toolchains.hipcc: clang 22, --offload-arch=gfx950, no GPU needed);
5. read the open findings from OUT/porter-report.json;
6. with --hip-on-cuda, also build the port with the same build files through porter's hip-on-cuda
   hipcc (nvcc with shims/hip_on_cuda: what a GPU check of the port will build; nothing runs).
Prints one row per program and the totals; the goal is that >= 95% of the ports whose original
builds here also build through the stand-in.

    python bench/real_projects.py --corpus /work/src [--only NAME,NAME] [-j N] [--keep DIR] [--md FILE]
                                  [--originals FILE] [--rebuild-originals] [--hip-on-cuda]

The corpus root holds one extracted repository per folder (NVIDIA+cuda-samples, yuhc+gpu-rodinia);
`--corpus` or $PORTER_CORPUS names it. Nothing of the corpus is committed here, only program names.

The originals do not change with porter: each original's build outcome is kept in a JSON file
(--originals, default $XDG_CACHE_HOME/porter/real-projects-originals.json) under a key made of the
program, the corpus revision (its git commit, or a hash of the staged files when the corpus is an
extracted copy) and the nvcc version, and re-used unless --rebuild-originals. Builds run with make
-j2 / cmake --build -j2 at most; -j N ports N programs at once (default 1: the machine is shared).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
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
    hoc_build: str = "-"  # with --hip-on-cuda: the port built by nvcc through porter's hip-on-cuda hipcc
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


# Rodinia's Makefiles name GPUs nvcc 13 no longer knows (sm_20, compute_20): as for CMake above, the
# original is built for sm_90 only. An nvcc first on PATH, and as $(CUDA_DIR)/bin/nvcc (make.config's
# variable, set on make's command line), rewrites every SM number to 90 and calls the real nvcc.
NVCC_PIN = """#!{python}
import os, re, sys
real = {real!r}
args, seen = [], set()
for a in sys.argv[1:]:
    a = re.sub(r"\\b(sm|compute)_\\d+[af]?\\b", r"\\1_90", a)
    if a.startswith("arch=") and a in seen:
        args.pop()  # the -gencode before a pair that is now a duplicate
        continue
    seen.add(a)
    args.append(a)
os.execv(real, [real, *args])
"""


def nvcc_pin(work: Path) -> Path | None:
    """A CUDA root under `work` whose bin/nvcc pins sm_90; None when nvcc is absent."""
    real = shutil.which("nvcc")
    if real is None:
        return None
    # nvcc on PATH may be a script in front of the toolkit: the root is the one holding cuda_runtime.h
    roots = [Path(real).resolve().parents[1], Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))]
    cuda = next((r.resolve() for r in roots if (r / "include" / "cuda_runtime.h").is_file()), roots[0])
    pin = work / "cuda-sm90"
    (pin / "bin").mkdir(parents=True, exist_ok=True)
    for entry in cuda.iterdir():
        if entry.name != "bin" and not (pin / entry.name).exists():
            (pin / entry.name).symlink_to(entry)
    script = pin / "bin" / "nvcc"
    script.write_text(NVCC_PIN.format(python=sys.executable, real=str(Path(real).resolve())))
    script.chmod(0o755)
    return pin


def build(kind: str, program: Path, work: Path, root: Path | None) -> BuildResult:
    """The program's own build: make in its folder, or CMake configure + build into `work`."""
    pin = nvcc_pin(work) if root is None and kind == "make" else None

    def run(cmd: list[str]) -> BuildResult:
        if root is not None:
            return run_build(cmd, program, root, timeout=TIMEOUT_S)
        env = dict(os.environ)
        if pin is not None:
            env["PATH"] = f"{pin / 'bin'}{os.pathsep}{env.get('PATH', '')}"
            # -lcuda is the driver, absent on a machine without an NVIDIA GPU: the toolkit's link stub
            if (pin / "lib64" / "stubs").is_dir():
                env["LIBRARY_PATH"] = os.pathsep.join(p for p in (str(pin / "lib64" / "stubs"),
                                                                  env.get("LIBRARY_PATH", "")) if p)
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=program, capture_output=True, text=True, errors="replace",
                                  timeout=TIMEOUT_S, env=env)
            rc, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = 124, "", f"timed out after {TIMEOUT_S} s"
        return BuildResult(toolchain="nvcc", cmd=tuple(cmd), rc=rc, stdout=out, stderr=err,
                           seconds=round(time.monotonic() - start, 3))

    if kind == "make":
        return run(["make", "-j2", *([f"CUDA_DIR={pin}"] if pin is not None else [])])
    extra = []
    if root is None:
        work.mkdir(parents=True, exist_ok=True)
        (work / "porter-pin-sm90.cmake").write_text(PIN_SM90)
        extra = [f"-DCMAKE_PROJECT_INCLUDE={work / 'porter-pin-sm90.cmake'}"]
    configure = run(["cmake", "-S", str(program), "-B", str(work), "-DCMAKE_BUILD_TYPE=Release", *extra])
    if not configure.ok:
        return configure
    return run(["cmake", "--build", str(work), "-j2"])


# hipError_t in a note is no error: the word must stand alone ("error:", "Error 1", "fatal error")
_ERROR = re.compile(r"(\berror\b|\bError\b|\bERROR\b|not found|No such file|undefined reference|fatal)")


def first_error(b: BuildResult) -> str:
    """The first compiler or linker error of a failed build; make's own "Error 1" lines only when
    nothing else says why."""
    lines = [ln.strip() for ln in (b.stderr + "\n" + b.stdout).splitlines()
             if _ERROR.search(ln) and "warning" not in ln and "note:" not in ln]
    said = [ln for ln in lines if not re.match(r"make(\[\d+\])?: \*\*\*", ln)]
    return (said or lines or [f"rc {b.rc}"])[0][:220]


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


class OriginalBuilds:
    """Build outcomes of the originals, kept across runs in one JSON file (thread-safe)."""

    def __init__(self, path: Path, rebuild: bool) -> None:
        self.path, self.rebuild = path, rebuild
        self.lock = threading.Lock()
        # rebuilt entries replace theirs; those of programs not run this time are kept
        self.data: dict[str, dict] = json.loads(path.read_text()) if path.is_file() else {}
        self.nvcc = _nvcc_version()

    def key(self, name: str, revision: str) -> str:
        return f"{name}@{revision}@nvcc {self.nvcc}"

    def get(self, key: str) -> tuple[bool, str] | None:
        if self.rebuild:
            return None
        with self.lock:
            hit = self.data.get(key)
        return (hit["built"], hit["error"]) if hit else None

    def put(self, key: str, built: bool, error: str, seconds: float) -> None:
        with self.lock:
            self.data[key] = {"built": built, "error": error, "seconds": seconds, "date": str(date.today())}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True) + "\n")
            tmp.replace(self.path)


def _nvcc_version() -> str:
    try:
        out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "absent"
    m = re.search(r"release ([\d.]+), V([\d.]+)", out)
    return m[2] if m else "unknown"


def revision(corpus: Path, prog: dict, staged: Path) -> str:
    """The corpus commit when the repository is a git checkout, else a hash of the staged files."""
    repo = corpus / prog["corpus"]
    if (repo / ".git").exists():
        proc = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=60)
        if proc.returncode == 0:
            return proc.stdout.strip()
    h = hashlib.sha256()
    for f in sorted(p for p in staged.rglob("*") if p.is_file()):
        h.update(str(f.relative_to(staged)).encode() + b"\0" + f.read_bytes() + b"\0")
    return "tree-sha256:" + h.hexdigest()[:16]


def run_one(corpus: Path, prog: dict, scratch: Path, root: Path, originals: OriginalBuilds,
            hoc_root: Path | None = None) -> Row:
    row = Row(prog["name"])
    start = time.monotonic()
    src = scratch / "src"
    program = stage(corpus, prog, src)
    rel = program.relative_to(src)
    key = originals.key(prog["name"], revision(corpus, prog, src))
    known = originals.get(key)
    if known is not None:
        orig_ok, orig_error = known
    else:
        # build a copy: an in-tree build (make) leaves objects that porter would copy into the port
        shutil.copytree(src, scratch / "src-original", symlinks=True)
        orig = build(prog["build"], scratch / "src-original" / rel, scratch / "build-original", None)
        (scratch / "original-build.log").write_text(f"$ {' '.join(orig.cmd)}\n{orig.stdout}\n{orig.stderr}")
        orig_ok, orig_error = orig.ok, first_error(orig)
        originals.put(key, orig_ok, orig_error, orig.seconds)
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
    if hoc_root is not None and prog["build"] == "make":  # in-tree: a copy the stand-in's build leaves clean
        shutil.copytree(out, scratch / "port-hoc", symlinks=True)
    # the original's build outputs were copied along only if porter copies them: build from clean
    pb = build(prog["build"], out / rel, scratch / "build-port", root)
    row.port_build = "built" if pb.ok else "failed"
    (scratch / "port-build.log").write_text(f"$ {' '.join(pb.cmd)}\n{pb.stdout}\n{pb.stderr}")
    if not pb.ok:
        row.why = (f"{row.why}; " if row.why else "") + "port: " + first_error(pb)
    if hoc_root is not None:
        hb = build(prog["build"], (scratch / "port-hoc" if prog["build"] == "make" else out) / rel,
                   scratch / "build-port-hoc", hoc_root)
        row.hoc_build = "built" if hb.ok else "failed"
        (scratch / "port-hoc-build.log").write_text(f"$ {' '.join(hb.cmd)}\n{hb.stdout}\n{hb.stderr}")
        if not hb.ok:
            row.why = (f"{row.why}; " if row.why else "") + "port (hip-on-cuda): " + first_error(hb)
    row.seconds = round(time.monotonic() - start, 1)
    return row


def table(rows: list[Row]) -> str:
    hoc = any(r.hoc_build != "-" for r in rows)
    lines = ["| program | original builds (nvcc) | port builds (gfx950 stand-in) | "
             + ("port builds (hip-on-cuda, nvcc) | " if hoc else "") + "open findings | note |",
             "|---|---|---|---|---|" + ("---|" if hoc else "")]
    for r in rows:
        findings = ", ".join(f"{k} x{v}" for k, v in sorted(r.open_findings.items())) or "none"
        lines.append(f"| {r.name} | {r.original} | {r.port_build if r.port == 'ported' else 'port failed'} | "
                     + (f"{r.hoc_build} | " if hoc else "") + f"{findings} | {r.why.replace('|', '/')} |")
    built = [r for r in rows if r.original == "built"]
    ok = [r for r in built if r.port_build == "built"]
    also = [r for r in rows if r.original != "built" and r.port_build == "built"]
    pct = 100.0 * len(ok) / len(built) if built else 0.0
    lines += ["", f"programs: {len(rows)}; originals that build here: {len(built)}; of those, ports that build "
              f"through the gfx950 stand-in: {len(ok)} ({pct:.1f}%); ports that build where the original "
              f"does not: {len(also)}",
              f"open findings: {sum(sum(r.open_findings.values()) for r in rows)} over "
              f"{sum(1 for r in rows if r.open_findings)} programs"]
    if hoc:
        lines.append(f"ports that build through hip-on-cuda (nvcc): {sum(1 for r in rows if r.hoc_build == 'built')} "
                     f"of {sum(1 for r in rows if r.hoc_build != '-')}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=os.environ.get("PORTER_CORPUS"),
                    help="folder holding NVIDIA+cuda-samples and yuhc+gpu-rodinia (or $PORTER_CORPUS)")
    ap.add_argument("--only", action="append", default=[],
                    help="run programs whose name contains one of these (comma-separated; repeatable)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="programs at once (default 1; each builds with -j2)")
    ap.add_argument("--keep", type=Path, help="keep each program's scratch tree under this folder")
    ap.add_argument("--md", type=Path, help="also write the table to this markdown file")
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    ap.add_argument("--originals", type=Path, default=cache_home / "porter" / "real-projects-originals.json",
                    help="JSON file keeping the originals' build outcomes")
    ap.add_argument("--rebuild-originals", action="store_true", help="build the originals again")
    ap.add_argument("--hip-on-cuda", action="store_true",
                    help="also build each port with its own build files through porter's hip-on-cuda hipcc (nvcc; "
                         "compiles and links, runs nothing)")
    args = ap.parse_args()
    if not args.corpus or not Path(args.corpus).is_dir():
        print("real_projects: no corpus. Pass --corpus DIR or set PORTER_CORPUS to a folder holding the "
              "extracted repositories NVIDIA+cuda-samples and yuhc+gpu-rodinia.", file=sys.stderr)
        return 2
    corpus = Path(args.corpus)
    programs = tomllib.loads(LIST.read_text())["program"]
    only = [s for arg in args.only for s in arg.split(",") if s]
    if only:
        programs = [p for p in programs if any(s == p["name"] or s == p["name"].split("/")[-1] or
                                               (s.endswith("*") and p["name"].startswith(s[:-1])) for s in only)]
        if not programs:
            print(f"real_projects: no program matches {', '.join(only)}", file=sys.stderr)
            return 2
    missing = sorted({p["corpus"] for p in programs if not (corpus / p["corpus"]).is_dir()})
    if missing:
        print(f"real_projects: {corpus} lacks {', '.join(missing)}", file=sys.stderr)
        return 2
    originals = OriginalBuilds(args.originals, args.rebuild_originals)
    with tempfile.TemporaryDirectory(prefix="porter-real-") as tmp:
        root = hipcc_root("gfx950", Path(tmp) / "toolchain")
        hoc_root = hipcc_root("hip-on-cuda", Path(tmp) / "toolchain") if args.hip_on_cuda else None

        def one(prog: dict) -> Row:
            scratch = (args.keep or Path(tmp)) / re.sub(r"[^\w.+-]", "_", prog["name"])
            if scratch.exists():
                shutil.rmtree(scratch)
            scratch.mkdir(parents=True)
            row = run_one(corpus, prog, scratch, root, originals, hoc_root)
            print(f"{row.name:45} original {row.original:7} port {row.port_build:7} "
                  + (f"hip-on-cuda {row.hoc_build:7} " if hoc_root is not None else "") +
                  f"findings {sum(row.open_findings.values()):3} {row.seconds:6.1f}s {row.why[:110]}", flush=True)
            if not args.keep:
                shutil.rmtree(scratch, ignore_errors=True)
            return row

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            rows = list(pool.map(one, programs))
    text = table(rows)
    print()
    print(text)
    if args.md:
        cmd = "python bench/real_projects.py " + " ".join(sys.argv[1:])
        head = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=60).stdout.strip() or "unknown"
        args.md.write_text(f"# Real programs: ports built by their own build files for gfx950 ({date.today()})\n\n"
                           f"Command: `{cmd}` (porter at commit {head}, nvcc {originals.nvcc})\n\n{text}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
