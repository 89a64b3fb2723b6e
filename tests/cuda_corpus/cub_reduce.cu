// cub_reduce.cu
// Covers: CUB device-wide primitives with the two-phase temporary-storage idiom
// (cub::DeviceReduce::Sum, cub::DeviceReduce::Max, cub::DeviceScan::ExclusiveSum) and the
// block-level collective cub::BlockReduce with its TempStorage in shared memory.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cub/cub.cuh>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

template <int BLOCK_THREADS>
__global__ void blockSumKernel(const int* in, int* blockSums, int n)
{
    typedef cub::BlockReduce<int, BLOCK_THREADS> BlockReduce;
    __shared__ typename BlockReduce::TempStorage tempStorage;

    int i = blockIdx.x * BLOCK_THREADS + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    int aggregate = BlockReduce(tempStorage).Sum(v);
    if (threadIdx.x == 0) blockSums[blockIdx.x] = aggregate;
}

int main()
{
    const int n = 100003;
    int *dIn = nullptr, *dOut = nullptr, *dMax = nullptr, *dScan = nullptr;
    CHECK(cudaMalloc(&dIn, n * sizeof(int)));
    CHECK(cudaMalloc(&dOut, sizeof(int)));
    CHECK(cudaMalloc(&dMax, sizeof(int)));
    CHECK(cudaMalloc(&dScan, n * sizeof(int)));

    std::vector<int> h(n);
    long long expectedSum = 0;
    int expectedMax = 0;
    for (int i = 0; i < n; ++i) {
        h[i] = (i * 31) % 97;
        expectedSum += h[i];
        if (h[i] > expectedMax) expectedMax = h[i];
    }
    CHECK(cudaMemcpy(dIn, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    // Phase 1: query temp storage size; phase 2: run.
    void* dTemp = nullptr;
    size_t tempBytes = 0;
    CHECK(cub::DeviceReduce::Sum(dTemp, tempBytes, dIn, dOut, n));
    CHECK(cudaMalloc(&dTemp, tempBytes));
    CHECK(cub::DeviceReduce::Sum(dTemp, tempBytes, dIn, dOut, n));
    CHECK(cudaFree(dTemp));

    dTemp = nullptr;
    tempBytes = 0;
    CHECK(cub::DeviceReduce::Max(dTemp, tempBytes, dIn, dMax, n));
    CHECK(cudaMalloc(&dTemp, tempBytes));
    CHECK(cub::DeviceReduce::Max(dTemp, tempBytes, dIn, dMax, n));
    CHECK(cudaFree(dTemp));

    dTemp = nullptr;
    tempBytes = 0;
    CHECK(cub::DeviceScan::ExclusiveSum(dTemp, tempBytes, dIn, dScan, n));
    CHECK(cudaMalloc(&dTemp, tempBytes));
    CHECK(cub::DeviceScan::ExclusiveSum(dTemp, tempBytes, dIn, dScan, n));
    CHECK(cudaFree(dTemp));

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    int* dBlockSums = nullptr;
    CHECK(cudaMalloc(&dBlockSums, blocks * sizeof(int)));
    blockSumKernel<threads><<<blocks, threads>>>(dIn, dBlockSums, n);
    CHECK(cudaGetLastError());

    int sum = 0, maxv = 0;
    CHECK(cudaMemcpy(&sum, dOut, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&maxv, dMax, sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<int> scan(n), blockSums(blocks);
    CHECK(cudaMemcpy(scan.data(), dScan, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(blockSums.data(), dBlockSums, blocks * sizeof(int), cudaMemcpyDeviceToHost));

    int errors = 0;
    if (sum != expectedSum || maxv != expectedMax) ++errors;
    int running = 0;
    for (int i = 0; i < n; ++i) {
        if (scan[i] != running) ++errors;
        running += h[i];
    }
    long long blockTotal = 0;
    for (int b = 0; b < blocks; ++b) blockTotal += blockSums[b];
    if (blockTotal != expectedSum) ++errors;

    CHECK(cudaFree(dIn)); CHECK(cudaFree(dOut)); CHECK(cudaFree(dMax));
    CHECK(cudaFree(dScan)); CHECK(cudaFree(dBlockSums));

    printf("sum=%d (expected %lld) max=%d (expected %d)\n", sum, expectedSum, maxv, expectedMax);
    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
