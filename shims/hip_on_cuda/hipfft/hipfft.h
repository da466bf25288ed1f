/* porter hip_on_cuda: <hipfft/hipfft.h> on cuFFT, as hipFFT runs on its NVIDIA platform. hipFFT's
 * API is cuFFT's with hip names (the same enum values: hipfftType's HIPFFT_R2C = 0x2a, ... are
 * cuFFT's, and HIPFFT_FORWARD = -1 / HIPFFT_BACKWARD = 1), so types are typedefs and each call
 * forwards; results are hipFFT's own codes, converted. Link: -lcufft.
 */
#pragma once

#include <hip/hip_runtime.h>
#include <porter_hoc/cuda_begin.h>
#include <cufft.h>
#include <porter_hoc/cuda_end.h>

typedef cufftHandle hipfftHandle;
typedef cufftType hipfftType;
typedef cufftType hipfftType_t;
typedef cufftReal hipfftReal;
typedef cufftDoubleReal hipfftDoubleReal;
typedef cufftComplex hipfftComplex;
typedef cufftDoubleComplex hipfftDoubleComplex;

/* hipFFT's own result codes (CUDA 13's cuFFT dropped some of them); calls convert cuFFT's. */
typedef enum hipfftResult_t {
  HIPFFT_SUCCESS = 0, HIPFFT_INVALID_PLAN = 1, HIPFFT_ALLOC_FAILED = 2, HIPFFT_INVALID_TYPE = 3,
  HIPFFT_INVALID_VALUE = 4, HIPFFT_INTERNAL_ERROR = 5, HIPFFT_EXEC_FAILED = 6, HIPFFT_SETUP_FAILED = 7,
  HIPFFT_INVALID_SIZE = 8, HIPFFT_UNALIGNED_DATA = 9, HIPFFT_INCOMPLETE_PARAMETER_LIST = 10,
  HIPFFT_INVALID_DEVICE = 11, HIPFFT_PARSE_ERROR = 12, HIPFFT_NO_WORKSPACE = 13, HIPFFT_NOT_IMPLEMENTED = 14,
  HIPFFT_LICENSE_ERROR = 15, HIPFFT_NOT_SUPPORTED = 16,
} hipfftResult;
namespace porter_hoc {
inline hipfftResult fft_result(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return HIPFFT_SUCCESS;
    case CUFFT_INVALID_PLAN: return HIPFFT_INVALID_PLAN;
    case CUFFT_ALLOC_FAILED: return HIPFFT_ALLOC_FAILED;
    case CUFFT_INVALID_TYPE: return HIPFFT_INVALID_TYPE;
    case CUFFT_INVALID_VALUE: return HIPFFT_INVALID_VALUE;
    case CUFFT_INTERNAL_ERROR: return HIPFFT_INTERNAL_ERROR;
    case CUFFT_EXEC_FAILED: return HIPFFT_EXEC_FAILED;
    case CUFFT_SETUP_FAILED: return HIPFFT_SETUP_FAILED;
    case CUFFT_INVALID_SIZE: return HIPFFT_INVALID_SIZE;
    case CUFFT_UNALIGNED_DATA: return HIPFFT_UNALIGNED_DATA;
    case CUFFT_INVALID_DEVICE: return HIPFFT_INVALID_DEVICE;
    case CUFFT_NO_WORKSPACE: return HIPFFT_NO_WORKSPACE;
    case CUFFT_NOT_IMPLEMENTED: return HIPFFT_NOT_IMPLEMENTED;
    case CUFFT_NOT_SUPPORTED: return HIPFFT_NOT_SUPPORTED;
    default: return HIPFFT_INTERNAL_ERROR;
  }
}
}  // namespace porter_hoc
#define HIPFFT_R2C CUFFT_R2C
#define HIPFFT_C2R CUFFT_C2R
#define HIPFFT_C2C CUFFT_C2C
#define HIPFFT_D2Z CUFFT_D2Z
#define HIPFFT_Z2D CUFFT_Z2D
#define HIPFFT_Z2Z CUFFT_Z2Z
#define HIPFFT_FORWARD CUFFT_FORWARD
#define HIPFFT_BACKWARD CUFFT_INVERSE

inline hipfftResult hipfftPlan1d(hipfftHandle* p, int nx, hipfftType t, int batch) { return porter_hoc::fft_result(cufftPlan1d(p, nx, t, batch)); }
inline hipfftResult hipfftPlan2d(hipfftHandle* p, int nx, int ny, hipfftType t) { return porter_hoc::fft_result(cufftPlan2d(p, nx, ny, t)); }
inline hipfftResult hipfftPlan3d(hipfftHandle* p, int nx, int ny, int nz, hipfftType t) { return porter_hoc::fft_result(cufftPlan3d(p, nx, ny, nz, t)); }
inline hipfftResult hipfftPlanMany(hipfftHandle* p, int rank, int* n, int* inembed, int istride, int idist, int* onembed,
                                   int ostride, int odist, hipfftType t, int batch) {
  return porter_hoc::fft_result(cufftPlanMany(p, rank, n, inembed, istride, idist, onembed, ostride, odist, t, batch));
}
inline hipfftResult hipfftCreate(hipfftHandle* p) { return porter_hoc::fft_result(cufftCreate(p)); }
inline hipfftResult hipfftMakePlan1d(hipfftHandle p, int nx, hipfftType t, int batch, size_t* ws) { return porter_hoc::fft_result(cufftMakePlan1d(p, nx, t, batch, ws)); }
inline hipfftResult hipfftMakePlan2d(hipfftHandle p, int nx, int ny, hipfftType t, size_t* ws) { return porter_hoc::fft_result(cufftMakePlan2d(p, nx, ny, t, ws)); }
inline hipfftResult hipfftMakePlan3d(hipfftHandle p, int nx, int ny, int nz, hipfftType t, size_t* ws) { return porter_hoc::fft_result(cufftMakePlan3d(p, nx, ny, nz, t, ws)); }
inline hipfftResult hipfftGetSize(hipfftHandle p, size_t* ws) { return porter_hoc::fft_result(cufftGetSize(p, ws)); }
inline hipfftResult hipfftSetAutoAllocation(hipfftHandle p, int a) { return porter_hoc::fft_result(cufftSetAutoAllocation(p, a)); }
inline hipfftResult hipfftSetWorkArea(hipfftHandle p, void* w) { return porter_hoc::fft_result(cufftSetWorkArea(p, w)); }
inline hipfftResult hipfftSetStream(hipfftHandle p, hipStream_t s) { return porter_hoc::fft_result(cufftSetStream(p, s)); }
inline hipfftResult hipfftDestroy(hipfftHandle p) { return porter_hoc::fft_result(cufftDestroy(p)); }
inline hipfftResult hipfftGetVersion(int* v) { return porter_hoc::fft_result(cufftGetVersion(v)); }
inline hipfftResult hipfftExecC2C(hipfftHandle p, hipfftComplex* i, hipfftComplex* o, int d) { return porter_hoc::fft_result(cufftExecC2C(p, i, o, d)); }
inline hipfftResult hipfftExecR2C(hipfftHandle p, hipfftReal* i, hipfftComplex* o) { return porter_hoc::fft_result(cufftExecR2C(p, i, o)); }
inline hipfftResult hipfftExecC2R(hipfftHandle p, hipfftComplex* i, hipfftReal* o) { return porter_hoc::fft_result(cufftExecC2R(p, i, o)); }
inline hipfftResult hipfftExecZ2Z(hipfftHandle p, hipfftDoubleComplex* i, hipfftDoubleComplex* o, int d) { return porter_hoc::fft_result(cufftExecZ2Z(p, i, o, d)); }
inline hipfftResult hipfftExecD2Z(hipfftHandle p, hipfftDoubleReal* i, hipfftDoubleComplex* o) { return porter_hoc::fft_result(cufftExecD2Z(p, i, o)); }
inline hipfftResult hipfftExecZ2D(hipfftHandle p, hipfftDoubleComplex* i, hipfftDoubleReal* o) { return porter_hoc::fft_result(cufftExecZ2D(p, i, o)); }
