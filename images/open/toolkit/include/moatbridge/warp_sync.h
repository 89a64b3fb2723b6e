/* moatbridge: CUDA 9+ warp intrinsics HIP 5.7 lacks (__shfl_*_sync, __ballot_sync, __activemask,
   __syncwarp). AMD wavefronts have no independent thread scheduling, so the mask is only
   a statement about which lanes take part; all lanes of the wavefront execute in lockstep.
   Warp size is the hardware's: 32 lanes on RDNA (gfx10/11), 64 on GCN/CDNA (gfx9), and
   `warpSize` says which. Lane masks are 64-bit on wave64 targets. */
#pragma once
#if defined(__HIP__) && !defined(MOATBRIDGE_NO_WARP_SYNC)
/* (clang 22 no longer defines __AMDGCN_WAVEFRONT_SIZE: 64 bits then, which holds either size) */
#if defined(__HIP_DEVICE_COMPILE__) && (!defined(__AMDGCN_WAVEFRONT_SIZE) || __AMDGCN_WAVEFRONT_SIZE == 64)
typedef unsigned long long moatbridge_lanemask_t;
#else
typedef unsigned int moatbridge_lanemask_t;
#endif

template <class T>
__device__ inline T __shfl_sync(unsigned long long mask, T var, int src_lane, int width = warpSize) {
    (void)mask;
    return __shfl(var, src_lane, width);
}
template <class T>
__device__ inline T __shfl_up_sync(unsigned long long mask, T var, unsigned int delta, int width = warpSize) {
    (void)mask;
    return __shfl_up(var, delta, width);
}
template <class T>
__device__ inline T __shfl_down_sync(unsigned long long mask, T var, unsigned int delta, int width = warpSize) {
    (void)mask;
    return __shfl_down(var, delta, width);
}
template <class T>
__device__ inline T __shfl_xor_sync(unsigned long long mask, T var, int lane_mask, int width = warpSize) {
    (void)mask;
    return __shfl_xor(var, lane_mask, width);
}
__device__ inline moatbridge_lanemask_t __ballot_sync(unsigned long long mask, int predicate) {
    (void)mask;
    return static_cast<moatbridge_lanemask_t>(__ballot(predicate));
}
__device__ inline int __any_sync(unsigned long long mask, int predicate) {
    (void)mask;
    return __any(predicate);
}
__device__ inline int __all_sync(unsigned long long mask, int predicate) {
    (void)mask;
    return __all(predicate);
}
__device__ inline moatbridge_lanemask_t __activemask() {
    return static_cast<moatbridge_lanemask_t>(__ballot(1));
}
__device__ inline void __syncwarp(unsigned long long mask = ~0ull) {
    (void)mask;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
#endif
