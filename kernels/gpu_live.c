/* gpu_live.c - a GPU's state now, from NVML (see gpu_live.h). NVML's entry
 * points are declared here as its documentation gives them: handles are
 * pointers, results ints (0 is NVML_SUCCESS), figures unsigned ints. A GPU
 * is found by its PCI bus id, which CUDA and NVML number alike (their
 * device indexes need not agree). */
#include "kernels/gpu_live.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gpu.h"

typedef struct nvml_device_st *nvml_device;
typedef struct {
    unsigned gpu, memory;
} nvml_utilization;

/* nvmlClockType_t and nvmlTemperatureSensors_t */
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0

/* NVML's clock event reasons (nvmlClocksEventReason*). */
#define NVML_APP_CLOCKS 0x2ull
#define NVML_SW_POWER_CAP 0x4ull
#define NVML_HW_SLOWDOWN 0x8ull
#define NVML_SW_THERMAL 0x20ull
#define NVML_HW_THERMAL 0x40ull
#define NVML_HW_POWER_BRAKE 0x80ull

#define NVML_FUNCTIONS(X)                                                                            \
    X(int, nvmlInit_v2, (void))                                                                      \
    X(const char *, nvmlErrorString, (int))                                                          \
    X(int, nvmlDeviceGetHandleByPciBusId_v2, (const char *, nvml_device *))                          \
    X(int, nvmlDeviceGetUtilizationRates, (nvml_device, nvml_utilization *))                         \
    X(int, nvmlDeviceGetClockInfo, (nvml_device, int, unsigned *))                                   \
    X(int, nvmlDeviceGetMaxClockInfo, (nvml_device, int, unsigned *))                                \
    X(int, nvmlDeviceGetPowerUsage, (nvml_device, unsigned *))                                       \
    X(int, nvmlDeviceGetEnforcedPowerLimit, (nvml_device, unsigned *))                               \
    X(int, nvmlDeviceGetTemperature, (nvml_device, int, unsigned *))

/* The reasons' function was renamed (ClocksThrottleReasons, then
 * ClocksEventReasons); a driver has one or both. */
typedef int (*reasons_fn)(nvml_device, unsigned long long *);

static struct {
#define NVML_POINTER(ret, f, args) ret(*f) args;
    NVML_FUNCTIONS(NVML_POINTER)
#undef NVML_POINTER
    reasons_fn reasons;
    int state;              /* 0 not tried, 1 loaded, -1 failed (why) */
    char why[300];
    nvml_device dev[GPU_MAX_DEVICES];
    int looked[GPU_MAX_DEVICES]; /* 1 found, -1 not found (dev_why) */
    char dev_why[GPU_MAX_DEVICES][160];
    unsigned seen;          /* reasons seen since gpu_live_mark */
} N;

static int load(void)
{
    const char *env = getenv("CUK_NVML"), *file = env && *env ? env : "libnvidia-ml.so.1";
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *err = dlerror();
        snprintf(N.why, sizeof N.why, "NVML cannot be loaded (%s: %s)", file, err ? err : "unknown error");
        return -1;
    }
#define NVML_FIND(ret, f, args)                                                                     \
    if (!(*(void **)&N.f = dlsym(h, #f))) {                                                         \
        snprintf(N.why, sizeof N.why, "NVML (%s) has no %s: the driver is too old", file, #f);      \
        return -1;                                                                                  \
    }
    NVML_FUNCTIONS(NVML_FIND)
#undef NVML_FIND
    if (!(*(void **)&N.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons")))
        *(void **)&N.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
    int r = N.nvmlInit_v2();
    if (r != 0) {
        snprintf(N.why, sizeof N.why, "NVML does not start: %s", N.nvmlErrorString(r));
        return -1;
    }
    return 0;
}

/* GPU g's NVML handle, found by its bus id the first time. */
static int device(int g, nvml_device *d, const char **why)
{
    char bus[32];
    if (N.state == 0)
        N.state = load() == 0 ? 1 : -1;
    if (N.state < 0) {
        *why = N.why;
        return -1;
    }
    if (g < 0 || g >= GPU_MAX_DEVICES) {
        *why = "there is no such GPU";
        return -1;
    }
    if (N.looked[g] == 0) {
        int r = -1;
        N.looked[g] = -1;
        if (gpu_pci_bus_id(g, bus, sizeof bus) != 0)
            snprintf(N.dev_why[g], sizeof N.dev_why[g], "CUDA has no GPU %d", g);
        else if ((r = N.nvmlDeviceGetHandleByPciBusId_v2(bus, &N.dev[g])) != 0)
            snprintf(N.dev_why[g], sizeof N.dev_why[g], "NVML does not know GPU %d (%s): %s", g, bus,
                     N.nvmlErrorString(r));
        else
            N.looked[g] = 1;
    }
    *why = N.dev_why[g];
    *d = N.dev[g];
    return N.looked[g] > 0 ? 0 : -1;
}

/* NVML's reasons in cuk's bits. */
static unsigned slow_bits(unsigned long long r)
{
    return (r & NVML_SW_POWER_CAP ? GPU_SLOW_POWER : 0) |
           (r & (NVML_SW_THERMAL | NVML_HW_THERMAL) ? GPU_SLOW_THERMAL : 0) |
           (r & (NVML_HW_SLOWDOWN | NVML_HW_POWER_BRAKE) ? GPU_SLOW_HARDWARE : 0) |
           (r & NVML_APP_CLOCKS ? GPU_SLOW_SETTING : 0);
}

/* Why d's clocks are down now, also kept for gpu_live_slowed_since. */
static unsigned slow_now(nvml_device d)
{
    unsigned long long reasons = 0;
    unsigned slow = N.reasons && N.reasons(d, &reasons) == 0 ? slow_bits(reasons) : 0;
    N.seen |= slow;
    return slow;
}

/* Each figure is read on its own: one NVML does not give (power on some
 * boards) leaves the others. */
int gpu_live_read(int g, gpu_live *out, const char **why)
{
    nvml_device d;
    nvml_utilization u = {0, 0};
    unsigned mw = 0, limit = 0;
    memset(out, 0, sizeof *out);
    if (device(g, &d, why) != 0)
        return -1;
    if (N.nvmlDeviceGetUtilizationRates(d, &u) == 0)
        out->util_gpu = u.gpu, out->util_mem = u.memory;
    N.nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &out->sm_mhz);
    N.nvmlDeviceGetMaxClockInfo(d, NVML_CLOCK_SM, &out->sm_max_mhz);
    N.nvmlDeviceGetClockInfo(d, NVML_CLOCK_MEM, &out->mem_mhz);
    if (N.nvmlDeviceGetPowerUsage(d, &mw) == 0)
        out->power_w = mw / 1e3;
    if (N.nvmlDeviceGetEnforcedPowerLimit(d, &limit) == 0)
        out->limit_w = limit / 1e3;
    N.nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &out->temp_c);
    out->slow = slow_now(d);
    return 0;
}

void gpu_live_mark(void) { N.seen = 0; }

unsigned gpu_live_slowed_since(int g)
{
    nvml_device d;
    const char *why;
    if (g >= 0 && device(g, &d, &why) == 0)
        slow_now(d);
    return N.seen;
}
