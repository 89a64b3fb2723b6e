#include <cstdio>

#include "tables.h"

int main() {
    float* out = nullptr;
    const cudaError_t status = cudaMalloc(&out, 4 * sizeof(float));
    if (status != cudaSuccess) {
        std::printf("no device: %s\n", cudaGetErrorString(status));
        return 3;
    }
    upload_tables(2.0f);
    const int threads = run_combine(out);
    float result[4] = {};
    cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost);
    float scale = 0.0f;
    cudaMemcpyFromSymbol(&scale, scale_factor, sizeof scale);
    float table[4] = {};
    const float* address = table_address();
    if (address != nullptr) cudaMemcpy(table, address, sizeof table, cudaMemcpyDeviceToHost);
    int failures = threads == 4 ? 0 : 1;
    failures += scale == 2.0f ? 0 : 1;
    for (int i = 0; i < 4; ++i) {
        const float expected = (i + 1) * 2.0f + 0.25f * (i + 1) + 100.0f * (i + 1) + 1000.0f * (i + 1);
        failures += result[i] == expected ? 0 : 1;
        failures += table[i] == static_cast<float>(i + 1) ? 0 : 1;
        std::printf("out[%d] = %g (expected %g), table[%d] = %g\n", i, result[i], expected, i, table[i]);
    }
    std::printf("threads %d, scale %g\n%s\n", threads, scale, failures == 0 ? "PASSED" : "FAILED");
    return failures == 0 ? 0 : 1;
}
