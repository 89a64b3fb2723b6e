// bf16_across_objects — __nv_bfloat16 and __nv_bfloat162 passed between objects nvcc compiled
// and objects g++ compiled (tests/test_cuda_fp8.py): by value both ways, returned, and inside
// a struct. Only bits move, so each side's arithmetic does not matter; what must agree is
// how each compiler passes and lays out the types. The .cu side also assigns a float with a
// NaN payload through the class's member, as the g++ side does: were both compilers' copies
// of that member one symbol, the linker would keep one for both, and the g++ side's result
// would depend on the order of the objects.
#include <cuda_bf16.h>

struct Holder {
    char tag;
    __nv_bfloat162 pair;
    __nv_bfloat16 single;
};

// defined in the .cu (nvcc)
__nv_bfloat162 swapped_in_cu(__nv_bfloat162 pair, __nv_bfloat16 single, Holder holder);
__nv_bfloat162 cu_calls_cpp(__nv_bfloat162 pair);
__nv_bfloat16 cu_from_float(float value);
unsigned long cu_layout();
// defined in the .cpp (g++)
__nv_bfloat162 swapped_in_cpp(__nv_bfloat162 pair, __nv_bfloat16 single, Holder holder);
