// shared_memory.cu
// Covers: static __shared__ tiles (padded matrix transpose with __syncthreads) and
// dynamic shared memory (extern __shared__ sized by the third launch parameter) used
// for a block-level tree reduction.
#include <cstdio>
#include <cstdlib>
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

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeTiled(float* out, const float* in, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];   // +1 avoids bank conflicts

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];

    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void blockSum(const int* in, int* blockSums, int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < static_cast<unsigned int>(n)) ? in[i] : 0;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) blockSums[blockIdx.x] = sdata[0];
}

int main()
{
    const int width = 100, height = 70;
    float *dIn = nullptr, *dOut = nullptr;
    CHECK(cudaMalloc(&dIn, width * height * sizeof(float)));
    CHECK(cudaMalloc(&dOut, width * height * sizeof(float)));

    std::vector<float> hIn(width * height), hOut(width * height);
    for (int i = 0; i < width * height; ++i) hIn[i] = static_cast<float>(i);
    CHECK(cudaMemcpy(dIn, hIn.data(), hIn.size() * sizeof(float), cudaMemcpyHostToDevice));

    dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
    dim3 block(TILE_DIM, BLOCK_ROWS);
    transposeTiled<<<grid, block>>>(dOut, dIn, width, height);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hOut.data(), dOut, hOut.size() * sizeof(float), cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c)
            if (hOut[c * height + r] != hIn[r * width + c]) ++errors;

    // Dynamic shared memory reduction.
    const int n = 10000, threads = 128;
    const int blocks = (n + threads - 1) / threads;
    int *dData = nullptr, *dSums = nullptr;
    CHECK(cudaMalloc(&dData, n * sizeof(int)));
    CHECK(cudaMalloc(&dSums, blocks * sizeof(int)));
    std::vector<int> hData(n);
    long long expected = 0;
    for (int i = 0; i < n; ++i) { hData[i] = i % 13; expected += hData[i]; }
    CHECK(cudaMemcpy(dData, hData.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    blockSum<<<blocks, threads, threads * sizeof(int)>>>(dData, dSums, n);
    CHECK(cudaGetLastError());
    std::vector<int> hSums(blocks);
    CHECK(cudaMemcpy(hSums.data(), dSums, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    long long total = 0;
    for (int b = 0; b < blocks; ++b) total += hSums[b];
    if (total != expected) ++errors;

    CHECK(cudaFree(dIn));
    CHECK(cudaFree(dOut));
    CHECK(cudaFree(dData));
    CHECK(cudaFree(dSums));

    if (errors) {
        printf("FAILED: %d errors (sum %lld vs %lld)\n", errors, total, expected);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
