/* moatbridge: NVTX's CUDA runtime extension (naming devices, streams and events, as profiled
   training code does), declared as NVIDIA's nvtx3/nvToolsExtCudaRt.h declares it; the names go
   nowhere, as with NVTX and no tool injected. */
#pragma once
#include <cuda.h>
#include <driver_types.h>
#include <nvtx3/nvToolsExt.h>

#define NVTX_RESOURCE_CLASS_CUDART 5

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nvtxResourceCUDARTType_t {
    NVTX_RESOURCE_TYPE_CUDART_DEVICE = NVTX_RESOURCE_MAKE_TYPE(CUDART, 0),
    NVTX_RESOURCE_TYPE_CUDART_STREAM = NVTX_RESOURCE_MAKE_TYPE(CUDART, 1),
    NVTX_RESOURCE_TYPE_CUDART_EVENT = NVTX_RESOURCE_MAKE_TYPE(CUDART, 2)
} nvtxResourceCUDARTType_t;

static inline void nvtxNameCudaDeviceA(int device, const char* name) { (void)device; (void)name; }
static inline void nvtxNameCudaDeviceW(int device, const wchar_t* name) { (void)device; (void)name; }
static inline void nvtxNameCudaStreamA(cudaStream_t stream, const char* name) { (void)stream; (void)name; }
static inline void nvtxNameCudaStreamW(cudaStream_t stream, const wchar_t* name) { (void)stream; (void)name; }
static inline void nvtxNameCudaEventA(cudaEvent_t event, const char* name) { (void)event; (void)name; }
static inline void nvtxNameCudaEventW(cudaEvent_t event, const wchar_t* name) { (void)event; (void)name; }

#ifdef __cplusplus
}
#endif

#ifdef UNICODE
#define nvtxNameCudaDevice nvtxNameCudaDeviceW
#define nvtxNameCudaStream nvtxNameCudaStreamW
#define nvtxNameCudaEvent nvtxNameCudaEventW
#else
#define nvtxNameCudaDevice nvtxNameCudaDeviceA
#define nvtxNameCudaStream nvtxNameCudaStreamA
#define nvtxNameCudaEvent nvtxNameCudaEventA
#endif
