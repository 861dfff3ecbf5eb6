/* user_check.c - a user kernel's result against a reference, and what is
 * wrong with it in the user's terms (user_check.h). Every result is a
 * rows x cols view (a vector is one row of elements) with a function
 * giving the reference and its tolerance at one element; the analysis of
 * what was never written and of what is wrong is the same for all. */
#include "kernels/user_check.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/elementwise.h"

/* Reference operations a check may spend before it samples: about 0.1 s. */
#define BUDGET ((double)(1 << 26))
/* Rows and columns a sampled check compares in full, at most. */
#define MAX_LINES 64

/* float32's unit roundoff, 2^-24 */
static const double U = 1.0 / 16777216.0;

typedef struct view view;
struct view {
    int rows, cols;
    const float *got;
    const char *name;  /* "C", "out" */
    int one_d;         /* a vector: "out[17]", elements */
    double cost;       /* reference operations per element */
    /* the reference at (i, j) and how far from it is still right */
    void (*want)(const view *v, int i, int j, double *val, double *tol);
    const float *a, *b;
    int k, op;
};

/* What the comparison found. */
typedef struct {
    size_t checked, wrong;
    int fi, fj;            /* the first wrong element, in row-major order */
    double fwant;
    float fgot;
    int all_zero;          /* every wrong one is 0 */
    double rlo, rhi;       /* the range of got / want over the wrong ones */
    int ratios;            /* how many ratios the range holds */
} tally;

static int is_poison(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u == UCHECK_POISON;
}

static int matches(double want, double tol, float got)
{
    if (isnan(want))
        return isnan(got) && !is_poison(got);
    if (isinf(want))
        return got == want;
    return fabs((double)got - want) <= tol;
}

static float got_at(const view *v, int i, int j) { return v->got[(size_t)i * v->cols + j]; }

/* "C[3,4]" or "out[17]" */
static const char *where(const view *v, int i, int j, char *buf, size_t cap)
{
    if (v->one_d)
        snprintf(buf, cap, "%s[%d]", v->name, j);
    else
        snprintf(buf, cap, "%s[%d,%d]", v->name, i, j);
    return buf;
}

/* ---- never written ---- */

/* How the written elements lie, when they fill a box at the top left. */
static void written_box(const view *v, size_t written, int rmax, int cmax, size_t total, size_t count, char *pat,
                        size_t cap)
{
    int r = rmax + 1, c = cmax + 1;
    if (written == 0)
        snprintf(pat, cap, "nothing was written: every element still holds the poison value cuk fills the output "
                           "with (is the grid empty, or does the kernel store nothing?)");
    else if (written != (size_t)r * c)
        snprintf(pat, cap, "%zu of the %zu elements were never written (they hold the poison value)", count, total);
    else if (v->one_d)
        snprintf(pat, cap, "elements >= %d were never written: the grid covers %d elements", c, c);
    else if (c == v->cols)
        snprintf(pat, cap, "rows >= %d were never written: the grid covers %d rows", r, r);
    else if (r == v->rows)
        snprintf(pat, cap, "columns >= %d were never written: the grid covers %d columns", c, c);
    else
        snprintf(pat, cap, "only the top-left %dx%d block was written: the grid covers %d rows and %d columns", r, c,
                 r, c);
}

/* 1 with why set if some element was never written; every element is
 * looked at, which costs nothing beside the reference. */
static int unwritten(const view *v, char *why, size_t cap)
{
    size_t count = 0, written = 0, total = (size_t)v->rows * v->cols;
    int fi = -1, fj = -1, rmax = -1, cmax = -1;
    for (int i = 0; i < v->rows; i++)
        for (int j = 0; j < v->cols; j++) {
            if (!is_poison(got_at(v, i, j))) {
                written++;
                rmax = i > rmax ? i : rmax;
                cmax = j > cmax ? j : cmax;
            } else if (count++ == 0) {
                fi = i, fj = j;
            }
        }
    if (count == 0)
        return 0;
    char pat[256], at[48];
    double want, tol;
    written_box(v, written, rmax, cmax, total, count, pat, sizeof pat);
    v->want(v, fi, fj, &want, &tol);
    snprintf(why, cap, "%s was never written (it should be %.7g): %s", where(v, fi, fj, at, sizeof at), want, pat);
    return 1;
}

/* ---- wrong values ---- */

/* Compare element (i, j); 1 if it is wrong. */
static int check_cell(const view *v, int i, int j, tally *t)
{
    double want, tol;
    float got = got_at(v, i, j);
    v->want(v, i, j, &want, &tol);
    t->checked++;
    if (matches(want, tol, got))
        return 0;
    if (t->wrong++ == 0 || i < t->fi || (i == t->fi && j < t->fj)) {
        t->fi = i, t->fj = j;
        t->fwant = want, t->fgot = got;
    }
    t->all_zero &= got == 0.0f;
    if (want != 0 && isfinite(want) && isfinite(got)) {
        double r = got / want;
        t->rlo = t->ratios && t->rlo < r ? t->rlo : r;
        t->rhi = t->ratios && t->rhi > r ? t->rhi : r;
        t->ratios++;
    }
    return 1;
}

/* Compare every element of row i (col < 0) or column col; 1 if all of it
 * is wrong, 0 if none, 2 if some. */
static int check_line(const view *v, int i, int col, tally *t)
{
    int n = col < 0 ? v->cols : v->rows, bad = 0;
    for (int x = 0; x < n; x++)
        bad += col < 0 ? check_cell(v, i, x, t) : check_cell(v, x, col, t);
    return bad == 0 ? 0 : bad == n ? 1 : 2;
}

/* Lines near the tile edges (8 to 256), the middle, the last few, and
 * some at random with a fixed seed, sorted and without repeats, at most
 * max of n. */
static int pick_lines(int n, int max, int *out)
{
    static const int edges[] = {0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256};
    int k = 0;
    uint64_t s = 2026;
    for (size_t e = 0; e < sizeof edges / sizeof edges[0] && k < max; e++)
        if (edges[e] < n)
            out[k++] = edges[e];
    for (int back = 1; back <= 3 && k < max; back++)
        if (n - back >= 0)
            out[k++] = n - back;
    if (k < max)
        out[k++] = n / 2;
    while (k < max && k < n) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        out[k++] = (int)((s >> 33) % (uint64_t)n);
    }
    for (int i = 1; i < k; i++) /* sort, a few dozen */
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int x = out[j];
            out[j] = out[j - 1], out[j - 1] = x;
        }
    int m = 0;
    for (int i = 0; i < k; i++)
        if (m == 0 || out[m - 1] != out[i])
            out[m++] = out[i];
    return m;
}

/* The first wrong line: every checked line from it on is wrong in full
 * and none before it is wrong at all; refined between the checked lines
 * by halving. -1 if the wrong ones are not laid out so. */
static int first_wrong_line(const view *v, const int *line, const int *state, int n, int by_col, tally *t)
{
    int f = 0;
    while (f < n && state[f] == 0)
        f++;
    if (f == n)
        return -1;
    for (int x = f; x < n; x++)
        if (state[x] != 1)
            return -1;
    int lo = f ? line[f - 1] : -1, hi = line[f]; /* lo right (or none), hi wrong */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        int st = by_col ? check_line(v, 0, mid, t) : check_line(v, mid, -1, t);
        if (st == 2)
            return -1;
        if (st == 1)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* The pattern of the wrong elements, into pat. */
static void pattern(const view *v, const tally *t, int row0, int col0, char *pat, size_t cap)
{
    const char *what = t->all_zero ? "zero" : "wrong";
    if (t->wrong == t->checked && t->all_zero)
        snprintf(pat, cap, "every element is zero");
    else if (t->wrong == t->checked && t->ratios == (int)t->wrong && t->rhi - t->rlo <= 1e-3 * fabs(t->rlo))
        snprintf(pat, cap, "every element is %.4g times what it should be", t->rlo);
    else if (t->wrong == t->checked)
        snprintf(pat, cap, "every element is wrong");
    else if (row0 >= 0 && v->one_d)
        snprintf(pat, cap, "elements >= %d are %s", row0, what);
    else if (row0 >= 0)
        snprintf(pat, cap, "rows >= %d are %s", row0, what);
    else if (col0 >= 0)
        snprintf(pat, cap, "columns >= %d are %s", col0, what);
    else
        snprintf(pat, cap, "%zu of the %zu elements checked are %s", t->wrong, t->checked, what);
}

/* The first of n lines (rows or columns, bad[x] wrong elements of len
 * each) from which on every one is wrong in full, none before it wrong at
 * all; -1 if the wrong ones are not laid out so. */
static int first_full_line(const int *bad, int n, int len)
{
    int f = 0;
    while (f < n && bad[f] == 0)
        f++;
    for (int x = f; x < n; x++)
        if (bad[x] != len)
            return -1;
    return f < n ? f : -1;
}

/* Every element, row after row; the first wrong row or column if the
 * wrong ones are all of them from there on. */
static int compare_all(const view *v, tally *t, int *row0, int *col0)
{
    int *rbad = calloc((size_t)v->rows, sizeof *rbad), *cbad = calloc((size_t)v->cols, sizeof *cbad);
    if (!rbad || !cbad) {
        free(rbad);
        free(cbad);
        return -1;
    }
    for (int i = 0; i < v->rows; i++)
        for (int j = 0; j < v->cols; j++)
            if (check_cell(v, i, j, t))
                rbad[i]++, cbad[j]++;
    *row0 = first_full_line(rbad, v->rows, v->cols);
    *col0 = *row0 < 0 ? first_full_line(cbad, v->cols, v->rows) : -1;
    free(rbad);
    free(cbad);
    return 0;
}

/* Sampled rows and columns in full; the first wrong row or column found
 * by halving between them. */
static void compare_lines(const view *v, tally *t, int *row0, int *col0)
{
    int rows[MAX_LINES], cols[MAX_LINES], rst[MAX_LINES], cst[MAX_LINES];
    int lines = (int)fmin(MAX_LINES, fmax(8, BUDGET / (v->cost * (v->rows + v->cols))));
    int nr = pick_lines(v->rows, lines, rows), nc = pick_lines(v->cols, lines, cols);
    for (int r = 0; r < nr; r++)
        rst[r] = check_line(v, rows[r], -1, t);
    for (int c = 0; c < nc; c++)
        cst[c] = check_line(v, 0, cols[c], t);
    *row0 = t->wrong ? first_wrong_line(v, rows, rst, nr, 0, t) : -1;
    *col0 = t->wrong && *row0 < 0 ? first_wrong_line(v, cols, cst, nc, 1, t) : -1;
}

/* A vector: every element, or evenly spread ones past the budget. */
static void compare_vector(const view *v, tally *t, int *first)
{
    int full = v->cost * v->cols <= BUDGET, step = full ? 1 : v->cols / (1 << 22) + 1, bad = -1;
    for (int j = 0; j < v->cols; j += step)
        if (check_cell(v, 0, j, t) && bad < 0)
            bad = j;
    *first = full && bad >= 0 && t->wrong == (size_t)(v->cols - bad) ? bad : -1;
}

/* Compare v; 0 if all is right, else -1 with why. */
static int compare(const view *v, char *why, size_t cap)
{
    tally t = {.all_zero = 1};
    int row0 = -1, col0 = -1;
    if (v->one_d)
        compare_vector(v, &t, &row0);
    else if (v->cost * v->rows * (double)v->cols > BUDGET)
        compare_lines(v, &t, &row0, &col0);
    else if (compare_all(v, &t, &row0, &col0) != 0) {
        snprintf(why, cap, "out of host memory for the check");
        return -1;
    }
    if (t.wrong == 0)
        return 0;
    char pat[200], at[48];
    pattern(v, &t, row0, col0, pat, sizeof pat);
    snprintf(why, cap, "%s is %.7g, expected %.7g: %s", where(v, t.fi, t.fj, at, sizeof at), t.fgot, t.fwant, pat);
    return -1;
}

static int check_view(const view *v, char *why, size_t cap) { return unwritten(v, why, cap) ? -1 : compare(v, why, cap); }

/* ---- the operations ---- */

/* c[i,j] = sum over l of a[i,l] b[l,j], within (k + 4) roundoffs of
 * sum |a||b|: every order of summing, with or without fused
 * multiply-adds, stays inside it; one term missing does not. */
static void want_matmul(const view *v, int i, int j, double *val, double *tol)
{
    double s = 0, abs_sum = 0;
    const float *a = v->a + (size_t)i * v->k;
    for (int l = 0; l < v->k; l++) {
        double p = (double)a[l] * v->b[(size_t)l * v->cols + j];
        s += p;
        abs_sum += fabs(p);
    }
    *val = s;
    *tol = (v->k + 4) * U * abs_sum + FLT_MIN;
}

int ucheck_matmul(const float *c, const float *a, const float *b, int m, int n, int k, char *why, size_t cap)
{
    view v = {m, n, c, "C", 0, (double)k, want_matmul, a, b, k, 0};
    return check_view(&v, why, cap);
}

static void want_transpose(const view *v, int i, int j, double *val, double *tol)
{
    *val = v->a[(size_t)j * v->rows + i]; /* out[i,j] = in[j,i]; in is cols x rows of out */
    *tol = 0;
}

int ucheck_transpose(const float *out, const float *in, int rows, int cols, char *why, size_t cap)
{
    view v = {cols, rows, out, "out", 0, 1, want_transpose, in, NULL, 0, 0};
    return check_view(&v, why, cap);
}

/* Within 16 units in the last place of the host's float result: CUDA's
 * powf, expf and logf are within 2 to 4 of the exact one, the host's
 * within 1. */
static void near_float(float r, double *val, double *tol)
{
    *val = r;
    *tol = 16 * 2 * U * fabs(r) + 16 * FLT_MIN;
}

static void want_ewise(const view *v, int i, int j, double *val, double *tol)
{
    near_float(cuk_ewise_one((cuk_ewop)v->op, v->a[j], v->b[j]), val, tol);
}

static void want_unary(const view *v, int i, int j, double *val, double *tol)
{
    near_float(cuk_unary_one((cuk_unop)v->op, v->a[j]), val, tol);
}

int ucheck_ewise(cuk_ewop op, const float *out, const float *a, const float *b, size_t n, char *why, size_t cap)
{
    view v = {1, (int)n, out, "out", 1, 1, want_ewise, a, b, 0, (int)op};
    return check_view(&v, why, cap);
}

int ucheck_unary(cuk_unop op, const float *out, const float *in, size_t n, char *why, size_t cap)
{
    view v = {1, (int)n, out, "out", 1, 1, want_unary, in, NULL, 0, (int)op};
    return check_view(&v, why, cap);
}

/* ---- reductions ---- */

/* The reduction of the first p elements, for each p, as it grows. */
typedef struct {
    cuk_redop op;
    double acc, abs_sum;
    int nan;
} fold;

static void fold_add(fold *f, float x, size_t p)
{
    f->nan |= isnan(x);
    if (f->op == CUK_RED_SUM)
        f->acc += x, f->abs_sum += fabs(x);
    else if (p == 0 || (f->op == CUK_RED_MIN ? x < f->acc : x > f->acc))
        f->acc = x;
}

/* The fold's value and tolerance after p + 1 elements. */
static void fold_want(const fold *f, size_t p, double *val, double *tol)
{
    *val = f->nan ? NAN : f->acc;
    *tol = f->op == CUK_RED_SUM ? (4 * sqrt((double)p + 1) + 16) * U * f->abs_sum + FLT_MIN : 0;
}

int ucheck_reduce(cuk_redop op, float got, float start, const float *in, size_t n, char *why, size_t cap)
{
    const char *name = op == CUK_RED_SUM ? "sum" : op == CUK_RED_MIN ? "minimum" : "maximum";
    fold f = {op, 0, 0, 0};
    double want, tol;
    size_t prefix = 0;
    int have_prefix = 0;
    for (size_t p = 0; p < n; p++) { /* the shortest prefix the result matches, too */
        fold_add(&f, in[p], p);
        fold_want(&f, p, &want, &tol);
        if (!have_prefix && p + 1 < n && matches(want, tol, got))
            prefix = p + 1, have_prefix = 1;
    }
    fold_want(&f, n ? n - 1 : 0, &want, &tol);
    if (matches(want, tol, got))
        return 0;
    char pat[160];
    if (got == start)
        snprintf(pat, sizeof pat, "out still holds the %g it started at: nothing reached it", start);
    else if (have_prefix)
        snprintf(pat, sizeof pat, "it is the %s of the first %zu elements: the grid covers %zu elements", name, prefix,
                 prefix);
    else if (want != 0 && isfinite(want) && isfinite(got) && got != 0)
        snprintf(pat, sizeof pat, "it is %.4g times the %s", got / want, name);
    else
        snprintf(pat, sizeof pat, "the %s of %zu elements", name, n);
    snprintf(why, cap, "out[0] is %.7g, expected %.7g: %s", got, want, pat);
    return -1;
}
