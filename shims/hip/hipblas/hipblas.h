/* porter overlay for <hipblas/hipblas.h>: the minimal hipBLAS host API a port may call.
 *
 * Stands in for ROCm 6.3's hipblas.h, which Debian does not package (it has no hipBLAS
 * or rocBLAS). Declarations only, written from the documented hipBLAS 2.3 API of
 * ROCm 6.3 (hipBLAS API reference): handle life cycle, stream and pointer mode, host/device
 * copies of vectors and matrices, the single and double precision routines a cuBLAS port
 * calls most (axpy, dot, nrm2, scal, gemv, gemm, batched and strided-batched gemm) and
 * hipblasGemmEx; the status, operation and compute types come from hipblas-common.h as in
 * ROCm 6.3. Enough for porter to compile-check a port's calls; nothing here links or runs.
 * A port must name enumerators, never numbers.
 *
 * hipblasGemmEx's types follow ROCm 6.3: hipblasDatatype_t by default, hipDataType and
 * hipblasComputeType_t when the port defines HIPBLAS_V2 (the default from ROCm 7.0).
 */
#pragma once

#include <hip/hip_runtime_api.h>
#include <hip/library_types.h>
#include <hipblas-common/hipblas-common.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void* hipblasHandle_t;
typedef int64_t hipblasStride;



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
  HIPBLAS_GEMM_DEFAULT = 160
} hipblasGemmAlgo_t;

hipblasStatus_t hipblasCreate(hipblasHandle_t* handle);
hipblasStatus_t hipblasDestroy(hipblasHandle_t handle);
hipblasStatus_t hipblasSetStream(hipblasHandle_t handle, hipStream_t stream);
hipblasStatus_t hipblasGetStream(hipblasHandle_t handle, hipStream_t* stream);

typedef enum { HIPBLAS_POINTER_MODE_HOST = 0, HIPBLAS_POINTER_MODE_DEVICE = 1 } hipblasPointerMode_t;

hipblasStatus_t hipblasSetPointerMode(hipblasHandle_t handle, hipblasPointerMode_t mode);
hipblasStatus_t hipblasGetPointerMode(hipblasHandle_t handle, hipblasPointerMode_t* mode);
const char* hipblasStatusToString(hipblasStatus_t status);

/* Host <-> device copies (element size in bytes, strides in elements). */
hipblasStatus_t hipblasSetVector(int n, int elemSize, const void* x, int incx, void* y, int incy);
hipblasStatus_t hipblasGetVector(int n, int elemSize, const void* x, int incx, void* y, int incy);
hipblasStatus_t hipblasSetMatrix(int rows, int cols, int elemSize, const void* AP, int lda, void* BP, int ldb);
hipblasStatus_t hipblasGetMatrix(int rows, int cols, int elemSize, const void* AP, int lda, void* BP, int ldb);

/* Level 1 */
hipblasStatus_t hipblasSaxpy(hipblasHandle_t handle, int n, const float* alpha, const float* x, int incx,
                             float* y, int incy);
hipblasStatus_t hipblasDaxpy(hipblasHandle_t handle, int n, const double* alpha, const double* x, int incx,
                             double* y, int incy);
hipblasStatus_t hipblasSdot(hipblasHandle_t handle, int n, const float* x, int incx, const float* y, int incy,
                            float* result);
hipblasStatus_t hipblasDdot(hipblasHandle_t handle, int n, const double* x, int incx, const double* y, int incy,
                            double* result);
hipblasStatus_t hipblasSnrm2(hipblasHandle_t handle, int n, const float* x, int incx, float* result);
hipblasStatus_t hipblasDnrm2(hipblasHandle_t handle, int n, const double* x, int incx, double* result);
hipblasStatus_t hipblasSscal(hipblasHandle_t handle, int n, const float* alpha, float* x, int incx);
hipblasStatus_t hipblasDscal(hipblasHandle_t handle, int n, const double* alpha, double* x, int incx);

/* Level 2: y = alpha * op(A) * x + beta * y */
hipblasStatus_t hipblasSgemv(hipblasHandle_t handle, hipblasOperation_t trans, int m, int n, const float* alpha,
                             const float* AP, int lda, const float* x, int incx, const float* beta, float* y,
                             int incy);
hipblasStatus_t hipblasDgemv(hipblasHandle_t handle, hipblasOperation_t trans, int m, int n, const double* alpha,
                             const double* AP, int lda, const double* x, int incx, const double* beta, double* y,
                             int incy);

/* Column-major, as in the reference BLAS: C = alpha * op(A) * op(B) + beta * C. */
hipblasStatus_t hipblasDgemm(hipblasHandle_t handle, hipblasOperation_t transA, hipblasOperation_t transB,
                             int m, int n, int k, const double* alpha, const double* AP, int lda,
                             const double* BP, int ldb, const double* beta, double* CP, int ldc);
hipblasStatus_t hipblasSgemmBatched(hipblasHandle_t handle, hipblasOperation_t transA, hipblasOperation_t transB,
                                    int m, int n, int k, const float* alpha, const float* const AP[], int lda,
                                    const float* const BP[], int ldb, const float* beta, float* const CP[], int ldc,
                                    int batchCount);
hipblasStatus_t hipblasSgemmStridedBatched(hipblasHandle_t handle, hipblasOperation_t transA,
                                           hipblasOperation_t transB, int m, int n, int k, const float* alpha,
                                           const float* AP, int lda, hipblasStride strideA, const float* BP, int ldb,
                                           hipblasStride strideB, const float* beta, float* CP, int ldc,
                                           hipblasStride strideC, int batchCount);
hipblasStatus_t hipblasDgemmStridedBatched(hipblasHandle_t handle, hipblasOperation_t transA,
                                           hipblasOperation_t transB, int m, int n, int k, const double* alpha,
                                           const double* AP, int lda, hipblasStride strideA, const double* BP, int ldb,
                                           hipblasStride strideB, const double* beta, double* CP, int ldc,
                                           hipblasStride strideC, int batchCount);
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
