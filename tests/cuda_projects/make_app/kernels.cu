#include "kernels.cuh"

__device__ int bin_of(float value, int bins) {
    int bin = static_cast<int>(value * bins);
    return bin < bins ? bin : bins - 1;
}

__global__ void histogram(const float* values, int n, int* counts, int bins) {
    extern __shared__ int local[];
    for (int i = threadIdx.x; i < bins; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[bin_of(values[i], bins)], 1);
    __syncthreads();
    for (int i = threadIdx.x; i < bins; i += blockDim.x) atomicAdd(&counts[i], local[i]);
}
