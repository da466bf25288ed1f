"""bench/perfmodel_compile_facts.py without Triton: the model's table from JSON lines, and two dtypes' compiles compared."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "porter" / "perfmodel" / "data" / "triton-3.6-sm90a-nn-scalar-b.json"


@pytest.fixture(scope="module")
def facts(bench_module):
    return bench_module("perfmodel_compile_facts")


def _lines(facts, dtype: str, rows: dict[str, list]) -> list[dict]:
    """--space JSON lines that carry a table's rows (the opcode counts the table sums, split back)."""
    out = []
    for cfg, row in rows.items():
        r = dict(zip(facts.TABLE_COLUMNS, row))
        loop = dict.fromkeys(facts.OPCODES, 0) | {
            "LDG.E.U8" if dtype == "fp8" else "LDG.E.U16": r["loop_scalar_b_loads"], "LDL": r["loop_local_accesses"],
            "STS.U8": r["loop_byte_stores"]}
        out.append({"variant": "nn", "dtype": dtype, "config": cfg, "aligned": False, "triton": "3.6.0",
                    "registers": r["registers"], "stack_bytes": r["stack_bytes"], "shared_bytes": r["shared_bytes"],
                    "kernel": loop, "loop_instructions": r["loop_instructions"], "loop": loop,
                    "loop_constant_loads": r["loop_constant_loads"], "loop_latency_rounds": r["loop_latency_rounds"]})
    return out


def test_table_is_what_write_table_writes_from_its_rows_per_dtype(facts, tmp_path):
    """The committed table round-trips through write_table byte for byte (bf16, fp16, fp8); with bf16 and fp8 alone it
    writes their rows and names only them, as the twelfth and thirteenth looks' table did."""
    table = json.loads(TABLE.read_text())
    assert sorted(table["configs"]) == ["bf16", "fp16", "fp8"]
    sources = []
    for dt, rows in table["configs"].items():
        src = tmp_path / f"{dt}.jsonl"
        src.write_text("".join(json.dumps(r) + "\n" for r in _lines(facts, dt, rows)))
        sources.append(src)
    out = tmp_path / "table.json"
    facts.write_table(out, [str(s) for s in sources])
    assert out.read_bytes() == TABLE.read_bytes()
    facts.write_table(out, [str(tmp_path / "bf16.jsonl"), str(tmp_path / "fp8.jsonl")])
    two = json.loads(out.read_text())
    assert two["configs"] == {dt: table["configs"][dt] for dt in ("bf16", "fp8")}
    assert "{bf16,fp8}" in two["provenance"]["command"] and "fp16" not in two["provenance"]["command"]


def test_compare_counts_fields_and_opcode_swaps(facts, tmp_path, capsys):
    base = {"config": "64x128x64 w4 s3", "registers": 168, "stack_bytes": 0, "shared_bytes": 40960,
            "loop_instructions": 4, "loop_latency_rounds": 1.01, "loop_constant_loads": 0,
            "kernel": dict.fromkeys(facts.OPCODES, 1), "loop": dict.fromkeys(facts.OPCODES, 1),
            "loop_opcodes": ["LDG.E.U16", "STS.U16", "HGMMA.64x128x16.F32.BF16", "BRA"]}
    other = base | {"loop_opcodes": ["LDG.E.U16", "STS.U16", "HGMMA.64x128x16.F32", "BRA"]}
    spilled = base | {"config": "16x32x32 w4 s2", "stack_bytes": 8}
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(json.dumps(base) + "\n" + json.dumps(spilled | {"stack_bytes": 0}) + "\n")
    b.write_text(json.dumps(other) + "\n" + json.dumps(spilled) + "\n")
    assert facts.compare(str(a), str(b)) == {"loop_opcodes": 1, "stack_bytes": 1}
    printed = capsys.readouterr().out
    assert "identical in every field compared: 0" in printed
    assert "HGMMA.64x128x16.F32.BF16 -> HGMMA.64x128x16.F32 at the same place in 1 configs" in printed
    assert facts.compare(str(a), str(a)) == {}
