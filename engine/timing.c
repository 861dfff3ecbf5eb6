/* timing.c - per-command cost records (see timing.h). */
#include "engine/timing.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/fmt.h"

#define REF_RUNS 64

static timing_cmd cur;
static int active, device_work;
static int events_on = 1, events_now;
static double cmd_t0, op_t0;
static gpu_mark *marks[2 * TIMING_MAX_OPS];

static timing_cmd hist[TIMING_HISTORY];
static int hist_n, hist_next;

static struct {
    char op[16], shapes[64];
    double ms;
} ref_runs[REF_RUNS];
static int ref_next;

double timing_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void timing_kernel_events(int on) { events_on = on; }

void timing_begin(const char *text, size_t len, const cuk_backend *mode)
{
    memset(&cur, 0, sizeof cur);
    size_t n = len < sizeof cur.text - 1 ? len : sizeof cur.text - 1;
    for (size_t i = 0; i < n; i++)
        cur.text[i] = (text[i] == '\n' || text[i] == '\t') ? ' ' : text[i];
    cur.mode = mode;
    active = 1;
    device_work = 0;
    events_now = events_on;
    cmd_t0 = timing_now_ms();
}

/* The row an op goes to: its own, or the last one once the record is full. */
static int op_slot(void) { return cur.nops < TIMING_MAX_OPS ? cur.nops : TIMING_MAX_OPS - 1; }

static int record_mark(int i)
{
    if (!marks[i] && !(marks[i] = gpu_mark_new()))
        return -1;
    return gpu_mark_record(marks[i]);
}

int timing_op_begin(const cuk_backend *be)
{
    if (!active)
        return 0;
    if (!mode_on_device(be)) {
        op_t0 = timing_now_ms();
        return 0;
    }
    device_work = 1;
    if (!events_now || cur.nops >= TIMING_MAX_OPS) /* folded: the last row's start mark stays */
        return 0;
    return record_mark(2 * op_slot());
}

void timing_op_end(const cuk_backend *be, const char *op, const char *shapes, double flops, double bytes)
{
    if (!active)
        return;
    int i = op_slot();
    timing_op *o = &cur.ops[i];
    if (cur.nops < TIMING_MAX_OPS) {
        snprintf(o->op, sizeof o->op, "%s", op);
        snprintf(o->shapes, sizeof o->shapes, "%s", shapes);
        o->mode = be;
        o->on_device = mode_on_device(be);
        o->ms = 0;
        cur.nops++;
    } else {
        snprintf(o->op, sizeof o->op, "(%d more)", o->count);
        o->shapes[0] = '\0';
    }
    o->count++;
    o->flops += flops;
    o->bytes += bytes;
    if (!mode_on_device(be))
        o->ms += timing_now_ms() - op_t0;
    else if (events_now && record_mark(2 * i + 1) != 0)
        cuk_err_clear(); /* the time is lost, the result is not */
}

void timing_moved(size_t h2d, size_t d2h)
{
    if (!active)
        return;
    cur.h2d += h2d;
    cur.d2h += d2h;
    if (h2d)
        device_work = 1;
}

/* Keep the ops of a finished reference-mode command for timing_speedup. */
static void remember_reference(void)
{
    for (int i = 0; i < cur.nops; i++) {
        snprintf(ref_runs[ref_next].op, sizeof ref_runs[0].op, "%s", cur.ops[i].op);
        snprintf(ref_runs[ref_next].shapes, sizeof ref_runs[0].shapes, "%s", cur.ops[i].shapes);
        ref_runs[ref_next].ms = cur.ops[i].ms;
        ref_next = (ref_next + 1) % REF_RUNS;
    }
}

int timing_end(int failed)
{
    int rc = 0;
    if (!active)
        return 0;
    active = 0;
    while (device_work && cuk_progress() && gpu_idle() == 0) /* the panel shows the time meanwhile */
        ;
    if (device_work)
        rc = gpu_sync();
    for (int i = 0; i < cur.nops; i++) {
        timing_op *o = &cur.ops[i];
        if (o->on_device)
            o->ms = rc == 0 && events_now ? gpu_mark_elapsed(marks[2 * i], marks[2 * i + 1]) : -1;
        cur.kernel_ms += o->ms > 0 ? o->ms : 0;
        cur.flops += o->flops;
        cur.bytes += o->bytes;
    }
    cur.wall_ms = timing_now_ms() - cmd_t0;
    cur.failed = failed || rc != 0;
    if (!cur.failed && cur.mode && cur.mode->reference)
        remember_reference();
    hist[hist_next] = cur;
    hist_next = (hist_next + 1) % TIMING_HISTORY;
    if (hist_n < TIMING_HISTORY)
        hist_n++;
    return rc;
}

const timing_cmd *timing_history(int i)
{
    if (i < 0 || i >= hist_n)
        return NULL;
    return &hist[(hist_next - 1 - i + TIMING_HISTORY) % TIMING_HISTORY];
}

double timing_speedup(const timing_op *op)
{
    if (!op->mode || op->mode->reference || op->ms <= 0)
        return -1;
    for (int k = 1; k <= REF_RUNS; k++) {
        int i = (ref_next - k + REF_RUNS) % REF_RUNS;
        if (ref_runs[i].op[0] && !strcmp(ref_runs[i].op, op->op) && !strcmp(ref_runs[i].shapes, op->shapes))
            return ref_runs[i].ms > 0 ? ref_runs[i].ms / op->ms : -1;
    }
    return -1;
}

const char *timing_rate(const timing_op *op, char *buf, size_t cap)
{
    char r[32];
    const gpu_info *dev = op->on_device ? gpu_device() : NULL;
    int compute = op->flops > 4 * op->bytes; /* matmul-like: count FLOPs, else bytes */
    buf[0] = '\0';
    if (op->ms <= 0)
        return buf;
    double per_s = (compute ? op->flops : op->bytes) / (op->ms * 1e-3);
    double peak = !dev ? 0 : compute ? dev->peak_gflops * 1e9 : dev->mem_bw_gbs * 1e9;
    fmt_rate(r, sizeof r, per_s, compute ? "FLOP" : "B");
    if (peak > 0)
        snprintf(buf, cap, "%s (%.1f%% of peak)", r, 100 * per_s / peak);
    else
        snprintf(buf, cap, "%s", r);
    return buf;
}
