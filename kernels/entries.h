/* entries.h - the entry points each backend file exports, for the mode table
 * (modes.c) and nothing else: the engine calls them only through the table.
 * Contracts are those of cuk_ops in backend.h. */
#ifndef CUK_ENTRIES_H
#define CUK_ENTRIES_H

#include "kernels/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cpu.c: plain loops on one host thread, the root of the host modes */
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

/* blas.c (builds with a BLAS only) */
int blas_matmul(float *c, const float *a, const float *b, int m, int n, int k);
int blas_reduce(cuk_redop op, float *out, const float *in, size_t n);
int blas_dot(float *out, const float *x, const float *y, size_t n);

/* gpu_common.cu, gpu_random.cu: what every GPU mode shares (naive is their
 * root in the table) because it makes no lecture point */
int gpu_ewise(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n);
int gpu_unary(cuk_unop op, float *out, const float *in, size_t n);
int gpu_fill(float *out, float v, size_t n);
int gpu_eye(float *out, int rows, int cols);
int gpu_random(cuk_dist dist, float *out, size_t n, uint64_t seed, uint64_t stream);
int gpu_copy2d(float *dst, size_t dld, const float *src, size_t sld, int rows, int cols);

/* gpu_naive.cu */
int naive_matmul(float *c, const float *a, const float *b, int m, int n, int k);
int naive_transpose(float *out, const float *in, int rows, int cols);
int naive_reduce(cuk_redop op, float *out, const float *in, size_t n);
int naive_dot(float *out, const float *x, const float *y, size_t n);

/* gpu_tiled.cu */
int tiled_matmul(float *c, const float *a, const float *b, int m, int n, int k);
int tiled_transpose(float *out, const float *in, int rows, int cols);
int tiled_reduce(cuk_redop op, float *out, const float *in, size_t n);
int tiled_dot(float *out, const float *x, const float *y, size_t n);

/* gpu_cublas.cu */
int cublas_matmul(float *c, const float *a, const float *b, int m, int n, int k);
int cublas_transpose(float *out, const float *in, int rows, int cols);
int cublas_dot(float *out, const float *x, const float *y, size_t n);

#ifdef __cplusplus
}
#endif

#endif
