/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
#include <moatbridge/hide_cuda_macros.h>
/* hipSPARSE hides its legacy routines (BSR, incomplete factorisations, pruning, ...) when
   CUDART_VERSION says CUDA 13, taking them for removed; NVIDIA's CUDA 13.0 cuSPARSE still
   declares them, deprecated. So hipSPARSE is read as under CUDA 12. */
#pragma push_macro("CUDART_VERSION")
#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000
#undef CUDART_VERSION
#define CUDART_VERSION 12090
#endif
#include <hipsparse/hipsparse.h>
#pragma pop_macro("CUDART_VERSION")
#include <moatbridge/restore_cuda_macros.h>
#include <moatbridge/generated/cusparse.h>
/* cuSPARSE 12's descriptors of read-only operands. hipSPARSE before ROCm 6 has none: there the
   generic calls take its plain descriptors, so a const one is the plain one and calls written
   for CUDA 12 (cusparseSpMV on a cusparseConstSpMatDescr_t) compile. */
#if !defined(cusparseConstSpMatDescr_t) && HIP_VERSION_MAJOR < 6
typedef hipsparseSpMatDescr_t cusparseConstSpMatDescr_t;
#endif
#if !defined(cusparseConstSpVecDescr_t) && HIP_VERSION_MAJOR < 6
typedef hipsparseSpVecDescr_t cusparseConstSpVecDescr_t;
#endif
#if !defined(cusparseConstDnMatDescr_t) && HIP_VERSION_MAJOR < 6
typedef hipsparseDnMatDescr_t cusparseConstDnMatDescr_t;
#endif
#if !defined(cusparseConstDnVecDescr_t) && HIP_VERSION_MAJOR < 6
typedef hipsparseDnVecDescr_t cusparseConstDnVecDescr_t;
#endif
#ifdef __cplusplus
#include <mutex>
#include <unordered_map>
/* cuSPARSE's SpSV_solve and SpSM_solve (CUDA 11.3+/12) take no buffer: they reuse the one
   given to the analysis. hipSPARSE 5.7's take it again, so the analysis records it per
   descriptor and the CUDA-shaped solves pass it on. */
namespace moatbridge_detail {
inline void* sparse_buffer(const void* descriptor, void* buffer, bool record) {
    static std::mutex lock;
    static std::unordered_map<const void*, void*> buffers;
    std::lock_guard<std::mutex> guard(lock);
    if (record) buffers[descriptor] = buffer;
    auto found = buffers.find(descriptor);
    return found == buffers.end() ? nullptr : found->second;
}
}  // namespace moatbridge_detail
static inline hipsparseStatus_t moatbridge_cusparseSpSV_analysis(
    hipsparseHandle_t handle, hipsparseOperation_t opA, const void* alpha, cusparseConstSpMatDescr_t matA,
    cusparseConstDnVecDescr_t x, const hipsparseDnVecDescr_t y, hipDataType computeType, hipsparseSpSVAlg_t alg,
    hipsparseSpSVDescr_t descr, void* buffer) {
    moatbridge_detail::sparse_buffer(descr, buffer, true);
    return hipsparseSpSV_analysis(handle, opA, alpha, matA, x, y, computeType, alg, descr, buffer);
}
static inline hipsparseStatus_t moatbridge_cusparseSpSV_solve(
    hipsparseHandle_t handle, hipsparseOperation_t opA, const void* alpha, cusparseConstSpMatDescr_t matA,
    cusparseConstDnVecDescr_t x, const hipsparseDnVecDescr_t y, hipDataType computeType, hipsparseSpSVAlg_t alg,
    hipsparseSpSVDescr_t descr) {
#if HIP_VERSION_MAJOR >= 6 /* hipSPARSE 3: no buffer argument, as cuSPARSE 12 */
    return hipsparseSpSV_solve(handle, opA, alpha, matA, x, y, computeType, alg, descr);
#else
    return hipsparseSpSV_solve(handle, opA, alpha, matA, x, y, computeType, alg, descr,
                               moatbridge_detail::sparse_buffer(descr, nullptr, false));
#endif
}
static inline hipsparseStatus_t moatbridge_cusparseSpSM_analysis(
    hipsparseHandle_t handle, hipsparseOperation_t opA, hipsparseOperation_t opB, const void* alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB, const hipsparseDnMatDescr_t matC,
    hipDataType computeType, hipsparseSpSMAlg_t alg, hipsparseSpSMDescr_t descr, void* buffer) {
    moatbridge_detail::sparse_buffer(descr, buffer, true);
    return hipsparseSpSM_analysis(handle, opA, opB, alpha, matA, matB, matC, computeType, alg, descr, buffer);
}
static inline hipsparseStatus_t moatbridge_cusparseSpSM_solve(
    hipsparseHandle_t handle, hipsparseOperation_t opA, hipsparseOperation_t opB, const void* alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB, const hipsparseDnMatDescr_t matC,
    hipDataType computeType, hipsparseSpSMAlg_t alg, hipsparseSpSMDescr_t descr) {
    return hipsparseSpSM_solve(handle, opA, opB, alpha, matA, matB, matC, computeType, alg, descr,
                               moatbridge_detail::sparse_buffer(descr, nullptr, false));
}
/* cuSPARSE's SpVV_bufferSize takes the result pointer read-only; hipSPARSE's is writable,
   and only its type matters to the size. */
static inline hipsparseStatus_t moatbridge_cusparseSpVV_bufferSize(
    hipsparseHandle_t handle, hipsparseOperation_t opX, cusparseConstSpVecDescr_t vecX,
    cusparseConstDnVecDescr_t vecY, const void* result, hipDataType computeType, size_t* bufferSize) {
    return hipsparseSpVV_bufferSize(handle, opX, vecX, vecY, const_cast<void*>(result), computeType, bufferSize);
}
#undef cusparseSpVV_bufferSize
#define cusparseSpVV_bufferSize moatbridge_cusparseSpVV_bufferSize
#undef cusparseSpSV_analysis
#define cusparseSpSV_analysis moatbridge_cusparseSpSV_analysis
#undef cusparseSpSV_solve
#define cusparseSpSV_solve moatbridge_cusparseSpSV_solve
#undef cusparseSpSM_analysis
#define cusparseSpSM_analysis moatbridge_cusparseSpSM_analysis
#undef cusparseSpSM_solve
#define cusparseSpSM_solve moatbridge_cusparseSpSM_solve
#endif
/* cuSPARSE's types hipSPARSE has no counterpart for (matrix updates of SpSV/SpSM, SpMMOp),
   as CUDA declares them, so code that names them compiles; the calls taking them are not
   provided. */
#if !defined(cusparseSpSVUpdate_t) && !defined(CUSPARSE_SPSV_UPDATE_GENERAL)
typedef enum { CUSPARSE_SPSV_UPDATE_GENERAL = 0, CUSPARSE_SPSV_UPDATE_DIAGONAL = 1 } cusparseSpSVUpdate_t;
#endif
#if !defined(cusparseSpSMUpdate_t) && !defined(CUSPARSE_SPSM_UPDATE_GENERAL)
typedef enum { CUSPARSE_SPSM_UPDATE_GENERAL = 0, CUSPARSE_SPSM_UPDATE_DIAGONAL = 1 } cusparseSpSMUpdate_t;
#endif
#if !defined(cusparseSpMMOpAlg_t) && !defined(CUSPARSE_SPMM_OP_ALG_DEFAULT)
typedef enum { CUSPARSE_SPMM_OP_ALG_DEFAULT = 0 } cusparseSpMMOpAlg_t;
#endif
