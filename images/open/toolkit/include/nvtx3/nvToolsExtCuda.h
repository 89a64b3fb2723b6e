/* moatbridge: NVTX's CUDA driver extension (naming devices, contexts, streams and events),
   declared as NVIDIA's nvtx3/nvToolsExtCuda.h declares it; the names go nowhere, as with NVTX
   and no tool injected. */
#pragma once
#include <cuda.h>
#include <nvtx3/nvToolsExt.h>

#define NVTX_RESOURCE_CLASS_CUDA 4

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nvtxResourceCUDAType_t {
    NVTX_RESOURCE_TYPE_CUDA_DEVICE = NVTX_RESOURCE_MAKE_TYPE(CUDA, 1),
    NVTX_RESOURCE_TYPE_CUDA_CONTEXT = NVTX_RESOURCE_MAKE_TYPE(CUDA, 2),
    NVTX_RESOURCE_TYPE_CUDA_STREAM = NVTX_RESOURCE_MAKE_TYPE(CUDA, 3),
    NVTX_RESOURCE_TYPE_CUDA_EVENT = NVTX_RESOURCE_MAKE_TYPE(CUDA, 4)
} nvtxResourceCUDAType_t;

static inline void nvtxNameCuDeviceA(CUdevice device, const char* name) { (void)device; (void)name; }
static inline void nvtxNameCuDeviceW(CUdevice device, const wchar_t* name) { (void)device; (void)name; }
static inline void nvtxNameCuContextA(CUcontext context, const char* name) { (void)context; (void)name; }
static inline void nvtxNameCuContextW(CUcontext context, const wchar_t* name) { (void)context; (void)name; }
static inline void nvtxNameCuStreamA(CUstream stream, const char* name) { (void)stream; (void)name; }
static inline void nvtxNameCuStreamW(CUstream stream, const wchar_t* name) { (void)stream; (void)name; }
static inline void nvtxNameCuEventA(CUevent event, const char* name) { (void)event; (void)name; }
static inline void nvtxNameCuEventW(CUevent event, const wchar_t* name) { (void)event; (void)name; }

#ifdef __cplusplus
}
#endif

#ifdef UNICODE
#define nvtxNameCuDevice nvtxNameCuDeviceW
#define nvtxNameCuContext nvtxNameCuContextW
#define nvtxNameCuStream nvtxNameCuStreamW
#define nvtxNameCuEvent nvtxNameCuEventW
#else
#define nvtxNameCuDevice nvtxNameCuDeviceA
#define nvtxNameCuContext nvtxNameCuContextA
#define nvtxNameCuStream nvtxNameCuStreamA
#define nvtxNameCuEvent nvtxNameCuEventA
#endif
