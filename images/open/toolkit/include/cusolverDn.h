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
#include <hipsolver/hipsolver.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cusolver.h>
/* cusolverStatus_t values hipSOLVER 5.5 lacks: distinct numbers it never returns. */
#ifndef CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED
#define CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED ((hipsolverStatus_t)1008)
#endif
#ifndef CUSOLVER_STATUS_ZERO_PIVOT
#define CUSOLVER_STATUS_ZERO_PIVOT ((hipsolverStatus_t)1010)
#endif
#ifndef CUSOLVER_STATUS_INVALID_LICENSE
#define CUSOLVER_STATUS_INVALID_LICENSE ((hipsolverStatus_t)1011)
#endif
