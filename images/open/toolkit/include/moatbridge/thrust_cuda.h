/* moatbridge: Thrust's CUDA system under its CUDA names. rocThrust is NVIDIA's Thrust with
   the CUDA system (thrust::cuda, thrust::system::cuda, thrust::cuda_cub) rebuilt as the HIP
   system (thrust::hip, thrust::system::hip, thrust::hip_rocprim), member for member: the
   CUDA namespaces are made aliases of the HIP ones, so thrust::cuda::par.on(stream),
   thrust::cuda::pointer<T> or thrust::system::cuda::vector<T> name what rocThrust runs.
   Included after every Thrust header (the shadow wrappers); it acts once Thrust's namespace
   macros exist, which every Thrust header but version.h brings. */
#if defined(THRUST_NAMESPACE_BEGIN) && !defined(MOATBRIDGE_THRUST_CUDA_H)
#define MOATBRIDGE_THRUST_CUDA_H
THRUST_NAMESPACE_BEGIN
namespace hip_rocprim {}
namespace hip {}
namespace system {
namespace hip {}
namespace cuda = hip;
} // namespace system
namespace cuda = hip;
namespace cuda_cub = hip_rocprim;
THRUST_NAMESPACE_END
#endif
