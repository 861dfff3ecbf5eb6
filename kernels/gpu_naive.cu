/* gpu_naive.cu - the `naive` mode: the first GPU version anyone writes. One
 * thread per output element, everything read straight from global memory,
 * reductions by atomics. The `tiled` mode (gpu_tiled.cu) is the lesson that
 * follows; compare the two kernel by kernel. */
#include "kernels/gpu_internal.h"

#include <limits.h>
#include <math.h>

#include "kernels/variants.h"

/* The entry points of mode naive (modes.c). */
extern "C" cuk_matmul_fn naive_matmul;
extern "C" cuk_transpose_fn naive_transpose;
extern "C" cuk_reduce_fn naive_reduce_sum;
extern "C" cuk_reduce_fn naive_reduce_mean;
extern "C" cuk_reduce_fn naive_reduce_norm;
extern "C" cuk_reduce_fn naive_reduce_min;
extern "C" cuk_reduce_fn naive_reduce_max;
extern "C" cuk_dot_fn naive_dot;

#define BLOCK 16   /* matmul: 16 x 16 threads, one per element of C */
#define TR_X 32    /* transpose: a warp spans 32 columns of the input */
#define TR_Y 8

/* --- matrix product ---------------------------------------------------------- */

/* c[i][j] = row i of a (m x k) . column j of b (k x n), straight from
 * global memory; nothing for a thread outside c. */
static __device__ __forceinline__ void naive_element(float *c, const float *a, const float *b, int m, int n, int k,
                                                     int i, int j)
{
    if (i >= m || j >= n)
        return;
    float acc = 0.0f;
    for (int p = 0; p < k; p++)
        acc += a[(size_t)i * k + p] * b[(size_t)p * n + j];
    c[(size_t)i * n + j] = acc;
}

/* c (m x n) = a (m x k) @ b (k x n) (`set coalesce on`, the default).
 * threadIdx.x walks the columns j, so a warp (2 rows of 16 threads of a
 * 16 x 16 block) reads 16 neighbouring elements of a row of b and writes 16
 * of c in each of its 2 rows (coalesced), and its threads read only 2
 * values of a, a[i][p] for their 2 rows (broadcasts).
 * Each thread asks memory for 8 bytes per 2 flops, and every operand is
 * asked for many times over; only the L1 and L2 caches, catching the
 * repeats, keep it from running at the speed of DRAM. */
static __global__ void matmul_naive(float *c, const float *a, const float *b, int m, int n, int k)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    naive_element(c, a, b, m, n, k, i, j);
}

/* The same product with threadIdx.x walking the rows i instead (`set
 * coalesce off`); the grid is the same, only the roles of threadIdx.x and
 * threadIdx.y inside a block are swapped. Now a warp's 32 threads (16 rows
 * by 2 columns of a 16 x 16 block) read a[i][p] from 16 rows k floats apart
 * and write c[i][j] in 16 rows n floats apart: 16 separate memory
 * transactions where the coalesced kernel needs one or two, while b[p][j] is
 * a broadcast of 2 values. The L1 cache catches part of it (a[i][p+1] is in
 * the line a[i][p] brought), so the loss is less than 16-fold, but each load
 * instruction still moves 16 cache lines through L1: the lesson is that the
 * thread-to-data mapping, not the arithmetic, sets the speed. */
static __global__ void matmul_naive_uncoalesced(float *c, const float *a, const float *b, int m, int n, int k)
{
    int i = blockIdx.y * BLOCK + threadIdx.x;   /* the block is square: swapping x and y keeps it in place */
    int j = blockIdx.x * BLOCK + threadIdx.y;
    naive_element(c, a, b, m, n, k, i, j);
}

extern "C" int naive_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    if (variant_pick(VAR_COALESCE) == VAR_COALESCE_OFF)
        return GPU_MATMUL_GRID(matmul_naive_uncoalesced, BLOCK, c, a, b, m, n, k);
    return GPU_MATMUL_GRID(matmul_naive, BLOCK, c, a, b, m, n, k);
}

/* --- transpose ----------------------------------------------------------------- */

/* out (cols x rows) = in (rows x cols)^T, rows from row0 on. A warp reads a
 * row segment of in (coalesced) but writes down a column of out: 32 writes
 * rows*4 bytes apart, each its own memory transaction. */
static __global__ void transpose_naive(float *out, const float *in, int rows, int cols, int row0)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;          /* column of in */
    int y = row0 + blockIdx.y * blockDim.y + threadIdx.y;   /* row of in */
    if (x < cols && y < rows)
        out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
}

extern "C" int naive_transpose(float *out, const float *in, int rows, int cols)
{
    return GPU_TRANSPOSE_GRID(transpose_naive, dim3(TR_X, TR_Y), TR_Y, out, in, rows, cols);
}

/* --- reductions by atomics ---------------------------------------------------- */

/* The running result in device scratch. Sums go to a double: a float
 * accumulator fed hundreds of thousands of partial sums loses digits. min and
 * max go to an int key (below) because atomicMin/Max have no float form. */
typedef struct {
    double sum;
    int key;
} naive_acc;

/* A float as an int with the same order: non-negative floats already compare
 * like their bit patterns; negative ones compare backwards, so flip all bits
 * but the sign. NaN is made the winner (INT_MIN for min, INT_MAX for max),
 * and both of those decode back to a NaN. */
static __device__ __forceinline__ int order_key(float x, int is_max)
{
    if (x != x)
        return is_max ? INT_MAX : INT_MIN;
    int b = __float_as_int(x);
    return b >= 0 ? b : b ^ INT_MAX;
}

static __device__ __forceinline__ float key_value(int key)
{
    return __int_as_float(key >= 0 ? key : key ^ INT_MAX);
}

static __global__ void naive_reset(naive_acc *acc, int is_max)
{
    acc->sum = 0.0;
    acc->key = is_max ? INT_MIN : INT_MAX;
}

/* Each thread sums its grid-stride slice of x*y (dot, and the norm with
 * y = x), or of x alone when y is NULL, then adds it to the one
 * accumulator: one atomic per thread, all on one address, so they queue up
 * at the memory. */
static __global__ void sum_naive(const float *x, const float *y, size_t n, naive_acc *acc)
{
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    if (first >= n)
        return;
    float s = 0.0f;
    for (size_t i = first; i < n; i += stride)
        s += y ? x[i] * y[i] : x[i];
    atomicAdd(&acc->sum, (double)s);
}

static __global__ void minmax_naive(const float *in, size_t n, int is_max, naive_acc *acc)
{
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    if (first >= n)
        return;
    int key = order_key(in[first], is_max);
    for (size_t i = first + stride; i < n; i += stride) {
        int k = order_key(in[i], is_max);
        key = is_max ? max(key, k) : min(key, k);
    }
    if (is_max)
        atomicMax(&acc->key, key);
    else
        atomicMin(&acc->key, key);
}

/* One thread turns the accumulator into the float result, on the device, so
 * the host never waits. */
static __global__ void naive_finish(float *out, const naive_acc *acc, cuk_redop op, size_t n)
{
    switch (op) {
    case CUK_RED_SUM: *out = (float)acc->sum; break;
    case CUK_RED_MEAN: *out = (float)(acc->sum / (double)n); break;
    case CUK_RED_NORM: *out = (float)sqrt(acc->sum); break;
    case CUK_RED_MIN:
    case CUK_RED_MAX: *out = key_value(acc->key); break;
    case CUK_RED_COUNT: *out = NAN; break;
    }
}

/* The accumulator in scratch, reset for a sum (or for min/max). */
static int fresh_acc(naive_acc **acc, int is_max)
{
    if (gpu_scratch((void **)acc, sizeof **acc) != 0)
        return -1;
    GPU_LAUNCH(naive_reset, 1, 1, 0, *acc, is_max);
    return 0;
}

/* out = op of the sum of x*y (or of x when y is NULL). */
static int naive_sum(cuk_redop op, float *out, const float *x, const float *y, size_t n)
{
    naive_acc *acc;
    if (n == 0)
        return 0;
    if (fresh_acc(&acc, 0) != 0)
        return -1;
    GPU_LAUNCH(sum_naive, gpu_grid_1d(n), GPU_THREADS, 0, x, y, n, acc);
    GPU_LAUNCH(naive_finish, 1, 1, 0, out, acc, op, n);
    return 0;
}

/* out = the least (op CUK_RED_MIN) or greatest (CUK_RED_MAX) element of in. */
static int naive_extreme(cuk_redop op, float *out, const float *in, size_t n)
{
    naive_acc *acc;
    int is_max = op == CUK_RED_MAX;
    if (n == 0)
        return 0;
    if (fresh_acc(&acc, is_max) != 0)
        return -1;
    GPU_LAUNCH(minmax_naive, gpu_grid_1d(n), GPU_THREADS, 0, in, n, is_max, acc);
    GPU_LAUNCH(naive_finish, 1, 1, 0, out, acc, op, n);
    return 0;
}

extern "C" int naive_reduce_sum(float *out, const float *in, size_t n)
{
    return naive_sum(CUK_RED_SUM, out, in, NULL, n);
}

extern "C" int naive_reduce_mean(float *out, const float *in, size_t n)
{
    return naive_sum(CUK_RED_MEAN, out, in, NULL, n);
}

extern "C" int naive_reduce_norm(float *out, const float *in, size_t n)
{
    return naive_sum(CUK_RED_NORM, out, in, in, n);
}

extern "C" int naive_reduce_min(float *out, const float *in, size_t n)
{
    return naive_extreme(CUK_RED_MIN, out, in, n);
}

extern "C" int naive_reduce_max(float *out, const float *in, size_t n)
{
    return naive_extreme(CUK_RED_MAX, out, in, n);
}

extern "C" int naive_dot(float *out, const float *x, const float *y, size_t n)
{
    return naive_sum(CUK_RED_SUM, out, x, y, n);
}
