// intrinsics_cg_reduce.cu
// Covers: CUDA 11/12 device intrinsics written as for NVIDIA: __dp4a, the SIMD-in-a-word
// "video" intrinsics (__vadd4, __vabsdiffu4, __vcmpgtu2, __vsadu4), __reduce_add_sync,
// __match_any_sync, rounding-mode arithmetic (__fadd_rd/__fadd_ru, __fmul_rd/__fmul_ru), __nanosleep,
// __ldlu/__stcg cache hints, and cooperative_groups::reduce / inclusive_scan on a tile.
#include <cstdio>
#include <cstdlib>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

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

struct Results {
    int dp4a;
    unsigned vadd4, vabsdiffu4, vcmpgtu2, vsadu4;
    unsigned warpSum, sameAsLaneZero;
    int roundingOrdered;
    int tileSum, tileScanLast;
};

__global__ void intrinsics(Results* out)
{
    const int lane = threadIdx.x % 16;
    __nanosleep(100);
    auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    int tileSum = cg::reduce(tile, lane + 1, cg::plus<int>());
    int scanned = cg::inclusive_scan(tile, 1, cg::plus<int>());
    unsigned warpSum = __reduce_add_sync(0xffffffffu, 1u);
    auto same = __match_any_sync(0xffffffffu, threadIdx.x / 64);
    // Every lane takes part: a shuffle from a lane outside the branch below is undefined.
    int scanLast = __shfl_sync(0xffffffffu, scanned, 15);
    if (threadIdx.x == 0) {
        Results r;
        r.dp4a = __dp4a(0x01020304, 0x01010101, 10);              // 1+2+3+4+10
        r.vadd4 = __vadd4(0x01020304u, 0x10101010u);             // 0x11121314
        r.vabsdiffu4 = __vabsdiffu4(0x0a000510u, 0x050a0001u);   // 0x050a050f
        r.vcmpgtu2 = __vcmpgtu2(0x00050001u, 0x00010005u);       // 0xffff0000
        r.vsadu4 = __vsadu4(0x01020304u, 0x04030201u);           // 3+1+1+3
        float down = __fadd_rd(1.0f, 1e-8f), up = __fadd_ru(1.0f, 1e-8f);
        r.roundingOrdered = down == 1.0f && up > 1.0f && __fmul_rd(3.0f, 1.0f / 3.0f) == 1.0f &&
                            __fmul_ru(3.0f, 1.0f / 3.0f) > 1.0f;
        r.warpSum = warpSum;
        r.sameAsLaneZero = (unsigned)(same & 1u);
        r.tileSum = tileSum;
        r.tileScanLast = scanLast;
        int value = __ldlu(&r.dp4a);
        __stcg(&out->dp4a, value);
        out->vadd4 = r.vadd4; out->vabsdiffu4 = r.vabsdiffu4; out->vcmpgtu2 = r.vcmpgtu2;
        out->vsadu4 = r.vsadu4; out->roundingOrdered = r.roundingOrdered; out->warpSum = r.warpSum;
        out->sameAsLaneZero = r.sameAsLaneZero; out->tileSum = r.tileSum;
        out->tileScanLast = r.tileScanLast;
    }
}

int main()
{
    Results* d = nullptr;
    CHECK(cudaMalloc(&d, sizeof(Results)));
    intrinsics<<<1, 64>>>(d);
    CHECK(cudaGetLastError());
    Results r;
    CHECK(cudaMemcpy(&r, d, sizeof r, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    int warp = 0;
    CHECK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0));
    bool ok = r.dp4a == 20 && r.vadd4 == 0x11121314u && r.vabsdiffu4 == 0x050a050fu &&
              r.vcmpgtu2 == 0xffff0000u && r.vsadu4 == 8u && r.roundingOrdered == 1 &&
              r.warpSum == (unsigned)warp && r.sameAsLaneZero == 1u && r.tileSum == 136 &&
              r.tileScanLast == 16;
    if (!ok) {
        printf("FAILED: dp4a %d vadd4 %x absdiff %x cmpgt %x sad %u rounding %d warp %u/%d match %u tile %d scan %d\n",
               r.dp4a, r.vadd4, r.vabsdiffu4, r.vcmpgtu2, r.vsadu4, r.roundingOrdered, r.warpSum, warp,
               r.sameAsLaneZero, r.tileSum, r.tileScanLast);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
