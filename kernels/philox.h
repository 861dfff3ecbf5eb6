/* philox.h - the random numbers of rand/randn, computed identically on the
 * host (C) and the device (CUDA), so that `seed N` gives the same matrix in
 * every mode, bit for bit.
 *
 * Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
 * 3", SC'11) maps a 128-bit counter and a 64-bit key to four 32-bit words.
 * Element i of a draw is word i%4 of block i/4, counter {i/4, stream}, key
 * seed: any element can be computed alone, in any order, on any processor.
 *
 * Normals use Box-Muller. Library log/sin/cos differ between the host libm
 * and CUDA in the last bit, so this file brings its own, built from + - * /
 * and frexp only, in double, and rounds to float at the end. That is exact
 * on both sides as long as the compiler does not contract a*b+c into a fused
 * multiply-add: host files are built with -ffp-contract=off and the device
 * file that includes this with -fmad=false (see Makefile). */
#ifndef CUK_PHILOX_H
#define CUK_PHILOX_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define PHILOX_FN static __host__ __device__ __forceinline__
#else
#define PHILOX_FN static inline
#endif

typedef struct {
    uint32_t v[4];
} philox_u4;

PHILOX_FN uint32_t philox_mulhilo(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

/* Four random words for counter block `block` of stream `stream`. */
PHILOX_FN philox_u4 philox4x32(uint64_t block, uint64_t stream, uint64_t seed)
{
    uint32_t c0 = (uint32_t)block, c1 = (uint32_t)(block >> 32);
    uint32_t c2 = (uint32_t)stream, c3 = (uint32_t)(stream >> 32);
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        uint32_t hi0, hi1;
        uint32_t lo0 = philox_mulhilo(0xD2511F53u, c0, &hi0);
        uint32_t lo1 = philox_mulhilo(0xCD9E8D57u, c2, &hi1);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    philox_u4 out = {{c0, c1, c2, c3}};
    return out;
}

/* Uniform in [0, 1): the top 24 bits, exactly representable in float. */
PHILOX_FN float philox_uniform(uint32_t x)
{
    return (float)(x >> 8) * (1.0f / 16777216.0f);
}

/* Natural log for x in (0, 1], from frexp and an atanh series:
 * ln(m) = 2 atanh(s), s = (m-1)/(m+1), |s| < 0.1716 for m in [1/sqrt2, sqrt2). */
PHILOX_FN double philox_log(double x)
{
    int e;
    double m = frexp(x, &e);
    if (m < 0.70710678118654752440) {
        m *= 2.0;
        e -= 1;
    }
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    double sum = 1.0 / 25.0;
    for (int k = 11; k >= 0; k--)
        sum = 1.0 / (double)(2 * k + 1) + s2 * sum;
    return 2.0 * s * sum + (double)e * 0.69314718055994530942;
}

/* cos and sin of 2*pi*u for u in [0, 1): quadrant from 4u (exact), then
 * Taylor series on [0, pi/2). */
PHILOX_FN void philox_sincos2pi(double u, double *c, double *s)
{
    double t = 4.0 * u;
    int q = (int)t;
    double x = (t - (double)q) * 1.57079632679489661923;
    double x2 = x * x;
    double cs = 1.0, sn = 1.0;
    for (int k = 12; k >= 1; k--) {
        cs = 1.0 - x2 * cs / (double)((2 * k - 1) * (2 * k));
        sn = 1.0 - x2 * sn / (double)((2 * k) * (2 * k + 1));
    }
    sn *= x;
    switch (q & 3) {
    case 0: *c = cs;  *s = sn;  break;
    case 1: *c = -sn; *s = cs;  break;
    case 2: *c = -cs; *s = -sn; break;
    default: *c = sn; *s = -cs; break;
    }
}

/* Two standard normals from two words (Box-Muller). */
PHILOX_FN void philox_normal2(uint32_t a, uint32_t b, float *z0, float *z1)
{
    double u1 = ((double)a + 1.0) * (1.0 / 4294967296.0); /* (0, 1] */
    double u2 = (double)b * (1.0 / 4294967296.0);         /* [0, 1) */
    double r = sqrt(-2.0 * philox_log(u1));
    double c, s;
    philox_sincos2pi(u2, &c, &s);
    *z0 = (float)(r * c);
    *z1 = (float)(r * s);
}

/* The four values of block `block` of a draw, uniform or normal. */
PHILOX_FN void philox_block(int normal, uint64_t block, uint64_t stream, uint64_t seed, float out[4])
{
    philox_u4 w = philox4x32(block, stream, seed);
    if (normal) {
        philox_normal2(w.v[0], w.v[1], &out[0], &out[1]);
        philox_normal2(w.v[2], w.v[3], &out[2], &out[3]);
    } else {
        for (int i = 0; i < 4; i++)
            out[i] = philox_uniform(w.v[i]);
    }
}

#endif
