/* moatbridge: CUDA 12.8's E8M0 scale factor (cuda_fp8.h), a software type: eight exponent
   bits, no sign and no mantissa. Code c is 2^(c - 127), 0xFF is NaN. Conversions read the
   exponent of the value rounded to bfloat16 (toward zero, or up for cudaRoundPosInf, which
   the classes use); __NV_SATFINITE turns an overflow or infinity into the largest code, 0xFE.
   A double first narrows to float rounding toward zero with a sticky bit, so that no second
   rounding reaches a power of two the double did not. Included by cuda_fp8.h. */
#pragma once

namespace moatbridge_e8m0 {

__host__ __device__ inline unsigned int float_bits(float f) {
    unsigned int u;
    __builtin_memcpy(&u, &f, sizeof u);
    return u;
}
__host__ __device__ inline float bits_float(unsigned int u) {
    float f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
}

__host__ __device__ inline unsigned char from_bfloat16_bits(unsigned short b, __nv_saturation_t saturate,
                                                             cudaRoundMode rounding) {
    const unsigned int magnitude = b & 0x7FFFu;
    unsigned int code = (b >> 7) & 0xFFu;  // the exponent: the power of two at or below
    // up to the next power when bits are lost, for finite values above the smallest code
    if (rounding == cudaRoundPosInf && (b & 0x7Fu) != 0u && magnitude > 0x0040u && magnitude < 0x7F80u) code += 1u;
    if (saturate == __NV_SATFINITE && magnitude <= 0x7F80u && code == 0xFFu) code = 0xFEu;
    return static_cast<unsigned char>(code);
}

/* float to bfloat16 bits toward zero, or up (of a magnitude); NaN to the canonical NaN */
__host__ __device__ inline unsigned short bfloat16_bits(float x, bool up) {
    const unsigned int u = float_bits(x);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FFFu;
    if (up && u < 0x7F800000u && (u & 0xFFFFu) != 0u) return static_cast<unsigned short>((u >> 16) + 1u);
    return static_cast<unsigned short>(u >> 16);
}

__host__ __device__ inline unsigned char from_float(float x, __nv_saturation_t saturate, cudaRoundMode rounding) {
    if (rounding == cudaRoundZero) return from_bfloat16_bits(bfloat16_bits(x, false), saturate, rounding);
    const float magnitude = bits_float(float_bits(x) & 0x7FFFFFFFu);
    return from_bfloat16_bits(bfloat16_bits(magnitude, true), saturate, cudaRoundPosInf);
}

/* the float nearest x toward zero, its last bit set when x was not exact */
__host__ __device__ inline float narrow_with_sticky(double x) {
    const float f = static_cast<float>(x);
    const double back = static_cast<double>(f);
    unsigned int u = float_bits(f);
    const bool is_nan = (u << 1) > 0xFF000000u;
    if ((x > 0.0 && back > x) || (x < 0.0 && back < x)) u -= 1u;
    if (back != x && !is_nan) u |= 1u;
    return bits_float(u);
}

__host__ __device__ inline unsigned short to_bfloat16_bits(unsigned char code) {
    if (code == 0xFFu) return 0x7FFFu;
    if (code == 0u) return 0x0040u;  // 2^-127, a bfloat16 subnormal
    return static_cast<unsigned short>(code << 7);
}

/* the smallest power of two at or above a magnitude, as a code (integers are exact) */
__host__ __device__ inline unsigned char ceiling_of(unsigned long long magnitude) {
    if (magnitude == 0ull) return 0u;
    int power = 63 - __builtin_clzll(magnitude);
    if ((magnitude & (magnitude - 1ull)) != 0ull) power += 1;
    return static_cast<unsigned char>(127 + power);
}

/* toward zero, saturating; NaN is 0, or the lowest 64-bit value, as CUDA's conversions give */
template <class Integer>
__host__ __device__ inline Integer saturated(float value, Integer lowest, Integer highest) {
    if (value != value) return sizeof(Integer) == 8 ? static_cast<Integer>(1ull << 63) : 0;
    if (value >= static_cast<float>(highest)) return highest;
    if (value <= static_cast<float>(lowest)) return lowest;
    return static_cast<Integer>(value);
}

__host__ __device__ inline float2 floats_of(__half2 pair) {
    const __half2_raw raw = static_cast<__half2_raw>(pair);
    __half_raw lo, hi;
    lo.x = raw.x;
    hi.x = raw.y;
    return make_float2(__half2float(__half(lo)), __half2float(__half(hi)));
}

}  // namespace moatbridge_e8m0

__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_e8m0(const __nv_bfloat16_raw x, const __nv_saturation_t saturate,
                                                                           const enum cudaRoundMode rounding) {
    return moatbridge_e8m0::from_bfloat16_bits(x.x, saturate, rounding);
}
__host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_bfloat162raw_to_e8m0x2(const __nv_bfloat162_raw x,
                                                                                const __nv_saturation_t saturate,
                                                                                const enum cudaRoundMode rounding) {
    return static_cast<__nv_fp8x2_storage_t>(moatbridge_e8m0::from_bfloat16_bits(x.x, saturate, rounding) |
                                             (moatbridge_e8m0::from_bfloat16_bits(x.y, saturate, rounding) << 8));
}
__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_float_to_e8m0(const float x, const __nv_saturation_t saturate,
                                                                     const enum cudaRoundMode rounding) {
    return moatbridge_e8m0::from_float(x, saturate, rounding);
}
__host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_float2_to_e8m0x2(const float2 x, const __nv_saturation_t saturate,
                                                                          const enum cudaRoundMode rounding) {
    return static_cast<__nv_fp8x2_storage_t>(moatbridge_e8m0::from_float(x.x, saturate, rounding) |
                                             (moatbridge_e8m0::from_float(x.y, saturate, rounding) << 8));
}
__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_double_to_e8m0(const double x, const __nv_saturation_t saturate,
                                                                      const enum cudaRoundMode rounding) {
    return moatbridge_e8m0::from_float(moatbridge_e8m0::narrow_with_sticky(x), saturate, rounding);
}
__host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_double2_to_e8m0x2(const double2 x, const __nv_saturation_t saturate,
                                                                           const enum cudaRoundMode rounding) {
    return static_cast<__nv_fp8x2_storage_t>(__nv_cvt_double_to_e8m0(x.x, saturate, rounding) |
                                             (__nv_cvt_double_to_e8m0(x.y, saturate, rounding) << 8));
}
__host__ __device__ inline __nv_bfloat16_raw __nv_cvt_e8m0_to_bf16raw(const __nv_fp8_storage_t x) {
    __nv_bfloat16_raw raw;
    raw.x = moatbridge_e8m0::to_bfloat16_bits(x);
    return raw;
}
__host__ __device__ inline __nv_bfloat162_raw __nv_cvt_e8m0x2_to_bf162raw(const __nv_fp8x2_storage_t x) {
    __nv_bfloat162_raw raw;
    raw.x = moatbridge_e8m0::to_bfloat16_bits(static_cast<__nv_fp8_storage_t>(x & 0xFFu));
    raw.y = moatbridge_e8m0::to_bfloat16_bits(static_cast<__nv_fp8_storage_t>(x >> 8));
    return raw;
}

/* Scale factors are made rounding up (a scale never too small), saturating. */
struct __nv_fp8_e8m0 {
    __nv_fp8_storage_t __x;
    __nv_fp8_e8m0() = default;
    __host__ __device__ explicit __nv_fp8_e8m0(const __half f)
        : __x(__nv_cvt_float_to_e8m0(__half2float(f), __NV_SATFINITE, cudaRoundPosInf)) {}
    __host__ __device__ explicit __nv_fp8_e8m0(const __nv_bfloat16 f)
        : __x(__nv_cvt_bfloat16raw_to_e8m0(static_cast<__nv_bfloat16_raw>(f), __NV_SATFINITE, cudaRoundPosInf)) {}
    __host__ __device__ explicit __nv_fp8_e8m0(const float f) : __x(__nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf)) {}
    __host__ __device__ explicit __nv_fp8_e8m0(const double f) : __x(__nv_cvt_double_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf)) {}
    __host__ __device__ explicit __nv_fp8_e8m0(const unsigned short int v) : __x(moatbridge_e8m0::ceiling_of(v)) {}
    __host__ __device__ explicit __nv_fp8_e8m0(const unsigned int v) : __x(moatbridge_e8m0::ceiling_of(v)) {}
    __host__ __device__ explicit __nv_fp8_e8m0(const unsigned long int v) : __x(moatbridge_e8m0::ceiling_of(v)) {}
    __host__ __device__ explicit __nv_fp8_e8m0(const unsigned long long int v) : __x(moatbridge_e8m0::ceiling_of(v)) {}
    __host__ __device__ explicit __nv_fp8_e8m0(const short int v) : __x(moatbridge_e8m0::ceiling_of(magnitude(v))) {}
    __host__ __device__ explicit __nv_fp8_e8m0(const int v) : __x(moatbridge_e8m0::ceiling_of(magnitude(v))) {}
    __host__ __device__ explicit __nv_fp8_e8m0(const long int v) : __x(moatbridge_e8m0::ceiling_of(magnitude(v))) {}
    __host__ __device__ explicit __nv_fp8_e8m0(const long long int v) : __x(moatbridge_e8m0::ceiling_of(magnitude(v))) {}
    __host__ __device__ explicit operator float() const {
        return __bfloat162float(__nv_bfloat16(__nv_cvt_e8m0_to_bf16raw(__x)));
    }
    __host__ __device__ explicit operator __nv_bfloat16() const { return __nv_bfloat16(__nv_cvt_e8m0_to_bf16raw(__x)); }
    __host__ __device__ explicit operator double() const { return static_cast<double>(float(*this)); }
    __host__ __device__ explicit operator __half() const {
        __half_raw nan;
        nan.x = 0x7FFFu;
        return __x == 0xFFu ? __half(nan) : __float2half(float(*this));
    }
    __host__ __device__ explicit operator unsigned char() const { return small<unsigned char>(0xFF); }
    __host__ __device__ explicit operator signed char() const { return small<signed char>(0x7F); }
    __host__ __device__ explicit operator char() const {
        return static_cast<char>(-1) < 0 ? static_cast<char>(static_cast<signed char>(*this))
                                         : static_cast<char>(static_cast<unsigned char>(*this));
    }
    __host__ __device__ explicit operator unsigned short int() const {
        return moatbridge_e8m0::saturated<unsigned short int>(float(*this), 0, 0xFFFF);
    }
    __host__ __device__ explicit operator unsigned int() const {
        return moatbridge_e8m0::saturated<unsigned int>(float(*this), 0u, 0xFFFFFFFFu);
    }
    __host__ __device__ explicit operator unsigned long int() const {
        return moatbridge_e8m0::saturated<unsigned long int>(float(*this), 0ul, ~0ul);
    }
    __host__ __device__ explicit operator unsigned long long int() const {
        return moatbridge_e8m0::saturated<unsigned long long int>(float(*this), 0ull, ~0ull);
    }
    __host__ __device__ explicit operator short int() const {
        return moatbridge_e8m0::saturated<short int>(float(*this), -32768, 32767);
    }
    __host__ __device__ explicit operator int() const {
        return moatbridge_e8m0::saturated<int>(float(*this), -2147483647 - 1, 2147483647);
    }
    __host__ __device__ explicit operator long int() const {
        return moatbridge_e8m0::saturated<long int>(float(*this), -9223372036854775807L - 1, 9223372036854775807L);
    }
    __host__ __device__ explicit operator long long int() const {
        return moatbridge_e8m0::saturated<long long int>(float(*this), -9223372036854775807LL - 1, 9223372036854775807LL);
    }
    __host__ __device__ explicit operator bool() const { return true; }  // no code is zero

  private:
    template <class Integer>
    __host__ __device__ static unsigned long long int magnitude(Integer v) {
        return v < 0 ? 0ull - static_cast<unsigned long long int>(v) : static_cast<unsigned long long int>(v);
    }
    template <class Small>
    __host__ __device__ Small small(int highest) const {
        const float f = float(*this);
        if (__x == 0xFFu) return 0;
        return f > static_cast<float>(highest) ? static_cast<Small>(highest) : static_cast<Small>(f);
    }
};

struct __nv_fp8x2_e8m0 {
    __nv_fp8x2_storage_t __x;
    __nv_fp8x2_e8m0() = default;
    __host__ __device__ explicit __nv_fp8x2_e8m0(const __half2 f)
        : __x(__nv_cvt_float2_to_e8m0x2(moatbridge_e8m0::floats_of(f), __NV_SATFINITE, cudaRoundPosInf)) {}
    __host__ __device__ explicit __nv_fp8x2_e8m0(const __nv_bfloat162 f)
        : __x(__nv_cvt_bfloat162raw_to_e8m0x2(static_cast<__nv_bfloat162_raw>(f), __NV_SATFINITE, cudaRoundPosInf)) {}
    __host__ __device__ explicit __nv_fp8x2_e8m0(const float2 f)
        : __x(__nv_cvt_float2_to_e8m0x2(f, __NV_SATFINITE, cudaRoundPosInf)) {}
    __host__ __device__ explicit __nv_fp8x2_e8m0(const double2 f)
        : __x(__nv_cvt_double2_to_e8m0x2(f, __NV_SATFINITE, cudaRoundPosInf)) {}
    __host__ __device__ explicit operator __nv_bfloat162() const {
        return __nv_bfloat162(__nv_cvt_e8m0x2_to_bf162raw(__x));
    }
    __host__ __device__ explicit operator float2() const {
        const __nv_bfloat162_raw raw = __nv_cvt_e8m0x2_to_bf162raw(__x);
        __nv_bfloat16_raw lo, hi;
        lo.x = raw.x;
        hi.x = raw.y;
        return make_float2(__bfloat162float(__nv_bfloat16(lo)), __bfloat162float(__nv_bfloat16(hi)));
    }
    __host__ __device__ explicit operator __half2() const {
        const float2 f = static_cast<float2>(*this);
        __half2_raw pair;
        pair.x = static_cast<__half_raw>(__float2half(f.x)).x;
        pair.y = static_cast<__half_raw>(__float2half(f.y)).x;
        return __half2(pair);
    }
};

struct __nv_fp8x4_e8m0 {
    __nv_fp8x4_storage_t __x;
    __nv_fp8x4_e8m0() = default;
    __host__ __device__ explicit __nv_fp8x4_e8m0(const __half2 lo, const __half2 hi)
        : __x(join(__nv_fp8x2_e8m0(lo).__x, __nv_fp8x2_e8m0(hi).__x)) {}
    __host__ __device__ explicit __nv_fp8x4_e8m0(const __nv_bfloat162 lo, const __nv_bfloat162 hi)
        : __x(join(__nv_fp8x2_e8m0(lo).__x, __nv_fp8x2_e8m0(hi).__x)) {}
    __host__ __device__ explicit __nv_fp8x4_e8m0(const float4 f)
        : __x(join(__nv_fp8x2_e8m0(make_float2(f.x, f.y)).__x, __nv_fp8x2_e8m0(make_float2(f.z, f.w)).__x)) {}
    __host__ __device__ explicit __nv_fp8x4_e8m0(const double4 f)
        : __x(join(__nv_fp8x2_e8m0(make_double2(f.x, f.y)).__x, __nv_fp8x2_e8m0(make_double2(f.z, f.w)).__x)) {}
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
    __host__ __device__ explicit __nv_fp8x4_e8m0(const double4_16a f)
        : __x(join(__nv_fp8x2_e8m0(make_double2(f.x, f.y)).__x, __nv_fp8x2_e8m0(make_double2(f.z, f.w)).__x)) {}
    __host__ __device__ explicit __nv_fp8x4_e8m0(const double4_32a f)
        : __x(join(__nv_fp8x2_e8m0(make_double2(f.x, f.y)).__x, __nv_fp8x2_e8m0(make_double2(f.z, f.w)).__x)) {}
#endif
    __host__ __device__ explicit operator float4() const {
        __nv_fp8x2_e8m0 lo, hi;
        lo.__x = static_cast<__nv_fp8x2_storage_t>(__x);
        hi.__x = static_cast<__nv_fp8x2_storage_t>(__x >> 16);
        const float2 a = static_cast<float2>(lo), b = static_cast<float2>(hi);
        return make_float4(a.x, a.y, b.x, b.y);
    }

  private:
    __host__ __device__ static __nv_fp8x4_storage_t join(__nv_fp8x2_storage_t lo, __nv_fp8x2_storage_t hi) {
        return static_cast<__nv_fp8x4_storage_t>(lo) | (static_cast<__nv_fp8x4_storage_t>(hi) << 16);
    }
};
