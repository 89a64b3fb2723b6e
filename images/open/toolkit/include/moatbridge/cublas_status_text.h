/* moatbridge: cuBLAS's names and messages for its statuses (hipBLAS's codes under cuBLAS's
   names here), and cuBLAS's version number of the mimicked CUDA release: what cuBLASLt's
   cublasLtGetStatusName/String and cublasLtGetVersion return, over hipBLASLt or ours. */
#pragma once
#include <stddef.h>
#include <cublas_api.h>

static inline const char* moatbridge_cublas_status_text(cublasStatus_t status, int message) {
#define MOATBRIDGE_STATUS(code, text) \
    if (status == code) return message ? text : #code;
    MOATBRIDGE_STATUS(CUBLAS_STATUS_SUCCESS, "success")
    MOATBRIDGE_STATUS(CUBLAS_STATUS_NOT_INITIALIZED, "the library was not initialized")
    MOATBRIDGE_STATUS(CUBLAS_STATUS_ALLOC_FAILED, "the resource allocation failed")
    MOATBRIDGE_STATUS(CUBLAS_STATUS_INVALID_VALUE, "an invalid numeric value was used as an argument")
    MOATBRIDGE_STATUS(CUBLAS_STATUS_ARCH_MISMATCH, "an absent device architectural feature is required")
    MOATBRIDGE_STATUS(CUBLAS_STATUS_MAPPING_ERROR, "an access to GPU memory space failed")
    MOATBRIDGE_STATUS(CUBLAS_STATUS_EXECUTION_FAILED, "the GPU program failed to execute")
    MOATBRIDGE_STATUS(CUBLAS_STATUS_INTERNAL_ERROR, "an internal operation failed")
    MOATBRIDGE_STATUS(CUBLAS_STATUS_NOT_SUPPORTED, "the functionality requested is not supported")
#undef MOATBRIDGE_STATUS
    return message ? "unknown error" : "CUBLAS_STATUS_UNKNOWN";
}

/* major * 10000 + minor * 100 + patch: cuBLAS's own where the toolkit mimics the release its
   version macros describe, else the CUDA release's major and minor */
static inline size_t moatbridge_cublas_version(void) {
#ifdef CUBLAS_VERSION
    return CUBLAS_VERSION;
#else
    return (size_t)(CUDART_VERSION / 1000 * 10000 + CUDART_VERSION % 1000 / 10 * 100);
#endif
}
