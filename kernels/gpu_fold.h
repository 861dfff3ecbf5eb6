/* gpu_fold.h - folding many floats into one on the device, shared by the
 * reductions of tiled (gpu_tiled_reduce.cu) and fast (fast/mem.cu,
 * and fast/thin.cu): the rules (sum, sum of squares, dot,
 * min, max), their identities, and the warp-shuffle fold of a warp and of
 * a block. Include from .cu only. */
#ifndef CUK_GPU_FOLD_H
#define CUK_GPU_FOLD_H

#include <math.h>

#include "kernels/elementwise.h"
#include "kernels/gpu_internal.h"

#define WARP 32

/* What a reduction does: K_SUM adds the elements, K_SUMSQ their
 * squares (for the norm), K_DOT the products x[i]*y[i], K_MIN/K_MAX keep
 * the extreme. */
enum { K_SUM, K_SUMSQ, K_DOT, K_MIN, K_MAX };
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

/* A warp's 32 values folded by __shfl_down_sync: each round every lane adds
 * the value of the lane `off` above it, read straight from that lane's
 * register, 16 -> 8 -> 4 -> 2 -> 1. No shared memory, no barrier: a warp
 * executes the shuffle together (all 32 lanes must take part, hence the
 * full mask; every thread of the block gets here). Lane 0 gets the result. */
template <int K> static __device__ __forceinline__ float warp_fold(float v)
{
    for (int off = WARP / 2; off > 0; off /= 2)
        v = combine<K>(v, __shfl_down_sync(0xffffffffu, v, off));
    return v;
}

/* A warp's 32 values added, the sum in every lane: the butterfly of
 * __shfl_xor_sync, 16 -> 8 -> 4 -> 2 -> 1 apart, where warp_fold's lanes
 * read down and only lane 0 ends with it. For a warp that hands out many
 * sums, a lane each (fast's thin products). */
static __device__ __forceinline__ float warp_total(float v)
{
    for (int off = WARP / 2; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

/* The block's fold: each warp folds its own values, lane 0 puts the warp's
 * result in one shared slot, one barrier, then warp 0 folds the 8 slots.
 * Against tiled's block_tree: 1 barrier instead of 9, and 16 shared-memory
 * accesses instead of over 1000. Thread 0 gets the result; a caller that
 * folds again must pass a barrier first (warp 0 may still read the slots). */
template <int K> static __device__ float block_shfl(float v)
{
    __shared__ float slot[GPU_THREADS / WARP];
    int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    v = warp_fold<K>(v);
    if (lane == 0)
        slot[warp] = v;
    __syncthreads();
    if (warp == 0)
        v = warp_fold<K>(lane < GPU_THREADS / WARP ? slot[lane] : identity<K>());
    return v;
}

#endif
