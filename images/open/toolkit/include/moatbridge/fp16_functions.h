/* moatbridge: every cuda_fp16.h function and operator NVIDIA's header gives host code, with
   NVIDIA's host results: arithmetic in float rounded once to nearest even, conversions rounded
   once in the mode named, integer conversions saturated (NaN gives 0), NaN results the
   canonical 0x7fff.
   - In a host compiler's build (fp16_host.h, over moatbridge's __half) all of them are here.
   - In nvcc's (HIP's __half), by what HIP's header has on the stack, as the CUDA layer's
     generator found (moatbridge/generated/fp16_kinds.h, one MOATBRIDGE_FP16_KIND_<key> each):
     0, HIP has it for host code, with HIP's results there (its directed roundings round to
     nearest, its integer conversions do not saturate): a function of ours takes its place,
     named moatbridge_fp16_replaced_<key>, which CUDA's name means after this header
     (generated/fp16_replaced.h), and calls HIP's in device code; an operator of HIP's stays
     (ours is an unused spare); 1, HIP has it for device code only: ours is its __host__
     overload; 2, HIP lacks it: ours serves both; 3, HIP declares it for host code but it is
     unusable there (it calls a device-only helper): as 0.
   Device code so keeps HIP's instructions; host code gets CUDA's results. */
#pragma once
#define MOATBRIDGE_FP16_FUNCTIONS_H 1
#include <moatbridge/climits.h>

#if defined(__HIP__)
#include <moatbridge/generated/fp16_kinds.h>
#define MOATBRIDGE_FP16_HELPER static __host__ __device__ inline
/* qualifiers by kind. Runtime compilation (hiprtc) has no host code, and its built-in HIP
   header makes every fp16 function device-only: there a host overload (kind 1) is an unused
   spare too. */
#define MOATBRIDGE_FP16_BY_0 static __host__ __device__ inline __attribute__((unused))
#if defined(__HIPCC_RTC__)
#define MOATBRIDGE_FP16_BY_1 MOATBRIDGE_FP16_BY_0
#else
#define MOATBRIDGE_FP16_BY_1 static __host__ inline
#endif
#define MOATBRIDGE_FP16_BY_2 static __host__ __device__ inline
#define MOATBRIDGE_FP16_BY_3 static __host__ __device__ inline
#define MOATBRIDGE_FP16_BY(kind) MOATBRIDGE_FP16_BY_##kind
#define MOATBRIDGE_FP16_KIND_OF(kind) MOATBRIDGE_FP16_BY(kind)
#define MOATBRIDGE_FP16_FN(key) MOATBRIDGE_FP16_KIND_OF(MOATBRIDGE_FP16_KIND_##key)
/* a function's name by kind: where HIP has one that host code can name, ours takes its place
   under moatbridge_fp16_replaced_<key> (fp16_replaced.h makes CUDA's name mean it); an
   operator cannot, and ours is a spare */
#define MOATBRIDGE_FP16_NAME_0(key, name) moatbridge_fp16_replaced_##key
#if defined(__HIPCC_RTC__)
#define MOATBRIDGE_FP16_NAME_1(key, name) moatbridge_fp16_spare_##key
#define MOATBRIDGE_FP16_OPNAME_1(key, name) moatbridge_fp16_spare_##key
#else
#define MOATBRIDGE_FP16_NAME_1(key, name) name
#define MOATBRIDGE_FP16_OPNAME_1(key, name) name
#endif
#define MOATBRIDGE_FP16_NAME_2(key, name) name
#define MOATBRIDGE_FP16_NAME_3(key, name) moatbridge_fp16_replaced_##key
#define MOATBRIDGE_FP16_NAME_BY(kind, key, name) MOATBRIDGE_FP16_NAME_##kind(key, name)
#define MOATBRIDGE_FP16_NAME_OF(kind, key, name) MOATBRIDGE_FP16_NAME_BY(kind, key, name)
#define MOATBRIDGE_FP16_NAME(key, name) MOATBRIDGE_FP16_NAME_OF(MOATBRIDGE_FP16_KIND_##key, key, name)
#define MOATBRIDGE_FP16_OPNAME_0(key, name) moatbridge_fp16_spare_##key
#define MOATBRIDGE_FP16_OPNAME_2(key, name) name
#define MOATBRIDGE_FP16_OPNAME_BY(kind, key, name) MOATBRIDGE_FP16_OPNAME_##kind(key, name)
#define MOATBRIDGE_FP16_OPNAME_OF(kind, key, name) MOATBRIDGE_FP16_OPNAME_BY(kind, key, name)
#define MOATBRIDGE_FP16_OPNAME(key, name) MOATBRIDGE_FP16_OPNAME_OF(MOATBRIDGE_FP16_KIND_##key, key, name)
/* what a function computes: host code gets CUDA's result (ours); device code keeps HIP's
   function where HIP has one (its instructions), ours where HIP has none */
#if defined(__HIP_DEVICE_COMPILE__)
#define MOATBRIDGE_FP16_PICK_0(hip, ours) hip
#define MOATBRIDGE_FP16_PICK_1(hip, ours) ours
#define MOATBRIDGE_FP16_PICK_2(hip, ours) ours
#define MOATBRIDGE_FP16_PICK_3(hip, ours) hip
#else
#define MOATBRIDGE_FP16_PICK_0(hip, ours) ours
#define MOATBRIDGE_FP16_PICK_1(hip, ours) ours
#define MOATBRIDGE_FP16_PICK_2(hip, ours) ours
#define MOATBRIDGE_FP16_PICK_3(hip, ours) ours
#endif
#define MOATBRIDGE_FP16_PICK_BY(kind, hip, ours) MOATBRIDGE_FP16_PICK_##kind(hip, ours)
#define MOATBRIDGE_FP16_PICK_OF(kind, hip, ours) MOATBRIDGE_FP16_PICK_BY(kind, hip, ours)
#define MOATBRIDGE_FP16_RETURN(key, hip, ours) return MOATBRIDGE_FP16_PICK_OF(MOATBRIDGE_FP16_KIND_##key, hip, ours)
#else
#define MOATBRIDGE_FP16_HELPER static inline
#define MOATBRIDGE_FP16_FN(key) static inline
#define MOATBRIDGE_FP16_NAME(key, name) name
#define MOATBRIDGE_FP16_OPNAME(key, name) name
#define MOATBRIDGE_FP16_RETURN(key, hip, ours) return ours
#endif
/* a function whose name is its key */
#define MOATBRIDGE_FP16_DEF(name) MOATBRIDGE_FP16_FN(name)
#define MOATBRIDGE_FP16_ID(name) MOATBRIDGE_FP16_NAME(name, name)

/* --- bits and rounding: the helpers every function below is written with -------------------- */
MOATBRIDGE_FP16_HELPER unsigned short moatbridge_fp16_bits(const __half h) { return static_cast<__half_raw>(h).x; }
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_make(const unsigned int bits) {
    __half_raw raw;
    raw.x = static_cast<unsigned short>(bits);
    return __half(raw);
}
/* a __half2_raw's lane: unsigned short in CUDA and HIP 5.7, a __half_raw in HIP 6 */
MOATBRIDGE_FP16_HELPER unsigned short moatbridge_fp16_lane_bits(const unsigned short bits) { return bits; }
template <class Raw>
MOATBRIDGE_FP16_HELPER unsigned short moatbridge_fp16_lane_bits(const Raw& raw) { return raw.x; }
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_low(const __half2 p) {
    return moatbridge_fp16_make(moatbridge_fp16_lane_bits(static_cast<__half2_raw>(p).x));
}
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_high(const __half2 p) {
    return moatbridge_fp16_make(moatbridge_fp16_lane_bits(static_cast<__half2_raw>(p).y));
}
MOATBRIDGE_FP16_HELPER bool moatbridge_fp16_isnan(const __half h) { return (moatbridge_fp16_bits(h) & 0x7fffu) > 0x7c00u; }

enum moatbridge_fp16_mode { moatbridge_fp16_rn, moatbridge_fp16_rz, moatbridge_fp16_rd, moatbridge_fp16_ru };
/* float -> half bits, rounded once in the mode: the magnitude truncated to half (the largest
   finite one above half's range), then one step up when the mode says so (the encoding is
   monotonic: past 0x3ff is the smallest normal, past 0x7bff infinity) */
MOATBRIDGE_FP16_HELPER unsigned short moatbridge_fp16_round(const float f, const moatbridge_fp16_mode mode) {
    unsigned int u;
    __builtin_memcpy(&u, &f, sizeof u);
    const unsigned int sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return 0x7fffu;
    if (a == 0x7f800000u) return static_cast<unsigned short>(sign | 0x7c00u);
    const int exponent = static_cast<int>(a >> 23) - 127;
    unsigned int kept;
    unsigned long long rest, halfway;
    if (exponent >= 16) {  // at least 2^16: above the largest finite half by more than an ulp
        kept = 0x7bffu;
        rest = 1;
        halfway = 0;
    } else if (exponent >= -14) {  // a normal half
        kept = static_cast<unsigned int>(exponent + 15) << 10 | (a & 0x7fffffu) >> 13;
        rest = a & 0x1fffu;
        halfway = 0x1000u;
    } else {  // a subnormal half (or zero): the significand in units of 2^-24
        const unsigned long long significand = (a >> 23) ? (a & 0x7fffffu) | 0x800000u : a & 0x7fffffu;
        const int shift = (a >> 23) ? -(exponent + 1) : 125;  // value = significand * 2^-(shift)
        if (shift > 40) {
            kept = 0;
            rest = significand != 0;
            halfway = 1ull << 40;
        } else {
            kept = static_cast<unsigned int>(significand >> shift);
            rest = significand & ((1ull << shift) - 1);
            halfway = 1ull << (shift - 1);
        }
    }
    bool up = false;
    switch (mode) {
    case moatbridge_fp16_rn: up = rest > halfway || (rest == halfway && rest != 0 && (kept & 1u)); break;
    case moatbridge_fp16_rz: break;
    case moatbridge_fp16_rd: up = rest != 0 && sign; break;
    case moatbridge_fp16_ru: up = rest != 0 && !sign; break;
    }
    return static_cast<unsigned short>(sign | (kept + (up ? 1u : 0u)));
}
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_rounded(const float f, const moatbridge_fp16_mode mode) {
    return moatbridge_fp16_make(moatbridge_fp16_round(f, mode));
}
/* half -> float, exact; every NaN becomes float's canonical one, as NVIDIA's host code gives */
MOATBRIDGE_FP16_HELPER float moatbridge_fp16_float(const __half h) {
    const unsigned int b = moatbridge_fp16_bits(h), sign = (b & 0x8000u) << 16, exponent = (b >> 10) & 0x1fu,
                       mantissa = b & 0x3ffu;
    unsigned int u;
    if (exponent == 0x1fu) {
        u = mantissa ? 0x7fffffffu : sign | 0x7f800000u;
    } else if (exponent != 0) {
        u = sign | (exponent + 112u) << 23 | mantissa << 13;
    } else {  // zero or subnormal: mantissa * 2^-24, exact in float
        const float m = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
        __builtin_memcpy(&u, &m, sizeof u);
        u |= sign;
    }
    float f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
}
/* An integer's magnitude above 65535 rounds as 65535 does in every mode (past the largest
   finite half, 65504, by more than its ulp): clamped there it is exact in float, and the float
   is rounded once. */
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_from_integer(const bool negative, const unsigned long long magnitude,
                                                           const moatbridge_fp16_mode mode) {
    const float m = static_cast<float>(magnitude > 65535u ? 65535u : magnitude);
    return moatbridge_fp16_rounded(negative ? -m : m, mode);
}
/* double -> half rounded once: to float rounded to odd (it keeps 13 bits more than half, so
   the parity of the dropped part survives), then to nearest even */
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_from_double(const double d) {
    float f = static_cast<float>(d);
    unsigned int u;
    __builtin_memcpy(&u, &f, sizeof u);
    const double back = static_cast<double>(f);
    if (back != d && d == d && (u & 0x7fffffffu) < 0x7f800000u) {
        if ((d > 0.0 && back > d) || (d < 0.0 && back < d)) --u;
        u |= 1u;
        __builtin_memcpy(&f, &u, sizeof f);
    }
    return moatbridge_fp16_rounded(f, moatbridge_fp16_rn);
}
/* [0, 1] saturation, as CUDA's _sat: NaN and -0 become +0 */
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_sat(const __half h) {
    const unsigned short b = moatbridge_fp16_bits(h);
    return (b & 0x8000u) || moatbridge_fp16_isnan(h) ? moatbridge_fp16_make(0u) : b > 0x3c00u ? moatbridge_fp16_make(0x3c00u) : h;
}
/* a lane of a two-lane test: 1.0 or 0.0 */
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_truth(const bool b) { return moatbridge_fp16_make(b ? 0x3c00u : 0u); }

/* --- bits, float, double ------------------------------------------------------------------- */
MOATBRIDGE_FP16_DEF(__half_as_ushort) unsigned short MOATBRIDGE_FP16_ID(__half_as_ushort)(const __half h) { MOATBRIDGE_FP16_RETURN(__half_as_ushort, __half_as_ushort(h), moatbridge_fp16_bits(h)); }
MOATBRIDGE_FP16_DEF(__half_as_short) short MOATBRIDGE_FP16_ID(__half_as_short)(const __half h) { MOATBRIDGE_FP16_RETURN(__half_as_short, __half_as_short(h), static_cast<short>(moatbridge_fp16_bits(h))); }
MOATBRIDGE_FP16_DEF(__ushort_as_half) __half MOATBRIDGE_FP16_ID(__ushort_as_half)(const unsigned short i) { MOATBRIDGE_FP16_RETURN(__ushort_as_half, __ushort_as_half(i), moatbridge_fp16_make(i)); }
MOATBRIDGE_FP16_DEF(__short_as_half) __half MOATBRIDGE_FP16_ID(__short_as_half)(const short i) { MOATBRIDGE_FP16_RETURN(__short_as_half, __short_as_half(i), moatbridge_fp16_make(static_cast<unsigned short>(i))); }
MOATBRIDGE_FP16_DEF(__half2float) float MOATBRIDGE_FP16_ID(__half2float)(const __half h) { MOATBRIDGE_FP16_RETURN(__half2float, __half2float(h), moatbridge_fp16_float(h)); }
MOATBRIDGE_FP16_DEF(__float2half) __half MOATBRIDGE_FP16_ID(__float2half)(const float f) { MOATBRIDGE_FP16_RETURN(__float2half, __float2half(f), moatbridge_fp16_rounded(f, moatbridge_fp16_rn)); }
MOATBRIDGE_FP16_DEF(__float2half_rn) __half MOATBRIDGE_FP16_ID(__float2half_rn)(const float f) { MOATBRIDGE_FP16_RETURN(__float2half_rn, __float2half_rn(f), moatbridge_fp16_rounded(f, moatbridge_fp16_rn)); }
MOATBRIDGE_FP16_DEF(__float2half_rz) __half MOATBRIDGE_FP16_ID(__float2half_rz)(const float f) { MOATBRIDGE_FP16_RETURN(__float2half_rz, __float2half_rz(f), moatbridge_fp16_rounded(f, moatbridge_fp16_rz)); }
MOATBRIDGE_FP16_DEF(__float2half_rd) __half MOATBRIDGE_FP16_ID(__float2half_rd)(const float f) { MOATBRIDGE_FP16_RETURN(__float2half_rd, __float2half_rd(f), moatbridge_fp16_rounded(f, moatbridge_fp16_rd)); }
MOATBRIDGE_FP16_DEF(__float2half_ru) __half MOATBRIDGE_FP16_ID(__float2half_ru)(const float f) { MOATBRIDGE_FP16_RETURN(__float2half_ru, __float2half_ru(f), moatbridge_fp16_rounded(f, moatbridge_fp16_ru)); }
MOATBRIDGE_FP16_DEF(__double2half) __half MOATBRIDGE_FP16_ID(__double2half)(const double d) { MOATBRIDGE_FP16_RETURN(__double2half, __double2half(d), moatbridge_fp16_from_double(d)); }
MOATBRIDGE_FP16_DEF(__low2float) float MOATBRIDGE_FP16_ID(__low2float)(const __half2 a) { MOATBRIDGE_FP16_RETURN(__low2float, __low2float(a), moatbridge_fp16_float(moatbridge_fp16_low(a))); }
MOATBRIDGE_FP16_DEF(__high2float) float MOATBRIDGE_FP16_ID(__high2float)(const __half2 a) { MOATBRIDGE_FP16_RETURN(__high2float, __high2float(a), moatbridge_fp16_float(moatbridge_fp16_high(a))); }
MOATBRIDGE_FP16_HELPER float2 moatbridge_fp16_float2(const __half2 a) {
    float2 r;
    r.x = moatbridge_fp16_float(moatbridge_fp16_low(a));
    r.y = moatbridge_fp16_float(moatbridge_fp16_high(a));
    return r;
}
MOATBRIDGE_FP16_DEF(__half22float2) float2 MOATBRIDGE_FP16_ID(__half22float2)(const __half2 a) {
    MOATBRIDGE_FP16_RETURN(__half22float2, __half22float2(a), moatbridge_fp16_float2(a));
}
MOATBRIDGE_FP16_DEF(__float2half2_rn) __half2 MOATBRIDGE_FP16_ID(__float2half2_rn)(const float f) {
    MOATBRIDGE_FP16_RETURN(__float2half2_rn, __float2half2_rn(f), __half2(moatbridge_fp16_rounded(f, moatbridge_fp16_rn), moatbridge_fp16_rounded(f, moatbridge_fp16_rn)));
}
MOATBRIDGE_FP16_DEF(__floats2half2_rn) __half2 MOATBRIDGE_FP16_ID(__floats2half2_rn)(const float a, const float b) {
    MOATBRIDGE_FP16_RETURN(__floats2half2_rn, __floats2half2_rn(a, b), __half2(moatbridge_fp16_rounded(a, moatbridge_fp16_rn), moatbridge_fp16_rounded(b, moatbridge_fp16_rn)));
}
MOATBRIDGE_FP16_DEF(__float22half2_rn) __half2 MOATBRIDGE_FP16_ID(__float22half2_rn)(const float2 a) {
    MOATBRIDGE_FP16_RETURN(__float22half2_rn, __float22half2_rn(a), __half2(moatbridge_fp16_rounded(a.x, moatbridge_fp16_rn), moatbridge_fp16_rounded(a.y, moatbridge_fp16_rn)));
}

/* --- integers ------------------------------------------------------------------------------ */
/* half -> integer towards zero, saturated; NaN gives 0, or 0x8000000000000000 for the 64-bit
   types, as CUDA documents */
#define MOATBRIDGE_FP16_TO_INT(name, type, lo, hi, nan)                                             \
    MOATBRIDGE_FP16_HELPER type moatbridge_fp16_to_##name(const __half h) {                         \
        if (moatbridge_fp16_isnan(h)) return static_cast<type>(nan);                                \
        const float f = __builtin_truncf(moatbridge_fp16_float(h));                                 \
        return f <= static_cast<float>(lo) ? static_cast<type>(lo)                                  \
               : f >= static_cast<float>(hi) ? static_cast<type>(hi) : static_cast<type>(f);        \
    }                                                                                               \
    MOATBRIDGE_FP16_DEF(__half2##name##_rz) type MOATBRIDGE_FP16_ID(__half2##name##_rz)(const __half h) { \
        MOATBRIDGE_FP16_RETURN(__half2##name##_rz, __half2##name##_rz(h), moatbridge_fp16_to_##name(h)); \
    }
#define MOATBRIDGE_FP16_FROM_INT(name, type, mode)                                                  \
    MOATBRIDGE_FP16_DEF(__##name##2half_##mode) __half MOATBRIDGE_FP16_ID(__##name##2half_##mode)(const type i) { \
        MOATBRIDGE_FP16_RETURN(__##name##2half_##mode, __##name##2half_##mode(i),                   \
                               moatbridge_fp16_from_integer(i < static_cast<type>(0),               \
                                                            i < static_cast<type>(0) ? 0ull - static_cast<unsigned long long>(i) \
                                                                                     : static_cast<unsigned long long>(i), \
                                                            moatbridge_fp16_##mode));               \
    }
#define MOATBRIDGE_FP16_INTEGER(name, type, lo, hi, nan)                                            \
    MOATBRIDGE_FP16_TO_INT(name, type, lo, hi, nan)                                                 \
    MOATBRIDGE_FP16_FROM_INT(name, type, rn)                                                        \
    MOATBRIDGE_FP16_FROM_INT(name, type, rz)                                                        \
    MOATBRIDGE_FP16_FROM_INT(name, type, rd)                                                        \
    MOATBRIDGE_FP16_FROM_INT(name, type, ru)
MOATBRIDGE_FP16_INTEGER(short, short int, SHRT_MIN, SHRT_MAX, 0)
MOATBRIDGE_FP16_INTEGER(ushort, unsigned short int, 0, USHRT_MAX, 0)
MOATBRIDGE_FP16_INTEGER(int, int, INT_MIN, INT_MAX, 0)
MOATBRIDGE_FP16_INTEGER(uint, unsigned int, 0, UINT_MAX, 0)
MOATBRIDGE_FP16_INTEGER(ll, long long int, LLONG_MIN, LLONG_MAX, LLONG_MIN)
MOATBRIDGE_FP16_INTEGER(ull, unsigned long long int, 0, ULLONG_MAX, 0x8000000000000000ull)
MOATBRIDGE_FP16_TO_INT(char, signed char, SCHAR_MIN, SCHAR_MAX, 0)
MOATBRIDGE_FP16_TO_INT(uchar, unsigned char, 0, UCHAR_MAX, 0)
#undef MOATBRIDGE_FP16_INTEGER
#undef MOATBRIDGE_FP16_FROM_INT
#undef MOATBRIDGE_FP16_TO_INT

/* --- moving halves ------------------------------------------------------------------------- */
MOATBRIDGE_FP16_DEF(make_half2) __half2 MOATBRIDGE_FP16_ID(make_half2)(const __half x, const __half y) { MOATBRIDGE_FP16_RETURN(make_half2, make_half2(x, y), __half2(x, y)); }
MOATBRIDGE_FP16_DEF(__halves2half2) __half2 MOATBRIDGE_FP16_ID(__halves2half2)(const __half a, const __half b) { MOATBRIDGE_FP16_RETURN(__halves2half2, __halves2half2(a, b), __half2(a, b)); }
MOATBRIDGE_FP16_DEF(__half2half2) __half2 MOATBRIDGE_FP16_ID(__half2half2)(const __half a) { MOATBRIDGE_FP16_RETURN(__half2half2, __half2half2(a), __half2(a, a)); }
MOATBRIDGE_FP16_DEF(__low2half) __half MOATBRIDGE_FP16_ID(__low2half)(const __half2 a) { MOATBRIDGE_FP16_RETURN(__low2half, __low2half(a), moatbridge_fp16_low(a)); }
MOATBRIDGE_FP16_DEF(__high2half) __half MOATBRIDGE_FP16_ID(__high2half)(const __half2 a) { MOATBRIDGE_FP16_RETURN(__high2half, __high2half(a), moatbridge_fp16_high(a)); }
MOATBRIDGE_FP16_DEF(__low2half2) __half2 MOATBRIDGE_FP16_ID(__low2half2)(const __half2 a) { MOATBRIDGE_FP16_RETURN(__low2half2, __low2half2(a), __half2(moatbridge_fp16_low(a), moatbridge_fp16_low(a))); }
MOATBRIDGE_FP16_DEF(__high2half2) __half2 MOATBRIDGE_FP16_ID(__high2half2)(const __half2 a) { MOATBRIDGE_FP16_RETURN(__high2half2, __high2half2(a), __half2(moatbridge_fp16_high(a), moatbridge_fp16_high(a))); }
MOATBRIDGE_FP16_DEF(__lows2half2) __half2 MOATBRIDGE_FP16_ID(__lows2half2)(const __half2 a, const __half2 b) { MOATBRIDGE_FP16_RETURN(__lows2half2, __lows2half2(a, b), __half2(moatbridge_fp16_low(a), moatbridge_fp16_low(b))); }
MOATBRIDGE_FP16_DEF(__highs2half2) __half2 MOATBRIDGE_FP16_ID(__highs2half2)(const __half2 a, const __half2 b) { MOATBRIDGE_FP16_RETURN(__highs2half2, __highs2half2(a, b), __half2(moatbridge_fp16_high(a), moatbridge_fp16_high(b))); }
MOATBRIDGE_FP16_DEF(__lowhigh2highlow) __half2 MOATBRIDGE_FP16_ID(__lowhigh2highlow)(const __half2 a) { MOATBRIDGE_FP16_RETURN(__lowhigh2highlow, __lowhigh2highlow(a), __half2(moatbridge_fp16_high(a), moatbridge_fp16_low(a))); }

/* --- classification, sign ------------------------------------------------------------------ */
MOATBRIDGE_FP16_DEF(__hisnan) bool MOATBRIDGE_FP16_ID(__hisnan)(const __half a) { MOATBRIDGE_FP16_RETURN(__hisnan, __hisnan(a), moatbridge_fp16_isnan(a)); }
MOATBRIDGE_FP16_HELPER int moatbridge_fp16_isinf(const __half a) {
    const unsigned short b = moatbridge_fp16_bits(a);
    return b == 0xfc00u ? -1 : b == 0x7c00u ? 1 : 0;
}
MOATBRIDGE_FP16_DEF(__hisinf) int MOATBRIDGE_FP16_ID(__hisinf)(const __half a) {
    MOATBRIDGE_FP16_RETURN(__hisinf, __hisinf(a), moatbridge_fp16_isinf(a));
}
MOATBRIDGE_FP16_DEF(__hisnan2) __half2 MOATBRIDGE_FP16_ID(__hisnan2)(const __half2 a) {
    MOATBRIDGE_FP16_RETURN(__hisnan2, __hisnan2(a), __half2(moatbridge_fp16_truth(moatbridge_fp16_isnan(moatbridge_fp16_low(a))),
                   moatbridge_fp16_truth(moatbridge_fp16_isnan(moatbridge_fp16_high(a)))));
}
/* negation in float, so a NaN comes back canonical (NVIDIA's host __hneg) */
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_neg(const __half a) { return moatbridge_fp16_rounded(-moatbridge_fp16_float(a), moatbridge_fp16_rn); }
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_abs(const __half a) {
    const unsigned int b = moatbridge_fp16_bits(a) & 0x7fffu;
    return moatbridge_fp16_make(b > 0x7c00u ? 0x7fffu : b);
}
MOATBRIDGE_FP16_DEF(__hneg) __half MOATBRIDGE_FP16_ID(__hneg)(const __half a) { MOATBRIDGE_FP16_RETURN(__hneg, __hneg(a), moatbridge_fp16_neg(a)); }
MOATBRIDGE_FP16_DEF(__hneg2) __half2 MOATBRIDGE_FP16_ID(__hneg2)(const __half2 a) {
    MOATBRIDGE_FP16_RETURN(__hneg2, __hneg2(a), __half2(moatbridge_fp16_neg(moatbridge_fp16_low(a)), moatbridge_fp16_neg(moatbridge_fp16_high(a))));
}
MOATBRIDGE_FP16_DEF(__habs) __half MOATBRIDGE_FP16_ID(__habs)(const __half a) { MOATBRIDGE_FP16_RETURN(__habs, __habs(a), moatbridge_fp16_abs(a)); }
MOATBRIDGE_FP16_DEF(__habs2) __half2 MOATBRIDGE_FP16_ID(__habs2)(const __half2 a) {
    MOATBRIDGE_FP16_RETURN(__habs2, __habs2(a), __half2(moatbridge_fp16_abs(moatbridge_fp16_low(a)), moatbridge_fp16_abs(moatbridge_fp16_high(a))));
}

/* --- arithmetic: in float, rounded once to nearest even (float's 24 bits are enough for that:
   24 >= 2 * 11 + 2); _sat clamps to [0, 1], NaN and -0 to +0 --------------------------------- */
#define MOATBRIDGE_FP16_ARITHMETIC(key, op)                                                         \
    MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_##key(const __half a, const __half b) {           \
        return moatbridge_fp16_rounded(moatbridge_fp16_float(a) op moatbridge_fp16_float(b), moatbridge_fp16_rn); \
    }                                                                                               \
    MOATBRIDGE_FP16_HELPER __half2 moatbridge_fp16_##key##2(const __half2 a, const __half2 b) {     \
        return __half2(moatbridge_fp16_##key(moatbridge_fp16_low(a), moatbridge_fp16_low(b)),       \
                       moatbridge_fp16_##key(moatbridge_fp16_high(a), moatbridge_fp16_high(b)));    \
    }                                                                                               \
    MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_##key##_sat(const __half a, const __half b) {     \
        return moatbridge_fp16_sat(moatbridge_fp16_##key(a, b));                                    \
    }                                                                                               \
    MOATBRIDGE_FP16_HELPER __half2 moatbridge_fp16_##key##2_sat(const __half2 a, const __half2 b) { \
        return __half2(moatbridge_fp16_##key##_sat(moatbridge_fp16_low(a), moatbridge_fp16_low(b)), \
                       moatbridge_fp16_##key##_sat(moatbridge_fp16_high(a), moatbridge_fp16_high(b))); \
    }
MOATBRIDGE_FP16_ARITHMETIC(add, +)
MOATBRIDGE_FP16_ARITHMETIC(sub, -)
MOATBRIDGE_FP16_ARITHMETIC(mul, *)
MOATBRIDGE_FP16_ARITHMETIC(div, /)
#undef MOATBRIDGE_FP16_ARITHMETIC
/* CUDA's names: each key, its helper */
#define MOATBRIDGE_FP16_BINARY(key, helper, result, type)                                           \
    MOATBRIDGE_FP16_DEF(key) result MOATBRIDGE_FP16_ID(key)(const type a, const type b) { MOATBRIDGE_FP16_RETURN(key, key(a, b), helper(a, b)); }
MOATBRIDGE_FP16_BINARY(__hadd, moatbridge_fp16_add, __half, __half)
MOATBRIDGE_FP16_BINARY(__hsub, moatbridge_fp16_sub, __half, __half)
MOATBRIDGE_FP16_BINARY(__hmul, moatbridge_fp16_mul, __half, __half)
MOATBRIDGE_FP16_BINARY(__hdiv, moatbridge_fp16_div, __half, __half)
MOATBRIDGE_FP16_BINARY(__hadd_rn, moatbridge_fp16_add, __half, __half)
MOATBRIDGE_FP16_BINARY(__hsub_rn, moatbridge_fp16_sub, __half, __half)
MOATBRIDGE_FP16_BINARY(__hmul_rn, moatbridge_fp16_mul, __half, __half)
MOATBRIDGE_FP16_BINARY(__hadd_sat, moatbridge_fp16_add_sat, __half, __half)
MOATBRIDGE_FP16_BINARY(__hsub_sat, moatbridge_fp16_sub_sat, __half, __half)
MOATBRIDGE_FP16_BINARY(__hmul_sat, moatbridge_fp16_mul_sat, __half, __half)
MOATBRIDGE_FP16_BINARY(__hadd2, moatbridge_fp16_add2, __half2, __half2)
MOATBRIDGE_FP16_BINARY(__hsub2, moatbridge_fp16_sub2, __half2, __half2)
MOATBRIDGE_FP16_BINARY(__hmul2, moatbridge_fp16_mul2, __half2, __half2)
MOATBRIDGE_FP16_BINARY(__h2div, moatbridge_fp16_div2, __half2, __half2)
MOATBRIDGE_FP16_BINARY(__hadd2_rn, moatbridge_fp16_add2, __half2, __half2)
MOATBRIDGE_FP16_BINARY(__hsub2_rn, moatbridge_fp16_sub2, __half2, __half2)
MOATBRIDGE_FP16_BINARY(__hmul2_rn, moatbridge_fp16_mul2, __half2, __half2)
MOATBRIDGE_FP16_BINARY(__hadd2_sat, moatbridge_fp16_add2_sat, __half2, __half2)
MOATBRIDGE_FP16_BINARY(__hsub2_sat, moatbridge_fp16_sub2_sat, __half2, __half2)
MOATBRIDGE_FP16_BINARY(__hmul2_sat, moatbridge_fp16_mul2_sat, __half2, __half2)

/* --- comparisons: ordered ones false, unordered (u) ones true, when either is NaN ----------- */
#define MOATBRIDGE_FP16_COMPARE(name, test)                                                         \
    MOATBRIDGE_FP16_HELPER bool moatbridge_fp16_##name(const __half a, const __half b) {            \
        const bool nan = moatbridge_fp16_isnan(a) || moatbridge_fp16_isnan(b);                      \
        const float x = moatbridge_fp16_float(a), y = moatbridge_fp16_float(b);                     \
        return test;                                                                                \
    }                                                                                               \
    MOATBRIDGE_FP16_HELPER bool moatbridge_fp16_##name##_both(const __half2 a, const __half2 b) {   \
        return moatbridge_fp16_##name(moatbridge_fp16_low(a), moatbridge_fp16_low(b)) &&            \
               moatbridge_fp16_##name(moatbridge_fp16_high(a), moatbridge_fp16_high(b));            \
    }                                                                                               \
    MOATBRIDGE_FP16_HELPER __half2 moatbridge_fp16_##name##_lanes(const __half2 a, const __half2 b) { \
        return __half2(moatbridge_fp16_truth(moatbridge_fp16_##name(moatbridge_fp16_low(a), moatbridge_fp16_low(b))), \
                       moatbridge_fp16_truth(moatbridge_fp16_##name(moatbridge_fp16_high(a), moatbridge_fp16_high(b)))); \
    }                                                                                               \
    MOATBRIDGE_FP16_HELPER unsigned moatbridge_fp16_##name##_mask(const __half2 a, const __half2 b) { \
        return (moatbridge_fp16_##name(moatbridge_fp16_low(a), moatbridge_fp16_low(b)) ? 0xffffu : 0u) | \
               (moatbridge_fp16_##name(moatbridge_fp16_high(a), moatbridge_fp16_high(b)) ? 0xffff0000u : 0u); \
    }                                                                                               \
    MOATBRIDGE_FP16_BINARY(__h##name, moatbridge_fp16_##name, bool, __half)                         \
    MOATBRIDGE_FP16_BINARY(__hb##name##2, moatbridge_fp16_##name##_both, bool, __half2)             \
    MOATBRIDGE_FP16_BINARY(__h##name##2, moatbridge_fp16_##name##_lanes, __half2, __half2)          \
    MOATBRIDGE_FP16_BINARY(__h##name##2_mask, moatbridge_fp16_##name##_mask, unsigned, __half2)
MOATBRIDGE_FP16_COMPARE(eq, !nan && x == y)
MOATBRIDGE_FP16_COMPARE(ne, !nan && x != y)
MOATBRIDGE_FP16_COMPARE(le, !nan && x <= y)
MOATBRIDGE_FP16_COMPARE(ge, !nan && x >= y)
MOATBRIDGE_FP16_COMPARE(lt, !nan && x < y)
MOATBRIDGE_FP16_COMPARE(gt, !nan && x > y)
MOATBRIDGE_FP16_COMPARE(equ, nan || x == y)
MOATBRIDGE_FP16_COMPARE(neu, nan || x != y)
MOATBRIDGE_FP16_COMPARE(leu, nan || x <= y)
MOATBRIDGE_FP16_COMPARE(geu, nan || x >= y)
MOATBRIDGE_FP16_COMPARE(ltu, nan || x < y)
MOATBRIDGE_FP16_COMPARE(gtu, nan || x > y)
#undef MOATBRIDGE_FP16_COMPARE

/* max/min: a NaN loses to a number, two NaNs give the canonical one, +0 is above -0; the _nan
   forms give the canonical NaN when either is one */
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_max(const __half a, const __half b) {
    if (moatbridge_fp16_isnan(a) && moatbridge_fp16_isnan(b)) return moatbridge_fp16_make(0x7fffu);
    if (moatbridge_fp16_isnan(a)) return b;
    if (moatbridge_fp16_isnan(b)) return a;
    if (moatbridge_fp16_eq(a, b)) return moatbridge_fp16_bits(a) > moatbridge_fp16_bits(b) ? b : a;
    return moatbridge_fp16_gt(a, b) ? a : b;
}
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_min(const __half a, const __half b) {
    if (moatbridge_fp16_isnan(a) && moatbridge_fp16_isnan(b)) return moatbridge_fp16_make(0x7fffu);
    if (moatbridge_fp16_isnan(a)) return b;
    if (moatbridge_fp16_isnan(b)) return a;
    if (moatbridge_fp16_eq(a, b)) return moatbridge_fp16_bits(a) > moatbridge_fp16_bits(b) ? a : b;
    return moatbridge_fp16_lt(a, b) ? a : b;
}
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_max_nan(const __half a, const __half b) {
    return moatbridge_fp16_isnan(a) || moatbridge_fp16_isnan(b) ? moatbridge_fp16_make(0x7fffu) : moatbridge_fp16_max(a, b);
}
MOATBRIDGE_FP16_HELPER __half moatbridge_fp16_min_nan(const __half a, const __half b) {
    return moatbridge_fp16_isnan(a) || moatbridge_fp16_isnan(b) ? moatbridge_fp16_make(0x7fffu) : moatbridge_fp16_min(a, b);
}
#define MOATBRIDGE_FP16_PAIRWISE(key, helper)                                                       \
    MOATBRIDGE_FP16_DEF(key) __half2 MOATBRIDGE_FP16_ID(key)(const __half2 a, const __half2 b) {    \
        MOATBRIDGE_FP16_RETURN(key, key(a, b), __half2(helper(moatbridge_fp16_low(a), moatbridge_fp16_low(b)), \
                                                       helper(moatbridge_fp16_high(a), moatbridge_fp16_high(b)))); \
    }
MOATBRIDGE_FP16_BINARY(__hmax, moatbridge_fp16_max, __half, __half)
MOATBRIDGE_FP16_BINARY(__hmin, moatbridge_fp16_min, __half, __half)
MOATBRIDGE_FP16_BINARY(__hmax_nan, moatbridge_fp16_max_nan, __half, __half)
MOATBRIDGE_FP16_BINARY(__hmin_nan, moatbridge_fp16_min_nan, __half, __half)
MOATBRIDGE_FP16_PAIRWISE(__hmax2, moatbridge_fp16_max)
MOATBRIDGE_FP16_PAIRWISE(__hmin2, moatbridge_fp16_min)
MOATBRIDGE_FP16_PAIRWISE(__hmax2_nan, moatbridge_fp16_max_nan)
MOATBRIDGE_FP16_PAIRWISE(__hmin2_nan, moatbridge_fp16_min_nan)
#undef MOATBRIDGE_FP16_PAIRWISE
#undef MOATBRIDGE_FP16_BINARY

/* --- operators ------------------------------------------------------------------------------ */
/* T op T, T op= T, ++/-- both ways, unary +/-, and the six relations (__half2's true when both
   lanes are) */
#define MOATBRIDGE_FP16_OPERATORS(T, key, add, sub, mul, div, one, neg, eq, ne, gt, lt, ge, le)     \
    MOATBRIDGE_FP16_FN(key##_add) T MOATBRIDGE_FP16_OPNAME(key##_add, operator+)(const T& a, const T& b) { return add(a, b); } \
    MOATBRIDGE_FP16_FN(key##_sub) T MOATBRIDGE_FP16_OPNAME(key##_sub, operator-)(const T& a, const T& b) { return sub(a, b); } \
    MOATBRIDGE_FP16_FN(key##_mul) T MOATBRIDGE_FP16_OPNAME(key##_mul, operator*)(const T& a, const T& b) { return mul(a, b); } \
    MOATBRIDGE_FP16_FN(key##_div) T MOATBRIDGE_FP16_OPNAME(key##_div, operator/)(const T& a, const T& b) { return div(a, b); } \
    MOATBRIDGE_FP16_FN(key##_add_assign) T& MOATBRIDGE_FP16_OPNAME(key##_add_assign, operator+=)(T & a, const T& b) { return a = add(a, b); } \
    MOATBRIDGE_FP16_FN(key##_sub_assign) T& MOATBRIDGE_FP16_OPNAME(key##_sub_assign, operator-=)(T & a, const T& b) { return a = sub(a, b); } \
    MOATBRIDGE_FP16_FN(key##_mul_assign) T& MOATBRIDGE_FP16_OPNAME(key##_mul_assign, operator*=)(T & a, const T& b) { return a = mul(a, b); } \
    MOATBRIDGE_FP16_FN(key##_div_assign) T& MOATBRIDGE_FP16_OPNAME(key##_div_assign, operator/=)(T & a, const T& b) { return a = div(a, b); } \
    MOATBRIDGE_FP16_FN(key##_preinc) T& MOATBRIDGE_FP16_OPNAME(key##_preinc, operator++)(T & a) { return a = add(a, one); } \
    MOATBRIDGE_FP16_FN(key##_predec) T& MOATBRIDGE_FP16_OPNAME(key##_predec, operator--)(T & a) { return a = sub(a, one); } \
    MOATBRIDGE_FP16_FN(key##_postinc) T MOATBRIDGE_FP16_OPNAME(key##_postinc, operator++)(T & a, int) {  \
        const T old = a;                                                                            \
        a = add(a, one);                                                                            \
        return old;                                                                                 \
    }                                                                                               \
    MOATBRIDGE_FP16_FN(key##_postdec) T MOATBRIDGE_FP16_OPNAME(key##_postdec, operator--)(T & a, int) {  \
        const T old = a;                                                                            \
        a = sub(a, one);                                                                            \
        return old;                                                                                 \
    }                                                                                               \
    MOATBRIDGE_FP16_FN(key##_pos) T MOATBRIDGE_FP16_OPNAME(key##_pos, operator+)(const T& a) { return a; } \
    MOATBRIDGE_FP16_FN(key##_neg) T MOATBRIDGE_FP16_OPNAME(key##_neg, operator-)(const T& a) { return neg(a); } \
    MOATBRIDGE_FP16_FN(key##_eq) bool MOATBRIDGE_FP16_OPNAME(key##_eq, operator==)(const T& a, const T& b) { return eq(a, b); } \
    MOATBRIDGE_FP16_FN(key##_ne) bool MOATBRIDGE_FP16_OPNAME(key##_ne, operator!=)(const T& a, const T& b) { return ne(a, b); } \
    MOATBRIDGE_FP16_FN(key##_gt) bool MOATBRIDGE_FP16_OPNAME(key##_gt, operator>)(const T& a, const T& b) { return gt(a, b); } \
    MOATBRIDGE_FP16_FN(key##_lt) bool MOATBRIDGE_FP16_OPNAME(key##_lt, operator<)(const T& a, const T& b) { return lt(a, b); } \
    MOATBRIDGE_FP16_FN(key##_ge) bool MOATBRIDGE_FP16_OPNAME(key##_ge, operator>=)(const T& a, const T& b) { return ge(a, b); } \
    MOATBRIDGE_FP16_FN(key##_le) bool MOATBRIDGE_FP16_OPNAME(key##_le, operator<=)(const T& a, const T& b) { return le(a, b); }
/* the two-lane relations are both lanes' (!= is the unordered test, as CUDA's) */
MOATBRIDGE_FP16_HELPER __half2 moatbridge_fp16_neg2(const __half2 a) {
    return __half2(moatbridge_fp16_neg(moatbridge_fp16_low(a)), moatbridge_fp16_neg(moatbridge_fp16_high(a)));
}
#if !defined(__CUDA_NO_HALF_OPERATORS__)
MOATBRIDGE_FP16_OPERATORS(__half, op, moatbridge_fp16_add, moatbridge_fp16_sub, moatbridge_fp16_mul, moatbridge_fp16_div,
                          moatbridge_fp16_make(0x3c00u), moatbridge_fp16_neg, moatbridge_fp16_eq, moatbridge_fp16_neu,
                          moatbridge_fp16_gt, moatbridge_fp16_lt, moatbridge_fp16_ge, moatbridge_fp16_le)
#endif
#if !defined(__CUDA_NO_HALF2_OPERATORS__)
MOATBRIDGE_FP16_OPERATORS(__half2, op2, moatbridge_fp16_add2, moatbridge_fp16_sub2, moatbridge_fp16_mul2, moatbridge_fp16_div2,
                          __half2(moatbridge_fp16_make(0x3c00u), moatbridge_fp16_make(0x3c00u)), moatbridge_fp16_neg2,
                          moatbridge_fp16_eq_both, moatbridge_fp16_neu_both, moatbridge_fp16_gt_both, moatbridge_fp16_lt_both,
                          moatbridge_fp16_ge_both, moatbridge_fp16_le_both)
#endif
#undef MOATBRIDGE_FP16_OPERATORS
#undef MOATBRIDGE_FP16_DEF
#undef MOATBRIDGE_FP16_ID
#undef MOATBRIDGE_FP16_FN
#undef MOATBRIDGE_FP16_NAME
#undef MOATBRIDGE_FP16_OPNAME
#undef MOATBRIDGE_FP16_RETURN
#undef MOATBRIDGE_FP16_HELPER
#if defined(__HIP__)
#include <moatbridge/generated/fp16_replaced.h>
#endif
