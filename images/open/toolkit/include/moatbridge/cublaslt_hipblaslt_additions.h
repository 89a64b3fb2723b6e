/* moatbridge: what cuBLASLt has and hipBLASLt lacks, for cublasLt.h over hipBLASLt: the
   status names and messages and the version queries (the mimicked release's numbers). */
#pragma once
#include <library_types.h>
#include <moatbridge/cublas_status_text.h>

static inline const char* cublasLtGetStatusName(cublasStatus_t status) { return moatbridge_cublas_status_text(status, 0); }
static inline const char* cublasLtGetStatusString(cublasStatus_t status) { return moatbridge_cublas_status_text(status, 1); }
static inline size_t cublasLtGetVersion(void) { return moatbridge_cublas_version(); }
static inline size_t cublasLtGetCudartVersion(void) { return CUDART_VERSION; }
static inline cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int* value) {
    const size_t version = moatbridge_cublas_version();
    if (value == NULL) return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
        case MAJOR_VERSION: *value = (int)(version / 10000); return CUBLAS_STATUS_SUCCESS;
        case MINOR_VERSION: *value = (int)(version / 100 % 100); return CUBLAS_STATUS_SUCCESS;
        case PATCH_LEVEL: *value = (int)(version % 100); return CUBLAS_STATUS_SUCCESS;
        default: return CUBLAS_STATUS_INVALID_VALUE;
    }
}
