/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#if defined(__HIP__) /* device compilers only: in a host-only compile it declares nothing, as CUDA's */
#include <hip/hip_cooperative_groups.h>
#include <moatbridge/cg_multi_tile.h> /* tiles larger than a wavefront */
#endif
