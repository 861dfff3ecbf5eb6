/* elementwise.h - what one element of an elementwise or unary op computes,
 * written once for the host modes (cpu.c) and the device (gpu_common.cu) so
 * that every mode has the same semantics: NaN wins in min and max, as in
 * NumPy's minimum and maximum (fminf/fmaxf would drop it). */
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

ELEMENTWISE_FN float cuk_ewise_one(cuk_ewop op, float x, float y)
{
    switch (op) {
    case CUK_EW_ADD: return x + y;
    case CUK_EW_SUB: return x - y;
    case CUK_EW_MUL: return x * y;
    case CUK_EW_DIV: return x / y;
    case CUK_EW_MIN: return cuk_min_nan(x, y);
    default: return cuk_max_nan(x, y);
    }
}

/* sqrtf and expf are the accurate ones on the device: no fast math. */
ELEMENTWISE_FN float cuk_unary_one(cuk_unop op, float x)
{
    switch (op) {
    case CUK_UN_NEG: return -x;
    case CUK_UN_ABS: return fabsf(x);
    case CUK_UN_SQRT: return sqrtf(x);
    default: return expf(x);
    }
}

#endif
