/* fragment: the probe of with_unambiguous_tiles(): sync(), thread_rank(), size() and CUDA 12's
   num_threads() on a tile of a parent group. */
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(unsigned* out) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  tile.sync();
  out[0] = tile.thread_rank() + tile.size() + tile.num_threads();
}
