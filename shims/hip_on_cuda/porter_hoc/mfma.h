/* porter hip_on_cuda: the MFMA builtins porter emits, emulated over the 64-lane wave.
 *
 * Stands in for: clang's __builtin_amdgcn_mfma_f32_{16x16x32,32x32x16}_{bf16,f16} (gfx950)
 * and the older __builtin_amdgcn_mfma_f32_{16x16x16f16,32x32x8f16,16x16x16bf16_1k,
 * 32x32x8bf16_1k} (gfx90a/gfx942/gfx950), and the ext_vector_type operand types ports pass
 * to them.
 *
 * What one MFMA does: the wave computes D = A x B + C for an M x K matrix A, a K x N matrix
 * B and an M x N accumulator C (M = N = 16 or 32), fp32 accumulation. The operands are
 * spread over the 64 lanes, each lane holding KPL (8, or 4 for the older instructions)
 * elements of A and of B and M*N/64 elements of C/D. With G = 64 / M lane groups:
 *
 *   A[i][k]  is in lane  i + M * (k / KPL),  element k % KPL of the lane's A operand
 *   B[k][j]  is in lane  j + M * (k / KPL),  element k % KPL of the lane's B operand
 *   D[i][j]  is in lane  j + M * ((i / 4) % G),  element 4 * (i / (4 * G)) + i % 4
 *            i.e. lane l's element e holds D[4*G*(e/4) + 4*(l/M) + e%4][l%M]
 *
 *   16x16x32 (KPL 8, G 4): lane l holds A[l%16][8*(l/16) + r], B[8*(l/16) + r][l%16],
 *                          D[4*(l/16) + e][l%16], r = 0..7, e = 0..3.
 *   32x32x16 (KPL 8, G 2): lane l holds A[l%32][8*(l/32) + r], B[8*(l/32) + r][l%32],
 *                          D[8*(e/4) + 4*(l/32) + e%4][l%32], e = 0..15.
 *   16x16x16 / 32x32x8 (KPL 4): the same with 4 elements per lane.
 *
 * Sources: AMD Matrix Instruction Calculator (github.com/ROCm/amd_matrix_instruction_calculator,
 * `--register-layout` for A/B/D of each instruction; the "dependent on lane" operand layouts of
 * the CDNA3/CDNA4 ISA reference guides) - re-check there when adding an instruction; AMD's
 * single-wave gfx950 example for v_mfma_f32_32x32x16_f16 (github.com/carlushuang/gcnasm,
 * matrix_core_gfx950/matrix_core.cc: A offset (l/32)*8 + (l%32)*lda, D row (l/32)*4 + e%4 +
 * (e/4)*8, column l%32); AMD lab notes "AMD matrix cores" (ROCm blogs) for the 16x16x16 and
 * 32x32x8 layouts. Ground truth remains the MI350X itself: run the mfma fixture on one.
 *
 * Emulation: on NVIDIA's tensor cores (PTX mma.sync m16n8k16 / m16n8k8, sm_80+), 4 mma per
 * warp for a 32x32 output, 1-2 for a 16x16 one - the work of the instruction. The lanes store
 * their A and B registers in a per-wave stage in shared memory, one wave barrier later each
 * warp loads the mma fragments of the D elements its own lanes hold, multiplies, and moves
 * the results into the AMD accumulator layout with warp shuffles (see mfma() below). Products
 * of bf16/f16 values are exact; the tensor core sums them in fp32 and C is added after. The
 * summation order of neither the MI350X nor the tensor core is documented, so results can
 * differ from an MI350X in the last bits: compare with a tolerance.
 *   Cost: 2 KiB of static shared memory per wave (PORTER_HOC_MFMA_WAVES, default 8 = blocks of
 *   up to 512 threads: 16 KiB, plus the wave barrier's words), two wave barriers per
 *   instruction, 12 shared loads, 4-12 shuffles. The previous emulation (every lane computing
 *   its elements from eight one-register exchanges) was 191x the tensor cores and needed 181
 *   registers per thread; this one is in bench/results/hip_on_cuda_collectives_h200_*.txt.
 *
 * Modifiers: cbsz, abid and blgp must be 0 (a non-zero value traps with a message).
 *
 * Operand types. `typedef __bf16 v8bf16 __attribute__((ext_vector_type(8)))` is clang-only
 * (nvcc knows neither __bf16 nor ext_vector_type), so ports cannot keep their own typedefs
 * here. porter_hoc::vec<T, N> is an aggregate with operator[]: it supports `v[i]` reads and
 * writes, `= {}` and `= {x0, x1, ...}` initialisation, copies, and passing to the builtins.
 * It does not support vector arithmetic, swizzles (.x/.xy), __builtin_bit_cast from other
 * vectors, or __builtin_shufflevector. The names, provided at global scope unless
 * PORTER_HOC_NO_VECTOR_TYPEDEFS is defined:
 *   v8bf16 / bf16x8 (8 x __hip_bfloat16), v8f16 / fp16x8 / half8 (8 x __half),
 *   v4f32 / floatx4, v16f32 / floatx16, v4f16 / fp16x4 / half4, v4i16 / bf16x4_1k (raw bf16 bits
 *   as short, the operand type of the *_1k builtins).
 * A port that declares these with ext_vector_type must put its typedefs under
 * `#if !defined(PORTER_HIP_ON_CUDA)`.
 */
#pragma once

#include <porter_hoc/wave.h>

namespace porter_hoc {

template <class T, int N>
struct vec {
  T v[N];
  __host__ __device__ T& operator[](int i) { return v[i]; }
  __host__ __device__ const T& operator[](int i) const { return v[i]; }
  static constexpr int size = N;
};

typedef vec<__nv_bfloat16, 8> bf16x8;
typedef vec<__half, 8> f16x8;
typedef vec<__half, 4> f16x4;
typedef vec<short, 4> i16x4;
typedef vec<float, 4> f32x4;
typedef vec<float, 16> f32x16;

/* Element -> float, by element type. Raw 16-bit shorts are bf16 bits (the *_1k builtins). */
__device__ inline float elem_to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ inline float elem_to_float(__half x) { return __half2float(x); }
__device__ inline unsigned short elem_bits(__nv_bfloat16 x) { return __bfloat16_as_ushort(x); }
__device__ inline unsigned short elem_bits(__half x) { return __half_as_ushort(x); }
__device__ inline unsigned short elem_bits(short x) { return static_cast<unsigned short>(x); }

template <class T>
struct bits_to_float;
template <>
struct bits_to_float<__nv_bfloat16> {
  __device__ static float get(unsigned short b) { return __uint_as_float(static_cast<unsigned>(b) << 16); }
};
template <>
struct bits_to_float<short> {  // *_1k operands: bf16 bits in a short
  __device__ static float get(unsigned short b) { return __uint_as_float(static_cast<unsigned>(b) << 16); }
};
template <>
struct bits_to_float<__half> {
  __device__ static float get(unsigned short b) { return __half2float(__ushort_as_half(b)); }
};

__device__ inline void check_modifiers(const char* name, int cbsz, int abid, int blgp) {
  if (cbsz != 0 || abid != 0 || blgp != 0) {
    printf("porter hip_on_cuda: %s with cbsz=%d abid=%d blgp=%d: only 0, 0, 0 is emulated\n",
           name, cbsz, abid, blgp);
    __trap();
  }
}

/* ---- NVIDIA mma.sync (see "Emulation" above) ---- */

/* Whether the operand element type is bf16 (raw bf16 bits in a short included) or f16. */
template <class T>
struct is_bf16 : std::false_type {};
template <>
struct is_bf16<__nv_bfloat16> : std::true_type {};
template <>
struct is_bf16<short> : std::true_type {};

/* d += a x b on one warp: m16n8k16, A row-major 16x16, B column-major 16x8, fp32 (PTX ISA,
 * "Matrix fragments for mma.m16n8k16"). */
template <bool BF16>
__device__ inline void mma_m16n8k16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  if (BF16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
/* The same for m16n8k8 (A 16x8: two registers, B 8x8: one). */
template <bool BF16>
__device__ inline void mma_m16n8k8(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  if (BF16)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]));
}

/* Waves per block the MFMA staging serves (2 KiB of static shared memory each): 8 covers
 * blocks of up to 512 threads. A kernel with larger blocks that uses an MFMA builtin traps with
 * a message naming this define; raise it to 16 for 1024-thread blocks (32 KiB). */
#ifndef PORTER_HOC_MFMA_WAVES
#define PORTER_HOC_MFMA_WAVES 8
#endif
constexpr unsigned kMfmaWaves = PORTER_HOC_MFMA_WAVES;

/* One wave's operands in shared memory: each lane's A and B registers, 16 bytes per lane (the
 * first 8 used when a lane holds 4 elements), in AMD lane order permuted by stage_pos. */
struct MfmaStage {
  uint4 a[kWaveLanes];
  uint4 b[kWaveLanes];
};
__device__ inline MfmaStage (&mfma_stage())[kMfmaWaves] {
  __shared__ MfmaStage stage[kMfmaWaves];
  return stage;
}
/* Where lane L's 16 bytes lie: L with bits 0-1 xor-ed by bits 3-4, so that the 32-bit reads
 * of one mma fragment (eight lanes 4 apart, the same word of each) fall in different banks. */
__device__ inline unsigned stage_pos(unsigned lane) { return lane ^ ((lane >> 3) & 3u); }

/* Two consecutive elements (k, k+1; k even) of the lane-L operand row held in `regs`. */
template <int KPL>
__device__ inline unsigned stage_pair(const uint4* regs, unsigned lane, unsigned k) {
  return reinterpret_cast<const unsigned*>(regs)[4u * stage_pos(lane) + (k % KPL) / 2u];
}

template <class T, int KPL>
__device__ inline uint4 pack(const vec<T, KPL>& v) {
  unsigned w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
  for (int i = 0; i < KPL / 2; ++i)
    w[i] = static_cast<unsigned>(elem_bits(v[2 * i])) | static_cast<unsigned>(elem_bits(v[2 * i + 1])) << 16;
  return make_uint4(w[0], w[1], w[2], w[3]);
}

__device__ __noinline__ __attribute__((noreturn)) inline void mfma_shape_unsupported(unsigned wave, unsigned nwarps) {
  printf("porter hip_on_cuda: block (%u,%u,%u) wave %u: an MFMA builtin in a wave of %u NVIDIA "
         "warp(s); the emulation serves full 64-lane waves 0..%u (blocks of a multiple of 64 "
         "threads, at most %u): build with -DPORTER_HOC_MFMA_WAVES=16 for 1024-thread blocks\n",
         blockIdx.x, blockIdx.y, blockIdx.z, wave, nwarps, kMfmaWaves - 1, 64 * kMfmaWaves);
  __trap();
}

/* D = A x B + C over the wave, M x M output, KPL operand elements per lane (see above).
 *
 * 1. Every lane stores its A and B registers in its wave's stage; the wave barrier
 *    (porter_hoc/wave.h) makes both warps' registers visible to both.
 * 2. Warp h computes the D elements its own lanes hold (M = 32: rows 8q + 4h + 0..3, q = 0..3,
 *    all 32 columns; M = 16: rows 8h..8h+7, all 16 columns) as D^T = B^T x A^T with mma.sync:
 *    the mma's "A" rows are D columns, its "B" columns are D rows, each fragment register two
 *    consecutive k of one AMD lane's operand (one 32-bit shared load).
 *    M = 32: 2 x 2 m16n8 tiles (mma row g + 8u of tile mt = D column 4g + 2mt + u; mma column
 *    2q + b of tile nt = D row 8q + 4h + 2nt + b), so a lane 4g + q holds, of the four columns
 *    4g..4g+3, the four D rows e = 4q..4q+3 of its AMD lane's list: the AMD layout is a 4 x 4
 *    exchange of 4-value blocks inside each quad of lanes (12 __shfl_xor).
 *    M = 16: one m16n8 tile (row g + 8u = D column, column n = D row 8h + n): the AMD layout
 *    is 4 __shfl, each a permutation of the warp.
 *    The stage is free again after a second wave barrier (a slower partner may still read it).
 * 3. D = C + the product: fp32, the product summed by the tensor core (the hardware's order is
 *    not documented either way - compare with a tolerance).
 * Lanes that are inactive, and the lanes of a partner warp that exited, contribute zeros (the
 * emulation's rule for inactive lanes, as in the collectives). A warp with inactive lanes
 * cannot execute mma.sync (.aligned: all 32 lanes), so its live lanes sum their own elements
 * from the stage in scalar fp32 instead (slow, rare). */
template <int M, int KPL, class T, int NACC>
__device__ inline vec<float, NACC> mfma(const vec<T, KPL>& a, const vec<T, KPL>& b,
                                        const vec<float, NACC>& c) {
  static_assert(M * M == 64 * NACC, "accumulator size must be M*M/64 per lane");
  static_assert(KPL == 4 || KPL == 8, "4 or 8 operand elements per lane");
  constexpr bool kBf16 = is_bf16<T>::value;
  constexpr int K = KPL * (64 / M);  // 16x16x32, 32x32x16, 16x16x16: 32, 16, 16; 32x32x8: 8
  const WavePos p = wave_pos();
  if (p.nwarps != 2 || p.wave >= kMfmaWaves) mfma_shape_unsupported(p.wave, p.nwarps);
  const unsigned live = live_lanes_of_warp();
  MfmaStage& st = mfma_stage()[p.wave];

  // 1. publish this lane's registers; zeros for the lanes that do not take part
  st.a[stage_pos(p.lane)] = pack(a);
  st.b[stage_pos(p.lane)] = pack(b);
  const unsigned t = p.lane % 32u;
  const unsigned leader = static_cast<unsigned>(__ffs(live) - 1);
  if (live != 0xffffffffu && t == leader)
    for (unsigned x = 0; x < 32u; ++x)
      if (!((live >> x) & 1u)) st.a[stage_pos(32u * p.half + x)] = st.b[stage_pos(32u * p.half + x)] = make_uint4(0u, 0u, 0u, 0u);
  if (wave_barrier(p, live) == 0u) {  // the other warp did not take part: its lanes are zeros
    if (t == leader)
      for (unsigned x = 0; x < 32u; ++x)
        st.a[stage_pos(32u * (p.half ^ 1u) + x)] = st.b[stage_pos(32u * (p.half ^ 1u) + x)] = make_uint4(0u, 0u, 0u, 0u);
    porter_hoc_cuda_syncwarp(live);
  }

  vec<float, NACC> d;
  if (live != 0xffffffffu) {
    // A warp with inactive lanes cannot run mma.sync (all 32 lanes must execute it): each live
    // lane sums its own elements from the stage, in fp32 fma, k ascending.
    const unsigned col = p.lane % M;
#pragma unroll
    for (int e = 0; e < NACC; ++e) {
      const unsigned row = 4u * (64u / M) * (e / 4) + 4u * (p.lane / M) + e % 4;
      float acc = 0.f;
#pragma unroll 1
      for (unsigned k = 0; k < static_cast<unsigned>(K); ++k) {
        const unsigned la = row + M * (k / KPL), lb = col + M * (k / KPL);
        const unsigned short xa = reinterpret_cast<const unsigned short*>(st.a)[8u * stage_pos(la) + k % KPL];
        const unsigned short xb = reinterpret_cast<const unsigned short*>(st.b)[8u * stage_pos(lb) + k % KPL];
        acc = fmaf(bits_to_float<T>::get(xa), bits_to_float<T>::get(xb), acc);
      }
      d[e] = c[e] + acc;
    }
    wave_barrier(p, live);  // the stage is free again
    return d;
  }
  // 2. fragments (lane t = 4g + q of warp h; the whole warp is live)
  const unsigned g = t / 4u, q = t % 4u, h = p.half;
  if (M == 32) {
    unsigned fa[2][4], fb[2][2];
#pragma unroll
    for (unsigned mt = 0; mt < 2; ++mt)
#pragma unroll
      for (unsigned u = 0; u < 2; ++u) {
        const unsigned col = 4u * g + 2u * mt + u;  // D column of mma row g + 8u
        fa[mt][u] = stage_pair<KPL>(st.b, col + 32u * ((2u * q) / KPL), 2u * q);
        fa[mt][2 + u] = K == 16 ? stage_pair<KPL>(st.b, col + 32u * ((2u * q + 8u) / KPL), 2u * q + 8u) : 0u;
      }
#pragma unroll
    for (unsigned nt = 0; nt < 2; ++nt) {
      const unsigned row = 8u * (g / 2u) + 4u * h + 2u * nt + (g % 2u);  // D row of mma column g
      fb[nt][0] = stage_pair<KPL>(st.a, row + 32u * ((2u * q) / KPL), 2u * q);
      fb[nt][1] = K == 16 ? stage_pair<KPL>(st.a, row + 32u * ((2u * q + 8u) / KPL), 2u * q + 8u) : 0u;
    }
    wave_barrier(p, live);  // the stage is free again
    float acc[2][2][4];
#pragma unroll
    for (unsigned mt = 0; mt < 2; ++mt)
#pragma unroll
      for (unsigned nt = 0; nt < 2; ++nt) {
        acc[mt][nt][0] = acc[mt][nt][1] = acc[mt][nt][2] = acc[mt][nt][3] = 0.f;
        if (K == 16) {
          mma_m16n8k16<kBf16>(acc[mt][nt], fa[mt], fb[nt]);
        } else {
          mma_m16n8k8<kBf16>(acc[mt][nt], fa[mt], fb[nt]);
        }
      }
    // acc[mt][nt][2u + b] = D[8q + 4h + 2nt + b][4g + 2mt + u]; AMD lane 4g + j holds column
    // 4g + j, element e = D row 8(e/4) + 4h + e%4: from lane 4g + e/4, block j, value e%4.
    float got[4][4];
#pragma unroll
    for (unsigned rho = 0; rho < 4; ++rho) {
      const unsigned blk = q ^ rho;  // the block (column 4g + blk) lane q ^ rho needs from here
#pragma unroll
      for (unsigned i = 0; i < 4; ++i) {
        const unsigned nt = i / 2u, bb = i % 2u;
        const float v0 = acc[0][nt][bb], v1 = acc[0][nt][2u + bb], v2 = acc[1][nt][bb], v3 = acc[1][nt][2u + bb];
        const float send = blk == 0u ? v0 : (blk == 1u ? v1 : (blk == 2u ? v2 : v3));
        got[rho][i] = rho == 0 ? send : porter_hoc_cuda_shfl_xor_sync(0xffffffffu, send, static_cast<int>(rho), 32);
      }
    }
#pragma unroll
    for (unsigned e = 0; e < NACC; ++e) {
      const unsigned from = (e / 4u) ^ q;  // the round that brought element e
      const float v = from == 0u ? got[0][e % 4u] : (from == 1u ? got[1][e % 4u] : (from == 2u ? got[2][e % 4u] : got[3][e % 4u]));
      d[e] = c[e] + v;
    }
  } else {
    unsigned fa[4], fb[2];
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (unsigned k0 = 0; k0 < static_cast<unsigned>(K); k0 += 16u) {
#pragma unroll
      for (unsigned u = 0; u < 2; ++u) {
        const unsigned col = g + 8u * u;  // D column of mma row g + 8u
        fa[u] = stage_pair<KPL>(st.b, col + 16u * ((k0 + 2u * q) / KPL), k0 + 2u * q);
        fa[2 + u] = stage_pair<KPL>(st.b, col + 16u * ((k0 + 2u * q + 8u) / KPL), k0 + 2u * q + 8u);
      }
      const unsigned row = 8u * h + g;  // D row of mma column g
      fb[0] = stage_pair<KPL>(st.a, row + 16u * ((k0 + 2u * q) / KPL), k0 + 2u * q);
      fb[1] = stage_pair<KPL>(st.a, row + 16u * ((k0 + 2u * q + 8u) / KPL), k0 + 2u * q + 8u);
      mma_m16n8k16<kBf16>(acc, fa, fb);
    }
    wave_barrier(p, live);  // the stage is free again (the fragments are in registers)
    // acc[2u + b] = D[8h + 2q + b][g + 8u]; AMD lane t (u = bit 3, w = bit 4) holds column
    // t % 16, element e = D row 8h + 4w + e. Round r: element r ^ 2u, from lane
    // 4(t % 8) + 2w + ((r / 2) ^ u), which sends its value 2u' + r % 2, u' = (q % 2) ^ (r / 2).
    const unsigned um = (t >> 3) & 1u, w = t >> 4;
    float got[4];
#pragma unroll
    for (unsigned r = 0; r < 4; ++r) {
      const unsigned us = (q & 1u) ^ (r >> 1);
      const float send = us ? acc[2u + (r & 1u)] : acc[r & 1u];
      const unsigned src = 4u * (t & 7u) + 2u * w + ((r >> 1) ^ um);
      got[r] = porter_hoc_cuda_shfl_sync(0xffffffffu, send, static_cast<int>(src), 32);
    }
#pragma unroll
    for (unsigned e = 0; e < NACC; ++e) d[e] = c[e] + (um ? got[e ^ 2u] : got[e]);
  }
  return d;
}

/* The builtins' signatures: (A, B, C, cbsz, abid, blgp). */
__device__ inline f32x4 mfma_f32_16x16x32_bf16(const bf16x8& a, const bf16x8& b, const f32x4& c,
                                               int cbsz, int abid, int blgp) {
  check_modifiers("__builtin_amdgcn_mfma_f32_16x16x32_bf16", cbsz, abid, blgp);
  return mfma<16, 8>(a, b, c);
}
__device__ inline f32x4 mfma_f32_16x16x32_f16(const f16x8& a, const f16x8& b, const f32x4& c,
                                              int cbsz, int abid, int blgp) {
  check_modifiers("__builtin_amdgcn_mfma_f32_16x16x32_f16", cbsz, abid, blgp);
  return mfma<16, 8>(a, b, c);
}
__device__ inline f32x16 mfma_f32_32x32x16_bf16(const bf16x8& a, const bf16x8& b, const f32x16& c,
                                                int cbsz, int abid, int blgp) {
  check_modifiers("__builtin_amdgcn_mfma_f32_32x32x16_bf16", cbsz, abid, blgp);
  return mfma<32, 8>(a, b, c);
}
__device__ inline f32x16 mfma_f32_32x32x16_f16(const f16x8& a, const f16x8& b, const f32x16& c,
                                               int cbsz, int abid, int blgp) {
  check_modifiers("__builtin_amdgcn_mfma_f32_32x32x16_f16", cbsz, abid, blgp);
  return mfma<32, 8>(a, b, c);
}
__device__ inline f32x4 mfma_f32_16x16x16f16(const f16x4& a, const f16x4& b, const f32x4& c,
                                             int cbsz, int abid, int blgp) {
  check_modifiers("__builtin_amdgcn_mfma_f32_16x16x16f16", cbsz, abid, blgp);
  return mfma<16, 4>(a, b, c);
}
__device__ inline f32x16 mfma_f32_32x32x8f16(const f16x4& a, const f16x4& b, const f32x16& c,
                                             int cbsz, int abid, int blgp) {
  check_modifiers("__builtin_amdgcn_mfma_f32_32x32x8f16", cbsz, abid, blgp);
  return mfma<32, 4>(a, b, c);
}
__device__ inline f32x4 mfma_f32_16x16x16bf16_1k(const i16x4& a, const i16x4& b, const f32x4& c,
                                                 int cbsz, int abid, int blgp) {
  check_modifiers("__builtin_amdgcn_mfma_f32_16x16x16bf16_1k", cbsz, abid, blgp);
  return mfma<16, 4>(a, b, c);
}
__device__ inline f32x16 mfma_f32_32x32x8bf16_1k(const i16x4& a, const i16x4& b, const f32x16& c,
                                                 int cbsz, int abid, int blgp) {
  check_modifiers("__builtin_amdgcn_mfma_f32_32x32x8bf16_1k", cbsz, abid, blgp);
  return mfma<32, 4>(a, b, c);
}

}  // namespace porter_hoc

#if !defined(PORTER_HOC_NO_VECTOR_TYPEDEFS)
typedef porter_hoc::bf16x8 v8bf16;
typedef porter_hoc::bf16x8 bf16x8;
typedef porter_hoc::f16x8 v8f16;
typedef porter_hoc::f16x8 fp16x8;
typedef porter_hoc::f16x8 half8;
typedef porter_hoc::f16x4 v4f16;
typedef porter_hoc::f16x4 fp16x4;
typedef porter_hoc::f16x4 half4;
typedef porter_hoc::i16x4 v4i16;
typedef porter_hoc::i16x4 bf16x4_1k;
typedef porter_hoc::f32x4 v4f32;
typedef porter_hoc::f32x4 floatx4;
typedef porter_hoc::f32x16 v16f32;
typedef porter_hoc::f32x16 floatx16;
#endif

/* The builtins themselves. nvcc does not know these names, so a macro is legal here;
 * variadic, so that braced arguments with commas (floatx4{0, 0, 0, 0}) pass through. */
#define __builtin_amdgcn_mfma_f32_16x16x32_bf16(...) ::porter_hoc::mfma_f32_16x16x32_bf16(__VA_ARGS__)
#define __builtin_amdgcn_mfma_f32_16x16x32_f16(...) ::porter_hoc::mfma_f32_16x16x32_f16(__VA_ARGS__)
#define __builtin_amdgcn_mfma_f32_32x32x16_bf16(...) ::porter_hoc::mfma_f32_32x32x16_bf16(__VA_ARGS__)
#define __builtin_amdgcn_mfma_f32_32x32x16_f16(...) ::porter_hoc::mfma_f32_32x32x16_f16(__VA_ARGS__)
#define __builtin_amdgcn_mfma_f32_16x16x16f16(...) ::porter_hoc::mfma_f32_16x16x16f16(__VA_ARGS__)
#define __builtin_amdgcn_mfma_f32_32x32x8f16(...) ::porter_hoc::mfma_f32_32x32x8f16(__VA_ARGS__)
#define __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(...) ::porter_hoc::mfma_f32_16x16x16bf16_1k(__VA_ARGS__)
#define __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(...) ::porter_hoc::mfma_f32_32x32x8bf16_1k(__VA_ARGS__)
