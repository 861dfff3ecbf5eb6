/* gpu_counters.cu - the hardware counters of `count` (kernels/gpu.h):
 * CUPTI's range profiler in its automatic mode, one range per kernel, each
 * kernel replayed by CUPTI (its memory put back between the runs) until
 * every counter asked for has been read.
 *
 * CUPTI is not linked: it is opened with dlopen the first time counters are
 * asked for, like cuBLAS (gpu_cublas.cu), and every function this file calls
 * is a pointer in one table, `api`. Its host half (which metrics a chip
 * knows, the configuration, the arithmetic from counters to metrics) needs
 * no GPU, so the metric names are checked where there is none.
 *
 * Counting goes in segments. A segment enables the profiler on each GPU
 * counted and ends, its ranges decoded, named and the profiler disabled,
 * at a hold (set-up, NCCL) and after every library call. CUPTI numbers a
 * GPU's ranges in the order its kernels ran and knows no names; cuk knows
 * the order of its own launches (gpu_launched) but not how many kernels a
 * library call launches. Ending the segment after each library call makes
 * that count what is left over: a segment's ranges on a GPU are cuk's
 * launches there, in order, and then the library call's kernels. */
#include "kernels/gpu_internal.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include "base/error.h"

/* --- the library, loaded on first use ------------------------------------- */

#define CUPTI_FUNCTIONS(X)                                                                                      \
    X(cuptiGetResultString) X(cuptiProfilerInitialize) X(cuptiDeviceGetChipName)                                \
    X(cuptiProfilerGetCounterAvailability) X(cuptiProfilerDeviceSupported) X(cuptiProfilerHostInitialize)        \
    X(cuptiProfilerHostDeinitialize) X(cuptiProfilerHostGetMetricProperties) X(cuptiProfilerHostConfigAddMetrics) \
    X(cuptiProfilerHostGetConfigImageSize) X(cuptiProfilerHostGetConfigImage) X(cuptiProfilerHostGetNumOfPasses) \
    X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiRangeProfilerEnable) X(cuptiRangeProfilerDisable)             \
    X(cuptiRangeProfilerGetCounterDataSize) X(cuptiRangeProfilerCounterDataImageInitialize)                      \
    X(cuptiRangeProfilerSetConfig) X(cuptiRangeProfilerStart) X(cuptiRangeProfilerStop)                         \
    X(cuptiRangeProfilerDecodeData) X(cuptiRangeProfilerGetCounterDataInfo)

/* A pointer of each function's own type, named as the function. */
static struct {
#define API_POINTER(f) decltype(&::f) f;
    CUPTI_FUNCTIONS(API_POINTER)
#undef API_POINTER
} api;

/* cuCtxGetCurrent, from the driver the runtime opened: the profiler is
 * enabled on a CUDA context, which the runtime does not name. */
typedef CUresult (*ctx_get_fn)(CUcontext *);

static struct {
    int state;          /* 0 not tried, 1 loaded, -1 failed (why says why) */
    char why[400];
    int target;         /* the profiler on the GPUs: 0 not tried, 1 ready, -1 not (target_why) */
    gpu_counters_status target_status;
    char target_why[400];
    ctx_get_fn ctx_get;
    int deny;           /* gpu_counters_test_deny */
} loader;

/* dlopen CUPTI (CUK_CUPTI names another file) and find every function. */
static int load_all(void)
{
    char file[64];
    const char *env = getenv("CUK_CUPTI");
    snprintf(file, sizeof file, "libcupti.so.%d", CUDART_VERSION / 1000);
    const char *name = env && *env ? env : file;
    void *h = gpu_dlopen(name, loader.why, sizeof loader.why);
    if (!h)
        return -1;
#define API_FIND(f)                                                                                           \
    if (!(*(void **)&api.f = dlsym(h, #f))) {                                                                  \
        snprintf(loader.why, sizeof loader.why, "cannot use %s: it has no %s (cuk was built against CUPTI %d)", \
                 name, #f, CUPTI_API_VERSION);                                                                \
        return -1;                                                                                            \
    }
    CUPTI_FUNCTIONS(API_FIND)
#undef API_FIND
    return 0;
}

static int cupti_load(void)
{
    if (loader.state == 0) {
        loader.state = load_all() == 0 ? 1 : -1;
        if (loader.state < 0)
            memset(&api, 0, sizeof api);
    }
    return loader.state > 0;
}

/* CUPTI's name for a result, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES". */
static const char *result_name(CUptiResult r)
{
    const char *s = NULL;
    if (loader.state <= 0 || api.cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        return "an unknown CUPTI result";
    return s;
}

/* What a CUPTI result means for `count`. */
static gpu_counters_status status_of(CUptiResult r)
{
    switch (r) {
    case CUPTI_SUCCESS:
        return GPU_COUNTERS_OK;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return GPU_COUNTERS_DENIED;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
        return GPU_COUNTERS_UNSUPPORTED;
    default:
        return GPU_COUNTERS_FAILED;
    }
}

/* *detail = "CALL: RESULT"; the status the result means. */
static gpu_counters_status failed(CUptiResult r, const char *call, char *detail, size_t cap)
{
    snprintf(detail, cap, "%s: %s", call, result_name(r));
    return status_of(r);
}

/* Evaluate a CUPTI call in a function that returns a status, with detail
 * and cap in scope; return the status of a failure. */
#define CUPTI_TRY(call)                                                     \
    do {                                                                    \
        CUptiResult cupti_r_ = (call);                                      \
        if (cupti_r_ != CUPTI_SUCCESS)                                      \
            return failed(cupti_r_, #call, detail, cap);                    \
    } while (0)

/* The parameter struct of a CUPTI call, zeroed, with its size set. */
#define CUPTI_PARAMS(type, var) \
    type var;                   \
    memset(&var, 0, sizeof var); \
    var.structSize = type##_STRUCT_SIZE

/* --- the host half: configurations, evaluation --------------------------------- */

static void host_close(CUpti_Profiler_Host_Object *h)
{
    if (!h)
        return;
    CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params, p);
    p.pHostObject = h;
    api.cuptiProfilerHostDeinitialize(&p);
}

static gpu_counters_status host_open(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **h,
                                     char *detail, size_t cap)
{
    CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params, p);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip;
    p.pCounterAvailabilityImage = avail;
    CUPTI_TRY(api.cuptiProfilerHostInitialize(&p));
    *h = p.pHostObject;
    return GPU_COUNTERS_OK;
}

static int metric_known(CUpti_Profiler_Host_Object *h, const char *name)
{
    CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params, p);
    p.pHostObject = h;
    p.pMetricName = name;
    return api.cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS;
}

/* The configuration that reads names[0..n) into *image (malloc'd, *size
 * bytes), and how many runs of a kernel it takes. */
static gpu_counters_status config_build(CUpti_Profiler_Host_Object *h, const char **names, int n, uint8_t **image,
                                        size_t *size, int *passes, char *detail, size_t cap)
{
    *image = NULL;
    CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
    add.pHostObject = h;
    add.ppMetricNames = names;
    add.numMetrics = (size_t)n;
    CUPTI_TRY(api.cuptiProfilerHostConfigAddMetrics(&add));
    CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, sz);
    sz.pHostObject = h;
    CUPTI_TRY(api.cuptiProfilerHostGetConfigImageSize(&sz));
    if (!(*image = (uint8_t *)calloc(1, sz.configImageSize ? sz.configImageSize : 1))) {
        snprintf(detail, cap, "out of host memory for CUPTI's configuration");
        return GPU_COUNTERS_FAILED;
    }
    *size = sz.configImageSize;
    CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, get);
    get.pHostObject = h;
    get.configImageSize = *size;
    get.pConfigImage = *image;
    CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, np);
    np.configImageSize = *size;
    np.pConfigImage = *image;
    CUptiResult r = api.cuptiProfilerHostGetConfigImage(&get);
    if (r == CUPTI_SUCCESS)
        r = api.cuptiProfilerHostGetNumOfPasses(&np);
    if (r != CUPTI_SUCCESS) {
        free(*image);
        *image = NULL;
        return failed(r, "cuptiProfilerHostGetConfigImage", detail, cap);
    }
    *passes = (int)np.numOfPasses;
    return GPU_COUNTERS_OK;
}

extern "C" int gpu_counters_known(const char *chip, const gpu_metric *metrics, int n, int *unknown, int *passes,
                                  char *detail, size_t cap)
{
    CUpti_Profiler_Host_Object *h = NULL;
    const char *names[GPU_COUNTERS_METRICS];
    uint8_t *image;
    size_t size;
    int known = 0;
    char chip0[64];
    *unknown = -1;
    *passes = 0;
    if (!cupti_load()) {
        snprintf(detail, cap, "%s", loader.why);
        return -1;
    }
    if (!chip) {
        CUPTI_PARAMS(CUpti_Device_GetChipName_Params, cn);
        cn.deviceIndex = 0;
        const char *why;
        if (!gpu_usable(&why)) {
            snprintf(detail, cap, "%s", why);
            return -1;
        }
        CUptiResult r = api.cuptiDeviceGetChipName(&cn);
        if (r != CUPTI_SUCCESS || !cn.pChipName) {
            failed(r, "cuptiDeviceGetChipName", detail, cap);
            return -1;
        }
        snprintf(chip0, sizeof chip0, "%s", cn.pChipName);
        chip = chip0;
    }
    if (host_open(chip, NULL, &h, detail, cap) != GPU_COUNTERS_OK)
        return -1;
    n = n < GPU_COUNTERS_METRICS ? n : GPU_COUNTERS_METRICS;
    for (int i = 0; i < n; i++) {
        if (metric_known(h, metrics[i].name))
            names[known++] = metrics[i].name;
        else if (*unknown < 0)
            *unknown = i;
    }
    gpu_counters_status st = known ? config_build(h, names, known, &image, &size, passes, detail, cap)
                                   : GPU_COUNTERS_OK;
    host_close(h);
    if (st != GPU_COUNTERS_OK)
        return -1;
    if (known)
        free(image);
    return known;
}

/* --- the GPUs counted ----------------------------------------------------------- */

/* Room for a failure's words: as long as the error slot's message. */
#define DETAIL sizeof cuk_err_get()->msg

/* Kernels a segment holds on one GPU; the segment ends early, before
 * CUPTI would drop ranges, once cuk's launches reach SEG_CYCLE (a library
 * call's kernels come on top). */
#define SEG_RANGES 64
#define SEG_CYCLE 48

typedef struct {
    const char *name;         /* gpu_launched's or gpu_count_call's (string literals) */
    int library;              /* the kernels left over in the segment are this call's */
    double theory_pct;
} launch_entry;

/* What each GPU counted has of its own. */
typedef struct {
    int dev;
    CUcontext ctx;
    char chip[64];
    uint8_t *avail;           /* counter availability, read before any session */
    int max_warps;            /* per SM */
    /* The configuration, and what it was built for: */
    CUpti_Profiler_Host_Object *host;
    const gpu_metric *for_metrics;
    int for_n, for_optional;
    uint8_t *config;
    size_t config_size;
    int passes;
    const char *names[GPU_COUNTERS_METRICS]; /* in the configuration: required first */
    int slot[GPU_COUNTERS_METRICS];          /* names[j] is metric slot[j] */
    int nnames, nrequired;
    /* The open segment: */
    uint8_t *image;
    size_t image_cap, image_size;
    CUpti_RangeProfiler_Object *rp;
    launch_entry log[SEG_RANGES];
    int nlog;
} counted_gpu;

static struct {
    counted_gpu g[GPU_MAX_DEVICES];
    int ng;                   /* GPUs counted now */
    const gpu_metric *metrics;
    int n;
    int optional;             /* the optional metrics are in the configurations */
    int held;
    int failed;               /* CUPTI failed while counting: err says how */
    char err[DETAIL];
    gpu_counter_row rows[GPU_COUNTERS_ROWS];
    gpu_counter_summary sum;
} C;

/* Read by gpu_launched and gpu_count_call at every launch (gpu_internal.h). */
extern "C" {
int gpu_counters_on = 0;
}

extern "C" int gpu_counting(void) { return gpu_counters_on; }

extern "C" void gpu_counters_test_deny(int on) { loader.deny = on; }

static counted_gpu *counted(int dev)
{
    for (int i = 0; i < C.ng; i++)
        if (C.g[i].dev == dev)
            return &C.g[i];
    return NULL;
}

/* The driver's current context after gpu_select(dev): the device's primary one. */
static gpu_counters_status context_of(counted_gpu *d, char *detail, size_t cap)
{
    cudaDriverEntryPointQueryResult found;
    if (!loader.ctx_get) {
        cudaError_t err = cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&loader.ctx_get, 12000,
                                                           cudaEnableDefault, &found);
        if (err != cudaSuccess || found != cudaDriverEntryPointSuccess) {
            cudaGetLastError();
            loader.ctx_get = NULL;
            snprintf(detail, cap, "the CUDA driver has no cuCtxGetCurrent");
            return GPU_COUNTERS_FAILED;
        }
    }
    if (gpu_select(d->dev) != 0) {
        snprintf(detail, cap, "%s", cuk_err_get()->msg);
        cuk_err_clear();
        return GPU_COUNTERS_FAILED;
    }
    CUresult r = loader.ctx_get(&d->ctx);
    if (r != CUDA_SUCCESS || !d->ctx) {
        snprintf(detail, cap, "GPU %d has no CUDA context (cuCtxGetCurrent: %d)", d->dev, (int)r);
        return GPU_COUNTERS_FAILED;
    }
    return GPU_COUNTERS_OK;
}

/* CUPTI on the GPUs, once: the profiler's hooks, and whether GPU 0 can be
 * profiled at all (architecture, vGPU, MIG, confidential computing...). */
static gpu_counters_status target_ready(char *detail, size_t cap)
{
    if (loader.target == 0) {
        loader.target = -1;
        loader.target_status = GPU_COUNTERS_FAILED;
        CUPTI_PARAMS(CUpti_Profiler_Initialize_Params, init);
        CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params, sup);
        sup.cuDevice = 0;
        sup.api = CUPTI_PROFILER_RANGE_PROFILING;
        CUptiResult r = api.cuptiProfilerInitialize(&init);
        const char *call = "cuptiProfilerInitialize";
        if (r == CUPTI_SUCCESS) {
            r = api.cuptiProfilerDeviceSupported(&sup);
            call = "cuptiProfilerDeviceSupported";
        }
        if (r != CUPTI_SUCCESS) {
            loader.target_status = failed(r, call, loader.target_why, sizeof loader.target_why);
        } else if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
            const char *what = sup.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "its architecture"
                               : sup.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED   ? "profiling is disabled on this vGPU"
                               : sup.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED  ? "this vGPU"
                               : sup.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                                   ? "confidential computing is on"
                               : sup.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "SLI is on"
                               : sup.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "it is a mining processor (CMP)"
                               : sup.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "WSL"
                                                                                    : "this configuration";
            snprintf(loader.target_why, sizeof loader.target_why, "CUPTI cannot profile GPU 0: %s", what);
            loader.target_status = GPU_COUNTERS_UNSUPPORTED;
        } else {
            loader.target = 1;
            loader.target_status = GPU_COUNTERS_OK;
        }
    }
    if (loader.target < 0)
        snprintf(detail, cap, "%s", loader.target_why);
    return loader.target_status;
}

static gpu_counters_status deny(char *detail, size_t cap)
{
    snprintf(detail, cap, "cuptiRangeProfilerStart: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
    return GPU_COUNTERS_DENIED;
}

extern "C" gpu_counters_status gpu_counters_check(char *detail, size_t cap)
{
    const char *why;
    detail[0] = '\0';
    if (loader.deny)
        return deny(detail, cap);
    if (!gpu_usable(&why)) {
        snprintf(detail, cap, "%s", why);
        return GPU_COUNTERS_NO_GPU;
    }
    if (!cupti_load()) {
        snprintf(detail, cap, "%s", loader.why);
        return GPU_COUNTERS_NO_LIBRARY;
    }
    return target_ready(detail, cap);
}

/* GPU d's chip name, counter availability and warps per SM, read once:
 * before a session is open on it (the availability cannot be read then). */
static gpu_counters_status gpu_facts_read(counted_gpu *d, char *detail, size_t cap)
{
    if (d->avail)
        return GPU_COUNTERS_OK;
    CUPTI_PARAMS(CUpti_Device_GetChipName_Params, cn);
    cn.deviceIndex = (size_t)d->dev;
    CUPTI_TRY(api.cuptiDeviceGetChipName(&cn));
    snprintf(d->chip, sizeof d->chip, "%s", cn.pChipName ? cn.pChipName : "");
    CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, ca);
    ca.ctx = d->ctx;
    CUPTI_TRY(api.cuptiProfilerGetCounterAvailability(&ca));
    uint8_t *avail = (uint8_t *)calloc(1, ca.counterAvailabilityImageSize ? ca.counterAvailabilityImageSize : 1);
    if (!avail) {
        snprintf(detail, cap, "out of host memory");
        return GPU_COUNTERS_FAILED;
    }
    ca.pCounterAvailabilityImage = avail;
    CUptiResult r = api.cuptiProfilerGetCounterAvailability(&ca);
    if (r != CUPTI_SUCCESS) {
        free(avail);
        return failed(r, "cuptiProfilerGetCounterAvailability", detail, cap);
    }
    d->avail = avail;
    int threads = 0;
    if (cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, d->dev) != cudaSuccess)
        cudaGetLastError();
    d->max_warps = threads / 32;
    return GPU_COUNTERS_OK;
}

static void config_drop(counted_gpu *d)
{
    host_close(d->host);
    free(d->config);
    d->host = NULL;
    d->config = NULL;
    d->for_metrics = NULL;
}

/* GPU d's configuration for the metrics being counted (with or without the
 * optional ones), built when it was built for others. Metrics the chip does
 * not know are left out: their values stay NaN. */
static gpu_counters_status config_ready(counted_gpu *d, char *detail, size_t cap)
{
    if (d->for_metrics == C.metrics && d->for_n == C.n && d->for_optional == C.optional)
        return GPU_COUNTERS_OK;
    config_drop(d);
    gpu_counters_status st = host_open(d->chip, d->avail, &d->host, detail, cap);
    if (st != GPU_COUNTERS_OK)
        return st;
    d->nnames = d->nrequired = 0;
    for (int pass = 0; pass < 2; pass++) /* the required metrics first */
        for (int i = 0; i < C.n; i++) {
            if (C.metrics[i].optional != pass || (pass && !C.optional) || !metric_known(d->host, C.metrics[i].name))
                continue;
            d->slot[d->nnames] = i;
            d->names[d->nnames++] = C.metrics[i].name;
            if (!pass)
                d->nrequired = d->nnames;
        }
    if (d->nnames == 0) {
        snprintf(detail, cap, "CUPTI knows none of the metrics asked for on %s", d->chip);
        return GPU_COUNTERS_UNSUPPORTED;
    }
    st = config_build(d->host, d->names, d->nnames, &d->config, &d->config_size, &d->passes, detail, cap);
    if (st != GPU_COUNTERS_OK) {
        config_drop(d);
        return st;
    }
    d->for_metrics = C.metrics, d->for_n = C.n, d->for_optional = C.optional;
    return GPU_COUNTERS_OK;
}

/* --- segments -------------------------------------------------------------------- */

/* Profiling on, on GPU d: the profiler enabled on its context, a counter
 * image for SEG_RANGES ranges, the configuration set, started. */
static gpu_counters_status gpu_open(counted_gpu *d, char *detail, size_t cap)
{
    if (gpu_select(d->dev) != 0) {
        snprintf(detail, cap, "%s", cuk_err_get()->msg);
        cuk_err_clear();
        return GPU_COUNTERS_FAILED;
    }
    CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, en);
    en.ctx = d->ctx;
    CUPTI_TRY(api.cuptiRangeProfilerEnable(&en));
    d->rp = en.pRangeProfilerObject;
    d->nlog = 0;
    CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, ds);
    ds.pRangeProfilerObject = d->rp;
    ds.pMetricNames = d->names;
    ds.numMetrics = (size_t)d->nnames;
    ds.maxNumOfRanges = SEG_RANGES;
    ds.maxNumRangeTreeNodes = SEG_RANGES;
    CUPTI_TRY(api.cuptiRangeProfilerGetCounterDataSize(&ds));
    if (ds.counterDataSize > d->image_cap) {
        uint8_t *grown = (uint8_t *)realloc(d->image, ds.counterDataSize);
        if (!grown) {
            snprintf(detail, cap, "out of host memory for CUPTI's counter data");
            return GPU_COUNTERS_FAILED;
        }
        d->image = grown;
        d->image_cap = ds.counterDataSize;
    }
    d->image_size = ds.counterDataSize;
    memset(d->image, 0, d->image_size);
    CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, ci);
    ci.pRangeProfilerObject = d->rp;
    ci.counterDataSize = d->image_size;
    ci.pCounterData = d->image;
    CUPTI_TRY(api.cuptiRangeProfilerCounterDataImageInitialize(&ci));
    CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, sc);
    sc.pRangeProfilerObject = d->rp;
    sc.configSize = d->config_size;
    sc.pConfig = d->config;
    sc.counterDataImageSize = d->image_size;
    sc.pCounterDataImage = d->image;
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = SEG_RANGES;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CUPTI_TRY(api.cuptiRangeProfilerSetConfig(&sc));
    CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, st);
    st.pRangeProfilerObject = d->rp;
    CUPTI_TRY(api.cuptiRangeProfilerStart(&st));
    return GPU_COUNTERS_OK;
}

/* The next row, or NULL when they are all taken (the kernel is counted as
 * dropped). */
static gpu_counter_row *row_next(void)
{
    if (C.sum.nrows == GPU_COUNTERS_ROWS) {
        C.sum.dropped++;
        return NULL;
    }
    gpu_counter_row *r = &C.rows[C.sum.nrows++];
    memset(r, 0, sizeof *r);
    r->theory_pct = NAN;
    for (int i = 0; i < GPU_COUNTERS_METRICS; i++)
        r->value[i] = NAN;
    return r;
}

/* Metrics names[from .. to) of range i of GPU d's image into row. */
static CUptiResult evaluate(counted_gpu *d, size_t i, int from, int to, gpu_counter_row *row)
{
    double v[GPU_COUNTERS_METRICS];
    if (to <= from)
        return CUPTI_SUCCESS;
    CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
    ev.pHostObject = d->host;
    ev.pCounterDataImage = d->image;
    ev.counterDataImageSize = d->image_size;
    ev.rangeIndex = i;
    ev.ppMetricNames = d->names + from;
    ev.numMetrics = (size_t)(to - from);
    ev.pMetricValues = v;
    CUptiResult r = api.cuptiProfilerHostEvaluateToGpuValues(&ev);
    if (r == CUPTI_SUCCESS)
        for (int j = from; j < to; j++)
            row->value[d->slot[j]] = v[j - from];
    return r;
}

/* Name range i of n on GPU d from the segment's log: cuk's launches, in
 * order, then the library call's kernels; past those, a kernel cuk did not
 * launch through either (none is expected). */
static void name_range(const counted_gpu *d, int i, gpu_counter_row *row)
{
    int ours = d->nlog - (d->nlog > 0 && d->log[d->nlog - 1].library);
    const launch_entry *e = i < ours ? &d->log[i] : ours < d->nlog ? &d->log[d->nlog - 1] : NULL;
    snprintf(row->name, sizeof row->name, "%s", e ? e->name : "(a kernel cuk did not launch)");
    row->theory_pct = e ? e->theory_pct : NAN;
    row->gpu = d->dev;
    C.sum.unnamed += !e;
}

/* The segment's kernels on GPU d, decoded into rows. */
static gpu_counters_status gpu_collect(counted_gpu *d, char *detail, size_t cap)
{
    CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, dd);
    dd.pRangeProfilerObject = d->rp;
    CUPTI_TRY(api.cuptiRangeProfilerDecodeData(&dd));
    C.sum.dropped += (int)dd.numOfRangeDropped;
    CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
    info.pCounterDataImage = d->image;
    info.counterDataImageSize = d->image_size;
    CUPTI_TRY(api.cuptiRangeProfilerGetCounterDataInfo(&info));
    int ours = d->nlog - (d->nlog > 0 && d->log[d->nlog - 1].library);
    if ((int)info.numTotalRanges < ours) /* cuk's launches CUPTI has no range for */
        C.sum.dropped += ours - (int)info.numTotalRanges;
    for (size_t i = 0; i < info.numTotalRanges; i++) {
        gpu_counter_row *row = row_next();
        if (!row)
            continue;
        name_range(d, (int)i, row);
        CUPTI_TRY(evaluate(d, i, 0, d->nrequired, row));
        evaluate(d, i, d->nrequired, d->nnames, row); /* optional: NaN if it cannot be read */
    }
    C.sum.passes = d->passes > C.sum.passes ? d->passes : C.sum.passes;
    return GPU_COUNTERS_OK;
}

/* Profiling off on GPU d, its kernels collected when it has logged any
 * (and collect is set); the profiler is disabled whatever failed. */
static gpu_counters_status gpu_close(counted_gpu *d, int collect, char *detail, size_t cap)
{
    gpu_counters_status st = GPU_COUNTERS_OK;
    if (!d->rp)
        return st;
    if (gpu_select(d->dev) != 0) {
        snprintf(detail, cap, "%s", cuk_err_get()->msg);
        cuk_err_clear();
        st = GPU_COUNTERS_FAILED;
    }
    CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, sp);
    sp.pRangeProfilerObject = d->rp;
    CUptiResult r = api.cuptiRangeProfilerStop(&sp);
    if (st == GPU_COUNTERS_OK && r != CUPTI_SUCCESS)
        st = failed(r, "cuptiRangeProfilerStop", detail, cap);
    if (st == GPU_COUNTERS_OK && collect && d->nlog > 0)
        st = gpu_collect(d, detail, cap);
    CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params, dis);
    dis.pRangeProfilerObject = d->rp;
    r = api.cuptiRangeProfilerDisable(&dis);
    if (st == GPU_COUNTERS_OK && r != CUPTI_SUCCESS)
        st = failed(r, "cuptiRangeProfilerDisable", detail, cap);
    d->rp = NULL;
    d->nlog = 0;
    return st;
}

/* Close every GPU's segment (collecting when asked); the first failure. */
static gpu_counters_status segment_close(int collect, char *detail, size_t cap)
{
    gpu_counters_status st = GPU_COUNTERS_OK;
    char why[DETAIL];
    int was = gpu_selected();
    for (int i = 0; i < C.ng; i++) {
        gpu_counters_status s = gpu_close(&C.g[i], collect && st == GPU_COUNTERS_OK, why, sizeof why);
        if (s != GPU_COUNTERS_OK && st == GPU_COUNTERS_OK) {
            st = s;
            snprintf(detail, cap, "%s", why);
        }
    }
    if (gpu_select(was) != 0)
        cuk_err_clear();
    return st;
}

/* Open a segment on every GPU counted; on failure none is left open. */
static gpu_counters_status segment_open(char *detail, size_t cap)
{
    gpu_counters_status st = GPU_COUNTERS_OK;
    char ignored[64];
    int was = gpu_selected();
    for (int i = 0; i < C.ng && st == GPU_COUNTERS_OK; i++)
        st = gpu_open(&C.g[i], detail, cap);
    if (st != GPU_COUNTERS_OK)
        segment_close(0, ignored, sizeof ignored);
    if (gpu_select(was) != 0)
        cuk_err_clear();
    return st;
}

/* A failure while counting: kept for gpu_counters_end, and counting stops
 * (the statement runs on, uncounted). */
static void counting_failed(const char *detail)
{
    char ignored[64];
    if (C.failed)
        return;
    C.failed = 1;
    snprintf(C.err, sizeof C.err, "%s", detail);
    segment_close(0, ignored, sizeof ignored);
}

/* End the open segment and start the next. */
static void segment_cycle(void)
{
    char detail[DETAIL];
    if (segment_close(1, detail, sizeof detail) != GPU_COUNTERS_OK ||
        segment_open(detail, sizeof detail) != GPU_COUNTERS_OK)
        counting_failed(detail);
}

/* --- counting -------------------------------------------------------------------- */

/* The GPUs to count: 0, and with every_gpu each other one cuk has opened. */
static gpu_counters_status choose_gpus(int every_gpu, char *detail, size_t cap)
{
    C.ng = 0;
    for (int g = 0; g < gpu_count() && C.ng < GPU_MAX_DEVICES; g++) {
        if (g > 0 && (!every_gpu || !gpu_opened(g)))
            continue;
        counted_gpu *d = &C.g[C.ng];
        if (d->dev != g) { /* the slot held another GPU's facts */
            config_drop(d);
            free(d->avail);
            d->avail = NULL;
            d->dev = g;
        }
        gpu_counters_status st = context_of(d, detail, cap);
        if (st == GPU_COUNTERS_OK)
            st = gpu_facts_read(d, detail, cap);
        if (st != GPU_COUNTERS_OK)
            return st;
        C.ng++;
    }
    return GPU_COUNTERS_OK;
}

/* Every GPU's configuration and a first segment. A configuration CUPTI
 * refuses is tried once more without the optional metrics. */
static gpu_counters_status start(char *detail, size_t cap)
{
    gpu_counters_status st = GPU_COUNTERS_OK;
    for (int tries = 0; tries < 2; tries++) {
        for (int i = 0; i < C.ng && st == GPU_COUNTERS_OK; i++)
            st = config_ready(&C.g[i], detail, cap);
        if (st == GPU_COUNTERS_OK)
            st = segment_open(detail, cap);
        if (st != GPU_COUNTERS_FAILED || !C.optional)
            break;
        C.optional = 0;
        st = GPU_COUNTERS_OK;
    }
    return st;
}

extern "C" gpu_counters_status gpu_counters_begin(const gpu_metric *metrics, int n, int every_gpu, char *detail,
                                                  size_t cap)
{
    if (gpu_counters_on) {
        snprintf(detail, cap, "the counters are being read already");
        return GPU_COUNTERS_FAILED;
    }
    gpu_counters_status st = gpu_counters_check(detail, cap);
    if (st != GPU_COUNTERS_OK)
        return st;
    int was = gpu_selected();
    memset(&C.sum, 0, sizeof C.sum);
    C.metrics = metrics;
    C.n = n < GPU_COUNTERS_METRICS ? n : GPU_COUNTERS_METRICS;
    C.optional = 1;
    C.held = 0;
    C.failed = 0;
    C.err[0] = '\0';
    st = choose_gpus(every_gpu, detail, cap);
    if (st == GPU_COUNTERS_OK)
        st = start(detail, cap);
    if (gpu_select(was) != 0)
        cuk_err_clear();
    if (st != GPU_COUNTERS_OK)
        return st;
    gpu_counters_on = 1;
    return GPU_COUNTERS_OK;
}

extern "C" void gpu_counters_hold(void)
{
    char detail[DETAIL];
    if (!gpu_counters_on || C.held++ > 0 || C.failed)
        return;
    if (segment_close(1, detail, sizeof detail) != GPU_COUNTERS_OK)
        counting_failed(detail);
}

extern "C" void gpu_counters_resume(void)
{
    char detail[DETAIL];
    if (!gpu_counters_on || C.held == 0 || --C.held > 0 || C.failed)
        return;
    if (segment_open(detail, sizeof detail) != GPU_COUNTERS_OK)
        counting_failed(detail);
}

/* Theoretical occupancy of func at this block size on the selected GPU:
 * the warps of the blocks that fit an SM, of the SM's warps; NaN if the
 * occupancy API cannot say. */
static double theory_pct(const void *func, dim3 block, size_t smem, int max_warps)
{
    int threads = (int)(block.x * block.y * block.z), blocks = 0;
    if (!func || max_warps <= 0 || threads <= 0)
        return NAN;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func, threads, smem) != cudaSuccess) {
        cudaGetLastError();
        return NAN;
    }
    int warps = blocks * ((threads + 31) / 32);
    return 100.0 * (warps < max_warps ? warps : max_warps) / max_warps;
}

/* A log entry for the selected GPU, or NULL if it is not counted now. */
static launch_entry *log_next(counted_gpu **gpu)
{
    if (C.held || C.failed)
        return NULL;
    counted_gpu *d = counted(gpu_selected());
    if (!d || !d->rp || d->nlog == SEG_RANGES)
        return NULL;
    *gpu = d;
    return &d->log[d->nlog++];
}

extern "C" void gpu_counters_launched(const char *name, const void *func, dim3 block, size_t smem)
{
    counted_gpu *d;
    launch_entry *e = log_next(&d);
    if (!e)
        return;
    e->name = name;
    e->library = 0;
    e->theory_pct = theory_pct(func, block, smem, d->max_warps);
    if (d->nlog >= SEG_CYCLE)
        segment_cycle();
}

extern "C" void gpu_counters_library(const char *name)
{
    counted_gpu *d;
    launch_entry *e = log_next(&d);
    if (!e)
        return;
    e->name = name;
    e->library = 1;
    e->theory_pct = NAN;
    segment_cycle();
}

extern "C" int gpu_counters_end(gpu_counter_row *rows, int cap, gpu_counter_summary *sum, char *why, size_t why_cap)
{
    char detail[DETAIL];
    memset(sum, 0, sizeof *sum);
    if (!gpu_counters_on)
        return 0;
    gpu_counters_on = 0;
    if (!C.failed && C.held == 0 && segment_close(1, detail, sizeof detail) != GPU_COUNTERS_OK)
        counting_failed(detail);
    C.held = 0;
    *sum = C.sum;
    sum->nrows = C.sum.nrows < cap ? C.sum.nrows : cap;
    sum->dropped += C.sum.nrows - sum->nrows;
    memcpy(rows, C.rows, (size_t)sum->nrows * sizeof *rows);
    if (!C.failed)
        return 0;
    snprintf(why, why_cap, "%s", C.err);
    return -1;
}
