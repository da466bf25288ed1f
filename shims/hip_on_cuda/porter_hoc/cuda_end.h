/* porter hip_on_cuda: after a CUDA header included after <hip/hip_runtime.h>: HIP's names,
 * warpSize and hidden CUDA macros again (see porter_hoc/cuda_begin.h). No include guard. */
#include <porter_hoc/cuda_names_off.h>
#pragma pop_macro("warpSize")
#include <porter_hoc/cuda_version_hide.h>
