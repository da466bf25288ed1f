/* porter overlay: ROCm 6.x's hipDeviceProp_t (the R0600 layout) on Debian's HIP 5.2.
 *
 * From ROCm 6.0 on, hip_runtime_api.h declares the device properties as `hipDeviceProp_tR0600`
 * and maps the old names onto it with three macros (hipDeviceProp_t, hipGetDeviceProperties,
 * hipChooseDevice -> ...R0600). The R0600 struct follows CUDA's cudaDeviceProp (asyncEngineCount,
 * deviceOverlap, unifiedAddressing, sharedMemPerMultiprocessor, regsPerMultiprocessor,
 * maxBlocksPerMultiProcessor, ...) and adds HIP's own members at its end. HIP 5.2's struct has
 * about half of those members, so a port that reads prop.asyncEngineCount builds on ROCm 6 and not
 * on HIP 5.2; porter judges ports by ROCm 6.3.
 *
 * Pinned: the member list, types and order below are those of ROCm/HIP tag rocm-6.2.2,
 * include/hip/hip_runtime_api.h; the struct is the same at rocm-6.0.0 and on the amd-staging
 * branch of 2024-10-16 (the 6.3 line): R0600 names an ABI that 6.x keeps.
 *
 * Debian's libamdhip64 (5.2) only fills its own struct, so hipGetDevicePropertiesR0600 here reads
 * that struct and copies the members both layouts share, takes the others from
 * hipDeviceGetAttribute where HIP 5.2 has an attribute of the same name (and hipDeviceGetUuid),
 * and leaves at 0 what HIP 5.2's runtime cannot report (e.g. clusterLaunch, ipcEventSupported).
 * hipChooseDeviceR0600 hands the shared members to HIP 5.2's hipChooseDevice.
 * Included by the overlay's hip_runtime_api.h after Debian's header, AMD platform only.
 */
#pragma once

#include <string.h>

typedef struct hipDeviceProp_tR0600 {
  char name[256];
  hipUUID uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int maxTexture1D;
  int maxTexture1DMipmap;
  int maxTexture1DLinear;
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryClockRate;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int singleToDoublePrecisionPerfRatio;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  int cooperativeMultiDeviceLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseHipArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingHipArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int reserved[63];
  int hipReserved[32];
  char gcnArchName[256];
  size_t maxSharedMemoryPerMultiProcessor;
  int clockInstructionRate;
  hipDeviceArch_t arch;
  unsigned int* hdpMemFlushCntl;
  unsigned int* hdpRegFlushCntl;
  int cooperativeMultiDeviceUnmatchedFunc;
  int cooperativeMultiDeviceUnmatchedGridDim;
  int cooperativeMultiDeviceUnmatchedBlockDim;
  int cooperativeMultiDeviceUnmatchedSharedMem;
  int isLargeBar;
  int asicRevision;
} hipDeviceProp_tR0600;

/* HIP 5.2's struct and calls under the names ROCm 6.x keeps for the old layout (hip_deprecated.h). */
typedef hipDeviceProp_t hipDeviceProp_tR0000;
static inline hipError_t hipGetDevicePropertiesR0000(hipDeviceProp_tR0000* prop, int device) {
  return hipGetDeviceProperties(prop, device);
}
static inline hipError_t hipChooseDeviceR0000(int* device, const hipDeviceProp_tR0000* prop) {
  return hipChooseDevice(device, prop);
}

static inline hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600* p, int device) {
  hipDeviceProp_tR0000 old;
  hipError_t err;
  int value;
  if (p == NULL) return hipErrorInvalidValue;
  err = hipGetDeviceProperties(&old, device);
  if (err != hipSuccess) return err;
  memset(p, 0, sizeof *p);
  memcpy(&p->name, &old.name, sizeof p->name);
  p->totalGlobalMem = old.totalGlobalMem;
  p->sharedMemPerBlock = old.sharedMemPerBlock;
  p->regsPerBlock = old.regsPerBlock;
  p->warpSize = old.warpSize;
  p->memPitch = old.memPitch;
  p->maxThreadsPerBlock = old.maxThreadsPerBlock;
  memcpy(&p->maxThreadsDim, &old.maxThreadsDim, sizeof p->maxThreadsDim);
  memcpy(&p->maxGridSize, &old.maxGridSize, sizeof p->maxGridSize);
  p->clockRate = old.clockRate;
  p->totalConstMem = old.totalConstMem;
  p->major = old.major;
  p->minor = old.minor;
  p->textureAlignment = old.textureAlignment;
  p->texturePitchAlignment = old.texturePitchAlignment;
  p->multiProcessorCount = old.multiProcessorCount;
  p->kernelExecTimeoutEnabled = old.kernelExecTimeoutEnabled;
  p->integrated = old.integrated;
  p->canMapHostMemory = old.canMapHostMemory;
  p->computeMode = old.computeMode;
  p->maxTexture1D = old.maxTexture1D;
  p->maxTexture1DLinear = old.maxTexture1DLinear;
  memcpy(&p->maxTexture2D, &old.maxTexture2D, sizeof p->maxTexture2D);
  memcpy(&p->maxTexture3D, &old.maxTexture3D, sizeof p->maxTexture3D);
  p->concurrentKernels = old.concurrentKernels;
  p->ECCEnabled = old.ECCEnabled;
  p->pciBusID = old.pciBusID;
  p->pciDeviceID = old.pciDeviceID;
  p->pciDomainID = old.pciDomainID;
  p->tccDriver = old.tccDriver;
  p->memoryClockRate = old.memoryClockRate;
  p->memoryBusWidth = old.memoryBusWidth;
  p->l2CacheSize = old.l2CacheSize;
  p->maxThreadsPerMultiProcessor = old.maxThreadsPerMultiProcessor;
  p->managedMemory = old.managedMemory;
  p->isMultiGpuBoard = old.isMultiGpuBoard;
  p->pageableMemoryAccess = old.pageableMemoryAccess;
  p->concurrentManagedAccess = old.concurrentManagedAccess;
  p->cooperativeLaunch = old.cooperativeLaunch;
  p->cooperativeMultiDeviceLaunch = old.cooperativeMultiDeviceLaunch;
  p->pageableMemoryAccessUsesHostPageTables = old.pageableMemoryAccessUsesHostPageTables;
  p->directManagedMemAccessFromHost = old.directManagedMemAccessFromHost;
  memcpy(&p->gcnArchName, &old.gcnArchName, sizeof p->gcnArchName);
  p->maxSharedMemoryPerMultiProcessor = old.maxSharedMemoryPerMultiProcessor;
  p->clockInstructionRate = old.clockInstructionRate;
  memcpy(&p->arch, &old.arch, sizeof p->arch);
  p->hdpMemFlushCntl = old.hdpMemFlushCntl;
  p->hdpRegFlushCntl = old.hdpRegFlushCntl;
  p->cooperativeMultiDeviceUnmatchedFunc = old.cooperativeMultiDeviceUnmatchedFunc;
  p->cooperativeMultiDeviceUnmatchedGridDim = old.cooperativeMultiDeviceUnmatchedGridDim;
  p->cooperativeMultiDeviceUnmatchedBlockDim = old.cooperativeMultiDeviceUnmatchedBlockDim;
  p->cooperativeMultiDeviceUnmatchedSharedMem = old.cooperativeMultiDeviceUnmatchedSharedMem;
  p->isLargeBar = old.isLargeBar;
  p->asicRevision = old.asicRevision;
  p->sharedMemPerMultiprocessor = old.maxSharedMemoryPerMultiProcessor;
#define PORTER_R0600_ATTR(member, attr) \
  if (hipDeviceGetAttribute(&value, attr, device) == hipSuccess) p->member = value
  PORTER_R0600_ATTR(regsPerMultiprocessor, hipDeviceAttributeMaxRegistersPerMultiprocessor);
  PORTER_R0600_ATTR(deviceOverlap, hipDeviceAttributeDeviceOverlap);
  PORTER_R0600_ATTR(maxTexture1DMipmap, hipDeviceAttributeMaxTexture1DMipmap);
  PORTER_R0600_ATTR(maxTextureCubemap, hipDeviceAttributeMaxTextureCubemap);
  PORTER_R0600_ATTR(maxSurface1D, hipDeviceAttributeMaxSurface1D);
  PORTER_R0600_ATTR(maxSurfaceCubemap, hipDeviceAttributeMaxSurfaceCubemap);
  PORTER_R0600_ATTR(surfaceAlignment, hipDeviceAttributeSurfaceAlignment);
  PORTER_R0600_ATTR(asyncEngineCount, hipDeviceAttributeAsyncEngineCount);
  PORTER_R0600_ATTR(unifiedAddressing, hipDeviceAttributeUnifiedAddressing);
  PORTER_R0600_ATTR(persistingL2CacheMaxSize, hipDeviceAttributePersistingL2CacheMaxSize);
  PORTER_R0600_ATTR(streamPrioritiesSupported, hipDeviceAttributeStreamPrioritiesSupported);
  PORTER_R0600_ATTR(globalL1CacheSupported, hipDeviceAttributeGlobalL1CacheSupported);
  PORTER_R0600_ATTR(localL1CacheSupported, hipDeviceAttributeLocalL1CacheSupported);
  PORTER_R0600_ATTR(multiGpuBoardGroupID, hipDeviceAttributeMultiGpuBoardGroupID);
  PORTER_R0600_ATTR(hostNativeAtomicSupported, hipDeviceAttributeHostNativeAtomicSupported);
  PORTER_R0600_ATTR(singleToDoublePrecisionPerfRatio, hipDeviceAttributeSingleToDoublePrecisionPerfRatio);
  PORTER_R0600_ATTR(computePreemptionSupported, hipDeviceAttributeComputePreemptionSupported);
  PORTER_R0600_ATTR(canUseHostPointerForRegisteredMem, hipDeviceAttributeCanUseHostPointerForRegisteredMem);
  PORTER_R0600_ATTR(sharedMemPerBlockOptin, hipDeviceAttributeSharedMemPerBlockOptin);
  PORTER_R0600_ATTR(maxBlocksPerMultiProcessor, hipDeviceAttributeMaxBlocksPerMultiProcessor);
  PORTER_R0600_ATTR(accessPolicyMaxWindowSize, hipDeviceAttributeAccessPolicyMaxWindowSize);
  PORTER_R0600_ATTR(reservedSharedMemPerBlock, hipDeviceAttributeReservedSharedMemPerBlock);
  PORTER_R0600_ATTR(memoryPoolsSupported, hipDeviceAttributeMemoryPoolsSupported);
#undef PORTER_R0600_ATTR
  (void)hipDeviceGetUuid(&p->uuid, device);
  return hipSuccess;
}

static inline hipError_t hipChooseDeviceR0600(int* device, const hipDeviceProp_tR0600* p) {
  hipDeviceProp_tR0000 old;
  if (p == NULL) return hipErrorInvalidValue;
  memset(&old, 0, sizeof old);
  memcpy(&old.name, &p->name, sizeof old.name);
  old.totalGlobalMem = p->totalGlobalMem;
  old.sharedMemPerBlock = p->sharedMemPerBlock;
  old.regsPerBlock = p->regsPerBlock;
  old.warpSize = p->warpSize;
  old.memPitch = p->memPitch;
  old.maxThreadsPerBlock = p->maxThreadsPerBlock;
  memcpy(&old.maxThreadsDim, &p->maxThreadsDim, sizeof old.maxThreadsDim);
  memcpy(&old.maxGridSize, &p->maxGridSize, sizeof old.maxGridSize);
  old.clockRate = p->clockRate;
  old.totalConstMem = p->totalConstMem;
  old.major = p->major;
  old.minor = p->minor;
  old.textureAlignment = p->textureAlignment;
  old.texturePitchAlignment = p->texturePitchAlignment;
  old.multiProcessorCount = p->multiProcessorCount;
  old.kernelExecTimeoutEnabled = p->kernelExecTimeoutEnabled;
  old.integrated = p->integrated;
  old.canMapHostMemory = p->canMapHostMemory;
  old.computeMode = p->computeMode;
  old.maxTexture1D = p->maxTexture1D;
  old.maxTexture1DLinear = p->maxTexture1DLinear;
  memcpy(&old.maxTexture2D, &p->maxTexture2D, sizeof old.maxTexture2D);
  memcpy(&old.maxTexture3D, &p->maxTexture3D, sizeof old.maxTexture3D);
  old.concurrentKernels = p->concurrentKernels;
  old.ECCEnabled = p->ECCEnabled;
  old.pciBusID = p->pciBusID;
  old.pciDeviceID = p->pciDeviceID;
  old.pciDomainID = p->pciDomainID;
  old.tccDriver = p->tccDriver;
  old.memoryClockRate = p->memoryClockRate;
  old.memoryBusWidth = p->memoryBusWidth;
  old.l2CacheSize = p->l2CacheSize;
  old.maxThreadsPerMultiProcessor = p->maxThreadsPerMultiProcessor;
  old.managedMemory = p->managedMemory;
  old.isMultiGpuBoard = p->isMultiGpuBoard;
  old.pageableMemoryAccess = p->pageableMemoryAccess;
  old.concurrentManagedAccess = p->concurrentManagedAccess;
  old.cooperativeLaunch = p->cooperativeLaunch;
  old.cooperativeMultiDeviceLaunch = p->cooperativeMultiDeviceLaunch;
  old.pageableMemoryAccessUsesHostPageTables = p->pageableMemoryAccessUsesHostPageTables;
  old.directManagedMemAccessFromHost = p->directManagedMemAccessFromHost;
  memcpy(&old.gcnArchName, &p->gcnArchName, sizeof old.gcnArchName);
  old.maxSharedMemoryPerMultiProcessor = p->maxSharedMemoryPerMultiProcessor;
  old.clockInstructionRate = p->clockInstructionRate;
  memcpy(&old.arch, &p->arch, sizeof old.arch);
  old.hdpMemFlushCntl = p->hdpMemFlushCntl;
  old.hdpRegFlushCntl = p->hdpRegFlushCntl;
  old.cooperativeMultiDeviceUnmatchedFunc = p->cooperativeMultiDeviceUnmatchedFunc;
  old.cooperativeMultiDeviceUnmatchedGridDim = p->cooperativeMultiDeviceUnmatchedGridDim;
  old.cooperativeMultiDeviceUnmatchedBlockDim = p->cooperativeMultiDeviceUnmatchedBlockDim;
  old.cooperativeMultiDeviceUnmatchedSharedMem = p->cooperativeMultiDeviceUnmatchedSharedMem;
  old.isLargeBar = p->isLargeBar;
  old.asicRevision = p->asicRevision;
  return hipChooseDevice(device, &old);
}

#define hipDeviceProp_t hipDeviceProp_tR0600
#define hipGetDeviceProperties hipGetDevicePropertiesR0600
#define hipChooseDevice hipChooseDeviceR0600
