/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#include <moatbridge/hide_cuda_macros.h>
#include <hip/hiprtc.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/nvrtc.h>
#ifdef __cplusplus
/* NVRTC takes `const char* const*` options (a `char**` converts); hipRTC takes
   `const char**` (it does not). */
static inline hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int count, char** options) {
    return hiprtcCompileProgram(prog, count, const_cast<const char**>(options));
}
#endif
