"""Conformance with HIPIFY's own unit tests: porter and hipify-perl on the same files, in one run.

    PORTER_CORPUS=/work/src python bench/hipify_conformance.py [--hipify DIR] [--cuda 12.4] [--no-cudnn]
                                                               [--no-cub] [--show N] [--json FILE]

HIPIFY (github.com/ROCm/HIPIFY) checks hipify-clang with lit: each test under tests/unit_tests
holds a RUN line (hipify's options) and FileCheck directives (`// CHECK:`, `// CHECK-NEXT:`,
`// CHECK-NOT:`) that the translated file must meet after its comments are blanked
(`sed -Ee 's|//.+|// |g'`, tests/run_test.sh). This bench selects the tests HIPIFY's lit.cfg runs
for a CUDA version (--cuda; with cuDNN 9 and CUB present unless --no-cudnn / --no-cub), then translates them two ways:
  porter       `porter port` over a tree of the tests, as a user would, one tree per distinct set
               of options; the RUN line's options mapped to porter's (--hip-kernel-execution-syntax
               -> --launch hipLaunchKernelGGL; --roc -> --blas rocblas --sparse rocsparse
               --solver rocsolver --rand rocrand --dnn miopen; --miopen -> --dnn miopen), no verify;
  hipify-perl  HIPIFY's bin/hipify-perl on each file (perl), with -roc, -experimental and
               -hip-kernel-execution-syntax where the RUN line has them.
and runs a FileCheck (the subset these tests use: CHECK, CHECK-NEXT, CHECK-NOT, {{regex}},
horizontal whitespace canonicalised) over both outputs. It prints, for each translator:
  strict   files whose whole FileCheck passes (what lit counts);
  recall   directives met one by one: a CHECK/CHECK-NEXT whose line appears anywhere in the
           output, a CHECK-NOT whose text appears nowhere; over all directives of all tests.
HIPIFY's sources are located by --hipify or $PORTER_CORPUS/ROCm+HIPIFY; CI never needs them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SUFFIXES = (".cu", ".cuh", ".cpp", ".c", ".hpp", ".h")
_RUN = re.compile(r"^// RUN: %run_test hipify \"%s\" \"%t\" %hipify_args (?:(\d+) (.*?) )?%clang_args", re.M)
_DIRECTIVE = re.compile(r"//\s*(CHECK(?:-NEXT|-NOT)?):(.*)$")


def excluded(cuda: tuple[int, int], cudnn: bool, cub: bool, llvm: int = 22) -> set[str]:
    """HIPIFY's tests/lit.cfg exclusions for one CUDA version (written for CUDA >= 11)."""
    major, minor = cuda
    out = {"cmdparser.hpp", "spatial_batch_norm_op.h", "common_cudnn.h", "inc.h"}
    if not cudnn:
        out |= {"cudnn_convolution_forward.cu", "cudnn_softmax.cu", "cudnn2miopen.cu", "cudnn2miopen_before_9000.cu"}
    if not cub:
        out |= {"cub_01.cu", "cub_02.cu", "cub_03.cu"}
    out.add("cublaslt2hipblaslt_10010_10020.cu")
    if major >= 12:
        out.add("cusparse2rocsparse_10010_12000.cu")
    if major == 11 and minor <= 1 or major >= 12:
        out.add("cusparse2rocsparse_11010_12000.cu")
    if major == 11 and minor <= 3 or major >= 12:
        out |= {"cusparse2rocsparse_11030_12000.cu", "cusparse2hipsparse_11030_12000.cu"}
    out |= {"cudnn_convolution_forward.cu", "cuSPARSE_01.cu", "cuSPARSE_02.cu", "cuSPARSE_12.cu",
            "cusparse2rocsparse_before_11000.cu"}
    if major < 12:
        out |= {"headers_test_06_12000.cu", "headers_test_07_12000.cu", "headers_test_08_12000.cu",
                "headers_test_09_12000.cu", "runtime_functions_12000.cu", "cusparse2rocsparse_12000.cu",
                "cusparse2hipsparse_12000.cu"}
    else:
        out |= {"headers_test_06.cu", "headers_test_07.cu", "headers_test_08.cu", "headers_test_09.cu",
                "tex2dKernel.cpp", "cuSPARSE_11.cu", "cublas_0_based_indexing.cu",
                "cublas_0_based_indexing_rocblas.cu", "cusparse2rocsparse_9020_12000.cu",
                "cusparse2rocsparse_before_12000.cu"}
    if major == 12 and minor >= 6:
        out |= {"cub_01.cu", "cub_02.cu", "cub_03.cu"}
    if cudnn:
        out.add("cudnn2miopen_before_9000.cu")  # cuDNN 9 is the current one
    if llvm < 10:
        out |= {"pp_if_else_conditionals_LLVM_10.cu", "pp_if_else_conditionals_01_LLVM_10.cu"}
    return out


@dataclass
class Test:
    rel: str  # path under tests/unit_tests
    options: tuple[str, ...]  # hipify options of its RUN line
    directives: list[tuple[str, str]] = field(default_factory=list)  # (kind, pattern)


def select(root: Path, skip: set[str]) -> list[Test]:
    tests = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in SUFFIXES or path.name in skip:
            continue
        text = path.read_text(errors="replace")
        run = _RUN.search(text)
        if not run:
            continue
        options = tuple(run.group(2).split())[: int(run.group(1))] if run.group(1) else ()
        directives = []
        for line in text.splitlines():
            m = _DIRECTIVE.search(line)
            if m and m.group(2).strip():
                directives.append((m.group(1), m.group(2).strip()))
        tests.append(Test(str(path.relative_to(root)), options, directives))
    return tests


def porter_options(hipify: tuple[str, ...]) -> dict[str, str]:
    opts = {o.lstrip("-") for o in hipify}
    out = {}
    if "hip-kernel-execution-syntax" in opts:
        out["launch"] = "hipLaunchKernelGGL"
    if "roc" in opts:
        out |= {"blas": "rocblas", "sparse": "rocsparse", "solver": "rocsolver", "rand": "rocrand", "dnn": "miopen"}
    if "miopen" in opts:
        out["dnn"] = "miopen"
    return out


def perl_options(hipify: tuple[str, ...]) -> list[str]:
    opts = {o.lstrip("-") for o in hipify}
    return [f"-{o}" for o in ("roc", "experimental", "hip-kernel-execution-syntax") if o in opts]


# ---- FileCheck (the subset HIPIFY's tests use) -------------------------------------------------

_HSPACE = re.compile(r"[ \t]+")
_COMMENT = re.compile(r"//.+")  # run_test.sh: sed -Ee 's|//.+|// |g'


def blank_comments(text: str) -> str:
    return "\n".join(_COMMENT.sub("// ", line) for line in text.split("\n"))


def pattern(text: str) -> re.Pattern[str]:
    parts = re.split(r"\{\{(.*?)\}\}", _HSPACE.sub(" ", text))
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?:{p})" for i, p in enumerate(parts)))


def filecheck(output: str, directives: list[tuple[str, str]]) -> tuple[bool, list[bool]]:
    """(FileCheck passes, each directive met on its own)."""
    buf = _HSPACE.sub(" ", blank_comments(output))
    compiled = [(kind, pattern(p)) for kind, p in directives]
    met = [(kind == "CHECK-NOT") == (rx.search(buf) is None) for kind, rx in compiled]
    pos, prev_end, pending, ok = 0, None, [], True
    for kind, rx in compiled:
        if kind == "CHECK-NOT":
            pending.append(rx)
            continue
        m = rx.search(buf, pos)
        if m is None:
            ok = False
            break
        if kind == "CHECK-NEXT" and (prev_end is None or buf.count("\n", prev_end, m.start()) != 1):
            ok = False
            break
        if any(n.search(buf, pos, m.start()) for n in pending):
            ok = False
            break
        pending, pos, prev_end = [], m.end(), m.end()
    if ok and any(n.search(buf, pos) for n in pending):
        ok = False
    return ok, met


# ---- the two translators -----------------------------------------------------------------------

def run_porter(unit_tests: Path, tests: list[Test], work: Path) -> tuple[dict[str, str], float, list[str]]:
    """Port one tree per option set with `porter port`; return each test's output text."""
    from porter.run import port
    from porter.state import PortOptions

    groups: dict[tuple[tuple[str, str], ...], list[Test]] = {}
    for t in tests:
        groups.setdefault(tuple(sorted(porter_options(t.options).items())), []).append(t)
    outputs, notes, seconds = {}, [], 0.0
    for i, (opts, members) in enumerate(sorted(groups.items())):
        src, out = work / f"src{i}", work / f"out{i}"
        for t in members:
            folder = (unit_tests / t.rel).parent
            for sibling in folder.iterdir():  # the test's own headers (cmdparser.hpp) travel with it
                dest = src / sibling.relative_to(unit_tests)
                if sibling.is_file() and not dest.exists() and (sibling.name == Path(t.rel).name or not _RUN.search(
                        sibling.read_text(errors="replace"))):
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(sibling, dest)
        t0 = time.perf_counter()
        try:
            port(src, out, PortOptions(verify=False, **dict(opts)))
        except Exception as e:  # porter's failure is a result here: the tree's tests then fail
            notes.append(f"porter failed on {dict(opts)}: {type(e).__name__}: {e}")
        seconds += time.perf_counter() - t0
        for t in members:
            produced = out / t.rel
            outputs[t.rel] = produced.read_text(errors="replace") if produced.exists() else ""
    return outputs, seconds, notes


def run_perl(hipify: Path, unit_tests: Path, tests: list[Test]) -> tuple[dict[str, str], float]:
    script = hipify / "bin" / "hipify-perl"
    outputs, t0 = {}, time.perf_counter()
    for t in tests:
        done = subprocess.run(["perl", str(script), "-quiet-warnings", *perl_options(t.options), str(unit_tests / t.rel)],
                              capture_output=True, text=True, errors="replace", check=False)
        outputs[t.rel] = done.stdout
    return outputs, time.perf_counter() - t0


def score(tests: list[Test], outputs: dict[str, str]) -> dict:
    strict, met, total, positive_met, positive = 0, 0, 0, 0, 0
    per_test = {}
    for t in tests:
        ok, each = filecheck(outputs[t.rel], t.directives)
        strict += ok
        met += sum(each)
        total += len(each)
        pos = [m for (kind, _), m in zip(t.directives, each) if kind != "CHECK-NOT"]
        positive_met += sum(pos)
        positive += len(pos)
        per_test[t.rel] = {"pass": ok, "met": sum(each), "directives": len(each),
                           "missed": [f"{k}: {p}" for (k, p), m in zip(t.directives, each) if not m]}
    return {"strict": strict, "files": len(tests), "met": met, "directives": total,
            "recall": met / total if total else 0.0, "positive_recall": positive_met / positive if positive else 0.0,
            "tests": per_test}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hipify", type=Path, help="ROCm/HIPIFY sources (default $PORTER_CORPUS/ROCm+HIPIFY)")
    ap.add_argument("--cuda", default="12.4", help="the CUDA version whose lit.cfg selection to run (default 12.4, "
                                                   "the newest whose selection holds the CUB tests)")
    ap.add_argument("--no-cudnn", dest="cudnn", action="store_false", help="leave out the cuDNN tests, as lit does "
                                                                             "without CUDA_DNN_ROOT_DIR")
    ap.add_argument("--no-cub", dest="cub", action="store_false", help="leave out the CUB tests, as lit does without "
                                                                         "CUDA_CUB_ROOT_DIR")
    ap.add_argument("--show", type=int, default=0, help="print the first N missed directives of each translator")
    ap.add_argument("--json", type=Path, help="write per-test results here")
    args = ap.parse_args()
    hipify = args.hipify or (Path(os.environ["PORTER_CORPUS"]) / "ROCm+HIPIFY" if os.environ.get("PORTER_CORPUS") else None)
    if hipify is None or not (hipify / "tests" / "unit_tests").is_dir():
        raise SystemExit("HIPIFY's sources are needed: pass --hipify DIR or set PORTER_CORPUS to a folder holding "
                         "ROCm+HIPIFY (a copy of github.com/ROCm/HIPIFY)")
    if shutil.which("perl") is None:
        raise SystemExit("perl is needed to run hipify-perl beside porter")
    unit_tests = hipify / "tests" / "unit_tests"
    major, minor = (int(x) for x in args.cuda.split(".")[:2])
    tests = select(unit_tests, excluded((major, minor), args.cudnn, args.cub))
    with tempfile.TemporaryDirectory(prefix="porter-hipify-") as tmp:
        porter_out, porter_s, notes = run_porter(unit_tests, tests, Path(tmp))
    perl_out, perl_s = run_perl(hipify, unit_tests, tests)
    results = {"porter": score(tests, porter_out), "hipify-perl": score(tests, perl_out)}
    print(f"HIPIFY unit tests: {len(tests)} files (lit.cfg selection for CUDA {args.cuda}"
          f"{', cuDNN' if args.cudnn else ''}{', CUB' if args.cub else ''}), "
          f"{sum(len(t.directives) for t in tests)} FileCheck directives; sources {hipify}")
    for name, r in results.items():
        seconds = porter_s if name == "porter" else perl_s
        print(f"{name:12s} strict {r['strict']:3d}/{r['files']}  recall {100 * r['recall']:5.1f}% "
              f"({r['met']}/{r['directives']})  CHECK/CHECK-NEXT only {100 * r['positive_recall']:5.1f}%  {seconds:6.1f} s")
    for note in notes:
        print("note:", note)
    if args.show:
        for name, r in results.items():
            print(f"\n{name}: first missed directives")
            shown = 0
            for rel, t in r["tests"].items():
                for miss in t["missed"][:3]:
                    if shown < args.show:
                        print(f"  {rel}: {miss}")
                        shown += 1
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
