/* porter hip_on_cuda: <hip/hip_runtime_api.h> mapped onto the CUDA runtime.
 *
 * Stands in for: ROCm's hip_runtime_api.h - the host API a HIP port calls (errors, devices,
 * memory, streams, events, launches, function attributes, occupancy). Each entry forwards to
 * the CUDA runtime function of the same meaning (HIP's API is modelled on CUDA's: HIP
 * Runtime API reference), with CUDA's types and error values (hipError_t IS cudaError_t).
 *
 * What differs from a plain CUDA mapping, on purpose (the executor runs ports as AMD would):
 *   - hipDeviceProp_t.warpSize and hipDeviceAttributeWarpSize report 64;
 *   - hipDeviceProp_t.gcnArchName reports PORTER_HOC_GCN_ARCH_NAME ("gfx950" unless
 *     defined otherwise), so code selecting a gfx950 path takes it;
 *   - the other properties (SM count, shared memory, clocks) are the NVIDIA GPU's: launch
 *     geometry derived from them is the NVIDIA GPU's, not an MI350X's.
 * Not provided: modules (hipModule*), graphs, textures/arrays, IPC, hipExtLaunch*,
 * cooperative launches. A port that needs them fails to compile here.
 */
#pragma once
/* ROCm's include guards of this header and of hip/driver_types.h, which it includes: ported
 * code tests them (CUDA's __CUDA_RUNTIME_API_H__ and __DRIVER_TYPES_H__ map to them). */
#ifndef HIP_INCLUDE_HIP_HIP_RUNTIME_API_H
#define HIP_INCLUDE_HIP_HIP_RUNTIME_API_H
#endif
#ifndef HIP_INCLUDE_HIP_DRIVER_TYPES_H
#define HIP_INCLUDE_HIP_DRIVER_TYPES_H
#endif

#include <porter_hoc/config.h>

#ifndef PORTER_HOC_GCN_ARCH_NAME
#define PORTER_HOC_GCN_ARCH_NAME "gfx950"
#endif

/* ---- types and constants ---- */
typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaMemcpyKind hipMemcpyKind;
typedef cudaFuncAttribute hipFuncAttribute;
/* A struct, not a typedef: ROCm declares `typedef struct hipFuncAttributes {...}`, and ported
 * code writes `struct hipFuncAttributes a;`. Same layout as CUDA's, which it passes for. */
struct hipFuncAttributes : cudaFuncAttributes {};
typedef cudaFuncCache hipFuncCache_t;
typedef cudaSharedMemConfig hipSharedMemConfig;
typedef void* hipDeviceptr_t;

constexpr hipError_t hipSuccess = cudaSuccess;
constexpr hipError_t hipErrorInvalidValue = cudaErrorInvalidValue;
constexpr hipError_t hipErrorOutOfMemory = cudaErrorMemoryAllocation;
constexpr hipError_t hipErrorMemoryAllocation = cudaErrorMemoryAllocation;
constexpr hipError_t hipErrorNotInitialized = cudaErrorInitializationError;
constexpr hipError_t hipErrorInitializationError = cudaErrorInitializationError;
constexpr hipError_t hipErrorInvalidConfiguration = cudaErrorInvalidConfiguration;
constexpr hipError_t hipErrorInvalidDevice = cudaErrorInvalidDevice;
constexpr hipError_t hipErrorInvalidDeviceFunction = cudaErrorInvalidDeviceFunction;
constexpr hipError_t hipErrorInvalidSymbol = cudaErrorInvalidSymbol;
constexpr hipError_t hipErrorInvalidMemcpyDirection = cudaErrorInvalidMemcpyDirection;
constexpr hipError_t hipErrorNoDevice = cudaErrorNoDevice;
constexpr hipError_t hipErrorNotReady = cudaErrorNotReady;
constexpr hipError_t hipErrorNotSupported = cudaErrorNotSupported;
constexpr hipError_t hipErrorLaunchFailure = cudaErrorLaunchFailure;
constexpr hipError_t hipErrorLaunchOutOfResources = cudaErrorLaunchOutOfResources;
constexpr hipError_t hipErrorIllegalAddress = cudaErrorIllegalAddress;
constexpr hipError_t hipErrorInvalidResourceHandle = cudaErrorInvalidResourceHandle;
constexpr hipError_t hipErrorPeerAccessAlreadyEnabled = cudaErrorPeerAccessAlreadyEnabled;
constexpr hipError_t hipErrorPeerAccessNotEnabled = cudaErrorPeerAccessNotEnabled;
constexpr hipError_t hipErrorAssert = cudaErrorAssert;
constexpr hipError_t hipErrorUnknown = cudaErrorUnknown;

constexpr hipMemcpyKind hipMemcpyHostToHost = cudaMemcpyHostToHost;
constexpr hipMemcpyKind hipMemcpyHostToDevice = cudaMemcpyHostToDevice;
constexpr hipMemcpyKind hipMemcpyDeviceToHost = cudaMemcpyDeviceToHost;
constexpr hipMemcpyKind hipMemcpyDeviceToDevice = cudaMemcpyDeviceToDevice;
constexpr hipMemcpyKind hipMemcpyDefault = cudaMemcpyDefault;

constexpr hipFuncAttribute hipFuncAttributeMaxDynamicSharedMemorySize =
    cudaFuncAttributeMaxDynamicSharedMemorySize;
constexpr hipFuncAttribute hipFuncAttributePreferredSharedMemoryCarveout =
    cudaFuncAttributePreferredSharedMemoryCarveout;

constexpr hipFuncCache_t hipFuncCachePreferNone = cudaFuncCachePreferNone;
constexpr hipFuncCache_t hipFuncCachePreferShared = cudaFuncCachePreferShared;
constexpr hipFuncCache_t hipFuncCachePreferL1 = cudaFuncCachePreferL1;
constexpr hipFuncCache_t hipFuncCachePreferEqual = cudaFuncCachePreferEqual;
/* Bank-size configuration: HIP keeps the names and ignores the call on AMD; CUDA 13 keeps the
 * enum's values for old code, and hipDeviceSetSharedMemConfig below is a no-op on both. */
constexpr hipSharedMemConfig hipSharedMemBankSizeDefault = cudaSharedMemBankSizeDefault;
constexpr hipSharedMemConfig hipSharedMemBankSizeFourByte = cudaSharedMemBankSizeFourByte;
constexpr hipSharedMemConfig hipSharedMemBankSizeEightByte = cudaSharedMemBankSizeEightByte;

/* Flags: HIP's values equal CUDA's (hip_runtime_api.h / driver_types.h). */
constexpr unsigned hipStreamDefault = cudaStreamDefault;
constexpr unsigned hipStreamNonBlocking = cudaStreamNonBlocking;
constexpr unsigned hipEventDefault = cudaEventDefault;
constexpr unsigned hipEventBlockingSync = cudaEventBlockingSync;
constexpr unsigned hipEventDisableTiming = cudaEventDisableTiming;
constexpr unsigned hipEventInterprocess = cudaEventInterprocess;
constexpr unsigned hipHostMallocDefault = cudaHostAllocDefault;
constexpr unsigned hipHostMallocPortable = cudaHostAllocPortable;
constexpr unsigned hipHostMallocMapped = cudaHostAllocMapped;
constexpr unsigned hipHostMallocWriteCombined = cudaHostAllocWriteCombined;
/* hipHostAlloc's flags (ROCm keeps the CUDA-style names beside hipHostMalloc*). */
constexpr unsigned hipHostAllocDefault = cudaHostAllocDefault;
constexpr unsigned hipHostAllocPortable = cudaHostAllocPortable;
constexpr unsigned hipHostAllocMapped = cudaHostAllocMapped;
constexpr unsigned hipHostAllocWriteCombined = cudaHostAllocWriteCombined;
constexpr unsigned hipHostRegisterDefault = cudaHostRegisterDefault;
constexpr unsigned hipHostRegisterPortable = cudaHostRegisterPortable;
constexpr unsigned hipHostRegisterMapped = cudaHostRegisterMapped;
constexpr unsigned hipMemAttachGlobal = cudaMemAttachGlobal;
constexpr unsigned hipMemAttachHost = cudaMemAttachHost;
#define hipStreamPerThread cudaStreamPerThread

/* ---- errors ---- */
inline const char* hipGetErrorString(hipError_t e) { return cudaGetErrorString(e); }
inline const char* hipGetErrorName(hipError_t e) { return cudaGetErrorName(e); }
inline hipError_t hipGetLastError() { return cudaGetLastError(); }
inline hipError_t hipPeekAtLastError() { return cudaPeekAtLastError(); }

/* ---- devices ---- */
/* The fields HIP ports commonly read (HIP's hipDeviceProp_t has more; add as needed). The
 * member `warpSize` is spelled through the warpSize macro of porter_hoc/config.h, like every
 * use of `prop.warpSize`, so the two agree. */
struct hipDeviceProp_t {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;  /* kHz */
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int asyncEngineCount;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int memoryClockRate; /* kHz */
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int isMultiGpuBoard;
  int managedMemory;
  int concurrentManagedAccess;
  int cooperativeLaunch;
  size_t sharedMemPerMultiprocessor;
  size_t maxSharedMemoryPerMultiProcessor; /* HIP's spelling */
  size_t sharedMemPerBlockOptin;
  int regsPerMultiprocessor;
  char gcnArchName[256];
};

inline hipError_t hipGetDeviceCount(int* n) { return cudaGetDeviceCount(n); }
inline hipError_t hipSetDevice(int d) { return cudaSetDevice(d); }
/* hipSetDeviceFlags's flags: CUDA's values (HIP declares the same set). */
constexpr unsigned hipDeviceScheduleAuto = cudaDeviceScheduleAuto;
constexpr unsigned hipDeviceScheduleSpin = cudaDeviceScheduleSpin;
constexpr unsigned hipDeviceScheduleYield = cudaDeviceScheduleYield;
constexpr unsigned hipDeviceScheduleBlockingSync = cudaDeviceScheduleBlockingSync;
constexpr unsigned hipDeviceScheduleMask = cudaDeviceScheduleMask;
constexpr unsigned hipDeviceMapHost = cudaDeviceMapHost;
constexpr unsigned hipDeviceLmemResizeToMax = cudaDeviceLmemResizeToMax;
inline hipError_t hipSetDeviceFlags(unsigned flags) { return cudaSetDeviceFlags(flags); }
inline hipError_t hipGetDeviceFlags(unsigned* flags) { return cudaGetDeviceFlags(flags); }
inline hipError_t hipGetDevice(int* d) { return cudaGetDevice(d); }
inline hipError_t hipDeviceSynchronize() { return cudaDeviceSynchronize(); }
inline hipError_t hipDeviceReset() { return cudaDeviceReset(); }
/* Profiler range markers (deprecated in ROCm for roctracer, still declared): CUDA's. */
inline hipError_t hipProfilerStart() { return cudaProfilerStart(); }
inline hipError_t hipProfilerStop() { return cudaProfilerStop(); }
inline hipError_t hipDriverGetVersion(int* v) { return cudaDriverGetVersion(v); }
inline hipError_t hipRuntimeGetVersion(int* v) { return cudaRuntimeGetVersion(v); }
inline hipError_t hipDeviceSetCacheConfig(hipFuncCache_t c) { return cudaDeviceSetCacheConfig(c); }
inline hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig) { return hipSuccess; /* no-op on both */ }
inline hipError_t hipDeviceCanAccessPeer(int* can, int d, int peer) { return cudaDeviceCanAccessPeer(can, d, peer); }
inline hipError_t hipDeviceEnablePeerAccess(int peer, unsigned flags) { return cudaDeviceEnablePeerAccess(peer, flags); }
inline hipError_t hipDeviceDisablePeerAccess(int peer) { return cudaDeviceDisablePeerAccess(peer); }

namespace porter_hoc {
/* cudaDeviceProp's own warp-size member cannot be named after config.h (the warpSize macro
 * renames it), and is not needed: the emulated wave is 64 lanes. */
inline void fill_props(hipDeviceProp_t* p, const cudaDeviceProp& c) {
  memset(p, 0, sizeof(*p));
  memcpy(p->name, c.name, sizeof(p->name) < sizeof(c.name) ? sizeof(p->name) : sizeof(c.name));
  p->name[sizeof(p->name) - 1] = '\0';
  p->totalGlobalMem = c.totalGlobalMem;
  p->sharedMemPerBlock = c.sharedMemPerBlock;
  p->regsPerBlock = c.regsPerBlock;
  p->warpSize = PORTER_HOC_WAVE_SIZE;
  p->memPitch = c.memPitch;
  p->maxThreadsPerBlock = c.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    p->maxThreadsDim[i] = c.maxThreadsDim[i];
    p->maxGridSize[i] = c.maxGridSize[i];
  }
  p->totalConstMem = c.totalConstMem;
  p->major = c.major;
  p->minor = c.minor;
  p->textureAlignment = c.textureAlignment;
  p->multiProcessorCount = c.multiProcessorCount;
  p->integrated = c.integrated;
  p->canMapHostMemory = c.canMapHostMemory;
  p->concurrentKernels = c.concurrentKernels;
  p->ECCEnabled = c.ECCEnabled;
  p->pciBusID = c.pciBusID;
  p->pciDeviceID = c.pciDeviceID;
  p->pciDomainID = c.pciDomainID;
  p->memoryBusWidth = c.memoryBusWidth;
  p->l2CacheSize = c.l2CacheSize;
  p->persistingL2CacheMaxSize = c.persistingL2CacheMaxSize;
  p->maxThreadsPerMultiProcessor = c.maxThreadsPerMultiProcessor;
  p->isMultiGpuBoard = c.isMultiGpuBoard;
  p->managedMemory = c.managedMemory;
  p->concurrentManagedAccess = c.concurrentManagedAccess;
  p->cooperativeLaunch = c.cooperativeLaunch;
  p->asyncEngineCount = c.asyncEngineCount;
  p->sharedMemPerMultiprocessor = c.sharedMemPerMultiprocessor;
  p->maxSharedMemoryPerMultiProcessor = c.sharedMemPerMultiprocessor;
  p->sharedMemPerBlockOptin = c.sharedMemPerBlockOptin;
  p->regsPerMultiprocessor = c.regsPerMultiprocessor;
  snprintf(p->gcnArchName, sizeof(p->gcnArchName), "%s", PORTER_HOC_GCN_ARCH_NAME);
}
}  // namespace porter_hoc

/* CUDA 13 removed clockRate, memoryClockRate, computeMode and kernelExecTimeoutEnabled from
 * cudaDeviceProp; they are read as device attributes instead. */
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int device) {
  cudaDeviceProp c;
  cudaError_t e = cudaGetDeviceProperties(&c, device);
  if (e != cudaSuccess) return e;
  porter_hoc::fill_props(p, c);
  int v = 0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, device) == cudaSuccess) p->clockRate = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, device) == cudaSuccess) p->memoryClockRate = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, device) == cudaSuccess) p->computeMode = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrKernelExecTimeout, device) == cudaSuccess) p->kernelExecTimeoutEnabled = v;
  return cudaSuccess;
}

/* The attributes ports commonly query. Our own enum (HIP's numbering is not CUDA's). */
enum hipDeviceAttribute_t {
  hipDeviceAttributeMaxThreadsPerBlock,
  hipDeviceAttributeMaxBlockDimX,
  hipDeviceAttributeMaxBlockDimY,
  hipDeviceAttributeMaxBlockDimZ,
  hipDeviceAttributeMaxGridDimX,
  hipDeviceAttributeMaxGridDimY,
  hipDeviceAttributeMaxGridDimZ,
  hipDeviceAttributeMaxSharedMemoryPerBlock,
  hipDeviceAttributeSharedMemPerBlockOptin,
  hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
  hipDeviceAttributeTotalConstantMemory,
  hipDeviceAttributeWarpSize,
  hipDeviceAttributeMaxRegistersPerBlock,
  hipDeviceAttributeClockRate,
  hipDeviceAttributeMemoryClockRate,
  hipDeviceAttributeMemoryBusWidth,
  hipDeviceAttributeMultiprocessorCount,
  hipDeviceAttributeL2CacheSize,
  hipDeviceAttributeMaxThreadsPerMultiProcessor,
  hipDeviceAttributeComputeCapabilityMajor,
  hipDeviceAttributeComputeCapabilityMinor,
  hipDeviceAttributeConcurrentKernels,
  hipDeviceAttributePciBusId,
  hipDeviceAttributePciDeviceId,
  hipDeviceAttributeIntegrated,
  hipDeviceAttributeManagedMemory,
  hipDeviceAttributeCooperativeLaunch,
  hipDeviceAttributeComputeMode,
  hipDeviceAttributeAsyncEngineCount,
};

/* Compute modes (hipDeviceProp_t.computeMode, hipDeviceAttributeComputeMode): CUDA's values. */
typedef cudaComputeMode hipComputeMode;
constexpr hipComputeMode hipComputeModeDefault = cudaComputeModeDefault;
constexpr hipComputeMode hipComputeModeExclusive = cudaComputeModeExclusive;
constexpr hipComputeMode hipComputeModeProhibited = cudaComputeModeProhibited;
constexpr hipComputeMode hipComputeModeExclusiveProcess = cudaComputeModeExclusiveProcess;


inline hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr, int device) {
  cudaDeviceAttr a;
  switch (attr) {
    case hipDeviceAttributeWarpSize: *value = PORTER_HOC_WAVE_SIZE; return hipSuccess;
    case hipDeviceAttributeMaxThreadsPerBlock: a = cudaDevAttrMaxThreadsPerBlock; break;
    case hipDeviceAttributeMaxBlockDimX: a = cudaDevAttrMaxBlockDimX; break;
    case hipDeviceAttributeMaxBlockDimY: a = cudaDevAttrMaxBlockDimY; break;
    case hipDeviceAttributeMaxBlockDimZ: a = cudaDevAttrMaxBlockDimZ; break;
    case hipDeviceAttributeMaxGridDimX: a = cudaDevAttrMaxGridDimX; break;
    case hipDeviceAttributeMaxGridDimY: a = cudaDevAttrMaxGridDimY; break;
    case hipDeviceAttributeMaxGridDimZ: a = cudaDevAttrMaxGridDimZ; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock: a = cudaDevAttrMaxSharedMemoryPerBlock; break;
    case hipDeviceAttributeSharedMemPerBlockOptin: a = cudaDevAttrMaxSharedMemoryPerBlockOptin; break;
    case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor: a = cudaDevAttrMaxSharedMemoryPerMultiprocessor; break;
    case hipDeviceAttributeTotalConstantMemory: a = cudaDevAttrTotalConstantMemory; break;
    case hipDeviceAttributeMaxRegistersPerBlock: a = cudaDevAttrMaxRegistersPerBlock; break;
    case hipDeviceAttributeClockRate: a = cudaDevAttrClockRate; break;
    case hipDeviceAttributeMemoryClockRate: a = cudaDevAttrMemoryClockRate; break;
    case hipDeviceAttributeMemoryBusWidth: a = cudaDevAttrGlobalMemoryBusWidth; break;
    case hipDeviceAttributeMultiprocessorCount: a = cudaDevAttrMultiProcessorCount; break;
    case hipDeviceAttributeL2CacheSize: a = cudaDevAttrL2CacheSize; break;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor: a = cudaDevAttrMaxThreadsPerMultiProcessor; break;
    case hipDeviceAttributeComputeCapabilityMajor: a = cudaDevAttrComputeCapabilityMajor; break;
    case hipDeviceAttributeComputeCapabilityMinor: a = cudaDevAttrComputeCapabilityMinor; break;
    case hipDeviceAttributeConcurrentKernels: a = cudaDevAttrConcurrentKernels; break;
    case hipDeviceAttributePciBusId: a = cudaDevAttrPciBusId; break;
    case hipDeviceAttributePciDeviceId: a = cudaDevAttrPciDeviceId; break;
    case hipDeviceAttributeIntegrated: a = cudaDevAttrIntegrated; break;
    case hipDeviceAttributeManagedMemory: a = cudaDevAttrManagedMemory; break;
    case hipDeviceAttributeCooperativeLaunch: a = cudaDevAttrCooperativeLaunch; break;
    case hipDeviceAttributeComputeMode: a = cudaDevAttrComputeMode; break;
    case hipDeviceAttributeAsyncEngineCount: a = cudaDevAttrAsyncEngineCount; break;
    default: return hipErrorInvalidValue;
  }
  return cudaDeviceGetAttribute(value, a, device);
}

/* ---- memory ---- */
template <class T>
inline hipError_t hipMalloc(T** p, size_t bytes) { return cudaMalloc(reinterpret_cast<void**>(p), bytes); }
template <class T>
inline hipError_t hipMallocManaged(T** p, size_t bytes, unsigned flags = hipMemAttachGlobal) {
  return cudaMallocManaged(reinterpret_cast<void**>(p), bytes, flags);
}
template <class T>
inline hipError_t hipMallocAsync(T** p, size_t bytes, hipStream_t s) {
  return cudaMallocAsync(reinterpret_cast<void**>(p), bytes, s);
}
template <class T>
inline hipError_t hipHostMalloc(T** p, size_t bytes, unsigned flags = hipHostMallocDefault) {
  return cudaHostAlloc(reinterpret_cast<void**>(p), bytes, flags);
}
template <class T>
inline hipError_t hipHostAlloc(T** p, size_t bytes, unsigned flags = hipHostAllocDefault) {
  return cudaHostAlloc(reinterpret_cast<void**>(p), bytes, flags);
}
template <class T>
inline hipError_t hipMallocHost(T** p, size_t bytes) { return cudaMallocHost(reinterpret_cast<void**>(p), bytes); }
inline hipError_t hipFree(void* p) { return cudaFree(p); }
inline hipError_t hipFreeAsync(void* p, hipStream_t s) { return cudaFreeAsync(p, s); }
inline hipError_t hipHostFree(void* p) { return cudaFreeHost(p); }
inline hipError_t hipFreeHost(void* p) { return cudaFreeHost(p); }
inline hipError_t hipHostRegister(void* p, size_t bytes, unsigned flags) { return cudaHostRegister(p, bytes, flags); }
inline hipError_t hipHostUnregister(void* p) { return cudaHostUnregister(p); }
template <class T>
inline hipError_t hipHostGetDevicePointer(T** dev, void* host, unsigned flags) {
  return cudaHostGetDevicePointer(reinterpret_cast<void**>(dev), host, flags);
}
inline hipError_t hipMemGetInfo(size_t* free_b, size_t* total_b) { return cudaMemGetInfo(free_b, total_b); }

inline hipError_t hipMemcpy(void* dst, const void* src, size_t n, hipMemcpyKind k) { return cudaMemcpy(dst, src, n, k); }
inline hipError_t hipMemcpyAsync(void* dst, const void* src, size_t n, hipMemcpyKind k, hipStream_t s = 0) {
  return cudaMemcpyAsync(dst, src, n, k, s);
}
inline hipError_t hipMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t w, size_t h,
                              hipMemcpyKind k) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, w, h, k);
}
inline hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t w, size_t h,
                                   hipMemcpyKind k, hipStream_t s = 0) {
  return cudaMemcpy2DAsync(dst, dpitch, src, spitch, w, h, k, s);
}
inline hipError_t hipMemcpyPeer(void* dst, int ddev, const void* src, int sdev, size_t n) {
  return cudaMemcpyPeer(dst, ddev, src, sdev, n);
}
inline hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t n) { return cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice); }
inline hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t n) { return cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost); }
inline hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n) {
  return cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice);
}
inline hipError_t hipMemset(void* p, int v, size_t n) { return cudaMemset(p, v, n); }
inline hipError_t hipMemsetAsync(void* p, int v, size_t n, hipStream_t s = 0) { return cudaMemsetAsync(p, v, n, s); }

/* Symbols: HIP_SYMBOL(x) is x here, so the CUDA template taking the symbol by reference
 * resolves it; a `const void*` from hipGetSymbolAddress-style code takes the other overload. */
template <class T>
inline hipError_t hipMemcpyToSymbol(const T& symbol, const void* src, size_t n, size_t offset = 0,
                                    hipMemcpyKind k = hipMemcpyHostToDevice) {
  return cudaMemcpyToSymbol(symbol, src, n, offset, k);
}
template <class T>
inline hipError_t hipMemcpyToSymbolAsync(const T& symbol, const void* src, size_t n, size_t offset,
                                         hipMemcpyKind k, hipStream_t s = 0) {
  return cudaMemcpyToSymbolAsync(symbol, src, n, offset, k, s);
}
template <class T>
inline hipError_t hipMemcpyFromSymbol(void* dst, const T& symbol, size_t n, size_t offset = 0,
                                      hipMemcpyKind k = hipMemcpyDeviceToHost) {
  return cudaMemcpyFromSymbol(dst, symbol, n, offset, k);
}
template <class T>
inline hipError_t hipGetSymbolAddress(void** p, const T& symbol) { return cudaGetSymbolAddress(p, symbol); }

/* ---- streams and events ---- */
inline hipError_t hipStreamCreate(hipStream_t* s) { return cudaStreamCreate(s); }
typedef cudaStreamCallback_t hipStreamCallback_t; /* void (*)(hipStream_t, hipError_t, void*) on both */
inline hipError_t hipStreamAddCallback(hipStream_t s, hipStreamCallback_t cb, void* data, unsigned flags) {
  return cudaStreamAddCallback(s, cb, data, flags);
}
inline hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned f) { return cudaStreamCreateWithFlags(s, f); }
inline hipError_t hipStreamCreateWithPriority(hipStream_t* s, unsigned f, int prio) {
  return cudaStreamCreateWithPriority(s, f, prio);
}
inline hipError_t hipStreamDestroy(hipStream_t s) { return cudaStreamDestroy(s); }
inline hipError_t hipStreamSynchronize(hipStream_t s) { return cudaStreamSynchronize(s); }
inline hipError_t hipStreamQuery(hipStream_t s) { return cudaStreamQuery(s); }
inline hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned f = 0) { return cudaStreamWaitEvent(s, e, f); }
inline hipError_t hipDeviceGetStreamPriorityRange(int* least, int* greatest) {
  return cudaDeviceGetStreamPriorityRange(least, greatest);
}

inline hipError_t hipEventCreate(hipEvent_t* e) { return cudaEventCreate(e); }
inline hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned f) { return cudaEventCreateWithFlags(e, f); }
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t s = 0) { return cudaEventRecord(e, s); }
inline hipError_t hipEventSynchronize(hipEvent_t e) { return cudaEventSynchronize(e); }
inline hipError_t hipEventQuery(hipEvent_t e) { return cudaEventQuery(e); }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b) { return cudaEventElapsedTime(ms, a, b); }
inline hipError_t hipEventDestroy(hipEvent_t e) { return cudaEventDestroy(e); }

/* ---- launches and kernel attributes ---- */
/* hipLaunchKernelGGL(kernel, grid, block, dynamic shared bytes, stream, args...): the
 * triple-chevron launch it is defined as on every HIP platform. */
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
  do {                                                               \
    kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__);    \
  } while (0)

inline hipError_t hipLaunchKernel(const void* f, dim3 grid, dim3 block, void** args, size_t shmem = 0,
                                  hipStream_t s = 0) {
  return cudaLaunchKernel(f, grid, block, args, shmem, s);
}
template <class T>
inline hipError_t hipFuncSetAttribute(T* f, hipFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(reinterpret_cast<const void*>(f), attr, value);
}
inline hipError_t hipFuncSetAttribute(const void* f, hipFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(f, attr, value);
}
template <class T>
inline hipError_t hipFuncGetAttributes(hipFuncAttributes* a, T* f) {
  return cudaFuncGetAttributes(a, reinterpret_cast<const void*>(f));
}
template <class T>
inline hipError_t hipFuncSetCacheConfig(T* f, hipFuncCache_t c) {
  return cudaFuncSetCacheConfig(reinterpret_cast<const void*>(f), c);
}
/* Occupancy is the NVIDIA GPU's (registers, 32-thread warps, 228 KB shared memory). */
template <class T>
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* n, T f, int block, size_t shmem = 0) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, shmem);
}
template <class T>
inline hipError_t hipOccupancyMaxPotentialBlockSize(int* grid, int* block, T f, size_t shmem = 0, int limit = 0) {
  return cudaOccupancyMaxPotentialBlockSize(grid, block, f, shmem, limit);
}
