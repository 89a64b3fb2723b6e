#pragma once
__device__ int bin_of(float value, int bins);
__global__ void histogram(const float* values, int n, int* counts, int bins);
