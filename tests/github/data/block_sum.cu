// block_sum.cu: one sum per block of a float array, a warp-shuffle tree per warp.
#include <cuda_runtime.h>

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / warpSize ? partial[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

void launch_block_sum(const float* in, float* out, int n, cudaStream_t stream) {
  block_sum<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n);
}
