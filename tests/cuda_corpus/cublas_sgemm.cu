// cublas_sgemm.cu
// Covers: cuBLAS v2 API — cublasCreate/cublasDestroy, cublasSetStream, cublasSetVector /
// cublasGetVector, cublasSgemm on column-major matrices (with a transposed operand),
// cublasSaxpy and cublasSdot, checked against a host reference.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define CUBLAS_CHECK(call)                                                    \
    do {                                                                      \
        cublasStatus_t st_ = (call);                                          \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                   \
            fprintf(stderr, "cuBLAS error: status %d at %s:%d\n",             \
                    static_cast<int>(st_), __FILE__, __LINE__);               \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

int main()
{
    const int M = 64, N = 48, K = 32;   // C(MxN) = alpha * A(MxK) * B^T + beta * C, B stored NxK
    float *dA = nullptr, *dB = nullptr, *dC = nullptr;
    CUDA_CHECK(cudaMalloc(&dA, M * K * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dB, N * K * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dC, M * N * sizeof(float)));

    std::vector<float> A(M * K), B(N * K), C(M * N);
    for (int i = 0; i < M * K; ++i) A[i] = static_cast<float>((i % 7) - 3) * 0.5f;
    for (int i = 0; i < N * K; ++i) B[i] = static_cast<float>((i % 5) - 2) * 0.25f;
    for (int i = 0; i < M * N; ++i) C[i] = 1.0f;

    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    CUBLAS_CHECK(cublasSetVector(M * K, sizeof(float), A.data(), 1, dA, 1));
    CUBLAS_CHECK(cublasSetVector(N * K, sizeof(float), B.data(), 1, dB, 1));
    CUBLAS_CHECK(cublasSetVector(M * N, sizeof(float), C.data(), 1, dC, 1));

    const float alpha = 2.0f, beta = 0.5f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, M, N, K,
                             &alpha, dA, M, dB, N, &beta, dC, M));

    std::vector<float> result(M * N);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUBLAS_CHECK(cublasGetVector(M * N, sizeof(float), dC, 1, result.data(), 1));

    int errors = 0;
    for (int j = 0; j < N; ++j) {
        for (int i = 0; i < M; ++i) {
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc += A[i + k * M] * B[j + k * N];
            float ref = alpha * acc + beta * C[i + j * M];
            if (std::fabs(result[i + j * M] - ref) > 1e-3f * (1.0f + std::fabs(ref))) ++errors;
        }
    }

    // y = 3 * x + y, then dot(x, y).
    const int n = 1000;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) { x[i] = 0.5f * (i % 4); y[i] = 1.0f; }
    float *dx = nullptr, *dy = nullptr;
    CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    const float a = 3.0f;
    CUBLAS_CHECK(cublasSaxpy(handle, n, &a, dx, 1, dy, 1));
    float dot = 0.0f;
    CUBLAS_CHECK(cublasSdot(handle, n, dx, 1, dy, 1, &dot));   // host pointer mode: blocks
    CUDA_CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));

    double refDot = 0.0;
    for (int i = 0; i < n; ++i) {
        float ry = a * x[i] + 1.0f;
        if (std::fabs(y[i] - ry) > 1e-5f) ++errors;
        refDot += static_cast<double>(x[i]) * ry;
    }
    if (std::fabs(dot - refDot) > 1e-3 * refDot) ++errors;

    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(dA)); CUDA_CHECK(cudaFree(dB)); CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFree(dx)); CUDA_CHECK(cudaFree(dy));

    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
