/* accuracy.h - a result's relative error against float64, computed at a
 * sample of its elements, so that it costs little even at 8192^3: what
 * `bench` shows in its error column and files with each mode's summary,
 * which `why` then shows beside the speed. */
#ifndef CUK_ACCURACY_H
#define CUK_ACCURACY_H

#include <stddef.h>

#include "engine/lang/ast.h"
#include "engine/values/matrix.h"
#include "engine/session/session.h"

#define ACC_SAMPLES 4096
/* A product is sampled on a grid of rows x columns picked by a seeded
 * generator: 16 x 32 = 512 dot products of k terms each. */
#define ACC_ROWS 16
#define ACC_COLS 32

/* Where to compare (element indices of the result) and the answer there. */
typedef struct {
    size_t idx[ACC_SAMPLES];
    double val[ACC_SAMPLES];
    int n;
} acc_ref;

/* The float64 reference of expression e (a product, + - * /, the
 * reductions), its operands evaluated in the session's mode outside every
 * record: 1; 0 where cuk knows none; -1 with the error set. */
int acc_reference(cuk_session *s, const ast *e, acc_ref *r);
/* The reference of x @ y at the sampled grid: rows of x read one at a time,
 * y streamed a block of rows at a time (partial reads, wherever they
 * live), each sample a float64 dot product. 1, or -1 with the error set. */
int acc_product(cuk_matrix *x, cuk_matrix *y, acc_ref *r);
/* v's own values at evenly spread positions as the reference (the cpu
 * row's, where float64 is not at hand): 1, or -1 with the error set. */
int acc_from(cuk_matrix *v, acc_ref *r);
/* ||v_s - ref_s|| / ||ref_s|| over the sample; NaN if v cannot be read. */
double acc_error(cuk_matrix *v, const acc_ref *r);

#endif
