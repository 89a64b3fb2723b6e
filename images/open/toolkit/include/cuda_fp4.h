/* moatbridge CUDA compatibility header (open flavour): CUDA's 4-bit floating-point type,
   E2M1 (largest 6), a software type (moatbridge/minifloat.h). A pair shares a byte, the
   first value in the low four bits; a quad, two bytes. */
#pragma once
#include <moatbridge/minifloat.h>
#include <cuda_fp6.h>

typedef __nv_fp8_storage_t __nv_fp4_storage_t;
typedef __nv_fp8_storage_t __nv_fp4x2_storage_t;
typedef __nv_fp8x2_storage_t __nv_fp4x4_storage_t;
typedef enum __nv_fp4_interpretation_t { __NV_E2M1 } __nv_fp4_interpretation_t;

namespace moatbridge_minifloat {
__host__ __device__ constexpr Format fp4(__nv_fp4_interpretation_t) { return Format{2, 1}; }
}  // namespace moatbridge_minifloat

__host__ __device__ inline __nv_fp4_storage_t __nv_cvt_double_to_fp4(const double x, const __nv_fp4_interpretation_t kind,
                                                                     const enum cudaRoundMode rounding) {
    return moatbridge_minifloat::encode(x, moatbridge_minifloat::fp4(kind), rounding);
}
__host__ __device__ inline __nv_fp4_storage_t __nv_cvt_float_to_fp4(const float x, const __nv_fp4_interpretation_t kind,
                                                                    const enum cudaRoundMode rounding) {
    return moatbridge_minifloat::encode(x, moatbridge_minifloat::fp4(kind), rounding);
}
__host__ __device__ inline __nv_fp4_storage_t __nv_cvt_halfraw_to_fp4(const __half_raw x, const __nv_fp4_interpretation_t kind,
                                                                      const enum cudaRoundMode rounding) {
    return __nv_cvt_float_to_fp4(moatbridge_minifloat::halfraw_to_float(x), kind, rounding);
}
__host__ __device__ inline __nv_fp4_storage_t __nv_cvt_bfloat16raw_to_fp4(const __nv_bfloat16_raw x,
                                                                          const __nv_fp4_interpretation_t kind,
                                                                          const enum cudaRoundMode rounding) {
    return __nv_cvt_float_to_fp4(moatbridge_minifloat::bfloat16raw_to_float(x), kind, rounding);
}
__host__ __device__ inline __nv_fp4x2_storage_t __nv_cvt_double2_to_fp4x2(const double2 x, const __nv_fp4_interpretation_t kind,
                                                                          const enum cudaRoundMode rounding) {
    return moatbridge_minifloat::pack<__nv_fp4x2_storage_t>(__nv_cvt_double_to_fp4(x.x, kind, rounding),
                                                            __nv_cvt_double_to_fp4(x.y, kind, rounding), 4);
}
__host__ __device__ inline __nv_fp4x2_storage_t __nv_cvt_float2_to_fp4x2(const float2 x, const __nv_fp4_interpretation_t kind,
                                                                         const enum cudaRoundMode rounding) {
    return moatbridge_minifloat::pack<__nv_fp4x2_storage_t>(__nv_cvt_float_to_fp4(x.x, kind, rounding),
                                                            __nv_cvt_float_to_fp4(x.y, kind, rounding), 4);
}
__host__ __device__ inline __nv_fp4x2_storage_t __nv_cvt_halfraw2_to_fp4x2(const __half2_raw x,
                                                                           const __nv_fp4_interpretation_t kind,
                                                                           const enum cudaRoundMode rounding) {
    __half_raw lo, hi;
    lo.x = x.x;
    hi.x = x.y;
    return moatbridge_minifloat::pack<__nv_fp4x2_storage_t>(__nv_cvt_halfraw_to_fp4(lo, kind, rounding),
                                                            __nv_cvt_halfraw_to_fp4(hi, kind, rounding), 4);
}
__host__ __device__ inline __nv_fp4x2_storage_t __nv_cvt_bfloat16raw2_to_fp4x2(const __nv_bfloat162_raw x,
                                                                               const __nv_fp4_interpretation_t kind,
                                                                               const enum cudaRoundMode rounding) {
    __nv_bfloat16_raw lo, hi;
    lo.x = x.x;
    hi.x = x.y;
    return moatbridge_minifloat::pack<__nv_fp4x2_storage_t>(__nv_cvt_bfloat16raw_to_fp4(lo, kind, rounding),
                                                            __nv_cvt_bfloat16raw_to_fp4(hi, kind, rounding), 4);
}
__host__ __device__ inline __half_raw __nv_cvt_fp4_to_halfraw(const __nv_fp4_storage_t x, const __nv_fp4_interpretation_t kind) {
    return moatbridge_minifloat::to_halfraw(x & 0xFu, moatbridge_minifloat::fp4(kind));
}
__host__ __device__ inline __half2_raw __nv_cvt_fp4x2_to_halfraw2(const __nv_fp4x2_storage_t x,
                                                                  const __nv_fp4_interpretation_t kind) {
    __half2_raw pair;
    pair.x = __nv_cvt_fp4_to_halfraw(static_cast<__nv_fp4_storage_t>(x & 0xFu), kind).x;
    pair.y = __nv_cvt_fp4_to_halfraw(static_cast<__nv_fp4_storage_t>(x >> 4), kind).x;
    return pair;
}

struct __nv_fp4_e2m1 : moatbridge_minifloat::Scalar<2, 1, __nv_fp4_storage_t> {
    using moatbridge_minifloat::Scalar<2, 1, __nv_fp4_storage_t>::Scalar;
};
struct __nv_fp4x2_e2m1 : moatbridge_minifloat::Pair<2, 1, __nv_fp4x2_storage_t, 4> {
    using moatbridge_minifloat::Pair<2, 1, __nv_fp4x2_storage_t, 4>::Pair;
};
struct __nv_fp4x4_e2m1 : moatbridge_minifloat::Quad<2, 1, __nv_fp4x4_storage_t, 4> {
    using moatbridge_minifloat::Quad<2, 1, __nv_fp4x4_storage_t, 4>::Quad;
};

#ifndef __CUDA_FP4_TYPES_EXIST__
#define __CUDA_FP4_TYPES_EXIST__
#endif
