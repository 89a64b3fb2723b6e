#include "tables.h"

static __device__ float d_Bias[4];      // internal, filled below
static __constant__ float c_Table[4];   // the same name as tables.cu's, a different variable
static __managed__ int threads_run;

__global__ void combine(float* out) {
    const int i = threadIdx.x;
    out[i] = lookup(i) + d_Bias[i] + static_cast<float>(offsets[i]) + c_Table[i];
    atomicAdd(&threads_run, 1);
}

int run_combine(float* out) {
    const float bias[4] = {0.25f, 0.5f, 0.75f, 1.0f};
    const float table[4] = {1000.0f, 2000.0f, 3000.0f, 4000.0f};
    cudaMemcpyToSymbol(d_Bias, bias, sizeof bias);
    cudaMemcpyToSymbol(c_Table, table, sizeof table);
    threads_run = 0;
    combine<<<1, 4>>>(out);
    cudaDeviceSynchronize();
    return threads_run;
}
