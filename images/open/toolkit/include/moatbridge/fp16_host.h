/* moatbridge: cuda_fp16.h's types and host functions for a host compiler (g++, or clang++
   without -x hip). HIP's fp16 header gives those compilers a minimal __half
   (hip_fp16_gcc.h): conversions to and from float, and nothing else: no arithmetic or
   comparison operators on __half2, no integer constructors (`__half h = 0;` is ambiguous),
   none of the __h* functions. NVIDIA's header gives a host compiler all of those, and CUDA
   programs compute reference results with them in .cpp files.
   So a host compile gets these instead of HIP's: the same names (__half, __half2, the types
   device code has, so a function taking one links across g++ and nvcc objects), the same
   layout (two bytes; two of them aligned to four), and what NVIDIA's header gives a host
   compiler, with the results NVIDIA's host code computes: arithmetic in float rounded once to
   nearest even, conversions rounded once in the mode named, NaN results the canonical 0x7fff.
   moatbridge/runtime.h includes this before any HIP header, and HIP's fp16 headers are
   marked included, so nothing defines the types twice. A file that includes HIP's fp16
   header itself before any CUDA header keeps HIP's minimal types, and this adds nothing. */
#pragma once
#if defined(__cplusplus) && !defined(__HIP__) && !defined(HIP_INCLUDE_HIP_HIP_FP16_H) && \
    !defined(HIP_INCLUDE_HIP_AMD_DETAIL_HIP_FP16_H)
#define MOATBRIDGE_FP16_HOST_H 1
#define HIP_INCLUDE_HIP_HIP_FP16_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HIP_FP16_H
#include <hip/hip_vector_types.h>
#include <moatbridge/climits.h>
#include <moatbridge/traits.h>

typedef struct __attribute__((aligned(2))) {
    unsigned short x;
} __half_raw;
typedef struct __attribute__((aligned(4))) {
    unsigned short x;
    unsigned short y;
} __half2_raw;

/* The members get an ABI tag of their own: nvcc's objects define HIP's members of these same
   classes as weak symbols of the same names, so untagged, the linker would keep one of the two
   for the whole program. */
#define MOATBRIDGE_FP16_HOST_MEMBER __attribute__((abi_tag("moatbridge_host")))
struct __hip_bfloat16;

struct __attribute__((aligned(2))) __half {
  protected:
    unsigned short __x;

  public:
    __half() = default;
    MOATBRIDGE_FP16_HOST_MEMBER constexpr __half(const __half_raw& r) : __x(r.x) {}
    MOATBRIDGE_FP16_HOST_MEMBER __half& operator=(const __half_raw& r) { __x = r.x; return *this; }
    MOATBRIDGE_FP16_HOST_MEMBER volatile __half& operator=(const __half_raw& r) volatile { __x = r.x; return *this; }
    MOATBRIDGE_FP16_HOST_MEMBER volatile __half& operator=(const volatile __half_raw& r) volatile { __x = r.x; return *this; }
    MOATBRIDGE_FP16_HOST_MEMBER constexpr operator __half_raw() const { return __half_raw{__x}; }
    MOATBRIDGE_FP16_HOST_MEMBER operator __half_raw() const volatile { return __half_raw{__x}; }
#if !defined(__CUDA_NO_HALF_CONVERSIONS__)
    /* CUDA's explicit conversion from bfloat16 (defined where cuda_bf16.h is: a template, so
       the bf16 class need not be complete here) */
    template <class B, typename moatbridge_traits::enable_if<moatbridge_traits::is_same<B, __hip_bfloat16>::value, int>::type = 0>
    MOATBRIDGE_FP16_HOST_MEMBER explicit __half(const B& b);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half(float f);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half(double f);
    MOATBRIDGE_FP16_HOST_MEMBER inline operator float() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline __half& operator=(float f);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half& operator=(double f);
#if !defined(__CUDA_FP16_DISABLE_IMPLICIT_INTEGER_CONVERTS_FOR_HOST_COMPILERS__)
    /* CUDA's integer conversions: to half rounded to nearest even from the exact integer, back
       towards zero and saturated (NaN gives 0) */
    MOATBRIDGE_FP16_HOST_MEMBER inline __half(short v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half(unsigned short v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half(int v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half(unsigned int v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half(long v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half(unsigned long v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half(long long v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half(unsigned long long v);
    MOATBRIDGE_FP16_HOST_MEMBER inline operator signed char() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline operator unsigned char() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline operator char() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline operator short() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline operator unsigned short() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline operator int() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline operator unsigned int() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline operator long() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline operator unsigned long() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline operator long long() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline operator unsigned long long() const;
    MOATBRIDGE_FP16_HOST_MEMBER inline __half& operator=(short v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half& operator=(unsigned short v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half& operator=(int v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half& operator=(unsigned int v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half& operator=(long long v);
    MOATBRIDGE_FP16_HOST_MEMBER inline __half& operator=(unsigned long long v);
    MOATBRIDGE_FP16_HOST_MEMBER constexpr operator bool() const { return (__x & 0x7fffu) != 0; }
#endif
#endif
};

struct __attribute__((aligned(4))) __half2 {
    __half x;
    __half y;
    __half2() = default;
    MOATBRIDGE_FP16_HOST_MEMBER constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
    /* trivially copyable, as HIP's class is (NVIDIA's copies by hand): the calling convention
       passes a trivially copyable pair in a register and another in memory, and a g++ object
       must pass it as nvcc's objects do */
    __half2(const __half2&) = default;
    __half2(__half2&&) = default;
    __half2& operator=(const __half2&) = default;
    __half2& operator=(__half2&&) = default;
    MOATBRIDGE_FP16_HOST_MEMBER __half2(const __half2_raw& r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
    MOATBRIDGE_FP16_HOST_MEMBER __half2& operator=(const __half2_raw& r) {
        x = __half_raw{r.x};
        y = __half_raw{r.y};
        return *this;
    }
    MOATBRIDGE_FP16_HOST_MEMBER operator __half2_raw() const {
        return __half2_raw{static_cast<__half_raw>(x).x, static_cast<__half_raw>(y).x};
    }
};

/* the functions and operators, all of them (moatbridge's, in a host compiler's build) */
#include <moatbridge/fp16_functions.h>

/* --- members -------------------------------------------------------------------------------- */
#if !defined(__CUDA_NO_HALF_CONVERSIONS__)
template <class B, typename moatbridge_traits::enable_if<moatbridge_traits::is_same<B, __hip_bfloat16>::value, int>::type>
inline __half::__half(const B& b) : __x(__half_as_ushort(__float2half_rn(__bfloat162float(b)))) {}
inline __half::__half(float f) : __x(__half_as_ushort(__float2half_rn(f))) {}
inline __half::__half(double f) : __x(__half_as_ushort(__double2half(f))) {}
inline __half::operator float() const { return __half2float(*this); }
inline __half& __half::operator=(float f) { return *this = __float2half_rn(f); }
inline __half& __half::operator=(double f) { return *this = __double2half(f); }
#if !defined(__CUDA_FP16_DISABLE_IMPLICIT_INTEGER_CONVERTS_FOR_HOST_COMPILERS__)
inline __half::__half(short v) : __half(__short2half_rn(v)) {}
inline __half::__half(unsigned short v) : __half(__ushort2half_rn(v)) {}
inline __half::__half(int v) : __half(__int2half_rn(v)) {}
inline __half::__half(unsigned int v) : __half(__uint2half_rn(v)) {}
inline __half::__half(long v) : __half(__ll2half_rn(v)) {}
inline __half::__half(unsigned long v) : __half(__ull2half_rn(v)) {}
inline __half::__half(long long v) : __half(__ll2half_rn(v)) {}
inline __half::__half(unsigned long long v) : __half(__ull2half_rn(v)) {}
inline __half::operator signed char() const { return __half2char_rz(*this); }
inline __half::operator unsigned char() const { return __half2uchar_rz(*this); }
inline __half::operator char() const {
    return static_cast<char>(static_cast<char>(-1) < 0 ? static_cast<int>(__half2char_rz(*this))
                                                       : static_cast<int>(__half2uchar_rz(*this)));
}
inline __half::operator short() const { return __half2short_rz(*this); }
inline __half::operator unsigned short() const { return __half2ushort_rz(*this); }
inline __half::operator int() const { return __half2int_rz(*this); }
inline __half::operator unsigned int() const { return __half2uint_rz(*this); }
inline __half::operator long() const {
    return sizeof(long) == sizeof(long long) ? static_cast<long>(__half2ll_rz(*this)) : static_cast<long>(__half2int_rz(*this));
}
inline __half::operator unsigned long() const {
    return sizeof(long) == sizeof(long long) ? static_cast<unsigned long>(__half2ull_rz(*this))
                                             : static_cast<unsigned long>(__half2uint_rz(*this));
}
inline __half::operator long long() const { return __half2ll_rz(*this); }
inline __half::operator unsigned long long() const { return __half2ull_rz(*this); }
inline __half& __half::operator=(short v) { return *this = __short2half_rn(v); }
inline __half& __half::operator=(unsigned short v) { return *this = __ushort2half_rn(v); }
inline __half& __half::operator=(int v) { return *this = __int2half_rn(v); }
inline __half& __half::operator=(unsigned int v) { return *this = __uint2half_rn(v); }
inline __half& __half::operator=(long long v) { return *this = __ll2half_rn(v); }
inline __half& __half::operator=(unsigned long long v) { return *this = __ull2half_rn(v); }
#endif
#endif

typedef __half half;
typedef __half2 half2;
#undef MOATBRIDGE_FP16_HOST_MEMBER
#endif
