"""`porter cluster plan`: the tasks a port submits, their resources, and its predicted wall time on N nodes.

A port is a sequence of graph nodes. Inside a node the driver works alone (scan, landing
patches, checkpoints, the headers' rule runs) and fans work out in maps (porter.cluster): the
tasks of one map all return before the node goes on. So the predicted wall time is the sum,
over nodes, of the driver's own time plus the makespan of each map's tasks on the cluster.

A map's makespan is simulated as Ray places tasks: in the order porter submits them, each on
the first node with the free resources it asks for (a CPU each; one `clang22`, `nvcc` or GPU
slot besides for compiles and GPU checks), waiting for the earliest finishing task when no node
has room (list scheduling under resource constraints). Ray's own cost per task (scheduling,
moving arguments and results) is added to each task's time.

Durations come from a run of the same tree (`OUT/.porter/task-durations.json`, written by every
`porter port`): the plan then replays that run's nodes, maps and tasks. Without one, the tasks
are enumerated from SRC (one rule run per file and agent, one compile and one nvcc build per
unit, one check per Triton module) and each is estimated from its file's size with `ESTIMATES`.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from porter import cluster
from porter.state import FileRecord

# Seconds = base + per_kib * KiB of the file, per task kind. Fitted by bench/cluster.py (least
# squares over the tasks of an in-process port of NVIDIA/cuda-samples + gpu-rodinia, 2026-12-01,
# on a 2-core machine shared at load 2.5-6: bench/results/cluster-2026-12-01.md). A compile's time
# did not grow with the file's size there (the headers it includes dominate). A starting point:
# measure your own tree with one in-process run and plan with --durations.
ESTIMATES: dict[str, tuple[float, float]] = {
    "rules": (0.0002, 0.00068),
    "rules-driver": (0.0, 0.0011),
    "gfx950-compile": (0.8, 0.0),  # the units that compiled (cuda-samples' first folders: small programs)
    "nvcc-build": (0.6, 0.0),
    "triton-check": (8.0, 0.0),  # the fixtures' Triton checks, in-process, same machine
    # Not measured on a GPU here: two driver builds (as nvcc-build) and two short runs; a guess.
    "gpu-check": (6.0, 0.0),
}
# The driver's own time over a whole run (scan, project names, landing patches, checkpoints,
# report), per KiB of the files rules read, headers' rule runs apart; same bench.
DRIVER_PER_SOURCE_KIB = 0.0018
# Ray's cost per task on top of the task itself (submit, schedule, ship arguments and result):
# the same bench's rules-only port of the whole tree, (Ray wall - in-process wall) / tasks on one
# 2-CPU node = (97.2 - 69.7 s) / 3666.
RAY_TASK_OVERHEAD_S = 0.0075


@dataclass(frozen=True)
class PlannedTask:
    kind: str
    label: str
    seconds: float


@dataclass
class Stage:
    """One graph node of the run: the driver's serial seconds, then its maps, one after another."""

    node: str
    driver_s: float = 0.0
    maps: list[list[PlannedTask]] = field(default_factory=list)


@dataclass(frozen=True)
class NodeShape:
    """One cluster node: CPUs, GPUs, and as many clang22 and nvcc slots as CPUs (README)."""

    cpus: int = 16
    gpus: int = 0

    def capacity(self) -> dict[str, float]:
        return {"CPU": self.cpus, "GPU": self.gpus, "clang22": self.cpus, "nvcc": self.cpus}


def resources_of(kind: str, executor: str = "rocm") -> cluster.Resources:
    """A task kind's resources; a GPU check's accelerator type is the executor's."""
    kinds = {r.kind: r for r in cluster.KINDS}
    if kind == "gpu-check":
        return cluster.gpu_check(executor)
    return kinds[kind]


def _need(kind: str) -> dict[str, float]:
    r = resources_of(kind)  # one accelerator type per plan: only the GPU count constrains
    need = {"CPU": float(r.num_cpus), "GPU": float(r.num_gpus), **dict(r.custom)}
    return {k: v for k, v in need.items() if v}


def simulate(tasks: Sequence[PlannedTask], nodes: int, shape: NodeShape, overhead_s: float = RAY_TASK_OVERHEAD_S
             ) -> float:
    """Makespan of `tasks`, placed in order on `nodes` nodes of `shape` (list scheduling)."""
    if not tasks:
        return 0.0
    free = [shape.capacity() for _ in range(nodes)]
    running: list[tuple[float, int, int, dict[str, float]]] = []  # (end, seq, node, need)
    now, seq, end = 0.0, 0, 0.0
    for task in tasks:
        need = _need(task.kind)
        if not all(shape.capacity().get(k, 0) >= v for k, v in need.items()):
            raise ValueError(f"no node of shape {shape} can run a {task.kind} task ({need})")
        while True:
            node = next((i for i, f in enumerate(free) if all(f.get(k, 0) >= v for k, v in need.items())), None)
            if node is not None:
                break
            done_at, _, n, used = heapq.heappop(running)
            now = max(now, done_at)
            for k, v in used.items():
                free[n][k] += v
        for k, v in need.items():
            free[node][k] -= v
        finish = now + task.seconds + overhead_s
        heapq.heappush(running, (finish, seq, node, need))
        seq += 1
        end = max(end, finish)
    return end


def predict(stages: Iterable[Stage], nodes: int, shape: NodeShape, overhead_s: float = RAY_TASK_OVERHEAD_S) -> float:
    return sum(s.driver_s + sum(simulate(m, nodes, shape, overhead_s) for m in s.maps) for s in stages)


def from_durations(path: Path) -> list[Stage]:
    """The nodes, maps and tasks of a recorded run, in the order it ran them."""
    data = json.loads(path.read_text())
    stages: list[Stage] = []
    current: Stage = Stage("")
    pending: list[PlannedTask] = []
    mapped = 0.0
    for rec in data["tasks"]:
        kind, label, seconds = rec["kind"], rec["label"], rec["seconds"]
        if kind == "map":
            current.maps.append(pending)
            mapped += seconds
            pending = []
        elif kind == "node":
            current.node = label
            current.driver_s = max(0.0, seconds - mapped)
            stages.append(current)
            current, mapped = Stage(""), 0.0
        elif kind == "rules-driver":
            pass  # inside the node's own (driver) time
        else:
            pending.append(PlannedTask(kind, label, seconds))
    return stages


def from_tree(source: Path, units_of: Callable[[list[FileRecord]], list[str]], executor: str = "none"
              ) -> list[Stage]:
    """Tasks as a port of `source` would submit them, each estimated from its file's size.
    `units_of` picks the verifier's units among the files (agents/verifier/node.py); with an
    `executor`, each kernel of the tree's porter.toml is a GPU check besides."""
    from porter.rules import HEADER_SUFFIXES, rule_lang, rules_for
    from porter.scan import classify
    from porter.workspace import tree_files

    rels, _ = tree_files(source)
    sizes = {rel: (source / rel).stat().st_size for rel in rels}
    records = []
    for rel in rels:
        kind, note = classify(rel, (source / rel).read_bytes())
        records.append(FileRecord(path=rel, kind=kind, parsed=not note if kind.value == "triton" else True))

    def est(kind: str, rel: str) -> float:
        base, per_kib = ESTIMATES[kind]
        return base + per_kib * sizes.get(rel, 0) / 1024

    nodes = ("scan", "translator", "microarch", "shim", "verifier", "report")
    source_kib = sum(sizes[r.path] for r in records if rule_lang(r)) / 1024
    share = DRIVER_PER_SOURCE_KIB * source_kib / len(nodes)  # serial wherever it falls: only the sum counts
    stages = [Stage("scan", driver_s=share)]
    for agent in ("translator", "microarch", "shim"):
        stage = Stage(agent, driver_s=share)
        tasks = []
        for r in records:
            lang = rule_lang(r)
            if lang is None or not rules_for(agent, lang):
                continue
            if Path(r.path).suffix.lower() in HEADER_SUFFIXES and agent != "shim":
                stage.driver_s += est("rules-driver", r.path)  # run on the driver (porter/rules.py)
            else:
                tasks.append(PlannedTask("rules", f"{agent}:{r.path}", est("rules", r.path)))
        stage.maps.append(tasks)
        stages.append(stage)
    units = units_of(records)
    cuda = [u for u in units if not u.endswith(".py")]
    triton = [u for u in units if u.endswith(".py")]
    verifier = Stage("verifier", driver_s=share)
    for kind, todo in (("gfx950-compile", cuda), ("nvcc-build", cuda), ("triton-check", triton)):
        verifier.maps.append([PlannedTask(kind, u, est(kind, u)) for u in todo])
    if executor != "none" and (source / "porter.toml").is_file():
        from porter.verify.spec import load_spec

        verifier.maps.append([PlannedTask("gpu-check", f"{k.unit}:{k.name}", est("gpu-check", k.unit))
                              for k in load_spec(source).kernels])
    stages.append(verifier)
    stages.append(Stage("report", driver_s=share))
    return stages


def render(stages: Sequence[Stage], node_counts: Sequence[int], shape: NodeShape, measured: bool,
           overhead_s: float = RAY_TASK_OVERHEAD_S, executor: str = "rocm", every_task: bool = False) -> str:
    """The plan as text: tasks by kind with their resources (`every_task`: each task, in the order
    submitted), then the predicted wall time per node count."""
    by_kind: dict[str, list[PlannedTask]] = {}
    for s in stages:
        for m in s.maps:
            for t in m:
                by_kind.setdefault(t.kind, []).append(t)
    lines = [f"durations: {'measured by a run of this tree' if measured else 'estimated from file sizes (porter/makespan.py ESTIMATES)'}",
             f"node: {shape.cpus} CPUs (as many clang22 and nvcc slots), {shape.gpus} GPUs; "
             f"Ray overhead {overhead_s * 1000:g} ms per task", "",
             f"{'task kind':<16} {'tasks':>6} {'task-seconds':>13} {'longest':>8}  resources"]
    for kind, tasks in by_kind.items():
        lines.append(f"{kind:<16} {len(tasks):>6} {sum(t.seconds for t in tasks):>13.1f} "
                     f"{max(t.seconds for t in tasks):>8.2f}  {resources_of(kind, executor).describe()}")
    if every_task:
        lines += ["", f"{'node':<10} {'task kind':<16} {'seconds':>8}  task"]
        for s in stages:
            lines.append(f"{s.node:<10} {'(driver)':<16} {s.driver_s:>8.2f}")
            lines += [f"{s.node:<10} {t.kind:<16} {t.seconds:>8.2f}  {t.label}" for m in s.maps for t in m]
    driver = sum(s.driver_s for s in stages)
    lines += [f"{'driver (serial)':<16} {'':>6} {driver:>13.1f}", "",
              f"{'nodes':>6} {'predicted wall s':>17}"]
    for n in node_counts:
        lines.append(f"{n:>6} {predict(stages, n, shape, overhead_s):>17.1f}")
    return "\n".join(lines)

