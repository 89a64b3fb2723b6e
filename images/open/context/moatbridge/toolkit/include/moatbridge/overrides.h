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
