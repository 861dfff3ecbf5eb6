/* warm.h - one-time set-up, done before the clock starts: whatever a mode
 * needs once (its kernels loaded, library handles and workspace made, the
 * BLAS started) and whatever a GPU product needs once per shape (cuBLAS's
 * plan for it and the kernel that plan picks, loaded; the clocks awake).
 * Each is timed on its own and listed by `info`; the statement's wall clock
 * is stopped meanwhile (timing_setup_*), so the first measured product
 * equals the steady state. */
#ifndef CUK_WARM_H
#define CUK_WARM_H

#include "kernels/backend.h"

/* The first use of mode be in this process runs the steps of its row's
 * setup hook, each noted apart, then every one of its operations once on
 * small inputs. 0, or -1 with the error set. */
int warm_mode(const cuk_backend *be);

/* Before a product of this shape is timed in a GPU mode: the first time
 * the mode meets the shape, run it once into c, untimed. out_of_core: a
 * spread mode's product with a matrix in host memory. 0, or -1 with the
 * error set. */
int warm_matmul(const cuk_backend *be, float *c, const float *a, const float *b, int m, int n, int k,
                int out_of_core);

/* Forget what was warmed (tests). */
void warm_reset(void);

#endif
