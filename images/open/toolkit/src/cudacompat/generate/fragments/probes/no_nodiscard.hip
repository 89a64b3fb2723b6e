/* fragment: the probe of without_nodiscard_errors(): ignored hipError_t results, compiled
   with unused-result warnings as errors. */
#include <hip/hip_runtime.h>
void use() { hipFree(0); hipDeviceSynchronize(); }
