// occupancy_launch.cu
// Covers: cudaOccupancyMaxPotentialBlockSize, cudaOccupancyMaxActiveBlocksPerMultiprocessor,
// cudaFuncGetAttributes, cudaFuncSetCacheConfig, and launching through cudaLaunchKernel
// with an argument array (instead of <<<>>>).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
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

__global__ void saxpy(int n, float a, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

int main()
{
    CHECK(cudaSetDevice(0));
    int device = 0;
    CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, device));

    int minGridSize = 0, blockSize = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&minGridSize, &blockSize, saxpy, 0, 0));

    int activeBlocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&activeBlocks, saxpy, blockSize, 0));
    double occupancy = static_cast<double>(activeBlocks * blockSize) /
                       prop.maxThreadsPerMultiProcessor;
    printf("suggested block size %d, min grid size %d, %d active blocks/SM, occupancy %.2f\n",
           blockSize, minGridSize, activeBlocks, occupancy);

    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, saxpy));
    printf("saxpy: %d regs, %zu bytes static smem, %zu bytes local, max %d threads/block\n",
           attr.numRegs, attr.sharedSizeBytes, attr.localSizeBytes, attr.maxThreadsPerBlock);
    CHECK(cudaFuncSetCacheConfig(saxpy, cudaFuncCachePreferL1));

    const int n = 1 << 18;
    std::vector<float> hx(n), hy(n);
    for (int i = 0; i < n; ++i) { hx[i] = 0.001f * (i % 1000); hy[i] = 1.0f; }
    float *dx = nullptr, *dy = nullptr;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    int gridSize = (n + blockSize - 1) / blockSize;
    if (gridSize > minGridSize && minGridSize > 0) gridSize = minGridSize;   // grid-stride loop covers the rest
    int nArg = n;
    float aArg = 2.0f;
    void* args[] = {&nArg, &aArg, &dx, &dy};
    CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(saxpy), dim3(gridSize), dim3(blockSize),
                           args, 0, nullptr));
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(hy.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (std::fabs(hy[i] - (2.0f * hx[i] + 1.0f)) > 1e-5f) ++errors;

    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));

    if (errors || blockSize <= 0 || blockSize > attr.maxThreadsPerBlock || activeBlocks <= 0) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
