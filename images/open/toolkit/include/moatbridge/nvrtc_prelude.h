/* moatbridge nvrtc: force-included into every program nvrtcCompileProgram hands to hiprtc. What
   NVRTC predefines (its compiler and version macros; __CUDA_ARCH__ comes with the options),
   and the CUDA device functions HIP lacks, which NVRTC has built in. */
#pragma once
#include <moatbridge/runtime.h>
#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __CUDACC_VER_MAJOR__ MOATBRIDGE_CUDA_MAJOR
#define __CUDACC_VER_MINOR__ MOATBRIDGE_CUDA_MINOR
#define __CUDACC_VER_BUILD__ MOATBRIDGE_CUDA_BUILD
#define __CUDA_API_VER_MAJOR__ __CUDACC_VER_MAJOR__
#define __CUDA_API_VER_MINOR__ __CUDACC_VER_MINOR__
/* What NVRTC has without an include and hiprtc lacks: NULL (NVRTC's is 0, an int), assert
   (device assert, off under NDEBUG) and, on HIP 5.7, ptrdiff_t and clock_t (glibc's long, which
   clock() returns). */
#ifndef NULL
#define NULL 0
#endif
#ifndef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __assert_fail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#endif
#endif
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#if HIP_VERSION_MAJOR < 6
typedef long clock_t;
#endif
