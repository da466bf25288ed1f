"""Translation throughput: porter's translator against torch.utils.hipify, and on real Triton code.

    python bench/translate.py [--files 1000] [--repeat 3] [--rounds 1] [--seed 7] [--processes 2] [--tree DIR ...]
                              [--generated] [--port] [--work-dir DIR] [--triton DIR | PORTER_TRITON_CORPUS=DIR]

C++: generates a corpus of CUDA files (about 300 lines each; kernels with shared memory and warp
shuffles, runtime and stream calls, cuBLAS/cuRAND calls, error-check macros, comments and string
literals that mention CUDA names), then times, in the same run and on the same files:
  porter   the translator as `porter port` runs it (porter.rules.run_on_files: the project's
           symbol table, then every HIP### rule over one tree-sitter parse of each file, through
           the run's dispatcher), patches applied, the result written to an output tree; once
           in one process and once on --processes processes (porter.cluster.LocalDispatcher:
           --processes workers fed by the driver, started and warmed before the clock starts,
           as `porter port` starts them before its graph);
  torch    torch.utils.hipify.hipify_python.hipify over the same directory, into another tree;
  parse    tree-sitter's parse of each file alone (the floor of any parsing translator).
With --tree DIR (repeatable; --generated keeps the generated corpus too, first), the same three
over the C/C++/CUDA files of each real tree instead (those in UTF-8, which torch's hipify needs,
copied with their folders): where some files hold no CUDA name, porter's translator does not
parse them; a summary of the ratios follows. With --work-dir DIR every corpus copy and output
lies under DIR (e.g. /dev/shm, in memory): on a shared machine the disk's state moves both
contenders' figures more than the translators do (creating a file cost 0.04-1 ms of CPU here).
With --port, also the whole command a user runs on each corpus: `porter port CORPUS -o OUT --no-verify
--jobs --processes` (the console script beside this interpreter; one run, a fresh process, its
start-up included): its wall time, the CPU of it and its workers, its peak memory, and the seconds
of each node of its graph (OUT/.porter/task-durations.json): the scan, the three agents with the
workspace's landing of their patches and the checkpoints between nodes, the report.
Each runs in a fresh child process (best of --repeat runs inside it), which reports its peak
resident memory (ru_maxrss) and its workers', and its CPU time in the best run (on --processes
processes, the driver's and, on Linux, its workers' (/proc/PID/schedstat)). It prints
lines/s, the ratios porter/torch, the CPU seconds and the peak memory. Target (issue 15):
porter on 2 processes at least as fast as torch.
With --rounds N the four contenders run N times in turn, back to back, the order rotated each
round: on a shared machine whose speed drifts by a third within minutes, a ratio of two figures
taken minutes apart measures the drift as much as the translators. Each figure is then the best
of every round, and each round's ratio of porter on --processes processes to torch, taken
seconds apart, is printed with their median.

Triton (with --triton DIR or PORTER_TRITON_CORPUS): every .py file under DIR (a real Triton
library fetched by the caller, e.g. FlagOpen/FlagGems' src; its code is never committed here),
as `porter port --no-verify` treats it: the scan's classification (a Triton module is parsed by
libcst), then the translator's, the microarch agent's and the shim agent's rules over the Triton
modules; lines/s over all the .py lines, best of --repeat runs, each in a fresh process (porter
keeps parsed modules by content, so a second run in one process would find them parsed) with the
rule catalog imported before the clock starts, as the C++ contenders are warmed. Target (issue 15):
20k lines/s.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KERNEL = """
template <int BLOCK>
__global__ void {name}(const float* __restrict__ in, float* __restrict__ out, int n) {{
  __shared__ float tile[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  float v = (i < n) ? in[i] : 0.0f;
  // reduce within the warp with cuda shuffles (comment mentions cudaMemcpy)
  for (int offset = 16; offset > 0; offset >>= 1) {{
    v += __shfl_down_sync(0xffffffff, v, offset);
  }}
  tile[tid] = v;
  __syncthreads();
  if (tid == 0) {{
    float s = 0.0f;
    for (int k = 0; k < BLOCK; k += 32) s += tile[k];
    atomicAdd(out, s * {scale}f);
  }}
}}
"""

HOST = """
static void {name}_run(const float* h_in, float* h_out, int n, cudaStream_t stream) {{
  float *d_in = nullptr, *d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(float), stream));
  CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice, stream));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  {name}<256><<<(n + 255) / 256, 256, 0, stream>>>(d_in, d_out, n);
  CUDA_CHECK(cudaGetLastError());
  cudaEventRecord(stop, stream);
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, start, stop);
  printf("{name}: %.3f ms (cudaEventElapsedTime)\\n", ms);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(d_in);
  cudaFree(d_out);
}}
"""

BLAS = """
static void {name}_gemm(cublasHandle_t handle, const float* A, const float* B, float* C, int m, int k) {{
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, m, k, &alpha, A, m, B, m, &beta, C, m);
  if (st != CUBLAS_STATUS_SUCCESS) {{
    fprintf(stderr, "cublasSgemm failed: %d\\n", (int)st);
  }}
  curandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetPseudoRandomGeneratorSeed(gen, {seed}ULL);
  curandGenerateUniform(gen, C, (size_t)m * m);
  curandDestroyGenerator(gen);
}}
"""

PRELUDE = """// generated by bench/translate.py: file {index}
#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <curand.h>

#define CUDA_CHECK(expr)                                                        \\
  do {{                                                                         \\
    cudaError_t err_ = (expr);                                                  \\
    if (err_ != cudaSuccess) {{                                                 \\
      fprintf(stderr, "CUDA error %s at %s:%d\\n", cudaGetErrorString(err_),     \\
              __FILE__, __LINE__);                                              \\
    }}                                                                          \\
  }} while (0)
"""

MAIN = """
int main() {{
  int device = 0;
  cudaDeviceProp props;
  CUDA_CHECK(cudaGetDeviceProperties(&props, device));
  printf("%s: %d SMs, warp %d\\n", props.name, props.multiProcessorCount, props.warpSize);
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetStream(handle, stream);
  cublasDestroy(handle);
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaDeviceSynchronize());
  return 0;
}}
"""


def make_file(index: int, rng: random.Random) -> str:
    parts = [PRELUDE.format(index=index)]
    lines = parts[0].count("\n")
    k = 0
    while lines < 270:
        name = f"k{index}_{k}"
        piece = rng.choice((KERNEL, HOST, BLAS))
        if piece is HOST:
            parts.append(KERNEL.format(name=name, scale=rng.randint(1, 9)))
        parts.append(piece.format(name=name, scale=rng.randint(1, 9), seed=rng.randint(1, 10**6)))
        lines = sum(p.count("\n") for p in parts)
        k += 1
    parts.append(MAIN.format())
    return "".join(parts)


def make_corpus(root: Path, files: int, seed: int) -> int:
    rng = random.Random(seed)
    total = 0
    for i in range(files):
        text = make_file(i, rng)
        (root / f"unit_{i:04d}.cu").write_text(text)
        total += text.count("\n")
    return total


def run_porter(src: Path, dst: Path, dispatcher=None) -> None:
    """The translator over every file as `porter port` runs it; patched files written to `dst`."""
    from porter import cluster
    from porter.rules import RuleContext, run_on_files
    from porter.state import FileKind, FileRecord
    from porter.syntax import forget

    forget()  # no tree kept from an earlier run of these files: each timed run parses as a fresh process does
    data = {p.relative_to(src).as_posix(): p.read_bytes() for p in sources(src)}
    records = [FileRecord(path=rel, kind=FileKind.cuda if lang_for(rel) == "cuda" else FileKind.cpp) for rel in data]
    with cluster.using(dispatcher):
        _, patches = run_on_files("translator", records, data.__getitem__, RuleContext())
    out = dict(data)
    for patch in patches:
        out[patch.path] = patch.apply_to(out[patch.path])
    made = set()  # each folder made once (a real tree's 667 files lie in 200 folders: 711 mkdir calls were 0.19 s)
    for rel, text in out.items():
        target = dst / rel
        folder = rel.rpartition("/")[0]
        if folder and folder not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(folder)
        target.write_bytes(text)


def sources(root: Path) -> list[Path]:
    """The C/C++/CUDA files under `root` (porter.syntax.lang_for), in order."""
    return sorted(p for p in root.rglob("*") if lang_for(p.name) and p.is_file())


def lang_for(path: str) -> str | None:
    from porter.syntax import lang_for as lang

    return lang(path)


def parse_only(src: Path, _dst: Path) -> int:
    """The floor under porter's figure: reading and tree-sitter parsing each file, nothing else.
    Returns how many parsed without ERROR nodes."""
    from porter.syntax import _parser, has_cuda_syntax

    ok = 0
    for path in sources(src):
        data = path.read_bytes()
        lang = "cuda" if lang_for(path.name) == "cuda" or has_cuda_syntax(data) else "cpp"  # as SourceFile
        ok += not _parser(lang).parse(data).root_node.has_error
    return ok


def run_torch(src: Path, dst: Path) -> None:
    from torch.utils.hipify import hipify_python

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        # hip_clang_launch=True keeps <<<>>> launches, as porter does by default. torch copies
        # the tree into `dst` itself and only when `dst` does not exist yet.
        hipify_python.hipify(project_directory=str(src), output_directory=str(dst), includes=["*"],
                             show_detailed=False, show_progress=False, hip_clang_launch=True,
                             is_pytorch_extension=False)


def best_of(repeat: int, fn, *args, walls: list[float] | None = None) -> tuple[float, float, object]:
    """The best wall time of `repeat` runs, this process's CPU time in that run, and the result
    (of the best run); every run's wall time appended to `walls`."""
    best, cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn(*args)
        wall = time.perf_counter() - t0
        if walls is not None:
            walls.append(wall)
        if wall < best:
            best, cpu, result = wall, time.process_time() - c0, out
    return best, cpu, result


def child(which: str, corpus: Path, repeat: int, processes: int) -> dict:
    """One contender in this (fresh) process: warmed, then timed; its peak memory and its workers'."""
    from porter import cluster

    root = Path(tempfile.mkdtemp(prefix=f"porter-bench-{which}-"))
    dispatcher = None
    try:
        warm = root / "warm"
        warm.mkdir()
        for path in sources(corpus)[:max(8, 2 * processes)]:
            shutil.copy(path, warm / path.name.replace("/", "_"))
        if which == "porter":
            # Started before the clock, as `porter port` starts its workers before the graph;
            # the warm-up map (a small one is kept in-process) is forced onto them.
            dispatcher = cluster.LocalDispatcher(processes=processes, min_items=2, min_bytes=0)
            (root / "w").mkdir()
            run_porter(warm, root / "w", dispatcher)
            dispatcher.min_items, dispatcher.min_bytes = 8, 1 << 20
        elif which == "torch":
            run_torch(warm, root / "w")
        else:
            parse_only(warm, root / "w")

        def go():
            out = root / "out"
            shutil.rmtree(out, ignore_errors=True)
            if which != "torch":  # torch copies the tree into `dst` itself, and only when it does not exist
                out.mkdir()
            if which == "porter":
                before = _workers_cpu(dispatcher)
                run_porter(corpus, out, dispatcher)
                after = _workers_cpu(dispatcher)
                return None if before is None or after is None else after - before
            if which == "torch":
                run_torch(corpus, out)
                return sum(1 for _ in out.rglob("*.hip"))
            return parse_only(corpus, out)

        walls: list[float] = []
        seconds, cpu, extra = best_of(repeat, go, walls=walls)
    finally:
        if dispatcher is not None:
            dispatcher.close()
        shutil.rmtree(root, ignore_errors=True)
    return {"seconds": seconds, "cpu": cpu, "extra": extra, "walls": walls,
            "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "worker_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def _workers_cpu(dispatcher) -> float | None:
    """CPU seconds the dispatcher's worker processes have run so far (Linux: /proc/PID/schedstat,
    in nanoseconds); None without workers or where it cannot be read."""
    pool = getattr(dispatcher, "_pool", None)
    if pool is None or not getattr(pool, "_processes", None):
        return None
    total = 0
    for pid in list(pool._processes):
        try:
            total += int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None
    return total / 1e9


def triton_child(corpus: Path) -> dict:
    """Every .py file under `corpus` as `porter port --no-verify` treats it (scan, then three agents)."""
    from porter.rules import RuleContext, load, run_on_files
    from porter.scan import classify
    from porter.state import FileKind, FileRecord

    data = {str(p.relative_to(corpus)): p.read_bytes() for p in sorted(corpus.rglob("*.py")) if p.is_file()}
    lines = sum(d.count(b"\n") for d in data.values())
    t0 = time.perf_counter()
    load()  # importing the rule catalog: once per process, not per file
    catalog = time.perf_counter() - t0
    t0 = time.perf_counter()
    records = []
    for rel, text in data.items():
        kind, note = classify(rel, text)
        records.append(FileRecord(path=rel, kind=kind, parsed=not note, note=note))
    scanned = time.perf_counter()
    findings = 0
    for agent in ("translator", "microarch", "shim"):
        found, patches = run_on_files(agent, records, data.__getitem__, RuleContext())
        findings += len(found)
        for patch in patches:  # the next agent reads the tree as this one left it
            data[patch.path] = patch.apply_to(data[patch.path])
    seconds = time.perf_counter() - t0
    return {"files": len(data), "lines": lines, "triton": sum(r.kind == FileKind.triton for r in records),
            "unparsed": sum(r.kind == FileKind.triton and not r.parsed for r in records), "findings": findings,
            "seconds": seconds, "scan_seconds": scanned - t0, "catalog_seconds": catalog,
            "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def spawn(*args: str) -> dict:
    """This script in a fresh interpreter, for one contender; its JSON answer."""
    out = subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1, help="the contenders in turn, this many times, the order rotated "
                    "each round; each round's ratio is printed, and their median")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--processes", type=int, default=2, help="processes for porter's second figure")
    ap.add_argument("--triton", type=Path, default=os.environ.get("PORTER_TRITON_CORPUS"),
                    help="a directory of real Triton code (default: $PORTER_TRITON_CORPUS; skipped when unset)")
    ap.add_argument("--skip-cpp", action="store_true")
    ap.add_argument("--tree", type=Path, action="append", default=[],
                    help="a real C/C++/CUDA tree instead of the generated corpus (its C/C++/CUDA files are copied, "
                    "folders kept), e.g. $PORTER_CORPUS/NVIDIA+cuda-samples/Samples; repeat it for several trees")
    ap.add_argument("--generated", action="store_true", help="with --tree: the generated corpus too")
    ap.add_argument("--port", action="store_true", help="also time `porter port --no-verify` on each corpus, end to end")
    ap.add_argument("--work-dir", type=Path, help="where the corpora and both contenders' outputs are written "
                    "(default: the system's temporary folder; e.g. /dev/shm, a file system in memory, to measure "
                    "the translators without the disk's state, which on a shared machine swings both figures)")
    ap.add_argument("--child", choices=("porter", "torch", "parse", "triton", "command"), help=argparse.SUPPRESS)
    ap.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--command", help=argparse.SUPPRESS)  # for --child command: the command line, as JSON
    args = ap.parse_args()
    if args.child == "command":
        print(json.dumps(command_child(json.loads(args.command))))
        return 0
    if args.work_dir is not None:  # every temporary folder of this run and of its children there
        args.work_dir.mkdir(parents=True, exist_ok=True)
        os.environ["TMPDIR"] = str(args.work_dir.resolve())
        tempfile.tempdir = None
    if args.child == "triton":
        print(json.dumps(triton_child(args.corpus)))
        return 0
    if args.child:
        print(json.dumps(child(args.child, args.corpus, args.repeat, args.processes)))
        return 0
    if args.triton is not None and not args.triton.is_dir():
        raise SystemExit(f"--triton / PORTER_TRITON_CORPUS: {args.triton} is not a directory (fetch a Triton "
                         "library, e.g. FlagOpen/FlagGems, and point at its src/)")
    if not args.skip_cpp:
        cpp(args)
    if args.triton is not None:
        runs = [spawn("--child", "triton", "--corpus", str(args.triton)) for _ in range(max(1, args.repeat))]
        t = min(runs, key=lambda r: r["seconds"])
        print(f"triton corpus {args.triton}: {t['files']} .py files, {t['lines']} lines, {t['triton']} Triton modules "
              f"({t['unparsed']} libcst cannot parse); best of {len(runs)} runs, each in a fresh process")
        print(f"porter scan + translator + microarch + shim: {t['seconds']:8.3f} s  "
              f"{t['lines'] / t['seconds']:10,.0f} lines/s  (scan {t['scan_seconds']:.3f} s; "
              f"{t['findings']} findings; peak RSS {max(r['rss_mib'] for r in runs):.0f} MiB; "
              f"all runs {', '.join(format(r['seconds'], '.3f') for r in runs)} s; "
              f"rule catalog import {t['catalog_seconds']:.3f} s, before the clock)")
    return 0


FS_PROBE_FILES = 300


def fs_probe(root: Path) -> float:
    """CPU seconds this process takes to create, write and delete FS_PROBE_FILES files of 11 KB
    under `root`: the state of the file system, which both contenders' figures include."""
    folder = Path(tempfile.mkdtemp(prefix="fs-probe-", dir=root))
    c0 = time.process_time()
    for i in range(FS_PROBE_FILES):
        (folder / f"f{i}.cu").write_bytes(b"x" * 11000)
    shutil.rmtree(folder)
    return time.process_time() - c0


def cpp(args) -> None:
    """Each corpus in turn (the generated one, the --tree ones), then a summary of the ratios."""
    corpora: list[Path | None] = [*args.tree] if args.tree else [None]
    if args.tree and args.generated:
        corpora.insert(0, None)
    rows = [cpp_one(args, tree) for tree in corpora]
    if len(rows) > 1:
        print(f"summary: porter on {args.processes} processes against torch.utils.hipify, each corpus in the same run")
        print(f"  {'corpus':<42} {'files':>6} {'lines':>8} {'porter':>9} {'torch':>9} {'ratio':>6}"
              + ("  median of rounds" if args.rounds > 1 else ""))
        for name, files, lines, porter_s, torch_s, median in rows:
            print(f"  {name:<42} {files:>6} {lines:>8} {porter_s:>8.3f}s {torch_s:>8.3f}s {torch_s / porter_s:>5.2f}x"
                  + (f"  {median:>5.2f}x" if args.rounds > 1 else ""))


def _tree_name(tree: Path) -> str:
    """A tree as the summary names it: from $PORTER_CORPUS on where it lies under it."""
    root = os.environ.get("PORTER_CORPUS")
    if root:
        with contextlib.suppress(ValueError):
            return tree.resolve().relative_to(Path(root).resolve()).as_posix()
    return tree.as_posix()


def cpp_one(args, tree: Path | None) -> tuple[str, int, int, float, float, float]:
    """One corpus: porter on 1 and on --processes processes, torch and the parse alone; the
    corpus's name, files, lines, the two figures the summary compares and the median of the
    rounds' ratios."""
    with tempfile.TemporaryDirectory(prefix="porter-bench-") as tmp:
        corpus = Path(tmp) / "corpus"
        corpus.mkdir()
        if tree is not None:
            if not tree.is_dir():
                raise SystemExit(f"--tree: {tree} is not a directory")
            lines = 0
            for path in sources(tree):
                data = path.read_bytes()
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    continue  # torch.utils.hipify reads UTF-8 only and stops at the first other file
                target = corpus / path.relative_to(tree)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                lines += data.count(b"\n")
            files = len(sources(corpus))
        else:
            files = args.files
            lines = make_corpus(corpus, files, args.seed)
        common = ("--corpus", str(corpus), "--repeat", str(args.repeat))
        fs_before = fs_probe(Path(tmp))
        load_before = os.getloadavg()[0]
        contenders = {"serial": ("--child", "porter", "--processes", "1", *common),
                      "pooled": ("--child", "porter", "--processes", str(args.processes), *common),
                      "torch": ("--child", "torch", *common),
                      "parse": ("--child", "parse", *common)}
        rounds = [_round(contenders, r) for r in range(max(1, args.rounds))]
        serial, pooled, torch, parse = (_best(rounds, name) for name in contenders)
        port = port_command(corpus, Path(tmp) / "port", args.processes) if args.port else None
        load_after = os.getloadavg()[0]
        fs_after = fs_probe(Path(tmp))
    if tree is None and torch["extra"] != files:
        raise SystemExit(f"torch.utils.hipify wrote {torch['extra']} .hip files, expected {files}")
    what = f"tree {tree}" if tree is not None else f"seed {args.seed}"
    print(f"corpus: {files} files, {lines} lines ({what}); best of {args.repeat} runs each"
          + (f" in each of {len(rounds)} rounds" if len(rounds) > 1 else "") + ", "
          f"each contender in its own process; load average {load_before:.2f} before, {load_after:.2f} after "
          f"({os.cpu_count()} CPUs: other work on them slows the {args.processes}-process figure most)")
    print(f"file system ({tempfile.gettempdir()}): creating {FS_PROBE_FILES} files of 11 KB took "
          f"{fs_before * 1e3:.0f} ms of CPU before, {fs_after * 1e3:.0f} ms after (both contenders write their "
          f"output: porter {files} files, torch {2 * files} with its copy of the tree: a slow file system slows "
          "torch the more)")
    print(f"porter translator, 1 process:  {serial['seconds']:8.3f} s  {lines / serial['seconds']:10,.0f} lines/s  "
          f"(peak RSS {serial['rss_mib']:.0f} MiB)")
    print(f"porter translator, {args.processes} processes: {pooled['seconds']:8.3f} s  "
          f"{lines / pooled['seconds']:10,.0f} lines/s  (peak RSS driver {pooled['rss_mib']:.0f} MiB, "
          f"each worker <= {pooled['worker_rss_mib']:.0f} MiB)")
    print(f"torch.utils.hipify:            {torch['seconds']:8.3f} s  {lines / torch['seconds']:10,.0f} lines/s  "
          f"(peak RSS {torch['rss_mib']:.0f} MiB)")
    print(f"tree-sitter parse alone:       {parse['seconds']:8.3f} s  {lines / parse['seconds']:10,.0f} lines/s  "
          f"({parse['extra']}/{files} files without errors; the floor of any parsing translator)")
    print(f"ratio porter/torch throughput: {torch['seconds'] / serial['seconds']:.2f}x on 1 process, "
          f"{torch['seconds'] / pooled['seconds']:.2f}x on {args.processes} processes")
    paired = [r["torch"]["seconds"] / r["pooled"]["seconds"] for r in rounds]
    if len(rounds) > 1:
        print(f"each round's ratio:            {' '.join(format(x, '.2f') + 'x' for x in paired)} (porter on "
              f"{args.processes} processes against torch, run seconds apart); median {statistics.median(paired):.2f}x")
    print(f"every run (s):                 porter {args.processes} processes "
          f"{' '.join(format(w, '.3f') for w in pooled['walls'])}; torch {' '.join(format(w, '.3f') for w in torch['walls'])}; "
          f"porter 1 process {' '.join(format(w, '.3f') for w in serial['walls'])}")
    # CPU seconds of the same best runs, in one process each: the work itself, which other
    # processes on a shared machine stretch far less than the wall time.
    workers = f", its workers {pooled['extra']:.3f} s" if pooled["extra"] is not None else ""
    print(f"CPU of one run, one process:   porter {serial['cpu']:.3f} s, torch {torch['cpu']:.3f} s, "
          f"parse {parse['cpu']:.3f} s (torch/porter {torch['cpu'] / serial['cpu']:.2f}x; "
          f"driver of {args.processes} processes {pooled['cpu']:.3f} s{workers})")
    if port is not None:
        nodes = ", ".join(f"{node} {seconds:.2f}" for node, seconds in port["nodes"].items())
        print(f"porter port --no-verify --jobs {args.processes}: {port['seconds']:8.3f} s  "
              f"{lines / port['seconds']:10,.0f} lines/s  (CPU {port['cpu']:.2f} s with its workers; peak RSS "
              f"{port['rss_mib']:.0f} MiB; nodes (s): {nodes}; exit {port['exit']})")
    name = f"generated ({files} files, seed {args.seed})" if tree is None else _tree_name(tree)
    return name, files, lines, pooled["seconds"], torch["seconds"], statistics.median(paired)


def _round(contenders: dict[str, tuple[str, ...]], index: int) -> dict[str, dict]:
    """Each contender once, in its own fresh process, back to back; the order rotated by `index`."""
    names = list(contenders)
    names = names[index % len(names):] + names[:index % len(names)]
    return {name: spawn(*contenders[name]) for name in names}


def _best(rounds: list[dict[str, dict]], name: str) -> dict:
    """A contender's fastest run over every round, with every round's run times."""
    best = min((r[name] for r in rounds), key=lambda run: run["seconds"])
    return {**best, "walls": [w for r in rounds for w in r[name]["walls"]],
            "rss_mib": max(r[name]["rss_mib"] for r in rounds),
            "worker_rss_mib": max(r[name]["worker_rss_mib"] for r in rounds)}


def port_command(corpus: Path, out: Path, processes: int) -> dict:
    """`porter port CORPUS -o OUT --no-verify --jobs PROCESSES` as a user runs it, once: wall
    seconds, CPU seconds of it and its workers, peak RSS, exit status, and each graph node's
    seconds from the run's task-durations.json."""
    porter = Path(sys.executable).with_name("porter")
    command = [str(porter), "port", str(corpus), "-o", str(out), "--no-verify", "--jobs", str(processes)]
    # Timed from a fresh interpreter of its own, whose children are the command and its workers alone
    # (this process's RUSAGE_CHILDREN holds the other contenders' peak memory too).
    measured = spawn("--child", "command", "--command", json.dumps(command))
    durations = out / ".porter" / "task-durations.json"
    nodes = {}
    if durations.is_file():
        nodes = {t["label"]: t["seconds"] for t in json.loads(durations.read_text())["tasks"] if t["kind"] == "node"}
    return {**measured, "nodes": nodes}


def command_child(command: list[str]) -> dict:
    """Run `command` once: its wall seconds, exit status, and the CPU seconds and peak RSS of it and its children."""
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    seconds = time.perf_counter() - began
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"seconds": seconds, "exit": done.returncode, "cpu": usage.ru_utime + usage.ru_stime,
            "rss_mib": usage.ru_maxrss / 1024}


if __name__ == "__main__":
    sys.exit(main())
