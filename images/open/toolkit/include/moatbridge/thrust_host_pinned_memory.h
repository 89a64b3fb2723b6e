/* moatbridge: Thrust's universal_host_pinned_allocator (CUDA 12.6 and later), for a rocThrust
   older than 7 that has the memory resource but not the allocator. Included after
   rocThrust's thrust/system/hip/memory.h on those stacks only (decided when the toolkit is
   generated), and defined as rocThrust 7 and NVIDIA's Thrust define it. */
#if !defined(MOATBRIDGE_THRUST_HOST_PINNED_MEMORY_H)
#define MOATBRIDGE_THRUST_HOST_PINNED_MEMORY_H
#include <thrust/system/hip/memory_resource.h>
#include <thrust/mr/allocator.h>
THRUST_NAMESPACE_BEGIN
namespace hip_rocprim {
template <typename T>
using universal_host_pinned_allocator =
    thrust::mr::stateless_resource_allocator<T, thrust::system::hip::universal_host_pinned_memory_resource>;
} // namespace hip_rocprim
namespace system {
namespace hip {
using thrust::hip_rocprim::universal_host_pinned_allocator;
} // namespace hip
} // namespace system
namespace hip {
using thrust::hip_rocprim::universal_host_pinned_allocator;
} // namespace hip
THRUST_NAMESPACE_END
#endif
