/* fragment: the probe of with_template_vector_friends(): helper_math.h's float2/double2
   operators, and code using them, compile only where they beat HIP's vector operators. */
#include <hip/hip_runtime.h>
inline __host__ __device__ float2 operator-(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
inline __host__ __device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
inline __host__ __device__ float2 operator*(float2 a, float2 b) { return make_float2(a.x * b.x, a.y * b.y); }
inline __host__ __device__ float2 operator/(float2 a, float2 b) { return make_float2(a.x / b.x, a.y / b.y); }
inline __host__ __device__ void operator+=(float2& a, float2 b) { a.x += b.x; a.y += b.y; }
inline __host__ __device__ void operator*=(float2& a, float2 b) { a.x *= b.x; a.y *= b.y; }
inline __host__ __device__ double2 operator-(double2 a, double2 b) {
  return make_double2(a.x - b.x, a.y - b.y);
}
inline __host__ __device__ double2 operator*(double2 a, double2 b) {
  return make_double2(a.x * b.x, a.y * b.y);
}
__host__ __device__ float2 use(float2 a, float2 b, double2 c, double2 d) {
  a += b; a *= b; float2 e = (a - b) * (a + b) / b; double2 f = (c - d) * d; return e + make_float2(f.x, f.y);
}
