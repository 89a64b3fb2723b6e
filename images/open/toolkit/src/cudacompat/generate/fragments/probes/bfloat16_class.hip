/* fragment: the probe of with_bfloat16_class(): __hip_bfloat16 converting to and from
   float and int, with CUDA's operators, for __hip_bfloat162 too. */
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
__host__ __device__ float use(__hip_bfloat16 x, __hip_bfloat16 y) {
  float acc = x * y;
  __hip_bfloat16 z = 1.0f;
  z += x; z = -z; ++z;
  __hip_bfloat16 n = 3;
  __hip_bfloat162 v(x, y);
  v = v * v;
  return acc + static_cast<float>(z) + (x < y ? 1.0f : 0.0f) + static_cast<float>(n) + float(v.x);
}
