/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#ifndef ROCM_MATHLIBS_API_USE_HIP_COMPLEX
#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX 1 /* cuComplex == hipFloatComplex */
#endif
/* cuBLAS's half-precision calls (cublasHgemm, ...) take __half: so does hipBLAS with this,
   instead of its bare uint16_t. */
#ifndef HIPBLAS_USE_HIP_HALF
#define HIPBLAS_USE_HIP_HALF 1
#endif
#include <moatbridge/hide_cuda_macros.h>
#include <hipblas/hipblas.h>
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cublas.h>
#ifdef __cplusplus
/* cuBLAS 11+'s typed GEMMs take cudaDataType (hipDataType here) for the matrices and
   cublasComputeType_t for the arithmetic; hipBLAS 5.5 takes its own hipblasDatatype_t for
   both. The compute types are CUDA's (same values); the overloads below translate. */
#ifndef CUBLAS_COMPUTE_32F
#define MOATBRIDGE_OWN_COMPUTE_TYPES 1 /* CUDA's enum, declared here (not mapped onto HIP's) */
typedef enum cublasComputeType_t {
    CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_16F_PEDANTIC = 65, CUBLAS_COMPUTE_32F = 68,
    CUBLAS_COMPUTE_32F_PEDANTIC = 69, CUBLAS_COMPUTE_32F_FAST_16F = 74, CUBLAS_COMPUTE_32F_FAST_16BF = 75,
    CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_COMPUTE_64F = 70, CUBLAS_COMPUTE_64F_PEDANTIC = 71,
    CUBLAS_COMPUTE_32I = 72, CUBLAS_COMPUTE_32I_PEDANTIC = 73,
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
    /* CUDA 13's emulations (FP32 from BF16 products, FP64 in fixed point): native arithmetic
       here, which is what they approximate */
    CUBLAS_COMPUTE_32F_EMULATED_16BFX9 = 78, CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT = 79,
#endif
} cublasComputeType_t;
#endif
#if !defined(hipblasVersionMajor) || hipblasVersionMajor < 3 /* hipBLAS 3 (ROCm 7) takes hipDataType and
   hipblasComputeType_t itself, as cuBLAS does: the mappings are all it needs */
static inline hipblasDatatype_t moatbridge_blas_type(hipblasDatatype_t type) { return type; }
static inline hipblasDatatype_t moatbridge_blas_type(hipDataType type) {
    switch (type) {
        case HIP_R_16F: return HIPBLAS_R_16F;
        case HIP_R_32F: return HIPBLAS_R_32F;
        case HIP_R_64F: return HIPBLAS_R_64F;
        case HIP_C_16F: return HIPBLAS_C_16F;
        case HIP_C_32F: return HIPBLAS_C_32F;
        case HIP_C_64F: return HIPBLAS_C_64F;
        case HIP_R_8I: return HIPBLAS_R_8I;
        case HIP_R_8U: return HIPBLAS_R_8U;
        case HIP_R_32I: return HIPBLAS_R_32I;
        case HIP_R_32U: return HIPBLAS_R_32U;
        case HIP_R_16BF: return HIPBLAS_R_16B;
        case HIP_C_16BF: return HIPBLAS_C_16B;
        default: return HIPBLAS_R_32F;
    }
}
static inline hipblasDatatype_t moatbridge_blas_type(cublasComputeType_t type) {
    switch (type) {
        case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC: return HIPBLAS_R_16F;
        case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC: return HIPBLAS_R_64F;
#if defined(MOATBRIDGE_OWN_COMPUTE_TYPES) && MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
        case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT: return HIPBLAS_R_64F;
#endif
        case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC: return HIPBLAS_R_32I;
        default: return HIPBLAS_R_32F;
    }
}
template <class Compute>
static inline hipblasStatus_t hipblasGemmEx(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m, int n,
                                            int k, const void* alpha, const void* A, hipDataType at, int lda, const void* B,
                                            hipDataType bt, int ldb, const void* beta, void* C, hipDataType ct, int ldc,
                                            Compute compute, hipblasGemmAlgo_t algo) {
    return hipblasGemmEx(h, ta, tb, m, n, k, alpha, A, moatbridge_blas_type(at), lda, B, moatbridge_blas_type(bt), ldb,
                         beta, C, moatbridge_blas_type(ct), ldc, moatbridge_blas_type(compute), algo);
}
template <class Compute>
static inline hipblasStatus_t hipblasGemmBatchedEx(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m,
                                                   int n, int k, const void* alpha, const void* const A[], hipDataType at,
                                                   int lda, const void* const B[], hipDataType bt, int ldb,
                                                   const void* beta, void* const C[], hipDataType ct, int ldc, int count,
                                                   Compute compute, hipblasGemmAlgo_t algo) {
    return hipblasGemmBatchedEx(h, ta, tb, m, n, k, alpha, const_cast<const void**>(A), moatbridge_blas_type(at), lda,
                                const_cast<const void**>(B), moatbridge_blas_type(bt), ldb, beta, const_cast<void**>(C),
                                moatbridge_blas_type(ct), ldc, count, moatbridge_blas_type(compute), algo);
}
template <class Compute>
static inline hipblasStatus_t hipblasGemmStridedBatchedEx(
    hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m, int n, int k, const void* alpha,
    const void* A, hipDataType at, int lda, long long sa, const void* B, hipDataType bt, int ldb, long long sb,
    const void* beta, void* C, hipDataType ct, int ldc, long long sc, int count, Compute compute, hipblasGemmAlgo_t algo) {
    return hipblasGemmStridedBatchedEx(h, ta, tb, m, n, k, alpha, A, moatbridge_blas_type(at), lda, sa, B,
                                       moatbridge_blas_type(bt), ldb, sb, beta, C, moatbridge_blas_type(ct), ldc, sc,
                                       count, moatbridge_blas_type(compute), algo);
}
#endif
/* cuBLAS's batched triangular solves take `const T* const A[]` and `T* const B[]`; hipBLAS 5.5's
   take `T* const A[]` and `T* B[]`, so the calls CUDA code writes (ggml's, with `const float**`)
   find no match. These overloads take cuBLAS's types; hipBLAS does not write through A. */
#if HIP_VERSION_MAJOR < 6 /* hipBLAS 2 (HIP 6) takes const A[] itself */
#define MOATBRIDGE_TRSM_BATCHED(name, T)                                                              \
    static inline hipblasStatus_t name(hipblasHandle_t h, hipblasSideMode_t side, hipblasFillMode_t uplo, \
                                       hipblasOperation_t trans, hipblasDiagType_t diag, int m, int n,     \
                                       const T* alpha, const T* const A[], int lda, T* const B[], int ldb, \
                                       int count) {                                                        \
        return name(h, side, uplo, trans, diag, m, n, alpha, const_cast<T* const*>(A), lda,                \
                    const_cast<T**>(B), ldb, count);                                                       \
    }
MOATBRIDGE_TRSM_BATCHED(hipblasStrsmBatched, float)
MOATBRIDGE_TRSM_BATCHED(hipblasDtrsmBatched, double)
MOATBRIDGE_TRSM_BATCHED(hipblasCtrsmBatched, hipblasComplex)
MOATBRIDGE_TRSM_BATCHED(hipblasZtrsmBatched, hipblasDoubleComplex)
#undef MOATBRIDGE_TRSM_BATCHED
#endif
/* Math modes (tensor-op and TF32 choices) and user workspaces: rocBLAS picks its kernels and
   manages its workspace itself, so these are accepted and change nothing. */
#if HIP_VERSION_MAJOR < 6 /* hipBLAS 2 (HIP 6) has the math modes (mapped) */
#ifndef CUBLAS_DEFAULT_MATH
typedef enum cublasMath_t {
    CUBLAS_DEFAULT_MATH = 0, CUBLAS_TENSOR_OP_MATH = 1, CUBLAS_PEDANTIC_MATH = 2,
    CUBLAS_TF32_TENSOR_OP_MATH = 3,
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
    CUBLAS_FP32_EMULATED_BF16X9_MATH = 4, CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH = 8,
#endif
    CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
} cublasMath_t;
#endif
static inline hipblasStatus_t cublasSetMathMode(hipblasHandle_t, cublasMath_t) { return HIPBLAS_STATUS_SUCCESS; }
static inline hipblasStatus_t cublasSetMathMode(hipblasHandle_t, int) { return HIPBLAS_STATUS_SUCCESS; }
static inline hipblasStatus_t cublasGetMathMode(hipblasHandle_t, cublasMath_t* mode) {
    if (mode != nullptr) *mode = CUBLAS_DEFAULT_MATH;
    return HIPBLAS_STATUS_SUCCESS;
}
#else
/* hipBLAS 2+ maps the math modes, but its rocBLAS backend refuses every one but the default
   with HIPBLAS_STATUS_NOT_SUPPORTED (PEDANTIC, TF32 and the rest are for its cuBLAS backend),
   where cuBLAS accepts them all on every GPU: they allow or forbid reduced-precision kernels,
   and rocBLAS's default ones are full precision. A refused mode leaves the default. */
#undef cublasSetMathMode
static inline hipblasStatus_t cublasSetMathMode(hipblasHandle_t handle, hipblasMath_t mode) {
    hipblasStatus_t status = hipblasSetMathMode(handle, mode);
    return status == HIPBLAS_STATUS_NOT_SUPPORTED ? HIPBLAS_STATUS_SUCCESS : status;
}
static inline hipblasStatus_t cublasSetMathMode(hipblasHandle_t handle, int mode) {
    return cublasSetMathMode(handle, static_cast<hipblasMath_t>(mode));
}
#endif
#ifndef cublasSetWorkspace /* mapped where hipBLAS has hipblasSetWorkspace (hipBLAS 3) */
static inline hipblasStatus_t cublasSetWorkspace(hipblasHandle_t, void*, size_t) { return HIPBLAS_STATUS_SUCCESS; }
#endif
#ifndef CUBLAS_GEMM_DEFAULT_TENSOR_OP
#define CUBLAS_GEMM_DEFAULT_TENSOR_OP HIPBLAS_GEMM_DEFAULT
#endif
#ifndef cublasGetStatusString
#define cublasGetStatusString hipblasStatusToString
#endif
/* cuBLAS's batched LU solves and inverses take their factors read-only (const T* const A[],
   const int* pivots); hipBLAS declares them writable, and reads them only. */
#define MOATBRIDGE_BATCHED_LU(P, T)                                                                         \
    static inline hipblasStatus_t moatbridge_cublas##P##getriBatched(                                      \
        hipblasHandle_t handle, int n, const T* const A[], int lda, const int* pivots, T* const C[], int ldc, \
        int* info, int batch) {                                                                             \
        return hipblas##P##getriBatched(handle, n, const_cast<T* const*>(A), lda, const_cast<int*>(pivots), \
                                        C, ldc, info, batch);                                               \
    }                                                                                                       \
    static inline hipblasStatus_t moatbridge_cublas##P##getrsBatched(                                      \
        hipblasHandle_t handle, hipblasOperation_t trans, int n, int nrhs, const T* const A[], int lda,     \
        const int* pivots, T* const B[], int ldb, int* info, int batch) {                                   \
        return hipblas##P##getrsBatched(handle, trans, n, nrhs, const_cast<T* const*>(A), lda, pivots, B,   \
                                        ldb, info, batch);                                                  \
    }
MOATBRIDGE_BATCHED_LU(S, float)
MOATBRIDGE_BATCHED_LU(D, double)
MOATBRIDGE_BATCHED_LU(C, hipblasComplex)
MOATBRIDGE_BATCHED_LU(Z, hipblasDoubleComplex)
#undef MOATBRIDGE_BATCHED_LU
#undef cublasSgetriBatched
#define cublasSgetriBatched moatbridge_cublasSgetriBatched
#undef cublasDgetriBatched
#define cublasDgetriBatched moatbridge_cublasDgetriBatched
#undef cublasCgetriBatched
#define cublasCgetriBatched moatbridge_cublasCgetriBatched
#undef cublasZgetriBatched
#define cublasZgetriBatched moatbridge_cublasZgetriBatched
#undef cublasSgetrsBatched
#define cublasSgetrsBatched moatbridge_cublasSgetrsBatched
#undef cublasDgetrsBatched
#define cublasDgetrsBatched moatbridge_cublasDgetrsBatched
#undef cublasCgetrsBatched
#define cublasCgetrsBatched moatbridge_cublasCgetrsBatched
#undef cublasZgetrsBatched
#define cublasZgetrsBatched moatbridge_cublasZgetrsBatched
#if HIP_VERSION_MAJOR < 6
/* hipBLAS before ROCm 6 declares trsm's triangle writable; cuBLAS's is read-only, as rocBLAS
   treats it. */
#define MOATBRIDGE_TRSM(P, T)                                                                               \
    static inline hipblasStatus_t moatbridge_cublas##P##trsm(                                              \
        hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo, hipblasOperation_t trans,  \
        hipblasDiagType_t diag, int m, int n, const T* alpha, const T* A, int lda, T* B, int ldb) {         \
        return hipblas##P##trsm(handle, side, uplo, trans, diag, m, n, alpha, const_cast<T*>(A), lda, B, ldb); \
    }
MOATBRIDGE_TRSM(S, float)
MOATBRIDGE_TRSM(D, double)
MOATBRIDGE_TRSM(C, hipblasComplex)
MOATBRIDGE_TRSM(Z, hipblasDoubleComplex)
#undef MOATBRIDGE_TRSM
#undef cublasStrsm
#define cublasStrsm moatbridge_cublasStrsm
#undef cublasStrsm_v2
#define cublasStrsm_v2 moatbridge_cublasStrsm
#undef cublasDtrsm
#define cublasDtrsm moatbridge_cublasDtrsm
#undef cublasDtrsm_v2
#define cublasDtrsm_v2 moatbridge_cublasDtrsm
#undef cublasCtrsm
#define cublasCtrsm moatbridge_cublasCtrsm
#undef cublasCtrsm_v2
#define cublasCtrsm_v2 moatbridge_cublasCtrsm
#undef cublasZtrsm
#define cublasZtrsm moatbridge_cublasZtrsm
#undef cublasZtrsm_v2
#define cublasZtrsm_v2 moatbridge_cublasZtrsm
#endif
#endif
/* CUDA 13's FP32 emulation strategy, as CUDA declares it: hipBLAS has no counterpart (the
   calls taking it are not provided). */
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000 && !defined(cublasEmulationStrategy_t) && \
    !defined(CUBLAS_EMULATION_STRATEGY_DEFAULT)
typedef enum {
    CUBLAS_EMULATION_STRATEGY_DEFAULT = 0, CUBLAS_EMULATION_STRATEGY_PERFORMANT = 1, CUBLAS_EMULATION_STRATEGY_EAGER = 2
} cublasEmulationStrategy_t;
#endif
