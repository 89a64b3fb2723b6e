/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#include <moatbridge/hide_cuda_macros.h>
#include <hipfft/hipfft.h>
#include <hipfft/hipfftXt.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cufft.h>
