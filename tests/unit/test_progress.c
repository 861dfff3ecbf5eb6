/* test_progress.c - long work's progress (base/error.h: the fraction done
 * and the time left at the pace so far) and the note before a long cpu
 * product (engine/values/eta.h: the estimate, the default rate, the rate learnt
 * from a product, and the modes that are not estimated). */
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/out.h"
#include "engine/values/eta.h"
#include "kernels/backend.h"
#include "tests/check.h"

static char said[512];

static void capture(void *ud, out_channel ch, const char *s, size_t n)
{
    size_t have = strlen(said);
    if (have + n < sizeof said)
        memcpy(said + have, s, n), said[have + n] = '\0';
}

static void no_flush(void *ud) {}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void fraction_and_time_left(void)
{
    double left;
    CHECK(cuk_progress_fraction(&left) < 0);
    CHECK(cuk_check_progress(0, 10) == 0);
    CHECK(cuk_progress_fraction(&left) == 0 && left < 0);
    sleep_ms(600);
    CHECK(cuk_check_progress(5, 10) == 0);
    double f = cuk_progress_fraction(&left);
    CHECKF(f == 0.5 && left > 450 && left < 1500, "half done after 0.6 s: fraction %g, %g ms left", f, left);
    cuk_progress_done();
    CHECK(cuk_progress_fraction(&left) < 0);
}

static void stops_on_interrupt(void)
{
    double left;
    cuk_interrupted = 1;
    CHECK(cuk_check_progress(3, 10) != 0 && cuk_err_get()->kind == CUK_E_CANCEL);
    cuk_interrupted = 0;
    cuk_err_clear();
    cuk_progress_done();
    CHECK(cuk_progress_fraction(&left) < 0);
}

/* A cpu product is estimated at 1 GFLOP/s until one of some size has run;
 * only estimates past ETA_NOTE_S are said. */
static void note_before_long_product(void)
{
    const cuk_backend *cpu = mode_find("cpu"), *blas = mode_find("blas");
    static const out_sink sink = {capture, no_flush, NULL};
    out_set_sink(&sink);
    CHECKF(eta_matmul_seconds(cpu, 1000, 1000, 1000) == 2.0, "default: %g s", eta_matmul_seconds(cpu, 1000, 1000, 1000));
    CHECK(eta_matmul_seconds(blas, 4096, 4096, 4096) < 0);
    said[0] = '\0';
    eta_matmul_begin(cpu, 1000, 1000, 1000);
    eta_matmul_end(cpu, 0); /* failed: nothing learnt */
    CHECKF(said[0] == '\0', "a 2 s product was noted: %s", said);
    eta_matmul_begin(cpu, 2000, 2000, 5000);
    eta_matmul_end(cpu, 0);
    CHECKF(!strcmp(said, "note: this cpu product will take about 40 s (Ctrl-C stops it)\n"), "said: %s", said);
    said[0] = '\0';
    eta_matmul_begin(cpu, 4096, 4096, 4096);
    eta_matmul_end(cpu, 0);
    CHECKF(!strcmp(said, "note: this cpu product will take about 2 min (Ctrl-C stops it)\n"), "said: %s", said);
    eta_matmul_begin(cpu, 100, 100, 1000); /* 2e7 flops in about 100 ms: 0.2 GFLOP/s */
    sleep_ms(100);
    eta_matmul_end(cpu, 1);
    double s = eta_matmul_seconds(cpu, 1000, 1000, 1000);
    CHECKF(s > 5 && s < 10.5, "after a product at about 0.2 GFLOP/s, 2 GFLOP take %g s", s);
    out_set_sink(NULL);
}

int main(void)
{
    RUN(fraction_and_time_left);
    RUN(stops_on_interrupt);
    RUN(note_before_long_product);
    return check_exit();
}
