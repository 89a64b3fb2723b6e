/* moatbridge CUDA compatibility header (open flavour): CUDA's 8-bit floating-point types.
   HIP 5.7 has none, so they are software types here: one byte of storage (`__x`) with
   round-to-nearest-even conversions to and from float, double, __half and bfloat16, and
   CUDA's __nv_cvt_* functions. E4M3 is the finite-only format (max 448, NaN 0x7F); E5M2 has
   infinities (max 57344). No FP8 arithmetic instructions are used. */
#pragma once
#include <moatbridge/runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short int __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

namespace moatbridge_fp8 {
/* exponent bits, mantissa bits, largest finite code, code of NaN */
struct Format {
    int exponent_bits, mantissa_bits;
    unsigned char max_finite, nan;
    bool has_infinity;
};
__host__ __device__ constexpr Format format(__nv_fp8_interpretation_t kind) {
    return kind == __NV_E4M3 ? Format{4, 3, 0x7E, 0x7F, false} : Format{5, 2, 0x7B, 0x7F, true};
}
__host__ __device__ inline float decode(unsigned char code, __nv_fp8_interpretation_t kind) {
    const Format f = format(kind);
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const float sign = (code & 0x80) ? -1.0f : 1.0f;
    const int exponent = (code >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
    const int mantissa = code & ((1 << f.mantissa_bits) - 1);
    if ((code & 0x7F) == f.nan || (f.has_infinity && exponent == (1 << f.exponent_bits) - 1 && mantissa != 0)) {
        return __builtin_nanf("");
    }
    if (f.has_infinity && exponent == (1 << f.exponent_bits) - 1) return sign * __builtin_huge_valf();
    if (exponent == 0) return sign * ldexpf((float)mantissa, 1 - bias - f.mantissa_bits);
    return sign * ldexpf(1.0f + (float)mantissa / (float)(1 << f.mantissa_bits), exponent - bias);
}
__host__ __device__ inline unsigned char encode(double x, __nv_saturation_t saturate, __nv_fp8_interpretation_t kind) {
    const Format f = format(kind);
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const unsigned char sign = __builtin_signbit(x) ? 0x80 : 0x00;
    /* NaN from a double keeps its sign, E5M2's with the quiet code 0x7E (NVIDIA's conversion);
       from float, half or bfloat16 it is 0x7F (narrow_nan below) */
    if (x != x) return (kind == __NV_E4M3 ? 0x7F : 0x7E) | sign;
    double a = x < 0 ? -x : x;
    const double largest = decode(f.max_finite, kind);
    const unsigned char overflow = (saturate == __NV_SATFINITE || !f.has_infinity)
                                       ? (saturate == __NV_SATFINITE ? f.max_finite : f.nan)
                                       : (unsigned char)(0x7C);
    if (a > largest) {
        /* up to half a step above the largest finite value rounds down to it; exactly half
           a step is a tie, resolved to the even mantissa (e4m3's 448 is even: it stays) */
        const double half_step = ldexp(1.0, (int)logb(largest) - f.mantissa_bits - 1);
        const bool largest_is_even = (f.max_finite & 1) == 0;
        if (a > largest + half_step || (a == largest + half_step && !largest_is_even)) return overflow | sign;
        return f.max_finite | sign;
    }
    int exponent = a > 0 ? (int)logb(a) : -bias;
    if (exponent < 1 - bias) exponent = 1 - bias; /* subnormal range: fixed scale */
    const double scaled = ldexp(a, f.mantissa_bits - exponent);
    double rounded = rint(scaled); /* round half to even */
    unsigned int code;
    if (exponent == 1 - bias && rounded < (double)(1 << f.mantissa_bits)) {
        code = (unsigned int)rounded; /* subnormal (or zero) */
    } else {
        if (rounded >= (double)(2 << f.mantissa_bits)) { /* rounded up into the next binade */
            rounded /= 2;
            exponent += 1;
        }
        code = ((unsigned int)(exponent + bias) << f.mantissa_bits) | ((unsigned int)rounded & ((1u << f.mantissa_bits) - 1));
    }
    if (code > f.max_finite) code = overflow;
    return (unsigned char)(code | sign);
}
/* from float, half or bfloat16: every NaN is 0x7F */
__host__ __device__ inline unsigned char encode_narrow(float x, __nv_saturation_t saturate, __nv_fp8_interpretation_t kind) {
    return x != x ? (unsigned char)0x7F : encode(x, saturate, kind);
}
}  // namespace moatbridge_fp8

__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t s, __nv_fp8_interpretation_t k) {
    return moatbridge_fp8::encode(x, s, k);
}
__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t s, __nv_fp8_interpretation_t k) {
    return moatbridge_fp8::encode_narrow(x, s, k);
}
__host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t s, __nv_fp8_interpretation_t k) {
    return (__nv_fp8x2_storage_t)(moatbridge_fp8::encode_narrow(x.x, s, k) | (moatbridge_fp8::encode_narrow(x.y, s, k) << 8));
}
__host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_double2_to_fp8x2(double2 x, __nv_saturation_t s, __nv_fp8_interpretation_t k) {
    return (__nv_fp8x2_storage_t)(moatbridge_fp8::encode(x.x, s, k) | (moatbridge_fp8::encode(x.y, s, k) << 8));
}
__host__ __device__ inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t k) {
    return static_cast<__half_raw>(__half(moatbridge_fp8::decode(x, k)));
}
__host__ __device__ inline __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t x, __nv_fp8_interpretation_t k) {
    __half2_raw pair;
    pair.x = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(x & 0xFFu), k).x;
    pair.y = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(x >> 8), k).x;
    return pair;
}
/* half and bfloat16 widen to float exactly: one rounding, as from float */
__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t s, __nv_fp8_interpretation_t k) {
    return moatbridge_fp8::encode_narrow(__half2float(__half(x)), s, k);
}
__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw x, __nv_saturation_t s,
                                                                          __nv_fp8_interpretation_t k) {
    return moatbridge_fp8::encode_narrow(__bfloat162float(__nv_bfloat16(x)), s, k);
}
__host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_halfraw2_to_fp8x2(__half2_raw x, __nv_saturation_t s,
                                                                           __nv_fp8_interpretation_t k) {
    __half_raw lo, hi;
    lo.x = x.x;
    hi.x = x.y;
    return (__nv_fp8x2_storage_t)(__nv_cvt_halfraw_to_fp8(lo, s, k) | (__nv_cvt_halfraw_to_fp8(hi, s, k) << 8));
}
__host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_bfloat16raw2_to_fp8x2(__nv_bfloat162_raw x, __nv_saturation_t s,
                                                                               __nv_fp8_interpretation_t k) {
    __nv_bfloat16_raw lo, hi;
    lo.x = x.x;
    hi.x = x.y;
    return (__nv_fp8x2_storage_t)(__nv_cvt_bfloat16raw_to_fp8(lo, s, k) | (__nv_cvt_bfloat16raw_to_fp8(hi, s, k) << 8));
}

namespace moatbridge_fp8 {
/* The one-byte value both CUDA FP8 classes are: saturating conversions in, exact ones out. */
template <__nv_fp8_interpretation_t Kind> struct Value {
    __nv_fp8_storage_t __x;
    Value() = default;
    __host__ __device__ explicit Value(float f) : __x(encode_narrow(f, __NV_SATFINITE, Kind)) {}
    __host__ __device__ explicit Value(double f) : __x(encode(f, __NV_SATFINITE, Kind)) {}
    __host__ __device__ explicit Value(__half h) : Value(__half2float(h)) {}
    __host__ __device__ explicit Value(__nv_bfloat16 h) : Value(__bfloat162float(h)) {}
    /* integers through float, as CUDA's */
    __host__ __device__ explicit Value(unsigned short int i) : Value(static_cast<float>(i)) {}
    __host__ __device__ explicit Value(unsigned int i) : Value(static_cast<float>(i)) {}
    __host__ __device__ explicit Value(unsigned long int i) : Value(static_cast<float>(i)) {}
    __host__ __device__ explicit Value(unsigned long long int i) : Value(static_cast<float>(i)) {}
    __host__ __device__ explicit Value(short int i) : Value(static_cast<float>(i)) {}
    __host__ __device__ explicit Value(int i) : Value(static_cast<float>(i)) {}
    __host__ __device__ explicit Value(long int i) : Value(static_cast<float>(i)) {}
    __host__ __device__ explicit Value(long long int i) : Value(static_cast<float>(i)) {}
    __host__ __device__ explicit operator float() const { return decode(__x, Kind); }
    __host__ __device__ explicit operator double() const { return decode(__x, Kind); }
    __host__ __device__ explicit operator __half() const { return __half(decode(__x, Kind)); }
    __host__ __device__ explicit operator __nv_bfloat16() const { return __float2bfloat16_rz(decode(__x, Kind)); }
};
}  // namespace moatbridge_fp8

struct __nv_fp8_e4m3 : moatbridge_fp8::Value<__NV_E4M3> {
    using moatbridge_fp8::Value<__NV_E4M3>::Value;
};
struct __nv_fp8_e5m2 : moatbridge_fp8::Value<__NV_E5M2> {
    using moatbridge_fp8::Value<__NV_E5M2>::Value;
};
struct __nv_fp8x2_e4m3 {
    __nv_fp8x2_storage_t __x;
};
struct __nv_fp8x2_e5m2 {
    __nv_fp8x2_storage_t __x;
};
struct __nv_fp8x4_e4m3 {
    __nv_fp8x4_storage_t __x;
};
struct __nv_fp8x4_e5m2 {
    __nv_fp8x4_storage_t __x;
};

/* CUDA 12.8's E8M0 scale factors */
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 12080
#include <moatbridge/fp8_e8m0.h>
#endif
