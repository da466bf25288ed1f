"""bench/hip_on_cuda_profile_read.py: parsing Nsight Compute's source page (SASS, CSV) and raw page.

The sample exports below are written by hand from the layout NVIDIA's Nsight Compute documentation
gives (the CLI's --page source --csv --print-source sass and --page raw --csv; the Source page's
per-instruction columns "Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall
Sampling (Not-issued Samples)", "Instructions Executed" and per-reason stall columns:
https://docs.nvidia.com/nsight-compute/NsightComputeCli/index.html,
https://docs.nvidia.com/nsight-compute/NsightCompute/index.html). They are NOT recorded from a
device: no ncu export of these kernels exists yet (bench/hip_on_cuda_profile_device.sh makes the
first). The figures are made up so that every sum below is exact.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("hoc_profile_read", ROOT / "bench" / "hip_on_cuda_profile_read.py")
assert _spec and _spec.loader
read = importlib.util.module_from_spec(_spec)
sys.modules["hoc_profile_read"] = read
_spec.loader.exec_module(read)

HEADER = ('"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)",'
          '"Instructions Executed","stall_long_sb","stall_long_sb (Not Issued)","stall_barrier","stall_wait","stall_branch_resolving"')

BALLOT = "\n".join([
    '"Kernel Name","void loop<3>(float *, int)"',
    HEADER,
    '"00007f3a 00000100","SYNCS.ARRIVE.TRANS64.ART0 RZ, [UR4], R2 ;","40","38","540672","0","0","0","40","0"',
    '"00007f3a 00000110","SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R3 ;","500","480","540672","0","0","450","50","0"',
    '"00007f3a 00000120","@!P0 BRA `(.L_x_12) ;","60","50","540672","0","0","0","10","50"',
    '"00007f3a 00000130","LDS.64 R4, [R6] ;","1,300","1,250","540672","1,200","1,100","0","100","0"',
    '"00007f3a 00000140","VOTE.ANY R7, PT, P1 ;","100","90","540672","0","0","0","100","0"',
    '"00007f3a 00000150","I2F.U64 R8, R4 ;","0","0","540672","","","","",""',
])
# The ballot loop: 2,000 samples. The shfl_xor loop: the same handshake, no vote, no conversion,
# 1,000 samples.
XOR = "\n".join([
    '"Kernel Name","void loop<1>(float *, int)"',
    HEADER,
    '"00007f3a 00000200","SYNCS.ARRIVE.TRANS64.ART0 RZ, [UR4], R2 ;","40","38","540672","0","0","0","40","0"',
    '"00007f3a 00000210","SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R3 ;","400","380","540672","0","0","360","40","0"',
    '"00007f3a 00000220","@!P0 BRA `(.L_x_9) ;","60","50","540672","0","0","0","10","50"',
    '"00007f3a 00000230","LDS R4, [R6] ;","500","490","540672","500","490","0","0","0"',
])
# --page raw --csv: a header row, a units row, one row per kernel result.
RAW_BALLOT = '"ID","Kernel Name","gpu__time_duration.sum"\n"","","usecond"\n"0","loop<3>","409.6"\n'
RAW_XOR = '"ID","Kernel Name","gpu__time_duration.sum"\n"","","nsecond"\n"0","loop<1>","204,800"\n'


def test_source_page_instructions_samples_and_reasons() -> None:
    p = read.parse_source_csv(BALLOT, "baseline:ballot")
    assert len(p.instructions) == 6
    assert p.samples == 2000
    wait = p.instructions[1]
    assert wait.opcode == "SYNCS.PHASECHK.TRANS64.TRYWAIT"
    assert wait.reasons == {"barrier": 450.0, "wait": 50.0}
    assert wait.not_issued == 480 and wait.executed == 540672
    lds = p.instructions[3]
    assert lds.samples == 1300 and lds.not_issued == 1250  # thousands separators read
    assert lds.reasons == {"long_sb": 1200.0, "wait": 100.0}  # the "(Not Issued)" column is not a reason of its own
    assert p.instructions[2].opcode == "BRA"  # the predicate @!P0 is not the opcode
    assert p.instructions[5].samples == 0 and p.instructions[5].reasons == {}  # empty cells are 0
    assert p.reason_names == ["barrier", "branch_resolving", "long_sb", "wait"]
    assert p.reason_totals() == {"wait": 300.0, "barrier": 450.0, "branch_resolving": 50.0, "long_sb": 1200.0}


def test_metric_named_reason_columns_and_a_header_not_on_the_second_row() -> None:
    text = ('"kernel","loop<3>"\n""\n"Address","Source","Warp Stall Sampling (All Samples)",'
            '"smsp__pcsamp_warps_issue_stalled_long_scoreboard","smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"\n'
            '"0x10","NOP ;","7","5","4"\n')
    p = read.parse_source_csv(text)
    assert p.label == "kernel loop<3>"
    assert p.instructions[0].reasons == {"long_scoreboard": 5.0}


def test_unreadable_exports_say_why() -> None:
    with pytest.raises(read.ProfileFormatError, match="Warp Stall Sampling"):
        read.parse_source_csv('"Address","Source","Instructions Executed"\n"0x10","NOP ;","3"\n', "x")
    with pytest.raises(read.ProfileFormatError, match="no header row"):
        read.parse_source_csv('"ID","Kernel Name"\n"0","loop"\n', "x")


def test_duration_from_the_raw_page_with_its_units_row() -> None:
    assert read.parse_duration_ns(RAW_BALLOT) == pytest.approx(409600.0)
    assert read.parse_duration_ns(RAW_XOR) == pytest.approx(204800.0)
    assert read.parse_duration_ns('"ID","Kernel Name"\n"0","loop"\n') is None


def test_ballot_against_xor_in_ns_per_iteration() -> None:
    ballot = read.parse_source_csv(BALLOT, "ballot")
    xor = read.parse_source_csv(XOR, "xor")
    ballot.duration_ns, xor.duration_ns = 409600.0, 204800.0  # 100 and 50 ns per iteration
    lines = read.compare(ballot, xor, 4096)
    assert "total 100.00 against 50.00" in lines[0]
    # ballot: 2,000 samples over 100 ns/iter = 0.05 ns a sample; xor: 1,000 over 50 = 0.05
    row = {line.split()[0]: line.split()[1:] for line in lines[1:] if line.split() and line.split()[0].isupper()}
    assert row["SYNCS.PHASECHK.TRANS64.TRYWAIT"] == ["25.00", "20.00", "+5.00"]
    assert row["VOTE.ANY"] == ["5.00", "0.00", "+5.00"]
    assert row["LDS"] == ["0.00", "25.00", "-25.00"]
    reasons = {line.split()[0]: line.split()[1:] for line in lines if line.split() and line.split()[0] in ("barrier", "long_sb")}
    assert reasons["barrier"] == ["22.50", "18.00", "+4.50"]
    assert reasons["long_sb"] == ["60.00", "25.00", "+35.00"]


def test_compare_without_a_duration_falls_back_to_shares() -> None:
    ballot = read.parse_source_csv(BALLOT, "ballot")
    xor = read.parse_source_csv(XOR, "xor")
    ballot.duration_ns = 409600.0
    lines = read.compare(ballot, xor, 4096)
    assert "% samples" in lines[0] and "total 100.00 against 100.00" in lines[0]


def test_folder_of_exports_and_the_default_comparisons(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "src_baseline_ballot.csv").write_text(BALLOT)
    (tmp_path / "raw_baseline_ballot.csv").write_text(RAW_BALLOT)
    (tmp_path / "src_baseline_xor_cross.csv").write_text(XOR)
    (tmp_path / "raw_baseline_xor_cross.csv").write_text(RAW_XOR)
    (tmp_path / "src_s8_a_ballot.csv").write_text(BALLOT.replace('"500","480"', '"700","680"'))
    (tmp_path / "src_native_down_full.csv").write_text('"Address","Source"\n"0x10","NOP ;"\n')  # no samples column
    profiles = read.load_dir(tmp_path)
    assert sorted(profiles) == [("baseline", "ballot"), ("baseline", "xor_cross"), ("s8_a", "ballot")]
    assert profiles[("baseline", "ballot")].duration_ns == pytest.approx(409600.0)
    assert profiles[("s8_a", "ballot")].duration_ns is None
    assert read.main([str(tmp_path), "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "UNREADABLE src_native_down_full.csv" in out
    assert "== baseline:ballot: 2000 samples, 409.6 us, 6 instructions" in out
    assert "== baseline:ballot against baseline:xor_cross (ns/iter" in out
    assert "== s8_a:ballot against baseline:ballot (% samples" in out
    assert read.main([str(tmp_path / "none")]) == 1
