// Held-out kernel variants for bench/isa_rank.py (--set heldout): written after the method was
// set on variants.cu, and timed once, to score it on kernels it was not shaped on. Same output
// format: "TIME <kernel> <microseconds>" (CUDA events, median of RUNS after WARMUP).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

constexpr int TN = 4096;        // transpose: TN x TN floats
constexpr int SN = 1 << 25;     // stencil / saxpy / dot: SN floats
constexpr int MR = 8192;        // matvec: MR x MR floats
constexpr int WARMUP = 3, RUNS = 15;

__global__ void tr_naive(const float* in, float* out, int n) {
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[x * n + y + j] = in[(y + j) * n + x];
}
template <int PAD>
__global__ void tr_shared(const float* in, float* out, int n) {
  __shared__ float t[32][32 + PAD];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) t[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = t[threadIdx.x][threadIdx.y + j];
}

__global__ void st_global(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 3 && i < n - 3) out[i] = in[i - 3] + in[i - 2] + in[i - 1] + in[i] + in[i + 1] + in[i + 2] + in[i + 3];
}
__global__ void st_shared(const float* in, float* out, int n) {
  __shared__ float s[256 + 6];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x + 3] = in[i];
  if (threadIdx.x < 3) {
    s[threadIdx.x] = i >= 3 ? in[i - 3] : 0.f;
    s[threadIdx.x + 259] = i + 256 < n ? in[i + 256] : 0.f;
  }
  __syncthreads();
  if (i >= 3 && i < n - 3) {
    float a = 0.f;
    for (int k = 0; k < 7; ++k) a += s[threadIdx.x + k];
    out[i] = a;
  }
}

__global__ void saxpy_scalar(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void saxpy_vec4(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) {
    float4 xv = reinterpret_cast<const float4*>(x)[i], yv = reinterpret_cast<float4*>(y)[i];
    yv.x = a * xv.x + yv.x; yv.y = a * xv.y + yv.y; yv.z = a * xv.z + yv.z; yv.w = a * xv.w + yv.w;
    reinterpret_cast<float4*>(y)[i] = yv;
  }
}
// each thread a contiguous chunk of 16: neighbouring lanes 64 bytes apart
__global__ void saxpy_chunked(float a, const float* x, float* y, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  for (int j = 0; j < 16; ++j) if (base + j < n) y[base + j] = a * x[base + j] + y[base + j];
}

__global__ void mv_row_per_thread(const float* m, const float* v, float* out, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
  for (int c = 0; c < n; ++c) s += m[r * n + c] * v[c];
  out[r] = s;
}
__global__ void mv_row_per_warp(const float* m, const float* v, float* out, int n) {
  int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  float s = 0.f;
  for (int c = lane; c < n; c += 32) s += m[r * n + c] * v[c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) out[r] = s;
}

__global__ void dot_block(const float* x, const float* y, float* out, int n) {
  __shared__ float s[256];
  float a = 0.f;
  for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += gridDim.x * 256) a += x[i] * y[i];
  s[threadIdx.x] = a;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
__global__ void dot_thread_atomic(const float* x, const float* y, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i] * y[i]);
}

template <typename F>
static void timeit(const char* name, F launch, float* zero = nullptr) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> ms;
  for (int r = 0; r < WARMUP + RUNS; ++r) {
    if (zero) cudaMemset(zero, 0, sizeof(float));
    cudaEventRecord(e0);
    launch();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float t;
    cudaEventElapsedTime(&t, e0, e1);
    if (r >= WARMUP) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) { std::printf("FAIL %s %s\n", name, cudaGetErrorString(err)); std::exit(1); }
  std::printf("TIME %s %.3f\n", name, ms[ms.size() / 2] * 1000.0);
}

int main() {
  float *a, *b, *c, *out;
  size_t big = std::max<size_t>(size_t(MR) * MR, std::max<size_t>(size_t(TN) * TN, SN));
  cudaMalloc(&a, big * sizeof(float));
  cudaMalloc(&b, big * sizeof(float));
  cudaMalloc(&c, big * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  cudaMemset(a, 0, big * sizeof(float));
  cudaMemset(b, 0, big * sizeof(float));
  dim3 tb(32, 8), tg(TN / 32, TN / 32);
  timeit("tr_naive", [&] { tr_naive<<<tg, tb>>>(a, b, TN); });
  timeit("tr_shared", [&] { tr_shared<0><<<tg, tb>>>(a, b, TN); });
  timeit("tr_shared_pad", [&] { tr_shared<1><<<tg, tb>>>(a, b, TN); });
  timeit("st_global", [&] { st_global<<<SN / 256, 256>>>(a, b, SN); });
  timeit("st_shared", [&] { st_shared<<<SN / 256, 256>>>(a, b, SN); });
  timeit("saxpy_scalar", [&] { saxpy_scalar<<<SN / 256, 256>>>(2.f, a, b, SN); });
  timeit("saxpy_vec4", [&] { saxpy_vec4<<<SN / 4 / 256, 256>>>(2.f, a, b, SN); });
  timeit("saxpy_chunked", [&] { saxpy_chunked<<<SN / 16 / 256, 256>>>(2.f, a, b, SN); });
  timeit("mv_row_per_thread", [&] { mv_row_per_thread<<<MR / 256, 256>>>(a, b, c, MR); });
  timeit("mv_row_per_warp", [&] { mv_row_per_warp<<<MR / 8, 256>>>(a, b, c, MR); });
  timeit("dot_block", [&] { dot_block<<<1056, 256>>>(a, b, out, SN); }, out);
  timeit("dot_thread_atomic", [&] { dot_thread_atomic<<<SN / 256, 256>>>(a, b, out, SN); }, out);
  return 0;
}
