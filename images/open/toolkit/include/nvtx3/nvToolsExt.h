/* moatbridge: NVTX version 3's C API (markers, ranges, domains, categories, registered
   strings, resource naming), declared as NVIDIA's nvtx3/nvToolsExt.h declares it. Every call
   does what NVTX does when no tool is injected: nothing, answering as it answers then (no
   ROCm tracer consumes NVTX here). Header-only like NVIDIA's: nothing to link. */
#pragma once
#if defined(NVTX_VERSION) && NVTX_VERSION < 3
#error "an NVTX 2 header (nvToolsExt.h of an older toolkit) was included before NVTX 3's"
#endif
#ifndef NVTX_VERSION
#define NVTX_VERSION 3
#endif
#include <stddef.h>
#include <stdint.h>

#define NVTX_SUCCESS 0
#define NVTX_FAIL 1
#define NVTX_ERR_INIT_LOAD_PROPERTY 2
#define NVTX_ERR_INIT_ACCESS_LIBRARY 3
#define NVTX_ERR_INIT_LOAD_LIBRARY 4
#define NVTX_ERR_INIT_MISSING_LIBRARY_ENTRY_POINT 5
#define NVTX_ERR_INIT_FAILED_LIBRARY_ENTRY_POINT 6
#define NVTX_ERR_NO_INJECTION_LIBRARY_AVAILABLE 7
/* what nvtxRangePush* and nvtxRangePop return when no tool tracks the nesting */
#define NVTX_NO_PUSH_POP_TRACKING ((int)-2)

#define NVTX_RESOURCE_MAKE_TYPE(CLASS, INDEX) \
    ((((uint32_t)(NVTX_RESOURCE_CLASS_##CLASS)) << 16) | ((uint32_t)(INDEX)))
#define NVTX_RESOURCE_CLASS_GENERIC 1

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t nvtxRangeId_t;
typedef struct nvtxDomainRegistration_st nvtxDomainRegistration;
typedef nvtxDomainRegistration* nvtxDomainHandle_t;
typedef struct nvtxStringRegistration_st nvtxStringRegistration;
typedef nvtxStringRegistration* nvtxStringHandle_t;
typedef struct nvtxResourceHandle* nvtxResourceHandle_t;

typedef enum nvtxColorType_t { NVTX_COLOR_UNKNOWN = 0, NVTX_COLOR_ARGB = 1 } nvtxColorType_t;
typedef enum nvtxMessageType_t {
    NVTX_MESSAGE_UNKNOWN = 0,
    NVTX_MESSAGE_TYPE_ASCII = 1,
    NVTX_MESSAGE_TYPE_UNICODE = 2,
    NVTX_MESSAGE_TYPE_REGISTERED = 3
} nvtxMessageType_t;
typedef union nvtxMessageValue_t {
    const char* ascii;
    const wchar_t* unicode;
    nvtxStringHandle_t registered;
} nvtxMessageValue_t;
typedef enum nvtxPayloadType_t {
    NVTX_PAYLOAD_UNKNOWN = 0,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 = 1,
    NVTX_PAYLOAD_TYPE_INT64 = 2,
    NVTX_PAYLOAD_TYPE_DOUBLE = 3,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT32 = 4,
    NVTX_PAYLOAD_TYPE_INT32 = 5,
    NVTX_PAYLOAD_TYPE_FLOAT = 6
} nvtxPayloadType_t;

/* An event's attributes: version 2 of the structure (48 bytes on LP64), as NVIDIA lays it out. */
typedef struct nvtxEventAttributes_v2 {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    union payload_t {
        uint64_t ullValue;
        int64_t llValue;
        double dValue;
        uint32_t uiValue;
        int32_t iValue;
        float fValue;
    } payload;
    int32_t messageType;
    nvtxMessageValue_t message;
} nvtxEventAttributes_v2;
typedef struct nvtxEventAttributes_v2 nvtxEventAttributes_t;
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxEventAttributes_t)))

typedef enum nvtxResourceGenericType_t {
    NVTX_RESOURCE_TYPE_UNKNOWN = 0,
    NVTX_RESOURCE_TYPE_GENERIC_POINTER = NVTX_RESOURCE_MAKE_TYPE(GENERIC, 1),
    NVTX_RESOURCE_TYPE_GENERIC_HANDLE = NVTX_RESOURCE_MAKE_TYPE(GENERIC, 2),
    NVTX_RESOURCE_TYPE_GENERIC_THREAD_NATIVE = NVTX_RESOURCE_MAKE_TYPE(GENERIC, 3),
    NVTX_RESOURCE_TYPE_GENERIC_THREAD_POSIX = NVTX_RESOURCE_MAKE_TYPE(GENERIC, 4)
} nvtxResourceGenericType_t;

typedef struct nvtxResourceAttributes_v0 {
    uint16_t version;
    uint16_t size;
    int32_t identifierType;
    union identifier_t {
        const void* pValue;
        uint64_t ullValue;
    } identifier;
    int32_t messageType;
    nvtxMessageValue_t message;
} nvtxResourceAttributes_v0;
typedef struct nvtxResourceAttributes_v0 nvtxResourceAttributes_t;
#define NVTX_RESOURCE_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxResourceAttributes_v0)))

static inline void nvtxInitialize(const void* reserved) { (void)reserved; }

static inline void nvtxDomainMarkEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* eventAttrib) {
    (void)domain; (void)eventAttrib;
}
static inline void nvtxMarkEx(const nvtxEventAttributes_t* eventAttrib) { (void)eventAttrib; }
static inline void nvtxMarkA(const char* message) { (void)message; }
static inline void nvtxMarkW(const wchar_t* message) { (void)message; }

static inline nvtxRangeId_t nvtxDomainRangeStartEx(nvtxDomainHandle_t domain,
                                                   const nvtxEventAttributes_t* eventAttrib) {
    (void)domain; (void)eventAttrib;
    return (nvtxRangeId_t)0;
}
static inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t* eventAttrib) {
    (void)eventAttrib;
    return (nvtxRangeId_t)0;
}
static inline nvtxRangeId_t nvtxRangeStartA(const char* message) { (void)message; return (nvtxRangeId_t)0; }
static inline nvtxRangeId_t nvtxRangeStartW(const wchar_t* message) { (void)message; return (nvtxRangeId_t)0; }
static inline void nvtxDomainRangeEnd(nvtxDomainHandle_t domain, nvtxRangeId_t id) { (void)domain; (void)id; }
static inline void nvtxRangeEnd(nvtxRangeId_t id) { (void)id; }

static inline int nvtxDomainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* eventAttrib) {
    (void)domain; (void)eventAttrib;
    return NVTX_NO_PUSH_POP_TRACKING;
}
static inline int nvtxRangePushEx(const nvtxEventAttributes_t* eventAttrib) {
    (void)eventAttrib;
    return NVTX_NO_PUSH_POP_TRACKING;
}
static inline int nvtxRangePushA(const char* message) { (void)message; return NVTX_NO_PUSH_POP_TRACKING; }
static inline int nvtxRangePushW(const wchar_t* message) { (void)message; return NVTX_NO_PUSH_POP_TRACKING; }
static inline int nvtxDomainRangePop(nvtxDomainHandle_t domain) { (void)domain; return NVTX_NO_PUSH_POP_TRACKING; }
static inline int nvtxRangePop(void) { return NVTX_NO_PUSH_POP_TRACKING; }

static inline nvtxResourceHandle_t nvtxDomainResourceCreate(nvtxDomainHandle_t domain,
                                                            nvtxResourceAttributes_t* attribs) {
    (void)domain; (void)attribs;
    return (nvtxResourceHandle_t)0;
}
static inline void nvtxDomainResourceDestroy(nvtxResourceHandle_t resource) { (void)resource; }

static inline void nvtxDomainNameCategoryA(nvtxDomainHandle_t domain, uint32_t category, const char* name) {
    (void)domain; (void)category; (void)name;
}
static inline void nvtxDomainNameCategoryW(nvtxDomainHandle_t domain, uint32_t category, const wchar_t* name) {
    (void)domain; (void)category; (void)name;
}
static inline void nvtxNameCategoryA(uint32_t category, const char* name) { (void)category; (void)name; }
static inline void nvtxNameCategoryW(uint32_t category, const wchar_t* name) { (void)category; (void)name; }
static inline void nvtxNameOsThreadA(uint32_t threadId, const char* name) { (void)threadId; (void)name; }
static inline void nvtxNameOsThreadW(uint32_t threadId, const wchar_t* name) { (void)threadId; (void)name; }

static inline nvtxStringHandle_t nvtxDomainRegisterStringA(nvtxDomainHandle_t domain, const char* string) {
    (void)domain; (void)string;
    return (nvtxStringHandle_t)0;
}
static inline nvtxStringHandle_t nvtxDomainRegisterStringW(nvtxDomainHandle_t domain, const wchar_t* string) {
    (void)domain; (void)string;
    return (nvtxStringHandle_t)0;
}
static inline nvtxDomainHandle_t nvtxDomainCreateA(const char* name) { (void)name; return (nvtxDomainHandle_t)0; }
static inline nvtxDomainHandle_t nvtxDomainCreateW(const wchar_t* name) { (void)name; return (nvtxDomainHandle_t)0; }
static inline void nvtxDomainDestroy(nvtxDomainHandle_t domain) { (void)domain; }

#ifdef __cplusplus
}
#endif

/* the unsuffixed names: wide-character under UNICODE, as in NVIDIA's header */
#ifdef UNICODE
#define nvtxMark nvtxMarkW
#define nvtxRangeStart nvtxRangeStartW
#define nvtxRangePush nvtxRangePushW
#define nvtxNameCategory nvtxNameCategoryW
#define nvtxNameOsThread nvtxNameOsThreadW
#define nvtxDomainCreate nvtxDomainCreateW
#define nvtxDomainRegisterString nvtxDomainRegisterStringW
#define nvtxDomainNameCategory nvtxDomainNameCategoryW
#else
#define nvtxMark nvtxMarkA
#define nvtxRangeStart nvtxRangeStartA
#define nvtxRangePush nvtxRangePushA
#define nvtxNameCategory nvtxNameCategoryA
#define nvtxNameOsThread nvtxNameOsThreadA
#define nvtxDomainCreate nvtxDomainCreateA
#define nvtxDomainRegisterString nvtxDomainRegisterStringA
#define nvtxDomainNameCategory nvtxDomainNameCategoryA
#endif
