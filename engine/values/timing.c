/* timing.c - per-command cost records (see timing.h). */
#include "engine/values/timing.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/fmt.h"
#include "kernels/gpu_live.h"
#include "kernels/user.h"

#define ONETIME_MAX 48

/* The longest a timed op's gate holds the stream if nothing opens it (see
 * timing_op_begin): far more than an op's launch calls take once its
 * one-time set-up is done (warm.h), short enough that a wait the gate
 * was not opened for costs little. */
#define TIMING_GATE_US 1000.0

/* The process's timing state (one session per process, see session.h). */
static struct {
    timing_cmd cur;                       /* the statement being timed */
    timing_cmd last;                      /* the last one finished */
    int have_last;
    int active, device_work, quiet, defer;
    int events_on, events_now;            /* CUDA events wanted / in use for cur */
    int gate;                             /* timing_gate */
    double cmd_t0, op_t0, setup_t0;
    gpu_mark *marks[2 * TIMING_MAX_OPS];  /* start and end of each op of cur */
    /* The kernel time an op of cur measured itself (a user mode's, in its
     * helper process: its marks would time the copies to it too); < 0 none. */
    double own_ms[TIMING_MAX_OPS];
    timing_cmd hist[TIMING_HISTORY];      /* filed statements, a ring */
    int hist_n, hist_next;
    timing_onetime onetime[ONETIME_MAX]; /* one-time costs, oldest first */
    int nonetime;
} T = {.events_on = 1, .gate = 1};

double timing_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void timing_kernel_events(int on) { T.events_on = on; }

void timing_gate(int on) { T.gate = on; }

void timing_quiet(int on) { T.quiet = on; }

void timing_defer(int on) { T.defer = on; }

void timing_begin(const char *text, size_t len, const cuk_backend *mode)
{
    char flat[sizeof T.cur.text];
    size_t n = len < sizeof flat - 1 ? len : sizeof flat - 1;
    memset(&T.cur, 0, sizeof T.cur);
    for (size_t i = 0; i < n; i++) /* one line; what else it holds is shown escaped */
        flat[i] = (text[i] == '\n' || text[i] == '\t') ? ' ' : text[i];
    fmt_escape(T.cur.text, sizeof T.cur.text, flat, n);
    T.cur.mode = mode;
    T.cur.runs = 1;
    T.cur.speedup = -1;
    T.cur.rel_err = NAN;
    T.active = 1;
    T.device_work = 0;
    for (int i = 0; i < TIMING_MAX_OPS; i++)
        T.own_ms[i] = -1;
    T.events_now = T.events_on;
    if (T.events_now)
        gpu_live_mark();
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
    user_kernel_ms_take(); /* a time left by an op outside the record is not this op's */
    if (!T.active)
        return 0;
    if (!mode_on_device(be)) {
        T.op_t0 = timing_now_ms();
        return 0;
    }
    T.device_work = 1;
    if (!T.events_now || T.cur.nops >= TIMING_MAX_OPS) /* folded: the last row's start mark stays */
        return 0;
    /* The start mark behind the gate, which timing_op_end opens once the
     * op's launches are queued: the mark fires when they are all there,
     * and the op's time is the device's. From an idle device the mark
     * fired at once and the time took in the launch calls' host work:
     * 10-20 us for a cuBLAS call (kernels/PERF.md). Not for a
     * mode that spreads an op over GPUs: its marks are on GPU 0's stream
     * alone, and its ops wait on the others. */
    if (T.gate && !be->spread && gpu_gate_close(TIMING_GATE_US) != 0)
        return -1;
    if (record_mark(2 * op_slot()) != 0) {
        gpu_gate_open();
        return -1;
    }
    return 0;
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
    double own = user_kernel_ms_take();
    if (own >= 0)
        T.own_ms[i] = (T.own_ms[i] > 0 ? T.own_ms[i] : 0) + own;
    if (!mode_on_device(be))
        o->ms += timing_now_ms() - T.op_t0;
    else if (T.events_now && record_mark(2 * i + 1) != 0)
        cuk_err_clear(); /* the time is lost, the result is not */
    gpu_gate_open();
}

void timing_copied(int to_device, size_t bytes, double ms)
{
    if (!T.active)
        return;
    if (to_device) {
        T.cur.h2d += bytes;
        T.cur.h2d_ms += ms;
        T.device_work = 1;
    } else {
        T.cur.d2h += bytes;
        T.cur.d2h_ms += ms;
    }
}

void timing_placed(const timing_place *p, size_t bytes)
{
    if (!T.active)
        return;
    if (T.cur.nplaces < TIMING_MAX_PLACES)
        T.cur.places[T.cur.nplaces] = *p;
    T.cur.nplaces++;
    if (p->how == TIMING_PLACE_MOVED) {
        T.cur.moved += bytes;
        T.cur.moved_ms += p->ms;
        T.device_work = 1;
    }
}

void timing_pinned(size_t bytes, double ms)
{
    if (!T.active)
        return;
    T.cur.pinned += bytes;
    T.cur.pinned_ms += ms;
}

/* ---- one-time set-up ---- */

void timing_onetime_note(const char *what, double ms)
{
    timing_onetime *o = &T.onetime[T.nonetime < ONETIME_MAX ? T.nonetime++ : ONETIME_MAX - 1];
    snprintf(o->what, sizeof o->what, "%s", what);
    o->ms = ms;
}

const timing_onetime *timing_onetime_get(int i) { return i >= 0 && i < T.nonetime ? &T.onetime[i] : NULL; }

/* Device work queued before the set-up belongs to the command: wait for it
 * first, on the command's clock. */
static void quiet_sync(void)
{
    if (gpu_sync() != 0) /* the error shows again at the command's own sync */
        cuk_err_clear();
}

/* Set-up's kernels are no statement's: `count` leaves them uncounted. */
void timing_setup_begin(void)
{
    quiet_sync();
    gpu_counters_hold();
    T.setup_t0 = timing_now_ms();
}

void timing_setup_end(const char *what)
{
    quiet_sync(); /* the set-up's device work is set-up too */
    gpu_counters_resume();
    double ms = timing_now_ms() - T.setup_t0;
    if (T.active)
        T.cur.setup_ms += ms;
    if (what)
        timing_onetime_note(what, ms);
}

/* ---- closing and filing ---- */

static void file_record(const timing_cmd *c)
{
    T.hist[T.hist_next] = *c;
    T.hist_next = (T.hist_next + 1) % TIMING_HISTORY;
    if (T.hist_n < TIMING_HISTORY)
        T.hist_n++;
}

void timing_file(const timing_cmd *c) { file_record(c); }

const timing_cmd *timing_last(void) { return T.have_last ? &T.last : NULL; }

int timing_end(int failed)
{
    int rc = 0;
    if (!T.active)
        return 0;
    T.active = 0;
    /* Nothing waits for a queued statement's kernels: the next host read
     * of a result, or the end of the script, does (the device runs them in
     * stream order meanwhile, and the launch floor is the host's alone). */
    T.cur.queued = T.device_work && T.defer && !T.events_now && !failed;
    while (T.device_work && !T.cur.queued && cuk_progress() && gpu_idle() == 0) /* the panel shows the time */
        ;
    if (T.device_work && !T.cur.queued)
        rc = gpu_sync();
    for (int i = 0; i < T.cur.nops; i++) {
        timing_op *o = &T.cur.ops[i];
        if (o->on_device && T.own_ms[i] >= 0)
            o->ms = T.own_ms[i];
        else if (o->on_device)
            o->ms = rc == 0 && T.events_now ? gpu_mark_elapsed(T.marks[2 * i], T.marks[2 * i + 1]) : -1;
        T.cur.kernel_ms += o->ms > 0 ? o->ms : 0;
        T.cur.flops += o->flops;
        T.cur.bytes += o->bytes;
    }
    T.cur.wall_ms = timing_now_ms() - T.cmd_t0 - T.cur.setup_ms;
    /* after the clock: whether NVML saw the clocks held down meanwhile */
    if (T.device_work && T.events_now && rc == 0)
        T.cur.slowed = gpu_live_slowed_since(0) & GPU_SLOW_THROTTLED;
    T.cur.kernel_lo = T.cur.kernel_hi = T.cur.kernel_ms;
    if (failed || rc != 0)
        T.cur.failed = cuk_err_get()->kind == CUK_E_CANCEL ? TIMING_STOPPED : TIMING_ERROR;
    T.last = T.cur;
    T.have_last = 1;
    if (!T.quiet)
        file_record(&T.cur);
    return rc;
}

const timing_cmd *timing_history(int i)
{
    if (i < 0 || i >= T.hist_n)
        return NULL;
    return &T.hist[(T.hist_next - 1 - i + TIMING_HISTORY) % TIMING_HISTORY];
}
