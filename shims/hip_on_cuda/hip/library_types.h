/* porter hip_on_cuda: <hip/library_types.h>: hipDataType is CUDA's cudaDataType (HIP gave its
 * enumerators CUDA's values), with HIP's names. */
#pragma once

#include <hip/hip_runtime_api.h>
#include <library_types.h>

typedef cudaDataType hipDataType;
typedef libraryPropertyType hipLibraryPropertyType;
#define HIP_R_16F CUDA_R_16F
#define HIP_R_32F CUDA_R_32F
#define HIP_R_64F CUDA_R_64F
#define HIP_R_16BF CUDA_R_16BF
#define HIP_R_8I CUDA_R_8I
#define HIP_R_8U CUDA_R_8U
#define HIP_R_32I CUDA_R_32I
#define HIP_R_32U CUDA_R_32U
#define HIP_C_16F CUDA_C_16F
#define HIP_C_32F CUDA_C_32F
#define HIP_C_64F CUDA_C_64F
#define HIP_R_8F_E4M3 CUDA_R_8F_E4M3
#define HIP_R_8F_E5M2 CUDA_R_8F_E5M2
