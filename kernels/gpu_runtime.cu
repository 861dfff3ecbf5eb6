/* gpu_runtime.cu - the engine's view of the CUDA device (kernels/gpu.h):
 * discovery, memory, copies, the stream, event marks, and the record of every
 * kernel launch; plus the error and launch helpers of gpu_internal.h. */
#include "kernels/gpu_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* --- device state --------------------------------------------------------- */

/* What each GPU in use has of its own: mode multi runs kernels on every
 * visible GPU (gpu_select), the other modes on device 0 alone. */
typedef struct {
    cudaStream_t stream;     /* device 0's is the engine's stream */
    void *scratch_buf;       /* gpu_scratch's buffer */
    size_t scratch_cap;
    gpu_info facts;          /* what the device is, read once (the panel asks at every redraw) */
    int facts_read;
} gpu_side;

/* The process's devices, opened once (one session per process). */
static struct {
    int init_state;          /* 0 not tried, 1 usable, -1 no device */
    char unusable_why[600];  /* set when init_state < 0 or after poisoning */
    int poisoned;
    gpu_info info;           /* device 0's */
    int count;               /* visible devices (at most GPU_MAX_DEVICES) */
    int cur;                 /* the device gpu_select chose; 0 between ops */
    gpu_side side[GPU_MAX_DEVICES];
    cudaStream_t stream;     /* device 0's stream: every copy, kernel and library call of the engine */
} gpu;

/* FP32 lanes per SM by architecture, for the peak the panel shows. */
static int fp32_lanes(int major, int minor)
{
    if (major == 7 || (major == 8 && minor == 0))
        return 64;
    if (major == 8 || major == 9 || major == 10 || major == 12)
        return 128;
    return 64;
}

static int attr(cudaDeviceAttr what, int dev)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, what, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

static void fill_info(gpu_info *f, const cudaDeviceProp *p, int dev)
{
    snprintf(f->name, sizeof f->name, "%s", p->name);
    f->cc_major = p->major;
    f->cc_minor = p->minor;
    f->sms = p->multiProcessorCount;
    f->fp32_lanes_per_sm = fp32_lanes(p->major, p->minor);
    /* CUDA 13 dropped the clock fields from cudaDeviceProp: ask for them. */
    f->clock_ghz = attr(cudaDevAttrClockRate, dev) * 1e-6;
    f->peak_gflops = f->sms * f->fp32_lanes_per_sm * 2.0 * f->clock_ghz;
    double mem_hz = attr(cudaDevAttrMemoryClockRate, dev) * 1e3;
    double bus_bytes = attr(cudaDevAttrGlobalMemoryBusWidth, dev) / 8.0;
    f->mem_bw_gbs = 2.0 * mem_hz * bus_bytes * 1e-9;   /* double data rate */
    f->mem_total = p->totalGlobalMem;
    f->l2_bytes = (size_t)p->l2CacheSize;
    f->max_threads_per_sm = p->maxThreadsPerMultiProcessor;
    f->smem_per_sm = p->sharedMemPerMultiprocessor;
    cudaDriverGetVersion(&f->driver_version);
    cudaRuntimeGetVersion(&f->runtime_version);
}

/* Why cudaGetDeviceCount found nothing, in the user's terms. */
static void explain_no_device(cudaError_t err)
{
    int driver = 0;
    cudaDriverGetVersion(&driver);
    if (driver == 0)
        snprintf(gpu.unusable_why, sizeof gpu.unusable_why, "no CUDA driver found");
    else if (err == cudaErrorInsufficientDriver)
        snprintf(gpu.unusable_why, sizeof gpu.unusable_why,
                 "the CUDA driver is too old for this build (driver %d.%d, runtime %d.%d; %s)",
                 driver / 1000, driver % 1000 / 10, CUDART_VERSION / 1000,
                 CUDART_VERSION % 1000 / 10, cudaGetErrorName(err));
    else
        snprintf(gpu.unusable_why, sizeof gpu.unusable_why, "no CUDA device found (%s: %s)",
                 cudaGetErrorName(err), cudaGetErrorString(err));
}

/* Open device 0 and the gpu.stream; 0, or -1 with gpu.unusable_why set. */
static int open_device(void)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count == 0)
        err = cudaErrorNoDevice;
    if (err != cudaSuccess) {
        cudaGetLastError();
        explain_no_device(err);
        return -1;
    }
    cudaDeviceProp prop;
    err = cudaGetDeviceProperties(&prop, 0);
    if (err == cudaSuccess && prop.major * 10 + prop.minor < 75) {
        snprintf(gpu.unusable_why, sizeof gpu.unusable_why,
                 "%s has compute capability %d.%d; cuk needs 7.5 or newer",
                 prop.name, prop.major, prop.minor);
        return -1;
    }
    if (err == cudaSuccess)
        err = cudaSetDevice(0);
    /* Non-blocking: our work never waits on, or for, the legacy default gpu.stream. */
    if (err == cudaSuccess)
        err = cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking);
    if (err != cudaSuccess) {
        cudaGetLastError();
        snprintf(gpu.unusable_why, sizeof gpu.unusable_why, "cannot open CUDA device 0 (%s: %s)",
                 cudaGetErrorName(err), cudaGetErrorString(err));
        return -1;
    }
    fill_info(&gpu.info, &prop, 0);
    gpu.side[0].stream = gpu.stream;
    gpu.count = count < GPU_MAX_DEVICES ? count : GPU_MAX_DEVICES;
    return 0;
}

extern "C" int gpu_init(void)
{
    if (gpu.init_state == 0)
        gpu.init_state = open_device() == 0 ? 1 : -1;
    return gpu.init_state > 0 ? 0 : -1;
}

extern "C" int gpu_usable(const char **why)
{
    gpu_init();
    if (gpu.init_state > 0 && !gpu.poisoned)
        return 1;
    if (why)
        *why = gpu.unusable_why;
    return 0;
}

extern "C" const gpu_info *gpu_device(void)
{
    return gpu.init_state > 0 ? &gpu.info : NULL;
}

extern "C" void gpu_poison(const char *why)
{
    gpu.poisoned = 1;
    snprintf(gpu.unusable_why, sizeof gpu.unusable_why, "the CUDA context is unusable after: %s", why);
}

extern "C" cudaStream_t gpu_stream_handle(void)
{
    return gpu.side[gpu.cur].stream;
}

extern "C" cudaStream_t gpu_engine_stream(void)
{
    return gpu.stream;
}

extern "C" int gpu_count(void)
{
    return gpu_init() == 0 ? gpu.count : 0;
}

extern "C" int gpu_facts_of(int g, device_facts *f, size_t *free_bytes, size_t *total_bytes)
{
    cudaDeviceProp prop;
    if (g < 0 || g >= gpu_count())
        return cuk_err("there is no GPU %d (%d visible)", g, gpu_count());
    gpu_side *d = &gpu.side[g];
    if (!d->facts_read) {
        GPU_CHECK(cudaGetDeviceProperties(&prop, g));
        fill_info(&d->facts, &prop, g);
        d->facts_read = 1;
    }
    *f = d->facts;
    GPU_CHECK(cudaSetDevice(g));
    cudaError_t err = cudaMemGetInfo(free_bytes, total_bytes);
    GPU_CHECK(cudaSetDevice(gpu.cur));
    GPU_CHECK(err);
    return 0;
}

/* Device g's stream, made the first time (non-blocking, like device 0's). */
static int open_side(int g)
{
    if (!gpu.side[g].stream)
        GPU_CHECK(cudaStreamCreateWithFlags(&gpu.side[g].stream, cudaStreamNonBlocking));
    return 0;
}

extern "C" int gpu_select(int g)
{
    if (g == gpu.cur)
        return 0;
    GPU_CHECK(cudaSetDevice(g));
    gpu.cur = g;
    return open_side(g);
}

extern "C" int gpu_selected(void)
{
    return gpu.cur;
}

extern "C" int gpu_opened(int g)
{
    return g >= 0 && g < gpu.count && gpu.side[g].stream != NULL;
}

extern "C" int gpu_pci_bus_id(int g, char *buf, int cap)
{
    if (g < 0 || g >= gpu_count() || cap <= 0)
        return -1;
    if (cudaDeviceGetPCIBusId(buf, cap, g) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return 0;
}

extern "C" int gpu_sm_count(void)
{
    return gpu.info.sms > 0 ? gpu.info.sms : 1;
}

/* --- errors ---------------------------------------------------------------- */

/* Errors after which the context is dead: every later call fails the same way. */
static int is_sticky(cudaError_t err)
{
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorUnknown:
    case cudaErrorContextIsDestroyed:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorContained:
        return 1;
    default:
        break;
    }
    /* An ordinary error is cleared by one cudaGetLastError; a sticky one
     * keeps coming back. */
    cudaGetLastError();
    return cudaGetLastError() != cudaSuccess;
}

/* Report msg as an ordinary error, or as fatal if the context is gone. */
static int report(int fatal, const char *msg)
{
    if (!fatal)
        return cuk_err("%s", msg);
    gpu_poison(msg);
    return cuk_err_fatal("%s", msg);
}

extern "C" int gpu_fail(cudaError_t err, const char *call, const char *file, int line)
{
    char msg[512];
    snprintf(msg, sizeof msg, "CUDA error: %s (%s) in %s at %s:%d", cudaGetErrorString(err),
             cudaGetErrorName(err), call, file, line);
    return report(is_sticky(err), msg);
}

extern "C" int gpu_cublas_fail(cublasStatus_t st, const char *call, const char *file, int line)
{
    char msg[512];
    const char *name, *text;
    gpu_cublas_status(st, &name, &text); /* cuBLAS is loaded at run time: gpu_cublas.cu */
    snprintf(msg, sizeof msg, "cuBLAS error: %s (%s) in %s at %s:%d", text, name, call, file, line);
    /* cuBLAS reports a dead context as a failed execution: ask the runtime. */
    cudaError_t err = cudaStreamQuery(gpu.stream);
    return report(is_sticky(err == cudaErrorNotReady ? cudaSuccess : err), msg);
}

extern "C" void *gpu_dlopen(const char *file, char *why, size_t cap)
{
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *err = dlerror(); /* "libcublas.so.13: cannot open ...": say the name once */
        size_t len = strlen(file);
        if (err && !strncmp(err, file, len) && err[len] == ':')
            err += len + 1 + (err[len + 1] == ' ');
        snprintf(why, cap, "cannot load %s: %s", file, err ? err : "unknown error");
    }
    return h;
}

/* --- launch records (the `kernels` command) ---------------------------------- */

typedef struct {
    const cuk_backend *mode;   /* the mode that launched it */
    const char *name;
    const void *func;          /* NULL for library calls and launches elsewhere */
    dim3 grid, block;
    size_t smem;
    int launches;
    int elsewhere;             /* its facts came with it (gpu_kernel_ran_elsewhere) */
    gpu_kernel_row facts;
} launch_record;

#define MAX_RECORDS 256   /* (mode, kernel) pairs: the variants add many */
static launch_record records[MAX_RECORDS];
static int nrecords;

static launch_record *record_of(const cuk_backend *mode, const char *name, const void *func)
{
    for (int i = 0; i < nrecords; i++)
        if (records[i].mode == mode && records[i].func == func && strcmp(records[i].name, name) == 0)
            return &records[i];
    if (nrecords == MAX_RECORDS)
        return NULL;
    launch_record *r = &records[nrecords++];
    *r = launch_record();
    r->mode = mode;
    r->name = name;
    r->func = func;
    return r;
}

static launch_record *record_for(const char *name, const void *func)
{
    return record_of(mode_running(), name, func);
}

extern "C" int gpu_launched(const char *name, const void *func, dim3 grid, dim3 block, size_t smem,
                            const char *file, int line)
{
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        char call[160];
        snprintf(call, sizeof call, "launch of %s", name);
        return gpu_fail(err, call, file, line);
    }
    launch_record *r = record_for(name, func);
    if (r) {
        r->grid = grid;
        r->block = block;
        r->smem = smem;
        r->launches++;
    }
    if (gpu_counters_on)
        gpu_counters_launched(name, func, block, smem);
    return 0;
}

extern "C" void gpu_count_call(const char *name)
{
    launch_record *r = record_for(name, NULL);
    if (r)
        r->launches++;
    if (gpu_counters_on)
        gpu_counters_library(name);
}

extern "C" void gpu_kernel_ran_elsewhere(const cuk_backend *mode, const gpu_kernel_row *row)
{
    launch_record *r = record_of(mode, row->name, NULL);
    if (!r)
        return;
    r->elsewhere = 1;
    r->facts = *row;
    r->launches++;
}

extern "C" void gpu_kernels_forget(const cuk_backend *mode)
{
    int kept = 0;
    for (int i = 0; i < nrecords; i++)
        if (records[i].mode != mode)
            records[kept++] = records[i];
    nrecords = kept;
}

/* Registers, static shared memory and occupancy of a recorded kernel. */
static void describe(const launch_record *r, gpu_kernel_row *row)
{
    cudaFuncAttributes fa;
    if (!r->func || cudaFuncGetAttributes(&fa, r->func) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    row->regs = fa.numRegs;
    row->static_smem = fa.sharedSizeBytes;
    int threads = (int)(r->block.x * r->block.y * r->block.z), blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, r->func, threads, r->smem) != cudaSuccess) {
        cudaGetLastError();
        blocks = 0;
    }
    row->blocks_per_sm = blocks;
}

extern "C" int gpu_kernel_rows(const cuk_backend *mode, gpu_kernel_row *rows, int cap)
{
    int count = 0;
    for (int i = 0; i < nrecords && count < cap; i++) {
        const launch_record *r = &records[i];
        if (r->mode != mode)
            continue;
        gpu_kernel_row *row = &rows[count++];
        memset(row, 0, sizeof *row);
        if (r->elsewhere)
            *row = r->facts;
        row->name = r->name;
        if (r->func) {
            row->grid[0] = r->grid.x, row->grid[1] = r->grid.y, row->grid[2] = r->grid.z;
            row->block[0] = r->block.x, row->block[1] = r->block.y, row->block[2] = r->block.z;
            row->dyn_smem = r->smem;
        }
        row->launches = r->launches;
        if (!r->elsewhere)
            describe(r, row);
    }
    return count;
}

/* The functions allowed more than the default, each on each device it
 * ran on: fast's staged kernels and tf32x3's, at most a few dozen. */
#define MAX_ALLOWED 256
static struct {
    const void *func;
    int device;
    size_t smem;
} allowed[MAX_ALLOWED];
static int nallowed;

extern "C" int gpu_allow_smem(const void *func, size_t smem)
{
    int device = gpu_selected(), at = -1;
    for (int i = 0; i < nallowed && at < 0; i++)
        if (allowed[i].func == func && allowed[i].device == device)
            at = i;
    if (at >= 0 && allowed[at].smem >= smem)
        return 0;
    GPU_CHECK(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    if (at < 0 && nallowed < MAX_ALLOWED)
        at = nallowed++;
    if (at >= 0) /* a full table asks again next time: slower, still right */
        allowed[at].func = func, allowed[at].device = device, allowed[at].smem = smem;
    return 0;
}

extern "C" int gpu_blocks_per_sm(const void *func, int threads, size_t smem)
{
    int blocks = 0;
    GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func, threads, smem));
    return blocks > 0 ? blocks : 1;
}

extern "C" unsigned gpu_grid_1d(size_t n)
{
    size_t need = (n + GPU_THREADS - 1) / GPU_THREADS;
    size_t full = (size_t)gpu_sm_count() * 8;
    return (unsigned)(need < full ? need : full);
}

/* --- memory and copies ------------------------------------------------------ */

/* gpu_scratch and gpu_scratch_try: grow the buffer to `bytes`; `soft`:
 * out of memory answers 1 with no error set (the buffer then empty). */
static int scratch_grow(void **p, size_t bytes, int soft)
{
    gpu_side *d = &gpu.side[gpu.cur];
    if (bytes > d->scratch_cap) {
        size_t cap = bytes > 65536 ? bytes : 65536;
        if (d->scratch_buf) {
            /* Queued kernels may still use the old buffer. */
            GPU_WAIT(d->stream);
            GPU_CHECK(cudaFree(d->scratch_buf));
            d->scratch_buf = NULL;
            d->scratch_cap = 0;
        }
        cudaError_t err = cudaMalloc(&d->scratch_buf, cap);
        if (err == cudaErrorMemoryAllocation && soft) {
            cudaGetLastError(); /* out of memory is not sticky: clear it */
            d->scratch_buf = NULL;
            return 1;
        }
        GPU_CHECK(err);
        d->scratch_cap = cap;
    }
    *p = d->scratch_buf;
    return 0;
}

extern "C" int gpu_scratch(void **p, size_t bytes) { return scratch_grow(p, bytes, 0); }

extern "C" int gpu_scratch_try(void **p, size_t bytes) { return scratch_grow(p, bytes, 1); }

extern "C" int gpu_scratch_release(void)
{
    if (gpu.init_state != 1)
        return 0;
    for (int g = 0; g < GPU_MAX_DEVICES; g++) {
        gpu_side *d = &gpu.side[g];
        if (!d->scratch_buf)
            continue;
        GPU_WAIT(d->stream); /* queued kernels may still use it */
        GPU_CHECK(cudaSetDevice(g));
        cudaError_t err = cudaFree(d->scratch_buf);
        GPU_CHECK(cudaSetDevice(gpu.cur));
        GPU_CHECK(err);
        d->scratch_buf = NULL;
        d->scratch_cap = 0;
    }
    return 0;
}

extern "C" int gpu_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    GPU_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
    return 0;
}

extern "C" int gpu_raw_alloc(void **p, size_t bytes)
{
    *p = NULL;
    cudaError_t err = cudaMalloc(p, bytes);
    if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError();   /* out of memory is not sticky: clear it */
        *p = NULL;
        return 1;
    }
    GPU_CHECK(err);
    return 0;
}

extern "C" int gpu_raw_free(void *p)
{
    GPU_CHECK(cudaFree(p));
    return 0;
}

extern "C" int gpu_host_pin(void *p, size_t bytes)
{
    if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) == cudaSuccess)
        return 0;
    cudaGetLastError();
    return -1;
}

extern "C" int gpu_host_unpin(void *p)
{
    if (cudaHostUnregister(p) == cudaSuccess)
        return 0;
    cudaGetLastError();
    return -1;
}

extern "C" int gpu_memset(void *p, int byte, size_t bytes)
{
    GPU_CHECK(cudaMemsetAsync(p, byte, bytes, gpu.stream));
    return 0;
}

/* The host side is pageable memory, so the copy has left src by the time
 * this returns and src may be reused at once. */
extern "C" int gpu_h2d(void *dst, const void *src, size_t bytes)
{
    GPU_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, gpu.stream));
    return 0;
}

extern "C" int gpu_d2h(void *dst, const void *src, size_t bytes)
{
    GPU_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, gpu.stream));
    GPU_WAIT(gpu.stream);
    return 0;
}

extern "C" int gpu_d2d(void *dst, const void *src, size_t bytes)
{
    GPU_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, gpu.stream));
    return 0;
}

/* (GPU_LAUNCH passes at least one argument.) */
static __global__ void empty_kernel(int unused) {}

extern "C" int gpu_launch_empty(void)
{
    GPU_LAUNCH(empty_kernel, 1, 1, 0, 0);
    return 0;
}

/* --- the gate ---------------------------------------------------------------- */

/* A timed op's first mark fires as soon as the stream reaches it: on an
 * idle device, at once, so that the pair took in the host's work on the
 * op's launch calls (a cuBLAS call's much more than cuk's kernels'; PERF.md,
 * how it is measured). The engine's timing and the benches' pairs
 * (bench/perf.h) both queue it. The gate is one thread queued before the
 * mark that spins until the host opens it, a count in mapped host memory
 * reaching the gate's own, or until `ns` have passed (a wait of the host's
 * the gate was not opened for, which must not hang). The op's launches are
 * made while it spins, and the pair times the device's work alone. */
static __global__ void gate_kernel(const volatile unsigned *opened, unsigned seq, unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while ((int)(*opened - seq) < 0 && t - t0 < ns);
}

static struct {
    unsigned *opened; /* host memory the device reads: the last gate opened */
    unsigned *dev;    /* the same, as the device addresses it */
    unsigned seq;     /* the last gate queued */
} gate;

extern "C" int gpu_gate_close(double timeout_us)
{
    if (!gate.opened) {
        void *p;
        GPU_CHECK(cudaHostAlloc(&p, sizeof(unsigned), cudaHostAllocMapped));
        gate.opened = (unsigned *)p;
        *gate.opened = gate.seq;
        GPU_CHECK(cudaHostGetDevicePointer((void **)&gate.dev, p, 0));
    }
    gpu_gate_open();
    /* Launched bare, not through gpu_launch: the timing's tool, not an
     * op's kernel, it stays out of the modes' `kernels` tables. */
    gate_kernel<<<1, 1, 0, gpu.stream>>>(gate.dev, gate.seq + 1, (unsigned long long)(timeout_us * 1e3));
    GPU_CHECK(cudaGetLastError());
    gate.seq++;
    return 0;
}

extern "C" void gpu_gate_open(void)
{
    if (gate.opened)
        __atomic_store_n(gate.opened, gate.seq, __ATOMIC_RELEASE);
}

/* Without a device nothing was queued: callers that wait just in case
 * (timing set-up, copies) must not wake a missing driver. */
extern "C" int gpu_sync(void)
{
    if (gpu.init_state <= 0)
        return 0;
    GPU_WAIT(gpu.stream);
    return 0;
}

extern "C" int gpu_idle(void)
{
    if (gpu.init_state <= 0)
        return 1;
    gpu_gate_open();
    cudaError_t err = cudaStreamQuery(gpu.stream);
    if (err == cudaErrorNotReady)
        return 0;
    GPU_CHECK(err);
    return 1;
}

/* --- event marks ------------------------------------------------------------ */

struct gpu_mark {
    cudaEvent_t ev;
    int recorded;
};

extern "C" gpu_mark *gpu_mark_new(void)
{
    gpu_mark *m = (gpu_mark *)calloc(1, sizeof *m);
    if (!m) {
        cuk_err("out of host memory");
        return NULL;
    }
    cudaError_t err = cudaEventCreate(&m->ev);   /* default flags: it can time */
    if (err != cudaSuccess) {
        free(m);
        gpu_fail(err, "cudaEventCreate(&m->ev)", __FILE__, __LINE__);
        return NULL;
    }
    return m;
}

extern "C" int gpu_mark_record(gpu_mark *m)
{
    GPU_CHECK(cudaEventRecord(m->ev, gpu.stream));
    m->recorded = 1;
    return 0;
}

extern "C" double gpu_mark_elapsed(gpu_mark *from, gpu_mark *to)
{
    if (!from || !to || !from->recorded || !to->recorded)
        return -1.0;
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, from->ev, to->ev) != cudaSuccess) {
        cudaGetLastError();   /* not ready yet; a dead context shows at gpu_sync */
        return -1.0;
    }
    return ms;
}
