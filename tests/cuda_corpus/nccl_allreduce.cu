// nccl_allreduce.cu
// Covers: NCCL single-process multi-GPU collectives — ncclCommInitAll over every visible
// device, ncclGroupStart/ncclGroupEnd around per-device ncclAllReduce (ncclFloat, ncclSum),
// per-device streams, ncclCommDestroy, ncclGetErrorString. Works with a single GPU too.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <nccl.h>

#define CUDACHECK(call)                                                       \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error: %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);            \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define NCCLCHECK(call)                                                       \
    do {                                                                      \
        ncclResult_t r_ = (call);                                             \
        if (r_ != ncclSuccess) {                                              \
            fprintf(stderr, "NCCL error: %s at %s:%d\n",                      \
                    ncclGetErrorString(r_), __FILE__, __LINE__);              \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__global__ void fillRank(float* buf, int n, int rank)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] = static_cast<float>(rank + 1) + 0.5f * (i % 4);
}

int main()
{
    int nDev = 0;
    CUDACHECK(cudaGetDeviceCount(&nDev));
    if (nDev < 1) {
        fprintf(stderr, "no devices\n");
        return 1;
    }
    const int count = 32 * 1024;

    std::vector<int> devs(nDev);
    std::vector<ncclComm_t> comms(nDev);
    std::vector<float*> sendBuf(nDev), recvBuf(nDev);
    std::vector<cudaStream_t> streams(nDev);
    for (int i = 0; i < nDev; ++i) {
        devs[i] = i;
        CUDACHECK(cudaSetDevice(i));
        CUDACHECK(cudaMalloc(&sendBuf[i], count * sizeof(float)));
        CUDACHECK(cudaMalloc(&recvBuf[i], count * sizeof(float)));
        CUDACHECK(cudaMemset(recvBuf[i], 0, count * sizeof(float)));
        CUDACHECK(cudaStreamCreate(&streams[i]));
        fillRank<<<(count + 255) / 256, 256, 0, streams[i]>>>(sendBuf[i], count, i);
        CUDACHECK(cudaGetLastError());
    }

    int ncclVersion = 0;
    NCCLCHECK(ncclGetVersion(&ncclVersion));
    printf("NCCL version code %d, %d device(s)\n", ncclVersion, nDev);
    NCCLCHECK(ncclCommInitAll(comms.data(), nDev, devs.data()));

    NCCLCHECK(ncclGroupStart());
    for (int i = 0; i < nDev; ++i)
        NCCLCHECK(ncclAllReduce(sendBuf[i], recvBuf[i], count, ncclFloat, ncclSum,
                                comms[i], streams[i]));
    NCCLCHECK(ncclGroupEnd());

    int errors = 0;
    std::vector<float> h(count);
    for (int i = 0; i < nDev; ++i) {
        CUDACHECK(cudaSetDevice(i));
        CUDACHECK(cudaStreamSynchronize(streams[i]));
        CUDACHECK(cudaMemcpy(h.data(), recvBuf[i], count * sizeof(float), cudaMemcpyDeviceToHost));
        for (int k = 0; k < count; ++k) {
            // sum over ranks r of (r + 1 + 0.5 * (k % 4))
            float expected = nDev * (nDev + 1) / 2.0f + nDev * 0.5f * (k % 4);
            if (h[k] != expected) ++errors;
        }
    }

    for (int i = 0; i < nDev; ++i) {
        NCCLCHECK(ncclCommDestroy(comms[i]));
        CUDACHECK(cudaSetDevice(i));
        CUDACHECK(cudaFree(sendBuf[i]));
        CUDACHECK(cudaFree(recvBuf[i]));
        CUDACHECK(cudaStreamDestroy(streams[i]));
    }

    if (errors) {
        printf("FAILED: %d errors\n", errors);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
