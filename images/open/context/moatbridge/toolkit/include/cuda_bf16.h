/* moatbridge CUDA compatibility header (open flavour, HIP 5.7). */
#pragma once
#include <moatbridge/runtime.h>
#include <hip/hip_bf16.h>
/* hipify maps these to the old hip_bfloat16 class; CUDA's types are HIP's __hip_bfloat16. */
#define __nv_bfloat16 __hip_bfloat16
#define __nv_bfloat162 __hip_bfloat162
#define nv_bfloat16 __hip_bfloat16
#define nv_bfloat162 __hip_bfloat162
