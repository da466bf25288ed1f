"""The gfx950 helpers' lane layouts (shims/compat/mfma_gfx950.h), checked numerically without a GPU.

`Wave` runs the helpers' index arithmetic, transcribed line for line from the header, on a model
of v_mfma_f32_16x16x32 with AMD's published operand layout (lane l, element i, register j):
a: P[l % 16][8 (l // 16) + i]; b: Q[8 (l // 16) + i][l % 16]; acc: D[4 (l // 16) + j][l % 16]
(AMD ROCm blog "Matrix Core Programming on AMD CDNA3 and CDNA4 architecture"; CDNA4 ISA guide,
ch. 7). NVIDIA's side (mma.m16n8k16 fragments, ldmatrix) follows the PTX ISA. A wrong lane or
element anywhere makes load -> MFMA -> store differ from A @ B + C here.
"""

from __future__ import annotations

import numpy as np
import pytest

LANES = 64


def mfma_16x16x32(p: np.ndarray, q: np.ndarray, c: np.ndarray) -> np.ndarray:
    """One v_mfma_f32_16x16x32: p, q (64, 8) and c (64, 4) per lane -> d (64, 4) per lane."""
    P, Q = np.zeros((16, 32)), np.zeros((32, 16))
    C = np.zeros((16, 16))
    for lane in range(LANES):
        for i in range(8):
            P[lane % 16, 8 * (lane // 16) + i] = p[lane, i]
            Q[8 * (lane // 16) + i, lane % 16] = q[lane, i]
        for j in range(4):
            C[4 * (lane // 16) + j, lane % 16] = c[lane, j]
    D = P @ Q + C
    return np.array([[D[4 * (lane // 16) + j, lane % 16] for j in range(4)] for lane in range(LANES)])


class Wave:
    """A wave64 running the helpers; `active` lists the halves that reach the call."""

    def __init__(self, active: tuple[int, ...] = (0, 1)) -> None:
        self.active = active

    def lanes(self):
        return [lane for lane in range(LANES) if lane >> 5 in self.active]

    @staticmethod
    def p_row_lane(lane: int) -> bool:
        return ((lane >> 3) & 1) == ((lane >> 5) & 1)

    def half_wave_step(self, p: np.ndarray, q: np.ndarray, c: np.ndarray) -> np.ndarray:
        if self.active == (0, 1):
            return mfma_16x16x32(p, q, c)
        d = c.copy()
        for lane in self.lanes():  # half_alone: this half's lanes only
            r, base, h, col = lane & 31, lane & 32, lane >> 5, lane & 15
            for kb in range(2):
                qv = q[base + 16 * kb + col]
                for j in range(4):
                    pv = p[base + 16 * kb + 8 * h + 4 * (r >> 4) + j]
                    d[lane, j] += float(np.dot(pv, qv))
        return d

    # nvcuda::wmma 16x16x16 (row-major A, column-major B, row-major C), per half h the matrices of warp h
    def wmma_load(self, A: list[np.ndarray], B: list[np.ndarray], C: list[np.ndarray] | None = None):
        """load_matrix_sync of warp h's A, B (and C) in half h: fragments af (64, 8), bf (64, 8), acc (64, 8)."""
        af, bf, acc = np.zeros((LANES, 8)), np.zeros((LANES, 8)), np.zeros((LANES, 8))
        stale = np.random.default_rng(0).normal(size=(LANES, 16))
        af[:], bf[:], acc[:] = stale[:, 8:], stale[:, :8], stale[:, 8:]  # what inactive lanes hold
        for lane in self.lanes():
            h, r = lane >> 5, lane & 31
            for i in range(8):
                af[lane, i] = A[h][r & 15, 8 * (r >> 4) + i]
            for i in range(8):
                bf[lane, i] = B[h][8 * (r >> 4) + i, r & 15]
            if C is not None:
                for s in range(2):
                    for j in range(4):
                        acc[lane, 4 * s + j] = C[h][8 * s + 4 * (r >> 4) + j, r & 15]
        return af, bf, acc

    def slab_rows(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """porter_mfma::slab_rows: the padded A operands of slabs 0 and 1 from the full-layout A."""
        lo, hi = np.zeros_like(a), np.zeros_like(a)
        for lane in range(LANES):
            h, mine = (lane >> 5) & 1, self.p_row_lane(lane)
            own, other = a[lane], a[lane ^ 8]  # ds_bpermute from lane ^ 8, within the half
            lo[lane] = (other if h else own) if mine else 0.0
            hi[lane] = (own if h else other) if mine else 0.0
        return lo, hi

    def mma_sync(self, af: np.ndarray, bf: np.ndarray, acc: np.ndarray) -> np.ndarray:
        out = acc.copy()
        slabs = self.slab_rows(af)
        for s in range(2):
            out[:, 4 * s:4 * s + 4] = self.half_wave_step(slabs[s], bf, acc[:, 4 * s:4 * s + 4])
        return out

    @staticmethod
    def swap32(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """v_permlane32_swap: x's upper 32 lanes trade places with y's lower 32 lanes."""
        return np.concatenate([x[:32], y[:32]]), np.concatenate([x[32:], y[32:]])

    def mma_sync_k32(self, af0, bf0, af1, bf1, acc) -> np.ndarray:
        """porter_wmma::mma_sync_k32: two K steps, one full-K MFMA per warp (paired_steps)."""
        lo, hi = acc[:, :4].copy(), acc[:, 4:].copy()
        if self.active == (0, 1):
            a0, a1 = self.swap32(af0, af1)  # the fragments are the MFMA's A layout over K 0..15
            b0, b1 = self.swap32(bf0, bf1)
            d0, d1 = self.swap32(lo, hi)
            lo, hi = self.swap32(mfma_16x16x32(a0, b0, d0), mfma_16x16x32(a1, b1, d1))
        else:  # steps_alone: half_alone on each step's slabs
            (s00, s01), (s10, s11) = self.slab_rows(af0), self.slab_rows(af1)
            lo = self.half_wave_step(s00, bf0, lo)
            hi = self.half_wave_step(s01, bf0, hi)
            lo = self.half_wave_step(s10, bf1, lo)
            hi = self.half_wave_step(s11, bf1, hi)
        return np.concatenate([lo, hi], axis=1)

    def wmma_store(self, acc: np.ndarray) -> list[np.ndarray]:
        result = [np.full((16, 16), np.nan), np.full((16, 16), np.nan)]
        for lane in self.lanes():
            h, r = lane >> 5, lane & 31
            for s in range(2):
                for j in range(4):
                    result[h][8 * s + 4 * (r >> 4) + j, r & 15] = acc[lane, 4 * s + j]
        return result

    def wmma(self, A: list[np.ndarray], B: list[np.ndarray], C: list[np.ndarray]) -> list[np.ndarray]:
        af, bf, acc = self.wmma_load(A, B, C)
        return self.wmma_store(self.mma_sync(af, bf, acc))

    # mma.sync m16n8k16 with NVIDIA fragments: regs[h] = (a (32, 4, 2), b (32, 2, 2), c (32, 4)) per thread
    def mma_m16n8k16(self, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        """a (64, 4, 2), b (64, 2, 2), c (64, 4) per lane (16-bit pairs as two floats) -> d (64, 4)."""
        p, q, acc = np.zeros((LANES, 8)), np.zeros((LANES, 8)), np.zeros((LANES, 4))
        for lane in self.lanes():
            r, base, kb, m, n = lane & 31, lane & 32, (lane & 31) >> 4, lane & 15, lane & 7
            for qq in range(4):
                bsrc = base + 4 * n + qq
                lo, hi = b[bsrc, 0], b[bsrc, 1]
                p[lane, 2 * qq:2 * qq + 2] = (hi if kb else lo) if self.p_row_lane(lane) else 0.0
                asrc = base + 4 * (m & 7) + qq
                q[lane, 2 * qq:2 * qq + 2] = a[asrc, (m >> 3) + 2 * kb]
            for j in range(4):
                src = base + 4 * (m & 7) + 2 * kb + (j >> 1)
                lo, hi = c[src, j & 1], c[src, 2 + (j & 1)]
                acc[lane, j] = hi if m >> 3 else lo
        out = self.half_wave_step(p, q, acc)
        d = np.full((LANES, 4), np.nan)
        for lane in self.lanes():
            r, base = lane & 31, lane & 32
            g, qd = r >> 2, r & 3
            for i in range(4):
                mm, nn = g + 8 * (i >> 1), 2 * qd + (i & 1)
                src = base + 16 * (nn >> 2) + mm
                v0, v1 = out[src, i & 1], out[src, 2 + (i & 1)]
                d[lane, i] = v1 if qd & 1 else v0
        return d

    # porter_mma_m16n16k32: four m16n8k16 steps (k0 n0, k0 n1, k1 n0, k1 n1) as two full-K MFMAs
    @staticmethod
    def operand_rounds(x: list[np.ndarray]) -> np.ndarray:
        """porter_mfma::operand_rounds: x = 4 registers (64, 2) -> the MFMA operand (64, 8), K permuted."""
        w = np.zeros((LANES, 4, 2))
        for lane in range(LANES):
            r, m = lane & 31, lane & 15
            rho, src = m >> 3, (lane & 32) + 4 * (m & 7) + 2 * (r >> 4)
            for hk in range(2):
                lo, hi = x[2 * hk], x[2 * hk + 1]
                s0, s1 = src + rho, src + (rho ^ 1)  # the sender picks by its own lane's parity
                got0 = hi[s0] if s0 & 1 else lo[s0]
                got1 = lo[s1] if s1 & 1 else hi[s1]
                w[lane, 2 * hk] = got1 if rho else got0
                w[lane, 2 * hk + 1] = got0 if rho else got1
        return w.reshape(LANES, 8)

    @staticmethod
    def acc_rounds(x: list[np.ndarray]) -> np.ndarray:
        out = np.zeros((LANES, 4))
        for lane in range(LANES):
            r, n = lane & 31, lane & 15
            kb, cls = r >> 4, 2 * (n >> 3) + (n & 1)
            got = []
            for b in range(4):
                j = (cls - b) & 3
                src = (lane & 32) + 4 * (4 * kb + j) + ((n & 7) >> 1)
                got.append(x[(b + ((src & 31) >> 2)) & 3][src])  # the sender's row g picks the register
            for j in range(4):
                out[lane, j] = got[(cls - j) & 3]
        return out

    @staticmethod
    def acc_unrounds(d: np.ndarray) -> list[np.ndarray]:
        x = [np.zeros(LANES) for _ in range(4)]
        for lane in range(LANES):
            r = lane & 31
            g, q = r >> 2, r & 3
            got = []
            for b in range(4):
                k = (b + g) & 3
                src = (lane & 32) + 16 * (g >> 2) + 8 * (k >> 1) + 2 * q + (k & 1)
                sn = src & 15
                got.append(d[src, (2 * (sn >> 3) + (sn & 1) - b) & 3])  # the sender's class picks the row
            for k in range(4):
                x[k][lane] = got[(k - g) & 3]
        return x

    def mma_m16n16k32(self, a0, a1, b00, b01, b10, b11, c0, c1) -> tuple[np.ndarray, np.ndarray]:
        """a_k (64, 4, 2), b_kn (64, 2, 2), c_n (64, 4) -> c_n after k0 n0, k0 n1, k1 n0, k1 n1."""
        if self.active != (0, 1):
            c0 = self.mma_m16n8k16(a0, b00, c0)
            c1 = self.mma_m16n8k16(a0, b01, c1)
            c0 = self.mma_m16n8k16(a1, b10, c0)
            return c0, self.mma_m16n8k16(a1, b11, c1)
        p0 = self.operand_rounds([a0[:, i] for i in range(4)])
        p1 = self.operand_rounds([a1[:, i] for i in range(4)])
        q0 = self.operand_rounds([b00[:, 0], b01[:, 0], b00[:, 1], b01[:, 1]])
        q1 = self.operand_rounds([b10[:, 0], b11[:, 0], b10[:, 1], b11[:, 1]])
        lo = self.acc_rounds([c0[:, 0], c0[:, 1], c1[:, 0], c1[:, 1]])
        hi = self.acc_rounds([c0[:, 2], c0[:, 3], c1[:, 2], c1[:, 3]])
        x0, x1 = self.swap32(p0, p1)  # porter_mfma::paired_steps
        y0, y1 = self.swap32(q0, q1)
        d0, d1 = self.swap32(lo, hi)
        lo, hi = self.swap32(mfma_16x16x32(x0, y0, d0), mfma_16x16x32(x1, y1, d1))
        out_lo, out_hi = self.acc_unrounds(lo), self.acc_unrounds(hi)
        c0 = np.stack([out_lo[0], out_lo[1], out_hi[0], out_hi[1]], axis=1)
        c1 = np.stack([out_lo[2], out_lo[3], out_hi[2], out_hi[3]], axis=1)
        return c0, c1

    def ldmatrix(self, lds: np.ndarray, addr: np.ndarray, count: int, trans: bool) -> np.ndarray:
        """lds: 16-bit words by element offset; addr (64,) element offsets -> regs (64, count, 2)."""
        regs = np.full((LANES, count, 2), np.nan)
        for lane in self.lanes():
            base, g, q = lane & 32, (lane & 31) >> 2, lane & 3
            for i in range(count):
                if not trans:
                    row = addr[base + 8 * i + g]
                    regs[lane, i] = lds[row + 2 * q], lds[row + 2 * q + 1]
                else:
                    row0, row1 = addr[base + 8 * i + 2 * q], addr[base + 8 * i + 2 * q + 1]
                    regs[lane, i] = lds[row0 + g], lds[row1 + g]
        return regs


def nvidia_mma_fragments(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per-thread mma.m16n8k16 fragments of one warp (PTX ISA, floating-point fragments for m16n8k16)."""
    a, b, c = np.zeros((32, 4, 2)), np.zeros((32, 2, 2)), np.zeros((32, 4))
    for t in range(32):
        g, q = t >> 2, t & 3
        for p in range(4):
            for e in range(2):
                a[t, p, e] = A[g + 8 * (p & 1), 2 * q + 8 * (p >> 1) + e]
        for p in range(2):
            for e in range(2):
                b[t, p, e] = B[2 * q + 8 * p + e, g]
        for i in range(4):
            c[t, i] = C[g + 8 * (i >> 1), 2 * q + (i & 1)]
    return a, b, c


RNG = np.random.default_rng(2026)


def small(shape):
    """Values exact in f16 and bf16, so every product and sum is exact in float64."""
    return RNG.integers(-8, 9, size=shape) / 8.0


def test_mfma_model_is_a_16x16x32_product() -> None:
    P, Q, C = small((16, 32)), small((32, 16)), small((16, 16))
    p = np.array([[P[lane % 16, 8 * (lane // 16) + i] for i in range(8)] for lane in range(LANES)])
    q = np.array([[Q[8 * (lane // 16) + i, lane % 16] for i in range(8)] for lane in range(LANES)])
    c = np.array([[C[4 * (lane // 16) + j, lane % 16] for j in range(4)] for lane in range(LANES)])
    d = mfma_16x16x32(p, q, c)
    D = P @ Q + C
    for lane in range(LANES):
        for j in range(4):
            assert d[lane, j] == D[4 * (lane // 16) + j, lane % 16]


@pytest.mark.parametrize("active", [(0, 1), (0,), (1,)], ids=["both-warps", "warp0-alone", "warp1-alone"])
def test_wmma_16x16x16_per_warp(active) -> None:
    A = [small((16, 16)) for _ in range(2)]
    B = [small((16, 16)) for _ in range(2)]
    C = [small((16, 16)) for _ in range(2)]
    got = Wave(active).wmma(A, B, C)
    for h in active:
        np.testing.assert_array_equal(got[h], A[h] @ B[h] + C[h])


@pytest.mark.parametrize("active", [(0, 1), (0,), (1,)], ids=["both-warps", "warp0-alone", "warp1-alone"])
def test_wmma_paired_k_steps_per_warp(active) -> None:
    """mma_sync_k32 (MFMA005's paired K loop): A0 B0 + A1 B1 + C for each warp, exactly."""
    A0, A1 = [small((16, 16)) for _ in range(2)], [small((16, 16)) for _ in range(2)]
    B0, B1 = [small((16, 16)) for _ in range(2)], [small((16, 16)) for _ in range(2)]
    C = [small((16, 16)) for _ in range(2)]
    wave = Wave(active)
    af0, bf0, acc = wave.wmma_load(A0, B0, C)
    af1, bf1, _ = wave.wmma_load(A1, B1)
    got = wave.wmma_store(wave.mma_sync_k32(af0, bf0, af1, bf1, acc))
    for h in active:
        np.testing.assert_array_equal(got[h], A0[h] @ B0[h] + A1[h] @ B1[h] + C[h])


def test_wmma_paired_equals_two_unpaired_steps_in_float32() -> None:
    """On values that round: the paired form is the unpaired form's products, summed in another order."""
    rng = np.random.default_rng(18)
    wave = Wave()
    mats = [[rng.normal(size=(16, 16)).astype(np.float16).astype(np.float32) for _ in range(2)] for _ in range(4)]
    C = [rng.normal(size=(16, 16)).astype(np.float32) for _ in range(2)]
    af0, bf0, acc = wave.wmma_load(mats[0], mats[1], C)
    af1, bf1, _ = wave.wmma_load(mats[2], mats[3])
    paired = wave.wmma_store(wave.mma_sync_k32(af0, bf0, af1, bf1, acc))
    unpaired = wave.wmma_store(wave.mma_sync(af1, bf1, wave.mma_sync(af0, bf0, acc)))
    for h in range(2):
        np.testing.assert_allclose(paired[h], unpaired[h], rtol=1e-5, atol=1e-5)
        assert not np.array_equal(paired[h], np.zeros((16, 16)))


@pytest.mark.parametrize("active", [(0, 1), (0,), (1,)], ids=["both-warps", "warp0-alone", "warp1-alone"])
def test_mma_m16n8k16_nvidia_fragments(active) -> None:
    mats = [(small((16, 16)), small((16, 8)), small((16, 8))) for _ in range(2)]
    frags = [nvidia_mma_fragments(*m) for m in mats]
    a = np.concatenate([f[0] for f in frags])
    b = np.concatenate([f[1] for f in frags])
    c = np.concatenate([f[2] for f in frags])
    d = Wave(active).mma_m16n8k16(a, b, c)
    for h in active:
        A, B, C = mats[h]
        _, _, want = nvidia_mma_fragments(A, B, A @ B + C)
        np.testing.assert_array_equal(d[32 * h:32 * h + 32], want)


@pytest.mark.parametrize("count", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix(count: int, trans: bool) -> None:
    stride = 24  # padded rows, as kernels use against bank conflicts
    lds = RNG.normal(size=64 * stride)
    rows = RNG.permutation(64)  # any row may live anywhere
    addr = np.array([rows[lane] * stride for lane in range(LANES)])
    regs = Wave().ldmatrix(lds, addr, count, trans)
    for lane in range(LANES):
        base, g, q = lane & 32, (lane & 31) >> 2, lane & 3
        for i in range(count):
            M = np.array([lds[addr[base + 8 * i + row]:addr[base + 8 * i + row] + 8] for row in range(8)])
            want = (M[2 * q, g], M[2 * q + 1, g]) if trans else (M[g, 2 * q], M[g, 2 * q + 1])
            assert tuple(regs[lane, i]) == want


def test_ldmatrix_feeds_mma_like_the_cuda_kernel() -> None:
    """ldmatrix.x4 of A (16x16) and ldmatrix.x2.trans of B (16x8) row-major tiles, then mma."""
    A, B, C = small((16, 16)), small((16, 8)), small((16, 8))
    lds = np.concatenate([A.ravel(), B.ravel()])
    wave = Wave((0,))
    lane_ids = np.arange(LANES) & 31
    a_addr = (lane_ids % 16) * 16 + (lane_ids // 16) * 8  # threads 0-15 rows, 16-31 the k+8 half
    b_addr = 256 + (lane_ids % 16) * 8
    a = wave.ldmatrix(lds, a_addr, 4, False)
    b = wave.ldmatrix(lds, b_addr, 2, True)
    c = np.zeros((LANES, 4))
    _, _, c[:32] = nvidia_mma_fragments(A, B, C)
    d = wave.mma_m16n8k16(a, b, c)
    _, _, want = nvidia_mma_fragments(A, B, A @ B + C)
    np.testing.assert_array_equal(d[:32], want)


def _four_step_problem(rng_values):
    """Per warp: A_k (16x16), B_k,n (16x8), C_n (16x8) for k, n in 0, 1, and the NVIDIA fragments of both warps."""
    mats = [{"A": [rng_values((16, 16)) for _ in range(2)],
             "B": [[rng_values((16, 8)) for _ in range(2)] for _ in range(2)],
             "C": [rng_values((16, 8)) for _ in range(2)]} for _ in range(2)]
    frag = {}
    for k in range(2):
        frag[f"a{k}"] = np.concatenate([nvidia_mma_fragments(w["A"][k], w["B"][k][0], w["C"][0])[0] for w in mats])
        for n in range(2):
            frag[f"b{k}{n}"] = np.concatenate([nvidia_mma_fragments(w["A"][k], w["B"][k][n], w["C"][n])[1]
                                              for w in mats])
    for n in range(2):
        frag[f"c{n}"] = np.concatenate([nvidia_mma_fragments(w["A"][0], w["B"][0][n], w["C"][n])[2] for w in mats])
    return mats, frag


@pytest.mark.parametrize("active", [(0, 1), (0,), (1,)], ids=["both-warps", "warp0-alone", "warp1-alone"])
def test_mma_m16n16k32_four_steps_per_warp(active) -> None:
    """porter_mma_m16n16k32 (MFMA006's paired K loop): C_n + A_0 B_0,n + A_1 B_1,n per warp, exactly,
    in NVIDIA's c registers of each n8 tile."""
    mats, f = _four_step_problem(small)
    c0, c1 = Wave(active).mma_m16n16k32(f["a0"], f["a1"], f["b00"], f["b01"], f["b10"], f["b11"], f["c0"], f["c1"])
    for h in active:
        w = mats[h]
        for n, got in enumerate((c0, c1)):
            D = w["C"][n] + w["A"][0] @ w["B"][0][n] + w["A"][1] @ w["B"][1][n]
            _, _, want = nvidia_mma_fragments(w["A"][0], w["B"][0][n], D)
            np.testing.assert_array_equal(got[32 * h:32 * h + 32], want)


def test_mma_m16n16k32_equals_four_unpaired_steps_in_float32() -> None:
    """On values that round: the paired helper is the four unpaired steps' products, summed in another order."""
    rng = np.random.default_rng(5)
    mats, f = _four_step_problem(lambda shape: rng.normal(size=shape).astype(np.float16).astype(np.float32))
    wave = Wave()
    c0, c1 = wave.mma_m16n16k32(f["a0"], f["a1"], f["b00"], f["b01"], f["b10"], f["b11"], f["c0"], f["c1"])
    u0 = wave.mma_m16n8k16(f["a1"], f["b10"], wave.mma_m16n8k16(f["a0"], f["b00"], f["c0"]))
    u1 = wave.mma_m16n8k16(f["a1"], f["b11"], wave.mma_m16n8k16(f["a0"], f["b01"], f["c1"]))
    np.testing.assert_allclose(c0, u0, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(c1, u1, rtol=1e-5, atol=1e-5)
    assert not np.array_equal(c0, f["c0"])
