"""Where per-unit work runs: in this process, or as tasks on a Ray cluster.

The graph always runs in one process, the driver, which owns all of a run's state: the
workspace and its ledger, the SQLite checkpoint, the report. Where a node's work fans out per
unit (an agent's rules over each file, the verifier's gfx950 compiles and nvcc builds, the GPU
checks), the node hands it to the run's `Dispatcher`: `map(fn, items, resources=...)` returns
`fn`'s results in the order of `items`.

- `LocalDispatcher` (`--cluster local`, the default) runs the work as porter always has:
  rules one file after the other, compiles on a thread pool (a compile waits on a subprocess).
- `RayDispatcher` (`--cluster ray`, `--cluster ray://HOST:PORT`) submits one Ray task per
  item, with the item's `Resources`: `num_cpus=1` for a rule run, `{"clang22": 1}` for a gfx950
  compile, `{"nvcc": 1}` for an nvcc build, `num_gpus=1` and the target's accelerator type for
  a GPU check. Tasks return data (findings, patches, build and run results, the bytes of what a
  compile wrote); they never write the output tree: the driver does.

A task reads directories through a `Tree`: in-process the directory itself, on Ray a snapshot
of its files put once in Ray's object store and written out once per worker machine. What a
task writes goes to a `Scratch` directory: in-process the real one under `OUT/.porter`, on a
worker a temporary one whose paths `Returned.relocate` maps back to the driver's, with the
files it wrote carried home as bytes. So a run through Ray leaves the same output tree and
the same report (apart from timings) as a run in-process (tests/engine/test_cluster.py).

Before submitting, the Ray dispatcher checks that some live node offers the resources a task
asks for, waiting `resource_wait_s` for one to join; then it raises `ClusterError` with what
the nodes do offer, rather than leaving the task pending forever. A task lost with its node is
retried once (`max_retries=1`); one that fails twice, or gives no result within
`task_timeout_s`, comes back as `TaskFailed` with the reason, for the caller to report the
unit as not checked. Every task's duration is recorded (`Dispatcher.durations`); `porter
port` writes them to `OUT/.porter/task-durations.json`, which `porter cluster plan` reads.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import pickle
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

T = TypeVar("T")
R = TypeVar("R")

DURATIONS_FILE = "task-durations.json"
# A task retried once after its node or worker died: the second failure is the unit's verdict.
MAX_RETRIES = 1
# A compile or a check reads sources, headers, specs and small inputs; a larger file is data that
# none of them reads, and stays off the snapshots tasks get on Ray.
MAX_SHIPPED_BYTES = 4 << 20


class ClusterError(RuntimeError):
    """The cluster cannot run a task (no node offers its resources) or cannot be reached."""


@dataclass(frozen=True)
class Resources:
    """What one task of a kind needs from the node that runs it (Ray's own terms)."""

    kind: str  # names the task kind in durations, plans and Ray's dashboard
    num_cpus: float = 1
    num_gpus: float = 0
    custom: tuple[tuple[str, float], ...] = ()
    accelerator_type: str | None = None
    # In-process, whether a thread pool overlaps these tasks: true for work that waits on a
    # compiler subprocess; rule runs hold the GIL and stay serial.
    local_threads: bool = False
    # In-process with worker processes (LocalDispatcher(processes > 1)): whether every map of
    # these goes to them, however few items or bytes it has (`min_items`, `min_bytes` keep a small
    # map here). A run's header waves (porter.rules.run_on_files) are small maps between large
    # ones: run here, their rules made this process scan the project's names (porter.symbols)
    # the workers had already scanned, while the workers waited.
    spread_small: bool = False

    def ray_options(self) -> dict[str, Any]:
        opts: dict[str, Any] = {"num_cpus": self.num_cpus, "num_gpus": self.num_gpus}
        if self.custom:
            opts["resources"] = dict(self.custom)
        if self.accelerator_type:
            opts["accelerator_type"] = self.accelerator_type
        return opts

    def demand(self) -> dict[str, float]:
        """The node resources this asks for, as Ray names them in `ray.nodes()`."""
        need = {"CPU": float(self.num_cpus)}
        if self.num_gpus:
            need["GPU"] = float(self.num_gpus)
        need.update(dict(self.custom))
        if self.accelerator_type:
            need[f"accelerator_type:{self.accelerator_type}"] = 0.001
        return {k: v for k, v in need.items() if v}

    def describe(self) -> str:
        parts = [f"num_cpus={self.num_cpus:g}"]
        if self.num_gpus:
            parts.append(f"num_gpus={self.num_gpus:g}")
        if self.accelerator_type:
            parts.append(f"accelerator_type={self.accelerator_type}")
        if self.custom:
            parts.append("resources=" + json.dumps(dict(self.custom)))
        return ", ".join(parts)


RULES = Resources("rules", num_cpus=1)
HEADER_RULES = Resources("rules", num_cpus=1, spread_small=True)  # a rule run over a header, before the other files
GFX950_COMPILE = Resources("gfx950-compile", num_cpus=1, custom=(("clang22", 1),), local_threads=True)
NVCC_BUILD = Resources("nvcc-build", num_cpus=1, custom=(("nvcc", 1),), local_threads=True)
# A Triton module's check: AOT compiles and interpreter numerics, on CPUs only.
TRITON_CHECK = Resources("triton-check", num_cpus=1, local_threads=True)
KINDS = (RULES, GFX950_COMPILE, NVCC_BUILD, TRITON_CHECK)

# The device spec (porter/hardware) whose Ray accelerator type a GPU check of each executor asks for.
GPU_FOR_EXECUTOR = {"rocm": "MI350X", "cuda": "H200", "hip-on-cuda": "H200"}


def gpu_check(executor: str) -> Resources:
    """A GPU check on `executor`'s GPU: one GPU of the type porter/hardware names for it."""
    from porter import hardware

    device = hardware.get(GPU_FOR_EXECUTOR[executor])
    return Resources("gpu-check", num_cpus=1, num_gpus=1, accelerator_type=device.ray_accelerator_type or None)


@dataclass(frozen=True)
class TaskFailed:
    """A task that gave no result: lost twice with its node, timed out, or never placeable."""

    reason: str


@dataclass(frozen=True)
class TaskRecord:
    kind: str
    label: str
    seconds: float


class Dispatcher:
    """Runs `fn` over items; subclasses decide where."""

    name = "local"

    def __init__(self) -> None:
        self.durations: list[TaskRecord] = []

    def map(self, fn: Callable[..., R], items: Sequence[T], *, resources: Resources, shared: Any = None,
            label: Callable[[T], str] = str, on_done: Callable[[int, int, str], None] | None = None
            ) -> list[R | TaskFailed]:
        """fn(shared, item) for each item (fn(item) when `shared` is None), results in item order."""
        raise NotImplementedError

    def tree(self, root: Path, paths: Iterable[str]) -> Tree:
        """How a task reads `paths` (relative, posix) under `root`."""
        raise NotImplementedError

    def constant(self, value: dict) -> None:
        """A hint: `value` (a dict) and its values are the same in every map of this run that
        hands them to its tasks (a rule map's context carries every source file of the tree). A
        dispatcher may send them to each worker once, not once per map. Nothing here."""

    def close(self) -> None:
        pass

    @contextmanager
    def timed(self, node: str) -> Iterator[None]:
        """Record a graph node's wall time (what `porter cluster plan` splits into driver and maps)."""
        began = time.perf_counter()
        try:
            yield
        finally:
            self.durations.append(TaskRecord("node", node, time.perf_counter() - began))

    def write_durations(self, state_dir: Path) -> None:
        records = [{"kind": r.kind, "label": r.label, "seconds": round(r.seconds, 4)} for r in self.durations]
        (state_dir / DURATIONS_FILE).write_text(json.dumps({"cluster": self.name, "tasks": records}, indent=1) + "\n")


def _call(fn: Callable, shared: Any, item: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn(item) if shared is None else fn(shared, item)
    return value, time.perf_counter() - start


def _call_chunk(fn: Callable, shared: Any, items: list) -> list[tuple[Any, float]]:
    with quiet_gc():
        shared = _SharedFile.resolve(shared)
        return [_call(fn, shared, item) for item in items]


@dataclass(frozen=True)
class _SharedFile:
    """A map's `shared` argument as a worker process receives it: pickled once by the driver into
    a temporary file, read once per worker. Sent with every chunk, it was pickled, piped and
    unpickled once per chunk (a rule map's context carries every source file of the tree)."""

    path: str
    key: str

    @staticmethod
    def resolve(shared: Any) -> Any:
        if not isinstance(shared, _SharedFile):
            return shared
        return _latest_two(_SHARED, shared.key, shared.path, lambda f: _ConstantUnpickler(f).load())


def _latest_two(cache: dict[str, Any], key: str, path: str, load: Callable[[Any], Any]) -> Any:
    """In a worker: what the file `path` holds, loaded (`load` of the open file) the first time `key` is asked for;
    `cache` keeps the latest two keys (a run's and the one before)."""
    found = cache.get(key)
    if found is None:
        with open(path, "rb") as f:
            found = cache[key] = load(f)
        while len(cache) > 2:
            cache.pop(next(iter(cache)))
    return found


_SHARED: dict[str, Any] = {}  # in a worker: the maps' shared arguments, by key (the latest two maps)


@dataclass
class _Constant:
    """In the driver: a dict registered with `LocalDispatcher.constant`, and its values, written
    to a file of their own when a map's shared argument first holds one of them; that argument's
    pickle then names each by (key, path, index) (`_ConstantPickler`), and a worker loads the
    file once (`_CONSTANTS`). A tree's sources (8 MB on a real tree) were pickled into every
    map's file and loaded from it by each worker, once per map: a run's header waves are maps of
    their own, and on NVIDIA/CUDALibrarySamples seven maps paid it seven times."""

    objects: list[Any]  # the dict, then its values: held, so that their ids stay theirs
    key: str
    path: str | None = None

    def written(self) -> str:
        """Its file, written when a map first names one of its objects."""
        if self.path is None:
            fd, self.path = tempfile.mkstemp(prefix="porter-constant-", suffix=".pickle")
            with os.fdopen(fd, "wb") as f:
                pickle.dump(self.objects, f, protocol=pickle.HIGHEST_PROTOCOL)
        return self.path

    def drop(self) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            self.path = None


class _ConstantPickler(pickle.Pickler):
    """Pickles a map's shared argument, naming the registered constants' objects it holds
    (`ids`: id(object) -> its constant and index; one lookup per object pickled)."""

    def __init__(self, file, ids: dict[int, tuple[_Constant, int]]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._ids = ids

    def persistent_id(self, obj: Any) -> tuple[str, str, int] | None:
        found = self._ids.get(id(obj))
        if found is None:
            return None
        constant, i = found
        return (constant.key, constant.written(), i)


class _ConstantUnpickler(pickle.Unpickler):
    """Loads a map's shared argument in a worker; a constant's objects from its file, once."""

    def persistent_load(self, pid: tuple[str, str, int]) -> Any:
        key, path, i = pid
        return _latest_two(_CONSTANTS, key, path, pickle.load)[i]


_CONSTANTS: dict[str, list[Any]] = {}  # in a worker: the constants' objects, by key (the latest two)


# Young objects the cyclic collector lets pile up before it walks them, while CPU-bound per-item
# work runs (`quiet_gc`): a rule run builds a few hundred tuples per file (tokens, edits,
# findings) and unpickling a worker's results thousands, none of them in a cycle. At CPython's
# default of 700 the collector ran several times per file, and each older-generation pass
# walked every result gathered so far: a quarter of the rule time, and two thirds of the
# driver's time rebuilding results (bench/results/translate-2026-12-01b.md).
GC_YOUNG_THRESHOLD = 100_000
_GC_DEPTH = [0]


@contextmanager
def quiet_gc(collect: bool = True) -> Iterator[None]:
    """Within: what exists is frozen out of the collector's walks (the catalog, the tables, the
    run's state) and young objects are collected 100,000 at a time, not 700; after: as before.
    Re-entrant (a driver's own chunk runs inside its map's).

    `collect=False`, for a block that only gathers results (a map spread over worker processes,
    whose results the driver rebuilds): no collection within, and what the block made and kept
    goes to the oldest generation at its end, unwalked. Those results are never garbage, and one
    walk of them in the young generation (100,000 findings' models and edits, none collectable)
    was an eighth of the driver's CPU in bench/translate.py's 2-process run."""
    if _GC_DEPTH[0]:
        yield
        return
    old = gc.get_threshold()
    _GC_DEPTH[0] += 1
    gc.freeze()
    gc.set_threshold(max(old[0], GC_YOUNG_THRESHOLD) if collect else 0, *old[1:])  # 0: no automatic collection
    try:
        yield
    finally:
        if not collect:
            gc.freeze()  # the block's survivors join the frozen ones, and with them the oldest generation below
        gc.set_threshold(*old)
        gc.unfreeze()
        _GC_DEPTH[0] -= 1


# What a fresh worker runs once before any task, so that no task pays for it: the rule registry
# (porter.rules) adds its catalog load here when imported; this module never imports the registry.
WORKER_WARM_UP: list[Callable[[], object]] = []


def _warm_worker(steps: tuple[Callable[[], object], ...]) -> None:
    """A fresh worker's first task: import porter and load its rule catalog (not per file)."""
    for step in steps:
        step()
    gc.freeze()  # the catalog and tables it loaded live as long as the worker: out of every collection


def _size(item: Any) -> int:
    """Bytes of input an item carries (a rule run's item is (record, bytes)), for `_spread`."""
    if isinstance(item, bytes | str):
        return len(item)
    if isinstance(item, tuple):
        return sum(_size(x) for x in item)
    return 0


def _chunks(n: int, processes: int) -> list[list[int]]:
    """Indices 0..n-1 in chunks that shrink as the map goes (a quarter of each worker's share of
    what is left, at most 64, at least 1): few sends while much is left, and at the end no
    worker still runs a long chunk while the others wait. Of equal chunks of a sixteenth
    (bench/translate.py, 300 files on 2 processes: 18 files, about 50 ms each), the last left one
    worker running alone for up to a chunk's time."""
    out, i = [], 0
    while i < n:
        per = max(1, min(64, (n - i) // (processes * 4)))
        out.append(list(range(i, min(i + per, n))))
        i += per
    return out


class LocalDispatcher(Dispatcher):
    """On this machine: compiles on a thread pool (a compile waits on a subprocess); CPU-bound
    work (rule runs) in this process, or, with `processes` > 1, on `processes` worker processes
    while this one only hands out chunks and gathers their results.

    The workers are started here, when the dispatcher is made, before any graph runs (never
    forked from inside a node): spawned fresh, they import porter and load the rule catalog
    while the driver goes on. A map of CPU-bound work with fewer than `min_items` items or
    `min_bytes` bytes of input (a small port) stays in this process. An item's result is the
    same wherever it ran: a task gets its inputs as data, as on Ray.

    The driver computes no chunk of a spread map itself: while it ran one (it holds the GIL for
    tens of milliseconds), the pool's threads that send the next chunk and take a result back
    waited on it, and the workers idled (bench/translate.py, 2 processes: one worker ran 36 of
    300 files and the map took as long as on 1 process).
    """

    def __init__(self, workers: int | None = None, *, processes: int = 1, min_items: int = 8,
                 min_bytes: int = 1 << 20) -> None:
        super().__init__()
        self.workers = workers or os.cpu_count() or 2
        self.processes = max(1, processes)
        self.min_items, self.min_bytes = min_items, min_bytes
        self._pool = None
        self.offloaded = 0  # items a worker process ran
        self._constants: list[_Constant] = []  # the latest two `constant`s
        self._constant_ids: dict[int, tuple[_Constant, int]] = {}  # their objects by id: (constant, index)
        if self.processes > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"))
            for _ in range(self.processes):  # start them now: each loads the catalog once
                self._pool.submit(_warm_worker, tuple(WORKER_WARM_UP))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        for constant in self._constants:
            constant.drop()
        self._constants.clear()
        self._constant_ids.clear()

    def constant(self, value: dict) -> None:
        """`value` and its values go to each worker once, with the first spread map that hands
        them over (`_Constant`); the latest two dicts are kept (a run's, and the one before)."""
        if self._pool is None or not isinstance(value, dict) or any(c.objects[0] is value for c in self._constants):
            return
        constant = _Constant([value, *value.values()], os.urandom(12).hex())
        self._constants.append(constant)
        while len(self._constants) > 2:
            self._constants.pop(0).drop()
        # The latest registration names an object both hold (a file unchanged between runs).
        self._constant_ids = {id(o): (c, i) for c in self._constants for i, o in enumerate(c.objects)}

    def _spread(self, items: list, resources: Resources) -> bool:
        if self._pool is None or resources.local_threads or not items:
            return False
        if resources.spread_small:
            return True
        if len(items) < max(self.min_items, 2):
            return False
        return sum(_size(item) for item in items) >= self.min_bytes

    def _map_processes(self, fn, items, shared, finish) -> None:
        """Chunks of `items` to the workers, each with one chunk running and one queued; results
        taken in the order they come back."""
        from collections import deque
        from concurrent.futures import FIRST_COMPLETED, wait

        queue = deque(_chunks(len(items), self.processes))
        pending: dict[Any, list[int]] = {}
        done = 0
        sent = shared
        if shared is not None:
            fd, path = tempfile.mkstemp(prefix="porter-map-", suffix=".pickle")
            with os.fdopen(fd, "wb") as f:
                _ConstantPickler(f, self._constant_ids).dump(shared)
            sent = _SharedFile(path, os.urandom(12).hex())
        try:
            while queue or pending:
                while queue and len(pending) < 2 * self.processes:
                    chunk = queue.popleft()
                    pending[self._pool.submit(_call_chunk, fn, sent, [items[i] for i in chunk])] = chunk
                    self.offloaded += len(chunk)
                ready, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                for future in ready:
                    for i, out in zip(pending.pop(future), future.result()):
                        done += 1
                        finish(i, out, done)
        finally:
            for future in pending:
                future.cancel()
            if isinstance(sent, _SharedFile):
                os.unlink(sent.path)

    def map(self, fn, items, *, resources, shared=None, label=str, on_done=None):
        items = list(items)
        results: list[Any] = [None] * len(items)
        began = time.perf_counter()

        def finish(i: int, out: tuple[Any, float], done: int) -> None:
            results[i] = out[0]
            self.durations.append(TaskRecord(resources.kind, label(items[i]), out[1]))
            if on_done:
                on_done(done, len(items), label(items[i]))

        if self._spread(items, resources):
            with quiet_gc(collect=False):  # the results the workers send are rebuilt here, by a pool thread
                self._map_processes(fn, items, shared, finish)
        elif resources.local_threads and len(items) > 1:
            from concurrent.futures import as_completed

            with ThreadPoolExecutor(max_workers=self.workers) as pool:
                futures = {pool.submit(_call, fn, shared, item): i for i, item in enumerate(items)}
                for done, future in enumerate(as_completed(futures), 1):
                    finish(futures[future], future.result(), done)
        else:
            with quiet_gc():
                for i, item in enumerate(items):
                    finish(i, _call(fn, shared, item), i + 1)
        self.durations.append(TaskRecord("map", resources.kind, time.perf_counter() - began))
        return results

    def tree(self, root, paths):
        return Tree(root=str(root))


class RayDispatcher(Dispatcher):
    """One Ray task per item, on the cluster at `address` (None: Ray's own default, `ray.init()`)."""

    name = "ray"

    def __init__(self, address: str | None = None, *, resource_wait_s: float = 60.0,
                 task_timeout_s: float = 3600.0) -> None:
        super().__init__()
        try:
            import ray
        except ModuleNotFoundError as e:
            raise ClusterError("--cluster ray needs Ray: pip install 'porter-gpu[cluster]'") from e
        self._ray = ray
        self.address = address
        self.resource_wait_s = resource_wait_s
        self.task_timeout_s = task_timeout_s
        self._started = False
        if not ray.is_initialized():
            # A Ray porter starts here (no address given or in RAY_ADDRESS) offers the toolchains found here.
            local = address is None and not os.environ.get("RAY_ADDRESS")
            try:
                ray.init(address=address, log_to_driver=False, include_dashboard=False,
                         **({"resources": local_toolchains()} if local else {}))
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise ClusterError(f"cannot reach a Ray cluster at {address or 'the default address'}: {e}") from e
            self._started = True
        self._remote = ray.remote(_call)
        self._placeable: set[Resources] = set()
        self._digests: set[str] = set()

    def close(self) -> None:
        """Remove this run's tree snapshots from every live node's disk; shut down a Ray this started."""
        if self._digests:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            forget = self._ray.remote(_forget_trees)
            refs = [forget.options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False))
                    .remote(sorted(self._digests)) for n in self._ray.nodes() if n.get("Alive")]
            self._ray.wait(refs, num_returns=len(refs), timeout=30)
            self._digests.clear()
        if self._started:
            self._ray.shutdown()
            self._started = False

    def nodes(self) -> list[dict[str, float]]:
        """The resources of each live node."""
        return [n.get("Resources", {}) for n in self._ray.nodes() if n.get("Alive")]

    def check_placeable(self, resources: Resources) -> None:
        """Return once a live node offers `resources`; ClusterError after `resource_wait_s` without one."""
        if resources in self._placeable:
            return
        need = resources.demand()
        deadline = time.monotonic() + self.resource_wait_s
        while True:
            nodes = self.nodes()
            if any(all(node.get(k, 0.0) >= v for k, v in need.items()) for node in nodes):
                self._placeable.add(resources)
                return
            if time.monotonic() >= deadline:
                offered = "; ".join(_describe_node(n) for n in nodes) or "no live node"
                raise ClusterError(
                    f"no node of the Ray cluster can run a {resources.kind} task ({resources.describe()}); "
                    f"waited {self.resource_wait_s:g} s; the cluster's nodes offer: {offered}. "
                    "Start a node that has it, e.g. ray start --address=HEAD:6379 "
                    f"--resources='{json.dumps(dict(resources.custom) or {'clang22': 1})}' (README: Scale-out on Ray)")
            time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))

    def map(self, fn, items, *, resources, shared=None, label=str, on_done=None):
        ray = self._ray
        items = list(items)
        if not items:
            return []
        self.check_placeable(resources)
        began = time.perf_counter()
        shared_ref = ray.put(shared) if shared is not None else None
        options = {"max_retries": MAX_RETRIES, "retry_exceptions": False, **resources.ray_options()}
        refs = [self._remote.options(name=f"porter:{resources.kind}:{label(item)}"[:200], **options)
                .remote(fn, shared_ref, item) for item in items]
        index = {ref: i for i, ref in enumerate(refs)}
        results: list[Any] = [None] * len(items)
        pending = list(refs)
        deadline = time.monotonic() + self.task_timeout_s
        done = 0
        while pending:
            ready, pending = ray.wait(pending, num_returns=1, timeout=max(0.0, deadline - time.monotonic()))
            if not ready:
                for ref in pending:
                    ray.cancel(ref, force=True)
                    results[index[ref]] = TaskFailed(
                        f"{resources.kind} task gave no result within {self.task_timeout_s:g} s "
                        f"({resources.describe()})")
                    done += 1
                break
            ref = ready[0]
            i = index[ref]
            try:
                value, seconds = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                raise e.as_instanceof_cause() from None  # porter's own error in the task: as in-process
            except ray.exceptions.RayError as e:
                results[i] = TaskFailed(f"{resources.kind} task failed {MAX_RETRIES + 1} times on the Ray cluster: "
                                        f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}")
            else:
                results[i] = value
                self.durations.append(TaskRecord(resources.kind, label(items[i]), seconds))
            done += 1
            if on_done:
                on_done(done, len(items), label(items[i]))
        self.durations.append(TaskRecord("map", resources.kind, time.perf_counter() - began))
        return results

    def tree(self, root, paths):
        files = {}
        for rel in sorted(set(paths)):
            path = Path(root) / rel
            if path.is_file():
                files[rel] = path.read_bytes()
        digest = hashlib.sha256(pickle.dumps(sorted(files.items()))).hexdigest()[:24]
        self._digests.add(digest)
        return Tree(root=str(root), digest=digest, ref=(self._ray.put(files),))


def local_toolchains() -> dict[str, float]:
    """The toolchain resources this machine can offer Ray: a slot per CPU for each compiler found."""
    from porter.toolchains import ToolchainMissing
    from porter.toolchains.clang_hip import find_clang
    from porter.toolchains.nvcc import find_nvcc

    found = {}
    for resource, find in (("clang22", find_clang), ("nvcc", find_nvcc)):
        try:
            find()
        except ToolchainMissing:
            continue
        found[resource] = float(os.cpu_count() or 1)
    return found


def _trees_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"porter-ray-{os.getuid()}" / "trees"


def _forget_trees(digests: list[str]) -> None:
    for digest in digests:
        shutil.rmtree(_trees_dir() / digest, ignore_errors=True)


def shipped_paths(root: Path) -> list[str]:
    """The files of `root` a task may read on a Ray worker: all up to MAX_SHIPPED_BYTES, porter's state excluded."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != ".porter")
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_file() and path.stat().st_size <= MAX_SHIPPED_BYTES:
                out.append(path.relative_to(root).as_posix())
    return sorted(out)


def _describe_node(resources: Mapping[str, float]) -> str:
    keep = {k: v for k, v in resources.items() if not k.startswith(("node:", "memory", "object_store_memory"))}
    return json.dumps(keep, sort_keys=True)


# A tree with less C/C++/CUDA/Python than this is ported in one process: starting workers (each
# imports porter and loads the rule catalog) costs more than they would save.
AUTO_PROCESSES_BYTES = 4 << 20
_CODE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hxx", ".inl", ".py")


def auto_processes(source: Path) -> int:
    """How many processes `porter port --jobs 0` (the default) uses for `source`: every core
    (at most 8) when the tree holds AUTO_PROCESSES_BYTES of code, else 1."""
    total = 0
    for folder, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.lower().endswith(_CODE_SUFFIXES):
                try:
                    total += os.path.getsize(os.path.join(folder, name))
                except OSError:
                    continue
                if total >= AUTO_PROCESSES_BYTES:
                    return max(1, min(8, os.cpu_count() or 1))
    return 1


def open_dispatcher(spec: str, *, processes: int = 1, **ray_options: float) -> Dispatcher:
    """`local` (on `processes` processes), `ray` (Ray's default address: RAY_ADDRESS, or a local
    cluster) or `ray://HOST:PORT`."""
    if spec == "local":
        return LocalDispatcher(processes=processes)
    if spec == "ray":
        return RayDispatcher(None, **ray_options)
    if spec.startswith("ray://"):
        rest = spec.removeprefix("ray://")
        return RayDispatcher("auto" if rest == "auto" else spec, **ray_options)
    raise ValueError(f"--cluster {spec!r}: expected local, ray or ray://HOST:PORT")


# The run's dispatcher, set by the graph's node wrappers around each node.
_CURRENT: ContextVar[Dispatcher | None] = ContextVar("porter_dispatcher", default=None)


def current() -> Dispatcher:
    """The run's dispatcher; outside a run (a test calling an agent), a fresh in-process one."""
    return _CURRENT.get() or LocalDispatcher()


@contextmanager
def using(dispatcher: Dispatcher | None) -> Iterator[Dispatcher]:
    token = _CURRENT.set(dispatcher)
    try:
        yield current()
    finally:
        _CURRENT.reset(token)


@dataclass(frozen=True)
class Tree:
    """A directory a task reads. In-process (`digest` empty) it is `root` itself; on a Ray worker,
    the snapshot in `ref` written out once per machine under the temp directory, by digest."""

    root: str
    digest: str = ""
    ref: tuple = ()  # (ObjectRef,): inside a tuple, so Ray does not fetch it with every task

    def local(self) -> Path:
        if not self.digest:
            return Path(self.root)
        target = _trees_dir() / self.digest
        if not target.is_dir():
            import ray

            files: dict[str, bytes] = ray.get(self.ref[0])
            target.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{self.digest}.", dir=target.parent))
            for rel, data in files.items():
                path = staging / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            try:
                staging.rename(target)
            except OSError:  # another worker on this machine wrote it first
                shutil.rmtree(staging, ignore_errors=True)
        return target


@dataclass
class Scratch:
    """Where a task writes: in-process the real directory; on a worker a temporary one."""

    real: str
    remote: bool
    path: Path = field(init=False)

    def __post_init__(self) -> None:
        if self.remote:
            base = Path(tempfile.gettempdir()) / f"porter-ray-{os.getuid()}"
            base.mkdir(parents=True, exist_ok=True)
            self.path = Path(tempfile.mkdtemp(prefix="scratch.", dir=base))
        else:
            self.path = Path(self.real)

    def files(self, places: Mapping[Path, str]) -> dict[str, bytes]:
        """What the task wrote, keyed by the driver's path (nothing in-process: it is already there).
        Worker paths inside them (an assembly file names its source) become the driver's."""
        if not self.remote:
            return {}
        moves = sorted(((str(k).encode(), v.encode()) for k, v in places.items()), key=lambda m: -len(m[0]))
        out = {}
        for p in sorted(self.path.rglob("*")):
            if p.is_file():
                data = p.read_bytes()
                for worker, driver in moves:
                    data = data.replace(worker, driver)
                out[str(Path(self.real) / p.relative_to(self.path))] = data
        return out

    def close(self) -> None:
        if self.remote:
            shutil.rmtree(self.path, ignore_errors=True)


M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Returned(Generic[M]):
    """A task's result with its paths already the driver's, and the files it wrote, as bytes."""

    value: M
    files: Mapping[str, bytes] = field(default_factory=dict)

    def land(self) -> M:
        """Write the carried files (driver side) and give the value."""
        for path, data in self.files.items():
            target = Path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return self.value


def relocate(value: M, places: Mapping[Path, str]) -> M:
    """`value` with every worker path in `places` replaced by the driver's path it stands for."""
    moves = {str(k): v for k, v in places.items() if str(k) != v}
    if not moves:
        return value
    text = value.model_dump_json()
    for worker in sorted(moves, key=len, reverse=True):  # a longer path first: one may contain another
        text = text.replace(json.dumps(worker)[1:-1], json.dumps(moves[worker])[1:-1])
    return type(value).model_validate_json(text)


@contextmanager
def task_places(trees: Mapping[str, Tree], scratch: str) -> Iterator[tuple[dict[str, Path], Scratch, Callable]]:
    """Inside a task: local paths for `trees`, a scratch directory standing for `scratch`, and
    `finish(value)` that relocates a result to the driver's paths and carries the scratch files."""
    remote = any(t.digest for t in trees.values())
    local = {name: t.local() for name, t in trees.items()}
    work = Scratch(scratch, remote)
    places = {path: trees[name].root for name, path in local.items()}
    places[work.path] = scratch

    def finish(value: M) -> Returned[M]:
        return Returned(relocate(value, places), work.files(places))

    try:
        yield local, work, finish
    finally:
        work.close()
