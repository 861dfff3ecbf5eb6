/* perf.h - what the `make bench` programs (bench/perf_*.c) share: device
 * kernel-time medians from event pairs (each run queued behind the engine's
 * gate, so that a pair times the device's work alone), operand
 * sets rotated so that the caches hold none of them between runs, the SM
 * clock logged beside the figures, and one line per measured ratio.
 * Header-only; C11; links the core objects (kernels/gpu.h, the mode table).
 *
 * A ratio is always taken between two medians measured in the same process,
 * turn about (perf_pair), so that clock drift and a neighbour's load fall on
 * both sides alike. */
#ifndef CUK_PERF_H
#define CUK_PERF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernels/gpu.h"

/* Runs one repetition of the measured work; `rep` picks the operand set
 * (rep % sets), so that successive runs read different memory. 0 or -1. */
typedef int perf_fn(void *ctx, int rep);

typedef struct {
    double median, lo, hi; /* milliseconds: median, fastest, slowest */
    int runs;
} perf_time;

/* Runs at least 20 of each, after 3 warm-ups: METHOD.md's medians. */
#define PERF_RUNS 21
#define PERF_WARM 3

/* Exit with the engine's error and where it happened. */
static inline void perf_die(const char *what)
{
    fprintf(stderr, "perf: %s: %s\n", what, cuk_err_get()->msg);
    exit(2);
}

static int perf_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Operand sets of `bytes` each needed so that together they are at least
 * twice the L2: a run then never finds the last run's operands cached. */
static inline int perf_sets(size_t bytes)
{
    size_t l2 = gpu_device()->l2_bytes ? gpu_device()->l2_bytes : (size_t)64 << 20;
    size_t sets = bytes ? (2 * l2 + bytes - 1) / bytes : 1;
    return sets < 1 ? 1 : sets > 64 ? 64 : (int)sets;
}

/* The longest a timed run's first mark waits behind the engine's gate
 * (gpu_gate_close), which perf_pair's gpu_sync opens once the run's
 * launches are queued: the marks time the device's work and not the host's
 * time to launch it, as the engine's timing does. From an idle device the
 * first mark fires at once and the pair takes in the launch call's host
 * work as well: cuBLAS's 10-20 us a call on an H100 against fast's
 * ~3 (at 1037x1055x1031 cuBLAS's kernel runs 70.7 us in Nsight Compute,
 * 72.8 behind a hold and 80-94 without), and at 4096^3 its kernel ran 4%
 * slower from an idle device (2.78 ms against 2.67, Nsight Compute's
 * figure; fast's 3.06 both ways): the pairs made fast look 4-10% better
 * than its kernels are. Fixed holds of 50 us and more gave the same
 * medians, 20 us not quite at 4096^3 (kernels/PERF.md); the
 * gate holds as long as the host takes, up to this. 0 times from an idle
 * device; a bench whose work spans devices sets 0 (the gate is on the
 * engine's one stream, and another device's work would start before the
 * mark). */
#define PERF_HOLD_US 1000.0
static double perf_hold_us = PERF_HOLD_US;

/* Two measured functions, each run `runs` times turn about, each run timed
 * by its own event pair behind the gate (perf_hold_us); medians into ta and
 * tb. Every run, warm-ups and both sides alike, gets the next rep, so
 * that each reads the set after the one the run before it read: giving
 * both sides the same rep would have the second read the operands the
 * first had just brought into L2 (at 1037x1055x1031 all 8.7 MB of them; at
 * 1 x 4096 x 4096 most of b), timing it warm and the first cold. */
static inline void perf_pair(perf_fn *fa, void *ca, perf_time *ta, perf_fn *fb, void *cb, perf_time *tb, int runs)
{
    static gpu_mark *m0, *m1;
    if (!m0) {
        m0 = gpu_mark_new();
        m1 = gpu_mark_new();
        if (!m0 || !m1)
            perf_die("event");
    }
    double *xa = calloc((size_t)runs, sizeof *xa), *xb = calloc((size_t)runs, sizeof *xb);
    if (!xa || !xb)
        perf_die("out of host memory");
    int rep = 0;
    for (int w = 0; w < PERF_WARM; w++)
        if (fa(ca, rep++) || (fb && fb(cb, rep++)) || gpu_sync())
            perf_die("warm-up");
    for (int r = 0; r < runs; r++)
        for (int side = 0; side < (fb ? 2 : 1); side++) {
            perf_fn *f = side ? fb : fa;
            if ((perf_hold_us > 0 && gpu_gate_close(perf_hold_us)) || gpu_mark_record(m0) || f(side ? cb : ca, rep++) ||
                gpu_mark_record(m1) || gpu_sync())
                perf_die("timed run");
            (side ? xb : xa)[r] = gpu_mark_elapsed(m0, m1);
        }
    for (int side = 0; side < (fb ? 2 : 1); side++) {
        double *x = side ? xb : xa;
        perf_time *t = side ? tb : ta;
        qsort(x, (size_t)runs, sizeof *x, perf_cmp_double);
        *t = (perf_time){x[runs / 2], x[0], x[runs - 1], runs};
    }
    free(xa);
    free(xb);
}

/* One function alone. */
static inline perf_time perf_one(perf_fn *f, void *ctx, int runs)
{
    perf_time t;
    perf_pair(f, ctx, &t, NULL, NULL, NULL, runs);
    return t;
}

/* The SM clock, temperature and power as nvidia-smi reads them now, on one
 * line beginning with `when`: a ratio taken while the clock sagged says so. */
static inline void perf_clock_log(const char *when)
{
    FILE *p = popen("nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw "
                    "--format=csv,noheader 2>/dev/null",
                    "r");
    char line[256] = "";
    if (p) {
        if (!fgets(line, sizeof line, p))
            line[0] = 0;
        pclose(p);
    }
    line[strcspn(line, "\n")] = 0;
    printf("# clock %s: %s\n", when, line[0] ? line : "(nvidia-smi gave nothing)");
}

/* Ratio lines read by bench/perf.sh: "ratio <name> <value> <target>", with
 * a human line before it. A target of 0 means none. */
static inline void perf_ratio(const char *name, double value, double target)
{
    printf("ratio %-44s %8.3f  target %s%.2f%s\n", name, value, target > 0 ? ">= " : "", target,
           target > 0 ? (value >= target ? "  ok" : "  MISSED") : "");
}

#endif
