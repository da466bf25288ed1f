// C = A * B + C with PTX mma.sync.m16n8k16 in the two K loop nests MFMA002 pairs (issue 18, item 5):
// `f16_tiles` calls a wrapper function (the asm its whole body) as mma_f16(acc[n], a[k], b[k][n],
// acc[n]) over 2 k steps x 2 n8 tiles (a 16 x 16 warp tile); `bf16_tiles` writes the asm itself in
// the nest, over 4 n8 tiles x 2 k steps (16 x 32). Fragments come straight from global memory in
// NVIDIA's per-thread layout (PTX ISA, m16n8k16 fragments). One warp per warp tile, 2 warps per
// block: the tile counts are odd, so the last block's second warp leaves and its wave is split.
//   mma_pairs [exact|random]   exact: inputs exact in 16 bits (expected error 0); random: normal
//   values, checked against a float64 CPU GEMM within the float32 summation bound.
// bench/mfma_pairing_isa.py ports and compiles it for gfx950; docs/evidence/build_mfma_pairing_h200.sh
// builds the port for the H200 through shims/hip_on_cuda.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

constexpr int M = 80, K = 96;       // 5 row tiles; K = 3 chunks of 2 k16 steps
constexpr int N16 = 48, N32 = 96;  // f16: 5 x 3 = 15 warp tiles; bf16: 5 x 3 = 15
constexpr int WIDE = 32;           // bf16_tiles: the warp tile's width (4 n8 tiles)
#define K_STEPS 2

#define CHECK(call)                                                \
  do {                                                             \
    cudaError_t err_ = (call);                                     \
    if (err_ != cudaSuccess) {                                     \
      std::printf("FAIL mma_pairs %s\n", cudaGetErrorString(err_)); \
      std::exit(1);                                                \
    }                                                              \
  } while (0)

__device__ void mma_f16(float* d, const uint32_t* a, const uint32_t* b, const float* c) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%11,%12,%13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
        "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}

// Two 16-bit elements of a row-major matrix as one register, the first in the low half.
__device__ uint32_t pack(const uint16_t* m, int ld, int r0, int c0, int r1, int c1) {
  return uint32_t(m[r0 * ld + c0]) | (uint32_t(m[r1 * ld + c1]) << 16);
}

// A fragment of the 16 x 16 A block at (row0, k0): a[p] = {A[g + 8 (p & 1)][2q + 8 (p >> 1) + e]}.
__device__ void load_a(uint32_t* a, const uint16_t* A, int row0, int k0, int lane) {
  const int g = lane / 4, q = lane % 4;
  for (int p = 0; p < 4; ++p) {
    const int r = row0 + g + 8 * (p & 1), c = k0 + 2 * q + 8 * (p >> 1);
    a[p] = pack(A, K, r, c, r, c + 1);
  }
}

// B fragment of the 16 x 8 B block at (k0, col0): b[p] = {B[2q + 8p + e][g]}.
__device__ void load_b(uint32_t* b, const uint16_t* B, int ldb, int k0, int col0, int lane) {
  const int g = lane / 4, q = lane % 4;
  for (int p = 0; p < 2; ++p) {
    const int r = k0 + 2 * q + 8 * p;
    b[p] = pack(B, ldb, r, col0 + g, r + 1, col0 + g);
  }
}

__global__ void f16_tiles(const uint16_t* A, const uint16_t* B, float* C) {
  const int warp = blockIdx.x * 2 + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= (M / 16) * (N16 / 16)) return;  // the last block's second warp has no tile
  const int row0 = (warp / (N16 / 16)) * 16, col0 = (warp % (N16 / 16)) * 16;
  const int g = lane / 4, q = lane % 4;
  float acc[2][4];
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 4; ++i) acc[n][i] = C[(row0 + g + 8 * (i >> 1)) * N16 + col0 + 8 * n + 2 * q + (i & 1)];
  for (int k0 = 0; k0 < K; k0 += 16 * K_STEPS) {
    uint32_t a[K_STEPS][4], b[K_STEPS][2][2];
    for (int k = 0; k < K_STEPS; ++k) {
      load_a(a[k], A, row0, k0 + 16 * k, lane);
      for (int n = 0; n < 2; ++n) load_b(b[k][n], B, N16, k0 + 16 * k, col0 + 8 * n, lane);
    }
#pragma unroll
    for (int k = 0; k < K_STEPS; ++k) {
#pragma unroll
      for (int n = 0; n < 2; ++n) {
        mma_f16(acc[n], a[k], b[k][n], acc[n]);
      }
    }
  }
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 4; ++i) C[(row0 + g + 8 * (i >> 1)) * N16 + col0 + 8 * n + 2 * q + (i & 1)] = acc[n][i];
}

__global__ void bf16_tiles(const uint16_t* A, const uint16_t* B, float* C) {
  const int warp = blockIdx.x * 2 + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= (M / 16) * (N32 / WIDE)) return;
  const int row0 = (warp / (N32 / WIDE)) * 16, col0 = (warp % (N32 / WIDE)) * WIDE;
  const int g = lane / 4, q = lane % 4;
  float acc[4][4];
  for (int n = 0; n < 4; ++n)
    for (int i = 0; i < 4; ++i) acc[n][i] = C[(row0 + g + 8 * (i >> 1)) * N32 + col0 + 8 * n + 2 * q + (i & 1)];
  for (int k0 = 0; k0 < K; k0 += 16 * 2) {
    uint32_t a[2][4], b[2][4][2];
    for (int k = 0; k < 2; ++k) {
      load_a(a[k], A, row0, k0 + 16 * k, lane);
      for (int n = 0; n < 4; ++n) load_b(b[k][n], B, N32, k0 + 16 * k, col0 + 8 * n, lane);
    }
#pragma unroll
    for (int n = 0; n < 4; n++)
#pragma unroll
      for (int k = 0; k < 2; k++)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(acc[n][0]), "+f"(acc[n][1]), "+f"(acc[n][2]), "+f"(acc[n][3])
                     : "r"(a[k][0]), "r"(a[k][1]), "r"(a[k][2]), "r"(a[k][3]), "r"(b[k][n][0]), "r"(b[k][n][1]));
  }
  for (int n = 0; n < 4; ++n)
    for (int i = 0; i < 4; ++i) C[(row0 + g + 8 * (i >> 1)) * N32 + col0 + 8 * n + 2 * q + (i & 1)] = acc[n][i];
}

static uint16_t bits(float x, bool bf16) {
  uint16_t out;
  if (bf16) {
    const __nv_bfloat16 h = __float2bfloat16(x);
    std::memcpy(&out, &h, 2);
  } else {
    const __half h = __float2half(x);
    std::memcpy(&out, &h, 2);
  }
  return out;
}

static float value(uint16_t u, bool bf16) {
  if (bf16) {
    __nv_bfloat16 h;
    std::memcpy(&h, &u, 2);
    return __bfloat162float(h);
  }
  __half h;
  std::memcpy(&h, &u, 2);
  return __half2float(h);
}

// One kernel: inputs, launch, check against float64. Returns whether it passed.
static bool run(const char* name, bool bf16, int n, bool exact, std::mt19937& rng) {
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> small(-8, 8);
  auto draw = [&] { return exact ? small(rng) / 8.0f : normal(rng); };
  std::vector<uint16_t> ha(M * K), hb(K * n);
  std::vector<float> hc(M * n);
  for (auto& x : ha) x = bits(draw(), bf16);
  for (auto& x : hb) x = bits(draw(), bf16);
  for (auto& x : hc) x = draw();
  std::vector<double> ref(M * n), bound(M * n);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < n; ++j) {
      double s = hc[i * n + j], mag = std::fabs(hc[i * n + j]);
      for (int p = 0; p < K; ++p) {
        const double prod = double(value(ha[i * K + p], bf16)) * value(hb[p * n + j], bf16);
        s += prod;
        mag += std::fabs(prod);
      }
      ref[i * n + j] = s;
      bound[i * n + j] = (K + 1) * std::ldexp(1.0, -24) * mag;  // float32 summation of K + 1 terms
    }
  uint16_t *da, *db;
  float* dc;
  CHECK(cudaMalloc(&da, ha.size() * 2));
  CHECK(cudaMalloc(&db, hb.size() * 2));
  CHECK(cudaMalloc(&dc, hc.size() * 4));
  CHECK(cudaMemcpy(da, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice));
  const int tiles = (M / 16) * (n / (bf16 ? WIDE : 16));
  if (bf16)
    bf16_tiles<<<(tiles + 1) / 2, 64>>>(da, db, dc);
  else
    f16_tiles<<<(tiles + 1) / 2, 64>>>(da, db, dc);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hc.data(), dc, hc.size() * 4, cudaMemcpyDeviceToHost));
  double max_err = 0.0, worst = 0.0, sum = 0.0;
  for (int i = 0; i < M * n; ++i) {
    const double err = std::fabs(double(hc[i]) - ref[i]);
    max_err = std::fmax(max_err, err);
    worst = std::fmax(worst, err / bound[i]);
    sum += hc[i];
  }
  const bool ok = exact ? max_err == 0.0 : worst <= 1.0;
  std::printf("%s %s %s M=%d N=%d K=%d: max_err=%g error/bound=%.4g checksum=%.9g\n", ok ? "PASS" : "FAIL", name,
              exact ? "exact" : "random", M, n, K, max_err, worst, sum);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return ok;
}

int main(int argc, char** argv) {
  const bool exact = argc < 2 || std::strcmp(argv[1], "random") != 0;
  std::mt19937 rng(18);
  const bool f16 = run("f16_tiles", false, N16, exact, rng);
  const bool bf16 = run("bf16_tiles", true, N32, exact, rng);
  return f16 && bf16 ? 0 : 1;
}
