/* moatbridge: more CUDA device functions HIP 5.7 lacks (the probe of device_api.tsv found them
   missing; what stays missing is listed with its reason in device_gaps.tsv). Included from
   intrinsics.h. */
#pragma once
#if defined(__HIP__) && !defined(MOATBRIDGE_NO_INTRINSICS)
#include <moatbridge/traits.h>

/* --- the mode-taking double functions of device_double_functions.h ------------------------- */
#ifndef MOATBRIDGE_CUDA_ROUND_MODE
#define MOATBRIDGE_CUDA_ROUND_MODE
enum cudaRoundMode { cudaRoundNearest, cudaRoundZero, cudaRoundPosInf, cudaRoundMinInf };
#endif

/* __fma_rd/_ru/_rz: the round-to-nearest fma corrected by the sign of its exact error, which
   ErrFma (Boldo & Muller) gives as gamma + alpha2 exactly (barring underflow of a*b's error). */
__device__ inline double moatbridge_fma_dir(double a, double b, double c, int direction) {
#pragma clang fp reassociate(off) contract(off)
    double nearest = __builtin_fma(a, b, c);
    if (__builtin_isinf(nearest) || nearest != nearest) {
        if (__builtin_isinf(c) || c != c) return nearest;
        return moatbridge_finite_overflow(nearest, a, b, direction, 1.7976931348623157e308);
    }
    double u1 = a * b;
    if (__builtin_isinf(u1)) return nearest; /* a*b overflows but a*b+c does not: no exact split */
    double u2 = __builtin_fma(a, b, -u1);
    double alpha1 = c + u2, v = alpha1 - c;
    double alpha2 = (c - (alpha1 - v)) + (u2 - v);
    double beta1 = u1 + alpha1, w = beta1 - u1;
    double beta2 = (u1 - (beta1 - w)) + (alpha1 - w);
    double gamma = (beta1 - nearest) + beta2;
    return moatbridge_round_dir(nearest, gamma + alpha2, direction);
}
__device__ inline double __fma_rd(double a, double b, double c) { return moatbridge_fma_dir(a, b, c, -1); }
__device__ inline double __fma_ru(double a, double b, double c) { return moatbridge_fma_dir(a, b, c, 1); }
__device__ inline double __fma_rz(double a, double b, double c) { return moatbridge_fma_dir(a, b, c, 0); }
/* the _ieee forms differ from __fmaf_r* only in not flushing subnormals, which neither does here */
__device__ inline float __fmaf_ieee_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ inline float __fmaf_ieee_rd(float a, float b, float c) { return __fmaf_rd(a, b, c); }
__device__ inline float __fmaf_ieee_ru(float a, float b, float c) { return __fmaf_ru(a, b, c); }
__device__ inline float __fmaf_ieee_rz(float a, float b, float c) { return __fmaf_rz(a, b, c); }

#define MOATBRIDGE_BY_MODE(stem, ...)                                                   \
    (mode == cudaRoundZero     ? stem##_rz(__VA_ARGS__)                                 \
     : mode == cudaRoundPosInf ? stem##_ru(__VA_ARGS__)                                 \
     : mode == cudaRoundMinInf ? stem##_rd(__VA_ARGS__)                                 \
                               : stem##_rn(__VA_ARGS__))
__device__ inline double dadd(double a, double b, cudaRoundMode mode = cudaRoundNearest) { return MOATBRIDGE_BY_MODE(__dadd, a, b); }
__device__ inline double dsub(double a, double b, cudaRoundMode mode = cudaRoundNearest) { return MOATBRIDGE_BY_MODE(__dsub, a, b); }
__device__ inline double dmul(double a, double b, cudaRoundMode mode = cudaRoundNearest) { return MOATBRIDGE_BY_MODE(__dmul, a, b); }
__device__ inline double fma(double a, double b, double c, cudaRoundMode mode) { return MOATBRIDGE_BY_MODE(__fma, a, b, c); }
__device__ inline int double2int(double a, cudaRoundMode mode = cudaRoundZero) { return MOATBRIDGE_BY_MODE(__double2int, a); }
__device__ inline unsigned int double2uint(double a, cudaRoundMode mode = cudaRoundZero) { return MOATBRIDGE_BY_MODE(__double2uint, a); }
__device__ inline long long double2ll(double a, cudaRoundMode mode = cudaRoundZero) { return MOATBRIDGE_BY_MODE(__double2ll, a); }
__device__ inline unsigned long long double2ull(double a, cudaRoundMode mode = cudaRoundZero) { return MOATBRIDGE_BY_MODE(__double2ull, a); }
__device__ inline double ll2double(long long a, cudaRoundMode mode = cudaRoundNearest) { return MOATBRIDGE_BY_MODE(__ll2double, a); }
__device__ inline double ull2double(unsigned long long a, cudaRoundMode mode = cudaRoundNearest) { return MOATBRIDGE_BY_MODE(__ull2double, a); }
#undef MOATBRIDGE_BY_MODE
/* exact in every mode */
__device__ inline double int2double(int a, cudaRoundMode mode = cudaRoundNearest) { (void)mode; return (double)a; }
__device__ inline double uint2double(unsigned int a, cudaRoundMode mode = cudaRoundNearest) { (void)mode; return (double)a; }
__device__ inline double float2double(float a, cudaRoundMode mode = cudaRoundNearest) { (void)mode; return (double)a; }
__device__ inline double fdivide(double a, double b) { return a / b; }

/* --- math overloads: long double is double in AMD device code ------------------------------ */
__device__ inline int __finitel(long double x) { return __builtin_isfinite(x); }
__device__ inline int __isinfl(long double x) { return __builtin_isinf(x); }
__device__ inline int __isnanl(long double x) { return __builtin_isnan(x); }
__device__ inline int __signbitl(long double x) { return __builtin_signbit(x); }
__device__ inline void sincos(float x, float* s, float* c) { sincosf(x, s, c); }
__device__ inline void sincospi(float x, float* s, float* c) { sincospif(x, s, c); }

/* --- integer dot products of vectors (sm_61) ------------------------------------------------ */
__device__ inline int __dp2a_lo(short2 a, char4 b, int c) { return c + a.x * b.x + a.y * b.y; }
__device__ inline int __dp2a_hi(short2 a, char4 b, int c) { return c + a.x * b.z + a.y * b.w; }
__device__ inline unsigned int __dp2a_lo(ushort2 a, uchar4 b, unsigned int c) { return c + a.x * b.x + a.y * b.y; }
__device__ inline unsigned int __dp2a_hi(ushort2 a, uchar4 b, unsigned int c) { return c + a.x * b.z + a.y * b.w; }

/* --- atomics -------------------------------------------------------------------------------- */
#define MOATBRIDGE_SIGNED_BITWISE(name)                                                            \
    __device__ inline long long name(long long* address, long long value) {                      \
        return (long long)name((unsigned long long*)address, (unsigned long long)value);          \
    }
MOATBRIDGE_SIGNED_BITWISE(atomicAnd)
MOATBRIDGE_SIGNED_BITWISE(atomicOr)
MOATBRIDGE_SIGNED_BITWISE(atomicXor)
MOATBRIDGE_SIGNED_BITWISE(atomicAnd_system)
MOATBRIDGE_SIGNED_BITWISE(atomicOr_system)
MOATBRIDGE_SIGNED_BITWISE(atomicXor_system)
#undef MOATBRIDGE_SIGNED_BITWISE
#if HIP_VERSION_MAJOR < 7 /* HIP 7 has the 16-bit atomicCAS */
/* 16-bit compare-and-swap (sm_70): a 32-bit one on the aligned word holding it */
__device__ inline unsigned short atomicCAS(unsigned short* address, unsigned short compare, unsigned short value) {
    unsigned int* word = (unsigned int*)((size_t)address & ~(size_t)3);
    unsigned int shift = (unsigned int)((size_t)address & 2) * 8u;
    unsigned int mask = 0xffffu << shift;
    unsigned int old = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
        unsigned short current = (unsigned short)((old & mask) >> shift);
        if (current != compare) return current;
        unsigned int seen = atomicCAS(word, old, (old & ~mask) | ((unsigned int)value << shift));
        if (seen == old) return current;
        old = seen;
    }
}
#endif
/* float2/float4 adds (sm_90): CUDA makes each element atomic, not the vector */
#define MOATBRIDGE_VECTOR_ADD(name)                                                                \
    __device__ inline float2 name(float2* address, float2 value) {                                \
        float2 old;                                                                               \
        old.x = name(&address->x, value.x);                                                       \
        old.y = name(&address->y, value.y);                                                       \
        return old;                                                                               \
    }                                                                                             \
    __device__ inline float4 name(float4* address, float4 value) {                                \
        float4 old;                                                                               \
        old.x = name(&address->x, value.x);                                                       \
        old.y = name(&address->y, value.y);                                                       \
        old.z = name(&address->z, value.z);                                                       \
        old.w = name(&address->w, value.w);                                                       \
        return old;                                                                               \
    }
MOATBRIDGE_VECTOR_ADD(atomicAdd)
MOATBRIDGE_VECTOR_ADD(atomicAdd_system)
#undef MOATBRIDGE_VECTOR_ADD
/* _block: atomic among the threads of a block. A device-wide atomic is that too. */
#define MOATBRIDGE_BLOCK_ATOMIC(name)                                                              \
    template <class T, class... A>                                                                \
    __device__ inline auto name##_block(T* address, A... values) -> decltype(name(address, values...)) { \
        return name(address, values...);                                                          \
    }
MOATBRIDGE_BLOCK_ATOMIC(atomicAdd)
MOATBRIDGE_BLOCK_ATOMIC(atomicSub)
MOATBRIDGE_BLOCK_ATOMIC(atomicExch)
MOATBRIDGE_BLOCK_ATOMIC(atomicMin)
MOATBRIDGE_BLOCK_ATOMIC(atomicMax)
MOATBRIDGE_BLOCK_ATOMIC(atomicInc)
MOATBRIDGE_BLOCK_ATOMIC(atomicDec)
MOATBRIDGE_BLOCK_ATOMIC(atomicCAS)
MOATBRIDGE_BLOCK_ATOMIC(atomicAnd)
MOATBRIDGE_BLOCK_ATOMIC(atomicOr)
MOATBRIDGE_BLOCK_ATOMIC(atomicXor)
#undef MOATBRIDGE_BLOCK_ATOMIC

/* --- block and warp votes ------------------------------------------------------------------- */
__device__ inline unsigned int ballot(bool predicate) { return (unsigned int)__ballot((int)predicate); }
__device__ inline int syncthreads_count(bool predicate) { return __syncthreads_count((int)predicate); }
__device__ inline bool syncthreads_and(bool predicate) { return __syncthreads_and((int)predicate) != 0; }
__device__ inline bool syncthreads_or(bool predicate) { return __syncthreads_or((int)predicate) != 0; }
/* nonzero if the predicate is the same for every active lane named in mask */
__device__ inline int __uni_sync(unsigned int mask, int predicate) {
    moatbridge_lanemask_t lanes = (moatbridge_lanemask_t)mask & (moatbridge_lanemask_t)__ballot(1);
    moatbridge_lanemask_t votes = (moatbridge_lanemask_t)__ballot(predicate) & lanes;
    return votes == 0 || votes == lanes;
}

/* --- address-space conversions ------------------------------------------------------------- */
#if defined(__HIP_DEVICE_COMPILE__)
__device__ inline size_t __cvta_generic_to_local(const void* p) {
    return (size_t)(__attribute__((address_space(5))) const void*)p;
}
__device__ inline void* __cvta_local_to_generic(size_t a) {
    return (void*)(__attribute__((address_space(5))) char*)(unsigned int)a;
}
__device__ inline void* __cvta_shared_to_generic(size_t a) {
    return (void*)(__attribute__((address_space(3))) char*)(unsigned int)a;
}
#else /* the host pass only parses device functions */
__device__ inline size_t __cvta_generic_to_local(const void* p) { return (size_t)p; }
__device__ inline void* __cvta_local_to_generic(size_t a) { return (void*)a; }
__device__ inline void* __cvta_shared_to_generic(size_t a) { return (void*)a; }
#endif
/* global and constant memory are addressed as generic memory is on AMD GPUs */
__device__ inline void* __cvta_global_to_generic(size_t a) { return (void*)a; }
__device__ inline size_t __cvta_generic_to_constant(const void* p) { return (size_t)p; }
__device__ inline void* __cvta_constant_to_generic(size_t a) { return (void*)a; }
/* the calling block's shared memory is the only shared memory a generic address reaches here */
__device__ inline unsigned int __isCtaShared(const void* p) { return __isShared(p); }

/* --- loads: __ldg of the one vector type HIP 5.7 leaves out ---------------------------------- */
__device__ inline ushort4 __ldg(const ushort4* p) { return *p; }

/* --- DPX (sm_90): three-way min/max, add-then-min/max, with ReLU, per 32 bits or 2 x 16 bits -- */
#define MOATBRIDGE_DPX_LANES(name, parameters, lane_type, body)                                  \
    __device__ inline unsigned int name parameters {                                             \
        unsigned int result = 0;                                                                  \
        for (int shift = 0; shift < 32; shift += 16) {                                            \
            lane_type x = (lane_type)(a >> shift), y = (lane_type)(b >> shift);                   \
            lane_type z = (lane_type)(c >> shift);                                                \
            (void)z;                                                                              \
            result |= ((unsigned int)(unsigned short)(lane_type)(body)) << shift;                \
        }                                                                                         \
        return result;                                                                            \
    }
#define MOATBRIDGE_MAX(x, y) ((x) > (y) ? (x) : (y))
#define MOATBRIDGE_MIN(x, y) ((x) < (y) ? (x) : (y))
#define MOATBRIDGE_DPX3(stem, body)                                                               \
    __device__ inline int stem##_s32(int x, int y, int z) { return body; }                       \
    __device__ inline unsigned int stem##_u32(unsigned int x, unsigned int y, unsigned int z) { return body; } \
    __device__ inline int stem##_s32_relu(int x, int y, int z) { int r = body; return MOATBRIDGE_MAX(r, 0); } \
    MOATBRIDGE_DPX_LANES(stem##_s16x2, (unsigned int a, unsigned int b, unsigned int c), short, body) \
    MOATBRIDGE_DPX_LANES(stem##_u16x2, (unsigned int a, unsigned int b, unsigned int c), unsigned short, body) \
    MOATBRIDGE_DPX_LANES(stem##_s16x2_relu, (unsigned int a, unsigned int b, unsigned int c), short, MOATBRIDGE_MAX((short)(body), 0))
MOATBRIDGE_DPX3(__vimax3, MOATBRIDGE_MAX(MOATBRIDGE_MAX(x, y), z))
MOATBRIDGE_DPX3(__vimin3, MOATBRIDGE_MIN(MOATBRIDGE_MIN(x, y), z))
/* the sum wraps in its 32 or 16 bits */
MOATBRIDGE_DPX3(__viaddmax, MOATBRIDGE_MAX((decltype(x))((unsigned int)x + (unsigned int)y), z))
MOATBRIDGE_DPX3(__viaddmin, MOATBRIDGE_MIN((decltype(x))((unsigned int)x + (unsigned int)y), z))
#undef MOATBRIDGE_DPX3
__device__ inline int __vimax_s32_relu(int x, int y) { return MOATBRIDGE_MAX(MOATBRIDGE_MAX(x, y), 0); }
__device__ inline int __vimin_s32_relu(int x, int y) { return MOATBRIDGE_MAX(MOATBRIDGE_MIN(x, y), 0); }
MOATBRIDGE_DPX_LANES(__vimax_s16x2_relu, (unsigned int a, unsigned int b, unsigned int c = 0), short,
                     MOATBRIDGE_MAX(MOATBRIDGE_MAX(x, y), 0))
MOATBRIDGE_DPX_LANES(__vimin_s16x2_relu, (unsigned int a, unsigned int b, unsigned int c = 0), short,
                     MOATBRIDGE_MAX(MOATBRIDGE_MIN(x, y), 0))
/* __vibmax/__vibmin: the max (min), and whether a was it (a >= b; a <= b), per 32 or 16 bits */
#define MOATBRIDGE_DPX_PICK(stem, op)                                                             \
    __device__ inline int stem##_s32(int a, int b, bool* pred) { *pred = a op b; return a op b ? a : b; } \
    __device__ inline unsigned int stem##_u32(unsigned int a, unsigned int b, bool* pred) {       \
        *pred = a op b;                                                                           \
        return a op b ? a : b;                                                                    \
    }                                                                                             \
    template <class L>                                                                            \
    __device__ inline unsigned int moatbridge_pick_##stem(unsigned int a, unsigned int b, bool* hi, bool* lo) { \
        L ah = (L)(a >> 16), bh = (L)(b >> 16), al = (L)a, bl = (L)b;                             \
        *hi = ah op bh;                                                                           \
        *lo = al op bl;                                                                           \
        return ((unsigned int)(unsigned short)(*hi ? ah : bh) << 16) | (unsigned short)(*lo ? al : bl); \
    }                                                                                             \
    __device__ inline unsigned int stem##_s16x2(unsigned int a, unsigned int b, bool* hi, bool* lo) { \
        return moatbridge_pick_##stem<short>(a, b, hi, lo);                                       \
    }                                                                                             \
    __device__ inline unsigned int stem##_u16x2(unsigned int a, unsigned int b, bool* hi, bool* lo) { \
        return moatbridge_pick_##stem<unsigned short>(a, b, hi, lo);                              \
    }
MOATBRIDGE_DPX_PICK(__vibmax, >=)
MOATBRIDGE_DPX_PICK(__vibmin, <=)
#undef MOATBRIDGE_DPX_PICK
#undef MOATBRIDGE_DPX_LANES
#undef MOATBRIDGE_MAX
#undef MOATBRIDGE_MIN
#endif
