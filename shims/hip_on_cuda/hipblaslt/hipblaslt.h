/* porter hip_on_cuda: <hipblaslt/hipblaslt.h> on cuBLASLt, as hipBLASLt's API mirrors cuBLASLt's:
 * handles, matmul / matrix-layout / preference descriptors, heuristics and hipblasLtMatmul
 * forward to the cublasLt function of the same meaning. Attribute names are cuBLASLt's
 * (HIPBLASLT_MATMUL_DESC_TRANSA = CUBLASLT_MATMUL_DESC_TRANSA, ...); values that carry hipBLAS
 * enums are converted: TRANSA/TRANSB (hipblasOperation_t, 111.. -> cuBLAS's 0..), and the
 * compute type of hipblasLtMatmulDescCreate (hipblasComputeType_t). Epilogue values are the
 * same numbers in both. Statuses are hipBLAS's. Link: -lcublasLt.
 */
#pragma once

#include <hipblas-common/hipblas-common.h>
#include <porter_hoc/cuda_begin.h>
#include <cublasLt.h>
#include <porter_hoc/cuda_end.h>

typedef cublasLtHandle_t hipblasLtHandle_t;
typedef cublasLtMatmulDesc_t hipblasLtMatmulDesc_t;
typedef cublasLtMatrixLayout_t hipblasLtMatrixLayout_t;
typedef cublasLtMatmulPreference_t hipblasLtMatmulPreference_t;
typedef cublasLtMatmulAlgo_t hipblasLtMatmulAlgo_t;
typedef cublasLtMatmulHeuristicResult_t hipblasLtMatmulHeuristicResult_t;
typedef cublasLtMatmulDescAttributes_t hipblasLtMatmulDescAttributes_t;
typedef cublasLtMatrixLayoutAttribute_t hipblasLtMatrixLayoutAttribute_t;
typedef cublasLtMatmulPreferenceAttributes_t hipblasLtMatmulPreferenceAttributes_t;
typedef cublasLtEpilogue_t hipblasLtEpilogue_t;
typedef cublasLtOrder_t hipblasLtOrder_t;

#define HIPBLASLT_MATMUL_DESC_TRANSA CUBLASLT_MATMUL_DESC_TRANSA
#define HIPBLASLT_MATMUL_DESC_TRANSB CUBLASLT_MATMUL_DESC_TRANSB
#define HIPBLASLT_MATMUL_DESC_EPILOGUE CUBLASLT_MATMUL_DESC_EPILOGUE
#define HIPBLASLT_MATMUL_DESC_BIAS_POINTER CUBLASLT_MATMUL_DESC_BIAS_POINTER
#define HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE
#define HIPBLASLT_MATMUL_DESC_POINTER_MODE CUBLASLT_MATMUL_DESC_POINTER_MODE
#define HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER
#define HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD
#define HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE
#define HIPBLASLT_MATMUL_DESC_A_SCALE_POINTER CUBLASLT_MATMUL_DESC_A_SCALE_POINTER
#define HIPBLASLT_MATMUL_DESC_B_SCALE_POINTER CUBLASLT_MATMUL_DESC_B_SCALE_POINTER
#define HIPBLASLT_MATMUL_DESC_D_SCALE_POINTER CUBLASLT_MATMUL_DESC_D_SCALE_POINTER
#define HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT
#define HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET
#define HIPBLASLT_MATRIX_LAYOUT_ORDER CUBLASLT_MATRIX_LAYOUT_ORDER
#define HIPBLASLT_MATRIX_LAYOUT_TYPE CUBLASLT_MATRIX_LAYOUT_TYPE
#define HIPBLASLT_MATRIX_LAYOUT_ROWS CUBLASLT_MATRIX_LAYOUT_ROWS
#define HIPBLASLT_MATRIX_LAYOUT_COLS CUBLASLT_MATRIX_LAYOUT_COLS
#define HIPBLASLT_MATRIX_LAYOUT_LD CUBLASLT_MATRIX_LAYOUT_LD
#define HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
#define HIPBLASLT_EPILOGUE_DEFAULT CUBLASLT_EPILOGUE_DEFAULT
#define HIPBLASLT_EPILOGUE_RELU CUBLASLT_EPILOGUE_RELU
#define HIPBLASLT_EPILOGUE_BIAS CUBLASLT_EPILOGUE_BIAS
#define HIPBLASLT_EPILOGUE_RELU_BIAS CUBLASLT_EPILOGUE_RELU_BIAS
#define HIPBLASLT_EPILOGUE_GELU CUBLASLT_EPILOGUE_GELU
#define HIPBLASLT_EPILOGUE_GELU_BIAS CUBLASLT_EPILOGUE_GELU_BIAS
#define HIPBLASLT_EPILOGUE_GELU_AUX CUBLASLT_EPILOGUE_GELU_AUX
#define HIPBLASLT_EPILOGUE_GELU_AUX_BIAS CUBLASLT_EPILOGUE_GELU_AUX_BIAS
#define HIPBLASLT_EPILOGUE_DGELU CUBLASLT_EPILOGUE_DGELU
#define HIPBLASLT_EPILOGUE_DGELU_BGRAD CUBLASLT_EPILOGUE_DGELU_BGRAD
#define HIPBLASLT_EPILOGUE_BGRADA CUBLASLT_EPILOGUE_BGRADA
#define HIPBLASLT_EPILOGUE_BGRADB CUBLASLT_EPILOGUE_BGRADB
#define HIPBLASLT_ORDER_COL CUBLASLT_ORDER_COL
#define HIPBLASLT_ORDER_ROW CUBLASLT_ORDER_ROW

#define PORTER_HOC_LT(expr) return ::porter_hoc::blas::st(expr)
inline hipblasStatus_t hipblasLtCreate(hipblasLtHandle_t* h) { PORTER_HOC_LT(cublasLtCreate(h)); }
inline hipblasStatus_t hipblasLtDestroy(hipblasLtHandle_t h) { PORTER_HOC_LT(cublasLtDestroy(h)); }
inline hipblasStatus_t hipblasLtMatmulDescCreate(hipblasLtMatmulDesc_t* d, hipblasComputeType_t compute, hipDataType scale) {
  PORTER_HOC_LT(cublasLtMatmulDescCreate(d, porter_hoc::blas::compute(compute), scale));
}
inline hipblasStatus_t hipblasLtMatmulDescDestroy(hipblasLtMatmulDesc_t d) { PORTER_HOC_LT(cublasLtMatmulDescDestroy(d)); }
inline hipblasStatus_t hipblasLtMatmulDescSetAttribute(hipblasLtMatmulDesc_t d, hipblasLtMatmulDescAttributes_t attr,
                                                       const void* buf, size_t size) {
  if ((attr == CUBLASLT_MATMUL_DESC_TRANSA || attr == CUBLASLT_MATMUL_DESC_TRANSB) && size == sizeof(hipblasOperation_t)) {
    hipblasOperation_t op;
    memcpy(&op, buf, sizeof(op));
    const int32_t cu = static_cast<int32_t>(porter_hoc::blas::op(op));  // cuBLASLt stores an int32_t
    PORTER_HOC_LT(cublasLtMatmulDescSetAttribute(d, attr, &cu, sizeof(cu)));
  }
  PORTER_HOC_LT(cublasLtMatmulDescSetAttribute(d, attr, buf, size));
}
inline hipblasStatus_t hipblasLtMatmulDescGetAttribute(hipblasLtMatmulDesc_t d, hipblasLtMatmulDescAttributes_t attr,
                                                       void* buf, size_t size, size_t* written) {
  PORTER_HOC_LT(cublasLtMatmulDescGetAttribute(d, attr, buf, size, written));
}
inline hipblasStatus_t hipblasLtMatrixLayoutCreate(hipblasLtMatrixLayout_t* l, hipDataType t, uint64_t rows, uint64_t cols,
                                                   int64_t ld) {
  PORTER_HOC_LT(cublasLtMatrixLayoutCreate(l, t, rows, cols, ld));
}
inline hipblasStatus_t hipblasLtMatrixLayoutDestroy(hipblasLtMatrixLayout_t l) { PORTER_HOC_LT(cublasLtMatrixLayoutDestroy(l)); }
inline hipblasStatus_t hipblasLtMatrixLayoutSetAttribute(hipblasLtMatrixLayout_t l, hipblasLtMatrixLayoutAttribute_t attr,
                                                         const void* buf, size_t size) {
  PORTER_HOC_LT(cublasLtMatrixLayoutSetAttribute(l, attr, buf, size));
}
inline hipblasStatus_t hipblasLtMatmulPreferenceCreate(hipblasLtMatmulPreference_t* p) {
  PORTER_HOC_LT(cublasLtMatmulPreferenceCreate(p));
}
inline hipblasStatus_t hipblasLtMatmulPreferenceDestroy(hipblasLtMatmulPreference_t p) {
  PORTER_HOC_LT(cublasLtMatmulPreferenceDestroy(p));
}
inline hipblasStatus_t hipblasLtMatmulPreferenceSetAttribute(hipblasLtMatmulPreference_t p,
                                                             hipblasLtMatmulPreferenceAttributes_t attr, const void* buf,
                                                             size_t size) {
  PORTER_HOC_LT(cublasLtMatmulPreferenceSetAttribute(p, attr, buf, size));
}
inline hipblasStatus_t hipblasLtMatmulAlgoGetHeuristic(hipblasLtHandle_t h, hipblasLtMatmulDesc_t d, hipblasLtMatrixLayout_t a,
                                                       hipblasLtMatrixLayout_t b, hipblasLtMatrixLayout_t c,
                                                       hipblasLtMatrixLayout_t dl, hipblasLtMatmulPreference_t pref,
                                                       int requested, hipblasLtMatmulHeuristicResult_t results[],
                                                       int* returned) {
  PORTER_HOC_LT(cublasLtMatmulAlgoGetHeuristic(h, d, a, b, c, dl, pref, requested, results, returned));
}
inline hipblasStatus_t hipblasLtMatmul(hipblasLtHandle_t h, hipblasLtMatmulDesc_t d, const void* alpha, const void* A,
                                       hipblasLtMatrixLayout_t al, const void* B, hipblasLtMatrixLayout_t bl,
                                       const void* beta, const void* C, hipblasLtMatrixLayout_t cl, void* D,
                                       hipblasLtMatrixLayout_t dl, const hipblasLtMatmulAlgo_t* algo, void* workspace,
                                       size_t workspace_bytes, hipStream_t s) {
  PORTER_HOC_LT(cublasLtMatmul(h, d, alpha, A, al, B, bl, beta, C, cl, D, dl, algo, workspace, workspace_bytes, s));
}
#undef PORTER_HOC_LT
