/* backend.h - the table of modes: each mode is a backend that implements
 * every operation cuk has. The evaluator never switches on the mode; it looks
 * the backend up in this table and calls through it.
 *
 * Buffers are row-major float32 and live where the backend says (host memory
 * for cpu/blas, device memory for the GPU modes); the engine moves matrices
 * there before calling. Every op returns 0, or -1 with the error set
 * (base/error.h). Device ops are asynchronous on the engine's stream. */
#ifndef CUK_BACKEND_H
#define CUK_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CUK_EW_ADD, CUK_EW_SUB, CUK_EW_MUL, CUK_EW_DIV, CUK_EW_MIN, CUK_EW_MAX } cuk_ewop;
typedef enum { CUK_UN_NEG, CUK_UN_ABS, CUK_UN_SQRT, CUK_UN_EXP } cuk_unop;
/* Whole-matrix reductions to one value. NORM is the Frobenius norm. */
typedef enum { CUK_RED_SUM, CUK_RED_MEAN, CUK_RED_NORM, CUK_RED_MIN, CUK_RED_MAX } cuk_redop;
typedef enum { CUK_RAND_UNIFORM, CUK_RAND_NORMAL } cuk_dist;

/* One operand of an elementwise op. With bcast set, element 0 stands for
 * every element: read from p[0] if p is set (a 1x1 matrix where the backend's
 * buffers live), else the host value v, passed by value to avoid a copy. */
typedef struct {
    const float *p;
    float v;
    int bcast;
} cuk_arg;

typedef struct cuk_backend {
    const char *name;
    const char *summary;   /* one line for `modes` and `help modes` */
    int on_device;         /* 1: buffers are device pointers */

    /* 1 if usable now; otherwise 0 and *why says why not. */
    int (*available)(const char **why);

    /* c (m x n) = a (m x k) @ b (k x n) */
    int (*matmul)(float *c, const float *a, const float *b, int m, int n, int k);
    /* out (cols x rows) = transpose of in (rows x cols) */
    int (*transpose)(float *out, const float *in, int rows, int cols);
    int (*ewise)(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n);
    int (*unary)(cuk_unop op, float *out, const float *in, size_t n);
    /* out is one float where the backend's buffers live */
    int (*reduce)(cuk_redop op, float *out, const float *in, size_t n);
    int (*dot)(float *out, const float *x, const float *y, size_t n);
    int (*fill)(float *out, float v, size_t n);
    int (*eye)(float *out, int rows, int cols);
    /* n values of the counter-based stream (seed, stream); element i is the
     * same number in every mode (kernels/philox.h). */
    int (*random)(cuk_dist dist, float *out, size_t n, uint64_t seed, uint64_t stream);
    /* Copy a rows x cols block between row-major buffers with leading
     * dimensions sld and dld (in elements): slicing and concatenation. */
    int (*copy2d)(float *dst, size_t dld, const float *src, size_t sld, int rows, int cols);
} cuk_backend;

/* The table, in ladder order: cpu, blas, naive, tiled, fast, cublas. */
extern const cuk_backend *const cuk_backends[];
extern const int cuk_nbackends;

const cuk_backend *cuk_backend_find(const char *name);

/* The backends each .c/.cu file defines. */
extern const cuk_backend cuk_backend_cpu;
extern const cuk_backend cuk_backend_blas;
extern const cuk_backend cuk_backend_naive;
extern const cuk_backend cuk_backend_tiled;
extern const cuk_backend cuk_backend_fast;
extern const cuk_backend cuk_backend_cublas;

/* Which BLAS the blas mode was built against, for `modes` and `info`. */
const char *cuk_blas_name(void);

#ifdef __cplusplus
}
#endif

#endif
