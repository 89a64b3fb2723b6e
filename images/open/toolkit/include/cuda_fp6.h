/* moatbridge CUDA compatibility header (open flavour): CUDA's 6-bit floating-point types,
   E2M3 (largest 7.5) and E3M2 (largest 28), software types (moatbridge/minifloat.h). A pair
   takes a byte per value, the first in the low byte. */
#pragma once
#include <moatbridge/minifloat.h>

typedef __nv_fp8_storage_t __nv_fp6_storage_t;
typedef __nv_fp8x2_storage_t __nv_fp6x2_storage_t;
typedef __nv_fp8x4_storage_t __nv_fp6x4_storage_t;
typedef enum __nv_fp6_interpretation_t { __NV_E2M3, __NV_E3M2 } __nv_fp6_interpretation_t;

namespace moatbridge_minifloat {
__host__ __device__ constexpr Format fp6(__nv_fp6_interpretation_t kind) {
    return kind == __NV_E2M3 ? Format{2, 3} : Format{3, 2};
}
}  // namespace moatbridge_minifloat

__host__ __device__ inline __nv_fp6_storage_t __nv_cvt_double_to_fp6(const double x, const __nv_fp6_interpretation_t kind,
                                                                     const enum cudaRoundMode rounding) {
    return moatbridge_minifloat::encode(x, moatbridge_minifloat::fp6(kind), rounding);
}
__host__ __device__ inline __nv_fp6_storage_t __nv_cvt_float_to_fp6(const float x, const __nv_fp6_interpretation_t kind,
                                                                    const enum cudaRoundMode rounding) {
    return moatbridge_minifloat::encode(x, moatbridge_minifloat::fp6(kind), rounding);
}
__host__ __device__ inline __nv_fp6_storage_t __nv_cvt_halfraw_to_fp6(const __half_raw x, const __nv_fp6_interpretation_t kind,
                                                                      const enum cudaRoundMode rounding) {
    return __nv_cvt_float_to_fp6(moatbridge_minifloat::halfraw_to_float(x), kind, rounding);
}
__host__ __device__ inline __nv_fp6_storage_t __nv_cvt_bfloat16raw_to_fp6(const __nv_bfloat16_raw x,
                                                                          const __nv_fp6_interpretation_t kind,
                                                                          const enum cudaRoundMode rounding) {
    return __nv_cvt_float_to_fp6(moatbridge_minifloat::bfloat16raw_to_float(x), kind, rounding);
}
__host__ __device__ inline __nv_fp6x2_storage_t __nv_cvt_double2_to_fp6x2(const double2 x, const __nv_fp6_interpretation_t kind,
                                                                          const enum cudaRoundMode rounding) {
    return moatbridge_minifloat::pack<__nv_fp6x2_storage_t>(__nv_cvt_double_to_fp6(x.x, kind, rounding),
                                                            __nv_cvt_double_to_fp6(x.y, kind, rounding), 8);
}
__host__ __device__ inline __nv_fp6x2_storage_t __nv_cvt_float2_to_fp6x2(const float2 x, const __nv_fp6_interpretation_t kind,
                                                                         const enum cudaRoundMode rounding) {
    return moatbridge_minifloat::pack<__nv_fp6x2_storage_t>(__nv_cvt_float_to_fp6(x.x, kind, rounding),
                                                            __nv_cvt_float_to_fp6(x.y, kind, rounding), 8);
}
__host__ __device__ inline __nv_fp6x2_storage_t __nv_cvt_halfraw2_to_fp6x2(const __half2_raw x,
                                                                           const __nv_fp6_interpretation_t kind,
                                                                           const enum cudaRoundMode rounding) {
    __half_raw lo, hi;
    lo.x = x.x;
    hi.x = x.y;
    return moatbridge_minifloat::pack<__nv_fp6x2_storage_t>(__nv_cvt_halfraw_to_fp6(lo, kind, rounding),
                                                            __nv_cvt_halfraw_to_fp6(hi, kind, rounding), 8);
}
__host__ __device__ inline __nv_fp6x2_storage_t __nv_cvt_bfloat16raw2_to_fp6x2(const __nv_bfloat162_raw x,
                                                                               const __nv_fp6_interpretation_t kind,
                                                                               const enum cudaRoundMode rounding) {
    __nv_bfloat16_raw lo, hi;
    lo.x = x.x;
    hi.x = x.y;
    return moatbridge_minifloat::pack<__nv_fp6x2_storage_t>(__nv_cvt_bfloat16raw_to_fp6(lo, kind, rounding),
                                                            __nv_cvt_bfloat16raw_to_fp6(hi, kind, rounding), 8);
}
__host__ __device__ inline __half_raw __nv_cvt_fp6_to_halfraw(const __nv_fp6_storage_t x, const __nv_fp6_interpretation_t kind) {
    return moatbridge_minifloat::to_halfraw(x, moatbridge_minifloat::fp6(kind));
}
__host__ __device__ inline __half2_raw __nv_cvt_fp6x2_to_halfraw2(const __nv_fp6x2_storage_t x,
                                                                  const __nv_fp6_interpretation_t kind) {
    __half2_raw pair;
    pair.x = __nv_cvt_fp6_to_halfraw(static_cast<__nv_fp6_storage_t>(x & 0xFFu), kind).x;
    pair.y = __nv_cvt_fp6_to_halfraw(static_cast<__nv_fp6_storage_t>(x >> 8), kind).x;
    return pair;
}

struct __nv_fp6_e2m3 : moatbridge_minifloat::Scalar<2, 3, __nv_fp6_storage_t> {
    using moatbridge_minifloat::Scalar<2, 3, __nv_fp6_storage_t>::Scalar;
};
struct __nv_fp6_e3m2 : moatbridge_minifloat::Scalar<3, 2, __nv_fp6_storage_t> {
    using moatbridge_minifloat::Scalar<3, 2, __nv_fp6_storage_t>::Scalar;
};
struct __nv_fp6x2_e2m3 : moatbridge_minifloat::Pair<2, 3, __nv_fp6x2_storage_t, 8> {
    using moatbridge_minifloat::Pair<2, 3, __nv_fp6x2_storage_t, 8>::Pair;
};
struct __nv_fp6x2_e3m2 : moatbridge_minifloat::Pair<3, 2, __nv_fp6x2_storage_t, 8> {
    using moatbridge_minifloat::Pair<3, 2, __nv_fp6x2_storage_t, 8>::Pair;
};
struct __nv_fp6x4_e2m3 : moatbridge_minifloat::Quad<2, 3, __nv_fp6x4_storage_t, 8> {
    using moatbridge_minifloat::Quad<2, 3, __nv_fp6x4_storage_t, 8>::Quad;
};
struct __nv_fp6x4_e3m2 : moatbridge_minifloat::Quad<3, 2, __nv_fp6x4_storage_t, 8> {
    using moatbridge_minifloat::Quad<3, 2, __nv_fp6x4_storage_t, 8>::Quad;
};

#ifndef __CUDA_FP6_TYPES_EXIST__
#define __CUDA_FP6_TYPES_EXIST__
#endif
