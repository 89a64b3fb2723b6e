/* moatbridge: cooperative_groups::inclusive_scan / exclusive_scan (CUDA 11+), which HIP 5.7's
   cooperative groups lack: a Hillis-Steele scan over shfl_up, for tiles and coalesced groups. */
#pragma once
#include <cooperative_groups/reduce.h>

namespace cooperative_groups {

template <class Group, class Value, class Op>
__device__ std::decay_t<Value> inclusive_scan(const Group& group, Value&& value, Op&& op) {
    using T = std::decay_t<Value>;
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
__device__ std::decay_t<Value> inclusive_scan(const Group& group, Value&& value) {
    return inclusive_scan(group, static_cast<Value&&>(value), plus<std::decay_t<Value>>());
}

template <class Group, class Value, class Op>
__device__ std::decay_t<Value> exclusive_scan(const Group& group, Value&& value, Op&& op) {
    using T = std::decay_t<Value>;
    T inclusive = inclusive_scan(group, static_cast<Value&&>(value), op);
    T before = group.shfl_up(inclusive, 1);
    return moatbridge_detail::group_rank(group) == 0 ? T() : before;
}

template <class Group, class Value>
__device__ std::decay_t<Value> exclusive_scan(const Group& group, Value&& value) {
    return exclusive_scan(group, static_cast<Value&&>(value), plus<std::decay_t<Value>>());
}

}  // namespace cooperative_groups
