// MFMA005's paired K loop against the unpaired one on values that round (issue 18, item 5):
// the same wmma tile kernel with the loop as MFMA001 alone leaves it and as MFMA005 writes it,
// on random f16 inputs, compared with each other and with a float64 CPU reference. The products
// are the same; the float sums are added in another order, so they agree within a tolerance.
// M 80 x N 48 leaves edge warps whose wave partner exits (split waves: the VALU path); K 272 is 17
// steps (an odd last step, paired with a zero half).
// Built with nvcc against shims/hip_on_cuda (docs/evidence/build_mfma_pairing_h200.sh); the gfx950
// build is `clang++-22 -x hip --offload-arch=gfx950` with the same include.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
#include "porter_compat.h"

namespace wmma = porter_wmma;
constexpr int M = 80, N = 48, K = 272, TILE = 16;

template <bool Paired>
__global__ void tile_gemm(const half* a, const half* b, float* c, int m, int n, int k) {
  const int warp = threadIdx.x / 32;
  const int tileRow = (blockIdx.y * 2 + warp / 2) * TILE;
  const int tileCol = (blockIdx.x * 2 + warp % 2) * TILE;
  if (tileRow >= m || tileCol >= n) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> aFrag;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> bFrag;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  if (!Paired) {
    for (int kk = 0; kk < k; kk += TILE) {
      wmma::load_matrix_sync(aFrag, a + tileRow * k + kk, k);
      wmma::load_matrix_sync(bFrag, b + tileCol * k + kk, k);
      wmma::mma_sync(acc, aFrag, bFrag, acc);
    }
  } else {  // MFMA005's rewrite of the loop above
    for (int kk = 0; kk < k; kk += 2 * TILE) {
      wmma::load_matrix_sync(aFrag, a + tileRow * k + kk, k);
      wmma::load_matrix_sync(bFrag, b + tileCol * k + kk, k);
      decltype(aFrag) aFrag_k1;
      decltype(bFrag) bFrag_k1;
      if ((kk + TILE) < k) {
        wmma::load_matrix_sync(aFrag_k1, a + tileRow * k + (kk + TILE), k);
        wmma::load_matrix_sync(bFrag_k1, b + tileCol * k + (kk + TILE), k);
      } else {
        porter_wmma::zero_fragment(aFrag_k1);
        porter_wmma::zero_fragment(bFrag_k1);
      }
      wmma::mma_sync_k32(acc, aFrag, bFrag, aFrag_k1, bFrag_k1, acc);
    }
  }
  wmma::store_matrix_sync(c + tileRow * n + tileCol, acc, n, wmma::mem_row_major);
}

int main() {
  std::mt19937 rng(18);
  std::normal_distribution<float> normal;
  std::vector<half> ha(M * K), hb(K * N);  // hb column-major: hb[col * K + row]
  for (auto& x : ha) x = __float2half(normal(rng));
  for (auto& x : hb) x = __float2half(normal(rng));
  std::vector<double> ref(M * N), scale(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0, mag = 0;
      for (int p = 0; p < K; ++p) {
        const double prod = double(__half2float(ha[i * K + p])) * __half2float(hb[j * K + p]);
        s += prod;
        mag += std::fabs(prod);
      }
      ref[i * N + j] = s;
      scale[i * N + j] = mag;
    }
  half *da, *db;
  float *dc0, *dc1;
  hipMalloc(&da, ha.size() * sizeof(half));
  hipMalloc(&db, hb.size() * sizeof(half));
  hipMalloc(&dc0, M * N * sizeof(float));
  hipMalloc(&dc1, M * N * sizeof(float));
  hipMemcpy(da, ha.data(), ha.size() * sizeof(half), hipMemcpyHostToDevice);
  hipMemcpy(db, hb.data(), hb.size() * sizeof(half), hipMemcpyHostToDevice);
  dim3 grid((N + 31) / 32, (M + 31) / 32);
  tile_gemm<false><<<grid, 128>>>(da, db, dc0, M, N, K);
  tile_gemm<true><<<grid, 128>>>(da, db, dc1, M, N, K);
  if (hipDeviceSynchronize() != hipSuccess) {
    std::printf("FAIL mfma_pairing launch\n");
    return 1;
  }
  std::vector<float> unpaired(M * N), paired(M * N);
  hipMemcpy(unpaired.data(), dc0, M * N * sizeof(float), hipMemcpyDeviceToHost);
  hipMemcpy(paired.data(), dc1, M * N * sizeof(float), hipMemcpyDeviceToHost);
  // float32 sums of K products: each order is within K * 2^-24 * sum|products| of the exact value.
  double worst_pu = 0, worst_pr = 0, worst_ur = 0, max_diff = 0;
  int differ = 0;
  for (int i = 0; i < M * N; ++i) {
    const double bound = K * std::ldexp(1.0, -24) * scale[i];
    worst_pu = std::fmax(worst_pu, std::fabs(double(paired[i]) - unpaired[i]) / bound);
    worst_pr = std::fmax(worst_pr, std::fabs(double(paired[i]) - ref[i]) / bound);
    worst_ur = std::fmax(worst_ur, std::fabs(double(unpaired[i]) - ref[i]) / bound);
    max_diff = std::fmax(max_diff, std::fabs(double(paired[i]) - unpaired[i]));
    differ += paired[i] != unpaired[i];
  }
  const bool ok = worst_pu <= 2.0 && worst_pr <= 1.0 && worst_ur <= 1.0;
  std::printf("%s mfma_pairing M=%d N=%d K=%d: paired vs unpaired max |diff| %.3g (%d of %d differ), "
              "error / bound: paired-unpaired %.3g, paired-ref %.3g, unpaired-ref %.3g\n",
              ok ? "PASS" : "FAIL", M, N, K, max_diff, differ, M * N, worst_pu, worst_pr, worst_ur);
  return ok ? 0 : 1;
}
