/* bench.c - `bench EXPR` (the same expression in every available mode,
 * side by side) and `timeit [N] STMT` (one statement, repeated). Both time
 * through the ordinary per-command records of engine/timing.h, after one
 * warm-up run that also moves the operands where each mode needs them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "base/out.h"
#include "engine/commands.h"
#include "engine/eval.h"
#include "engine/timing.h"
#include "kernels/backend.h"

#define BENCH_TARGET_MS 300.0
#define BENCH_MAX_RUNS 200
#define TIMEIT_MAX_RUNS 100000

typedef struct {
    double kernel_ms, wall_ms; /* medians */
    double flops, bytes;
    int runs;
} sample;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* How many timed runs fit the time budget after a first run of first_ms. */
static int runs_for(double first_ms, int max_runs)
{
    if (first_ms <= 0)
        return max_runs;
    double n = BENCH_TARGET_MS / first_ms;
    return n < 1 ? 1 : n > max_runs ? max_runs : (int)n;
}

/* Evaluate e once inside a timing record; the result, or NULL. */
static cuk_matrix *timed_eval(cuk_session *s, const stmt *st, const ast *e)
{
    timing_begin(s->src->text + st->start, st->end - st->start, s->mode);
    cuk_matrix *m = eval_expr(s, e);
    if (timing_end(m == NULL) != 0 && m) {
        mat_unref(m);
        m = NULL;
    }
    return m;
}

/* Warm up, then time e in the current mode. *out keeps the warm-up's value. */
static int bench_mode(cuk_session *s, const stmt *st, sample *smp, cuk_matrix **out)
{
    double *kt = NULL, *wt = NULL;
    if (!(*out = timed_eval(s, st, st->expr)))
        return -1;
    const timing_cmd *c = timing_history(0);
    int n = runs_for(c->wall_ms, BENCH_MAX_RUNS);
    smp->flops = c->flops;
    smp->bytes = c->bytes;
    kt = malloc((size_t)n * sizeof *kt);
    wt = malloc((size_t)n * sizeof *wt);
    if (!kt || !wt) {
        free(kt);
        free(wt);
        return cuk_err("out of host memory");
    }
    for (int i = 0; i < n; i++) {
        cuk_matrix *m = timed_eval(s, st, st->expr);
        if (!m) {
            free(kt);
            free(wt);
            return -1;
        }
        mat_unref(m);
        kt[i] = timing_history(0)->kernel_ms;
        wt[i] = timing_history(0)->wall_ms;
    }
    smp->kernel_ms = median(kt, n);
    smp->wall_ms = median(wt, n);
    smp->runs = n;
    free(kt);
    free(wt);
    return 0;
}

/* ||x - ref|| / ||ref|| on the host, in double. */
static double rel_diff(cuk_matrix *x, cuk_matrix *ref)
{
    const float *a = mat_host(x), *b = mat_host(ref);
    double num = 0, den = 0;
    if (!a || !b || mat_numel(x) != mat_numel(ref))
        return NAN;
    for (size_t i = 0; i < mat_numel(x); i++) {
        double d = (double)a[i] - (double)b[i];
        num += d * d;
        den += (double)b[i] * b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void bench_row(const cuk_backend *be, const sample *smp, double cpu_ms, double diff, int is_ref)
{
    char k[32], w[32], rate[64] = "", up[16] = "", df[32];
    timing_op op = {.flops = smp->flops, .bytes = smp->bytes, .ms = smp->kernel_ms, .on_device = mode_on_device(be)};
    timing_rate(&op, rate, sizeof rate);
    if (cpu_ms > 0 && smp->kernel_ms > 0)
        snprintf(up, sizeof up, "%.1fx", cpu_ms / smp->kernel_ms);
    if (is_ref)
        snprintf(df, sizeof df, "(reference)");
    else
        snprintf(df, sizeof df, "%.1e", diff);
    out_printf("  %-7s %11s %11s  %-30s %8s  %s\n", be->name, fmt_ms(k, sizeof k, smp->kernel_ms),
               fmt_ms(w, sizeof w, smp->wall_ms), rate, up, df);
}

/* The "vs cpu" column compares medians taken in this same bench, not the
 * per-command records timing_speedup reads. */
int cmd_bench(cuk_session *s, const stmt *st)
{
    const cuk_backend *saved = s->mode;
    timing_kernel_events(1);
    cuk_matrix *ref = NULL;
    double cpu_ms = -1;
    int rc = 0, header = 0;
    for (int i = 0; i < mode_count() && rc == 0; i++) {
        const cuk_backend *be = mode_get(i);
        const char *why;
        sample smp = {0};
        cuk_matrix *m = NULL;
        if (!mode_available(be, &why))
            continue;
        s->mode = be;
        if ((rc = bench_mode(s, st, &smp, &m)) != 0)
            break;
        if (!header++)
            out_printf("  %-7s %11s %11s  %-30s %8s  %s\n", "mode", "kernel", "wall", "rate", "vs cpu", "rel. diff");
        if (be->reference)
            cpu_ms = smp.kernel_ms;
        bench_row(be, &smp, cpu_ms, ref ? rel_diff(m, ref) : 0, !ref);
        out_flush();
        if (!ref)
            ref = m;
        else
            mat_unref(m);
    }
    s->mode = saved;
    mat_unref(ref);
    return rc;
}

int cmd_timeit(cuk_session *s, const stmt *st)
{
    stmt quiet = *st->sub;
    double *wt = NULL, *kt = NULL, count = 0;
    char a[32], b[32], c[32];
    quiet.print = 0;
    if (st->narg == 1) {
        count = st->arg[0]->num;
        if (count < 1 || count > TIMEIT_MAX_RUNS || count != floor(count))
            return cuk_err_at(st->arg[0]->pos, "timeit: the count must be a whole number from 1 to %d",
                              TIMEIT_MAX_RUNS);
    }
    int time_on = s->time_on, rc, n = 0;
    s->time_on = 0; /* one report at the end, not one per run */
    s->measuring = 1;
    timing_kernel_events(1);
    if ((rc = eval_stmt(s, &quiet)) == 0) { /* warm-up */
        n = count > 0 ? (int)count : runs_for(timing_history(0)->wall_ms, TIMEIT_MAX_RUNS);
        wt = malloc((size_t)n * sizeof *wt);
        kt = malloc((size_t)n * sizeof *kt);
        rc = wt && kt ? 0 : cuk_err("out of host memory");
    }
    for (int i = 0; i < n && rc == 0; i++) {
        if ((rc = eval_stmt(s, &quiet)) != 0)
            break;
        wt[i] = timing_history(0)->wall_ms;
        kt[i] = timing_history(0)->kernel_ms;
    }
    if (rc == 0) {
        const timing_cmd *last = timing_history(0);
        double kmed = median(kt, n), wmed = median(wt, n);
        timing_op rate = {.flops = last->flops, .bytes = last->bytes, .ms = kmed, .on_device = mode_on_device(s->mode)};
        char r[64];
        timing_rate(&rate, r, sizeof r);
        out_printf("%d run%s: median %s per run (kernels %s%s%s), best %s\n", n, n == 1 ? "" : "s",
                   fmt_ms(a, sizeof a, wmed), fmt_ms(b, sizeof b, kmed), r[0] ? ", " : "", r,
                   fmt_ms(c, sizeof c, wt[0]));
    }
    s->time_on = time_on;
    s->measuring = 0;
    free(wt);
    free(kt);
    return rc;
}
