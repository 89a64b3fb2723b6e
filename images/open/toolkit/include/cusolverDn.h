/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#ifndef ROCM_MATHLIBS_API_USE_HIP_COMPLEX
#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX 1 /* cuComplex == hipFloatComplex */
#endif
#include <cublas_api.h>
/* cuSOLVER takes cuBLAS enums (CUBLAS_OP_N): let hipSOLVER alias hipBLAS's. */
#ifndef HIPSOLVER_USE_HIPBLAS_ENUMS
#define HIPSOLVER_USE_HIPBLAS_ENUMS 1
#endif
#include <moatbridge/hide_cuda_macros.h>
/* hipSOLVER with cuSOLVER's statuses added to its enum (the generator's status shadow):
   listed explicitly for host compilers, whose include path has no shadow directory. */
#if __has_include(<moatbridge/shadow/hipsolver/hipsolver.h>)
#include <moatbridge/shadow/hipsolver/hipsolver.h>
#else
#include <hipsolver/hipsolver.h>
#endif
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cusolver.h>
/* cusolverStatus_t values hipSOLVER lacks or folds: moatbridge/generated/status_codes.h, with
   enumerators of their own in the shadowed hipsolver-types.h (cudacompat/generate/status_codes.py). */
/* cuSOLVER's types hipSOLVER has no counterpart for (mixed-precision iterative refinement,
   Householder reflectors, the 64-bit API's options), as CUDA declares them, so code that
   names them compiles; the calls taking them are not provided. Where the stack's HIP maps a
   type, its mapping stands. */
#ifndef cusolverNorm_t
typedef enum {
    CUSOLVER_INF_NORM = 104, CUSOLVER_MAX_NORM = 105, CUSOLVER_ONE_NORM = 106, CUSOLVER_FRO_NORM = 107
} cusolverNorm_t;
#endif
#ifndef cusolverIRSRefinement_t
typedef enum {
    CUSOLVER_IRS_REFINE_NOT_SET = 1100, CUSOLVER_IRS_REFINE_NONE = 1101, CUSOLVER_IRS_REFINE_CLASSICAL = 1102,
    CUSOLVER_IRS_REFINE_CLASSICAL_GMRES = 1103, CUSOLVER_IRS_REFINE_GMRES = 1104,
    CUSOLVER_IRS_REFINE_GMRES_GMRES = 1105, CUSOLVER_IRS_REFINE_GMRES_NOPCOND = 1106,
    CUSOLVER_PREC_DD = 1150, CUSOLVER_PREC_SS = 1151, CUSOLVER_PREC_SHT = 1152
} cusolverIRSRefinement_t;
#endif
#ifndef cusolverPrecType_t
typedef enum {
    CUSOLVER_R_8I = 1201, CUSOLVER_R_8U = 1202, CUSOLVER_R_64F = 1203, CUSOLVER_R_32F = 1204,
    CUSOLVER_R_16F = 1205, CUSOLVER_R_16BF = 1206, CUSOLVER_R_TF32 = 1207, CUSOLVER_R_AP = 1208,
    CUSOLVER_C_8I = 1211, CUSOLVER_C_8U = 1212, CUSOLVER_C_64F = 1213, CUSOLVER_C_32F = 1214,
    CUSOLVER_C_16F = 1215, CUSOLVER_C_16BF = 1216, CUSOLVER_C_TF32 = 1217, CUSOLVER_C_AP = 1218
} cusolverPrecType_t;
#endif
#if !defined(cusolverStorevMode_t) && !defined(CUBLAS_STOREV_COLUMNWISE)
typedef enum { CUBLAS_STOREV_COLUMNWISE = 0, CUBLAS_STOREV_ROWWISE = 1 } cusolverStorevMode_t;
#endif
#if !defined(cusolverDirectMode_t) && !defined(CUBLAS_DIRECT_FORWARD)
typedef enum { CUBLAS_DIRECT_FORWARD = 0, CUBLAS_DIRECT_BACKWARD = 1 } cusolverDirectMode_t;
#endif
#if !defined(cusolverDeterministicMode_t) && !defined(CUSOLVER_DETERMINISTIC_RESULTS)
typedef enum {
    CUSOLVER_DETERMINISTIC_RESULTS = 1, CUSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS = 2
} cusolverDeterministicMode_t;
#endif
#if !defined(cusolverAlgMode_t) && !defined(CUSOLVER_ALG_0)
typedef enum { CUSOLVER_ALG_0 = 0, CUSOLVER_ALG_1 = 1, CUSOLVER_ALG_2 = 2 } cusolverAlgMode_t;
#endif
#if !defined(cusolverDnFunction_t) && !defined(CUSOLVERDN_GETRF)
typedef enum {
    CUSOLVERDN_GETRF = 0, CUSOLVERDN_POTRF = 1
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
    , CUSOLVERDN_SYEVBATCHED = 2
#endif
} cusolverDnFunction_t;
#endif
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000 && !defined(cusolverMathMode_t) && !defined(CUSOLVER_DEFAULT_MATH)
typedef enum { CUSOLVER_DEFAULT_MATH = 1, CUSOLVER_FP32_EMULATED_BF16X9_MATH = 2 } cusolverMathMode_t;
#endif
/* cuSOLVER's integer type of its mixed-precision solvers and row interchanges (CUDA's
   cusolver_common.h), and the handles of its iterative refinement and 64-bit API options,
   opaque as CUDA has them. */
#ifndef cusolver_int_t
typedef int cusolver_int_t;
#endif
#ifndef cusolverDnIRSParams_t
typedef struct cusolverDnIRSParams* cusolverDnIRSParams_t;
#endif
#ifndef cusolverDnIRSInfos_t
typedef struct cusolverDnIRSInfos* cusolverDnIRSInfos_t;
#endif
#ifndef cusolverDnParams_t
typedef struct cusolverDnParams* cusolverDnParams_t;
#endif
