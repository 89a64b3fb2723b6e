/* moatbridge CUDA compatibility header (open flavour): see cuda_fp8.h. */
#pragma once
#include <cuda_fp8.h>
