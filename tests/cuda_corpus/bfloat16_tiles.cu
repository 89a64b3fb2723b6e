// bfloat16_tiles.cu
// Covers: cuda_bf16.h's __nv_bfloat16 as a class (implicit float conversions, arithmetic and
// comparison operators on __nv_bfloat16 and __nv_bfloat162, construction from int and double)
// and cooperative-groups tile shuffles of types that are neither integer nor float (uint4, a
// struct, __nv_bfloat162), as reductions in real code write them; cg::labeled_partition and
// cg::binary_partition of a tile (warp-aggregated atomics).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
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

struct MinMax {
    float lo;
    float hi;
    int count;
};

__device__ void accumulate(float& acc, const float v, const float u) { acc += v * u; }

// out[i] = x.x * x.y + 2 * y - 1, computed through bf16 operators and conversions.
__global__ void bf16Ops(const __nv_bfloat162* x, const __nv_bfloat16* y, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat162 pair = x[i];
    float acc = 0.0f;
    accumulate(acc, pair.x, pair.y);          // bf16 -> float, implicitly
    __nv_bfloat16 twice = y[i] + y[i];
    twice -= __nv_bfloat16(1);
    __nv_bfloat162 doubled = pair + pair;
    bool ordered = doubled.x >= pair.x || pair.x < __nv_bfloat16(0.0);
    out[i] = ordered ? acc + static_cast<float>(twice) : -1.0f;
}

// Warp-tile reduction of a struct and a vector type through tile.shfl_xor, and a bf16 pair
// passed down the tile.
__global__ void tileReduce(const float* in, MinMax* result, uint4* lanes, __nv_bfloat162* pairs)
{
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    float v = in[threadIdx.x];
    MinMax m = {v, v, 1};
    uint4 word = make_uint4(threadIdx.x, 2 * threadIdx.x, 3 * threadIdx.x, 4 * threadIdx.x);
    for (int offset = 16; offset > 0; offset /= 2) {
        MinMax other = tile.shfl_xor(m, offset);
        m.lo = fminf(m.lo, other.lo);
        m.hi = fmaxf(m.hi, other.hi);
        m.count += other.count;
    }
    uint4 neighbour = tile.shfl_down(word, 1);
    __nv_bfloat162 pair = __floats2bfloat162_rn(static_cast<float>(threadIdx.x), -0.5f * threadIdx.x);
    pairs[threadIdx.x] = tile.shfl_down(pair, 1);
    if (threadIdx.x == 0) *result = m;
    lanes[threadIdx.x] = neighbour;
}

// Per-label counts with one atomic per label group, and the size of the even-label group.
__global__ void partitionCounts(const int* labels, int* counts, int* evens)
{
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    int label = labels[threadIdx.x];
    cg::coalesced_group same = cg::labeled_partition(tile, label);
    if (same.thread_rank() == 0) atomicAdd(&counts[label], static_cast<int>(same.size()));
    cg::coalesced_group parity = cg::binary_partition(tile, label % 2 == 0);
    if (label % 2 == 0 && parity.thread_rank() == 0) atomicAdd(evens, static_cast<int>(parity.size()));
}

int main()
{
    int device_count = 0;
    CHECK(cudaGetDeviceCount(&device_count));

    const int n = 256;
    std::vector<__nv_bfloat162> x(n);
    std::vector<__nv_bfloat16> y(n);
    for (int i = 0; i < n; ++i) {
        x[i] = __floats2bfloat162_rn(0.5f * (i % 8), 2.0f);
        y[i] = __float2bfloat16(static_cast<float>(i % 16));
    }
    __nv_bfloat162* dx;
    __nv_bfloat16* dy;
    float* dout;
    CHECK(cudaMalloc(&dx, n * sizeof(*dx)));
    CHECK(cudaMalloc(&dy, n * sizeof(*dy)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(*dx), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y.data(), n * sizeof(*dy), cudaMemcpyHostToDevice));
    bf16Ops<<<(n + 127) / 128, 128>>>(dx, dy, dout, n);
    CHECK(cudaGetLastError());
    std::vector<float> out(n);
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        float expected = 0.5f * (i % 8) * 2.0f + 2.0f * (i % 16) - 1.0f;  // exact in bf16
        if (std::fabs(out[i] - expected) > 1e-6f) {
            fprintf(stderr, "bf16Ops[%d] = %g, expected %g\n", i, out[i], expected);
            return 1;
        }
    }

    std::vector<float> in(32);
    for (int i = 0; i < 32; ++i) in[i] = static_cast<float>((i * 7) % 32) - 10.0f;
    float* din;
    MinMax* dresult;
    uint4* dlanes;
    __nv_bfloat162* dpairs;
    CHECK(cudaMalloc(&dpairs, 32 * sizeof(__nv_bfloat162)));
    CHECK(cudaMalloc(&din, 32 * sizeof(float)));
    CHECK(cudaMalloc(&dresult, sizeof(MinMax)));
    CHECK(cudaMalloc(&dlanes, 32 * sizeof(uint4)));
    CHECK(cudaMemcpy(din, in.data(), 32 * sizeof(float), cudaMemcpyHostToDevice));
    tileReduce<<<1, 32>>>(din, dresult, dlanes, dpairs);
    CHECK(cudaGetLastError());
    MinMax result;
    std::vector<uint4> lanes(32);
    CHECK(cudaMemcpy(&result, dresult, sizeof(MinMax), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(lanes.data(), dlanes, 32 * sizeof(uint4), cudaMemcpyDeviceToHost));
    std::vector<__nv_bfloat162> pairs(32);
    CHECK(cudaMemcpy(pairs.data(), dpairs, 32 * sizeof(__nv_bfloat162), cudaMemcpyDeviceToHost));
    if (result.lo != -10.0f || result.hi != 21.0f || result.count != 32) {
        fprintf(stderr, "tile reduction: lo %g hi %g count %d\n", result.lo, result.hi, result.count);
        return 1;
    }
    for (unsigned i = 0; i < 31; ++i) {
        if (lanes[i].x != i + 1 || lanes[i].w != 4 * (i + 1)) {
            fprintf(stderr, "shfl_down of uint4 at lane %u: %u\n", i, lanes[i].x);
            return 1;
        }
        const float low = __low2float(pairs[i]), high = __high2float(pairs[i]);
        if (low != static_cast<float>(i + 1) || high != -0.5f * (i + 1)) {
            fprintf(stderr, "shfl_down of __nv_bfloat162 at lane %u: %g %g\n", i, low, high);
            return 1;
        }
    }
    std::vector<int> labels(32);
    for (int i = 0; i < 32; ++i) labels[i] = i % 5;
    int* dlabels;
    int* dcounts;
    CHECK(cudaMalloc(&dlabels, 32 * sizeof(int)));
    CHECK(cudaMalloc(&dcounts, 6 * sizeof(int)));
    CHECK(cudaMemcpy(dlabels, labels.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dcounts, 0, 6 * sizeof(int)));
    partitionCounts<<<1, 32>>>(dlabels, dcounts, dcounts + 5);
    CHECK(cudaGetLastError());
    int counts[6];
    CHECK(cudaMemcpy(counts, dcounts, 6 * sizeof(int), cudaMemcpyDeviceToHost));
    const int expected_counts[6] = {7, 7, 6, 6, 6, 19};  // i % 5 over 0..31; labels 0, 2, 4
    for (int k = 0; k < 6; ++k) {
        if (counts[k] != expected_counts[k]) {
            fprintf(stderr, "partition count %d = %d, expected %d\n", k, counts[k], expected_counts[k]);
            return 1;
        }
    }
    CHECK(cudaFree(dlabels));
    CHECK(cudaFree(dcounts));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dresult));
    CHECK(cudaFree(dlanes));
    CHECK(cudaFree(dpairs));
    printf("PASSED\n");
    return 0;
}
