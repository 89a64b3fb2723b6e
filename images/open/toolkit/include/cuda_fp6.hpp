/* moatbridge CUDA compatibility header (open flavour): see cuda_fp6.h. */
#pragma once
#include <cuda_fp6.h>
