// atomics.cu
// Covers: atomicAdd on int (shared + global histogram) and float, atomicMax/atomicMin on int,
// and a custom float atomicMax implemented with an atomicCAS retry loop.
#include <cstdio>
#include <cstdlib>
#include <cmath>
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

#define NUM_BINS 16

__device__ float atomicMaxFloat(float* address, float val)
{
    int* addressAsInt = reinterpret_cast<int*>(address);
    int old = *addressAsInt, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val) break;
        old = atomicCAS(addressAsInt, assumed, __float_as_int(val));
    } while (assumed != old);
    return __int_as_float(old);
}

__global__ void histogram(const int* data, int n, unsigned int* bins)
{
    __shared__ unsigned int local[NUM_BINS];
    if (threadIdx.x < NUM_BINS) local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] % NUM_BINS], 1u);
    __syncthreads();
    if (threadIdx.x < NUM_BINS) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

__global__ void stats(const float* x, int n, float* sum, float* maxVal, int* minIdx, int* maxIdx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(sum, x[i]);
        atomicMaxFloat(maxVal, x[i]);
        atomicMin(minIdx, i);
        atomicMax(maxIdx, i);
    }
}

int main()
{
    const int n = 1 << 16;
    int* dData = nullptr;
    unsigned int* dBins = nullptr;
    CHECK(cudaMalloc(&dData, n * sizeof(int)));
    CHECK(cudaMalloc(&dBins, NUM_BINS * sizeof(unsigned int)));

    std::vector<int> hData(n);
    unsigned int expectedBins[NUM_BINS] = {0};
    for (int i = 0; i < n; ++i) {
        hData[i] = (i * 7919) % 1000;
        expectedBins[hData[i] % NUM_BINS]++;
    }
    CHECK(cudaMemcpy(dData, hData.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dBins, 0, NUM_BINS * sizeof(unsigned int)));
    histogram<<<32, 256>>>(dData, n, dBins);
    CHECK(cudaGetLastError());
    unsigned int hBins[NUM_BINS];
    CHECK(cudaMemcpy(hBins, dBins, sizeof(hBins), cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int b = 0; b < NUM_BINS; ++b) errors += (hBins[b] != expectedBins[b]);

    // Float atomics: values are multiples of 0.25 so the sum is exact in any order.
    const int m = 4096;
    std::vector<float> hX(m);
    for (int i = 0; i < m; ++i) hX[i] = 0.25f * static_cast<float>(i % 8) - 0.5f;
    hX[1234] = 42.5f;
    float *dX = nullptr, *dSum = nullptr, *dMax = nullptr;
    int *dMinIdx = nullptr, *dMaxIdx = nullptr;
    CHECK(cudaMalloc(&dX, m * sizeof(float)));
    CHECK(cudaMalloc(&dSum, sizeof(float)));  CHECK(cudaMalloc(&dMax, sizeof(float)));
    CHECK(cudaMalloc(&dMinIdx, sizeof(int))); CHECK(cudaMalloc(&dMaxIdx, sizeof(int)));
    CHECK(cudaMemcpy(dX, hX.data(), m * sizeof(float), cudaMemcpyHostToDevice));
    const float zero = 0.0f, lowest = -1e30f;
    const int bigIdx = 1 << 30, smallIdx = -1;   // identities for min / max
    CHECK(cudaMemcpy(dSum, &zero, sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dMax, &lowest, sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dMinIdx, &bigIdx, sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dMaxIdx, &smallIdx, sizeof(int), cudaMemcpyHostToDevice));

    stats<<<(m + 255) / 256, 256>>>(dX, m, dSum, dMax, dMinIdx, dMaxIdx);
    CHECK(cudaGetLastError());
    float hSum = 0, hMax = 0;
    int hMinIdx = 0, hMaxIdx = 0;
    CHECK(cudaMemcpy(&hSum, dSum, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hMax, dMax, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hMinIdx, dMinIdx, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hMaxIdx, dMaxIdx, sizeof(int), cudaMemcpyDeviceToHost));

    float expectedSum = 0.0f;
    for (int i = 0; i < m; ++i) expectedSum += hX[i];
    if (std::fabs(hSum - expectedSum) > 1e-3f || hMax != 42.5f || hMinIdx != 0 || hMaxIdx != m - 1)
        ++errors;
    printf("sum=%f (expected %f) max=%f idx=[%d,%d]\n", hSum, expectedSum, hMax, hMinIdx, hMaxIdx);

    CHECK(cudaFree(dData)); CHECK(cudaFree(dBins)); CHECK(cudaFree(dX)); CHECK(cudaFree(dSum));
    CHECK(cudaFree(dMax)); CHECK(cudaFree(dMinIdx)); CHECK(cudaFree(dMaxIdx));

    if (errors) { printf("FAILED: %d errors\n", errors); return 1; }
    printf("PASSED\n");
    return 0;
}
