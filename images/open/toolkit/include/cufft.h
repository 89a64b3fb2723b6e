/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#include <moatbridge/hide_cuda_macros.h>
#include <hipfft/hipfft.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cufft.h>
/* cufftResult values hipFFT lacks: distinct numbers it never returns (switches over every
   CUDA value, as cuda-samples' helper_cuda.h has, must compile). */
#ifndef CUFFT_LICENSE_ERROR
#define CUFFT_LICENSE_ERROR ((hipfftResult)15)
#endif
