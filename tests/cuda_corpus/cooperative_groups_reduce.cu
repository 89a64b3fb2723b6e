// cooperative_groups_reduce.cu
// Covers: cooperative groups — cg::this_thread_block(), thread_block::sync(),
// cg::tiled_partition<32>, thread_block_tile shfl_down / thread_rank / size,
// and this_thread_block().sync() as a block barrier.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__device__ float tileSum(cg::thread_block_tile<32> tile, float v)
{
    for (int offset = static_cast<int>(tile.size()) / 2; offset > 0; offset /= 2)
        v += tile.shfl_down(v, offset);
    return v;   // valid in tile.thread_rank() == 0
}

__global__ void reduceCG(const float* in, float* out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    __shared__ float partial[32];

    const int tid = static_cast<int>(block.thread_rank());
    const int blockSize = static_cast<int>(block.size());
    float v = 0.0f;
    for (int i = blockIdx.x * blockSize + tid; i < n; i += gridDim.x * blockSize)
        v += in[i];

    v = tileSum(tile, v);
    const int tileIdx = tid / 32;
    if (tile.thread_rank() == 0) partial[tileIdx] = v;
    block.sync();

    if (tileIdx == 0) {
        const int numTiles = blockSize / 32;
        float s = (tid < numTiles) ? partial[tid] : 0.0f;
        s = tileSum(tile, s);
        if (tile.thread_rank() == 0) atomicAdd(out, s);
    }
}

// Each block reverses its chunk in shared memory; barrier via this_thread_block().sync().
__global__ void reverseBlocks(int* data)
{
    __shared__ int buf[256];
    const unsigned int t = cg::this_thread_block().thread_rank();
    const unsigned int base = blockIdx.x * blockDim.x;
    buf[t] = data[base + t];
    cg::this_thread_block().sync();
    data[base + t] = buf[blockDim.x - 1 - t];
}

int main()
{
    CHECK(cudaSetDevice(0));

    const int n = 100000;
    std::vector<float> h(n);
    for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 10) * 0.5f;   // exact sums
    float expected = 0.0f;
    for (int i = 0; i < n; ++i) expected += h[i];

    float *dIn = nullptr, *dOut = nullptr;
    CHECK(cudaMalloc(&dIn, n * sizeof(float)));
    CHECK(cudaMalloc(&dOut, sizeof(float)));
    CHECK(cudaMemcpy(dIn, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dOut, 0, sizeof(float)));
    reduceCG<<<40, 256>>>(dIn, dOut, n);
    CHECK(cudaGetLastError());
    float result = 0.0f;
    CHECK(cudaMemcpy(&result, dOut, sizeof(float), cudaMemcpyDeviceToHost));

    const int blocks = 8, threads = 256;
    std::vector<int> hi(blocks * threads), ho(blocks * threads);
    for (int i = 0; i < blocks * threads; ++i) hi[i] = i;
    int* dData = nullptr;
    CHECK(cudaMalloc(&dData, hi.size() * sizeof(int)));
    CHECK(cudaMemcpy(dData, hi.data(), hi.size() * sizeof(int), cudaMemcpyHostToDevice));
    reverseBlocks<<<blocks, threads>>>(dData);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(ho.data(), dData, ho.size() * sizeof(int), cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < threads; ++t)
            if (ho[b * threads + t] != hi[b * threads + threads - 1 - t]) ++errors;

    CHECK(cudaFree(dIn));
    CHECK(cudaFree(dOut));
    CHECK(cudaFree(dData));

    printf("sum = %.1f (expected %.1f)\n", result, expected);
    if (result != expected || errors) {
        printf("FAILED\n");
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
