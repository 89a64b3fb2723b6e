/* fragment: CUDA's cg::binary_partition of a coalesced group or a tile. with_partitions()
   appends it after cg_partition_helpers.h. */
namespace cooperative_groups {
__CG_QUALIFIER__ coalesced_group binary_partition(const coalesced_group& parent, bool pred) {
  return ::moatbridge_cg::alike(::moatbridge_cg::coalesced_access::members(parent), pred);
}
template <unsigned int Size, class Parent>
__CG_QUALIFIER__ coalesced_group binary_partition(const thread_block_tile<Size, Parent>&, bool pred) {
  return ::moatbridge_cg::alike(::moatbridge_cg::tile_members<Size>(), pred);
}
}  // namespace cooperative_groups
