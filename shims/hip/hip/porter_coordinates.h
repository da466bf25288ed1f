/* porter overlay: threadIdx/blockIdx/blockDim/gridDim components in min() and max(), as in ROCm 6.3.
 *
 * In ROCm 6.3 `blockDim.x` and its kin are unsigned int properties of the built-in coordinate
 * variables, so CUDA code such as `min(rem, blockDim.x)` (rem unsigned) picks HIP's min<T>(T, T)
 * with T = unsigned int. HIP 5.2 spells each component as its own proxy type that converts to
 * uint32_t (__HIP_Coordinates<F>::__X, __Y, __Z); template deduction then fails and the call is
 * "ambiguous" between min(int, int), min(float, float) and min(double, double). These overloads
 * take a proxy as the unsigned int it stands for and call min/max again, so overload resolution
 * ends where it ends on ROCm 6.3 (a mix that is ambiguous there stays ambiguous here).
 * Included by the overlay's hip_runtime.h, after HIP 5.2's headers, in HIP compiles only.
 */
#pragma once

#include <type_traits>

template <class T> struct __porter_is_coordinate : std::false_type {};
#define __PORTER_COORDINATE(F)                                                         \
  template <> struct __porter_is_coordinate<__HIP_Coordinates<F>::__X> : std::true_type {}; \
  template <> struct __porter_is_coordinate<__HIP_Coordinates<F>::__Y> : std::true_type {}; \
  template <> struct __porter_is_coordinate<__HIP_Coordinates<F>::__Z> : std::true_type {};
__PORTER_COORDINATE(__HIP_ThreadIdx)
__PORTER_COORDINATE(__HIP_BlockIdx)
__PORTER_COORDINATE(__HIP_BlockDim)
__PORTER_COORDINATE(__HIP_GridDim)
#undef __PORTER_COORDINATE

template <class T>
__device__ inline auto __porter_coordinate_value(T v) {
  if constexpr (__porter_is_coordinate<T>::value) {
    return static_cast<unsigned int>(v);
  } else {
    return v;
  }
}

template <class A, class B,
          std::enable_if_t<__porter_is_coordinate<A>::value || __porter_is_coordinate<B>::value, int> = 0>
__device__ inline auto min(A a, B b)
    -> decltype(min(__porter_coordinate_value(a), __porter_coordinate_value(b))) {
  return min(__porter_coordinate_value(a), __porter_coordinate_value(b));
}

template <class A, class B,
          std::enable_if_t<__porter_is_coordinate<A>::value || __porter_is_coordinate<B>::value, int> = 0>
__device__ inline auto max(A a, B b)
    -> decltype(max(__porter_coordinate_value(a), __porter_coordinate_value(b))) {
  return max(__porter_coordinate_value(a), __porter_coordinate_value(b));
}
