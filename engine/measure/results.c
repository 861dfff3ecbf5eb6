/* results.c - bench and ladder results: derived figures and files (see
 * results.h). */
#include "engine/measure/results.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "engine/files/savefile.h"
#include "engine/session/snapshot.h"
#include "kernels/gpu.h"

static result_table last;
static unsigned have_last; /* how many were set */

void res_set_last(const result_table *t)
{
    last = *t;
    have_last++;
}

const result_table *res_last(void) { return have_last ? &last : NULL; }

unsigned res_serial(void) { return have_last; }

/* ---- derived figures ---- */

int res_available(const result_row *r) { return r->why[0] == '\0'; }

const char *res_row_name(const result_row *r) { return r->label[0] ? r->label : r->mode->name; }

double res_kernel_ms(const result_row *r)
{
    return r->kernel.runs ? r->kernel.med : r->estimated ? r->est_kernel_ms : -1;
}

double res_e2e_ms(const result_row *r) { return r->e2e.runs ? r->e2e.med : r->estimated ? r->est_e2e_ms : -1; }

int res_find(const result_table *t, const cuk_backend *m, int size)
{
    for (int i = 0; i < t->nrows; i++)
        if (t->rows[i].size == size && t->rows[i].mode == m && res_available(&t->rows[i]))
            return i;
    return -1;
}

/* ref over x: measured on both sides, the noise rule; else estimates. */
static res_ratio ratio(const result_row *ref, const result_row *x, int e2e)
{
    const stat_summary *a = e2e ? &ref->e2e : &ref->kernel, *b = e2e ? &x->e2e : &x->kernel;
    res_ratio r = {-1, 0, 0};
    if (a->runs && b->runs) {
        r.x = stats_ratio(a, b, &r.noise);
        r.noise |= ref->code && ref->code == x->code; /* the same code: any difference is noise */
        return r;
    }
    double ta = e2e ? res_e2e_ms(ref) : res_kernel_ms(ref), tb = e2e ? res_e2e_ms(x) : res_kernel_ms(x);
    if (ta > 0 && tb > 0)
        r.x = ta / tb, r.est = 1;
    return r;
}

res_ratio res_speedup(const result_table *t, int i, const cuk_backend *ref, int e2e)
{
    int k = res_find(t, ref, t->rows[i].size);
    res_ratio none = {-1, 0, 0};
    if (k < 0 || !res_available(&t->rows[i]))
        return none;
    if (k == i) { /* the reference itself: 1x by definition, not "noise" */
        res_ratio one = {1, 0, t->rows[i].estimated};
        return (e2e ? res_e2e_ms(&t->rows[i]) : res_kernel_ms(&t->rows[i])) > 0 ? one : none;
    }
    return ratio(&t->rows[k], &t->rows[i], e2e);
}

res_ratio res_step(const result_table *t, int i)
{
    res_ratio none = {-1, 0, 0};
    for (int p = i - 1; p >= 0; p--)
        if (t->rows[p].size == t->rows[i].size && res_available(&t->rows[p]))
            return res_available(&t->rows[i]) ? ratio(&t->rows[p], &t->rows[i], 0) : none;
    return none;
}

const char *res_fmt_ratio(char *buf, unsigned cap, res_ratio r)
{
    return stats_fmt_ratio(buf, cap, r.x, r.noise, r.est);
}

double res_rate(const result_table *t, int i, const cost_ceilings *ce, double *pct, int *is_compute)
{
    const result_row *r = &t->rows[i];
    double rate;
    *pct = cost_percent(ce, r->mode, r->flops, r->bytes, res_kernel_ms(r), &rate, is_compute);
    return rate;
}

/* ---- JSON ---- */

static void json_versions(json_buf *j)
{
    snap_device d;
    char v[32];
    snap_device_get(&d);
    json_open_obj(j, "versions");
    if (d.usable) {
        snprintf(v, sizeof v, "%d.%d", d.f.driver_version / 1000, d.f.driver_version % 1000 / 10);
        json_str(j, "cuda_driver", v);
        snprintf(v, sizeof v, "%d.%d", d.f.runtime_version / 1000, d.f.runtime_version % 1000 / 10);
        json_str(j, "cuda_runtime", v);
    } else {
        json_null(j, "cuda_driver");
        json_null(j, "cuda_runtime");
    }
    int cb = gpu_cublas_version();
    if (cb > 0) {
        snprintf(v, sizeof v, "%d.%d.%d", cb / 10000, cb / 100 % 100, cb % 100);
        json_str(j, "cublas", v);
    } else {
        json_null(j, "cublas");
    }
    json_str(j, "blas", blas_describe());
    json_close(j);
}

void res_json_machine(json_buf *j, const cost_ceilings *ce)
{
    snap_device d;
    snap_device_get(&d);
    json_open_obj(j, "device");
    json_bool(j, "usable", d.usable);
    json_str(j, "name", d.usable ? d.f.name : NULL);
    json_str(j, "why", d.usable ? NULL : d.why);
    json_num(j, "peak_gflops", ce->device ? ce->dev_gflops : NAN);
    json_num(j, "bandwidth_gbs", ce->device ? ce->dev_gbs : NAN);
    json_num(j, "onchip_gbs", ce->device ? ce->dev_onchip_gbs : NAN);
    json_close(j);
    json_open_obj(j, "host");
    json_str(j, "name", ce->host_name);
    json_int(j, "cores", ce->host_cores);
    json_num(j, "peak_gflops", ce->host_gflops);
    json_num(j, "core_peak_gflops", ce->host_core_gflops);
    json_num(j, "bandwidth_gbs", ce->host_gbs > 0 ? ce->host_gbs : NAN);
    json_close(j);
    json_versions(j);
}

static void json_stat(json_buf *j, const char *key, const stat_summary *s)
{
    json_open_obj(j, key);
    json_int(j, "runs", s->runs);
    json_num(j, "median", s->runs ? s->med : NAN);
    json_num(j, "min", s->runs ? s->min : NAN);
    json_num(j, "max", s->runs ? s->max : NAN);
    json_num(j, "q1", s->runs ? s->q1 : NAN);
    json_num(j, "q3", s->runs ? s->q3 : NAN);
    json_close(j);
}

/* A ratio with its flags, as {"ratio": .., "noise": .., "estimated": ..}. */
static void json_ratio(json_buf *j, const char *key, res_ratio r)
{
    json_open_obj(j, key);
    json_num(j, "ratio", r.x > 0 ? r.x : NAN);
    json_bool(j, "noise", r.noise);
    json_bool(j, "estimated", r.est);
    json_close(j);
}

static void json_row(json_buf *j, const result_table *t, int i, const cost_ceilings *ce)
{
    const result_row *r = &t->rows[i];
    int compute;
    double pct, rate;
    json_open_obj(j, NULL);
    json_str(j, "mode", r->mode->name);
    if (r->label[0])
        json_str(j, "variant", r->label);
    json_bool(j, "available", res_available(r));
    json_str(j, "why", res_available(r) ? NULL : r->why);
    if (t->ladder)
        json_int(j, "n", r->size);
    json_str(j, "shapes", r->shapes);
    json_stat(j, "kernel_ms", &r->kernel);
    json_stat(j, "e2e_ms", &r->e2e);
    json_stat(j, "wall_ms", &r->wall);
    json_bool(j, "estimated", r->estimated);
    json_num(j, "est_kernel_ms", r->estimated ? r->est_kernel_ms : NAN);
    json_num(j, "est_e2e_ms", r->estimated ? r->est_e2e_ms : NAN);
    json_num(j, "flops", r->flops);
    json_num(j, "bytes", r->bytes);
    json_num(j, "h2d_bytes", r->h2d);
    json_num(j, "d2h_bytes", r->d2h);
    json_num(j, "h2d_ms", r->h2d_ms);
    json_num(j, "d2h_ms", r->d2h_ms);
    rate = res_rate(t, i, ce, &pct, &compute);
    json_num(j, compute ? "gflops" : "gbs", rate > 0 ? rate : NAN);
    json_num(j, "pct_peak", pct >= 0 ? pct : NAN);
    const cuk_backend *ref = mode_reference(), *base = mode_baseline();
    int k = res_find(t, ref, r->size);
    json_ratio(j, "x_cpu", res_speedup(t, i, ref, 0));
    json_ratio(j, "x_cpu_e2e", res_speedup(t, i, ref, 1));
    json_ratio(j, "x_blas", res_speedup(t, i, base, 0));
    json_ratio(j, "x_blas_e2e", res_speedup(t, i, base, 1));
    json_ratio(j, "step", res_step(t, i));
    json_num(j, "rel_err", r->rel_err);
    json_bool(j, "same_code_as_cpu", k >= 0 && r->code && r->code == t->rows[k].code);
    json_close(j);
}

void res_json(json_buf *j, const result_table *t, const cost_ceilings *ce)
{
    json_str(j, "table", t->ladder ? "ladder" : "bench");
    json_str(j, "expr", t->expr);
    if (t->ladder)
        json_str(j, "var", t->var);
    json_int(j, "seed", (long long)t->seed);
    json_str(j, "err_ref", t->err_ref[0] ? t->err_ref : NULL);
    res_json_machine(j, ce);
    json_open_arr(j, "rows");
    for (int i = 0; i < t->nrows; i++)
        json_row(j, t, i, ce);
    json_close(j);
}

/* ---- text files ---- */

typedef struct {
    char *s;
    size_t len, cap;
    int failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) CUK_PRINTF(2, 3);

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n >= 0 && !b->failed && b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->len + (size_t)n + 1) * 2;
        char *p = realloc(b->s, cap);
        if (p)
            b->s = p, b->cap = cap;
        else
            b->failed = 1;
    }
    if (n >= 0 && !b->failed) {
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

/* A CSV field: quoted when it holds a comma, quote or line break. */
static void csv_field(sbuf *b, const char *v, int last_field)
{
    const char *sep = last_field ? "\n" : ",";
    if (!v)
        v = "";
    if (!strpbrk(v, ",\"\n\r")) {
        sb_printf(b, "%s%s", v, sep);
        return;
    }
    sb_printf(b, "\"");
    for (const char *p = v; *p; p++)
        sb_printf(b, *p == '"' ? "\"\"" : "%c", *p);
    sb_printf(b, "\"%s", sep);
}

static void csv_num(sbuf *b, double v, int last_field)
{
    char t[32] = "";
    if (isfinite(v))
        snprintf(t, sizeof t, "%.9g", v);
    csv_field(b, t, last_field);
}

static const char *const csv_head[] = {"table",
                                       "expr",
                                       "var",
                                       "n",
                                       "mode",
                                       "available",
                                       "why",
                                       "shapes",
                                       "seed",
                                       "err_ref",
                                       "kernel_runs",
                                       "kernel_ms_median",
                                       "kernel_ms_min",
                                       "kernel_ms_max",
                                       "kernel_ms_q1",
                                       "kernel_ms_q3",
                                       "e2e_runs",
                                       "e2e_ms_median",
                                       "e2e_ms_min",
                                       "e2e_ms_max",
                                       "e2e_ms_q1",
                                       "e2e_ms_q3",
                                       "wall_ms_median",
                                       "estimated",
                                       "est_kernel_ms",
                                       "est_e2e_ms",
                                       "flops",
                                       "bytes",
                                       "h2d_bytes",
                                       "d2h_bytes",
                                       "h2d_ms",
                                       "d2h_ms",
                                       "rate",
                                       "rate_unit",
                                       "pct_peak",
                                       "x_cpu",
                                       "x_cpu_noise",
                                       "x_cpu_e2e",
                                       "x_cpu_e2e_noise",
                                       "x_blas",
                                       "x_blas_noise",
                                       "step",
                                       "step_noise",
                                       "rel_err",
                                       "device",
                                       "device_peak_gflops",
                                       "device_bandwidth_gbs",
                                       "host",
                                       "host_peak_gflops",
                                       "host_bandwidth_gbs",
                                       "cuda_driver",
                                       "cuda_runtime",
                                       "cublas",
                                       "blas"};
#define CSV_COLS ((int)(sizeof csv_head / sizeof csv_head[0]))

static void csv_stat(sbuf *b, const stat_summary *s)
{
    char n[16];
    snprintf(n, sizeof n, "%d", s->runs);
    csv_field(b, n, 0);
    csv_num(b, s->runs ? s->med : NAN, 0);
    csv_num(b, s->runs ? s->min : NAN, 0);
    csv_num(b, s->runs ? s->max : NAN, 0);
    csv_num(b, s->runs ? s->q1 : NAN, 0);
    csv_num(b, s->runs ? s->q3 : NAN, 0);
}

static void csv_ratio(sbuf *b, res_ratio r)
{
    csv_num(b, r.x > 0 ? r.x : NAN, 0);
    csv_field(b, r.x > 0 ? (r.noise ? "1" : "0") : "", 0);
}

static void csv_machine(sbuf *b, const cost_ceilings *ce)
{
    snap_device d;
    char v[32];
    snap_device_get(&d);
    csv_field(b, d.usable ? d.f.name : "", 0);
    csv_num(b, ce->device ? ce->dev_gflops : NAN, 0);
    csv_num(b, ce->device ? ce->dev_gbs : NAN, 0);
    csv_field(b, ce->host_name, 0);
    csv_num(b, ce->host_gflops, 0);
    csv_num(b, ce->host_gbs > 0 ? ce->host_gbs : NAN, 0);
    snprintf(v, sizeof v, "%d.%d", d.f.driver_version / 1000, d.f.driver_version % 1000 / 10);
    csv_field(b, d.usable ? v : "", 0);
    snprintf(v, sizeof v, "%d.%d", d.f.runtime_version / 1000, d.f.runtime_version % 1000 / 10);
    csv_field(b, d.usable ? v : "", 0);
    int cb = gpu_cublas_version();
    snprintf(v, sizeof v, "%d.%d.%d", cb / 10000, cb / 100 % 100, cb % 100);
    csv_field(b, cb > 0 ? v : "", 0);
    csv_field(b, blas_describe(), 1);
}

static void csv_row(sbuf *b, const result_table *t, int i, const cost_ceilings *ce)
{
    const result_row *r = &t->rows[i];
    char num[32];
    int compute;
    double pct;
    csv_field(b, t->ladder ? "ladder" : "bench", 0);
    csv_field(b, t->expr, 0);
    csv_field(b, t->var, 0);
    snprintf(num, sizeof num, "%d", r->size);
    csv_field(b, t->ladder ? num : "", 0);
    csv_field(b, res_row_name(r), 0);
    csv_field(b, res_available(r) ? "1" : "0", 0);
    csv_field(b, r->why, 0);
    csv_field(b, r->shapes, 0);
    snprintf(num, sizeof num, "%llu", (unsigned long long)t->seed);
    csv_field(b, num, 0);
    csv_field(b, t->err_ref, 0);
    csv_stat(b, &r->kernel);
    csv_stat(b, &r->e2e);
    csv_num(b, r->wall.runs ? r->wall.med : NAN, 0);
    csv_field(b, r->estimated ? "1" : "0", 0);
    csv_num(b, r->estimated ? r->est_kernel_ms : NAN, 0);
    csv_num(b, r->estimated ? r->est_e2e_ms : NAN, 0);
    csv_num(b, r->flops, 0);
    csv_num(b, r->bytes, 0);
    csv_num(b, r->h2d, 0);
    csv_num(b, r->d2h, 0);
    csv_num(b, r->h2d_ms, 0);
    csv_num(b, r->d2h_ms, 0);
    double rate = res_rate(t, i, ce, &pct, &compute);
    csv_num(b, rate > 0 ? rate : NAN, 0);
    csv_field(b, compute ? "GFLOP/s" : "GB/s", 0);
    csv_num(b, pct >= 0 ? pct : NAN, 0);
    csv_ratio(b, res_speedup(t, i, mode_reference(), 0));
    csv_ratio(b, res_speedup(t, i, mode_reference(), 1));
    csv_ratio(b, res_speedup(t, i, mode_baseline(), 0));
    csv_ratio(b, res_step(t, i));
    csv_num(b, r->rel_err, 0);
    csv_machine(b, ce);
}

static void write_csv(sbuf *b, const result_table *t, const cost_ceilings *ce)
{
    for (int c = 0; c < CSV_COLS; c++)
        csv_field(b, csv_head[c], c == CSV_COLS - 1);
    for (int i = 0; i < t->nrows; i++)
        csv_row(b, t, i, ce);
}

/* "389.2 us [388.0-392.1]" in plain ASCII for Markdown. */
static const char *md_stat(char *buf, size_t cap, const stat_summary *s, const result_row *r, int e2e)
{
    if (s->runs)
        snprintf(buf, cap, "%.4g ms [%.4g-%.4g]", s->med, s->min, s->max);
    else if (r->estimated)
        snprintf(buf, cap, "~%.4g ms (estimate)", e2e ? r->est_e2e_ms : r->est_kernel_ms);
    else
        snprintf(buf, cap, "-");
    return buf;
}

/* A row starts "| mode |", and in a ladder "| mode | n |": a bench has one
 * size, which its heading gives. */
static void md_lead(sbuf *b, const result_table *t, const result_row *r)
{
    sb_printf(b, "| %s |", res_row_name(r));
    if (t->ladder)
        sb_printf(b, " %d |", r->size);
}

static void md_row(sbuf *b, const result_table *t, int i, const cost_ceilings *ce)
{
    const result_row *r = &t->rows[i];
    char k[64], e[64], x1[32], x2[32], x3[32], st[32], rate[32] = "-", pc[16] = "-", err[16] = "-";
    int compute;
    double pct;
    md_lead(b, t, r);
    if (!res_available(r)) {
        sb_printf(b, " 0 | unavailable: %s | | | | | | | | |\n", r->why);
        return;
    }
    double v = res_rate(t, i, ce, &pct, &compute);
    if (v > 0)
        snprintf(rate, sizeof rate, "%.4g %s", v, compute ? "GFLOP/s" : "GB/s");
    if (pct >= 0)
        snprintf(pc, sizeof pc, "%.1f%%", pct);
    if (isfinite(r->rel_err))
        snprintf(err, sizeof err, "%.1e", r->rel_err);
    res_fmt_ratio(x1, sizeof x1, res_speedup(t, i, mode_reference(), 0));
    res_fmt_ratio(x2, sizeof x2, res_speedup(t, i, mode_reference(), 1));
    res_fmt_ratio(x3, sizeof x3, res_speedup(t, i, mode_baseline(), 0));
    res_fmt_ratio(st, sizeof st, res_step(t, i));
    sb_printf(b, " %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->kernel.runs,
              md_stat(k, sizeof k, &r->kernel, r, 0), md_stat(e, sizeof e, &r->e2e, r, 1), rate, pc, x1, x2, x3, st, err);
}

static void write_md(sbuf *b, const result_table *t, const cost_ceilings *ce)
{
    snap_device d;
    snap_device_get(&d);
    sb_printf(b, "# cuk %s: `%s`\n\n", t->ladder ? "ladder" : "bench", t->expr);
    sb_printf(b, "- device: %s\n", d.usable ? d.f.name : "none");
    if (ce->device)
        sb_printf(b, "- device ceilings: %.1f GFLOP/s FP32, %.1f GB/s\n", ce->dev_gflops, ce->dev_gbs);
    sb_printf(b, "- host: %s, %d cores, %.1f GFLOP/s peak, %.1f GB/s (a copy on every core)\n", ce->host_name,
              ce->host_cores, ce->host_gflops, ce->host_gbs);
    if (d.usable)
        sb_printf(b, "- CUDA driver %d.%d, runtime %d.%d, cuBLAS %d\n", d.f.driver_version / 1000,
                  d.f.driver_version % 1000 / 10, d.f.runtime_version / 1000, d.f.runtime_version % 1000 / 10,
                  gpu_cublas_version());
    sb_printf(b,
              "- BLAS: %s\n- seed: %llu\n- times: median [min-max] of the runs, in ms; "
              "end-to-end: operands copied in, kernel, result copied back\n- error: relative, against %s\n\n",
              blas_describe(), (unsigned long long)t->seed, t->err_ref[0] ? t->err_ref : "-");
    sb_printf(b, "| mode |%s runs | kernel | end-to-end | rate | %% peak | vs cpu | vs cpu e2e | vs blas | step "
                 "| error |\n|---|%s---|---|---|---|---|---|---|---|---|---|\n",
              t->ladder ? " n |" : "", t->ladder ? "---|" : "");
    for (int i = 0; i < t->nrows; i++)
        md_row(b, t, i, ce);
}

/* A whole text as a savefile writer: 0 or errno. */
typedef struct {
    const char *s;
    size_t len;
} text_file;

static int write_text(FILE *fp, const void *ud)
{
    const text_file *t = ud;
    return fwrite(t->s, 1, t->len, fp) == t->len ? 0 : errno ? errno : EIO;
}

static const char *extension(const char *path)
{
    const char *base = strrchr(path, '/'), *dot;
    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    return dot && dot != base ? dot : "";
}

int res_save(const result_table *t, const char *path)
{
    const char *ext = extension(path);
    cost_ceilings ce;
    sbuf b = {0};
    json_buf j;
    int rc = 0;
    if (strcasecmp(ext, ".json") && strcasecmp(ext, ".csv") && strcasecmp(ext, ".md"))
        return cuk_err("save bench: don't know how to write '%s': use .json, .csv or .md", path);
    cost_ceilings_get(&ce, 0);
    if (!strcasecmp(ext, ".json")) {
        json_begin(&j);
        res_json(&j, t, &ce);
        const char *text = json_end(&j);
        if (text)
            sb_printf(&b, "%s\n", text);
        rc = text ? 0 : -1;
        json_free(&j);
    } else if (!strcasecmp(ext, ".csv")) {
        write_csv(&b, t, &ce);
    } else {
        write_md(&b, t, &ce);
    }
    text_file f = {b.s ? b.s : "", b.len};
    if (rc != 0 || b.failed)
        rc = cuk_err("save bench: out of host memory");
    else
        rc = savefile_write("save bench", path, write_text, &f);
    free(b.s);
    return rc;
}
