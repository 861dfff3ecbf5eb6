/* ops.h - every operation once, for any mode: make the result where the
 * mode's backend keeps its buffers, move the operands there, and run the
 * backend's kernel inside a timing record (engine/values/timing.h). Shapes are
 * checked by the caller, which can name the operands in its message.
 * Each returns a new matrix, or NULL with the error set. */
#ifndef CUK_OPS_H
#define CUK_OPS_H

#include "engine/values/matrix.h"

cuk_matrix *op_matmul(const cuk_backend *be, cuk_matrix *a, cuk_matrix *b);
/* a and b have the same shape, or one of them is 1x1 (broadcast). */
cuk_matrix *op_ewise(const cuk_backend *be, cuk_ewop op, cuk_matrix *a, cuk_matrix *b);
cuk_matrix *op_unary(const cuk_backend *be, cuk_unop op, cuk_matrix *a);
cuk_matrix *op_transpose(const cuk_backend *be, cuk_matrix *a);
/* A 1x1 result. dot: a and b have the same number of elements. */
cuk_matrix *op_reduce(const cuk_backend *be, cuk_redop op, cuk_matrix *a);
cuk_matrix *op_dot(const cuk_backend *be, cuk_matrix *a, cuk_matrix *b);
cuk_matrix *op_fill(const cuk_backend *be, int rows, int cols, float v);
cuk_matrix *op_eye(const cuk_backend *be, int rows, int cols);
cuk_matrix *op_random(const cuk_backend *be, cuk_dist dist, int rows, int cols, uint64_t seed, uint64_t stream);
/* The nr x nc block of a starting at (r0, c0). */
cuk_matrix *op_slice(const cuk_backend *be, cuk_matrix *a, int r0, int nr, int c0, int nc);

/* One block of a concatenation: where it goes in the result. */
typedef struct {
    cuk_matrix *m;
    size_t row, col;
} op_block;
cuk_matrix *op_concat(const cuk_backend *be, const op_block *blocks, size_t nblocks, int rows, int cols);

#endif
