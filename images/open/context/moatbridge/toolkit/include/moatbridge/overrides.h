/* moatbridge: CUDA calls whose HIP counterpart differs in more than its name. */
#pragma once
#ifdef __cplusplus
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
};
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
    return status;
}
#define cudaDeviceProp moatbridge_cudaDeviceProp
#define cudaGetDeviceProperties_v2 moatbridge_cudaGetDeviceProperties

static inline hipError_t moatbridge_cudaDeviceGetAttribute(int* value, hipDeviceAttribute_t attribute, int device) {
    hipError_t status = hipDeviceGetAttribute(value, attribute, device);
    if (status == hipSuccess && attribute == hipDeviceAttributeComputeCapabilityMajor) *value = MOATBRIDGE_MIMIC_CC_MAJOR;
    if (status == hipSuccess && attribute == hipDeviceAttributeComputeCapabilityMinor) *value = MOATBRIDGE_MIMIC_CC_MINOR;
    return status;
}
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
static inline hipError_t moatbridge_cudaFuncSetSharedMemConfig(T* entry, hipSharedMemConfig config) {
    return hipFuncSetSharedMemConfig(reinterpret_cast<const void*>(entry), config);
}
#define cudaFuncSetSharedMemConfig moatbridge_cudaFuncSetSharedMemConfig

/* Stream attributes (CUDA 11: L2 access-policy windows, synchronisation policy): HIP 5.7
   has the types for kernel nodes only. Accepted and remembered nowhere: AMD GPUs have no
   persisting-L2 carve-out, so setting one changes nothing, and a query reads zeros. */
typedef enum cudaStreamAttrID {
    cudaStreamAttributeAccessPolicyWindow = 1,
    cudaStreamAttributeSynchronizationPolicy = 3,
} cudaStreamAttrID;
typedef union cudaStreamAttrValue {
    hipAccessPolicyWindow accessPolicyWindow;
    int syncPolicy;
} cudaStreamAttrValue;
static inline hipError_t cudaStreamSetAttribute(hipStream_t, cudaStreamAttrID, const cudaStreamAttrValue*) {
    return hipSuccess;
}
static inline hipError_t cudaStreamGetAttribute(hipStream_t, cudaStreamAttrID, cudaStreamAttrValue* value) {
    if (value != nullptr) *value = cudaStreamAttrValue();
    return hipSuccess;
}

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
/* CUDA's C++ API gives cudaStreamWaitEvent's flags a default (and CUDA 12 code leaves them out). */
static inline hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event) {
    return hipStreamWaitEvent(stream, event, 0);
}

/* CUDA 12 signatures beside HIP 5.7's CUDA 11-era ones, as C++ overloads of the HIP names the
   CUDA names map to: code written for either release compiles. */
static inline hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, unsigned long long flags) {
    return hipGraphInstantiateWithFlags(exec, graph, flags);
}
static inline hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus* status,
                                                 unsigned long long* id, hipGraph_t* graph,
                                                 const hipGraphNode_t** dependencies, size_t* count) {
    return hipStreamGetCaptureInfo_v2(stream, status, id, graph, dependencies, count);
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
