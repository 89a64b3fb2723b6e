// pitched_memcpy2d.cu
// Covers: pitched device allocations (cudaMallocPitch), cudaMemcpy2D host<->device and
// device->device between buffers with different pitches, cudaMemset2D, and kernels that
// index rows through the pitch in bytes.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__global__ void addRowCol(float* devPtr, size_t pitch, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(devPtr) + y * pitch);
        row[x] += static_cast<float>(1000 * y + x);
    }
}

int main()
{
    const int width = 123, height = 45;   // deliberately not multiples of the alignment
    const size_t rowBytes = width * sizeof(float);

    float* dA = nullptr;
    size_t pitchA = 0;
    CHECK(cudaMallocPitch(reinterpret_cast<void**>(&dA), &pitchA, rowBytes, height));
    float* dB = nullptr;
    size_t pitchB = 0;
    CHECK(cudaMallocPitch(reinterpret_cast<void**>(&dB), &pitchB, rowBytes + 64, height));
    printf("width %zu bytes -> pitch %zu / %zu bytes\n", rowBytes, pitchA, pitchB);

    std::vector<float> h(width * height), out(width * height, -1.0f);
    for (int i = 0; i < width * height; ++i) h[i] = 0.5f * (i % 9);

    CHECK(cudaMemset2D(dA, pitchA, 0, rowBytes, height));
    CHECK(cudaMemcpy2D(dA, pitchA, h.data(), rowBytes, rowBytes, height, cudaMemcpyHostToDevice));

    dim3 block(32, 8);
    dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    addRowCol<<<grid, block>>>(dA, pitchA, width, height);
    CHECK(cudaGetLastError());

    // Device-to-device copy into a buffer with a different pitch, then back to the host.
    CHECK(cudaMemset2D(dB, pitchB, 0xFF, rowBytes + 64, height));
    CHECK(cudaMemcpy2D(dB, pitchB, dA, pitchA, rowBytes, height, cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy2D(out.data(), rowBytes, dB, pitchB, rowBytes, height, cudaMemcpyDeviceToHost));

    // Padding bytes after each row in dB must still hold the 0xFF memset pattern.
    std::vector<unsigned char> pad(64);
    CHECK(cudaMemcpy(pad.data(), reinterpret_cast<char*>(dB) + rowBytes, 64, cudaMemcpyDeviceToHost));

    int errors = 0;
    if (pitchA < rowBytes || pitchB < rowBytes + 64) ++errors;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            if (out[y * width + x] != h[y * width + x] + static_cast<float>(1000 * y + x)) ++errors;
    for (int i = 0; i < 64; ++i)
        if (pad[i] != 0xFF) ++errors;

    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));

    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
