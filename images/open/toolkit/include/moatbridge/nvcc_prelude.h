/* moatbridge nvcc: force-included into every CUDA source, as nvcc force-includes
   cuda_runtime.h. nvcc's identity macros come after the HIP headers: defined earlier,
   __NVCC__ would switch HIP to its NVIDIA platform. */
#include <cuda_runtime.h>
#include <moatbridge/device_printf.h>
#ifndef __NVCC__
#define __NVCC__ 1
#endif
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#if defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__) && defined(__MOATBRIDGE_CUDA_ARCH__)
#define __CUDA_ARCH__ __MOATBRIDGE_CUDA_ARCH__
#endif
