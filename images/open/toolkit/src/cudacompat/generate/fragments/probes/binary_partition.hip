/* fragment: the probe of with_partitions(): cg::binary_partition of a tile and of a
   coalesced group. */
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  auto part = cg::binary_partition(tile, out[0] > 0);
  auto again = cg::binary_partition(cg::coalesced_threads(), out[1] > 0);
  out[0] = part.size() + again.size();
}
