/* moatbridge: CUDA 13's explicitly aligned four-element vectors of 8-byte members
   (CUDA 13 deprecates long4, double4, ... for these): plain structs of CUDA's alignment and
   their make_ functions, for a toolkit mimicking 13.0. C and C++. */
#pragma once
#if defined(__HIPCC__) || defined(__CUDACC__)
#define MOATBRIDGE_VECTOR_FUNCTION static __host__ __device__ inline
#else
#define MOATBRIDGE_VECTOR_FUNCTION static inline
#endif

typedef struct __attribute__((aligned(16))) long4_16a { long int x, y, z, w; } long4_16a;
MOATBRIDGE_VECTOR_FUNCTION long4_16a make_long4_16a(long int x, long int y, long int z, long int w) {
    long4_16a made; made.x = x; made.y = y; made.z = z; made.w = w; return made;
}
typedef struct __attribute__((aligned(32))) long4_32a { long int x, y, z, w; } long4_32a;
MOATBRIDGE_VECTOR_FUNCTION long4_32a make_long4_32a(long int x, long int y, long int z, long int w) {
    long4_32a made; made.x = x; made.y = y; made.z = z; made.w = w; return made;
}
typedef struct __attribute__((aligned(16))) ulong4_16a { unsigned long int x, y, z, w; } ulong4_16a;
MOATBRIDGE_VECTOR_FUNCTION ulong4_16a make_ulong4_16a(unsigned long int x, unsigned long int y, unsigned long int z, unsigned long int w) {
    ulong4_16a made; made.x = x; made.y = y; made.z = z; made.w = w; return made;
}
typedef struct __attribute__((aligned(32))) ulong4_32a { unsigned long int x, y, z, w; } ulong4_32a;
MOATBRIDGE_VECTOR_FUNCTION ulong4_32a make_ulong4_32a(unsigned long int x, unsigned long int y, unsigned long int z, unsigned long int w) {
    ulong4_32a made; made.x = x; made.y = y; made.z = z; made.w = w; return made;
}
typedef struct __attribute__((aligned(16))) longlong4_16a { long long int x, y, z, w; } longlong4_16a;
MOATBRIDGE_VECTOR_FUNCTION longlong4_16a make_longlong4_16a(long long int x, long long int y, long long int z, long long int w) {
    longlong4_16a made; made.x = x; made.y = y; made.z = z; made.w = w; return made;
}
typedef struct __attribute__((aligned(32))) longlong4_32a { long long int x, y, z, w; } longlong4_32a;
MOATBRIDGE_VECTOR_FUNCTION longlong4_32a make_longlong4_32a(long long int x, long long int y, long long int z, long long int w) {
    longlong4_32a made; made.x = x; made.y = y; made.z = z; made.w = w; return made;
}
typedef struct __attribute__((aligned(16))) ulonglong4_16a { unsigned long long int x, y, z, w; } ulonglong4_16a;
MOATBRIDGE_VECTOR_FUNCTION ulonglong4_16a make_ulonglong4_16a(unsigned long long int x, unsigned long long int y, unsigned long long int z, unsigned long long int w) {
    ulonglong4_16a made; made.x = x; made.y = y; made.z = z; made.w = w; return made;
}
typedef struct __attribute__((aligned(32))) ulonglong4_32a { unsigned long long int x, y, z, w; } ulonglong4_32a;
MOATBRIDGE_VECTOR_FUNCTION ulonglong4_32a make_ulonglong4_32a(unsigned long long int x, unsigned long long int y, unsigned long long int z, unsigned long long int w) {
    ulonglong4_32a made; made.x = x; made.y = y; made.z = z; made.w = w; return made;
}
typedef struct __attribute__((aligned(16))) double4_16a { double x, y, z, w; } double4_16a;
MOATBRIDGE_VECTOR_FUNCTION double4_16a make_double4_16a(double x, double y, double z, double w) {
    double4_16a made; made.x = x; made.y = y; made.z = z; made.w = w; return made;
}
typedef struct __attribute__((aligned(32))) double4_32a { double x, y, z, w; } double4_32a;
MOATBRIDGE_VECTOR_FUNCTION double4_32a make_double4_32a(double x, double y, double z, double w) {
    double4_32a made; made.x = x; made.y = y; made.z = z; made.w = w; return made;
}
#undef MOATBRIDGE_VECTOR_FUNCTION
