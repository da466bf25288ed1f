"""bench/perfmodel_validate.py: the shape set, the statistics and the scoring, without a GPU."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def validate():
    spec = importlib.util.spec_from_file_location("perfmodel_validate", ROOT / "bench" / "perfmodel_validate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shape_set_covers_the_issue(validate):
    shapes = validate.SHAPES
    assert len({(m, n, k) for _, m, n, k in shapes}) == len(shapes) >= 60
    assert {c for c, *_ in shapes} >= {"square", "decode", "prefill", "recsys"}
    held_out = [i for i in range(len(shapes)) if validate.split(i) == "held-out"]
    assert len(held_out) >= 60


def test_kendall_tau(validate):
    assert validate.kendall_tau([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert validate.kendall_tau([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0)
    # one discordant pair of six: (5 - 1) / 6
    assert validate.kendall_tau([1, 2, 3, 4], [1, 2, 4, 3]) == pytest.approx(4 / 6)


def test_measured_space_is_what_fits_shared_memory(validate):
    from porter import hardware

    space = validate.measured_space("h200", "bf16")
    limit = hardware.get("h200").spec.lds_bytes_per_workgroup.value
    assert all(c.num_stages * (c.block_m + c.block_n) * c.block_k * 2 <= limit for c in space)
    assert any(c.block_m == 256 and c.block_n == 256 for c in space)  # model-illegal ones are timed too


def test_score_uses_confirmed_times_and_the_models_pick(validate, tmp_path):
    configs = validate.measured_space("h200", "bf16")[:40]
    labels = [c.label() for c in configs]
    from porter import hardware
    from porter.perfmodel.gemm import Candidates, Gemm, evaluate

    predicted, _ = evaluate(Gemm(4096, 4096, 4096), Candidates(configs, hardware.get("h200"), "bf16"))
    pick = labels[int(predicted.argmin())]
    seconds = [1e-3] * len(labels)
    best = next(lbl for lbl in labels if lbl != pick)
    seconds[labels.index(best)] = 5e-4  # the sweep says another config is twice as fast...
    raw = {"meta": {"gpu": "test", "device_model": "h200"}, "results": {"bf16/4096x4096x4096": {
        "category": "square", "split": "held-out", "m": 4096, "n": 4096, "k": 4096, "dtype": "bf16",
        "configs": labels, "seconds": seconds, "autotune_wall_s": 2.0,
        "confirm": {best: 1e-3, pick: 1e-3}}}}  # ...and the confirmation says it was a hiccup
    path = tmp_path / "raw.json"
    path.write_text(json.dumps(raw))
    out = tmp_path / "score.json"
    report = validate.main(["score", str(path), "--json", str(out)]) or json.loads(out.read_text())
    row = report["rows"][0]
    assert row["pick"] == pick
    assert row["ratio"] == pytest.approx(1.0)
    assert report["summary"]["held-out"]["pairs"] == 1
