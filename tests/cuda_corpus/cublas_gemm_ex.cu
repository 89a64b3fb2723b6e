// cublas_gemm_ex.cu
// Covers: cuBLAS 11+'s typed GEMM as written for NVIDIA: cublasGemmEx with __half inputs,
// float output and CUBLAS_COMPUTE_32F, cublasGemmStridedBatchedEx, the math mode and
// workspace calls, and cublasGetStatusString. Verified against a host GEMM.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cublas_v2.h>
#include <cuda_fp16.h>
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
#define CHECK_BLAS(call)                                                      \
    do {                                                                      \
        cublasStatus_t st_ = (call);                                          \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                   \
            fprintf(stderr, "cuBLAS error: %s at %s:%d\n",                    \
                    cublasGetStatusString(st_), __FILE__, __LINE__);          \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

int main()
{
    const int n = 32, batches = 2;
    __half* dA = nullptr;
    CHECK(cudaMalloc(&dA, sizeof(__half) * n * n * batches));
    __half *dB = nullptr;
    float* dC = nullptr;
    CHECK(cudaMalloc(&dB, sizeof(__half) * n * n * batches));
    CHECK(cudaMalloc(&dC, sizeof(float) * n * n * batches));
    std::vector<__half> A(n * n * batches), B(n * n * batches);
    std::vector<float> fa(n * n * batches), fb(n * n * batches);
    for (int i = 0; i < n * n * batches; ++i) {
        fa[i] = (float)((i * 7) % 5) - 2.0f;
        fb[i] = (float)((i * 3) % 7) - 3.0f;
        A[i] = __float2half(fa[i]);
        B[i] = __float2half(fb[i]);
    }
    CHECK(cudaMemcpy(dA, A.data(), sizeof(__half) * A.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), sizeof(__half) * B.size(), cudaMemcpyHostToDevice));
    cublasHandle_t handle;
    CHECK_BLAS(cublasCreate(&handle));
    CHECK_BLAS(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH));
    CHECK_BLAS(cublasSetWorkspace(handle, nullptr, 0));
    const float alpha = 1.0f, beta = 0.0f;
    CHECK_BLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, CUDA_R_16F, n, dB, CUDA_R_16F, n,
                            &beta, dC, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP));
    std::vector<float> C(n * n * batches);
    CHECK(cudaMemcpy(C.data(), dC, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
    CHECK_BLAS(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, CUDA_R_16F, n,
                                          (long long)n * n, dB, CUDA_R_16F, n, (long long)n * n, &beta, dC,
                                          CUDA_R_32F, n, (long long)n * n, batches, CUBLAS_COMPUTE_32F,
                                          CUBLAS_GEMM_DEFAULT));
    std::vector<float> Cb(n * n * batches);
    CHECK(cudaMemcpy(Cb.data(), dC, sizeof(float) * Cb.size(), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < batches; ++b)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                float expected = 0.0f;
                for (int k = 0; k < n; ++k) expected += fa[b * n * n + k * n + i] * fb[b * n * n + j * n + k];
                if (b == 0 && std::fabs(C[j * n + i] - expected) > 1e-3f) ++bad;
                if (std::fabs(Cb[b * n * n + j * n + i] - expected) > 1e-3f) ++bad;
            }
    CHECK_BLAS(cublasDestroy(handle));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    if (bad) {
        printf("FAILED: %d wrong elements\n", bad);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
