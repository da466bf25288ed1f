// Speed of wave collectives under shims/hip_on_cuda vs the NVIDIA-platform control
// (-DPORTER_HOC_PLATFORM_NVIDIA: CUDA's warp shuffles). Built and run by
// bench/hip_on_cuda_collectives.sh; prints one line per case: name, ms per launch.
#include <hip/hip_runtime.h>
#include <cstdio>

template <int KIND>
__global__ void loop(float* out, int iters) {
  float x = threadIdx.x * 0.5f;
  for (int i = 0; i < iters; ++i) {
    if (KIND == 0) x += __shfl_xor(x, 1);          // within 32 lanes
    if (KIND == 1) x += __shfl_xor(x, 32 % warpSize == 0 ? warpSize / 2 : 1);  // crosses the warps of a wave
    if (KIND == 2) x += __shfl_down(x, 1u);         // full-width shuffle down
    if (KIND == 3) x += static_cast<float>(__ballot(x > 0.f) & 1ull);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// A 16-lane reduction inside `if (threadIdx.y == 0)` (legal on AMD): block (16, 16).
__global__ void divergent16(float* out) {
  float x = threadIdx.x + threadIdx.y;
  if (threadIdx.y == 0)
    for (int o = 8; o > 0; o /= 2) x += __shfl_down(x, static_cast<unsigned>(o), 16);
  out[blockIdx.x * 256 + threadIdx.y * 16 + threadIdx.x] = x;
}

template <class F>
float time_ms(F launch) {
  hipEvent_t a, b;
  hipEventCreate(&a);
  hipEventCreate(&b);
  launch();
  hipDeviceSynchronize();
  hipEventRecord(a);
  for (int r = 0; r < 5; ++r) launch();
  hipEventRecord(b);
  hipEventSynchronize(b);
  float ms = 0;
  hipEventElapsedTime(&ms, a, b);
  return ms / 5;
}

int main() {
  float* out;
  hipMalloc(&out, 1024 * 256 * sizeof(float));
  const int iters = 4096;
  printf("shfl_xor_in_warp %.4f\n", time_ms([&] { loop<0><<<132, 256>>>(out, iters); }));
  printf("shfl_xor_cross %.4f\n", time_ms([&] { loop<1><<<132, 256>>>(out, iters); }));
  printf("shfl_down_full %.4f\n", time_ms([&] { loop<2><<<132, 256>>>(out, iters); }));
  printf("ballot %.4f\n", time_ms([&] { loop<3><<<132, 256>>>(out, iters); }));
  printf("divergent16_1024blocks %.4f\n", time_ms([&] { divergent16<<<1024, dim3(16, 16)>>>(out); }));
  hipError_t e = hipDeviceSynchronize();
  printf("status %s\n", hipGetErrorString(e));
  return e == hipSuccess ? 0 : 1;
}
