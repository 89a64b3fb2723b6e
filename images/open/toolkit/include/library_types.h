/* moatbridge CUDA compatibility header (open flavour; serves HIP 5.7, 6.4 and 7.2: trixie, sid, experimental). */
#pragma once
#include <moatbridge/runtime.h>
/* library_types.h's types HIP has no counterpart for, as CUDA declares them: the libraries'
   version property (cublasGetProperty, cufftGetProperty, ... take it) and CUDA 13's FP32
   emulation settings. */
#if !defined(libraryPropertyType) && !defined(MAJOR_VERSION)
typedef enum libraryPropertyType_t { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL } libraryPropertyType;
typedef enum libraryPropertyType_t libraryPropertyType_t;
#endif
#if MOATBRIDGE_CUDA_VERSION_NUMBER >= 13000
#if !defined(cudaEmulationStrategy) && !defined(CUDA_EMULATION_STRATEGY_DEFAULT)
typedef enum cudaEmulationStrategy_t {
    CUDA_EMULATION_STRATEGY_DEFAULT = 0, CUDA_EMULATION_STRATEGY_PERFORMANT = 1, CUDA_EMULATION_STRATEGY_EAGER = 2
} cudaEmulationStrategy;
typedef enum cudaEmulationStrategy_t cudaEmulationStrategy_t;
#endif
#if !defined(cudaEmulationMantissaControl) && !defined(CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC)
typedef enum cudaEmulationMantissaControl_t {
    CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC = 0, CUDA_EMULATION_MANTISSA_CONTROL_FIXED = 1
} cudaEmulationMantissaControl;
typedef enum cudaEmulationMantissaControl_t cudaEmulationMantissaControl_t;
#endif
#if !defined(cudaEmulationSpecialValuesSupport) && !defined(CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT)
typedef enum cudaEmulationSpecialValuesSupport_t {
    CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_NONE = 0, CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_INFINITY = 1,
    CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_NAN = 2, CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT = 0xffff
} cudaEmulationSpecialValuesSupport;
typedef enum cudaEmulationSpecialValuesSupport_t cudaEmulationSpecialValuesSupport_t;
#endif
#endif
