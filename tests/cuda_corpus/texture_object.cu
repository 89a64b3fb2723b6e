// texture_object.cu
// Covers: texture objects — cudaMallocArray with a channel descriptor, cudaMemcpy2DToArray,
// cudaCreateTextureObject (resource + texture descriptors, clamp addressing, point filtering),
// tex2D<float> fetches in a kernel, cudaDestroyTextureObject, cudaFreeArray.
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// 3-tap horizontal box sum; clamp addressing replicates the edge texels.
__global__ void boxFilterX(cudaTextureObject_t tex, float* out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float fx = x + 0.5f, fy = y + 0.5f;
        out[y * width + x] = tex2D<float>(tex, fx - 1.0f, fy) +
                             tex2D<float>(tex, fx, fy) +
                             tex2D<float>(tex, fx + 1.0f, fy);
    }
}

int main()
{
    CHECK(cudaSetDevice(0));

    const int width = 64, height = 48;
    std::vector<float> h(width * height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            h[y * width + x] = static_cast<float>(x + 100 * y);

    cudaChannelFormatDesc channelDesc = cudaCreateChannelDesc<float>();
    cudaArray_t array = nullptr;
    CHECK(cudaMallocArray(&array, &channelDesc, width, height));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, h.data(), width * sizeof(float),
                              width * sizeof(float), height, cudaMemcpyHostToDevice));

    cudaResourceDesc resDesc;
    memset(&resDesc, 0, sizeof(resDesc));
    resDesc.resType = cudaResourceTypeArray;
    resDesc.res.array.array = array;

    cudaTextureDesc texDesc;
    memset(&texDesc, 0, sizeof(texDesc));
    texDesc.addressMode[0] = cudaAddressModeClamp;
    texDesc.addressMode[1] = cudaAddressModeClamp;
    texDesc.filterMode = cudaFilterModePoint;
    texDesc.readMode = cudaReadModeElementType;
    texDesc.normalizedCoords = 0;

    cudaTextureObject_t tex = 0;
    CHECK(cudaCreateTextureObject(&tex, &resDesc, &texDesc, nullptr));

    float* dOut = nullptr;
    CHECK(cudaMalloc(&dOut, width * height * sizeof(float)));
    dim3 block(16, 16);
    dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    boxFilterX<<<grid, block>>>(tex, dOut, width, height);
    CHECK(cudaGetLastError());

    std::vector<float> out(width * height);
    CHECK(cudaMemcpy(out.data(), dOut, out.size() * sizeof(float), cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int xl = x > 0 ? x - 1 : 0;
            int xr = x < width - 1 ? x + 1 : width - 1;
            float ref = h[y * width + xl] + h[y * width + x] + h[y * width + xr];
            if (out[y * width + x] != ref) {
                if (errors < 5) fprintf(stderr, "(%d,%d): %f != %f\n", x, y, out[y * width + x], ref);
                ++errors;
            }
        }
    }

    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaFreeArray(array));
    CHECK(cudaFree(dOut));

    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
