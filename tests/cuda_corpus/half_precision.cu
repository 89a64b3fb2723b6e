// half_precision.cu
// Covers: cuda_fp16.h — __half storage, host/device __float2half / __half2float,
// __hadd, __hmul, __hfma, __hgt comparison, and packed __half2 (__floats2half2_rn, __hadd2,
// __low2float, __high2float).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// y = a * x + y, then clamp negative results to zero.
__global__ void haxpy(int n, __half a, const __half* x, __half* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half r = __hadd(__hmul(a, x[i]), y[i]);
        __half zero = __float2half(0.0f);
        y[i] = __hgt(r, zero) ? r : zero;
    }
}

__global__ void fmaConvert(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half h = __float2half(in[i]);
        __half r = __hfma(h, __float2half(2.0f), __float2half(0.25f));
        out[i] = __half2float(r);
    }
}

__global__ void pairAdd(const float* a, const float* b, float* lo, float* hi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half2 p = __floats2half2_rn(a[i], b[i]);
        __half2 q = __floats2half2_rn(1.0f, -1.0f);
        __half2 s = __hadd2(p, q);
        lo[i] = __low2float(s);
        hi[i] = __high2float(s);
    }
}

int main()
{
    const int n = 512;
    __half *dX = nullptr, *dY = nullptr;
    CHECK(cudaMalloc(&dX, n * sizeof(__half)));
    CHECK(cudaMalloc(&dY, n * sizeof(__half)));

    // Small integers and halves are exactly representable in fp16.
    std::vector<__half> hX(n), hY(n);
    for (int i = 0; i < n; ++i) {
        hX[i] = __float2half(static_cast<float>(i % 32) * 0.5f);
        hY[i] = __float2half(static_cast<float>(i % 7) - 8.0f);
    }
    CHECK(cudaMemcpy(dX, hX.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dY, hY.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
    haxpy<<<(n + 127) / 128, 128>>>(n, __float2half(2.0f), dX, dY);
    CHECK(cudaGetLastError());
    std::vector<__half> hR(n);
    CHECK(cudaMemcpy(hR.data(), dY, n * sizeof(__half), cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int i = 0; i < n; ++i) {
        float ref = 2.0f * (static_cast<float>(i % 32) * 0.5f) + (static_cast<float>(i % 7) - 8.0f);
        if (ref < 0.0f) ref = 0.0f;
        if (__half2float(hR[i]) != ref) ++errors;
    }

    float *dA = nullptr, *dB = nullptr, *dLo = nullptr, *dHi = nullptr;
    CHECK(cudaMalloc(&dA, n * sizeof(float)));
    CHECK(cudaMalloc(&dB, n * sizeof(float)));
    CHECK(cudaMalloc(&dLo, n * sizeof(float)));
    CHECK(cudaMalloc(&dHi, n * sizeof(float)));
    std::vector<float> hA(n), hB(n), hLo(n), hHi(n);
    for (int i = 0; i < n; ++i) { hA[i] = 0.125f * (i % 64); hB[i] = 3.0f * (i % 11); }
    CHECK(cudaMemcpy(dA, hA.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    fmaConvert<<<(n + 127) / 128, 128>>>(dA, dLo, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hLo.data(), dLo, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (std::fabs(hLo[i] - (hA[i] * 2.0f + 0.25f)) > 1e-3f) ++errors;

    pairAdd<<<(n + 127) / 128, 128>>>(dA, dB, dLo, dHi, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hLo.data(), dLo, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hHi.data(), dHi, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (hLo[i] != hA[i] + 1.0f || hHi[i] != hB[i] - 1.0f) ++errors;

    CHECK(cudaFree(dX)); CHECK(cudaFree(dY)); CHECK(cudaFree(dA));
    CHECK(cudaFree(dB)); CHECK(cudaFree(dLo)); CHECK(cudaFree(dHi));

    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
