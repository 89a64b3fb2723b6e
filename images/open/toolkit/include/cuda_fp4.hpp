/* moatbridge CUDA compatibility header (open flavour): see cuda_fp4.h. */
#pragma once
#include <cuda_fp4.h>
