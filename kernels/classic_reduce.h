/* classic_reduce.h - the host's part of the classic lecture's reduction
 * (`set reduce classic`, gpu_tiled_reduce.cu): the size of its fixed grid,
 * and the last step, where the blocks' partial results, copied to the host,
 * are folded there. A header, so that the host tests check it without a
 * GPU. */
#ifndef CUK_CLASSIC_REDUCE_H
#define CUK_CLASSIC_REDUCE_H

#include <stddef.h>

#include "kernels/backend.h"
#include "kernels/elementwise.h"

#define CLASSIC_BLOCKS 32   /* at most: the classic grid is fixed, whatever n is */
#define CLASSIC_THREADS 256 /* a power of two: the tree halves it */

/* Blocks of the classic grid for n > 0 elements: min(32, ceil(n / 256)). */
static inline unsigned classic_blocks(size_t n)
{
    size_t need = n / CLASSIC_THREADS + (n % CLASSIC_THREADS != 0);
    return (unsigned)(need < CLASSIC_BLOCKS ? need : CLASSIC_BLOCKS);
}

/* op over the np >= 1 partials of n elements: sums added in double (mean
 * divides by n, norm takes the root of the summed squares); min and max
 * let a NaN win, as the device does. */
static inline float classic_fold(cuk_redop op, const float *part, unsigned np, size_t n)
{
    double sum = 0;
    float ext = part[0];
    for (unsigned i = 0; i < np; i++) {
        sum += part[i];
        ext = op == CUK_RED_MIN ? cuk_min_nan(ext, part[i]) : cuk_max_nan(ext, part[i]);
    }
    return op == CUK_RED_MIN || op == CUK_RED_MAX ? ext : cuk_sum_end(op, sum, n);
}

#endif
