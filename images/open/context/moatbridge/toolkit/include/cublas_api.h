/* moatbridge CUDA compatibility header (open flavour, HIP 5.7). */
#pragma once
#include <moatbridge/runtime.h>
#ifndef ROCM_MATHLIBS_API_USE_HIP_COMPLEX
#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX 1 /* cuComplex == hipFloatComplex */
#endif
#include <moatbridge/hide_cuda_macros.h>
#include <hipblas/hipblas.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cublas.h>
