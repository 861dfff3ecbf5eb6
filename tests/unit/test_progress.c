/* test_progress.c - long work's progress (base/error.h: the fraction done
 * and the time left at the pace so far) and the note before a long cpu
 * product (engine/values/eta.h: the estimate, the default rate, the rate learnt
 * from a product, and the modes that are not estimated); the time left
 * starting from the note's estimate and refined from the pace. */
#include <math.h>
#include <stdio.h>
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

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* With an expectation (the note's estimate) the time left starts from it,
 * moves towards the pace as the work goes, and is the pace's alone once a
 * tenth of it is done: one estimate, refined. Each want is computed from
 * the time this test saw pass, so a slow machine changes no verdict. */
static void expectation_refined(void)
{
    double left, f, t0, e;
    cuk_progress_expect(20);
    t0 = now_s();
    CHECK(cuk_check_progress(0, 1000) == 0);
    f = cuk_progress_fraction(&left);
    e = now_s() - t0;
    CHECKF(f == 0 && fabs(left - 1e3 * (20 - e)) < 50, "at the start: %g ms left, want the 20 s expected", left);
    sleep_ms(600);
    CHECK(cuk_check_progress(10, 1000) == 0); /* 1%: too little to go by */
    cuk_progress_fraction(&left);
    e = now_s() - t0;
    CHECKF(fabs(left - 1e3 * (20 - e)) < 50, "1%% done after %g s: %g ms left, want 20 s less the time spent", e, left);
    CHECK(cuk_check_progress(50, 1000) == 0); /* 5%: the pace (e / 0.05 in all) weighed half */
    cuk_progress_fraction(&left);
    e = now_s() - t0;
    CHECKF(fabs(left - 1e3 * (0.5 * e / 0.05 + 0.5 * 20 - e)) < 200, "5%% done after %g s: %g ms left", e, left);
    CHECK(cuk_check_progress(200, 1000) == 0); /* 20%: the pace alone */
    cuk_progress_fraction(&left);
    e = now_s() - t0;
    CHECKF(fabs(left - 1e3 * (e / 0.2 - e)) < 200, "20%% done after %g s: %g ms left, want %g", e, left,
           1e3 * (e / 0.2 - e));
    cuk_progress_done();
    CHECK(cuk_check_progress(0, 10) == 0); /* forgotten: no expectation for the next work */
    cuk_progress_fraction(&left);
    CHECKF(left < 0, "an expectation outlived its work: %g ms left", left);
    cuk_progress_done();
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

/* Each size keeps its own rate: a product is estimated at the rate of the
 * one nearest in size (here one 10 times as fast as the small product
 * learnt by note_before_long_product), and the note and the panel's time
 * left give the same figure. The wants follow the time this test saw. */
static void estimate_by_size(void)
{
    const cuk_backend *cpu = mode_find("cpu");
    static const out_sink sink = {capture, no_flush, NULL};
    double left, t0 = now_s();
    out_set_sink(&sink);
    eta_matmul_begin(cpu, 1000, 1000, 100); /* 2e8 flops in about 100 ms: 2 GFLOP/s */
    sleep_ms(100);
    eta_matmul_end(cpu, 1);
    double took = now_s() - t0;
    double big = eta_matmul_seconds(cpu, 1000, 1000, 1000), small = eta_matmul_seconds(cpu, 100, 100, 1000);
    CHECKF(fabs(big - 10 * took) < 0.1 * big, "2 GFLOP at the rate of 2e8 in %g s: %g s", took, big);
    CHECKF(small > 2 * big / 100, "2e7 flops at the big product's rate (%g s), not its own: %g s", big / 100, small);
    said[0] = '\0';
    int k = (int)(400 / big); /* 1e8 * 2k flops: about 40 s at the big product's rate */
    eta_matmul_begin(cpu, 10000, 10000, k);
    CHECK(cuk_check_progress(0, 10000) == 0);
    cuk_progress_fraction(&left);
    int noted = 0;
    CHECKF(sscanf(said, "note: this cpu product will take about %d s", &noted) == 1 && fabs(left / 1e3 - noted) < 1,
           "the note says '%s', the panel %g s", said, left / 1e3);
    cuk_progress_done();
    eta_matmul_end(cpu, 0);
    out_set_sink(NULL);
}

int main(void)
{
    RUN(fraction_and_time_left);
    RUN(expectation_refined);
    RUN(stops_on_interrupt);
    RUN(note_before_long_product);
    RUN(estimate_by_size);
    return check_exit();
}
