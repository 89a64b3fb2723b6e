/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#include <moatbridge/hide_cuda_macros.h>
/* hipFFT with the cufftResult values it lacks added to its enum (the generator's status
   shadow; moatbridge/generated/status_codes.h names them): listed explicitly for host
   compilers, whose include path has no shadow directory. */
#if __has_include(<moatbridge/shadow/hipfft/hipfft.h>)
#include <moatbridge/shadow/hipfft/hipfft.h>
#else
#include <hipfft/hipfft.h>
#endif
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cufft.h>
/* cuFFT's setting types hipFFT has no counterpart for, as CUDA declares them (names and
   values), so code that names them compiles; the calls taking them are not provided. */
#ifndef cufftCompatibility
typedef enum { CUFFT_COMPATIBILITY_FFTW_PADDING = 1 } cufftCompatibility;
#endif
#ifndef cufftProperty
typedef enum {
    NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT = 1
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
    , NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS = 2
#endif
} cufftProperty;
#endif
