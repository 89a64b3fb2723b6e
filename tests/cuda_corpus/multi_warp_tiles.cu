// multi_warp_tiles.cu
// Covers: cooperative groups tiles larger than a warp (CUDA 11.1+): cg::block_tile_memory and
// this_thread_block(scratch), tiled_partition<128> and <256> of a 512-thread block,
// thread_block_tile<N> with and without its parent type, thread_rank / num_threads /
// meta_group_rank / meta_group_size, tile.sync() and cg::sync(tile) ordering shared-memory
// writes, cg::reduce (plus, greater), cg::inclusive_scan / exclusive_scan, shfl, any / all.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

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

constexpr int kBlock = 512;
// Per thread: 0 sum, 1 max, 2 inclusive, 3 exclusive, 4 rank, 5 meta rank, 6 meta size,
// 7 neighbour (written before sync, read after), 8 shfl from rank 3, 9 any, 10 all
constexpr int kFields = 11;

template <unsigned int Size>
__device__ void exercise(cg::thread_block_tile<Size> tile, int value, int* out, int* stage) {
    const unsigned int rank = tile.thread_rank();
    out[0] = cg::reduce(tile, value, cg::plus<int>());
    out[1] = cg::reduce(tile, value, cg::greater<int>());
    out[2] = cg::inclusive_scan(tile, value);
    out[3] = cg::exclusive_scan(tile, value, cg::plus<int>());
    out[4] = static_cast<int>(rank + 1000 * tile.num_threads());
    out[5] = static_cast<int>(tile.meta_group_rank());
    out[6] = static_cast<int>(tile.meta_group_size());
    // every thread writes its slot, the tile syncs, and each reads the slot of the thread
    // half a tile away (usually in another warp)
    const unsigned int base = tile.meta_group_rank() * Size;
    stage[base + rank] = value * 3;
    tile.sync();
    out[7] = stage[base + (rank + Size / 2) % Size];
    cg::sync(tile);
    out[8] = tile.shfl(value, 3);
    out[9] = tile.any(value == 5);
    out[10] = tile.all(value >= 0);
}

template <unsigned int Size>
__global__ void tiles(const int* in, int* out) {
    __shared__ cg::block_tile_memory<kBlock> scratch;
    __shared__ int stage[kBlock];
    cg::thread_block block = cg::this_thread_block(scratch);
    auto tile = cg::tiled_partition<Size>(block);
    const unsigned int t = block.thread_rank();
    const int value = in[blockIdx.x * kBlock + t];
    int* mine = out + (blockIdx.x * kBlock + t) * kFields;
    exercise<Size>(tile, value, mine, stage);  // as thread_block_tile<Size>: the parent type erased
    block.sync();
}

template <unsigned int Size>
int verify(const std::vector<int>& in, const std::vector<int>& out, int blocks) {
    int errors = 0;
    for (int b = 0; b < blocks; ++b) {
        for (int t = 0; t < kBlock; ++t) {
            const int tile = t / Size, rank = t % Size, first = b * kBlock + tile * Size;
            int sum = 0, max = in[first], before = 0, any = 0, all = 1;
            for (int i = 0; i < static_cast<int>(Size); ++i) {
                const int v = in[first + i];
                sum += v;
                max = v > max ? v : max;
                if (i < rank) before += v;
                any |= v == 5;
                all &= v >= 0;
            }
            const int* got = &out[(b * kBlock + t) * kFields];
            const int want[kFields] = {sum, max, before + in[first + rank], rank == 0 ? 0 : before,
                                       rank + 1000 * static_cast<int>(Size), tile, kBlock / static_cast<int>(Size),
                                       3 * in[first + (rank + static_cast<int>(Size) / 2) % static_cast<int>(Size)],
                                       in[first + 3], any, all};
            for (int f = 0; f < kFields; ++f) {
                if (got[f] != want[f] && errors++ < 5) {
                    printf("tile %u block %d thread %d field %d: %d, expected %d\n", Size, b, t, f, got[f], want[f]);
                }
            }
        }
    }
    return errors;
}

template <unsigned int Size>
int run(const int* dIn, int* dOut, const std::vector<int>& in, int blocks) {
    std::vector<int> out(in.size() * kFields);
    CHECK(cudaMemset(dOut, 0xff, out.size() * sizeof(int)));
    tiles<Size><<<blocks, kBlock>>>(dIn, dOut);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dOut, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    return verify<Size>(in, out, blocks);
}

int main() {
    CHECK(cudaSetDevice(0));

    const int blocks = 4;
    std::vector<int> in(blocks * kBlock);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>((i * 7919) % 23);
    int *dIn = nullptr, *dOut = nullptr;
    CHECK(cudaMalloc(&dIn, in.size() * sizeof(int)));
    CHECK(cudaMalloc(&dOut, in.size() * kFields * sizeof(int)));
    CHECK(cudaMemcpy(dIn, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice));

    const int errors = run<128>(dIn, dOut, in, blocks) + run<256>(dIn, dOut, in, blocks);

    CHECK(cudaFree(dIn));
    CHECK(cudaFree(dOut));
    if (errors) {
        printf("FAILED (%d errors)\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
