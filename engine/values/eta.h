/* eta.h - how long a product in the textbook cpu mode will take, said
 * before it starts when it is long: 2mnk flops over the rate that mode
 * reached on the product nearest in size among those it has run (a
 * conservative 1 GFLOP/s before any), so that a lecture hall knows to
 * wait, or to press Ctrl-C. The panel's time left starts from the same
 * estimate and is refined as the product runs (cuk_progress_expect). */
#ifndef CUK_ETA_H
#define CUK_ETA_H

#include "kernels/backend.h"

/* Estimates past this many seconds are said. */
#define ETA_NOTE_S 5.0

/* Around the product c (m x n) = a (m x k) @ b (k x n) in mode be: before
 * it, the note "note: this cpu product will take about 40 s (Ctrl-C stops
 * it)" when it will be long; after it, its rate learnt if it succeeded.
 * Only the reference mode (cpu) is estimated: the others are fast. */
void eta_matmul_begin(const cuk_backend *be, int m, int n, int k);
void eta_matmul_end(const cuk_backend *be, int ok);

/* The estimate in seconds for a product of m x n x k in be's rate (as the
 * note would say), or < 0 for a mode that is not estimated. */
double eta_matmul_seconds(const cuk_backend *be, int m, int n, int k);

#endif
