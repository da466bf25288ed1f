/* porter hip_on_cuda: before a CUDA header included after <hip/hip_runtime.h> (CUB, cuBLAS, ...):
 * CUDA's names and macros as nvcc set them - CUDA's warpSize (32), the porter_hoc_cuda_*
 * renames of its warp functions, its version and architecture macros. Pair with
 * porter_hoc/cuda_end.h. No include guard. */
#pragma push_macro("warpSize")
#undef warpSize
#include <porter_hoc/cuda_names_on.h>
#if !defined(PORTER_HOC_PLATFORM_NVIDIA)
#pragma pop_macro("CUDART_VERSION")
#pragma pop_macro("CUDA_VERSION")
#pragma pop_macro("__CUDACC_VER_MAJOR__")
#pragma pop_macro("__CUDACC_VER_MINOR__")
#pragma pop_macro("__CUDACC_VER_BUILD__")
#pragma pop_macro("__CUDA_API_VER_MAJOR__")
#pragma pop_macro("__CUDA_API_VER_MINOR__")
#pragma pop_macro("__CUDA_ARCH__")
#pragma pop_macro("__CUDA_ARCH_LIST__")
#pragma pop_macro("__NVCC__")
#endif
