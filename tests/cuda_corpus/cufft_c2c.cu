// cufft_c2c.cu
// Covers: cuFFT — cufftPlan1d (batched C2C), cufftSetStream, cufftExecC2C forward and
// inverse (CUFFT_FORWARD / CUFFT_INVERSE), cufftComplex data, cufftDestroy; checks the
// spectrum of a pure tone and the (unnormalised) round trip.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cufft.h>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define CUFFT_CHECK(call)                                                     \
    do {                                                                      \
        cufftResult r_ = (call);                                              \
        if (r_ != CUFFT_SUCCESS) {                                            \
            fprintf(stderr, "cuFFT error: code %d at %s:%d\n",                \
                    static_cast<int>(r_), __FILE__, __LINE__);                \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__global__ void scale(cufftComplex* data, int n, float factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i].x *= factor;
        data[i].y *= factor;
    }
}

int main()
{
    const int N = 256, batch = 2, tone = 5;
    const double twoPi = 6.283185307179586;
    cufftComplex* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, sizeof(cufftComplex) * N * batch));

    std::vector<cufftComplex> h(N * batch), spectrum(N * batch), back(N * batch);
    for (int b = 0; b < batch; ++b)
        for (int i = 0; i < N; ++i) {
            h[b * N + i].x = static_cast<float>(std::cos(twoPi * tone * i / N)) * (b + 1);
            h[b * N + i].y = 0.0f;
        }
    CUDA_CHECK(cudaMemcpy(d, h.data(), sizeof(cufftComplex) * N * batch, cudaMemcpyHostToDevice));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cufftHandle plan;
    CUFFT_CHECK(cufftPlan1d(&plan, N, CUFFT_C2C, batch));
    CUFFT_CHECK(cufftSetStream(plan, stream));

    CUFFT_CHECK(cufftExecC2C(plan, d, d, CUFFT_FORWARD));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemcpy(spectrum.data(), d, sizeof(cufftComplex) * N * batch, cudaMemcpyDeviceToHost));

    CUFFT_CHECK(cufftExecC2C(plan, d, d, CUFFT_INVERSE));
    scale<<<(N * batch + 255) / 256, 256, 0, stream>>>(d, N * batch, 1.0f / N);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemcpy(back.data(), d, sizeof(cufftComplex) * N * batch, cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int b = 0; b < batch; ++b) {
        for (int k = 0; k < N; ++k) {
            const cufftComplex c = spectrum[b * N + k];
            double mag = std::sqrt(static_cast<double>(c.x) * c.x + static_cast<double>(c.y) * c.y);
            double expected = (k == tone || k == N - tone) ? (b + 1) * N / 2.0 : 0.0;
            if (std::fabs(mag - expected) > 1e-2 * N) ++errors;
        }
        for (int i = 0; i < N; ++i) {
            if (std::fabs(back[b * N + i].x - h[b * N + i].x) > 1e-4f ||
                std::fabs(back[b * N + i].y) > 1e-4f) ++errors;
        }
    }

    CUFFT_CHECK(cufftDestroy(plan));
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d));

    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
