/* porter hip_on_cuda: end the renaming of CUDA's warp functions (see nvcc.opts, porter_hoc/config.h).
 * No include guard: included once in config.h and again by porter_hoc/cuda_end.h. */
#undef __shfl
#undef __shfl_up
#undef __shfl_down
#undef __shfl_xor
#undef __shfl_sync
#undef __shfl_up_sync
#undef __shfl_down_sync
#undef __shfl_xor_sync
#undef __ballot
#undef __any
#undef __all
#undef __activemask
#undef __ballot_sync
#undef __any_sync
#undef __all_sync
#undef __syncwarp
#undef __match_any_sync
#undef __match_all_sync
