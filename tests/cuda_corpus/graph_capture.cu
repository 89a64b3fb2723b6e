// graph_capture.cu
// Covers: CUDA graphs built by stream capture (cudaStreamBeginCapture / cudaStreamEndCapture),
// cudaStreamIsCapturing, cudaGraphGetNodes, 5-argument cudaGraphInstantiate (CUDA 11.x),
// repeated cudaGraphLaunch, graph and exec destruction.
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

__global__ void scaleAdd(float* x, int n, float scale, float add)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * scale + add;
}

__global__ void accumulate(const float* x, float* acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += x[i];
}

int main()
{
    CHECK(cudaSetDevice(0));

    const int n = 1 << 14;
    const int iterations = 10;
    float *dX = nullptr, *dAcc = nullptr;
    CHECK(cudaMalloc(&dX, n * sizeof(float)));
    CHECK(cudaMalloc(&dAcc, n * sizeof(float)));
    CHECK(cudaMemset(dX, 0, n * sizeof(float)));
    CHECK(cudaMemset(dAcc, 0, n * sizeof(float)));

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    cudaGraph_t graph;
    cudaGraphExec_t graphExec;
    const dim3 block(256), grid((n + 255) / 256);

    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(stream, &status));
    if (status != cudaStreamCaptureStatusActive) {
        fprintf(stderr, "stream is not capturing\n");
        return 1;
    }
    scaleAdd<<<grid, block, 0, stream>>>(dX, n, 1.0f, 1.0f);     // x += 1
    scaleAdd<<<grid, block, 0, stream>>>(dX, n, 2.0f, 0.0f);     // x *= 2
    accumulate<<<grid, block, 0, stream>>>(dX, dAcc, n);         // acc += x
    CHECK(cudaStreamEndCapture(stream, &graph));

    size_t numNodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &numNodes));
    printf("captured graph has %zu nodes\n", numNodes);

    CHECK(cudaGraphInstantiate(&graphExec, graph, nullptr, nullptr, 0));

    for (int it = 0; it < iterations; ++it)
        CHECK(cudaGraphLaunch(graphExec, stream));
    CHECK(cudaStreamSynchronize(stream));

    std::vector<float> hX(n), hAcc(n);
    CHECK(cudaMemcpy(hX.data(), dX, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hAcc.data(), dAcc, n * sizeof(float), cudaMemcpyDeviceToHost));

    // Host reference of the same sequence.
    float x = 0.0f, acc = 0.0f;
    for (int it = 0; it < iterations; ++it) {
        x = (x + 1.0f) * 2.0f;
        acc += x;
    }

    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (hX[i] != x || hAcc[i] != acc) ++errors;

    CHECK(cudaGraphExecDestroy(graphExec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(dX));
    CHECK(cudaFree(dAcc));

    if (numNodes != 3 || errors != 0) {
        printf("FAILED: nodes=%zu errors=%d\n", numNodes, errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
