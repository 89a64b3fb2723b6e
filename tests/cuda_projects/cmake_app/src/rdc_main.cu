#include <cstdio>
extern __device__ float scale(float x);
__global__ void apply(float* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = scale(data[i]);
}
int main() {
    float* data = nullptr;
    cudaError_t status = cudaMalloc(&data, 256 * sizeof(float));
    if (status != cudaSuccess) {
        std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(status));
        return 1;
    }
    apply<<<1, 256>>>(data, 256);
    std::printf("%s\n", cudaDeviceSynchronize() == cudaSuccess ? "PASSED" : "FAILED");
    return 0;
}
