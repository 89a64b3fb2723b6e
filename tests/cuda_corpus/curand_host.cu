// curand_host.cu
// Covers: cuRAND host API — curandCreateGenerator (pseudo-random default generator),
// curandSetPseudoRandomGeneratorSeed, curandSetStream, curandGenerateUniform,
// curandGenerateNormal, curandDestroyGenerator; statistics verified on the host.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <curand.h>

#define CUDA_CALL(call)                                                       \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define CURAND_CALL(call)                                                     \
    do {                                                                      \
        curandStatus_t st_ = (call);                                          \
        if (st_ != CURAND_STATUS_SUCCESS) {                                   \
            fprintf(stderr, "cuRAND error: status %d at %s:%d\n",             \
                    static_cast<int>(st_), __FILE__, __LINE__);               \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

int main()
{
    const size_t n = 1 << 20;
    float *dUniform = nullptr, *dNormal = nullptr;
    CUDA_CALL(cudaMalloc(&dUniform, n * sizeof(float)));
    CUDA_CALL(cudaMalloc(&dNormal, n * sizeof(float)));
    cudaStream_t stream;
    CUDA_CALL(cudaStreamCreate(&stream));

    curandGenerator_t gen;
    CURAND_CALL(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CALL(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CURAND_CALL(curandSetStream(gen, stream));

    CURAND_CALL(curandGenerateUniform(gen, dUniform, n));
    CURAND_CALL(curandGenerateNormal(gen, dNormal, n, 5.0f, 2.0f));   // n must be even
    CUDA_CALL(cudaStreamSynchronize(stream));

    std::vector<float> u(n), g(n);
    CUDA_CALL(cudaMemcpy(u.data(), dUniform, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CALL(cudaMemcpy(g.data(), dNormal, n * sizeof(float), cudaMemcpyDeviceToHost));

    int errors = 0;
    double sumU = 0.0, sumG = 0.0, sumG2 = 0.0;
    for (size_t i = 0; i < n; ++i) {
        if (!(u[i] > 0.0f && u[i] <= 1.0f)) ++errors;   // curand uniform range is (0, 1]
        sumU += u[i];
        sumG += g[i];
        sumG2 += static_cast<double>(g[i]) * g[i];
    }
    double meanU = sumU / n;
    double meanG = sumG / n;
    double stdG = std::sqrt(sumG2 / n - meanG * meanG);
    printf("uniform mean %.4f, normal mean %.4f stddev %.4f\n", meanU, meanG, stdG);
    if (std::fabs(meanU - 0.5) > 0.01) ++errors;
    if (std::fabs(meanG - 5.0) > 0.05 || std::fabs(stdG - 2.0) > 0.05) ++errors;

    // Same seed must reproduce the same sequence.
    CURAND_CALL(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CURAND_CALL(curandSetGeneratorOffset(gen, 0ULL));
    CURAND_CALL(curandGenerateUniform(gen, dNormal, n));
    CUDA_CALL(cudaStreamSynchronize(stream));
    CUDA_CALL(cudaMemcpy(g.data(), dNormal, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
        if (g[i] != u[i]) { ++errors; break; }

    CURAND_CALL(curandDestroyGenerator(gen));
    CUDA_CALL(cudaStreamDestroy(stream));
    CUDA_CALL(cudaFree(dUniform));
    CUDA_CALL(cudaFree(dNormal));

    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
