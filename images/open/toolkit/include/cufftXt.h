/* moatbridge CUDA compatibility header (open flavour, HIP 5.7). */
#pragma once
#include <moatbridge/runtime.h>
#include <moatbridge/hide_cuda_macros.h>
#include <hipfft/hipfft.h>
#include <hipfft/hipfftXt.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cufft.h>
