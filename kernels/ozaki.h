/* ozaki.h - what mode ozaki's product (gpu_ozaki.cu), its plan
 * (ozaki_plan.c), `why` and the tests share: the scheme's limits, the
 * choice made for a product, and how an element is cut into slices, the
 * one definition the GPU and the tests' host model both run. */
#ifndef CUK_OZAKI_H
#define CUK_OZAKI_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 4 slices of 7 bits keep 28 bits of a row's largest element: FP32's 24
 * and 4 for the terms the scheme leaves out (slice pairs past the 4th
 * weight) and its roundings. */
#define OZAKI_SLICES 4
#define OZAKI_MAX_SLICES 8
/* Bits by which a row's (or column's) largest element may stand above its
 * root mean square, a's and b's added, before 4 slices are too few: the
 * typical element then keeps 28 - 6 = 22 bits, with the scheme's errors
 * random in sign where FP32's accumulate, which still matches FP32's
 * error (N(0,1) operands stand about 2 bits above theirs). Each 7 bits
 * more cost one slice. */
#define OZAKI_BULK_FREE 6
/* A row or column whose largest element over its smallest nonzero one
 * passes 2^96 is refused (gpu_ozaki.cu). */
#define OZAKI_MAX_SPAN 96
/* Where the scheme runs; elsewhere fast's FP32 kernels do (ozaki_worth).
 * k at most OZAKI_MAX_K keeps every sum exact in INT32: s k 64^2 < 2^31. */
#define OZAKI_MIN_SIDE 64
#define OZAKI_MIN_K 256
#define OZAKI_MAX_K 32768
#define OZAKI_MIN_MNK 2147483648.0 /* 2^31 multiply-adds: about 1290^3 */

/* How the last product in mode ozaki ran. */
typedef enum {
    OZAKI_NONE,      /* no product yet */
    OZAKI_SLICED,    /* the scheme, in `slices` slices */
    OZAKI_ON_FP32,   /* too small, thin or long for it: fast's FP32 kernels */
    OZAKI_NONFINITE, /* an inf or NaN in an operand: fast's FP32 kernels */
} ozaki_how;

typedef struct {
    ozaki_how how;
    int m, n, k;
    int slices;
    /* the largest bulk (log2 of max over rms, in thousandths of a bit) and
     * span (bits from the smallest nonzero magnitude to the largest) of
     * a's rows and b's columns */
    int bulk_a, bulk_b, span_a, span_b;
} ozaki_choice;

/* 1 if the scheme runs m x k x n; else fast's FP32 kernels do. */
int ozaki_worth(int m, int n, int k);
/* The slices for operands of these bulks (thousandths of a bit). */
int ozaki_slices_for(int bulk_a_milli, int bulk_b_milli);
/* What the last product in mode ozaki did: kept by the product
 * (gpu_ozaki.cu), read by `why`; how is OZAKI_NONE before the first. */
void ozaki_record(const ozaki_choice *c);
const ozaki_choice *ozaki_last(void);
/* c in words, for `why` ("4 slices: rows stand 2.1 bits above their rms,
 * ..."), into buf; returned. */
const char *ozaki_describe(const ozaki_choice *c, char *buf, size_t cap);
/* The mode's explain hook (backend.h): the last product, or NULL before one. */
const char *ozaki_explain(char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#define OZAKI_HD __host__ __device__
#else
#define OZAKI_HD
#endif

/* frexp's exponent: x = f 2^e with f in [0.5, 1); 0 for 0, inf and NaN. */
static inline OZAKI_HD int ozaki_exponent(float x) { return x > 0.0f && isfinite(x) ? ilogbf(x) + 1 : 0; }

/* x 2^-e, in (-1, 1) when |x| < 2^e, as digits d[0..s) in [-64, 64],
 * each the rounding of what the ones before it left:
 * x 2^-e = sum_p d[p] 2^-(6 + 7p) + a rest of at most 2^-(7 + 6 + 7(s-1)).
 * In FP64, where every step is exact. */
static inline OZAKI_HD void ozaki_digits(float x, int e, int s, int8_t *d)
{
    double y = ldexp((double)x, 6 - e);
    for (int p = 0; p < s; p++) {
        double q = rint(y);
        d[p] = (int8_t)q;
        y = (y - q) * 128.0;
    }
}

/* The statistics of a row or column as one GPU thread gathers them, then
 * merged with other threads': the largest magnitude and its exponent e,
 * the sum of squares of x 2^-e (rescaled when e grows, so that it neither
 * overflows nor underflows), the smallest nonzero magnitude, and whether
 * an element was inf or NaN. e starts below every float's (-148). */
typedef struct {
    float hi, lo, ss;
    int e, bad;
} ozaki_run;

static inline OZAKI_HD void ozaki_run_init(ozaki_run *s)
{
    s->hi = 0.0f, s->lo = INFINITY, s->ss = 0.0f, s->e = -1000, s->bad = 0;
}

static inline OZAKI_HD void ozaki_run_add(ozaki_run *s, float x)
{
    float m = fabsf(x);
    if (!isfinite(m)) {
        s->bad = 1;
        return;
    }
    if (m == 0.0f)
        return;
    if (m > s->hi) {
        int e = ozaki_exponent(m);
        if (e > s->e)
            s->ss = ldexpf(s->ss, 2 * (s->e - e)), s->e = e;
        s->hi = m;
    }
    s->lo = fminf(s->lo, m);
    float y = ldexpf(m, -s->e);
    s->ss += y * y;
}

static inline OZAKI_HD void ozaki_run_merge(ozaki_run *s, const ozaki_run *t)
{
    int e = s->e > t->e ? s->e : t->e;
    s->ss = ldexpf(s->ss, 2 * (s->e - e)) + ldexpf(t->ss, 2 * (t->e - e));
    s->e = e, s->hi = fmaxf(s->hi, t->hi), s->lo = fminf(s->lo, t->lo), s->bad |= t->bad;
}

/* log2(largest / rms) of the n elements, in thousandths of a bit; hi 2^-e
 * is in [0.5, 1), and ss at least its square. 0 where all are zero. */
static inline OZAKI_HD int ozaki_run_bulk(const ozaki_run *s, int n)
{
    if (s->hi == 0.0f)
        return 0;
    float rms = sqrtf(s->ss / (float)n);
    return (int)(log2f(ldexpf(s->hi, -s->e) / rms) * 1000.0f);
}

/* The slices' layout. Row i of a is cut into s slices of ka bytes each
 * (k padded to ka with zeros), one after the other: sliced a is m rows of
 * s ka. Column j of b likewise, but its slices reversed, slice p at
 * (s - 1 - p) ka: then slices 0..d of a's row and d..0 of b's column lie
 * along one stretch of (d + 1) ka, and one INT8 GEMM over it sums every
 * pair (p, d - p), the pairs of weight 2^-7d. */
static inline OZAKI_HD size_t ozaki_a_at(int i, int p, int kk, int ka, int s)
{
    return ((size_t)i * s + p) * ka + kk;
}

static inline OZAKI_HD size_t ozaki_b_at(int j, int p, int kk, int ka, int s)
{
    return ((size_t)j * s + (s - 1 - p)) * ka + kk;
}

/* The GEMM of weight d in cuBLAS's column-major terms (TN): the row-major
 * sums[d] (m x ldc INT32) = a's slices @ b's is sums[d]^T (n x m) =
 * bs^T as: cuBLAS's A (k x n, lda apart) is b's slices from b_off, its B
 * (k x m, ldb apart) a's from 0, its C sums[d] from c_off. */
typedef struct {
    int m, n, k, lda, ldb, ldc;
    size_t b_off, c_off;
} ozaki_gemm;

static inline ozaki_gemm ozaki_gemm_of(int d, int m, int n, int ka, int ldc, int s)
{
    ozaki_gemm g = {n, m, (d + 1) * ka, s * ka, s * ka, ldc, (size_t)(s - 1 - d) * ka, (size_t)d * m * ldc};
    return g;
}

#endif
