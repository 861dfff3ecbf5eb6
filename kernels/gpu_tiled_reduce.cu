/* gpu_tiled_reduce.cu - the reductions of mode `tiled` (sum mean norm min
 * max dot; cublas borrows all but dot): a tree in shared memory per block,
 * over a grid the size of the device, then a second pass on the device. */
#include "kernels/gpu_internal.h"

#include <math.h>

#include "base/error.h"
#include "kernels/elementwise.h"

/* The entry points of mode tiled (modes.c). */
extern "C" cuk_reduce_fn tiled_reduce;
extern "C" cuk_dot_fn tiled_dot;

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
