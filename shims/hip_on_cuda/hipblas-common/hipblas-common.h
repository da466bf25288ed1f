/* porter hip_on_cuda: <hipblas-common/hipblas-common.h>: the types hipBLAS and hipBLASLt share -
 * hipblasOperation_t, hipblasStatus_t (from <hipblas/hipblas.h>) and hipblasComputeType_t
 * (hipBLAS-common's values, converted to cuBLAS's where a call needs them). */
#pragma once

#include <hipblas/hipblas.h>
