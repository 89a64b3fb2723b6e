// device_query.cu
// Covers: cudaGetDeviceCount, cudaGetDeviceProperties (printing major.minor and other
// fields), cudaDeviceGetAttribute, cudaRuntimeGetVersion / cudaDriverGetVersion,
// cudaMemGetInfo, and printf from device code.
#include <cstdio>
#include <cstdlib>
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

__global__ void hello(int* visits)
{
    printf("Hello from block %d, thread %d (blockDim=%d)\n",
           blockIdx.x, threadIdx.x, blockDim.x);
    atomicAdd(visits, 1);
}

int main()
{
    int deviceCount = 0;
    CHECK(cudaGetDeviceCount(&deviceCount));
    printf("Found %d CUDA device(s)\n", deviceCount);
    if (deviceCount == 0) {
        printf("FAILED: no devices\n");
        return 1;
    }

    int runtimeVersion = 0, driverVersion = 0;
    CHECK(cudaRuntimeGetVersion(&runtimeVersion));
    CHECK(cudaDriverGetVersion(&driverVersion));
    printf("Runtime version %d.%d, driver version %d.%d\n",
           runtimeVersion / 1000, (runtimeVersion % 1000) / 10,
           driverVersion / 1000, (driverVersion % 1000) / 10);

    int errors = 0;
    for (int dev = 0; dev < deviceCount; ++dev) {
        cudaDeviceProp prop;
        CHECK(cudaGetDeviceProperties(&prop, dev));
        printf("Device %d: \"%s\"\n", dev, prop.name);
        printf("  Compute capability:      %d.%d\n", prop.major, prop.minor);
        printf("  Multiprocessors:         %d\n", prop.multiProcessorCount);
        printf("  Global memory:           %.1f MiB\n", prop.totalGlobalMem / (1024.0 * 1024.0));
        printf("  Shared memory per block: %zu bytes\n", prop.sharedMemPerBlock);
        printf("  Max threads per block:   %d\n", prop.maxThreadsPerBlock);
        printf("  Warp size:               %d\n", prop.warpSize);
        printf("  Max grid size:           %d x %d x %d\n",
               prop.maxGridSize[0], prop.maxGridSize[1], prop.maxGridSize[2]);

        int smCount = 0;
        CHECK(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount, dev));
        if (smCount != prop.multiProcessorCount) ++errors;
        if (prop.major <= 0 || prop.maxThreadsPerBlock <= 0 || prop.warpSize <= 0) ++errors;
    }

    CHECK(cudaSetDevice(0));
    size_t freeMem = 0, totalMem = 0;
    CHECK(cudaMemGetInfo(&freeMem, &totalMem));
    printf("Device 0 memory: %zu MiB free of %zu MiB\n", freeMem >> 20, totalMem >> 20);
    if (freeMem > totalMem) ++errors;

    int* dVisits = nullptr;
    CHECK(cudaMalloc(&dVisits, sizeof(int)));
    CHECK(cudaMemset(dVisits, 0, sizeof(int)));
    hello<<<2, 4>>>(dVisits);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());   // flushes the device printf buffer
    int visits = 0;
    CHECK(cudaMemcpy(&visits, dVisits, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dVisits));
    if (visits != 8) ++errors;

    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
