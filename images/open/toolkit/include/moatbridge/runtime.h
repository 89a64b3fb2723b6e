/* moatbridge: the CUDA runtime and driver API names on HIP 5.7. Included by cuda_runtime.h,
   cuda_runtime_api.h and cuda.h; usable from .cu (nvcc) and plain C++ (CMake's CUDA::cudart). */
#pragma once
#include <moatbridge/generated/version.h>
/* Runtime compilation (nvrtc.h over hiprtc) has HIP's device side built in and no host API to
   declare: only what CUDA device code has beyond HIP's comes from here. */
#if !defined(__HIPCC_RTC__)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <moatbridge/hide_cuda_macros.h>
/* HIP 7 declares CUDA's *_sync warp functions itself, but insists on 64-bit masks where CUDA
   code passes 32-bit ones (0xffffffff): ours (warp_sync.h, intrinsics.h) take either, as on
   HIP 5.7 and 6, where HIP leaves them out by default. */
#include <hip/hip_version.h>
#if HIP_VERSION_MAJOR >= 7 && !defined(HIP_DISABLE_WARP_SYNC_BUILTINS)
#define HIP_DISABLE_WARP_SYNC_BUILTINS 1
#endif
/* HIP 5.7 and 6 define __noinline__ for every compiler (empty in a host compiler's), NVIDIA's
   headers only for a CUDA compiler: after HIP's, libstdc++'s [[__gnu__::__noinline__]]
   (<format>, which <thread> includes from C++23 on, and hip_runtime.h includes <thread>) reads
   as an attribute without a name. A host compile takes HIP's other macros and, as with
   NVIDIA's headers, no __noinline__ (no HIP header uses it outside the device compile). */
#if !defined(__HIP__)
#include <hip/hip_common.h>
#include <hip/amd_detail/host_defines.h>
#undef __noinline__
/* a host compiler's __half and __half2 are moatbridge's, before any HIP header includes HIP's */
#include <moatbridge/fp16_host.h>
#endif
/* HIP's runtime API with hipError_t not [[nodiscard]] (the generator's no_nodiscard shadow,
   where HIP has it): CUDA's cudaError_t is a plain enum, so `cudaFree(p);` is quiet under
   g++ -std=c++17 too. Listed explicitly for host compilers, whose include path has no
   shadow directory; its include guard then keeps HIP's own copy out. */
#if __has_include(<moatbridge/shadow/hip/hip_runtime_api.h>)
#include <moatbridge/shadow/hip/hip_runtime_api.h>
#endif
#include <hip/hip_runtime.h>
#include <hip/hip_complex.h>
#include <hip/library_types.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/runtime.h>
#include <moatbridge/generated/status_codes.h>
#include <moatbridge/overrides.h>
#include <moatbridge/driver.h>
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
#include <moatbridge/runtime_13.h>
#include <moatbridge/vector_types_13.h>
#endif
#endif
/* CUDA's rounding modes (its device_types.h): host code names them too (the conversions of
   cuda_fp4.h and cuda_fp6.h take one). */
#ifndef MOATBRIDGE_CUDA_ROUND_MODE
#define MOATBRIDGE_CUDA_ROUND_MODE
enum cudaRoundMode { cudaRoundNearest, cudaRoundZero, cudaRoundPosInf, cudaRoundMinInf };
#endif
#if defined(__HIP__)
#include <moatbridge/warp_sync.h>
#include <moatbridge/intrinsics.h>
#if !defined(__HIPCC_RTC__)
#include <moatbridge/surface_functions.h>
#endif
#endif
/* The calling convention of host callbacks (empty but on Windows) */
#ifndef CUDART_CB
#define CUDART_CB
#endif
/* CUDA 11.7's kernel-parameter attribute: parameters are read-only constants on AMD anyway */
#ifndef __grid_constant__
#define __grid_constant__
#endif
#ifndef CUDART_VERSION
#define CUDART_VERSION MOATBRIDGE_CUDA_VERSION_NUMBER
#endif
#ifndef CUDA_VERSION
#define CUDA_VERSION MOATBRIDGE_CUDA_VERSION_NUMBER
#endif
