/* gpu_tiled.cu - the `tiled` mode: the same algorithms as `naive`, with each
 * block staging its data in shared memory so that global memory is read once
 * per tile instead of once per use. Every edge is handled: no size needs to be
 * a multiple of a tile. */
#include "kernels/gpu_internal.h"

#include <math.h>

#include "base/error.h"
#include "kernels/elementwise.h"

/* The entry points of mode tiled (modes.c). */
extern "C" cuk_matmul_fn tiled_matmul;
extern "C" cuk_transpose_fn tiled_transpose;
extern "C" cuk_reduce_fn tiled_reduce;
extern "C" cuk_dot_fn tiled_dot;

#define TILE 16     /* matmul: 16 x 16 threads compute a 16 x 16 tile of C */
#define TR_TILE 32  /* transpose: 32 x 32 tiles ... */
#define TR_ROWS 8   /* ... moved by 32 x 8 threads, 4 elements each */

/* --- matrix product ---------------------------------------------------------- */

/* c (m x n) = a (m x k) @ b (k x n). The block walks along k one 16-wide
 * step at a time: its threads load a 16 x 16 tile of a and one of b into
 * shared memory (one element each, coalesced), then each thread does 16
 * multiply-adds from shared memory. Every element loaded is used 16 times.
 * Tile elements past the edges of a or b are loaded as 0, which adds nothing
 * to the sums, so the inner loop needs no bounds checks. */
static __global__ void matmul_tiled(float *c, const float *a, const float *b, int m, int n, int k)
{
    __shared__ float as[TILE][TILE];   /* as[ty][q] = a[i][p0 + q] */
    __shared__ float bs[TILE][TILE];   /* bs[q][tx] = b[p0 + q][j] */
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * TILE + ty;
    int j = blockIdx.x * TILE + tx;
    int steps = k / TILE + (k % TILE != 0);   /* (k + 15) / 16 could overflow */
    float acc = 0.0f;
    for (int s = 0; s < steps; s++) {
        int p0 = s * TILE;
        as[ty][tx] = (i < m && p0 + tx < k) ? a[(size_t)i * k + p0 + tx] : 0.0f;
        bs[ty][tx] = (p0 + ty < k && j < n) ? b[(size_t)(p0 + ty) * n + j] : 0.0f;
        __syncthreads();   /* the tiles are complete */
        for (int q = 0; q < TILE; q++)
            acc += as[ty][q] * bs[q][tx];
        __syncthreads();   /* everyone is done with them before they are overwritten */
    }
    if (i < m && j < n)
        c[(size_t)i * n + j] = acc;
}

extern "C" int tiled_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    return GPU_MATMUL_GRID(matmul_tiled, TILE, c, a, b, m, n, k);
}

/* --- transpose ----------------------------------------------------------------- */

/* out (cols x rows) = in (rows x cols)^T, rows from row0 on. A block reads
 * a 32 x 32 tile row by row (coalesced) into shared memory, then writes it
 * out row by row of out, reading the tile down its columns. The extra column
 * of padding puts the 32 elements of a tile column in 32 different banks;
 * without it they would all hit one bank and be served one at a time. */
static __global__ void transpose_tiled(float *out, const float *in, int rows, int cols, int row0)
{
    __shared__ float tile[TR_TILE][TR_TILE + 1];
    int bx = blockIdx.x * TR_TILE;            /* first column of in */
    int by = row0 + blockIdx.y * TR_TILE;     /* first row of in */
    int x = bx + threadIdx.x;
    for (int r = threadIdx.y; r < TR_TILE; r += TR_ROWS)
        if (x < cols && by + r < rows)
            tile[r][threadIdx.x] = in[(size_t)(by + r) * cols + x];
    __syncthreads();
    /* Now threadIdx.x runs along a row of out, i.e. down a column of in. */
    int y = by + threadIdx.x;
    for (int r = threadIdx.y; r < TR_TILE; r += TR_ROWS)
        if (y < rows && bx + r < cols)
            out[(size_t)(bx + r) * rows + y] = tile[threadIdx.x][r];
}

extern "C" int tiled_transpose(float *out, const float *in, int rows, int cols)
{
    return GPU_TRANSPOSE_GRID(transpose_tiled, dim3(TR_TILE, TR_ROWS), TR_TILE, out, in, rows, cols);
}

/* --- tree reductions ------------------------------------------------------------ */

/* What a pass of the reduction does: K_SUM adds the elements, K_SUMSQ their
 * squares (for the norm), K_MIN/K_MAX keep the extreme. */
enum { K_SUM, K_SUMSQ, K_MIN, K_MAX };
/* What the last thread does with the final value. */
enum { FIN_NONE, FIN_MEAN, FIN_SQRT };

template <int K> static __device__ __forceinline__ float identity()
{
    return K == K_MIN ? INFINITY : K == K_MAX ? -INFINITY : 0.0f;
}

/* Combine two partial results. min and max let a NaN win, as NumPy does
 * (fminf/fmaxf would drop it). */
template <int K> static __device__ __forceinline__ float combine(float x, float y)
{
    if (K == K_MIN)
        return cuk_min_nan(x, y);
    if (K == K_MAX)
        return cuk_max_nan(x, y);
    return x + y;
}

/* The block's threads fold their values in shared memory, halving the
 * number of active threads each round: 256 -> 128 -> ... -> 1, with a
 * barrier after every round. Thread 0 gets the block's result. */
template <int K> static __device__ float block_tree(float v)
{
    __shared__ float s[GPU_THREADS];
    int t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (int half = GPU_THREADS / 2; half > 0; half /= 2) {
        if (t < half)
            s[t] = combine<K>(s[t], s[t + half]);
        __syncthreads();
    }
    return s[0];
}

static __device__ __forceinline__ float finish(float v, int fin, size_t count)
{
    if (fin == FIN_MEAN)
        return (float)((double)v / (double)count);
    if (fin == FIN_SQRT)
        return sqrtf(v);
    return v;
}

template <int K> static __device__ __forceinline__ float term(float x)
{
    return K == K_SUMSQ ? x * x : x;
}

/* out[blockIdx.x] = reduction of this block's grid-stride share of in (n
 * elements). Each thread first folds its share sequentially (in float: with a
 * full grid each thread sees few elements), then the block folds its 256
 * values in shared memory. Run once with many blocks to get one partial per
 * block, then once with one block over the partials; that last run applies
 * `fin` (count is the element count the mean divides by).
 *
 * The loop takes four elements a step, all loaded before any is used: a
 * load from memory takes about a microsecond, and one at a time per thread
 * leaves the memory idle much of the time (on an H200: 2.5 TB/s that way,
 * 4.3 TB/s like this, which is what a plain copy reaches). */
template <int K>
static __device__ __forceinline__ void reduce_tree(const float *in, size_t n, float *out, int fin, size_t count)
{
    float acc = identity<K>();
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        float x0 = in[i], x1 = in[i + stride], x2 = in[i + 2 * stride], x3 = in[i + 3 * stride];
        acc = combine<K>(acc, combine<K>(combine<K>(term<K>(x0), term<K>(x1)),
                                         combine<K>(term<K>(x2), term<K>(x3))));
    }
    for (; i < n; i += stride)
        acc = combine<K>(acc, term<K>(in[i]));
    acc = block_tree<K>(acc);
    if (threadIdx.x == 0)
        out[blockIdx.x] = finish(acc, fin, count);
}

/* The kernels, one per combining rule, so that each has its own name in
 * `kernels` and in a profiler. */
static __global__ void reduce_sum(const float *in, size_t n, float *out, int fin, size_t count)
{
    reduce_tree<K_SUM>(in, n, out, fin, count);
}

static __global__ void reduce_sumsq(const float *in, size_t n, float *out, int fin, size_t count)
{
    reduce_tree<K_SUMSQ>(in, n, out, fin, count);
}

static __global__ void reduce_min(const float *in, size_t n, float *out, int fin, size_t count)
{
    reduce_tree<K_MIN>(in, n, out, fin, count);
}

static __global__ void reduce_max(const float *in, size_t n, float *out, int fin, size_t count)
{
    reduce_tree<K_MAX>(in, n, out, fin, count);
}

/* The first pass of dot: the same, over the products x[i]*y[i]. */
static __global__ void dot_tree(const float *x, const float *y, size_t n, float *out)
{
    float acc = 0.0f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + stride < n; i += 2 * stride)   /* two pairs in flight */
        acc += x[i] * y[i] + x[i + stride] * y[i + stride];
    for (; i < n; i += stride)
        acc += x[i] * y[i];
    acc = block_tree<K_SUM>(acc);
    if (threadIdx.x == 0)
        out[blockIdx.x] = acc;
}

/* Blocks for a first pass: as many as fit on the device at once (the
 * occupancy API, asked once; every first-pass kernel has the same shape),
 * fewer if n is small. The partials go to device scratch. */
static int first_pass(size_t n, unsigned *grid, float **part)
{
    static int full;
    if (full == 0) {
        int per_sm = gpu_blocks_per_sm((const void *)reduce_sum, GPU_THREADS, 0);
        if (per_sm < 0)
            return -1;
        full = per_sm * gpu_sm_count();
    }
    size_t need = (n + GPU_THREADS - 1) / GPU_THREADS;
    *grid = (unsigned)(need < (size_t)full ? need : (size_t)full);
    return gpu_scratch((void **)part, *grid * sizeof(float));
}

/* Two passes: many blocks write one partial each, then one block folds the
 * partials (a sum of squares folds as a plain sum) and applies fin. */
#define TWO_PASSES(first, fold, fin)                                                                   \
    do {                                                                                               \
        GPU_LAUNCH(first, grid, GPU_THREADS, 0, in, n, part, FIN_NONE, n);                             \
        GPU_LAUNCH(fold, 1, GPU_THREADS, 0, part, (size_t)grid, out, fin, n);                          \
    } while (0)

extern "C" int tiled_reduce(cuk_redop op, float *out, const float *in, size_t n)
{
    unsigned grid;
    float *part;
    if (n == 0 || first_pass(n, &grid, &part) != 0)
        return n == 0 ? 0 : -1;
    switch (op) {
    case CUK_RED_SUM: TWO_PASSES(reduce_sum, reduce_sum, FIN_NONE); break;
    case CUK_RED_MEAN: TWO_PASSES(reduce_sum, reduce_sum, FIN_MEAN); break;
    case CUK_RED_NORM: TWO_PASSES(reduce_sumsq, reduce_sum, FIN_SQRT); break;
    case CUK_RED_MIN: TWO_PASSES(reduce_min, reduce_min, FIN_NONE); break;
    case CUK_RED_MAX: TWO_PASSES(reduce_max, reduce_max, FIN_NONE); break;
    case CUK_RED_COUNT: return cuk_err("internal error: reduction %d", (int)op);
    }
    return 0;
}

extern "C" int tiled_dot(float *out, const float *x, const float *y, size_t n)
{
    unsigned grid;
    float *part;
    if (n == 0 || first_pass(n, &grid, &part) != 0)
        return n == 0 ? 0 : -1;
    GPU_LAUNCH(dot_tree, grid, GPU_THREADS, 0, x, y, n, part);
    GPU_LAUNCH(reduce_sum, 1, GPU_THREADS, 0, part, (size_t)grid, out, FIN_NONE, n);
    return 0;
}
