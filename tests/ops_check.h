/* ops_check.h - every operation of cuk, run through a real session in one
 * mode on fresh random inputs (new ones for every case), every new buffer
 * poisoned with NaN first, and compared with a float64 reference computed
 * here. Shared by tests/unit/test_ops.c (host modes) and
 * tests/gpu/gpu_test.c (GPU modes), so all six modes pass the same bar. */
#ifndef CUK_OPS_CHECK_H
#define CUK_OPS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "engine/run/run.h"
#include "engine/session/session.h"
#include "kernels/backend.h"
#include "tests/check.h"

#define OC_TOL 1e-5

static cuk_session *oc_s;
/* The product's bound (of sum |a||b|, oc_scaled_err): OC_TOL for float32
 * arithmetic; a mode that rounds its operands (tf32) sets its own. */
static double oc_matmul_tol = OC_TOL;

/* Bind name to a new host matrix of random values in [-1, 1). */
static float *oc_input(const char *name, int rows, int cols)
{
    cuk_matrix *m = mat_new_host(rows, cols);
    if (!m)
        return NULL;
    check_fill(m->host, mat_numel(m));
    ws_set(&oc_s->ws, name, m);
    return m->host;
}

/* Run src in the session; the matrix named R afterwards, read back to the
 * host, or NULL (the case fails naming the error). */
static cuk_matrix *oc_run(const char *src)
{
    ws_remove(&oc_s->ws, "R");
    if (run_source(oc_s, src, strlen(src), "test", 1, 1) != RUN_OK) {
        CHECKF(0, "'%s' failed", src);
        return NULL;
    }
    cuk_matrix *r = ws_get(&oc_s->ws, "R");
    CHECKF(r && mat_host(r), "'%s' left no R", src);
    return r && r->host ? r : NULL;
}

/* Compare R with ref (rows x cols); tol 0 means exactly. */
static void oc_expect(const char *src, const double *ref, int rows, int cols, double tol)
{
    cuk_matrix *r = oc_run(src);
    if (!r)
        return;
    CHECKF(r->rows == rows && r->cols == cols, "'%s' gave %dx%d, want %dx%d", src, r->rows, r->cols, rows, cols);
    if (r->rows != rows || r->cols != cols)
        return;
    double err = check_relerr(r->host, ref, mat_numel(r));
    if (tol == 0) {
        for (size_t i = 0; i < mat_numel(r); i++)
            CHECKF((double)r->host[i] == ref[i] || (isnan(r->host[i]) && isnan(ref[i])),
                   "'%s' at %dx%d: element %zu is %g, want %g", src, rows, cols, i, r->host[i], ref[i]);
    } else {
        CHECKF(err < tol, "'%s' at %dx%d: relative error %.3g (tolerance %.0e)", src, rows, cols, err, tol);
    }
}

static double *oc_ref(size_t n)
{
    double *r = calloc(n, sizeof *r);
    if (!r)
        abort();
    return r;
}

/* C = A @ B at m x k x n */
/* ||got - ref|| / ||scale||, with scale[i][j] = sum over p of |a[i][p] b[p][j]|.
 * A float32 product's rounding error is bounded by k u scale (u = 2^-24),
 * whatever the signs, so this is the product's honest relative error: a
 * single dot product of random terms can cancel to near 0 and make the
 * plain relative error of a 1x1 result large by chance. One wrong element
 * still shows, at about its share of ||scale||. */
static double oc_scaled_err(const float *got, const double *ref, const double *scale, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)got[i] - ref[i];
        if (isnan(got[i]) != isnan(ref[i]))
            return INFINITY;
        num += d * d;
        den += scale[i] * scale[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* C = A @ B at m x k x n */
static void oc_matmul(int m, int k, int n)
{
    const float *a = oc_input("A", m, k), *b = oc_input("B", k, n);
    double *ref = oc_ref((size_t)m * n), *scale = oc_ref((size_t)m * n);
    for (size_t i = 0; i < (size_t)m; i++)
        for (size_t p = 0; p < (size_t)k; p++) {
            double aip = a[i * k + p];
            for (size_t j = 0; j < (size_t)n; j++) {
                ref[i * n + j] += aip * b[p * n + j];
                scale[i * n + j] += fabs(aip * b[p * n + j]);
            }
        }
    cuk_matrix *r = oc_run("R = A @ B;");
    if (r) {
        CHECKF(r->rows == m && r->cols == n, "'R = A @ B;' gave %dx%d, want %dx%d", r->rows, r->cols, m, n);
        double err = r->rows == m && r->cols == n ? oc_scaled_err(r->host, ref, scale, (size_t)m * n) : 0;
        CHECKF(err < oc_matmul_tol, "'R = A @ B;' at %dx%dx%d: error %.3g of sum |a||b| (tolerance %.0e)", m, k, n,
               err, oc_matmul_tol);
    }
    free(ref);
    free(scale);
}

static double oc_ew(char op, double x, double y)
{
    switch (op) {
    case '+': return x + y;
    case '-': return x - y;
    case '*': return x * y;
    case '/': return x / y;
    case '^': return pow(fabs(x), y);
    case '<': return isnan(x) || isnan(y) ? NAN : x < y ? x : y;
    default: return isnan(x) || isnan(y) ? NAN : x > y ? x : y;
    }
}

/* Elementwise A op B, and each side broadcast from a 1x1. */
static void oc_ewise(int rows, int cols)
{
    static const struct {
        char op;
        const char *same, *left, *right;
    } ops[] = {{'+', "R = A + B;", "R = s + B;", "R = A + s;"},
               {'-', "R = A - B;", "R = s - B;", "R = A - s;"},
               {'*', "R = A * B;", "R = s * B;", "R = A * s;"},
               {'/', "R = A / B;", "R = s / B;", "R = A / s;"},
               {'<', "R = min(A, B);", "R = min(s, B);", "R = min(A, s);"},
               {'>', "R = max(A, B);", "R = max(s, B);", "R = max(A, s);"},
               {'^', "R = pow(abs(A), B);", "R = pow(abs(s), B);", "R = pow(abs(A), s);"}};
    size_t n = (size_t)rows * cols;
    double *ref = oc_ref(n);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        const float *a = oc_input("A", rows, cols), *b = oc_input("B", rows, cols), *s = oc_input("s", 1, 1);
        for (size_t i = 0; i < n; i++)
            ref[i] = oc_ew(ops[o].op, a[i], b[i]);
        oc_expect(ops[o].same, ref, rows, cols, OC_TOL);
        for (size_t i = 0; i < n; i++)
            ref[i] = oc_ew(ops[o].op, s[0], b[i]);
        oc_expect(ops[o].left, ref, rows, cols, OC_TOL);
        for (size_t i = 0; i < n; i++)
            ref[i] = oc_ew(ops[o].op, a[i], s[0]);
        oc_expect(ops[o].right, ref, rows, cols, OC_TOL);
    }
    free(ref);
}

/* -A, abs, sqrt and log (of |A|), exp; transposes; a slice; a block literal. */
static void oc_unary_and_layout(int rows, int cols)
{
    size_t n = (size_t)rows * cols;
    double *ref = oc_ref(n);
    const float *a = oc_input("A", rows, cols);
    for (size_t i = 0; i < n; i++)
        ref[i] = -(double)a[i];
    oc_expect("R = -A;", ref, rows, cols, 0);
    for (size_t i = 0; i < n; i++)
        ref[i] = fabs((double)a[i]);
    oc_expect("R = abs(A);", ref, rows, cols, 0);
    for (size_t i = 0; i < n; i++)
        ref[i] = sqrt(fabs((double)a[i]));
    oc_expect("R = sqrt(abs(A));", ref, rows, cols, OC_TOL);
    for (size_t i = 0; i < n; i++)
        ref[i] = exp((double)a[i]);
    oc_expect("R = exp(A);", ref, rows, cols, OC_TOL);
    for (size_t i = 0; i < n; i++)
        ref[i] = log(fabs((double)a[i]));
    oc_expect("R = log(abs(A));", ref, rows, cols, OC_TOL);
    for (size_t i = 0; i < (size_t)rows; i++)
        for (size_t j = 0; j < (size_t)cols; j++)
            ref[j * rows + i] = a[i * cols + j];
    oc_expect("R = A';", ref, cols, rows, 0);
    oc_expect("R = A.T;", ref, cols, rows, 0);
    oc_expect("R = transpose(A);", ref, cols, rows, 0);
    /* the block without its first row and last column, where there is one */
    int r0 = rows > 1, nc = cols > 1 ? cols - 1 : 1;
    for (size_t i = 0; i < (size_t)(rows - r0); i++)
        for (size_t j = 0; j < (size_t)nc; j++)
            ref[i * nc + j] = a[(i + r0) * cols + j];
    oc_expect(rows > 1 ? (cols > 1 ? "R = A[1:, :-1];" : "R = A[1:, :];") : (cols > 1 ? "R = A[:, 0:-1];" : "R = A[0, 0];"),
              ref, rows - r0, nc, 0);
    free(ref);
    ref = oc_ref(4 * n);
    for (size_t i = 0; i < (size_t)rows; i++) /* [A A; A A] */
        for (size_t j = 0; j < (size_t)cols; j++)
            ref[i * 2 * cols + j] = ref[i * 2 * cols + cols + j] = ref[(i + rows) * 2 * cols + j] =
                ref[(i + rows) * 2 * cols + cols + j] = a[i * cols + j];
    oc_expect("R = [A A; A, A];", ref, 2 * rows, 2 * cols, 0);
    free(ref);
}

/* A 1x1 sum or dot against its float64 value. Inputs in [-1, 1) make such
 * results cancel, and a plain relative error of a result near 0 measures
 * the cancellation, not the kernel (tiled's dot over 257x1031 once read
 * 1.05e-5 that way); so a result also passes whose error is under
 * OC_TOL / 50 of `scale`, the sum of the terms' magnitudes: float32
 * rounding stays far below that (about 3e-8 at 265,000 terms), while one
 * term dropped or doubled (1/n of scale) still fails it up to 2^22 terms. */
static void oc_expect_sum(const char *src, double want, double scale)
{
    cuk_matrix *r = oc_run(src);
    if (!r)
        return;
    double rel = check_relerr(r->host, &want, 1), of_scale = oc_scaled_err(r->host, &want, &scale, 1);
    CHECKF(rel < OC_TOL || of_scale < OC_TOL / 50,
           "'%s': relative error %.3g (tolerance %.0e), %.3g of the sum of |terms| (tolerance %.0e)", src, rel,
           OC_TOL, of_scale, OC_TOL / 50);
}

/* sum mean norm min max dot, each a 1x1 */
static void oc_reductions(int rows, int cols)
{
    size_t n = (size_t)rows * cols;
    const float *a = oc_input("A", rows, cols), *b = oc_input("B", rows, cols);
    double sum = 0, sum_abs = 0, sq = 0, dot = 0, dot_abs = 0, lo = a[0], hi = a[0];
    for (size_t i = 0; i < n; i++) {
        sum += a[i];
        sum_abs += fabs(a[i]);
        sq += (double)a[i] * a[i];
        dot += (double)a[i] * b[i];
        dot_abs += fabs((double)a[i] * b[i]);
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    const double norm = sqrt(sq);
    oc_expect_sum("R = sum(A);", sum, sum_abs);
    oc_expect_sum("R = mean(A);", sum / (double)n, sum_abs / (double)n);
    oc_expect_sum("R = dot(A, B);", dot, dot_abs);
    oc_expect("R = norm(A);", &norm, 1, 1, OC_TOL); /* squares do not cancel */
    oc_expect("R = min(A);", &lo, 1, 1, 0);         /* min and max are exact */
    oc_expect("R = max(A);", &hi, 1, 1, 0);
}

/* zeros ones fill eye arange: exact */
static void oc_fills(int rows, int cols)
{
    char src[96];
    size_t n = (size_t)rows * cols;
    double *ref = oc_ref(n);
    for (size_t i = 0; i < n; i++)
        ref[i] = 0;
    snprintf(src, sizeof src, "R = zeros(%d, %d);", rows, cols);
    oc_expect(src, ref, rows, cols, 0);
    for (size_t i = 0; i < (size_t)rows && i < (size_t)cols; i++)
        ref[i * cols + i] = 1;
    snprintf(src, sizeof src, "R = eye(%d, %d);", rows, cols);
    oc_expect(src, ref, rows, cols, 0);
    for (size_t i = 0; i < n; i++)
        ref[i] = 1;
    snprintf(src, sizeof src, "R = ones(%d, %d);", rows, cols);
    oc_expect(src, ref, rows, cols, 0);
    for (size_t i = 0; i < n; i++)
        ref[i] = (double)-2.5f;
    snprintf(src, sizeof src, "R = fill(%d, %d, -2.5);", rows, cols);
    oc_expect(src, ref, rows, cols, 0);
    for (size_t i = 0; i < n; i++) /* arange is made on the host; the product by 2 runs in the mode */
        ref[i] = 2.0 * (double)i;
    snprintf(src, sizeof src, "R = 2 * arange(%zu);", n);
    oc_expect(src, ref, 1, (int)n, 0);
    for (size_t i = 0; i < n; i++)
        ref[i] = (double)i;
    snprintf(src, sizeof src, "R = arange(%zu);", n);
    oc_expect(src, ref, 1, (int)n, 0);
    free(ref);
}

/* Every mode usable here has every operation, each kind of reduction
 * included, after the table is resolved (an entry a mode leaves empty comes
 * from its base chain); the roles are held by cpu (reference), blas
 * (baseline) and tiled (start, with a GPU). */
static void oc_modes_resolved(void)
{
    for (int i = 0; i < mode_count(); i++) {
        const cuk_backend *m = mode_get(i);
        const char *why;
        if (!mode_available(m, &why))
            continue;
        const cuk_ops *o = &m->ops;
        int reductions = 1;
        for (int r = 0; r < CUK_RED_COUNT; r++)
            reductions &= o->reduce[r] != NULL;
        CHECKF(o->matmul && o->transpose && o->ewise && o->unary && reductions && o->dot && o->fill && o->eye &&
                   o->random && o->copy2d,
               "mode %s has an operation without a kernel", m->name);
    }
    CHECK(mode_reference() == mode_find("cpu") && mode_baseline() == mode_find("blas"));
    CHECK(mode_start(0) == mode_reference() && mode_start(1) == mode_find("tiled"));
}

/* The kernel variants set for the cases that follow (kernels/variants.h),
 * as a tag for their names ("tile8" gives ops_tiled_tile8_matmul_...), or
 * NULL for the defaults. */
static const char *oc_variant;

/* ops_MODE[_VARIANT]_WHAT_SHAPE */
static const char *oc_name(char *buf, size_t cap, const char *mode, const char *what, const char *shape)
{
    snprintf(buf, cap, "ops_%s_%s%s%s_%s", mode, oc_variant ? oc_variant : "", oc_variant ? "_" : "", what, shape);
    return buf;
}

static int oc_select(const char *mode)
{
    char src[32], name[64];
    snprintf(src, sizeof src, "mode %s", mode);
    if (run_source(oc_s, src, strlen(src), "test", 1, 1) == RUN_OK)
        return 0;
    snprintf(name, sizeof name, "ops_%s_select", mode);
    check_begin(name);
    CHECKF(0, "cannot select mode %s", mode);
    check_end();
    return -1;
}

/* The product alone, at m x k x n. */
static void oc_matmul_case(const char *mode, int m, int k, int n)
{
    char name[128], shape[48];
    if (oc_select(mode) != 0)
        return;
    snprintf(shape, sizeof shape, "%dx%dx%d", m, k, n);
    check_begin(oc_name(name, sizeof name, mode, "matmul", shape));
    oc_matmul(m, k, n);
    check_end();
}

/* The operations other than the product, in groups that are a case each. */
static const struct {
    const char *what;
    void (*fn)(int, int);
} oc_groups[] = {{"ewise", oc_ewise}, {"unary_layout", oc_unary_and_layout},
                 {"reductions", oc_reductions}, {"fills", oc_fills}};

/* One group (oc_groups[g]) at rows x cols. */
static void oc_group_case(const char *mode, size_t g, int rows, int cols)
{
    char name[128], shape[32];
    if (oc_select(mode) != 0)
        return;
    snprintf(shape, sizeof shape, "%dx%d", rows, cols);
    check_begin(oc_name(name, sizeof name, mode, oc_groups[g].what, shape));
    oc_groups[g].fn(rows, cols);
    check_end();
}

/* Every operation: the product at m x k x n, the rest at m x k. */
static void oc_all(const char *mode, int m, int k, int n)
{
    oc_matmul_case(mode, m, k, n);
    for (size_t g = 0; g < sizeof oc_groups / sizeof oc_groups[0]; g++)
        oc_group_case(mode, g, m, k);
}

#endif
