/* moatbridge: CUDA's surface functions as CUDA code calls them, over HIP 5.7's.
   CUDA's take a trailing boundary mode (`surf2Dwrite(v, surf, x * 4, y, cudaBoundaryModeTrap)`,
   the default) and offer a form returning the value (`surf2Dread<float>(surf, x, y)`); HIP 5.7
   has only the pointer form without a mode. x is a byte offset in both. The mode is accepted
   and has no effect: AMD image instructions read zero and drop writes out of bounds (CUDA's
   cudaBoundaryModeZero), where CUDA's default would trap. */
#pragma once
#if defined(__HIP__)

#define MOATBRIDGE_SURFACE_TYPE \
    template <typename T, typename std::enable_if<__hip_is_tex_surf_channel_type<T>::value>::type* = nullptr>

MOATBRIDGE_SURFACE_TYPE static __device__ inline void
surf1Dread(T* data, hipSurfaceObject_t surface, int x, hipSurfaceBoundaryMode) { surf1Dread(data, surface, x); }
MOATBRIDGE_SURFACE_TYPE static __device__ inline T
surf1Dread(hipSurfaceObject_t surface, int x, hipSurfaceBoundaryMode = hipBoundaryModeTrap) {
    T value; surf1Dread(&value, surface, x); return value;
}
MOATBRIDGE_SURFACE_TYPE static __device__ inline void
surf1Dwrite(T data, hipSurfaceObject_t surface, int x, hipSurfaceBoundaryMode) { surf1Dwrite(data, surface, x); }

MOATBRIDGE_SURFACE_TYPE static __device__ inline void
surf2Dread(T* data, hipSurfaceObject_t surface, int x, int y, hipSurfaceBoundaryMode) {
    surf2Dread(data, surface, x, y);
}
MOATBRIDGE_SURFACE_TYPE static __device__ inline T
surf2Dread(hipSurfaceObject_t surface, int x, int y, hipSurfaceBoundaryMode = hipBoundaryModeTrap) {
    T value; surf2Dread(&value, surface, x, y); return value;
}
MOATBRIDGE_SURFACE_TYPE static __device__ inline void
surf2Dwrite(T data, hipSurfaceObject_t surface, int x, int y, hipSurfaceBoundaryMode) {
    surf2Dwrite(data, surface, x, y);
}

MOATBRIDGE_SURFACE_TYPE static __device__ inline void
surf3Dread(T* data, hipSurfaceObject_t surface, int x, int y, int z, hipSurfaceBoundaryMode) {
    surf3Dread(data, surface, x, y, z);
}
MOATBRIDGE_SURFACE_TYPE static __device__ inline T
surf3Dread(hipSurfaceObject_t surface, int x, int y, int z, hipSurfaceBoundaryMode = hipBoundaryModeTrap) {
    T value; surf3Dread(&value, surface, x, y, z); return value;
}
MOATBRIDGE_SURFACE_TYPE static __device__ inline void
surf3Dwrite(T data, hipSurfaceObject_t surface, int x, int y, int z, hipSurfaceBoundaryMode) {
    surf3Dwrite(data, surface, x, y, z);
}

MOATBRIDGE_SURFACE_TYPE static __device__ inline void
surf1DLayeredread(T* data, hipSurfaceObject_t surface, int x, int layer, hipSurfaceBoundaryMode) {
    surf1DLayeredread(data, surface, x, layer);
}
MOATBRIDGE_SURFACE_TYPE static __device__ inline T
surf1DLayeredread(hipSurfaceObject_t surface, int x, int layer, hipSurfaceBoundaryMode = hipBoundaryModeTrap) {
    T value; surf1DLayeredread(&value, surface, x, layer); return value;
}
MOATBRIDGE_SURFACE_TYPE static __device__ inline void
surf1DLayeredwrite(T data, hipSurfaceObject_t surface, int x, int layer, hipSurfaceBoundaryMode) {
    surf1DLayeredwrite(data, surface, x, layer);
}

MOATBRIDGE_SURFACE_TYPE static __device__ inline void
surf2DLayeredread(T* data, hipSurfaceObject_t surface, int x, int y, int layer, hipSurfaceBoundaryMode) {
    surf2DLayeredread(data, surface, x, y, layer);
}
MOATBRIDGE_SURFACE_TYPE static __device__ inline T
surf2DLayeredread(hipSurfaceObject_t surface, int x, int y, int layer, hipSurfaceBoundaryMode = hipBoundaryModeTrap) {
    T value; surf2DLayeredread(&value, surface, x, y, layer); return value;
}
MOATBRIDGE_SURFACE_TYPE static __device__ inline void
surf2DLayeredwrite(T data, hipSurfaceObject_t surface, int x, int y, int layer, hipSurfaceBoundaryMode) {
    surf2DLayeredwrite(data, surface, x, y, layer);
}

#undef MOATBRIDGE_SURFACE_TYPE
#endif
