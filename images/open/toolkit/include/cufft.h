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
