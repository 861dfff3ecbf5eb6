/* matrix.h - a float32 matrix that may live in host memory, device memory or
 * both, and moves between them on demand.
 *
 * Matrices are immutable once built: every operation makes a new one. So a
 * host copy and a device copy, once made, stay in sync for good, and sharing
 * one matrix under several names (B = A) is a reference count, not a copy.
 *
 * Every value is float32, whatever its size: computed, printed, saved and
 * kept under a name as float32. Only where a size, an index or a seed is
 * read is a number exact: past 2^24 float32 skips whole numbers (16777217
 * is stored as 16777216) and makes some fractions whole (16777217.5 is
 * stored as 16777218). So while a statement is evaluated, a matrix of at
 * most MAT_EXACT_MAX elements made from literals, size() and the operators
 * + - * /, signs, transposes and indexing on those carries its values in
 * double precision too (exact[]): whole numbers below 2^53 are exact there.
 * A use as a size, an index or a seed reads them (mat_scalar_exact); the
 * value itself is the float32 one, and a value bound to a name carries
 * nothing (eval_stmt). */
#ifndef CUK_MATRIX_H
#define CUK_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"

struct pool_block;

/* size() gives two values; a literal such as [m n] keeps as many. */
#define MAT_EXACT_MAX 2
/* Whole numbers are exact strictly inside +-2^53: there a double holds each
 * of them, and a literal's digits were not rounded when it was read. */
#define MAT_EXACT_LIMIT 9007199254740992.0

typedef struct cuk_matrix {
    int refs;
    int rows, cols;
    float *host;                 /* NULL until a host copy exists */
    int pinned;                  /* host is page-locked: mode multi's out-of-core matrices */
    struct pool_block *dev;      /* NULL until a device copy exists */
    /* 1: a matrix of a spread mode (multi) that the GPUs could not hold:
     * it lives in host memory, where that mode works on it out of core
     * (`who` says so), page-locked. Set where that is decided: mat_new
     * and mat_data. */
    int out_of_core;
    /* Bytes ops have read of the device copy where it lay, elsewhere than
     * their mode works, since it last moved (engine/values/place.h). */
    double read_away;
    int nexact;                  /* 0, or rows*cols: exact[] holds every element */
    double exact[MAT_EXACT_MAX];
} cuk_matrix;

/* Largest dimension cuk accepts (kernels take int dimensions and index
 * with size_t; rows*cols*4 bytes then always fits a size_t, and memory is
 * what limits the element count). */
#define MAT_MAX_DIM 2147483647L

/* Check a requested shape, as typed (exact, see above); 0, or -1 with a
 * message naming `what` ("rand: dimensions must be at least 1 (got 0x3)").
 * After it, (int)rows and (int)cols are safe. */
int mat_check_shape(const char *what, double rows, double cols);

/* A new matrix with uninitialised storage where `be` keeps its buffers
 * (host for cpu/blas, device for GPU modes); NULL with the error set. */
cuk_matrix *mat_new(const cuk_backend *be, int rows, int cols);
cuk_matrix *mat_new_host(int rows, int cols);
cuk_matrix *mat_scalar(float v);
/* A host matrix of rows x cols (at most MAT_EXACT_MAX elements) carrying
 * the values v; its floats are v rounded. */
cuk_matrix *mat_exact(int rows, int cols, const double *v);

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
/* The same as a double: the carried value when there is one. What reads a
 * size, an index or a seed reads this. */
int mat_scalar_exact(cuk_matrix *m, double *out);

/* "host", "device" or "host+device". */
const char *mat_where(const cuk_matrix *m);
/* Bytes held on the host and on the device by this matrix. */
size_t mat_host_bytes(const cuk_matrix *m);
size_t mat_dev_bytes(const cuk_matrix *m);

/* Tests: fill every new buffer with NaN so unwritten outputs show. */
void mat_set_poison(int on);

/* Host memory held by all live matrices (buffers kept for reuse not
 * counted). */
size_t mat_host_total(void);
/* Free the host buffers kept for reuse (see matrix.c). */
void mat_host_trim(void);

#endif
