/* porter hip_on_cuda: <hiprand/hiprand_kernel.h> (device API) on cuRAND's device API, as hipRAND
 * runs on its NVIDIA platform: the generator states are cuRAND's, hiprand_init / hiprand /
 * hiprand_uniform / hiprand_normal (and their double, 2- and 4-wide forms) call curand_*. The
 * numbers are cuRAND's sequences, not rocRAND's: check statistics, not values. */
#pragma once

#include <hiprand/hiprand.h>
#include <porter_hoc/cuda_begin.h>
#include <curand_kernel.h>
#include <porter_hoc/cuda_end.h>

typedef curandState_t hiprandState_t;
typedef curandState_t hiprandState;
typedef curandStateXORWOW_t hiprandStateXORWOW_t;
typedef curandStatePhilox4_32_10_t hiprandStatePhilox4_32_10_t;
typedef curandStateMRG32k3a_t hiprandStateMRG32k3a_t;
typedef curandStateSobol32_t hiprandStateSobol32_t;

template <class State>
__device__ inline void hiprand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                                    State* state) {
  curand_init(seed, subsequence, offset, state);
}
template <class State>
__device__ inline unsigned int hiprand(State* s) { return curand(s); }
template <class State>
__device__ inline float hiprand_uniform(State* s) { return curand_uniform(s); }
template <class State>
__device__ inline double hiprand_uniform_double(State* s) { return curand_uniform_double(s); }
template <class State>
__device__ inline float hiprand_normal(State* s) { return curand_normal(s); }
template <class State>
__device__ inline double hiprand_normal_double(State* s) { return curand_normal_double(s); }
template <class State>
__device__ inline float2 hiprand_normal2(State* s) { return curand_normal2(s); }
template <class State>
__device__ inline float hiprand_log_normal(State* s, float mean, float stddev) { return curand_log_normal(s, mean, stddev); }
template <class State>
__device__ inline unsigned int hiprand_poisson(State* s, double lambda) { return curand_poisson(s, lambda); }
__device__ inline float4 hiprand_uniform4(hiprandStatePhilox4_32_10_t* s) { return curand_uniform4(s); }
__device__ inline float4 hiprand_normal4(hiprandStatePhilox4_32_10_t* s) { return curand_normal4(s); }
__device__ inline uint4 hiprand4(hiprandStatePhilox4_32_10_t* s) { return curand4(s); }
/* skipahead / skipahead_sequence: cuRAND's, the same names. */
