"""porter.makespan: the simulated schedule (hand-worked cases) and `porter cluster plan`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porter import cluster, makespan
from porter.cli import app
from porter.makespan import NodeShape, PlannedTask, Stage

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _tasks(kind: str, *seconds: float) -> list[PlannedTask]:
    return [PlannedTask(kind, f"{kind}{i}", s) for i, s in enumerate(seconds)]


def test_tasks_fill_every_cpu_of_every_node() -> None:
    four = _tasks("rules", 1, 1, 1, 1)
    assert makespan.simulate(four, 1, NodeShape(cpus=2), overhead_s=0) == 2.0
    assert makespan.simulate(four, 2, NodeShape(cpus=2), overhead_s=0) == 1.0
    assert makespan.simulate(four, 64, NodeShape(cpus=2), overhead_s=0) == 1.0  # no more parallelism than tasks
    assert makespan.simulate(four, 1, NodeShape(cpus=2), overhead_s=0.5) == 3.0  # Ray's cost per task


def test_tasks_start_in_submission_order_as_ray_takes_them() -> None:
    # 2 CPUs: the two short tasks start at 0, the long one at 1 and ends at 3 (longest-first would give 2).
    assert makespan.simulate(_tasks("rules", 1, 1, 2), 1, NodeShape(cpus=2), overhead_s=0) == 3.0


def test_a_compile_waits_for_a_free_toolchain_slot_and_cpu() -> None:
    # 2 CPUs (2 clang22 slots): c0, c1 run 0-2; c2 then 2-4; the rule run waits behind c2 (in order) 2-3.
    tasks = _tasks("gfx950-compile", 2, 2, 2) + _tasks("rules", 1)
    assert makespan.simulate(tasks, 1, NodeShape(cpus=2), overhead_s=0) == 4.0
    with pytest.raises(ValueError, match="gpu-check"):
        makespan.simulate(_tasks("gpu-check", 1), 8, NodeShape(cpus=2, gpus=0), overhead_s=0)
    assert makespan.simulate(_tasks("gpu-check", 5, 5, 5), 1, NodeShape(cpus=16, gpus=2), overhead_s=0) == 10.0


def test_stages_add_up_driver_time_and_each_maps_makespan() -> None:
    stages = [Stage("scan", driver_s=1.5), Stage("translator", driver_s=0.5, maps=[_tasks("rules", 2, 2, 2, 2)]),
              Stage("verifier", maps=[_tasks("gfx950-compile", 3, 3), _tasks("nvcc-build", 4, 4)])]
    # 1 node of 2 CPUs: 1.5 + (0.5 + 4) + (3 + 4); 2 nodes: 1.5 + (0.5 + 2) + (3 + 4)
    assert makespan.predict(stages, 1, NodeShape(cpus=2), overhead_s=0) == 13.0
    assert makespan.predict(stages, 2, NodeShape(cpus=2), overhead_s=0) == 11.0


def test_a_recorded_run_is_replayed_node_by_node(tmp_path: Path) -> None:
    records = [("node", "scan", 0.5), ("rules", "translator:a.cu", 0.25), ("rules", "translator:b.cu", 0.75),
               ("map", "rules", 1.0), ("rules-driver", "translator:a.h", 0.1), ("node", "translator", 3.0),
               ("gfx950-compile", "a.cu", 2.0), ("map", "gfx950-compile", 2.0), ("node", "verifier", 2.5)]
    path = tmp_path / cluster.DURATIONS_FILE
    path.write_text(json.dumps({"cluster": "local", "tasks": [
        {"kind": k, "label": label, "seconds": s} for k, label, s in records]}))
    stages = makespan.from_durations(path)
    assert [(s.node, s.driver_s) for s in stages] == [("scan", 0.5), ("translator", 2.0), ("verifier", 0.5)]
    assert [[t.label for t in m] for m in stages[1].maps] == [["translator:a.cu", "translator:b.cu"]]
    # 1 node of 1 CPU: 0.5 + (2 + 1) + (0.5 + 2)
    assert makespan.predict(stages, 1, NodeShape(cpus=1), overhead_s=0) == 6.0


def test_cluster_plan_prints_tasks_resources_and_predictions(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["cluster", "plan", str(FIXTURES / "blas_rand"), "--nodes", "1,8"],
                                terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "estimated from file sizes" in result.output
    rows = {line.split()[0]: line.split() for line in result.output.splitlines() if line.strip()}
    assert rows["gfx950-compile"][1] == "2" and rows["gfx950-compile"][-2] == 'resources={"clang22":'
    assert rows["nvcc-build"][1] == "2" and 'resources={"nvcc": 1}' in result.output
    predictions = [line.split() for line in result.output.splitlines()[-2:]]
    assert [p[0] for p in predictions] == ["1", "8"] and all(float(p[1]) > 0 for p in predictions)
    listed = CliRunner().invoke(app, ["cluster", "plan", str(FIXTURES / "blas_rand"), "--tasks"], terminal_width=200)
    assert "translator rules" in listed.output and "verifier   nvcc-build" in listed.output
    assert any(line.split()[-1] == "kernels.cu" for line in listed.output.splitlines() if "gfx950-compile" in line)
    missing = CliRunner().invoke(app, ["cluster", "plan", str(FIXTURES / "blas_rand"), "--durations", str(tmp_path)])
    assert missing.exit_code == 2 and "no task durations here" in missing.output
