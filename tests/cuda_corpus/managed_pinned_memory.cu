// managed_pinned_memory.cu
// Covers: unified memory (cudaMallocManaged), page-locked host memory (cudaMallocHost,
// cudaHostAlloc with cudaHostAllocMapped + cudaHostGetDevicePointer zero-copy), cudaFreeHost.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t e = (call);                                               \
        if (e != cudaSuccess) {                                               \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(e), __FILE__, __LINE__);               \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__global__ void square(float* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * data[i];
}

__global__ void fillIndex(int* out, int n, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i + offset;
}

int main()
{
    const int n = 4096;
    float* managed = nullptr;
    CUDA_CHECK(cudaMallocManaged(&managed, n * sizeof(float)));

    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    int managedSupported = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&managedSupported, cudaDevAttrManagedMemory, device));
    printf("device %d managed memory support: %d\n", device, managedSupported);

    for (int i = 0; i < n; ++i) managed[i] = static_cast<float>(i % 100);
    square<<<(n + 127) / 128, 128>>>(managed, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());   // required before touching managed data on host

    int errors = 0;
    for (int i = 0; i < n; ++i) {
        float v = static_cast<float>(i % 100);
        if (managed[i] != v * v) ++errors;
    }

    // Pinned host memory as a staging buffer.
    int* pinned = nullptr;
    int* dBuf = nullptr;
    CUDA_CHECK(cudaMallocHost(&pinned, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&dBuf, n * sizeof(int)));
    fillIndex<<<(n + 255) / 256, 256>>>(dBuf, n, 7);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(pinned, dBuf, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (pinned[i] != i + 7) ++errors;

    // Mapped (zero-copy) host memory written directly by the kernel.
    int* mapped = nullptr;
    int* mappedDev = nullptr;
    CUDA_CHECK(cudaHostAlloc(&mapped, n * sizeof(int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(&mappedDev, mapped, 0));
    fillIndex<<<(n + 255) / 256, 256>>>(mappedDev, n, -3);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i)
        if (mapped[i] != i - 3) ++errors;

    CUDA_CHECK(cudaFreeHost(mapped));
    CUDA_CHECK(cudaFreeHost(pinned));
    CUDA_CHECK(cudaFree(dBuf));
    CUDA_CHECK(cudaFree(managed));

    if (errors != 0) {
        printf("FAILED: %d mismatches\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
