/* moatbridge: what Thrust's CUDA error header declares that rocThrust's HIP one lacks or
   gives other values. Included after rocThrust's thrust/system/hip/error.h (which
   thrust/system/cuda/error.h is here; thrust::cuda::errc is thrust::system::hip::errc).

   rocThrust declares its errc enumerators in system::hip_rocprim::errc, with HIP's values
   and hipErrorTbd for the errors HIP has no name for, and only their type in
   system::hip::errc. CUDA's errc names CUDA's errors: each enumerator here equals the
   cudaError_t of the same meaning, as in NVIDIA's Thrust (`e.code().value() ==
   thrust::cuda::errc::invalid_value` for an error from cudaErrorInvalidValue), converts to
   a thrust::error_code in the HIP category, and is found before rocThrust's by qualified
   lookup. The error category is hip_category, where CUDA code calls cuda_category. */
#if !defined(MOATBRIDGE_THRUST_CUDA_ERROR_H) && defined(cudaSuccess)
#define MOATBRIDGE_THRUST_CUDA_ERROR_H
THRUST_NAMESPACE_BEGIN
namespace system {
namespace hip {
namespace errc {
enum cuda_errc_t {
    success                           = cudaSuccess,
    missing_configuration             = cudaErrorMissingConfiguration,
    memory_allocation                 = cudaErrorMemoryAllocation,
    initialization_error              = cudaErrorInitializationError,
    launch_failure                    = cudaErrorLaunchFailure,
    launch_timeout                    = cudaErrorLaunchTimeout,
    launch_out_of_resources           = cudaErrorLaunchOutOfResources,
    invalid_device_function           = cudaErrorInvalidDeviceFunction,
    invalid_configuration             = cudaErrorInvalidConfiguration,
    invalid_device                    = cudaErrorInvalidDevice,
    invalid_value                     = cudaErrorInvalidValue,
    invalid_pitch_value               = cudaErrorInvalidPitchValue,
    invalid_symbol                    = cudaErrorInvalidSymbol,
    map_buffer_object_failed          = cudaErrorMapBufferObjectFailed,
    unmap_buffer_object_failed        = cudaErrorUnmapBufferObjectFailed,
    invalid_texture                   = cudaErrorInvalidTexture,
    invalid_texture_binding           = cudaErrorInvalidTextureBinding,
    invalid_channel_descriptor        = cudaErrorInvalidChannelDescriptor,
    invalid_memcpy_direction          = cudaErrorInvalidMemcpyDirection,
    invalid_filter_setting            = cudaErrorInvalidFilterSetting,
    invalid_norm_setting              = cudaErrorInvalidNormSetting,
    cuda_runtime_unloading            = cudaErrorCudartUnloading,
    unknown                           = cudaErrorUnknown,
    invalid_resource_handle           = cudaErrorInvalidResourceHandle,
    not_ready                         = cudaErrorNotReady,
    insufficient_driver               = cudaErrorInsufficientDriver,
    set_on_active_process_error       = cudaErrorSetOnActiveProcess,
    no_device                         = cudaErrorNoDevice,
    ecc_uncorrectable                 = cudaErrorECCUncorrectable,
    shared_object_symbol_not_found    = cudaErrorSharedObjectSymbolNotFound,
    shared_object_init_failed         = cudaErrorSharedObjectInitFailed,
    unsupported_limit                 = cudaErrorUnsupportedLimit,
    duplicate_variable_name           = cudaErrorDuplicateVariableName,
    duplicate_texture_name            = cudaErrorDuplicateTextureName,
    duplicate_surface_name            = cudaErrorDuplicateSurfaceName,
    devices_unavailable               = cudaErrorDevicesUnavailable,
    invalid_kernel_image              = cudaErrorInvalidKernelImage,
    no_kernel_image_for_device        = cudaErrorNoKernelImageForDevice,
    incompatible_driver_context       = cudaErrorIncompatibleDriverContext,
    peer_access_already_enabled       = cudaErrorPeerAccessAlreadyEnabled,
    peer_access_not_enabled           = cudaErrorPeerAccessNotEnabled,
    device_already_in_use             = cudaErrorDeviceAlreadyInUse,
    profiler_disabled                 = cudaErrorProfilerDisabled,
    assert_triggered                  = cudaErrorAssert,
    too_many_peers                    = cudaErrorTooManyPeers,
    host_memory_already_registered    = cudaErrorHostMemoryAlreadyRegistered,
    host_memory_not_registered        = cudaErrorHostMemoryNotRegistered,
    operating_system_error            = cudaErrorOperatingSystem,
    peer_access_unsupported           = cudaErrorPeerAccessUnsupported,
    launch_max_depth_exceeded         = cudaErrorLaunchMaxDepthExceeded,
    launch_file_scoped_texture_used   = cudaErrorLaunchFileScopedTex,
    launch_file_scoped_surface_used   = cudaErrorLaunchFileScopedSurf,
    sync_depth_exceeded               = cudaErrorSyncDepthExceeded,
    attempted_operation_not_permitted = cudaErrorNotPermitted,
    attempted_operation_not_supported = cudaErrorNotSupported,
    startup_failure                   = cudaErrorStartupFailure
};
} // namespace errc
} // namespace hip
template <>
struct is_error_code_enum<hip::errc::cuda_errc_t> : thrust::detail::true_type {};
namespace hip {
namespace errc {
inline error_code make_error_code(cuda_errc_t e) { return error_code(static_cast<int>(e), hip_category()); }
inline error_condition make_error_condition(cuda_errc_t e) {
    return error_condition(static_cast<int>(e), hip_category());
}
} // namespace errc
} // namespace hip
inline const error_category& cuda_category() { return hip_category(); }
} // namespace system
using system::cuda_category;
THRUST_NAMESPACE_END
#endif
