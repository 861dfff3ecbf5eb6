/* cost.h - what an operation costs on this machine and why: its FLOPs, the
 * bytes it must move at the least, the bytes its kernel's access pattern
 * actually asks for (the mode's matmul_reuse), the ceilings of the device or
 * host it ran on (compute, memory bandwidth, on-chip bandwidth), the
 * fraction of each a measured time reached, and the verdict: bound by
 * compute, memory, the cache, on-chip memory, launch latency, instruction
 * latency or copies, or too short to time. `why`,
 * `roofline`, bench's "% of peak" and the rates of `time on` and the panel
 * all come from here. The ceilings are a parameter, so tests give their own. */
#ifndef CUK_COST_H
#define CUK_COST_H

#include <stddef.h>

#include "engine/values/timing.h"

typedef struct {
    int device;                /* a GPU's ceilings are known */
    char device_name[256];
    double dev_gflops;         /* FP32 peak */
    double dev_gbs;            /* memory bandwidth */
    double dev_onchip_gbs;     /* shared memory / L1: SMs x 128 B x clock */
    int dev_count;             /* GPUs a spread mode (multi) runs on: its ceilings are this many times one's */
    char host_name[128];
    int host_cores;
    double host_gflops, host_core_gflops;
    double host_gbs;           /* a copy on every core; 0 unknown */
    double host_cache_bytes;   /* the last level of cache; 0 unknown */
    double host_core_cache_gbs;/* one core's copy within its L2; 0 unknown */
} cost_ceilings;

/* This machine's ceilings; measure_host: measure the host's bandwidth if
 * that has not been done yet (a one-time 0.2 s), else leave it 0. */
void cost_ceilings_get(cost_ceilings *c, int measure_host);
/* Tests: use these ceilings instead of the machine's (NULL: the machine's
 * again), so that `why` and `roofline` can be shown a made-up device. */
void cost_ceilings_set(const cost_ceilings *c);

typedef enum {
    COST_UNKNOWN,
    COST_COMPUTE,
    COST_MEMORY,
    COST_ONCHIP,
    COST_LAUNCH,
    COST_COPIES,
    COST_CACHE,   /* a host kernel whose operands fit in the caches, near the caches' bandwidth */
    COST_LATENCY, /* a host kernel far below every ceiling: each instruction waits for the one before */
    COST_SHORT    /* too short to time: the call around it, not its work */
} cost_bound;

/* Device kernels this short, and well above their ideal time, are bound by
 * the fixed cost of launching. */
#define COST_LAUNCH_MS 0.020
/* An op shorter than this is too short to time for a rate: its time is
 * mostly the call around it and the clock's reads (a 2 us slice of five
 * floats would read "44 MB/s"). Its time is still shown. */
#define COST_RATE_MIN_MS 0.005
/* A host kernel below this fraction of every ceiling that applies is bound
 * by the latency of its instructions, not by any ceiling. */
#define COST_LATENCY_FRAC 0.10

typedef struct {
    int matmul, m, n, k;       /* a product: its dimensions */
    int reuse;                 /* the mode's matmul_reuse */
    double flops;
    double min_bytes;          /* read and written at the least */
    double req_bytes;          /* asked for from memory by the kernel's loads */
    double onchip_bytes;       /* read from shared memory / L1 (device products); 0 unknown */
    double ms;                 /* kernel time */
    double peak_gflops, bw_gbs, onchip_gbs;   /* the ceilings where it ran; 0 unknown */
    /* A host op whose operands fit in the last level of cache: bw_gbs is
     * then the caches' bandwidth (one core's within L2, or every core's),
     * mem_gbs the memory's, shown beside it. */
    int in_cache;
    double mem_gbs;
    int host_threads;          /* a host op: the threads it ran on (1: mode cpu); 0 on a device */
    const char *where;         /* "one core of the host", "all host cores", "the GPU" */
    double frac_compute, frac_memory, frac_onchip;
    double ideal_ms;           /* at the ceilings, moving the minimum */
    double copy_ms, copy_bytes;/* the command's host<->device copies */
    cost_bound bound;
} cost_report;

/* Explain op (one of command c's ops; c may be NULL) with the ceilings ce.
 * 0; or -1 if op has no kernel time, with the arithmetic (work, bytes,
 * ceilings) filled and no fractions or verdict. */
int cost_explain(const timing_cmd *c, const timing_op *op, const cost_ceilings *ce, cost_report *r);

/* The bound in a few words: "memory", "compute", ... */
const char *cost_bound_name(cost_bound b);

/* A rate for people: "5.80 TFLOP/s (8.7% of peak)" for compute-like ops,
 * "3.79 TB/s (79% of bandwidth)" for the rest; "too short to time" under
 * COST_RATE_MIN_MS; "" if the time is unknown. */
const char *cost_rate_text(const timing_op *op, char *buf, size_t cap);

/* Percent of the ceiling that matters for an op of these flops and bytes in
 * ms on mode be (compute for products, bandwidth otherwise); < 0 unknown,
 * or too short to time (cost_too_short). *rate gets the rate in the same
 * unit as the ceiling (< 0 when it is not shown). */
double cost_percent(const cost_ceilings *ce, const cuk_backend *be, double flops, double bytes, double ms,
                    double *rate, int *is_compute);

/* Whether a time of ms is too short to give a rate (COST_RATE_MIN_MS). */
int cost_too_short(double ms);

/* The main op of a command: the one that took longest. NULL if none. */
const timing_op *cost_main_op(const timing_cmd *c);

#endif
