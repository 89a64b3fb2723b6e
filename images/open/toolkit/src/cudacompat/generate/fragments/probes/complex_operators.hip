/* fragment: the probe of without_complex_operators(): helper_math.h-style `-` and `+` of
   float2/double2 compile only where HIP's complex header gives those types none of its own. */
#include <hip/hip_runtime.h>
#include <hip/hip_complex.h>
inline __host__ __device__ float2 operator-(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
inline __host__ __device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
inline __host__ __device__ double2 operator-(double2 a, double2 b) {
  return make_double2(a.x - b.x, a.y - b.y);
}
__host__ __device__ float2 use(float2 a, float2 b, double2 c, double2 d) {
  double2 f = c - d; return (a - b) + make_float2(f.x, f.y);
}
