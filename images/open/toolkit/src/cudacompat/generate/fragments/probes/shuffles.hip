/* fragment: the probe of with_shuffles_of_any_type(): tile shuffles of a uint4, of a struct
   and of the bfloat16 pair. */
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;
struct pair { int a; float b; };
__global__ void k(uint4* out, pair* p, __hip_bfloat162* h) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  out[0] = tile.shfl_xor(out[0], 1);
  p[0] = tile.shfl(p[0], 0);
  h[0] = tile.shfl_down(h[0], 1);
}
