/* porter hip_on_cuda: hide CUDA's version and architecture macros from HIP code (clang does not
 * define them for gfx950, and HIP code that tests them takes its CUDA branch). Pushed, so that
 * porter_hoc/cuda_begin.h can bring them back for a CUDA header included later. No include
 * guard: the end of porter_hoc/all.h and porter_hoc/cuda_end.h include it. In the device
 * pass, __HIP_DEVICE_COMPILE__ (config.h) stays. Not with PORTER_HOC_PLATFORM_NVIDIA, where
 * HIP's NVIDIA platform shows them. */
#if !defined(PORTER_HOC_PLATFORM_NVIDIA)
#pragma push_macro("CUDART_VERSION")
#undef CUDART_VERSION
#pragma push_macro("CUDA_VERSION")
#undef CUDA_VERSION
#pragma push_macro("__CUDACC_VER_MAJOR__")
#undef __CUDACC_VER_MAJOR__
#pragma push_macro("__CUDACC_VER_MINOR__")
#undef __CUDACC_VER_MINOR__
#pragma push_macro("__CUDACC_VER_BUILD__")
#undef __CUDACC_VER_BUILD__
#pragma push_macro("__CUDA_API_VER_MAJOR__")
#undef __CUDA_API_VER_MAJOR__
#pragma push_macro("__CUDA_API_VER_MINOR__")
#undef __CUDA_API_VER_MINOR__
#pragma push_macro("__CUDA_ARCH__")
#undef __CUDA_ARCH__
#pragma push_macro("__CUDA_ARCH_LIST__")
#undef __CUDA_ARCH_LIST__
#pragma push_macro("__NVCC__")
#undef __NVCC__
#endif
