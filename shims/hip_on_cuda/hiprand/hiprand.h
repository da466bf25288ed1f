/* porter hip_on_cuda: <hiprand/hiprand.h> (host API) on cuRAND, as hipRAND runs on its NVIDIA
 * platform: generator handles, seeds, quasi-random dimensions and the uniform / normal /
 * log-normal / Poisson / raw generators forward to cuRAND; statuses and generator types keep
 * cuRAND's values (hipRAND's NVIDIA backend defines them so). The numbers are cuRAND's
 * streams, not rocRAND's: a program may check their statistics, not their values. Link: -lcurand.
 */
#pragma once

#include <hip/hip_runtime.h>
#include <porter_hoc/cuda_begin.h>
#include <curand.h>
#include <porter_hoc/cuda_end.h>

typedef curandGenerator_t hiprandGenerator_t;
typedef curandStatus_t hiprandStatus_t;
typedef curandRngType_t hiprandRngType_t;
typedef curandOrdering_t hiprandOrdering_t;

#define HIPRAND_STATUS_SUCCESS CURAND_STATUS_SUCCESS
#define HIPRAND_STATUS_VERSION_MISMATCH CURAND_STATUS_VERSION_MISMATCH
#define HIPRAND_STATUS_NOT_INITIALIZED CURAND_STATUS_NOT_INITIALIZED
#define HIPRAND_STATUS_ALLOCATION_FAILED CURAND_STATUS_ALLOCATION_FAILED
#define HIPRAND_STATUS_TYPE_ERROR CURAND_STATUS_TYPE_ERROR
#define HIPRAND_STATUS_OUT_OF_RANGE CURAND_STATUS_OUT_OF_RANGE
#define HIPRAND_STATUS_LENGTH_NOT_MULTIPLE CURAND_STATUS_LENGTH_NOT_MULTIPLE
#define HIPRAND_STATUS_DOUBLE_PRECISION_REQUIRED CURAND_STATUS_DOUBLE_PRECISION_REQUIRED
#define HIPRAND_STATUS_LAUNCH_FAILURE CURAND_STATUS_LAUNCH_FAILURE
#define HIPRAND_STATUS_PREEXISTING_FAILURE CURAND_STATUS_PREEXISTING_FAILURE
#define HIPRAND_STATUS_INITIALIZATION_FAILED CURAND_STATUS_INITIALIZATION_FAILED
#define HIPRAND_STATUS_ARCH_MISMATCH CURAND_STATUS_ARCH_MISMATCH
#define HIPRAND_STATUS_INTERNAL_ERROR CURAND_STATUS_INTERNAL_ERROR
#define HIPRAND_STATUS_NOT_IMPLEMENTED ((curandStatus_t)1000)

#define HIPRAND_RNG_PSEUDO_DEFAULT CURAND_RNG_PSEUDO_DEFAULT
#define HIPRAND_RNG_PSEUDO_XORWOW CURAND_RNG_PSEUDO_XORWOW
#define HIPRAND_RNG_PSEUDO_MRG32K3A CURAND_RNG_PSEUDO_MRG32K3A
#define HIPRAND_RNG_PSEUDO_MTGP32 CURAND_RNG_PSEUDO_MTGP32
#define HIPRAND_RNG_PSEUDO_MT19937 CURAND_RNG_PSEUDO_MT19937
#define HIPRAND_RNG_PSEUDO_PHILOX4_32_10 CURAND_RNG_PSEUDO_PHILOX4_32_10
#define HIPRAND_RNG_QUASI_DEFAULT CURAND_RNG_QUASI_DEFAULT
#define HIPRAND_RNG_QUASI_SOBOL32 CURAND_RNG_QUASI_SOBOL32
#define HIPRAND_RNG_QUASI_SCRAMBLED_SOBOL32 CURAND_RNG_QUASI_SCRAMBLED_SOBOL32
#define HIPRAND_RNG_QUASI_SOBOL64 CURAND_RNG_QUASI_SOBOL64
#define HIPRAND_RNG_QUASI_SCRAMBLED_SOBOL64 CURAND_RNG_QUASI_SCRAMBLED_SOBOL64

inline hiprandStatus_t hiprandCreateGenerator(hiprandGenerator_t* g, hiprandRngType_t t) { return curandCreateGenerator(g, t); }
inline hiprandStatus_t hiprandCreateGeneratorHost(hiprandGenerator_t* g, hiprandRngType_t t) { return curandCreateGeneratorHost(g, t); }
inline hiprandStatus_t hiprandDestroyGenerator(hiprandGenerator_t g) { return curandDestroyGenerator(g); }
inline hiprandStatus_t hiprandSetStream(hiprandGenerator_t g, hipStream_t s) { return curandSetStream(g, s); }
inline hiprandStatus_t hiprandSetPseudoRandomGeneratorSeed(hiprandGenerator_t g, unsigned long long seed) {
  return curandSetPseudoRandomGeneratorSeed(g, seed);
}
inline hiprandStatus_t hiprandSetGeneratorOffset(hiprandGenerator_t g, unsigned long long o) { return curandSetGeneratorOffset(g, o); }
inline hiprandStatus_t hiprandSetQuasiRandomGeneratorDimensions(hiprandGenerator_t g, unsigned int d) {
  return curandSetQuasiRandomGeneratorDimensions(g, d);
}
inline hiprandStatus_t hiprandGenerate(hiprandGenerator_t g, unsigned int* o, size_t n) { return curandGenerate(g, o, n); }
inline hiprandStatus_t hiprandGenerateUniform(hiprandGenerator_t g, float* o, size_t n) { return curandGenerateUniform(g, o, n); }
inline hiprandStatus_t hiprandGenerateUniformDouble(hiprandGenerator_t g, double* o, size_t n) { return curandGenerateUniformDouble(g, o, n); }
inline hiprandStatus_t hiprandGenerateNormal(hiprandGenerator_t g, float* o, size_t n, float m, float s) { return curandGenerateNormal(g, o, n, m, s); }
inline hiprandStatus_t hiprandGenerateNormalDouble(hiprandGenerator_t g, double* o, size_t n, double m, double s) {
  return curandGenerateNormalDouble(g, o, n, m, s);
}
inline hiprandStatus_t hiprandGenerateLogNormal(hiprandGenerator_t g, float* o, size_t n, float m, float s) {
  return curandGenerateLogNormal(g, o, n, m, s);
}
inline hiprandStatus_t hiprandGeneratePoisson(hiprandGenerator_t g, unsigned int* o, size_t n, double l) { return curandGeneratePoisson(g, o, n, l); }
inline hiprandStatus_t hiprandGetVersion(int* v) { return curandGetVersion(v); }
