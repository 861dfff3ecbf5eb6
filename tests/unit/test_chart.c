/* test_chart.c - the charts without a clock or a GPU, on made-up results:
 * `present`'s bars on a log scale (cpu near 1 s and three GPU-like kernels
 * of 400, 300 and 80 us get three different lengths; e2e uses the
 * end-to-end times), the bench's bar cells, ticks and labels of the log
 * axes, the x-y chart fitting 80x24 and narrower widths with every axis
 * label, ASCII and colour by TERM and NO_COLOR, the bench table's legend
 * once and its unavailable modes on one line each, and the SVG's escaping
 * of what the user typed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/measure/bench.h"
#include "engine/measure/chart.h"
#include "engine/measure/svg.h"
#include "engine/measure/tables.h"
#include "tests/capture.h"
#include "tests/check.h"

/* A row of mode name measured at ms (kernel) and e2e_ms, 9 runs, +-2%. */
static void fake_row(result_table *t, const char *name, int size, double ms, double e2e_ms)
{
    result_row *r = &t->rows[t->nrows++];
    memset(r, 0, sizeof *r);
    r->mode = mode_find(name);
    r->size = size;
    r->rel_err = NAN;
    r->kernel = (stat_summary){9, ms, ms * 0.97, ms * 1.03, ms * 0.98, ms * 1.02};
    r->wall = r->kernel;
    r->e2e = (stat_summary){9, e2e_ms, e2e_ms * 0.97, e2e_ms * 1.03, e2e_ms * 0.98, e2e_ms * 1.02};
    r->flops = 2.0 * size * size * size;
    r->bytes = 12.0 * size * size;
    snprintf(r->shapes, sizeof r->shapes, "%dx%d @ %dx%d", size, size, size, size);
}

static void unavailable_row(result_table *t, const char *name, const char *why)
{
    result_row *r = &t->rows[t->nrows++];
    memset(r, 0, sizeof *r);
    r->mode = mode_find(name);
    r->rel_err = NAN;
    snprintf(r->why, sizeof r->why, "%s", why);
}

/* The lecture's comparison: cpu about 1 s, the GPU kernels 400, 300 and
 * 80 us, each about 2 ms end to end (the copies). */
static void lecture_bench(result_table *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->expr, sizeof t->expr, "A @ B");
    fake_row(t, "cpu", 0, 1000.0, 1000.0);
    fake_row(t, "naive", 0, 0.400, 2.40);
    fake_row(t, "tiled", 0, 0.300, 2.30);
    fake_row(t, "cublas", 0, 0.080, 2.08);
}

static void present_bars_log(void)
{
    static result_table t;
    int idx[4] = {0, 1, 2, 3}, cells[4];
    lecture_bench(&t);
    chart_present_bars(&t, idx, 4, 0, 60, cells);
    CHECKF(cells[0] == 60, "cpu, the longest, fills the width: %d", cells[0]);
    CHECKF(cells[0] > cells[1] && cells[1] > cells[2] && cells[2] > cells[3] && cells[3] >= 1,
           "bars 1 s, 400 us, 300 us, 80 us: %d %d %d %d cells", cells[0], cells[1], cells[2], cells[3]);
    /* as long as their times, all three GPU bars would be one cell */
    CHECKF((int)(0.400 / 1000 * 60 + 0.5) <= 1, "the linear scale this replaces");
    chart_present_bars(&t, idx, 4, 1, 60, cells);
    CHECKF(cells[0] == 60 && cells[1] > cells[3] && cells[1] - cells[3] <= 2,
           "end to end the GPU bars are nearly equal (copies dominate): %d %d %d %d", cells[0], cells[1], cells[2],
           cells[3]);
    int none[1] = {0};
    t.rows[0].kernel.runs = 0;
    chart_present_bars(&t, none, 1, 0, 60, cells);
    CHECKF(cells[0] == 0, "a row without a time has no bar: %d", cells[0]);
}

/* Display columns of s, escape sequences left out. */
static int columns(const char *s, size_t n)
{
    int w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\033') {
            while (i < n && s[i] != 'm')
                i++;
            continue;
        }
        w += (s[i] & 0xC0) != 0x80;
    }
    return w;
}

/* The widest line captured, in display columns, and how many lines. */
static int widest(int *lines)
{
    int w = 0;
    *lines = 0;
    for (const char *p = captured; *p;) {
        size_t n = strcspn(p, "\n");
        int c = columns(p, n);
        w = c > w ? c : w;
        (*lines)++;
        p += n + (p[n] == '\n');
    }
    return w;
}

static void bench_bar_cells(void)
{
    char buf[512];
    chart_style u = {1, 0}, a = {0, 0};
    size_t n = chart_bar(buf, sizeof buf, 10, 0.5, 0.8, u);
    CHECKF(columns(buf, n) == 10 && strstr(buf, "█████") && strstr(buf, "┤"), "unicode bar: '%s'", buf);
    chart_bar(buf, sizeof buf, 10, 0.5, 0.8, a);
    CHECKF(!strcmp(buf, "#####--|  "), "ascii bar: '%s'", buf);
    chart_bar(buf, sizeof buf, 10, 0.01, 0, a);
    CHECKF(!strcmp(buf, "#         "), "a short time still shows: '%s'", buf);
    chart_bar(buf, sizeof buf, 8, 0.53, 0, u);
    CHECKF(columns(buf, strlen(buf)) == 8 && strstr(buf, "▎"), "eighths of a column: '%s'", buf);
}

static void log_ticks_and_labels(void)
{
    double t[32];
    char b[32];
    int n = chart_ticks(1e-3, 1e2, t, 32);
    CHECKF(n == 6 && t[0] == 1e-3 && t[5] == 100, "decades: %d from %g", n, t[0]);
    n = chart_ticks(30, 300, t, 32);
    CHECKF(n == 3 && t[0] == 50 && t[1] == 100 && t[2] == 200, "1-2-5 steps in a decade: %d: %g %g %g", n, t[0],
           t[1], t[2]);
    CHECK(!strcmp(chart_label(b, sizeof b, 0.1, CHART_MS), "100µs"));
    CHECK(!strcmp(chart_label(b, sizeof b, 1000, CHART_MS), "1s"));
    CHECK(!strcmp(chart_label(b, sizeof b, 1e7, CHART_MS), "10000s"));
    CHECK(!strcmp(chart_label(b, sizeof b, 2e-5, CHART_MS), "20ns"));
    CHECK(!strcmp(chart_label(b, sizeof b, 1000, CHART_GFLOPS), "1T"));
    CHECK(!strcmp(chart_label(b, sizeof b, 0.1, CHART_GFLOPS), "100M"));
    CHECK(!strcmp(chart_label(b, sizeof b, 1000, CHART_COUNT), "1000"));
    CHECK(!strcmp(chart_label(b, sizeof b, 0.01, CHART_RATIO), "0.01"));
}

/* A ladder of cpu (estimated past 512), blas and cublas from 64 to 4096. */
static void fake_ladder(result_table *t)
{
    static const char *const modes[] = {"cpu", "blas", "cublas"};
    memset(t, 0, sizeof *t);
    t->ladder = 1;
    snprintf(t->expr, sizeof t->expr, "A @ B");
    snprintf(t->var, sizeof t->var, "n");
    for (int n = 64; n <= 4096; n *= 2)
        for (int m = 0; m < 3; m++) {
            double n3 = (double)n * n * n / 1e9;
            fake_row(t, modes[m], n, (m == 0 ? 500 : m == 1 ? 20 : 0.05) * n3 + 0.004, 0);
            if (m == 0 && n > 512) {
                result_row *r = &t->rows[t->nrows - 1];
                r->estimated = 1, r->est_kernel_ms = r->kernel.med, r->kernel.runs = 0;
            }
        }
}

static void ladder_chart_fits(void)
{
    static result_table t;
    static const int widths[] = {80, 60, 132};
    fake_ladder(&t);
    out_set_sink(&sink);
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        int lines;
        capture_reset();
        chart_print_ladder(&t, widths[i], (chart_style){1, 0});
        int w = widest(&lines);
        CHECKF(w <= widths[i] && lines <= 24, "%d columns, %d lines at width %d:\n%s", w, lines, widths[i], captured);
        CHECKF(strstr(captured, "1ms") && strstr(captured, "1s") && strstr(captured, "100") &&
                   strstr(captured, "1000") && strstr(captured, "kernel time") && strstr(captured, "n (size)"),
               "an axis label is missing at width %d:\n%s", widths[i], captured);
        CHECKF(strstr(captured, "● cpu") && strstr(captured, "■ blas") && strstr(captured, "▲ cublas"),
               "the legend at width %d:\n%s", widths[i], captured);
    }
    capture_reset();
    chart_print_ladder(&t, 80, (chart_style){0, 0});
    int ascii = 1;
    for (const unsigned char *p = (const unsigned char *)captured; *p; p++)
        ascii &= *p < 0x80 || (p[0] == 0xC2 && p[1] == 0xB5) || (p[-1] == 0xC2 && p[0] == 0xB5); /* µ */
    CHECKF(ascii && strstr(captured, "o cpu") && strstr(captured, "# blas"), "TERM=dumb draws in ASCII:\n%s",
           captured);
    CHECKF(!strchr(captured, '\033'), "no colour asked, none given");
    capture_reset();
    chart_print_ladder(&t, 80, (chart_style){1, 1});
    CHECKF(strstr(captured, "\033[34m●\033[0m cpu"), "colour where allowed:\n%s", captured);
    out_set_sink(NULL);
}

static void style_by_environment(void)
{
    setenv("TERM", "xterm-256color", 1);
    unsetenv("NO_COLOR");
    chart_style s = chart_style_for(1, 0);
    CHECKF(s.unicode && s.colour, "a colour terminal: %d %d", s.unicode, s.colour);
    CHECK(!chart_style_for(0, 0).colour); /* not a terminal: a file, a pipe */
    CHECK(!chart_style_for(1, 1).colour); /* the panel's window takes no escapes */
    setenv("NO_COLOR", "1", 1);
    CHECK(!chart_style_for(1, 0).colour && chart_style_for(1, 0).unicode);
    setenv("NO_COLOR", "", 1); /* empty: as if unset (no-color.org) */
    CHECK(chart_style_for(1, 0).colour);
    setenv("TERM", "dumb", 1);
    s = chart_style_for(1, 0);
    CHECKF(!s.unicode && !s.colour, "TERM=dumb: %d %d", s.unicode, s.colour);
}

/* The legend before the first table only; every unavailable mode on one
 * line of its own. */
static void bench_legend_once(void)
{
    static result_table t;
    cost_ceilings ce;
    memset(&ce, 0, sizeof ce);
    ce.host_gflops = ce.host_core_gflops = 100, ce.host_gbs = 20, ce.host_cores = 4;
    lecture_bench(&t);
    for (int i = 0; i < 5; i++)
        unavailable_row(&t, "fast", "cuk was built without CUDA (nvcc not found at build time), a reason this long");
    out_set_sink(&sink);
    capture_reset();
    bench_print(&t, &ce, 80);
    const char *legend = strstr(captured, "times: medians"), *head = strstr(captured, "  mode ");
    CHECKF(legend && head && legend < head, "the legend before the first table:\n%s", captured);
    int unavailable = 0, continued = 0, lines;
    for (const char *p = captured; *p; p = strchr(p, '\n') + 1) {
        unavailable += !strncmp(p, "  fast     unavailable: ", 24);
        continued += !strncmp(p, "           ", 11); /* a reason wrapped under itself */
        if (!strchr(p, '\n'))
            break;
    }
    CHECKF(unavailable == 5 && continued == 0, "5 unavailable modes on a line each: %d, %d lines wrapped:\n%s",
           unavailable, continued, captured);
    CHECKF(widest(&lines) <= 80, "a line past 80 columns:\n%s", captured);
    capture_reset();
    bench_print(&t, &ce, 80);
    CHECKF(!strstr(captured, "times: medians") && strstr(captured, "  mode "), "the legend again:\n%s", captured);
    capture_reset();
    bench_legend(60);
    CHECKF(strstr(captured, "times: medians") && widest(&lines) <= 60, "help bench's legend:\n%s", captured);
    out_set_sink(NULL);
}

/* A lecture's bench on a GPU machine, every mode available: the heading,
 * the header row and every mode's row fit the 22 lines an 80x24 terminal
 * has under the command and above the prompt. */
static void bench_every_mode_fits_80x24(void)
{
    static const char *const gpu[] = {"naive", "tiled", "fast", "cublas", "tf32", "tf32x3", "multi"};
    static const double ms[] = {0.389, 0.301, 0.081, 0.079, 0.031, 0.046, 0.052};
    static result_table t;
    cost_ceilings ce;
    memset(&ce, 0, sizeof ce);
    ce.device = 1, ce.dev_gflops = 66900, ce.dev_gbs = 4800, ce.dev_onchip_gbs = 33000;
    ce.host_gflops = ce.host_core_gflops = 100, ce.host_gbs = 20, ce.host_cores = 4;
    memset(&t, 0, sizeof t);
    snprintf(t.expr, sizeof t.expr, "A @ B");
    fake_row(&t, "cpu", 0, 1540.0, 1540.0);
    t.rows[0].kernel.runs = t.rows[0].e2e.runs = 3;
    fake_row(&t, "blas", 0, 21.3, 21.3);
    t.rows[1].kernel.runs = t.rows[1].e2e.runs = 96;
    for (int i = 0; i < 7; i++) {
        fake_row(&t, gpu[i], 0, ms[i], ms[i] + 2.9);
        t.rows[2 + i].kernel.runs = 4823, t.rows[2 + i].e2e.runs = 312;
        t.rows[2 + i].rel_err = i == 4 ? 2.1e-4 : 1.2e-7;
    }
    t.rows[3].code = t.rows[5].code = 0;
    out_set_sink(&sink);
    bench_print(&t, &ce, 80); /* the legend, the first time */
    capture_reset();
    bench_print(&t, &ce, 80);
    int lines;
    CHECKF(widest(&lines) <= 80 && lines <= 22, "%d lines:\n%s", lines, captured);
    CHECKF(strstr(captured, "  mode ") && strstr(captured, "  tf32x3 "), "%s", captured);
    out_set_sink(NULL);
}

static void line_cut_at_a_word(void)
{
    out_set_sink(&sink);
    capture_reset();
    tab_line("  naive    ", "no CUDA driver found: the kernel module is not loaded, elementwise words", 40);
    int lines;
    CHECKF(widest(&lines) <= 40 && lines == 1 && strstr(captured, "…\n") && !strstr(captured, "elemen"),
           "'%s'", captured);
    capture_reset();
    tab_line("  x ", "short", 40);
    CHECK(!strcmp(captured, "  x short\n"));
    out_set_sink(NULL);
}

/* What the user typed goes into the SVG escaped, and bytes that are not
 * UTF-8 do not go in at all. */
static void svg_escapes(void)
{
    static result_table t;
    char *text = NULL;
    size_t len = 0;
    svg_meta m = {"GPU <0> & \"host\"", "2025-01-02 03:04"};
    lecture_bench(&t);
    snprintf(t.expr, sizeof t.expr, "load(\"a<&>'\x01\xff.npy\") + B");
    FILE *fp = open_memstream(&text, &len);
    if (!fp) {
        CHECKF(0, "open_memstream failed");
        return;
    }
    svg_bench(fp, &t, &m);
    fclose(fp);
    CHECKF(strstr(text, "bench load(&quot;a&lt;&amp;&gt;&#39; \xEF\xBF\xBD.npy&quot;) + B"), "title:\n%.600s", text);
    CHECKF(strstr(text, "GPU &lt;0&gt; &amp; &quot;host&quot;"), "subtitle:\n%.600s", text);
    CHECK(!strchr(text, '\xff') && !strchr(text, '\x01'));
    CHECK(strstr(text, "id=\"plot-area\"") && strstr(text, "data-series=\"cublas\""));
    int bars = 0;
    for (const char *p = text; (p = strstr(p, "class=\"series\"")); p++)
        bars++;
    CHECKF(bars == 4, "%d series, 4 modes ran", bars);
    free(text);
}

int main(void)
{
    /* The tables here are made up, and must come out the same whatever BLAS
     * this machine has: on the reference BLAS, mode blas's row would bring
     * a note of three lines that an optimised BLAS does not (honest.sh
     * tests that note). */
    setenv("CUK_BLAS", "no BLAS: the tables are made up", 1);
    RUN(present_bars_log);
    RUN(bench_bar_cells);
    RUN(log_ticks_and_labels);
    RUN(ladder_chart_fits);
    RUN(style_by_environment);
    RUN(bench_legend_once);
    RUN(bench_every_mode_fits_80x24);
    RUN(line_cut_at_a_word);
    RUN(svg_escapes);
    return check_exit();
}
