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
 * Emulation: the lanes publish their A and B registers through the wave scratch one register
 * at a time (A[r] and B[r] in one 32-bit slot), and every lane computes its own D elements
 * from what it reads: products of bf16/f16 values are exact in fp32 and are summed with fp32
 * fma starting from C, in a fixed order (by register, then lane group).
 * The hardware's internal summation order is not documented, so results can differ from
 * an MI350X in the last bits: compare with a tolerance.
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

/* D = A x B + C over the wave, M x M output, KPL operand elements per lane (see above). */
template <int M, int KPL, class T, int NACC>
__device__ inline vec<float, NACC> mfma(const vec<T, KPL>& a, const vec<T, KPL>& b,
                                        const vec<float, NACC>& c) {
  constexpr int G = 64 / M;  // lane groups along k
  static_assert(M * M == 64 * NACC, "accumulator size must be M*M/64 per lane");
  const unsigned l = lane_id();
  vec<float, NACC> d = c;
  // One exchange per operand register r: lane slot = A[r] | B[r] << 16. The loops are kept
  // rolled so that a 512-thread block still fits the register file (the operands of the
  // other lanes are read from the scratch as they are used, never held).
#pragma unroll 1
  for (int r = 0; r < KPL; ++r) {
    WaveCall call;
    call.publish(static_cast<unsigned>(elem_bits(a[r])) | static_cast<unsigned>(elem_bits(b[r])) << 16);
    const int col = static_cast<int>(l % M);
#pragma unroll 1
    for (int e = 0; e < NACC; ++e) {
      const int row = 4 * G * (e / 4) + 4 * static_cast<int>(l / M) + e % 4;
      float acc = d[e];
#pragma unroll
      for (int g = 0; g < G; ++g) {  // k = g * KPL + r
        const unsigned from_a = call.value_of(row + M * g);  // holds A[row][k] in bits 0-15
        const unsigned from_b = call.value_of(col + M * g);  // holds B[k][col] in bits 16-31
        acc = fmaf(bits_to_float<T>::get(static_cast<unsigned short>(from_a)),
                   bits_to_float<T>::get(static_cast<unsigned short>(from_b >> 16)), acc);
      }
      d[e] = acc;
    }
    call.finish();
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
