#pragma once
#include <cstddef>

// Scales n floats on the GPU; returns the CUDA error code (0 on success).
int scale_on_device(float* host_values, std::size_t n, float factor);
