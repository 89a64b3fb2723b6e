/* moatbridge nvrtc: NVRTC's compile options in hiprtc's (clang's) words. NVRTC takes each
   option as --long-name or -short-name, its value joined by '=' or as the next option (-I, -D
   and -U also take it joined: -Iinc, -DX=1); hiprtc knows none of NVRTC's own spellings and
   fails on most. Options with an AMD meaning are translated; NVIDIA-only ones (register and
   PTX assembler settings, precompiled headers, diagnostics numbering) are accepted and
   dropped, as NVRTC would accept them; anything else (clang's and hiprtc's own options)
   goes to hiprtc as it is. */
#pragma once
#include <stdlib.h>
#include <string.h>

enum moatbridge_nvrtc_option_kind {
    MOATBRIDGE_NVRTC_ARCH,           /* an NVIDIA architecture sets __CUDA_ARCH__; an AMD one goes through */
    MOATBRIDGE_NVRTC_JOINED,         /* valued: `spelling` + value, one word (-I, -D, -U, -std=) */
    MOATBRIDGE_NVRTC_SEPARATE,       /* valued: `spelling`, then the value (-include FILE) */
    MOATBRIDGE_NVRTC_BOOLEAN,        /* true/false: `spelling` when true, `other` when false */
    MOATBRIDGE_NVRTC_FLAG,           /* no value: `spelling` (and `other`) */
    MOATBRIDGE_NVRTC_VALUE_DROPPED,  /* valued, NVIDIA-only */
    MOATBRIDGE_NVRTC_FLAG_DROPPED,   /* no value, NVIDIA-only */
    MOATBRIDGE_NVRTC_NO_SOURCE_INCLUDE
};

struct moatbridge_nvrtc_option {
    const char* long_name;
    const char* short_name;
    enum moatbridge_nvrtc_option_kind kind;
    const char* spelling;
    const char* other;
};

static const struct moatbridge_nvrtc_option moatbridge_nvrtc_options[] = {
    {"gpu-architecture", "arch", MOATBRIDGE_NVRTC_ARCH, NULL, NULL},
    {"include-path", "I", MOATBRIDGE_NVRTC_JOINED, "-I", NULL},
    {"define-macro", "D", MOATBRIDGE_NVRTC_JOINED, "-D", NULL},
    {"undefine-macro", "U", MOATBRIDGE_NVRTC_JOINED, "-U", NULL},
    {"pre-include", "include", MOATBRIDGE_NVRTC_SEPARATE, "-include", NULL},
    {"std", "std", MOATBRIDGE_NVRTC_JOINED, "-std=", NULL},
    {"relocatable-device-code", "rdc", MOATBRIDGE_NVRTC_BOOLEAN, "-fgpu-rdc", NULL},
    {"ftz", "ftz", MOATBRIDGE_NVRTC_BOOLEAN, "-fgpu-flush-denormals-to-zero", NULL},
    {"prec-sqrt", "prec-sqrt", MOATBRIDGE_NVRTC_BOOLEAN, NULL, "-fno-hip-fp32-correctly-rounded-divide-sqrt"},
    {"prec-div", "prec-div", MOATBRIDGE_NVRTC_BOOLEAN, NULL, "-fno-hip-fp32-correctly-rounded-divide-sqrt"},
    {"fmad", "fmad", MOATBRIDGE_NVRTC_BOOLEAN, NULL, "-ffp-contract=off"},
    {"use_fast_math", "use_fast_math", MOATBRIDGE_NVRTC_FLAG, "-ffast-math", "-fgpu-flush-denormals-to-zero"},
    {"device-debug", "G", MOATBRIDGE_NVRTC_FLAG, "-g", "-O0"},
    {"generate-line-info", "lineinfo", MOATBRIDGE_NVRTC_FLAG, "-gline-tables-only", NULL},
    {"disable-warnings", "w", MOATBRIDGE_NVRTC_FLAG, "-w", NULL},
    {"no-source-include", "no-source-include", MOATBRIDGE_NVRTC_NO_SOURCE_INCLUDE, NULL, NULL},
    {"maxrregcount", "maxrregcount", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"ptxas-options", "Xptxas", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"dopt", "dopt", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"jump-table-density", "jtd", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"time", "time", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"split-compile", "split-compile", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"optimization-info", "opt-info", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"diag-error", "diag-error", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"diag-suppress", "diag-suppress", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"diag-warn", "diag-warn", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"brief-diagnostics", "brief-diag", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"builtin-move-forward", "builtin-move-forward", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"builtin-initializer-list", "builtin-initializer-list", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"modify-stack-limit", "modify-stack-limit", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"device-stack-protector", "device-stack-protector", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"pch-dir", "pch-dir", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"create-pch", "create-pch", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"use-pch", "use-pch", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"pch-verbose", "pch-verbose", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"pch-messages", "pch-messages", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"instantiate-templates-in-pch", "instantiate-templates-in-pch", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"fdevice-time-trace", "fdevice-time-trace", MOATBRIDGE_NVRTC_VALUE_DROPPED, NULL, NULL},
    {"extra-device-vectorization", "extra-device-vectorization", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"restrict", "restrict", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"device-as-default-execution-space", "default-device", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"device-int128", "device-int128", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"display-error-number", "err-no", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"no-display-error-number", "no-err-no", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"extensible-whole-program", "ewp", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"dlink-time-opt", "dlto", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"gen-opt-lto", "gen-opt-lto", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"optix-ir", "optix-ir", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"pch", "pch", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"fdevice-syntax-only", "fdevice-syntax-only", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
    {"minimal", "minimal", MOATBRIDGE_NVRTC_FLAG_DROPPED, NULL, NULL},
};

/* The words handed to hiprtc, each owned (malloc'd). */
struct moatbridge_nvrtc_words {
    char** items;
    int count, capacity;
    int failed; /* out of memory */
};

static inline void moatbridge_nvrtc_add2(struct moatbridge_nvrtc_words* words, const char* head, const char* tail) {
    char* word;
    size_t head_length = strlen(head), tail_length = tail != NULL ? strlen(tail) : 0;
    if (words->failed) return;
    if (words->count == words->capacity) {
        int capacity = words->capacity > 0 ? words->capacity * 2 : 16;
        char** grown = (char**)realloc(words->items, sizeof(char*) * (size_t)capacity);
        if (grown == NULL) {
            words->failed = 1;
            return;
        }
        words->items = grown;
        words->capacity = capacity;
    }
    word = (char*)malloc(head_length + tail_length + 1);
    if (word == NULL) {
        words->failed = 1;
        return;
    }
    memcpy(word, head, head_length);
    if (tail_length > 0) memcpy(word + head_length, tail, tail_length);
    word[head_length + tail_length] = '\0';
    words->items[words->count++] = word;
}

static inline void moatbridge_nvrtc_add(struct moatbridge_nvrtc_words* words, const char* word) {
    moatbridge_nvrtc_add2(words, word, NULL);
}

static inline void moatbridge_nvrtc_free_words(struct moatbridge_nvrtc_words* words) {
    while (words->count > 0) free(words->items[--words->count]);
    free(words->items);
    words->items = NULL;
    words->capacity = 0;
}

/* __CUDA_ARCH__ for an NVIDIA architecture name (sm_86, compute_90a, lto_75), else 0. */
static inline int moatbridge_nvrtc_cuda_arch(const char* name) {
    const char* digits = NULL;
    int value = 0;
    if (strncmp(name, "sm_", 3) == 0 || strncmp(name, "lto_", 4) == 0) digits = strchr(name, '_') + 1;
    else if (strncmp(name, "compute_", 8) == 0) digits = name + 8;
    if (digits == NULL || *digits < '0' || *digits > '9') return 0;
    while (*digits >= '0' && *digits <= '9' && value < 100000) value = value * 10 + (*digits++ - '0');
    return value * 10;
}

static inline const struct moatbridge_nvrtc_option* moatbridge_nvrtc_find(const char* name, size_t length, int is_long) {
    size_t i;
    for (i = 0; i < sizeof(moatbridge_nvrtc_options) / sizeof(moatbridge_nvrtc_options[0]); i++) {
        const char* known = is_long ? moatbridge_nvrtc_options[i].long_name : moatbridge_nvrtc_options[i].short_name;
        if (strlen(known) == length && strncmp(known, name, length) == 0) return &moatbridge_nvrtc_options[i];
    }
    return NULL;
}

/* What the options say beyond the words for hiprtc. */
struct moatbridge_nvrtc_settings {
    int cuda_arch;      /* the last NVIDIA architecture's __CUDA_ARCH__, or 0 */
    int source_include; /* search the program name's directory for quoted includes */
};

/* Translates options[0..count) into `words`; 0, or -1 for an option NVRTC refuses too (a
   true/false option with another value, a valued option with none). */
static inline int moatbridge_nvrtc_translate(int count, const char* const* options, struct moatbridge_nvrtc_words* words,
                                             struct moatbridge_nvrtc_settings* settings) {
    int i;
    for (i = 0; i < count; i++) {
        const char* option = options[i];
        const struct moatbridge_nvrtc_option* known = NULL;
        const char* value = NULL;
        if (option == NULL) return -1;
        if (option[0] == '-' && option[1] == '-') {
            const char* equals = strchr(option + 2, '=');
            size_t length = equals != NULL ? (size_t)(equals - option - 2) : strlen(option + 2);
            known = moatbridge_nvrtc_find(option + 2, length, 1);
            if (equals != NULL) value = equals + 1;
        } else if (option[0] == '-') {
            const char* equals = strchr(option + 1, '=');
            size_t length = equals != NULL ? (size_t)(equals - option - 1) : strlen(option + 1);
            known = moatbridge_nvrtc_find(option + 1, length, 0);
            if (known != NULL && equals != NULL) value = equals + 1;
            if (known == NULL && (option[1] == 'I' || option[1] == 'D' || option[1] == 'U')) {
                known = moatbridge_nvrtc_find(option + 1, 1, 0); /* -Iinc, -DX=1, -I=inc */
                value = option[2] == '=' ? option + 3 : option + 2;
                if (*value == '\0') value = NULL;
            }
        }
        if (known == NULL) { /* clang's or hiprtc's own */
            moatbridge_nvrtc_add(words, option);
            continue;
        }
        if (known->kind == MOATBRIDGE_NVRTC_FLAG || known->kind == MOATBRIDGE_NVRTC_FLAG_DROPPED ||
            known->kind == MOATBRIDGE_NVRTC_NO_SOURCE_INCLUDE) {
            if (value != NULL) return -1;
            if (known->kind == MOATBRIDGE_NVRTC_FLAG) {
                moatbridge_nvrtc_add(words, known->spelling);
                if (known->other != NULL) moatbridge_nvrtc_add(words, known->other);
            } else if (known->kind == MOATBRIDGE_NVRTC_NO_SOURCE_INCLUDE) {
                settings->source_include = 0;
            }
            continue;
        }
        if (value == NULL) {
            if (i + 1 >= count || options[i + 1] == NULL) return -1;
            value = options[++i];
        }
        switch (known->kind) {
        case MOATBRIDGE_NVRTC_ARCH:
            if (moatbridge_nvrtc_cuda_arch(value) != 0) settings->cuda_arch = moatbridge_nvrtc_cuda_arch(value);
            else moatbridge_nvrtc_add2(words, "--offload-arch=", value);
            break;
        case MOATBRIDGE_NVRTC_JOINED:
            moatbridge_nvrtc_add2(words, known->spelling, value);
            break;
        case MOATBRIDGE_NVRTC_SEPARATE:
            moatbridge_nvrtc_add(words, known->spelling);
            moatbridge_nvrtc_add(words, value);
            break;
        case MOATBRIDGE_NVRTC_BOOLEAN:
            if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) return -1;
            if (strcmp(value, "true") == 0 ? known->spelling != NULL : known->other != NULL)
                moatbridge_nvrtc_add(words, strcmp(value, "true") == 0 ? known->spelling : known->other);
            break;
        default: /* MOATBRIDGE_NVRTC_VALUE_DROPPED */
            break;
        }
    }
    return 0;
}
