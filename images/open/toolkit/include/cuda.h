/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__
#endif
#include <moatbridge/runtime.h>
