/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
/* cufft.h first: its hipFFT has cuFFT's whole status enum, and its include guard keeps the
   copy hipfftXt.h names out */
#include <cufft.h>
#include <moatbridge/hide_cuda_macros.h>
#include <hipfft/hipfftXt.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cufft.h>
