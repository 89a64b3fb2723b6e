/* moatbridge: cooperative_groups::reduce and its operators (CUDA 11+), which HIP 5.7's
   cooperative groups lack. Works on every group with shfl/shfl_down (tiles and coalesced
   groups) of any size: a shuffle tree towards rank 0, then a broadcast; tiles larger than a
   wavefront have their own (moatbridge/cg_multi_tile.h). */
#pragma once
#include <cooperative_groups.h>
#include <moatbridge/traits.h>
#if defined(__HIP__) /* device compilers only, as cooperative_groups.h */

namespace cooperative_groups {

template <class T> struct plus {
    __device__ __host__ T operator()(const T& a, const T& b) const { return a + b; }
};
template <class T> struct less {  /* CUDA's cg::less picks the smaller value */
    __device__ __host__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T> struct greater {  /* ... and cg::greater the larger one */
    __device__ __host__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
    __device__ __host__ T operator()(const T& a, const T& b) const { return a & b; }
};
template <class T> struct bit_or {
    __device__ __host__ T operator()(const T& a, const T& b) const { return a | b; }
};
template <class T> struct bit_xor {
    __device__ __host__ T operator()(const T& a, const T& b) const { return a ^ b; }
};

namespace moatbridge_detail {
/* HIP 5.7's tiles inherit size() and thread_rank() from two bases (ambiguous): ask the tile
   type itself, and every other group its members. */
template <unsigned int Size, class Parent>
__device__ inline unsigned int group_count(const thread_block_tile<Size, Parent>&) { return Size; }
template <unsigned int Size, class Parent>
__device__ inline unsigned int group_rank(const thread_block_tile<Size, Parent>&) {
    return this_thread_block().thread_rank() & (Size - 1);
}
template <class Group> __device__ inline unsigned int group_count(const Group& group) { return group.size(); }
template <class Group> __device__ inline unsigned int group_rank(const Group& group) { return group.thread_rank(); }
}  // namespace moatbridge_detail

template <class Group, class Value, class Op,
          typename moatbridge_traits::enable_if<!::moatbridge_cg_multi::is_multi_tile<Group>::value, int>::type = 0>
__device__ moatbridge_traits::decay_t<Value> reduce(const Group& group, Value&& value, Op&& op) {
    using T = moatbridge_traits::decay_t<Value>;
    T partial = value;
    const unsigned int count = moatbridge_detail::group_count(group);
    const unsigned int rank = moatbridge_detail::group_rank(group);
    for (unsigned int offset = 1; offset < count; offset *= 2) {
        T other = group.shfl_down(partial, offset);
        if (rank + offset < count) partial = op(partial, other);
    }
    return group.shfl(partial, 0);
}

/* Tiles larger than a wavefront (moatbridge/cg_multi_tile.h): through shared memory. */
template <class Group, class Value, class Op,
          typename moatbridge_traits::enable_if<::moatbridge_cg_multi::is_multi_tile<Group>::value, int>::type = 0>
__device__ moatbridge_traits::decay_t<Value> reduce(const Group&, Value&& value, Op&& op) {
    return ::moatbridge_cg_multi::reduce<Group::moatbridge_threads>(moatbridge_traits::decay_t<Value>(value), op);
}

}  // namespace cooperative_groups
#endif
