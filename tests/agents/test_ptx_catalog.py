"""porter's inline-PTX catalog (agents/microarch/ptx_catalog.py) and its rules PTX002-PTX008.

The matcher must see through spelling (whitespace, %-escapes, named or numbered operands, braces,
string concatenation), rewrite only what it can compute exactly, and leave the rest to PTX001.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from porter import rules
from porter.agents.microarch import ptx_catalog
from porter.agents.microarch.ptx_entries import perm_selector, sleep_immediate
from porter.rules import RuleContext, run_rules
from porter.syntax import SourceFile

ROOT = Path(__file__).resolve().parents[2]
PTX_RULES = [r for r in rules.rules_for("microarch", "cuda") if r.id.startswith("PTX")]


def blocks(body: str) -> list[ptx_catalog.AsmBlock]:
    src = f"__device__ void f(const float* p, float* q, unsigned a, unsigned b, float x, float y, int pred) {{\n{body}\n}}\n"
    return ptx_catalog.blocks(SourceFile("k.cu", src.encode(), "cuda"))


def rewrite(body: str) -> tuple[str, str]:
    (block,) = blocks(body)
    assert block.rewrite is not None, block.reason
    return block.rewrite.rule, block.rewrite.text


@pytest.mark.parametrize("spelling", [
    'asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));',
    'asm("mov.u32 %0,%%laneid;" : "=r"(r));',
    '__asm__ __volatile__("  mov.u32   %0 ,  %%laneid ;  " : "=r"(r));',
    'asm volatile("{\\n\\tmov.u32 %0, %%laneid;\\n\\t}" : "=r"(r));',
    'asm volatile("mov.u32 " "%0, " "%%laneid;" : "=r"(r));',
    'asm volatile("mov.u32 %[lane], %%laneid; // lane id" : [lane] "=r"(r));',
    'asm volatile("mov.b32 %0, %%laneid" : "=r"(r));',
])
def test_spellings_of_one_block_match_one_entry(spelling: str) -> None:
    assert rewrite(spelling) == ("PTX002", "r = __lane_id()")


def test_operand_numbers_and_names_map_to_the_right_expressions() -> None:
    assert rewrite('asm("prmt.b32 %0, %2, %1, 0x5410;" : "=r"(r) : "r"(a), "r"(b));')[1] == \
        "r = __builtin_amdgcn_perm(a, b, 0x05040100u)"
    assert rewrite('asm("prmt.b32 %[d], %[x], %[y], 0x3210;" : [d] "=r"(r) : [y] "r"(b), [x] "r"(a + 1));')[1] == \
        "r = __builtin_amdgcn_perm(b, a + 1, 0x03020100u)"


def test_vote_through_predicate_registers_folds_into_one_expression() -> None:
    text = ('asm volatile("{ .reg .pred p, q; setp.ne.s32 p, %1, 0; vote.sync.any.pred q, p, %2; '
            'selp.u32 %0, 1, 0, q; }" : "=r"(r) : "r"(pred), "r"(0xffffffff));')
    assert rewrite(text) == ("PTX005", "r = __any(pred != 0) ? 1 : 0")
    assert rewrite('asm("{.reg .pred p; setp.eq.u32 p, %1, 0; vote.ballot.b32 %0, !p;}" : "=r"(r) : "r"(a));')[1] == \
        "r = __ballot(!(a == 0))"


@pytest.mark.parametrize(("c", "call"), [
    ("0x1f", "__shfl_xor(x, a)"),            # whole warp -> whole wave
    ("0x181f", "__shfl_xor(x, a, 8)"),       # ((32 - 8) << 8) | 0x1f: segments of 8 lanes
])
def test_shuffle_width_comes_from_the_clamp_operand(c: str, call: str) -> None:
    assert rewrite(f'asm("shfl.sync.bfly.b32 %0, %1, %2, {c}, 0xffffffff;" : "=f"(y) : "f"(x), "r"(a));')[1] == f"y = {call}"


@pytest.mark.parametrize("body", [
    'asm("shfl.sync.bfly.b32 %0, %1, %2, %3, 0xffffffff;" : "=f"(y) : "f"(x), "r"(a), "r"(b));',  # run-time clamp
    'asm("shfl.sync.down.b32 %0|p, %1, 1, 0x1f, -1;" : "=f"(y) : "f"(x));',  # predicate result
    'asm("shfl.sync.up.b32 %0, %1, 1, 0x1f, -1;" : "=f"(y) : "f"(x));',  # up with a down-style clamp
    'asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0}, {%1}, {%2}, {%3};" : "=f"(y) : "r"(a), "r"(b), "f"(x));',
    'asm("ld.global.nc.f32 %0, [%1+16];" : "=f"(y) : "l"(p));',  # offset address
    'asm("prmt.b32.f4e %0, %1, %2, 1;" : "=r"(r) : "r"(a), "r"(b));',  # prmt mode
    'asm("@p mov.u32 %0, %%laneid;" : "=r"(r));',  # guarded
    'asm("mov.u32 %0, %%nsmid;" : "=r"(r));',  # no counterpart
    'asm("{ .reg .pred p; setp.ne.s32 p, %1, 0; selp.s32 %0, 1, 0, p; }" : "=r"(r) : "r"(pred));',  # glue only
    'asm("ld.global.nc.f32 %0, [%1]; ld.global.nc.f32 %0, [%1];" : "=f"(y) : "l"(p++));',  # p++ twice
    'asm("mov.u32 %0, %w1;" : "=r"(r) : "r"(a));',  # operand modifier
    'asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(x));',  # %2 names no operand
])
def test_blocks_outside_the_catalog_stay_with_ptx001(body: str) -> None:
    (block,) = blocks(body)
    assert block.rewrite is None and block.reason
    head = "__device__ void f(const float* p, unsigned a, unsigned b, float x, int pred)"
    src = SourceFile("k.cu", f"{head} {{\n{body}\n}}\n".encode(), "cuda")
    result = run_rules(src, PTX_RULES, RuleContext(), agent="microarch")
    assert [f.rule for f in result.findings] == ["PTX001"]
    (finding,) = result.findings
    assert finding.detail == body.rstrip(";") and "not in porter's PTX catalog" in finding.message
    assert result.patch is None


def test_catalog_blocks_are_fixed_by_one_rule_and_not_reported_by_ptx001() -> None:
    body = "\n".join([
        'asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(r));',
        'asm volatile("ld.global.cs.f32 %0, [%1];" : "=f"(y) : "l"(p));',
        'asm volatile("nanosleep.u32 %0;" :: "r"(a));',
        'asm volatile("mov.u32 %0, %%nsmid;" : "=r"(r));',
    ])
    src = SourceFile("k.cu", f"__device__ void f(const float* p, unsigned a) {{\n{body}\n}}\n".encode(), "cuda")
    result = run_rules(src, PTX_RULES, RuleContext(), agent="microarch")
    assert sorted((f.rule, f.fixed) for f in result.findings) == [
        ("PTX001", False), ("PTX003", True), ("PTX004", True), ("PTX008", True)]
    out = result.patch.apply_to(src.data).decode()
    assert "r = ((1ull << __lane_id()) - 1);" in out and "__porter_nanosleep(a);" in out
    assert "y = __ldcs(reinterpret_cast<const float*>(p));" in out and "%%nsmid" in out


def test_side_effects_are_evaluated_once_and_memory_clobbers_stay_barriers() -> None:
    assert rewrite('asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(y) : "l"(p++));')[1] == \
        "y = __ldg(reinterpret_cast<const float*>(p++))"
    assert rewrite('asm volatile("st.global.cs.f32 [%0], %1;" :: "l"(q), "f"(x) : "memory");')[1] == (
        "__atomic_signal_fence(__ATOMIC_SEQ_CST), __stcs<float>(reinterpret_cast<float*>(q), x), "
        "__atomic_signal_fence(__ATOMIC_SEQ_CST)")


def test_constant_operands_pick_the_amdgcn_builtin_and_others_the_exact_helper() -> None:
    assert rewrite('asm("bfe.u32 %0, %1, 8, 4;" : "=r"(r) : "r"(a));')[1] == "r = __builtin_amdgcn_ubfe(a, 8, 4)"
    assert rewrite('asm("bfe.u32 %0, %1, 0, 32;" : "=r"(r) : "r"(a));')[1] == "r = __porter_bfe_u32(a, 0, 32)"
    assert rewrite('asm("bfe.s32 %0, %1, %2, 5;" : "=r"(r) : "r"(a), "r"(b));')[1] == "r = __porter_bfe_s32(a, b, 5)"
    assert rewrite('asm("prmt.b32 %0, %1, %2, 0x8880;" : "=r"(r) : "r"(a), "r"(b));')[1] == "r = __porter_prmt_b32(a, b, 0x8880)"
    assert rewrite('asm("nanosleep.u32 %0;" :: "n"(100000));')[1] == "__porter_nanosleep(100000)"


def _vperm(s0: int, s1: int, sel: int) -> int:
    """V_PERM_B32 as the AMD CDNA3 ISA defines it (bytes 0-3 from S1, 4-7 from S0)."""
    x = (s0 << 32) | s1
    out = 0
    for i in range(4):
        code = (sel >> (8 * i)) & 0xFF
        if code >= 13:
            byte = 0xFF
        elif code == 12:
            byte = 0
        elif code >= 8:
            byte = 0xFF if (x >> (15 + 16 * (code - 8))) & 1 else 0
        else:
            byte = (x >> (8 * code)) & 0xFF
        out |= byte << (8 * i)
    return out


def _prmt(a: int, b: int, c: int) -> int:
    """PTX prmt.b32, default mode (PTX ISA 8.5, "prmt")."""
    x = (b << 32) | a
    out = 0
    for i in range(4):
        nibble = (c >> (4 * i)) & 0xF
        byte = (x >> (8 * (nibble & 7))) & 0xFF
        if nibble & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * i)
    return out


def test_prmt_selector_reencoding_matches_v_perm_for_every_selector() -> None:
    rng = random.Random(7)
    for c in range(1 << 16):
        sel = perm_selector(c)
        if sel is None:
            assert any((c >> (4 * i)) & 0xF in (8, 10, 12, 14) for i in range(4))
            continue
        a, b = rng.getrandbits(32), rng.getrandbits(32)
        assert _vperm(b, a, sel) == _prmt(a, b, c), hex(c)


def test_sleep_immediates_stay_within_ptx_bounds() -> None:
    ns_per_unit = 64 / 2.2  # S_SLEEP unit at 2200 MHz
    for ns in range(0, 3700):
        n = sleep_immediate(ns)
        assert 0 <= n * ns_per_unit <= 2 * ns or n == 0


@pytest.mark.toolchain("clang")
def test_bit_helpers_match_the_ptx_definitions(tmp_path: Path) -> None:
    """shims/compat/ptx_bit_ops.h on the host, against Python models of the PTX ISA text."""
    from porter.toolchains.clang_hip import find_clang

    rng = random.Random(11)
    cases = [(rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(8), rng.getrandbits(8)) for _ in range(4000)]
    cases += [(0x80000001, 0xF0F0F0F0, p, n) for p in (0, 1, 31, 32, 255) for n in (0, 1, 31, 32, 33, 255)]
    main = tmp_path / "check.cpp"
    main.write_text('#define __host__\n#define __device__\n#include <cstdio>\n'
                    f'#include "{ROOT / "shims/compat/ptx_bit_ops.h"}"\n'
                    "int main() { unsigned a, b, p, n; while (scanf(\"%u %u %u %u\", &a, &b, &p, &n) == 4)"
                    " printf(\"%u %u %d %u\\n\", __porter_prmt_b32(a, b, p | (n << 8)), __porter_bfe_u32(a, p, n),"
                    " __porter_bfe_s32((int)a, p, n), __porter_bfi_b32(a, b, p, n)); }\n")
    exe = tmp_path / "check"
    subprocess.run([str(find_clang()), "-std=c++17", "-O1", str(main), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], input="\n".join(" ".join(map(str, c)) for c in cases), capture_output=True,
                         text=True, check=True).stdout.split("\n")
    for (a, b, p, n), line in zip(cases, out):
        assert line.split() == [str(v) for v in _ptx_reference(a, b, p, n)], (a, b, p, n)


def _ptx_reference(a: int, b: int, pos: int, length: int) -> tuple[int, int, int, int]:
    bits = [(a >> i) & 1 for i in range(32)]
    sbit = 0 if length == 0 else bits[min(pos + length - 1, 31)]
    u = sum(bits[pos + i] << i for i in range(32) if i < length and pos + i <= 31)
    s = sum((bits[pos + i] if i < length and pos + i <= 31 else sbit) << i for i in range(32))
    s = s - (1 << 32) if s >> 31 else s
    f = b
    for i in range(length):
        if pos + i > 31:
            break
        f = (f & ~(1 << (pos + i))) | (bits[i] << (pos + i))
    return _prmt(a, b, pos | (length << 8)), u, s, f & 0xFFFFFFFF


@pytest.mark.toolchain("clang")
def test_ptx_fixture_ports_without_inline_ptx_and_compiles_for_gfx950(tmp_path: Path) -> None:
    from porter.run import port
    from porter.state import PortOptions

    out = tmp_path / "out"
    state = port(ROOT / "fixtures" / "ptx_intrinsics", out, PortOptions())
    assert {u: r.verdict for u, r in state.units.items()} == {"ptx_kernels.cu": "compiled"}
    for path in [*out.glob("*.cu"), *out.glob("*.cuh")]:
        assert "asm" not in path.read_text(), path.name
    assert not [f for f in state.findings if f.rule == "PTX001"]
    fixed = {f.rule for f in state.findings if f.fixed}
    assert {"PTX002", "PTX003", "PTX004", "PTX005", "PTX006", "PTX007", "SHIM001", "SHIM010"} <= fixed
    header = (out / "porter_compat.h").read_text()
    assert "__porter_prmt_b32" in header and "__stcs" in header
