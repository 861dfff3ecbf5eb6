/* cpu.c - mode cpu: plain loops on one host thread. This is the baseline the
 * classic lectures time, so the matrix product is the textbook i-j-k triple
 * loop; reductions accumulate in double so that the baseline is also a
 * trustworthy reference. Every loop polls for Ctrl-C at least every CHUNK
 * elements (or multiply-adds) of work, never only between rows: one row can
 * be seconds of work (1x20000 @ 20000x20000). */
#include "kernels/backend.h"

#include <math.h>
#include <string.h>

#include "base/error.h"
#include "kernels/elementwise.h"
#include "kernels/philox.h"

/* The entry points of mode cpu, the root of the host modes (modes.c). */
cuk_matmul_fn cpu_matmul;
cuk_transpose_fn cpu_transpose;
cuk_ewise_fn cpu_ewise;
cuk_unary_fn cpu_unary;
cuk_reduce_fn cpu_reduce_sum, cpu_reduce_mean, cpu_reduce_norm, cpu_reduce_min, cpu_reduce_max;
cuk_dot_fn cpu_dot;
cuk_fill_fn cpu_fill;
cuk_eye_fn cpu_eye;
cuk_random_fn cpu_random;
cuk_copy2d_fn cpu_copy2d;

/* Elements (or multiply-adds) between interrupt checks. A check costs a
 * clock read (tens of ns); a chunk, 20 us to 10 ms: a transpose of
 * 20000x20000 takes ~100 ns an element, each write on another page. */
#define CHUNK ((size_t)1 << 16)

/* Count n more elements (or multiply-adds) of work; each time CHUNK of them
 * have been done, check for Ctrl-C. Nonzero, the error set, if the user
 * asked to stop. */
static int poll_work(size_t *work, size_t n)
{
    *work += n;
    if (*work < CHUNK)
        return 0;
    *work = 0;
    return cuk_check_interrupt();
}

/* The smaller of a and b. */
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* c (m x n) = a (m x k) @ b (k x n). Element (i, j) is the dot product of
 * row i of a and column j of b; walking b down a column strides n floats,
 * which is the cache lesson that tiling answers. Ctrl-C is checked between
 * elements of c, every CHUNK multiply-adds. */
static int matmul_rows(float *c, const float *a, const float *b, int m, int n, int k)
{
    size_t work = CHUNK; /* check before the first element */
    for (size_t i = 0; i < (size_t)m; i++) {
        if (cuk_check_progress(i, (size_t)m)) /* rows done: the panel shows how far, and the time left */
            return -1;
        for (size_t j = 0; j < (size_t)n; j++) {
            if (poll_work(&work, (size_t)k))
                return -1;
            float acc = 0.0f;
            for (size_t p = 0; p < (size_t)k; p++)
                acc += a[i * k + p] * b[p * n + j];
            c[i * n + j] = acc;
        }
    }
    return 0;
}

int cpu_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    int rc = matmul_rows(c, a, b, m, n, k);
    cuk_progress_done(); /* however it stopped */
    return rc;
}

/* Row by row, each row in pieces of CHUNK: a single row may be the whole
 * matrix (1 x 10^9). */
int cpu_transpose(float *out, const float *in, int rows, int cols)
{
    size_t work = CHUNK;
    for (size_t i = 0; i < (size_t)rows; i++) {
        for (size_t j0 = 0; j0 < (size_t)cols; j0 += CHUNK) {
            size_t j1 = min_size((size_t)cols, j0 + CHUNK);
            if (poll_work(&work, j1 - j0))
                return -1;
            for (size_t j = j0; j < j1; j++)
                out[j * rows + i] = in[i * cols + j];
        }
    }
    return 0;
}

int cpu_ewise(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n)
{
    /* A broadcast operand is a stride of 0 over one value. */
    const float *pa = a.p ? a.p : &a.v, *pb = b.p ? b.p : &b.v;
    size_t sa = a.bcast ? 0 : 1, sb = b.bcast ? 0 : 1;
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t i1 = min_size(n, i0 + CHUNK);
        if (cuk_check_interrupt())
            return -1;
        for (size_t i = i0; i < i1; i++)
            out[i] = cuk_ewise_one(op, pa[i * sa], pb[i * sb]);
    }
    return 0;
}

int cpu_unary(cuk_unop op, float *out, const float *in, size_t n)
{
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t i1 = min_size(n, i0 + CHUNK);
        if (cuk_check_interrupt())
            return -1;
        for (size_t i = i0; i < i1; i++)
            out[i] = cuk_unary_one(op, in[i]);
    }
    return 0;
}

/* The sum of x[i] * y[i] in double, or of x[i] when y is NULL. */
static int sum_of(const float *x, const float *y, size_t n, double *out)
{
    double acc = 0;
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t i1 = min_size(n, i0 + CHUNK);
        if (cuk_check_interrupt())
            return -1;
        for (size_t i = i0; i < i1; i++)
            acc += y ? (double)x[i] * y[i] : (double)x[i];
    }
    *out = acc;
    return 0;
}

/* The least or greatest of in[0..n), NaN if any is NaN; -1 if interrupted. */
static int extreme_of(const float *in, size_t n, int want_max, float *out)
{
    float best = in[0];
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t i1 = min_size(n, i0 + CHUNK);
        if (cuk_check_interrupt())
            return -1;
        for (size_t i = i0; i < i1; i++)
            best = want_max ? cuk_max_nan(best, in[i]) : cuk_min_nan(best, in[i]);
    }
    *out = best;
    return 0;
}

/* sum, mean or norm (op) of in: one sum, of the squares for norm. */
static int summed(cuk_redop op, float *out, const float *in, size_t n)
{
    double acc;
    if (sum_of(in, op == CUK_RED_NORM ? in : NULL, n, &acc) != 0)
        return -1;
    *out = cuk_sum_end(op, acc, n);
    return 0;
}

int cpu_reduce_sum(float *out, const float *in, size_t n) { return summed(CUK_RED_SUM, out, in, n); }
int cpu_reduce_mean(float *out, const float *in, size_t n) { return summed(CUK_RED_MEAN, out, in, n); }
int cpu_reduce_norm(float *out, const float *in, size_t n) { return summed(CUK_RED_NORM, out, in, n); }
int cpu_reduce_min(float *out, const float *in, size_t n) { return extreme_of(in, n, 0, out); }
int cpu_reduce_max(float *out, const float *in, size_t n) { return extreme_of(in, n, 1, out); }

int cpu_dot(float *out, const float *x, const float *y, size_t n)
{
    double acc;
    if (sum_of(x, y, n, &acc) != 0)
        return -1;
    *out = (float)acc;
    return 0;
}

int cpu_fill(float *out, float v, size_t n)
{
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t i1 = min_size(n, i0 + CHUNK);
        if (cuk_check_interrupt())
            return -1;
        for (size_t i = i0; i < i1; i++)
            out[i] = v;
    }
    return 0;
}

int cpu_eye(float *out, int rows, int cols)
{
    if (cpu_fill(out, 0.0f, (size_t)rows * cols) != 0)
        return -1;
    for (size_t i = 0; i < (size_t)rows && i < (size_t)cols; i++)
        out[i * cols + i] = 1.0f;
    return 0;
}

int cpu_random(cuk_dist dist, float *out, size_t n, uint64_t seed, uint64_t stream)
{
    for (size_t blk = 0; blk * 4 < n; blk++) {
        float v[4];
        if (blk % (CHUNK / 4) == 0 && cuk_check_interrupt())
            return -1;
        philox_block(dist == CUK_RAND_NORMAL, blk, stream, seed, v);
        size_t left = n - blk * 4;
        memcpy(out + blk * 4, v, (left < 4 ? left : 4) * sizeof *v);
    }
    return 0;
}

/* Row by row, long rows in pieces of CHUNK. */
int cpu_copy2d(float *dst, size_t dld, const float *src, size_t sld, int rows, int cols)
{
    size_t work = CHUNK;
    for (size_t i = 0; i < (size_t)rows; i++) {
        for (size_t j0 = 0; j0 < (size_t)cols; j0 += CHUNK) {
            size_t w = min_size((size_t)cols - j0, CHUNK);
            if (poll_work(&work, w))
                return -1;
            memcpy(dst + i * dld + j0, src + i * sld + j0, w * sizeof *dst);
        }
    }
    return 0;
}
