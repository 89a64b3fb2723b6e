/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#ifndef ROCM_MATHLIBS_API_USE_HIP_COMPLEX
#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX 1 /* cuComplex == hipFloatComplex */
#endif
#include <cublas_api.h>
/* cuSOLVER takes cuBLAS enums (CUBLAS_OP_N): let hipSOLVER alias hipBLAS's. */
#ifndef HIPSOLVER_USE_HIPBLAS_ENUMS
#define HIPSOLVER_USE_HIPBLAS_ENUMS 1
#endif
#include <moatbridge/hide_cuda_macros.h>
/* hipSOLVER with cuSOLVER's statuses added to its enum (the generator's status shadow):
   listed explicitly for host compilers, whose include path has no shadow directory. */
#if __has_include(<moatbridge/shadow/hipsolver/hipsolver.h>)
#include <moatbridge/shadow/hipsolver/hipsolver.h>
#else
#include <hipsolver/hipsolver.h>
#endif
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cusolver.h>
/* cusolverStatus_t values hipSOLVER lacks or folds: moatbridge/generated/status_codes.h, with
   enumerators of their own in the shadowed hipsolver-types.h (cudacompat/generate/status_codes.py). */
