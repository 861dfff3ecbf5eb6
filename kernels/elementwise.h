/* elementwise.h - what one element of an elementwise or unary op computes,
 * expanded from the lists in oplist.h once for the host modes (cpu.c) and
 * the device (gpu_common.cu), so that every mode has the same semantics:
 * NaN wins in min and max, as in NumPy's minimum and maximum (fminf/fmaxf
 * would drop it). */
#ifndef CUK_ELEMENTWISE_H
#define CUK_ELEMENTWISE_H

#include <math.h>

#include "kernels/backend.h"

#ifdef __CUDACC__
#define ELEMENTWISE_FN static __host__ __device__ __forceinline__
#else
#define ELEMENTWISE_FN static inline
#endif

ELEMENTWISE_FN float cuk_min_nan(float x, float y) { return (x < y || x != x) ? x : y; }
ELEMENTWISE_FN float cuk_max_nan(float x, float y) { return (x > y || x != x) ? x : y; }

/* What a sum becomes in the reductions that sum: the sum itself, the mean
 * of n elements, or the root of a sum of squares (norm); NaN for the
 * others. */
ELEMENTWISE_FN float cuk_sum_end(cuk_redop op, double sum, size_t n)
{
    switch (op) {
    case CUK_RED_SUM: return (float)sum;
    case CUK_RED_MEAN: return (float)(sum / (double)n);
    case CUK_RED_NORM: return (float)sqrt(sum);
    case CUK_RED_MIN:
    case CUK_RED_MAX:
    case CUK_RED_COUNT: break;
    }
    return NAN;
}

/* Every operation has its case; an op outside the enum gives NaN, never a
 * plausible number. */
ELEMENTWISE_FN float cuk_ewise_one(cuk_ewop op, float x, float y)
{
    switch (op) {
#define EW_CASE(id, name, usage, expr) \
    case CUK_EW_##id:                  \
        return expr;
        CUK_EWISE_OPS(EW_CASE)
#undef EW_CASE
    case CUK_EW_COUNT:
        break;
    }
    return NAN;
}

ELEMENTWISE_FN float cuk_unary_one(cuk_unop op, float x)
{
    switch (op) {
#define UN_CASE(id, name, usage, expr) \
    case CUK_UN_##id:                  \
        return expr;
        CUK_UNARY_OPS(UN_CASE)
#undef UN_CASE
    case CUK_UN_COUNT:
        break;
    }
    return NAN;
}

#endif
