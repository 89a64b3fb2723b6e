/* moatbridge: the 4- and 6-bit floating-point formats of CUDA's cuda_fp4.h and cuda_fp6.h
   (E2M1; E2M3 and E3M2), as software types: AMD's RDNA GPUs have no such instructions.

   The formats have no infinity and no NaN. A conversion is exact rounding of the value (to
   nearest even, or toward zero), saturating to the largest finite value; NaN becomes the
   positive largest value, as in CUDA; the sign of zero is kept. A narrow value widens to
   __half exactly. The scalar, pair and quad classes are NVIDIA's (`__x` the storage; explicit
   constructors from the wider types and the integers, explicit conversions back), built on
   the templates below. */
#pragma once
#include <moatbridge/runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace moatbridge_minifloat {

struct Format {
    int exponent_bits, mantissa_bits;
};

__host__ __device__ constexpr unsigned int sign_bit(Format f) { return 1u << (f.exponent_bits + f.mantissa_bits); }
__host__ __device__ constexpr unsigned int magnitude_mask(Format f) { return sign_bit(f) - 1u; }

__host__ __device__ inline double decode(unsigned int code, Format f) {
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const int exponent = static_cast<int>((code & magnitude_mask(f)) >> f.mantissa_bits);
    const int mantissa = static_cast<int>(code & ((1u << f.mantissa_bits) - 1u));
    const double magnitude = exponent == 0
                                 ? ldexp(static_cast<double>(mantissa), 1 - bias - f.mantissa_bits)
                                 : ldexp(1.0 + static_cast<double>(mantissa) / (1 << f.mantissa_bits), exponent - bias);
    return (code & sign_bit(f)) ? -magnitude : magnitude;
}

__host__ __device__ inline unsigned char encode(double x, Format f, cudaRoundMode rounding) {
    const unsigned int largest = magnitude_mask(f);  // every exponent and mantissa bit set
    if (x != x) return static_cast<unsigned char>(largest);
    const unsigned int sign = __builtin_signbit(x) ? sign_bit(f) : 0u;
    const double a = x < 0 ? -x : x;
    if (a >= decode(largest, f)) return static_cast<unsigned char>(largest | sign);
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    int exponent = a > 0 ? ilogb(a) : 1 - bias;
    if (exponent < 1 - bias) exponent = 1 - bias;  // subnormal range: one fixed quantum
    const double scaled = ldexp(a, f.mantissa_bits - exponent);  // exact: a power-of-two scaling
    double rounded = rounding == cudaRoundZero ? trunc(scaled) : rint(scaled);  // rint: half to even
    unsigned int code;
    if (exponent == 1 - bias && rounded < static_cast<double>(1 << f.mantissa_bits)) {
        code = static_cast<unsigned int>(rounded);  // subnormal or zero
    } else {
        if (rounded >= static_cast<double>(2 << f.mantissa_bits)) {  // rounded into the next binade
            rounded /= 2;
            exponent += 1;
        }
        code = (static_cast<unsigned int>(exponent + bias) << f.mantissa_bits) |
               (static_cast<unsigned int>(rounded) & ((1u << f.mantissa_bits) - 1u));
    }
    if (code > largest) code = largest;
    return static_cast<unsigned char>(code | sign);
}

__host__ __device__ inline __half_raw to_halfraw(unsigned int code, Format f) {
    return static_cast<__half_raw>(__float2half(static_cast<float>(decode(code, f))));
}
__host__ __device__ inline float halfraw_to_float(__half_raw raw) { return __half2float(__half(raw)); }
__host__ __device__ inline float low_of(__half2 pair) {
    __half_raw lane;
    lane.x = static_cast<__half2_raw>(pair).x;
    return halfraw_to_float(lane);
}
__host__ __device__ inline float high_of(__half2 pair) {
    __half_raw lane;
    lane.x = static_cast<__half2_raw>(pair).y;
    return halfraw_to_float(lane);
}
__host__ __device__ inline float bfloat16raw_to_float(__nv_bfloat16_raw raw) {
    return __bfloat162float(__nv_bfloat16(raw));
}

/* Lanes of `bits` bits each, the first in the lowest bits. */
template <class Storage>
__host__ __device__ inline Storage pack(unsigned int lo, unsigned int hi, int bits) {
    return static_cast<Storage>(lo | (hi << bits));
}
__host__ __device__ inline unsigned int lane(unsigned int storage, int index, int bits) {
    return (storage >> (index * bits)) & ((1u << bits) - 1u);
}

/* E exponent and M mantissa bits; Bits: the width of one value's lane in a pair or quad. */
template <int E, int M, class Storage>
struct Scalar {
    __host__ __device__ static constexpr Format format() { return Format{E, M}; }
    Storage __x;
    Scalar() = default;
    __host__ __device__ explicit Scalar(const __half f) : __x(encode(__half2float(f), format(), cudaRoundNearest)) {}
    __host__ __device__ explicit Scalar(const __nv_bfloat16 f) : __x(encode(__bfloat162float(f), format(), cudaRoundNearest)) {}
    __host__ __device__ explicit Scalar(const float f) : __x(encode(f, format(), cudaRoundNearest)) {}
    __host__ __device__ explicit Scalar(const double f) : __x(encode(f, format(), cudaRoundNearest)) {}
    __host__ __device__ explicit Scalar(const unsigned short int v) : Scalar(static_cast<float>(v)) {}
    __host__ __device__ explicit Scalar(const unsigned int v) : Scalar(static_cast<float>(v)) {}
    __host__ __device__ explicit Scalar(const unsigned long int v) : Scalar(static_cast<float>(v)) {}
    __host__ __device__ explicit Scalar(const unsigned long long int v) : Scalar(static_cast<float>(v)) {}
    __host__ __device__ explicit Scalar(const short int v) : Scalar(static_cast<float>(v)) {}
    __host__ __device__ explicit Scalar(const int v) : Scalar(static_cast<float>(v)) {}
    __host__ __device__ explicit Scalar(const long int v) : Scalar(static_cast<float>(v)) {}
    __host__ __device__ explicit Scalar(const long long int v) : Scalar(static_cast<float>(v)) {}
    __host__ __device__ explicit operator __half() const { return __half(to_halfraw(__x, format())); }
    __host__ __device__ explicit operator float() const { return static_cast<float>(decode(__x, format())); }
    __host__ __device__ explicit operator double() const { return decode(__x, format()); }
    __host__ __device__ explicit operator __nv_bfloat16() const { return __float2bfloat16_rz(float(*this)); }
    /* every value is small and exact: toward zero, negative to zero for the unsigned types */
    __host__ __device__ explicit operator unsigned char() const { return static_cast<unsigned char>(unsigned_value()); }
    __host__ __device__ explicit operator unsigned short int() const { return static_cast<unsigned short int>(unsigned_value()); }
    __host__ __device__ explicit operator unsigned int() const { return static_cast<unsigned int>(unsigned_value()); }
    __host__ __device__ explicit operator unsigned long int() const { return static_cast<unsigned long int>(unsigned_value()); }
    __host__ __device__ explicit operator unsigned long long int() const { return unsigned_value(); }
    __host__ __device__ explicit operator signed char() const { return static_cast<signed char>(float(*this)); }
    __host__ __device__ explicit operator char() const {
        return static_cast<char>(static_cast<char>(-1) < 0 ? static_cast<int>(static_cast<signed char>(*this))
                                                             : static_cast<int>(static_cast<unsigned char>(*this)));
    }
    __host__ __device__ explicit operator short int() const { return static_cast<short int>(float(*this)); }
    __host__ __device__ explicit operator int() const { return static_cast<int>(float(*this)); }
    __host__ __device__ explicit operator long int() const { return static_cast<long int>(float(*this)); }
    __host__ __device__ explicit operator long long int() const { return static_cast<long long int>(float(*this)); }
    __host__ __device__ explicit operator bool() const { return (__x & magnitude_mask(format())) != 0u; }

  private:
    __host__ __device__ unsigned long long int unsigned_value() const {
        const float f = float(*this);
        return f < 0.0f ? 0ull : static_cast<unsigned long long int>(f);
    }
};

template <int E, int M, class Storage, int Bits>
struct Pair {
    __host__ __device__ static constexpr Format format() { return Format{E, M}; }
    Storage __x;
    Pair() = default;
    __host__ __device__ explicit Pair(const __half2 f) : __x(pack<Storage>(one(low_of(f)), one(high_of(f)), Bits)) {}
    __host__ __device__ explicit Pair(const __nv_bfloat162 f)
        : __x(pack<Storage>(one(__bfloat162float(f.x)), one(__bfloat162float(f.y)), Bits)) {}
    __host__ __device__ explicit Pair(const float2 f) : __x(pack<Storage>(one(f.x), one(f.y), Bits)) {}
    __host__ __device__ explicit Pair(const double2 f) : __x(pack<Storage>(one(f.x), one(f.y), Bits)) {}
    __host__ __device__ explicit operator __half2() const {
        __half2_raw pair;
        pair.x = to_halfraw(lane(__x, 0, Bits), format()).x;
        pair.y = to_halfraw(lane(__x, 1, Bits), format()).x;
        return __half2(pair);
    }
    __host__ __device__ explicit operator float2() const {
        return make_float2(static_cast<float>(decode(lane(__x, 0, Bits), format())),
                           static_cast<float>(decode(lane(__x, 1, Bits), format())));
    }

  private:
    __host__ __device__ static unsigned int one(double x) { return encode(x, format(), cudaRoundNearest); }
};

template <int E, int M, class Storage, int Bits>
struct Quad {
    __host__ __device__ static constexpr Format format() { return Format{E, M}; }
    Storage __x;
    Quad() = default;
    __host__ __device__ explicit Quad(const __half2 lo, const __half2 hi)
        : __x(four(low_of(lo), high_of(lo), low_of(hi), high_of(hi))) {}
    __host__ __device__ explicit Quad(const __nv_bfloat162 lo, const __nv_bfloat162 hi)
        : __x(four(__bfloat162float(lo.x), __bfloat162float(lo.y), __bfloat162float(hi.x), __bfloat162float(hi.y))) {}
    __host__ __device__ explicit Quad(const float4 f) : __x(four(f.x, f.y, f.z, f.w)) {}
    __host__ __device__ explicit Quad(const double4 f) : __x(four(f.x, f.y, f.z, f.w)) {}
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
    __host__ __device__ explicit Quad(const double4_16a f) : __x(four(f.x, f.y, f.z, f.w)) {}
    __host__ __device__ explicit Quad(const double4_32a f) : __x(four(f.x, f.y, f.z, f.w)) {}
#endif
    __host__ __device__ explicit operator float4() const {
        return make_float4(value(0), value(1), value(2), value(3));
    }

  private:
    __host__ __device__ static Storage four(double a, double b, double c, double d) {
        return static_cast<Storage>(encode(a, format(), cudaRoundNearest) | (encode(b, format(), cudaRoundNearest) << Bits) |
                                    (encode(c, format(), cudaRoundNearest) << (2 * Bits)) |
                                    (static_cast<unsigned int>(encode(d, format(), cudaRoundNearest)) << (3 * Bits)));
    }
    __host__ __device__ float value(int index) const { return static_cast<float>(decode(lane(__x, index, Bits), format())); }
};

}  // namespace moatbridge_minifloat
