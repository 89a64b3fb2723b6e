// fp8_conversions.cpp — every FP8 conversion CUDA's cuda_fp8.h offers, over every half value,
// special values (NaN too) and every FP8 code, printed one per line. Compiled on the host against
// NVIDIA's real headers (g++) and against the open toolkit's (nvcc, host code), the two
// outputs must be the same (tests/test_cuda_fp8.py).
#include <cuda_fp8.h>
#include <cstdio>
#include <cstring>
#include <cmath>

static float from_half_bits(unsigned short bits) {
    __half_raw raw;
    raw.x = bits;
    return static_cast<float>(__half(raw));
}

int main() {
    const __nv_fp8_interpretation_t kinds[] = {__NV_E4M3, __NV_E5M2};
    const __nv_saturation_t modes[] = {__NV_NOSAT, __NV_SATFINITE};
    const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, 448.0f, 464.0f, 480.0f, 57344.0f, 61440.0f,
                              1e30f, -1e30f, 1e-30f, 0.0009765625f, 0.00048828125f, 1.0000001f};
    for (__nv_fp8_interpretation_t kind : kinds) {
        for (__nv_saturation_t mode : modes) {
            for (unsigned int bits = 0; bits < 65536; ++bits) {
                float x = from_half_bits((unsigned short)bits);
                printf("%d %d h%04x %02x\n", (int)kind, (int)mode, bits, __nv_cvt_float_to_fp8(x, mode, kind));
            }
            for (float x : specials)
                printf("%d %d %a %02x %02x\n", (int)kind, (int)mode, x, __nv_cvt_float_to_fp8(x, mode, kind),
                       __nv_cvt_double_to_fp8((double)x, mode, kind));
            // NaN: from float always 0x7F, from double signed (E5M2's quiet code 0x7E)
            printf("%d %d nan %02x %02x %02x %02x\n", (int)kind, (int)mode, __nv_cvt_float_to_fp8(NAN, mode, kind),
                   __nv_cvt_float_to_fp8(-NAN, mode, kind), __nv_cvt_double_to_fp8(NAN, mode, kind),
                   __nv_cvt_double_to_fp8(-NAN, mode, kind));
        }
        for (unsigned int code = 0; code < 256; ++code) {
            __half_raw raw = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)code, kind);
            float value = static_cast<float>(__half(raw));
            if (value != value) printf("%d c%02x nan\n", (int)kind, code);
            else printf("%d c%02x %04x\n", (int)kind, code, raw.x);
        }
    }
    for (unsigned int bits = 0; bits < 65536; bits += 7) {  // half and bfloat16 inputs, pairs
        __half_raw h;
        h.x = (unsigned short)bits;
        __nv_bfloat16_raw b;
        b.x = (unsigned short)bits;
        __half2_raw h2;
        h2.x = (unsigned short)bits;
        h2.y = (unsigned short)(bits ^ 0x3c5a);
        __nv_bfloat162_raw b2;
        b2.x = (unsigned short)bits;
        b2.y = (unsigned short)(bits ^ 0x3c5a);
        for (__nv_fp8_interpretation_t kind : kinds)
            for (__nv_saturation_t mode : modes)
                printf("hb %d %d %04x %02x %02x %04x %04x\n", (int)kind, (int)mode, bits, __nv_cvt_halfraw_to_fp8(h, mode, kind),
                       __nv_cvt_bfloat16raw_to_fp8(b, mode, kind), __nv_cvt_halfraw2_to_fp8x2(h2, mode, kind),
                       __nv_cvt_bfloat16raw2_to_fp8x2(b2, mode, kind));
    }
    for (__nv_fp8_interpretation_t kind : kinds) {
        const __half2_raw widened = __nv_cvt_fp8x2_to_halfraw2(0x9C3B, kind);
        printf("widen %d %04x %04x\n", (int)kind, widened.x, widened.y);
    }
    const long long integers[] = {0, 1, -3, 17, 300, 449, 100000, -70000, 1LL << 40};
    for (long long i : integers)
        printf("int %lld %02x %02x %02x %02x %02x\n", i, __nv_fp8_e4m3((int)i).__x, __nv_fp8_e5m2(i).__x,
               __nv_fp8_e4m3((unsigned long)(i < 0 ? -i : i)).__x, __nv_fp8_e5m2((short)i).__x,
               __nv_fp8_e4m3(__float2bfloat16((float)i)).__x);
    printf("bf16 %04x\n", static_cast<__nv_bfloat16_raw>(static_cast<__nv_bfloat16>(__nv_fp8_e5m2(-1000.0))).x);
    __nv_fp8_e4m3 a(3.3f);
    __nv_fp8_e5m2 b(-1000.0);
    printf("classes %02x %g %02x %g\n", a.__x, (float)a, b.__x, (float)b);
    return 0;
}
