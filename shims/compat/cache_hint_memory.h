// porter compat: CUDA's cache-hinted loads and stores (__ldcs, __ldcg, __ldca, __ldlu, __ldcv,
// __stcs, __stcg, __stwb, __stwt), which HIP does not declare.
//
// CUDA documents them as loads/stores with a PTX cache operator (.cs streaming, .cg global,
// .ca all levels, .lu last use, .cv volatile; .wb write-back, .wt write-through). On CDNA the
// streaming and last-use forms map to clang's nontemporal builtins (the compiler emits the
// nt bit on global_load/global_store); the others keep their meaning as plain accesses, and
// .cv as a volatile read. Define PORTER_NO_CACHE_HINT_SHIMS if your HIP provides them.
#ifndef PORTER_NO_CACHE_HINT_SHIMS
template <typename T> __device__ inline T __ldcs(const T* p) { return __builtin_nontemporal_load(p); }
template <typename T> __device__ inline T __ldlu(const T* p) { return __builtin_nontemporal_load(p); }
template <typename T> __device__ inline T __ldcg(const T* p) { return *p; }
template <typename T> __device__ inline T __ldca(const T* p) { return *p; }
template <typename T> __device__ inline T __ldcv(const T* p) { return *const_cast<const volatile T*>(p); }
template <typename T> __device__ inline void __stcs(T* p, T v) { __builtin_nontemporal_store(v, p); }
template <typename T> __device__ inline void __stcg(T* p, T v) { *p = v; }
template <typename T> __device__ inline void __stwb(T* p, T v) { *p = v; }
template <typename T> __device__ inline void __stwt(T* p, T v) { __builtin_nontemporal_store(v, p); }
#endif
