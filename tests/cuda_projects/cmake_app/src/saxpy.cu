#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include "hostinfo.h"

__global__ void fill(float* x, float value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = value;
}

int main() {
    if (report_devices() <= 0) return 1;
    const int n = 1 << 16;
    float *x = nullptr, *y = nullptr;
    if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) return 1;
    fill<<<(n + 255) / 256, 256>>>(x, 1.0f, n);
    fill<<<(n + 255) / 256, 256>>>(y, 2.0f, n);
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
    const float alpha = 3.0f;
    cublasSaxpy(handle, n, &alpha, x, 1, y, 1);
    std::vector<float> host(n);
    cudaMemcpy(host.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
    cublasDestroy(handle);
    std::printf(host[0] == 5.0f ? "PASSED\n" : "FAILED\n");
    return host[0] == 5.0f ? 0 : 1;
}
