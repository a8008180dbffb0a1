/*
 * A stand-in for libnvidia-ml.so.1 that pretends to be two H200s, for
 * tests of benchseal's NVML path through a real dynamically loaded
 * library. It exports the functions benchseal calls with nvml.h's
 * signatures (go-nvml v0.13.4-1, pkg/nvml/nvml.h); nothing else.
 *
 * Readings (GPU i = 0 or 1, tick k read from $NVMLSTUB_TICK at each call, 0
 * when unset):
 *   utilization 10*i+k %, memory utilization i %, memory used (i+1) GiB +
 *   k MiB of 144384 MiB, power 100*(i+1)+k W, temperature 40 C (the
 *   deprecated nvmlDeviceGetTemperature says 99: a caller that uses it when
 *   nvmlDeviceGetTemperatureV exists is caught), SM clock 1980 MHz (max
 *   1980), memory clock 2619 MHz (max 3201), power limit 700 W, persistence
 *   and ECC on (GPU 1: ECC and serial not supported), MIG off, compute mode
 *   default, GPU 0 runs pid 4242 with 70 GiB, graphics processes not
 *   supported (GPU 0) and refused (GPU 1: NVML_ERROR_NO_PERMISSION, as in
 *   a container without the right to list them). nvmlErrorString answers
 *   the driver library's own texts.
 *
 * Built with -DOLD_DRIVER it is a driver before R450: no
 * nvmlDeviceGetMigMode, no nvmlDeviceGetTemperatureV (the deprecated call
 * answers 41 then), and only the v1 process lists. Built with
 * -DNO_TEMPERATURE it has no temperature function at all. Built with
 * -DDRIVER_NOT_LOADED it is a library whose kernel driver is not loaded:
 * nvmlInit answers NVML_ERROR_DRIVER_NOT_LOADED.
 */
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

enum { OK = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3, NO_PERMISSION = 4, INSUFFICIENT_SIZE = 7, NOT_LOADED = 9 };

struct nvmlDevice_st { int index; };
static struct nvmlDevice_st devices[2] = {{0}, {1}};
static int initialised;

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; } nvmlProcessInfo_v1_t;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; unsigned int gpuInstanceId, computeInstanceId; } nvmlProcessInfo_t;
typedef struct { unsigned int version; int sensorType; int temperature; } nvmlTemperature_t;

static unsigned ticks(void) {
    const char *t = getenv("NVMLSTUB_TICK");
    return t ? (unsigned)atoi(t) : 0;
}

static int idx(nvmlDevice_t d) {
    if (d == &devices[0]) return 0;
    if (d == &devices[1]) return 1;
    return -1;
}
#define DEV(d) int i = idx(d); if (i < 0) return INVALID_ARGUMENT; if (!initialised) return UNINITIALIZED

#ifdef DRIVER_NOT_LOADED
nvmlReturn_t nvmlInit_v2(void) { return NOT_LOADED; }
nvmlReturn_t nvmlInit(void) { return NOT_LOADED; }
#else
nvmlReturn_t nvmlInit_v2(void) { initialised = 1; return OK; }
nvmlReturn_t nvmlInit(void) { initialised = 1; return OK; }
#endif
nvmlReturn_t nvmlShutdown(void) { if (!initialised) return UNINITIALIZED; initialised = 0; return OK; }
const char *nvmlErrorString(nvmlReturn_t r) {
    switch (r) {
    case OK: return "Success";
    case UNINITIALIZED: return "Uninitialized";
    case INVALID_ARGUMENT: return "Invalid Argument";
    case NOT_SUPPORTED: return "Not Supported";
    case NO_PERMISSION: return "Insufficient Permissions";
    case INSUFFICIENT_SIZE: return "Insufficient Size";
    case NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n) { *n = 2; return OK; }
nvmlReturn_t nvmlSystemGetDriverVersion(char *b, unsigned n) { strncpy(b, "550.54.15", n); return OK; }
nvmlReturn_t nvmlSystemGetNVMLVersion(char *b, unsigned n) { strncpy(b, "12.550.54.15", n); return OK; }
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) { *v = 12040; return OK; }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d) {
    if (i >= 2) return INVALID_ARGUMENT;
    *d = &devices[i];
    return OK;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *b, unsigned n) { DEV(d); strncpy(b, "NVIDIA H200", n); return OK; }
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *b, unsigned n) {
    DEV(d);
    strncpy(b, i == 0 ? "GPU-11111111-2222-3333-4444-555555555555" : "GPU-66666666-7777-8888-9999-000000000000", n);
    return OK;
}
nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t d, char *b, unsigned n) {
    DEV(d);
    if (i == 1) return NOT_SUPPORTED;
    strncpy(b, "1650124000001", n);
    return OK;
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) {
    DEV(d);
    memset(p, 0, sizeof *p);
    strcpy(p->busId, i == 0 ? "00000000:18:00.0" : "00000000:2A:00.0");
    strcpy(p->busIdLegacy, i == 0 ? "0000:18:00.0" : "0000:2A:00.0");
    return OK;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
    DEV(d);
    m->total = 144384ULL << 20;
    m->used = ((unsigned long long)(i + 1) << 30) + ((unsigned long long)ticks() << 20);
    m->free = m->total - m->used;
    return OK;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u) { DEV(d); u->gpu = 10 * i + ticks(); u->memory = i; return OK; }
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw) { DEV(d); *mw = (100 * (i + 1) + ticks()) * 1000; return OK; }
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d, unsigned *mw) { DEV(d); *mw = 700000; return OK; }
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *c) { DEV(d); *c = type == 1 ? 1980 : 2619; return OK; }
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned *c) { DEV(d); *c = type == 1 ? 1980 : 3201; return OK; }
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int *m) { DEV(d); *m = 1; return OK; }
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, int *cur, int *pending) {
    DEV(d);
    if (i == 1) return NOT_SUPPORTED;
    *cur = *pending = 1;
    return OK;
}
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, int *m) { DEV(d); *m = 0; return OK; }

#ifndef NO_TEMPERATURE
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *t) {
    DEV(d);
    if (sensor != 0) return INVALID_ARGUMENT;
#ifdef OLD_DRIVER
    *t = 41;
#else
    *t = 99;
#endif
    return OK;
}
#endif

/* Processes: the caller asks for the count with *n == 0 first. */
#define PROCS(T)                                                     \
    DEV(d);                                                          \
    unsigned want = i == 0 ? 1 : 0;                                  \
    if (*n < want) { *n = want; return INSUFFICIENT_SIZE; }          \
    *n = want;                                                       \
    if (want) { memset(&p[0], 0, sizeof p[0]); p[0].pid = 4242; p[0].usedGpuMemory = 70ULL << 30; } \
    return OK

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned *n, nvmlProcessInfo_v1_t *p) { PROCS(nvmlProcessInfo_v1_t); }
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t d, unsigned *n, nvmlProcessInfo_v1_t *p) { DEV(d); (void)n; (void)p; return i == 1 ? NO_PERMISSION : NOT_SUPPORTED; }

#if !defined(OLD_DRIVER) && !defined(NO_TEMPERATURE)
nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t d, nvmlTemperature_t *t) {
    DEV(d);
    if (t->version != (sizeof(nvmlTemperature_t) | 1u << 24) || t->sensorType != 0) return 25; /* ARGUMENT_VERSION_MISMATCH */
    t->temperature = 40;
    return OK;
}
#endif

#ifndef OLD_DRIVER
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned *cur, unsigned *pending) { DEV(d); *cur = *pending = 0; return OK; }
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *n, nvmlProcessInfo_t *p) { PROCS(nvmlProcessInfo_t); }
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned *n, nvmlProcessInfo_t *p) { DEV(d); (void)n; (void)p; return i == 1 ? NO_PERMISSION : NOT_SUPPORTED; }
#endif
