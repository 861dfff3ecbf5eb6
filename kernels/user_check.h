/* user_check.h - a user kernel's first result for each new shape, checked
 * on the host against a float64 reference (the product, the reductions;
 * the transpose exactly; the elementwise operations against the host's
 * own evaluation of the same operation, within a few units in the last
 * place). Up to a budget every element is compared, beyond it whole rows
 * and whole columns picked at the tile edges and at random. A wrong result
 * is described in one sentence: the first wrong element, what it should be
 * and what it is, and the pattern of the wrong ones ("rows >= 16 were
 * never written: the grid covers 16 rows", "every element is 2 times what
 * it should be"). Host code only: the tests give it host arrays. */
#ifndef CUK_USER_CHECK_H
#define CUK_USER_CHECK_H

#include <stddef.h>

#include "kernels/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The bits every output element holds before a user kernel runs (a NaN no
 * arithmetic makes): one still holding them was never written. */
#define UCHECK_POISON 0xFFFFFFFFu

/* Each returns 0 if the result is right, else -1 with the sentence in why
 * (no error set: the caller says which kernel and shape). */
int ucheck_matmul(const float *c, const float *a, const float *b, int m, int n, int k, char *why, size_t cap);
/* out (cols x rows) is in (rows x cols) transposed */
int ucheck_transpose(const float *out, const float *in, int rows, int cols, char *why, size_t cap);
/* a and b both n long (a scalar operand expanded) */
int ucheck_ewise(cuk_ewop op, const float *out, const float *a, const float *b, size_t n, char *why, size_t cap);
int ucheck_unary(cuk_unop op, const float *out, const float *in, size_t n, char *why, size_t cap);
/* got: the one value the kernel left in *out, which held start before */
int ucheck_reduce(cuk_redop op, float got, float start, const float *in, size_t n, char *why, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
