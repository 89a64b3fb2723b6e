/* moatbridge: CUDA calls whose HIP counterpart differs in more than its name. */
#pragma once
/* What NVIDIA's CUDA 12.4 headers mark deprecated is deprecated here too, silenced as there by
   CUDA_ENABLE_DEPRECATED (the generated declarations define the same, see deprecations.py). */
#ifndef MOATBRIDGE_DEPRECATED_RUNTIME
#if defined(CUDA_ENABLE_DEPRECATED)
#define MOATBRIDGE_DEPRECATED_RUNTIME
#else
#define MOATBRIDGE_DEPRECATED_RUNTIME __attribute__((deprecated))
#endif
#endif
/* The device number HIP's prefetch and advice take for a CUDA memory location: a device's,
   or the host's. */
static inline int moatbridge_location_device(hipMemLocation location) {
    return location.type == hipMemLocationTypeDevice ? location.id : hipCpuDeviceId;
}
#ifdef __cplusplus
/* CUDA's driver-API status (CUresult) and the runtime's (cudaError_t) are two enums, so C++
   code overloads and specialises on them (helper_cuda.h's _cudaGetErrorEnum, error-string and
   check helpers); HIP has one hipError_t for both, and a plain rename made such overloads
   redefinitions. In C++ CUresult is therefore its own type holding a hipError_t: it converts
   to and from hipError_t implicitly (HIP's driver calls return hipError_t, comparisons,
   switch and cuGetErrorName keep working), and from an int only explicitly, as an enum does.
   C code keeps the plain typedef (#else below). Trivial, and the size of the enum. */
struct CUresult {
    hipError_t value;
    CUresult() = default;
    constexpr CUresult(hipError_t status) : value(status) {}
    constexpr explicit CUresult(int status) : value(static_cast<hipError_t>(status)) {}
    constexpr operator hipError_t() const { return value; }
};
/* cudaMallocHost(void**, size_t): hipHostMalloc needs a flags argument for void**. */
static inline hipError_t moatbridge_cudaMallocHost(void** ptr, size_t size) {
    return hipHostMalloc(ptr, size, hipHostMallocDefault);
}
static inline hipError_t moatbridge_cudaMallocHost(void** ptr, size_t size, unsigned int flags) {
    return hipHostMalloc(ptr, size, flags);
}
template <class T>
static inline hipError_t moatbridge_cudaMallocHost(T** ptr, size_t size, unsigned int flags = hipHostMallocDefault) {
    return hipHostMalloc(reinterpret_cast<void**>(ptr), size, flags);
}
#define cudaMallocHost moatbridge_cudaMallocHost

/* CUDA code gates features on the compute capability; HIP reports gfx numbers (10.3 for
   gfx1030). Report the capability this toolkit mimics, as SCALE does. */
static inline hipError_t moatbridge_cudaGetDeviceProperties(hipDeviceProp_t* prop, int device) {
    hipError_t status = hipGetDeviceProperties(prop, device);
    if (status == hipSuccess) {
        prop->major = MOATBRIDGE_MIMIC_CC_MAJOR;
        prop->minor = MOATBRIDGE_MIMIC_CC_MINOR;
    }
    return status;
}
#define cudaGetDeviceProperties moatbridge_cudaGetDeviceProperties

/* CUDA 12.4's cudaDeviceProp has ~50 fields HIP 5.7's hipDeviceProp_t lacks (deviceQuery and
   many programs read them): the same struct with them added, filled from HIP where it knows
   the answer, with what AMD GPUs have where it does not (two copy engines, unified
   addressing, stream priorities, memory pools), and zero for NVIDIA-only features. */
struct moatbridge_cudaDeviceProp : hipDeviceProp_t {
    hipUUID uuid;
    char luid[8];
    unsigned int luidDeviceNodeMask;
    int deviceOverlap, maxTexture1DMipmap, maxTexture2DMipmap[2], maxTexture2DLinear[3], maxTexture2DGather[2];
    int maxTexture3DAlt[3], maxTextureCubemap, maxTexture1DLayered[2], maxTexture2DLayered[3];
    int maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2], maxSurface3D[3], maxSurface1DLayered[2];
    int maxSurface2DLayered[3], maxSurfaceCubemap, maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int asyncEngineCount, unifiedAddressing, persistingL2CacheMaxSize, streamPrioritiesSupported;
    int globalL1CacheSupported, localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor, multiGpuBoardGroupID, hostNativeAtomicSupported, singleToDoublePrecisionPerfRatio;
    int computePreemptionSupported, canUseHostPointerForRegisteredMem;
    size_t sharedMemPerBlockOptin;
    int maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported, sparseCudaArraySupported, hostRegisterReadOnlySupported;
    int timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported;
    unsigned int gpuDirectRDMAFlushWritesOptions;
    int gpuDirectRDMAWritesOrdering;
    unsigned int memoryPoolSupportedHandleTypes;
    int deferredMappingCudaArraySupported, ipcEventSupported, clusterLaunch, unifiedFunctionPointers;
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
    /* CUDA 13's: where the device sits (not a NUMA node of its own; the host's node is not
       known here), MPS (NVIDIA's), and the PCI product ids (read from sysfs) */
    int deviceNumaConfig, deviceNumaId, mpsEnabled, hostNumaId;
    unsigned int gpuPciDeviceID, gpuPciSubsystemID;
    int hostNumaMultinodeIpcSupported;
#endif
};
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
#include <stdio.h>
/* Two 16-bit ids of the device's PCI function from sysfs, as CUDA combines them: `high` in the
   upper half, `low` in the lower (device and vendor, subsystem device and subsystem vendor). */
static inline unsigned int moatbridge_pci_ids(const hipDeviceProp_t& base, const char* high, const char* low) {
    unsigned int ids[2] = {0, 0};
    const char* names[2] = {high, low};
    for (int i = 0; i < 2; ++i) {
        char path[128];
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%04x:%02x:%02x.0/%s", base.pciDomainID, base.pciBusID,
                 base.pciDeviceID, names[i]);
        if (FILE* file = fopen(path, "r")) {
            if (fscanf(file, "%x", &ids[i]) != 1) ids[i] = 0;
            fclose(file);
        }
    }
    return (ids[0] & 0xffffu) << 16 | (ids[1] & 0xffffu);
}
#endif
static inline hipError_t moatbridge_cudaGetDeviceProperties(moatbridge_cudaDeviceProp* prop, int device) {
    hipError_t status = moatbridge_cudaGetDeviceProperties(static_cast<hipDeviceProp_t*>(prop), device);
    if (status != hipSuccess) return status;
    hipDeviceProp_t base = *prop;
    *prop = moatbridge_cudaDeviceProp();
    static_cast<hipDeviceProp_t&>(*prop) = base;
    (void)hipDeviceGetUuid(&prop->uuid, device);
    prop->deviceOverlap = 1;
    prop->asyncEngineCount = 2;
    prop->unifiedAddressing = 1;
    prop->streamPrioritiesSupported = 1;
    prop->globalL1CacheSupported = 1;
    prop->localL1CacheSupported = 1;
    prop->sharedMemPerMultiprocessor = base.maxSharedMemoryPerMultiProcessor;
    prop->regsPerMultiprocessor = base.regsPerBlock;
    prop->sharedMemPerBlockOptin = base.sharedMemPerBlock;
    prop->maxBlocksPerMultiProcessor = base.maxThreadsPerMultiProcessor / (base.warpSize > 0 ? base.warpSize : 32);
    prop->hostRegisterSupported = 1;
    prop->canUseHostPointerForRegisteredMem = 1;
    prop->memoryPoolsSupported = 1;
    prop->ipcEventSupported = 1;
    prop->singleToDoublePrecisionPerfRatio = 2;
    prop->maxTexture1DMipmap = base.maxTexture1D;
    prop->maxTextureCubemap = base.maxTexture2D[0];
    prop->maxSurface1D = base.maxTexture1D;
    prop->surfaceAlignment = base.textureAlignment;
    for (int i = 0; i < 2; ++i) {
        prop->maxTexture2DMipmap[i] = prop->maxTexture2DGather[i] = prop->maxSurface2D[i] = base.maxTexture2D[i];
    }
    for (int i = 0; i < 3; ++i) prop->maxTexture3DAlt[i] = prop->maxSurface3D[i] = base.maxTexture3D[i];
    prop->maxTexture1DLayered[0] = prop->maxSurface1DLayered[0] = base.maxTexture1D;
    prop->maxTexture1DLayered[1] = prop->maxSurface1DLayered[1] = 2048;
    prop->maxTexture2DLayered[0] = prop->maxSurface2DLayered[0] = base.maxTexture2D[0];
    prop->maxTexture2DLayered[1] = prop->maxSurface2DLayered[1] = base.maxTexture2D[1];
    prop->maxTexture2DLayered[2] = prop->maxSurface2DLayered[2] = 2048;
    prop->maxTextureCubemapLayered[0] = prop->maxSurfaceCubemap = prop->maxSurfaceCubemapLayered[0] = base.maxTexture2D[0];
    prop->maxTextureCubemapLayered[1] = prop->maxSurfaceCubemapLayered[1] = 2046;
    for (int i = 0; i < 3; ++i) prop->maxTexture2DLinear[i] = i < 2 ? base.maxTexture2D[i] : base.maxTexture2D[0] * 4;
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
    prop->deviceNumaConfig = 0; /* cudaDeviceNumaConfigNone */
    prop->deviceNumaId = -1;
    prop->hostNumaId = -1;
    prop->gpuPciDeviceID = moatbridge_pci_ids(base, "device", "vendor");
    prop->gpuPciSubsystemID = moatbridge_pci_ids(base, "subsystem_device", "subsystem_vendor");
#endif
    return status;
}
#define cudaDeviceProp moatbridge_cudaDeviceProp
#define cudaGetDeviceProperties_v2 moatbridge_cudaGetDeviceProperties

#include <moatbridge/device_attributes.h>
#define cudaDeviceGetAttribute moatbridge_cudaDeviceGetAttribute

/* CUDA's C++ API adds template overloads taking typed pointers and kernels; HIP 5.7's
   counterparts take only void* / const void*. */
static inline hipError_t moatbridge_cudaHostAlloc(void** ptr, size_t size, unsigned int flags) {
    return hipHostMalloc(ptr, size, flags);
}
template <class T>
static inline hipError_t moatbridge_cudaHostAlloc(T** ptr, size_t size, unsigned int flags) {
    return hipHostMalloc(reinterpret_cast<void**>(ptr), size, flags);
}
#define cudaHostAlloc moatbridge_cudaHostAlloc
static inline hipError_t moatbridge_cudaHostGetDevicePointer(void** device, void* host, unsigned int flags) {
    return hipHostGetDevicePointer(device, host, flags);
}
template <class T>
static inline hipError_t moatbridge_cudaHostGetDevicePointer(T** device, void* host, unsigned int flags) {
    return hipHostGetDevicePointer(reinterpret_cast<void**>(device), host, flags);
}
#define cudaHostGetDevicePointer moatbridge_cudaHostGetDevicePointer
template <class T>
static inline hipError_t moatbridge_cudaFuncGetAttributes(hipFuncAttributes* attributes, T* entry) {
    return hipFuncGetAttributes(attributes, reinterpret_cast<const void*>(entry));
}
#define cudaFuncGetAttributes moatbridge_cudaFuncGetAttributes
template <class T>
static inline hipError_t moatbridge_cudaFuncSetCacheConfig(T* entry, hipFuncCache_t config) {
    return hipFuncSetCacheConfig(reinterpret_cast<const void*>(entry), config);
}
#define cudaFuncSetCacheConfig moatbridge_cudaFuncSetCacheConfig
template <class T>
static inline hipError_t moatbridge_cudaFuncSetAttribute(T* entry, hipFuncAttribute attribute, int value) {
    return hipFuncSetAttribute(reinterpret_cast<const void*>(entry), attribute, value);
}
#define cudaFuncSetAttribute moatbridge_cudaFuncSetAttribute
template <class T>
MOATBRIDGE_DEPRECATED_RUNTIME static inline hipError_t moatbridge_cudaFuncSetSharedMemConfig(T* entry, hipSharedMemConfig config) {
    return hipFuncSetSharedMemConfig(reinterpret_cast<const void*>(entry), config);
}
#define cudaFuncSetSharedMemConfig moatbridge_cudaFuncSetSharedMemConfig

/* cudaProfilerStart/Stop (and the driver's cuProfilerStart/Stop) only tell an attached
   profiler when to collect, and succeed without one; programs check their status (the
   cuda-samples stop at a failure). HIP's are deprecated stubs answering hipErrorNotSupported
   on every stack we serve (roctracer/rocTX replace them), so they succeed here, doing nothing. */
static inline hipError_t moatbridge_cudaProfilerMark(void) { return hipSuccess; }
static inline CUresult moatbridge_cuProfilerMark(void) { return hipSuccess; }
#define cudaProfilerStart moatbridge_cudaProfilerMark
#define cudaProfilerStop moatbridge_cudaProfilerMark
#define cuProfilerStart moatbridge_cuProfilerMark
#define cuProfilerStop moatbridge_cuProfilerMark

/* The versions a program asks for at run time are the CUDA version this toolkit mimics, as
   CUDART_VERSION says at compile time; HIP's would be HIP's own (60443482 for HIP 6.4), which
   CUDA code compares with 12000-style numbers. The driver is as new as the runtime. */
static inline hipError_t moatbridge_cudaVersion(int* version) {
    if (version == nullptr) return hipErrorInvalidValue;
    *version = MOATBRIDGE_CUDA_VERSION_NUMBER;
    return hipSuccess;
}
static inline CUresult moatbridge_cuDriverGetVersion(int* version) { return moatbridge_cudaVersion(version); }
#define cudaRuntimeGetVersion moatbridge_cudaVersion
#define cudaDriverGetVersion moatbridge_cudaVersion
#define cuDriverGetVersion moatbridge_cuDriverGetVersion

/* cudaLaunchKernelEx (CUDA 11.8+): the launch configuration struct and its attributes. The
   cooperative attribute launches cooperatively; the others (clusters, priorities, access
   policies) have no HIP 5.7 counterpart and are accepted without effect. */
typedef enum cudaLaunchAttributeID {
    cudaLaunchAttributeIgnore = 0,
    cudaLaunchAttributeAccessPolicyWindow = 1,
    cudaLaunchAttributeCooperative = 2,
    cudaLaunchAttributeSynchronizationPolicy = 3,
    cudaLaunchAttributeClusterDimension = 4,
    cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
    cudaLaunchAttributeProgrammaticStreamSerialization = 6,
    cudaLaunchAttributeProgrammaticEvent = 7,
    cudaLaunchAttributePriority = 8,
    cudaLaunchAttributeMemSyncDomainMap = 9,
    cudaLaunchAttributeMemSyncDomain = 10,
    cudaLaunchAttributeLaunchCompletionEvent = 12,
    cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
} cudaLaunchAttributeID;
typedef union cudaLaunchAttributeValue {
    char pad[64];
    hipAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    int syncPolicy;
    int priority;
    int clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
    struct { unsigned int x, y, z; } clusterDim;
    struct { hipEvent_t event; int flags; int triggerAtBlockStart; } programmaticEvent;
} cudaLaunchAttributeValue;
typedef struct cudaLaunchAttribute_st {
    cudaLaunchAttributeID id;
    char pad[8 - sizeof(cudaLaunchAttributeID)];
    cudaLaunchAttributeValue val;
} cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    hipStream_t stream;
    cudaLaunchAttribute* attrs;
    unsigned int numAttrs;
} cudaLaunchConfig_t;
/* Stream and kernel-node attributes are launch attributes since CUDA 12 (the same IDs as
   CUDA 11's and HIP 5.7's: access-policy window 1, cooperative 2). Stream attributes are
   accepted and remembered nowhere: AMD GPUs have no persisting-L2 carve-out, so setting one
   changes nothing, and a query reads zeros. Kernel-node attributes go to HIP's. */
typedef cudaLaunchAttributeID cudaStreamAttrID;
typedef cudaLaunchAttributeValue cudaStreamAttrValue;
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributePriority cudaLaunchAttributePriority
#define cudaStreamAttributeMemSyncDomainMap cudaLaunchAttributeMemSyncDomainMap
#define cudaStreamAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomain
static inline hipError_t cudaStreamSetAttribute(hipStream_t, cudaLaunchAttributeID, const cudaLaunchAttributeValue*) {
    return hipSuccess;
}
static inline hipError_t cudaStreamGetAttribute(hipStream_t, cudaLaunchAttributeID, cudaLaunchAttributeValue* value) {
    if (value != nullptr) *value = cudaLaunchAttributeValue();
    return hipSuccess;
}
static inline hipError_t cudaStreamCopyAttributes(hipStream_t, hipStream_t) { return hipSuccess; }
#undef cudaKernelNodeAttrID
#undef cudaKernelNodeAttrValue
#undef cudaKernelNodeAttributeAccessPolicyWindow
#undef cudaKernelNodeAttributeCooperative
typedef cudaLaunchAttributeID cudaKernelNodeAttrID;
typedef cudaLaunchAttributeValue cudaKernelNodeAttrValue;
#define cudaKernelNodeAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaKernelNodeAttributeCooperative cudaLaunchAttributeCooperative
#define cudaKernelNodeAttributePriority cudaLaunchAttributePriority
#ifndef cudaLaunchAttributeID /* our own type (the generator leaves the mapping out where HIP's
   hipLaunchAttributeID would collide with it): HIP's kernel-node attribute calls take it too */
static inline hipError_t hipGraphKernelNodeSetAttribute(hipGraphNode_t node, cudaLaunchAttributeID id,
                                                        const cudaLaunchAttributeValue* value) {
    if (id != cudaLaunchAttributeAccessPolicyWindow && id != cudaLaunchAttributeCooperative) return hipSuccess;
    hipKernelNodeAttrValue hip_value = {};
    if (value == nullptr) return hipErrorInvalidValue;
    if (id == cudaLaunchAttributeCooperative) hip_value.cooperative = value->cooperative;
    else hip_value.accessPolicyWindow = value->accessPolicyWindow;
    return hipGraphKernelNodeSetAttribute(node, static_cast<hipKernelNodeAttrID>(id), &hip_value);
}
static inline hipError_t hipGraphKernelNodeGetAttribute(hipGraphNode_t node, cudaLaunchAttributeID id,
                                                        cudaLaunchAttributeValue* value) {
    if (value == nullptr) return hipErrorInvalidValue;
    *value = cudaLaunchAttributeValue();
    if (id != cudaLaunchAttributeAccessPolicyWindow && id != cudaLaunchAttributeCooperative) return hipSuccess;
    hipKernelNodeAttrValue hip_value = {};
    hipError_t status = hipGraphKernelNodeGetAttribute(node, static_cast<hipKernelNodeAttrID>(id), &hip_value);
    if (id == cudaLaunchAttributeCooperative) value->cooperative = hip_value.cooperative;
    else value->accessPolicyWindow = hip_value.accessPolicyWindow;
    return status;
}
#endif

/* Device limits HIP 5.7 does not have (CUDA's values): the persisting-L2 carve-out and L2
   fetch granularity have no AMD counterpart, and dynamic parallelism's limits nothing to
   limit. Setting them succeeds and changes nothing; reading them gives 0. */
#ifndef cudaLimitPersistingL2CacheSize
#define cudaLimitDevRuntimeSyncDepth ((hipLimit_t)0x03)
#define cudaLimitDevRuntimePendingLaunchCount ((hipLimit_t)0x04)
#define cudaLimitMaxL2FetchGranularity ((hipLimit_t)0x05)
#define cudaLimitPersistingL2CacheSize ((hipLimit_t)0x06)
#endif
static inline bool moatbridge_limit_without_effect(hipLimit_t limit) {
    return limit == cudaLimitDevRuntimeSyncDepth || limit == cudaLimitDevRuntimePendingLaunchCount ||
           limit == cudaLimitMaxL2FetchGranularity || limit == cudaLimitPersistingL2CacheSize;
}
static inline hipError_t moatbridge_cudaDeviceSetLimit(hipLimit_t limit, size_t value) {
    return moatbridge_limit_without_effect(limit) ? hipSuccess : hipDeviceSetLimit(limit, value);
}
static inline hipError_t moatbridge_cudaDeviceGetLimit(size_t* value, hipLimit_t limit) {
    if (!moatbridge_limit_without_effect(limit)) return hipDeviceGetLimit(value, limit);
    if (value != nullptr) *value = 0;
    return hipSuccess;
}
#undef cudaDeviceSetLimit
#define cudaDeviceSetLimit moatbridge_cudaDeviceSetLimit
#undef cudaDeviceGetLimit
#define cudaDeviceGetLimit moatbridge_cudaDeviceGetLimit
static inline hipError_t cudaCtxResetPersistingL2Cache() { return hipSuccess; }

/* CUDA's C++ API overloads cudaEventCreate with flags. */
static inline hipError_t hipEventCreate(hipEvent_t* event, unsigned int flags) {
    return hipEventCreateWithFlags(event, flags);
}
/* CUDA's C++ API gives cudaStreamWaitEvent's flags a default (and CUDA 12 code leaves them out).
   HIP 6 gives them one too: a template loses the tie to HIP's own function there, and is the
   only candidate where HIP (5.7) has no default. */
template <typename = void>
static inline hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event) {
    return hipStreamWaitEvent(stream, event, 0);
}

/* CUDA 12 signatures beside HIP 5.7's CUDA 11-era ones, as C++ overloads of the HIP names the
   CUDA names map to: code written for either release compiles. */
static inline hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, unsigned long long flags) {
    return hipGraphInstantiateWithFlags(exec, graph, flags);
}
static inline hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph) {
    return hipGraphInstantiateWithFlags(exec, graph, 0);
}
static inline hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* exec, hipGraph_t graph) {
    return hipGraphInstantiateWithFlags(exec, graph, 0);
}
static inline hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus* status,
                                                 unsigned long long* id, hipGraph_t* graph,
                                                 const hipGraphNode_t** dependencies = nullptr,
                                                 size_t* count = nullptr) {
    return hipStreamGetCaptureInfo_v2(stream, status, id, graph, dependencies, count);
}
static inline hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus* status) {
    unsigned long long id = 0;
    return hipStreamGetCaptureInfo(stream, status, &id);
}

/* Parameters CUDA gives a default and HIP 5.7 does not (code leaves them out). */
static inline hipError_t hipMalloc3DArray(hipArray_t* array, const hipChannelFormatDesc* desc, hipExtent extent) {
    return hipMalloc3DArray(array, desc, extent, 0);
}
static inline hipError_t hipLaunchCooperativeKernelMultiDevice(hipLaunchParams* launches, int count) {
    return hipLaunchCooperativeKernelMultiDevice(launches, count, 0);
}
static inline hipError_t hipSignalExternalSemaphoresAsync(const hipExternalSemaphore_t* semaphores,
                                                          const hipExternalSemaphoreSignalParams* params,
                                                          unsigned int count) {
    return hipSignalExternalSemaphoresAsync(semaphores, params, count, nullptr);
}
static inline hipError_t hipWaitExternalSemaphoresAsync(const hipExternalSemaphore_t* semaphores,
                                                        const hipExternalSemaphoreWaitParams* params,
                                                        unsigned int count) {
    return hipWaitExternalSemaphoresAsync(semaphores, params, count, nullptr);
}
/* CUDA takes the copy parameters as const; HIP 5.7 does not write them either. */
static inline hipError_t hipGraphExecMemcpyNodeSetParams(hipGraphExec_t exec, hipGraphNode_t node,
                                                         const hipMemcpy3DParms* params) {
    return hipGraphExecMemcpyNodeSetParams(exec, node, const_cast<hipMemcpy3DParms*>(params));
}

/* Runtime calls HIP 5.7 lacks, over the ones it has. */
MOATBRIDGE_DEPRECATED_RUNTIME static inline hipError_t cudaThreadSetLimit(hipLimit_t limit, size_t value) { return cudaDeviceSetLimit(limit, value); }
MOATBRIDGE_DEPRECATED_RUNTIME static inline hipError_t cudaThreadGetLimit(size_t* value, hipLimit_t limit) { return cudaDeviceGetLimit(value, limit); }
/* Deprecated since CUDA 10 and without effect there too. */
MOATBRIDGE_DEPRECATED_RUNTIME static inline hipError_t cudaSetDoubleForDevice(double*) { return hipSuccess; }
MOATBRIDGE_DEPRECATED_RUNTIME static inline hipError_t cudaSetDoubleForHost(double*) { return hipSuccess; }
#if HIP_VERSION_MAJOR < 6 /* HIP 6 has hipSetValidDevices (mapped) */
/* The first usable device of the list becomes current (CUDA tries them in order). */
static inline hipError_t cudaSetValidDevices(int* devices, int count) {
    if (count < 0 || (count > 0 && devices == nullptr)) return hipErrorInvalidValue;
    for (int i = 0; i < count; ++i) {
        if (hipSetDevice(devices[i]) == hipSuccess) return hipSuccess;
    }
    return count == 0 ? hipSuccess : hipErrorInvalidDevice;
}
#endif
static inline hipError_t cudaInitDevice(int device, unsigned int deviceFlags = 0, unsigned int flags = 0) {
    int current = 0;
    if (flags != 0) return hipErrorInvalidValue;
    hipError_t status = hipGetDevice(&current);
    if (status == hipSuccess) status = hipSetDevice(device);
    if (status == hipSuccess && deviceFlags != 0) status = hipSetDeviceFlags(deviceFlags);
    if (status == hipSuccess) status = hipFree(nullptr);  // creates the primary context
    (void)hipSetDevice(current);
    return status;
}
#if HIP_VERSION_MAJOR < 6 /* HIP 6 has hipEventRecordWithFlags (mapped) */
/* Only the default flag: an external event record node needs HIP 6. */
static inline hipError_t cudaEventRecordWithFlags(hipEvent_t event, hipStream_t stream = nullptr, unsigned int flags = 0) {
    return flags == 0 ? hipEventRecord(event, stream) : hipErrorNotSupported;
}
#endif
/* A stream's identity while it lives: its handle (0 for the null stream), unique among live streams. */
static inline hipError_t cudaStreamGetId(hipStream_t stream, unsigned long long* id) {
    if (id == nullptr) return hipErrorInvalidValue;
    *id = static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(stream));
    return hipSuccess;
}
static inline hipError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t* width, const hipChannelFormatDesc* desc, int device) {
    if (width == nullptr || desc == nullptr) return hipErrorInvalidValue;
    int elements = 0;
    hipError_t status = hipDeviceGetAttribute(&elements, hipDeviceAttributeMaxTexture1DLinear, device);
    *width = static_cast<size_t>(elements);
    return status;
}
/* Deprecated array copies, as the 2D copies with one row. */
MOATBRIDGE_DEPRECATED_RUNTIME static inline hipError_t cudaMemcpyToArrayAsync(hipArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                                size_t count, hipMemcpyKind kind, hipStream_t stream = nullptr) {
    return hipMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, count, count, 1, kind, stream);
}
MOATBRIDGE_DEPRECATED_RUNTIME static inline hipError_t cudaMemcpyFromArrayAsync(void* dst, hipArray_const_t src, size_t wOffset, size_t hOffset,
                                                  size_t count, hipMemcpyKind kind, hipStream_t stream = nullptr) {
    return hipMemcpy2DFromArrayAsync(dst, count, src, wOffset, hOffset, count, 1, kind, stream);
}
/* HIP's multi-device cooperative launch is also a template in C++ (no single type for the
   generated declaration to take): CUDA's, deprecated, with its unsigned count and default. */
#undef cudaLaunchCooperativeKernelMultiDevice
#if MOATBRIDGE_CUDA_VERSION_NUMBER < 13000 /* CUDA 13 removed it */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
MOATBRIDGE_DEPRECATED_RUNTIME static inline hipError_t cudaLaunchCooperativeKernelMultiDevice(
    hipLaunchParams* launches, unsigned int count, unsigned int flags = 0) {
    return hipLaunchCooperativeKernelMultiDevice(launches, static_cast<int>(count), flags);
}
#pragma GCC diagnostic pop
#endif
/* CUDA 12.2's location-based prefetch and advice (CUDA 13 gives them the plain names and
   removes these: moatbridge/runtime_13.h). */
#if MOATBRIDGE_CUDA_VERSION_NUMBER < 13000
static inline hipError_t cudaMemPrefetchAsync_v2(const void* ptr, size_t count, hipMemLocation location,
                                                 unsigned int flags, hipStream_t stream = nullptr) {
    return flags != 0 ? hipErrorInvalidValue
                      : hipMemPrefetchAsync(ptr, count, moatbridge_location_device(location), stream);
}
static inline hipError_t cudaMemAdvise_v2(const void* ptr, size_t count, hipMemoryAdvise advice, hipMemLocation location) {
    return hipMemAdvise(ptr, count, advice, moatbridge_location_device(location));
}
#endif
/* How much dynamic shared memory each of numBlocks blocks can have on one multiprocessor. */
static inline hipError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* size, const void* func, int numBlocks,
                                                                   int blockSize) {
    if (size == nullptr || numBlocks <= 0 || blockSize <= 0) return hipErrorInvalidValue;
    int device = 0;
    hipDeviceProp_t prop;
    hipFuncAttributes attributes;
    hipError_t status = hipGetDevice(&device);
    if (status == hipSuccess) status = hipGetDeviceProperties(&prop, device);
    if (status == hipSuccess) status = hipFuncGetAttributes(&attributes, func);
    if (status != hipSuccess) return status;
    size_t per_block = prop.maxSharedMemoryPerMultiProcessor / static_cast<size_t>(numBlocks);
    per_block = per_block < prop.sharedMemPerBlock ? per_block : prop.sharedMemPerBlock;
    *size = per_block > attributes.sharedSizeBytes ? per_block - attributes.sharedSizeBytes : 0;
    return hipSuccess;
}
template <class T>
static inline hipError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* size, T* func, int numBlocks, int blockSize) {
    return cudaOccupancyAvailableDynamicSMemPerBlock(size, reinterpret_cast<const void*>(func), numBlocks, blockSize);
}
typedef struct cudaGraphExecUpdateResultInfo_st {
    hipGraphExecUpdateResult result;
    hipGraphNode_t errorNode;
    hipGraphNode_t errorFromNode;
} cudaGraphExecUpdateResultInfo;
static inline hipError_t hipGraphExecUpdate(hipGraphExec_t exec, hipGraph_t graph,
                                            cudaGraphExecUpdateResultInfo* info) {
    hipGraphNode_t node = nullptr;
    hipGraphExecUpdateResult result = hipGraphExecUpdateSuccess;
    hipError_t status = hipGraphExecUpdate(exec, graph, &node, &result);
    if (info != nullptr) {
        info->result = result;
        info->errorNode = node;
        info->errorFromNode = nullptr;
    }
    return status;
}

/* The C form: the kernel's address and its argument pointers. */
static inline hipError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* kernel, void** args) {
    if (config == nullptr) return hipErrorInvalidValue;
    for (unsigned int i = 0; config->attrs != nullptr && i < config->numAttrs; ++i) {
        if (config->attrs[i].id == cudaLaunchAttributeCooperative && config->attrs[i].val.cooperative) {
            return hipLaunchCooperativeKernel(kernel, config->gridDim, config->blockDim, args,
                                              static_cast<unsigned int>(config->dynamicSmemBytes), config->stream);
        }
    }
    return hipLaunchKernel(kernel, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream);
}
template <class... Expected, class... Actual>
static inline hipError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(Expected...),
                                            Actual&&... args) {
    bool cooperative = false;
    for (unsigned int i = 0; config->attrs != nullptr && i < config->numAttrs; ++i) {
        if (config->attrs[i].id == cudaLaunchAttributeCooperative && config->attrs[i].val.cooperative) {
            cooperative = true;
        }
    }
    if (cooperative) {
        void* pointers[] = {const_cast<void*>(static_cast<const void*>(&args))..., nullptr};
        return hipLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), config->gridDim,
                                          config->blockDim, pointers, static_cast<unsigned int>(config->dynamicSmemBytes),
                                          config->stream);
    }
    hipLaunchKernelGGL(kernel, config->gridDim, config->blockDim, static_cast<unsigned int>(config->dynamicSmemBytes),
                       config->stream, static_cast<Expected>(args)...);
    return hipGetLastError();
}
#else
typedef hipError_t CUresult;
#define cudaMallocHost(ptr, size) hipHostMalloc((ptr), (size), hipHostMallocDefault)
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaHostAlloc hipHostMalloc
#define cudaHostGetDevicePointer hipHostGetDevicePointer
#define cudaFuncGetAttributes hipFuncGetAttributes
#define cudaFuncSetCacheConfig hipFuncSetCacheConfig
#define cudaFuncSetAttribute hipFuncSetAttribute
#define cudaFuncSetSharedMemConfig hipFuncSetSharedMemConfig
#endif
