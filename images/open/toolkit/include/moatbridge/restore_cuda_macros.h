/* moatbridge: pairs with moatbridge/hide_cuda_macros.h. No include guard on purpose. */
#pragma pop_macro("__CUDA_ARCH__")
#pragma pop_macro("__NVCC__")
#pragma pop_macro("__CUDACC__")
