/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#if defined(__HIP__)
#if defined(__HIPCC_RTC__) && HIP_VERSION_MAJOR < 6
/* hiprtc 5.7 has HIP's detail headers built in without their include guards, so the bf16
   header's includes of them define everything twice (plain hiprtc fails the same way on
   `#include <hip/hip_bf16.h>`): their guards, defined here, leave hiprtc's copies alone. */
#define HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COMMON_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HIP_VECTOR_TYPES_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_DEVICE_LIBRARY_DECLS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HOST_DEFINES_H
#endif
/* HIP's bf16 header, shadowed where its __hip_bfloat16 is not the class CUDA's __nv_bfloat16
   is (the generator's bfloat16_class probe: HIP 5.7; HIP 6 has the class and no shadow is
   written); listed explicitly for host compilers, whose include path has no shadow directory */
#if __has_include(<moatbridge/shadow/hip/amd_detail/amd_hip_bf16.h>)
#include <moatbridge/shadow/hip/amd_detail/amd_hip_bf16.h>
#endif
#include <hip/hip_bf16.h>
#include <moatbridge/bf16_functions.h>
#else
#include <hip/hip_version.h>
#if !defined(__clang__)
/* g++ cannot read HIP 7's bf16 header (clang extensions), and HIP 5.7's and 6's only with
   parts cut out: it gets moatbridge's host bf16, the types and functions NVIDIA's header
   gives a host compiler. */
#include <moatbridge/bf16_host.h>
#elif HIP_VERSION_MAJOR >= 6
/* A host-only compile (clang++ without -x hip) of HIP 6's bf16 header: its functions
   are `static inline` already, but it includes HIP's warp functions, which only a device
   compiler parses (amdgcn builtins, the wave size), and defines the bf16 warp shuffles on top
   of them. Leave both out: a host compiler cannot call them anyway. */
#pragma push_macro("HIP_ENABLE_WARP_SYNC_BUILTINS")
#undef HIP_ENABLE_WARP_SYNC_BUILTINS
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_WARP_FUNCTIONS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_WARP_FUNCTIONS_H
#define MOATBRIDGE_WARP_FUNCTIONS_LEFT_OUT
#endif
#include <hip/hip_bf16.h>
#ifdef MOATBRIDGE_WARP_FUNCTIONS_LEFT_OUT
#undef HIP_INCLUDE_HIP_AMD_DETAIL_WARP_FUNCTIONS_H
#undef MOATBRIDGE_WARP_FUNCTIONS_LEFT_OUT
#endif
#pragma pop_macro("HIP_ENABLE_WARP_SYNC_BUILTINS")
#include <moatbridge/bf16_functions.h>
#else
/* A host-only compile (clang++ without -x hip) of HIP 5.7's bf16 header defines 26
   non-inline `__device__` functions (duplicate symbols across translation units) and calls
   device-library math (__ocml_*) that no host library provides. Make those functions static
   there, and give the math host definitions (weak: one copy per program). */
#include <climits>
#include <hip/hip_common.h>
#include <hip/amd_detail/amd_hip_common.h>
#include <hip/amd_detail/amd_hip_vector_types.h>
#include <hip/amd_detail/device_library_decls.h>
#include <hip/amd_detail/math_fwd.h>
#pragma push_macro("__device__")
#undef __device__
#define __device__ static __attribute__((unused))
/* HIP's bf16 header, shadowed where its __hip_bfloat16 is not the class CUDA's __nv_bfloat16
   is (the generator's bfloat16_class probe: HIP 5.7; HIP 6 has the class and no shadow is
   written); listed explicitly for host compilers, whose include path has no shadow directory */
#if __has_include(<moatbridge/shadow/hip/amd_detail/amd_hip_bf16.h>)
#include <moatbridge/shadow/hip/amd_detail/amd_hip_bf16.h>
#endif
#include <hip/hip_bf16.h>
#pragma pop_macro("__device__")
/* what HIP lacks (host-callable functions only here: nothing in it wants the __device__ above) */
#include <moatbridge/bf16_functions.h>
#include <math.h>
#define MOATBRIDGE_OCML_1(name, expression) \
    extern "C" __attribute__((weak)) float __ocml_##name##_f32(float x) { return expression; }
MOATBRIDGE_OCML_1(ceil, ceilf(x))
MOATBRIDGE_OCML_1(cos, cosf(x))
MOATBRIDGE_OCML_1(exp10, powf(10.0f, x))
MOATBRIDGE_OCML_1(exp2, exp2f(x))
MOATBRIDGE_OCML_1(exp, expf(x))
MOATBRIDGE_OCML_1(floor, floorf(x))
MOATBRIDGE_OCML_1(log10, log10f(x))
MOATBRIDGE_OCML_1(log2, log2f(x))
MOATBRIDGE_OCML_1(log, logf(x))
MOATBRIDGE_OCML_1(rint, rintf(x))
MOATBRIDGE_OCML_1(rsqrt, 1.0f / sqrtf(x))
MOATBRIDGE_OCML_1(sin, sinf(x))
MOATBRIDGE_OCML_1(sqrt, sqrtf(x))
MOATBRIDGE_OCML_1(trunc, truncf(x))
#undef MOATBRIDGE_OCML_1
extern "C" __attribute__((weak)) float __ocml_fma_f32(float a, float b, float c) { return fmaf(a, b, c); }
extern "C" __attribute__((weak)) float __ocml_fmax_f32(float a, float b) { return fmaxf(a, b); }
extern "C" __attribute__((weak)) float __ocml_fmin_f32(float a, float b) { return fminf(a, b); }
extern "C" __attribute__((weak)) int __ocml_isinf_f32(float x) { return isinf(x); }
extern "C" __attribute__((weak)) int __ocml_isnan_f32(float x) { return isnan(x); }
#endif
#endif
/* hipify maps these to the old hip_bfloat16 class; CUDA's types are HIP's __hip_bfloat16. */
#define __nv_bfloat16 __hip_bfloat16
#define __nv_bfloat162 __hip_bfloat162
#define nv_bfloat16 __hip_bfloat16
#define nv_bfloat162 __hip_bfloat162
