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
 * The bulk of the API (types, constants, and the functions that forward unchanged) is generated
 * from a table: porter_hoc/runtime_table.h, written by gen/generate.py from gen/runtime_api.txt,
 * which also lists what is not provided and why (textures, modules, contexts, IPC, ...). This
 * file holds the functions whose meaning or signature differs from CUDA's.
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

/* A struct, not a typedef (gen/runtime_api.txt): ROCm declares `typedef struct
 * hipFuncAttributes {...}`, and ported code writes `struct hipFuncAttributes a;`. CUDA's layout. */
struct hipFuncAttributes : cudaFuncAttributes {};
#include <porter_hoc/runtime_table.h>
#include <porter_hoc/gfx950_props.h>

typedef void* hipDeviceptr_t;
typedef int hipDevice_t;
typedef cudaPointerAttributes hipPointerAttribute_t;
typedef cudaGraphExecUpdateResult hipGraphExecUpdateResult;
typedef cudaMemoryType hipMemoryType;
constexpr hipMemoryType hipMemoryTypeHost = cudaMemoryTypeHost;
constexpr hipMemoryType hipMemoryTypeDevice = cudaMemoryTypeDevice;
constexpr hipMemoryType hipMemoryTypeManaged = cudaMemoryTypeManaged;
constexpr hipMemoryType hipMemoryTypeUnregistered = cudaMemoryTypeUnregistered;
constexpr hipMemoryAdvise hipMemAdviseSetReadMostly = cudaMemAdviseSetReadMostly;
constexpr hipMemoryAdvise hipMemAdviseUnsetReadMostly = cudaMemAdviseUnsetReadMostly;
constexpr hipMemoryAdvise hipMemAdviseSetPreferredLocation = cudaMemAdviseSetPreferredLocation;
constexpr hipMemoryAdvise hipMemAdviseUnsetPreferredLocation = cudaMemAdviseUnsetPreferredLocation;
constexpr hipMemoryAdvise hipMemAdviseSetAccessedBy = cudaMemAdviseSetAccessedBy;
constexpr hipMemoryAdvise hipMemAdviseUnsetAccessedBy = cudaMemAdviseUnsetAccessedBy;
#define hipCpuDeviceId cudaCpuDeviceId
#define hipInvalidDeviceId cudaInvalidDeviceId

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

inline hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig) { return hipSuccess; /* no-op on both */ }

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
  p->asyncEngineCount = c.asyncEngineCount;
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
  p->sharedMemPerMultiprocessor = c.sharedMemPerMultiprocessor;
  p->maxSharedMemoryPerMultiProcessor = c.sharedMemPerMultiprocessor;
  p->sharedMemPerBlockOptin = c.sharedMemPerBlockOptin;
  p->regsPerMultiprocessor = c.regsPerMultiprocessor;
  snprintf(p->gcnArchName, sizeof(p->gcnArchName), "%s", PORTER_HOC_GCN_ARCH_NAME);
}

inline void gfx950_identity(hipDeviceProp_t* p) {
#if !defined(PORTER_HOC_PLATFORM_NVIDIA)
  /* gfx950's identity and per-CU figures (porter_hoc/gfx950_props.h, generated from porter's
   * hardware data). What a program sizes work by and then asks this GPU to run - SM/CU count,
   * threads per multiprocessor, shared memory per block, global memory - stays the NVIDIA
   * GPU's: a cooperative grid of 4 x 256 CUs, or a 160 KiB LDS request, cannot run on it. */
  snprintf(p->name, sizeof(p->name), "%s", PORTER_HOC_GFX950_NAME);
  p->major = 9;
  p->minor = 5;
  p->l2CacheSize = PORTER_HOC_GFX950_L2_BYTES;
  p->maxSharedMemoryPerMultiProcessor = PORTER_HOC_GFX950_LDS_PER_CU;
  p->regsPerMultiprocessor = PORTER_HOC_GFX950_REGS_PER_CU;
  p->clockRate = PORTER_HOC_GFX950_CLOCK_KHZ;
#endif
  (void)p;
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
  porter_hoc::gfx950_identity(p);
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
  hipDeviceAttributeImageSupport,
  hipDeviceAttributeEccEnabled,
  hipDeviceAttributeCanMapHostMemory,
  hipDeviceAttributeConcurrentManagedAccess,
  hipDeviceAttributePageableMemoryAccess,
  hipDeviceAttributeMemoryPoolsSupported,
  hipDeviceAttributeComputeMode,
  hipDeviceAttributeAsyncEngineCount,
  hipDeviceAttributeUnifiedAddressing,
  hipDeviceAttributePciDomainID,
  hipDeviceAttributeWallClockRate,
  hipDeviceAttributeMaxRegistersPerMultiprocessor,
};

inline hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr, int device) {
  cudaDeviceAttr a;
  switch (attr) {
    case hipDeviceAttributeWarpSize: *value = PORTER_HOC_WAVE_SIZE; return hipSuccess;
    case hipDeviceAttributeWallClockRate: *value = 100000; return hipSuccess; /* kHz: wall_clock64() */
#if !defined(PORTER_HOC_PLATFORM_NVIDIA)
    /* gfx950's identity figures, as hipGetDeviceProperties reports them. */
    case hipDeviceAttributeComputeCapabilityMajor: *value = 9; return hipSuccess;
    case hipDeviceAttributeComputeCapabilityMinor: *value = 5; return hipSuccess;
    case hipDeviceAttributeClockRate: *value = PORTER_HOC_GFX950_CLOCK_KHZ; return hipSuccess;
    case hipDeviceAttributeL2CacheSize: *value = PORTER_HOC_GFX950_L2_BYTES; return hipSuccess;
#endif
    default: break;
  }
  switch (attr) {
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
    /* texture objects run on CUDA's texture units (porter_hoc/runtime_table.h) */
    case hipDeviceAttributeImageSupport: *value = 1; return hipSuccess;
    case hipDeviceAttributeEccEnabled: a = cudaDevAttrEccEnabled; break;
    case hipDeviceAttributeCanMapHostMemory: a = cudaDevAttrCanMapHostMemory; break;
    case hipDeviceAttributeConcurrentManagedAccess: a = cudaDevAttrConcurrentManagedAccess; break;
    case hipDeviceAttributePageableMemoryAccess: a = cudaDevAttrPageableMemoryAccess; break;
    case hipDeviceAttributeMemoryPoolsSupported: a = cudaDevAttrMemoryPoolsSupported; break;
    case hipDeviceAttributeComputeMode: a = cudaDevAttrComputeMode; break;
    case hipDeviceAttributeAsyncEngineCount: a = cudaDevAttrAsyncEngineCount; break;
    case hipDeviceAttributeUnifiedAddressing: a = cudaDevAttrUnifiedAddressing; break;
    case hipDeviceAttributePciDomainID: a = cudaDevAttrPciDomainId; break;
    case hipDeviceAttributeMaxRegistersPerMultiprocessor: a = cudaDevAttrMaxRegistersPerMultiprocessor; break;
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
inline hipError_t hipMallocHost(T** p, size_t bytes) { return cudaMallocHost(reinterpret_cast<void**>(p), bytes); }
inline hipError_t hipHostRegister(void* p, size_t bytes, unsigned flags) { return cudaHostRegister(p, bytes, flags); }
template <class T>
inline hipError_t hipHostGetDevicePointer(T** dev, void* host, unsigned flags) {
  return cudaHostGetDevicePointer(reinterpret_cast<void**>(dev), host, flags);
}

inline hipError_t hipMemcpyAsync(void* dst, const void* src, size_t n, hipMemcpyKind k, hipStream_t s = 0) {
  return cudaMemcpyAsync(dst, src, n, k, s);
}
inline hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t n) { return cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice); }
inline hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t n) { return cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost); }
inline hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n) {
  return cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice);
}

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
inline hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned f = 0) { return cudaStreamWaitEvent(s, e, f); }

inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t s = 0) { return cudaEventRecord(e, s); }

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

/* ---- the rest of the hand-written part (gen/runtime_api.txt [manual]) ---- */
inline hipError_t hipInit(unsigned int flags) { return flags == 0 ? cudaFree(nullptr) : hipErrorInvalidValue; }
inline hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
  int n = 0;
  const hipError_t e = cudaGetDeviceCount(&n);
  if (e != hipSuccess) return e;
  if (ordinal < 0 || ordinal >= n) return hipErrorInvalidDevice;
  *device = ordinal;
  return hipSuccess;
}
inline hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device) {
  hipDeviceProp_t p;
  const hipError_t e = hipGetDeviceProperties(&p, device);
  if (e == hipSuccess && len > 0) snprintf(name, static_cast<size_t>(len), "%s", p.name);
  return e;
}
inline hipError_t hipDeviceComputeCapability(int* major, int* minor, hipDevice_t device) {
  hipError_t e = hipDeviceGetAttribute(major, hipDeviceAttributeComputeCapabilityMajor, device);
  return e != hipSuccess ? e : hipDeviceGetAttribute(minor, hipDeviceAttributeComputeCapabilityMinor, device);
}
inline hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device) {
  cudaDeviceProp c;
  const hipError_t e = cudaGetDeviceProperties(&c, device);
  if (e == hipSuccess) *bytes = c.totalGlobalMem;
  return e;
}
inline hipError_t hipChooseDevice(int* device, const hipDeviceProp_t*) { return cudaGetDevice(device); }
inline hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig* c) { *c = hipSharedMemBankSizeFourByte; return hipSuccess; }
template <class T>
inline hipError_t hipFuncSetSharedMemConfig(T, hipSharedMemConfig) { return hipSuccess; /* no-op on both */ }

template <class T>
inline hipError_t hipMallocPitch(T** p, size_t* pitch, size_t width, size_t height) {
  return cudaMallocPitch(reinterpret_cast<void**>(p), pitch, width, height);
}
template <class T>
inline hipError_t hipHostAlloc(T** p, size_t bytes, unsigned flags = hipHostAllocDefault) {
  return cudaHostAlloc(reinterpret_cast<void**>(p), bytes, flags);
}
template <class T>
inline hipError_t hipMemAllocHost(T** p, size_t bytes) { return cudaMallocHost(reinterpret_cast<void**>(p), bytes); }
inline hipError_t hipMemcpyWithStream(void* dst, const void* src, size_t n, hipMemcpyKind k, hipStream_t s) {
  const hipError_t e = cudaMemcpyAsync(dst, src, n, k, s);
  return e != hipSuccess ? e : cudaStreamSynchronize(s);
}
inline hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t n, hipStream_t s) {
  return cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s);
}
inline hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t n, hipStream_t s) {
  return cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s);
}
inline hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n, hipStream_t s) {
  return cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, s);
}
template <class T>
inline hipError_t hipMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t n, size_t offset, hipMemcpyKind k,
                                           hipStream_t s = 0) {
  return cudaMemcpyFromSymbolAsync(dst, symbol, n, offset, k, s);
}
template <class T>
inline hipError_t hipGetSymbolSize(size_t* size, const T& symbol) { return cudaGetSymbolSize(size, symbol); }
/* CUDA 13 takes a cudaMemLocation where HIP takes a device ordinal (hipCpuDeviceId for the host). */
inline cudaMemLocation porter_hoc_location(int device) {
  cudaMemLocation l{};
  l.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  l.id = device == cudaCpuDeviceId ? 0 : device;
  return l;
}
inline hipError_t hipMemPrefetchAsync(const void* p, size_t n, int device, hipStream_t s = 0) {
  return cudaMemPrefetchAsync(p, n, porter_hoc_location(device), 0, s);
}
inline hipError_t hipMemAdvise(const void* p, size_t n, hipMemoryAdvise advice, int device) {
  return cudaMemAdvise(p, n, advice, porter_hoc_location(device));
}
inline hipError_t hipPointerGetAttributes(hipPointerAttribute_t* a, const void* p) { return cudaPointerGetAttributes(a, p); }

template <class T>
inline hipError_t hipLaunchCooperativeKernel(T f, dim3 grid, dim3 block, void** args, unsigned int shmem,
                                             hipStream_t s) {
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(f), grid, block, args, shmem, s);
}
template <class T>
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, T f, int block, size_t shmem,
                                                                         unsigned int flags) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, block, shmem, flags);
}

/* Graphs: CUDA 12/13 changed these signatures (edge data, instantiate flags, update info). */
inline hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, hipGraphNode_t* error_node = nullptr,
                                      char* log = nullptr, size_t log_size = 0) {
  if (error_node) *error_node = nullptr;
  if (log && log_size) log[0] = '\0';
  return cudaGraphInstantiate(exec, graph, 0);
}
inline hipError_t hipGraphAddDependencies(hipGraph_t g, const hipGraphNode_t* from, const hipGraphNode_t* to, size_t n) {
  return cudaGraphAddDependencies(g, from, to, nullptr, n);
}
inline hipError_t hipGraphRemoveDependencies(hipGraph_t g, const hipGraphNode_t* from, const hipGraphNode_t* to,
                                             size_t n) {
  return cudaGraphRemoveDependencies(g, from, to, nullptr, n);
}
inline hipError_t hipGraphGetEdges(hipGraph_t g, hipGraphNode_t* from, hipGraphNode_t* to, size_t* n) {
  return cudaGraphGetEdges(g, from, to, nullptr, n);
}
inline hipError_t hipGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t* deps, size_t* n) {
  return cudaGraphNodeGetDependencies(node, deps, nullptr, n);
}
inline hipError_t hipGraphNodeGetDependentNodes(hipGraphNode_t node, hipGraphNode_t* deps, size_t* n) {
  return cudaGraphNodeGetDependentNodes(node, deps, nullptr, n);
}
inline hipError_t hipGraphExecUpdate(hipGraphExec_t exec, hipGraph_t graph, hipGraphNode_t* error_node,
                                     hipGraphExecUpdateResult* result) {
  cudaGraphExecUpdateResultInfo info{};
  const hipError_t e = cudaGraphExecUpdate(exec, graph, &info);
  if (error_node) *error_node = info.errorNode;
  if (result) *result = info.result;
  return e;
}
inline hipError_t hipStreamGetCaptureInfo(hipStream_t s, hipStreamCaptureStatus* status,
                                          unsigned long long* id = nullptr) {
  return cudaStreamGetCaptureInfo(s, status, id);
}

/* Channel descriptors (HIP: a function and a template, as CUDA's). */
inline hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, hipChannelFormatKind f) {
  return cudaCreateChannelDesc(x, y, z, w, f);
}
template <class T>
inline hipChannelFormatDesc hipCreateChannelDesc() { return cudaCreateChannelDesc<T>(); }
