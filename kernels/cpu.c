/* cpu.c - mode cpu: plain loops on one host thread. This is the baseline the
 * classic lectures time, so the matrix product is the textbook i-j-k triple
 * loop; reductions accumulate in double so that the baseline is also a
 * trustworthy reference. Long loops poll for Ctrl-C between rows or chunks. */
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
cuk_reduce_fn cpu_reduce;
cuk_dot_fn cpu_dot;
cuk_fill_fn cpu_fill;
cuk_eye_fn cpu_eye;
cuk_random_fn cpu_random;
cuk_copy2d_fn cpu_copy2d;

#define CHUNK ((size_t)1 << 20) /* elements between interrupt checks */

/* c (m x n) = a (m x k) @ b (k x n). Element (i, j) is the dot product of
 * row i of a and column j of b; walking b down a column strides n floats,
 * which is the cache lesson that tiling answers. */
int cpu_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    for (size_t i = 0; i < (size_t)m; i++) {
        if (cuk_check_progress(i, (size_t)m)) { /* rows done: the panel shows how far, and the time left */
            cuk_progress_done();
            return -1;
        }
        for (size_t j = 0; j < (size_t)n; j++) {
            float acc = 0.0f;
            for (size_t p = 0; p < (size_t)k; p++)
                acc += a[i * k + p] * b[p * n + j];
            c[i * n + j] = acc;
        }
    }
    cuk_progress_done();
    return 0;
}

int cpu_transpose(float *out, const float *in, int rows, int cols)
{
    for (size_t i = 0; i < (size_t)rows; i++) {
        if (i % 256 == 0 && cuk_check_interrupt())
            return -1;
        for (size_t j = 0; j < (size_t)cols; j++)
            out[j * rows + i] = in[i * cols + j];
    }
    return 0;
}

int cpu_ewise(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n)
{
    /* A broadcast operand is a stride of 0 over one value. */
    const float *pa = a.p ? a.p : &a.v, *pb = b.p ? b.p : &b.v;
    size_t sa = a.bcast ? 0 : 1, sb = b.bcast ? 0 : 1;
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t i1 = n - i0 < CHUNK ? n : i0 + CHUNK;
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
        size_t i1 = n - i0 < CHUNK ? n : i0 + CHUNK;
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
        size_t i1 = n - i0 < CHUNK ? n : i0 + CHUNK;
        if (cuk_check_interrupt())
            return -1;
        for (size_t i = i0; i < i1; i++)
            acc += y ? (double)x[i] * y[i] : (double)x[i];
    }
    *out = acc;
    return 0;
}

static float extreme_of(const float *in, size_t n, int want_max)
{
    float best = in[0];
    for (size_t i = 1; i < n; i++)
        best = want_max ? cuk_max_nan(best, in[i]) : cuk_min_nan(best, in[i]);
    return best;
}

int cpu_reduce(cuk_redop op, float *out, const float *in, size_t n)
{
    double acc;
    if (op == CUK_RED_MIN || op == CUK_RED_MAX) {
        *out = extreme_of(in, n, op == CUK_RED_MAX);
        return 0;
    }
    if (sum_of(in, op == CUK_RED_NORM ? in : NULL, n, &acc) != 0)
        return -1;
    *out = (float)(op == CUK_RED_SUM ? acc : op == CUK_RED_MEAN ? acc / (double)n : sqrt(acc));
    return 0;
}

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
    for (size_t i = 0; i < n; i++)
        out[i] = v;
    return 0;
}

int cpu_eye(float *out, int rows, int cols)
{
    cpu_fill(out, 0.0f, (size_t)rows * cols);
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

int cpu_copy2d(float *dst, size_t dld, const float *src, size_t sld, int rows, int cols)
{
    for (size_t i = 0; i < (size_t)rows; i++)
        memcpy(dst + i * dld, src + i * sld, (size_t)cols * sizeof *dst);
    return 0;
}
