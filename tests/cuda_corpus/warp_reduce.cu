// warp_reduce.cu
// Covers: warp-level intrinsics written against warpSize: __shfl_down_sync reduction,
// __shfl_xor_sync butterfly (all-reduce max), __ballot_sync + popcount vote,
// __activemask inside a divergent branch, and __syncwarp for a shared-memory exchange.
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

#define FULL_MASK 0xffffffff

__inline__ __device__ int warpReduceSum(int v)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

__inline__ __device__ int warpAllReduceMax(int v)
{
    for (int laneMask = warpSize / 2; laneMask > 0; laneMask /= 2)
        v = max(v, __shfl_xor_sync(FULL_MASK, v, laneMask));
    return v;
}

// blockDim.x must be a multiple of warpSize; n a multiple of blockDim.x.
__global__ void warpKernel(const int* in, int threshold, int* sum, int* maxVal,
                           int* countAbove, int* badActive, int* badExchange)
{
    __shared__ int warpSums[32];
    __shared__ int exchange[1024];
    const int lane = threadIdx.x % warpSize;
    const int warp = threadIdx.x / warpSize;
    const int v = in[blockIdx.x * blockDim.x + threadIdx.x];

    // Vote: how many lanes of this warp hold a value above the threshold.
    auto ballot = __ballot_sync(FULL_MASK, v > threshold);
    if (lane == 0) atomicAdd(countAbove, __popcll(ballot));

    // __activemask in a divergent branch: only the even lanes are active.
    if (lane % 2 == 0) {
        unsigned long long active = __activemask();
        // No odd lane may be reported active, and the calling lane must be.
        if ((active & 0xAAAAAAAAAAAAAAAAull) != 0 || ((active >> lane) & 1ull) == 0)
            atomicAdd(badActive, 1);
    }

    // Neighbour exchange through shared memory, ordered by __syncwarp.
    exchange[threadIdx.x] = v;
    __syncwarp();
    if (exchange[threadIdx.x ^ 1] != in[blockIdx.x * blockDim.x + (threadIdx.x ^ 1)])
        atomicAdd(badExchange, 1);

    // Max via butterfly: every lane ends with the warp maximum.
    int m = warpAllReduceMax(v);
    if (lane == 0) atomicMax(maxVal, m);

    // Sum: warp reduction, then first warp reduces the per-warp partials.
    int s = warpReduceSum(v);
    if (lane == 0) warpSums[warp] = s;
    __syncthreads();
    if (warp == 0) {
        int numWarps = blockDim.x / warpSize;
        s = (lane < numWarps) ? warpSums[lane] : 0;
        s = warpReduceSum(s);
        if (lane == 0) atomicAdd(sum, s);
    }
}

int main()
{
    const int threads = 256, blocks = 64, n = threads * blocks, threshold = 700;
    int* dIn = nullptr;
    CHECK(cudaMalloc(&dIn, n * sizeof(int)));
    int* dOut = nullptr;   // sum, max, countAbove, badActive, badExchange
    CHECK(cudaMalloc(&dOut, 5 * sizeof(int)));

    std::vector<int> h(n);
    long long expectedSum = 0;
    int expectedMax = 0, expectedCount = 0;
    for (int i = 0; i < n; ++i) {
        h[i] = (i * 37 + 11) % 1000;
        expectedSum += h[i];
        expectedMax = h[i] > expectedMax ? h[i] : expectedMax;
        expectedCount += h[i] > threshold;
    }
    CHECK(cudaMemcpy(dIn, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dOut, 0, 5 * sizeof(int)));

    warpKernel<<<blocks, threads>>>(dIn, threshold, dOut, dOut + 1, dOut + 2, dOut + 3, dOut + 4);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    int r[5];
    CHECK(cudaMemcpy(r, dOut, sizeof(r), cudaMemcpyDeviceToHost));
    printf("sum=%d (%lld) max=%d (%d) above=%d (%d) badActive=%d badExchange=%d\n",
           r[0], expectedSum, r[1], expectedMax, r[2], expectedCount, r[3], r[4]);

    CHECK(cudaFree(dIn));
    CHECK(cudaFree(dOut));

    if (r[0] != expectedSum || r[1] != expectedMax || r[2] != expectedCount || r[3] || r[4]) {
        printf("FAILED\n");
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
