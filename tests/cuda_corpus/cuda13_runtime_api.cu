// cuda13_runtime_api.cu
// Covers: the runtime calls CUDA 13 redeclared, written as code that builds against both
// CUDA 12 and 13 writes them (#if CUDART_VERSION >= 13000): managed-memory prefetch and
// advice by cudaMemLocation, graphs built node by node with explicit dependencies and their
// edge data (cudaGraphAddDependencies, cudaGraphGetEdges, cudaGraphNodeGetDependencies,
// cudaGraphRemoveDependencies), cudaStreamGetCaptureInfo's dependencies during capture,
// memory pools by location, and batched prefetches.
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

#define EXPECT(cond)                                                          \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "FAILED: %s at %s:%d\n", #cond, __FILE__, __LINE__); \
            exit(2);                                                          \
        }                                                                     \
    } while (0)

__global__ void fill(float* x, int n, float value)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = value;
}

__global__ void axpy(float* y, const float* x, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

static cudaGraphNode_t addKernel(cudaGraph_t graph, void* func, void** args, int n)
{
    cudaKernelNodeParams params;
    memset(&params, 0, sizeof params);
    params.func = func;
    params.gridDim = dim3((n + 127) / 128);
    params.blockDim = dim3(128);
    params.kernelParams = args;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddKernelNode(&node, graph, nullptr, 0, &params));
    return node;
}

static void prefetch(const void* p, size_t bytes, int device, cudaStream_t stream)
{
#if CUDART_VERSION >= 13000
    cudaMemLocation location;
    location.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    location.id = device == cudaCpuDeviceId ? 0 : device;
    CHECK(cudaMemPrefetchAsync(p, bytes, location, 0, stream));
#else
    CHECK(cudaMemPrefetchAsync(p, bytes, device, stream));
#endif
}

static void managedMemory(int device, int n)
{
    int managed = 0;
    CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, device));
    if (!managed) return;
    float *x, *y;
    CHECK(cudaMallocManaged(&x, n * sizeof(float)));
    CHECK(cudaMallocManaged(&y, n * sizeof(float)));
    for (int i = 0; i < n; ++i) {
        x[i] = float(i);
        y[i] = 1.0f;
    }
#if CUDART_VERSION >= 13000
    cudaMemLocation here;
    here.type = cudaMemLocationTypeDevice;
    here.id = device;
    CHECK(cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, here));
#else
    CHECK(cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, device));
#endif
    prefetch(x, n * sizeof(float), device, 0);
    prefetch(y, n * sizeof(float), device, 0);
    axpy<<<(n + 127) / 128, 128>>>(y, x, n, 2.0f);
    CHECK(cudaGetLastError());
#if CUDART_VERSION >= 13000
    // both arrays back to the host in one batch
    void* pointers[2] = {x, y};
    size_t sizes[2] = {n * sizeof(float), n * sizeof(float)};
    cudaMemLocation host;
    host.type = cudaMemLocationTypeHost;
    host.id = 0;
    size_t firstOperation = 0;
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemPrefetchBatchAsync(pointers, sizes, 2, &host, &firstOperation, 1, 0, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaStreamDestroy(stream));
#else
    prefetch(y, n * sizeof(float), cudaCpuDeviceId, 0);
#endif
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) EXPECT(y[i] == 1.0f + 2.0f * float(i));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
}

// fill(x, 1) -> { axpy(y += 2x), axpy(z += 3x) }: built node by node
static void explicitGraph(int n)
{
    float *x, *y, *z;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMalloc(&z, n * sizeof(float)));
    CHECK(cudaMemset(y, 0, n * sizeof(float)));
    CHECK(cudaMemset(z, 0, n * sizeof(float)));
    float one = 1.0f, two = 2.0f, three = 3.0f;
    void* fillArgs[] = {&x, &n, &one};
    void* yArgs[] = {&y, &x, &n, &two};
    void* zArgs[] = {&z, &x, &n, &three};
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t first = addKernel(graph, (void*)fill, fillArgs, n);
    cudaGraphNode_t second = addKernel(graph, (void*)axpy, yArgs, n);
    cudaGraphNode_t third = addKernel(graph, (void*)axpy, zArgs, n);
    cudaGraphNode_t from[2] = {first, first};
    cudaGraphNode_t to[2] = {second, third};
#if CUDART_VERSION >= 13000
    CHECK(cudaGraphAddDependencies(graph, from, to, nullptr, 2));
    cudaGraphNode_t edgesFrom[4], edgesTo[4];
    cudaGraphEdgeData edges[4];
    memset(edges, 0xff, sizeof edges);
    size_t count = 4;
    CHECK(cudaGraphGetEdges(graph, edgesFrom, edgesTo, edges, &count));
    EXPECT(count == 2);
    for (size_t i = 0; i < count; ++i) {
        EXPECT(edgesFrom[i] == first);
        EXPECT(edges[i].type == cudaGraphDependencyTypeDefault && edges[i].from_port == 0 && edges[i].to_port == 0);
    }
    cudaGraphNode_t dependency;
    cudaGraphEdgeData dependencyEdge;
    size_t dependencies = 1;
    CHECK(cudaGraphNodeGetDependencies(third, &dependency, &dependencyEdge, &dependencies));
    EXPECT(dependencies == 1 && dependency == first && dependencyEdge.type == cudaGraphDependencyTypeDefault);
    size_t dependents = 0;
    CHECK(cudaGraphNodeGetDependentNodes(first, nullptr, nullptr, &dependents));
    EXPECT(dependents == 2);
    // the same edge removed and added again with explicit default data
    cudaGraphEdgeData plain;
    memset(&plain, 0, sizeof plain);
    CHECK(cudaGraphRemoveDependencies(graph, &first, &third, &plain, 1));
    count = 0;
    CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count));
    EXPECT(count == 1);
    CHECK(cudaGraphAddDependencies(graph, &first, &third, &plain, 1));
#else
    CHECK(cudaGraphAddDependencies(graph, from, to, 2));
    size_t count = 0;
    CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, &count));
    EXPECT(count == 2);
#endif
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 3; ++launch) CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaDeviceSynchronize());
    float* host = (float*)malloc(2 * n * sizeof(float));
    CHECK(cudaMemcpy(host, y, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(host + n, z, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(host[i] == 6.0f && host[n + i] == 9.0f);
    free(host);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(z));
}

// While capturing, the stream's dependency is the last captured node.
static void captureDependencies(int n)
{
    float* x;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    fill<<<(n + 127) / 128, 128, 0, stream>>>(x, n, 4.0f);
    cudaStreamCaptureStatus status;
    unsigned long long id = 0;
    cudaGraph_t capturing = nullptr;
    const cudaGraphNode_t* dependencies = nullptr;
    size_t count = 0;
#if CUDART_VERSION >= 13000
    const cudaGraphEdgeData* edges = nullptr;
    CHECK(cudaStreamGetCaptureInfo(stream, &status, &id, &capturing, &dependencies, &edges, &count));
    EXPECT(count == 1 && (edges == nullptr || edges[0].type == cudaGraphDependencyTypeDefault));
    CHECK(cudaStreamGetCaptureInfo(stream, &status));  // every further output is optional
#else
    CHECK(cudaStreamGetCaptureInfo(stream, &status, &id, &capturing, &dependencies, &count));
    EXPECT(count == 1);
#endif
    EXPECT(status == cudaStreamCaptureStatusActive && capturing != nullptr && dependencies != nullptr);
    axpy<<<(n + 127) / 128, 128, 0, stream>>>(x, x, n, 1.0f);
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(stream, &graph));
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    EXPECT(nodes == 2);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    float first = 0.0f;
    CHECK(cudaMemcpy(&first, x + n - 1, sizeof first, cudaMemcpyDeviceToHost));
    EXPECT(first == 8.0f);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(x));
}

static void memoryPools(int device)
{
    int pools = 0;
    CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device));
    if (!pools) return;
    cudaMemPool_t byDevice;
    CHECK(cudaDeviceGetDefaultMemPool(&byDevice, device));
#if CUDART_VERSION >= 13000
    cudaMemLocation location;
    location.type = cudaMemLocationTypeDevice;
    location.id = device;
    cudaMemPool_t byLocation, current;
    CHECK(cudaMemGetDefaultMemPool(&byLocation, &location, cudaMemAllocationTypePinned));
    EXPECT(byLocation == byDevice);
    CHECK(cudaMemGetMemPool(&current, &location, cudaMemAllocationTypePinned));
    EXPECT(current == byDevice);
#endif
    float* p;
    CHECK(cudaMallocAsync(&p, 1024, 0));
    CHECK(cudaFreeAsync(p, 0));
    CHECK(cudaDeviceSynchronize());
}

int main()
{
    int devices = 0;
    CHECK(cudaGetDeviceCount(&devices));
    int device = 0;
    CHECK(cudaSetDevice(device));
    const int n = 1000;
    managedMemory(device, n);
    explicitGraph(n);
    captureDependencies(n);
    memoryPools(device);
    printf("CUDA %d runtime calls: PASSED\n", CUDART_VERSION);
    return 0;
}
