/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#include <hip/hip_fp16.h>
#if defined(__HIP__) && defined(__cplusplus)
/* CUDA 11's two-lane max/min of __half2 (HIP 5.7 has them for bfloat16 only) */
__device__ inline __half2 __hmax2(const __half2 a, const __half2 b) {
    return __halves2half2(__hmax(__low2half(a), __low2half(b)), __hmax(__high2half(a), __high2half(b)));
}
__device__ inline __half2 __hmin2(const __half2 a, const __half2 b) {
    return __halves2half2(__hmin(__low2half(a), __low2half(b)), __hmin(__high2half(a), __high2half(b)));
}
#endif
