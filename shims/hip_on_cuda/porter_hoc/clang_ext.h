/* porter hip_on_cuda: clang-only constructs that porter's rewrites emit into device code.
 *
 * Stands in for: three things clang accepts in HIP device code and nvcc does not:
 *   - __atomic_signal_fence(order) in device code. PTX004 & co. keep an inline-PTX `memory`
 *     clobber as `__atomic_signal_fence(__ATOMIC_SEQ_CST)`: a compiler-only barrier (clang
 *     emits `fence syncscope("singlethread")`, which the AMDGPU backend turns into no
 *     instruction). nvcc knows the name only as a host builtin ("calling a __host__ function
 *     from a __device__ function is not allowed"). Here it is `asm volatile("" ::: "memory")`
 *     in device code - the same compiler-only barrier, no instruction - and the host builtin
 *     in host code. The order argument is evaluated and ignored: every order of a signal
 *     fence is at most a compiler barrier, and this one is the strongest (seq_cst).
 *   - __bf16 and _Float16 as value types. PTX007 rewrites cvt.rn.bf16x2.f32 as
 *     `__builtin_bit_cast(unsigned short, (__bf16)x)` (gfx950: one V_CVT_PK_BF16_F32 for the
 *     pair), cvt.rn.f16x2.f32 the same with _Float16. nvcc's front end accepts both keywords,
 *     but its code generator stops with "unsupported float variant!". Here each keyword names a
 *     2-byte trivially copyable class holding the bit pattern, so __builtin_bit_cast to and
 *     from unsigned short works as with clang, and the conversions are CUDA's exact ones:
 *       float  -> __bf16    __float2bfloat16_rn  (round to nearest even, as clang's fptrunc
 *                                                 and V_CVT_PK_BF16_F32; a NaN stays a quiet
 *                                                 NaN, its payload may differ)
 *       double -> __bf16    __double2bfloat16    (one rounding, nearest even)
 *       float  -> _Float16  __float2half_rn      (round to nearest even, as clang's fptrunc)
 *       double -> _Float16  __double2half        (one rounding, nearest even)
 *       integer -> either   through double (exact for |i| < 2^53, then one rounding)
 *       either -> float     exact (operator float)
 *     Arithmetic and comparisons go through float (the implicit conversion): `a + b` is a
 *     float, as clang computes __bf16/_Float16 arithmetic in float with excess precision;
 *     assigning it back rounds once to nearest even. Compound assignment is provided.
 *     Not provided: ext_vector_type vectors of these types (nvcc ignores the attribute - see
 *     porter_hoc/mfma.h for the MFMA operand types), literals with the bf16/f16 suffixes.
 *
 * The keywords are renamed with object-like macros after every CUDA header (porter_hoc/all.h
 * includes this last), in the host and the device pass alike, so a kernel's signature is the
 * same in both. Define PORTER_HOC_NO_HALF_KEYWORDS to keep nvcc's own (failing) keywords, and
 * PORTER_HOC_NO_SIGNAL_FENCE to keep the host-only builtin.
 */
#pragma once

#include <porter_hoc/config.h>

namespace porter_hoc {

/* A compiler-only barrier: no instruction, but no memory access moves across it. */
__host__ __device__ inline void signal_fence() {
#if defined(__CUDA_ARCH__)
  asm volatile("" ::: "memory");
#else
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

/* A 16-bit floating-point value in a class: the bits of a __bf16 (Cvt = bf16 ops) or a
 * _Float16 (Cvt = f16 ops), with exact conversions. */
template <class Cvt>
struct half_value {
  unsigned short bits_;

  half_value() = default;
  __host__ __device__ half_value(float f) : bits_(Cvt::from_float(f)) {}
  __host__ __device__ half_value(double d) : bits_(Cvt::from_double(d)) {}
  template <class I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
  __host__ __device__ half_value(I i) : bits_(Cvt::from_double(static_cast<double>(i))) {}

  __host__ __device__ operator float() const { return Cvt::to_float(bits_); }

  template <class T>
  __host__ __device__ half_value& operator+=(T v) { return *this = half_value(static_cast<float>(*this) + v); }
  template <class T>
  __host__ __device__ half_value& operator-=(T v) { return *this = half_value(static_cast<float>(*this) - v); }
  template <class T>
  __host__ __device__ half_value& operator*=(T v) { return *this = half_value(static_cast<float>(*this) * v); }
  template <class T>
  __host__ __device__ half_value& operator/=(T v) { return *this = half_value(static_cast<float>(*this) / v); }
};

struct bf16_ops {
  __host__ __device__ static unsigned short from_float(float f) { return __bfloat16_as_ushort(__float2bfloat16_rn(f)); }
  __host__ __device__ static unsigned short from_double(double d) { return __bfloat16_as_ushort(__double2bfloat16(d)); }
  __host__ __device__ static float to_float(unsigned short b) { return __bfloat162float(__ushort_as_bfloat16(b)); }
};
struct f16_ops {
  __host__ __device__ static unsigned short from_float(float f) { return __half_as_ushort(__float2half_rn(f)); }
  __host__ __device__ static unsigned short from_double(double d) { return __half_as_ushort(__double2half(d)); }
  __host__ __device__ static float to_float(unsigned short b) { return __half2float(__ushort_as_half(b)); }
};

typedef half_value<bf16_ops> bf16;
typedef half_value<f16_ops> f16;

static_assert(sizeof(bf16) == 2 && alignof(bf16) == 2, "__bf16 is 2 bytes, 2-aligned");
static_assert(sizeof(f16) == 2 && alignof(f16) == 2, "_Float16 is 2 bytes, 2-aligned");
static_assert(std::is_trivially_copyable<bf16>::value && std::is_trivially_copyable<f16>::value,
              "__builtin_bit_cast needs trivially copyable types");

}  // namespace porter_hoc

/* Global names for the macros (a qualified name would break `::__bf16`-style spellings). */
typedef porter_hoc::bf16 porter_hoc_bf16;
typedef porter_hoc::f16 porter_hoc_f16;

#if !defined(PORTER_HOC_NO_SIGNAL_FENCE)
#define __atomic_signal_fence(order) ((void)(order), ::porter_hoc::signal_fence())
#endif

#if !defined(PORTER_HOC_NO_HALF_KEYWORDS)
#define __bf16 porter_hoc_bf16
#define _Float16 porter_hoc_f16
#endif
