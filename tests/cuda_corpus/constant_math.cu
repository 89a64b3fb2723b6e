// constant_math.cu
// Covers: __constant__ memory filled with cudaMemcpyToSymbol, a __device__ global read back
// with cudaMemcpyFromSymbol, and single-precision math functions: fmaf (Horner polynomial),
// __expf fast intrinsic, rsqrtf, sincosf.
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

#define NUM_COEFFS 5

__constant__ float c_coeffs[NUM_COEFFS];   // polynomial coefficients, highest degree first
__constant__ float c_scale;
__device__ int d_evaluations;

__global__ void evaluate(const float* x, float* poly, float* expo, float* rs, float* trig, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];

    float p = c_coeffs[0];
    for (int k = 1; k < NUM_COEFFS; ++k) p = fmaf(p, v, c_coeffs[k]);
    poly[i] = p * c_scale;

    expo[i] = __expf(-v);
    rs[i] = rsqrtf(v + 1.0f);

    float s, c;
    sincosf(v, &s, &c);
    trig[i] = s * s + c * c;   // should be ~1

    atomicAdd(&d_evaluations, 1);
}

int main()
{
    const float hCoeffs[NUM_COEFFS] = {0.5f, -1.0f, 2.0f, 0.25f, -3.0f};
    const float hScale = 2.0f;
    const int zero = 0;
    CHECK(cudaMemcpyToSymbol(c_coeffs, hCoeffs, sizeof(hCoeffs)));
    CHECK(cudaMemcpyToSymbol(c_scale, &hScale, sizeof(float)));
    CHECK(cudaMemcpyToSymbol(d_evaluations, &zero, sizeof(int)));

    const int n = 2048;
    std::vector<float> hx(n);
    for (int i = 0; i < n; ++i) hx[i] = -2.0f + 4.0f * i / n;   // [-2, 2)
    float *dx, *dPoly, *dExp, *dRs, *dTrig;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dPoly, n * sizeof(float)));
    CHECK(cudaMalloc(&dExp, n * sizeof(float)));
    CHECK(cudaMalloc(&dRs, n * sizeof(float)));
    CHECK(cudaMalloc(&dTrig, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    evaluate<<<(n + 255) / 256, 256>>>(dx, dPoly, dExp, dRs, dTrig, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::vector<float> poly(n), expo(n), rs(n), trig(n);
    CHECK(cudaMemcpy(poly.data(), dPoly, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(expo.data(), dExp, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rs.data(), dRs, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(trig.data(), dTrig, n * sizeof(float), cudaMemcpyDeviceToHost));
    int evaluations = 0;
    CHECK(cudaMemcpyFromSymbol(&evaluations, d_evaluations, sizeof(int)));

    int errors = 0;
    for (int i = 0; i < n; ++i) {
        double v = hx[i];
        double p = 0.0;
        for (int k = 0; k < NUM_COEFFS; ++k) p = p * v + hCoeffs[k];
        p *= hScale;
        if (std::fabs(poly[i] - p) > 1e-4 * (1.0 + std::fabs(p))) ++errors;
        if (std::fabs(expo[i] - std::exp(-v)) > 1e-3 * std::exp(-v)) ++errors;       // fast path
        if (v > -1.0 && std::fabs(rs[i] - 1.0 / std::sqrt(v + 1.0)) > 1e-4 * (1.0 / std::sqrt(v + 1.0))) ++errors;
        if (std::fabs(trig[i] - 1.0f) > 1e-5f) ++errors;
    }
    if (evaluations != n) ++errors;

    CHECK(cudaFree(dx)); CHECK(cudaFree(dPoly)); CHECK(cudaFree(dExp));
    CHECK(cudaFree(dRs)); CHECK(cudaFree(dTrig));

    if (errors) {
        printf("FAILED: %d errors (evaluations=%d)\n", errors, evaluations);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
