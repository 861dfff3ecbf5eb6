/* print.c - values the NumPy way (see print.h). */
#include "engine/lang/print.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "base/out.h"
#include "kernels/backend.h"

/* The indices shown along one axis: all of them, or EDGE at each end with
 * a gap ("...") after the first EDGE. */
typedef struct {
    int *idx;
    int n;
    int gap;   /* "..." goes before idx[gap]; -1 for none */
} axis_sel;

static int select_axis(int len, int summarize, axis_sel *a)
{
    int cut = summarize && len > 2 * PRINT_EDGE;
    a->n = cut ? 2 * PRINT_EDGE : len;
    a->gap = cut ? PRINT_EDGE : -1;
    a->idx = malloc((size_t)a->n * sizeof *a->idx);
    if (!a->idx)
        return cuk_err("out of host memory");
    for (int i = 0; i < a->n; i++)
        a->idx[i] = cut && i >= PRINT_EDGE ? len - 2 * PRINT_EDGE + i : i;
    return 0;
}

/* Copy the shown elements into vals (rows.n x cols.n): a matrix that lives
 * on the device stays there, only these elements come to the host. */
static int gather_floats(cuk_matrix *m, const axis_sel *rows, const axis_sel *cols, float *vals)
{
    size_t ld = (size_t)m->cols;
    for (int i = 0; i < rows->n; i++) {
        size_t row = (size_t)rows->idx[i] * ld;
        for (int j = 0; j < cols->n;) {
            int k = j; /* a run of consecutive columns is one copy */
            while (k + 1 < cols->n && cols->idx[k + 1] == cols->idx[k] + 1)
                k++;
            size_t off = row + (size_t)cols->idx[j], n = (size_t)(k - j + 1);
            if (mat_read(m, off, n, vals + (size_t)i * cols->n + j) != 0)
                return -1;
            j = k + 1;
        }
    }
    return 0;
}

/* The shown elements as doubles: the float32 values stored, whatever a
 * small matrix carries for sizes (matrix.h), so that what is printed is
 * what is kept and saved. */
static int gather(cuk_matrix *m, const axis_sel *rows, const axis_sel *cols, double *vals)
{
    size_t n = (size_t)rows->n * cols->n;
    float *f = malloc(n * sizeof *f);
    if (!f)
        return cuk_err("out of host memory");
    int rc = gather_floats(m, rows, cols, f);
    for (size_t i = 0; rc == 0 && i < n; i++)
        vals[i] = f[i];
    free(f);
    return rc;
}

typedef struct {
    char kind;   /* 'd' whole numbers, 'f' fixed, 'e' scientific */
    int prec;
} numfmt;

/* What decides a format: the largest and smallest non-zero finite |v|, and
 * whether every finite value is whole. */
typedef struct {
    double maxabs, minabs;
    int whole;
} magnitudes;

static magnitudes scan(const double *v, size_t n)
{
    magnitudes m = {0, INFINITY, 1};
    for (size_t i = 0; i < n; i++) {
        double a = fabs(v[i]);
        if (!isfinite(a))
            continue;
        m.maxabs = a > m.maxabs ? a : m.maxabs;
        if (a > 0 && a < m.minabs)
            m.minabs = a;
        m.whole = m.whole && a == floor(a);
    }
    return m;
}

/* NumPy's rule: scientific when the smallest non-zero value is below 1e-4
 * or the largest is more than 1000 times it (the ratio taken in float32, as
 * NumPy does: 0.12 and 0.00012 stay fixed); and from 1e5 on (NumPy: 1e8),
 * where cuk's five significant digits would reach the decimal point. With
 * fixed decimals, then, the smallest non-zero value is at least 1e-4 and
 * maxabs / 1000, and choose_format gives it two significant digits: no
 * non-zero value prints as 0.0. */
static int wants_scientific(magnitudes m)
{
    float ratio = (float)m.maxabs / (float)m.minabs;
    return m.maxabs >= 1e5 || m.minabs < 1e-4 || ratio > 1e3f;
}

static numfmt choose_format(const double *v, size_t n, int format_long)
{
    magnitudes m = scan(v, n);
    numfmt f = {'d', 0};
    if (m.whole && m.maxabs <= 16777216) /* 2^24: past it float32 skips whole numbers */
        return f;
    if (wants_scientific(m)) {
        f.kind = 'e';
        f.prec = format_long ? 7 : 4;
        return f;
    }
    int digits = m.maxabs >= 1 ? (int)floor(log10(m.maxabs)) + 1 : 1;
    f.kind = 'f';
    f.prec = (format_long ? 8 : 5) - digits;
    if (f.prec < 1)
        f.prec = 1;
    if (!format_long && f.prec > 4)
        f.prec = 4;
    /* the smallest non-zero value keeps two significant digits: 0.00012
     * beside 0.12 is 0.00012, not 0.0001 (one more decimal at most) */
    int need = isfinite(m.minabs) ? 1 - (int)floor(log10(m.minabs)) : 0;
    if (f.prec < need)
        f.prec = need;
    return f;
}

static int format_num(char *buf, size_t cap, double x, numfmt f)
{
    if (isnan(x))
        return snprintf(buf, cap, "nan");
    if (isinf(x))
        return snprintf(buf, cap, x < 0 ? "-inf" : "inf");
    if (f.kind == 'd')
        return snprintf(buf, cap, "%.0f", x);
    return snprintf(buf, cap, f.kind == 'e' ? "%.*e" : "%.*f", f.prec, x);
}

/* One block of columns [c0, c1) of the shown values. */
static void print_block(const double *vals, const axis_sel *rows, const axis_sel *cols, int c0, int c1,
                        numfmt f, int w)
{
    char num[64];
    for (int i = 0; i < rows->n; i++) {
        if (i == rows->gap)
            out_printf("  %*s\n", w, "...");
        for (int j = c0; j < c1; j++) {
            if (j == cols->gap)
                out_printf("  %*s", w, "...");
            format_num(num, sizeof num, vals[(size_t)i * cols->n + j], f);
            out_printf("  %*s", w, num);
        }
        out_printf("\n");
    }
}

static void print_values(const double *vals, const axis_sel *rows, const axis_sel *cols, numfmt f, int columns)
{
    char num[64];
    size_t n = (size_t)rows->n * cols->n;
    int w = 3; /* wide enough for "..." */
    for (size_t i = 0; i < n; i++) {
        int len = format_num(num, sizeof num, vals[i], f);
        w = len > w ? len : w;
    }
    int per_line = columns / (w + 2);
    if (per_line < 1)
        per_line = 1;
    if (cols->n + (cols->gap >= 0) <= per_line) {
        print_block(vals, rows, cols, 0, cols->n, f, w);
        return;
    }
    for (int c0 = 0; c0 < cols->n; c0 += per_line) { /* too wide: Octave-style column blocks */
        int c1 = c0 + per_line < cols->n ? c0 + per_line : cols->n;
        out_printf(" columns %d to %d:\n", cols->idx[c0], cols->idx[c1 - 1]);
        print_block(vals, rows, cols, c0, c1, f, w);
    }
}

int print_value(const char *name, cuk_matrix *m, int format_long, int columns)
{
    int summarize = mat_numel(m) > PRINT_THRESHOLD;
    axis_sel rows = {0}, cols = {0};
    double *vals = NULL;
    int rc = -1;
    char num[64];
    if (select_axis(m->rows, summarize, &rows) != 0 || select_axis(m->cols, summarize, &cols) != 0)
        goto out;
    vals = malloc((size_t)rows.n * cols.n * sizeof *vals);
    if (!vals) {
        cuk_err("out of host memory");
        goto out;
    }
    if (gather(m, &rows, &cols, vals) != 0)
        goto out;
    numfmt f = choose_format(vals, (size_t)rows.n * cols.n, format_long);
    if (m->rows == 1 && m->cols == 1) {
        format_num(num, sizeof num, vals[0], f);
        out_printf("%s = %s\n", name, num);
    } else {
        out_printf("%s = %dx%d (%s)\n", name, m->rows, m->cols, mat_where(m));
        print_values(vals, &rows, &cols, f, columns);
    }
    rc = 0;
out:
    free(rows.idx);
    free(cols.idx);
    free(vals);
    return rc;
}
