/* moatbridge: the runtime functions CUDA 13.0 redeclared, for a toolkit mimicking 13.0.

   CUDA 13 gives the location-based prefetch and advice (a cudaMemLocation where 12 took a
   device number) and the graph-edge forms (cudaGraphEdgeData beside each dependency) the
   plain names, swaps cudaGraphKernelNodeCopyAttributes' parameters to (destination,
   source), and removes the _v2/_v3 names. HIP has the 12.x shapes: these forward to them.
   Edge data HIP cannot express (a port or a programmatic dependency) is refused with
   cudaErrorNotSupported, never dropped; the default edges are all-zero data, as in CUDA, and
   are what queries report. The generator leaves these names unmapped from 13.0 on
   (mappings.REDECLARED). C and C++. */
#pragma once
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
#define MOATBRIDGE_DEFAULT(value) = value
#define MOATBRIDGE_THREAD_LOCAL thread_local
#else
#define MOATBRIDGE_DEFAULT(value)
#define MOATBRIDGE_THREAD_LOCAL _Thread_local
#endif

/* HIP 6 has hipGraphEdgeData (and the generator maps CUDA's names onto it); HIP 5.7 has
   none: CUDA's layout, eight bytes. */
#ifndef cudaGraphEdgeData
typedef struct cudaGraphEdgeData_st {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type;
    unsigned char reserved[5];
} cudaGraphEdgeData;
#endif
#ifndef cudaGraphDependencyTypeDefault
enum cudaGraphDependencyType_enum { cudaGraphDependencyTypeDefault = 0, cudaGraphDependencyTypeProgrammatic = 1 };
typedef enum cudaGraphDependencyType_enum cudaGraphDependencyType;
#endif
#ifndef cudaGraphKernelNodePortDefault
#define cudaGraphKernelNodePortDefault 0
#define cudaGraphKernelNodePortProgrammatic 1
#define cudaGraphKernelNodePortLaunchCompletion 2
#endif

/* Whether every edge of `data` (count of them, or none given) is a default edge. */
static inline int moatbridge_default_edges(const cudaGraphEdgeData* data, size_t count) {
    static const unsigned char zero[sizeof(cudaGraphEdgeData)] = {0};
    for (size_t i = 0; data != NULL && i < count; ++i) {
        if (memcmp(&data[i], zero, sizeof zero) != 0) return 0;
    }
    return 1;
}

/* Default edge data for `count` edges: written to `out` where it is given. */
static inline void moatbridge_fill_default_edges(cudaGraphEdgeData* out, size_t count) {
    if (out != NULL && count != 0) memset(out, 0, count * sizeof *out);
}

static inline hipError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, hipMemLocation location,
                                              unsigned int flags, hipStream_t stream MOATBRIDGE_DEFAULT(0)) {
    if (flags != 0) return hipErrorInvalidValue;
    return hipMemPrefetchAsync(devPtr, count, moatbridge_location_device(location), stream);
}

static inline hipError_t cudaMemAdvise(const void* devPtr, size_t count, hipMemoryAdvise advice,
                                       hipMemLocation location) {
    return hipMemAdvise(devPtr, count, advice, moatbridge_location_device(location));
}

static inline hipError_t cudaGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t* from,
                                                  const hipGraphNode_t* to, const cudaGraphEdgeData* edgeData,
                                                  size_t numDependencies) {
    if (!moatbridge_default_edges(edgeData, numDependencies)) return hipErrorNotSupported;
    return hipGraphAddDependencies(graph, from, to, numDependencies);
}

static inline hipError_t cudaGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t* from,
                                                     const hipGraphNode_t* to, const cudaGraphEdgeData* edgeData,
                                                     size_t numDependencies) {
    if (!moatbridge_default_edges(edgeData, numDependencies)) return hipErrorNotSupported;
    return hipGraphRemoveDependencies(graph, from, to, numDependencies);
}

/* Queries: HIP's answer, and default data for each edge it listed (as many as `room`, the
   count the caller gave, allowed). */
static inline hipError_t moatbridge_with_default_edges(hipError_t status, const void* listed,
                                                       cudaGraphEdgeData* edgeData, const size_t* count, size_t room) {
    if (status == hipSuccess && listed != NULL && count != NULL) {
        moatbridge_fill_default_edges(edgeData, *count < room ? *count : room);
    }
    return status;
}

static inline hipError_t cudaGraphGetEdges(hipGraph_t graph, hipGraphNode_t* from, hipGraphNode_t* to,
                                           cudaGraphEdgeData* edgeData, size_t* numEdges) {
    size_t room = numEdges != NULL ? *numEdges : 0;
    return moatbridge_with_default_edges(hipGraphGetEdges(graph, from, to, numEdges), from, edgeData, numEdges, room);
}

static inline hipError_t cudaGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t* pDependencies,
                                                      cudaGraphEdgeData* edgeData, size_t* pNumDependencies) {
    size_t room = pNumDependencies != NULL ? *pNumDependencies : 0;
    hipError_t status = hipGraphNodeGetDependencies(node, pDependencies, pNumDependencies);
    return moatbridge_with_default_edges(status, pDependencies, edgeData, pNumDependencies, room);
}

static inline hipError_t cudaGraphNodeGetDependentNodes(hipGraphNode_t node, hipGraphNode_t* pDependentNodes,
                                                        cudaGraphEdgeData* edgeData, size_t* pNumDependentNodes) {
    size_t room = pNumDependentNodes != NULL ? *pNumDependentNodes : 0;
    hipError_t status = hipGraphNodeGetDependentNodes(node, pDependentNodes, pNumDependentNodes);
    return moatbridge_with_default_edges(status, pDependentNodes, edgeData, pNumDependentNodes, room);
}

/* The dependencies' edge data lives until the next call on this thread, as CUDA's array
   lives until the next call on the stream. */
static inline const cudaGraphEdgeData* moatbridge_default_edge_array(size_t count) {
    static MOATBRIDGE_THREAD_LOCAL cudaGraphEdgeData* array = NULL;
    static MOATBRIDGE_THREAD_LOCAL size_t capacity = 0;
    if (count > capacity) {
        cudaGraphEdgeData* grown = (cudaGraphEdgeData*)realloc(array, count * sizeof *array);
        if (grown == NULL) return NULL;
        array = grown;
        capacity = count;
    }
    moatbridge_fill_default_edges(array, count);
    return array;
}

static inline hipError_t cudaStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus* captureStatus_out,
                                                  unsigned long long* id_out MOATBRIDGE_DEFAULT(0),
                                                  hipGraph_t* graph_out MOATBRIDGE_DEFAULT(0),
                                                  const hipGraphNode_t** dependencies_out MOATBRIDGE_DEFAULT(0),
                                                  const cudaGraphEdgeData** edgeData_out MOATBRIDGE_DEFAULT(0),
                                                  size_t* numDependencies_out MOATBRIDGE_DEFAULT(0)) {
    size_t count = 0;
    if (edgeData_out != NULL && dependencies_out == NULL) return hipErrorInvalidValue;
    hipError_t status = hipStreamGetCaptureInfo_v2(stream, captureStatus_out, id_out, graph_out, dependencies_out,
                                                   numDependencies_out != NULL ? numDependencies_out : &count);
    if (status == hipSuccess && edgeData_out != NULL) {
        size_t found = numDependencies_out != NULL ? *numDependencies_out : count;
        *edgeData_out = found == 0 ? NULL : moatbridge_default_edge_array(found);
        if (found != 0 && *edgeData_out == NULL) return hipErrorOutOfMemory;
    }
    return status;
}

static inline hipError_t cudaStreamUpdateCaptureDependencies(hipStream_t stream, hipGraphNode_t* dependencies,
                                                             const cudaGraphEdgeData* dependencyData,
                                                             size_t numDependencies,
                                                             unsigned int flags MOATBRIDGE_DEFAULT(0)) {
    if (!moatbridge_default_edges(dependencyData, numDependencies)) return hipErrorNotSupported;
    return hipStreamUpdateCaptureDependencies(stream, dependencies, numDependencies, flags);
}

/* CUDA 13 takes the destination first. */
static inline hipError_t cudaGraphKernelNodeCopyAttributes(hipGraphNode_t hDst, hipGraphNode_t hSrc) {
    return hipGraphKernelNodeCopyAttributes(hSrc, hDst);
}

/* Generic node parameters are HIP 6's (cudaGraphAddNode stays a gap on HIP 5.7). */
#if HIP_VERSION_MAJOR >= 6
static inline hipError_t cudaGraphAddNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                          const hipGraphNode_t* pDependencies, const cudaGraphEdgeData* dependencyData,
                                          size_t numDependencies, hipGraphNodeParams* nodeParams) {
    if (!moatbridge_default_edges(dependencyData, numDependencies)) return hipErrorNotSupported;
    return hipGraphAddNode(pGraphNode, graph, pDependencies, numDependencies, nodeParams);
}
#endif

/* Memory pools by location (CUDA 13): a device's pinned pools are HIP's device pools; HIP
   has no host or managed pools. */
static inline hipError_t moatbridge_pool_device(const hipMemLocation* location, hipMemAllocationType type,
                                                int* device) {
    if (location == NULL) return hipErrorInvalidValue;
    if (type != hipMemAllocationTypePinned || location->type != hipMemLocationTypeDevice) {
        return hipErrorNotSupported;
    }
    *device = location->id;
    return hipSuccess;
}

static inline hipError_t cudaMemGetDefaultMemPool(hipMemPool_t* memPool, hipMemLocation* location,
                                                  hipMemAllocationType type) {
    int device = 0;
    hipError_t status = moatbridge_pool_device(location, type, &device);
    return status != hipSuccess ? status : hipDeviceGetDefaultMemPool(memPool, device);
}

static inline hipError_t cudaMemGetMemPool(hipMemPool_t* memPool, hipMemLocation* location,
                                           hipMemAllocationType type) {
    int device = 0;
    hipError_t status = moatbridge_pool_device(location, type, &device);
    return status != hipSuccess ? status : hipDeviceGetMemPool(memPool, device);
}

static inline hipError_t cudaMemSetMemPool(hipMemLocation* location, hipMemAllocationType type,
                                           hipMemPool_t memPool) {
    int device = 0;
    hipError_t status = moatbridge_pool_device(location, type, &device);
    return status != hipSuccess ? status : hipDeviceSetMemPool(device, memPool);
}

/* Batches of prefetches (CUDA 13): prefetchLocs[k] applies from operation prefetchLocIdxs[k]
   up to the next entry's; the first index is 0, each greater than the one before, the last
   below count. Each operation is HIP's prefetch, in stream order. */
static inline hipError_t cudaMemPrefetchBatchAsync(void** dptrs, size_t* sizes, size_t count,
                                                   hipMemLocation* prefetchLocs, size_t* prefetchLocIdxs,
                                                   size_t numPrefetchLocs, unsigned long long flags,
                                                   hipStream_t stream) {
    if (dptrs == NULL || sizes == NULL || count == 0 || prefetchLocs == NULL || prefetchLocIdxs == NULL ||
        numPrefetchLocs == 0 || numPrefetchLocs > count || flags != 0 || prefetchLocIdxs[0] != 0) {
        return hipErrorInvalidValue;
    }
    for (size_t k = 1; k < numPrefetchLocs; ++k) {
        if (prefetchLocIdxs[k] <= prefetchLocIdxs[k - 1] || prefetchLocIdxs[k] >= count) return hipErrorInvalidValue;
    }
    size_t entry = 0;
    for (size_t i = 0; i < count; ++i) {
        while (entry + 1 < numPrefetchLocs && prefetchLocIdxs[entry + 1] <= i) ++entry;
        int device = moatbridge_location_device(prefetchLocs[entry]);
        hipError_t status = hipMemPrefetchAsync(dptrs[i], sizes[i], device, stream);
        if (status != hipSuccess) return status;
    }
    return hipSuccess;
}

/* Discarding lets the contents become undefined: keeping them is one of the outcomes CUDA
   allows, so a discard checks its arguments and moves nothing. */
static inline hipError_t cudaMemDiscardBatchAsync(void** dptrs, size_t* sizes, size_t count, unsigned long long flags,
                                                  hipStream_t stream) {
    (void)stream;
    return dptrs == NULL || sizes == NULL || count == 0 || flags != 0 ? hipErrorInvalidValue : hipSuccess;
}

static inline hipError_t cudaMemDiscardAndPrefetchBatchAsync(void** dptrs, size_t* sizes, size_t count,
                                                             hipMemLocation* prefetchLocs, size_t* prefetchLocIdxs,
                                                             size_t numPrefetchLocs, unsigned long long flags,
                                                             hipStream_t stream) {
    return cudaMemPrefetchBatchAsync(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags,
                                     stream);
}

/* The driver API's 13.0 forms of the same calls, over the driver's names for the same types
   (CUdeviceptr is a pointer here; cuuint64_t is uint64_t, HIP's ids unsigned long long). */
#ifndef CUgraphEdgeData
#define CUgraphEdgeData cudaGraphEdgeData
#endif
static inline CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags,
                                          CUstream stream) {
    return cudaMemPrefetchAsync(devPtr, count, location, flags, stream);
}
static inline CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location) {
    return cudaMemAdvise(devPtr, count, advice, location);
}
static inline CUresult cuGraphAddDependencies(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to,
                                              const CUgraphEdgeData* edgeData, size_t numDependencies) {
    return cudaGraphAddDependencies(graph, from, to, edgeData, numDependencies);
}
static inline CUresult cuGraphRemoveDependencies(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to,
                                                 const CUgraphEdgeData* edgeData, size_t numDependencies) {
    return cudaGraphRemoveDependencies(graph, from, to, edgeData, numDependencies);
}
static inline CUresult cuGraphGetEdges(CUgraph graph, CUgraphNode* from, CUgraphNode* to, CUgraphEdgeData* edgeData,
                                       size_t* numEdges) {
    return cudaGraphGetEdges(graph, from, to, edgeData, numEdges);
}
static inline CUresult cuGraphNodeGetDependencies(CUgraphNode node, CUgraphNode* dependencies,
                                                  CUgraphEdgeData* edgeData, size_t* numDependencies) {
    return cudaGraphNodeGetDependencies(node, dependencies, edgeData, numDependencies);
}
static inline CUresult cuGraphNodeGetDependentNodes(CUgraphNode node, CUgraphNode* dependentNodes,
                                                    CUgraphEdgeData* edgeData, size_t* numDependentNodes) {
    return cudaGraphNodeGetDependentNodes(node, dependentNodes, edgeData, numDependentNodes);
}
static inline CUresult cuStreamGetCaptureInfo(CUstream stream, CUstreamCaptureStatus* captureStatus_out,
                                              cuuint64_t* id_out, CUgraph* graph_out,
                                              const CUgraphNode** dependencies_out,
                                              const CUgraphEdgeData** edgeData_out, size_t* numDependencies_out) {
    unsigned long long id = 0;
    hipError_t status = cudaStreamGetCaptureInfo(stream, captureStatus_out, id_out != NULL ? &id : NULL, graph_out,
                                                 dependencies_out, edgeData_out, numDependencies_out);
    if (status == hipSuccess && id_out != NULL) *id_out = id;
    return status;
}
static inline CUresult cuStreamUpdateCaptureDependencies(CUstream stream, CUgraphNode* dependencies,
                                                         const CUgraphEdgeData* dependencyData, size_t numDependencies,
                                                         unsigned int flags) {
    return cudaStreamUpdateCaptureDependencies(stream, dependencies, dependencyData, numDependencies, flags);
}
#if HIP_VERSION_MAJOR >= 6 && defined(CUgraphNodeParams)
static inline CUresult cuGraphAddNode(CUgraphNode* graphNode, CUgraph graph, const CUgraphNode* dependencies,
                                      const CUgraphEdgeData* dependencyData, size_t numDependencies,
                                      CUgraphNodeParams* nodeParams) {
    return cudaGraphAddNode(graphNode, graph, dependencies, dependencyData, numDependencies, nodeParams);
}
#endif

/* Batched prefetches and discards and memory pools by location: the same parameters */
#define cuMemPrefetchBatchAsync cudaMemPrefetchBatchAsync
#define cuMemDiscardBatchAsync cudaMemDiscardBatchAsync
#define cuMemDiscardAndPrefetchBatchAsync cudaMemDiscardAndPrefetchBatchAsync
#define cuMemGetDefaultMemPool cudaMemGetDefaultMemPool
#define cuMemGetMemPool cudaMemGetMemPool
#define cuMemSetMemPool cudaMemSetMemPool

/* CUDA 13's context creation takes its parameters in a struct: execution affinity and
   shared-queue (CIG) contexts are NVIDIA's; without them it is HIP's context creation. */
typedef enum CUcigDataType_enum { CIG_DATA_TYPE_D3D12_COMMAND_QUEUE = 0x1, CIG_DATA_TYPE_NV_BLOB = 0x2 } CUcigDataType;
typedef struct CUctxCigParam_st {
    CUcigDataType sharedDataType;
    void* sharedData;
} CUctxCigParam;
typedef struct CUctxCreateParams_st {
    CUexecAffinityParam* execAffinityParams;
    int numExecAffinityParams;
    CUctxCigParam* cigParams;
} CUctxCreateParams;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline CUresult cuCtxCreate(CUcontext* context, CUctxCreateParams* params, unsigned int flags, CUdevice device) {
    if (params != NULL && (params->numExecAffinityParams != 0 || params->cigParams != NULL)) {
        return hipErrorNotSupported;
    }
    return hipCtxCreate(context, flags, device);
}
#pragma GCC diagnostic pop
