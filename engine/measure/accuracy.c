/* accuracy.c - the float64 reference of a result at a sample of its
 * elements, and a result's relative error there (accuracy.h): bench's
 * error column, which each mode's filed summary carries to `why`. */
#include "engine/measure/accuracy.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "engine/lang/eval.h"
#include "engine/lang/lex.h"

/* Evenly spread sample positions over n elements. */
static int sample_positions(acc_ref *r, size_t n)
{
    r->n = n < ACC_SAMPLES ? (int)n : ACC_SAMPLES;
    for (int t = 0; t < r->n; t++)
        r->idx[t] = (size_t)((double)t * (double)n / r->n + 0.5 * (double)n / r->n) % n;
    return 0;
}

/* The same positions in every run and mode (a linear congruential
 * generator with a fixed seed): a bench's rows are compared at one sample. */
static size_t pick(uint64_t *state, size_t n)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (size_t)((*state >> 33) % n);
}

/* rows[i] = row ri[i] of x (k floats each). */
static int read_rows(cuk_matrix *x, const size_t *ri, int nr, float *rows)
{
    size_t k = (size_t)x->cols;
    for (int i = 0; i < nr; i++)
        if (mat_read(x, ri[i] * k, k, rows + i * k) != 0)
            return -1;
    return 0;
}

/* acc[i][j] += sum over y's rows p of a[i][p] y[p][cj[j]], y read BLOCK rows
 * at a time, so that the host holds a block, never all of y. */
static int stream_columns(cuk_matrix *y, const float *a, int nr, const size_t *cj, int nc, double *acc)
{
    enum { BLOCK = 64 };
    size_t k = (size_t)y->rows, n = (size_t)y->cols;
    float *blk = malloc(BLOCK * n * sizeof *blk);
    if (!blk)
        return cuk_err("out of host memory");
    for (size_t p0 = 0; p0 < k; p0 += BLOCK) {
        size_t np = k - p0 < BLOCK ? k - p0 : BLOCK;
        if (mat_read(y, p0 * n, np * n, blk) != 0) {
            free(blk);
            return -1;
        }
        for (size_t p = 0; p < np; p++)
            for (int i = 0; i < nr; i++)
                for (int j = 0; j < nc; j++)
                    acc[i * nc + j] += (double)a[i * k + p0 + p] * blk[p * n + cj[j]];
    }
    free(blk);
    return 0;
}

int acc_product(cuk_matrix *x, cuk_matrix *y, acc_ref *r)
{
    size_t m = (size_t)x->rows, k = (size_t)x->cols, n = (size_t)y->cols, ri[ACC_ROWS], cj[ACC_COLS];
    int nr = m < ACC_ROWS ? (int)m : ACC_ROWS, nc = n < ACC_COLS ? (int)n : ACC_COLS;
    uint64_t state = 2026;
    for (int i = 0; i < nr; i++)
        ri[i] = m <= ACC_ROWS ? (size_t)i : pick(&state, m);
    for (int j = 0; j < nc; j++)
        cj[j] = n <= ACC_COLS ? (size_t)j : pick(&state, n);
    float *a = malloc((size_t)nr * (k ? k : 1) * sizeof *a);
    double *acc = calloc((size_t)nr * nc, sizeof *acc);
    int rc = a && acc ? 0 : cuk_err("out of host memory");
    if (rc == 0)
        rc = read_rows(x, ri, nr, a);
    if (rc == 0)
        rc = stream_columns(y, a, nr, cj, nc, acc);
    r->n = rc == 0 ? nr * nc : 0;
    for (int t = 0; t < r->n; t++) {
        r->idx[t] = ri[t / nc] * n + cj[t % nc];
        r->val[t] = acc[t];
    }
    free(a);
    free(acc);
    return rc == 0 ? 1 : -1;
}

/* Element i of m (1x1 operands broadcast). */
static int element(cuk_matrix *m, size_t i, double *out)
{
    float v;
    if (mat_read(m, mat_numel(m) == 1 ? 0 : i, 1, &v) != 0)
        return -1;
    *out = v;
    return 0;
}

static int ref_ewise(int op, cuk_matrix *x, cuk_matrix *y, acc_ref *r)
{
    size_t n = mat_numel(x) > mat_numel(y) ? mat_numel(x) : mat_numel(y);
    sample_positions(r, n);
    for (int t = 0; t < r->n; t++) {
        double a, b;
        if (element(x, r->idx[t], &a) != 0 || element(y, r->idx[t], &b) != 0)
            return -1;
        r->val[t] = op == TK_PLUS ? a + b : op == TK_MINUS ? a - b : op == TK_STAR ? a * b : a / b;
    }
    return 1;
}

/* sum, mean, norm, min, max of x, or dot(x, y), in float64, a chunk at a time. */
static int ref_reduce(const char *fn, cuk_matrix *x, cuk_matrix *y, acc_ref *r)
{
    enum { CHUNK = 1 << 20 };
    float *cx = malloc(CHUNK * sizeof *cx), *cy = y ? malloc(CHUNK * sizeof *cy) : NULL;
    size_t n = mat_numel(x);
    double acc = !strcmp(fn, "min") ? INFINITY : !strcmp(fn, "max") ? -INFINITY : 0;
    int rc = cx && (!y || cy) ? 1 : cuk_err("out of host memory");
    for (size_t i = 0; rc == 1 && i < n; i += CHUNK) {
        size_t len = n - i < CHUNK ? n - i : CHUNK;
        if (mat_read(x, i, len, cx) != 0 || (y && mat_read(y, i, len, cy) != 0))
            rc = -1;
        for (size_t j = 0; rc == 1 && j < len; j++) {
            double v = cx[j];
            if (y)
                acc += v * cy[j];
            else if (!strcmp(fn, "norm"))
                acc += v * v;
            else if (!strcmp(fn, "min"))
                acc = v < acc ? v : acc;
            else if (!strcmp(fn, "max"))
                acc = v > acc ? v : acc;
            else
                acc += v;
        }
    }
    free(cx);
    free(cy);
    r->n = 1;
    r->idx[0] = 0;
    r->val[0] = !strcmp(fn, "mean") ? acc / (double)n : !strcmp(fn, "norm") ? sqrt(acc) : acc;
    return rc;
}

static int is_reduction(const ast *e)
{
    static const char *const one[] = {"sum", "mean", "norm", "min", "max"};
    if (e->kind != AST_CALL)
        return 0;
    if (e->nkid == 2 && !strcmp(e->text, "dot"))
        return 1;
    for (size_t i = 0; e->nkid == 1 && i < sizeof one / sizeof one[0]; i++)
        if (!strcmp(e->text, one[i]))
            return 1;
    return 0;
}

/* The reference for e where cuk knows how (a product, the reductions, + - *
 * /): 1; 0 where it doesn't; -1 with the error set. Operands are evaluated
 * in the user's mode, outside every record. */
int acc_reference(cuk_session *s, const ast *e, acc_ref *r)
{
    int product = e->kind == AST_BINARY && e->op == TK_AT;
    int ewise = e->kind == AST_BINARY && !product;
    if (!product && !ewise && !is_reduction(e))
        return 0;
    cuk_matrix *x = eval_expr(s, e->kid[0]), *y = x && e->nkid > 1 ? eval_expr(s, e->kid[1]) : NULL;
    int rc = -1;
    if (x && (y || e->nkid == 1))
        rc = product ? acc_product(x, y, r) : ewise ? ref_ewise(e->op, x, y, r) : ref_reduce(e->text, x, y, r);
    mat_unref(x);
    mat_unref(y);
    return rc;
}

/* The relative error of v at the reference's positions. */
double acc_error(cuk_matrix *v, const acc_ref *r)
{
    double num = 0, den = 0, x;
    for (int t = 0; t < r->n; t++) {
        if (r->idx[t] >= mat_numel(v) || element(v, r->idx[t], &x) != 0) {
            cuk_err_clear();
            return NAN;
        }
        num += (x - r->val[t]) * (x - r->val[t]);
        den += r->val[t] * r->val[t];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* The cpu row's value as the reference, where float64 is not at hand. */
int acc_from(cuk_matrix *v, acc_ref *r)
{
    sample_positions(r, mat_numel(v));
    for (int t = 0; t < r->n; t++)
        if (element(v, r->idx[t], &r->val[t]) != 0)
            return -1;
    return 1;
}

