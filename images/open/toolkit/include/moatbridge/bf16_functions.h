/* moatbridge: the cuda_bf16.h functions HIP 5.7's bf16 header lacks (directed-rounding and
   integer conversions, _rn/_sat/_relu arithmetic, NaN-propagating min/max, comparison masks,
   __hcmadd) and CUDA's __nv_bfloat16_raw/__nv_bfloat162_raw. Included by cuda_bf16.h after
   HIP's header (or bf16_host.h, in a host compiler that is not clang).
   What CUDA declares __host__ __device__ is host-callable here too (also from a host-only
   g++ compile); what CUDA declares __device__ exists only when compiling HIP.
   Results are CUDA's to the bit: NaN results are the canonical 0x7fff, as NVIDIA's
   conversions give, where HIP's __float2bfloat16 keeps a NaN's payload. */
#pragma once
#define MOATBRIDGE_BF16_FUNCTIONS_H 1
#include <moatbridge/climits.h>
#include <moatbridge/traits.h>

#if defined(__HIP__)
#define MOATBRIDGE_BF16_MEMBER __host__ __device__
#define MOATBRIDGE_BF16_HOSTDEVICE static __host__ __device__ inline
#define MOATBRIDGE_BF16_DEVICE static __device__ inline
#else
#define MOATBRIDGE_BF16_MEMBER
#define MOATBRIDGE_BF16_HOSTDEVICE static inline
#endif

/* The bits of a __hip_bfloat16, and one from bits: the shadowed class of HIP 5.7 (written only
   where the generator's bfloat16_class probe found HIP's a plain struct) keeps them in `data`
   with a constexpr bits constructor; HIP 6's own class and a host compiler's (bf16_host.h)
   convert to and from their raw type. */
#if __has_include(<moatbridge/shadow/hip/amd_detail/amd_hip_bf16.h>) && !defined(MOATBRIDGE_BF16_HOST_H)
#define MOATBRIDGE_BF16_BITS(h) ((h).data)
#define MOATBRIDGE_BF16_FROM_BITS(bits) __hip_bfloat16(moatbridge_bf16_bits(), (bits))
#define MOATBRIDGE_BF16_CONSTEXPR constexpr
#elif defined(MOATBRIDGE_BF16_HOST_H)
#define MOATBRIDGE_BF16_BITS(h) (static_cast<__hip_bfloat16_raw>(h).x)
#define MOATBRIDGE_BF16_FROM_BITS(bits) __hip_bfloat16(__hip_bfloat16_raw{static_cast<unsigned short>(bits)})
#define MOATBRIDGE_BF16_CONSTEXPR constexpr
#else
#define MOATBRIDGE_BF16_BITS(h) (static_cast<__hip_bfloat16_raw>(h).x)
#define MOATBRIDGE_BF16_FROM_BITS(bits) __hip_bfloat16(__hip_bfloat16_raw{static_cast<unsigned short>(bits)})
#define MOATBRIDGE_BF16_CONSTEXPR
#endif

/* HIP 7's bf16 header declares some of CUDA's functions itself (integer -> bf16 and the _rn
   arithmetic); CUDA's semantics (bit-exact, host-callable) stay ours, under our names. */
#if HIP_VERSION_MAJOR >= 7
#define __int2bfloat16_rn moatbridge_int2bfloat16_rn
#define __hadd_rn moatbridge_hadd_rn
#define __hsub_rn moatbridge_hsub_rn
#define __hmul_rn moatbridge_hmul_rn
#define __hadd2_rn moatbridge_hadd2_rn
#define __hsub2_rn moatbridge_hsub2_rn
#define __hmul2_rn moatbridge_hmul2_rn
#endif

/* --- raw storage types ------------------------------------------------------------------ */
/* CUDA's are aggregates converted by __nv_bfloat16's members; __hip_bfloat16 is HIP's class,
   so the conversions live here: constructors from the bf16 types and conversion operators
   back. The unsigned short constructor keeps `__nv_bfloat16_raw r = {0x3f80};` working; the
   deleted floating one keeps `r = 1.5f` an error, as it is with CUDA, not a truncation. */
struct __nv_bfloat16_raw {
    unsigned short x;
    __nv_bfloat16_raw() = default;
    MOATBRIDGE_BF16_MEMBER constexpr __nv_bfloat16_raw(unsigned short bits) : x(bits) {}
    MOATBRIDGE_BF16_MEMBER MOATBRIDGE_BF16_CONSTEXPR __nv_bfloat16_raw(const __hip_bfloat16& h) : x(MOATBRIDGE_BF16_BITS(h)) {}
#if defined(MOATBRIDGE_BF16_HOST_H)
    __nv_bfloat16_raw(const volatile __hip_bfloat16& h) : x(static_cast<__hip_bfloat16_raw>(h).x) {}
#endif
    template <class T, typename moatbridge_traits::enable_if<moatbridge_traits::is_floating_point<T>::value, int>::type = 0>
    __nv_bfloat16_raw(T) = delete;
    MOATBRIDGE_BF16_MEMBER MOATBRIDGE_BF16_CONSTEXPR operator __hip_bfloat16() const { return MOATBRIDGE_BF16_FROM_BITS(x); }
};
struct alignas(4) __nv_bfloat162_raw {
    unsigned short x;
    unsigned short y;
    __nv_bfloat162_raw() = default;
    MOATBRIDGE_BF16_MEMBER constexpr __nv_bfloat162_raw(unsigned short low, unsigned short high) : x(low), y(high) {}
    MOATBRIDGE_BF16_MEMBER MOATBRIDGE_BF16_CONSTEXPR __nv_bfloat162_raw(const __hip_bfloat162& h) : x(MOATBRIDGE_BF16_BITS(h.x)), y(MOATBRIDGE_BF16_BITS(h.y)) {}
    MOATBRIDGE_BF16_MEMBER MOATBRIDGE_BF16_CONSTEXPR operator __hip_bfloat162() const {
        return __hip_bfloat162(MOATBRIDGE_BF16_FROM_BITS(x), MOATBRIDGE_BF16_FROM_BITS(y));
    }
};

/* --- helpers ---------------------------------------------------------------------------- */
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat16 moatbridge_bf16_make(unsigned short bits) {
    return MOATBRIDGE_BF16_FROM_BITS(bits);
}
MOATBRIDGE_BF16_HOSTDEVICE unsigned int moatbridge_bf16_float_bits(float f) {
    unsigned int u;
    __builtin_memcpy(&u, &f, sizeof u);
    return u;
}
MOATBRIDGE_BF16_HOSTDEVICE bool moatbridge_bf16_isnan(const __hip_bfloat16 h) { return (MOATBRIDGE_BF16_BITS(h) & 0x7fffu) > 0x7f80u; }

/* float -> bf16 bits in each rounding mode, on the bits: keep the high half, then step the
   magnitude up by one ulp when the mode says so (stepping past 0x7f7f gives infinity, past a
   subnormal's top the next exponent: the encoding is monotonic) */
#define MOATBRIDGE_BF16_ROUNDING(mode, step_up)                                                \
    MOATBRIDGE_BF16_HOSTDEVICE unsigned short moatbridge_bf16_round_##mode(const float f) {              \
        const unsigned int u = moatbridge_bf16_float_bits(f), rest = u & 0xffffu;                \
        (void)rest;                                                                              \
        if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;                                     \
        return (unsigned short)((u >> 16) + ((step_up) ? 1u : 0u));                              \
    }
MOATBRIDGE_BF16_ROUNDING(rn, rest > 0x8000u || (rest == 0x8000u && (u & 0x10000u)))
MOATBRIDGE_BF16_ROUNDING(rz, false)
MOATBRIDGE_BF16_ROUNDING(rd, rest != 0u && (u >> 31))
MOATBRIDGE_BF16_ROUNDING(ru, rest != 0u && !(u >> 31))
#undef MOATBRIDGE_BF16_ROUNDING

/* An integer as a float rounded to odd: its top 24 bits, the lowest one set if any bit below
   was dropped. Rounding that once more to bf16's 8 bits, in any mode, rounds the integer
   itself correctly (24 >= 8 + 2); a plain int -> float conversion would round twice. */
MOATBRIDGE_BF16_HOSTDEVICE float moatbridge_bf16_odd(unsigned long long m) {
    if (m < (1ull << 24)) return (float)m;
    const int dropped = 40 - __builtin_clzll(m);
    const unsigned long long kept = (m >> dropped) | ((m & ((1ull << dropped) - 1)) != 0);
    return (float)kept * (float)(1ull << dropped);  // both exact, and so is the product
}
MOATBRIDGE_BF16_HOSTDEVICE float moatbridge_bf16_odd(long long i) {
    return i < 0 ? -moatbridge_bf16_odd(0ull - (unsigned long long)i) : moatbridge_bf16_odd((unsigned long long)i);
}

/* [0, 1] saturation, as CUDA's _sat: NaN and -0 become +0. Decided on the bits (positive
   bf16s order as their encodings), like every NaN test here: nvcc --use_fast_math compiles
   device code with -ffast-math, which folds float NaN tests away. */
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat16 moatbridge_bf16_sat(const __hip_bfloat16 h) {
    return (MOATBRIDGE_BF16_BITS(h) & 0x8000u) || moatbridge_bf16_isnan(h) ? moatbridge_bf16_make(0u)
           : MOATBRIDGE_BF16_BITS(h) > 0x3f80u                             ? moatbridge_bf16_make(0x3f80u)
                                                          : h;
}

/* a*b + c rounded once to bf16. The float fma rounds the exact a*b + c once; rounding that
   again to bf16 is right unless the float result is exactly a bf16 tie the exact value was
   rounded onto: 1.0625 * 1.0625 + 2^-60 gives the tie 1.12890625 in float, which goes to even
   (1.125) where the exact value rounds up (1.1328125). HIP's __hfma rounds twice like that.
   Then the sign of the exact residual decides: from double (the product of two bf16s is exact
   there, never underflowing, and TwoSum gives the sum's rounding error exactly). */
MOATBRIDGE_BF16_HOSTDEVICE unsigned short moatbridge_bf16_fma_rn(const __hip_bfloat16 a, const __hip_bfloat16 b,
                                                        const __hip_bfloat16 c) {
#if defined(__clang__)
#pragma clang fp reassociate(off)  // the TwoSum below, under -ffast-math
#endif
    const float fa = __bfloat162float(a), fb = __bfloat162float(b), fc = __bfloat162float(c);
    const float r = __builtin_fmaf(fa, fb, fc);
    const unsigned int u = moatbridge_bf16_float_bits(r);
    if ((u & 0xffffu) != 0x8000u || (u & 0x7f800000u) == 0x7f800000u) return moatbridge_bf16_round_rn(r);
    const double p = (double)fa * (double)fb, s = p + fc;
    double residual = s - r;  // s, the exact value's nearest double, is on its side of r
    if (s == (double)r) {
        const double pc = s - p;
        residual = (p - (s - pc)) + (fc - pc);
    }
    if (residual == 0.0) return moatbridge_bf16_round_rn(r);
    /* up in magnitude when the exact value is further from zero than the tie */
    return (unsigned short)((u >> 16) + ((residual > 0.0) == !(u >> 31) ? 1u : 0u));
}

/* CUDA's named values */
#ifndef CUDART_INF_BF16
#define CUDART_INF_BF16 moatbridge_bf16_make(0x7f80u)
#define CUDART_NAN_BF16 moatbridge_bf16_make(0x7fffu)
#define CUDART_MIN_DENORM_BF16 moatbridge_bf16_make(0x0001u)
#define CUDART_MAX_NORMAL_BF16 moatbridge_bf16_make(0x7f7fu)
#define CUDART_NEG_ZERO_BF16 moatbridge_bf16_make(0x8000u)
#define CUDART_ZERO_BF16 moatbridge_bf16_make(0x0000u)
#define CUDART_ONE_BF16 moatbridge_bf16_make(0x3f80u)
#endif

/* --- float -> bf16 ---------------------------------------------------------------------- */
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat16 __float2bfloat16_rn(const float a) { return moatbridge_bf16_make(moatbridge_bf16_round_rn(a)); }
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat16 __float2bfloat16_rz(const float a) { return moatbridge_bf16_make(moatbridge_bf16_round_rz(a)); }
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat16 __float2bfloat16_rd(const float a) { return moatbridge_bf16_make(moatbridge_bf16_round_rd(a)); }
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat16 __float2bfloat16_ru(const float a) { return moatbridge_bf16_make(moatbridge_bf16_round_ru(a)); }
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat162 __float2bfloat162_rn(const float a) {
    return __hip_bfloat162(__float2bfloat16_rn(a), __float2bfloat16_rn(a));
}
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat162 __floats2bfloat162_rn(const float a, const float b) {
    return __hip_bfloat162(__float2bfloat16_rn(a), __float2bfloat16_rn(b));
}
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat162 make_bfloat162(const __hip_bfloat16 x, const __hip_bfloat16 y) {
    return __hip_bfloat162(x, y);
}

/* --- bf16 <-> integers ------------------------------------------------------------------ */
/* bf16 -> integer: round in float (every bf16 is one), then saturate; NaN gives 0, or
   0x8000000000000000 for the 64-bit types, as CUDA documents */
#define MOATBRIDGE_BF16_TO_INT(decl, name, type, lo, hi, nan, round)                             \
    decl type name(const __hip_bfloat16 h) {                                                     \
        if (moatbridge_bf16_isnan(h)) return (type)(nan);                                        \
        const float f = round(__bfloat162float(h));                                              \
        return f <= (float)(lo) ? (type)(lo) : f >= (float)(hi) ? (type)(hi) : (type)f;          \
    }
/* integer -> bf16: rounded to odd in float, then to bf16 in the mode */
#define MOATBRIDGE_BF16_FROM_INT(decl, name, type, wide, mode)                                   \
    decl __hip_bfloat16 name(const type i) {                                                     \
        return moatbridge_bf16_make(moatbridge_bf16_round_##mode(moatbridge_bf16_odd((wide)i))); \
    }
/* CUDA's integer types: name in the function names, type, the type converted through,
   range, and what NaN converts to */
#define MOATBRIDGE_BF16_INTEGER_TYPES(X)                                                         \
    X(short, short int, long long, SHRT_MIN, SHRT_MAX, 0)                                        \
    X(ushort, unsigned short int, unsigned long long, 0, USHRT_MAX, 0)                           \
    X(int, int, long long, INT_MIN, INT_MAX, 0)                                                  \
    X(uint, unsigned int, unsigned long long, 0, UINT_MAX, 0)                                    \
    X(ll, long long int, long long, LLONG_MIN, LLONG_MAX, LLONG_MIN)                             \
    X(ull, unsigned long long int, unsigned long long, 0, ULLONG_MAX, 0x8000000000000000ull)
/* CUDA has _rz bf16 -> integer and _rn integer -> bf16 on the host as well */
#define MOATBRIDGE_BF16_INTEGER_HD(to, type, wide, lo, hi, nan)                                  \
    MOATBRIDGE_BF16_TO_INT(MOATBRIDGE_BF16_HOSTDEVICE, __bfloat162##to##_rz, type, lo, hi, nan, __builtin_truncf) \
    MOATBRIDGE_BF16_FROM_INT(MOATBRIDGE_BF16_HOSTDEVICE, __##to##2bfloat16_rn, type, wide, rn)
MOATBRIDGE_BF16_INTEGER_TYPES(MOATBRIDGE_BF16_INTEGER_HD)
MOATBRIDGE_BF16_TO_INT(MOATBRIDGE_BF16_HOSTDEVICE, __bfloat162char_rz, signed char, SCHAR_MIN, SCHAR_MAX, 0, __builtin_truncf)
MOATBRIDGE_BF16_TO_INT(MOATBRIDGE_BF16_HOSTDEVICE, __bfloat162uchar_rz, unsigned char, 0, UCHAR_MAX, 0, __builtin_truncf)
#undef MOATBRIDGE_BF16_INTEGER_HD

/* --- arithmetic ------------------------------------------------------------------------- */
/* In float, rounded once to bf16: the sum or product of two bf16s rounded to float and then
   to bf16 is the correctly rounded result (24 >= 2*8 + 2 bits). The float result only goes
   through the rounding's bit operations, so it cannot be contracted into an fma (_rn's
   promise). */
#define MOATBRIDGE_BF16_ARITHMETIC(name, op)                                                     \
    MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat16 __h##name##_rn(const __hip_bfloat16 a, const __hip_bfloat16 b) { \
        return moatbridge_bf16_make(moatbridge_bf16_round_rn(__bfloat162float(a) op __bfloat162float(b))); \
    }                                                                                            \
    MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat16 __h##name##_sat(const __hip_bfloat16 a, const __hip_bfloat16 b) { \
        return moatbridge_bf16_sat(__h##name##_rn(a, b));                                        \
    }                                                                                            \
    MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat162 __h##name##2_rn(const __hip_bfloat162 a, const __hip_bfloat162 b) { \
        return __hip_bfloat162(__h##name##_rn(a.x, b.x), __h##name##_rn(a.y, b.y));              \
    }                                                                                            \
    MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat162 __h##name##2_sat(const __hip_bfloat162 a, const __hip_bfloat162 b) { \
        return __hip_bfloat162(__h##name##_sat(a.x, b.x), __h##name##_sat(a.y, b.y));            \
    }
MOATBRIDGE_BF16_ARITHMETIC(add, +)
MOATBRIDGE_BF16_ARITHMETIC(sub, -)
MOATBRIDGE_BF16_ARITHMETIC(mul, *)
#undef MOATBRIDGE_BF16_ARITHMETIC

/* NaN-propagating min/max: canonical NaN if either is NaN; +0 counts as greater than -0 */
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat16 __hmax_nan(const __hip_bfloat16 a, const __hip_bfloat16 b) {
    if (moatbridge_bf16_isnan(a) || moatbridge_bf16_isnan(b)) return moatbridge_bf16_make(0x7fffu);
    const float fa = __bfloat162float(a), fb = __bfloat162float(b);
    return fa > fb ? a : fb > fa ? b : (MOATBRIDGE_BF16_BITS(a) & 0x8000u) ? b : a;
}
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat16 __hmin_nan(const __hip_bfloat16 a, const __hip_bfloat16 b) {
    if (moatbridge_bf16_isnan(a) || moatbridge_bf16_isnan(b)) return moatbridge_bf16_make(0x7fffu);
    const float fa = __bfloat162float(a), fb = __bfloat162float(b);
    return fa < fb ? a : fb < fa ? b : (MOATBRIDGE_BF16_BITS(a) & 0x8000u) ? a : b;
}
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat162 __hmax2_nan(const __hip_bfloat162 a, const __hip_bfloat162 b) {
    return __hip_bfloat162(__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y));
}
MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat162 __hmin2_nan(const __hip_bfloat162 a, const __hip_bfloat162 b) {
    return __hip_bfloat162(__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y));
}

/* --- comparisons ------------------------------------------------------------------------ */
/* _mask: 0xffff per true lane; the unordered (u) tests are true when either is NaN. HIP has
   the ordered bfloat162-valued ones (__heq2, ...), not the unordered. */
#define MOATBRIDGE_BF16_MASK(name, test)                                                         \
    MOATBRIDGE_BF16_HOSTDEVICE bool moatbridge_bf16_##name(const __hip_bfloat16 a, const __hip_bfloat16 b) { \
        const bool nan = moatbridge_bf16_isnan(a) || moatbridge_bf16_isnan(b);                   \
        const float x = __bfloat162float(a), y = __bfloat162float(b);                            \
        return test;                                                                             \
    }                                                                                            \
    MOATBRIDGE_BF16_HOSTDEVICE unsigned __h##name##2_mask(const __hip_bfloat162 a, const __hip_bfloat162 b) { \
        return (moatbridge_bf16_##name(a.x, b.x) ? 0xffffu : 0u) | (moatbridge_bf16_##name(a.y, b.y) ? 0xffff0000u : 0u); \
    }
#define MOATBRIDGE_BF16_UNORDERED(name, test)                                                    \
    MOATBRIDGE_BF16_MASK(name, test)                                                             \
    MOATBRIDGE_BF16_HOSTDEVICE __hip_bfloat162 __h##name##2(const __hip_bfloat162 a, const __hip_bfloat162 b) { \
        return __hip_bfloat162(moatbridge_bf16_make(moatbridge_bf16_##name(a.x, b.x) ? 0x3f80u : 0u), \
                               moatbridge_bf16_make(moatbridge_bf16_##name(a.y, b.y) ? 0x3f80u : 0u)); \
    }
MOATBRIDGE_BF16_MASK(eq, !nan && x == y)
MOATBRIDGE_BF16_MASK(ne, !nan && x != y)
MOATBRIDGE_BF16_MASK(le, !nan && x <= y)
MOATBRIDGE_BF16_MASK(ge, !nan && x >= y)
MOATBRIDGE_BF16_MASK(lt, !nan && x < y)
MOATBRIDGE_BF16_MASK(gt, !nan && x > y)
MOATBRIDGE_BF16_UNORDERED(equ, nan || x == y)
MOATBRIDGE_BF16_UNORDERED(neu, nan || x != y)
MOATBRIDGE_BF16_UNORDERED(leu, nan || x <= y)
MOATBRIDGE_BF16_UNORDERED(geu, nan || x >= y)
MOATBRIDGE_BF16_UNORDERED(ltu, nan || x < y)
MOATBRIDGE_BF16_UNORDERED(gtu, nan || x > y)
#undef MOATBRIDGE_BF16_UNORDERED
#undef MOATBRIDGE_BF16_MASK

/* --- device-only, as in CUDA ------------------------------------------------------------ */
#if defined(__HIP__)
#define MOATBRIDGE_BF16_INTEGER_D(to, type, wide, lo, hi, nan)                                   \
    MOATBRIDGE_BF16_TO_INT(MOATBRIDGE_BF16_DEVICE, __bfloat162##to##_rn, type, lo, hi, nan, __builtin_rintf) \
    MOATBRIDGE_BF16_TO_INT(MOATBRIDGE_BF16_DEVICE, __bfloat162##to##_rd, type, lo, hi, nan, __builtin_floorf) \
    MOATBRIDGE_BF16_TO_INT(MOATBRIDGE_BF16_DEVICE, __bfloat162##to##_ru, type, lo, hi, nan, __builtin_ceilf) \
    MOATBRIDGE_BF16_FROM_INT(MOATBRIDGE_BF16_DEVICE, __##to##2bfloat16_rz, type, wide, rz)          \
    MOATBRIDGE_BF16_FROM_INT(MOATBRIDGE_BF16_DEVICE, __##to##2bfloat16_rd, type, wide, rd)          \
    MOATBRIDGE_BF16_FROM_INT(MOATBRIDGE_BF16_DEVICE, __##to##2bfloat16_ru, type, wide, ru)
MOATBRIDGE_BF16_INTEGER_TYPES(MOATBRIDGE_BF16_INTEGER_D)
#undef MOATBRIDGE_BF16_INTEGER_D

/* fused multiply-add, rounded once (moatbridge_bf16_fma_rn), then saturated to [0, 1] (NaN
   -> +0) or relu'd (negative and -0 -> +0, NaN stays the canonical NaN) */
MOATBRIDGE_BF16_DEVICE __hip_bfloat16 __hfma_sat(const __hip_bfloat16 a, const __hip_bfloat16 b, const __hip_bfloat16 c) {
    return moatbridge_bf16_sat(moatbridge_bf16_make(moatbridge_bf16_fma_rn(a, b, c)));
}
MOATBRIDGE_BF16_DEVICE __hip_bfloat16 __hfma_relu(const __hip_bfloat16 a, const __hip_bfloat16 b, const __hip_bfloat16 c) {
    const unsigned short r = moatbridge_bf16_fma_rn(a, b, c);
    return moatbridge_bf16_make(r != 0x7fffu && (r & 0x8000u) ? 0u : r);
}
MOATBRIDGE_BF16_DEVICE __hip_bfloat162 __hfma2_sat(const __hip_bfloat162 a, const __hip_bfloat162 b, const __hip_bfloat162 c) {
    return __hip_bfloat162(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
MOATBRIDGE_BF16_DEVICE __hip_bfloat162 __hfma2_relu(const __hip_bfloat162 a, const __hip_bfloat162 b, const __hip_bfloat162 c) {
    return __hip_bfloat162(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y));
}
/* complex a*b + c over (x = real, y = imaginary), as two fmas per part in CUDA's order, so
   that the intermediate roundings are the same: re = c.x + a.x*b.x - a.y*b.y,
   im = c.y + a.x*b.y + a.y*b.x */
MOATBRIDGE_BF16_DEVICE __hip_bfloat162 __hcmadd(const __hip_bfloat162 a, const __hip_bfloat162 b, const __hip_bfloat162 c) {
    const __hip_bfloat16 minus_ay = moatbridge_bf16_make((unsigned short)(MOATBRIDGE_BF16_BITS(a.y) ^ 0x8000u));
    const __hip_bfloat16 re = moatbridge_bf16_make(moatbridge_bf16_fma_rn(a.x, b.x, c.x));
    const __hip_bfloat16 im = moatbridge_bf16_make(moatbridge_bf16_fma_rn(a.x, b.y, c.y));
    return __hip_bfloat162(moatbridge_bf16_make(moatbridge_bf16_fma_rn(minus_ay, b.y, re)),
                           moatbridge_bf16_make(moatbridge_bf16_fma_rn(a.y, b.x, im)));
}
#endif /* __HIP__ */

#undef MOATBRIDGE_BF16_TO_INT
#undef MOATBRIDGE_BF16_FROM_INT
#undef MOATBRIDGE_BF16_INTEGER_TYPES
#undef MOATBRIDGE_BF16_MEMBER
#undef MOATBRIDGE_BF16_HOSTDEVICE
#undef MOATBRIDGE_BF16_DEVICE
