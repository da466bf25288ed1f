/* porter hip_on_cuda: the HIP atomic builtins clang accepts in HIP device code.
 *
 * Stands in for: clang's __hip_atomic_{load, store, exchange,
 * compare_exchange_strong, compare_exchange_weak, fetch_add, fetch_sub, fetch_and, fetch_or,
 * fetch_xor, fetch_min, fetch_max}(..., order, scope) with the __HIP_MEMORY_SCOPE_* constants
 * (clang "Language Extensions": __atomic builtins, HIP atomic builtins).
 *
 * Not provided: the GNU __atomic_*_n builtins in device code. nvcc knows them only as host
 * builtins, and overloading them (nvcc allows it) collides with libstdc++'s std::atomic, whose
 * host code calls the same names on volatile, bool and pointer members; a port that uses them
 * in device code fails to build here. The HIP ones are built on CUDA's __nv_atomic_* builtins, which need a constant memory order: a run-time order is
 * dispatched by a switch over the six C11 orders. Scope: every HIP scope is served with device scope (a workgroup or
 * wavefront scope asks for less; system scope, for host-shared memory, is given system scope).
 * Loads, stores, exchanges and compare-exchanges move the value's bits (CUDA's builtins take
 * integers only; HIP's take float and double too); float read-modify-writes loop on a
 * compare-exchange.
 */
#pragma once

#include <porter_hoc/config.h>

#ifndef __HIP_MEMORY_SCOPE_SINGLETHREAD
#define __HIP_MEMORY_SCOPE_SINGLETHREAD 1
#define __HIP_MEMORY_SCOPE_WAVEFRONT 2
#define __HIP_MEMORY_SCOPE_WORKGROUP 3
#define __HIP_MEMORY_SCOPE_AGENT 4
#define __HIP_MEMORY_SCOPE_SYSTEM 5
#endif

namespace porter_hoc {
namespace atom {

template <int N> struct uint_of;
template <> struct uint_of<1> { typedef unsigned char type; };
template <> struct uint_of<2> { typedef unsigned short type; };
template <> struct uint_of<4> { typedef unsigned int type; };
template <> struct uint_of<8> { typedef unsigned long long type; };
template <class T>
using bits_t = typename uint_of<sizeof(T)>::type;
template <class T>
__device__ inline bits_t<T> as_bits(T v) { bits_t<T> b; memcpy(&b, &v, sizeof(T)); return b; }
template <class T>
__device__ inline T of_bits(bits_t<T> b) { T v; memcpy(&v, &b, sizeof(T)); return v; }
template <class T>
__device__ inline bits_t<T>* bits_ptr(const T* p) { return reinterpret_cast<bits_t<T>*>(const_cast<T*>(p)); }

/* CUDA's builtins take the memory order as a constant: a run-time order picks one of the
 * constant calls. Orders a load cannot have (release, acq_rel) become seq_cst, as do those a
 * store cannot have (consume, acquire, acq_rel). */
#define PORTER_HOC_LOAD(O) __nv_atomic_load_n(bits_ptr(p), O, __NV_THREAD_SCOPE_DEVICE)
template <class T>
__device__ inline T load(const T* p, int order) {
  switch (order) {
    case __ATOMIC_RELAXED: return of_bits<T>(PORTER_HOC_LOAD(__NV_ATOMIC_RELAXED));
    case __ATOMIC_CONSUME: case __ATOMIC_ACQUIRE: return of_bits<T>(PORTER_HOC_LOAD(__NV_ATOMIC_ACQUIRE));
    default: return of_bits<T>(PORTER_HOC_LOAD(__NV_ATOMIC_SEQ_CST));
  }
}
#undef PORTER_HOC_LOAD
#define PORTER_HOC_STORE(O) __nv_atomic_store_n(bits_ptr(p), as_bits(v), O, __NV_THREAD_SCOPE_DEVICE)
template <class T>
__device__ inline void store(T* p, T v, int order) {
  switch (order) {
    case __ATOMIC_RELAXED: PORTER_HOC_STORE(__NV_ATOMIC_RELAXED); break;
    case __ATOMIC_RELEASE: PORTER_HOC_STORE(__NV_ATOMIC_RELEASE); break;
    default: PORTER_HOC_STORE(__NV_ATOMIC_SEQ_CST); break;
  }
}
#undef PORTER_HOC_STORE
#define PORTER_HOC_XCHG(O) __nv_atomic_exchange_n(bits_ptr(p), as_bits(v), O, __NV_THREAD_SCOPE_DEVICE)
template <class T>
__device__ inline T exchange(T* p, T v, int order) {
  switch (order) {
    case __ATOMIC_RELAXED: return of_bits<T>(PORTER_HOC_XCHG(__NV_ATOMIC_RELAXED));
    case __ATOMIC_CONSUME: case __ATOMIC_ACQUIRE: return of_bits<T>(PORTER_HOC_XCHG(__NV_ATOMIC_ACQUIRE));
    case __ATOMIC_RELEASE: return of_bits<T>(PORTER_HOC_XCHG(__NV_ATOMIC_RELEASE));
    case __ATOMIC_ACQ_REL: return of_bits<T>(PORTER_HOC_XCHG(__NV_ATOMIC_ACQ_REL));
    default: return of_bits<T>(PORTER_HOC_XCHG(__NV_ATOMIC_SEQ_CST));
  }
}
#undef PORTER_HOC_XCHG
/* Compare-exchange: the failure order is the success order's load part (C11 allows no
 * stronger). */
#define PORTER_HOC_CAS(S, F) __nv_atomic_compare_exchange_n(bits_ptr(p), &e, d, weak, S, F, __NV_THREAD_SCOPE_DEVICE)
template <class T>
__device__ inline bool cas(T* p, T* expected, T desired, bool weak, int order) {
  bits_t<T> e = as_bits(*expected);
  const bits_t<T> d = as_bits(desired);
  bool ok;
  switch (order) {
    case __ATOMIC_RELAXED: ok = PORTER_HOC_CAS(__NV_ATOMIC_RELAXED, __NV_ATOMIC_RELAXED); break;
    case __ATOMIC_CONSUME: case __ATOMIC_ACQUIRE: ok = PORTER_HOC_CAS(__NV_ATOMIC_ACQUIRE, __NV_ATOMIC_ACQUIRE); break;
    case __ATOMIC_RELEASE: ok = PORTER_HOC_CAS(__NV_ATOMIC_RELEASE, __NV_ATOMIC_RELAXED); break;
    case __ATOMIC_ACQ_REL: ok = PORTER_HOC_CAS(__NV_ATOMIC_ACQ_REL, __NV_ATOMIC_ACQUIRE); break;
    default: ok = PORTER_HOC_CAS(__NV_ATOMIC_SEQ_CST, __NV_ATOMIC_SEQ_CST); break;
  }
  if (!ok) *expected = of_bits<T>(e);
  return ok;
}
#undef PORTER_HOC_CAS
/* Read-modify-write through compare-exchange (any T of 4 or 8 bytes). */
template <class T, class F>
__device__ inline T rmw(T* p, F f, int order) {
  T old = load(p, 0);
  while (!cas(p, &old, f(old), true, order)) {
  }
  return old;
}

}  // namespace atom
}  // namespace porter_hoc


template <class T>
__device__ inline T __hip_atomic_load(const T* p, int order, int /*scope*/) { return porter_hoc::atom::load(p, order); }
template <class T, class U>
__device__ inline void __hip_atomic_store(T* p, U v, int order, int /*scope*/) {
  porter_hoc::atom::store(p, static_cast<T>(v), order);
}
template <class T, class U>
__device__ inline T __hip_atomic_exchange(T* p, U v, int order, int /*scope*/) {
  return porter_hoc::atom::exchange(p, static_cast<T>(v), order);
}
template <class T, class U>
__device__ inline bool __hip_atomic_compare_exchange_strong(T* p, T* expected, U desired, int success, int,
                                                            int /*scope*/) {
  return porter_hoc::atom::cas(p, expected, static_cast<T>(desired), false, success);
}
template <class T, class U>
__device__ inline bool __hip_atomic_compare_exchange_weak(T* p, T* expected, U desired, int success, int,
                                                          int /*scope*/) {
  return porter_hoc::atom::cas(p, expected, static_cast<T>(desired), true, success);
}
#define PORTER_HOC_HIP_RMW(name, expr)                                              \
  template <class T, class U>                                                       \
  __device__ inline T name(T* p, U v, int order, int /*scope*/) {                   \
    return porter_hoc::atom::rmw(p, [v](T x) { return static_cast<T>(expr); }, order); \
  }
PORTER_HOC_HIP_RMW(__hip_atomic_fetch_add, x + static_cast<T>(v))
PORTER_HOC_HIP_RMW(__hip_atomic_fetch_sub, x - static_cast<T>(v))
PORTER_HOC_HIP_RMW(__hip_atomic_fetch_and, x & static_cast<T>(v))
PORTER_HOC_HIP_RMW(__hip_atomic_fetch_or, x | static_cast<T>(v))
PORTER_HOC_HIP_RMW(__hip_atomic_fetch_xor, x ^ static_cast<T>(v))
PORTER_HOC_HIP_RMW(__hip_atomic_fetch_min, static_cast<T>(v) < x ? static_cast<T>(v) : x)
PORTER_HOC_HIP_RMW(__hip_atomic_fetch_max, x < static_cast<T>(v) ? static_cast<T>(v) : x)
#undef PORTER_HOC_HIP_RMW
