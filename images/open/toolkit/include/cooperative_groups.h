/* moatbridge CUDA compatibility header (open flavour, HIP 5.7). */
#pragma once
#include <moatbridge/runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <moatbridge/cg_multi_tile.h> /* tiles larger than a wavefront */
