/* out.c - the output sink (see out.h). */
#include "base/out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first write to stdout that failed (an errno value), and whether one to
 * stderr did: output that was lost must not go unnoticed (see out.h). */
static struct {
    int out_err;
    int err_lost;
    int told;
} lost;

/* Note a failed write or flush of f. Only stdout's first errno is kept:
 * later failures are its echoes. */
static void note(FILE *f, int failed)
{
    if (!failed)
        return;
    if (f == stderr)
        lost.err_lost = 1;
    else if (!lost.out_err)
        lost.out_err = errno ? errno : EIO;
}

void out_std_write(out_channel ch, const char *s, size_t n)
{
    FILE *f = ch == OUT_ERROR ? stderr : stdout;
    if (ch == OUT_ERROR)
        note(stdout, fflush(stdout) != 0); /* keep the two streams in order on a terminal */
    errno = 0;
    note(f, fwrite(s, 1, n, f) != n);
}

void out_std_flush(void)
{
    errno = 0;
    note(stdout, fflush(stdout) != 0);
    errno = 0;
    note(stderr, fflush(stderr) != 0);
}

int out_std_check(void)
{
    out_std_flush();
    if (!lost.out_err && ferror(stdout)) /* written by stdio directly (--version) */
        lost.out_err = EIO;
    if (lost.out_err && !lost.told) {
        lost.told = 1;
        fprintf(stderr, "cuk: cannot write standard output: %s\n", strerror(lost.out_err));
        fflush(stderr);
    }
    return lost.out_err ? -1 : 0;
}

int out_std_close(void)
{
    int rc = out_std_check();
    errno = 0;
    if (fclose(stdout) != 0 && rc == 0) { /* a disk full found only now, as NFS may */
        lost.out_err = errno ? errno : EIO;
        rc = out_std_check();
    }
    return rc || lost.err_lost ? -1 : 0;
}

static void std_write(void *ud, out_channel ch, const char *s, size_t n) { out_std_write(ch, s, n); }

static void std_flush(void *ud) { out_std_flush(); }

static const out_sink std_sink = {std_write, std_flush, NULL};
static const out_sink *sink = &std_sink;

void out_set_sink(const out_sink *s) { sink = s ? s : &std_sink; }

static FILE *tee;
static int tee_errno; /* of the tee's first failed write; 0 while none failed */

void out_set_tee(FILE *f)
{
    tee = f;
    tee_errno = 0;
}

FILE *out_tee(void) { return tee; }

/* Keep the errno of the tee's first failure: a later write may set another. */
static void tee_failed(int failed)
{
    if (failed && !tee_errno)
        tee_errno = errno ? errno : EIO;
}

int out_tee_error(void)
{
    tee_failed(tee && ferror(tee));
    return tee_errno;
}

static struct {
    void (*fn)(void *ud, out_channel ch, const char *s, size_t n);
    void *ud;
} tap;

void out_set_tap(void (*fn)(void *ud, out_channel ch, const char *s, size_t n), void *ud)
{
    tap.fn = fn;
    tap.ud = ud;
}

static void out_write(out_channel ch, const char *s, size_t n)
{
    sink->write(sink->ud, ch, s, n);
    if (tee) /* a flush inside fwrite may fail while fwrite counts the bytes taken */
        tee_failed(fwrite(s, 1, n, tee) != n || ferror(tee));
    if (tap.fn)
        tap.fn(tap.ud, ch, s, n);
}

void out_flush(void)
{
    sink->flush(sink->ud);
    if (tee)
        tee_failed(fflush(tee) != 0 || ferror(tee));
}

static void out_vprintf(out_channel ch, const char *fmt, va_list ap)
{
    char small[1024];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof small) {
        out_write(ch, small, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (big) {
            vsnprintf(big, (size_t)n + 1, fmt, ap2);
            out_write(ch, big, (size_t)n);
            free(big);
        }
    }
    va_end(ap2);
}

void out_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    out_vprintf(OUT_NORMAL, fmt, ap);
    va_end(ap);
}

void out_errorf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    out_vprintf(OUT_ERROR, fmt, ap);
    va_end(ap);
}
