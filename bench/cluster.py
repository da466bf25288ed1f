"""Scale-out: a port in-process against the same port through Ray, and the simulated makespan on N nodes.

    PORTER_CORPUS=/work/src python bench/cluster.py [--corpus DIR] [--verify-units 24] [--work DIR]

The corpus is real public code: NVIDIA/cuda-samples and yuhc/gpu-rodinia, found as
`CORPUS/NVIDIA+cuda-samples` and `CORPUS/yuhc+gpu-rodinia` (their files up to 2 MiB, copied
into one tree; larger ones are data no rule or compile reads). Three measurements:

  A  the whole tree (>= 500 source and build files), rules only (--no-verify): wall time in
     process, then through a local Ray (num_cpus=2, as this machine has), and the two output
     trees compared byte for byte;
  B  the first sample folders holding --verify-units translation units, with verification
     (gfx950 compile by clang 22, nvcc build of the original): wall time in process and on Ray;
  C  the predicted wall time of the whole tree, verified, on 1, 8 and 64 nodes of 16 CPUs
     (porter.makespan): A's measured rule tasks and driver time, and a gfx950 compile and an
     nvcc build per unit of the tree, each estimated by the size fit of B's measured compiles
     (the gfx950 fit over the units that compiled: a failing compile stops early).

It prints the figures and the load average, and writes them to bench/results/cluster-DATE.md
with --record.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

REPOS = ("NVIDIA+cuda-samples", "yuhc+gpu-rodinia")
MAX_BYTES = 2 << 20
SOURCE_SUFFIXES = {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl"}


def build_corpus(corpus: Path, dest: Path) -> tuple[int, int]:
    """Copy the two repositories' files (up to MAX_BYTES) into `dest`; (files, source and build files)."""
    if dest.exists():
        shutil.rmtree(dest)
    files = sources = 0
    for repo in REPOS:
        root = corpus / repo
        for path in sorted(root.rglob("*")):
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_BYTES or ".git" in path.parts:
                continue
            rel = path.relative_to(corpus)
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest / rel)
            files += 1
            name = path.name
            if path.suffix in SOURCE_SUFFIXES or name in ("Makefile", "CMakeLists.txt") or name.endswith(".cmake"):
                sources += 1
    return files, sources


def subset(tree: Path, dest: Path, units: int) -> int:
    """The first sample folders (by path) that together hold `units` .cu files; their count."""
    if dest.exists():
        shutil.rmtree(dest)
    folders = sorted({p.parent for p in tree.rglob("*.cu")})
    taken = 0
    for folder in folders:
        if taken >= units:
            break
        shutil.copytree(folder, dest / folder.relative_to(tree), dirs_exist_ok=True)
        taken += len(list(folder.glob("*.cu")))
    common = tree / "NVIDIA+cuda-samples" / "Common"
    if common.is_dir():  # the samples include ../../../Common/helper_*.h
        shutil.copytree(common, dest / "NVIDIA+cuda-samples" / "Common", dirs_exist_ok=True)
    return taken


def timed_port(src: Path, out: Path, options, dispatcher=None):
    from porter.run import port

    if out.exists():
        shutil.rmtree(out)
    start = time.perf_counter()
    state = port(src, out, options, dispatcher=dispatcher)
    return state, time.perf_counter() - start


def same_tree(a: Path, b: Path, ids: tuple[str, str]) -> list[str]:
    """Files that differ between two output trees, apart from the run id and the output path."""
    differ = []
    names = sorted({p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
                   | {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()})
    for rel in names:
        if rel.startswith((".porter/build/", ".porter/checkpoints", ".porter/task-")) or \
                (rel.startswith(".porter/estimate/") and "/build/" in rel):
            continue  # compiler products name the path they were built at (clang's CUID); timings; run ids
        x, y = a / rel, b / rel
        if not (x.is_file() and y.is_file()):
            differ.append(rel)
            continue
        xs = x.read_bytes().replace(ids[0].encode(), b"RUN").replace(str(a).encode(), b"OUT")
        ys = y.read_bytes().replace(ids[1].encode(), b"RUN").replace(str(b).encode(), b"OUT")
        if xs != ys:
            differ.append(rel)
    return differ


def fit(records: list[dict], sizes: dict[str, int], kind: str) -> tuple[float, float]:
    """Least-squares seconds = base + per_kib * KiB over the measured tasks of `kind`."""
    pts = [(sizes[r["label"]] / 1024, r["seconds"]) for r in records if r["kind"] == kind and r["label"] in sizes]
    if len(pts) < 2:
        return (pts[0][1], 0.0) if pts else (0.0, 0.0)
    n = len(pts)
    mx, my = sum(x for x, _ in pts) / n, sum(y for _, y in pts) / n
    var = sum((x - mx) ** 2 for x, _ in pts)
    slope = sum((x - mx) * (y - my) for x, y in pts) / var if var else 0.0
    slope = max(slope, 0.0)
    return my - slope * mx, slope


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=os.environ.get("PORTER_CORPUS"),
                    help="folder holding NVIDIA+cuda-samples and yuhc+gpu-rodinia (or PORTER_CORPUS)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/porter-bench-cluster"))
    ap.add_argument("--verify-units", type=int, default=24)
    ap.add_argument("--record", action="store_true", help="write bench/results/cluster-DATE.md")
    args = ap.parse_args()
    if args.corpus is None or not all((args.corpus / r).is_dir() for r in REPOS):
        print(f"bench/cluster.py: needs --corpus or PORTER_CORPUS naming a folder with {' and '.join(REPOS)} "
              f"(got {args.corpus})", file=sys.stderr)
        return 2

    import ray

    from porter import cluster, makespan
    from porter.agents.verifier.node import units_of
    from porter.state import PortOptions, PortState

    work = args.work
    tree = work / "src"
    files, sources = build_corpus(args.corpus, tree)
    lines = [f"corpus: {files} files, {sources} source and build files ({', '.join(REPOS)})",
             f"machine: {os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.1f}"]
    print("\n".join(lines), flush=True)
    assert sources >= 500, "the corpus must hold at least 500 source and build files"

    started = time.perf_counter()
    ray.init(num_cpus=os.cpu_count() or 2, resources={"clang22": os.cpu_count() or 2, "nvcc": os.cpu_count() or 2},
             include_dashboard=False, log_to_driver=False)
    ray_start = time.perf_counter() - started

    rules_only = PortOptions(verify=False)
    local_a, wall_la = timed_port(tree, work / "a-local", rules_only)
    dispatcher = cluster.RayDispatcher()
    ray_a, wall_ra = timed_port(tree, work / "a-ray", rules_only, dispatcher)
    dispatcher.close()
    differ_a = same_tree(work / "a-local", work / "a-ray", (local_a.run_id, ray_a.run_id))
    lines += ["", f"A  whole tree, rules only: in process {wall_la:.1f} s, Ray {wall_ra:.1f} s "
                  f"(Ray itself took {ray_start:.1f} s to start, not counted); "
                  f"{len(local_a.files)} files ported, {len(differ_a)} differ between the two"]
    print(lines[-1], flush=True)

    part = work / "subset"
    taken = subset(tree, part, args.verify_units)
    verified = PortOptions(max_iterations=1)
    local_b, wall_lb = timed_port(part, work / "b-local", verified)
    dispatcher = cluster.RayDispatcher()
    ray_b, wall_rb = timed_port(part, work / "b-ray", verified, dispatcher)
    dispatcher.close()  # its tree snapshots; the Ray this script started stays up until the end
    differ_b = same_tree(work / "b-local", work / "b-ray", (local_b.run_id, ray_b.run_id))
    verdicts = {}
    for r in local_b.units.values():
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    lines += [f"B  {len(local_b.units)} units of {taken} .cu files' folders, verified: in process {wall_lb:.1f} s, "
              f"Ray {wall_rb:.1f} s; verdicts {verdicts}; {len(differ_b)} files differ between the two"]
    print(lines[-1], flush=True)

    # C: A's measured rule runs and driver time, and the whole tree's units compiled, each compile
    # estimated from B's measured compiles of this machine (size fit per kind).
    recorded_b = json.loads((work / "b-local" / ".porter" / cluster.DURATIONS_FILE).read_text())["tasks"]
    # A port that fails to compile stops early: the gfx950 fit takes the units that compiled (a tree
    # whose port compiles is what a cluster is sized for); the original's nvcc build, every unit.
    compiled = {rel: (part / rel).stat().st_size for rel, r in local_b.units.items() if r.verdict == "compiled"}
    every = {rel: (part / rel).stat().st_size for rel in local_b.units}
    fits = {"gfx950-compile": fit(recorded_b, compiled, "gfx950-compile"),
            "nvcc-build": fit(recorded_b, every, "nvcc-build")}
    stages = makespan.from_durations(work / "a-local" / ".porter" / cluster.DURATIONS_FILE)
    units = units_of(PortState(run_id="plan", source=str(tree), output="", files=local_a.files))
    cuda_units = [u for u in units if not u.endswith(".py")]
    verifier = next(s for s in stages if s.node == "verifier")
    for kind, (base, per_kib) in fits.items():
        verifier.maps.append([makespan.PlannedTask(kind, u, base + per_kib * (tree / u).stat().st_size / 1024)
                              for u in cuda_units])
    shape = makespan.NodeShape(cpus=16, gpus=0)
    predicted = {n: makespan.predict(stages, n, shape) for n in (1, 8, 64)}
    total = sum(t.seconds for s in stages for m in s.maps for t in m)
    driver = sum(s.driver_s for s in stages)
    lines += [f"C  whole tree verified ({len(cuda_units)} units; compile fit from B: "
              + ", ".join(f"{k} {b:.2f} s + {p * 1000:.1f} ms/KiB" for k, (b, p) in fits.items())
              + f"): {total:.0f} task-seconds, {driver:.1f} s on the driver; predicted wall on nodes of 16 CPUs: "
              + ", ".join(f"{n} node{'s' if n > 1 else ''} {s:.0f} s" for n, s in predicted.items())]
    lines.append(f"load average at end {os.getloadavg()[0]:.1f}")
    print("\n".join(lines[-2:]), flush=True)
    ray.shutdown()
    if args.record:
        day = time.strftime("%Y-%m-%d")
        out = Path(__file__).parent / "results" / f"cluster-{day}.md"
        out.write_text(f"# bench/cluster.py, {day}\n\n"
                       f"`PORTER_CORPUS=/work/src python bench/cluster.py --verify-units {args.verify_units} --record`\n\n"
                       + "\n".join(f"- {line}" if line else "" for line in lines) + "\n")
        print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
