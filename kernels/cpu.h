/* cpu.h - the host kernels of mode cpu, which mode blas reuses for every
 * operation that BLAS has no routine for. Pointers are host memory. */
#ifndef CUK_CPU_H
#define CUK_CPU_H

#include "kernels/backend.h"

int cpu_matmul(float *c, const float *a, const float *b, int m, int n, int k);
int cpu_transpose(float *out, const float *in, int rows, int cols);
int cpu_ewise(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n);
int cpu_unary(cuk_unop op, float *out, const float *in, size_t n);
int cpu_reduce(cuk_redop op, float *out, const float *in, size_t n);
int cpu_dot(float *out, const float *x, const float *y, size_t n);
int cpu_fill(float *out, float v, size_t n);
int cpu_eye(float *out, int rows, int cols);
int cpu_random(cuk_dist dist, float *out, size_t n, uint64_t seed, uint64_t stream);
int cpu_copy2d(float *dst, size_t dld, const float *src, size_t sld, int rows, int cols);
int cpu_available(const char **why);

#endif
