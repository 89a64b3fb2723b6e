/* moatbridge nvrtc: force-included into every program nvrtcCompileProgram hands to hiprtc. What
   NVRTC predefines (its compiler and version macros; __CUDA_ARCH__ comes with the options),
   and the CUDA device functions HIP lacks, which NVRTC has built in. */
#pragma once
#include <moatbridge/runtime.h>
#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __CUDACC_VER_MAJOR__ MOATBRIDGE_CUDA_MAJOR
#define __CUDACC_VER_MINOR__ MOATBRIDGE_CUDA_MINOR
#define __CUDACC_VER_BUILD__ MOATBRIDGE_CUDA_BUILD
#define __CUDA_API_VER_MAJOR__ __CUDACC_VER_MAJOR__
#define __CUDA_API_VER_MINOR__ __CUDACC_VER_MINOR__
