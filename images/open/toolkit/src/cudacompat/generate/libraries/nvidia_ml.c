/* libnvidia-ml.so.1: NVML's C API answered from ROCm SMI (librocm_smi64), built at image
   build against the stack's rocm_smi.h. The devices are those ROCm SMI monitors whose render
   node this process can see (/dev/dri/renderD<minor>): in a container, the GPUs it was given,
   as NVIDIA's NVML sees only the GPUs mounted into one. Units are NVML's: bytes, percent,
   degrees C, milliwatts, millijoules, MHz. */
#include <nvml.h>

#include <errno.h>
#include <pthread.h>
#include <rocm_smi/rocm_smi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVICES 64
#define NO_INSTANCE 0xFFFFFFFFu

struct nvmlDevice_st {
    unsigned int index; /* NVML's index: the order of visible devices */
    uint32_t smi;       /* ROCm SMI's device index */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int references;
static struct nvmlDevice_st devices[MAX_DEVICES];
static unsigned int device_count;

static const char *const messages[] = {
    [NVML_SUCCESS] = "Success",
    [NVML_ERROR_UNINITIALIZED] = "Uninitialized",
    [NVML_ERROR_INVALID_ARGUMENT] = "Invalid Argument",
    [NVML_ERROR_NOT_SUPPORTED] = "Not Supported",
    [NVML_ERROR_NO_PERMISSION] = "Insufficient Permissions",
    [NVML_ERROR_ALREADY_INITIALIZED] = "Already Initialized",
    [NVML_ERROR_NOT_FOUND] = "Not Found",
    [NVML_ERROR_INSUFFICIENT_SIZE] = "Insufficient Size",
    [NVML_ERROR_INSUFFICIENT_POWER] = "Insufficient External Power",
    [NVML_ERROR_DRIVER_NOT_LOADED] = "Driver Not Loaded",
    [NVML_ERROR_TIMEOUT] = "Timeout",
    [NVML_ERROR_IRQ_ISSUE] = "Interrupt Request Issue",
    [NVML_ERROR_LIBRARY_NOT_FOUND] = "NVML Shared Library Not Found",
    [NVML_ERROR_FUNCTION_NOT_FOUND] = "Function Not Found",
    [NVML_ERROR_CORRUPTED_INFOROM] = "Corrupted infoROM",
    [NVML_ERROR_GPU_IS_LOST] = "GPU is lost",
    [NVML_ERROR_RESET_REQUIRED] = "GPU requires restart",
    [NVML_ERROR_OPERATING_SYSTEM] = "The operating system has blocked the request.",
    [NVML_ERROR_LIB_RM_VERSION_MISMATCH] = "RM has detected an NVML/RM version mismatch.",
    [NVML_ERROR_IN_USE] = "In use by another client",
    [NVML_ERROR_MEMORY] = "Insufficient Memory",
    [NVML_ERROR_NO_DATA] = "No data",
    [NVML_ERROR_VGPU_ECC_NOT_SUPPORTED] = "The requested vgpu operation is not available on target device, because ECC is enabled",
    [NVML_ERROR_INSUFFICIENT_RESOURCES] = "Insufficient resources",
    [NVML_ERROR_FREQ_NOT_SUPPORTED] = "Frequency not supported",
    [NVML_ERROR_ARGUMENT_VERSION_MISMATCH] = "Argument version mismatch",
    [NVML_ERROR_DEPRECATED] = "Deprecated",
    [NVML_ERROR_NOT_READY] = "Not ready",
    [NVML_ERROR_GPU_NOT_FOUND] = "GPU not found",
    [NVML_ERROR_INVALID_STATE] = "Invalid state",
    [30] = "Reset type not supported",
};

EXPORT const char *nvmlErrorString(nvmlReturn_t result) {
    unsigned int code = (unsigned int)result;
    if (code < sizeof messages / sizeof messages[0] && messages[code] != NULL)
        return messages[code];
    return "Unknown Error";
}

/* ROCm SMI's answer as NVML's */
static nvmlReturn_t from_smi(rsmi_status_t status) {
    switch (status) {
    case RSMI_STATUS_SUCCESS:
        return NVML_SUCCESS;
    case RSMI_STATUS_INVALID_ARGS:
        return NVML_ERROR_INVALID_ARGUMENT;
    case RSMI_STATUS_PERMISSION:
        return NVML_ERROR_NO_PERMISSION;
    case RSMI_STATUS_INSUFFICIENT_SIZE:
        return NVML_ERROR_INSUFFICIENT_SIZE;
    case RSMI_STATUS_NOT_FOUND:
        return NVML_ERROR_NOT_FOUND;
    case RSMI_STATUS_OUT_OF_RESOURCES:
        return NVML_ERROR_MEMORY;
    case RSMI_STATUS_INIT_ERROR:
        return NVML_ERROR_UNINITIALIZED;
    case RSMI_STATUS_UNEXPECTED_DATA:
    case RSMI_STATUS_UNEXPECTED_SIZE:
    case RSMI_STATUS_NO_DATA:
        return NVML_ERROR_NO_DATA;
    case RSMI_STATUS_NOT_SUPPORTED:
    case RSMI_STATUS_NOT_YET_IMPLEMENTED:
    case RSMI_STATUS_FILE_ERROR:
        return NVML_ERROR_NOT_SUPPORTED;
    default:
        return NVML_ERROR_UNKNOWN;
    }
}

static int render_node_visible(uint32_t smi) {
    uint32_t minor = 0;
    char path[64];
    struct stat info;
    if (rsmi_dev_drm_render_minor_get(smi, &minor) != RSMI_STATUS_SUCCESS)
        return 0;
    snprintf(path, sizeof path, "/dev/dri/renderD%u", minor);
    return stat(path, &info) == 0;
}

EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
    nvmlReturn_t result = NVML_SUCCESS;
    pthread_mutex_lock(&lock);
    if (references == 0) {
        uint32_t monitored = 0;
        if (rsmi_init(0) != RSMI_STATUS_SUCCESS) {
            result = NVML_ERROR_DRIVER_NOT_LOADED;
        } else if (rsmi_num_monitor_devices(&monitored) != RSMI_STATUS_SUCCESS) {
            rsmi_shut_down();
            result = NVML_ERROR_DRIVER_NOT_LOADED;
        } else {
            device_count = 0;
            for (uint32_t smi = 0; smi < monitored && device_count < MAX_DEVICES; ++smi) {
                if (!render_node_visible(smi))
                    continue;
                devices[device_count].index = device_count;
                devices[device_count].smi = smi;
                ++device_count;
            }
            if (device_count == 0 && !(flags & NVML_INIT_FLAG_NO_GPUS)) {
                rsmi_shut_down();
                result = NVML_ERROR_GPU_NOT_FOUND;
            }
        }
    }
    if (result == NVML_SUCCESS)
        ++references;
    pthread_mutex_unlock(&lock);
    return result;
}

EXPORT nvmlReturn_t nvmlInit_v2(void) { return nvmlInitWithFlags(0); }

/* the unversioned name older programs and bindings resolve */
EXPORT nvmlReturn_t nvmlInit(void) { return nvmlInitWithFlags(0); }

EXPORT nvmlReturn_t nvmlShutdown(void) {
    nvmlReturn_t result = NVML_SUCCESS;
    pthread_mutex_lock(&lock);
    if (references == 0) {
        result = NVML_ERROR_UNINITIALIZED;
    } else if (--references == 0) {
        device_count = 0;
        rsmi_shut_down();
    }
    pthread_mutex_unlock(&lock);
    return result;
}

static nvmlReturn_t initialized(void) {
    return references > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

/* NVML_SUCCESS and *smi when `device` is one of this library's handles */
static nvmlReturn_t resolve(nvmlDevice_t device, uint32_t *smi) {
    uintptr_t first = (uintptr_t)devices, at = (uintptr_t)device;
    if (references == 0)
        return NVML_ERROR_UNINITIALIZED;
    if (at < first || at >= first + device_count * sizeof devices[0] || (at - first) % sizeof devices[0])
        return NVML_ERROR_INVALID_ARGUMENT;
    *smi = device->smi;
    return NVML_SUCCESS;
}

#define DEVICE_ARGUMENT(device, out)                                                           \
    uint32_t smi = 0;                                                                          \
    nvmlReturn_t checked = resolve((device), &smi);                                            \
    if (checked != NVML_SUCCESS)                                                               \
        return checked;                                                                        \
    if ((out) == NULL)                                                                         \
        return NVML_ERROR_INVALID_ARGUMENT

static nvmlReturn_t copy_string(const char *text, char *out, unsigned int length) {
    size_t size = strlen(text) + 1;
    if (out == NULL)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (size > length)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(out, text, size);
    return NVML_SUCCESS;
}

/* --- the system ------------------------------------------------------------------------- */

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    char text[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
    nvmlReturn_t result = initialized();
    if (result != NVML_SUCCESS)
        return result;
    result = from_smi(rsmi_version_str_get(RSMI_SW_COMP_DRIVER, text, sizeof text));
    return result == NVML_SUCCESS ? copy_string(text, version, length) : result;
}

EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    char text[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];
    /* NVIDIA's is "<CUDA major>.<driver version>"; here the mimicked CUDA release's */
    snprintf(text, sizeof text, "%d.%d.%d", MOATBRIDGE_CUDA_MAJOR, MOATBRIDGE_CUDA_MINOR, MOATBRIDGE_CUDA_BUILD);
    return copy_string(text, version, length);
}

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion) {
    if (cudaDriverVersion == NULL)
        return NVML_ERROR_INVALID_ARGUMENT;
    *cudaDriverVersion = MOATBRIDGE_CUDA_VERSION_NUMBER; /* what cudaDriverGetVersion reports */
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion) {
    return nvmlSystemGetCudaDriverVersion(cudaDriverVersion);
}

EXPORT nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length) {
    char path[64], text[4096];
    ssize_t size;
    nvmlReturn_t result = initialized();
    if (result != NVML_SUCCESS)
        return result;
    if (name == NULL || length == 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    snprintf(path, sizeof path, "/proc/%u/exe", pid);
    size = readlink(path, text, sizeof text - 1);
    if (size < 0) {
        FILE *comm;
        snprintf(path, sizeof path, "/proc/%u/comm", pid);
        comm = fopen(path, "r");
        if (comm == NULL)
            return errno == ENOENT ? NVML_ERROR_NOT_FOUND : NVML_ERROR_NO_PERMISSION;
        size = (ssize_t)fread(text, 1, sizeof text - 1, comm);
        fclose(comm);
        while (size > 0 && text[size - 1] == '\n')
            --size;
    }
    text[size] = '\0';
    /* NVIDIA's truncates to the buffer */
    strncpy(name, text, length - 1);
    name[length - 1] = '\0';
    return NVML_SUCCESS;
}

/* --- devices: enumeration and identity ----------------------------------------------------- */

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount) {
    nvmlReturn_t result = initialized();
    if (result != NVML_SUCCESS)
        return result;
    if (deviceCount == NULL)
        return NVML_ERROR_INVALID_ARGUMENT;
    *deviceCount = device_count;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount) { return nvmlDeviceGetCount_v2(deviceCount); }

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    nvmlReturn_t result = initialized();
    if (result != NVML_SUCCESS)
        return result;
    if (device == NULL || index >= device_count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = &devices[index];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) {
    return nvmlDeviceGetHandleByIndex_v2(index, device);
}

EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index) {
    DEVICE_ARGUMENT(device, index);
    (void)smi;
    *index = device->index;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    char text[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = "";
    DEVICE_ARGUMENT(device, name);
    if (rsmi_dev_name_get(smi, text, sizeof text) != RSMI_STATUS_SUCCESS || text[0] == '\0') {
        uint16_t id = 0;
        rsmi_dev_id_get(smi, &id);
        snprintf(text, sizeof text, "AMD GPU %04x", id);
    }
    return copy_string(text, name, length);
}

static nvmlReturn_t pci_info(uint32_t smi, nvmlPciInfo_t *pci) {
    uint64_t bdf = 0;
    uint16_t device = 0, vendor = 0, subsystem = 0, subsystem_vendor = 0;
    nvmlReturn_t result = from_smi(rsmi_dev_pci_id_get(smi, &bdf));
    if (result != NVML_SUCCESS)
        return result;
    memset(pci, 0, sizeof *pci);
    /* ROCm SMI's BDF id: domain << 32 | bus << 8 | device << 3 | function */
    pci->domain = (unsigned int)(bdf >> 32);
    pci->bus = (unsigned int)((bdf >> 8) & 0xff);
    pci->device = (unsigned int)((bdf >> 3) & 0x1f);
    rsmi_dev_id_get(smi, &device);
    rsmi_dev_vendor_id_get(smi, &vendor);
    rsmi_dev_subsystem_id_get(smi, &subsystem);
    rsmi_dev_subsystem_vendor_id_get(smi, &subsystem_vendor);
    pci->pciDeviceId = (unsigned int)device << 16 | vendor;
    pci->pciSubSystemId = (unsigned int)subsystem << 16 | subsystem_vendor;
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, NVML_DEVICE_PCI_BUS_ID_LEGACY_FMT,
             pci->domain & 0xffff, pci->bus, pci->device);
    snprintf(pci->busId, sizeof pci->busId, NVML_DEVICE_PCI_BUS_ID_FMT, pci->domain, pci->bus, pci->device);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    DEVICE_ARGUMENT(device, pci);
    return pci_info(smi, pci);
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    return nvmlDeviceGetPciInfo_v3(device, pci);
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    return nvmlDeviceGetPciInfo_v3(device, pci);
}

/* "GPU-" and 128 bits as NVIDIA writes them: ROCm SMI's 64-bit unique id (0 where the GPU
   has none), then the PCI location, so two GPUs never share one */
static nvmlReturn_t uuid_text(uint32_t smi, char *text, size_t size) {
    uint64_t unique = 0, bdf = 0;
    nvmlReturn_t result = from_smi(rsmi_dev_pci_id_get(smi, &bdf));
    if (result != NVML_SUCCESS)
        return result;
    if (rsmi_dev_unique_id_get(smi, &unique) != RSMI_STATUS_SUCCESS)
        unique = 0;
    snprintf(text, size, "GPU-%08x-%04x-%04x-%04x-%04x%08x", (unsigned int)(unique >> 32),
             (unsigned int)(unique >> 16) & 0xffff, (unsigned int)unique & 0xffff,
             (unsigned int)(bdf >> 48) & 0xffff, (unsigned int)(bdf >> 32) & 0xffff, (unsigned int)bdf);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    nvmlReturn_t result;
    DEVICE_ARGUMENT(device, uuid);
    result = uuid_text(smi, text, sizeof text);
    return result == NVML_SUCCESS ? copy_string(text, uuid, length) : result;
}

EXPORT nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length) {
    char text[NVML_DEVICE_SERIAL_BUFFER_SIZE + 2] = "";
    nvmlReturn_t result;
    DEVICE_ARGUMENT(device, serial);
    result = from_smi(rsmi_dev_serial_number_get(smi, text, sizeof text));
    if (result == NVML_SUCCESS && text[0] == '\0')
        result = NVML_ERROR_NOT_SUPPORTED;
    return result == NVML_SUCCESS ? copy_string(text, serial, length) : result;
}

/* the device whose text `matches` is `wanted` */
static nvmlReturn_t find_device(const char *wanted, nvmlDevice_t *device, int (*matches)(uint32_t, const char *)) {
    nvmlReturn_t result = initialized();
    if (result != NVML_SUCCESS)
        return result;
    if (wanted == NULL || device == NULL)
        return NVML_ERROR_INVALID_ARGUMENT;
    for (unsigned int index = 0; index < device_count; ++index) {
        if (matches(devices[index].smi, wanted)) {
            *device = &devices[index];
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

static int uuid_matches(uint32_t smi, const char *wanted) {
    char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    return uuid_text(smi, text, sizeof text) == NVML_SUCCESS && strcasecmp(text, wanted) == 0;
}

static int serial_matches(uint32_t smi, const char *wanted) {
    char text[NVML_DEVICE_SERIAL_BUFFER_SIZE + 2] = "";
    return rsmi_dev_serial_number_get(smi, text, sizeof text) == RSMI_STATUS_SUCCESS && text[0] != '\0' &&
           strcmp(text, wanted) == 0;
}

/* "domain:bus:device.function" in any of the forms NVIDIA's accepts: 4 or 8 domain digits,
   or none ("bus:device.function"), hexadecimal in either case */
static int bus_id_matches(uint32_t smi, const char *wanted) {
    unsigned int domain = 0, bus = 0, slot = 0, function = 0;
    nvmlPciInfo_t pci;
    char tail;
    if (sscanf(wanted, "%x:%x:%x.%x%c", &domain, &bus, &slot, &function, &tail) != 4) {
        domain = 0;
        if (sscanf(wanted, "%x:%x.%x%c", &bus, &slot, &function, &tail) != 3)
            return 0;
    }
    return pci_info(smi, &pci) == NVML_SUCCESS && pci.domain == domain && pci.bus == bus && pci.device == slot &&
           function == 0;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device) {
    return find_device(uuid, device, uuid_matches);
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleBySerial(const char *serial, nvmlDevice_t *device) {
    return find_device(serial, device, serial_matches);
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device) {
    return find_device(pciBusId, device, bus_id_matches);
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device) {
    return nvmlDeviceGetHandleByPciBusId_v2(pciBusId, device);
}

EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber) {
    uint32_t minor = 0;
    nvmlReturn_t result;
    DEVICE_ARGUMENT(device, minorNumber);
    result = from_smi(rsmi_dev_drm_render_minor_get(smi, &minor));
    if (result == NVML_SUCCESS)
        *minorNumber = minor;
    return result;
}

EXPORT nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type) {
    DEVICE_ARGUMENT(device, type);
    (void)smi;
    *type = NVML_BRAND_UNKNOWN; /* no NVIDIA brand fits an AMD GPU */
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
    DEVICE_ARGUMENT(device, major);
    (void)smi;
    if (minor == NULL)
        return NVML_ERROR_INVALID_ARGUMENT;
    /* the compute capability cudaGetDeviceProperties reports in this toolkit */
    *major = MOATBRIDGE_MIMIC_CC_MAJOR;
    *minor = MOATBRIDGE_MIMIC_CC_MINOR;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch) {
    DEVICE_ARGUMENT(device, arch);
    (void)smi;
    *arch = NVML_DEVICE_ARCH_UNKNOWN;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length) {
    char text[256] = "";
    nvmlReturn_t result;
    DEVICE_ARGUMENT(device, version);
    result = from_smi(rsmi_dev_vbios_version_get(smi, text, sizeof text));
    return result == NVML_SUCCESS ? copy_string(text, version, length) : result;
}

/* --- memory and utilisation ---------------------------------------------------------------- */

static nvmlReturn_t vram(uint32_t smi, unsigned long long *total, unsigned long long *used) {
    uint64_t all = 0, taken = 0;
    nvmlReturn_t result = from_smi(rsmi_dev_memory_total_get(smi, RSMI_MEM_TYPE_VRAM, &all));
    if (result == NVML_SUCCESS)
        result = from_smi(rsmi_dev_memory_usage_get(smi, RSMI_MEM_TYPE_VRAM, &taken));
    if (result != NVML_SUCCESS)
        return result;
    *total = all;
    *used = taken < all ? taken : all;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    unsigned long long total = 0, used = 0;
    nvmlReturn_t result;
    DEVICE_ARGUMENT(device, memory);
    result = vram(smi, &total, &used);
    if (result != NVML_SUCCESS)
        return result;
    memory->total = total;
    memory->used = used;
    memory->free = total - used;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
    unsigned long long total = 0, used = 0;
    nvmlReturn_t result;
    DEVICE_ARGUMENT(device, memory);
    if (memory->version != nvmlMemory_v2)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    result = vram(smi, &total, &used);
    if (result != NVML_SUCCESS)
        return result;
    memory->total = total;
    memory->reserved = 0; /* ROCm SMI does not tell the firmware's share apart */
    memory->used = used;
    memory->free = total - used;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization) {
    uint32_t gpu = 0, memory = 0;
    nvmlReturn_t result;
    DEVICE_ARGUMENT(device, utilization);
    result = from_smi(rsmi_dev_busy_percent_get(smi, &gpu));
    if (result != NVML_SUCCESS)
        return result;
    if (rsmi_dev_memory_busy_percent_get(smi, &memory) != RSMI_STATUS_SUCCESS)
        memory = 0;
    utilization->gpu = gpu;
    utilization->memory = memory;
    return NVML_SUCCESS;
}

/* --- temperature, power, energy, clocks, fans ---------------------------------------------- */

/* degrees C of `metric` at the GPU's edge sensor, or its junction where it has no edge one
   (data-centre GPUs) */
static nvmlReturn_t temperature(uint32_t smi, uint32_t sensor, rsmi_temperature_metric_t metric, unsigned int *out) {
    int64_t millidegrees = 0;
    rsmi_status_t status = rsmi_dev_temp_metric_get(smi, sensor, metric, &millidegrees);
    if (status != RSMI_STATUS_SUCCESS && sensor == RSMI_TEMP_TYPE_EDGE)
        status = rsmi_dev_temp_metric_get(smi, RSMI_TEMP_TYPE_JUNCTION, metric, &millidegrees);
    if (status != RSMI_STATUS_SUCCESS)
        return from_smi(status);
    *out = millidegrees > 0 ? (unsigned int)((millidegrees + 500) / 1000) : 0;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int *temp) {
    DEVICE_ARGUMENT(device, temp);
    if (sensorType != NVML_TEMPERATURE_GPU)
        return NVML_ERROR_INVALID_ARGUMENT;
    return temperature(smi, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CURRENT, temp);
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, nvmlTemperatureThresholds_t thresholdType, unsigned int *temp) {
    DEVICE_ARGUMENT(device, temp);
    switch (thresholdType) {
    case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN:
        return temperature(smi, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_EMERGENCY, temp);
    case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN:
        return temperature(smi, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CRITICAL, temp);
    case NVML_TEMPERATURE_THRESHOLD_GPU_MAX:
        return temperature(smi, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_MAX, temp);
    case NVML_TEMPERATURE_THRESHOLD_MEM_MAX:
        return temperature(smi, RSMI_TEMP_TYPE_MEMORY, RSMI_TEMP_CRITICAL, temp);
    default:
        return thresholdType < NVML_TEMPERATURE_THRESHOLD_COUNT ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
    }
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power) {
    uint64_t microwatts = 0;
    rsmi_status_t status;
    DEVICE_ARGUMENT(device, power);
    /* the average over the last interval, as NVIDIA's; newer GPUs report only the current draw */
    status = rsmi_dev_power_ave_get(smi, 0, &microwatts);
    if (status != RSMI_STATUS_SUCCESS || microwatts == 0) {
        uint64_t current = 0;
        if (rsmi_dev_current_socket_power_get(smi, &current) == RSMI_STATUS_SUCCESS) {
            status = RSMI_STATUS_SUCCESS;
            microwatts = current;
        }
    }
    if (status != RSMI_STATUS_SUCCESS)
        return from_smi(status);
    *power = (unsigned int)(microwatts / 1000);
    return NVML_SUCCESS;
}

static nvmlReturn_t power_cap(uint32_t smi, unsigned int *limit) {
    uint64_t microwatts = 0;
    nvmlReturn_t result = from_smi(rsmi_dev_power_cap_get(smi, 0, &microwatts));
    if (result == NVML_SUCCESS)
        *limit = (unsigned int)(microwatts / 1000);
    return result;
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit) {
    DEVICE_ARGUMENT(device, limit);
    return power_cap(smi, limit);
}

EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit) {
    DEVICE_ARGUMENT(device, limit);
    return power_cap(smi, limit);
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *defaultLimit) {
    uint64_t microwatts = 0;
    nvmlReturn_t result;
    DEVICE_ARGUMENT(device, defaultLimit);
    result = from_smi(rsmi_dev_power_cap_default_get(smi, &microwatts));
    if (result == NVML_SUCCESS)
        *defaultLimit = (unsigned int)(microwatts / 1000);
    return result;
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *minLimit, unsigned int *maxLimit) {
    uint64_t most = 0, least = 0;
    nvmlReturn_t result;
    DEVICE_ARGUMENT(device, minLimit);
    if (maxLimit == NULL)
        return NVML_ERROR_INVALID_ARGUMENT;
    result = from_smi(rsmi_dev_power_cap_range_get(smi, 0, &most, &least));
    if (result == NVML_SUCCESS) {
        *minLimit = (unsigned int)(least / 1000);
        *maxLimit = (unsigned int)(most / 1000);
    }
    return result;
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy) {
    uint64_t ticks = 0, timestamp = 0;
    float microjoules_per_tick = 0;
    nvmlReturn_t result;
    DEVICE_ARGUMENT(device, energy);
    result = from_smi(rsmi_dev_energy_count_get(smi, &ticks, &microjoules_per_tick, &timestamp));
    if (result == NVML_SUCCESS)
        *energy = (unsigned long long)((double)ticks * microjoules_per_tick / 1000.0);
    return result;
}

/* ROCm SMI's clock domain for NVML's: the graphics and SM clocks are one (sclk) on AMD GPUs */
static int clock_domain(nvmlClockType_t type, rsmi_clk_type_t *domain) {
    switch (type) {
    case NVML_CLOCK_GRAPHICS:
    case NVML_CLOCK_SM:
        *domain = RSMI_CLK_TYPE_SYS;
        return 1;
    case NVML_CLOCK_MEM:
        *domain = RSMI_CLK_TYPE_MEM;
        return 1;
    default:
        return 0;
    }
}

static nvmlReturn_t clock_mhz(uint32_t smi, nvmlClockType_t type, int maximum, unsigned int *out) {
    rsmi_clk_type_t domain;
    rsmi_frequencies_t levels;
    nvmlReturn_t result;
    uint64_t hertz = 0;
    if (!clock_domain(type, &domain))
        return type < NVML_CLOCK_COUNT ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
    memset(&levels, 0, sizeof levels);
    result = from_smi(rsmi_dev_gpu_clk_freq_get(smi, domain, &levels));
    if (result != NVML_SUCCESS)
        return result;
    if (levels.num_supported == 0 || levels.num_supported > RSMI_MAX_NUM_FREQUENCIES)
        return NVML_ERROR_NO_DATA;
    if (maximum) {
        for (uint32_t level = 0; level < levels.num_supported; ++level)
            hertz = levels.frequency[level] > hertz ? levels.frequency[level] : hertz;
    } else {
        if (levels.current >= levels.num_supported)
            return NVML_ERROR_NO_DATA;
        hertz = levels.frequency[levels.current];
    }
    *out = (unsigned int)(hertz / 1000000);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock) {
    DEVICE_ARGUMENT(device, clock);
    return clock_mhz(smi, type, 0, clock);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock) {
    DEVICE_ARGUMENT(device, clock);
    return clock_mhz(smi, type, 1, clock);
}

EXPORT nvmlReturn_t nvmlDeviceGetClock(nvmlDevice_t device, nvmlClockType_t clockType, nvmlClockId_t clockId, unsigned int *clockMHz) {
    DEVICE_ARGUMENT(device, clockMHz);
    switch (clockId) {
    case NVML_CLOCK_ID_CURRENT:
        return clock_mhz(smi, clockType, 0, clockMHz);
    case NVML_CLOCK_ID_CUSTOMER_BOOST_MAX:
        return clock_mhz(smi, clockType, 1, clockMHz);
    default:
        return clockId < NVML_CLOCK_ID_COUNT ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
    }
}

EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int *speed) {
    int64_t current = 0;
    uint64_t most = 0;
    nvmlReturn_t result;
    DEVICE_ARGUMENT(device, speed);
    result = from_smi(rsmi_dev_fan_speed_get(smi, fan, &current));
    if (result == NVML_SUCCESS)
        result = from_smi(rsmi_dev_fan_speed_max_get(smi, fan, &most));
    if (result != NVML_SUCCESS)
        return fan > 0 && result == NVML_ERROR_NOT_SUPPORTED ? NVML_ERROR_INVALID_ARGUMENT : result;
    if (most == 0 || current < 0)
        return NVML_ERROR_NO_DATA;
    *speed = (unsigned int)(((uint64_t)current * 100 + most / 2) / most);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed) {
    return nvmlDeviceGetFanSpeed_v2(device, 0, speed);
}

EXPORT nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int *numFans) {
    int64_t current = 0;
    DEVICE_ARGUMENT(device, numFans);
    *numFans = rsmi_dev_fan_speed_get(smi, 0, &current) == RSMI_STATUS_SUCCESS ? 1 : 0;
    return NVML_SUCCESS;
}

/* --- processes and modes ------------------------------------------------------------------- */

/* The processes using the GPU (ROCm SMI lists KFD's, i.e. compute processes) with the VRAM
   each holds there. NVML's contract: with too small an array, the count needed and
   NVML_ERROR_INSUFFICIENT_SIZE. */
static nvmlReturn_t compute_processes(uint32_t smi, unsigned int *count, nvmlProcessInfo_t *infos) {
    uint32_t listed = 0, found = 0, capacity;
    rsmi_process_info_t *all;
    rsmi_status_t status;
    nvmlReturn_t result = from_smi(rsmi_compute_process_info_get(NULL, &listed));
    if (result != NVML_SUCCESS)
        return result;
    capacity = listed ? listed : 1;
    all = calloc(capacity, sizeof *all);
    if (all == NULL)
        return NVML_ERROR_MEMORY;
    status = rsmi_compute_process_info_get(all, &listed);
    /* a process that started between the two calls is left for the next query */
    result = status == RSMI_STATUS_INSUFFICIENT_SIZE ? NVML_SUCCESS : from_smi(status);
    listed = listed < capacity ? listed : capacity;
    for (uint32_t each = 0; result == NVML_SUCCESS && each < listed; ++each) {
        rsmi_process_info_t here;
        memset(&here, 0, sizeof here);
        if (rsmi_compute_process_info_by_device_get(all[each].process_id, smi, &here) != RSMI_STATUS_SUCCESS)
            continue; /* not on this GPU, or gone since */
        if (found < *count && infos != NULL) {
            infos[found].pid = all[each].process_id;
            infos[found].usedGpuMemory = here.vram_usage;
            infos[found].gpuInstanceId = NO_INSTANCE;
            infos[found].computeInstanceId = NO_INSTANCE;
        }
        ++found;
    }
    free(all);
    if (result != NVML_SUCCESS)
        return result;
    result = found > *count ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
    *count = found;
    return result;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos) {
    DEVICE_ARGUMENT(device, infoCount);
    if (*infoCount > 0 && infos == NULL)
        return NVML_ERROR_INVALID_ARGUMENT;
    return compute_processes(smi, infoCount, infos);
}

EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos) {
    DEVICE_ARGUMENT(device, infoCount);
    (void)smi;
    (void)infos;
    *infoCount = 0; /* ROCm SMI sees compute (KFD) processes only */
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode) {
    DEVICE_ARGUMENT(device, mode);
    (void)smi;
    *mode = NVML_COMPUTEMODE_DEFAULT; /* any number of processes may share an AMD GPU */
    return NVML_SUCCESS;
}

/* --- declared, not supported ------------------------------------------------------------ */

/* each takes the arguments its NVIDIA signature has and looks at none but the device */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define NOT_SUPPORTED(name, ...)                                                               \
    EXPORT nvmlReturn_t name(nvmlDevice_t device, __VA_ARGS__) {                               \
        uint32_t smi = 0;                                                                      \
        nvmlReturn_t checked = resolve(device, &smi);                                          \
        return checked != NVML_SUCCESS ? checked : NVML_ERROR_NOT_SUPPORTED;                   \
    }

NOT_SUPPORTED(nvmlDeviceGetBAR1MemoryInfo, nvmlBAR1Memory_t *bar1Memory)
NOT_SUPPORTED(nvmlDeviceGetPerformanceState, nvmlPstates_t *pState)
NOT_SUPPORTED(nvmlDeviceGetPowerState, nvmlPstates_t *pState)
NOT_SUPPORTED(nvmlDeviceGetPersistenceMode, nvmlEnableState_t *mode)
NOT_SUPPORTED(nvmlDeviceGetEccMode, nvmlEnableState_t *current, nvmlEnableState_t *pending)
NOT_SUPPORTED(nvmlDeviceGetTotalEccErrors, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType,
              unsigned long long *eccCounts)
NOT_SUPPORTED(nvmlDeviceGetEncoderUtilization, unsigned int *utilization, unsigned int *samplingPeriodUs)
NOT_SUPPORTED(nvmlDeviceGetDecoderUtilization, unsigned int *utilization, unsigned int *samplingPeriodUs)
NOT_SUPPORTED(nvmlDeviceGetMultiGpuBoard, unsigned int *multiGpuBool)
NOT_SUPPORTED(nvmlDeviceGetDisplayMode, nvmlEnableState_t *display)
NOT_SUPPORTED(nvmlDeviceGetDisplayActive, nvmlEnableState_t *isActive)
NOT_SUPPORTED(nvmlDeviceGetCurrPcieLinkGeneration, unsigned int *currLinkGen)
NOT_SUPPORTED(nvmlDeviceGetCurrPcieLinkWidth, unsigned int *currLinkWidth)
NOT_SUPPORTED(nvmlDeviceGetMaxPcieLinkGeneration, unsigned int *maxLinkGen)
NOT_SUPPORTED(nvmlDeviceGetMaxPcieLinkWidth, unsigned int *maxLinkWidth)
NOT_SUPPORTED(nvmlDeviceGetPcieThroughput, nvmlPcieUtilCounter_t counter, unsigned int *value)
NOT_SUPPORTED(nvmlDeviceGetNumGpuCores, unsigned int *numCores)
NOT_SUPPORTED(nvmlDeviceGetMemoryBusWidth, unsigned int *busWidth)
NOT_SUPPORTED(nvmlDeviceGetMaxCustomerBoostClock, nvmlClockType_t clockType, unsigned int *clockMHz)
NOT_SUPPORTED(nvmlDeviceGetMigMode, unsigned int *currentMode, unsigned int *pendingMode)
NOT_SUPPORTED(nvmlDeviceGetCurrentClocksEventReasons, unsigned long long *clocksEventReasons)
NOT_SUPPORTED(nvmlDeviceGetCurrentClocksThrottleReasons, unsigned long long *clocksThrottleReasons)
NOT_SUPPORTED(nvmlDeviceGetBoardPartNumber, char *partNumber, unsigned int length)
