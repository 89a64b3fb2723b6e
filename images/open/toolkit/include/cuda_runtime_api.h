/* moatbridge CUDA compatibility header (open flavour, HIP 5.7). */
#pragma once
#ifndef __CUDA_RUNTIME_API_H__
#define __CUDA_RUNTIME_API_H__
#endif
#include <moatbridge/runtime.h>
