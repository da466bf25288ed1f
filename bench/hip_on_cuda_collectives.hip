// Speed of wave collectives under shims/hip_on_cuda vs the NVIDIA-platform control
// (-DPORTER_HOC_PLATFORM_NVIDIA: CUDA's warp shuffles). Built and run by
// bench/hip_on_cuda_collectives.sh; prints one line per case: name, ms per launch.
#include <hip/hip_runtime.h>
#include <cstdio>
#if defined(PORTER_HOC_PLATFORM_NVIDIA)
#include <porter_hoc/cuda_begin.h>
#include <mma.h>
#include <porter_hoc/cuda_end.h>
#endif

template <int KIND>
__global__ void loop(float* out, int iters) {
  float x = threadIdx.x * 0.5f;
  for (int i = 0; i < iters; ++i) {
    if (KIND == 0) x += __shfl_xor(x, 1);          // within 32 lanes
    if (KIND == 1) x += __shfl_xor(x, warpSize / 2);  // half-wave exchange: crosses the warps of a wave
    if (KIND == 2) x += __shfl_down(x, 1u);         // full-width shuffle down
    if (KIND == 3) x += static_cast<float>(__ballot(x > 0.f) & 1ull);
    if (KIND == 4) {  // the wave barrier alone (the handshake of every collective, no data)
#if defined(PORTER_HOC_PLATFORM_NVIDIA)
      __syncwarp();
#else
      __builtin_amdgcn_wave_barrier();
#endif
      x += 1.f;
    }
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

// One wave's 32x32x16 bf16 matrix product per iteration: the emulated MFMA, or - in the
// NVIDIA-platform control - the same work on the tensor cores (WMMA 16x16x16, two per warp).
__global__ void matrix(float* out, int iters) {
#if !defined(PORTER_HOC_PLATFORM_NVIDIA)
  bf16x8 a, b;
  for (int r = 0; r < 8; ++r) {
    a[r] = __float2bfloat16(0.001f * (threadIdx.x + r));
    b[r] = __float2bfloat16(0.002f * (threadIdx.x - r));
  }
  floatx16 acc = {};
  for (int i = 0; i < iters; ++i) acc = __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, b, acc, 0, 0, 0);
  float s = 0;
  for (int e = 0; e < 16; ++e) s += acc[e];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
#else
  using namespace nvcuda;
  __shared__ __nv_bfloat16 tile[16 * 16];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) tile[i] = __float2bfloat16(0.001f * i);
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c0, c1;
  wmma::load_matrix_sync(fa, tile, 16);
  wmma::load_matrix_sync(fb, tile, 16);
  wmma::fill_fragment(c0, 0.f);
  wmma::fill_fragment(c1, 0.f);
  for (int i = 0; i < iters; ++i) {  // a warp pair = 4 x 16x16x16 = one 32x32x16 per iteration
    wmma::mma_sync(c0, fa, fb, c0);
    wmma::mma_sync(c1, fa, fb, c1);
  }
  float s = 0;
  for (int e = 0; e < c0.num_elements; ++e) s += c0.x[e] + c1.x[e];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
#endif
}

// A full-width (64-lane) collective under a branch that leaves the wave's other warp out (a
// wave32 idiom, legal on AMD: lanes 32-63 are inactive), which then exits: built through
// porter's hipcc (the exit guard) the collective sees the exit; built without, it waits the
// bounded time.
__global__ void divergent64(float* out) {
  float x = threadIdx.x;
  if (threadIdx.x < 32) x += __shfl_down(x, 1u);
  out[blockIdx.x * 64 + threadIdx.x] = x;
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
  printf("wave_barrier %.4f\n", time_ms([&] { loop<4><<<132, 256>>>(out, iters); }));
  printf("divergent16_1024blocks %.4f\n", time_ms([&] { divergent16<<<1024, dim3(16, 16)>>>(out); }));
  printf("divergent64_132blocks %.4f\n", time_ms([&] { divergent64<<<132, 64>>>(out); }));
  printf("mfma32x32x16_x256_512threads %.4f\n", time_ms([&] { matrix<<<132, 512>>>(out, 256); }));
  printf("launch_512 %s\n", hipGetErrorString(hipGetLastError()));
  hipError_t e = hipDeviceSynchronize();
  printf("status %s\n", hipGetErrorString(e));
  return e == hipSuccess ? 0 : 1;
}
