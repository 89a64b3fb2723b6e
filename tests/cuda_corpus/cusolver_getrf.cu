// cusolver_getrf.cu
// Covers: cuSOLVER dense API — cusolverDnCreate, cusolverDnSetStream,
// cusolverDnSgetrf_bufferSize, cusolverDnSgetrf (LU with partial pivoting, devIpiv, devInfo),
// cusolverDnSgetrs (solve with CUBLAS_OP_N), cusolverDnDestroy; residual checked on host.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define CUSOLVER_CHECK(call)                                                  \
    do {                                                                      \
        cusolverStatus_t st_ = (call);                                        \
        if (st_ != CUSOLVER_STATUS_SUCCESS) {                                 \
            fprintf(stderr, "cuSOLVER error: status %d at %s:%d\n",           \
                    static_cast<int>(st_), __FILE__, __LINE__);               \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

int main()
{
    const int n = 8, nrhs = 2, lda = n, ldb = n;
    // Column-major A with a small diagonal in the first column to force pivoting.
    std::vector<float> A(lda * n), B(ldb * nrhs);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            A[i + j * lda] = (i == j) ? (j == 0 ? 0.001f : 10.0f + i) : 1.0f / (1.0f + i + 2 * j);
    for (int k = 0; k < nrhs; ++k)
        for (int i = 0; i < n; ++i) B[i + k * ldb] = static_cast<float>(i + 1) * (k + 1);

    float *dA = nullptr, *dB = nullptr, *dWork = nullptr;
    int *dIpiv = nullptr, *dInfo = nullptr;
    CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * lda * n));
    CUDA_CHECK(cudaMalloc(&dB, sizeof(float) * ldb * nrhs));
    CUDA_CHECK(cudaMalloc(&dIpiv, sizeof(int) * n));
    CUDA_CHECK(cudaMalloc(&dInfo, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(dA, A.data(), sizeof(float) * lda * n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, B.data(), sizeof(float) * ldb * nrhs, cudaMemcpyHostToDevice));

    cusolverDnHandle_t handle = nullptr;
    cudaStream_t stream = nullptr;
    CUSOLVER_CHECK(cusolverDnCreate(&handle));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUSOLVER_CHECK(cusolverDnSetStream(handle, stream));

    int lwork = 0;
    CUSOLVER_CHECK(cusolverDnSgetrf_bufferSize(handle, n, n, dA, lda, &lwork));
    CUDA_CHECK(cudaMalloc(&dWork, sizeof(float) * (lwork > 0 ? lwork : 1)));

    CUSOLVER_CHECK(cusolverDnSgetrf(handle, n, n, dA, lda, dWork, dIpiv, dInfo));
    int info = 0;
    CUDA_CHECK(cudaMemcpyAsync(&info, dInfo, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (info != 0) {
        fprintf(stderr, "getrf: info = %d\n", info);
        return 1;
    }

    CUSOLVER_CHECK(cusolverDnSgetrs(handle, CUBLAS_OP_N, n, nrhs, dA, lda, dIpiv, dB, ldb, dInfo));
    CUDA_CHECK(cudaMemcpyAsync(&info, dInfo, sizeof(int), cudaMemcpyDeviceToHost, stream));
    std::vector<float> X(ldb * nrhs);
    std::vector<int> ipiv(n);
    CUDA_CHECK(cudaMemcpyAsync(X.data(), dB, sizeof(float) * ldb * nrhs, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(ipiv.data(), dIpiv, sizeof(int) * n, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int errors = (info != 0);
    if (ipiv[0] == 1) ++errors;   // first pivot must have been swapped (1-based pivots)
    for (int k = 0; k < nrhs; ++k) {
        for (int i = 0; i < n; ++i) {
            double r = 0.0;
            for (int j = 0; j < n; ++j) r += static_cast<double>(A[i + j * lda]) * X[j + k * ldb];
            if (std::fabs(r - B[i + k * ldb]) > 5e-3 * (1.0 + std::fabs(B[i + k * ldb]))) ++errors;
        }
    }

    CUDA_CHECK(cudaFree(dA)); CUDA_CHECK(cudaFree(dB)); CUDA_CHECK(cudaFree(dWork));
    CUDA_CHECK(cudaFree(dIpiv)); CUDA_CHECK(cudaFree(dInfo));
    CUSOLVER_CHECK(cusolverDnDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));

    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
