/* porter hip_on_cuda: <hip/hip_bfloat16.h>.
 *
 * Stands in for: ROCm's older hip_bfloat16.h, the struct `hip_bfloat16` (one uint16_t
 * `data`, conversions to and from float with round-to-nearest-even, arithmetic through
 * float), as rocBLAS-era code uses it. Written from that documented behaviour.
 */
#pragma once

#include <porter_hoc/all.h>

struct hip_bfloat16 {
  uint16_t data;

  hip_bfloat16() = default;
  __host__ __device__ explicit hip_bfloat16(float f) : data(round_to_bf16(f)) {}
  __host__ __device__ operator float() const {
    uint32_t u = static_cast<uint32_t>(data) << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
  }
  __host__ __device__ hip_bfloat16& operator=(float f) {
    data = round_to_bf16(f);
    return *this;
  }

  /* Round to nearest even; NaN stays a (quiet) NaN. */
  __host__ __device__ static uint16_t round_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return static_cast<uint16_t>((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
};
