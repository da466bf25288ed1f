/* porter hip_on_cuda: <hipcub/hipcub.hpp> on CUB, as hipCUB runs on its NVIDIA platform (hipCUB's
 * CUB backend: namespace hipcub brings CUB's names), with one difference on purpose: the warp
 * primitives WarpReduce and WarpScan default to, and accept, the 64-lane logical warps of
 * gfx950 (hipCUB's HIPCUB_DEVICE_WARP_THREADS on AMD) and run over the emulated wave
 * (porter_hoc/wave.h), so code that assumes 32-lane warps in CUB style still fails here as it
 * would on an MI350X. Block- and device-wide algorithms are CUB's (their results do not depend
 * on the warp size). With PORTER_HOC_PLATFORM_NVIDIA everything is CUB's.
 * Iterators: CountingInputIterator, TransformInputIterator, DiscardOutputIterator and
 * ConstantInputIterator are Thrust's (CUB 3 dropped its own).
 */
#pragma once

#include <hip/hip_runtime.h>
#include <porter_hoc/cuda_begin.h>
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/constant_iterator.h>
#include <porter_hoc/cuda_end.h>

#define HIPCUB_STDERR
#define HIPCUB_HOST_WARP_THREADS PORTER_HOC_WAVE_SIZE
#define HIPCUB_DEVICE_WARP_THREADS PORTER_HOC_WAVE_SIZE
#define HIPCUB_WARP_THREADS PORTER_HOC_WAVE_SIZE
#define HIPCUB_RUNTIME_FUNCTION __host__ __device__
#define HIPCUB_HOST_DEVICE __host__ __device__
#define HIPCUB_DEVICE __device__

namespace hipcub {
using namespace ::cub;

/* hipCUB's functors (CUB 3 replaced its own with cuda::std's). */
struct Sum {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const { return a + b; }
};
struct Max {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct Min {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};

template <class T, class OffsetT = ptrdiff_t>
using CountingInputIterator = ::thrust::counting_iterator<T>;
template <class ValueT, class ConversionOp, class InputIteratorT, class OffsetT = ptrdiff_t>
using TransformInputIterator = ::thrust::transform_iterator<ConversionOp, InputIteratorT, ValueT>;
template <class OffsetT = ptrdiff_t>
using DiscardOutputIterator = ::thrust::discard_iterator<>;
template <class ValueT, class OffsetT = ptrdiff_t>
using ConstantInputIterator = ::thrust::constant_iterator<ValueT>;

#if !defined(PORTER_HOC_PLATFORM_NVIDIA)
/* WarpReduce over logical warps of LOGICAL_WARP_THREADS (a power of two <= 64) lanes of the
 * emulated wave. As CUB and hipCUB document: the aggregate is valid in the logical warp's
 * first lane only. TempStorage is empty: the exchange goes through the wave scratch. */
template <class T, int LOGICAL_WARP_THREADS = PORTER_HOC_WAVE_SIZE, int ARCH = 0>
class WarpReduce {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 64 &&
                    (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                "porter hip_on_cuda: hipcub::WarpReduce takes a power of two <= 64 (the wave)");

 public:
  struct TempStorage {};
  __device__ explicit WarpReduce(TempStorage&) {}

  template <class Op>
  __device__ T Reduce(T input, Op op) { return Reduce(input, op, LOGICAL_WARP_THREADS); }
  template <class Op>
  __device__ T Reduce(T input, Op op, int valid_items) {
    const unsigned lane = __lane_id() % LOGICAL_WARP_THREADS;
    for (int off = LOGICAL_WARP_THREADS / 2; off > 0; off /= 2) {
      const T other = ::porter_hoc::shfl_down(input, static_cast<unsigned>(off), LOGICAL_WARP_THREADS);
      if (static_cast<int>(lane) + off < valid_items) input = op(input, other);
    }
    return input;
  }
  __device__ T Sum(T input) { return Reduce(input, ::hipcub::Sum()); }
  __device__ T Sum(T input, int valid_items) { return Reduce(input, ::hipcub::Sum(), valid_items); }
};

/* WarpScan over logical warps of the emulated wave (Hillis-Steele on the wave's shuffles). */
template <class T, int LOGICAL_WARP_THREADS = PORTER_HOC_WAVE_SIZE, int ARCH = 0>
class WarpScan {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 64 &&
                    (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                "porter hip_on_cuda: hipcub::WarpScan takes a power of two <= 64 (the wave)");

 public:
  struct TempStorage {};
  __device__ explicit WarpScan(TempStorage&) {}

  template <class Op>
  __device__ void InclusiveScan(T input, T& output, Op op) {
    const unsigned lane = __lane_id() % LOGICAL_WARP_THREADS;
    for (int off = 1; off < LOGICAL_WARP_THREADS; off *= 2) {
      const T other = ::porter_hoc::shfl_up(input, static_cast<unsigned>(off), LOGICAL_WARP_THREADS);
      if (static_cast<int>(lane) >= off) input = op(other, input);
    }
    output = input;
  }
  template <class Op>
  __device__ void InclusiveScan(T input, T& output, Op op, T& aggregate) {
    InclusiveScan(input, output, op);
    aggregate = ::porter_hoc::shfl(output, LOGICAL_WARP_THREADS - 1, LOGICAL_WARP_THREADS);
  }
  __device__ void InclusiveSum(T input, T& output) { InclusiveScan(input, output, ::hipcub::Sum()); }
  __device__ void InclusiveSum(T input, T& output, T& aggregate) { InclusiveScan(input, output, ::hipcub::Sum(), aggregate); }
  template <class Op>
  __device__ void ExclusiveScan(T input, T& output, T initial, Op op) {
    T inclusive;
    InclusiveScan(input, inclusive, op);
    const unsigned lane = __lane_id() % LOGICAL_WARP_THREADS;
    const T prev = ::porter_hoc::shfl_up(inclusive, 1u, LOGICAL_WARP_THREADS);
    output = lane == 0 ? initial : op(initial, prev);
  }
  template <class Op>
  __device__ void ExclusiveScan(T input, T& output, T initial, Op op, T& aggregate) {
    ExclusiveScan(input, output, initial, op);
    T last = op(output, input);
    aggregate = ::porter_hoc::shfl(last, LOGICAL_WARP_THREADS - 1, LOGICAL_WARP_THREADS);
  }
  __device__ void ExclusiveSum(T input, T& output) { ExclusiveScan(input, output, T(), ::hipcub::Sum()); }
  __device__ void ExclusiveSum(T input, T& output, T& aggregate) { ExclusiveScan(input, output, T(), ::hipcub::Sum(), aggregate); }
  __device__ T Broadcast(T input, unsigned src_lane) { return ::porter_hoc::shfl(input, static_cast<int>(src_lane), LOGICAL_WARP_THREADS); }
};
#endif
}  // namespace hipcub
