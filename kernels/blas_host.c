/* blas_host.c - mode blas's operations other than the product: the same
 * results as mode cpu, on every core (host_threads.h) and in loops the
 * compiler vectorises (the Makefile builds this file with -O3). Mode cpu
 * stays the one-thread baseline of the lectures; this is the best a CPU
 * does, so that a GPU's speedup over it means something.
 *
 * Sums are in double, as in mode cpu, over a fixed split: each part adds
 * its elements in eight lanes, and the parts are added in order, so a
 * result depends only on the length and the thread count. Every loop looks
 * for Ctrl-C every CHUNK elements (host_stopping). */
#include <math.h>
#include <string.h>

#include "kernels/backend.h"
#include "kernels/elementwise.h"
#include "kernels/host_threads.h"
#include "kernels/philox.h"

/* The entry points of mode blas defined here (modes.c). */
cuk_transpose_fn blas_transpose;
cuk_ewise_fn blas_ewise;
cuk_unary_fn blas_unary;
cuk_reduce_fn blas_reduce_sum, blas_reduce_mean, blas_reduce_norm, blas_reduce_min, blas_reduce_max;
cuk_dot_fn blas_dot;
cuk_fill_fn blas_fill;
cuk_eye_fn blas_eye;
cuk_random_fn blas_random;

/* Elements between Ctrl-C checks, and the fewest elements worth waking a
 * thread for (a wake-up costs about as much as streaming 2^16 floats). */
#define CHUNK ((size_t)1 << 16)
#define GRAIN ((size_t)1 << 16)
/* Elementwise loops run in blocks of BLOCK, a broadcast operand as a block
 * of copies of its value, so that every inner loop is over plain arrays. */
#define BLOCK 1024
#define LANES 8

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* --- elementwise -------------------------------------------------------- */
typedef struct {
    cuk_ewop op;
    cuk_unop un;
    float *out;
    const float *x, *y; /* NULL: the broadcast value xv or yv */
    float xv, yv;
} ewise_job;

/* One loop per operation, expanded from oplist.h, so that each is
 * vectorised on its own (a switch inside one loop keeps it scalar). */
typedef void ewise_loop(float *out, const float *xs, const float *ys, size_t n);
typedef void unary_loop(float *out, const float *xs, size_t n);

#define EW_LOOP(id, name, usage, expr)                                           \
    static void ew_##id(float *out, const float *xs, const float *ys, size_t n) \
    {                                                                            \
        for (size_t i = 0; i < n; i++) {                                         \
            float x = xs[i], y = ys[i];                                          \
            out[i] = expr;                                                       \
        }                                                                        \
    }
#define UN_LOOP(id, name, usage, expr)                                           \
    static void un_##id(float *out, const float *xs, size_t n)                   \
    {                                                                            \
        for (size_t i = 0; i < n; i++) {                                         \
            float x = xs[i];                                                     \
            out[i] = expr;                                                       \
        }                                                                        \
    }
CUK_EWISE_OPS(EW_LOOP)
CUK_UNARY_OPS(UN_LOOP)
#define EW_ENTRY(id, name, usage, expr) [CUK_EW_##id] = ew_##id,
#define UN_ENTRY(id, name, usage, expr) [CUK_UN_##id] = un_##id,
static ewise_loop *const ewise_loops[CUK_EW_COUNT] = {CUK_EWISE_OPS(EW_ENTRY)};
static unary_loop *const unary_loops[CUK_UN_COUNT] = {CUK_UNARY_OPS(UN_ENTRY)};
#undef EW_LOOP
#undef UN_LOOP
#undef EW_ENTRY
#undef UN_ENTRY

static void fill_block(float *out, float v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = v;
}

static int ewise_part(void *ctx, size_t lo, size_t hi, int part)
{
    const ewise_job *j = ctx;
    float xb[BLOCK], yb[BLOCK];
    fill_block(xb, j->xv, BLOCK);
    fill_block(yb, j->yv, BLOCK);
    for (size_t i = lo; i < hi; i += BLOCK) {
        size_t n = min_size(BLOCK, hi - i);
        if ((i - lo) % CHUNK == 0 && host_stopping(part))
            return -1;
        ewise_loops[j->op](j->out + i, j->x ? j->x + i : xb, j->y ? j->y + i : yb, n);
    }
    return 0;
}

/* An operand's array, or NULL and its value in *v if it is broadcast. */
static const float *operand(cuk_arg a, float *v)
{
    *v = a.bcast && a.p ? a.p[0] : a.v;
    return a.bcast ? NULL : a.p;
}

int blas_ewise(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n)
{
    ewise_job j = {.op = op, .out = out};
    j.x = operand(a, &j.xv);
    j.y = operand(b, &j.yv);
    return host_parallel(ewise_part, &j, n, GRAIN);
}

/* body over [lo, hi) in pieces of CHUNK, looking for Ctrl-C before each. */
typedef void chunk_body(const ewise_job *j, size_t i, size_t n);

static int in_chunks(const ewise_job *j, size_t lo, size_t hi, int part, chunk_body *body)
{
    for (size_t i = lo; i < hi; i += CHUNK) {
        if (host_stopping(part))
            return -1;
        body(j, i, min_size(CHUNK, hi - i));
    }
    return 0;
}

static void unary_body(const ewise_job *j, size_t i, size_t n) { unary_loops[j->un](j->out + i, j->x + i, n); }
static void fill_body(const ewise_job *j, size_t i, size_t n) { fill_block(j->out + i, j->xv, n); }

static int unary_part(void *ctx, size_t lo, size_t hi, int part) { return in_chunks(ctx, lo, hi, part, unary_body); }
static int fill_part(void *ctx, size_t lo, size_t hi, int part) { return in_chunks(ctx, lo, hi, part, fill_body); }

int blas_unary(cuk_unop op, float *out, const float *in, size_t n)
{
    ewise_job j = {.un = op, .out = out, .x = in};
    return host_parallel(unary_part, &j, n, GRAIN);
}

int blas_fill(float *out, float v, size_t n)
{
    ewise_job j = {.out = out, .xv = v};
    return host_parallel(fill_part, &j, n, GRAIN);
}

int blas_eye(float *out, int rows, int cols)
{
    if (blas_fill(out, 0.0f, (size_t)rows * cols) != 0)
        return -1;
    for (size_t i = 0; i < (size_t)rows && i < (size_t)cols; i++)
        out[i * cols + i] = 1.0f;
    return 0;
}

/* --- reductions ---------------------------------------------------------- */
typedef struct {
    const float *x, *y; /* y NULL: sum of x; y == x: sum of squares */
    int want_max;
    double sums[HOST_MAX_PARTS];
    float best[HOST_MAX_PARTS];
} reduce_job;

/* The sum of x[i] over n elements in double, in LANES lanes added at the
 * end: independent additions the compiler puts in vector registers. */
static double sum_block(const float *x, size_t n)
{
    double lane[LANES] = {0}, total = 0;
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (int l = 0; l < LANES; l++)
            lane[l] += (double)x[i + l];
    for (; i < n; i++)
        total += (double)x[i];
    for (int l = 0; l < LANES; l++)
        total += lane[l];
    return total;
}

/* The same for x[i] * y[i], each product exact in double. */
static double dot_block(const float *x, const float *y, size_t n)
{
    double lane[LANES] = {0}, total = 0;
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (int l = 0; l < LANES; l++)
            lane[l] += (double)x[i + l] * (double)y[i + l];
    for (; i < n; i++)
        total += (double)x[i] * (double)y[i];
    for (int l = 0; l < LANES; l++)
        total += lane[l];
    return total;
}

static int sum_part(void *ctx, size_t lo, size_t hi, int part)
{
    reduce_job *j = ctx;
    double acc = 0;
    for (size_t i = lo; i < hi; i += CHUNK) {
        if (host_stopping(part))
            return -1;
        size_t n = min_size(CHUNK, hi - i);
        acc += j->y ? dot_block(j->x + i, j->y + i, n) : sum_block(j->x + i, n);
    }
    j->sums[part] = acc;
    return 0;
}

/* The double sum over n elements, the parts added in order. */
static int parallel_sum(const float *x, const float *y, size_t n, double *out)
{
    reduce_job j = {.x = x, .y = y};
    if (host_parallel(sum_part, &j, n, GRAIN) != 0)
        return -1;
    double acc = 0;
    for (int p = 0, parts = host_parts(n, GRAIN); p < parts; p++)
        acc += j.sums[p];
    *out = acc;
    return 0;
}

/* The least or greatest element of the part, NaN if any is NaN: in order,
 * as mode cpu takes it, so that of equal values (0 and -0) the same wins. */
static int extreme_part(void *ctx, size_t lo, size_t hi, int part)
{
    reduce_job *j = ctx;
    float best = j->x[lo];
    for (size_t i0 = lo; i0 < hi; i0 += CHUNK) {
        size_t i1 = min_size(hi, i0 + CHUNK);
        if (host_stopping(part))
            return -1;
        for (size_t i = i0; i < i1; i++)
            best = j->want_max ? cuk_max_nan(best, j->x[i]) : cuk_min_nan(best, j->x[i]);
    }
    j->best[part] = best;
    return 0;
}

static int parallel_extreme(const float *x, size_t n, int want_max, float *out)
{
    reduce_job j = {.x = x, .want_max = want_max};
    if (host_parallel(extreme_part, &j, n, GRAIN) != 0)
        return -1;
    float best = j.best[0];
    for (int p = 1, parts = host_parts(n, GRAIN); p < parts; p++)
        best = want_max ? cuk_max_nan(best, j.best[p]) : cuk_min_nan(best, j.best[p]);
    *out = best;
    return 0;
}

/* sum, mean or norm (op) of in: one sum, of the squares for norm. */
static int parallel_summed(cuk_redop op, float *out, const float *in, size_t n)
{
    double acc;
    if (parallel_sum(in, op == CUK_RED_NORM ? in : NULL, n, &acc) != 0)
        return -1;
    *out = cuk_sum_end(op, acc, n);
    return 0;
}

int blas_reduce_sum(float *out, const float *in, size_t n) { return parallel_summed(CUK_RED_SUM, out, in, n); }
int blas_reduce_mean(float *out, const float *in, size_t n) { return parallel_summed(CUK_RED_MEAN, out, in, n); }
int blas_reduce_norm(float *out, const float *in, size_t n) { return parallel_summed(CUK_RED_NORM, out, in, n); }
int blas_reduce_min(float *out, const float *in, size_t n) { return parallel_extreme(in, n, 0, out); }
int blas_reduce_max(float *out, const float *in, size_t n) { return parallel_extreme(in, n, 1, out); }

int blas_dot(float *out, const float *x, const float *y, size_t n)
{
    double acc;
    if (parallel_sum(x, y, n, &acc) != 0)
        return -1;
    *out = (float)acc;
    return 0;
}

/* --- random numbers ------------------------------------------------------
 * Counter-based (philox.h): the parts are ranges of 4-value blocks, and
 * block b is the same numbers whichever thread makes it. */
typedef struct {
    float *out;
    size_t n;
    int normal;
    uint64_t seed, stream;
} random_job;

static int random_part(void *ctx, size_t lo, size_t hi, int part)
{
    const random_job *j = ctx;
    for (size_t blk = lo; blk < hi; blk++) {
        float v[4];
        if ((blk - lo) % (CHUNK / 4) == 0 && host_stopping(part))
            return -1;
        philox_block(j->normal, blk, j->stream, j->seed, v);
        size_t left = j->n - blk * 4;
        memcpy(j->out + blk * 4, v, (left < 4 ? left : 4) * sizeof *v);
    }
    return 0;
}

int blas_random(cuk_dist dist, float *out, size_t n, uint64_t seed, uint64_t stream)
{
    random_job j = {out, n, dist == CUK_RAND_NORMAL, seed, stream};
    return host_parallel(random_part, &j, (n + 3) / 4, GRAIN / 16);
}

/* --- transpose -------------------------------------------------------------
 * In TILE x TILE tiles, numbered row of tiles by row of tiles; a part is a
 * range of tiles. A tile reads TILE rows and writes TILE rows of the
 * result, each a few cache lines long, so neither side strides a line per
 * element. */
#define TILE 32

typedef struct {
    float *out;
    const float *in;
    size_t rows, cols, tiles_across;
} transpose_job;

static int transpose_part(void *ctx, size_t lo, size_t hi, int part)
{
    const transpose_job *j = ctx;
    for (size_t t = lo; t < hi; t++) {
        if ((t - lo) % (CHUNK / (TILE * TILE)) == 0 && host_stopping(part))
            return -1;
        size_t i0 = t / j->tiles_across * TILE, j0 = t % j->tiles_across * TILE;
        size_t i1 = min_size(j->rows, i0 + TILE), j1 = min_size(j->cols, j0 + TILE);
        for (size_t i = i0; i < i1; i++)
            for (size_t c = j0; c < j1; c++)
                j->out[c * j->rows + i] = j->in[i * j->cols + c];
    }
    return 0;
}

int blas_transpose(float *out, const float *in, int rows, int cols)
{
    transpose_job j = {out, in, (size_t)rows, (size_t)cols, ((size_t)cols + TILE - 1) / TILE};
    size_t tiles = ((size_t)rows + TILE - 1) / TILE * j.tiles_across;
    return host_parallel(transpose_part, &j, tiles, GRAIN / (TILE * TILE));
}
