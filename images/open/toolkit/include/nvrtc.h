/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#include <moatbridge/hide_cuda_macros.h>
#include <hip/hiprtc.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/nvrtc.h>
#include <stdlib.h>
#include <string.h>

/* nvrtcCompileProgram with NVRTC's options put into hiprtc's words; the caller's array is
   left as it is. An NVIDIA architecture (--gpu-architecture=sm_86, -arch=compute_80, or
   `-arch` with the name as the next option) is left out, so hiprtc compiles for the current
   device, its default: hiprtc aborts the process on an sm_ name (6.4: "free(): invalid
   pointer" inside hiprtcCompileProgram) and every cuda-samples *_nvrtc program passes one
   (nvrtc_helper.h). An AMD name (gfx1100) goes through. --include-path=D, --define-macro=M
   and --undefine-macro=M, which hiprtc rejects, become -ID, -DM and -UM. NVRTC takes
   `const char* const*` options (char** converts); hipRTC takes `const char**`. */
static inline int moatbridge_nvrtc_is_nvidia_arch(const char* name) {
    return strncmp(name, "sm_", 3) == 0 || strncmp(name, "compute_", 8) == 0 || strncmp(name, "lto_", 4) == 0;
}
static inline const char* moatbridge_nvrtc_value(const char* option, const char* name) {
    size_t length = strlen(name);
    return strncmp(option, name, length) == 0 ? option + length : NULL;
}
static inline hiprtcResult moatbridge_nvrtcCompileProgram(hiprtcProgram prog, int numOptions,
                                                          const char* const* options) {
    const char** kept;
    char** made;
    int count = 0, owned = 0, i;
    hiprtcResult result;
    if (numOptions < 0 || (numOptions > 0 && options == NULL)) return HIPRTC_ERROR_INVALID_INPUT;
    kept = (const char**)malloc(sizeof(char*) * (size_t)(numOptions + 1));
    made = (char**)malloc(sizeof(char*) * (size_t)(numOptions + 1));
    if (kept == NULL || made == NULL) {
        free(kept);
        free(made);
        return HIPRTC_ERROR_OUT_OF_MEMORY;
    }
    for (i = 0; i < numOptions; i++) {
        const char* option = options[i];
        const char* value = moatbridge_nvrtc_value(option, "--gpu-architecture=");
        const char* flag = NULL;
        if (value == NULL) value = moatbridge_nvrtc_value(option, "-arch=");
        if (value != NULL && moatbridge_nvrtc_is_nvidia_arch(value)) continue;
        if ((strcmp(option, "--gpu-architecture") == 0 || strcmp(option, "-arch") == 0) && i + 1 < numOptions &&
            moatbridge_nvrtc_is_nvidia_arch(options[i + 1])) {
            i++;
            continue;
        }
        if ((value = moatbridge_nvrtc_value(option, "--include-path=")) != NULL) flag = "-I";
        else if ((value = moatbridge_nvrtc_value(option, "--define-macro=")) != NULL) flag = "-D";
        else if ((value = moatbridge_nvrtc_value(option, "--undefine-macro=")) != NULL) flag = "-U";
        if (flag != NULL) {
            char* spelled = (char*)malloc(strlen(value) + 3);
            if (spelled == NULL) continue;
            strcpy(spelled, flag);
            strcat(spelled, value);
            made[owned++] = spelled;
            option = spelled;
        }
        kept[count++] = option;
    }
    result = hiprtcCompileProgram(prog, count, kept);
    while (owned > 0) free(made[--owned]);
    free(made);
    free(kept);
    return result;
}
#define nvrtcCompileProgram moatbridge_nvrtcCompileProgram
