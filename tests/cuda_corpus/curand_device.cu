// curand_device.cu
// Covers: cuRAND device API — curandState, curand_init (seed, subsequence, offset) in a
// setup kernel, curand_uniform / curand_normal in a Monte-Carlo kernel with the state kept in
// registers and written back, unsigned long long atomicAdd for the hit counter.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__global__ void setupStates(curandState* states, unsigned long long seed)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, id, 0, &states[id]);   // same seed, distinct subsequence per thread
}

__global__ void monteCarloPi(curandState* states, int samplesPerThread,
                             unsigned long long* hits, int* badRange, float* normalSum)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState local = states[id];
    unsigned long long count = 0;
    for (int s = 0; s < samplesPerThread; ++s) {
        float x = curand_uniform(&local);
        float y = curand_uniform(&local);
        if (x <= 0.0f || x > 1.0f || y <= 0.0f || y > 1.0f) atomicAdd(badRange, 1);
        if (x * x + y * y <= 1.0f) ++count;
    }
    float z = 0.0f;
    for (int s = 0; s < 16; ++s) z += curand_normal(&local);
    states[id] = local;
    atomicAdd(hits, count);
    atomicAdd(normalSum, z);
}

int main()
{
    const int blocks = 64, threads = 128, samplesPerThread = 1000;
    const int nThreads = blocks * threads;

    curandState* dStates = nullptr;
    CHECK(cudaMalloc(&dStates, nThreads * sizeof(curandState)));
    unsigned long long* dHits = nullptr;
    int* dBad = nullptr;
    float* dNormalSum = nullptr;
    CHECK(cudaMalloc(&dHits, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&dBad, sizeof(int)));
    CHECK(cudaMalloc(&dNormalSum, sizeof(float)));
    CHECK(cudaMemset(dHits, 0, sizeof(unsigned long long)));
    CHECK(cudaMemset(dBad, 0, sizeof(int)));
    CHECK(cudaMemset(dNormalSum, 0, sizeof(float)));

    setupStates<<<blocks, threads>>>(dStates, 2024ULL);
    CHECK(cudaGetLastError());
    monteCarloPi<<<blocks, threads>>>(dStates, samplesPerThread, dHits, dBad, dNormalSum);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    unsigned long long hits = 0;
    int bad = 0;
    float normalSum = 0.0f;
    CHECK(cudaMemcpy(&hits, dHits, sizeof(hits), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&bad, dBad, sizeof(bad), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&normalSum, dNormalSum, sizeof(normalSum), cudaMemcpyDeviceToHost));

    const double total = static_cast<double>(nThreads) * samplesPerThread;
    const double pi = 4.0 * hits / total;
    const double normalMean = normalSum / (nThreads * 16.0);
    printf("pi ~= %.5f from %.0f samples, normal mean %.4f\n", pi, total, normalMean);

    CHECK(cudaFree(dStates));
    CHECK(cudaFree(dHits));
    CHECK(cudaFree(dBad));
    CHECK(cudaFree(dNormalSum));

    if (std::fabs(pi - 3.14159265) > 0.01 || bad != 0 || std::fabs(normalMean) > 0.05) {
        printf("FAILED\n");
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
