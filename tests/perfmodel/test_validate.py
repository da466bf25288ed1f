"""bench/perfmodel_validate.py: the shape set, the statistics and the scoring, without a GPU."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def validate(bench_module):
    return bench_module("perfmodel_validate")


def _nn_fit_rows(fitscore) -> tuple[list[dict], list[dict], dict[str, int]]:
    """bench/perfmodel_fitscore.py's fit rows, their nn rows and the nn rows per dtype."""
    rows = fitscore.fit_rows()
    nn = [r for r in rows if r["variant"] == "nn"]
    return rows, nn, {dt: sum(r["dtype"] == dt for r in nn) for dt in ("bf16", "fp16", "fp8")}


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


def _measured_shapes(own: str) -> set[tuple[int, int, int]]:
    """Every (M, N, K) a raw file of bench/results holds, but those of the raw files named `own`* (a look's own
    measurement of its set, once taken: named by its date)."""
    measured = set()
    for path in (ROOT / "bench" / "results").glob("perfmodel-h200-raw-*.json"):
        if not path.name.startswith(own):
            measured |= {(r["m"], r["n"], r["k"]) for r in json.loads(path.read_text())["results"].values()}
    return measured


def _declared_fresh_set(validate, look: str, count: int) -> tuple[list, list[tuple[int, int, int]]]:
    """The set declared for `look` (NN_SETS["nn-LOOK"]): `count` distinct shapes, recorded unseen, none measured in a
    raw file of bench/results but the look's own, declared for another look or in SHAPES; its plan and shapes."""
    plan = validate.NN_SETS[f"nn-{look}"]()
    shapes = [sh[1:] for _, sh in plan]
    assert {part for part, _ in plan} == {"unseen"} and len(shapes) == len(set(shapes)) == count
    assert not set(shapes) & _measured_shapes(f"perfmodel-h200-raw-nn-{look}-")
    declared = {sh[1:] for name, fn in validate.NN_SETS.items() if name != f"nn-{look}" for _, sh in fn()}
    assert not set(shapes) & (declared | {sh[1:] for sh in validate.SHAPES})
    return plan, shapes


def _assert_fit_rows(validate, name: str) -> dict:
    """Every row of bench/results' raw file `name` (a look taken once) is a fit row now; its results."""
    results = json.loads((ROOT / "bench" / "results" / name).read_text())["results"]
    assert results
    for r in results.values():
        assert validate.row_split("nn", r["split"], r["m"], r["n"], r["k"]) == "fit"
    return results


# The shape classes the looks declare, each its rule on M and its Triton specialisation (M, N off 16 and K on it:
# (255, 255, 256); M, N, K on 16: (256, 256, 256)).
_CLASS_RULES = {
    "mid": (lambda m: 100 <= m <= 5000, (255, 255, 256)),
    "decode": (lambda m: 1 < m <= 64, (255, 255, 256)),
    "small": (lambda m: m in (16, 32, 48, 64), (256, 256, 256)),
    "control": (lambda m: m > 64, (256, 256, 256)),
}


def _assert_class(validate, shapes, kind: str) -> None:
    """Every (name, M, N, K) of `shapes` keeps the rule of its class `kind` (`_CLASS_RULES`)."""
    rule, specialisation = _CLASS_RULES[kind]
    for _, m, n, k in shapes:
        assert rule(m) and validate._specialisation(m, n, k) == specialisation


def _assert_measured_as_declared(look: str, shapes) -> list[dict]:
    """What each raw file of `look` (perfmodel-h200-raw-nn-LOOK-*.json) measured is (a prefix of) the declared
    `shapes`, recorded unseen; the raw files' rows."""
    rows = []
    for raw_path in (ROOT / "bench" / "results").glob(f"perfmodel-h200-raw-nn-{look}-*.json"):
        results = json.loads(raw_path.read_text())["results"].values()
        got = {(r["m"], r["n"], r["k"]) for r in results}
        assert got <= set(shapes) and {r["split"] for r in results} == {"unseen"}
        rows += results
    return rows


LOOK_DTYPES = "bf16,fp8,fp16"  # what the fourteenth look on measures


def _assert_declared_for_the_device(validate, look: str, shapes, rows: int, budget_s: int = 370) -> None:
    """The device plan of `look` is `rows` (shape, dtype) pairs in LOOK_DTYPES, its raw files measured only the declared
    `shapes` (`_assert_measured_as_declared`), and its evidence script runs that set in those dtypes within `budget_s`."""
    assert len(validate.declared_plan(f"nn-{look}", "nn", LOOK_DTYPES.split(","))) == rows
    _assert_measured_as_declared(look, shapes)
    script = (ROOT / "docs" / "evidence" / f"perfmodel_nn_{look}_h200.sh").read_text()
    assert f'perfmodel_nn_look_h200.sh" nn-{look} {LOOK_DTYPES} {budget_s}' in script


def _plan(validate, look: str, dtypes: str = LOOK_DTYPES, json_path: str | None = None) -> list[dict]:
    """`perfmodel_validate.py plan` of the set declared for `look` on the H200 with Triton 3.6.0: one row per pair."""
    import argparse

    return validate.plan(argparse.Namespace(set=f"nn-{look}", dtypes=dtypes, variant="nn", device="h200",
                                            triton="3.6.0", json=json_path))


def test_tenth_look_nn_split_is_declared_and_fresh(validate):
    """The tenth look's nn reset: the 2026-12-01 nn rows (held-out looked at nine times) are all fit now; the
    unseen set was never measured for nn; every extra shape has M and N off 16 and K on it (one specialisation)."""
    old = json.loads((ROOT / "bench" / "results" / "perfmodel-h200-raw-nn-2026-12-01.json").read_text())["results"]
    old_shapes = {(r["m"], r["n"], r["k"]) for r in old.values()}
    assert {validate.row_split("nn", r["split"], r["m"], r["n"], r["k"]) for r in old.values()} == {"fit"}
    # under the old rule half of them were held-out
    assert any(validate.variant_split(validate.shape_index(*s)) == "held-out" for s in old_shapes)
    plan = validate.nn_tenth_set()
    unseen = {sh[1:] for part, sh in plan if part == "unseen"}
    fit = {sh[1:] for part, sh in plan if part == "fit"}
    assert not (unseen | fit) & old_shapes and not unseen & fit
    assert len(unseen) == 30 + len(validate.NN_UNSEEN_EXTRA)
    for m, n, k in {sh[1:] for sh in validate.NN_UNSEEN_EXTRA + validate.NN_FIT_EXTRA}:
        assert m % 16 and n % 16 and k % 16 == 0
        assert validate._specialisation(m, n, k) == (255, 255, 256)
    # the eleventh look: the tenth look's unseen rows (looked at once) are fit rows now
    assert validate.row_split("nn", "unseen", 8, 50257, 768) == "fit"
    # persistent keeps its index rule, nt its recorded split
    assert validate.row_split("persistent", "fit", 1536, 1536, 1536) == "held-out"
    assert validate.row_split("nt", "held-out", 512, 512, 512) == "held-out"


def test_eleventh_look_nn_split_is_declared_and_fresh(validate):
    """The eleventh look's reset: the tenth look's nn unseen rows are fit; nn unseen-11 is SHAPES index % 3 == 2 plus
    extras of the misses' kinds: none measured before for nn, the extras for no variant (bench/results' raw files)."""
    measured, measured_nn = set(), set()
    for path in (ROOT / "bench" / "results").glob("perfmodel-h200-raw-*.json"):
        if path.name == "perfmodel-h200-raw-nn-eleventh-2026-12-01.json":
            continue  # the eleventh look's own measurement of this set
        for r in json.loads(path.read_text())["results"].values():
            measured.add((r["m"], r["n"], r["k"]))
            if r.get("variant") == "nn":
                measured_nn.add((r["m"], r["n"], r["k"]))
    tenth = json.loads((ROOT / "bench" / "results" / "perfmodel-h200-raw-nn-tenth-2026-12-01.json").read_text())
    for r in tenth["results"].values():
        assert validate.row_split("nn", r["split"], r["m"], r["n"], r["k"]) == "fit"
    plan = validate.nn_eleventh_set()
    shapes = [sh[1:] for _, sh in plan]
    assert {part for part, _ in plan} == {"unseen"} and len(shapes) == len(set(shapes))
    assert not set(shapes) & measured_nn  # nn unseen-11 was never measured for nn...
    assert not {sh[1:] for sh in validate.NN_ELEVENTH_EXTRA} & measured  # ...and its extras for no variant
    on_grid = {sh[1:] for i, sh in enumerate(validate.SHAPES) if i % 3 == 2}
    assert on_grid <= set(shapes) and len(shapes) == len(on_grid) + len(validate.NN_ELEVENTH_EXTRA)
    for _, m, n, k in validate.NN_ELEVENTH_EXTRA:
        assert m % 16 and n % 16 and k % 16 == 0
    # the grid part is measured smallest first, so a deadline cuts the largest shapes
    flops = [m * n * k for m, n, k in shapes[len(validate.NN_ELEVENTH_EXTRA):]]
    assert flops == sorted(flops)
    for m, n, k in shapes:  # recorded unseen; fit rows since the twelfth look's reset
        assert validate.row_split("nn", "unseen", m, n, k) == "fit"
    # what was measured is the declared set, recorded unseen
    raw = json.loads((ROOT / "bench" / "results" / "perfmodel-h200-raw-nn-eleventh-2026-12-01.json").read_text())
    assert {(r["m"], r["n"], r["k"]) for r in raw["results"].values()} == set(shapes)
    assert {r["split"] for r in raw["results"].values()} == {"unseen"}


def test_twelfth_look_nn_split_is_declared_and_fresh(validate):
    """The twelfth look's reset: the eleventh look's nn unseen-11 rows are fit; nn unseen-12 is vocabulary heads and
    generic shapes with M and N off 16 (one specialisation) plus N-on-16 controls, none measured before for any
    variant (bench/results' raw files)."""
    measured = _measured_shapes("perfmodel-h200-raw-nn-twelfth-")
    _assert_fit_rows(validate, "perfmodel-h200-raw-nn-eleventh-2026-12-01.json")
    plan = validate.nn_twelfth_set()
    shapes = [sh[1:] for _, sh in plan]
    assert {part for part, _ in plan} == {"unseen"} and len(shapes) == len(set(shapes))
    assert not set(shapes) & measured
    for _, m, n, k in validate.NN_TWELFTH_ODD:
        assert validate._specialisation(m, n, k) == (255, 255, 256) and m > 1
    for _, m, n, k in validate.NN_TWELFTH_CONTROL:
        assert validate._specialisation(m, n, k) == (256, 256, 256)
    for m, n, k in shapes:  # recorded unseen; fit rows since the thirteenth look's reset
        assert validate.row_split("nn", "unseen", m, n, k) == "fit"
    raw_path = ROOT / "bench" / "results" / "perfmodel-h200-raw-nn-twelfth-2026-12-01.json"
    if raw_path.exists():  # what was measured is (a prefix of) the declared set, recorded unseen
        raw = json.loads(raw_path.read_text())
        got = {(r["m"], r["n"], r["k"]) for r in raw["results"].values()}
        assert got <= set(shapes) and {r["split"] for r in raw["results"].values()} == {"unseen"}


def test_thirteenth_look_nn_split_is_declared_and_fresh(validate):
    """The thirteenth look's reset: the twelfth look's nn unseen-12 rows are fit; nn unseen-13 is shapes of the classes
    the twelfth look missed (M 100-5000 and decode M <= 64 with M and N off 16; M <= 64 on 16) plus controls, none
    measured before for any variant (bench/results' raw files), in two specialisations."""
    measured = _measured_shapes("perfmodel-h200-raw-nn-thirteenth-")
    _assert_fit_rows(validate, "perfmodel-h200-raw-nn-twelfth-2026-12-01.json")
    plan = validate.nn_thirteenth_set()
    shapes = [sh[1:] for _, sh in plan]
    assert {part for part, _ in plan} == {"unseen"} and len(shapes) == len(set(shapes)) == 29
    assert not set(shapes) & measured
    _assert_class(validate, validate.NN_THIRTEENTH_MID, "mid")
    _assert_class(validate, validate.NN_THIRTEENTH_DECODE, "decode")
    _assert_class(validate, validate.NN_THIRTEENTH_SMALL_M, "small")
    _assert_class(validate, validate.NN_THIRTEENTH_CONTROL, "control")
    # the controls are measured last, so a deadline cuts them first
    assert [sh[0] for _, sh in plan][-len(validate.NN_THIRTEENTH_CONTROL):] == ["control"] * 3
    for m, n, k in shapes:  # recorded unseen; fit rows since the fourteenth look's reset
        assert validate.row_split("nn", "unseen", m, n, k) == "fit"
        assert validate.row_split("nn", "fit", m, n, k) == "fit"
    _assert_measured_as_declared("thirteenth", shapes)


def test_first_nn_fp16_look_is_declared_fresh_and_fp16_only(validate):
    """The first nn fp16 look (never measured before: nn had bf16 and fp8 rows only): shapes of the classes the nn bf16
    looks were judged on (decode and prefill vocabulary heads with M and N off 16, generic odd shapes, N-on-16 small-M
    and control shapes), none measured before for any variant or dtype (bench/results' raw files) nor declared for
    another look, in the two specialisations of the twelfth and thirteenth looks; measured for fp16 alone."""
    measured, nn_fp16 = set(), set()
    for path in (ROOT / "bench" / "results").glob("perfmodel-h200-raw-*.json"):
        if path.name.startswith("perfmodel-h200-raw-nn-fp16-first-"):
            continue  # this look's own measurement of the set, once taken (named by its date)
        later = path.name.startswith(("perfmodel-h200-raw-nn-fourteenth-", "perfmodel-h200-raw-nn-fifteenth-",
                                      "perfmodel-h200-raw-nn-sixteenth-"))
        for r in json.loads(path.read_text())["results"].values():
            measured.add((r["m"], r["n"], r["k"]))
            if r.get("variant") == "nn" and r["dtype"] == "fp16" and not later:  # later looks measure fp16 too
                nn_fp16.add((r["m"], r["n"], r["k"]))
    assert not nn_fp16  # every nn fp16 row is this look's
    plan = validate.nn_fp16_first_set()
    shapes = [sh[1:] for _, sh in plan]
    assert {part for part, _ in plan} == {"unseen"} and len(shapes) == len(set(shapes)) == 28
    assert not set(shapes) & measured
    declared = {sh[1:] for name, fn in validate.NN_SETS.items() if name != "nn-fp16-first" for _, sh in fn()}
    assert declared >= {sh[1:] for _, sh in validate.nn_thirteenth_set()}
    assert not set(shapes) & (declared | {sh[1:] for sh in validate.SHAPES})
    _assert_class(validate, validate.NN_FP16_DECODE, "decode")
    _assert_class(validate, validate.NN_FP16_MID + validate.NN_FP16_ODD, "mid")
    _assert_class(validate, validate.NN_FP16_SMALL_M, "small")
    _assert_class(validate, validate.NN_FP16_CONTROL, "control")
    # the controls are measured last, so a deadline cuts them first
    assert [sh[0] for _, sh in plan][-len(validate.NN_FP16_CONTROL):] == ["control"] * 4
    for m, n, k in shapes:  # recorded unseen; fit rows since the fourteenth look's reset
        assert validate.row_split("nn", "unseen", m, n, k) == "fit"
    # measured for fp16 alone, in the declared order; the other sets keep every dtype they are given
    assert validate.declared_plan("nn-fp16-first", "nn", ["fp16"]) == [("fp16", "unseen", sh) for _, sh in plan]
    for variant, dtypes in (("nn", ["bf16", "fp8"]), ("nn", ["fp16", "bf16"]), ("nt", ["fp16"])):
        with pytest.raises(SystemExit):
            validate.declared_plan("nn-fp16-first", variant, dtypes)
    assert len(validate.declared_plan("nn-thirteenth", "nn", ["bf16", "fp8"])) == 58
    fp16_rows = _assert_measured_as_declared("fp16-first", shapes)
    if fp16_rows:  # measured for fp16 alone
        assert {r["dtype"] for r in fp16_rows} == {"fp16"}


def test_plan_prices_the_first_nn_fp16_look_inside_one_device_call(validate, tmp_path, capsys):
    """`plan`: the model's picks for a declared set and the device call's timing estimate, before anything is
    measured. The first nn fp16 look fits one call: its timing estimate plus half the two-dtype compile of the
    earlier looks (840 kernels of 1680; 144 s at most) stays inside the script's 218-s deadline with room to spare."""
    out = tmp_path / "plan.json"
    rows = _plan(validate, "fp16-first", "fp16", str(out))
    assert len(rows) == 28 and [r["key"] for r in rows] == [
        validate.result_key("nn", "fp16", *sh[1:]) for _, sh in validate.nn_fp16_first_set()]
    assert all(0 < r["predicted_s"] < 2e-3 and r["estimate_s"] > validate.PAIR_S for r in rows)
    timing = sum(r["estimate_s"] for r in rows)
    assert 144 / 2 + 1.5 * timing < 218
    assert json.loads(out.read_text())["rows"] == rows
    assert "28 pairs" in capsys.readouterr().out


def test_fitscore_reads_the_thirteenth_and_fp16_looks_as_fit_rows(bench_module):
    """The fourteenth look's reset: bench/perfmodel_fitscore.py scores the thirteenth look's 58 rows and the first nn fp16
    look's 28 rows as fit rows, with nn fp16 a fit column of its own; every nn row measured so far is a fit row."""
    fitscore = bench_module("perfmodel_fitscore")
    rows, nn, by_dtype = _nn_fit_rows(fitscore)
    assert by_dtype["fp16"] >= 28 and by_dtype["bf16"] >= 160 and by_dtype["fp8"] >= 160
    keys = {r["key"] for r in rows}
    for name in ("perfmodel-h200-raw-nn-thirteenth-2026-12-01.json", "perfmodel-h200-raw-nn-fp16-first-2026-12-01.json"):
        assert set(json.loads((ROOT / "bench" / "results" / name).read_text())["results"]) <= keys
    table = fitscore.table(fitscore.score([r for r in nn if r["dtype"] == "fp16"]))
    assert table["nn fp16"][0] == by_dtype["fp16"] and 0 < table["nn fp16"][2] <= table["nn fp16"][1] <= 1


def test_fourteenth_look_nn_split_is_declared_and_fresh(validate):
    """The fourteenth look's reset: the thirteenth look's and the first nn fp16 look's rows are fit; nn unseen-14 is
    shapes of the classes those looks missed (MID and generic ODD with M and N off 16; fp8 small M on 16) plus decode
    heads and controls, none measured before for any variant or dtype (bench/results' raw files) nor declared for another
    look, in two specialisations, measured in bf16, fp8 and fp16."""
    for name in ("perfmodel-h200-raw-nn-thirteenth-2026-12-01.json", "perfmodel-h200-raw-nn-fp16-first-2026-12-01.json"):
        _assert_fit_rows(validate, name)
    plan, shapes = _declared_fresh_set(validate, "fourteenth", 30)
    _assert_class(validate, validate.NN_FOURTEENTH_MID + validate.NN_FOURTEENTH_ODD, "mid")
    _assert_class(validate, validate.NN_FOURTEENTH_SMALL_M, "small")
    _assert_class(validate, validate.NN_FOURTEENTH_DECODE, "decode")
    _assert_class(validate, validate.NN_FOURTEENTH_CONTROL, "control")
    # the controls are measured last, so a deadline cuts them first
    assert [sh[0] for _, sh in plan][-len(validate.NN_FOURTEENTH_CONTROL):] == ["control"] * 3
    for m, n, k in shapes:  # recorded unseen; fit rows since the fifteenth look's reset
        assert validate.row_split("nn", "unseen", m, n, k) == "fit"
    _assert_declared_for_the_device(validate, "fourteenth", shapes, 90)


def test_plan_prices_the_fourteenth_look_inside_one_device_call(validate):
    """The fourteenth look fits one call of at most 400 s: the compile of three dtypes at two specialisations (2520
    kernels; the thirteenth look's 1680 took 154 s and the fp16 look's 840 64 s, so ~220 s) plus 1.5x the timing
    estimate stays inside the script's 370-s budget."""
    rows = _plan(validate, "fourteenth")
    assert len(rows) == 90
    timing = sum(r["estimate_s"] for r in rows)
    assert 154 + 64 + 1.5 * timing < 370


def test_fitscore_reads_the_fourteenth_look_as_fit_rows(bench_module):
    """The fifteenth look's reset: bench/perfmodel_fitscore.py scores the fourteenth look's 90 rows (30 shapes in bf16,
    fp8 and fp16) as fit rows; every nn row measured so far is a fit row."""
    rows, nn, by_dtype = _nn_fit_rows(bench_module("perfmodel_fitscore"))
    assert by_dtype["fp16"] >= 58 and by_dtype["bf16"] >= 190 and by_dtype["fp8"] >= 190
    raw = json.loads((ROOT / "bench" / "results" / "perfmodel-h200-raw-nn-fourteenth-2026-12-01.json").read_text())
    assert len(raw["results"]) == 90 and set(raw["results"]) <= {r["key"] for r in rows}


def test_fifteenth_look_nn_split_is_declared_and_fresh(validate):
    """The fifteenth look's reset: the fourteenth look's rows are fit; nn unseen-15 is shapes weighted toward the class
    the fourteenth look missed (fp8 at M 16-64 with N and K on 16: LLM projections at decode batch sizes) plus heads with
    M and N off 16, generic odd shapes and controls, none measured before for any variant or dtype (bench/results' raw
    files) nor declared for another look, in two specialisations, measured in bf16, fp8 and fp16."""
    assert len(_assert_fit_rows(validate, "perfmodel-h200-raw-nn-fourteenth-2026-12-01.json")) == 90
    plan, shapes = _declared_fresh_set(validate, "fifteenth", 30)
    assert len(validate.NN_FIFTEENTH_SMALL_M) == 18  # weighted to the class that missed
    _assert_class(validate, validate.NN_FIFTEENTH_SMALL_M, "small")
    _assert_class(validate, validate.NN_FIFTEENTH_MID + validate.NN_FIFTEENTH_ODD, "mid")
    _assert_class(validate, validate.NN_FIFTEENTH_DECODE, "decode")
    _assert_class(validate, validate.NN_FIFTEENTH_CONTROL, "control")
    # the class under test is measured first, the controls last, so a deadline cuts the controls first
    assert [sh[0] for _, sh in plan][:18] == ["small"] * 18
    assert [sh[0] for _, sh in plan][-len(validate.NN_FIFTEENTH_CONTROL):] == ["control"] * 3
    for m, n, k in shapes:  # recorded unseen; fit rows since the reset after the fifteenth look
        assert validate.row_split("nn", "unseen", m, n, k) == "fit"
        assert validate.row_split("nn", "fit", m, n, k) == "fit"
    _assert_declared_for_the_device(validate, "fifteenth", shapes, 90)


def test_plan_prices_the_fifteenth_look_inside_one_device_call(validate):
    """The fifteenth look fits one call of at most 400 s: the compile of three dtypes at two specialisations (2520
    kernels, ~220 s as the fourteenth look's, which measured 90 pairs in 354 s) plus 1.5x the timing estimate stays
    inside the script's 370-s budget."""
    rows = _plan(validate, "fifteenth")
    assert len(rows) == 90
    assert len({validate._specialisation(*sh[1:]) for _, sh in validate.nn_fifteenth_set()}) == 2
    timing = sum(r["estimate_s"] for r in rows)
    assert 220 + 1.5 * timing < 370


def test_fitscore_reads_the_fifteenth_look_as_fit_rows(validate, bench_module):
    """The reset after the fifteenth look: bench/perfmodel_fitscore.py scores the fifteenth look's 90 rows (30 shapes in
    bf16, fp8 and fp16) as fit rows; every nn row measured so far is a fit row."""
    rows, nn, by_dtype = _nn_fit_rows(bench_module("perfmodel_fitscore"))
    assert by_dtype == {"bf16": 220, "fp16": 88, "fp8": 220}
    results = _assert_fit_rows(validate, "perfmodel-h200-raw-nn-fifteenth-2026-12-02.json")
    assert len(results) == 90 and set(results) <= {r["key"] for r in rows}


def test_sixteenth_look_nn_split_is_declared_and_fresh(validate):
    """The sixteenth look (no reset: every nn row measured so far is a fit row): nn unseen-16 is shapes of the class T20
    is for (M 16-64 with N and K on 16: LLM projections at decode batch sizes) plus controls at M > 64, none measured
    before for any variant or dtype (bench/results' raw files) nor declared for another look, in one specialisation,
    measured in bf16, fp8 and fp16."""
    assert len(_assert_fit_rows(validate, "perfmodel-h200-raw-nn-fifteenth-2026-12-02.json")) == 90
    plan, shapes = _declared_fresh_set(validate, "sixteenth", 28)
    assert len(validate.NN_SIXTEENTH_SMALL_M) == 24  # weighted to the class under test
    _assert_class(validate, validate.NN_SIXTEENTH_SMALL_M, "small")
    _assert_class(validate, validate.NN_SIXTEENTH_CONTROL, "control")
    # the class under test is measured first, the controls last, so a deadline cuts the controls first
    assert [sh[0] for _, sh in plan] == ["small"] * 24 + ["control"] * 4
    for m, n, k in shapes:  # recorded unseen, scored unseen
        assert validate.row_split("nn", "unseen", m, n, k) == "unseen"
    _assert_declared_for_the_device(validate, "sixteenth", shapes, 84)


def test_plan_prices_the_sixteenth_look_inside_one_device_call(validate):
    """The sixteenth look fits one call of at most 400 s: the compile of three dtypes at one specialisation (1260
    kernels; the fifteenth look compiled 2520 in 192 s) plus 1.5x the timing estimate stays inside the script's 370-s
    budget."""
    rows = _plan(validate, "sixteenth")
    assert len(rows) == 84
    assert {validate._specialisation(*sh[1:]) for _, sh in validate.nn_sixteenth_set()} == {(256, 256, 256)}
    timing = sum(r["estimate_s"] for r in rows)
    assert 192 / 2 + 1.5 * timing < 370


def test_timing_check_counts_configs_whose_two_timings_disagree(validate):
    """A config timed in the sweep and again in the confirmation is one kernel on one input: the two times agree
    unless the timer failed. The sixteenth look's first raw file fails the check (9 of 279 configs over 1.5x, in one
    stretch of shapes: a 64x64x128 tile at 8.2 us in the sweep and 45.5 us confirmed scored 0.192); its declared
    repeat passes, as every earlier look's file does (one disagreement in all eleven)."""
    results = {"nn/fp16/48x4864x896": {"configs": ["a", "b", "c"], "seconds": [8.2e-6, 8.7e-6, float("inf")],
                                       "confirm": {"a": 45.5e-6, "b": 8.8e-6, "c": 1e-5}}}
    checked, off = validate.timing_check(results)
    assert checked == 2 and [(k, c) for k, c, *_ in off] == [("nn/fp16/48x4864x896", "a")]

    def count(name):
        raw = json.loads((ROOT / "bench" / "results" / name).read_text())
        checked, off = validate.timing_check(raw["results"])
        return checked, len(off)

    assert count("perfmodel-h200-raw-nn-sixteenth-2026-12-02.json") == (279, 9)
    assert count("perfmodel-h200-raw-nn-sixteenth-repeat-2026-12-02.json") == (272, 0)
    assert validate.TIMING_DISAGREEMENTS_ALLOWED < 9
