/* moatbridge CUDA compatibility header (open flavour, HIP 5.7). */
#pragma once
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__
#endif
#include <moatbridge/runtime.h>
