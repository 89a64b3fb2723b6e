#pragma once

extern __device__ float scale_factor;  // tables.cu
extern __constant__ int offsets[4];    // tables.cu
__device__ float lookup(int i);        // tables.cu: reads tables.cu's own c_Table

void upload_tables(float scale);
const float* table_address();

int run_combine(float* out);  // kernels.cu: returns how many threads ran
