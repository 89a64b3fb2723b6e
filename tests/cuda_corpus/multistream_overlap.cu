// multistream_overlap.cu
// Covers: streams (cudaStreamCreate/cudaStreamCreateWithFlags), events with timing
// (cudaEventRecord/cudaEventSynchronize/cudaEventElapsedTime), cudaStreamWaitEvent,
// cudaEventQuery, and copy/compute overlap with cudaMemcpyAsync on pinned host memory.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t err = (call);                                             \
        if (err != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err), __FILE__, __LINE__);             \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__global__ void process(float* data, int n, float factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = data[i];
        for (int k = 0; k < 16; ++k) v = v * 0.5f + factor;   // converges towards 2*factor
        data[i] = v;
    }
}

int main()
{
    const int nStreams = 4;
    const int n = 1 << 20;
    const int chunk = n / nStreams;
    const size_t bytes = n * sizeof(float);
    const size_t chunkBytes = chunk * sizeof(float);

    float* hData = nullptr;
    CHECK(cudaMallocHost(&hData, bytes));
    float* dData = nullptr;
    CHECK(cudaMalloc(&dData, bytes));
    for (int i = 0; i < n; ++i) hData[i] = 1.0f;

    cudaStream_t streams[nStreams];
    for (int s = 0; s < nStreams; ++s) CHECK(cudaStreamCreate(&streams[s]));
    cudaStream_t side;
    CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));

    cudaEvent_t start, stop, ready;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));

    // Sequential baseline on the default stream.
    CHECK(cudaEventRecord(start, 0));
    CHECK(cudaMemcpy(dData, hData, bytes, cudaMemcpyHostToDevice));
    process<<<(n + 255) / 256, 256>>>(dData, n, 1.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hData, dData, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float msSequential = 0.0f;
    CHECK(cudaEventElapsedTime(&msSequential, start, stop));

    // Overlapped version: each stream copies in, computes and copies out its own chunk.
    CHECK(cudaEventRecord(start, 0));
    for (int s = 0; s < nStreams; ++s) {
        int offset = s * chunk;
        CHECK(cudaMemcpyAsync(dData + offset, hData + offset, chunkBytes,
                              cudaMemcpyHostToDevice, streams[s]));
        process<<<(chunk + 255) / 256, 256, 0, streams[s]>>>(dData + offset, chunk, 3.0f);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(hData + offset, dData + offset, chunkBytes,
                              cudaMemcpyDeviceToHost, streams[s]));
    }
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float msOverlap = 0.0f;
    CHECK(cudaEventElapsedTime(&msOverlap, start, stop));

    // Cross-stream dependency: the non-blocking side stream waits on stream 0's event.
    CHECK(cudaEventRecord(ready, streams[0]));
    CHECK(cudaStreamWaitEvent(side, ready, 0));
    process<<<(chunk + 255) / 256, 256, 0, side>>>(dData, chunk, 0.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(side));
    if (cudaEventQuery(ready) != cudaSuccess) {
        fprintf(stderr, "event not complete after dependent stream finished\n");
        return 1;
    }

    printf("sequential: %.3f ms, %d streams: %.3f ms\n", msSequential, nStreams, msOverlap);

    // Expected value after two rounds of process(): first factor 1, then factor 3.
    float expected = 1.0f;
    for (int k = 0; k < 16; ++k) expected = expected * 0.5f + 1.0f;
    for (int k = 0; k < 16; ++k) expected = expected * 0.5f + 3.0f;
    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (std::fabs(hData[i] - expected) > 1e-4f) ++errors;

    for (int s = 0; s < nStreams; ++s) CHECK(cudaStreamDestroy(streams[s]));
    CHECK(cudaStreamDestroy(side));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaEventDestroy(ready));
    CHECK(cudaFree(dData));
    CHECK(cudaFreeHost(hData));

    if (errors || msSequential < 0.0f || msOverlap < 0.0f) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
