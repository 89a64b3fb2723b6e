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
#endif
