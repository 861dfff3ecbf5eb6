/* timing.h - what each command cost: one record per statement, holding every
 * kernel it ran (operation, mode, shapes, kernel time, FLOPs, bytes), its
 * wall time and the bytes it copied between host and device, with the time
 * those copies took. `time on`, the panel, `why` and `bench` read these
 * records.
 *
 * Kernel time is measured with CUDA events around device kernels and with
 * the host clock around host kernels; wall time is the host clock around the
 * whole statement, after the device has finished, less any one-time set-up
 * met on the way (timing_setup_*), which is reported on its own (`info`).
 * Printing the value comes after the record is closed. The events cost about
 * 3 µs a kernel, a fifth of a small command, so they are recorded only while
 * something will show the times (`time on`, the panel, bench, timeit); else
 * a device kernel's time is left unknown (< 0). */
#ifndef CUK_TIMING_H
#define CUK_TIMING_H

#include <stddef.h>

#include "kernels/backend.h"
#include "kernels/gpu.h"

#define TIMING_MAX_OPS 8
#define TIMING_HISTORY 32

typedef struct {
    char op[16];          /* "matmul", "sum", "rand", ... */
    char shapes[64];      /* "1037x1055 @ 1055x1031" */
    const cuk_backend *mode;
    int on_device;
    double flops;         /* floating-point operations */
    double bytes;         /* bytes the kernel must read and write at the least */
    double ms;            /* kernel time; < 0 while unknown */
    int count;            /* >1 when later ops were folded into this row */
} timing_op;

/* What an op did with an operand whose device copy lay elsewhere than its
 * mode works (GPU 0 alone, or row slabs on every GPU): the rule is
 * engine/values/place.h's. */
typedef enum {
    TIMING_PLACE_LEFT,   /* run where it lay */
    TIMING_PLACE_MOVED,  /* moved once, before the kernel: it lives there now */
    TIMING_PLACE_NO_ROOM /* a move was due, but the memory there could not hold it */
} timing_place_how;

typedef struct {
    int rows, cols;
    int from, to;         /* GPUs it lay on, GPUs the mode works on (1: GPU 0 alone) */
    int spread;           /* the mode spreads its matrices (multi) */
    timing_place_how how;
    double reads;         /* bytes of it the op reads, were it run where it lay */
    double read_before;   /* bytes earlier ops had read of it there */
    double ms;            /* MOVED: the copy, on the host clock */
} timing_place;

#define TIMING_MAX_PLACES 4

/* How a statement ended. */
typedef enum { TIMING_OK, TIMING_ERROR, TIMING_STOPPED } timing_status;

typedef struct {
    char text[160];       /* the statement as typed */
    const cuk_backend *mode;
    double wall_ms;       /* host clock, set-up left out */
    double kernel_ms;     /* sum over the ops */
    double flops, bytes;
    size_t h2d, d2h;      /* bytes copied host->device, device->host */
    double h2d_ms, d2h_ms;/* host clock around those copies */
    double setup_ms;      /* one-time set-up met during the command (not in wall_ms) */
    size_t moved;         /* bytes moved between GPU 0 and the GPUs' row slabs */
    double moved_ms;      /* host clock around those copies */
    size_t pinned;        /* bytes of host memory page-locked (multi's out-of-core matrices) */
    double pinned_ms;
    int nplaces;          /* operands that lay elsewhere than their mode works: */
    timing_place places[TIMING_MAX_PLACES]; /* the first TIMING_MAX_PLACES */
    int failed;           /* timing_status */
    /* Its device work was left queued (timing_defer): wall_ms is the host's
     * share alone and the kernel times are unknown. */
    int queued;
    /* A summary filed by bench or timeit for many runs: kernel_ms and
     * wall_ms are medians, kernel_lo/hi the range of the kernel times;
     * speedup is over cpu measured in the same bench (< 0: unknown), and
     * speedup_noise says the two ranges overlapped. runs is 1 otherwise. */
    int runs;
    double kernel_lo, kernel_hi;
    double speedup;
    int speedup_noise;
    /* The relative error against float64 that bench measured for this
     * mode's result (accuracy.h); NaN where none was measured. */
    double rel_err;
    /* Why the GPU's clocks were held down while its kernels were timed
     * (kernels/gpu_live.h's GPU_SLOW_THROTTLED bits); 0 if they were not,
     * or if nothing timed them or NVML could not say. */
    unsigned slowed;
    int nops;
    timing_op ops[TIMING_MAX_OPS];
} timing_cmd;

/* Whether device kernels are timed from the next statement on. */
void timing_kernel_events(int on);
/* Whether a timed device op's first mark waits behind the gate (on, the
 * default): the op's time is then the device's alone, without the host's
 * launch calls, and the statement's wall time carries the gate's cost
 * (~10 us). Off where the wall time is the measurement: bench's end-to-end
 * runs, timeit's runs for its wall median. */
void timing_gate(int on);

/* Whether a statement may end with its device work still queued: when on
 * and no kernel times are wanted, timing_end files the record without
 * waiting for the device (a script's statements; run.c waits once the
 * script is done, and every host read of a result waits for it anyway). */
void timing_defer(int on);

/* A statement starts / ends (failed: it stopped with an error, or with
 * Ctrl-C when the pending error says so). timing_end waits for the device
 * (unless deferring), turns events into times and files the record; -1 if
 * the device reported an error. */
void timing_begin(const char *text, size_t len, const cuk_backend *mode);
int timing_end(int failed);

/* While quiet, finished records are not filed in the history: the runs of a
 * bench or timeit, which then file one summary each (timing_file). */
void timing_quiet(int on);
/* The last record finished, filed or not; NULL before the first. */
const timing_cmd *timing_last(void);
void timing_file(const timing_cmd *c);

/* Around each backend call. */
int timing_op_begin(const cuk_backend *be);
void timing_op_end(const cuk_backend *be, const char *op, const char *shapes, double flops, double bytes);

/* A copy made to move a matrix to where a mode needs it, and how long the
 * synchronous copy took on the host clock. */
void timing_copied(int to_device, size_t bytes, double ms);

/* What an op did with an operand that lay elsewhere than its mode works
 * (the copy, if it moved, counted in the moved bytes and time). */
void timing_placed(const timing_place *p, size_t bytes);
/* Host memory page-locked for the GPUs, and how long that took. */
void timing_pinned(size_t bytes, double ms);

/* One-time set-up (loading kernels, library handles, plans, a first run of
 * a shape): between begin and end the statement's wall clock stops, and the
 * cost is noted under `what` for `info` (NULL: not noted, nothing was left
 * to do). The device is idle at the end. */
void timing_setup_begin(void);
void timing_setup_end(const char *what);
/* Note a one-time cost measured elsewhere (the CUDA context). */
void timing_onetime_note(const char *what, double ms);
/* The i-th one-time cost noted (oldest first); NULL past the end. */
typedef struct {
    char what[96];
    double ms;
} timing_onetime;
const timing_onetime *timing_onetime_get(int i);

/* Past records: 0 is the newest filed one. NULL if there is none. */
const timing_cmd *timing_history(int i);

/* Monotonic clock in milliseconds. */
double timing_now_ms(void);

#endif
