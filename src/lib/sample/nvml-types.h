/* SPDX-License-Identifier: MIT */
/*
 * nvml-types.h - the part of the NVML ABI gpuprof uses, declared locally so
 * that no nvml.h is needed to build and no libnvidia-ml to link (nvtop's
 * approach). Layouts and values are NVML's (nvml.h, NVML_API_VERSION 13, as
 * in NVIDIA/go-nvml); shared by the dlopen backend (nvml.c) and the fake
 * library of the tests (tests/fake/fake-nvml.c).
 */
#ifndef GP_SAMPLE_NVML_TYPES_H
#define GP_SAMPLE_NVML_TYPES_H

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_SUCCESS                         0
#define NVML_ERROR_UNINITIALIZED             1
#define NVML_ERROR_INVALID_ARGUMENT          2
#define NVML_ERROR_NOT_SUPPORTED             3
#define NVML_ERROR_NO_PERMISSION             4
#define NVML_ERROR_NOT_FOUND                 6
#define NVML_ERROR_INSUFFICIENT_SIZE         7
#define NVML_ERROR_DRIVER_NOT_LOADED         9
#define NVML_ERROR_TIMEOUT                   10
#define NVML_ERROR_GPU_IS_LOST               15
#define NVML_ERROR_NO_DATA                   21
#define NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define NVML_ERROR_GPU_NOT_FOUND             28
#define NVML_ERROR_UNKNOWN                   999

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE        96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE        96
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE     32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE  16
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80

/* NVML_STRUCT_VERSION(name, ver) = sizeof(struct) | ver << 24 */
#define GP_NVML_STRUCT_VERSION(type, ver) ((unsigned int)(sizeof(type) | ((ver) << 24U)))

typedef struct {
	char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
	unsigned int version; /* nvmlMemory_v2 */
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 GP_NVML_STRUCT_VERSION(nvmlMemory_v2_t, 2) /* 0x02000028 */

typedef struct {
	unsigned int gpu, memory; /* percent */
} nvmlUtilization_t;

#define NVML_TEMPERATURE_GPU                0
#define NVML_TEMPERATURE_THRESHOLD_SHUTDOWN 0
#define NVML_TEMPERATURE_THRESHOLD_SLOWDOWN 1

typedef struct {
	unsigned int version; /* nvmlTemperature_v1 */
	int sensorType;
	int temperature;
} nvmlTemperature_v1_t;
#define nvmlTemperature_v1 GP_NVML_STRUCT_VERSION(nvmlTemperature_v1_t, 1)

#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_SM       1
#define NVML_CLOCK_MEM      2

#define NVML_PCIE_UTIL_TX_BYTES 0
#define NVML_PCIE_UTIL_RX_BYTES 1

/* nvmlDeviceGetFieldValues */
#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION 83
#define NVML_FI_DEV_POWER_INSTANT            186
#define NVML_FI_DEV_PCIE_COUNT_TX_BYTES      197
#define NVML_FI_DEV_PCIE_COUNT_RX_BYTES      198

#define NVML_VALUE_TYPE_DOUBLE             0
#define NVML_VALUE_TYPE_UNSIGNED_INT       1
#define NVML_VALUE_TYPE_UNSIGNED_LONG      2
#define NVML_VALUE_TYPE_UNSIGNED_LONG_LONG 3
#define NVML_VALUE_TYPE_SIGNED_LONG_LONG   4
#define NVML_VALUE_TYPE_SIGNED_INT         5

typedef union {
	double dVal;
	int siVal;
	unsigned int uiVal;
	unsigned long ulVal;
	unsigned long long ullVal;
	signed long long sllVal;
} nvmlValue_t;

typedef struct {
	unsigned int fieldId;
	unsigned int scopeId;
	long long timestamp;
	long long latencyUsec;
	int valueType;
	nvmlReturn_t nvmlReturn;
	nvmlValue_t value;
} nvmlFieldValue_t;

/* process lists: _v3 and _v2 share this layout; _v1 (nvmlProcessInfo_v1_t) is shorter */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory; /* bytes; NVML_VALUE_NOT_AVAILABLE when unknown */
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlProcessInfo_t;

typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

typedef struct {
	unsigned int pid;
	unsigned long long timeStamp; /* CPU timestamp, µs */
	unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;

/* clock-event (throttle) reason bits */
#define GP_NVML_CLOCKS_EVENT_GPU_IDLE       0x1ULL
#define GP_NVML_CLOCKS_EVENT_CLOCKS_SETTING 0x2ULL
#define GP_NVML_CLOCKS_EVENT_SW_POWER_CAP   0x4ULL
#define GP_NVML_CLOCKS_EVENT_HW_SLOWDOWN    0x8ULL
#define GP_NVML_CLOCKS_EVENT_SYNC_BOOST     0x10ULL
#define GP_NVML_CLOCKS_EVENT_SW_THERMAL     0x20ULL
#define GP_NVML_CLOCKS_EVENT_HW_THERMAL     0x40ULL
#define GP_NVML_CLOCKS_EVENT_HW_POWER_BRAKE 0x80ULL
#define GP_NVML_CLOCKS_EVENT_DISPLAY_CLOCKS 0x100ULL

/*
 * The functions, as "X(return, name, params)": the dlopen backend declares a
 * pointer per entry, the fake defines each one.
 */
#define GP_NVML_FUNCS(X)                                                                           \
	X(nvmlReturn_t, nvmlInit_v2, (void))                                                       \
	X(nvmlReturn_t, nvmlInit, (void))                                                          \
	X(nvmlReturn_t, nvmlShutdown, (void))                                                      \
	X(const char *, nvmlErrorString, (nvmlReturn_t r))                                         \
	X(nvmlReturn_t, nvmlSystemGetDriverVersion, (char *version, unsigned int length))          \
	X(nvmlReturn_t, nvmlDeviceGetCount_v2, (unsigned int *count))                              \
	X(nvmlReturn_t, nvmlDeviceGetCount, (unsigned int *count))                                 \
	X(nvmlReturn_t, nvmlDeviceGetHandleByIndex_v2, (unsigned int i, nvmlDevice_t *dev))        \
	X(nvmlReturn_t, nvmlDeviceGetHandleByIndex, (unsigned int i, nvmlDevice_t *dev))           \
	X(nvmlReturn_t, nvmlDeviceGetName, (nvmlDevice_t dev, char *name, unsigned int length))    \
	X(nvmlReturn_t, nvmlDeviceGetUUID, (nvmlDevice_t dev, char *uuid, unsigned int length))    \
	X(nvmlReturn_t, nvmlDeviceGetPciInfo_v3, (nvmlDevice_t dev, nvmlPciInfo_t * pci))          \
	X(nvmlReturn_t, nvmlDeviceGetPciInfo_v2, (nvmlDevice_t dev, nvmlPciInfo_t * pci))          \
	X(nvmlReturn_t, nvmlDeviceGetMemoryInfo_v2, (nvmlDevice_t dev, nvmlMemory_v2_t * mem))     \
	X(nvmlReturn_t, nvmlDeviceGetMemoryInfo, (nvmlDevice_t dev, nvmlMemory_t * mem))           \
	X(nvmlReturn_t, nvmlDeviceGetUtilizationRates, (nvmlDevice_t dev, nvmlUtilization_t * u))  \
	X(nvmlReturn_t, nvmlDeviceGetClockInfo, (nvmlDevice_t dev, int type, unsigned int *mhz))   \
	X(nvmlReturn_t, nvmlDeviceGetMaxClockInfo,                                                 \
	  (nvmlDevice_t dev, int type, unsigned int *mhz))                                         \
	X(nvmlReturn_t, nvmlDeviceGetTemperatureV, (nvmlDevice_t dev, nvmlTemperature_v1_t * t))   \
	X(nvmlReturn_t, nvmlDeviceGetTemperature, (nvmlDevice_t dev, int sensor, unsigned int *c)) \
	X(nvmlReturn_t, nvmlDeviceGetTemperatureThreshold,                                         \
	  (nvmlDevice_t dev, int type, unsigned int *c))                                           \
	X(nvmlReturn_t, nvmlDeviceGetPowerUsage, (nvmlDevice_t dev, unsigned int *mw))             \
	X(nvmlReturn_t, nvmlDeviceGetEnforcedPowerLimit, (nvmlDevice_t dev, unsigned int *mw))     \
	X(nvmlReturn_t, nvmlDeviceGetTotalEnergyConsumption,                                       \
	  (nvmlDevice_t dev, unsigned long long *mj))                                              \
	X(nvmlReturn_t, nvmlDeviceGetFieldValues,                                                  \
	  (nvmlDevice_t dev, int n, nvmlFieldValue_t *values))                                     \
	X(nvmlReturn_t, nvmlDeviceGetPcieThroughput,                                               \
	  (nvmlDevice_t dev, int counter, unsigned int *kbps))                                     \
	X(nvmlReturn_t, nvmlDeviceGetCurrentClocksEventReasons,                                    \
	  (nvmlDevice_t dev, unsigned long long *reasons))                                         \
	X(nvmlReturn_t, nvmlDeviceGetCurrentClocksThrottleReasons,                                 \
	  (nvmlDevice_t dev, unsigned long long *reasons))                                         \
	X(nvmlReturn_t, nvmlDeviceGetComputeRunningProcesses_v3,                                   \
	  (nvmlDevice_t dev, unsigned int *count, nvmlProcessInfo_t *infos))                       \
	X(nvmlReturn_t, nvmlDeviceGetComputeRunningProcesses_v2,                                   \
	  (nvmlDevice_t dev, unsigned int *count, nvmlProcessInfo_t *infos))                       \
	X(nvmlReturn_t, nvmlDeviceGetComputeRunningProcesses,                                      \
	  (nvmlDevice_t dev, unsigned int *count, nvmlProcessInfo_v1_t *infos))                    \
	X(nvmlReturn_t, nvmlDeviceGetProcessUtilization,                                           \
	  (nvmlDevice_t dev, nvmlProcessUtilizationSample_t * samples, unsigned int *count,        \
	   unsigned long long last_seen_us))

#endif
