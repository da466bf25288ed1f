/* porter overlay for <hip/hip_bf16.h>: __hip_bfloat16 and __hip_bfloat162.
 *
 * Stands in for ROCm 6.3's hip_bf16.h (absent from Debian's HIP 5.2, which has only the
 * older hip_bfloat16 class in hip_bfloat16.h), written from the documented API
 * (HIP math API reference, "Bfloat16 precision intrinsics", ROCm 6.3): the types,
 * the conversions and the arithmetic and comparison intrinsics a port of CUDA's
 * cuda_bf16.h (__nv_bfloat16) uses.
 *
 * Storage is clang's __bf16, so float -> bf16 rounds to nearest even as ROCm documents
 * (and gfx950 does it in hardware, v_cvt_pk_bf16_f32). Arithmetic is done in float and
 * rounded once, which is what ROCm 6.3 documents for the scalar intrinsics.
 */
#pragma once

#include <hip/hip_runtime.h>

#define __PORTER_BF16_FN __attribute__((host, device)) inline

struct __hip_bfloat16 {
  __bf16 __x;
  __hip_bfloat16() = default;
  __PORTER_BF16_FN __hip_bfloat16(float __f) : __x(static_cast<__bf16>(__f)) {}
  __PORTER_BF16_FN operator float() const { return static_cast<float>(__x); }
};
static_assert(sizeof(__hip_bfloat16) == 2, "__hip_bfloat16 is 16 bits");

struct __hip_bfloat162 {
  __hip_bfloat16 x;
  __hip_bfloat16 y;
};

/* Conversions. */
__PORTER_BF16_FN __hip_bfloat16 __float2bfloat16(float __f) { return __hip_bfloat16(__f); }
__PORTER_BF16_FN __hip_bfloat16 __double2bfloat16(double __d) {
  return __hip_bfloat16(static_cast<float>(__d));
}
__PORTER_BF16_FN float __bfloat162float(__hip_bfloat16 __b) { return static_cast<float>(__b.__x); }
__PORTER_BF16_FN unsigned short __bfloat16_as_ushort(__hip_bfloat16 __b) {
  return __builtin_bit_cast(unsigned short, __b.__x);
}
__PORTER_BF16_FN short __bfloat16_as_short(__hip_bfloat16 __b) {
  return __builtin_bit_cast(short, __b.__x);
}
__PORTER_BF16_FN __hip_bfloat16 __ushort_as_bfloat16(unsigned short __u) {
  __hip_bfloat16 __r;
  __r.__x = __builtin_bit_cast(__bf16, __u);
  return __r;
}
__PORTER_BF16_FN __hip_bfloat16 __short_as_bfloat16(short __s) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(__s));
}
__PORTER_BF16_FN __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 __a, __hip_bfloat16 __b) {
  return __hip_bfloat162{__a, __b};
}
__PORTER_BF16_FN __hip_bfloat162 __floats2bfloat162_rn(float __a, float __b) {
  return __hip_bfloat162{__hip_bfloat16(__a), __hip_bfloat16(__b)};
}
__PORTER_BF16_FN __hip_bfloat162 __float2bfloat162_rn(float __a) {
  return __floats2bfloat162_rn(__a, __a);
}
__PORTER_BF16_FN __hip_bfloat162 __bfloat162bfloat162(__hip_bfloat16 __a) {
  return __hip_bfloat162{__a, __a};
}
__PORTER_BF16_FN __hip_bfloat16 __low2bfloat16(__hip_bfloat162 __v) { return __v.x; }
__PORTER_BF16_FN __hip_bfloat16 __high2bfloat16(__hip_bfloat162 __v) { return __v.y; }
__PORTER_BF16_FN float __low2float(__hip_bfloat162 __v) { return __bfloat162float(__v.x); }
__PORTER_BF16_FN float __high2float(__hip_bfloat162 __v) { return __bfloat162float(__v.y); }
__PORTER_BF16_FN float2 __bfloat1622float2(__hip_bfloat162 __v) {
  return float2(__low2float(__v), __high2float(__v));
}
__PORTER_BF16_FN __hip_bfloat162 __float22bfloat162_rn(float2 __f) {
  return __floats2bfloat162_rn(__f.x, __f.y);
}

/* Scalar arithmetic: computed in float, rounded once to bf16. */
__PORTER_BF16_FN __hip_bfloat16 __hadd(__hip_bfloat16 __a, __hip_bfloat16 __b) {
  return __hip_bfloat16(float(__a) + float(__b));
}
__PORTER_BF16_FN __hip_bfloat16 __hsub(__hip_bfloat16 __a, __hip_bfloat16 __b) {
  return __hip_bfloat16(float(__a) - float(__b));
}
__PORTER_BF16_FN __hip_bfloat16 __hmul(__hip_bfloat16 __a, __hip_bfloat16 __b) {
  return __hip_bfloat16(float(__a) * float(__b));
}
__PORTER_BF16_FN __hip_bfloat16 __hdiv(__hip_bfloat16 __a, __hip_bfloat16 __b) {
  return __hip_bfloat16(float(__a) / float(__b));
}
__PORTER_BF16_FN __hip_bfloat16 __hfma(__hip_bfloat16 __a, __hip_bfloat16 __b,
                                       __hip_bfloat16 __c) {
  return __hip_bfloat16(__builtin_fmaf(float(__a), float(__b), float(__c)));
}
__PORTER_BF16_FN __hip_bfloat16 __hneg(__hip_bfloat16 __a) {
  return __ushort_as_bfloat16(__bfloat16_as_ushort(__a) ^ 0x8000u);
}
__PORTER_BF16_FN __hip_bfloat16 __habs(__hip_bfloat16 __a) {
  return __ushort_as_bfloat16(__bfloat16_as_ushort(__a) & 0x7fffu);
}
__PORTER_BF16_FN __hip_bfloat16 __hmax(__hip_bfloat16 __a, __hip_bfloat16 __b) {
  return __hip_bfloat16(__builtin_fmaxf(float(__a), float(__b)));
}
__PORTER_BF16_FN __hip_bfloat16 __hmin(__hip_bfloat16 __a, __hip_bfloat16 __b) {
  return __hip_bfloat16(__builtin_fminf(float(__a), float(__b)));
}

/* Comparisons (ordered, as documented: false when either operand is NaN, except ne). */
__PORTER_BF16_FN bool __heq(__hip_bfloat16 __a, __hip_bfloat16 __b) { return float(__a) == float(__b); }
__PORTER_BF16_FN bool __hne(__hip_bfloat16 __a, __hip_bfloat16 __b) { return float(__a) != float(__b); }
__PORTER_BF16_FN bool __hlt(__hip_bfloat16 __a, __hip_bfloat16 __b) { return float(__a) < float(__b); }
__PORTER_BF16_FN bool __hle(__hip_bfloat16 __a, __hip_bfloat16 __b) { return float(__a) <= float(__b); }
__PORTER_BF16_FN bool __hgt(__hip_bfloat16 __a, __hip_bfloat16 __b) { return float(__a) > float(__b); }
__PORTER_BF16_FN bool __hge(__hip_bfloat16 __a, __hip_bfloat16 __b) { return float(__a) >= float(__b); }
__PORTER_BF16_FN bool __hisnan(__hip_bfloat16 __a) { return __builtin_isnan(float(__a)); }
__PORTER_BF16_FN int __hisinf(__hip_bfloat16 __a) {
  float __f = float(__a);
  return __builtin_isinf(__f) ? (__f < 0 ? -1 : 1) : 0;
}

/* Paired arithmetic, lane by lane. */
__PORTER_BF16_FN __hip_bfloat162 __hadd2(__hip_bfloat162 __a, __hip_bfloat162 __b) {
  return __hip_bfloat162{__hadd(__a.x, __b.x), __hadd(__a.y, __b.y)};
}
__PORTER_BF16_FN __hip_bfloat162 __hsub2(__hip_bfloat162 __a, __hip_bfloat162 __b) {
  return __hip_bfloat162{__hsub(__a.x, __b.x), __hsub(__a.y, __b.y)};
}
__PORTER_BF16_FN __hip_bfloat162 __hmul2(__hip_bfloat162 __a, __hip_bfloat162 __b) {
  return __hip_bfloat162{__hmul(__a.x, __b.x), __hmul(__a.y, __b.y)};
}
__PORTER_BF16_FN __hip_bfloat162 __hfma2(__hip_bfloat162 __a, __hip_bfloat162 __b,
                                         __hip_bfloat162 __c) {
  return __hip_bfloat162{__hfma(__a.x, __b.x, __c.x), __hfma(__a.y, __b.y, __c.y)};
}

/* Operators, as ROCm 6.3 defines them for __hip_bfloat16. */
__PORTER_BF16_FN __hip_bfloat16 operator+(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __hadd(__a, __b); }
__PORTER_BF16_FN __hip_bfloat16 operator-(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __hsub(__a, __b); }
__PORTER_BF16_FN __hip_bfloat16 operator*(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __hmul(__a, __b); }
__PORTER_BF16_FN __hip_bfloat16 operator/(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __hdiv(__a, __b); }
__PORTER_BF16_FN __hip_bfloat16 operator-(__hip_bfloat16 __a) { return __hneg(__a); }
__PORTER_BF16_FN __hip_bfloat16& operator+=(__hip_bfloat16& __a, __hip_bfloat16 __b) { return __a = __hadd(__a, __b); }
__PORTER_BF16_FN __hip_bfloat16& operator-=(__hip_bfloat16& __a, __hip_bfloat16 __b) { return __a = __hsub(__a, __b); }
__PORTER_BF16_FN __hip_bfloat16& operator*=(__hip_bfloat16& __a, __hip_bfloat16 __b) { return __a = __hmul(__a, __b); }
__PORTER_BF16_FN __hip_bfloat16& operator/=(__hip_bfloat16& __a, __hip_bfloat16 __b) { return __a = __hdiv(__a, __b); }
__PORTER_BF16_FN bool operator==(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __heq(__a, __b); }
__PORTER_BF16_FN bool operator!=(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __hne(__a, __b); }
__PORTER_BF16_FN bool operator<(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __hlt(__a, __b); }
__PORTER_BF16_FN bool operator<=(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __hle(__a, __b); }
__PORTER_BF16_FN bool operator>(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __hgt(__a, __b); }
__PORTER_BF16_FN bool operator>=(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __hge(__a, __b); }
__PORTER_BF16_FN __hip_bfloat162 operator+(__hip_bfloat162 __a, __hip_bfloat162 __b) { return __hadd2(__a, __b); }
__PORTER_BF16_FN __hip_bfloat162 operator*(__hip_bfloat162 __a, __hip_bfloat162 __b) { return __hmul2(__a, __b); }

#undef __PORTER_BF16_FN
