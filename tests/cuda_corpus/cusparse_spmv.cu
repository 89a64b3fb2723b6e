// cusparse_spmv.cu
// Covers: cuSPARSE generic API — cusparseCreate, cusparseCreateCsr, cusparseCreateDnVec,
// cusparseSpMV_bufferSize + cusparseSpMV (CUSPARSE_SPMV_ALG_DEFAULT), destroy calls;
// y = alpha * A * x + beta * y for a tridiagonal CSR matrix, checked on the host.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cusparse.h>

#define CHECK_CUDA(call)                                                      \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define CHECK_CUSPARSE(call)                                                  \
    do {                                                                      \
        cusparseStatus_t st_ = (call);                                        \
        if (st_ != CUSPARSE_STATUS_SUCCESS) {                                 \
            fprintf(stderr, "cuSPARSE error: status %d at %s:%d\n",           \
                    static_cast<int>(st_), __FILE__, __LINE__);               \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

int main()
{
    CHECK_CUDA(cudaSetDevice(0));

    // Tridiagonal matrix: 2 on the diagonal, -1 off the diagonal.
    const int n = 1000;
    std::vector<int> rowPtr(n + 1), colInd;
    std::vector<float> values;
    for (int r = 0; r < n; ++r) {
        rowPtr[r] = static_cast<int>(colInd.size());
        if (r > 0)     { colInd.push_back(r - 1); values.push_back(-1.0f); }
        colInd.push_back(r); values.push_back(2.0f);
        if (r < n - 1) { colInd.push_back(r + 1); values.push_back(-1.0f); }
    }
    rowPtr[n] = static_cast<int>(colInd.size());
    const int nnz = rowPtr[n];

    std::vector<float> x(n), y(n, 1.0f);
    for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 17) * 0.5f;

    int *dRowPtr = nullptr, *dColInd = nullptr;
    float *dValues = nullptr, *dX = nullptr, *dY = nullptr;
    CHECK_CUDA(cudaMalloc(&dRowPtr, (n + 1) * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&dColInd, nnz * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&dValues, nnz * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dX, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dY, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(dRowPtr, rowPtr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dColInd, colInd.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dValues, values.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dX, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dY, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    cusparseHandle_t handle = nullptr;
    cusparseSpMatDescr_t matA;
    cusparseDnVecDescr_t vecX, vecY;
    CHECK_CUSPARSE(cusparseCreate(&handle));
    CHECK_CUSPARSE(cusparseCreateCsr(&matA, n, n, nnz, dRowPtr, dColInd, dValues,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CHECK_CUSPARSE(cusparseCreateDnVec(&vecX, n, dX, CUDA_R_32F));
    CHECK_CUSPARSE(cusparseCreateDnVec(&vecY, n, dY, CUDA_R_32F));

    const float alpha = 2.0f, beta = 3.0f;
    size_t bufferSize = 0;
    CHECK_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           &alpha, matA, vecX, &beta, vecY, CUDA_R_32F,
                                           CUSPARSE_SPMV_ALG_DEFAULT, &bufferSize));
    void* dBuffer = nullptr;
    CHECK_CUDA(cudaMalloc(&dBuffer, bufferSize > 0 ? bufferSize : 1));
    CHECK_CUSPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                &alpha, matA, vecX, &beta, vecY, CUDA_R_32F,
                                CUSPARSE_SPMV_ALG_DEFAULT, dBuffer));

    std::vector<float> result(n);
    CHECK_CUDA(cudaMemcpy(result.data(), dY, n * sizeof(float), cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int r = 0; r < n; ++r) {
        float ax = 0.0f;
        for (int k = rowPtr[r]; k < rowPtr[r + 1]; ++k) ax += values[k] * x[colInd[k]];
        float ref = alpha * ax + beta * y[r];
        if (std::fabs(result[r] - ref) > 1e-4f * (1.0f + std::fabs(ref))) ++errors;
    }

    CHECK_CUSPARSE(cusparseDestroySpMat(matA));
    CHECK_CUSPARSE(cusparseDestroyDnVec(vecX));
    CHECK_CUSPARSE(cusparseDestroyDnVec(vecY));
    CHECK_CUSPARSE(cusparseDestroy(handle));
    CHECK_CUDA(cudaFree(dBuffer)); CHECK_CUDA(cudaFree(dRowPtr)); CHECK_CUDA(cudaFree(dColInd));
    CHECK_CUDA(cudaFree(dValues)); CHECK_CUDA(cudaFree(dX)); CHECK_CUDA(cudaFree(dY));

    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
