/* gpu.h - the engine's view of the CUDA device: discovery, raw memory,
 * transfers, the one stream every GPU op runs on, event timing, kernel
 * launch records. Implemented by gpu_runtime.cu, or by gpu_none.c in a build
 * without CUDA, where every call reports that no device is present.
 *
 * Functions returning int give 0 on success and -1 with the engine error set
 * (the failing CUDA call and file:line); errors that poison the CUDA context
 * are set as fatal. */
#ifndef CUK_GPU_H
#define CUK_GPU_H

#include <stddef.h>

#include "base/device.h"

struct cuk_backend;

#ifdef __cplusplus
extern "C" {
#endif

typedef device_facts gpu_info;

/* Find and open device 0. Cheap to call again. 0 if a device is usable. */
int gpu_init(void);
/* 1 if a device is usable; otherwise 0 and *why says why not. */
int gpu_usable(const char **why);
const gpu_info *gpu_device(void);
/* Mark the context unusable after a fatal error (for gpu_usable). */
void gpu_poison(const char *why);

int gpu_mem_info(size_t *free_bytes, size_t *total_bytes);
/* cudaMalloc: 0 ok; 1 out of memory (no error set, the pool decides what to
 * say); -1 any other failure (error set). */
int gpu_raw_alloc(void **p, size_t bytes);
int gpu_raw_free(void *p);
/* Free the kernels' session scratch on every GPU (split-k partials, fast's
 * padded copies), after the work queued on it: the pool's trim calls it,
 * so that memory a large product once needed goes back when the device
 * runs short. The next op that needs scratch allocates it again. */
int gpu_scratch_release(void);
/* Fill with a byte value: the pool poisons fresh blocks in tests. */
int gpu_memset(void *p, int byte, size_t bytes);

/* Copies on the engine's stream; d2h waits for the data. */
int gpu_h2d(void *dst, const void *src, size_t bytes);
int gpu_d2h(void *dst, const void *src, size_t bytes);
/* Device to device, queued like a kernel: the copy the memory-bound
 * kernels are measured against (bench/perf_mem.c). */
int gpu_d2d(void *dst, const void *src, size_t bytes);
/* Queue one empty kernel: what a launch costs with no work in it, the
 * floor that bench/perf_mem.c holds small reductions to. */
int gpu_launch_empty(void);
/* The gate a timed op's first mark is queued behind (engine/values/timing.c,
 * bench/perf.h): close queues a kernel that holds the stream until
 * gpu_gate_open, or until timeout_us have passed, so that the work queued
 * behind it is launched while the device waits and a mark recorded after
 * the gate times that work without the host's time to launch it. Every
 * wait of the host's on the stream (gpu_sync, gpu_idle, gpu_d2h,
 * GPU_WAIT) opens it first. close: 0, or -1 with the error set. */
int gpu_gate_close(double timeout_us);
void gpu_gate_open(void);
/* Wait for all queued work; reports the first asynchronous error. */
int gpu_sync(void);
/* 1 if all queued work is done, 0 if some is still running; -1 on error. */
int gpu_idle(void);

/* Event timing of device work. A mark is recorded on the stream; the time
 * between two marks is known once gpu_sync has returned. */
typedef struct gpu_mark gpu_mark;
gpu_mark *gpu_mark_new(void); /* kept for the session's life */
int gpu_mark_record(gpu_mark *m);
/* Milliseconds between two recorded marks, after a sync; < 0 if unknown. */
double gpu_mark_elapsed(gpu_mark *from, gpu_mark *to);

/* cuBLAS's version as major*10000 + minor*100 + patch; 0 without CUDA. */
int gpu_cublas_version(void);

/* What `kernels` prints: one row per kernel a mode launched. */
typedef struct {
    const char *name;
    unsigned grid[3], block[3];
    size_t dyn_smem;
    int regs;
    size_t static_smem;
    int blocks_per_sm;       /* occupancy API: achievable blocks per SM */
    int launches;            /* since start */
} gpu_kernel_row;

/* Fill up to cap rows for the kernels mode launched, its borrowed ones
 * included; returns the count. */
int gpu_kernel_rows(const struct cuk_backend *mode, gpu_kernel_row *rows, int cap);
/* A launch made where this process cannot ask the driver about it (a
 * user mode's kernel, in its helper process), recorded under mode with
 * the facts given (row's name, grid, block, smem, regs, static_smem,
 * blocks_per_sm; its launches field is ignored). */
void gpu_kernel_ran_elsewhere(const struct cuk_backend *mode, const gpu_kernel_row *row);
/* Forget mode's launches (a user mode made again from its edited file). */
void gpu_kernels_forget(const struct cuk_backend *mode);


/* --- hardware counters (gpu_counters.cu): `count` ---------------------------
 * CUPTI's range profiler, opened with dlopen the first time counters are
 * asked for, reads the counters Nsight Compute reads, kernel by kernel:
 * each kernel launched while counting is replayed until every counter has
 * been read (its memory put back between the runs), so its results are
 * those of one run and its times are not. Nothing here costs anything
 * while nothing counts: the launches test one flag. */

/* Why counters cannot be read, if they cannot (the engine words it). */
typedef enum {
    GPU_COUNTERS_OK,
    GPU_COUNTERS_NO_GPU,      /* no usable GPU: detail says why */
    GPU_COUNTERS_NO_LIBRARY,  /* CUPTI cannot be loaded: detail has the loader's words */
    GPU_COUNTERS_DENIED,      /* the driver lets only administrators read them */
    GPU_COUNTERS_UNSUPPORTED, /* not on this GPU or in this configuration: detail says which */
    GPU_COUNTERS_FAILED       /* a CUPTI call failed: detail names it */
} gpu_counters_status;

/* At most this many metrics are read, and this many kernels kept. */
#define GPU_COUNTERS_METRICS 24
#define GPU_COUNTERS_ROWS 64

/* A metric in CUPTI's (and Nsight Compute's) name, "dram__bytes_read.sum".
 * An optional one is left out, its values NaN, where CUPTI cannot collect
 * it with the others (the SASS-patched instruction counts). */
typedef struct {
    const char *name;
    int optional;
} gpu_metric;

/* One kernel counted: the metrics' values in the order asked (NaN where a
 * metric could not be read). */
typedef struct {
    char name[64];            /* as `kernels` names it; a library's kernels under the call's name */
    int gpu;
    double theory_pct;        /* theoretical occupancy from the occupancy API; NaN for a library's */
    double value[GPU_COUNTERS_METRICS];
} gpu_counter_row;

typedef struct {
    int nrows;
    int dropped;              /* kernels counted past the rows kept, or lost by CUPTI */
    int passes;               /* runs of each kernel it took to read every counter */
    int unnamed;              /* rows of kernels launched by no call cuk knows */
} gpu_counter_summary;

/* Whether counters can be read here: loads CUPTI and asks it about GPU 0
 * the first time. *detail (cap bytes) says why not. */
gpu_counters_status gpu_counters_check(char *detail, size_t cap);
/* Count every kernel launched from now on: on GPU 0, or with every_gpu on
 * each GPU cuk has opened (mode multi). OK, or why not with *detail set;
 * then nothing was started. Metrics a GPU does not know are left out
 * (NaN). */
gpu_counters_status gpu_counters_begin(const gpu_metric *metrics, int n, int every_gpu, char *detail, size_t cap);
/* Leave the kernels launched between hold and resume uncounted: one-time
 * set-up, and NCCL's, whose kernels wait for each other across GPUs and
 * cannot be replayed one at a time. Nested holds count. */
void gpu_counters_hold(void);
void gpu_counters_resume(void);
/* 1 between begin and end. */
int gpu_counting(void);
/* Stop counting, whatever happened since begin (also after an error), and
 * give the kernels counted, in the order they ran on each GPU: 0, or -1
 * with *detail set if CUPTI failed on the way (the error slot is left to
 * the statement counted). */
int gpu_counters_end(gpu_counter_row *rows, int cap, gpu_counter_summary *sum, char *detail, size_t detail_cap);
/* How many of the n metrics CUPTI knows for a chip ("GH100"; GPU 0's if
 * NULL), the first unknown one's index in *unknown (-1 if none), and the
 * runs of a kernel reading the known ones takes in *passes. Needs CUPTI,
 * not a GPU, for a named chip: -1 with *detail set if it cannot say. */
int gpu_counters_known(const char *chip, const gpu_metric *metrics, int n, int *unknown, int *passes, char *detail,
                       size_t cap);
/* Tests: from now on (on != 0) answer as a driver that lets only
 * administrators read the counters does, at the call where CUPTI would. */
void gpu_counters_test_deny(int on);

/* The PCI bus id of GPU g ("0000:65:00.0"), which NVML finds the same GPU
 * by (gpu_live.c): 0, or -1 if there is no such GPU (no error set). */
int gpu_pci_bus_id(int g, char *buf, int cap);

/* --- several GPUs: mode multi (gpu_multi.cu, gpu_spread.cu) ----------------
 * Device 0 is the engine's; multi uses every visible GPU (CUDA_VISIBLE_DEVICES
 * decides which), the engine's included. Without CUDA there are none. */
#define GPU_MAX_DEVICES 8

/* How many GPUs are visible and usable (at most GPU_MAX_DEVICES); 0 if none. */
int gpu_count(void);
/* GPU g's facts and its memory now: 0, or -1 with the error set. */
int gpu_facts_of(int g, device_facts *f, size_t *free_bytes, size_t *total_bytes);

/* How two GPUs are linked. */
typedef struct {
    int peer;         /* each can read the other's memory directly */
    int nvlink;       /* native atomics across the link: NVLink (PCIe has none) */
    double gbs;       /* copy bandwidth from one to the other, measured once; 0 if not */
} gpu_link;
/* The link between GPUs i and j (i != j), measuring its bandwidth the
 * first time it is asked: 0, or -1 with the error set. */
int gpu_link_of(int i, int j, gpu_link *out);

/* Spread memory: one range of addresses whose bytes lie on several GPUs in
 * consecutive parts (GPU 0's first), readable and writable by all of them;
 * a row-major matrix in it is a stack of row slabs, one per GPU. It is the
 * device pool's source for mode multi's matrices (engine/values/pool.h). Same
 * contract as gpu_raw_alloc: 0 ok, 1 out of memory (no error set), -1. */
int gpu_spread_alloc(void **p, size_t bytes);
int gpu_spread_free(void *p);
/* Free and total bytes summed over the GPUs (a cap set by CUK_MULTI_LIMIT
 * counts as the total). */
int gpu_spread_mem_info(size_t *free_bytes, size_t *total_bytes);
int gpu_spread_fill(void *p, int byte, size_t bytes);
/* Bytes of spread memory GPU g holds for the pool. */
size_t gpu_spread_held(int g);
/* Page-lock host memory for the GPUs (cudaHostRegister), so that copies
 * from it run at the link's full rate: mode multi's out-of-core operands.
 * 0, or -1 if refused; the error slot is left alone (these run while
 * matrices are made and freed, also with an error pending). Unpin what was
 * pinned before freeing it. */
int gpu_host_pin(void *p, size_t bytes);
int gpu_host_unpin(void *p);
/* How [p, p + bytes) lies across the GPUs: the count of parts (GPUs, in
 * order), part g being bytes start[g] .. start[g] + len[g] - 1 of the range
 * on GPU gpu[g]; 0 if p is not spread memory. */
int gpu_spread_parts(const void *p, size_t bytes, int *gpu, size_t *start, size_t *len);
/* How many GPUs a new spread allocation of `bytes` would lie on: 1 when
 * it is too small to be worth splitting and goes whole on GPU 0, else
 * every GPU spread memory uses; 0 with the error set if spread memory
 * cannot be had. */
int gpu_spread_split(size_t bytes);
/* Copy bytes between device memory and spread memory (either side, or
 * both), queued on the engine's stream a part at a time, so that each copy
 * lies within one GPU's part: how a matrix moves between GPU 0 and row
 * slabs on every GPU. */
int gpu_spread_copy(void *dst, const void *src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
