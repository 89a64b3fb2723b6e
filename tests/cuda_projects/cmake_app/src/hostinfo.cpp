// Plain C++ (compiled by the C++ compiler, not nvcc) using the CUDA runtime API.
#include "hostinfo.h"
#include <cuda_runtime_api.h>
#include <cstdio>

int report_devices() {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(status));
        return -1;
    }
    std::printf("CUDA runtime %d, %d device(s)\n", CUDART_VERSION, count);
    return count;
}
