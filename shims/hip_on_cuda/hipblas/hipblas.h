/* porter hip_on_cuda: <hipblas/hipblas.h> on cuBLAS, as hipBLAS itself runs on its NVIDIA
 * platform (hipBLAS "NVIDIA" backend: every call forwards to the cuBLAS function of the same
 * meaning, enums converted). hipBLAS's enums have rocBLAS's values (HIPBLAS_OP_N = 111, ...),
 * so operations, fill modes, sides and diagonals are converted, statuses converted back.
 * Provided: handles, streams, pointer mode, vector/matrix transfers, and the BLAS functions in
 * this file (level 1: scal, axpy, dot, nrm2, copy, swap, amax/amin, asum; level 2: gemv, ger,
 * her, her2; level 3: gemm, gemm (strided) batched, GemmEx, trsm, syrk) for the types
 * listed; GemmEx in both the hipblasDatatype_t and the ROCm 6 hipDataType/hipblasComputeType_t
 * forms. Link: -lcublas. Others fail to compile (the intended signal).
 */
#pragma once

#include <hip/hip_runtime.h>
#include <hip/library_types.h>
#include <cstdint>
#include <porter_hoc/cuda_begin.h>
#include <cublas_v2.h>
#include <porter_hoc/cuda_end.h>

typedef cublasHandle_t hipblasHandle_t;
typedef int64_t hipblasStride;
typedef uint16_t hipblasHalf;
typedef struct { uint16_t data; } hipblasBfloat16;

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
  HIPBLAS_STATUS_UNKNOWN = 11,
} hipblasStatus_t;
typedef enum { HIPBLAS_OP_N = 111, HIPBLAS_OP_T = 112, HIPBLAS_OP_C = 113 } hipblasOperation_t;
typedef enum { HIPBLAS_FILL_MODE_UPPER = 121, HIPBLAS_FILL_MODE_LOWER = 122, HIPBLAS_FILL_MODE_FULL = 123 } hipblasFillMode_t;
typedef enum { HIPBLAS_DIAG_NON_UNIT = 131, HIPBLAS_DIAG_UNIT = 132 } hipblasDiagType_t;
typedef enum { HIPBLAS_SIDE_LEFT = 141, HIPBLAS_SIDE_RIGHT = 142, HIPBLAS_SIDE_BOTH = 143 } hipblasSideMode_t;
typedef enum { HIPBLAS_POINTER_MODE_HOST = 0, HIPBLAS_POINTER_MODE_DEVICE = 1 } hipblasPointerMode_t;
typedef enum { HIPBLAS_GEMM_DEFAULT = 160 } hipblasGemmAlgo_t;
/* hipBLAS-common's compute types (their values are hipBLAS's, not cuBLAS's: converted). */
typedef enum {
  HIPBLAS_COMPUTE_16F = 0, HIPBLAS_COMPUTE_16F_PEDANTIC = 1, HIPBLAS_COMPUTE_32F = 2,
  HIPBLAS_COMPUTE_32F_PEDANTIC = 3, HIPBLAS_COMPUTE_32F_FAST_16F = 4, HIPBLAS_COMPUTE_32F_FAST_16BF = 5,
  HIPBLAS_COMPUTE_32F_FAST_TF32 = 6, HIPBLAS_COMPUTE_64F = 7, HIPBLAS_COMPUTE_64F_PEDANTIC = 8,
  HIPBLAS_COMPUTE_32I = 9, HIPBLAS_COMPUTE_32I_PEDANTIC = 10,
} hipblasComputeType_t;
typedef enum {
  HIPBLAS_R_16F = 150, HIPBLAS_R_32F = 151, HIPBLAS_R_64F = 152, HIPBLAS_C_16F = 153, HIPBLAS_C_32F = 154,
  HIPBLAS_C_64F = 155, HIPBLAS_R_8I = 160, HIPBLAS_R_8U = 161, HIPBLAS_R_32I = 162, HIPBLAS_R_16B = 168,
} hipblasDatatype_t;

/* hipBLAS's complex types: two floats (doubles), the layout of cuComplex and std::complex. */
struct hipblasComplex {
  float x, y;
  hipblasComplex() = default;
  __host__ __device__ hipblasComplex(float r, float i = 0.f) : x(r), y(i) {}
  __host__ __device__ float real() const { return x; }
  __host__ __device__ float imag() const { return y; }
};
struct hipblasDoubleComplex {
  double x, y;
  hipblasDoubleComplex() = default;
  __host__ __device__ hipblasDoubleComplex(double r, double i = 0.0) : x(r), y(i) {}
  __host__ __device__ double real() const { return x; }
  __host__ __device__ double imag() const { return y; }
};

namespace porter_hoc {
namespace blas {
inline hipblasStatus_t st(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return HIPBLAS_STATUS_SUCCESS;
    case CUBLAS_STATUS_NOT_INITIALIZED: return HIPBLAS_STATUS_NOT_INITIALIZED;
    case CUBLAS_STATUS_ALLOC_FAILED: return HIPBLAS_STATUS_ALLOC_FAILED;
    case CUBLAS_STATUS_INVALID_VALUE: return HIPBLAS_STATUS_INVALID_VALUE;
    case CUBLAS_STATUS_ARCH_MISMATCH: return HIPBLAS_STATUS_ARCH_MISMATCH;
    case CUBLAS_STATUS_MAPPING_ERROR: return HIPBLAS_STATUS_MAPPING_ERROR;
    case CUBLAS_STATUS_EXECUTION_FAILED: return HIPBLAS_STATUS_EXECUTION_FAILED;
    case CUBLAS_STATUS_INTERNAL_ERROR: return HIPBLAS_STATUS_INTERNAL_ERROR;
    case CUBLAS_STATUS_NOT_SUPPORTED: return HIPBLAS_STATUS_NOT_SUPPORTED;
    default: return HIPBLAS_STATUS_UNKNOWN;
  }
}
inline cublasOperation_t op(hipblasOperation_t o) {
  return o == HIPBLAS_OP_T ? CUBLAS_OP_T : o == HIPBLAS_OP_C ? CUBLAS_OP_C : CUBLAS_OP_N;
}
inline cublasFillMode_t fill(hipblasFillMode_t f) {
  return f == HIPBLAS_FILL_MODE_UPPER ? CUBLAS_FILL_MODE_UPPER : f == HIPBLAS_FILL_MODE_FULL ? CUBLAS_FILL_MODE_FULL : CUBLAS_FILL_MODE_LOWER;
}
inline cublasDiagType_t diag(hipblasDiagType_t d) { return d == HIPBLAS_DIAG_UNIT ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT; }
inline cublasSideMode_t side(hipblasSideMode_t s) { return s == HIPBLAS_SIDE_RIGHT ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT; }
inline cudaDataType dtype(hipblasDatatype_t t) {
  switch (t) {
    case HIPBLAS_R_16F: return CUDA_R_16F;
    case HIPBLAS_R_32F: return CUDA_R_32F;
    case HIPBLAS_R_64F: return CUDA_R_64F;
    case HIPBLAS_C_16F: return CUDA_C_16F;
    case HIPBLAS_C_32F: return CUDA_C_32F;
    case HIPBLAS_C_64F: return CUDA_C_64F;
    case HIPBLAS_R_8I: return CUDA_R_8I;
    case HIPBLAS_R_8U: return CUDA_R_8U;
    case HIPBLAS_R_32I: return CUDA_R_32I;
    default: return CUDA_R_16BF;
  }
}
inline cublasComputeType_t compute(hipblasComputeType_t t) {
  switch (t) {
    case HIPBLAS_COMPUTE_16F: return CUBLAS_COMPUTE_16F;
    case HIPBLAS_COMPUTE_16F_PEDANTIC: return CUBLAS_COMPUTE_16F_PEDANTIC;
    case HIPBLAS_COMPUTE_32F_PEDANTIC: return CUBLAS_COMPUTE_32F_PEDANTIC;
    case HIPBLAS_COMPUTE_32F_FAST_16F: return CUBLAS_COMPUTE_32F_FAST_16F;
    case HIPBLAS_COMPUTE_32F_FAST_16BF: return CUBLAS_COMPUTE_32F_FAST_16BF;
    case HIPBLAS_COMPUTE_32F_FAST_TF32: return CUBLAS_COMPUTE_32F_FAST_TF32;
    case HIPBLAS_COMPUTE_64F: return CUBLAS_COMPUTE_64F;
    case HIPBLAS_COMPUTE_64F_PEDANTIC: return CUBLAS_COMPUTE_64F_PEDANTIC;
    case HIPBLAS_COMPUTE_32I: return CUBLAS_COMPUTE_32I;
    case HIPBLAS_COMPUTE_32I_PEDANTIC: return CUBLAS_COMPUTE_32I_PEDANTIC;
    default: return CUBLAS_COMPUTE_32F;
  }
}
inline const cuComplex* c(const hipblasComplex* p) { return reinterpret_cast<const cuComplex*>(p); }
inline cuComplex* c(hipblasComplex* p) { return reinterpret_cast<cuComplex*>(p); }
inline const cuDoubleComplex* c(const hipblasDoubleComplex* p) { return reinterpret_cast<const cuDoubleComplex*>(p); }
inline cuDoubleComplex* c(hipblasDoubleComplex* p) { return reinterpret_cast<cuDoubleComplex*>(p); }
}  // namespace blas
}  // namespace porter_hoc

#define PORTER_HOC_B(expr) return ::porter_hoc::blas::st(expr)

inline const char* hipblasStatusToString(hipblasStatus_t s) {
  switch (s) {
    case HIPBLAS_STATUS_SUCCESS: return "HIPBLAS_STATUS_SUCCESS";
    case HIPBLAS_STATUS_NOT_INITIALIZED: return "HIPBLAS_STATUS_NOT_INITIALIZED";
    case HIPBLAS_STATUS_ALLOC_FAILED: return "HIPBLAS_STATUS_ALLOC_FAILED";
    case HIPBLAS_STATUS_INVALID_VALUE: return "HIPBLAS_STATUS_INVALID_VALUE";
    case HIPBLAS_STATUS_MAPPING_ERROR: return "HIPBLAS_STATUS_MAPPING_ERROR";
    case HIPBLAS_STATUS_EXECUTION_FAILED: return "HIPBLAS_STATUS_EXECUTION_FAILED";
    case HIPBLAS_STATUS_INTERNAL_ERROR: return "HIPBLAS_STATUS_INTERNAL_ERROR";
    case HIPBLAS_STATUS_NOT_SUPPORTED: return "HIPBLAS_STATUS_NOT_SUPPORTED";
    case HIPBLAS_STATUS_ARCH_MISMATCH: return "HIPBLAS_STATUS_ARCH_MISMATCH";
    case HIPBLAS_STATUS_HANDLE_IS_NULLPTR: return "HIPBLAS_STATUS_HANDLE_IS_NULLPTR";
    case HIPBLAS_STATUS_INVALID_ENUM: return "HIPBLAS_STATUS_INVALID_ENUM";
    default: return "HIPBLAS_STATUS_UNKNOWN";
  }
}

inline hipblasStatus_t hipblasCreate(hipblasHandle_t* h) { PORTER_HOC_B(cublasCreate(h)); }
inline hipblasStatus_t hipblasDestroy(hipblasHandle_t h) { PORTER_HOC_B(cublasDestroy(h)); }
inline hipblasStatus_t hipblasSetStream(hipblasHandle_t h, hipStream_t s) { PORTER_HOC_B(cublasSetStream(h, s)); }
inline hipblasStatus_t hipblasGetStream(hipblasHandle_t h, hipStream_t* s) { PORTER_HOC_B(cublasGetStream(h, s)); }
inline hipblasStatus_t hipblasSetPointerMode(hipblasHandle_t h, hipblasPointerMode_t m) {
  PORTER_HOC_B(cublasSetPointerMode(h, m == HIPBLAS_POINTER_MODE_DEVICE ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
}
inline hipblasStatus_t hipblasGetPointerMode(hipblasHandle_t h, hipblasPointerMode_t* m) {
  cublasPointerMode_t c;
  const cublasStatus_t s = cublasGetPointerMode(h, &c);
  *m = c == CUBLAS_POINTER_MODE_DEVICE ? HIPBLAS_POINTER_MODE_DEVICE : HIPBLAS_POINTER_MODE_HOST;
  PORTER_HOC_B(s);
}
inline hipblasStatus_t hipblasSetVector(int n, int elem, const void* x, int incx, void* y, int incy) {
  PORTER_HOC_B(cublasSetVector(n, elem, x, incx, y, incy));
}
inline hipblasStatus_t hipblasGetVector(int n, int elem, const void* x, int incx, void* y, int incy) {
  PORTER_HOC_B(cublasGetVector(n, elem, x, incx, y, incy));
}
inline hipblasStatus_t hipblasSetMatrix(int rows, int cols, int elem, const void* a, int lda, void* b, int ldb) {
  PORTER_HOC_B(cublasSetMatrix(rows, cols, elem, a, lda, b, ldb));
}
inline hipblasStatus_t hipblasGetMatrix(int rows, int cols, int elem, const void* a, int lda, void* b, int ldb) {
  PORTER_HOC_B(cublasGetMatrix(rows, cols, elem, a, lda, b, ldb));
}

/* ---- level 1 ---- */
inline hipblasStatus_t hipblasSscal(hipblasHandle_t h, int n, const float* a, float* x, int incx) { PORTER_HOC_B(cublasSscal(h, n, a, x, incx)); }
inline hipblasStatus_t hipblasDscal(hipblasHandle_t h, int n, const double* a, double* x, int incx) { PORTER_HOC_B(cublasDscal(h, n, a, x, incx)); }
inline hipblasStatus_t hipblasCscal(hipblasHandle_t h, int n, const hipblasComplex* a, hipblasComplex* x, int incx) { PORTER_HOC_B(cublasCscal(h, n, porter_hoc::blas::c(a), porter_hoc::blas::c(x), incx)); }
inline hipblasStatus_t hipblasSaxpy(hipblasHandle_t h, int n, const float* a, const float* x, int incx, float* y, int incy) { PORTER_HOC_B(cublasSaxpy(h, n, a, x, incx, y, incy)); }
inline hipblasStatus_t hipblasDaxpy(hipblasHandle_t h, int n, const double* a, const double* x, int incx, double* y, int incy) { PORTER_HOC_B(cublasDaxpy(h, n, a, x, incx, y, incy)); }
inline hipblasStatus_t hipblasSdot(hipblasHandle_t h, int n, const float* x, int incx, const float* y, int incy, float* r) { PORTER_HOC_B(cublasSdot(h, n, x, incx, y, incy, r)); }
inline hipblasStatus_t hipblasDdot(hipblasHandle_t h, int n, const double* x, int incx, const double* y, int incy, double* r) { PORTER_HOC_B(cublasDdot(h, n, x, incx, y, incy, r)); }
inline hipblasStatus_t hipblasSnrm2(hipblasHandle_t h, int n, const float* x, int incx, float* r) { PORTER_HOC_B(cublasSnrm2(h, n, x, incx, r)); }
inline hipblasStatus_t hipblasDnrm2(hipblasHandle_t h, int n, const double* x, int incx, double* r) { PORTER_HOC_B(cublasDnrm2(h, n, x, incx, r)); }
inline hipblasStatus_t hipblasSasum(hipblasHandle_t h, int n, const float* x, int incx, float* r) { PORTER_HOC_B(cublasSasum(h, n, x, incx, r)); }
inline hipblasStatus_t hipblasScopy(hipblasHandle_t h, int n, const float* x, int incx, float* y, int incy) { PORTER_HOC_B(cublasScopy(h, n, x, incx, y, incy)); }
inline hipblasStatus_t hipblasSswap(hipblasHandle_t h, int n, float* x, int incx, float* y, int incy) { PORTER_HOC_B(cublasSswap(h, n, x, incx, y, incy)); }
/* i?amax/i?amin: 1-based indices on both. */
inline hipblasStatus_t hipblasIsamax(hipblasHandle_t h, int n, const float* x, int incx, int* r) { PORTER_HOC_B(cublasIsamax(h, n, x, incx, r)); }
inline hipblasStatus_t hipblasIsamin(hipblasHandle_t h, int n, const float* x, int incx, int* r) { PORTER_HOC_B(cublasIsamin(h, n, x, incx, r)); }

/* ---- level 2 ---- */
inline hipblasStatus_t hipblasSgemv(hipblasHandle_t h, hipblasOperation_t t, int m, int n, const float* a, const float* A, int lda,
                                    const float* x, int incx, const float* b, float* y, int incy) {
  PORTER_HOC_B(cublasSgemv(h, porter_hoc::blas::op(t), m, n, a, A, lda, x, incx, b, y, incy));
}
inline hipblasStatus_t hipblasDgemv(hipblasHandle_t h, hipblasOperation_t t, int m, int n, const double* a, const double* A, int lda,
                                    const double* x, int incx, const double* b, double* y, int incy) {
  PORTER_HOC_B(cublasDgemv(h, porter_hoc::blas::op(t), m, n, a, A, lda, x, incx, b, y, incy));
}
inline hipblasStatus_t hipblasSger(hipblasHandle_t h, int m, int n, const float* a, const float* x, int incx, const float* y, int incy,
                                   float* A, int lda) {
  PORTER_HOC_B(cublasSger(h, m, n, a, x, incx, y, incy, A, lda));
}
inline hipblasStatus_t hipblasCher(hipblasHandle_t h, hipblasFillMode_t u, int n, const float* a, const hipblasComplex* x, int incx,
                                   hipblasComplex* A, int lda) {
  PORTER_HOC_B(cublasCher(h, porter_hoc::blas::fill(u), n, a, porter_hoc::blas::c(x), incx, porter_hoc::blas::c(A), lda));
}
inline hipblasStatus_t hipblasCher2(hipblasHandle_t h, hipblasFillMode_t u, int n, const hipblasComplex* a, const hipblasComplex* x,
                                    int incx, const hipblasComplex* y, int incy, hipblasComplex* A, int lda) {
  PORTER_HOC_B(cublasCher2(h, porter_hoc::blas::fill(u), n, porter_hoc::blas::c(a), porter_hoc::blas::c(x), incx, porter_hoc::blas::c(y), incy, porter_hoc::blas::c(A), lda));
}

/* ---- level 3 ---- */
inline hipblasStatus_t hipblasSgemm(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m, int n, int k, const float* a,
                                    const float* A, int lda, const float* B, int ldb, const float* b, float* C, int ldc) {
  PORTER_HOC_B(cublasSgemm(h, porter_hoc::blas::op(ta), porter_hoc::blas::op(tb), m, n, k, a, A, lda, B, ldb, b, C, ldc));
}
inline hipblasStatus_t hipblasDgemm(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m, int n, int k, const double* a,
                                    const double* A, int lda, const double* B, int ldb, const double* b, double* C, int ldc) {
  PORTER_HOC_B(cublasDgemm(h, porter_hoc::blas::op(ta), porter_hoc::blas::op(tb), m, n, k, a, A, lda, B, ldb, b, C, ldc));
}
inline hipblasStatus_t hipblasSgemmStridedBatched(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m, int n, int k,
                                                  const float* a, const float* A, int lda, hipblasStride sa, const float* B, int ldb,
                                                  hipblasStride sb, const float* b, float* C, int ldc, hipblasStride sc, int count) {
  PORTER_HOC_B(cublasSgemmStridedBatched(h, porter_hoc::blas::op(ta), porter_hoc::blas::op(tb), m, n, k, a, A, lda, sa, B, ldb, sb, b, C, ldc, sc, count));
}
inline hipblasStatus_t hipblasDgemmStridedBatched(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m, int n, int k,
                                                  const double* a, const double* A, int lda, hipblasStride sa, const double* B, int ldb,
                                                  hipblasStride sb, const double* b, double* C, int ldc, hipblasStride sc, int count) {
  PORTER_HOC_B(cublasDgemmStridedBatched(h, porter_hoc::blas::op(ta), porter_hoc::blas::op(tb), m, n, k, a, A, lda, sa, B, ldb, sb, b, C, ldc, sc, count));
}
inline hipblasStatus_t hipblasSgemmBatched(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m, int n, int k,
                                           const float* a, const float* const A[], int lda, const float* const B[], int ldb,
                                           const float* b, float* const C[], int ldc, int count) {
  PORTER_HOC_B(cublasSgemmBatched(h, porter_hoc::blas::op(ta), porter_hoc::blas::op(tb), m, n, k, a, A, lda, B, ldb, b, C, ldc, count));
}
inline hipblasStatus_t hipblasGemmEx(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m, int n, int k,
                                     const void* a, const void* A, hipblasDatatype_t at, int lda, const void* B,
                                     hipblasDatatype_t bt, int ldb, const void* b, void* C, hipblasDatatype_t ct, int ldc,
                                     hipblasDatatype_t compute, hipblasGemmAlgo_t) {
  const cublasComputeType_t ctype = compute == HIPBLAS_R_64F ? CUBLAS_COMPUTE_64F
                                    : compute == HIPBLAS_R_32I ? CUBLAS_COMPUTE_32I
                                    : compute == HIPBLAS_R_16F ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F;
  PORTER_HOC_B(cublasGemmEx(h, porter_hoc::blas::op(ta), porter_hoc::blas::op(tb), m, n, k, a, A, porter_hoc::blas::dtype(at), lda, B, porter_hoc::blas::dtype(bt), ldb, b, C,
                            porter_hoc::blas::dtype(ct), ldc, ctype, CUBLAS_GEMM_DEFAULT));
}
inline hipblasStatus_t hipblasStrsm(hipblasHandle_t h, hipblasSideMode_t s, hipblasFillMode_t u, hipblasOperation_t t, hipblasDiagType_t d,
                                    int m, int n, const float* a, const float* A, int lda, float* B, int ldb) {
  PORTER_HOC_B(cublasStrsm(h, porter_hoc::blas::side(s), porter_hoc::blas::fill(u), porter_hoc::blas::op(t), porter_hoc::blas::diag(d), m, n, a, A, lda, B, ldb));
}
inline hipblasStatus_t hipblasSsyrk(hipblasHandle_t h, hipblasFillMode_t u, hipblasOperation_t t, int n, int k, const float* a,
                                    const float* A, int lda, const float* b, float* C, int ldc) {
  PORTER_HOC_B(cublasSsyrk(h, porter_hoc::blas::fill(u), porter_hoc::blas::op(t), n, k, a, A, lda, b, C, ldc));
}
/* ROCm 6's GemmEx forms: hipDataType operands and a hipblasComputeType_t. */
inline hipblasStatus_t hipblasGemmEx(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m, int n, int k,
                                     const void* a, const void* A, hipDataType at, int lda, const void* B, hipDataType bt,
                                     int ldb, const void* b, void* C, hipDataType ct, int ldc, hipblasComputeType_t compute,
                                     hipblasGemmAlgo_t) {
  PORTER_HOC_B(cublasGemmEx(h, porter_hoc::blas::op(ta), porter_hoc::blas::op(tb), m, n, k, a, A, at, lda, B, bt, ldb, b, C,
                            ct, ldc, porter_hoc::blas::compute(compute), CUBLAS_GEMM_DEFAULT));
}
inline hipblasStatus_t hipblasGemmStridedBatchedEx(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m,
                                                   int n, int k, const void* a, const void* A, hipDataType at, int lda,
                                                   hipblasStride sa, const void* B, hipDataType bt, int ldb, hipblasStride sb,
                                                   const void* b, void* C, hipDataType ct, int ldc, hipblasStride sc,
                                                   int count, hipblasComputeType_t compute, hipblasGemmAlgo_t) {
  PORTER_HOC_B(cublasGemmStridedBatchedEx(h, porter_hoc::blas::op(ta), porter_hoc::blas::op(tb), m, n, k, a, A, at, lda, sa,
                                          B, bt, ldb, sb, b, C, ct, ldc, sc, count, porter_hoc::blas::compute(compute),
                                          CUBLAS_GEMM_DEFAULT));
}
#undef PORTER_HOC_B
