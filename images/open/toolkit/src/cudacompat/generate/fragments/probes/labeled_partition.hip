/* fragment: the probe of with_labeled_partition(): cg::labeled_partition of a tile and
   of a coalesced group. */
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  auto part = cg::labeled_partition(tile, out[0]);
  auto again = cg::labeled_partition(cg::coalesced_threads(), out[1]);
  out[0] = part.size() + again.size();
}
