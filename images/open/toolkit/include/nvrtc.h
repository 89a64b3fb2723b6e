/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#include <moatbridge/hide_cuda_macros.h>
#include <hip/hiprtc.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/nvrtc.h>
#include <moatbridge/nvrtc_options.h>
#include <moatbridge/nvrtc_source.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

/* NVRTC over hiprtc, with what NVRTC gives a program and hiprtc does not:
   - NVRTC's options (moatbridge/nvrtc_options.h); an NVIDIA architecture sets __CUDA_ARCH__
     (the last one given; NVRTC's default, compute_52 up to CUDA 12 and compute_75 from 13,
     otherwise) and hiprtc compiles for the current device, its default: hiprtc aborts the
     process on an sm_ name (6.4: "free(): invalid pointer"), and every cuda-samples *_nvrtc
     program passes one;
   - NVRTC's predefined macros and the CUDA device functions HIP lacks
     (moatbridge/nvrtc_prelude.h), and these headers themselves after the program's own
     include paths: a kernel's <cooperative_groups.h> or <cuda_fp16.h>, from here or from a
     copy of them, compiles as under nvcc;
   - `static` namespace-scope device variables by their names (moatbridge/nvrtc_source.h);
   - quoted includes from the directory of the program's name (the working directory for a
     name without one), which NVRTC searches and hiprtc, compiling a copy of the source in a
     directory of its own, does not. That directory is kept from nvrtcCreateProgram to
     nvrtcDestroyProgram in a process-wide list (weak definitions: one list however many
     translation units include this header).
   NVRTC takes `const char* const*` options and headers (char** converts); hiprtc takes
   `const char**`. The caller's arrays are left as they are. */
struct moatbridge_nvrtc_origin {
    hiprtcProgram program;
    char* directory; /* as the name gives it; a relative one is taken from the working directory at compile time */
    struct moatbridge_nvrtc_origin* next;
};
__attribute__((weak)) struct moatbridge_nvrtc_origin* moatbridge_nvrtc_origins = NULL;
__attribute__((weak)) pthread_mutex_t moatbridge_nvrtc_origins_lock = PTHREAD_MUTEX_INITIALIZER;

static inline hiprtcResult moatbridge_nvrtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name,
                                                         int numHeaders, const char* const* headers,
                                                         const char* const* includeNames) {
    char* external = moatbridge_nvrtc_external_device_variables(src); /* hiprtc keeps a copy */
    hiprtcResult result = hiprtcCreateProgram(prog, external != NULL ? external : src, name, numHeaders,
                                              (const char**)headers, (const char**)includeNames);
    const char* slash = name != NULL ? strrchr(name, '/') : NULL;
    struct moatbridge_nvrtc_origin* origin;
    size_t length = slash == NULL ? 1 : slash == name ? 1 : (size_t)(slash - name);
    free(external);
    if (result != HIPRTC_SUCCESS) return result;
    origin = (struct moatbridge_nvrtc_origin*)malloc(sizeof *origin);
    if (origin == NULL) return result; /* then quoted includes are searched as hiprtc does */
    origin->directory = (char*)malloc(length + 1);
    if (origin->directory == NULL) {
        free(origin);
        return result;
    }
    memcpy(origin->directory, slash == NULL ? "." : name, length);
    origin->directory[length] = '\0';
    origin->program = *prog;
    pthread_mutex_lock(&moatbridge_nvrtc_origins_lock);
    origin->next = moatbridge_nvrtc_origins;
    moatbridge_nvrtc_origins = origin;
    pthread_mutex_unlock(&moatbridge_nvrtc_origins_lock);
    return result;
}

static inline hiprtcResult moatbridge_nvrtcDestroyProgram(hiprtcProgram* prog) {
    struct moatbridge_nvrtc_origin** link;
    struct moatbridge_nvrtc_origin* found = NULL;
    if (prog != NULL && *prog != NULL) {
        pthread_mutex_lock(&moatbridge_nvrtc_origins_lock);
        for (link = &moatbridge_nvrtc_origins; *link != NULL; link = &(*link)->next) {
            if ((*link)->program == *prog) {
                found = *link;
                *link = found->next;
                break;
            }
        }
        pthread_mutex_unlock(&moatbridge_nvrtc_origins_lock);
    }
    if (found != NULL) {
        free(found->directory);
        free(found);
    }
    return hiprtcDestroyProgram(prog);
}

/* "-iquote DIR" for the program's name, DIR absolute; nothing for a program this header did not create. */
static inline void moatbridge_nvrtc_add_quote_directory(hiprtcProgram prog, struct moatbridge_nvrtc_words* words) {
    struct moatbridge_nvrtc_origin* origin;
    char working[4096];
    pthread_mutex_lock(&moatbridge_nvrtc_origins_lock);
    for (origin = moatbridge_nvrtc_origins; origin != NULL && origin->program != prog; origin = origin->next) {
    }
    if (origin != NULL) {
        moatbridge_nvrtc_add(words, "-iquote");
        if (origin->directory[0] == '/') moatbridge_nvrtc_add(words, origin->directory);
        else if (getcwd(working, sizeof working) != NULL) {
            size_t length = strlen(working);
            if (length + 1 < sizeof working) {
                working[length] = '/';
                working[length + 1] = '\0';
            }
            moatbridge_nvrtc_add2(words, working, origin->directory);
        } else {
            moatbridge_nvrtc_add(words, origin->directory);
        }
    }
    pthread_mutex_unlock(&moatbridge_nvrtc_origins_lock);
}

static inline hiprtcResult moatbridge_nvrtcCompileProgram(hiprtcProgram prog, int numOptions,
                                                          const char* const* options) {
    struct moatbridge_nvrtc_words words = {NULL, 0, 0, 0};
    struct moatbridge_nvrtc_settings settings = {MOATBRIDGE_CUDA_MAJOR >= 13 ? 750 : 520, 1};
    char arch[64];
    hiprtcResult result;
    if (numOptions < 0 || (numOptions > 0 && options == NULL)) return HIPRTC_ERROR_INVALID_INPUT;
    /* first of the -include files: what NVRTC has built in comes before the program's own */
    moatbridge_nvrtc_add(&words, "-include");
    moatbridge_nvrtc_add(&words, MOATBRIDGE_INCLUDE_DIR "/moatbridge/nvrtc_prelude.h");
    if (moatbridge_nvrtc_translate(numOptions, options, &words, &settings) != 0) {
        moatbridge_nvrtc_free_words(&words);
        return HIPRTC_ERROR_INVALID_OPTION;
    }
    snprintf(arch, sizeof arch, "-D__CUDA_ARCH__=%d", settings.cuda_arch);
    moatbridge_nvrtc_add(&words, arch);
    snprintf(arch, sizeof arch, "-D__CUDA_ARCH_LIST__=%d", settings.cuda_arch);
    moatbridge_nvrtc_add(&words, arch);
#if HIP_VERSION_MAJOR >= 7
    moatbridge_nvrtc_add(&words, "-DHIP_DISABLE_WARP_SYNC_BUILTINS=1"); /* as moatbridge/runtime.h does */
#endif
    if (settings.source_include) moatbridge_nvrtc_add_quote_directory(prog, &words);
    moatbridge_nvrtc_add(&words, "-isystem"); /* after the program's own -I paths, warnings off, as nvcc has them */
    moatbridge_nvrtc_add(&words, MOATBRIDGE_INCLUDE_DIR);
    result = words.failed ? HIPRTC_ERROR_OUT_OF_MEMORY
                          : hiprtcCompileProgram(prog, words.count, (const char**)words.items);
    moatbridge_nvrtc_free_words(&words);
    return result;
}
#define nvrtcCreateProgram moatbridge_nvrtcCreateProgram
#define nvrtcDestroyProgram moatbridge_nvrtcDestroyProgram
#define nvrtcCompileProgram moatbridge_nvrtcCompileProgram
