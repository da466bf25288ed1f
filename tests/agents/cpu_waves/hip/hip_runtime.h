/* tests/agents/cpu_waves: a CPU model of HIP's execution for testing porter's compat headers.
 *
 * One std::thread per GPU thread, one block at a time; waves of PORTER_CPU_WAVE lanes (64 unless
 * -D says otherwise, 32 to model a wave32 target). Models only what shims/compat/
 * multi_wave_tile.h and its fixture use: threadIdx/blockIdx/blockDim, __syncthreads, __shared__
 * (a static local: one block runs at a time), clang's __hip_atomic_* on GCC's __atomic builtins,
 * __shfl / __shfl_down / __shfl_up / __shfl_xor with a width (every lane of the wave calls, as
 * AMD's lockstep waves do), __builtin_amdgcn_wave_barrier (a barrier of the wave's threads),
 * s_sleep as a yield, and the host API calls the fixture makes (memory is host memory). A wait
 * that relies on ordering the model does not give shows up as a wrong value or a hang, which the
 * test bounds with a timeout. Not a HIP implementation: nothing else is declared.
 */
#pragma once

#include <atomic>
#include <barrier>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#ifndef PORTER_CPU_WAVE
#define PORTER_CPU_WAVE 64
#endif
#define __AMDGCN_WAVEFRONT_SIZE PORTER_CPU_WAVE
#define __device__
#define __host__
#define __global__
#define __shared__ static
#define __HIP_MEMORY_SCOPE_WORKGROUP 3

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

namespace porter_cpu {
inline thread_local dim3 thread_idx;
inline thread_local dim3 block_idx;
inline dim3 block_dim, grid_dim;
inline std::unique_ptr<std::barrier<>> block_barrier;
inline std::vector<std::unique_ptr<std::barrier<>>> wave_barriers;
inline std::vector<unsigned long long> lanes;  // one exchange word per thread of the block

inline unsigned rank() { return thread_idx.x + block_dim.x * (thread_idx.y + block_dim.y * thread_idx.z); }
inline void wave_sync() { wave_barriers[rank() / PORTER_CPU_WAVE]->arrive_and_wait(); }

template <class T>
T exchange(T v, unsigned src_lane) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "cpu_waves: shuffles of up to 8 bytes");
  const unsigned me = rank(), base = me / PORTER_CPU_WAVE * PORTER_CPU_WAVE;
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  wave_sync();
  lanes[me] = bits;
  wave_sync();
  const unsigned long long got = lanes[base + src_lane % PORTER_CPU_WAVE];
  wave_sync();
  T r;
  std::memcpy(&r, &got, sizeof(T));
  return r;
}

template <class... Args>
void launch(void (*kernel)(Args...), dim3 grid, dim3 block, Args... args) {
  const unsigned n = block.x * block.y * block.z;
  block_dim = block;
  grid_dim = grid;
  block_barrier = std::make_unique<std::barrier<>>(n);
  wave_barriers.clear();
  for (unsigned w = 0; w * PORTER_CPU_WAVE < n; ++w)
    wave_barriers.push_back(std::make_unique<std::barrier<>>(std::min<unsigned>(PORTER_CPU_WAVE, n - w * PORTER_CPU_WAVE)));
  lanes.assign(n, 0);
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < n; ++t)
          threads.emplace_back([=] {
            thread_idx = dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
            block_idx = dim3(bx, by, bz);
            kernel(args...);
          });
        for (auto& th : threads) th.join();
      }
}
}  // namespace porter_cpu

#define threadIdx (::porter_cpu::thread_idx)
#define blockIdx (::porter_cpu::block_idx)
#define blockDim (::porter_cpu::block_dim)
#define gridDim (::porter_cpu::grid_dim)
constexpr int warpSize = PORTER_CPU_WAVE;

inline void __syncthreads() { porter_cpu::block_barrier->arrive_and_wait(); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __builtin_amdgcn_wave_barrier() { porter_cpu::wave_sync(); }
inline void __builtin_amdgcn_s_sleep(int) { std::this_thread::yield(); }

template <class T>
T __hip_atomic_load(const T* p, int order, int) { return __atomic_load_n(p, order); }
template <class T, class U>
void __hip_atomic_store(T* p, U v, int order, int) { __atomic_store_n(p, static_cast<T>(v), order); }
template <class T, class U>
T __hip_atomic_fetch_add(T* p, U v, int order, int) { return __atomic_fetch_add(p, static_cast<T>(v), order); }

template <class T, class U>
T atomicAdd(T* p, U v) { return __atomic_fetch_add(p, static_cast<T>(v), __ATOMIC_SEQ_CST); }

// HIP's shuffles: lanes are grouped in segments of `width`; a source outside the caller's segment
// (down/up) gives the caller's own value.
template <class T>
T __shfl(T v, int src, int width = warpSize) {
  const unsigned lane = porter_cpu::rank() % PORTER_CPU_WAVE, seg = lane / width * width;
  return porter_cpu::exchange(v, seg + static_cast<unsigned>(src) % width);
}
template <class T>
T __shfl_down(T v, unsigned d, int width = warpSize) {
  const unsigned lane = porter_cpu::rank() % PORTER_CPU_WAVE;
  return porter_cpu::exchange(v, (lane % width) + d < static_cast<unsigned>(width) ? lane + d : lane);
}
template <class T>
T __shfl_up(T v, unsigned d, int width = warpSize) {
  const unsigned lane = porter_cpu::rank() % PORTER_CPU_WAVE;
  return porter_cpu::exchange(v, (lane % width) >= d ? lane - d : lane);
}
template <class T>
T __shfl_xor(T v, int m, int width = warpSize) {
  const unsigned lane = porter_cpu::rank() % PORTER_CPU_WAVE, seg = lane / width * width;
  const unsigned src = lane ^ static_cast<unsigned>(m);
  return porter_cpu::exchange(v, src >= seg + width || src < seg ? lane : src);
}

// The host API the fixture calls.
typedef int hipError_t;
constexpr hipError_t hipSuccess = 0;
enum hipMemcpyKind { hipMemcpyHostToDevice, hipMemcpyDeviceToHost };
inline const char* hipGetErrorString(hipError_t) { return "error"; }
template <class T>
hipError_t hipMalloc(T** p, size_t n) { *p = static_cast<T*>(std::malloc(n)); return *p ? 0 : 1; }
inline hipError_t hipFree(void* p) { std::free(p); return 0; }
inline hipError_t hipMemcpy(void* d, const void* s, size_t n, hipMemcpyKind) { std::memcpy(d, s, n); return 0; }
inline hipError_t hipGetLastError() { return 0; }
inline hipError_t hipDeviceSynchronize() { return 0; }
#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...) \
  ::porter_cpu::launch(kernel, dim3(grid), dim3(block), __VA_ARGS__)
