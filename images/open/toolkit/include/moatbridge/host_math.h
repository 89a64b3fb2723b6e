/* moatbridge: CUDA's math library in the host code of CUDA sources.

   nvcc's math_functions.h makes the C++ classification functions callable unqualified (and as
   ::isnan) on float, double and long double in host code, and gives host definitions of the
   functions only CUDA has (erfinv, erfcinv, erfcx, normcdf, normcdfinv, rcbrt, sincospi, the
   float sincos/modf overloads, and rsqrt where glibc predates C23's). Clang's HIP headers
   declare all of those for the device only, so a host function calling isfinite(x) on a float
   found no viable function. Included from intrinsics.h, in both compilation passes: the device
   pass parses host code too. */
#pragma once
#if defined(__HIP__) && defined(__cplusplus) && !defined(__HIPCC_RTC__) && !defined(MOATBRIDGE_NO_INTRINSICS)
#include <cmath>

/* The standard library's own overloads (host, constexpr), so ::isnan(x) and isnan(x) in a host
   function are std::isnan(x), as with nvcc; on the device they join clang's. */
using std::fpclassify;
using std::hypot; /* C++17's three-argument form too */
using std::isfinite;
using std::isgreater;
using std::isgreaterequal;
using std::isinf;
using std::isless;
using std::islessequal;
using std::islessgreater;
using std::isnan;
using std::isnormal;
using std::isunordered;
using std::modf;
using std::pow; /* pow(long double, int) in device code, as nvcc takes it */
using std::signbit;

namespace moatbridge_host_math {
/* The rounding error of hi = x*x, so that hi + lo is x² exactly (by fma). */
__host__ inline double square_lo(double x, double hi) { return std::fma(x, x, -hi); }

/* erfc(x)·exp(x²). Below 26, erfc(x) is a normal number and exp(x²) is taken of the exact
   square; beyond, the asymptotic series 1/(x√π)·Σ (-1)^k (2k-1)!!/(2x²)^k, whose terms keep
   shrinking until k ≈ x² (676 at 26): 40 terms are far below one ulp. */
__host__ inline double erfcx(double x) {
    if (x != x) return x;
    if (x < 26.0) {
        double hi = x * x, lo = square_lo(x, hi);
        if (hi > 709.782712893384) return HUGE_VAL; /* x < -26.6: exp(x²)·2 overflows */
        double scale = std::exp(hi);
        double scaled = scale * std::erfc(x);
        return scaled + scaled * lo;
    }
    if (x > 1e154) return 0.5641895835477563 / x; /* 1/(x√π): the rest of the series is below one ulp */
    double inverse_twice_square = 1.0 / (2.0 * x * x), term = 1.0, sum = 1.0;
    for (int k = 1; k < 40; ++k) {
        term *= -(2.0 * k - 1.0) * inverse_twice_square;
        sum += term;
    }
    return sum * 0.5641895835477563 / x; /* 1/√π */
}

/* erf⁻¹ near 0 (|y| <= 1/2): Newton's method on erf from √π/2·(y + π/12·y³). */
__host__ inline double erfinv_central(double y) {
    if (y == 0.0) return y; /* keeps -0 */
    double x = y * 0.886226925452758 * (1.0 + 0.2617993877991494 * y * y);
    for (int i = 0; i < 8; ++i) {
        double step = (std::erf(x) - y) * 0.886226925452758 * std::exp(x * x); /* √π/2 */
        x -= step;
        if (std::fabs(step) <= 1e-17 * std::fabs(x)) break;
    }
    return x;
}

/* erfc⁻¹ for 0 < z <= 1/2 by Newton's method on log(erfc(x)) - log(z) = log(erfcx(x)) - x² -
   log(z), which stays well scaled down to the smallest subnormal z; x >= 0.47 there, so the
   absolute error of the logarithms is small beside x. */
__host__ inline double erfcinv_tail(double z) {
    double x;
    if (z > 0.0625) { /* erf⁻¹(1 - z) ≈ √π/2·(y + π/12·y³), within 25% there */
        double y = 1.0 - z;
        x = 0.886226925452758 * y * (1.0 + 0.2617993877991494 * y * y);
    } else { /* x² ≈ -log(z·x·√π) */
        double t = -std::log(z);
        x = std::sqrt(t - 0.5 * std::log(t) - 0.5723649429247001); /* log(√π) */
    }
    double log_z = std::log(z);
    for (int i = 0; i < 60; ++i) {
        double scaled = erfcx(x);
        double hi = x * x, lo = square_lo(x, hi);
        double h = std::log(scaled) - hi - lo - log_z;
        double step = h * scaled * 0.886226925452758; /* -h/h', h' = -2/(√π·erfcx(x)) */
        x += step;
        if (std::fabs(step) <= 1e-17 * std::fabs(x)) break;
    }
    return x;
}

/* Each through the branch whose argument is exact: 1 - z for z in [1/2, 1], 2 - z for z > 1,
   1 - |y| for |y| >= 1/2. */
__host__ inline double erfcinv(double z) {
    if (z != z || z < 0.0 || z > 2.0) return NAN;
    if (z == 0.0) return HUGE_VAL;
    if (z == 2.0) return -HUGE_VAL;
    if (z > 1.0) return -(z >= 1.5 ? erfcinv_tail(2.0 - z) : erfinv_central(z - 1.0));
    return z <= 0.5 ? erfcinv_tail(z) : erfinv_central(1.0 - z);
}

__host__ inline double erfinv(double y) {
    if (y != y || y < -1.0 || y > 1.0) return NAN;
    if (y == 1.0 || y == -1.0) return std::copysign(HUGE_VAL, y);
    double a = std::fabs(y);
    return a <= 0.5 ? erfinv_central(y) : std::copysign(erfcinv_tail(1.0 - a), y);
}

/* Φ(x) = erfc(-x/√2)/2 with the product -x·(1/√2) carried to twice double precision: in the
   lower tail erfc's relative error is about 2t² times its argument's. */
__host__ inline double normcdf(double x) {
    if (!std::isfinite(x)) return x != x ? x : x > 0 ? 1.0 : 0.0;
    const double half_root_hi = 0.7071067811865476, half_root_lo = -4.833646656726457e-17;
    double t = -x * half_root_hi;
    double t_lo = std::fma(-x, half_root_hi, -t) - x * half_root_lo;
    double value = std::erfc(t);
    value -= t_lo * 1.1283791670955126 * std::exp(-t * t); /* erfc'(t)·t_lo, 2/√π; 0 once erfc is subnormal */
    return 0.5 * value;
}

/* The reciprocal roots and √2·erfcinv in long double: one rounding of the result, not two. */
__host__ inline double normcdfinv(double p) {
    return (double)(-1.41421356237309504880L * (long double)erfcinv(2.0 * p)); /* 2p exact */
}

__host__ inline double rcbrt(double x) { return (double)(1.0L / std::cbrt((long double)x)); }
__host__ inline double rsqrt(double x) { return (double)(1.0L / std::sqrt((long double)x)); }

/* sin(πx) and cos(πx) reduced exactly: x = n/2 + f with |f| <= 1/4, πf carried by fma. */
__host__ inline void sincospi(double x, double* s, double* c) {
    if (!std::isfinite(x)) {
        *s = *c = NAN;
        return;
    }
    if (std::fabs(x) >= 9007199254740992.0) { /* 2^53 and beyond: even integers */
        *s = std::copysign(0.0, x);
        *c = 1.0;
        return;
    }
    double n = std::nearbyint(2.0 * x);
    double f = x - 0.5 * n;             /* exact */
    const double pi_hi = 3.141592653589793, pi_lo = 1.2246467991473532e-16;
    double arg = pi_hi * f, arg_lo = std::fma(pi_hi, f, -arg) + pi_lo * f;
    double sf = std::sin(arg) + arg_lo * std::cos(arg), cf = std::cos(arg) - arg_lo * std::sin(arg);
    long quadrant = (long)std::fmod(n, 4.0);
    if (quadrant < 0) quadrant += 4;
    double sin_value = quadrant == 0 ? sf : quadrant == 1 ? cf : quadrant == 2 ? -sf : -cf;
    double cos_value = quadrant == 0 ? cf : quadrant == 1 ? -sf : quadrant == 2 ? -cf : sf;
    if (f == 0.0 && (quadrant & 1) == 0) sin_value = std::copysign(0.0, x); /* sinpi(±n) = ±0 */
    if (f == 0.0 && (quadrant & 1) == 1) cos_value = 0.0;                    /* cospi(n + 1/2) = +0 */
    *s = sin_value;
    *c = cos_value;
}
} // namespace moatbridge_host_math

/* The host side of each CUDA-only function, beside clang's device one. The float forms round the
   double result once more: within half an ulp of float more than the double's error. */
#define MOATBRIDGE_HOST_UNARY(name)                                                               \
    __host__ inline double name(double x) { return moatbridge_host_math::name(x); }              \
    __host__ inline float name(float x) { return (float)moatbridge_host_math::name((double)x); } \
    __host__ inline float name##f(float x) { return (float)moatbridge_host_math::name((double)x); }
MOATBRIDGE_HOST_UNARY(erfinv)
MOATBRIDGE_HOST_UNARY(erfcinv)
MOATBRIDGE_HOST_UNARY(erfcx)
MOATBRIDGE_HOST_UNARY(normcdf)
MOATBRIDGE_HOST_UNARY(normcdfinv)
MOATBRIDGE_HOST_UNARY(rcbrt)
#undef MOATBRIDGE_HOST_UNARY

/* glibc 2.42 declares C23's rsqrt itself. */
#if !defined(__GLIBC__) || !__GLIBC_PREREQ(2, 42)
__host__ inline double rsqrt(double x) { return moatbridge_host_math::rsqrt(x); }
__host__ inline float rsqrtf(float x) { return (float)(1.0 / std::sqrt((double)x)); }
__host__ inline float rsqrt(float x) { return rsqrtf(x); }
#endif

__host__ inline void sincospi(double x, double* s, double* c) { moatbridge_host_math::sincospi(x, s, c); }
__host__ inline void sincospi(float x, float* s, float* c) {
    double sd, cd;
    moatbridge_host_math::sincospi((double)x, &sd, &cd);
    *s = (float)sd;
    *c = (float)cd;
}
__host__ inline void sincospif(float x, float* s, float* c) { sincospi(x, s, c); }
__host__ inline void sincos(float x, float* s, float* c) {
    *s = std::sin(x);
    *c = std::cos(x);
}
#endif
