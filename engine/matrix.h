/* matrix.h - a float32 matrix that may live in host memory, device memory or
 * both, and moves between them on demand.
 *
 * Matrices are immutable once built: every operation makes a new one. So a
 * host copy and a device copy, once made, stay in sync for good, and sharing
 * one matrix under several names (B = A) is a reference count, not a copy. */
#ifndef CUK_MATRIX_H
#define CUK_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"

struct pool_block;

typedef struct cuk_matrix {
    int refs;
    int rows, cols;
    float *host;                 /* NULL until a host copy exists */
    struct pool_block *dev;      /* NULL until a device copy exists */
} cuk_matrix;

/* Largest dimension and element count cuk accepts (kernels index with int
 * per dimension and size_t overall). */
#define MAT_MAX_DIM 2147483647L

/* Check a requested shape; 0, or -1 with a message naming `what`
 * ("rand: dimensions must be at least 1 (got 0x3)"). */
int mat_check_shape(const char *what, double rows, double cols);

/* A new matrix with uninitialised storage where `be` keeps its buffers
 * (host for cpu/blas, device for GPU modes); NULL with the error set. */
cuk_matrix *mat_new(const cuk_backend *be, int rows, int cols);
cuk_matrix *mat_new_host(int rows, int cols);
cuk_matrix *mat_scalar(float v);

cuk_matrix *mat_ref(cuk_matrix *m);
void mat_unref(cuk_matrix *m);

static inline size_t mat_numel(const cuk_matrix *m) { return (size_t)m->rows * (size_t)m->cols; }
static inline size_t mat_bytes(const cuk_matrix *m) { return mat_numel(m) * sizeof(float); }

/* The data where `be` works, copying it there first if needed (the copy is
 * counted in the command's timing record). NULL with the error set. */
float *mat_data(cuk_matrix *m, const cuk_backend *be);
float *mat_host(cuk_matrix *m);

/* Copy n consecutive elements from element `first` on into dst, from
 * wherever the matrix lives; it stays there (a device-only matrix sends
 * just these elements, counted in the command's record). */
int mat_read(cuk_matrix *m, size_t first, size_t n, float *dst);

/* The matrix's value if it is 1x1 (downloading it if needed). */
int mat_scalar_value(cuk_matrix *m, float *out);

/* "host", "device" or "host+device". */
const char *mat_where(const cuk_matrix *m);
/* Bytes held on the host and on the device by this matrix. */
size_t mat_host_bytes(const cuk_matrix *m);
size_t mat_dev_bytes(const cuk_matrix *m);

/* Tests: fill every new buffer with NaN so unwritten outputs show. */
void mat_set_poison(int on);

/* Host memory held by all live matrices. */
size_t mat_host_total(void);

#endif
