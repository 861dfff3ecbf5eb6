/* test_honest.c - the arithmetic behind honest numbers, without a clock or
 * a GPU: medians, bands and the noise rule (stats.h); the cost model and
 * verdicts of `why` with a made-up H200 (cost.h); the host's peak from a
 * cpuinfo fixture (host.h); speedups, steps and estimates of a result table
 * (results.h); the JSON writer; and the bench and ladder tables fitting the
 * width they are given (bench.h), captured through the output sink; the
 * host's caches as a roof, and mode cpu's product pinned to one core. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <math.h>
#include <sched.h>
#include <string.h>

#include "base/out.h"
#include "engine/measure/bench.h"
#include "engine/session/cost.h"
#include "engine/session/host.h"
#include "engine/session/json.h"
#include "engine/measure/results.h"
#include "engine/run/run.h"
#include "engine/session/stats.h"
#include "kernels/host_threads.h"
#include "tests/check.h"

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) <= 1e-9 * fabs((double)(b)) + 1e-12)

/* ---- stats ---- */

static stat_summary summary_of(const double *v, int n)
{
    double copy[64];
    stat_summary s;
    memcpy(copy, v, (size_t)n * sizeof *v);
    stats_summarise(copy, n, &s);
    return s;
}

static void stats_quantiles(void)
{
    static const double v[] = {5, 1, 4, 2, 3};
    stat_summary s = summary_of(v, 5);
    CHECK(s.runs == 5 && s.med == 3 && s.min == 1 && s.max == 5 && s.q1 == 2 && s.q3 == 4);
    static const double w[] = {4, 1, 3, 2};
    s = summary_of(w, 4);
    CHECKF(s.med == 2.5 && s.q1 == 1.75 && s.q3 == 3.25, "med %g q1 %g q3 %g", s.med, s.q1, s.q3);
    stats_summarise(NULL, 0, &s);
    CHECK(s.runs == 0);
}

/* Identical code measured twice is never a speedup; a clear difference is. */
static void stats_noise_rule(void)
{
    static const double a[] = {10.0, 10.2, 9.9, 10.1, 10.4, 9.8, 30.0};
    static const double b[] = {10.3, 10.0, 10.6, 10.1, 10.2, 10.5, 10.4};
    static const double fast[] = {1.0, 1.01, 0.99, 1.02, 0.98};
    static const double near[] = {9.6, 9.65, 9.7, 9.62, 9.68}; /* 4% faster than a, tight */
    int noise;
    stat_summary sa = summary_of(a, 7), sb = summary_of(b, 7), sf = summary_of(fast, 5), sn = summary_of(near, 5);
    double r = stats_ratio(&sa, &sb, &noise);
    CHECKF(noise && r > 0, "same distribution: ratio %g noise %d", r, noise);
    r = stats_ratio(&sa, &sf, &noise);
    CHECKF(!noise && NEAR(r, 10.1), "10x apart: ratio %g noise %d", r, noise);
    r = stats_ratio(&sa, &sn, &noise);
    CHECKF(noise, "4%% apart is inside the 5%% floor: ratio %g", r);
    stat_summary two = summary_of(fast, 2);
    stats_ratio(&sa, &two, &noise);
    CHECK(noise); /* fewer than 3 runs: no range worth the name */
    stat_summary none = {0};
    CHECK(stats_ratio(&sa, &none, &noise) < 0);
}

static void stats_formats(void)
{
    char b[32];
    CHECK(!strcmp(stats_fmt_ratio(b, sizeof b, 1.4, 1, 0), "~1x (noise)"));
    CHECK(!strcmp(stats_fmt_ratio(b, sizeof b, 467.2, 0, 0), "467x"));
    CHECK(!strcmp(stats_fmt_ratio(b, sizeof b, 39.34, 0, 0), "39.3x"));
    CHECK(!strcmp(stats_fmt_ratio(b, sizeof b, 0.214, 0, 1), "0.21x*"));
    CHECK(!strcmp(stats_fmt_ratio(b, sizeof b, -1, 0, 0), "-"));
}

/* ---- cost model ---- */

/* A made-up H200: 66.9 TFLOP/s, 4.8 TB/s, 33.4 TB/s on chip; a 16-core host. */
static cost_ceilings h200(void)
{
    cost_ceilings c;
    memset(&c, 0, sizeof c);
    c.device = 1;
    snprintf(c.device_name, sizeof c.device_name, "NVIDIA H200 (test)");
    c.dev_gflops = 66900, c.dev_gbs = 4800, c.dev_onchip_gbs = 33450;
    snprintf(c.host_name, sizeof c.host_name, "test host");
    c.host_cores = 16, c.host_gflops = 1536, c.host_core_gflops = 96, c.host_gbs = 20;
    return c;
}

static timing_op product(const char *mode, double ms)
{
    timing_op op;
    const double m = 1037, k = 1055, n = 1031;
    memset(&op, 0, sizeof op);
    snprintf(op.op, sizeof op.op, "matmul");
    snprintf(op.shapes, sizeof op.shapes, "1037x1055 @ 1055x1031");
    op.mode = mode_find(mode);
    op.on_device = mode_on_device(op.mode);
    op.flops = 2 * m * n * k;
    op.bytes = 4 * (m * k + k * n + m * n);
    op.ms = ms;
    op.count = 1;
    return op;
}

static timing_op sum_of(const char *mode, double elements, double ms)
{
    timing_op op;
    memset(&op, 0, sizeof op);
    snprintf(op.op, sizeof op.op, "sum");
    snprintf(op.shapes, sizeof op.shapes, "1x%.0f", elements);
    op.mode = mode_find(mode);
    op.on_device = mode_on_device(op.mode);
    op.flops = elements;
    op.bytes = 4 * elements;
    op.ms = ms;
    op.count = 1;
    return op;
}

static void cost_naive_product(void)
{
    cost_ceilings ce = h200();
    timing_op op = product("naive", 0.389);
    cost_report r;
    const double m = 1037, k = 1055, n = 1031, mnk = m * n * k;
    CHECK(cost_explain(NULL, &op, &ce, &r) == 0);
    CHECK(r.matmul && r.m == 1037 && r.k == 1055 && r.n == 1031 && r.reuse == 1);
    CHECKF(NEAR(r.flops, 2 * mnk), "flops %g", r.flops);
    CHECK(NEAR(r.min_bytes, 4 * (m * k + k * n + m * n)));
    CHECKF(NEAR(r.req_bytes, 4 * (2 * mnk + m * n)), "naive asks for 2 floats per multiply-add: %g", r.req_bytes);
    CHECK(NEAR(r.onchip_bytes, 8 * mnk));
    CHECKF(fabs(r.frac_compute - 2 * mnk / 0.389e-3 / 66.9e12) < 1e-9, "compute fraction %g", r.frac_compute);
    CHECKF(r.frac_memory > 1, "its requests outrun memory (the caches serve them): %g", r.frac_memory);
    CHECKF(r.bound == COST_MEMORY, "naive: bound by %s", cost_bound_name(r.bound));
}

static void cost_tiled_product(void)
{
    cost_ceilings ce = h200();
    timing_op op = product("tiled", 0.301);
    cost_report r;
    const double mnk = 1037.0 * 1031 * 1055;
    CHECK(cost_explain(NULL, &op, &ce, &r) == 0);
    CHECKF(NEAR(r.req_bytes, 4 * (2 * mnk / 16 + 1037.0 * 1031)), "a 16x16 tile cuts the loads 16-fold: %g",
           r.req_bytes);
    CHECKF(r.frac_onchip > 0.85 && r.frac_onchip < 0.95, "shared memory at %g", r.frac_onchip);
    CHECKF(r.bound == COST_ONCHIP, "tiled: bound by %s", cost_bound_name(r.bound));
}

/* multi runs on every GPU: its percent of peak is of all of them, and a
 * one-GPU mode's stays of one. */
static void cost_multi_peak(void)
{
    cost_ceilings ce = h200();
    ce.dev_count = 2;
    double rate;
    int compute;
    double one = cost_percent(&ce, mode_find("cublas"), 2e12, 1e9, 40.0, &rate, &compute);
    double all = cost_percent(&ce, mode_find("multi"), 2e12, 1e9, 40.0, &rate, &compute);
    CHECKF(compute && NEAR(one, 2 * all), "cublas %g%%, multi %g%% of their peaks at the same rate", one, all);
    ce.dev_count = 1;
    CHECK(NEAR(cost_percent(&ce, mode_find("multi"), 2e12, 1e9, 40.0, &rate, &compute), one));
}

static void cost_cublas_product(void)
{
    cost_ceilings ce = h200();
    timing_op op = product("cublas", 0.079);
    cost_report r;
    CHECK(cost_explain(NULL, &op, &ce, &r) == 0);
    CHECK(r.reuse == 0 && NEAR(r.req_bytes, r.min_bytes) && r.onchip_bytes == 0);
    CHECKF(r.bound == COST_COMPUTE, "cublas: bound by %s", cost_bound_name(r.bound));
    CHECKF(r.frac_compute > 0.4 && r.frac_compute < 0.45, "compute %g", r.frac_compute);
}

static void cost_sums(void)
{
    cost_ceilings ce = h200();
    cost_report r;
    timing_op small = sum_of("tiled", 1037.0 * 1055, 0.008), big = sum_of("tiled", 268435456.0, 0.26);
    CHECK(cost_explain(NULL, &small, &ce, &r) == 0);
    CHECKF(r.bound == COST_LAUNCH, "a 4 MB sum in 8 us: bound by %s (ideal %g ms)", cost_bound_name(r.bound),
           r.ideal_ms);
    CHECK(NEAR(r.ideal_ms, 1e3 * 4 * 1037.0 * 1055 / 4800e9));
    CHECK(cost_explain(NULL, &big, &ce, &r) == 0);
    CHECKF(r.bound == COST_MEMORY && r.frac_memory > 0.8, "a 1 GB sum: bound by %s at %g", cost_bound_name(r.bound),
           r.frac_memory);
}

static void cost_copies_and_host(void)
{
    cost_ceilings ce = h200();
    cost_report r;
    timing_cmd c;
    memset(&c, 0, sizeof c);
    timing_op op = product("cublas", 0.079);
    c.h2d = 8750000, c.h2d_ms = 1.9, c.d2h = 4276000, c.d2h_ms = 1.1;
    CHECK(cost_explain(&c, &op, &ce, &r) == 0);
    CHECKF(r.bound == COST_COPIES && NEAR(r.copy_ms, 3.0), "bound by %s", cost_bound_name(r.bound));
    op = product("cpu", 958);
    CHECK(cost_explain(NULL, &op, &ce, &r) == 0);
    CHECK(r.peak_gflops == 96 && r.bw_gbs == 20 && !strcmp(r.where, "one core of the host"));
    op = product("blas", 2.05);
    CHECK(cost_explain(NULL, &op, &ce, &r) == 0);
    CHECKF(r.peak_gflops == 1536 && r.bound == COST_COMPUTE, "blas: %g, %s", r.peak_gflops, cost_bound_name(r.bound));
}

/* n x n x n in mode `mode` taking ms. */
static timing_op cube(const char *mode, double n, double ms)
{
    timing_op op = product(mode, ms);
    snprintf(op.shapes, sizeof op.shapes, "%.0fx%.0f @ %.0fx%.0f", n, n, n, n);
    op.flops = 2 * n * n * n;
    op.bytes = 12 * n * n;
    return op;
}

/* A host product whose operands fit in the last level of cache is judged
 * against the caches, not memory; a scalar loop far below every ceiling
 * is bound by its instructions' latency; one too short to time has no
 * rate and says so. The host: 16 cores, 20 GB/s memory, 32 MiB of cache,
 * 200 GB/s within L2 on a core. */
static void cost_host_roofs(void)
{
    cost_ceilings ce = h200(), bare = h200();
    ce.host_cache_bytes = 32 << 20, ce.host_core_cache_gbs = 200;
    cost_report r;
    char buf[64];
    timing_op op = cube("cpu", 400, 60); /* 1.92 MB, 2.1 GFLOP/s: the textbook loop's pace */
    CHECK(cost_explain(NULL, &op, &ce, &r) == 0);
    CHECKF(r.in_cache && NEAR(r.bw_gbs, 200) && NEAR(r.mem_gbs, 20), "cache %d at %g, memory %g", r.in_cache,
           r.bw_gbs, r.mem_gbs);
    CHECKF(r.bound == COST_LATENCY && r.frac_compute < 0.03 && r.frac_memory < 0.05, "400^2 cpu: %s at %g, %g",
           cost_bound_name(r.bound), r.frac_compute, r.frac_memory);
    CHECK(cost_explain(NULL, &op, &bare, &r) == 0); /* no cache facts: memory, as before */
    CHECKF(!r.in_cache && r.bound == COST_MEMORY, "without caches: %s", cost_bound_name(r.bound));
    op = cube("cpu", 400, 3); /* loads at 171 GB/s: the caches are the roof */
    CHECK(cost_explain(NULL, &op, &ce, &r) == 0);
    CHECKF(r.bound == COST_CACHE && r.frac_memory > 0.8, "fast 400^2: %s at %g", cost_bound_name(r.bound),
           r.frac_memory);
    op = cube("blas", 400, 0.5); /* 256 GFLOP/s of 1536 */
    CHECK(cost_explain(NULL, &op, &ce, &r) == 0);
    CHECKF(r.bound == COST_COMPUTE && NEAR(r.bw_gbs, 16 * 200.0), "blas 400^2 fast: %s, %g GB/s",
           cost_bound_name(r.bound), r.bw_gbs);
    op = cube("blas", 400, 50);
    CHECK(cost_explain(NULL, &op, &ce, &r) == 0);
    CHECKF(r.bound == COST_LATENCY && r.host_threads == 16, "blas 400^2 slow: %s", cost_bound_name(r.bound));
    op = sum_of("cpu", 268435456.0, 60); /* 1 GB: memory, not the caches */
    CHECK(cost_explain(NULL, &op, &ce, &r) == 0);
    CHECKF(!r.in_cache && r.bound == COST_MEMORY, "1 GB sum: %s", cost_bound_name(r.bound));
    op = sum_of("blas", 5, 0.002); /* a 2 us op of five floats */
    CHECK(cost_explain(NULL, &op, &ce, &r) == 0);
    CHECKF(r.bound == COST_SHORT, "2 us: %s", cost_bound_name(r.bound));
    double rate;
    int compute;
    cost_ceilings_set(&ce);
    CHECKF(!strcmp(cost_rate_text(&op, buf, sizeof buf), "too short to time"), "rate '%s'", buf);
    CHECK(cost_percent(&ce, op.mode, op.flops, op.bytes, op.ms, &rate, &compute) < 0 && rate < 0);
    op.ms = COST_RATE_MIN_MS; /* from there on, a rate */
    CHECKF(strstr(cost_rate_text(&op, buf, sizeof buf), "/s"), "rate '%s'", buf);
    cost_ceilings_set(NULL);
}

/* ---- the host ---- */

static void host_peak_from_cpuinfo(void)
{
    static const char fixture[] =
        "processor\t: 0\nmodel name\t: Test CPU\nphysical id\t: 0\ncore id\t\t: 0\ncpu MHz\t\t: 2100.000\n"
        "flags\t\t: fpu sse2 avx avx2 fma avx512f\n\n"
        "processor\t: 1\nmodel name\t: Test CPU\nphysical id\t: 0\ncore id\t\t: 0\ncpu MHz\t\t: 2200.000\n\n"
        "processor\t: 2\nmodel name\t: Test CPU\nphysical id\t: 0\ncore id\t\t: 1\ncpu MHz\t\t: 1800.000\n\n"
        "processor\t: 3\nmodel name\t: Test CPU\nphysical id\t: 1\ncore id\t\t: 0\ncpu MHz\t\t: 2000.000\n\n";
    host_facts h;
    host_parse(fixture, 0, &h);
    CHECKF(h.logical == 4 && h.cores == 3, "logical %d cores %d", h.logical, h.cores);
    CHECKF(h.simd_floats == 16 && h.fma && !strcmp(h.simd, "AVX-512"), "%d %s", h.simd_floats, h.simd);
    CHECKF(NEAR(h.clock_ghz, 2.2) && NEAR(h.peak_gflops, 3 * 16 * 2 * 2.2), "clock %g peak %g", h.clock_ghz,
           h.peak_gflops);
    host_parse(fixture, 3000000, &h); /* cpufreq's maximum wins */
    CHECK(NEAR(h.clock_ghz, 3.0) && NEAR(h.core_gflops, 96) && !strcmp(h.clock_from, "cpufreq max"));
    host_parse("processor : 0\nflags : fpu sse2\n", 0, &h);
    CHECK(h.simd_floats == 4 && !h.fma && h.cores == 1);
}

/* ---- results ---- */

static void fake_stat(stat_summary *s, double med, double spread, int runs)
{
    s->runs = runs;
    s->med = med;
    s->min = med * (1 - 2 * spread), s->max = med * (1 + 2 * spread);
    s->q1 = med * (1 - spread), s->q3 = med * (1 + spread);
}

/* cpu, blas, naive, tiled, fast (unavailable), cublas at the lecture's size. */
static void fake_bench(result_table *t)
{
    static const struct {
        const char *mode;
        double kernel, e2e;
    } rows[] = {{"cpu", 958, 958},      {"blas", 2.05, 2.06}, {"naive", 0.389, 24.5},
                {"tiled", 0.301, 24.3}, {"fast", 0, 0},       {"cublas", 0.079, 24.1}};
    memset(t, 0, sizeof *t);
    snprintf(t->expr, sizeof t->expr, "A @ B");
    snprintf(t->err_ref, sizeof t->err_ref, "float64");
    t->seed = 1;
    for (int i = 0; i < 6; i++) {
        result_row *r = &t->rows[t->nrows++];
        r->mode = mode_find(rows[i].mode);
        snprintf(r->shapes, sizeof r->shapes, "1037x1055 @ 1055x1031");
        r->flops = 2.0 * 1037 * 1031 * 1055;
        r->bytes = 4.0 * (1037 * 1055 + 1055 * 1031 + 1037 * 1031);
        r->rel_err = 1.2e-7 * (i + 1);
        if (!rows[i].kernel) {
            snprintf(r->why, sizeof r->why, "the fast kernel is not written yet (use tiled or cublas)");
            continue;
        }
        fake_stat(&r->kernel, rows[i].kernel, 0.01, i == 0 ? 3 : 500);
        fake_stat(&r->wall, rows[i].kernel * 1.05, 0.01, r->kernel.runs);
        fake_stat(&r->e2e, rows[i].e2e, 0.02, i == 0 ? 3 : 40);
    }
}

static void results_ratios(void)
{
    static result_table t;
    fake_bench(&t);
    res_ratio x = res_speedup(&t, 5, mode_reference(), 0);
    CHECKF(!x.noise && NEAR(x.x, 958 / 0.079), "cublas over cpu %g", x.x);
    x = res_speedup(&t, 2, mode_reference(), 1);
    CHECKF(NEAR(x.x, 958 / 24.5), "naive end to end over cpu %g (the lecture's 39x)", x.x);
    x = res_speedup(&t, 0, mode_reference(), 0);
    CHECK(x.x == 1 && !x.noise);
    x = res_step(&t, 5); /* over tiled: fast is unavailable */
    CHECKF(NEAR(x.x, 0.301 / 0.079), "step %g", x.x);
    CHECK(res_speedup(&t, 4, mode_reference(), 0).x < 0);
    t.rows[3].kernel = t.rows[2].kernel; /* tiled timed like naive */
    CHECK(res_step(&t, 3).noise);
    t.rows[1].code = t.rows[0].code = 42; /* blas running cpu's code: noise, whatever the clock says */
    CHECK(res_speedup(&t, 1, mode_reference(), 0).noise);
    t.rows[5].kernel.runs = 0, t.rows[5].estimated = 1, t.rows[5].est_kernel_ms = 0.1;
    x = res_speedup(&t, 5, mode_reference(), 0);
    CHECK(x.est && NEAR(x.x, 9580));
}

/* ---- JSON ---- */

static void json_writer(void)
{
    json_buf j;
    json_begin(&j);
    json_str(&j, "a", "x\"y\\\n");
    json_open_arr(&j, "b");
    json_num(&j, NULL, 1.5);
    json_num(&j, NULL, NAN);
    json_open_obj(&j, NULL);
    json_bool(&j, "c", 1);
    json_close(&j);
    json_close(&j);
    json_int(&j, "d", -3);
    const char *text = json_end(&j);
    CHECKF(text && !strcmp(text, "{\"a\":\"x\\\"y\\\\\\u000a\",\"b\":[1.5,null,{\"c\":true}],\"d\":-3}"), "%s",
           text ? text : "(null)");
    json_free(&j);
}

/* ---- the tables fit ---- */

static char shown[1 << 16];

static void capture(void *ud, out_channel ch, const char *s, size_t n)
{
    size_t have = strlen(shown);
    snprintf(shown + have, sizeof shown - have, "%.*s", (int)n, s);
}

static void no_flush(void *ud) {}

/* The widest line of what was shown, in display columns. */
static int widest(void)
{
    int w = 0, cur = 0;
    for (const unsigned char *p = (const unsigned char *)shown; *p; p++) {
        if (*p == '\n')
            w = cur > w ? cur : w, cur = 0;
        else
            cur += (*p & 0xC0) != 0x80;
    }
    return cur > w ? cur : w;
}

static void bench_fits(void)
{
    static const out_sink sink = {capture, no_flush, NULL};
    static result_table t;
    cost_ceilings ce = h200();
    fake_bench(&t);
    t.rows[1].code = t.rows[0].code = 7; /* cpu and blas the same code: a noise cell */
    out_set_sink(&sink);
    for (int width = 50; width <= 140; width += 10) {
        shown[0] = '\0';
        bench_print(&t, &ce, width);
        CHECKF(widest() <= width, "a line of %d columns at width %d:\n%s", widest(), width, shown);
        CHECKF(strstr(shown, "  fast ") && strstr(shown, "unavailable: the fast kernel"), "the unavailable row at %d",
               width);
        CHECKF(strstr(shown, "~1x (noise)"), "no noise cell at %d", width);
        CHECKF(strstr(shown, "39.1x"), "no end-to-end speedup of naive at %d:\n%s", width, shown);
        CHECKF(strstr(shown, "12127x"), "no kernel speedup of cublas at %d", width);
        CHECKF(strstr(shown, "cublas") && strstr(shown, "1.2e-07"), "rows or errors missing at %d", width);
    }
    out_set_sink(NULL);
}

static void ladder_fits(void)
{
    static const out_sink sink = {capture, no_flush, NULL};
    static result_table t;
    static const int sizes[] = {256, 512, 1024, 2048, 4096};
    memset(&t, 0, sizeof t);
    snprintf(t.expr, sizeof t.expr, "A @ B");
    snprintf(t.var, sizeof t.var, "n");
    for (int j = 0; j < 5; j++)
        for (int m = 0; m < 2; m++) {
            result_row *r = &t.rows[t.nrows++];
            double n3 = pow(sizes[j] / 256.0, 3);
            r->mode = mode_find(m ? "blas" : "cpu");
            r->size = sizes[j];
            if (m == 0 && j >= 3) { /* cpu past the limit: estimated */
                r->estimated = 1;
                r->est_kernel_ms = r->est_e2e_ms = 15 * n3;
                continue;
            }
            fake_stat(&r->kernel, (m ? 0.1 : 15) * n3, 0.01, 3);
            r->e2e = r->kernel;
        }
    out_set_sink(&sink);
    shown[0] = '\0';
    ladder_print(&t, sizes, 5, 80);
    out_set_sink(NULL);
    CHECKF(widest() <= 80, "a line of %d columns:\n%s", widest(), shown);
    CHECKF(strstr(shown, "~7.68 s*") && strstr(shown, "~61.44 s*"), "estimates not marked:\n%s", shown);
    CHECKF(!strstr(shown, " 7.68 s"), "an estimate printed as a measurement:\n%s", shown);
}

/* `why` and `roofline` through the command, on records of GPU products and
 * sums filed by hand and a made-up H200: the verdicts a GPU programmer would give. */
static void file_record(const char *text, timing_op op)
{
    timing_cmd c;
    memset(&c, 0, sizeof c);
    snprintf(c.text, sizeof c.text, "%s", text);
    c.mode = op.mode;
    c.runs = 1;
    c.speedup = -1;
    c.rel_err = NAN; /* no bench measured it */
    c.nops = 1;
    c.ops[0] = op;
    c.kernel_ms = op.ms;
    c.flops = op.flops;
    c.bytes = op.bytes;
    timing_file(&c);
}

static const char *run_shown(cuk_session *s, const char *src)
{
    static const out_sink sink = {capture, no_flush, NULL};
    shown[0] = '\0';
    out_set_sink(&sink);
    run_source(s, src, strlen(src), "test", 1, 1);
    out_set_sink(NULL);
    return shown;
}

static void why_verdicts(void)
{
    static const struct {
        const char *text, *mode;
        double ms;
        const char *verdict;
    } cases[] = {{"C = A @ B", "naive", 0.389, "verdict    bound by memory: its loads ask for 8 bytes per"},
                 {"C = A @ B", "tiled", 0.301, "verdict    bound by on-chip memory: the 16x16 tiles"},
                 {"C = A @ B", "cublas", 0.079, "verdict    bound by compute: it reaches 43% of the FP32"},
                 {"s = sum(A)", "tiled", 0.008, "verdict    bound by launch latency"},
                 {"s = sum(x)", "tiled", 0.26, "verdict    bound by memory: it streams its data at"}};
    cost_ceilings ce = h200();
    cuk_session *s = session_new(NULL);
    cost_ceilings_set(&ce);
    for (size_t i = 0; s && i < sizeof cases / sizeof cases[0]; i++) {
        timing_op op = cases[i].text[0] == 'C'
                           ? product(cases[i].mode, cases[i].ms)
                           : sum_of(cases[i].mode, cases[i].ms < 0.1 ? 1037.0 * 1055 : 268435456.0, cases[i].ms);
        file_record(cases[i].text, op);
        const char *out = run_shown(s, "why");
        CHECKF(strstr(out, cases[i].verdict), "%s in %s: no '%s' in:\n%s", cases[i].text, cases[i].mode,
               cases[i].verdict, out);
        CHECKF(widest() <= 80, "why is %d columns wide", widest());
    }
    const char *out = run_shown(s, "roofline");
    int lines = 0;
    for (const char *p = out; *p; p++)
        lines += *p == '\n';
    CHECKF(lines <= 24 && widest() <= 80, "roofline: %d lines, %d columns", lines, widest());
    CHECKF(strstr(out, "GPU: NVIDIA H200 (test)") && strstr(out, " tiled ") && strstr(out, " cublas ") &&
               strstr(out, " naive "),
           "roofline:\n%s", out);
    cost_ceilings_set(NULL);
    session_free(s);
}

/* `why` on the host, in plain words: the textbook loop's 400^2 product,
 * whose operands fit in the cache, is bound by its instructions' latency
 * (not "by memory" at a quarter of it); a 2 us slice is too short to time. */
static void why_host_verdicts(void)
{
    cost_ceilings ce = h200();
    cuk_session *s = session_new(NULL);
    ce.host_cache_bytes = 32 << 20, ce.host_core_cache_gbs = 200;
    cost_ceilings_set(&ce);
    file_record("C = A @ B", cube("cpu", 400, 60));
    const char *out = run_shown(s, "why");
    CHECKF(strstr(out, "verdict    bound by instruction latency: it is far below every") && !strstr(out, "by memory") &&
               strstr(out, "within the caches"),
           "400^2 cpu product:\n%s", out);
    CHECKF(widest() <= 80, "why is %d columns wide", widest());
    file_record("s = A[0:1, 0:5]", sum_of("blas", 5, 0.002));
    out = run_shown(s, "why");
    CHECKF(strstr(out, "reached    kernel 2.0 µs: too short to time for a rate") &&
               strstr(out, "verdict    too short to time: 2.0 µs is mostly the call") && !strstr(out, "B/s ="),
           "2 us slice:\n%s", out);
    cost_ceilings_set(NULL);
    session_free(s);
}

/* Mode cpu's product runs pinned to one core: host_pin leaves the thread
 * on the CPU it was on, alone; host_unpin gives back every CPU it had. */
static void cpu_pinned(void)
{
    cpu_set_t before, during, after;
    host_pinning pin;
    if (sched_getaffinity(0, sizeof before, &before) != 0 || CPU_COUNT(&before) < 2) {
        check_skip("cpu_pinned", "this process may run on one CPU only");
        return;
    }
    check_begin("cpu_pinned");
    CHECK(host_pin(&pin) == 0 && pin.pinned);
    CHECK(sched_getaffinity(0, sizeof during, &during) == 0);
    CHECKF(CPU_COUNT(&during) == 1 && CPU_ISSET(sched_getcpu(), &during), "pinned to %d CPUs", CPU_COUNT(&during));
    host_unpin(&pin);
    CHECK(sched_getaffinity(0, sizeof after, &after) == 0 && CPU_EQUAL(&before, &after));
    check_end();
}

int main(void)
{
    RUN(stats_quantiles);
    RUN(stats_noise_rule);
    RUN(stats_formats);
    RUN(cost_naive_product);
    RUN(cost_tiled_product);
    RUN(cost_cublas_product);
    RUN(cost_multi_peak);
    RUN(cost_sums);
    RUN(cost_copies_and_host);
    RUN(cost_host_roofs);
    RUN(host_peak_from_cpuinfo);
    RUN(results_ratios);
    RUN(json_writer);
    RUN(bench_fits);
    RUN(ladder_fits);
    RUN(why_verdicts);
    RUN(why_host_verdicts);
    cpu_pinned();
    return check_exit();
}
