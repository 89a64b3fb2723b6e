// error_handling.cu
// Covers: error-handling paths — launch-configuration errors reported by cudaPeekAtLastError
// (non-clearing) and cudaGetLastError (clearing), cudaGetErrorName / cudaGetErrorString,
// failing API calls (oversized cudaMalloc, invalid device ordinal), and recovery afterwards.
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

#define EXPECT(cond)                                                          \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "expectation failed: %s at %s:%d\n",              \
                    #cond, __FILE__, __LINE__);                               \
            ++failures;                                                       \
        }                                                                     \
    } while (0)

__global__ void touch(int* p)
{
    p[threadIdx.x] = threadIdx.x;
}

int main()
{
    int failures = 0;
    CHECK(cudaSetDevice(0));
    int* d = nullptr;
    CHECK(cudaMalloc(&d, 1024 * sizeof(int)));
    CHECK(cudaGetLastError());   // nothing pending yet

    // 1. Invalid launch configuration: far more threads per block than any device allows.
    touch<<<1, 4096>>>(d);
    cudaError_t peeked = cudaPeekAtLastError();
    EXPECT(peeked != cudaSuccess);
    EXPECT(cudaPeekAtLastError() == peeked);       // peek does not reset the error
    cudaError_t got = cudaGetLastError();
    EXPECT(got == peeked);
    EXPECT(cudaGetLastError() == cudaSuccess);     // get did reset it
    printf("bad launch -> %s: %s\n", cudaGetErrorName(got), cudaGetErrorString(got));

    // 2. A failing allocation returns an error and leaves the context usable.
    void* huge = nullptr;
    cudaError_t allocErr = cudaMalloc(&huge, static_cast<size_t>(1) << 60);
    EXPECT(allocErr != cudaSuccess);
    printf("huge malloc -> %s\n", cudaGetErrorName(allocErr));
    cudaGetLastError();   // clear it

    // 3. Invalid argument: selecting a device ordinal that does not exist.
    int deviceCount = 0;
    CHECK(cudaGetDeviceCount(&deviceCount));
    cudaError_t devErr = cudaSetDevice(deviceCount);
    EXPECT(devErr == cudaErrorInvalidDevice);
    printf("cudaSetDevice(%d) -> %s\n", deviceCount, cudaGetErrorName(devErr));
    cudaGetLastError();
    CHECK(cudaSetDevice(0));

    // 4. The error strings for known codes are non-empty.
    EXPECT(cudaGetErrorString(cudaErrorInvalidValue) != nullptr);
    EXPECT(cudaGetErrorName(cudaErrorMemoryAllocation) != nullptr);

    // 5. Recovery: a correct launch still works and no error is pending.
    touch<<<1, 256>>>(d);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int result[256];
    CHECK(cudaMemcpy(result, d, sizeof(result), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 256; ++i) EXPECT(result[i] == i);
    EXPECT(cudaPeekAtLastError() == cudaSuccess);

    CHECK(cudaFree(d));
    if (failures) {
        printf("FAILED: %d expectations\n", failures);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
