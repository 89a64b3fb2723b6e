// thrust_sort_reduce.cu
// Covers: Thrust — host_vector/device_vector, thrust::sequence, thrust::sort (ascending and
// with thrust::greater), thrust::reduce, thrust::transform with unary and binary functors,
// thrust::count_if, thrust::is_sorted, raw pointer interop (thrust::raw_pointer_cast).
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <thrust/host_vector.h>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <thrust/sequence.h>
#include <thrust/count.h>
#include <thrust/functional.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

struct saxpy_functor {
    const float a;
    explicit saxpy_functor(float a_) : a(a_) {}
    __host__ __device__ float operator()(const float& x, const float& y) const { return a * x + y; }
};

struct square {
    __host__ __device__ int operator()(int x) const { return x * x; }
};

struct is_even {
    __host__ __device__ bool operator()(int x) const { return (x % 2) == 0; }
};

__global__ void negate(int* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = -p[i];
}

int main()
{
    CHECK(cudaSetDevice(0));

    const int n = 10000;
    thrust::host_vector<int> h(n);
    unsigned int seed = 12345u;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        h[i] = static_cast<int>((seed >> 8) % 100000u);
    }
    std::vector<int> ref(h.begin(), h.end());
    std::sort(ref.begin(), ref.end());

    thrust::device_vector<int> d = h;
    thrust::sort(d.begin(), d.end());
    bool sortedOk = thrust::is_sorted(d.begin(), d.end());
    thrust::host_vector<int> sorted = d;
    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (sorted[i] != ref[i]) ++errors;

    thrust::sort(d.begin(), d.end(), thrust::greater<int>());
    if (d[0] != ref[n - 1] || d[n - 1] != ref[0]) ++errors;

    long long expectedEven = std::count_if(ref.begin(), ref.end(), [](int x) { return x % 2 == 0; });
    long long evens = thrust::count_if(d.begin(), d.end(), is_even());
    if (evens != expectedEven) ++errors;

    // Interop with a hand-written kernel through the raw pointer.
    negate<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(d.data()), n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    if (d[0] != -ref[n - 1]) ++errors;

    // Transforms and reductions.
    thrust::device_vector<int> small(1000);
    thrust::sequence(small.begin(), small.end());              // 0..999
    thrust::transform(small.begin(), small.end(), small.begin(), square());
    long long sumSquares = thrust::reduce(small.begin(), small.end(), 0LL, thrust::plus<long long>());
    if (sumSquares != 999LL * 1000 * 1999 / 6) ++errors;

    thrust::device_vector<float> x(n, 1.5f), y(n);
    thrust::sequence(y.begin(), y.end(), 0.0f, 0.5f);
    thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy_functor(2.0f));
    float total = thrust::reduce(y.begin(), y.end());
    double expectedTotal = 0.0;
    for (int i = 0; i < n; ++i) expectedTotal += 3.0 + 0.5 * i;
    if (std::fabs(total - expectedTotal) > 1e-4 * expectedTotal) ++errors;

    printf("sorted=%d evens=%lld sumSquares=%lld total=%.1f\n",
           sortedOk, evens, sumSquares, total);
    if (!sortedOk || errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
