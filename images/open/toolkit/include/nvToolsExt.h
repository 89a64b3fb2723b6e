/* moatbridge: NVTX annotations compile and do nothing (no ROCm tracer in this stack). */
#pragma once
#include <stdint.h>
#define NVTX_VERSION 3
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)sizeof(nvtxEventAttributes_t))
typedef uint64_t nvtxRangeId_t;
typedef enum { NVTX_COLOR_UNKNOWN = 0, NVTX_COLOR_ARGB = 1 } nvtxColorType_t;
typedef enum { NVTX_MESSAGE_UNKNOWN = 0, NVTX_MESSAGE_TYPE_ASCII = 1, NVTX_MESSAGE_TYPE_UNICODE = 2 } nvtxMessageType_t;
typedef union { const char* ascii; const wchar_t* unicode; } nvtxMessageValue_t;
typedef struct nvtxEventAttributes_v2 {
    uint16_t version; uint16_t size; uint32_t category; int32_t colorType; uint32_t color;
    int32_t payloadType; int32_t reserved0; union { uint64_t ullValue; int64_t llValue; double dValue; } payload;
    int32_t messageType; nvtxMessageValue_t message;
} nvtxEventAttributes_t;
static inline int nvtxRangePushA(const char* message) { (void)message; return 0; }
static inline int nvtxRangePushEx(const nvtxEventAttributes_t* attributes) { (void)attributes; return 0; }
static inline int nvtxRangePop(void) { return 0; }
static inline nvtxRangeId_t nvtxRangeStartA(const char* message) { (void)message; return 0; }
static inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t* attributes) { (void)attributes; return 0; }
static inline void nvtxRangeEnd(nvtxRangeId_t id) { (void)id; }
static inline void nvtxMarkA(const char* message) { (void)message; }
static inline void nvtxMarkEx(const nvtxEventAttributes_t* attributes) { (void)attributes; }
static inline void nvtxNameOsThreadA(uint32_t thread, const char* name) { (void)thread; (void)name; }
#define nvtxRangePush nvtxRangePushA
#define nvtxRangeStart nvtxRangeStartA
#define nvtxMark nvtxMarkA
#define nvtxNameOsThread nvtxNameOsThreadA
