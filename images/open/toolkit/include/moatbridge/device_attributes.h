/* moatbridge: CUDA's device attributes, every one NVIDIA's 12.4 headers name (runtime
   cudaDevAttr* and driver CU_DEVICE_ATTRIBUTE_*), answered as CUDA answers them.
   HIP 5.7 lacks some names, and folds some distinct CUDA attributes into one (a surface's
   width and height are both hipDeviceAttributeMaxSurface2D), which would change their
   meaning and clash as duplicate `case` labels. Those get values of their own above HIP's
   range here, answered from moatbridge_cudaDeviceProp's fields, so `cudaDeviceGetAttribute`
   and `cudaGetDeviceProperties` agree as they do on CUDA. HIP's "CUDA only" attributes that
   the AMD runtime cannot answer are answered from the same fields. The driver API's
   cuDeviceGetAttribute goes through the same function as the runtime's. */
#pragma once

/* value, expression over `p` (the device's moatbridge_cudaDeviceProp) */
#define MOATBRIDGE_EXTRA_ATTRIBUTES(X)                                                                   \
    X(30000, p.deviceOverlap)            /* GpuOverlap */                                             \
    X(30001, 0)                          /* CanFlushRemoteWrites */                                   \
    X(30002, p.clusterLaunch)                                                                         \
    X(30003, p.deferredMappingCudaArraySupported)                                                     \
    X(30004, static_cast<int>(p.gpuDirectRDMAFlushWritesOptions))                                     \
    X(30005, p.gpuDirectRDMASupported)                                                                \
    X(30006, p.gpuDirectRDMAWritesOrdering)                                                           \
    X(30007, -1)                         /* HostNumaId: not a NUMA-aware driver */                    \
    X(30008, p.hostRegisterReadOnlySupported)                                                         \
    X(30009, p.hostRegisterSupported)                                                                 \
    X(30010, p.ipcEventSupported)                                                                     \
    X(30011, p.accessPolicyMaxWindowSize)                                                             \
    X(30012, p.maxBlocksPerMultiProcessor)                                                            \
    X(30013, p.persistingL2CacheMaxSize)                                                              \
    X(30014, p.maxSurface1DLayered[1])                                                                \
    X(30015, p.maxSurface2D[0])                                                                       \
    X(30016, p.maxSurface2D[1])                                                                       \
    X(30017, p.maxSurface2DLayered[0])                                                                \
    X(30018, p.maxSurface2DLayered[1])                                                                \
    X(30019, p.maxSurface2DLayered[2])                                                                \
    X(30020, p.maxSurface3D[0])                                                                       \
    X(30021, p.maxSurface3D[1])                                                                       \
    X(30022, p.maxSurface3D[2])                                                                       \
    X(30023, p.maxSurfaceCubemapLayered[1])                                                           \
    X(30024, p.maxTexture1DLayered[1])                                                                \
    X(30025, p.maxTexture2DGather[0])                                                                 \
    X(30026, p.maxTexture2DGather[1])                                                                 \
    X(30027, p.maxTexture2DLayered[0])                                                                \
    X(30028, p.maxTexture2DLayered[1])                                                                \
    X(30029, p.maxTexture2DLayered[2])                                                                \
    X(30030, p.maxTexture2DLinear[0])                                                                 \
    X(30031, p.maxTexture2DLinear[1])                                                                 \
    X(30032, p.maxTexture2DLinear[2])                                                                 \
    X(30033, p.maxTexture2DMipmap[0])                                                                 \
    X(30034, p.maxTexture2DMipmap[1])                                                                 \
    X(30035, p.maxTexture3DAlt[0])                                                                    \
    X(30036, p.maxTexture3DAlt[1])                                                                    \
    X(30037, p.maxTexture3DAlt[2])                                                                    \
    X(30038, p.maxTextureCubemapLayered[1])                                                           \
    X(30039, p.timelineSemaphoreInteropSupported)                                                     \
    X(30040, 1)                          /* MemSyncDomainCount */                                     \
    X(30041, static_cast<int>(p.memoryPoolSupportedHandleTypes))                                      \
    X(30042, 0)                          /* MpsEnabled */                                             \
    X(30043, 0)                          /* NumaConfig: none */                                       \
    X(30044, -1)                         /* NumaId */                                                 \
    X(30045, static_cast<int>(p.reservedSharedMemPerBlock))                                           \
    X(30046, p.sparseCudaArraySupported)                                                              \
    X(30047, 1)                          /* CanTex2DGather: tex2Dgather exists */                     \
    X(30048, 1)                          /* 64-bit stream memory operations: hipStream*Value64 */     \
    X(30049, 1)                          /* stream memory operations (v1) */                          \
    X(30050, 0)                          /* DmaBufSupported */                                        \
    X(30051, 0)                          /* GenericCompressionSupported: no compressible memory */    \
    X(30052, 0)                          /* GpuDirectRdmaWithCudaVmmSupported */                      \
    X(30053, 0)                          /* HandleTypeFabricSupported */                              \
    X(30054, 1)                          /* HandleTypePosixFileDescriptorSupported (hipMem* IPC) */   \
    X(30055, 0)                          /* HandleTypeWin32HandleSupported */                         \
    X(30056, 0)                          /* HandleTypeWin32KmtHandleSupported */                      \
    X(30057, 0)                          /* MulticastSupported */                                     \
    X(30058, 0)                          /* TensorMapAccessSupported */                               \
    X(30059, p.unifiedFunctionPointers)                                                               \
    X(30060, 0)                          /* the runtime's reserved attributes */                      \
    X(30069, 1)                          /* 64-bit stream memory operations (v1) */                   \
    X(30070, 1)                          /* CU_STREAM_WAIT_VALUE_NOR (v1): hipStreamWaitValueNor */

/* HIP's attributes that the AMD runtime leaves to CUDA ("CUDA only"), answered as
   cudaDeviceProp is: attribute, expression over `p` */
#define MOATBRIDGE_CUDA_ONLY_ATTRIBUTES(X)                                                            \
    X(hipDeviceAttributeAsyncEngineCount, p.asyncEngineCount)                                      \
    X(hipDeviceAttributeDeviceOverlap, p.deviceOverlap)                                            \
    X(hipDeviceAttributeMaxBlocksPerMultiProcessor, p.maxBlocksPerMultiProcessor)                  \
    X(hipDeviceAttributeMaxSurface1DLayered, p.maxSurface1DLayered[0])                             \
    X(hipDeviceAttributeMaxSurface2DLayered, p.maxSurface2DLayered[0])                             \
    X(hipDeviceAttributeMaxSurfaceCubemap, p.maxSurfaceCubemap)                                    \
    X(hipDeviceAttributeMaxSurfaceCubemapLayered, p.maxSurfaceCubemapLayered[0])                   \
    X(hipDeviceAttributeMaxTexture1DLayered, p.maxTexture1DLayered[0])                             \
    X(hipDeviceAttributeMaxTexture1DMipmap, p.maxTexture1DMipmap)                                  \
    X(hipDeviceAttributeMaxTexture2DGather, p.maxTexture2DGather[0])                               \
    X(hipDeviceAttributeMaxTexture2DLayered, p.maxTexture2DLayered[0])                             \
    X(hipDeviceAttributeMaxTexture2DLinear, p.maxTexture2DLinear[0])                               \
    X(hipDeviceAttributeMaxTexture2DMipmap, p.maxTexture2DMipmap[0])                               \
    X(hipDeviceAttributeMaxTexture3DAlt, p.maxTexture3DAlt[0])                                     \
    X(hipDeviceAttributeMaxTextureCubemap, p.maxTextureCubemap)                                    \
    X(hipDeviceAttributeMaxTextureCubemapLayered, p.maxTextureCubemapLayered[0])                   \
    X(hipDeviceAttributeSurfaceAlignment, static_cast<int>(p.surfaceAlignment))                    \
    X(hipDeviceAttributeGlobalL1CacheSupported, p.globalL1CacheSupported)                          \
    X(hipDeviceAttributeStreamPrioritiesSupported, p.streamPrioritiesSupported)                    \
    X(hipDeviceAttributeUnifiedAddressing, p.unifiedAddressing)                                    \
    X(hipDeviceAttributeSingleToDoublePrecisionPerfRatio, p.singleToDoublePrecisionPerfRatio)      \
    X(hipDeviceAttributeMultiGpuBoardGroupID, p.multiGpuBoardGroupID)                              \
    X(hipDeviceAttributeCanUseHostPointerForRegisteredMem, p.canUseHostPointerForRegisteredMem)

#define MOATBRIDGE_ATTRIBUTE(value) static_cast<hipDeviceAttribute_t>(value)
static constexpr hipDeviceAttribute_t cudaDevAttrGpuOverlap = MOATBRIDGE_ATTRIBUTE(30000);
static constexpr hipDeviceAttribute_t cudaDevAttrAsyncEngineCount = hipDeviceAttributeAsyncEngineCount;
static constexpr hipDeviceAttribute_t cudaDevAttrCanFlushRemoteWrites = MOATBRIDGE_ATTRIBUTE(30001);
static constexpr hipDeviceAttribute_t cudaDevAttrClusterLaunch = MOATBRIDGE_ATTRIBUTE(30002);
static constexpr hipDeviceAttribute_t cudaDevAttrDeferredMappingCudaArraySupported = MOATBRIDGE_ATTRIBUTE(30003);
static constexpr hipDeviceAttribute_t cudaDevAttrGPUDirectRDMAFlushWritesOptions = MOATBRIDGE_ATTRIBUTE(30004);
static constexpr hipDeviceAttribute_t cudaDevAttrGPUDirectRDMASupported = MOATBRIDGE_ATTRIBUTE(30005);
static constexpr hipDeviceAttribute_t cudaDevAttrGPUDirectRDMAWritesOrdering = MOATBRIDGE_ATTRIBUTE(30006);
static constexpr hipDeviceAttribute_t cudaDevAttrHostNumaId = MOATBRIDGE_ATTRIBUTE(30007);
static constexpr hipDeviceAttribute_t cudaDevAttrHostRegisterReadOnlySupported = MOATBRIDGE_ATTRIBUTE(30008);
static constexpr hipDeviceAttribute_t cudaDevAttrHostRegisterSupported = MOATBRIDGE_ATTRIBUTE(30009);
static constexpr hipDeviceAttribute_t cudaDevAttrIpcEventSupport = MOATBRIDGE_ATTRIBUTE(30010);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxAccessPolicyWindowSize = MOATBRIDGE_ATTRIBUTE(30011);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxBlocksPerMultiprocessor = MOATBRIDGE_ATTRIBUTE(30012);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxPersistingL2CacheSize = MOATBRIDGE_ATTRIBUTE(30013);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxSurface1DLayeredLayers = MOATBRIDGE_ATTRIBUTE(30014);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxSurface2DWidth = MOATBRIDGE_ATTRIBUTE(30015);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxSurface2DHeight = MOATBRIDGE_ATTRIBUTE(30016);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxSurface2DLayeredWidth = MOATBRIDGE_ATTRIBUTE(30017);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxSurface2DLayeredHeight = MOATBRIDGE_ATTRIBUTE(30018);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxSurface2DLayeredLayers = MOATBRIDGE_ATTRIBUTE(30019);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxSurface3DWidth = MOATBRIDGE_ATTRIBUTE(30020);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxSurface3DHeight = MOATBRIDGE_ATTRIBUTE(30021);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxSurface3DDepth = MOATBRIDGE_ATTRIBUTE(30022);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxSurfaceCubemapLayeredLayers = MOATBRIDGE_ATTRIBUTE(30023);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture1DLayeredLayers = MOATBRIDGE_ATTRIBUTE(30024);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture2DGatherWidth = MOATBRIDGE_ATTRIBUTE(30025);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture2DGatherHeight = MOATBRIDGE_ATTRIBUTE(30026);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture2DLayeredWidth = MOATBRIDGE_ATTRIBUTE(30027);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture2DLayeredHeight = MOATBRIDGE_ATTRIBUTE(30028);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture2DLayeredLayers = MOATBRIDGE_ATTRIBUTE(30029);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture2DLinearWidth = MOATBRIDGE_ATTRIBUTE(30030);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture2DLinearHeight = MOATBRIDGE_ATTRIBUTE(30031);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture2DLinearPitch = MOATBRIDGE_ATTRIBUTE(30032);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture2DMipmappedWidth = MOATBRIDGE_ATTRIBUTE(30033);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture2DMipmappedHeight = MOATBRIDGE_ATTRIBUTE(30034);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture3DWidthAlt = MOATBRIDGE_ATTRIBUTE(30035);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture3DHeightAlt = MOATBRIDGE_ATTRIBUTE(30036);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTexture3DDepthAlt = MOATBRIDGE_ATTRIBUTE(30037);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTextureCubemapLayeredLayers = MOATBRIDGE_ATTRIBUTE(30038);
static constexpr hipDeviceAttribute_t cudaDevAttrMaxTimelineSemaphoreInteropSupported = MOATBRIDGE_ATTRIBUTE(30039);
static constexpr hipDeviceAttribute_t cudaDevAttrTimelineSemaphoreInteropSupported = MOATBRIDGE_ATTRIBUTE(30039);
static constexpr hipDeviceAttribute_t cudaDevAttrMemSyncDomainCount = MOATBRIDGE_ATTRIBUTE(30040);
static constexpr hipDeviceAttribute_t cudaDevAttrMemoryPoolSupportedHandleTypes = MOATBRIDGE_ATTRIBUTE(30041);
static constexpr hipDeviceAttribute_t cudaDevAttrMpsEnabled = MOATBRIDGE_ATTRIBUTE(30042);
static constexpr hipDeviceAttribute_t cudaDevAttrNumaConfig = MOATBRIDGE_ATTRIBUTE(30043);
static constexpr hipDeviceAttribute_t cudaDevAttrNumaId = MOATBRIDGE_ATTRIBUTE(30044);
static constexpr hipDeviceAttribute_t cudaDevAttrReservedSharedMemoryPerBlock = MOATBRIDGE_ATTRIBUTE(30045);
static constexpr hipDeviceAttribute_t cudaDevAttrSparseCudaArraySupported = MOATBRIDGE_ATTRIBUTE(30046);
/* CUDA's reserved attributes keep distinct values (a switch over all of them compiles) */
static constexpr hipDeviceAttribute_t cudaDevAttrReserved92 = MOATBRIDGE_ATTRIBUTE(30060);
static constexpr hipDeviceAttribute_t cudaDevAttrReserved93 = MOATBRIDGE_ATTRIBUTE(30061);
static constexpr hipDeviceAttribute_t cudaDevAttrReserved122 = MOATBRIDGE_ATTRIBUTE(30062);
static constexpr hipDeviceAttribute_t cudaDevAttrReserved123 = MOATBRIDGE_ATTRIBUTE(30063);
static constexpr hipDeviceAttribute_t cudaDevAttrReserved124 = MOATBRIDGE_ATTRIBUTE(30064);
static constexpr hipDeviceAttribute_t cudaDevAttrReserved127 = MOATBRIDGE_ATTRIBUTE(30065);
static constexpr hipDeviceAttribute_t cudaDevAttrReserved128 = MOATBRIDGE_ATTRIBUTE(30066);
static constexpr hipDeviceAttribute_t cudaDevAttrReserved129 = MOATBRIDGE_ATTRIBUTE(30067);
static constexpr hipDeviceAttribute_t cudaDevAttrReserved132 = MOATBRIDGE_ATTRIBUTE(30068);
/* driver-only attributes (named constants: `case` labels over them do not warn) */
static constexpr hipDeviceAttribute_t moatbridge_attribute_can_tex2d_gather = MOATBRIDGE_ATTRIBUTE(30047);
static constexpr hipDeviceAttribute_t moatbridge_attribute_can_use_64_bit_stream_mem_ops = MOATBRIDGE_ATTRIBUTE(30048);
static constexpr hipDeviceAttribute_t moatbridge_attribute_can_use_64_bit_stream_mem_ops_v1 = MOATBRIDGE_ATTRIBUTE(30069);
static constexpr hipDeviceAttribute_t moatbridge_attribute_can_use_stream_wait_value_nor_v1 = MOATBRIDGE_ATTRIBUTE(30070);
static constexpr hipDeviceAttribute_t moatbridge_attribute_can_use_stream_mem_ops_v1 = MOATBRIDGE_ATTRIBUTE(30049);
static constexpr hipDeviceAttribute_t moatbridge_attribute_dma_buf_supported = MOATBRIDGE_ATTRIBUTE(30050);
static constexpr hipDeviceAttribute_t moatbridge_attribute_generic_compression_supported = MOATBRIDGE_ATTRIBUTE(30051);
static constexpr hipDeviceAttribute_t moatbridge_attribute_gpu_direct_rdma_with_cuda_vmm_supported = MOATBRIDGE_ATTRIBUTE(30052);
static constexpr hipDeviceAttribute_t moatbridge_attribute_handle_type_fabric_supported = MOATBRIDGE_ATTRIBUTE(30053);
static constexpr hipDeviceAttribute_t moatbridge_attribute_handle_type_posix_file_descriptor_supported = MOATBRIDGE_ATTRIBUTE(30054);
static constexpr hipDeviceAttribute_t moatbridge_attribute_handle_type_win32_handle_supported = MOATBRIDGE_ATTRIBUTE(30055);
static constexpr hipDeviceAttribute_t moatbridge_attribute_handle_type_win32_kmt_handle_supported = MOATBRIDGE_ATTRIBUTE(30056);
static constexpr hipDeviceAttribute_t moatbridge_attribute_multicast_supported = MOATBRIDGE_ATTRIBUTE(30057);
static constexpr hipDeviceAttribute_t moatbridge_attribute_tensor_map_access_supported = MOATBRIDGE_ATTRIBUTE(30058);
static constexpr hipDeviceAttribute_t moatbridge_attribute_unified_function_pointers = MOATBRIDGE_ATTRIBUTE(30059);
/* one past the last, as CUDA's: not an attribute (queries fail) */
static constexpr hipDeviceAttribute_t cudaDevAttrMax = MOATBRIDGE_ATTRIBUTE(30100);

/* The driver API's names; the ones HIP's mapping folded together are redefined. */
#undef CU_DEVICE_ATTRIBUTE_GPU_OVERLAP
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_WIDTH
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_HEIGHT
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE
#undef CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE
#define CU_DEVICE_ATTRIBUTE_GPU_OVERLAP cudaDevAttrGpuOverlap
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH cudaDevAttrMaxSurface2DWidth
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT cudaDevAttrMaxSurface2DHeight
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH cudaDevAttrMaxSurface2DLayeredWidth
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT cudaDevAttrMaxSurface2DLayeredHeight
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH cudaDevAttrMaxSurface3DWidth
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT cudaDevAttrMaxSurface3DHeight
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH cudaDevAttrMaxSurface3DDepth
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH cudaDevAttrMaxTexture2DGatherWidth
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT cudaDevAttrMaxTexture2DGatherHeight
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH cudaDevAttrMaxTexture2DLayeredWidth
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT cudaDevAttrMaxTexture2DLayeredHeight
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_WIDTH cudaDevAttrMaxTexture2DLayeredWidth
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_HEIGHT cudaDevAttrMaxTexture2DLayeredHeight
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH cudaDevAttrMaxTexture2DLinearWidth
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT cudaDevAttrMaxTexture2DLinearHeight
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH cudaDevAttrMaxTexture2DLinearPitch
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH cudaDevAttrMaxTexture2DMipmappedWidth
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT cudaDevAttrMaxTexture2DMipmappedHeight
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE cudaDevAttrMaxTexture3DWidthAlt
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE cudaDevAttrMaxTexture3DHeightAlt
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE cudaDevAttrMaxTexture3DDepthAlt
#define CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES cudaDevAttrCanFlushRemoteWrites
#define CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH cudaDevAttrClusterLaunch
#define CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED cudaDevAttrDeferredMappingCudaArraySupported
#define CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS cudaDevAttrGPUDirectRDMAFlushWritesOptions
#define CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED cudaDevAttrGPUDirectRDMASupported
#define CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING cudaDevAttrGPUDirectRDMAWritesOrdering
#define CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID cudaDevAttrHostNumaId
#define CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED cudaDevAttrHostRegisterReadOnlySupported
#define CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED cudaDevAttrHostRegisterSupported
#define CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED cudaDevAttrIpcEventSupport
#define CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE cudaDevAttrMaxAccessPolicyWindowSize
#define CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR cudaDevAttrMaxBlocksPerMultiprocessor
#define CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE cudaDevAttrMaxPersistingL2CacheSize
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS cudaDevAttrMaxSurface1DLayeredLayers
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS cudaDevAttrMaxSurface2DLayeredLayers
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS cudaDevAttrMaxSurfaceCubemapLayeredLayers
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS cudaDevAttrMaxTexture1DLayeredLayers
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS cudaDevAttrMaxTexture2DLayeredLayers
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES cudaDevAttrMaxTexture2DLayeredLayers
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS cudaDevAttrMaxTextureCubemapLayeredLayers
#define CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED cudaDevAttrTimelineSemaphoreInteropSupported
#define CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT cudaDevAttrMemSyncDomainCount
#define CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES cudaDevAttrMemoryPoolSupportedHandleTypes
#define CU_DEVICE_ATTRIBUTE_MPS_ENABLED cudaDevAttrMpsEnabled
#define CU_DEVICE_ATTRIBUTE_NUMA_CONFIG cudaDevAttrNumaConfig
#define CU_DEVICE_ATTRIBUTE_NUMA_ID cudaDevAttrNumaId
#define CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK cudaDevAttrReservedSharedMemoryPerBlock
#define CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED cudaDevAttrSparseCudaArraySupported
#define CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER moatbridge_attribute_can_tex2d_gather
#define CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS moatbridge_attribute_can_use_64_bit_stream_mem_ops
#define CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1 moatbridge_attribute_can_use_64_bit_stream_mem_ops_v1
#undef CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1
#define CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1 moatbridge_attribute_can_use_stream_wait_value_nor_v1
#define CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 moatbridge_attribute_can_use_stream_mem_ops_v1
#define CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED moatbridge_attribute_dma_buf_supported
#define CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED moatbridge_attribute_generic_compression_supported
#define CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED moatbridge_attribute_gpu_direct_rdma_with_cuda_vmm_supported
#define CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED moatbridge_attribute_handle_type_fabric_supported
#define CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED moatbridge_attribute_handle_type_posix_file_descriptor_supported
#define CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED moatbridge_attribute_handle_type_win32_handle_supported
#define CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED moatbridge_attribute_handle_type_win32_kmt_handle_supported
#define CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED moatbridge_attribute_multicast_supported
#define CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED moatbridge_attribute_tensor_map_access_supported
#define CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS moatbridge_attribute_unified_function_pointers
#define CU_DEVICE_ATTRIBUTE_MAX cudaDevAttrMax
#ifndef CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID
#define CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID hipDeviceAttributeMultiGpuBoardGroupID
#endif
#ifndef CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED /* CUDA 10.2's name of the same */
#define CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED hipDeviceAttributeVirtualMemoryManagementSupported
#endif
/* cuMemCreate's compression types: AMD GPUs have no compressible memory, so a request for
   it yields an ordinary allocation, which CUDA's callers check for (as on GPUs without it) */
#ifndef CU_MEM_ALLOCATION_COMP_GENERIC
#define CU_MEM_ALLOCATION_COMP_NONE 0x0
#define CU_MEM_ALLOCATION_COMP_GENERIC 0x1
#endif

static inline hipError_t moatbridge_device_attribute(int* value, hipDeviceAttribute_t attribute, int device) {
    if (value == nullptr) return hipErrorInvalidValue;
    const int asked = static_cast<int>(attribute);
    bool from_properties = asked >= 30000 && asked < 30100;  /* ours, the reserved ones too */
    switch (asked) {
#define MOATBRIDGE_LISTED(number, expression) case number:
        MOATBRIDGE_CUDA_ONLY_ATTRIBUTES(MOATBRIDGE_LISTED) from_properties = true; break;
#undef MOATBRIDGE_LISTED
        default: break;
    }
    if (from_properties) {
        moatbridge_cudaDeviceProp p;
        hipError_t status = moatbridge_cudaGetDeviceProperties(&p, device);
        if (status != hipSuccess) return status;
        switch (asked) {
#define MOATBRIDGE_ANSWER(number, expression) case number: *value = (expression); return hipSuccess;
            MOATBRIDGE_EXTRA_ATTRIBUTES(MOATBRIDGE_ANSWER)
            MOATBRIDGE_CUDA_ONLY_ATTRIBUTES(MOATBRIDGE_ANSWER)
#undef MOATBRIDGE_ANSWER
            default: *value = 0; return hipSuccess;  /* reserved */
        }
    }
    hipError_t status = hipDeviceGetAttribute(value, attribute, device);
    if (status == hipSuccess && attribute == hipDeviceAttributeComputeCapabilityMajor) *value = MOATBRIDGE_MIMIC_CC_MAJOR;
    if (status == hipSuccess && attribute == hipDeviceAttributeComputeCapabilityMinor) *value = MOATBRIDGE_MIMIC_CC_MINOR;
    return status;
}
#undef MOATBRIDGE_EXTRA_ATTRIBUTES
#undef MOATBRIDGE_CUDA_ONLY_ATTRIBUTES
static inline hipError_t moatbridge_cudaDeviceGetAttribute(int* value, hipDeviceAttribute_t attribute, int device) {
    return moatbridge_device_attribute(value, attribute, device);
}
static inline hipError_t moatbridge_cuDeviceGetAttribute(int* value, hipDeviceAttribute_t attribute, hipDevice_t device) {
    return moatbridge_device_attribute(value, attribute, device);
}
#undef cuDeviceGetAttribute
#define cuDeviceGetAttribute moatbridge_cuDeviceGetAttribute
