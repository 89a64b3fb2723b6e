/* moatbridge: NVTX's synchronisation extension (user-defined locks and the OS primitives'
   resource types), declared as NVIDIA's nvtx3/nvToolsExtSync.h declares it; as with NVTX and
   no tool injected, nothing is recorded and no handle is made. */
#pragma once
#include <nvtx3/nvToolsExt.h>

#define NVTX_RESOURCE_CLASS_SYNC_OS 2
#define NVTX_RESOURCE_CLASS_SYNC_PTHREAD 3

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nvtxResourceSyncPosixThreadType_t {
    NVTX_RESOURCE_TYPE_SYNC_PTHREAD_MUTEX = NVTX_RESOURCE_MAKE_TYPE(SYNC_PTHREAD, 1),
    NVTX_RESOURCE_TYPE_SYNC_PTHREAD_CONDITION = NVTX_RESOURCE_MAKE_TYPE(SYNC_PTHREAD, 2),
    NVTX_RESOURCE_TYPE_SYNC_PTHREAD_RWLOCK = NVTX_RESOURCE_MAKE_TYPE(SYNC_PTHREAD, 3),
    NVTX_RESOURCE_TYPE_SYNC_PTHREAD_BARRIER = NVTX_RESOURCE_MAKE_TYPE(SYNC_PTHREAD, 4),
    NVTX_RESOURCE_TYPE_SYNC_PTHREAD_SPINLOCK = NVTX_RESOURCE_MAKE_TYPE(SYNC_PTHREAD, 5),
    NVTX_RESOURCE_TYPE_SYNC_PTHREAD_ONCE = NVTX_RESOURCE_MAKE_TYPE(SYNC_PTHREAD, 6)
} nvtxResourceSyncPosixThreadType_t;

typedef enum nvtxResourceSyncWindowsType_t {
    NVTX_RESOURCE_TYPE_SYNC_WINDOWS_MUTEX = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 1),
    NVTX_RESOURCE_TYPE_SYNC_WINDOWS_SEMAPHORE = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 2),
    NVTX_RESOURCE_TYPE_SYNC_WINDOWS_EVENT = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 3),
    NVTX_RESOURCE_TYPE_SYNC_WINDOWS_CRITICAL_SECTION = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 4),
    NVTX_RESOURCE_TYPE_SYNC_WINDOWS_SRWLOCK = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 5)
} nvtxResourceSyncWindowsType_t;

typedef enum nvtxResourceSyncLinuxType_t {
    NVTX_RESOURCE_TYPE_SYNC_LINUX_MUTEX = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 1),
    NVTX_RESOURCE_TYPE_SYNC_LINUX_FUTEX = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 2),
    NVTX_RESOURCE_TYPE_SYNC_LINUX_SEMAPHORE = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 3),
    NVTX_RESOURCE_TYPE_SYNC_LINUX_COMPLETION = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 4),
    NVTX_RESOURCE_TYPE_SYNC_LINUX_SPINLOCK = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 5),
    NVTX_RESOURCE_TYPE_SYNC_LINUX_SEQLOCK = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 6),
    NVTX_RESOURCE_TYPE_SYNC_LINUX_RCU = NVTX_RESOURCE_MAKE_TYPE(SYNC_OS, 7)
} nvtxResourceSyncLinuxType_t;
typedef enum nvtxResourceSyncLinuxType_t nvtxResourceSyncAndroidType_t;

typedef struct nvtxSyncUser* nvtxSyncUser_t;
typedef struct nvtxSyncUserAttributes_v0 {
    uint16_t version;
    uint16_t size;
    int32_t messageType;
    nvtxMessageValue_t message;
} nvtxSyncUserAttributes_v0;
typedef struct nvtxSyncUserAttributes_v0 nvtxSyncUserAttributes_t;
#define NVTX_SYNCUSER_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxSyncUserAttributes_v0)))

static inline nvtxSyncUser_t nvtxDomainSyncUserCreate(nvtxDomainHandle_t domain,
                                                      const nvtxSyncUserAttributes_t* attribs) {
    (void)domain; (void)attribs;
    return (nvtxSyncUser_t)0;
}
static inline void nvtxDomainSyncUserDestroy(nvtxSyncUser_t handle) { (void)handle; }
static inline void nvtxDomainSyncUserAcquireStart(nvtxSyncUser_t handle) { (void)handle; }
static inline void nvtxDomainSyncUserAcquireFailed(nvtxSyncUser_t handle) { (void)handle; }
static inline void nvtxDomainSyncUserAcquireSuccess(nvtxSyncUser_t handle) { (void)handle; }
static inline void nvtxDomainSyncUserReleasing(nvtxSyncUser_t handle) { (void)handle; }

#ifdef __cplusplus
}
#endif
