/* porter hip_on_cuda: the renaming of CUDA's warp functions again, as nvcc.opts sets it, for
 * CUDA headers included after porter_hoc/config.h (porter_hoc/cuda_begin.h). No include guard. */
#define __shfl porter_hoc_cuda_shfl
#define __shfl_up porter_hoc_cuda_shfl_up
#define __shfl_down porter_hoc_cuda_shfl_down
#define __shfl_xor porter_hoc_cuda_shfl_xor
#define __shfl_sync porter_hoc_cuda_shfl_sync
#define __shfl_up_sync porter_hoc_cuda_shfl_up_sync
#define __shfl_down_sync porter_hoc_cuda_shfl_down_sync
#define __shfl_xor_sync porter_hoc_cuda_shfl_xor_sync
#define __ballot porter_hoc_cuda_ballot
#define __any porter_hoc_cuda_any
#define __all porter_hoc_cuda_all
#define __activemask porter_hoc_cuda_activemask
#define __ballot_sync porter_hoc_cuda_ballot_sync
#define __any_sync porter_hoc_cuda_any_sync
#define __all_sync porter_hoc_cuda_all_sync
#define __syncwarp porter_hoc_cuda_syncwarp
#define __match_any_sync porter_hoc_cuda_match_any_sync
#define __match_all_sync porter_hoc_cuda_match_all_sync
