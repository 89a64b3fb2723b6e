/* moatbridge: Thrust's universal_host_pinned_vector (CUDA 12.6 and later), for a rocThrust
   older than 7. Included after rocThrust's thrust/system/hip/vector.h on those stacks only
   (decided when the toolkit is generated), and defined as rocThrust 7 and NVIDIA's Thrust
   define it. */
#if !defined(MOATBRIDGE_THRUST_HOST_PINNED_VECTOR_H)
#define MOATBRIDGE_THRUST_HOST_PINNED_VECTOR_H
#include <thrust/system/hip/memory.h>
#include <thrust/detail/vector_base.h>
THRUST_NAMESPACE_BEGIN
namespace hip_rocprim {
template <typename T>
using universal_host_pinned_vector = thrust::detail::vector_base<T, universal_host_pinned_allocator<T>>;
} // namespace hip_rocprim
namespace system {
namespace hip {
using thrust::hip_rocprim::universal_host_pinned_vector;
} // namespace hip
} // namespace system
namespace hip {
using thrust::hip_rocprim::universal_host_pinned_vector;
} // namespace hip
THRUST_NAMESPACE_END
#endif
