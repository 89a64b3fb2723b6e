// vector_add.cu
// Covers: runtime memory management (cudaMalloc, cudaMemcpy, cudaMemset, cudaFree),
// a basic grid-stride kernel launched with triple-chevron syntax, host-side verification.
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

__global__ void vectorAdd(const float* a, const float* b, float* c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x) {
        c[i] = a[i] + b[i];
    }
}

__global__ void addOne(int* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1;
}

int main()
{
    const int n = 50000;
    const size_t bytes = n * sizeof(float);

    float *dA = nullptr, *dB = nullptr, *dC = nullptr;
    CHECK(cudaMalloc(&dA, bytes));
    CHECK(cudaMalloc(&dB, bytes));
    CHECK(cudaMalloc(&dC, bytes));

    std::vector<float> hA(n), hB(n), hC(n, -1.0f);
    for (int i = 0; i < n; ++i) {
        hA[i] = static_cast<float>(i) * 0.5f;
        hB[i] = static_cast<float>(n - i) * 0.25f;
    }

    CHECK(cudaMemcpy(dA, hA.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dC, 0, bytes));

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    vectorAdd<<<blocks, threads>>>(dA, dB, dC, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(hC.data(), dC, bytes, cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int i = 0; i < n; ++i) {
        float expected = hA[i] + hB[i];
        if (std::fabs(hC[i] - expected) > 1e-5f * std::fabs(expected) + 1e-6f) {
            if (errors < 5)
                fprintf(stderr, "mismatch at %d: %f != %f\n", i, hC[i], expected);
            ++errors;
        }
    }

    // cudaMemset on an int buffer (byte-wise 0x01 pattern), then a kernel on top.
    int* dI = nullptr;
    CHECK(cudaMalloc(&dI, 1024 * sizeof(int)));
    CHECK(cudaMemset(dI, 0x01, 1024 * sizeof(int)));
    addOne<<<4, 256>>>(dI, 1024);
    CHECK(cudaGetLastError());
    std::vector<int> hI(1024);
    CHECK(cudaMemcpy(hI.data(), dI, 1024 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1024; ++i)
        if (hI[i] != 0x01010101 + 1) ++errors;

    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    CHECK(cudaFree(dI));

    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
