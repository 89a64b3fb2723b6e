/* fragment: what cg::binary_partition and cg::labeled_partition build on: the lanes of
   the parent that voted alike, as a coalesced group. _with_partitions() appends it after the
   last `}  // namespace cooperative_groups` of amd_hip_cooperative_groups.h. */
#ifdef __AMDGCN_WAVEFRONT_SIZE
#define MOATBRIDGE_CG_WAVEFRONT_SIZE __AMDGCN_WAVEFRONT_SIZE
#else /* clang 22 has no such macro: HIP 7's warpSize object converts to the wave's size */
#define MOATBRIDGE_CG_WAVEFRONT_SIZE static_cast<int>(warpSize)
#endif
namespace moatbridge_cg {  /* moatbridge: cg::binary_partition and cg::labeled_partition */
using mask_t = ::lane_mask;
struct coalesced_access {
  __CG_STATIC_QUALIFIER__ cooperative_groups::coalesced_group make(mask_t members) {
    return cooperative_groups::coalesced_group(members);
  }
  __CG_STATIC_QUALIFIER__ mask_t members(const cooperative_groups::coalesced_group& g) {
    return g.coalesced_info.member_mask;
  }
};
template <unsigned int Size> __CG_QUALIFIER__ mask_t tile_members() {
  const mask_t all = ~static_cast<mask_t>(0);
  return (all >> (sizeof(all) * 8 - Size)) << (__lane_id() & ~(Size - 1));
}
__CG_QUALIFIER__ cooperative_groups::coalesced_group alike(mask_t members, bool pred) {
  const mask_t yes = static_cast<mask_t>(__ballot(pred));
  return coalesced_access::make(members & (pred ? yes : ~yes));
}
__CG_QUALIFIER__ cooperative_groups::coalesced_group alike(mask_t members, int label) {
  mask_t same = 0;
  for (int lane = 0; lane < MOATBRIDGE_CG_WAVEFRONT_SIZE; ++lane) {  /* uniform: every member shuffles */
    const int theirs = __shfl(label, lane, MOATBRIDGE_CG_WAVEFRONT_SIZE);
    if (((members >> lane) & 1) && theirs == label) same |= mask_t(1) << lane;
  }
  return coalesced_access::make(same);
}
}  // namespace moatbridge_cg
