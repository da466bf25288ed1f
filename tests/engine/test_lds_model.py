"""The LDS bank-conflict model (porter/lds.py) against hand-worked cases.

Facts used (module docstring of porter.lds has the sources): gfx942 has 32 banks of 4 B and serves
b32 / b64 / b128 accesses 32 / 16 / 8 lanes per phase; gfx950 is modelled with 64 banks (?) and
64 / 32 / 16 lanes per phase. bank = (address / 4) mod banks; one dword read by several lanes is
served once.
"""

from __future__ import annotations

import pytest

from porter import lds
from porter.lds import GFX942, GFX950, Layout, cells, conflict_degree, conflicts, layout_conflicts


def test_phases_follow_bytes_per_clock() -> None:
    # gfx942: 32 banks x 4 B = 128 B per phase; b128 is 8 phases of 8 lanes (AMD CK docs).
    assert [GFX942.lanes_per_phase(w) for w in (4, 8, 16)] == [32, 16, 8]
    assert [GFX942.phases(w) for w in (4, 8, 16)] == [2, 4, 8]
    assert [GFX950.lanes_per_phase(w) for w in (4, 8, 16)] == [64, 32, 16]
    with pytest.raises(ValueError):
        GFX942.lanes_per_phase(12)


def test_unit_stride_is_conflict_free_everywhere() -> None:
    # lane l reads dword l (b32), l*2..l*2+1 (b64), l*4..+3 (b128): a phase covers each bank once.
    for target in lds.TARGETS:
        for width in (4, 8, 16):
            assert conflict_degree(0, width, width, target) == 1


def test_stride_32_floats() -> None:
    # s[lane * 32]: dword 32*l, bank (32*l) mod 32 = 0 for every lane of a 32-lane phase: 32-way.
    assert conflicts(lds.affine(0, 128), 4, GFX942).per_phase == (32, 32)
    # gfx950: (32*l) mod 64 is 0 or 32, 64 lanes in one phase: 32 lanes per bank.
    assert conflicts(lds.affine(0, 128), 4, GFX950).per_phase == (32,)


def test_stride_33_floats_is_padding_that_works_for_1d() -> None:
    # 33 is odd, so 33*l mod 32 and 33*l mod 64 are permutations over a phase.
    assert conflict_degree(0, 132, 4, GFX942) == 1
    assert conflict_degree(0, 132, 4, GFX950) == 1


def test_stride_2_floats_b32_is_2_way() -> None:
    # dword 2l: lanes l and l+16 share bank 2l mod 32 within a 32-lane phase.
    assert conflict_degree(0, 8, 4, GFX942) == 2
    # gfx950: 2l mod 64, lanes l and l+32 of the one phase collide.
    assert conflict_degree(0, 8, 4, GFX950) == 2


def test_b128_with_padded_row_stride() -> None:
    # float4 at stride 33 dwords: lane l covers dwords 33l..33l+3, banks l..l+3 mod 32;
    # 8 lanes of a phase cover banks 0..10 with 4 lanes on banks 3..7: 4-way on gfx942.
    assert conflict_degree(0, 132, 16, GFX942) == 4
    # gfx950: 16 lanes per phase, banks (33l + i) mod 64 = l + i + 32*(l odd)... 2-way at worst.
    assert conflict_degree(0, 132, 16, GFX950) == 2


def test_broadcast_and_inactive_lanes() -> None:
    assert conflicts([0] * 64, 4, GFX942).degree == 1  # one dword, one read
    half = [4 * lane if lane < 32 else None for lane in range(64)]
    assert conflicts(half, 4, GFX942).per_phase == (1, 0)
    with pytest.raises(ValueError):
        conflicts([0] * 32, 4, GFX942)


# The (32, 8)-block transpose: wave 0 is threadIdx.y in {0, 1}, threadIdx.x in 0..31.
BLOCK = (32, 8, 1)
STORE = cells(BLOCK, lambda x, y, z: (y, x))  # tile[ty][tx]
LOAD = cells(BLOCK, lambda x, y, z: (x, y))  # tile[tx][ty]


def test_padded_transpose_tile_on_both_targets() -> None:
    tile = Layout(32, 33, 4)
    # gfx942: each half-wave is its own phase; store dwords 33*y + x are 32 consecutive banks,
    # load dwords 33*x + y have banks (x + y) mod 32, distinct: conflict-free, as on NVIDIA.
    assert layout_conflicts(tile, STORE, GFX942).per_phase == (1, 1)
    assert layout_conflicts(tile, LOAD, GFX942).per_phase == (1, 1)
    # gfx950: one 64-lane phase. Store: row 0 is dwords 0..31 (banks 0..31), row 1 dwords 33..64,
    # and dword 64 (x=31, y=1) is bank 0 again, with dword 0: 2-way. Load: dword 33x + y; lane
    # (x=0, y=0) reads dword 0 and lane (x=31, y=1) dword 1024, both bank 0: 2-way.
    assert layout_conflicts(tile, STORE, GFX950).degree == 2
    assert layout_conflicts(tile, LOAD, GFX950).degree == 2


def test_unpadded_tile_column_read_is_16_way_on_gfx950() -> None:
    tile = Layout(32, 32, 4)
    assert layout_conflicts(tile, STORE, GFX950).degree == 1  # rows 0 and 1: banks 0..31, 32..63
    # load: dword 32x + y, bank (32x + y) mod 64 in {y, y + 32}: 16 x per bank.
    assert layout_conflicts(tile, LOAD, GFX950).degree == 16
    assert layout_conflicts(tile, LOAD, GFX942).degree == 32


def test_xor_swizzle_is_conflict_free_for_the_transpose() -> None:
    # col' = col ^ (row % 32). Load: dword 32x + (y ^ x), bank (y ^ x) + 32*(x & 1): within a
    # row y the y ^ x are distinct; between rows y and y+1 a clash needs x' = x ^ y ^ (y+1),
    # whose low bit differs from x's, so the +32 differs: no bank holds two.
    swz = Layout(32, 32, 4, xor=32)
    for target in lds.TARGETS:
        assert layout_conflicts(swz, STORE, target).degree == 1
        assert layout_conflicts(swz, LOAD, target).degree == 1
    assert swz.bytes == 32 * 32 * 4
    with pytest.raises(ValueError):
        Layout(32, 32, 4, xor=24)


def test_best_rewrite_prefers_the_swizzle_for_the_padded_transpose() -> None:
    now, best = lds.best_rewrite(Layout(32, 33, 4), 32, [STORE, LOAD])
    assert now.degrees == {"gfx950": (2, 2), "gfx942": (1, 1)}
    assert best is not None and best.layout == Layout(32, 32, 4, xor=32)
    assert best.degrees == {"gfx950": (1, 1), "gfx942": (1, 1)}


def test_best_rewrite_prefers_padding_when_it_suffices() -> None:
    # rows[lane][k] with rows of 32 floats and a 64-thread block: 32-way; padding to 33 fixes
    # both targets (33 odd), the swizzle leaves lanes l and l+32 on one gfx950 bank (2-way).
    col = cells((64, 1, 1), lambda x, y, z: (x, 0))
    now, best = lds.best_rewrite(Layout(64, 32, 4), 32, [col])
    assert now.degrees == {"gfx950": (32,), "gfx942": (32,)}
    assert best is not None and best.layout == Layout(64, 33, 4)
    assert lds.score(Layout(64, 32, 4, xor=32), [col]).degrees["gfx950"] == (2,)


def test_nothing_beats_a_conflict_free_layout() -> None:
    row = cells((64, 1, 1), lambda x, y, z: (0, x))
    assert lds.best_rewrite(Layout(4, 64, 4), 64, [row])[1] is None
