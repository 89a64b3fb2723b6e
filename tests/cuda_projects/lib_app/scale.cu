#include "scale.h"

#include <cuda_runtime.h>

__global__ void scale_kernel(float* values, std::size_t n, float factor) {
    std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) values[i] *= factor;
}

int scale_on_device(float* host_values, std::size_t n, float factor) {
    float* device = nullptr;
    cudaError_t status = cudaMalloc(&device, n * sizeof(float));
    if (status != cudaSuccess) return static_cast<int>(status);
    cudaMemcpy(device, host_values, n * sizeof(float), cudaMemcpyHostToDevice);
    unsigned int blocks = static_cast<unsigned int>((n + 255) / 256);
    scale_kernel<<<blocks, 256>>>(device, n, factor);
    status = cudaMemcpy(host_values, device, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(device);
    return static_cast<int>(status);
}
