/* moatbridge: driver-API (cuda.h) calls whose HIP counterpart takes other types or is missing,
   written as CUDA declares them and forwarded to HIP. The generator leaves these names unmapped
   (mappings.OVERRIDDEN). C and C++.

   CUDA's host sources are const where HIP 5.7's are not; CUDA's cuuint64_t is uint64_t where
   HIP takes unsigned long long; cuMemcpy and the peer copies rely on unified addressing, which
   hipMemcpyDefault gives; the function-level cache, shared-memory and carve-out settings are
   hints AMD GPUs have no hardware for, accepted as CUDA accepts them on GPUs without it. */
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;
/* the dynamic shared memory a block of `blockSize` threads needs (occupancy calculators) */
typedef size_t (*CUoccupancyB2DSize)(int blockSize);

/* Execution affinity (a context limited to some multiprocessors): CUDA's types, which
   context creation takes; HIP has none, so only an empty list is accepted. */
#ifndef CUexecAffinityType
typedef enum CUexecAffinityType_enum { CU_EXEC_AFFINITY_TYPE_SM_COUNT = 0, CU_EXEC_AFFINITY_TYPE_MAX } CUexecAffinityType;
typedef struct CUexecAffinitySmCount_st {
    unsigned int val;
} CUexecAffinitySmCount_v1;
typedef CUexecAffinitySmCount_v1 CUexecAffinitySmCount;
typedef struct CUexecAffinityParam_st {
    CUexecAffinityType type;
    union {
        CUexecAffinitySmCount smCount;
    } param;
} CUexecAffinityParam_v1;
typedef CUexecAffinityParam_v1 CUexecAffinityParam;
#endif

static inline CUresult moatbridge_cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
    return hipMemcpyHtoD(dst, (void*)src, bytes);
}
static inline CUresult moatbridge_cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream) {
    return hipMemcpyHtoDAsync(dst, (void*)src, bytes, stream);
}
#define cuMemcpyHtoD moatbridge_cuMemcpyHtoD
#define cuMemcpyHtoDAsync moatbridge_cuMemcpyHtoDAsync

static inline CUresult moatbridge_cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    return hipMemcpy(dst, src, bytes, hipMemcpyDefault);
}
static inline CUresult moatbridge_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
    return hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault, stream);
}
/* the contexts name the devices the pointers are on; unified addressing already knows */
static inline CUresult moatbridge_cuMemcpyPeer(CUdeviceptr dst, CUcontext dstContext, CUdeviceptr src,
                                               CUcontext srcContext, size_t bytes) {
    (void)dstContext;
    (void)srcContext;
    return hipMemcpy(dst, src, bytes, hipMemcpyDefault);
}
static inline CUresult moatbridge_cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dstContext, CUdeviceptr src,
                                                    CUcontext srcContext, size_t bytes, CUstream stream) {
    (void)dstContext;
    (void)srcContext;
    return hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault, stream);
}
#define cuMemcpy moatbridge_cuMemcpy
#define cuMemcpyAsync moatbridge_cuMemcpyAsync
#define cuMemcpyPeer moatbridge_cuMemcpyPeer
#define cuMemcpyPeerAsync moatbridge_cuMemcpyPeerAsync

/* 2D fills: HIP fills 2D byte by byte only; 16- and 32-bit values row by row (`width` counts
   elements, `pitch` bytes) */
static inline CUresult moatbridge_cuMemsetD2D8(CUdeviceptr dst, size_t pitch, unsigned char value, size_t width,
                                               size_t height) {
    return hipMemset2D(dst, pitch, value, width, height);
}
static inline CUresult moatbridge_cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char value,
                                                    size_t width, size_t height, CUstream stream) {
    return hipMemset2DAsync(dst, pitch, value, width, height, stream);
}
#define MOATBRIDGE_MEMSET_ROWS(call)                                   \
    do {                                                               \
        size_t row;                                                    \
        for (row = 0; row < height; ++row) {                           \
            hipDeviceptr_t line = (hipDeviceptr_t)((char*)dst + row * pitch); \
            hipError_t status = call;                                  \
            if (status != hipSuccess) return status;                   \
        }                                                              \
        return hipSuccess;                                             \
    } while (0)
static inline CUresult moatbridge_cuMemsetD2D16(CUdeviceptr dst, size_t pitch, unsigned short value, size_t width,
                                                size_t height) {
    MOATBRIDGE_MEMSET_ROWS(hipMemsetD16(line, value, width));
}
static inline CUresult moatbridge_cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short value,
                                                     size_t width, size_t height, CUstream stream) {
    MOATBRIDGE_MEMSET_ROWS(hipMemsetD16Async(line, value, width, stream));
}
static inline CUresult moatbridge_cuMemsetD2D32(CUdeviceptr dst, size_t pitch, unsigned int value, size_t width,
                                                size_t height) {
    MOATBRIDGE_MEMSET_ROWS(hipMemsetD32(line, (int)value, width));
}
static inline CUresult moatbridge_cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned int value,
                                                     size_t width, size_t height, CUstream stream) {
    MOATBRIDGE_MEMSET_ROWS(hipMemsetD32Async(line, (int)value, width, stream));
}
#undef MOATBRIDGE_MEMSET_ROWS
#define cuMemsetD2D8 moatbridge_cuMemsetD2D8
#define cuMemsetD2D8Async moatbridge_cuMemsetD2D8Async
#define cuMemsetD2D16 moatbridge_cuMemsetD2D16
#define cuMemsetD2D16Async moatbridge_cuMemsetD2D16Async
#define cuMemsetD2D32 moatbridge_cuMemsetD2D32
#define cuMemsetD2D32Async moatbridge_cuMemsetD2D32Async

/* HIP deprecates its context API; CUDA does not deprecate this call */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline CUresult moatbridge_cuCtxGetApiVersion(CUcontext context, unsigned int* version) {
    int found = 0;
    hipError_t status = hipCtxGetApiVersion(context, &found);
    if (status == hipSuccess && version != NULL) *version = (unsigned int)found;
    return status;
}
#pragma GCC diagnostic pop
#define cuCtxGetApiVersion moatbridge_cuCtxGetApiVersion

/* A module's code object is what CUDA calls a fat binary here: an offload bundle or ELF */
static inline CUresult moatbridge_cuModuleLoadFatBinary(CUmodule* module, const void* image) {
    return hipModuleLoadData(module, image);
}
#define cuModuleLoadFatBinary moatbridge_cuModuleLoadFatBinary

static inline CUresult moatbridge_cuFuncSetCacheConfig(CUfunction function, CUfunc_cache config) {
    (void)config;
    return function == NULL ? hipErrorInvalidHandle : hipSuccess;
}
/* deprecated by CUDA 12.4's cuda.h (silenced as there by CUDA_ENABLE_DEPRECATED) */
MOATBRIDGE_DEPRECATED_RUNTIME static inline CUresult moatbridge_cuFuncSetSharedMemConfig(CUfunction function,
                                                                                         CUsharedconfig config) {
    (void)config;
    return function == NULL ? hipErrorInvalidHandle : hipSuccess;
}
/* The settable attributes: dynamic shared memory up to what a block can have (AMD GPUs need
   no opt-in above 48 KiB), the carve-out (a hint), and thread-block clusters (none here). */
static inline CUresult moatbridge_cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
    int device = 0, limit = 0, fixed = 0;
    hipError_t status;
    if (function == NULL) return hipErrorInvalidHandle;
    if (attribute == HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
        return value >= -1 && value <= 100 ? hipSuccess : hipErrorInvalidValue;
    if (attribute != HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return hipErrorNotSupported;
    status = hipGetDevice(&device);
    if (status == hipSuccess)
        status = hipDeviceGetAttribute(&limit, hipDeviceAttributeMaxSharedMemoryPerBlock, device);
    if (status == hipSuccess) status = hipFuncGetAttribute(&fixed, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function);
    if (status != hipSuccess) return status;
    return value >= 0 && value + fixed <= limit ? hipSuccess : hipErrorInvalidValue;
}
#define cuFuncSetCacheConfig moatbridge_cuFuncSetCacheConfig
#define cuFuncSetSharedMemConfig moatbridge_cuFuncSetSharedMemConfig
#define cuFuncSetAttribute moatbridge_cuFuncSetAttribute

/* The block size with the most resident threads per multiprocessor, the largest such one as
   CUDA picks it, with the dynamic shared memory each size needs from `sharedOfBlock` (or the
   fixed `shared` without one); the grid that fills the GPU at that occupancy. */
static inline CUresult moatbridge_cuOccupancyMaxPotentialBlockSizeWithFlags(
    int* minGridSize, int* blockSize, CUfunction function, CUoccupancyB2DSize sharedOfBlock, size_t shared,
    int blockSizeLimit, unsigned int flags) {
    int device = 0, warp = 0, processors = 0, most = 0, size, bestSize = 0, bestBlocks = 0;
    hipError_t status;
    if (minGridSize == NULL || blockSize == NULL) return hipErrorInvalidValue;
    if (sharedOfBlock == NULL)
        return hipModuleOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, function, shared,
                                                                blockSizeLimit, flags);
    status = hipFuncGetAttribute(&most, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
    if (status == hipSuccess) status = hipGetDevice(&device);
    if (status == hipSuccess) status = hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, device);
    if (status == hipSuccess)
        status = hipDeviceGetAttribute(&processors, hipDeviceAttributeMultiprocessorCount, device);
    if (status != hipSuccess) return status;
    if (blockSizeLimit > 0 && blockSizeLimit < most) most = blockSizeLimit;
    for (size = most - most % (warp > 0 ? warp : 1); size > 0; size -= (warp > 0 ? warp : 1)) {
        int blocks = 0;
        status = hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, function, size,
                                                                             sharedOfBlock(size), flags);
        if (status != hipSuccess) return status;
        if (blocks * size > bestBlocks * bestSize) {
            bestBlocks = blocks;
            bestSize = size;
        }
    }
    *blockSize = bestSize;
    *minGridSize = bestBlocks * processors;
    return hipSuccess;
}
static inline CUresult moatbridge_cuOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize,
                                                                   CUfunction function,
                                                                   CUoccupancyB2DSize sharedOfBlock,
                                                                   size_t shared, int blockSizeLimit) {
    return moatbridge_cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, function, sharedOfBlock,
                                                                shared, blockSizeLimit, hipOccupancyDefault);
}
#define cuOccupancyMaxPotentialBlockSize moatbridge_cuOccupancyMaxPotentialBlockSize
#define cuOccupancyMaxPotentialBlockSizeWithFlags moatbridge_cuOccupancyMaxPotentialBlockSizeWithFlags

/* The driver takes the destination first, in every release; HIP the source */
static inline CUresult moatbridge_cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src) {
    return hipGraphKernelNodeCopyAttributes(src, dst);
}
#define cuGraphKernelNodeCopyAttributes moatbridge_cuGraphKernelNodeCopyAttributes

#if HIP_VERSION_MAJOR >= 6
static inline CUresult moatbridge_cuGraphExecGetFlags(CUgraphExec exec, cuuint64_t* flags) {
    unsigned long long found = 0;
    hipError_t status = hipGraphExecGetFlags(exec, &found);
    if (status == hipSuccess && flags != NULL) *flags = found;
    return status;
}
#define cuGraphExecGetFlags moatbridge_cuGraphExecGetFlags
#endif

#if MOATBRIDGE_CUDA_VERSION_NUMBER < 13000
/* CUDA 12's capture query (13.0's, with edge data, is in runtime_13.h) */
static inline CUresult moatbridge_cuStreamGetCaptureInfo(CUstream stream, CUstreamCaptureStatus* status,
                                                         cuuint64_t* id, CUgraph* graph,
                                                         const CUgraphNode** dependencies, size_t* count) {
    unsigned long long found = 0;
    hipError_t result = hipStreamGetCaptureInfo_v2(stream, status, &found, graph, dependencies, count);
    if (result == hipSuccess && id != NULL) *id = found;
    return result;
}
#define cuStreamGetCaptureInfo moatbridge_cuStreamGetCaptureInfo
#endif

/* A stream's device, and its identity while it lives: its handle (0 for the null stream) */
static inline CUresult moatbridge_cuStreamGetDevice(CUstream stream, CUdevice* device) {
    return hipStreamGetDevice(stream, device);
}
static inline CUresult moatbridge_cuStreamGetId(CUstream stream, unsigned long long* id) {
    if (id == NULL) return hipErrorInvalidValue;
    *id = (unsigned long long)(uintptr_t)stream;
    return hipSuccess;
}
#define cuStreamGetDevice moatbridge_cuStreamGetDevice
#define cuStreamGetId moatbridge_cuStreamGetId

/* Only the default flag before HIP 6: an external event record node needs HIP 6 */
static inline CUresult moatbridge_cuEventRecordWithFlags(CUevent event, CUstream stream, unsigned int flags) {
#if HIP_VERSION_MAJOR >= 6
    return hipEventRecordWithFlags(event, stream, flags);
#else
    return flags == 0 ? hipEventRecord(event, stream) : hipErrorNotSupported;
#endif
}
#define cuEventRecordWithFlags moatbridge_cuEventRecordWithFlags

/* HIP's limit is per element whatever the format */
static inline CUresult moatbridge_cuDeviceGetTexture1DLinearMaxWidth(size_t* width, CUarray_format format,
                                                                     unsigned int channels, CUdevice device) {
    int elements = 0;
    hipError_t status;
    (void)format;
    if (width == NULL || channels == 0 || channels > 4) return hipErrorInvalidValue;
    status = hipDeviceGetAttribute(&elements, hipDeviceAttributeMaxTexture1DLinear, device);
    if (status == hipSuccess) *width = (size_t)elements;
    return status;
}
#define cuDeviceGetTexture1DLinearMaxWidth moatbridge_cuDeviceGetTexture1DLinearMaxWidth

/* How much dynamic shared memory each of numBlocks blocks can have on one multiprocessor */
static inline CUresult moatbridge_cuOccupancyAvailableDynamicSMemPerBlock(size_t* size, CUfunction function,
                                                                          int numBlocks, int blockSize) {
    int device = 0, perProcessor = 0, perBlock = 0, fixed = 0;
    size_t each;
    hipError_t status;
    if (size == NULL || numBlocks <= 0 || blockSize <= 0) return hipErrorInvalidValue;
    status = hipGetDevice(&device);
    if (status == hipSuccess)
        status = hipDeviceGetAttribute(&perProcessor, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, device);
    if (status == hipSuccess)
        status = hipDeviceGetAttribute(&perBlock, hipDeviceAttributeMaxSharedMemoryPerBlock, device);
    if (status == hipSuccess) status = hipFuncGetAttribute(&fixed, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function);
    if (status != hipSuccess) return status;
    each = (size_t)perProcessor / (size_t)numBlocks;
    each = each < (size_t)perBlock ? each : (size_t)perBlock;
    *size = each > (size_t)fixed ? each - (size_t)fixed : 0;
    return hipSuccess;
}
#define cuOccupancyAvailableDynamicSMemPerBlock moatbridge_cuOccupancyAvailableDynamicSMemPerBlock

/* CUDA 12's graph update result: which node stopped the update (HIP names one) */
typedef struct CUgraphExecUpdateResultInfo_st {
    hipGraphExecUpdateResult result;
    hipGraphNode_t errorNode;
    hipGraphNode_t errorFromNode;
} CUgraphExecUpdateResultInfo_v1;
typedef CUgraphExecUpdateResultInfo_v1 CUgraphExecUpdateResultInfo;
static inline CUresult moatbridge_cuGraphExecUpdate(CUgraphExec exec, CUgraph graph, CUgraphExecUpdateResultInfo* info) {
    hipGraphNode_t node = NULL;
    hipGraphExecUpdateResult result = hipGraphExecUpdateSuccess;
    hipError_t status = hipGraphExecUpdate(exec, graph, &node, &result);
    if (info != NULL) {
        info->result = result;
        info->errorNode = node;
        info->errorFromNode = NULL;
    }
    return status;
}
#define cuGraphExecUpdate moatbridge_cuGraphExecUpdate

#if MOATBRIDGE_CUDA_VERSION_NUMBER < 13000
/* CUDA 12.2's location-based prefetch and advice (13.0 gives them the plain names) */
static inline CUresult cuMemPrefetchAsync_v2(CUdeviceptr ptr, size_t count, CUmemLocation location, unsigned int flags,
                                             CUstream stream) {
    return flags != 0 ? hipErrorInvalidValue
                      : hipMemPrefetchAsync(ptr, count, moatbridge_location_device(location), stream);
}
static inline CUresult cuMemAdvise_v2(CUdeviceptr ptr, size_t count, CUmem_advise advice, CUmemLocation location) {
    return hipMemAdvise(ptr, count, advice, moatbridge_location_device(location));
}
#endif
