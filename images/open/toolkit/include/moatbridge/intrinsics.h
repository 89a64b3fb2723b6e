/* moatbridge: CUDA device intrinsics HIP 5.7 lacks, written over clang's AMDGPU builtins.
   Integer dot products, __nanosleep, cache-hinted loads/stores (the hint has no AMD
   meaning: a plain access), warp match/reduce, address-space predicates, traps, __fns and
   the SIMD-within-a-word ("video") intrinsics; more (atomics, DPX, mode-taking double
   functions, ...) in device_extras.h. Lane masks follow warp_sync.h. */
#pragma once
#if defined(__HIP__) && !defined(MOATBRIDGE_NO_INTRINSICS)
#include <moatbridge/warp_sync.h>
#include <moatbridge/traits.h>

/* --- integer dot products (sm_61) ---------------------------------------------------- */
__device__ inline int __dp4a(int a, int b, int c) {
    int sum = c;
    for (int i = 0; i < 4; ++i) sum += (signed char)(a >> (8 * i)) * (signed char)(b >> (8 * i));
    return sum;
}
__device__ inline unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
    unsigned int sum = c;
    for (int i = 0; i < 4; ++i) sum += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
    return sum;
}
__device__ inline int __dp4a(char4 a, char4 b, int c) {
    return c + a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
__device__ inline unsigned int __dp4a(uchar4 a, uchar4 b, unsigned int c) {
    return c + a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
/* __dp2a_lo/hi: two 16-bit lanes of a times the low or high two bytes of b */
__device__ inline int __dp2a_lo(int a, int b, int c) {
    return c + (short)(a & 0xffff) * (signed char)(b & 0xff) + (short)(a >> 16) * (signed char)((b >> 8) & 0xff);
}
__device__ inline int __dp2a_hi(int a, int b, int c) {
    return c + (short)(a & 0xffff) * (signed char)((b >> 16) & 0xff) + (short)(a >> 16) * (signed char)(b >> 24);
}
__device__ inline unsigned int __dp2a_lo(unsigned int a, unsigned int b, unsigned int c) {
    return c + (a & 0xffffu) * (b & 0xffu) + (a >> 16) * ((b >> 8) & 0xffu);
}
__device__ inline unsigned int __dp2a_hi(unsigned int a, unsigned int b, unsigned int c) {
    return c + (a & 0xffffu) * ((b >> 16) & 0xffu) + (a >> 16) * (b >> 24);
}

/* --- sleeping: s_sleep 1 waits about 64 clocks ----------------------------------------- */
__device__ inline void __nanosleep(unsigned int ns) {
    for (unsigned int slept = 0; slept < ns; slept += 64) __builtin_amdgcn_s_sleep(1);
}

/* --- cache-hinted loads and stores (sm_35+): the hints have no AMD counterpart ------------ */
template <class T> __device__ inline T __ldca(const T* p) { return *p; }
template <class T> __device__ inline T __ldcg(const T* p) { return *p; }
template <class T> __device__ inline T __ldcs(const T* p) { return *p; }
template <class T> __device__ inline T __ldlu(const T* p) { return *p; }
template <class T> __device__ inline void __stwb(T* p, T value) { *p = value; }
template <class T> __device__ inline void __stcg(T* p, T value) { *p = value; }
template <class T> __device__ inline void __stcs(T* p, T value) { *p = value; }
/* __ldcv/__stwt (fetch again, write through): volatile accesses, a vector's one word at a time */
template <class T> __device__ inline typename moatbridge_traits::enable_if<moatbridge_traits::is_scalar<T>::value, T>::type __ldcv(const T* p) {
    return *(const volatile T*)p;
}
template <class T> __device__ inline typename moatbridge_traits::enable_if<moatbridge_traits::is_scalar<T>::value>::type __stwt(T* p, T value) {
    *(volatile T*)p = value;
}
template <class T>
using moatbridge_word_t = typename moatbridge_traits::conditional<sizeof(T) % 4 == 0 && alignof(T) % 4 == 0, unsigned int,
    typename moatbridge_traits::conditional<sizeof(T) % 2 == 0 && alignof(T) % 2 == 0, unsigned short, unsigned char>::type>::type;
template <class T> __device__ inline typename moatbridge_traits::enable_if<!moatbridge_traits::is_scalar<T>::value, T>::type __ldcv(const T* p) {
    typedef moatbridge_word_t<T> W;
    W words[sizeof(T) / sizeof(W)];
    for (unsigned int i = 0; i < sizeof(T) / sizeof(W); ++i) words[i] = ((const volatile W*)p)[i];
    T value;
    __builtin_memcpy(&value, words, sizeof(T));
    return value;
}
template <class T> __device__ inline typename moatbridge_traits::enable_if<!moatbridge_traits::is_scalar<T>::value>::type __stwt(T* p, T value) {
    typedef moatbridge_word_t<T> W;
    W words[sizeof(T) / sizeof(W)];
    __builtin_memcpy(words, &value, sizeof(T));
    for (unsigned int i = 0; i < sizeof(T) / sizeof(W); ++i) ((volatile W*)p)[i] = words[i];
}

/* --- warp match and reduce (sm_70/sm_80) -------------------------------------------------- */
template <class T>
__device__ inline moatbridge_lanemask_t __match_any_sync(unsigned long long mask, T value) {
    moatbridge_lanemask_t same = 0;
    for (int lane = 0; lane < warpSize; ++lane) {
        T other = __shfl(value, lane);
        if (((mask >> lane) & 1ull) && other == value) same |= (moatbridge_lanemask_t)1 << lane;
    }
    return same;
}
template <class T>
__device__ inline moatbridge_lanemask_t __match_all_sync(unsigned long long mask, T value, int* pred) {
    moatbridge_lanemask_t same = __match_any_sync(mask, value);
    moatbridge_lanemask_t wanted = (moatbridge_lanemask_t)mask & (moatbridge_lanemask_t)__ballot(1);
    *pred = (same & wanted) == wanted;
    return *pred ? wanted : 0;
}
#define MOATBRIDGE_WARP_REDUCE(name, type, op)                                      \
    __device__ inline type name(unsigned long long mask, type value) {              \
        (void)mask;                                                                 \
        for (int offset = warpSize / 2; offset > 0; offset /= 2) {                  \
            type other = __shfl_xor(value, offset);                                 \
            value = op;                                                             \
        }                                                                           \
        return value;                                                               \
    }
MOATBRIDGE_WARP_REDUCE(__reduce_add_sync, unsigned int, value + other)
MOATBRIDGE_WARP_REDUCE(__reduce_add_sync, int, value + other)
MOATBRIDGE_WARP_REDUCE(__reduce_min_sync, unsigned int, (other < value ? other : value))
MOATBRIDGE_WARP_REDUCE(__reduce_min_sync, int, (other < value ? other : value))
MOATBRIDGE_WARP_REDUCE(__reduce_max_sync, unsigned int, (other > value ? other : value))
MOATBRIDGE_WARP_REDUCE(__reduce_max_sync, int, (other > value ? other : value))
MOATBRIDGE_WARP_REDUCE(__reduce_and_sync, unsigned int, value & other)
MOATBRIDGE_WARP_REDUCE(__reduce_or_sync, unsigned int, value | other)
MOATBRIDGE_WARP_REDUCE(__reduce_xor_sync, unsigned int, value ^ other)
#undef MOATBRIDGE_WARP_REDUCE

/* --- address spaces ----------------------------------------------------------------------- */
#if defined(__HIP_DEVICE_COMPILE__)
#define MOATBRIDGE_GENERIC(p) ((const __attribute__((address_space(0))) void*)(p))
__device__ inline unsigned int __isShared(const void* p) { return __builtin_amdgcn_is_shared(MOATBRIDGE_GENERIC(p)); }
__device__ inline unsigned int __isLocal(const void* p) { return __builtin_amdgcn_is_private(MOATBRIDGE_GENERIC(p)); }
__device__ inline size_t __cvta_generic_to_shared(const void* p) {
    return (size_t)(__attribute__((address_space(3))) const void*)p;
}
#undef MOATBRIDGE_GENERIC
#else  /* the host pass only parses device functions */
__device__ inline unsigned int __isShared(const void* p) { (void)p; return 0; }
__device__ inline unsigned int __isLocal(const void* p) { (void)p; return 0; }
__device__ inline size_t __cvta_generic_to_shared(const void* p) { return (size_t)p; }
#endif
__device__ inline unsigned int __isConstant(const void* p) { (void)p; return 0; }
__device__ inline unsigned int __isGlobal(const void* p) { return !__isShared(p) && !__isLocal(p); }
__device__ inline size_t __cvta_generic_to_global(const void* p) { return (size_t)p; }

/* --- traps and markers --------------------------------------------------------------------- */
__device__ inline void __trap() { __builtin_trap(); }
__device__ inline void __brkpt() { __builtin_debugtrap(); }
__device__ inline void __prof_trigger(int counter) { (void)counter; }

#if HIP_VERSION_MAJOR < 6 /* HIP 6 has __fns */
/* __fns: the position of the offset-th set bit of mask, counting from base (0xffffffff if none) */
__device__ inline unsigned int __fns(unsigned int mask, unsigned int base, int offset) {
    if (offset == 0) return ((mask >> base) & 1u) ? base : 0xffffffffu;
    int step = offset > 0 ? 1 : -1;
    int remaining = offset > 0 ? offset : -offset;
    for (int bit = (int)base + step; bit >= 0 && bit < 32; bit += step) {
        if ((mask >> bit) & 1u && --remaining == 0) return (unsigned int)bit;
    }
    return 0xffffffffu;
}
#endif

/* --- integer min/max of CUDA's math API (HIP only overloads min/max) ------------------------ */
__host__ __device__ inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
__host__ __device__ inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
__host__ __device__ inline long long llmin(long long a, long long b) { return a < b ? a : b; }
__host__ __device__ inline long long llmax(long long a, long long b) { return a > b ? a : b; }
__host__ __device__ inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
__host__ __device__ inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
/* CUDA's integer min/max overloads (clang's HIP math has int and float only, so
   min(unsigned, blockDim.x) is ambiguous there); mixed signedness compares as unsigned. */
#define MOATBRIDGE_MINMAX(A, B, R)                                                              \
    __device__ inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }                     \
    __device__ inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
MOATBRIDGE_MINMAX(unsigned int, unsigned int, unsigned int)
MOATBRIDGE_MINMAX(unsigned int, int, unsigned int)
MOATBRIDGE_MINMAX(int, unsigned int, unsigned int)
MOATBRIDGE_MINMAX(long long, long long, long long)
MOATBRIDGE_MINMAX(unsigned long long, unsigned long long, unsigned long long)
MOATBRIDGE_MINMAX(long long, unsigned long long, unsigned long long)
MOATBRIDGE_MINMAX(unsigned long long, long long, unsigned long long)
#undef MOATBRIDGE_MINMAX

/* --- system-scope increment/decrement (HIP 5.7 has the other *_system atomics) -------------- */
__device__ inline unsigned int atomicInc_system(unsigned int* address, unsigned int limit) {
    unsigned int old = *address, assumed;
    do {
        assumed = old;
        old = atomicCAS_system(address, assumed, assumed >= limit ? 0u : assumed + 1u);
    } while (old != assumed);
    return old;
}
__device__ inline unsigned int atomicDec_system(unsigned int* address, unsigned int limit) {
    unsigned int old = *address, assumed;
    do {
        assumed = old;
        old = atomicCAS_system(address, assumed, (assumed == 0u || assumed > limit) ? limit : assumed - 1u);
    } while (old != assumed);
    return old;
}

/* --- directed rounding (_rd, _ru, _rz), which HIP 5.7 has only as _rn ------------------------
   Each result is the round-to-nearest one corrected by the sign of its exact error, found with
   an error-free transformation (TwoSum for sums, fma for products, quotients and roots), so
   the result is the correctly rounded one in the asked direction. Overflow to infinity is
   pulled back to the largest finite value where the direction says so. */
template <class T> __device__ inline T moatbridge_round_dir(T nearest, T error, int direction) {
    /* direction: -1 down, +1 up, 0 toward zero */
    if (error == T(0) || nearest != nearest) return nearest;
    if (direction == 0) direction = nearest > T(0) ? -1 : 1;
    if (direction < 0 && error < T(0)) return ::nextafter(nearest, -__builtin_huge_val());
    if (direction > 0 && error > T(0)) return ::nextafter(nearest, __builtin_huge_val());
    return nearest;
}
__device__ inline float moatbridge_round_dir(float nearest, float error, int direction) {
    if (error == 0.0f || nearest != nearest) return nearest;
    if (direction == 0) direction = nearest > 0.0f ? -1 : 1;
    if (direction < 0 && error < 0.0f) return ::nextafterf(nearest, -__builtin_huge_valf());
    if (direction > 0 && error > 0.0f) return ::nextafterf(nearest, __builtin_huge_valf());
    return nearest;
}
template <class T> __device__ inline T moatbridge_finite_overflow(T result, T a, T b, int direction, T largest) {
    if (__builtin_isinf(result) && !__builtin_isinf(a) && !__builtin_isinf(b) && a == a && b == b) {
        if (direction == 0 || (direction < 0 && result > T(0)) || (direction > 0 && result < T(0)))
            return result > T(0) ? largest : -largest;
    }
    return result;
}
template <class T> __device__ inline T moatbridge_add_dir(T a, T b, int direction, T largest) {
#pragma clang fp reassociate(off)
    T sum = a + b;
    T b_virtual = sum - a;
    T error = (a - (sum - b_virtual)) + (b - b_virtual);
    if (__builtin_isinf(sum)) return moatbridge_finite_overflow(sum, a, b, direction, largest);
    return moatbridge_round_dir(sum, error, direction);
}
template <class T> __device__ inline T moatbridge_mul_dir(T a, T b, int direction, T largest) {
    T product = a * b;
    if (__builtin_isinf(product)) return moatbridge_finite_overflow(product, a, b, direction, largest);
    return moatbridge_round_dir(product, __builtin_fma(a, b, -product), direction);
}
__device__ inline float moatbridge_mul_dir(float a, float b, int direction, float largest) {
    float product = a * b;
    if (__builtin_isinf(product)) return moatbridge_finite_overflow(product, a, b, direction, largest);
    return moatbridge_round_dir(product, __builtin_fmaf(a, b, -product), direction);
}
template <class T> __device__ inline T moatbridge_div_dir(T a, T b, int direction, T largest) {
    T quotient = a / b;
    if (__builtin_isinf(quotient) || quotient != quotient) return moatbridge_finite_overflow(quotient, a, b, direction, largest);
    T remainder = __builtin_fma(-quotient, b, a); /* a - quotient*b, exactly */
    return moatbridge_round_dir(quotient, b < T(0) ? -remainder : remainder, direction);
}
__device__ inline float moatbridge_div_dir(float a, float b, int direction, float largest) {
    float quotient = a / b;
    if (__builtin_isinf(quotient) || quotient != quotient) return moatbridge_finite_overflow(quotient, a, b, direction, largest);
    float remainder = __builtin_fmaf(-quotient, b, a);
    return moatbridge_round_dir(quotient, b < 0.0f ? -remainder : remainder, direction);
}
__device__ inline float moatbridge_sqrt_dir(float x, int direction) {
    float root = __builtin_sqrtf(x);
    if (!(root > 0.0f) || __builtin_isinf(root)) return root;
    return moatbridge_round_dir(root, __builtin_fmaf(-root, root, x), direction);
}
__device__ inline double moatbridge_sqrt_dir(double x, int direction) {
    double root = __builtin_sqrt(x);
    if (!(root > 0.0) || __builtin_isinf(root)) return root;
    return moatbridge_round_dir(root, __builtin_fma(-root, root, x), direction);
}
/* fmaf: the exact a*b is a double; TwoSum in double gives the exact a*b+c as hi+lo */
__device__ inline float moatbridge_fmaf_dir(float a, float b, float c, int direction) {
#pragma clang fp reassociate(off)
    double product = (double)a * (double)b;
    double hi = product + (double)c;
    double virtual_c = hi - product;
    double lo = (product - (hi - virtual_c)) + ((double)c - virtual_c);
    float nearest = (float)hi;
    if (__builtin_isinf(nearest) || nearest != nearest) return __builtin_fmaf(a, b, c);
    double error = (hi - (double)nearest) + lo;
    return moatbridge_round_dir(nearest, (float)(error > 0.0 ? 1.0f : error < 0.0 ? -1.0f : 0.0f), direction);
}
#define MOATBRIDGE_DIRECTED(suffix, direction)                                                                 \
    __device__ inline float __fadd_##suffix(float a, float b) { return moatbridge_add_dir(a, b, direction, 3.40282347e+38f); } \
    __device__ inline float __fsub_##suffix(float a, float b) { return moatbridge_add_dir(a, -b, direction, 3.40282347e+38f); } \
    __device__ inline float __fmul_##suffix(float a, float b) { return moatbridge_mul_dir(a, b, direction, 3.40282347e+38f); } \
    __device__ inline float __fdiv_##suffix(float a, float b) { return moatbridge_div_dir(a, b, direction, 3.40282347e+38f); } \
    __device__ inline float __frcp_##suffix(float a) { return moatbridge_div_dir(1.0f, a, direction, 3.40282347e+38f); } \
    __device__ inline float __fsqrt_##suffix(float a) { return moatbridge_sqrt_dir(a, direction); }            \
    __device__ inline float __fmaf_##suffix(float a, float b, float c) { return moatbridge_fmaf_dir(a, b, c, direction); } \
    __device__ inline double __dadd_##suffix(double a, double b) { return moatbridge_add_dir(a, b, direction, 1.7976931348623157e308); } \
    __device__ inline double __dsub_##suffix(double a, double b) { return moatbridge_add_dir(a, -b, direction, 1.7976931348623157e308); } \
    __device__ inline double __dmul_##suffix(double a, double b) { return moatbridge_mul_dir(a, b, direction, 1.7976931348623157e308); } \
    __device__ inline double __ddiv_##suffix(double a, double b) { return moatbridge_div_dir(a, b, direction, 1.7976931348623157e308); } \
    __device__ inline double __drcp_##suffix(double a) { return moatbridge_div_dir(1.0, a, direction, 1.7976931348623157e308); } \
    __device__ inline double __dsqrt_##suffix(double a) { return moatbridge_sqrt_dir(a, direction); }
MOATBRIDGE_DIRECTED(rd, -1)
MOATBRIDGE_DIRECTED(ru, 1)
MOATBRIDGE_DIRECTED(rz, 0)
#undef MOATBRIDGE_DIRECTED

/* --- SIMD within a word: 2 x 16-bit or 4 x 8-bit lanes of an unsigned int ------------------- */
#define MOATBRIDGE_SIMD(name, bits, body)                                             \
    __device__ inline unsigned int name(unsigned int a, unsigned int b) {             \
        unsigned int result = 0;                                                      \
        const unsigned int lane_mask = (1u << bits) - 1u;                             \
        for (int shift = 0; shift < 32; shift += bits) {                              \
            unsigned int ua = (a >> shift) & lane_mask, ub = (b >> shift) & lane_mask; \
            int sa = (int)(ua << (32 - bits)) >> (32 - bits);                         \
            int sb = (int)(ub << (32 - bits)) >> (32 - bits);                         \
            (void)sa; (void)sb;                                                       \
            result |= ((unsigned int)(body) & lane_mask) << shift;                    \
        }                                                                             \
        return result;                                                                \
    }
#define MOATBRIDGE_SIMD_BOTH(stem, body) MOATBRIDGE_SIMD(stem##2, 16, body) MOATBRIDGE_SIMD(stem##4, 8, body)
#define MOATBRIDGE_SAT_S(value, bits) \
    ((value) > (1 << (bits - 1)) - 1 ? (1 << (bits - 1)) - 1 : (value) < -(1 << (bits - 1)) ? -(1 << (bits - 1)) : (value))
#define MOATBRIDGE_SAT_U(value, bits) ((value) > (1 << bits) - 1 ? (1 << bits) - 1 : (value) < 0 ? 0 : (value))
MOATBRIDGE_SIMD(__vadd2, 16, ua + ub)
MOATBRIDGE_SIMD(__vadd4, 8, ua + ub)
MOATBRIDGE_SIMD(__vsub2, 16, ua - ub)
MOATBRIDGE_SIMD(__vsub4, 8, ua - ub)
MOATBRIDGE_SIMD(__vaddss2, 16, MOATBRIDGE_SAT_S(sa + sb, 16))
MOATBRIDGE_SIMD(__vaddss4, 8, MOATBRIDGE_SAT_S(sa + sb, 8))
MOATBRIDGE_SIMD(__vaddus2, 16, MOATBRIDGE_SAT_U((int)ua + (int)ub, 16))
MOATBRIDGE_SIMD(__vaddus4, 8, MOATBRIDGE_SAT_U((int)ua + (int)ub, 8))
MOATBRIDGE_SIMD(__vsubss2, 16, MOATBRIDGE_SAT_S(sa - sb, 16))
MOATBRIDGE_SIMD(__vsubss4, 8, MOATBRIDGE_SAT_S(sa - sb, 8))
MOATBRIDGE_SIMD(__vsubus2, 16, MOATBRIDGE_SAT_U((int)ua - (int)ub, 16))
MOATBRIDGE_SIMD(__vsubus4, 8, MOATBRIDGE_SAT_U((int)ua - (int)ub, 8))
MOATBRIDGE_SIMD_BOTH(__vavgs, (sa + sb + ((sa + sb) >= 0 ? 1 : 0)) >> 1)
MOATBRIDGE_SIMD_BOTH(__vavgu, (ua + ub + 1) >> 1)
MOATBRIDGE_SIMD_BOTH(__vhaddu, (ua + ub) >> 1)
MOATBRIDGE_SIMD_BOTH(__vabsdiffs, (sa > sb ? sa - sb : sb - sa))
MOATBRIDGE_SIMD_BOTH(__vabsdiffu, (ua > ub ? ua - ub : ub - ua))
MOATBRIDGE_SIMD_BOTH(__vmaxs, (sa > sb ? sa : sb))
MOATBRIDGE_SIMD_BOTH(__vmaxu, (ua > ub ? ua : ub))
MOATBRIDGE_SIMD_BOTH(__vmins, (sa < sb ? sa : sb))
MOATBRIDGE_SIMD_BOTH(__vminu, (ua < ub ? ua : ub))
MOATBRIDGE_SIMD_BOTH(__vcmpeq, (ua == ub ? ~0u : 0u))
MOATBRIDGE_SIMD_BOTH(__vcmpne, (ua != ub ? ~0u : 0u))
MOATBRIDGE_SIMD_BOTH(__vcmpges, (sa >= sb ? ~0u : 0u))
MOATBRIDGE_SIMD_BOTH(__vcmpgeu, (ua >= ub ? ~0u : 0u))
MOATBRIDGE_SIMD_BOTH(__vcmpgts, (sa > sb ? ~0u : 0u))
MOATBRIDGE_SIMD_BOTH(__vcmpgtu, (ua > ub ? ~0u : 0u))
MOATBRIDGE_SIMD_BOTH(__vcmples, (sa <= sb ? ~0u : 0u))
MOATBRIDGE_SIMD_BOTH(__vcmpleu, (ua <= ub ? ~0u : 0u))
MOATBRIDGE_SIMD_BOTH(__vcmplts, (sa < sb ? ~0u : 0u))
MOATBRIDGE_SIMD_BOTH(__vcmpltu, (ua < ub ? ~0u : 0u))
MOATBRIDGE_SIMD_BOTH(__vseteq, (ua == ub ? 1u : 0u))
MOATBRIDGE_SIMD_BOTH(__vsetne, (ua != ub ? 1u : 0u))
MOATBRIDGE_SIMD_BOTH(__vsetges, (sa >= sb ? 1u : 0u))
MOATBRIDGE_SIMD_BOTH(__vsetgeu, (ua >= ub ? 1u : 0u))
MOATBRIDGE_SIMD_BOTH(__vsetgts, (sa > sb ? 1u : 0u))
MOATBRIDGE_SIMD_BOTH(__vsetgtu, (ua > ub ? 1u : 0u))
MOATBRIDGE_SIMD_BOTH(__vsetles, (sa <= sb ? 1u : 0u))
MOATBRIDGE_SIMD_BOTH(__vsetleu, (ua <= ub ? 1u : 0u))
MOATBRIDGE_SIMD_BOTH(__vsetlts, (sa < sb ? 1u : 0u))
MOATBRIDGE_SIMD_BOTH(__vsetltu, (ua < ub ? 1u : 0u))
#undef MOATBRIDGE_SIMD_BOTH
__device__ inline unsigned int __vabs2(unsigned int a) { return __vabsdiffs2(a, 0u); }
__device__ inline unsigned int __vabs4(unsigned int a) { return __vabsdiffs4(a, 0u); }
__device__ inline unsigned int __vneg2(unsigned int a) { return __vsub2(0u, a); }
__device__ inline unsigned int __vneg4(unsigned int a) { return __vsub4(0u, a); }
__device__ inline unsigned int __vnegss2(unsigned int a) { return __vsubss2(0u, a); }
__device__ inline unsigned int __vnegss4(unsigned int a) { return __vsubss4(0u, a); }
__device__ inline unsigned int __vabsss2(unsigned int a) { return __vmaxs2(a, __vnegss2(a)); }
__device__ inline unsigned int __vabsss4(unsigned int a) { return __vmaxs4(a, __vnegss4(a)); }
#define MOATBRIDGE_SAD(name, bits, diff)                                              \
    __device__ inline unsigned int name(unsigned int a, unsigned int b) {             \
        unsigned int d = diff(a, b), sum = 0;                                         \
        for (int shift = 0; shift < 32; shift += bits) sum += (d >> shift) & ((1u << bits) - 1u); \
        return sum;                                                                   \
    }
MOATBRIDGE_SAD(__vsads2, 16, __vabsdiffs2)
MOATBRIDGE_SAD(__vsads4, 8, __vabsdiffs4)
MOATBRIDGE_SAD(__vsadu2, 16, __vabsdiffu2)
MOATBRIDGE_SAD(__vsadu4, 8, __vabsdiffu4)
#undef MOATBRIDGE_SAD
#undef MOATBRIDGE_SIMD
#undef MOATBRIDGE_SAT_S
#undef MOATBRIDGE_SAT_U
#include <moatbridge/device_extras.h>
#include <moatbridge/host_math.h>
#endif
