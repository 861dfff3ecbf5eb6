/* timing.c - per-command cost records (see timing.h). */
#include "engine/timing.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/fmt.h"

#define REF_RUNS 64

/* The process's timing state (one session per process, see session.h). */
static struct {
    timing_cmd cur;                       /* the statement being timed */
    int active, device_work;
    int events_on, events_now;            /* CUDA events wanted / in use for cur */
    double cmd_t0, op_t0;
    gpu_mark *marks[2 * TIMING_MAX_OPS];  /* start and end of each op of cur */
    timing_cmd hist[TIMING_HISTORY];      /* finished statements, a ring */
    int hist_n, hist_next;
    struct {
        char op[16], shapes[64];
        double ms;
    } refs[REF_RUNS];                     /* ops run in the reference mode, a ring */
    int ref_next;
} T = {.events_on = 1};

double timing_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void timing_kernel_events(int on) { T.events_on = on; }

void timing_begin(const char *text, size_t len, const cuk_backend *mode)
{
    memset(&T.cur, 0, sizeof T.cur);
    size_t n = len < sizeof T.cur.text - 1 ? len : sizeof T.cur.text - 1;
    for (size_t i = 0; i < n; i++)
        T.cur.text[i] = (text[i] == '\n' || text[i] == '\t') ? ' ' : text[i];
    T.cur.mode = mode;
    T.active = 1;
    T.device_work = 0;
    T.events_now = T.events_on;
    T.cmd_t0 = timing_now_ms();
}

/* The row an op goes to: its own, or the last one once the record is full. */
static int op_slot(void) { return T.cur.nops < TIMING_MAX_OPS ? T.cur.nops : TIMING_MAX_OPS - 1; }

static int record_mark(int i)
{
    if (!T.marks[i] && !(T.marks[i] = gpu_mark_new()))
        return -1;
    return gpu_mark_record(T.marks[i]);
}

int timing_op_begin(const cuk_backend *be)
{
    if (!T.active)
        return 0;
    if (!mode_on_device(be)) {
        T.op_t0 = timing_now_ms();
        return 0;
    }
    T.device_work = 1;
    if (!T.events_now || T.cur.nops >= TIMING_MAX_OPS) /* folded: the last row's start mark stays */
        return 0;
    return record_mark(2 * op_slot());
}

void timing_op_end(const cuk_backend *be, const char *op, const char *shapes, double flops, double bytes)
{
    if (!T.active)
        return;
    int i = op_slot();
    timing_op *o = &T.cur.ops[i];
    if (T.cur.nops < TIMING_MAX_OPS) {
        snprintf(o->op, sizeof o->op, "%s", op);
        snprintf(o->shapes, sizeof o->shapes, "%s", shapes);
        o->mode = be;
        o->on_device = mode_on_device(be);
        o->ms = 0;
        T.cur.nops++;
    } else {
        snprintf(o->op, sizeof o->op, "(%d more)", o->count);
        o->shapes[0] = '\0';
    }
    o->count++;
    o->flops += flops;
    o->bytes += bytes;
    if (!mode_on_device(be))
        o->ms += timing_now_ms() - T.op_t0;
    else if (T.events_now && record_mark(2 * i + 1) != 0)
        cuk_err_clear(); /* the time is lost, the result is not */
}

void timing_moved(size_t h2d, size_t d2h)
{
    if (!T.active)
        return;
    T.cur.h2d += h2d;
    T.cur.d2h += d2h;
    if (h2d)
        T.device_work = 1;
}

/* Keep the ops of a finished reference-mode command for timing_speedup. */
static void remember_reference(void)
{
    for (int i = 0; i < T.cur.nops; i++) {
        snprintf(T.refs[T.ref_next].op, sizeof T.refs[0].op, "%s", T.cur.ops[i].op);
        snprintf(T.refs[T.ref_next].shapes, sizeof T.refs[0].shapes, "%s", T.cur.ops[i].shapes);
        T.refs[T.ref_next].ms = T.cur.ops[i].ms;
        T.ref_next = (T.ref_next + 1) % REF_RUNS;
    }
}

int timing_end(int failed)
{
    int rc = 0;
    if (!T.active)
        return 0;
    T.active = 0;
    while (T.device_work && cuk_progress() && gpu_idle() == 0) /* the panel shows the time meanwhile */
        ;
    if (T.device_work)
        rc = gpu_sync();
    for (int i = 0; i < T.cur.nops; i++) {
        timing_op *o = &T.cur.ops[i];
        if (o->on_device)
            o->ms = rc == 0 && T.events_now ? gpu_mark_elapsed(T.marks[2 * i], T.marks[2 * i + 1]) : -1;
        T.cur.kernel_ms += o->ms > 0 ? o->ms : 0;
        T.cur.flops += o->flops;
        T.cur.bytes += o->bytes;
    }
    T.cur.wall_ms = timing_now_ms() - T.cmd_t0;
    T.cur.failed = failed || rc != 0;
    if (!T.cur.failed && T.cur.mode && T.cur.mode->reference)
        remember_reference();
    T.hist[T.hist_next] = T.cur;
    T.hist_next = (T.hist_next + 1) % TIMING_HISTORY;
    if (T.hist_n < TIMING_HISTORY)
        T.hist_n++;
    return rc;
}

const timing_cmd *timing_history(int i)
{
    if (i < 0 || i >= T.hist_n)
        return NULL;
    return &T.hist[(T.hist_next - 1 - i + TIMING_HISTORY) % TIMING_HISTORY];
}

double timing_speedup(const timing_op *op)
{
    if (!op->mode || op->mode->reference || op->ms <= 0)
        return -1;
    for (int k = 1; k <= REF_RUNS; k++) {
        int i = (T.ref_next - k + REF_RUNS) % REF_RUNS;
        if (T.refs[i].op[0] && !strcmp(T.refs[i].op, op->op) && !strcmp(T.refs[i].shapes, op->shapes))
            return T.refs[i].ms > 0 ? T.refs[i].ms / op->ms : -1;
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
