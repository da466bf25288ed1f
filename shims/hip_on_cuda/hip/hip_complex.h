/* porter hip_on_cuda: <hip/hip_complex.h> on CUDA's cuComplex.h (the same layout: two floats or
 * doubles), with HIP's names. */
#pragma once

#include <hip/hip_runtime.h>
#include <porter_hoc/cuda_begin.h>
#include <cuComplex.h>
#include <porter_hoc/cuda_end.h>

typedef cuFloatComplex hipFloatComplex;
typedef cuDoubleComplex hipDoubleComplex;
typedef cuComplex hipComplex;

__host__ __device__ inline float hipCrealf(hipFloatComplex z) { return cuCrealf(z); }
__host__ __device__ inline float hipCimagf(hipFloatComplex z) { return cuCimagf(z); }
__host__ __device__ inline hipFloatComplex make_hipFloatComplex(float r, float i) { return make_cuFloatComplex(r, i); }
__host__ __device__ inline hipFloatComplex hipConjf(hipFloatComplex z) { return cuConjf(z); }
__host__ __device__ inline float hipCsqabsf(hipFloatComplex z) { return z.x * z.x + z.y * z.y; }
__host__ __device__ inline hipFloatComplex hipCaddf(hipFloatComplex a, hipFloatComplex b) { return cuCaddf(a, b); }
__host__ __device__ inline hipFloatComplex hipCsubf(hipFloatComplex a, hipFloatComplex b) { return cuCsubf(a, b); }
__host__ __device__ inline hipFloatComplex hipCmulf(hipFloatComplex a, hipFloatComplex b) { return cuCmulf(a, b); }
__host__ __device__ inline hipFloatComplex hipCdivf(hipFloatComplex a, hipFloatComplex b) { return cuCdivf(a, b); }
__host__ __device__ inline float hipCabsf(hipFloatComplex z) { return cuCabsf(z); }
__host__ __device__ inline hipFloatComplex hipCfmaf(hipFloatComplex a, hipFloatComplex b, hipFloatComplex c) { return cuCfmaf(a, b, c); }
__host__ __device__ inline double hipCreal(hipDoubleComplex z) { return cuCreal(z); }
__host__ __device__ inline double hipCimag(hipDoubleComplex z) { return cuCimag(z); }
__host__ __device__ inline hipDoubleComplex make_hipDoubleComplex(double r, double i) { return make_cuDoubleComplex(r, i); }
__host__ __device__ inline hipDoubleComplex hipConj(hipDoubleComplex z) { return cuConj(z); }
__host__ __device__ inline double hipCsqabs(hipDoubleComplex z) { return z.x * z.x + z.y * z.y; }
__host__ __device__ inline hipDoubleComplex hipCadd(hipDoubleComplex a, hipDoubleComplex b) { return cuCadd(a, b); }
__host__ __device__ inline hipDoubleComplex hipCsub(hipDoubleComplex a, hipDoubleComplex b) { return cuCsub(a, b); }
__host__ __device__ inline hipDoubleComplex hipCmul(hipDoubleComplex a, hipDoubleComplex b) { return cuCmul(a, b); }
__host__ __device__ inline hipDoubleComplex hipCdiv(hipDoubleComplex a, hipDoubleComplex b) { return cuCdiv(a, b); }
__host__ __device__ inline double hipCabs(hipDoubleComplex z) { return cuCabs(z); }
__host__ __device__ inline hipDoubleComplex hipCfma(hipDoubleComplex a, hipDoubleComplex b, hipDoubleComplex c) { return cuCfma(a, b, c); }
__host__ __device__ inline hipFloatComplex make_hipComplex(float r, float i) { return make_cuFloatComplex(r, i); }
