/* bench.c - `bench [MODES:] EXPR`: the same expression in every mode, or in
 * the modes named, side by side: kernel and end-to-end times with their
 * runs and spread, rate, % of the ceiling, speedups over cpu and blas (the
 * noise rule: overlapping ranges read "~1x (noise)"), the step over the rung
 * above, and the error against float64; and `timeit [N] STMT`. The runs go
 * through measure.h; the table fits the session's width (tables.h). */
#include "engine/measure/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "base/out.h"
#include "engine/measure/accuracy.h"
#include "engine/measure/chart.h"
#include "engine/lang/commands.h"
#include "engine/lang/eval.h"
#include "engine/measure/measure.h"
#include "engine/measure/tables.h"
#include "engine/session/snapshot.h"

#define BENCH_SHARE_MS 500.0
#define BENCH_RUN_LIMIT_MS 10000.0 /* a mode whose one run is predicted longer is not run */
#define BENCH_MIN_RUNS 3
#define BENCH_MAX_RUNS 100000
#define TIMEIT_BUDGET_MS 1000.0
#define TIMEIT_MAX_RUNS 100000

/* The row of lane i: the i-th row of an available mode that runs (not
 * one whose time is only predicted). */
static int lane_row(const result_table *t, int i)
{
    for (int k = 0; k < t->nrows; k++)
        if (res_available(&t->rows[k]) && !t->rows[k].estimated && i-- == 0)
            return k;
    return -1;
}

static void fill_errors(cuk_session *s, const ast *e, measure_lane *lanes, int n, result_table *t)
{
    acc_ref *r = malloc(sizeof *r);
    int have = r ? acc_reference(s, e, r) : 0;
    if (have > 0)
        snprintf(t->err_ref, sizeof t->err_ref, "float64");
    for (int i = 0; have == 0 && r && i < n; i++)
        if (lanes[i].be->reference && lanes[i].value && acc_from(lanes[i].value, r) > 0) {
            snprintf(t->err_ref, sizeof t->err_ref, "%s", lanes[i].be->name);
            t->err_mode = lanes[i].be;
            have = 1;
        }
    if (have < 0)
        cuk_err_clear(); /* no error column is no reason to fail the bench */
    for (int i = 0; have > 0 && i < n; i++)
        if (lanes[i].value)
            t->rows[lane_row(t, i)].rel_err = acc_error(lanes[i].value, r);
    free(r);
}

/* ---- the table ---- */

static const tab_col bench_cols[] = {
    {"mode", 7, 0, 0},    {"runs", 7, 1, 0},        {"kernel", 9, 1, 0},   {"±", 5, 1, 0},     {"end-to-end", 10, 1, 0},
    {"±", 5, 1, 0},       {"e2e vs cpu", 11, 1, 0}, {"log time", 8, 0, 1}, {"rate", 12, 1, 0}, {"% peak", 6, 1, 0},
    {"vs cpu", 11, 1, 0}, {"vs blas", 11, 1, 0},    {"step", 11, 1, 0},    {"error", 8, 1, 0},
};
#define BENCH_COLS ((int)(sizeof bench_cols / sizeof bench_cols[0]))

static void spread_cell(char *c, const stat_summary *s)
{
    double p = stats_spread_pct(s);
    if (s->runs)
        snprintf(c, TAB_CELL, p < 10 ? "±%.1f%%" : p < 100 ? "±%.0f%%" : ">±99%%", p);
}

/* The bar of row i: its kernel time and the top of its spread (the third
 * quartile) as fractions of a log scale over every row's time. */
static void bar_cell(char *c, const result_table *t, int i)
{
    double v[2 * RESULT_MAX_ROWS], lo, hi;
    const result_row *r = &t->rows[i];
    for (int k = 0; k < t->nrows; k++) {
        v[2 * k] = res_kernel_ms(&t->rows[k]);
        v[2 * k + 1] = t->rows[k].kernel.runs ? t->rows[k].kernel.q3 : 0;
    }
    chart_bar_scale(v, 2 * t->nrows, &lo, &hi);
    double x = res_kernel_ms(r), f = chart_log_frac(x, lo, hi);
    double top = r->kernel.runs && r->kernel.q3 > x ? chart_log_frac(r->kernel.q3, lo, hi) : 0;
    snprintf(c, TAB_CELL, "%.4f %.4f", x > 0 ? (f > 0 ? f : 1e-4) : 0, top);
}

/* The runs and the times of row r: measured, or for a row not run, its
 * predicted time. */
static void time_cells(const result_row *r, char (*c)[TAB_CELL])
{
    char t[32];
    if (r->estimated) {
        snprintf(c[1], TAB_CELL, "0");
        snprintf(c[2], TAB_CELL, "~%s*", fmt_ms(t, sizeof t, r->est_kernel_ms));
        if (r->est_e2e_ms > 0)
            snprintf(c[4], TAB_CELL, "~%s*", fmt_ms(t, sizeof t, r->est_e2e_ms));
        return;
    }
    if (r->e2e.runs && mode_on_device(r->mode))
        snprintf(c[1], TAB_CELL, "%d/%d", r->kernel.runs, r->e2e.runs);
    else
        snprintf(c[1], TAB_CELL, "%d", r->kernel.runs);
    fmt_ms(c[2], TAB_CELL, r->kernel.med);
    spread_cell(c[3], &r->kernel);
    fmt_ms(c[4], TAB_CELL, r->e2e.runs ? r->e2e.med : -1);
    spread_cell(c[5], &r->e2e);
}

static void bench_cells(const result_table *t, int i, const cost_ceilings *ce, char (*c)[TAB_CELL])
{
    const result_row *r = &t->rows[i];
    char rate[32];
    int compute;
    double pct = -1, v = -1;
    snprintf(c[0], TAB_CELL, "%s", res_row_name(r));
    if (!res_available(r)) {
        snprintf(c[1], TAB_CELL, "\tunavailable: %.*s", TAB_CELL - 16, r->why);
        return;
    }
    time_cells(r, c);
    res_fmt_ratio(c[6], TAB_CELL, res_speedup(t, i, mode_reference(), 1));
    bar_cell(c[7], t, i);
    if (!r->estimated) /* not run: no rate */
        v = res_rate(t, i, ce, &pct, &compute);
    if (v > 0)
        fmt_rate(rate, sizeof rate, v * 1e9, compute ? "FLOP" : "B"), snprintf(c[8], TAB_CELL, "%s", rate);
    else if (!r->estimated && cost_too_short(r->kernel.med))
        snprintf(c[8], TAB_CELL, "too short");
    if (pct >= 0)
        snprintf(c[9], TAB_CELL, pct < 10 ? "%.1f%%" : "%.0f%%", pct);
    res_fmt_ratio(c[10], TAB_CELL, res_speedup(t, i, mode_reference(), 0));
    res_fmt_ratio(c[11], TAB_CELL, res_speedup(t, i, mode_baseline(), 0));
    res_fmt_ratio(c[12], TAB_CELL, res_step(t, i));
    if (isfinite(r->rel_err))
        snprintf(c[13], TAB_CELL, "%.1e", r->rel_err);
    else if (r->mode == t->err_mode)
        snprintf(c[13], TAB_CELL, "(ref)");
}

static void bench_heading(const result_table *t, int width)
{
    char what[160] = "", fl[32], by[32];
    for (int i = 0; i < t->nrows; i++)
        if (t->rows[i].kernel.runs) {
            const result_row *r = &t->rows[i];
            fmt_si(fl, sizeof fl, r->flops, "FLOP"); /* "2.26 GFLOP" */
            fmt_bytes(by, sizeof by, r->bytes);
            snprintf(what, sizeof what, "%s%s%s, %s to move at the least", r->shapes, r->shapes[0] ? ": " : "", fl, by);
            break;
        }
    char lead[200];
    snprintf(lead, sizeof lead, "bench %s  ", t->expr);
    tab_wrap(lead, what, width, 2);
}

/* The caveats of the modes that ran (backend.h), under the table each
 * time: a figure read without it misleads. */
static void bench_notes(const result_table *t, int width)
{
    char lead[32];
    for (int i = 0; i < t->nrows; i++) {
        const cuk_backend *be = t->rows[i].mode;
        const char *text = res_available(&t->rows[i]) && be->caveat ? be->caveat() : NULL;
        int first = 1;
        for (int k = 0; k < i && first; k++)
            first = t->rows[k].mode != be;
        if (!text || !first)
            continue;
        snprintf(lead, sizeof lead, "  note: mode %s ", be->name);
        tab_wrap(lead, text, width, 4);
    }
}

static int legend_shown;

void bench_legend(int width)
{
    tab_wrap("  ",
             "times: medians of the runs (kernel runs/end-to-end runs), ± half their interquartile range; "
             "end-to-end: fresh host operands copied in, the kernel, the result copied back, on one host clock (on "
             "the host, the kernel run itself). log time: the kernel time on a log scale, ─┤ up to the third "
             "quartile. ~1x (noise): the two modes' bands (quartiles, at least ±5%) overlap, or they run the same "
             "code. step: over the row above. switch=value: the current mode with that switch set (bench "
             "variants:). The error column: relative, against float64 (or cpu, where it says (ref)). `help bench` "
             "shows this again.",
             width, 2);
}

/* Under a table with rows not run, why: their predicted run passed the
 * bench's limit. */
static void prediction_note(const result_table *t, int width)
{
    char note[200], limit[32];
    for (int i = 0; i < t->nrows; i++)
        if (t->rows[i].estimated) {
            snprintf(note, sizeof note, "~...* not run: cuk predicts that one run would take longer than the bench's "
                                        "limit of %s a run (CUK_BENCH_RUN_LIMIT_MS sets it).",
                     fmt_ms(limit, sizeof limit, measure_budget("CUK_BENCH_RUN_LIMIT_MS", BENCH_RUN_LIMIT_MS)));
            tab_wrap("  ", note, width, 2);
            return;
        }
}

void bench_print(const result_table *t, const cost_ceilings *ce, int width)
{
    char(*cells)[TAB_CELL] = calloc((size_t)t->nrows * BENCH_COLS, TAB_CELL);
    if (!cells) {
        out_errorf("error: out of host memory\n");
        return;
    }
    tab_col cols[BENCH_COLS];
    memcpy(cols, bench_cols, sizeof cols);
    for (int i = 0; i < t->nrows; i++) /* each column as wide as its widest cell ("atile=transposed", "17269/5897") */
        bench_cells(t, i, ce, cells + (size_t)i * BENCH_COLS);
    for (int c = 0; c < BENCH_COLS; c++)
        for (int i = 0; i < t->nrows && !cols[c].bar; i++) {
            const char *cell = cells[(size_t)i * BENCH_COLS + c];
            int w = cell[0] == '\t' ? 0 : tab_width(cell); /* a note spans the row, it sets no width */
            cols[c].width = w > cols[c].width ? w : cols[c].width;
        }
    if (!legend_shown) /* once a session, before the table: the table is what stays on the screen */
        bench_legend(width);
    legend_shown = 1;
    bench_heading(t, width);
    tab_print(cols, BENCH_COLS, cells, t->nrows, width, 2);
    free(cells);
    bench_notes(t, width);
    prediction_note(t, width);
}

/* ---- bench ---- */

/* Rows for every mode picked (unavailable ones with the reason), lanes for
 * those that run. */
static int plan_rows(const cuk_backend **modes, int nmodes, result_table *t, measure_lane *lanes)
{
    int n = 0;
    for (int i = 0; i < nmodes && t->nrows < RESULT_MAX_ROWS; i++) {
        const char *why = NULL;
        result_row *r = &t->rows[t->nrows++];
        memset(r, 0, sizeof *r);
        r->mode = modes[i];
        r->rel_err = NAN;
        if (!mode_available(modes[i], &why))
            snprintf(r->why, sizeof r->why, "%s", why);
        else
            lanes[n++].be = modes[i];
    }
    return n;
}

/* Lanes whose one run cuk predicts to take longer than the bench's limit
 * (measure.h) are not run: their rows show the prediction, marked as an
 * estimate. How many lanes are left. */
static int skip_long_runs(cuk_session *s, const ast *e, result_table *t, measure_lane *lanes, int n)
{
    double limit = measure_budget("CUK_BENCH_RUN_LIMIT_MS", BENCH_RUN_LIMIT_MS);
    int rows[MEASURE_MAX_MODES], kept = 0;
    for (int i = 0; i < n; i++)
        rows[i] = lane_row(t, i); /* before any row is marked */
    for (int i = 0; i < n; i++) {
        double ms = measure_predict_ms(s, e, lanes[i].be);
        if (!(ms > limit)) {
            lanes[kept++] = lanes[i];
            continue;
        }
        result_row *r = &t->rows[rows[i]];
        r->estimated = 1;
        r->est_kernel_ms = ms;
        r->est_e2e_ms = mode_on_device(r->mode) ? -1 : ms;
    }
    return kept;
}

/* Each lane's summary into its row. */
static void fill_rows(const ast *e, measure_lane *lanes, int n, result_table *t)
{
    for (int i = 0; i < n; i++) {
        result_row *r = &t->rows[lane_row(t, i)];
        measure_row(&lanes[i], r);
        /* variants of one mode call the same backend functions, yet run
         * different kernels: only their timings can call them equal */
        r->code = lanes[i].sw ? 0 : measure_code(e, lanes[i].be);
    }
}

/* One summary per mode in the history: what the panel shows. */
static void file_summaries(measure_lane *lanes, int n, const result_table *t)
{
    for (int i = 0; i < n; i++) {
        int k = lane_row(t, i);
        res_ratio up = res_speedup(t, k, mode_reference(), 0);
        measure_file(&lanes[i], &t->rows[k], lanes[i].be->reference ? -1 : up.x, up.noise);
    }
}

/* A line naming the modes whose runs the GPU slowed (its clocks held down). */
static void bench_slowed(const result_table *t)
{
    char names[200] = "", why[64];
    unsigned all = 0;
    size_t n = 0;
    for (int i = 0; i < t->nrows && n < sizeof names; i++)
        if (t->rows[i].slowed) {
            all |= t->rows[i].slowed;
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", res_row_name(&t->rows[i]));
        }
    if (all)
        out_printf("the GPU held its clocks down (%s) during the runs of %s: those times are slower than it can "
                   "run\n", snap_slow_words(all, why, sizeof why), names);
}

static void bench_show(cuk_session *s, const result_table *t)
{
    cost_ceilings ce;
    cost_ceilings_get(&ce, 1);
    if (s->json) {
        json_buf j;
        json_begin(&j);
        res_json(&j, t, &ce);
        json_print(&j);
    } else {
        bench_print(t, &ce, session_columns(s));
        bench_slowed(t);
    }
}

/* The operations e runs ("matmul", "sum"), from one quiet run of it in the
 * current mode: how many, or -1 with the error set. */
static int ops_of(cuk_session *s, const stmt *st, char (*names)[16], int cap)
{
    int n = 0;
    timing_quiet(1);
    timing_begin(s->src->text + st->start, st->end - st->start, s->mode);
    cuk_matrix *m = eval_expr(s, st->expr);
    int rc = timing_end(m == NULL);
    timing_quiet(0);
    mat_unref(m);
    if (!m || rc != 0)
        return -1;
    const timing_cmd *c = timing_last();
    for (int i = 0; i < c->nops && n < cap; i++)
        snprintf(names[n++], 16, "%s", c->ops[i].op);
    return n;
}

/* bench variants: EXPR. Rows and lanes for every value of every switch that
 * changes a kernel e runs in the current mode (`set` lists the switches;
 * their `affects` line says which). */
static int plan_variant_rows(cuk_session *s, const stmt *st, result_table *t, measure_lane *lanes)
{
    char ops[TIMING_MAX_OPS][16];
    int nops = ops_of(s, st, ops, TIMING_MAX_OPS), n = 0;
    for (int v = 0; nops > 0 && v < VAR_COUNT; v++) {
        const variant_switch *sw = variant_get(v);
        int hit = 0;
        for (int k = 0; k < nops; k++)
            hit |= variant_applies(sw, s->mode->name, ops[k]);
        for (int i = 0; hit && i < sw->nvalues && n < MEASURE_MAX_MODES; i++, n++) {
            result_row *r = &t->rows[t->nrows++];
            memset(r, 0, sizeof *r);
            r->mode = s->mode;
            r->rel_err = NAN;
            lanes[n].be = s->mode;
            lanes[n].sw = sw;
            lanes[n].choice = i;
        }
    }
    if (nops >= 0 && n == 0)
        return cuk_err_at(st->cmd_pos, "bench variants: no switch changes the kernels of this expression in mode %s "
                                       "(`set` lists the switches and what each affects)",
                          s->mode->name);
    return nops < 0 ? -1 : n;
}

/* 1 if the subset is the word `variants`. */
static int wants_variants(const stmt *st)
{
    return st->narg == 1 && st->arg[0]->kind == AST_NAME && !strcmp(st->arg[0]->text, "variants");
}

/* The rows and lanes of a bench: the modes named (or all), or the variants
 * of the current mode; how many lanes run, or -1 with the error set. */
static int plan_bench(cuk_session *s, const stmt *st, result_table *t, measure_lane *lanes)
{
    const cuk_backend *modes[MEASURE_MAX_MODES];
    if (wants_variants(st))
        return plan_variant_rows(s, st, t, lanes);
    int nmodes = measure_modes(st, modes, "bench");
    if (nmodes < 0)
        return -1;
    int n = plan_rows(modes, nmodes, t, lanes);
    return n > 0 ? n : cuk_err_at(st->cmd_pos, "bench: none of these modes is available here");
}

int cmd_bench(cuk_session *s, const stmt *st)
{
    measure_lane lanes[MEASURE_MAX_MODES];
    measure_draws draws;
    result_table *t = calloc(1, sizeof *t);
    measure_plan plan = {measure_budget("CUK_BENCH_SHARE_MS", BENCH_SHARE_MS), BENCH_MIN_RUNS, BENCH_MAX_RUNS, 1};
    const char *text = s->src->text + st->start;
    size_t len = st->end - st->start;
    if (!t)
        return cuk_err("out of host memory");
    memset(lanes, 0, sizeof lanes);
    measure_draws_begin(s, &draws);
    int n = plan_bench(s, st, t, lanes), rc = n < 0 ? -1 : 0;
    measure_draws_rewind(s, &draws); /* the runs and the reference draw what the plan's quiet run drew */
    if (n > 0)
        n = skip_long_runs(s, st->expr, t, lanes, n);
    fmt_escape(t->expr, sizeof t->expr, s->src->text + st->expr->start, st->expr->end - st->expr->start);
    t->seed = s->seed;
    if (rc == 0)
        rc = measure_run(s, text, len, st->expr, lanes, n, &plan);
    if (rc == 0) {
        fill_rows(st->expr, lanes, n, t);
        fill_errors(s, st->expr, lanes, n, t);
        file_summaries(lanes, n, t);
        res_set_last(t);
        bench_show(s, t);
    }
    measure_draws_end(s, &draws);
    measure_free(lanes, n > 0 ? n : 0);
    free(t);
    return rc;
}

/* ---- timeit ---- */

/* The report of timeit: w the wall times, k the kernel times, taken from
 * the same runs unless split (then w->runs and k->runs say how many each);
 * slowed: the GPU_SLOW bits of the runs (timing.h). */
static void timeit_show(cuk_session *s, const stat_summary *w, const stat_summary *k, int runs, int split,
                        unsigned slowed)
{
    const timing_cmd *last = timing_last();
    const timing_op *op = cost_main_op(last);
    timing_op rate_op = op ? *op : (timing_op){0};
    char a[32], b[32], c[32], d[32], e[32], f[32], r[64] = "";
    rate_op.ms = op && last->kernel_ms > 0 ? op->ms * k->med / last->kernel_ms : -1;
    cost_rate_text(&rate_op, r, sizeof r);
    if (s->json) {
        json_buf j;
        json_begin(&j);
        json_str(&j, "table", "timeit");
        json_str(&j, "mode", s->mode->name);
        json_str(&j, "stmt", last->text);
        json_int(&j, "runs", runs);
        json_int(&j, "wall_runs", w->runs);
        json_int(&j, "kernel_runs", k->runs);
        const stat_summary *sv[2] = {w, k};
        for (int i = 0; i < 2; i++) {
            json_open_obj(&j, i ? "kernel_ms" : "wall_ms");
            json_num(&j, "median", sv[i]->med);
            json_num(&j, "min", sv[i]->min);
            json_num(&j, "max", sv[i]->max);
            json_num(&j, "q1", sv[i]->q1);
            json_num(&j, "q3", sv[i]->q3);
            json_close(&j);
        }
        json_num(&j, "flops", last->flops);
        json_num(&j, "bytes", last->bytes);
        json_str(&j, "slowed", slowed ? snap_slow_words(slowed, r, sizeof r) : NULL);
        json_print(&j);
        return;
    }
    fmt_ms(a, sizeof a, w->med), fmt_ms(b, sizeof b, w->min), fmt_ms(c, sizeof c, w->max);
    fmt_ms(d, sizeof d, k->med), fmt_ms(e, sizeof e, k->min), fmt_ms(f, sizeof f, k->max);
    if (split)
        out_printf("%d runs: median %s per run, range %s–%s, in the %d without kernel timing; kernels %s (range "
                   "%s–%s), the device's time alone, in the other %d%s%s\n",
                   runs, a, b, c, w->runs, d, e, f, k->runs, r[0] ? ", " : "", r);
    else
        out_printf("%d run%s: median %s per run, range %s–%s; kernels %s (range %s–%s)%s%s\n", runs,
                   runs == 1 ? "" : "s", a, b, c, d, e, f, r[0] ? ", " : "", r);
    if (slowed)
        out_printf("the GPU held its clocks down during the runs (%s): the times are slower than it can run\n",
                   snap_slow_words(slowed, r, sizeof r));
}

/* Room for one more sample in both arrays. */
static int grow(double **wt, double **kt, int *cap, int n)
{
    if (n < *cap)
        return 0;
    int c = *cap ? *cap * 2 : 256;
    double *w = realloc(*wt, (size_t)c * sizeof *w);
    if (w)
        *wt = w;
    double *k = w ? realloc(*kt, (size_t)c * sizeof *k) : NULL;
    if (!k)
        return cuk_err("out of host memory");
    *kt = k;
    *cap = c;
    return 0;
}

/* Whether a statement's run (its record c) did device work: its kernel
 * times then depend on the timing gate. */
static int ran_on_device(const timing_cmd *c)
{
    for (int i = 0; i < c->nops; i++)
        if (c->ops[i].on_device)
            return 1;
    return c->h2d + c->d2h > 0;
}

/* Run i of a statement on the device has its ops behind the timing gate
 * (timing_gate) in the order ungated, gated, gated, ungated: each half
 * meets both of the result's pool blocks, which alternate run by run (a
 * result is made while the last one is still bound), so that no half is
 * timed on one block only. */
static int gated_run(int i) { return i % 4 == 1 || i % 4 == 2; }

/* Runs of the statement: the count given, or until the budget is spent
 * with at least BENCH_MIN_RUNS; *n of them. On the host every run gives
 * its wall and its kernel time, one set of runs, so that no kernel median
 * passes the wall median (each run's kernels lie inside its wall). On the
 * device the kernel times (*nk) come from the gated runs and the wall
 * times (*nw) from the others, whose walls carry no gate (*split = 1; the
 * report says so); a single run gives both. Every run draws the same
 * random numbers (measure_draws). *slowed: the GPU_SLOW bits of every run
 * (timing.h). */
static int timeit_runs(cuk_session *s, const stmt *quiet, int count, const measure_draws *draws, double **wt,
                       double **kt, int *n, int *nw, int *nk, int *split, unsigned *slowed)
{
    int cap = 0, rc = 0;
    double spent = 0, budget = measure_budget("CUK_TIMEIT_BUDGET_MS", TIMEIT_BUDGET_MS);
    *split = 0; /* until the first run, ungated either way, shows where the statement runs */
    for (*n = *nw = *nk = 0;; (*n)++) {
        if (count > 0 ? *n >= count : (*n >= BENCH_MIN_RUNS && spent >= budget) || *n >= TIMEIT_MAX_RUNS)
            break;
        int gated = *split && gated_run(*n);
        timing_gate(gated);
        measure_draws_rewind(s, draws);
        if (grow(wt, kt, &cap, *n) != 0 || eval_stmt(s, quiet) != 0) {
            rc = -1;
            break;
        }
        const timing_cmd *c = timing_last();
        if (*n == 0)
            *split = count != 1 && ran_on_device(c);
        if (!*split || !gated)
            (*wt)[(*nw)++] = c->wall_ms;
        if (!*split || gated)
            (*kt)[(*nk)++] = c->kernel_ms;
        *slowed |= c->slowed;
        spent += c->wall_ms;
    }
    timing_gate(1);
    return rc;
}

/* The warm-up before the runs: the statement's expression evaluated once
 * and dropped, so that STMT itself is applied exactly as many times as
 * asked (`timeit 3 A = A + 1` adds 3). 0, or -1 with the error set. */
static int timeit_warm_up(cuk_session *s, const stmt *sub)
{
    timing_begin(s->src->text + sub->start, sub->end - sub->start, s->mode);
    cuk_matrix *m = eval_expr(s, sub->expr);
    int rc = timing_end(m == NULL) != 0 || !m ? -1 : 0;
    mat_unref(m);
    return rc;
}

int cmd_timeit(cuk_session *s, const stmt *st)
{
    measure_draws draws;
    stmt quiet = *st->sub;
    double *wt = NULL, *kt = NULL, count = 0;
    int n = 0, nw = 0, nk = 0, split = 0;
    unsigned slowed = 0;
    quiet.print = 0;
    if (st->narg == 1) {
        count = st->arg[0]->num;
        if (count < 1 || count > TIMEIT_MAX_RUNS || count != floor(count))
            return cuk_err_at(st->arg[0]->pos, "timeit: the count must be a whole number from 1 to %d",
                              TIMEIT_MAX_RUNS);
    }
    int time_on = s->time_on, rc;
    s->time_on = 0; /* one report at the end, not one per run */
    s->measuring = 1;
    timing_kernel_events(1);
    timing_quiet(1); /* the runs stay out of the history; one summary goes in */
    measure_draws_begin(s, &draws);
    if ((rc = timeit_warm_up(s, &quiet)) == 0)
        rc = timeit_runs(s, &quiet, (int)count, &draws, &wt, &kt, &n, &nw, &nk, &split, &slowed);
    measure_draws_end(s, &draws);
    timing_quiet(0);
    if (rc == 0 && n > 0) {
        stat_summary w, k;
        stats_summarise(wt, nw, &w);
        stats_summarise(kt, nk, &k);
        timing_cmd sum = *timing_last();
        double scale = sum.kernel_ms > 0 ? k.med / sum.kernel_ms : 1;
        for (int i = 0; i < sum.nops; i++)
            sum.ops[i].ms *= scale;
        sum.runs = n, sum.kernel_ms = k.med, sum.kernel_lo = k.min, sum.kernel_hi = k.max, sum.wall_ms = w.med;
        sum.slowed = slowed;
        timing_file(&sum);
        timeit_show(s, &w, &k, n, split, slowed);
    }
    s->time_on = time_on;
    s->measuring = 0;
    free(wt);
    free(kt);
    return rc;
}
