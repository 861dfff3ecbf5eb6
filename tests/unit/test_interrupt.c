/* test_interrupt.c - Ctrl-C stops every host loop, also inside a row: each
 * op of modes cpu and blas, with the interrupt already pending, returns -1
 * with the cancel error and writes nothing; and the long ones, interrupted
 * a little CPU time after they start (SIGPROF, so a busy machine does not
 * move the moment), stop before they finish: the last element of their
 * output is still the poison it started with. The terminal tests do the
 * same by Ctrl-C at the prompt (tests/terminal.sh). */
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "base/error.h"
#include "kernels/backend.h"
#include "tests/check.h"

static const cuk_ops *ops_of(const char *mode) { return &mode_find(mode)->ops; }

static float *poisoned(size_t n)
{
    float *p = malloc(n * sizeof *p);
    if (!p)
        abort();
    for (size_t i = 0; i < n; i++)
        p[i] = NAN;
    return p;
}

/* The op returned -1 with the cancel error; clear both for the next. */
static void expect_cancelled(const char *what, int rc)
{
    CHECKF(rc == -1, "%s: returned %d, not -1", what, rc);
    CHECKF(cuk_err_get()->kind == CUK_E_CANCEL, "%s: error is '%s', not the interrupt", what, cuk_err_get()->msg);
    cuk_interrupted = 0;
    cuk_err_clear();
}

/* Ctrl-C pending before the op: every op stops at once, writing nothing. */
static void pending_interrupt_stops(const char *mode)
{
    const cuk_ops *o = ops_of(mode);
    const size_t n = 4096;
    float *in = poisoned(n), *out = poisoned(n), v;
    cuk_arg a = {in, 0, 0}, b = {NULL, 2.0f, 1};
    for (size_t i = 0; i < n; i++)
        in[i] = (float)i;
#define STOPS(call)                                                           \
    do {                                                                      \
        cuk_interrupted = 1;                                                  \
        expect_cancelled(#call, call);                                        \
        CHECKF(isnan(out[0]) && isnan(out[n - 1]), "%s wrote its output", #call); \
    } while (0)
    STOPS(o->matmul(out, in, in, 64, 64, 64));
    STOPS(o->transpose(out, in, 64, 64));
    STOPS(o->ewise(CUK_EW_ADD, out, a, b, n));
    STOPS(o->unary(CUK_UN_ABS, out, in, n));
    STOPS(o->fill(out, 1.0f, n));
    STOPS(o->eye(out, 64, 64));
    STOPS(o->random(CUK_RAND_UNIFORM, out, n, 1, 0));
    STOPS(o->copy2d(out, 64, in, 64, 64, 64));
#undef STOPS
    for (int r = 0; r < CUK_RED_COUNT; r++) {
        cuk_interrupted = 1;
        expect_cancelled("reduce", o->reduce[r](&v, in, n));
    }
    cuk_interrupted = 1;
    expect_cancelled("dot", o->dot(&v, in, in, n));
    free(in);
    free(out);
}

static void cpu_pending_interrupt_stops(void) { pending_interrupt_stops("cpu"); }
static void blas_pending_interrupt_stops(void) { pending_interrupt_stops("blas"); }

static void on_prof(int sig) { cuk_interrupted = 1; }

/* Ask for Ctrl-C after ms of this process's CPU time (0: never). */
static void interrupt_after(int ms)
{
    struct itimerval t;
    memset(&t, 0, sizeof t);
    t.it_value.tv_sec = ms / 1000;
    t.it_value.tv_usec = (ms % 1000) * 1000;
    setitimer(ITIMER_PROF, &t, NULL);
}

/* Each of these takes seconds of CPU time uninterrupted; 20 ms in, Ctrl-C.
 * The op must stop early: its output's last element is still poison. */
static void long_ops_stop_inside(void)
{
    const int rows = 4096, cols = 4096;
    const size_t n = (size_t)rows * cols;
    float *in = poisoned(n), *out = poisoned(n);
    for (size_t i = 0; i < n; i++)
        in[i] = 1.0f;
    signal(SIGPROF, on_prof);
#define STOPS_INSIDE(call, last)                                                       \
    do {                                                                               \
        interrupt_after(20);                                                           \
        int rc_ = call;                                                                \
        interrupt_after(0);                                                            \
        expect_cancelled(#call, rc_);                                                  \
        CHECKF(isnan(out[last]), "%s finished although interrupted", #call);           \
        out[last] = NAN;                                                               \
    } while (0)
    /* one row of c is the whole product: the textbook loop checks inside it */
    STOPS_INSIDE(ops_of("cpu")->matmul(out, in, in, 1, cols, rows), cols - 1);
    STOPS_INSIDE(ops_of("cpu")->transpose(out, in, rows, cols), n - 1);
    STOPS_INSIDE(ops_of("cpu")->random(CUK_RAND_NORMAL, out, n, 1, 0), n - 1);
    /* 2 x 4096^3 FLOPs: seconds even for OpenBLAS on 2 cores; the panels stop */
    STOPS_INSIDE(ops_of("blas")->matmul(out, in, in, rows, cols, rows), n - 1);
#undef STOPS_INSIDE
    signal(SIGPROF, SIG_DFL);
    free(in);
    free(out);
}

int main(void)
{
    RUN(cpu_pending_interrupt_stops);
    const char *why;
    if (mode_available(mode_find("blas"), &why))
        RUN(blas_pending_interrupt_stops);
    else
        check_skip("blas_pending_interrupt_stops", why);
    RUN(long_ops_stop_inside);
    return check_exit();
}
