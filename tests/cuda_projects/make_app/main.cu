#include <cstdio>
#include <cuda_runtime.h>
#include <curand.h>
#include "kernels.cuh"

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t status_ = (call);                                                \
        if (status_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "CUDA error: %s at %s:%d\n",                       \
                         cudaGetErrorString(status_), __FILE__, __LINE__);           \
            return 1;                                                                \
        }                                                                            \
    } while (0)

int main() {
    const int n = 1 << 20, bins = 64;
    float* values = nullptr;
    int* counts = nullptr;
    CHECK(cudaMalloc(&values, n * sizeof(float)));
    CHECK(cudaMalloc(&counts, bins * sizeof(int)));
    CHECK(cudaMemset(counts, 0, bins * sizeof(int)));
    curandGenerator_t generator;
    if (curandCreateGenerator(&generator, CURAND_RNG_PSEUDO_DEFAULT) != CURAND_STATUS_SUCCESS) return 1;
    curandGenerateUniform(generator, values, n);
    histogram<<<128, 256, bins * sizeof(int)>>>(values, n, counts, bins);
    CHECK(cudaGetLastError());
    int host[bins];
    CHECK(cudaMemcpy(host, counts, sizeof(host), cudaMemcpyDeviceToHost));
    long total = 0;
    for (int i = 0; i < bins; ++i) total += host[i];
    std::printf(total == n ? "PASSED\n" : "FAILED\n");
    curandDestroyGenerator(generator);
    return total == n ? 0 : 1;
}
