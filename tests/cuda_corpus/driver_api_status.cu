// driver_api_status.cu
// Covers: the CUDA driver API beside the runtime in one program, as helper libraries write it:
// CUresult and cudaError_t as two distinct types (an error-name helper overloaded on both, a
// check template specialised on each, switch and comparisons on CUresult, explicit int casts),
// cuInit, cuDeviceGet/GetCount/GetName/TotalMem/GetAttribute, the primary context,
// cuMemAlloc/cuMemcpyHtoD/cuMemcpyDtoH/cuMemsetD32/cuMemFree, cuGetErrorName/String, and a
// runtime kernel launched on driver-allocated memory.
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>

static const char* statusName(cudaError_t status) { return cudaGetErrorName(status); }

static const char* statusName(CUresult status)
{
    const char* name = nullptr;
    cuGetErrorName(status, &name);
    return name ? name : "<unknown CUresult>";
}

static const char* statusText(CUresult status)
{
    const char* text = nullptr;
    cuGetErrorString(status, &text);
    return text ? text : "<no text>";
}

template <typename Status> struct StatusTraits;
template <> struct StatusTraits<cudaError_t> {
    static bool failed(cudaError_t s) { return s != cudaSuccess; }
    static const char* text(cudaError_t s) { return cudaGetErrorString(s); }
};
template <> struct StatusTraits<CUresult> {
    static bool failed(CUresult s) { return s != CUDA_SUCCESS; }
    static const char* text(CUresult s) { return statusText(s); }
};

template <typename Status>
static void check(Status status, const char* call, const char* file, int line)
{
    if (StatusTraits<Status>::failed(status)) {
        fprintf(stderr, "CUDA error: %s (%s, code %d) in %s at %s:%d\n",
                StatusTraits<Status>::text(status), statusName(status),
                static_cast<int>(status), call, file, line);
        exit(1);
    }
}
#define CHECK_RT(call) check<cudaError_t>((call), #call, __FILE__, __LINE__)
#define CHECK_DRV(call) check<CUresult>((call), #call, __FILE__, __LINE__)

static bool isRecoverable(CUresult status)
{
    switch (status) {
    case CUDA_SUCCESS:
    case CUDA_ERROR_NOT_READY:
        return true;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_OUT_OF_MEMORY:
        return false;
    default:
        return false;
    }
}

__global__ void scale(int* data, int factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}

int main()
{
    CHECK_DRV(cuInit(0));
    int count = 0;
    CHECK_DRV(cuDeviceGetCount(&count));
    if (count == 0) {
        printf("FAILED: no devices\n");
        return 1;
    }
    CUdevice device;
    CHECK_DRV(cuDeviceGet(&device, 0));
    char name[256];
    CHECK_DRV(cuDeviceGetName(name, sizeof name, device));
    size_t total = 0;
    CHECK_DRV(cuDeviceTotalMem(&total, device));
    int multiprocessors = 0;
    CHECK_DRV(cuDeviceGetAttribute(&multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
    printf("device 0: %s, %zu MiB, %d multiprocessors\n", name, total >> 20, multiprocessors);

    CUcontext context;
    CHECK_DRV(cuDevicePrimaryCtxRetain(&context, device));
    CHECK_DRV(cuCtxSetCurrent(context));

    const int n = 1024;
    int host[n];
    for (int i = 0; i < n; ++i) host[i] = i;
    CUdeviceptr buffer;
    CHECK_DRV(cuMemAlloc(&buffer, n * sizeof(int)));
    CHECK_DRV(cuMemsetD32(buffer, 0, n));
    CHECK_DRV(cuMemcpyHtoD(buffer, host, n * sizeof(int)));

    scale<<<(n + 255) / 256, 256>>>(reinterpret_cast<int*>(buffer), 3, n);
    CHECK_RT(cudaGetLastError());
    CHECK_DRV(cuCtxSynchronize());
    CHECK_DRV(cuMemcpyDtoH(host, buffer, n * sizeof(int)));

    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += host[i] != 3 * i;

    // A failing driver call: its status is a CUresult, named through the CUresult overload.
    CUresult status = cuDeviceGet(&device, count + 7);
    const bool recoverable = isRecoverable(status);
    printf("cuDeviceGet(%d) -> %s (%d): %s\n", count + 7, statusName(status),
           static_cast<int>(status), statusText(status));
    if (status == CUDA_SUCCESS || recoverable) ++wrong;
    if (static_cast<CUresult>(0) != CUDA_SUCCESS) ++wrong;

    CHECK_DRV(cuMemFree(buffer));
    CHECK_DRV(cuDevicePrimaryCtxRelease(device));
    if (wrong) {
        printf("FAILED: %d mismatches\n", wrong);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
