/* moatbridge: cooperative_groups::inclusive_scan / exclusive_scan (CUDA 11+), which HIP 5.7's
   cooperative groups lack: a Hillis-Steele scan over shfl_up, for tiles and coalesced groups (tiles larger than a
   wavefront: moatbridge/cg_multi_tile.h). */
#pragma once
#include <cooperative_groups/reduce.h>
#if defined(__HIP__) /* device compilers only, as cooperative_groups.h */

namespace cooperative_groups {

template <class Group, class Value, class Op,
          typename moatbridge_traits::enable_if<!::moatbridge_cg_multi::is_multi_tile<Group>::value, int>::type = 0>
__device__ moatbridge_traits::decay_t<Value> inclusive_scan(const Group& group, Value&& value, Op&& op) {
    using T = moatbridge_traits::decay_t<Value>;
    T running = value;
    const unsigned int count = moatbridge_detail::group_count(group);
    const unsigned int rank = moatbridge_detail::group_rank(group);
    for (unsigned int offset = 1; offset < count; offset *= 2) {
        T before = group.shfl_up(running, offset);
        if (rank >= offset) running = op(before, running);
    }
    return running;
}

template <class Group, class Value>
__device__ moatbridge_traits::decay_t<Value> inclusive_scan(const Group& group, Value&& value) {
    return inclusive_scan(group, static_cast<Value&&>(value), plus<moatbridge_traits::decay_t<Value>>());
}

template <class Group, class Value, class Op,
          typename moatbridge_traits::enable_if<!::moatbridge_cg_multi::is_multi_tile<Group>::value, int>::type = 0>
__device__ moatbridge_traits::decay_t<Value> exclusive_scan(const Group& group, Value&& value, Op&& op) {
    using T = moatbridge_traits::decay_t<Value>;
    T inclusive = inclusive_scan(group, static_cast<Value&&>(value), op);
    T before = group.shfl_up(inclusive, 1);
    return moatbridge_detail::group_rank(group) == 0 ? T() : before;
}

template <class Group, class Value>
__device__ moatbridge_traits::decay_t<Value> exclusive_scan(const Group& group, Value&& value) {
    return exclusive_scan(group, static_cast<Value&&>(value), plus<moatbridge_traits::decay_t<Value>>());
}

/* Tiles larger than a wavefront (moatbridge/cg_multi_tile.h): through shared memory. */
template <class Group, class Value, class Op,
          typename moatbridge_traits::enable_if<::moatbridge_cg_multi::is_multi_tile<Group>::value, int>::type = 0>
__device__ moatbridge_traits::decay_t<Value> inclusive_scan(const Group&, Value&& value, Op&& op) {
    return ::moatbridge_cg_multi::scan<true, Group::moatbridge_threads>(moatbridge_traits::decay_t<Value>(value), op);
}

template <class Group, class Value, class Op,
          typename moatbridge_traits::enable_if<::moatbridge_cg_multi::is_multi_tile<Group>::value, int>::type = 0>
__device__ moatbridge_traits::decay_t<Value> exclusive_scan(const Group&, Value&& value, Op&& op) {
    return ::moatbridge_cg_multi::scan<false, Group::moatbridge_threads>(moatbridge_traits::decay_t<Value>(value), op);
}

}  // namespace cooperative_groups
#endif
