/* host_threads.h - a small parallel-for over a fixed pool of host threads,
 * for mode blas: one thread per CPU this process may run on (CUK_THREADS
 * overrides), started on first use, never at cuk's start.
 *
 * host_parallel(fn, ctx, n, grain) splits [0, n) into `parts` contiguous
 * ranges, the same ranges every time for the same n and thread count, and
 * runs fn on each, part 0 on the calling thread. Callers that combine
 * per-part results (sums) do so in part order, so their results depend
 * only on n and the thread count, never on timing. */
#ifndef CUK_HOST_THREADS_H
#define CUK_HOST_THREADS_H

#include <stddef.h>

/* Works on [lo, hi), which is part `part`; 0, or nonzero if it stopped
 * because host_stopping said so. */
typedef int host_task_fn(void *ctx, size_t lo, size_t hi, int part);

/* The most parts a job is split into. */
#define HOST_MAX_PARTS 256

/* The threads the pool runs (the calling thread counted), starting it if
 * it has not started. */
int host_threads(void);

/* How many parts host_parallel splits n units into: one per thread, but
 * none smaller than grain units (small work stays on one thread). */
int host_parts(size_t n, size_t grain);

/* Run fn over [0, n) in host_parts(n, grain) parts and wait for all; 0, or
 * -1 with the engine error set if Ctrl-C stopped it. */
int host_parallel(host_task_fn *fn, void *ctx, size_t n, size_t grain);

/* For fn, between chunks of work: nonzero once the user asked to stop.
 * On part 0 (the calling thread) it is cuk_check_interrupt, which also
 * gives the front end's progress hook its turn. */
int host_stopping(int part);

/* memcpy of n bytes on every thread: the host's bandwidth ceiling. */
int host_copy(void *dst, const void *src, size_t n);

/* A one-thread kernel (mode cpu) pinned to the core the calling thread is
 * on, so that it runs there from start to end: a thread the scheduler
 * moves mid-product meets cold caches, or lands beside another on one
 * core, and the same product's runs then differ by twice. host_pin saves
 * the thread's CPUs in *saved and pins it (0; -1 if it could not, or
 * there is one CPU: the kernel then runs as it is); host_unpin gives
 * them back. */
typedef struct {
    unsigned char mask[128]; /* a cpu_set_t's bytes */
    int pinned;
} host_pinning;
int host_pin(host_pinning *saved);
void host_unpin(const host_pinning *saved);

#endif
