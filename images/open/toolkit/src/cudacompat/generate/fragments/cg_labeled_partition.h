/* fragment: CUDA's cg::labeled_partition of a coalesced group or a tile.
   with_partitions() and with_labeled_partition() append it after cg_partition_helpers.h
   (and cg_binary_partition.h). */
namespace cooperative_groups {
__CG_QUALIFIER__ coalesced_group labeled_partition(const coalesced_group& parent, int label) {
  return ::moatbridge_cg::alike(::moatbridge_cg::coalesced_access::members(parent), label);
}
template <unsigned int Size, class Parent>
__CG_QUALIFIER__ coalesced_group labeled_partition(const thread_block_tile<Size, Parent>&, int label) {
  return ::moatbridge_cg::alike(::moatbridge_cg::tile_members<Size>(), label);
}
}  // namespace cooperative_groups
