// cuda13_narrow_conversions.cpp — every conversion CUDA's cuda_fp4.h and cuda_fp6.h offer,
// and cuda_fp8.h's E8M0 scale factors (CUDA 12.8), over every half and bfloat16 value,
// special and boundary values, every code, and the classes' conversions, printed one per line. Compiled on the host against NVIDIA's real headers (g++)
// and against the open toolkit's (nvcc, host code), the outputs must be the same
// (tests/test_cuda_fp8.py).
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cmath>
#include <cstdio>

static float from_half_bits(unsigned short bits) {
    __half_raw raw;
    raw.x = bits;
    return static_cast<float>(__half(raw));
}

template <class T>
static void classes(const char* name, double x) {
    T v(x);
    printf("%s %a %02x %a %a %d %u %d %d %lld %llu %d\n", name, x, (unsigned)v.__x, (double)(float)v, (double)v,
           (int)v, (unsigned)v, (int)(signed char)v, (int)(short)v, (long long)v, (unsigned long long)v, (int)(bool)v);
    printf("%s int %02x %02x %02x %02x\n", name, (unsigned)T((int)x).__x, (unsigned)T((unsigned)std::fabs(x)).__x,
           (unsigned)T((long long)x).__x, (unsigned)T(__float2half((float)x)).__x);
}

#ifdef __CUDACC__
// compiled for the GPU by nvcc: every conversion is host and device code, as in CUDA
__global__ void on_device(const float* in, unsigned char* codes, float* back) {
    const float x = in[threadIdx.x];
    codes[threadIdx.x] = __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest) ^
                         __nv_cvt_double_to_fp6(x, __NV_E3M2, cudaRoundZero) ^ __nv_fp6_e2m3(x).__x ^
                         __nv_fp8_e8m0(x).__x ^ __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero);
    back[threadIdx.x] = static_cast<float>(__nv_fp4_e2m1(x)) + static_cast<float4>(__nv_fp6x4_e3m2(make_float4(x, x, x, x))).w +
                        __half2float(__half(__nv_cvt_fp6_to_halfraw(codes[threadIdx.x], __NV_E2M3)));
}
#endif

int main() {
    const enum cudaRoundMode modes[] = {cudaRoundNearest, cudaRoundZero};
    const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, 6.0, 6.5, 7.0, -7.0, 7.5, 7.75, 8.0, 28.0, 30.0,
                               32.0, 1e30, -1e30, 1e-30, 0.25, 0.125, 0.0625, 0.03125, 0.0078125, 0.01171875,
                               0.1875, 0.375, 1.0000001, 1.25, 1.75, 2.5, 3.5, 5.0, 0.75, 0.5, 2.9999999};
    for (enum cudaRoundMode mode : modes) {
        for (unsigned int bits = 0; bits < 65536; ++bits) {
            const float x = from_half_bits((unsigned short)bits);
            __half_raw h;
            h.x = (unsigned short)bits;
            __nv_bfloat16_raw b;
            b.x = (unsigned short)bits;
            if (x != x) {
                printf("m%d h%04x nan %02x %02x %02x\n", (int)mode, bits, __nv_cvt_float_to_fp4(x, __NV_E2M1, mode),
                       __nv_cvt_float_to_fp6(x, __NV_E2M3, mode), __nv_cvt_float_to_fp6(x, __NV_E3M2, mode));
                continue;
            }
            printf("m%d h%04x %02x %02x %02x %02x %02x %02x %02x %02x %02x\n", (int)mode, bits,
                   __nv_cvt_float_to_fp4(x, __NV_E2M1, mode), __nv_cvt_halfraw_to_fp4(h, __NV_E2M1, mode),
                   __nv_cvt_bfloat16raw_to_fp4(b, __NV_E2M1, mode), __nv_cvt_float_to_fp6(x, __NV_E2M3, mode),
                   __nv_cvt_halfraw_to_fp6(h, __NV_E2M3, mode), __nv_cvt_bfloat16raw_to_fp6(b, __NV_E2M3, mode),
                   __nv_cvt_float_to_fp6(x, __NV_E3M2, mode), __nv_cvt_halfraw_to_fp6(h, __NV_E3M2, mode),
                   __nv_cvt_bfloat16raw_to_fp6(b, __NV_E3M2, mode));
        }
        for (double x : specials) {
            for (double s : {x, -x, x * 0.999999, x * 1.000001, x / 2, x / 4, x / 8, x / 16})
                printf("m%d %a %02x %02x %02x %02x %02x %02x\n", (int)mode, s, __nv_cvt_double_to_fp4(s, __NV_E2M1, mode),
                       __nv_cvt_float_to_fp4((float)s, __NV_E2M1, mode), __nv_cvt_double_to_fp6(s, __NV_E2M3, mode),
                       __nv_cvt_float_to_fp6((float)s, __NV_E2M3, mode), __nv_cvt_double_to_fp6(s, __NV_E3M2, mode),
                       __nv_cvt_float_to_fp6((float)s, __NV_E3M2, mode));
        }
        printf("m%d nan %02x %02x %02x\n", (int)mode, __nv_cvt_double_to_fp4(NAN, __NV_E2M1, mode),
               __nv_cvt_double_to_fp6(-NAN, __NV_E2M3, mode), __nv_cvt_double_to_fp6(NAN, __NV_E3M2, mode));
        printf("m%d pairs %02x %04x %04x %02x %04x\n", (int)mode,
               __nv_cvt_float2_to_fp4x2(make_float2(1.5f, -3.0f), __NV_E2M1, mode),
               __nv_cvt_float2_to_fp6x2(make_float2(1.5f, -3.0f), __NV_E2M3, mode),
               __nv_cvt_double2_to_fp6x2(make_double2(0.3, 20.0), __NV_E3M2, mode),
               __nv_cvt_double2_to_fp4x2(make_double2(0.3, 20.0), __NV_E2M1, mode),
               __nv_cvt_halfraw2_to_fp6x2(static_cast<__half2_raw>(__floats2half2_rn(0.7f, -0.2f)), __NV_E3M2, mode));
    }
    for (unsigned int code = 0; code < 64; ++code) {
        if (code < 16) printf("c%02x fp4 %04x\n", code, __nv_cvt_fp4_to_halfraw((__nv_fp4_storage_t)code, __NV_E2M1).x);
        printf("c%02x e2m3 %04x e3m2 %04x\n", code, __nv_cvt_fp6_to_halfraw((__nv_fp6_storage_t)code, __NV_E2M3).x,
               __nv_cvt_fp6_to_halfraw((__nv_fp6_storage_t)code, __NV_E3M2).x);
    }
    const __half2_raw two = __nv_cvt_fp4x2_to_halfraw2(0x9B, __NV_E2M1);
    const __half2_raw six = __nv_cvt_fp6x2_to_halfraw2(0x2A15, __NV_E3M2);
    printf("widen pairs %04x %04x %04x %04x\n", two.x, two.y, six.x, six.y);
    for (double x : specials) {
        for (double s : {x, -x, x / 3}) {
            classes<__nv_fp4_e2m1>("fp4", s);
            classes<__nv_fp6_e2m3>("e2m3", s);
            classes<__nv_fp6_e3m2>("e3m2", s);
        }
    }
    // E8M0: every bfloat16 and half value, both roundings and saturations; doubles; classes
    const __nv_saturation_t saturations[] = {__NV_NOSAT, __NV_SATFINITE};
    const enum cudaRoundMode scale_modes[] = {cudaRoundZero, cudaRoundPosInf};
    for (__nv_saturation_t sat : saturations) {
        for (enum cudaRoundMode mode : scale_modes) {
            for (unsigned int bits = 0; bits < 65536; ++bits) {
                __nv_bfloat16_raw b;
                b.x = (unsigned short)bits;
                const float x = from_half_bits((unsigned short)bits);
                printf("e8 %d %d %04x %02x %02x\n", (int)sat, (int)mode, bits, __nv_cvt_bfloat16raw_to_e8m0(b, sat, mode),
                       __nv_cvt_float_to_e8m0(x, sat, mode));
            }
            for (double x : specials)
                for (double s : {x, -x, x * 1.0000000001, x * 0.9999999999, x * 3e38, x * 1e-39, x * 3.3})
                    printf("e8d %d %d %a %02x %02x %04x\n", (int)sat, (int)mode, s, __nv_cvt_double_to_e8m0(s, sat, mode),
                           __nv_cvt_float_to_e8m0((float)s, sat, mode),
                           __nv_cvt_double2_to_e8m0x2(make_double2(s, s * 7), sat, mode));
            printf("e8nan %d %d %02x %02x\n", (int)sat, (int)mode, __nv_cvt_float_to_e8m0(NAN, sat, mode),
                   __nv_cvt_double_to_e8m0(-NAN, sat, mode));
        }
    }
    for (unsigned int code = 0; code < 256; ++code) {
        __nv_fp8_e8m0 scale;
        scale.__x = (__nv_fp8_storage_t)code;
        printf("e8c %02x %04x %a %a %04x %u %d %u %d %llu %lld %d\n", code, __nv_cvt_e8m0_to_bf16raw((__nv_fp8_storage_t)code).x,
               (double)(float)scale, (double)scale, static_cast<__half_raw>(static_cast<__half>(scale)).x,
               (unsigned)(unsigned char)scale, (int)(signed char)scale, (unsigned)(unsigned short)scale, (int)scale,
               (unsigned long long)scale, (long long)scale, (int)(bool)scale);
    }
    const long long scale_integers[] = {0, 1, 2, 3, -3, 1000, -1025, 65535, 65536, 1LL << 40, (1LL << 40) + 1,
                                        -(1LL << 62) - 5, 9223372036854775807LL};
    for (long long i : scale_integers)
        printf("e8i %lld %02x %02x %02x %02x %02x %02x\n", i, __nv_fp8_e8m0((int)i).__x, __nv_fp8_e8m0(i).__x,
               __nv_fp8_e8m0((unsigned long long)i).__x, __nv_fp8_e8m0((short)i).__x, __nv_fp8_e8m0((unsigned)i).__x,
               __nv_fp8_e8m0(__float2bfloat16((float)i)).__x);
    const __nv_fp8x2_e8m0 scales2(make_float2(0.3f, 1000.0f));
    const __nv_fp8x4_e8m0 scales4(make_double4_32a(1.0, 1e-40, 3e38, -5.0));
    const float4 scales_back = static_cast<float4>(scales4);
    const __half2 scales_half = static_cast<__half2>(scales2);
    printf("e8v %04x %08x %a %a %a %a %g %g %04x\n", scales2.__x, scales4.__x, (double)scales_back.x, (double)scales_back.y,
           (double)scales_back.z, (double)scales_back.w, __low2float(scales_half), __high2float(scales_half),
           __nv_fp8x2_e8m0(__floats2bfloat162_rn(5.0f, 0.01f)).__x);

    const float4 four = make_float4(0.5f, -1.25f, 3.0f, 100.0f);
    const __nv_fp4x4_e2m1 q4(four);
    const __nv_fp6x4_e3m2 q6(four);
    const __nv_fp6x2_e2m3 p6(make_float2(-0.3f, 2.2f));
    const __nv_fp4x2_e2m1 p4(make_double2(1.1, -5.0));
    const float4 back = static_cast<float4>(q6);
    const float2 pair = static_cast<float2>(p6);
    const __nv_fp4x4_e2m1 aligned(make_double4_32a(1.0, 2.0, -4.0, 0.3));
    printf("aligned %04x %04x\n", aligned.__x, __nv_fp6x4_e2m3(make_double4_16a(1.0, 2.0, -4.0, 0.3)).__x);
    printf("vectors %04x %08x %04x %02x %g %g %g %g %g %g\n", q4.__x, q6.__x, p6.__x, p4.__x, back.x, back.y, back.z,
           back.w, pair.x, pair.y);
    return 0;
}
