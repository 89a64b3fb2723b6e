// thrust_cuda_system.cu
// Covers: Thrust's CUDA system by its CUDA names — thrust::cuda::par.on(stream) and
// par_nosync on a user stream, thrust::cuda::malloc/free with thrust::cuda::pointer,
// thrust::system::cuda::vector and thrust::cuda::universal_vector, thrust::cuda_category()
// and thrust::cuda::errc with thrust::system_error.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/fill.h>
#include <thrust/sequence.h>
#include <thrust/count.h>
#include <thrust/system_error.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/cuda/memory.h>
#include <thrust/system/cuda/vector.h>
#include <thrust/system/cuda/error.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

struct above {
    int limit;
    __host__ __device__ bool operator()(int x) const { return x > limit; }
};

__global__ void scale(int* p, int n, int factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= factor;
}

int main()
{
    CHECK(cudaSetDevice(0));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    int errors = 0;

    // Sort and reduce on a stream of the program's own.
    const int n = 4096;
    std::vector<int> host(n);
    unsigned int seed = 2024u;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1103515245u + 12345u;
        host[i] = static_cast<int>((seed >> 9) % 10000u);
    }
    thrust::device_vector<int> keys(host.begin(), host.end());
    thrust::sort(thrust::cuda::par.on(stream), keys.begin(), keys.end());
    long long sum = thrust::reduce(thrust::cuda::par.on(stream), keys.begin(), keys.end(), 0LL);
    std::sort(host.begin(), host.end());
    long long expected = 0;
    for (int v : host) expected += v;
    if (sum != expected) ++errors;
    if (keys[0] != host[0] || keys[n - 1] != host[n - 1]) ++errors;

    // par_nosync: the algorithm may return before the device is done; the stream orders it.
    thrust::fill(thrust::cuda::par_nosync.on(stream), keys.begin(), keys.end(), 3);
    CHECK(cudaStreamSynchronize(stream));
    if (thrust::count(keys.begin(), keys.end(), 3) != n) ++errors;

    // Raw device memory through the CUDA system's malloc, typed as thrust::cuda::pointer.
    thrust::cuda::pointer<int> raw = thrust::cuda::malloc<int>(n);
    thrust::sequence(thrust::cuda::par.on(stream), raw, raw + n);
    scale<<<(n + 255) / 256, 256, 0, stream>>>(thrust::raw_pointer_cast(raw), n, 2);
    CHECK(cudaGetLastError());
    int above_limit = static_cast<int>(thrust::count_if(thrust::cuda::par.on(stream), raw, raw + n, above{4000}));
    if (above_limit != n - 2001) ++errors;  // 2*i > 4000 for i = 2001..n-1
    thrust::cuda::free(raw);

    // The system's own containers.
    thrust::system::cuda::vector<float> values(1000, 0.25f);
    float total = thrust::reduce(values.begin(), values.end());
    if (total != 250.0f) ++errors;
    thrust::cuda::universal_vector<int> shared(100);
    thrust::sequence(shared.begin(), shared.end(), 1);
    CHECK(cudaDeviceSynchronize());
    if (shared[99] != 100) ++errors;  // read on the host, no copy

    // Errors in the CUDA system's category.
    try {
        throw thrust::system_error(cudaErrorInvalidValue, thrust::cuda_category(), "probe");
    } catch (const thrust::system_error& e) {
        if (e.code().value() != cudaErrorInvalidValue) ++errors;
        if (e.code().category() != thrust::cuda_category()) ++errors;
        if (e.code().value() != thrust::cuda::errc::invalid_value) ++errors;
    }

    CHECK(cudaStreamDestroy(stream));
    printf("sum=%lld above=%d total=%.2f shared=%d\n", sum, above_limit, total, static_cast<int>(shared[99]));
    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
