/* timing.h - what each command cost: one record per statement, holding every
 * kernel it ran (operation, mode, shapes, kernel time, FLOPs, bytes), its
 * wall time and the bytes it moved between host and device. `time on`, the
 * panel and `bench` all read these records.
 *
 * Kernel time is measured with CUDA events around device kernels and with
 * the host clock around host kernels; wall time is the host clock around the
 * whole statement, after the device has finished. The events cost about 3 µs
 * a kernel, a fifth of a small command, so they are recorded only while
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
    double bytes;         /* bytes the kernel must read and write */
    double ms;            /* kernel time; < 0 while unknown */
    int count;            /* >1 when later ops were folded into this row */
} timing_op;

typedef struct {
    char text[160];       /* the statement as typed */
    const cuk_backend *mode;
    double wall_ms;
    double kernel_ms;     /* sum over the ops */
    double flops, bytes;
    size_t h2d, d2h;      /* bytes copied host->device, device->host */
    int failed;           /* the statement stopped with an error or Ctrl-C */
    int nops;
    timing_op ops[TIMING_MAX_OPS];
} timing_cmd;

/* Whether device kernels are timed from the next statement on. */
void timing_kernel_events(int on);

/* A statement starts / ends (failed: it stopped with an error). timing_end
 * waits for the device, turns events into times and files the record; -1
 * if the device reported an error. */
void timing_begin(const char *text, size_t len, const cuk_backend *mode);
int timing_end(int failed);

/* Around each backend call. */
int timing_op_begin(const cuk_backend *be);
void timing_op_end(const cuk_backend *be, const char *op, const char *shapes, double flops, double bytes);

/* Copies made to move a matrix to where a mode needs it. */
void timing_moved(size_t h2d, size_t d2h);

/* Past records: 0 is the newest finished one. NULL if there is none. */
const timing_cmd *timing_history(int i);

/* How many times faster op ran than the same op on the same shapes last ran
 * in the reference mode (cpu); < 0 if that is unknown or op is itself a
 * reference run. The one definition of "speedup over the CPU". */
double timing_speedup(const timing_op *op);

/* Monotonic clock in milliseconds. */
double timing_now_ms(void);

/* Rate lines for one op: "7.50 TFLOP/s (11.2% of peak)" into buf. */
const char *timing_rate(const timing_op *op, char *buf, size_t cap);

#endif
