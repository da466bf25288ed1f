// porter compat: NVIDIA tensor-core code (nvcuda::wmma 16x16x16, mma.sync m16n8k16, ldmatrix) on
// gfx950 (CDNA4) matrix cores, written by MFMA001-MFMA003 and pulled in by SHIM020.
//
// Warp -> wave mapping: a wave64 holds two 32-lane "warps" (lanes 0-31 and 32-63), so a block
// keeps its threads, its warps and its per-warp tiles, and `threadIdx.x / 32` still names the
// warp. Each call is a collective of one 32-lane half; both halves of a wave issue one
// v_mfma_f32_16x16x32_{f16,bf16} together, each half owning its own rows of the result:
//
//   builtin operand a (16 x 32, "P"), b (32 x 16, "Q"), accumulator (16 x 16, "D") of
//   __builtin_amdgcn_mfma_f32_16x16x32_{f16,bf16}; lane l, element i (0..7), register j (0..3):
//     P[l % 16][8 * (l / 16) + i]     Q[8 * (l / 16) + i][l % 16]     D[4 * (l / 16) + j][l % 16]
//   Sources: AMD ROCm blog "Matrix Core Programming on AMD CDNA3 and CDNA4 architecture"
//   (rocm.blogs.amd.com/software-tools-optimization/matrix-cores-cdna, the 16x16x16 f16 layout,
//   whose K grows in 8-element steps per 16-lane group on the CDNA4 16x16x32 form), AMD CDNA4 ISA
//   reference guide ch. 7 "Matrix Arithmetic Instructions", cross-checked with IREE's
//   MFMA_F32_16x16x32_{F16,BF16} subgroup layout (thread {16,4}, element {1,8}; acc {4,16} x {4,1}).
//
//   So half h (lanes 32h..32h+31) supplies K rows 16h..16h+15 of Q and receives D rows 8h..8h+7.
//   Half h puts its own 8 x 16 problem there: P rows 8h..8h+7 over K 16h..16h+15 (other P
//   entries zero), Q rows 16h.. = its 16 x 16 right operand, D rows 8h.. = its result. No data
//   crosses halves, so one v_mfma computes two warps' independent 8 x 16 x 16 products. Where
//   only one half is active (the other warp left the branch), a VALU path computes the same
//   values from the active half alone; the MFMA is used only with the whole wave active.
//
//   That uses half of the instruction's K per warp. Two K steps of one warp fill all of it
//   (porter_wmma::mma_sync_k32, written by MFMA005 into a wmma K loop): one MFMA per warp, with
//   step k's operands in lanes 0-31 and step k + 1's in lanes 32-63, exchanged between the warps
//   by v_permlane32_swap (porter_mfma::paired_steps): 2 MFMAs per wave for 2 warps x K 32, where
//   unpaired steps issue 4.
//
// Under shims/hip_on_cuda (nvcc on an NVIDIA GPU, PORTER_HIP_ON_CUDA defined by its config.h) the
// same helpers build from the same text: only the operand vector types, the 16-bit element types
// and the LDS accesses differ (the `#if defined(PORTER_HIP_ON_CUDA)` branches below). There the
// vectors are porter_hoc::vec, and the builtins this header calls are hip_on_cuda's wave64
// emulations with AMD's lane layouts (porter_hoc/mfma.h: v_mfma_f32_16x16x32_{f16,bf16};
// porter_hoc/amdgcn.h: ds_bpermute, mbcnt, read_exec), so the index arithmetic that decides
// which lane holds which element is the gfx950 code itself, checked against AMD's layout.
//
// Define PORTER_NO_MFMA_HELPERS to supply your own.
#ifndef PORTER_NO_MFMA_HELPERS
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>

namespace porter_mfma {
// A warp of the ported code: half a wave64 (MFMA004 names the 32 of `threadIdx.x / 32` with it).
constexpr int warp_threads = 32;
constexpr int warp_shift = 5;

#if defined(PORTER_HIP_ON_CUDA)
// hip_on_cuda's operand types (aggregates with operator[], what its MFMA builtins take); the
// same sizes and element order as the ext_vector_type vectors, so __builtin_bit_cast between
// them moves the same bits to the same elements.
typedef porter_hoc::f16x8 f16x8;
typedef porter_hoc::bf16x8 bf16x8;
typedef porter_hoc::f32x4 f32x4;
typedef porter_hoc::vec<unsigned, 4> u32x4;
static_assert(sizeof(f16x8) == 16 && sizeof(bf16x8) == 16 && sizeof(f32x4) == 16 && sizeof(u32x4) == 16,
              "porter_hoc vectors must have the layout of the gfx950 ext_vector_type vectors");
#else
typedef _Float16 f16x8 __attribute__((ext_vector_type(8)));
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef unsigned u32x4 __attribute__((ext_vector_type(4)));
#endif

__device__ inline unsigned lane() { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
// The value `v` holds in lane `src` (0..63); ds_bpermute addresses lanes in bytes.
__device__ inline unsigned from_lane(unsigned v, unsigned src) {
  return static_cast<unsigned>(__builtin_amdgcn_ds_bpermute(static_cast<int>(src << 2), static_cast<int>(v)));
}
__device__ inline float from_lane(float v, unsigned src) {
  return __builtin_bit_cast(float, from_lane(__builtin_bit_cast(unsigned, v), src));
}

__device__ inline f32x4 mfma(f16x8 p, f16x8 q, f32x4 c) { return __builtin_amdgcn_mfma_f32_16x16x32_f16(p, q, c, 0, 0, 0); }
__device__ inline f32x4 mfma(bf16x8 p, bf16x8 q, f32x4 c) { return __builtin_amdgcn_mfma_f32_16x16x32_bf16(p, q, c, 0, 0, 0); }

// The same D rows of this half, from this half's lanes only (see the header comment). Rolled: it
// runs only where a wave is split.
template <typename V>
__device__ inline f32x4 half_alone_valu(V p, V q, f32x4 c) {
  const unsigned l = lane(), r = l & 31, base = l & 32, h = l >> 5, col = r & 15;
  const u32x4 pw = __builtin_bit_cast(u32x4, p), qw = __builtin_bit_cast(u32x4, q);
  f32x4 d = c;
#pragma unroll 1
  for (unsigned kb = 0; kb < 2; ++kb) {
    u32x4 qk;
    for (int w = 0; w < 4; ++w) qk[w] = from_lane(qw[w], base + 16 * kb + col);
    const V qv = __builtin_bit_cast(V, qk);
#pragma unroll 1
    for (int j = 0; j < 4; ++j) {
      u32x4 pk;
      for (int w = 0; w < 4; ++w) pk[w] = from_lane(pw[w], base + 16 * kb + 8 * h + 4 * (r >> 4) + j);
      const V pv = __builtin_bit_cast(V, pk);
      for (int i = 0; i < 8; ++i) d[j] += static_cast<float>(pv[i]) * static_cast<float>(qv[i]);
    }
  }
  return d;
}
// Out of line for mma_sync (and mma_m16n8k16): inlined there it costs the MFMA path registers (and
// spills) it never uses.
template <typename V>
__device__ __attribute__((noinline)) f32x4 half_alone(V p, V q, f32x4 c) { return half_alone_valu(p, q, c); }

// Both 8-row slabs of two K steps (mma_sync_k32) for a split wave, inline: a call in a paired K
// loop clobbers the caller-saved VGPRs the loop keeps its pointers in (clang 22 spilled them at
// the 128-VGPR limit of a 1024-thread kernel); the rolled VALU loops inline cost fewer registers
// than the MFMA path beside them needs.
struct acc8 {
  f32x4 lo, hi;
};
template <typename V>
__device__ inline acc8 steps_alone(V p0lo, V p0hi, V q0, V p1lo, V p1hi, V q1, acc8 c) {
  c.lo = half_alone_valu(p0lo, q0, c.lo);
  c.hi = half_alone_valu(p0hi, q0, c.hi);
  c.lo = half_alone_valu(p1lo, q1, c.lo);
  c.hi = half_alone_valu(p1hi, q1, c.hi);
  return c;
}

// D rows 8h..8h+7 = P rows 8h.. * Q rows 16h.. + C, for the half h this lane is in.
template <typename V>
__device__ inline f32x4 half_wave_step(V p, V q, f32x4 c) {
  if (__builtin_amdgcn_read_exec() == ~0ull) return mfma(p, q, c);
  return half_alone(p, q, c);
}

// The value `v` holds in lane l ^ 8, the other half of this lane's 16-lane row: DPP row_ror:8
// (AMD GCN/CDNA DPP row rotate, 0x120 + 8), a VALU move where ds_bpermute goes through the LDS
// crossbar. Under hip_on_cuda, the emulated ds_bpermute.
__device__ inline unsigned from_lane_xor8(unsigned v) {
#if defined(PORTER_HIP_ON_CUDA)
  return from_lane(v, lane() ^ 8u);
#else
  return static_cast<unsigned>(__builtin_amdgcn_update_dpp(0, static_cast<int>(v), 0x128, 0xf, 0xf, false));
#endif
}

// Whether this lane carries P rows for its own half: P row l % 16 lies in 8h..8h+7.
__device__ inline bool p_row_lane() { return ((lane() >> 3) & 1) == ((lane() >> 5) & 1); }

// The A operand of one half-wave step from a 16-row A in the full layout (lane r of half h holds
// row r % 16, K group r / 16): P rows 8h..8h+7 = A rows 8s..8s+7 of the slab s asked for, zero in
// the other half's P rows (the other half's D rows must get nothing from this half). Row
// 8s + (r % 8) lives in lane r with bit 3 set to s: this lane for s == h, lane r ^ 8 otherwise
// (from_lane_xor8: no ds_bpermute).
template <typename V>
__device__ inline void slab_rows(V a, V& slab0, V& slab1) {
  const unsigned l = lane(), h = (l >> 5) & 1;
  const bool mine = p_row_lane();
  const u32x4 own = __builtin_bit_cast(u32x4, a);
  u32x4 lo, hi;
  for (int w = 0; w < 4; ++w) {
    const unsigned other = from_lane_xor8(own[w]);
    lo[w] = mine ? (h ? other : own[w]) : 0u;
    hi[w] = mine ? (h ? own[w] : other) : 0u;
  }
  slab0 = __builtin_bit_cast(V, lo);
  slab1 = __builtin_bit_cast(V, hi);
}

// v_permlane32_swap (gfx950): x's upper 32 lanes trade places with y's lower 32 lanes, so that
// x holds (x, y) of lanes 0-31 and y holds (x, y) of lanes 32-63. Its own inverse.
__device__ inline void swap32(unsigned& x, unsigned& y) {
#if defined(PORTER_HIP_ON_CUDA)
  const unsigned l = lane(), from_x = from_lane(x, l ^ 32u), from_y = from_lane(y, l ^ 32u);
  const bool low = l < 32;
  x = low ? x : from_y;
  y = low ? from_x : y;
#else
  const auto r = __builtin_amdgcn_permlane32_swap(x, y, false, false);
  x = r[0];
  y = r[1];
#endif
}
__device__ inline void swap32(u32x4& x, u32x4& y) {
  for (int w = 0; w < 4; ++w) {
    unsigned a = x[w], b = y[w];
    swap32(a, b);
    x[w] = a;
    y[w] = b;
  }
}

// Two K steps of each warp's 16 x 16 tile as one full-K MFMA per warp (MFMA005 pairs the loop):
// D = A0 B0 + A1 B1 + C, where lane (h, r) holds warp h's step-t operands in the P/Q layout of
// K 0..15 (pt, qt: row r % 16, K group r / 16) and its C rows 0-7 / 8-15 in c0 / c1. MFMA w is
// warp w's problem, K 0..15 (step 0) from lanes 0-31 and K 16..31 (step 1) from lanes 32-63;
// its D rows 0-7 land in lanes 0-31, rows 8-15 in lanes 32-63. One v_permlane32_swap per
// register moves step 1 of warp 0 up and step 0 of warp 1 down (and C, D likewise), so the
// wave issues 2 MFMAs for 2 warps x K 32, where two half_wave_steps per K 16 issue 4.
template <typename V>
__device__ inline void paired_steps(f32x4& c0, f32x4& c1, V p0, V q0, V p1, V q1) {
  u32x4 a0 = __builtin_bit_cast(u32x4, p0), a1 = __builtin_bit_cast(u32x4, p1);
  u32x4 b0 = __builtin_bit_cast(u32x4, q0), b1 = __builtin_bit_cast(u32x4, q1);
  u32x4 d0 = __builtin_bit_cast(u32x4, c0), d1 = __builtin_bit_cast(u32x4, c1);
  swap32(a0, a1);
  swap32(b0, b1);
  swap32(d0, d1);
  u32x4 o0 = __builtin_bit_cast(u32x4, mfma(__builtin_bit_cast(V, a0), __builtin_bit_cast(V, b0),
                                            __builtin_bit_cast(f32x4, d0)));
  u32x4 o1 = __builtin_bit_cast(u32x4, mfma(__builtin_bit_cast(V, a1), __builtin_bit_cast(V, b1),
                                            __builtin_bit_cast(f32x4, d1)));
  swap32(o0, o1);
  c0 = __builtin_bit_cast(f32x4, o0);
  c1 = __builtin_bit_cast(f32x4, o1);
}

template <typename T> struct element;
#if defined(PORTER_HIP_ON_CUDA)
// porter_hoc's vectors hold CUDA's __half / __nv_bfloat16 (= __hip_bfloat16 there) themselves.
template <> struct element<__half> { typedef f16x8 vec; typedef __half raw; };
template <> struct element<__hip_bfloat16> { typedef bf16x8 vec; typedef __hip_bfloat16 raw; };
#else
template <> struct element<__half> { typedef f16x8 vec; typedef _Float16 raw; };
template <> struct element<__hip_bfloat16> { typedef bf16x8 vec; typedef __bf16 raw; };
#endif

template <typename T>
__device__ inline typename element<T>::vec pack8(const T* x) {
  typename element<T>::vec v;
  for (int i = 0; i < 8; ++i) v[i] = __builtin_bit_cast(typename element<T>::raw, x[i]);
  return v;
}
}  // namespace porter_mfma

// nvcuda::wmma, 16x16x16 with __half or __hip_bfloat16 inputs and float accumulators.
// Fragment contents per lane (r = lane % 32, h = lane / 32, s = 8-row slab 0/1):
//   matrix_a    x[i]      = A[r % 16][8 * (r / 16) + i]   (the MFMA's own A layout over K 0..15, which
//               mma_sync_k32 feeds as it is; mma_sync regathers 8-row slabs, porter_mfma::slab_rows)
//   matrix_b    x[i]      = B[8 * (r / 16) + i][r % 16]
//   accumulator x[4s + j] = C[8s + 4 * (r / 16) + j][r % 16]
namespace porter_wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <typename Use, int M, int N, int K, typename T, typename Layout = void> struct fragment;

template <typename T, typename Layout> struct fragment<matrix_a, 16, 16, 16, T, Layout> {
  static constexpr int num_elements = 8;
  T x[8];
};
template <typename T, typename Layout> struct fragment<matrix_b, 16, 16, 16, T, Layout> {
  static constexpr int num_elements = 8;
  T x[8];
};
template <> struct fragment<accumulator, 16, 16, 16, float, void> {
  static constexpr int num_elements = 8;
  float x[8];
};

__device__ inline unsigned at(unsigned row, unsigned col, unsigned ldm, bool row_major_) {
  return row_major_ ? row * ldm + col : row + col * ldm;
}

template <typename T, typename Layout>
__device__ inline void load_matrix_sync(fragment<matrix_a, 16, 16, 16, T, Layout>& f, const T* p, unsigned ldm) {
  const unsigned r = porter_mfma::lane() & 31;
  for (int i = 0; i < 8; ++i) f.x[i] = p[at(r & 15, 8 * (r >> 4) + i, ldm, __is_same(Layout, row_major))];
}
template <typename T, typename Layout>
__device__ inline void load_matrix_sync(fragment<matrix_b, 16, 16, 16, T, Layout>& f, const T* p, unsigned ldm) {
  const unsigned r = porter_mfma::lane() & 31;
  for (int i = 0; i < 8; ++i) f.x[i] = p[at(8 * (r >> 4) + i, r & 15, ldm, __is_same(Layout, row_major))];
}
__device__ inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, float, void>& f, const float* p,
                                        unsigned ldm, layout_t layout) {
  const unsigned r = porter_mfma::lane() & 31;
  for (int s = 0; s < 2; ++s)
    for (int j = 0; j < 4; ++j) f.x[4 * s + j] = p[at(8 * s + 4 * (r >> 4) + j, r & 15, ldm, layout == mem_row_major)];
}
__device__ inline void store_matrix_sync(float* p, const fragment<accumulator, 16, 16, 16, float, void>& f,
                                         unsigned ldm, layout_t layout) {
  const unsigned r = porter_mfma::lane() & 31;
  for (int s = 0; s < 2; ++s)
    for (int j = 0; j < 4; ++j) p[at(8 * s + 4 * (r >> 4) + j, r & 15, ldm, layout == mem_row_major)] = f.x[4 * s + j];
}

template <typename T, typename Layout>
__device__ inline void fill_fragment(fragment<matrix_a, 16, 16, 16, T, Layout>& f, T v) {
  for (int i = 0; i < 8; ++i) f.x[i] = v;
}
template <typename T, typename Layout>
__device__ inline void fill_fragment(fragment<matrix_b, 16, 16, 16, T, Layout>& f, T v) {
  for (int i = 0; i < 8; ++i) f.x[i] = v;
}
__device__ inline void fill_fragment(fragment<accumulator, 16, 16, 16, float, void>& f, float v) {
  for (int i = 0; i < 8; ++i) f.x[i] = v;
}
// The K step past an odd end of a paired loop (MFMA005): zeros, whose products add nothing.
template <typename Use, typename T, typename Layout>
__device__ inline void zero_fragment(fragment<Use, 16, 16, 16, T, Layout>& f) {
  for (int i = 0; i < fragment<Use, 16, 16, 16, T, Layout>::num_elements; ++i) f.x[i] = T(0.0f);
}

// D = A * B + C: two 8-row slabs, one v_mfma_f32_16x16x32 each (shared by both halves).
template <typename T, typename LA, typename LB>
__device__ inline void mma_sync(fragment<accumulator, 16, 16, 16, float, void>& d,
                                const fragment<matrix_a, 16, 16, 16, T, LA>& a,
                                const fragment<matrix_b, 16, 16, 16, T, LB>& b,
                                const fragment<accumulator, 16, 16, 16, float, void>& c) {
  const auto q = porter_mfma::pack8(b.x);
  typename porter_mfma::element<T>::vec p[2];
  porter_mfma::slab_rows(porter_mfma::pack8(a.x), p[0], p[1]);
  for (int s = 0; s < 2; ++s) {
    const porter_mfma::f32x4 acc = {c.x[4 * s], c.x[4 * s + 1], c.x[4 * s + 2], c.x[4 * s + 3]};
    const porter_mfma::f32x4 out = porter_mfma::half_wave_step(p[s], q, acc);
    for (int j = 0; j < 4; ++j) d.x[4 * s + j] = out[j];
  }
}

// D = A0 * B0 + A1 * B1 + C: two consecutive K steps (MFMA005 pairs a wmma K loop), one
// v_mfma_f32_16x16x32 per warp with both halves of its K (porter_mfma::paired_steps); the same
// products as two mma_sync calls, summed in the MFMA's order. A split wave (one warp left) takes
// the VALU path for both steps.
template <typename T, typename LA, typename LB>
__device__ inline void mma_sync_k32(fragment<accumulator, 16, 16, 16, float, void>& d,
                                    const fragment<matrix_a, 16, 16, 16, T, LA>& a0,
                                    const fragment<matrix_b, 16, 16, 16, T, LB>& b0,
                                    const fragment<matrix_a, 16, 16, 16, T, LA>& a1,
                                    const fragment<matrix_b, 16, 16, 16, T, LB>& b1,
                                    const fragment<accumulator, 16, 16, 16, float, void>& c) {
  porter_mfma::f32x4 lo = {c.x[0], c.x[1], c.x[2], c.x[3]}, hi = {c.x[4], c.x[5], c.x[6], c.x[7]};
  const auto q0 = porter_mfma::pack8(b0.x), q1 = porter_mfma::pack8(b1.x);
  const auto p0 = porter_mfma::pack8(a0.x), p1 = porter_mfma::pack8(a1.x);
  if (__builtin_amdgcn_read_exec() == ~0ull) {
    porter_mfma::paired_steps(lo, hi, p0, q0, p1, q1);
  } else {
    typename porter_mfma::element<T>::vec s0[2], s1[2];
    porter_mfma::slab_rows(p0, s0[0], s0[1]);
    porter_mfma::slab_rows(p1, s1[0], s1[1]);
    const porter_mfma::acc8 out = porter_mfma::steps_alone(s0[0], s0[1], q0, s1[0], s1[1], q1, porter_mfma::acc8{lo, hi});
    lo = out.lo;
    hi = out.hi;
  }
  for (int j = 0; j < 4; ++j) {
    d.x[j] = lo[j];
    d.x[4 + j] = hi[j];
  }
}
}  // namespace porter_wmma

// PTX mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32, with NVIDIA's per-thread
// fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"), thread
// t = 4g + q of the warp:
//   a[p] = {A[g + 8 (p & 1)][2q + 8 (p >> 1) + e], e = 0, 1}   (p = 0..3, low half first)
//   b[p] = {B[2q + 8p + e][g], e = 0, 1}                      (p = 0..1)
//   c[i] = C[g + 8 (i >> 1)][2q + (i & 1)]                    (i = 0..3), d likewise
// The half computes the transposed product D^T (8 x 16) = B^T (8 x 16) A^T (16 x 16) + C^T, so
// D^T is the half's 8 rows of the MFMA result (P = B^T, Q = A^T), regathered into c/d order.
namespace porter_mfma {
// Alone: the split-wave VALU path only (mma_m16n16k32's fallback, which runs where a warp has left).
template <typename V, bool Alone = false>
__device__ inline void mma_m16n8k16(float& d0, float& d1, float& d2, float& d3, unsigned a0, unsigned a1,
                                    unsigned a2, unsigned a3, unsigned b0, unsigned b1, float c0, float c1,
                                    float c2, float c3) {
  const unsigned l = lane(), r = l & 31, base = l & 32, kb = r >> 4, m = r & 15;
  const unsigned n = r & 7;
  const bool mine = p_row_lane();
  const unsigned a[4] = {a0, a1, a2, a3};
  const float c[4] = {c0, c1, c2, c3};
  u32x4 p, q;
  for (unsigned qq = 0; qq < 4; ++qq) {
    const unsigned bsrc = base + 4 * n + qq;  // P[n][8kb + 2qq + e] = B[8kb + 2qq + e][n]
    const unsigned lo = from_lane(b0, bsrc), hi = from_lane(b1, bsrc);
    p[qq] = mine ? (kb ? hi : lo) : 0u;
    const unsigned asrc = base + 4 * (m & 7) + qq;  // Q[8kb + 2qq + e][m] = A[m][8kb + 2qq + e]
    unsigned got[4];
    for (int w = 0; w < 4; ++w) got[w] = from_lane(a[w], asrc);
    q[qq] = got[(m >> 3) + 2 * kb];
  }
  f32x4 acc;  // acc[j] = C^T[4kb + j][m] = C[m][4kb + j]
  for (unsigned j = 0; j < 4; ++j) {
    const unsigned src = base + 4 * (m & 7) + 2 * kb + (j >> 1);
    const float lo = from_lane(c[j & 1], src), hi = from_lane(c[2 + (j & 1)], src);
    acc[j] = (m >> 3) ? hi : lo;
  }
  const f32x4 out = Alone ? half_alone(__builtin_bit_cast(V, p), __builtin_bit_cast(V, q), acc)
                          : half_wave_step(__builtin_bit_cast(V, p), __builtin_bit_cast(V, q), acc);
  const unsigned g = r >> 2, qd = r & 3;
  float res[4];
  for (unsigned i = 0; i < 4; ++i) {  // d[i] = C[g + 8(i >> 1)][2qd + (i & 1)] = D^T[n'][m']
    const unsigned mm = g + 8 * (i >> 1), nn = 2 * qd + (i & 1);
    const unsigned src = base + 16 * (nn >> 2) + mm;
    const float v0 = from_lane(out[i & 1], src), v1 = from_lane(out[2 + (i & 1)], src);
    res[i] = (qd & 1) ? v1 : v0;  // register nn & 3 = 2 (qd & 1) + (i & 1)
  }
  d0 = res[0];
  d1 = res[1];
  d2 = res[2];
  d3 = res[3];
}
}  // namespace porter_mfma

__device__ inline void porter_mma_m16n8k16_f16(float& d0, float& d1, float& d2, float& d3, unsigned a0,
                                               unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1,
                                               float c0, float c1, float c2, float c3) {
  porter_mfma::mma_m16n8k16<porter_mfma::f16x8>(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
}
__device__ inline void porter_mma_m16n8k16_bf16(float& d0, float& d1, float& d2, float& d3, unsigned a0,
                                                unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1,
                                                float c0, float c1, float c2, float c3) {
  porter_mfma::mma_m16n8k16<porter_mfma::bf16x8>(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
}

// Four mma.sync m16n8k16 steps of one warp as two full-K MFMAs per wave (MFMA002 pairs a K loop
// over two n8 tiles that share the A fragment): D (16 x 16) = [A0 | A1] (16 x 32) x B (32 x 16) + C,
// where A_t is step t's A, column n of B is n8 tile n >> 3 of step t's B in K rows 16t..16t+15, and
// D / C columns 0-7 / 8-15 are the two tiles' accumulators. Two k16 steps of ONE m16n8 tile cannot
// fill the instruction: the wave's two warps hold independent A and B, and one 16x16x32 product
// computes two independent products only block-diagonally (half the K, or half the outputs, for
// each), so the pair needs a 16 x 16 tile per warp, as wmma's is. Per warp, porter_mfma::paired_steps
// then issues one MFMA (step 0 from lanes 0-31, step 1 from lanes 32-63).
//
// The registers move from NVIDIA's fragments to the MFMA's layout in 4 ds_bpermute rounds per
// operand and step (and 4 per 8 accumulator rows, each way): in round b every lane reads one
// 32-bit word, the sending lane choosing which of its registers by b and its own lane id, so that
// every reader of a lane wants the register it sends. For that the K order inside one step is
// permuted, the same for A and B (their products sum over it): MFMA K slot 8 kb + 2 w + e of step t
// (lane group kb = (l % 32) / 16, word w, element e) holds real k = 2 (4 (w >> 1) + 2 kb + (w & 1)) + e.
namespace porter_mfma {
// x[i & 3] for a lane-dependent i, as selects (an indexed local array would go to scratch).
__device__ inline float pick4(float x0, float x1, float x2, float x3, unsigned i) {
  return (i & 2) ? ((i & 1) ? x3 : x2) : ((i & 1) ? x1 : x0);
}
// One step's A (x = {a0, a1, a2, a3}: x[rho + 2 hk] holds rows 8 rho.., k 8 hk..) or B (x = {b_n0[0],
// b_n1[0], b_n0[1], b_n1[1]}: x[rho + 2 hk] holds tile rho, k 8 hk..) in the MFMA operand layout:
// lane r = l % 32 gets row / column m = r % 16 (rho = m >> 3), its 4 words from lanes 4 (m & 7) + q,
// q = 2 kb + (w & 1), register rho + 2 (w >> 1). Round b: the reader takes q & 1 = (b + rho) & 1,
// so the sender (q & 1 = its lane & 1) sends register rho = (b + lane) & 1, k half b >> 1.
template <typename V>
__device__ inline V operand_rounds(unsigned x0, unsigned x1, unsigned x2, unsigned x3) {
  const unsigned l = lane(), r = l & 31, m = r & 15, rho = m >> 3;
  const unsigned src = (l & 32) + 4 * (m & 7) + 2 * (r >> 4);
  const bool odd = l & 1;
  u32x4 w;
  for (unsigned hk = 0; hk < 2; ++hk) {
    const unsigned lo = hk ? x2 : x0, hi = hk ? x3 : x1;  // rho 0 / 1 of this k half
    const unsigned got0 = from_lane(odd ? hi : lo, src + rho);        // round 2 hk: q & 1 = rho
    const unsigned got1 = from_lane(odd ? lo : hi, src + (rho ^ 1));  // round 2 hk + 1: q & 1 = rho ^ 1
    w[2 * hk] = rho ? got1 : got0;
    w[2 * hk + 1] = rho ? got0 : got1;
  }
  return __builtin_bit_cast(V, w);
}

// The accumulator rows 8 s..8 s+7 of both tiles (x = {c_n0[2s], c_n0[2s+1], c_n1[2s], c_n1[2s+1]}:
// class k = 2 tile + (n & 1)) into the MFMA's: lane r gets out[j] = C[8 s + 4 kb + j][n], n = r % 16.
// C[8 s + g][n] lives in lane 4 g + ((n & 7) >> 1), register class of n. Round b: the sender (row g = its
// lane / 4) sends class (b + g) & 3; the reader of class k takes the row j with (b + j) & 3 == k.
__device__ inline f32x4 acc_rounds(float x0, float x1, float x2, float x3) {
  const unsigned l = lane(), r = l & 31, n = r & 15, kb = r >> 4, cls = 2 * (n >> 3) + (n & 1);
  const unsigned g = r >> 2;
  float got[4];
  for (unsigned b = 0; b < 4; ++b) {
    const unsigned j = (cls - b) & 3;
    got[b] = from_lane(pick4(x0, x1, x2, x3, b + g), (l & 32) + 4 * (4 * kb + j) + ((n & 7) >> 1));
  }
  f32x4 out;
  for (unsigned j = 0; j < 4; ++j) out[j] = pick4(got[0], got[1], got[2], got[3], cls - j);
  return out;
}

// The inverse of acc_rounds: D rows 8 s.. from the MFMA layout (d[j] = D[8 s + 4 kb + j][n] in lane
// 16 kb + n of the half) back to NVIDIA's registers (x as in acc_rounds) of lane 4 g + q. Round b:
// the reader takes class k = (b + g) & 3 (n = 8 (k >> 1) + 2 q + (k & 1)) from lane 16 (g >> 2) + n,
// which sends its row j = (class - b) & 3 (= g & 3 for that reader).
__device__ inline void acc_unrounds(f32x4 d, float& x0, float& x1, float& x2, float& x3) {
  const unsigned l = lane(), r = l & 31, n = r & 15, cls = 2 * (n >> 3) + (n & 1);
  const unsigned g = r >> 2, q = r & 3;
  float got[4];
  for (unsigned b = 0; b < 4; ++b) {
    const unsigned k = (b + g) & 3;
    got[b] = from_lane(pick4(d[0], d[1], d[2], d[3], cls - b),
                       (l & 32) + 16 * (g >> 2) + 8 * (k >> 1) + 2 * q + (k & 1));
  }
  // class k arrived in round (k - g) & 3
  x0 = pick4(got[0], got[1], got[2], got[3], 0 - g);
  x1 = pick4(got[0], got[1], got[2], got[3], 1 - g);
  x2 = pick4(got[0], got[1], got[2], got[3], 2 - g);
  x3 = pick4(got[0], got[1], got[2], got[3], 3 - g);
}

template <typename V>
__device__ inline void mma_m16n16k32(float* c0, float* c1, const unsigned* a0, const unsigned* a1,
                                     const unsigned* b00, const unsigned* b01, const unsigned* b10,
                                     const unsigned* b11) {
  if (__builtin_amdgcn_read_exec() != ~0ull) {  // a split wave: the four steps one by one on the VALU,
#pragma unroll 1                                  // rolled (one copy of the code; values, not pointers)
    for (unsigned s = 0; s < 4; ++s) {
      const bool k1 = s >= 2, n1 = s & 1;
      unsigned a[4], b[2];
      float c[4];
      for (int i = 0; i < 4; ++i) a[i] = k1 ? a1[i] : a0[i];
      for (int i = 0; i < 2; ++i) b[i] = k1 ? (n1 ? b11[i] : b10[i]) : (n1 ? b01[i] : b00[i]);
      for (int i = 0; i < 4; ++i) c[i] = n1 ? c1[i] : c0[i];
      mma_m16n8k16<V, true>(c[0], c[1], c[2], c[3], a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], c[2], c[3]);
      for (int i = 0; i < 4; ++i) {
        c0[i] = n1 ? c0[i] : c[i];
        c1[i] = n1 ? c[i] : c1[i];
      }
    }
    return;
  }
  const V p0 = operand_rounds<V>(a0[0], a0[1], a0[2], a0[3]), p1 = operand_rounds<V>(a1[0], a1[1], a1[2], a1[3]);
  const V q0 = operand_rounds<V>(b00[0], b01[0], b00[1], b01[1]);
  const V q1 = operand_rounds<V>(b10[0], b11[0], b10[1], b11[1]);
  f32x4 lo = acc_rounds(c0[0], c0[1], c1[0], c1[1]), hi = acc_rounds(c0[2], c0[3], c1[2], c1[3]);
  paired_steps(lo, hi, p0, q0, p1, q1);
  acc_unrounds(lo, c0[0], c0[1], c1[0], c1[1]);
  acc_unrounds(hi, c0[2], c0[3], c1[2], c1[3]);
}
}  // namespace porter_mfma

// c_n (4 f32 each, NVIDIA's c/d registers of n8 tile n) += A_k (4 x b32) B_k,n (2 x b32), k = 0, 1:
// the four mma.sync.m16n8k16 steps k0 n0, k0 n1, k1 n0, k1 n1 of one warp in two MFMAs per wave.
__device__ inline void porter_mma_m16n16k32_f16(float* c0, float* c1, const unsigned* a0, const unsigned* a1,
                                                const unsigned* b00, const unsigned* b01, const unsigned* b10,
                                                const unsigned* b11) {
  porter_mfma::mma_m16n16k32<porter_mfma::f16x8>(c0, c1, a0, a1, b00, b01, b10, b11);
}
__device__ inline void porter_mma_m16n16k32_bf16(float* c0, float* c1, const unsigned* a0, const unsigned* a1,
                                                 const unsigned* b00, const unsigned* b01, const unsigned* b10,
                                                 const unsigned* b11) {
  porter_mfma::mma_m16n16k32<porter_mfma::bf16x8>(c0, c1, a0, a1, b00, b01, b10, b11);
}

// PTX ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 within a 32-lane half: threads
// 8i..8i+7 give the row addresses (LDS byte offsets) of 8x8 matrix i; thread t = 4g + q receives
// {M_i[g][2q], M_i[g][2q + 1]} (with .trans: {M_i[2q][g], M_i[2q + 1][g]}).
namespace porter_mfma {
#if defined(PORTER_HIP_ON_CUDA)
// The addresses are CUDA shared-window offsets (CUDA's own __cvta_generic_to_shared, 32 bits like
// an LDS offset); reading one is a plain shared-memory load through the generic pointer.
__device__ inline unsigned lds_u32(unsigned addr) {
  return *static_cast<const unsigned*>(__cvta_shared_to_generic(static_cast<size_t>(addr)));
}
__device__ inline unsigned lds_u16(unsigned addr) {
  return *static_cast<const unsigned short*>(__cvta_shared_to_generic(static_cast<size_t>(addr)));
}
__device__ inline unsigned ldmatrix_one(unsigned addr, unsigned i, bool trans) {
  const unsigned l = lane(), base = l & 32, g = (l & 31) >> 2, q = l & 3;
  if (!trans) {
    const unsigned row = from_lane(addr, base + 8 * i + g);
    return lds_u32(row + 4 * q);
  }
  const unsigned row0 = from_lane(addr, base + 8 * i + 2 * q), row1 = from_lane(addr, base + 8 * i + 2 * q + 1);
  const unsigned lo = lds_u16(row0 + 2 * g);
  const unsigned hi = lds_u16(row1 + 2 * g);
  return lo | (hi << 16);
}
#else
typedef __attribute__((address_space(3))) const unsigned short lds_u16;
__device__ inline unsigned ldmatrix_one(unsigned addr, unsigned i, bool trans) {
  const unsigned l = lane(), base = l & 32, g = (l & 31) >> 2, q = l & 3;
  if (!trans) {
    const unsigned row = from_lane(addr, base + 8 * i + g);
    return *reinterpret_cast<__attribute__((address_space(3))) const unsigned*>(static_cast<size_t>(row + 4 * q));
  }
  const unsigned row0 = from_lane(addr, base + 8 * i + 2 * q), row1 = from_lane(addr, base + 8 * i + 2 * q + 1);
  const unsigned lo = *reinterpret_cast<lds_u16*>(static_cast<size_t>(row0 + 2 * g));
  const unsigned hi = *reinterpret_cast<lds_u16*>(static_cast<size_t>(row1 + 2 * g));
  return lo | (hi << 16);
}
#endif
}  // namespace porter_mfma

__device__ inline void porter_ldmatrix_x1(unsigned& r0, unsigned addr) { r0 = porter_mfma::ldmatrix_one(addr, 0, false); }
__device__ inline void porter_ldmatrix_x2(unsigned& r0, unsigned& r1, unsigned addr) {
  r0 = porter_mfma::ldmatrix_one(addr, 0, false);
  r1 = porter_mfma::ldmatrix_one(addr, 1, false);
}
__device__ inline void porter_ldmatrix_x4(unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3, unsigned addr) {
  r0 = porter_mfma::ldmatrix_one(addr, 0, false);
  r1 = porter_mfma::ldmatrix_one(addr, 1, false);
  r2 = porter_mfma::ldmatrix_one(addr, 2, false);
  r3 = porter_mfma::ldmatrix_one(addr, 3, false);
}
__device__ inline void porter_ldmatrix_x1_trans(unsigned& r0, unsigned addr) { r0 = porter_mfma::ldmatrix_one(addr, 0, true); }
__device__ inline void porter_ldmatrix_x2_trans(unsigned& r0, unsigned& r1, unsigned addr) {
  r0 = porter_mfma::ldmatrix_one(addr, 0, true);
  r1 = porter_mfma::ldmatrix_one(addr, 1, true);
}
__device__ inline void porter_ldmatrix_x4_trans(unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3, unsigned addr) {
  r0 = porter_mfma::ldmatrix_one(addr, 0, true);
  r1 = porter_mfma::ldmatrix_one(addr, 1, true);
  r2 = porter_mfma::ldmatrix_one(addr, 2, true);
  r3 = porter_mfma::ldmatrix_one(addr, 3, true);
}
#if !defined(PORTER_HAVE_CVTA_GENERIC_TO_SHARED) && !defined(PORTER_HIP_ON_CUDA)  // nvcc has CUDA's own
// CUDA's generic -> shared-window conversion: on AMDGPU, the 32-bit LDS offset of the pointer.
__device__ inline size_t __cvta_generic_to_shared(const void* p) {
  return static_cast<size_t>(reinterpret_cast<__UINTPTR_TYPE__>((__attribute__((address_space(3))) const void*)p) & 0xffffffffu);
}
#endif
#endif
