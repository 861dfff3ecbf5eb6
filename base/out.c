/* out.c - the output sink (see out.h). */
#include "base/out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void out_std_write(out_channel ch, const char *s, size_t n)
{
    if (ch == OUT_ERROR)
        fflush(stdout); /* keep the two streams in order on a terminal */
    fwrite(s, 1, n, ch == OUT_ERROR ? stderr : stdout);
}

void out_std_flush(void)
{
    fflush(stdout);
    fflush(stderr);
}

static void std_write(void *ud, out_channel ch, const char *s, size_t n) { out_std_write(ch, s, n); }

static void std_flush(void *ud) { out_std_flush(); }

static const out_sink std_sink = {std_write, std_flush, NULL};
static const out_sink *sink = &std_sink;

void out_set_sink(const out_sink *s) { sink = s ? s : &std_sink; }

static FILE *tee;

void out_set_tee(FILE *f) { tee = f; }
FILE *out_tee(void) { return tee; }

static void out_write(out_channel ch, const char *s, size_t n)
{
    sink->write(sink->ud, ch, s, n);
    if (tee)
        fwrite(s, 1, n, tee);
}

void out_flush(void)
{
    sink->flush(sink->ud);
    if (tee)
        fflush(tee);
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
