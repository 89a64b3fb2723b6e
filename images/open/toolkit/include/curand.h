/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#include <moatbridge/hide_cuda_macros.h>
#include <hiprand/hiprand.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/curand.h>
#if HIP_VERSION_MAJOR < 6 /* hipRAND of HIP 6 has them (mapped) */
/* cuRAND's generator ordering and Sobol direction vectors, which hipRAND 5.7 lacks, over
   rocRAND (a hipRAND generator is a rocRAND generator; rocRAND's ordering values are
   cuRAND's). The Joe-Kuo direction vectors are rocRAND's tables: the same numbers as
   cuRAND's, checked against NVIDIA's libcurand 12.4. The scrambled sets are left out (their
   rocRAND tables are other numbers than cuRAND's), so code asking for them stops at compile
   time. libcurand.so here links rocRAND too. */
#include <moatbridge/hide_cuda_macros.h>
#include <rocrand/rocrand.h>
#include <rocrand/rocrand_sobol32_precomputed.h>
#include <rocrand/rocrand_sobol64_precomputed.h>
#include <moatbridge/restore_cuda_macros.h>
/* as hiprand_kernel.h declares them (a repeated identical typedef is allowed) */
typedef unsigned int hiprandDirectionVectors32_t[32];
typedef unsigned long long int hiprandDirectionVectors64_t[64];
typedef enum curandOrdering {
    CURAND_ORDERING_PSEUDO_BEST = 100,
    CURAND_ORDERING_PSEUDO_DEFAULT = 101,
    CURAND_ORDERING_PSEUDO_SEEDED = 102,
    CURAND_ORDERING_PSEUDO_LEGACY = 103,
    CURAND_ORDERING_PSEUDO_DYNAMIC = 104,
    CURAND_ORDERING_QUASI_DEFAULT = 201
} curandOrdering_t;
typedef enum curandDirectionVectorSet {
    CURAND_DIRECTION_VECTORS_32_JOEKUO6 = 101,
    CURAND_DIRECTION_VECTORS_64_JOEKUO6 = 103
} curandDirectionVectorSet_t;
static inline hiprandStatus_t moatbridge_hiprand_status(rocrand_status status) {
    switch (status) {
        case ROCRAND_STATUS_SUCCESS: return HIPRAND_STATUS_SUCCESS;
        case ROCRAND_STATUS_NOT_CREATED: return HIPRAND_STATUS_NOT_INITIALIZED;
        case ROCRAND_STATUS_TYPE_ERROR: return HIPRAND_STATUS_TYPE_ERROR;
        case ROCRAND_STATUS_OUT_OF_RANGE: return HIPRAND_STATUS_OUT_OF_RANGE;
        default: return HIPRAND_STATUS_INTERNAL_ERROR;
    }
}
static inline hiprandStatus_t curandSetGeneratorOrdering(hiprandGenerator_t generator, curandOrdering_t order) {
    return moatbridge_hiprand_status(rocrand_set_ordering(generator, (rocrand_ordering)order));
}
static inline hiprandStatus_t curandGetDirectionVectors32(hiprandDirectionVectors32_t* vectors[],
                                                          curandDirectionVectorSet_t set) {
    if (vectors == NULL || set != CURAND_DIRECTION_VECTORS_32_JOEKUO6) return HIPRAND_STATUS_OUT_OF_RANGE;
    *vectors = (hiprandDirectionVectors32_t*)rocrand_h_sobol32_direction_vectors;
    return HIPRAND_STATUS_SUCCESS;
}
static inline hiprandStatus_t curandGetDirectionVectors64(hiprandDirectionVectors64_t* vectors[],
                                                          curandDirectionVectorSet_t set) {
    if (vectors == NULL || set != CURAND_DIRECTION_VECTORS_64_JOEKUO6) return HIPRAND_STATUS_OUT_OF_RANGE;
    *vectors = (hiprandDirectionVectors64_t*)rocrand_h_sobol64_direction_vectors;
    return HIPRAND_STATUS_SUCCESS;
}
#endif
