// Kernel variants for bench/isa_rank.py: pairs of CUDA kernels that compute the same thing, timed
// on the GPU and ranked by porter.perfmodel.isa from their sm_90 SASS. Each family shares one
// problem; main() times every kernel (CUDA events, median of RUNS after WARMUP) and prints one
// line "TIME <kernel> <microseconds>" per kernel, plus "CHECK <kernel> <max error>".
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

constexpr int MM = 1024;               // matmul: C[MM x MM] = A * B, fp32
constexpr int RN = 1 << 24;            // reduction: sum of RN floats
constexpr int CN = 1 << 26;            // copy / scale: CN floats
constexpr int STRIDE = 33;             // strided copy: element i goes to (i * STRIDE) % CN
constexpr int WARMUP = 3, RUNS = 15;

// ---- matmul -------------------------------------------------------------------------------
__global__ void mm_naive(const float* a, const float* b, float* c, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
  for (int k = 0; k < n; ++k) s += a[row * n + k] * b[k * n + col];
  c[row * n + col] = s;
}
// threadIdx.x walks rows: the B and C accesses of a warp are no longer contiguous
__global__ void mm_naive_rowwalk(const float* a, const float* b, float* c, int n) {
  int col = blockIdx.y * blockDim.y + threadIdx.y, row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
  for (int k = 0; k < n; ++k) s += a[row * n + k] * b[k * n + col];
  c[row * n + col] = s;
}
template <int T>
__global__ void mm_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float as[T][T], bs[T][T];
  int ty = threadIdx.y, tx = threadIdx.x, row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float s = 0.f;
  for (int k0 = 0; k0 < n; k0 += T) {
    as[ty][tx] = a[row * n + k0 + tx];
    bs[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k) s += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = s;
}
// 64x64 block tile, 16x16 threads, 4x4 outputs per thread
__global__ void mm_reg4x4(const float* a, const float* b, float* c, int n) {
  __shared__ float as[16][64], bs[16][64];
  int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
  int r0 = blockIdx.y * 64, c0 = blockIdx.x * 64;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < n; k0 += 16) {
    for (int i = t; i < 16 * 64; i += 256) {
      int kk = i / 64, mm = i % 64;
      as[kk][mm] = a[(r0 + mm) * n + k0 + kk];
      bs[kk][mm] = b[(k0 + kk) * n + c0 + mm];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      float av[4], bv[4];
      for (int i = 0; i < 4; ++i) av[i] = as[k][ty * 4 + i];
      for (int j = 0; j < 4; ++j) bv[j] = bs[k][tx * 4 + j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) c[(r0 + ty * 4 + i) * n + c0 + tx * 4 + j] = acc[i][j];
}

// ---- reduction ----------------------------------------------------------------------------
__global__ void red_atomic(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}
template <int B>
__global__ void red_tree(const float* x, float* out, int n) {
  __shared__ float s[B];
  int i = blockIdx.x * B + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  for (int w = B / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
// grid-stride, float4 loads, warp shuffles, one atomic per warp
__global__ void red_shfl_vec4(const float* x, float* out, int n) {
  float s = 0.f;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += gridDim.x * blockDim.x) {
    float4 v = x4[i];
    s += v.x + v.y + v.z + v.w;
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}
// grid-stride, scalar loads, one element per iteration, no unrolling
__global__ void red_shfl_scalar(const float* x, float* out, int n) {
  float s = 0.f;
#pragma unroll 1
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

// ---- copy ---------------------------------------------------------------------------------
__global__ void copy_scalar(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
__global__ void copy_vec4(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) reinterpret_cast<float4*>(y)[i] = reinterpret_cast<const float4*>(x)[i];
}
__global__ void copy_strided(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[static_cast<int>((static_cast<long long>(i) * STRIDE) % n)] = x[i];
}
// one block-sized chunk per thread block, 8 elements per thread in a rolled loop
__global__ void copy_loop8(const float* x, float* y, int n) {
  int base = blockIdx.x * blockDim.x * 8 + threadIdx.x;
#pragma unroll 1
  for (int j = 0; j < 8; ++j) {
    int i = base + j * blockDim.x;
    if (i < n) y[i] = x[i];
  }
}

// ---- timing -------------------------------------------------------------------------------
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
  float *a, *b, *c, *x, *y, *out;
  cudaMalloc(&a, sizeof(float) * MM * MM);
  cudaMalloc(&b, sizeof(float) * MM * MM);
  cudaMalloc(&c, sizeof(float) * MM * MM);
  cudaMalloc(&x, sizeof(float) * CN);
  cudaMalloc(&y, sizeof(float) * CN);
  cudaMalloc(&out, sizeof(float));
  std::vector<float> h(CN);
  for (int i = 0; i < CN; ++i) h[i] = static_cast<float>((i * 7) % 13 - 6) / 8.0f;
  cudaMemcpy(x, h.data(), sizeof(float) * CN, cudaMemcpyHostToDevice);
  cudaMemcpy(a, h.data(), sizeof(float) * MM * MM, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data() + 5, sizeof(float) * MM * MM, cudaMemcpyHostToDevice);

  dim3 b16(16, 16), g16(MM / 16, MM / 16), b32(32, 32), g32(MM / 32, MM / 32), g64(MM / 64, MM / 64);
  timeit("mm_naive", [&] { mm_naive<<<g16, b16>>>(a, b, c, MM); });
  timeit("mm_naive_rowwalk", [&] { mm_naive_rowwalk<<<g16, b16>>>(a, b, c, MM); });
  timeit("mm_tiled16", [&] { mm_tiled<16><<<g16, b16>>>(a, b, c, MM); });
  timeit("mm_tiled32", [&] { mm_tiled<32><<<g32, b32>>>(a, b, c, MM); });
  timeit("mm_reg4x4", [&] { mm_reg4x4<<<g64, b16>>>(a, b, c, MM); });

  timeit("red_atomic", [&] { red_atomic<<<RN / 256, 256>>>(x, out, RN); }, out);
  timeit("red_tree256", [&] { red_tree<256><<<RN / 256, 256>>>(x, out, RN); }, out);
  timeit("red_tree1024", [&] { red_tree<1024><<<RN / 1024, 1024>>>(x, out, RN); }, out);
  timeit("red_shfl_vec4", [&] { red_shfl_vec4<<<1056, 256>>>(x, out, RN); }, out);
  timeit("red_shfl_scalar", [&] { red_shfl_scalar<<<1056, 256>>>(x, out, RN); }, out);

  timeit("copy_scalar", [&] { copy_scalar<<<CN / 256, 256>>>(x, y, CN); });
  timeit("copy_vec4", [&] { copy_vec4<<<CN / 4 / 256, 256>>>(x, y, CN); });
  timeit("copy_strided", [&] { copy_strided<<<CN / 256, 256>>>(x, y, CN); });
  timeit("copy_loop8", [&] { copy_loop8<<<CN / 8 / 256, 256>>>(x, y, CN); });
  return 0;
}
