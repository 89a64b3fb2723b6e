/* moatbridge CUDA compatibility header (open flavour, HIP 5.7). */
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
#include <hipsolver/hipsolver.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cusolver.h>
