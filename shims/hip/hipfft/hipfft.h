/* porter overlay for <hipfft/hipfft.h>: the hipFFT host API of ROCm 6.3 (hipFFT 1.0.17).
 *
 * Stands in for ROCm 6.3's hipfft.h, which Debian does not package (it has no hipFFT or
 * rocFFT). Declarations only, written from the documented hipFFT API (ROCm 6.3 "hipFFT API
 * usage" reference): plan creation (simple, extensible, many, 64-bit many), size queries,
 * work areas, the six execution functions, streams, version and properties. hipFFT follows
 * cuFFT; the transform types and results keep cuFFT's values. Enough for porter to
 * compile-check a port's calls for gfx950; nothing here links or runs (a link needs the real
 * libhipfft). The Xt multi-GPU and callback API is not declared.
 */
#pragma once

#include <hip/hip_complex.h>
#include <hip/hip_runtime_api.h>
#include <stddef.h>

#define HIPFFT_FORWARD -1
#define HIPFFT_BACKWARD 1

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hipfftResult_t {
  HIPFFT_SUCCESS = 0,
  HIPFFT_INVALID_PLAN = 1,
  HIPFFT_ALLOC_FAILED = 2,
  HIPFFT_INVALID_TYPE = 3,
  HIPFFT_INVALID_VALUE = 4,
  HIPFFT_INTERNAL_ERROR = 5,
  HIPFFT_EXEC_FAILED = 6,
  HIPFFT_SETUP_FAILED = 7,
  HIPFFT_INVALID_SIZE = 8,
  HIPFFT_UNALIGNED_DATA = 9,
  HIPFFT_INCOMPLETE_PARAMETER_LIST = 10,
  HIPFFT_INVALID_DEVICE = 11,
  HIPFFT_PARSE_ERROR = 12,
  HIPFFT_NO_WORKSPACE = 13,
  HIPFFT_NOT_IMPLEMENTED = 14,
  HIPFFT_NOT_SUPPORTED = 16
} hipfftResult;

typedef enum hipfftType_t {
  HIPFFT_R2C = 0x2a, /* real to complex (interleaved) */
  HIPFFT_C2R = 0x2c, /* complex (interleaved) to real */
  HIPFFT_C2C = 0x29, /* complex to complex (interleaved) */
  HIPFFT_D2Z = 0x6a, /* double to double-complex (interleaved) */
  HIPFFT_Z2D = 0x6c, /* double-complex (interleaved) to double */
  HIPFFT_Z2Z = 0x69  /* double-complex to double-complex (interleaved) */
} hipfftType;

typedef enum hipfftLibraryPropertyType_t {
  HIPFFT_MAJOR_VERSION,
  HIPFFT_MINOR_VERSION,
  HIPFFT_PATCH_LEVEL
} hipfftLibraryPropertyType;

typedef struct hipfftHandle_t* hipfftHandle;

typedef hipFloatComplex hipfftComplex;
typedef hipDoubleComplex hipfftDoubleComplex;
typedef float hipfftReal;
typedef double hipfftDoubleReal;

/* Plans: allocate and initialise in one call. */
hipfftResult hipfftPlan1d(hipfftHandle* plan, int nx, hipfftType type, int batch);
hipfftResult hipfftPlan2d(hipfftHandle* plan, int nx, int ny, hipfftType type);
hipfftResult hipfftPlan3d(hipfftHandle* plan, int nx, int ny, int nz, hipfftType type);
hipfftResult hipfftPlanMany(hipfftHandle* plan, int rank, int* n, int* inembed, int istride, int idist,
                            int* onembed, int ostride, int odist, hipfftType type, int batch);

/* Extensible plans: create a handle, then make the plan (optionally reporting the work size). */
hipfftResult hipfftCreate(hipfftHandle* plan);
hipfftResult hipfftMakePlan1d(hipfftHandle plan, int nx, hipfftType type, int batch, size_t* workSize);
hipfftResult hipfftMakePlan2d(hipfftHandle plan, int nx, int ny, hipfftType type, size_t* workSize);
hipfftResult hipfftMakePlan3d(hipfftHandle plan, int nx, int ny, int nz, hipfftType type, size_t* workSize);
hipfftResult hipfftMakePlanMany(hipfftHandle plan, int rank, int* n, int* inembed, int istride, int idist,
                                int* onembed, int ostride, int odist, hipfftType type, int batch,
                                size_t* workSize);
hipfftResult hipfftMakePlanMany64(hipfftHandle plan, int rank, long long int* n, long long int* inembed,
                                  long long int istride, long long int idist, long long int* onembed,
                                  long long int ostride, long long int odist, hipfftType type,
                                  long long int batch, size_t* workSize);

/* Work-area estimates and sizes. */
hipfftResult hipfftEstimate1d(int nx, hipfftType type, int batch, size_t* workSize);
hipfftResult hipfftEstimate2d(int nx, int ny, hipfftType type, size_t* workSize);
hipfftResult hipfftEstimate3d(int nx, int ny, int nz, hipfftType type, size_t* workSize);
hipfftResult hipfftEstimateMany(int rank, int* n, int* inembed, int istride, int idist, int* onembed,
                                int ostride, int odist, hipfftType type, int batch, size_t* workSize);
hipfftResult hipfftGetSize1d(hipfftHandle plan, int nx, hipfftType type, int batch, size_t* workSize);
hipfftResult hipfftGetSize2d(hipfftHandle plan, int nx, int ny, hipfftType type, size_t* workSize);
hipfftResult hipfftGetSize3d(hipfftHandle plan, int nx, int ny, int nz, hipfftType type, size_t* workSize);
hipfftResult hipfftGetSizeMany(hipfftHandle plan, int rank, int* n, int* inembed, int istride, int idist,
                               int* onembed, int ostride, int odist, hipfftType type, int batch,
                               size_t* workSize);
hipfftResult hipfftGetSizeMany64(hipfftHandle plan, int rank, long long int* n, long long int* inembed,
                                 long long int istride, long long int idist, long long int* onembed,
                                 long long int ostride, long long int odist, hipfftType type,
                                 long long int batch, size_t* workSize);
hipfftResult hipfftGetSize(hipfftHandle plan, size_t* workSize);
hipfftResult hipfftSetAutoAllocation(hipfftHandle plan, int autoAllocate);
hipfftResult hipfftSetWorkArea(hipfftHandle plan, void* workArea);

/* Execution: in place when the input and output pointers are equal. */
hipfftResult hipfftExecC2C(hipfftHandle plan, hipfftComplex* idata, hipfftComplex* odata, int direction);
hipfftResult hipfftExecR2C(hipfftHandle plan, hipfftReal* idata, hipfftComplex* odata);
hipfftResult hipfftExecC2R(hipfftHandle plan, hipfftComplex* idata, hipfftReal* odata);
hipfftResult hipfftExecZ2Z(hipfftHandle plan, hipfftDoubleComplex* idata, hipfftDoubleComplex* odata,
                           int direction);
hipfftResult hipfftExecD2Z(hipfftHandle plan, hipfftDoubleReal* idata, hipfftDoubleComplex* odata);
hipfftResult hipfftExecZ2D(hipfftHandle plan, hipfftDoubleComplex* idata, hipfftDoubleReal* odata);

hipfftResult hipfftSetStream(hipfftHandle plan, hipStream_t stream);
hipfftResult hipfftDestroy(hipfftHandle plan);
hipfftResult hipfftGetVersion(int* version);
hipfftResult hipfftGetProperty(hipfftLibraryPropertyType type, int* value);

#ifdef __cplusplus
}
#endif
