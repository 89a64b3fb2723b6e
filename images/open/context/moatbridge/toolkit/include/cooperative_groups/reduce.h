/* moatbridge: cooperative_groups::reduce and its operators (CUDA 11+), which HIP 5.7's
   cooperative groups lack. Works on every group with shfl/shfl_down (tiles and coalesced
   groups) of any size: a shuffle tree towards rank 0, then a broadcast. */
#pragma once
#include <cooperative_groups.h>
#include <type_traits>

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

template <class Group, class Value, class Op>
__device__ std::decay_t<Value> reduce(const Group& group, Value&& value, Op&& op) {
    using T = std::decay_t<Value>;
    T partial = value;
    const unsigned int count = group.size();
    const unsigned int rank = group.thread_rank();
    for (unsigned int offset = 1; offset < count; offset *= 2) {
        T other = group.shfl_down(partial, offset);
        if (rank + offset < count) partial = op(partial, other);
    }
    return group.shfl(partial, 0);
}

}  // namespace cooperative_groups
