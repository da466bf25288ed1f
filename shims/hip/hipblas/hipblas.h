/* porter overlay for <hipblas/hipblas.h>: the minimal hipBLAS host API a port may call.
 *
 * Stands in for ROCm 6.3's hipblas.h, which Debian does not package (it has no hipBLAS
 * or rocBLAS). Declarations only, written from the documented hipBLAS 2.3 API of
 * ROCm 6.3 (hipBLAS API reference): handle life cycle and stream, status and operation
 * enums, hipblasSgemm and hipblasGemmEx. Enough for porter to compile-check a port's
 * calls; nothing here links or runs. A port must name enumerators, never numbers.
 *
 * hipblasGemmEx's types follow ROCm 6.3: hipblasDatatype_t by default, hipDataType and
 * hipblasComputeType_t when the port defines HIPBLAS_V2 (the default from ROCm 7.0).
 */
#pragma once

#include <hip/hip_runtime_api.h>
#include <hip/library_types.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void* hipblasHandle_t;

typedef enum {
  HIPBLAS_STATUS_SUCCESS = 0,
  HIPBLAS_STATUS_NOT_INITIALIZED = 1,
  HIPBLAS_STATUS_ALLOC_FAILED = 2,
  HIPBLAS_STATUS_INVALID_VALUE = 3,
  HIPBLAS_STATUS_MAPPING_ERROR = 4,
  HIPBLAS_STATUS_EXECUTION_FAILED = 5,
  HIPBLAS_STATUS_INTERNAL_ERROR = 6,
  HIPBLAS_STATUS_NOT_SUPPORTED = 7,
  HIPBLAS_STATUS_ARCH_MISMATCH = 8,
  HIPBLAS_STATUS_HANDLE_IS_NULLPTR = 9,
  HIPBLAS_STATUS_INVALID_ENUM = 10,
  HIPBLAS_STATUS_UNKNOWN = 11
} hipblasStatus_t;

/* The BLAS reference (CBLAS) values, which hipBLAS and rocBLAS share. */
typedef enum {
  HIPBLAS_OP_N = 111,
  HIPBLAS_OP_T = 112,
  HIPBLAS_OP_C = 113
} hipblasOperation_t;

typedef enum {
  HIPBLAS_R_16F = 150,
  HIPBLAS_R_32F = 151,
  HIPBLAS_R_64F = 152,
  HIPBLAS_C_16F = 153,
  HIPBLAS_C_32F = 154,
  HIPBLAS_C_64F = 155,
  HIPBLAS_R_8I = 160,
  HIPBLAS_R_8U = 161,
  HIPBLAS_R_32I = 162,
  HIPBLAS_R_32U = 163,
  HIPBLAS_C_8I = 164,
  HIPBLAS_C_8U = 165,
  HIPBLAS_C_32I = 166,
  HIPBLAS_C_32U = 167,
  HIPBLAS_R_16B = 168,
  HIPBLAS_C_16B = 169,
  HIPBLAS_DATATYPE_INVALID = 255
} hipblasDatatype_t;

typedef enum {
  HIPBLAS_COMPUTE_16F = 0,
  HIPBLAS_COMPUTE_16F_PEDANTIC = 1,
  HIPBLAS_COMPUTE_32F = 2,
  HIPBLAS_COMPUTE_32F_PEDANTIC = 3,
  HIPBLAS_COMPUTE_32F_FAST_16F = 4,
  HIPBLAS_COMPUTE_32F_FAST_16BF = 5,
  HIPBLAS_COMPUTE_32F_FAST_TF32 = 6,
  HIPBLAS_COMPUTE_64F = 7,
  HIPBLAS_COMPUTE_64F_PEDANTIC = 8,
  HIPBLAS_COMPUTE_32I = 9,
  HIPBLAS_COMPUTE_32I_PEDANTIC = 10
} hipblasComputeType_t;

typedef enum {
  HIPBLAS_GEMM_DEFAULT = 160
} hipblasGemmAlgo_t;

hipblasStatus_t hipblasCreate(hipblasHandle_t* handle);
hipblasStatus_t hipblasDestroy(hipblasHandle_t handle);
hipblasStatus_t hipblasSetStream(hipblasHandle_t handle, hipStream_t stream);
hipblasStatus_t hipblasGetStream(hipblasHandle_t handle, hipStream_t* stream);

/* Column-major, as in the reference BLAS: C = alpha * op(A) * op(B) + beta * C. */
hipblasStatus_t hipblasSgemm(hipblasHandle_t handle, hipblasOperation_t transA,
                             hipblasOperation_t transB, int m, int n, int k,
                             const float* alpha, const float* AP, int lda,
                             const float* BP, int ldb, const float* beta,
                             float* CP, int ldc);

#ifdef HIPBLAS_V2
typedef hipDataType __porter_hipblas_data_t;
typedef hipblasComputeType_t __porter_hipblas_compute_t;
#else
typedef hipblasDatatype_t __porter_hipblas_data_t;
typedef hipblasDatatype_t __porter_hipblas_compute_t;
#endif

hipblasStatus_t hipblasGemmEx(hipblasHandle_t handle, hipblasOperation_t transA,
                              hipblasOperation_t transB, int m, int n, int k,
                              const void* alpha, const void* A, __porter_hipblas_data_t aType,
                              int lda, const void* B, __porter_hipblas_data_t bType, int ldb,
                              const void* beta, void* C, __porter_hipblas_data_t cType, int ldc,
                              __porter_hipblas_compute_t computeType, hipblasGemmAlgo_t algo);

#ifdef __cplusplus
}
#endif
