"""porter.cluster: a port through Ray is the port in-process; what no node can run fails clearly."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from porter import cluster
from porter.run import port
from porter.state import PortOptions

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# Headers included by several units, build files (CMake), C++ and CUDA units, a Triton module.
TREE = ("blas_rand", "matmul_tiled", "wave_compact", "triton_vector_add")


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    for name in TREE:
        shutil.copytree(FIXTURES / name, src / name)
    return src


def _files(root: Path) -> dict[str, bytes]:
    """Every file of an output tree, porter's state included except what differs by design:
    the checkpoints (run id), task durations (timings) and compiler products under build/ and
    estimate/*/build/ (clang's CUID hashes the path it compiled, nvcc objects name their temporaries)."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        product = rel.startswith(".porter/estimate/") and "/build/" in rel
        if path.is_file() and not product and not rel.startswith((".porter/build/", ".porter/checkpoints",
                                                                  ".porter/task-")):
            out[rel] = path.read_bytes()
    return out


def _report(root: Path, run_id: str) -> str:
    """The JSON report with the run's own name and place blanked, and no timing."""
    report = json.loads((root / "porter-report.json").read_text())

    def clean(node):
        if isinstance(node, dict):
            return {k: clean(v) for k, v in node.items() if k not in ("seconds", "output", "run_id")}
        if isinstance(node, list):
            return [clean(v) for v in node]
        return node

    return json.dumps(clean(report), indent=1).replace(run_id, "RUN").replace(str(root), "OUT")


@pytest.mark.parametrize("tree", ["several", "matmul_tiled"])
def test_port_through_ray_is_byte_identical_to_the_local_port(tree: str, tmp_path: Path, ray_cluster) -> None:
    # several fixtures in one tree; and one whose porter.toml at the root gets HIP estimates
    # (the direct hipify compiled beside the port, under OUT/.porter/estimate).
    if tree == "several":
        src = _tree(tmp_path)
    else:
        src = tmp_path / "src"
        shutil.copytree(FIXTURES / tree, src)
    local = port(src, tmp_path / "local", PortOptions())
    dispatcher = cluster.RayDispatcher(resource_wait_s=5)
    remote = port(src, tmp_path / "ray", PortOptions(), dispatcher=dispatcher)
    kinds = {r.kind for r in dispatcher.durations}
    assert {"rules", "gfx950-compile", "nvcc-build"} <= kinds  # the work did go through Ray
    assert tree != "several" or "triton-check" in kinds
    assert tree == "several" or any(r.estimates for r in remote.units.values())

    local_files, ray_files = _files(tmp_path / "local"), _files(tmp_path / "ray")
    assert sorted(local_files) == sorted(ray_files)
    differ = [p for p in local_files if local_files[p] != ray_files[p]]
    # The run's id, and the report's line naming the output directory, are all that differ.
    assert sorted(differ) == [".porter/run.json", "porter-report.json", "porter-report.md", "porter-report.sarif"]
    for rel in differ:
        assert local_files[rel].replace(local.run_id.encode(), b"RUN").replace(local.output.encode(), b"OUT") == \
            ray_files[rel].replace(remote.run_id.encode(), b"RUN").replace(remote.output.encode(), b"OUT")
    assert _report(tmp_path / "local", local.run_id) == _report(tmp_path / "ray", remote.run_id)
    assert {u: r.verdict for u, r in local.units.items()} == {u: r.verdict for u, r in remote.units.items()}
    assert local.units and all(r.verdict != "failed" for r in local.units.values())
    # The build products came home: every artifact a unit names exists on the driver's disk.
    for result in remote.units.values():
        for build in (result.port_build, result.original_build):
            for artifact in build.artifacts if build else ():
                assert Path(artifact).is_file() and str(tmp_path / "ray") in artifact
    durations = json.loads((tmp_path / "ray" / ".porter" / cluster.DURATIONS_FILE).read_text())
    assert durations["cluster"] == "ray" and len(durations["tasks"]) == len(dispatcher.durations)


def test_a_task_no_node_can_run_fails_with_what_the_cluster_offers(ray_cluster) -> None:
    dispatcher = cluster.RayDispatcher(resource_wait_s=1)
    with pytest.raises(cluster.ClusterError) as raised:
        dispatcher.map(str, [1], resources=cluster.gpu_check("rocm"))
    message = str(raised.value)
    assert "no node of the Ray cluster can run a gpu-check task" in message
    assert "accelerator_type=AMD-Instinct-MI350X-OAM" in message and "num_gpus=1" in message
    assert '"clang22": 2.0' in message  # what the nodes do offer


def test_units_no_node_can_compile_are_not_checked_with_the_reason(tmp_path: Path, ray_cluster,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "GFX950_COMPILE", cluster.Resources("gfx950-compile", custom=(("clang99", 1),)))
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "wave_compact", src)
    state = port(src, tmp_path / "out", PortOptions(max_iterations=1),
                 dispatcher=cluster.RayDispatcher(resource_wait_s=0.5))
    unit = state.units["compact.cu"]
    assert unit.verdict == "not-checked" and "no node of the Ray cluster can run a gfx950-compile task" in unit.reason


def test_a_task_lost_twice_comes_back_failed_with_the_reason(tmp_path: Path, ray_cluster) -> None:
    def _die_once(marker: str, item: int) -> int:  # defined here: pickled by value, the worker cannot import tests
        """Kills its worker process on every attempt while `marker` exists."""
        if os.path.exists(marker):
            os._exit(1)
        return item * 2

    marker = tmp_path / "die"
    marker.touch()
    dispatcher = cluster.RayDispatcher(resource_wait_s=1)
    results = dispatcher.map(_die_once, [3], resources=cluster.RULES, shared=str(marker))
    assert isinstance(results[0], cluster.TaskFailed)
    assert f"failed {cluster.MAX_RETRIES + 1} times" in results[0].reason
    marker.unlink()
    assert dispatcher.map(_die_once, [3, 4], resources=cluster.RULES, shared=str(marker)) == [6, 8]


def test_a_task_without_a_result_in_time_comes_back_failed(ray_cluster) -> None:
    def _slow(seconds: float) -> float:  # defined here: pickled by value
        import time

        time.sleep(seconds)
        return seconds

    dispatcher = cluster.RayDispatcher(resource_wait_s=1, task_timeout_s=3)
    fast, slow = dispatcher.map(_slow, [0.0, 60.0], resources=cluster.RULES)
    assert fast == 0.0
    assert isinstance(slow, cluster.TaskFailed) and "gave no result within 3 s" in slow.reason


def test_local_dispatcher_keeps_item_order_and_records_durations() -> None:
    dispatcher = cluster.LocalDispatcher(workers=2)
    assert dispatcher.map(abs, [-3, 2, -1], resources=cluster.GFX950_COMPILE) == [3, 2, 1]
    assert [r.kind for r in dispatcher.durations] == ["gfx950-compile"] * 3 + ["map"]  # each task, then the map


def test_gpu_checks_no_node_can_run_are_not_checked_with_the_reason(tmp_path: Path, ray_cluster) -> None:
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "wave_compact", src)
    state = port(src, tmp_path / "out", PortOptions(max_iterations=1, executor="hip-on-cuda"),
                 dispatcher=cluster.RayDispatcher(resource_wait_s=0.5))
    unit = state.units["compact.cu"]
    assert unit.checks and all(c.status == "not-checked" for c in unit.checks)
    assert "no node of the Ray cluster can run a gpu-check task" in unit.checks[0].reason
    assert "accelerator_type=H200" in unit.checks[0].reason
    assert unit.verdict == "compiled"  # its compile stands; a check that could not run fails nothing


def test_tree_snapshots_are_written_once_and_removed_at_close(tmp_path: Path, ray_cluster) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "k.cu").write_text("__global__ void k() {}\n")
    def _read_in_tree(tree: cluster.Tree, rel: str) -> tuple[str, str]:  # here: pickled by value
        root = tree.local()
        return str(root), (root / rel).read_text()

    dispatcher = cluster.RayDispatcher(resource_wait_s=1)
    tree = dispatcher.tree(tmp_path, cluster.shipped_paths(tmp_path))
    written = dispatcher.map(_read_in_tree, ["a/k.cu", "a/k.cu"], resources=cluster.RULES, shared=tree)
    assert written[0][0] == written[1][0] != str(tmp_path)  # one copy per machine, not the driver's tree
    assert all(text == "__global__ void k() {}\n" for _, text in written)
    dispatcher.close()
    assert not Path(written[0][0]).exists()


def test_a_ray_porter_starts_offers_the_toolchains_found_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORTER_CLANG", str(tmp_path / "no-such-clang"))
    monkeypatch.setenv("PORTER_NVCC", str(tmp_path / "no-such-nvcc"))
    assert cluster.local_toolchains() == {}
    monkeypatch.delenv("PORTER_CLANG")
    from porter.toolchains import ToolchainMissing
    from porter.toolchains.clang_hip import find_clang

    try:
        find_clang()
    except ToolchainMissing:
        return  # no clang 22 here: nothing more to offer
    assert cluster.local_toolchains() == {"clang22": float(os.cpu_count() or 1)}


def test_port_on_worker_processes_is_byte_identical_to_the_port_in_one_process(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    options = PortOptions(verify=False)
    alone = port(src, tmp_path / "alone", options)
    dispatcher = cluster.LocalDispatcher(processes=2, min_items=2, min_bytes=0)
    try:
        spread = port(src, tmp_path / "spread", options, dispatcher=dispatcher)
    finally:
        dispatcher.close()
    assert dispatcher.offloaded > 0  # some files' rules did run in the worker
    alone_files, spread_files = _files(tmp_path / "alone"), _files(tmp_path / "spread")
    assert sorted(alone_files) == sorted(spread_files)
    for rel in alone_files:
        assert alone_files[rel].replace(alone.run_id.encode(), b"RUN").replace(alone.output.encode(), b"OUT") == \
            spread_files[rel].replace(spread.run_id.encode(), b"RUN").replace(spread.output.encode(), b"OUT"), rel
    assert alone.findings == spread.findings and alone.patches == spread.patches


def test_auto_processes_uses_every_core_only_for_a_large_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "small.cu").write_bytes(b"x" * 1000)
    assert cluster.auto_processes(tmp_path) == 1
    monkeypatch.setattr(cluster, "AUTO_PROCESSES_BYTES", 1000)
    monkeypatch.setattr(cluster.os, "cpu_count", lambda: 2)
    assert cluster.auto_processes(tmp_path) == 2


class _CountedShared:
    """A map's shared argument that counts how often the driver pickles it."""

    pickled = 0

    def __init__(self, offset: int) -> None:
        self.offset = offset

    def __reduce__(self):
        type(self).pickled += 1
        return (_CountedShared, (self.offset,))


def _add_offset(shared: _CountedShared, item: int) -> int:
    return item + shared.offset


def test_a_spread_map_hands_its_shared_argument_to_the_workers_once_and_cleans_up(tmp_path, monkeypatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dispatcher = cluster.LocalDispatcher(processes=2, min_items=2, min_bytes=0)
    try:
        out = dispatcher.map(_add_offset, list(range(200)), resources=cluster.RULES, shared=_CountedShared(1000))
    finally:
        dispatcher.close()
    assert out == [i + 1000 for i in range(200)] and dispatcher.offloaded == 200
    assert _CountedShared.pickled == 1  # once for the map, not once per chunk (17 of them)
    assert not list(tmp_path.glob("porter-map-*"))


def _constant_seen(shared: dict, item: int) -> tuple[int, int, int]:
    """In a worker: its pid, the id of the constant's value it was handed, and that value's offset plus `item`."""
    value = shared["tree"]["a"]
    return os.getpid(), id(value), value.offset + item + shared["wave"]


def test_a_constant_goes_to_each_worker_once_across_maps_and_is_cleaned_up(tmp_path, monkeypatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(_CountedShared, "pickled", 0)
    tree = {"a": _CountedShared(1000), "b": b"x" * 1000}
    dispatcher = cluster.LocalDispatcher(processes=2, min_items=2, min_bytes=0)
    try:
        dispatcher.constant(tree)
        dispatcher.constant(tree)  # the same dict again: registered once
        runs = [dispatcher.map(_constant_seen, list(range(50)), resources=cluster.RULES,
                               shared={"tree": tree, "wave": wave}) for wave in range(3)]
        assert len(list(tmp_path.glob("porter-constant-*"))) == 1  # written once, kept for the run's next maps
    finally:
        dispatcher.close()
    for wave, out in enumerate(runs):
        assert [value for _, _, value in out] == [1000 + i + wave for i in range(50)]
    assert _CountedShared.pickled == 1  # three maps, one pickle of the constant's value (it rode by name)
    by_worker: dict[int, set[int]] = {}
    for out in runs:
        for pid, oid, _ in out:
            by_worker.setdefault(pid, set()).add(oid)
    assert all(len(ids) == 1 for ids in by_worker.values())  # each worker loaded it once, and kept it
    assert not list(tmp_path.glob("porter-constant-*")) and not list(tmp_path.glob("porter-map-*"))


@pytest.mark.parametrize(("n", "processes"), [(0, 2), (1, 2), (7, 2), (300, 2), (5000, 8)])
def test_spread_chunks_cover_every_item_once_in_order_and_shrink(n: int, processes: int) -> None:
    chunks = cluster._chunks(n, processes)
    assert [i for chunk in chunks for i in chunk] == list(range(n))
    sizes = [len(chunk) for chunk in chunks]
    assert all(1 <= s <= 64 for s in sizes)
    assert sizes == sorted(sizes, reverse=True)  # the last chunks are the smallest: no long tail on one worker
    if n >= 8 * processes:
        assert sizes[-1] == 1


def test_the_scan_runs_on_the_worker_processes_and_gives_the_inventory_of_one_process(tmp_path: Path) -> None:
    from porter.scan import scan_tree
    from porter.workspace import tree_files

    src = _tree(tmp_path)
    rels = tree_files(src)[0]
    alone = scan_tree(src, rels)
    dispatcher = cluster.LocalDispatcher(processes=2, min_items=2, min_bytes=0)
    try:
        with cluster.using(dispatcher):
            spread = scan_tree(src, rels)
    finally:
        dispatcher.close()
    parsed = [r for r in rels if r.endswith((".cu", ".cuh", ".cpp", ".h", ".py"))]
    assert dispatcher.offloaded == len(parsed) > 2  # the files a parser reads; CMakeLists.txt stayed here
    assert spread == alone and [f.path for f in spread.files] == rels and spread.kernels
    assert sorted(r.label for r in dispatcher.durations if r.label.startswith("scan:")) == sorted(f"scan:{r}" for r in parsed)


def test_a_file_the_scan_fails_on_is_reported_in_its_place_and_the_scan_goes_on(tmp_path: Path, monkeypatch) -> None:
    from porter import scan
    from porter.workspace import tree_files

    src = _tree(tmp_path)
    rels = tree_files(src)[0]
    broken = next(r for r in rels if r.endswith(".cu"))
    real = scan._scan_file

    def failing(rel, raw, files, kernels):
        if rel == broken:
            raise RuntimeError("porter's bug")
        real(rel, raw, files, kernels)

    monkeypatch.setattr(scan, "_scan_file", failing)
    inventory = scan.scan_tree(src, rels)
    assert [f.path for f in inventory.files] == rels
    assert inventory.files[rels.index(broken)].note == "the scan failed on it"
    assert [(e.location.path, e.rule) for e in inventory.errors] == [(broken, "internal-error")]
    assert all(f.note != "the scan failed on it" for f in inventory.files if f.path != broken)
