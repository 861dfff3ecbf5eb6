/* gpu_tiled_reduce.cu - the reductions of mode `tiled` (sum mean norm min
 * max dot; cublas borrows all but dot): three ways to fold n elements into
 * one, chosen by `set reduce`, in the order a lecture meets them.
 *
 *   classic  the classic lecture's dot product: a fixed grid of 32 blocks
 *            of 256 threads, a shared-memory tree in each, the 32 partial
 *            results copied to the host and added there
 *   grid     (the default) as many blocks as the device holds at once, the
 *            same tree, and a second pass of one block on the device
 *   shuffle  the same grid, each warp folding its 32 values through
 *            registers with __shfl_down_sync, one shared slot per warp
 *
 * Every pass handles any n: threads past the end contribute the identity. */
#include "kernels/gpu_internal.h"

#include <math.h>

#include "kernels/elementwise.h"
#include "kernels/gpu_fold.h"
#include "kernels/classic_reduce.h"
#include "kernels/variants.h"

/* The entry points of mode tiled (modes.c). */
extern "C" cuk_reduce_fn tiled_reduce_sum;
extern "C" cuk_reduce_fn tiled_reduce_mean;
extern "C" cuk_reduce_fn tiled_reduce_norm;
extern "C" cuk_reduce_fn tiled_reduce_min;
extern "C" cuk_reduce_fn tiled_reduce_max;
extern "C" cuk_dot_fn tiled_dot;

/* What the last thread does with the final value. */
enum { FIN_NONE, FIN_MEAN, FIN_SQRT };

template <int K> static __device__ __forceinline__ float term(float x)
{
    return K == K_SUMSQ ? x * x : x;
}

static __device__ __forceinline__ float finish(float v, int fin, size_t count)
{
    if (fin == FIN_MEAN)
        return (float)((double)v / (double)count);
    if (fin == FIN_SQRT)
        return sqrtf(v);
    return v;
}

/* --- classic: 32 blocks, a tree, the host adds the partials --------------------- */

/* part[blockIdx.x] = this block's share of the reduction of x (or of x*y for
 * K_DOT), written as the classic lecture wrote its dot product: each thread sums a
 * grid-stride slice into a register (the grid is fixed and small, so each
 * thread walks many elements), the 256 sums go to cache[], and the tree
 * halves the active threads each round. blockDim.x must be a power of two,
 * and the __syncthreads() must stay outside the `if`: a barrier that some
 * threads of the block never reach is undefined, and can hang the block.
 * Only the index is wider than the lecture's int, so that n may pass 2^31.
 *
 * With 32 blocks this uses a fraction of a modern GPU (an H200 has 132 SMs,
 * each holding 8 such blocks): measured on the H200 here, 158 GB/s against
 * 3,791 GB/s for the device-sized grid. */
template <int K>
static __device__ __forceinline__ void classic_tree(const float *x, const float *y, size_t n, float *part)
{
    __shared__ float cache[CLASSIC_THREADS];
    int cache_index = threadIdx.x;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float temp = identity<K>();
    while (tid < n) {
        temp = combine<K>(temp, K == K_DOT ? x[tid] * y[tid] : term<K>(x[tid]));
        tid += (size_t)blockDim.x * gridDim.x;
    }
    cache[cache_index] = temp;
    __syncthreads();
    int i = blockDim.x / 2;
    while (i != 0) {
        if (cache_index < i)
            cache[cache_index] = combine<K>(cache[cache_index], cache[cache_index + i]);
        __syncthreads();
        i /= 2;
    }
    if (cache_index == 0)
        part[blockIdx.x] = cache[0];
}

static __global__ void reduce_classic_sum(const float *x, const float *y, size_t n, float *part)
{
    classic_tree<K_SUM>(x, y, n, part);
}

static __global__ void reduce_classic_sumsq(const float *x, const float *y, size_t n, float *part)
{
    classic_tree<K_SUMSQ>(x, y, n, part);
}

static __global__ void reduce_classic_min(const float *x, const float *y, size_t n, float *part)
{
    classic_tree<K_MIN>(x, y, n, part);
}

static __global__ void reduce_classic_max(const float *x, const float *y, size_t n, float *part)
{
    classic_tree<K_MAX>(x, y, n, part);
}

static __global__ void dot_classic(const float *x, const float *y, size_t n, float *part)
{
    classic_tree<K_DOT>(x, y, n, part);
}

/* out = the reduction of x (of x*y for dot) the classic lecture's way: the
 * blocks of kernel write their partials, which are folded as op. The last
 * step runs on the host: the partials are copied back (gpu_d2h waits for
 * the kernel, so this op is synchronous by nature, unlike every other),
 * added in double, and the 1x1 result is copied up to out. The op's time
 * in the timing record runs from its start mark to its end mark on the
 * stream, and the end mark is queued only after this returns, so the copies
 * and the host's sum are inside it. */
template <typename K>
static int classic_reduce(K kernel, const char *name, cuk_redop op, float *out, const float *x, const float *y,
                          size_t n)
{
    unsigned blocks = classic_blocks(n);
    float *part, host[CLASSIC_BLOCKS];
    if (gpu_scratch((void **)&part, CLASSIC_BLOCKS * sizeof(float)) != 0)
        return -1;
    if (gpu_launch(kernel, name, blocks, CLASSIC_THREADS, 0, __FILE__, __LINE__, x, y, n, part) != 0)
        return -1;
    if (gpu_d2h(host, part, blocks * sizeof(float)) != 0)
        return -1;
    float r = classic_fold(op, host, blocks, n);
    return gpu_h2d(out, &r, sizeof r);   /* r may go: a small pageable copy is staged before this returns */
}
#define CLASSIC_REDUCE(kernel, ...) classic_reduce(kernel, #kernel, __VA_ARGS__)

/* --- grid: a device-sized grid, the tree, a second pass on the device ---------- */

/* Each thread's fold of its grid-stride share of in, in float (with a full
 * grid each thread sees few elements). The loop takes four elements a step,
 * all loaded before any is used: a load from memory takes about a
 * microsecond, and one at a time per thread leaves the memory idle much of
 * the time (on an H200: 2.5 TB/s that way, 4.3 TB/s like this, which is what
 * a plain copy reaches). */
template <int K> static __device__ __forceinline__ float thread_fold(const float *in, size_t n)
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
    return acc;
}

/* The same for dot, two pairs in flight. */
static __device__ __forceinline__ float thread_dot(const float *x, const float *y, size_t n)
{
    float acc = 0.0f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + stride < n; i += 2 * stride)
        acc += x[i] * y[i] + x[i + stride] * y[i + stride];
    for (; i < n; i += stride)
        acc += x[i] * y[i];
    return acc;
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

/* --- shuffle: the same grid, warps fold in registers --------------------------- */

/* A warp's values folded by __shfl_down_sync (warp_fold), then the
 * block's through one shared slot per warp (block_shfl): kernels/gpu_fold.h,
 * which fast's reductions share. */

/* --- the first-pass kernels of grid and shuffle ----------------------------- */

/* How a block folds its threads' values: the shared-memory tree (`set
 * reduce grid`) or warp shuffles (`set reduce shuffle`). */
enum { FOLD_TREE, FOLD_SHFL };

template <int F, int K> static __device__ __forceinline__ float block_fold(float v)
{
    return F == FOLD_TREE ? block_tree<K>(v) : block_shfl<K>(v);
}

/* out[blockIdx.x] = reduction of this block's grid-stride share of in (n
 * elements). Run once with many blocks to get one partial per block, then
 * once with one block over the partials; that last run applies `fin` (count
 * is the element count the mean divides by). */
template <int F, int K>
static __device__ __forceinline__ void reduce_pass(const float *in, size_t n, float *out, int fin, size_t count)
{
    float acc = block_fold<F, K>(thread_fold<K>(in, n));
    if (threadIdx.x == 0)
        out[blockIdx.x] = finish(acc, fin, count);
}

/* The first pass of dot: the same, over the products x[i]*y[i]. */
template <int F> static __device__ __forceinline__ void dot_pass(const float *x, const float *y, size_t n, float *out)
{
    float acc = block_fold<F, K_SUM>(thread_dot(x, y, n));
    if (threadIdx.x == 0)
        out[blockIdx.x] = acc;
}

/* The kernels, one per fold and combining rule, so that each has its own
 * name in `kernels` and in a profiler. */
#define REDUCE_KERNEL(name, F, K)                                                              \
    static __global__ void name(const float *in, size_t n, float *out, int fin, size_t count) \
    {                                                                                          \
        reduce_pass<F, K>(in, n, out, fin, count);                                             \
    }
#define DOT_KERNEL(name, F)                                                              \
    static __global__ void name(const float *x, const float *y, size_t n, float *out) \
    {                                                                                    \
        dot_pass<F>(x, y, n, out);                                                       \
    }
REDUCE_KERNEL(reduce_sum, FOLD_TREE, K_SUM)
REDUCE_KERNEL(reduce_sumsq, FOLD_TREE, K_SUMSQ)
REDUCE_KERNEL(reduce_min, FOLD_TREE, K_MIN)
REDUCE_KERNEL(reduce_max, FOLD_TREE, K_MAX)
DOT_KERNEL(dot_tree, FOLD_TREE)
REDUCE_KERNEL(reduce_shfl_sum, FOLD_SHFL, K_SUM)
REDUCE_KERNEL(reduce_shfl_sumsq, FOLD_SHFL, K_SUMSQ)
REDUCE_KERNEL(reduce_shfl_min, FOLD_SHFL, K_MIN)
REDUCE_KERNEL(reduce_shfl_max, FOLD_SHFL, K_MAX)
DOT_KERNEL(dot_shfl, FOLD_SHFL)

/* --- dispatch --------------------------------------------------------------------- */

/* Blocks for a first pass of grid or shuffle: as many as fit on the device
 * at once (the occupancy API, asked once per kernel family into *fits; the
 * kernels of a family have the same shape), fewer if n is small. The
 * partials go to device scratch. */
static int first_pass(const void *kernel, int *fits, size_t n, unsigned *grid, float **part)
{
    if (*fits == 0) {
        int per_sm = gpu_blocks_per_sm(kernel, GPU_THREADS, 0);
        if (per_sm < 0)
            return -1;
        *fits = per_sm * gpu_sm_count();
    }
    size_t need = (n + GPU_THREADS - 1) / GPU_THREADS;
    *grid = (unsigned)(need < (size_t)*fits ? need : (size_t)*fits);
    return gpu_scratch((void **)part, *grid * sizeof(float));
}

/* Blocks that fit on the device at once, per kernel family (0: not asked yet). */
static struct {
    int grid, shuffle;
} full;

/* Two passes: many blocks of `first` write one partial each, then one
 * block of `fold` folds the partials (a sum of squares folds as a plain
 * sum) and applies fin. The blocks of the first pass are those of the
 * family's sum kernel (probe): the kernels of a family have the same shape. */
template <typename K>
static int two_passes(K first, const char *first_name, K fold, const char *fold_name, const void *probe, int *fits,
                      int fin, float *out, const float *in, size_t n)
{
    unsigned grid;
    float *part;
    if (first_pass(probe, fits, n, &grid, &part) != 0)
        return -1;
    if (gpu_launch(first, first_name, grid, GPU_THREADS, 0, __FILE__, __LINE__, in, n, part, FIN_NONE, n) != 0)
        return -1;
    return gpu_launch(fold, fold_name, 1, GPU_THREADS, 0, __FILE__, __LINE__, (const float *)part, (size_t)grid, out,
                      fin, n);
}
#define TREE_PASSES(first, fold, ...) \
    two_passes(first, #first, fold, #fold, (const void *)reduce_sum, &full.grid, __VA_ARGS__)
#define SHFL_PASSES(first, fold, ...) \
    two_passes(first, #first, fold, #fold, (const void *)reduce_shfl_sum, &full.shuffle, __VA_ARGS__)

/* tiled's reduction of one kind in the way `set reduce` picks: classic's
 * kernel (P: its pass, reduce_classic_P) with its partials folded on the
 * host as op, or grid's or shuffle's two passes (P, then FOLD over the
 * partials) ending in fin. */
#define TILED_REDUCE(kind, op, P, FOLD, fin)                                                               \
    extern "C" int tiled_reduce_##kind(float *out, const float *in, size_t n)                              \
    {                                                                                                      \
        if (n == 0)                                                                                        \
            return 0;                                                                                      \
        switch (variant_pick(VAR_REDUCE)) {                                                                \
        case VAR_REDUCE_CLASSIC: return CLASSIC_REDUCE(reduce_classic_##P, op, out, in, NULL, n);          \
        case VAR_REDUCE_SHUFFLE: return SHFL_PASSES(reduce_shfl_##P, reduce_shfl_##FOLD, fin, out, in, n); \
        default: return TREE_PASSES(reduce_##P, reduce_##FOLD, fin, out, in, n);                           \
        }                                                                                                  \
    }
TILED_REDUCE(sum, CUK_RED_SUM, sum, sum, FIN_NONE)
TILED_REDUCE(mean, CUK_RED_MEAN, sum, sum, FIN_MEAN)
TILED_REDUCE(norm, CUK_RED_NORM, sumsq, sum, FIN_SQRT)
TILED_REDUCE(min, CUK_RED_MIN, min, min, FIN_NONE)
TILED_REDUCE(max, CUK_RED_MAX, max, max, FIN_NONE)

extern "C" int tiled_dot(float *out, const float *x, const float *y, size_t n)
{
    unsigned grid;
    float *part;
    if (n == 0)
        return 0;
    if (variant_pick(VAR_REDUCE) == VAR_REDUCE_CLASSIC)
        return CLASSIC_REDUCE(dot_classic, CUK_RED_SUM, out, x, y, n);
    int shfl = variant_pick(VAR_REDUCE) == VAR_REDUCE_SHUFFLE;
    if (first_pass(shfl ? (const void *)reduce_shfl_sum : (const void *)reduce_sum, shfl ? &full.shuffle : &full.grid,
                   n, &grid, &part) != 0)
        return -1;
    if (shfl) {
        GPU_LAUNCH(dot_shfl, grid, GPU_THREADS, 0, x, y, n, part);
        GPU_LAUNCH(reduce_shfl_sum, 1, GPU_THREADS, 0, part, (size_t)grid, out, FIN_NONE, n);
    } else {
        GPU_LAUNCH(dot_tree, grid, GPU_THREADS, 0, x, y, n, part);
        GPU_LAUNCH(reduce_sum, 1, GPU_THREADS, 0, part, (size_t)grid, out, FIN_NONE, n);
    }
    return 0;
}
