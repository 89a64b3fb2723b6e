// fp8_conversions.cpp — every FP8 conversion CUDA's cuda_fp8.h offers, over every half value,
// special values and every FP8 code, printed one per line. Compiled on the host against
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
                if (x != x) continue;  // NaN payloads differ by library; NaN itself is checked below
                printf("%d %d h%04x %02x\n", (int)kind, (int)mode, bits, __nv_cvt_float_to_fp8(x, mode, kind));
            }
            for (float x : specials)
                printf("%d %d %a %02x %02x\n", (int)kind, (int)mode, x, __nv_cvt_float_to_fp8(x, mode, kind),
                       __nv_cvt_double_to_fp8((double)x, mode, kind));
            printf("%d %d nan %d\n", (int)kind, (int)mode, (__nv_cvt_float_to_fp8(NAN, mode, kind) & 0x7F) == 0x7F);
        }
        for (unsigned int code = 0; code < 256; ++code) {
            __half_raw raw = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)code, kind);
            float value = static_cast<float>(__half(raw));
            if (value != value) printf("%d c%02x nan\n", (int)kind, code);
            else printf("%d c%02x %04x\n", (int)kind, code, raw.x);
        }
    }
    __nv_fp8_e4m3 a(3.3f);
    __nv_fp8_e5m2 b(-1000.0);
    printf("classes %02x %g %02x %g\n", a.__x, (float)a, b.__x, (float)b);
    return 0;
}
