// fp16_across_objects — __half and __half2 passed between objects nvcc compiled
// and objects g++ compiled (tests/test_cuda_fp16_host.py): by value both ways, returned, and inside
// a struct. Only bits move, so each side's arithmetic does not matter; what must agree is
// how each compiler passes and lays out the types. The .cu side also assigns a float with a
// NaN payload through the class's member, as the g++ side does: were both compilers' copies
// of that member one symbol, the linker would keep one for both, and the g++ side's result
// would depend on the order of the objects.
#include <cuda_fp16.h>

struct Holder {
    char tag;
    __half2 pair;
    __half single;
};

// defined in the .cu (nvcc)
__half2 swapped_in_cu(__half2 pair, __half single, Holder holder);
__half2 cu_calls_cpp(__half2 pair);
__half cu_from_float(float value);
unsigned long cu_layout();
// defined in the .cpp (g++)
__half2 swapped_in_cpp(__half2 pair, __half single, Holder holder);
