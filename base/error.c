/* error.c - the engine's error slot and interrupt flag (see error.h). */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "base/fmt.h"

static cuk_error err_slot;

volatile sig_atomic_t cuk_interrupted;

/* A message is one line, and what it quotes (a file name, a token) came
 * from the user: its control characters are escaped here, once for every
 * message, so that none can reach the terminal (fmt_escape). */
static int err_vset(cuk_errkind kind, size_t pos, const char *fmt, va_list ap)
{
    char raw[sizeof err_slot.msg];
    int n = vsnprintf(raw, sizeof raw, fmt, ap);
    err_slot.kind = kind;
    err_slot.pos = pos;
    fmt_escape(err_slot.msg, sizeof err_slot.msg, raw, n < 0 ? 0 : (size_t)n < sizeof raw ? (size_t)n : sizeof raw - 1);
    return -1;
}

int cuk_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(CUK_E_USER, CUK_NOPOS, fmt, ap);
    va_end(ap);
    return -1;
}

int cuk_err_at(size_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(CUK_E_USER, pos, fmt, ap);
    va_end(ap);
    return -1;
}

int cuk_err_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(CUK_E_FATAL, CUK_NOPOS, fmt, ap);
    va_end(ap);
    return -1;
}

int cuk_err_cancel(void)
{
    err_slot.kind = CUK_E_CANCEL;
    err_slot.pos = CUK_NOPOS;
    snprintf(err_slot.msg, sizeof err_slot.msg, "interrupted");
    return -1;
}

const cuk_error *cuk_err_get(void) { return &err_slot; }

void cuk_err_restore(const cuk_error *e) { err_slot = *e; }

void cuk_err_locate(size_t pos)
{
    if (err_slot.pos == CUK_NOPOS)
        err_slot.pos = pos;
}

void cuk_err_clear(void)
{
    err_slot.kind = CUK_E_NONE;
    err_slot.pos = CUK_NOPOS;
    err_slot.msg[0] = '\0';
}

/* The front end's progress hook, and how far long work has got (error.h). */
static struct {
    int (*fn)(void *);
    void *ud;
    int shown;       /* what fn last said: 1 while it shows progress */
    struct timespec last;
    double fraction; /* of the work under way; < 0: none reports */
    struct timespec started;
    double expect_s; /* cuk_progress_expect; <= 0: none */
} progress = {.fraction = -1};

void cuk_set_progress(int (*fn)(void *ud), void *ud)
{
    progress.fn = fn;
    progress.ud = ud;
    progress.shown = fn != NULL;
}

int cuk_progress(void)
{
    struct timespec now;
    if (!progress.fn)
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((now.tv_sec - progress.last.tv_sec) * 1000 + (now.tv_nsec - progress.last.tv_nsec) / 1000000 >= 100) {
        progress.last = now;
        progress.shown = progress.fn(progress.ud);
    }
    return progress.shown;
}

int cuk_check_interrupt(void)
{
    cuk_progress();
    return cuk_interrupted ? cuk_err_cancel() : 0;
}

static double seconds_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

int cuk_check_progress(size_t done, size_t total)
{
    if (done == 0)
        clock_gettime(CLOCK_MONOTONIC, &progress.started);
    progress.fraction = total ? (double)done / (double)total : 0;
    return cuk_check_interrupt();
}

void cuk_progress_done(void)
{
    progress.fraction = -1;
    progress.expect_s = 0;
}

void cuk_progress_expect(double seconds) { progress.expect_s = seconds; }

/* The pace counts for all once this fraction of the work is done; before,
 * it is weighed against the expectation in proportion. */
#define PACE_TRUSTED 0.1

double cuk_progress_fraction(double *left_ms)
{
    double f = progress.fraction, spent = f >= 0 ? seconds_since(&progress.started) : 0;
    /* the pace is worth a forecast once a little of the work and time are behind */
    double paced = f >= 0.02 && spent >= 0.5 ? spent / f : -1, total = paced;
    if (f >= 0 && progress.expect_s > 0) {
        double w = paced > 0 ? (f < PACE_TRUSTED ? f / PACE_TRUSTED : 1) : 0;
        total = w * paced + (1 - w) * progress.expect_s;
    }
    *left_ms = total > 0 ? 1e3 * (total > spent ? total - spent : 0) : -1;
    return f;
}
