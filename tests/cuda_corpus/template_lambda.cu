// template_lambda.cu
// Covers: templated kernels (type + non-type template parameters, explicit and deduced
// instantiation), a __device__ lambda and a __host__ __device__ lambda passed to a kernel
// template (needs --extended-lambda), and C++17 features (if constexpr, inline constexpr).
// Build: nvcc --extended-lambda -std=c++17
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <type_traits>
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

inline constexpr int kBlock = 128;

template <typename T, typename F>
__global__ void transformKernel(const T* in, T* out, int n, F f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f(in[i]);
}

template <typename T>
__global__ void fill(T* p, int n, T value)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if constexpr (std::is_floating_point_v<T>)
        p[i] = value + static_cast<T>(i) * T(0.5);
    else
        p[i] = value + static_cast<T>(i);
}

template <typename T, int BLOCK>
__global__ void blockSum(const T* in, T* out, int n)
{
    __shared__ T s[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    s[threadIdx.x] = (i < n) ? in[i] : T(0);
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (static_cast<int>(threadIdx.x) < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

template <typename T, typename F>
void launchTransform(const T* in, T* out, int n, F f)
{
    transformKernel<<<(n + kBlock - 1) / kBlock, kBlock>>>(in, out, n, f);
    CHECK(cudaGetLastError());
}

int main()
{
    const int n = 1000;
    float *dIn = nullptr, *dOut = nullptr;
    CHECK(cudaMalloc(&dIn, n * sizeof(float)));
    CHECK(cudaMalloc(&dOut, n * sizeof(float)));
    int *dI = nullptr, *dSum = nullptr;
    CHECK(cudaMalloc(&dI, n * sizeof(int)));
    CHECK(cudaMalloc(&dSum, sizeof(int)));

    fill<float><<<(n + kBlock - 1) / kBlock, kBlock>>>(dIn, n, 0.5f);
    fill<<<(n + kBlock - 1) / kBlock, kBlock>>>(dI, n, 1);   // deduced as fill<int>
    CHECK(cudaGetLastError());

    const float scale = 3.0f;
    auto affine = [=] __host__ __device__ (float x) { return scale * x + 1.0f; };
    launchTransform(dIn, dOut, n, affine);

    std::vector<float> hOut(n);
    CHECK(cudaMemcpy(hOut.data(), dOut, n * sizeof(float), cudaMemcpyDeviceToHost));
    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (std::fabs(hOut[i] - affine(0.5f + 0.5f * i)) > 1e-3f) ++errors;   // same lambda on host

    int offset = n / 200;   // 5
    launchTransform(dI, dI, n, [offset] __device__ (int x) { return x * 2 - offset; });
    CHECK(cudaMemset(dSum, 0, sizeof(int)));
    blockSum<int, kBlock><<<(n + kBlock - 1) / kBlock, kBlock>>>(dI, dSum, n);
    CHECK(cudaGetLastError());
    int hSum = 0;
    CHECK(cudaMemcpy(&hSum, dSum, sizeof(int), cudaMemcpyDeviceToHost));
    int expectedSum = 0;
    for (int i = 0; i < n; ++i) expectedSum += (1 + i) * 2 - offset;
    if (hSum != expectedSum) ++errors;

    CHECK(cudaFree(dIn));
    CHECK(cudaFree(dOut));
    CHECK(cudaFree(dI));
    CHECK(cudaFree(dSum));

    if (errors) {
        printf("FAILED: %d errors (sum %d vs %d)\n", errors, hSum, expectedSum);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
