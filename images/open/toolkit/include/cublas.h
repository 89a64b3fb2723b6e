/* moatbridge CUDA compatibility header (open flavour, HIP 5.7). */
#pragma once
#include <cublas_api.h>
