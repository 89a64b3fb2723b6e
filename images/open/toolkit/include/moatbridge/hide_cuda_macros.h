/* moatbridge: include before a ROCm header that must not see nvcc's macros (rocThrust,
   hipCUB and hipBLAS choose NVIDIA code paths when __CUDACC__/__NVCC__ are defined);
   include moatbridge/restore_cuda_macros.h after it. No include guard on purpose. */
#pragma push_macro("__CUDACC__")
#pragma push_macro("__NVCC__")
#pragma push_macro("__CUDA_ARCH__")
#undef __CUDACC__
#undef __NVCC__
#undef __CUDA_ARCH__
