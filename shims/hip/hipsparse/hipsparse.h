/* porter overlay for <hipsparse/hipsparse.h>: the core hipSPARSE host API of ROCm 6.3 (hipSPARSE 3.1).
 *
 * Stands in for ROCm 6.3's hipsparse.h, which Debian does not package (it has no hipSPARSE or
 * rocSPARSE). Declarations only, written from the documented hipSPARSE API (ROCm 6.3 hipSPARSE
 * reference: "Sparse auxiliary functions" and "Sparse generic functions"): the handle, stream and
 * pointer mode, the legacy matrix descriptor, and the generic API a port of cuSPARSE 11+ calls
 * (CSR/COO sparse matrices, dense vectors and matrices, SpMV and SpMM with their buffer sizes).
 * Since hipSPARSE 3.0 (ROCm 6.0) read-only operands take the `Const` descriptor types. Enough
 * for porter to compile-check a port's calls for gfx950; nothing here links or runs. A port must
 * name enumerators, never numbers. The legacy level-1/2/3 routines (hipsparseScsrmv, ...) that
 * cuSPARSE 12 removed are not declared.
 */
#pragma once

#include <hip/hip_runtime_api.h>
#include <hip/library_types.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hipsparseContext* hipsparseHandle_t;
typedef struct hipsparseMatDescr* hipsparseMatDescr_t;

typedef enum {
  HIPSPARSE_STATUS_SUCCESS = 0,
  HIPSPARSE_STATUS_NOT_INITIALIZED = 1,
  HIPSPARSE_STATUS_ALLOC_FAILED = 2,
  HIPSPARSE_STATUS_INVALID_VALUE = 3,
  HIPSPARSE_STATUS_ARCH_MISMATCH = 4,
  HIPSPARSE_STATUS_MAPPING_ERROR = 5,
  HIPSPARSE_STATUS_EXECUTION_FAILED = 6,
  HIPSPARSE_STATUS_INTERNAL_ERROR = 7,
  HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
  HIPSPARSE_STATUS_ZERO_PIVOT = 9,
  HIPSPARSE_STATUS_NOT_SUPPORTED = 10,
  HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES = 11
} hipsparseStatus_t;

typedef enum { HIPSPARSE_POINTER_MODE_HOST = 0, HIPSPARSE_POINTER_MODE_DEVICE = 1 } hipsparsePointerMode_t;

typedef enum {
  HIPSPARSE_OPERATION_NON_TRANSPOSE = 111,
  HIPSPARSE_OPERATION_TRANSPOSE = 112,
  HIPSPARSE_OPERATION_CONJUGATE_TRANSPOSE = 113
} hipsparseOperation_t;

typedef enum { HIPSPARSE_INDEX_BASE_ZERO = 0, HIPSPARSE_INDEX_BASE_ONE = 1 } hipsparseIndexBase_t;

typedef enum {
  HIPSPARSE_MATRIX_TYPE_GENERAL = 0,
  HIPSPARSE_MATRIX_TYPE_SYMMETRIC = 1,
  HIPSPARSE_MATRIX_TYPE_HERMITIAN = 2,
  HIPSPARSE_MATRIX_TYPE_TRIANGULAR = 3
} hipsparseMatrixType_t;

typedef enum { HIPSPARSE_FILL_MODE_LOWER = 0, HIPSPARSE_FILL_MODE_UPPER = 1 } hipsparseFillMode_t;
typedef enum { HIPSPARSE_DIAG_TYPE_NON_UNIT = 0, HIPSPARSE_DIAG_TYPE_UNIT = 1 } hipsparseDiagType_t;

/* Generic API */
typedef enum { HIPSPARSE_INDEX_16U = 1, HIPSPARSE_INDEX_32I = 2, HIPSPARSE_INDEX_64I = 3 } hipsparseIndexType_t;
typedef enum { HIPSPARSE_ORDER_ROW = 0, HIPSPARSE_ORDER_COL = 1 } hipsparseOrder_t;
typedef enum {
  HIPSPARSE_FORMAT_CSR = 1,
  HIPSPARSE_FORMAT_CSC = 2,
  HIPSPARSE_FORMAT_COO = 3,
  HIPSPARSE_FORMAT_COO_AOS = 4,
  HIPSPARSE_FORMAT_BLOCKED_ELL = 5
} hipsparseFormat_t;

typedef enum {
  HIPSPARSE_SPMV_ALG_DEFAULT = 0,
  HIPSPARSE_SPMV_COO_ALG1 = 1,
  HIPSPARSE_SPMV_CSR_ALG1 = 2,
  HIPSPARSE_SPMV_CSR_ALG2 = 3,
  HIPSPARSE_SPMV_COO_ALG2 = 4
} hipsparseSpMVAlg_t;

typedef enum {
  HIPSPARSE_SPMM_ALG_DEFAULT = 0,
  HIPSPARSE_SPMM_COO_ALG1 = 1,
  HIPSPARSE_SPMM_COO_ALG2 = 2,
  HIPSPARSE_SPMM_COO_ALG3 = 3,
  HIPSPARSE_SPMM_CSR_ALG1 = 4
} hipsparseSpMMAlg_t;

typedef struct hipsparseSpMatDescr_st* hipsparseSpMatDescr_t;
typedef struct hipsparseSpMatDescr_st const* hipsparseConstSpMatDescr_t;
typedef struct hipsparseDnVecDescr_st* hipsparseDnVecDescr_t;
typedef struct hipsparseDnVecDescr_st const* hipsparseConstDnVecDescr_t;
typedef struct hipsparseDnMatDescr_st* hipsparseDnMatDescr_t;
typedef struct hipsparseDnMatDescr_st const* hipsparseConstDnMatDescr_t;

/* Auxiliary */
hipsparseStatus_t hipsparseCreate(hipsparseHandle_t* handle);
hipsparseStatus_t hipsparseDestroy(hipsparseHandle_t handle);
hipsparseStatus_t hipsparseGetVersion(hipsparseHandle_t handle, int* version);
hipsparseStatus_t hipsparseSetStream(hipsparseHandle_t handle, hipStream_t streamId);
hipsparseStatus_t hipsparseGetStream(hipsparseHandle_t handle, hipStream_t* streamId);
hipsparseStatus_t hipsparseSetPointerMode(hipsparseHandle_t handle, hipsparsePointerMode_t mode);
hipsparseStatus_t hipsparseGetPointerMode(hipsparseHandle_t handle, hipsparsePointerMode_t* mode);
const char* hipsparseGetErrorName(hipsparseStatus_t status);
const char* hipsparseGetErrorString(hipsparseStatus_t status);

hipsparseStatus_t hipsparseCreateMatDescr(hipsparseMatDescr_t* descrA);
hipsparseStatus_t hipsparseDestroyMatDescr(hipsparseMatDescr_t descrA);
hipsparseStatus_t hipsparseSetMatType(hipsparseMatDescr_t descrA, hipsparseMatrixType_t type);
hipsparseMatrixType_t hipsparseGetMatType(const hipsparseMatDescr_t descrA);
hipsparseStatus_t hipsparseSetMatIndexBase(hipsparseMatDescr_t descrA, hipsparseIndexBase_t base);
hipsparseIndexBase_t hipsparseGetMatIndexBase(const hipsparseMatDescr_t descrA);
hipsparseStatus_t hipsparseSetMatFillMode(hipsparseMatDescr_t descrA, hipsparseFillMode_t fillMode);
hipsparseStatus_t hipsparseSetMatDiagType(hipsparseMatDescr_t descrA, hipsparseDiagType_t diagType);

/* Generic descriptors */
hipsparseStatus_t hipsparseCreateCsr(hipsparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                     void* csrRowOffsets, void* csrColInd, void* csrValues,
                                     hipsparseIndexType_t rowOffsetsType, hipsparseIndexType_t colIndType,
                                     hipsparseIndexBase_t idxBase, hipDataType valueType);
hipsparseStatus_t hipsparseCreateCoo(hipsparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                     void* cooRowInd, void* cooColInd, void* cooValues,
                                     hipsparseIndexType_t cooIdxType, hipsparseIndexBase_t idxBase,
                                     hipDataType valueType);
hipsparseStatus_t hipsparseDestroySpMat(hipsparseConstSpMatDescr_t spMatDescr);
hipsparseStatus_t hipsparseSpMatGetSize(hipsparseConstSpMatDescr_t spMatDescr, int64_t* rows, int64_t* cols,
                                        int64_t* nnz);

hipsparseStatus_t hipsparseCreateDnVec(hipsparseDnVecDescr_t* dnVecDescr, int64_t size, void* values,
                                       hipDataType valueType);
hipsparseStatus_t hipsparseDestroyDnVec(hipsparseConstDnVecDescr_t dnVecDescr);
hipsparseStatus_t hipsparseDnVecGetValues(const hipsparseDnVecDescr_t dnVecDescr, void** values);
hipsparseStatus_t hipsparseDnVecSetValues(hipsparseDnVecDescr_t dnVecDescr, void* values);

hipsparseStatus_t hipsparseCreateDnMat(hipsparseDnMatDescr_t* dnMatDescr, int64_t rows, int64_t cols, int64_t ld,
                                       void* values, hipDataType valueType, hipsparseOrder_t order);
hipsparseStatus_t hipsparseDestroyDnMat(hipsparseConstDnMatDescr_t dnMatDescr);

/* Sparse matrix times dense vector / dense matrix */
hipsparseStatus_t hipsparseSpMV_bufferSize(hipsparseHandle_t handle, hipsparseOperation_t opA, const void* alpha,
                                           hipsparseConstSpMatDescr_t matA, hipsparseConstDnVecDescr_t vecX,
                                           const void* beta, const hipsparseDnVecDescr_t vecY,
                                           hipDataType computeType, hipsparseSpMVAlg_t alg, size_t* bufferSize);
hipsparseStatus_t hipsparseSpMV(hipsparseHandle_t handle, hipsparseOperation_t opA, const void* alpha,
                                hipsparseConstSpMatDescr_t matA, hipsparseConstDnVecDescr_t vecX, const void* beta,
                                const hipsparseDnVecDescr_t vecY, hipDataType computeType, hipsparseSpMVAlg_t alg,
                                void* externalBuffer);
hipsparseStatus_t hipsparseSpMM_bufferSize(hipsparseHandle_t handle, hipsparseOperation_t opA,
                                           hipsparseOperation_t opB, const void* alpha,
                                           hipsparseConstSpMatDescr_t matA, hipsparseConstDnMatDescr_t matB,
                                           const void* beta, const hipsparseDnMatDescr_t matC,
                                           hipDataType computeType, hipsparseSpMMAlg_t alg, size_t* bufferSize);
hipsparseStatus_t hipsparseSpMM(hipsparseHandle_t handle, hipsparseOperation_t opA, hipsparseOperation_t opB,
                                const void* alpha, hipsparseConstSpMatDescr_t matA,
                                hipsparseConstDnMatDescr_t matB, const void* beta, const hipsparseDnMatDescr_t matC,
                                hipDataType computeType, hipsparseSpMMAlg_t alg, void* externalBuffer);

#ifdef __cplusplus
}
#endif
