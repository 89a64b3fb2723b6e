// rdc_extern_device.cu
// Covers: separable compilation / relocatable device code (build with -rdc=true):
// kernels call an `extern __device__` function and use an `extern __device__` variable
// that are only declared up front and defined later in the translation unit, as they
// would be when split across files and resolved by the device linker.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// --- "header" part: declarations only ---------------------------------------
extern __device__ float transformValue(float x);
extern __device__ int g_callCount;
extern __device__ int g_bias;

// --- "kernel file" part -------------------------------------------------------
__global__ void applyTransform(float* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = transformValue(data[i]);
        atomicAdd(&g_callCount, 1);
    }
}

int main()
{
    CHECK(cudaSetDevice(0));

    const int n = 777;
    const int bias = 3;
    const int zero = 0;
    CHECK(cudaMemcpyToSymbol(g_bias, &bias, sizeof(int)));
    CHECK(cudaMemcpyToSymbol(g_callCount, &zero, sizeof(int)));

    std::vector<float> h(n);
    for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
    float* d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    applyTransform<<<(n + 127) / 128, 128>>>(d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    int calls = 0;
    CHECK(cudaMemcpyFromSymbol(&calls, g_callCount, sizeof(int)));
    CHECK(cudaFree(d));

    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (h[i] != 2.0f * i + bias) ++errors;
    if (calls != n) ++errors;

    if (errors) {
        printf("FAILED: %d errors, %d calls\n", errors, calls);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}

// --- "device library" part: definitions --------------------------------------
__device__ int g_callCount = 0;
__device__ int g_bias = 0;

__device__ float transformValue(float x)
{
    return 2.0f * x + static_cast<float>(g_bias);
}
