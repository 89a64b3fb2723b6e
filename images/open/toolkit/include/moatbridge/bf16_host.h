/* moatbridge: cuda_bf16.h's types and host functions for a host compiler that is not clang
   (g++). HIP 7's bf16 header is written for clang only (a clang ext_vector_type pair,
   anonymous structs of class members, __builtin_elementwise_*), HIP 6's pulls in warp
   functions only a device compiler parses, and HIP 5.7's defines non-inline functions over
   device-library math; NVIDIA's header compiles
   with g++, and CUDA programs include it from their host .cpp files (cublas_api.h does).
   So a g++ compile gets these instead of HIP's: the same names (__hip_bfloat16, the type
   device code has, so a function taking one links across g++ and nvcc objects), the same
   layout (two bytes; two of them aligned to four), and what NVIDIA's header gives g++: the
   conversions, arithmetic, comparisons and operators, with the results NVIDIA's host code
   computes (in float, rounded to nearest even; NaN results are the canonical 0x7fff).
   HIP's header is marked included, so nothing defines the types twice. What moatbridge adds
   for every compiler (directed rounding, integers, _rn/_sat, masks) is bf16_functions.h. */
#pragma once
#define MOATBRIDGE_BF16_HOST_H 1
#include <hip/hip_version.h>
#include <hip/hip_vector_types.h>
#include <hip/hip_fp16.h>
#define HIP_INCLUDE_HIP_HIP_BF16_H
#define _HIP_INCLUDE_HIP_AMD_DETAIL_HIP_BF16_H_

typedef struct __attribute__((aligned(2))) {
    unsigned short x;
} __hip_bfloat16_raw;
typedef struct __attribute__((aligned(4))) {
    unsigned short x;
    unsigned short y;
} __hip_bfloat162_raw;

/* The members get an ABI tag of their own: nvcc's objects define HIP's members of these same
   classes (with HIP's results) as weak symbols of the same names, so untagged, the linker
   would keep one of the two for the whole program. */
#define MOATBRIDGE_BF16_HOST_MEMBER __attribute__((abi_tag("moatbridge_host")))
struct __nv_bfloat16_raw;

struct __attribute__((aligned(2))) __hip_bfloat16 {
  protected:
    unsigned short __x;

  public:
    __hip_bfloat16() = default;
    MOATBRIDGE_BF16_HOST_MEMBER constexpr __hip_bfloat16(const __hip_bfloat16_raw& r) : __x(r.x) {}
    MOATBRIDGE_BF16_HOST_MEMBER __hip_bfloat16& operator=(const __hip_bfloat16_raw& r) { __x = r.x; return *this; }
    MOATBRIDGE_BF16_HOST_MEMBER volatile __hip_bfloat16& operator=(const __hip_bfloat16_raw& r) volatile { __x = r.x; return *this; }
    MOATBRIDGE_BF16_HOST_MEMBER volatile __hip_bfloat16& operator=(const volatile __hip_bfloat16_raw& r) volatile { __x = r.x; return *this; }
    MOATBRIDGE_BF16_HOST_MEMBER inline volatile __hip_bfloat16& operator=(const __nv_bfloat16_raw& r) volatile;
    MOATBRIDGE_BF16_HOST_MEMBER inline volatile __hip_bfloat16& operator=(const volatile __nv_bfloat16_raw& r) volatile;
    MOATBRIDGE_BF16_HOST_MEMBER constexpr operator __hip_bfloat16_raw() const { return __hip_bfloat16_raw{__x}; }
    MOATBRIDGE_BF16_HOST_MEMBER operator __hip_bfloat16_raw() const volatile { return __hip_bfloat16_raw{__x}; }
#if !defined(__CUDA_NO_BFLOAT16_CONVERSIONS__)
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16(float f);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16(double f);
    MOATBRIDGE_BF16_HOST_MEMBER inline explicit __hip_bfloat16(const __half f);
    MOATBRIDGE_BF16_HOST_MEMBER inline operator float() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16& operator=(float f);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16& operator=(double f);
#if !defined(__CUDA_BF16_DISABLE_IMPLICIT_INTEGER_CONVERTS_FOR_HOST_COMPILERS__)
    /* CUDA's integer conversions: to bf16 rounded to nearest even from the exact integer, back
       towards zero and saturated (NaN gives 0) */
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16(short v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16(unsigned short v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16(int v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16(unsigned int v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16(long v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16(unsigned long v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16(long long v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16(unsigned long long v);
    MOATBRIDGE_BF16_HOST_MEMBER inline operator signed char() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline operator unsigned char() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline operator char() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline operator short() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline operator unsigned short() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline operator int() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline operator unsigned int() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline operator long() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline operator unsigned long() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline operator long long() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline operator unsigned long long() const;
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16& operator=(short v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16& operator=(unsigned short v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16& operator=(int v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16& operator=(unsigned int v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16& operator=(long long v);
    MOATBRIDGE_BF16_HOST_MEMBER inline __hip_bfloat16& operator=(unsigned long long v);
    /* true unless +0 or -0 (a NaN is true) */
    MOATBRIDGE_BF16_HOST_MEMBER constexpr operator bool() const { return (__x & 0x7fffu) != 0; }
#endif
#endif
};

/* Copied by constructors of its own, as CUDA's __nv_bfloat162 and HIP 6's class are (and the
   HIP 5.7 class the generator shadows): not trivially copyable, so every compiler passes one
   by value the same way, through memory. */
struct __attribute__((aligned(4))) __hip_bfloat162 {
    __hip_bfloat16 x;
    __hip_bfloat16 y;
    __hip_bfloat162() = default;
    MOATBRIDGE_BF16_HOST_MEMBER constexpr __hip_bfloat162(const __hip_bfloat16& a, const __hip_bfloat16& b) : x(a), y(b) {}
    MOATBRIDGE_BF16_HOST_MEMBER __hip_bfloat162(const __hip_bfloat162& o) : x(o.x), y(o.y) {}
    MOATBRIDGE_BF16_HOST_MEMBER __hip_bfloat162(__hip_bfloat162&& o) : x(o.x), y(o.y) {}
    MOATBRIDGE_BF16_HOST_MEMBER __hip_bfloat162& operator=(const __hip_bfloat162& o) {
        x = o.x;
        y = o.y;
        return *this;
    }
    MOATBRIDGE_BF16_HOST_MEMBER __hip_bfloat162& operator=(__hip_bfloat162&& o) {
        x = o.x;
        y = o.y;
        return *this;
    }
    MOATBRIDGE_BF16_HOST_MEMBER __hip_bfloat162(const __hip_bfloat162_raw& r) : x(__hip_bfloat16_raw{r.x}), y(__hip_bfloat16_raw{r.y}) {}
    MOATBRIDGE_BF16_HOST_MEMBER __hip_bfloat162& operator=(const __hip_bfloat162_raw& r) {
        x = __hip_bfloat16_raw{r.x};
        y = __hip_bfloat16_raw{r.y};
        return *this;
    }
    MOATBRIDGE_BF16_HOST_MEMBER operator __hip_bfloat162_raw() const {
        return __hip_bfloat162_raw{static_cast<__hip_bfloat16_raw>(x).x, static_cast<__hip_bfloat16_raw>(y).x};
    }
};

/* --- bits and float ------------------------------------------------------------------------ */
static inline unsigned short __bfloat16_as_ushort(const __hip_bfloat16 h) { return static_cast<__hip_bfloat16_raw>(h).x; }
static inline float __bfloat162float(const __hip_bfloat16 h) {
    const unsigned int u = static_cast<unsigned int>(__bfloat16_as_ushort(h)) << 16;
    float f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
}
/* What moatbridge adds for every compiler needs no more than the classes and
   __bfloat162float; its helpers (bits, NaN test, rounding, the comparison predicates) serve
   the functions below too. */
#include <moatbridge/bf16_functions.h>
static inline __hip_bfloat16 __ushort_as_bfloat16(const unsigned short i) { return moatbridge_bf16_make(i); }
static inline __hip_bfloat16 __short_as_bfloat16(const short i) { return moatbridge_bf16_make(static_cast<unsigned short>(i)); }
static inline short __bfloat16_as_short(const __hip_bfloat16 h) { return static_cast<short>(__bfloat16_as_ushort(h)); }
static inline __hip_bfloat16 __float2bfloat16(const float f) { return __float2bfloat16_rn(f); }
/* double -> bf16 rounded once: to float rounded to odd (it keeps 16 bits more than bf16, so
   the parity of the dropped part survives), then to nearest even */
static inline __hip_bfloat16 __double2bfloat16(const double d) {
    float f = static_cast<float>(d);
    unsigned int u;
    __builtin_memcpy(&u, &f, sizeof u);
    const double back = static_cast<double>(f);
    if (back != d && d == d && (u & 0x7fffffffu) < 0x7f800000u) {
        if ((d > 0.0 && back > d) || (d < 0.0 && back < d)) --u;
        u |= 1u;
        __builtin_memcpy(&f, &u, sizeof f);
    }
    return __float2bfloat16(f);
}
static inline float __low2float(const __hip_bfloat162 a) { return __bfloat162float(a.x); }
static inline float __high2float(const __hip_bfloat162 a) { return __bfloat162float(a.y); }
static inline float2 __bfloat1622float2(const __hip_bfloat162 a) {
    float2 r;
    r.x = __bfloat162float(a.x);
    r.y = __bfloat162float(a.y);
    return r;
}
static inline __hip_bfloat162 __float22bfloat162_rn(const float2 a) {
    return __hip_bfloat162(__float2bfloat16(a.x), __float2bfloat16(a.y));
}

/* --- moving halves ------------------------------------------------------------------------- */
static inline __hip_bfloat162 __halves2bfloat162(const __hip_bfloat16 a, const __hip_bfloat16 b) { return __hip_bfloat162(a, b); }
static inline __hip_bfloat162 __bfloat162bfloat162(const __hip_bfloat16 a) { return __hip_bfloat162(a, a); }
static inline __hip_bfloat16 __low2bfloat16(const __hip_bfloat162 a) { return a.x; }
static inline __hip_bfloat16 __high2bfloat16(const __hip_bfloat162 a) { return a.y; }
static inline __hip_bfloat162 __low2bfloat162(const __hip_bfloat162 a) { return __hip_bfloat162(a.x, a.x); }
static inline __hip_bfloat162 __high2bfloat162(const __hip_bfloat162 a) { return __hip_bfloat162(a.y, a.y); }
static inline __hip_bfloat162 __lows2bfloat162(const __hip_bfloat162 a, const __hip_bfloat162 b) { return __hip_bfloat162(a.x, b.x); }
static inline __hip_bfloat162 __highs2bfloat162(const __hip_bfloat162 a, const __hip_bfloat162 b) { return __hip_bfloat162(a.y, b.y); }
static inline __hip_bfloat162 __lowhigh2highlow(const __hip_bfloat162 a) { return __hip_bfloat162(a.y, a.x); }

/* --- classification, sign ------------------------------------------------------------------ */
static inline bool __hisnan(const __hip_bfloat16 a) { return moatbridge_bf16_isnan(a); }
static inline int __hisinf(const __hip_bfloat16 a) {
    const unsigned short b = __bfloat16_as_ushort(a);
    return b == 0xff80u ? -1 : b == 0x7f80u ? 1 : 0;
}
static inline __hip_bfloat162 __hisnan2(const __hip_bfloat162 a) {
    return __hip_bfloat162(moatbridge_bf16_make(__hisnan(a.x) ? 0x3f80u : 0u), moatbridge_bf16_make(__hisnan(a.y) ? 0x3f80u : 0u));
}
/* negation in float, so a NaN comes back canonical (NVIDIA's host __hneg) */
static inline __hip_bfloat16 __hneg(const __hip_bfloat16 a) { return __float2bfloat16(-__bfloat162float(a)); }
static inline __hip_bfloat162 __hneg2(const __hip_bfloat162 a) { return __hip_bfloat162(__hneg(a.x), __hneg(a.y)); }
static inline __hip_bfloat16 __habs(const __hip_bfloat16 a) {
    const unsigned int b = __bfloat16_as_ushort(a) & 0x7fffu;
    return moatbridge_bf16_make(static_cast<unsigned short>(b > 0x7f80u ? 0x7fffu : b));
}
static inline __hip_bfloat162 __habs2(const __hip_bfloat162 a) { return __hip_bfloat162(__habs(a.x), __habs(a.y)); }

/* --- arithmetic: in float, rounded to nearest even ----------------------------------------- */
#define MOATBRIDGE_BF16H_ARITHMETIC(name, name2, op)                                                          \
    static inline __hip_bfloat16 name(const __hip_bfloat16 a, const __hip_bfloat16 b) {                    \
        return __float2bfloat16(__bfloat162float(a) op __bfloat162float(b));                                \
    }                                                                                                       \
    static inline __hip_bfloat162 name2(const __hip_bfloat162 a, const __hip_bfloat162 b) {                \
        return __hip_bfloat162(name(a.x, b.x), name(a.y, b.y));                                             \
    }
MOATBRIDGE_BF16H_ARITHMETIC(__hadd, __hadd2, +)
MOATBRIDGE_BF16H_ARITHMETIC(__hsub, __hsub2, -)
MOATBRIDGE_BF16H_ARITHMETIC(__hmul, __hmul2, *)
MOATBRIDGE_BF16H_ARITHMETIC(__hdiv, __h2div, /)
#undef MOATBRIDGE_BF16H_ARITHMETIC

/* --- comparisons: ordered ones false, unordered (u) ones true, when either is NaN ----------- */
#define MOATBRIDGE_BF16H_COMPARE(name)                                                                        \
    static inline bool __h##name(const __hip_bfloat16 a, const __hip_bfloat16 b) { return moatbridge_bf16_##name(a, b); } \
    static inline bool __hb##name##2(const __hip_bfloat162 a, const __hip_bfloat162 b) {                     \
        return __h##name(a.x, b.x) && __h##name(a.y, b.y);                                                    \
    }
MOATBRIDGE_BF16H_COMPARE(eq)
MOATBRIDGE_BF16H_COMPARE(ne)
MOATBRIDGE_BF16H_COMPARE(le)
MOATBRIDGE_BF16H_COMPARE(ge)
MOATBRIDGE_BF16H_COMPARE(lt)
MOATBRIDGE_BF16H_COMPARE(gt)
MOATBRIDGE_BF16H_COMPARE(equ)
MOATBRIDGE_BF16H_COMPARE(neu)
MOATBRIDGE_BF16H_COMPARE(leu)
MOATBRIDGE_BF16H_COMPARE(geu)
MOATBRIDGE_BF16H_COMPARE(ltu)
MOATBRIDGE_BF16H_COMPARE(gtu)
#undef MOATBRIDGE_BF16H_COMPARE
/* the ordered two-lane tests with bf16 results (1.0 or 0.0 per lane); the unordered ones and
   the masks are bf16_functions.h's */
#define MOATBRIDGE_BF16H_COMPARE2(name)                                                                       \
    static inline __hip_bfloat162 __h##name##2(const __hip_bfloat162 a, const __hip_bfloat162 b) {           \
        return __hip_bfloat162(moatbridge_bf16_make(__h##name(a.x, b.x) ? 0x3f80u : 0u),                    \
                               moatbridge_bf16_make(__h##name(a.y, b.y) ? 0x3f80u : 0u));                   \
    }
MOATBRIDGE_BF16H_COMPARE2(eq)
MOATBRIDGE_BF16H_COMPARE2(ne)
MOATBRIDGE_BF16H_COMPARE2(le)
MOATBRIDGE_BF16H_COMPARE2(ge)
MOATBRIDGE_BF16H_COMPARE2(lt)
MOATBRIDGE_BF16H_COMPARE2(gt)
#undef MOATBRIDGE_BF16H_COMPARE2

/* max/min: a NaN loses to a number, two NaNs give the canonical one, +0 is above -0 */
static inline __hip_bfloat16 __hmax(const __hip_bfloat16 a, const __hip_bfloat16 b) {
    if (__hisnan(a) && __hisnan(b)) return moatbridge_bf16_make(0x7fffu);
    if (__hisnan(a)) return b;
    if (__hisnan(b)) return a;
    if (__heq(a, b)) return __bfloat16_as_ushort(a) > __bfloat16_as_ushort(b) ? b : a;
    return __hgt(a, b) ? a : b;
}
static inline __hip_bfloat16 __hmin(const __hip_bfloat16 a, const __hip_bfloat16 b) {
    if (__hisnan(a) && __hisnan(b)) return moatbridge_bf16_make(0x7fffu);
    if (__hisnan(a)) return b;
    if (__hisnan(b)) return a;
    if (__heq(a, b)) return __bfloat16_as_ushort(a) > __bfloat16_as_ushort(b) ? a : b;
    return __hlt(a, b) ? a : b;
}
static inline __hip_bfloat162 __hmax2(const __hip_bfloat162 a, const __hip_bfloat162 b) { return __hip_bfloat162(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
static inline __hip_bfloat162 __hmin2(const __hip_bfloat162 a, const __hip_bfloat162 b) { return __hip_bfloat162(__hmin(a.x, b.x), __hmin(a.y, b.y)); }

/* --- members and operators ------------------------------------------------------------------ */
#if !defined(__CUDA_NO_BFLOAT16_CONVERSIONS__)
inline __hip_bfloat16::__hip_bfloat16(float f) : __x(__bfloat16_as_ushort(__float2bfloat16(f))) {}
inline __hip_bfloat16::__hip_bfloat16(double f) : __x(__bfloat16_as_ushort(__double2bfloat16(f))) {}
inline __hip_bfloat16::__hip_bfloat16(const __half f) : __x(__bfloat16_as_ushort(__float2bfloat16(__half2float(f)))) {}
inline __hip_bfloat16::operator float() const { return __bfloat162float(*this); }
inline __hip_bfloat16& __hip_bfloat16::operator=(float f) { return *this = __float2bfloat16(f); }
inline __hip_bfloat16& __hip_bfloat16::operator=(double f) { return *this = __double2bfloat16(f); }
#endif

#if !defined(__CUDA_NO_BFLOAT16_OPERATORS__)
static inline __hip_bfloat16 operator+(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hadd(a, b); }
static inline __hip_bfloat16 operator-(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hsub(a, b); }
static inline __hip_bfloat16 operator*(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hmul(a, b); }
static inline __hip_bfloat16 operator/(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hdiv(a, b); }
static inline __hip_bfloat16& operator+=(__hip_bfloat16& a, const __hip_bfloat16& b) { return a = __hadd(a, b); }
static inline __hip_bfloat16& operator-=(__hip_bfloat16& a, const __hip_bfloat16& b) { return a = __hsub(a, b); }
static inline __hip_bfloat16& operator*=(__hip_bfloat16& a, const __hip_bfloat16& b) { return a = __hmul(a, b); }
static inline __hip_bfloat16& operator/=(__hip_bfloat16& a, const __hip_bfloat16& b) { return a = __hdiv(a, b); }
static inline __hip_bfloat16& operator++(__hip_bfloat16& a) { return a = __hadd(a, moatbridge_bf16_make(0x3f80u)); }
static inline __hip_bfloat16& operator--(__hip_bfloat16& a) { return a = __hsub(a, moatbridge_bf16_make(0x3f80u)); }
static inline __hip_bfloat16 operator++(__hip_bfloat16& a, int) {
    const __hip_bfloat16 old = a;
    ++a;
    return old;
}
static inline __hip_bfloat16 operator--(__hip_bfloat16& a, int) {
    const __hip_bfloat16 old = a;
    --a;
    return old;
}
static inline __hip_bfloat16 operator+(const __hip_bfloat16& a) { return a; }
static inline __hip_bfloat16 operator-(const __hip_bfloat16& a) { return __hneg(a); }
static inline bool operator==(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __heq(a, b); }
static inline bool operator!=(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hneu(a, b); }
static inline bool operator>(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hgt(a, b); }
static inline bool operator<(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hlt(a, b); }
static inline bool operator>=(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hge(a, b); }
static inline bool operator<=(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hle(a, b); }
#endif
#if !defined(__CUDA_NO_BFLOAT162_OPERATORS__)
static inline __hip_bfloat162 operator+(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __hadd2(a, b); }
static inline __hip_bfloat162 operator-(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __hsub2(a, b); }
static inline __hip_bfloat162 operator*(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __hmul2(a, b); }
static inline __hip_bfloat162 operator/(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __h2div(a, b); }
static inline __hip_bfloat162& operator+=(__hip_bfloat162& a, const __hip_bfloat162& b) { return a = __hadd2(a, b); }
static inline __hip_bfloat162& operator-=(__hip_bfloat162& a, const __hip_bfloat162& b) { return a = __hsub2(a, b); }
static inline __hip_bfloat162& operator*=(__hip_bfloat162& a, const __hip_bfloat162& b) { return a = __hmul2(a, b); }
static inline __hip_bfloat162& operator/=(__hip_bfloat162& a, const __hip_bfloat162& b) { return a = __h2div(a, b); }
static inline __hip_bfloat162& operator++(__hip_bfloat162& a) { return a = __hadd2(a, __bfloat162bfloat162(moatbridge_bf16_make(0x3f80u))); }
static inline __hip_bfloat162& operator--(__hip_bfloat162& a) { return a = __hsub2(a, __bfloat162bfloat162(moatbridge_bf16_make(0x3f80u))); }
static inline __hip_bfloat162 operator++(__hip_bfloat162& a, int) {
    const __hip_bfloat162 old = a;
    ++a;
    return old;
}
static inline __hip_bfloat162 operator--(__hip_bfloat162& a, int) {
    const __hip_bfloat162 old = a;
    --a;
    return old;
}
static inline __hip_bfloat162 operator+(const __hip_bfloat162& a) { return a; }
static inline __hip_bfloat162 operator-(const __hip_bfloat162& a) { return __hneg2(a); }
static inline bool operator==(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __hbeq2(a, b); }
static inline bool operator!=(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __hbneu2(a, b); }
static inline bool operator>(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __hbgt2(a, b); }
static inline bool operator<(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __hblt2(a, b); }
static inline bool operator>=(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __hbge2(a, b); }
static inline bool operator<=(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __hble2(a, b); }
#endif

/* the integer members call the integer conversions bf16_functions.h defines */
inline volatile __hip_bfloat16& __hip_bfloat16::operator=(const __nv_bfloat16_raw& r) volatile { __x = r.x; return *this; }
inline volatile __hip_bfloat16& __hip_bfloat16::operator=(const volatile __nv_bfloat16_raw& r) volatile { __x = r.x; return *this; }
#if !defined(__CUDA_NO_BFLOAT16_CONVERSIONS__) && !defined(__CUDA_BF16_DISABLE_IMPLICIT_INTEGER_CONVERTS_FOR_HOST_COMPILERS__)
inline __hip_bfloat16::__hip_bfloat16(short v) : __hip_bfloat16(__short2bfloat16_rn(v)) {}
inline __hip_bfloat16::__hip_bfloat16(unsigned short v) : __hip_bfloat16(__ushort2bfloat16_rn(v)) {}
inline __hip_bfloat16::__hip_bfloat16(int v) : __hip_bfloat16(__int2bfloat16_rn(v)) {}
inline __hip_bfloat16::__hip_bfloat16(unsigned int v) : __hip_bfloat16(__uint2bfloat16_rn(v)) {}
inline __hip_bfloat16::__hip_bfloat16(long v)
    : __hip_bfloat16(sizeof(long) == sizeof(long long) ? __ll2bfloat16_rn(v) : __int2bfloat16_rn(static_cast<int>(v))) {}
inline __hip_bfloat16::__hip_bfloat16(unsigned long v)
    : __hip_bfloat16(sizeof(long) == sizeof(long long) ? __ull2bfloat16_rn(v) : __uint2bfloat16_rn(static_cast<unsigned int>(v))) {}
inline __hip_bfloat16::__hip_bfloat16(long long v) : __hip_bfloat16(__ll2bfloat16_rn(v)) {}
inline __hip_bfloat16::__hip_bfloat16(unsigned long long v) : __hip_bfloat16(__ull2bfloat16_rn(v)) {}
inline __hip_bfloat16::operator signed char() const { return __bfloat162char_rz(*this); }
inline __hip_bfloat16::operator unsigned char() const { return __bfloat162uchar_rz(*this); }
inline __hip_bfloat16::operator char() const {
    return static_cast<char>(static_cast<char>(-1) < 0 ? static_cast<int>(__bfloat162char_rz(*this))
                                                       : static_cast<int>(__bfloat162uchar_rz(*this)));
}
inline __hip_bfloat16::operator short() const { return __bfloat162short_rz(*this); }
inline __hip_bfloat16::operator unsigned short() const { return __bfloat162ushort_rz(*this); }
inline __hip_bfloat16::operator int() const { return __bfloat162int_rz(*this); }
inline __hip_bfloat16::operator unsigned int() const { return __bfloat162uint_rz(*this); }
inline __hip_bfloat16::operator long() const {
    return sizeof(long) == sizeof(long long) ? static_cast<long>(__bfloat162ll_rz(*this)) : static_cast<long>(__bfloat162int_rz(*this));
}
inline __hip_bfloat16::operator unsigned long() const {
    return sizeof(long) == sizeof(long long) ? static_cast<unsigned long>(__bfloat162ull_rz(*this))
                                             : static_cast<unsigned long>(__bfloat162uint_rz(*this));
}
inline __hip_bfloat16::operator long long() const { return __bfloat162ll_rz(*this); }
inline __hip_bfloat16::operator unsigned long long() const { return __bfloat162ull_rz(*this); }
inline __hip_bfloat16& __hip_bfloat16::operator=(short v) { return *this = __short2bfloat16_rn(v); }
inline __hip_bfloat16& __hip_bfloat16::operator=(unsigned short v) { return *this = __ushort2bfloat16_rn(v); }
inline __hip_bfloat16& __hip_bfloat16::operator=(int v) { return *this = __int2bfloat16_rn(v); }
inline __hip_bfloat16& __hip_bfloat16::operator=(unsigned int v) { return *this = __uint2bfloat16_rn(v); }
inline __hip_bfloat16& __hip_bfloat16::operator=(long long v) { return *this = __ll2bfloat16_rn(v); }
inline __hip_bfloat16& __hip_bfloat16::operator=(unsigned long long v) { return *this = __ull2bfloat16_rn(v); }
#endif
#undef MOATBRIDGE_BF16_HOST_MEMBER
