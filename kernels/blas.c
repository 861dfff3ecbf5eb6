/* blas.c - mode blas: the system's BLAS (OpenBLAS where installed, on all
 * cores) for the operations BLAS has: the product, dot and the 2-norm. The
 * rest comes from mode cpu through the mode table. */
#include <math.h>
#include <stdio.h>

#include "base/error.h"
#include "kernels/backend.h"

#ifdef CUK_HAVE_BLAS
#include <cblas.h>

/* The entry points of mode blas (modes.c); the rest of its table comes from
 * mode cpu, whose reduce handles what BLAS has no routine for. */
cuk_matmul_fn blas_matmul;
cuk_reduce_fn blas_reduce, cpu_reduce;
cuk_dot_fn blas_dot;

/* Rows per sgemm call: the product runs in panels of about 2 GFLOP so that
 * Ctrl-C is noticed within a fraction of a second even on huge inputs. */
static int panel_rows(int n, int k)
{
    double per_row = 2.0 * n * k;
    double rows = 2e9 / (per_row > 1 ? per_row : 1);
    return rows < 64 ? 64 : rows > 1e9 ? 1000000000 : (int)rows;
}

int blas_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    int step = panel_rows(n, k);
    for (int i = 0; i < m; i += step) {
        int rows = m - i < step ? m - i : step;
        if (cuk_check_interrupt())
            return -1;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, n, k, 1.0f, a + (size_t)i * k, k, b, n, 0.0f,
                    c + (size_t)i * n, n);
    }
    return 0;
}

/* BLAS lengths are int: longer vectors go in pieces. */
#define PIECE ((size_t)1 << 30)

/* dsdot: float inputs, double accumulation. sdot's float sum is off by 3e-3
 * over 2^28 elements; this matches the other modes. */
int blas_dot(float *out, const float *x, const float *y, size_t n)
{
    double acc = 0;
    for (size_t i = 0; i < n; i += PIECE)
        acc += cblas_dsdot((int)(n - i < PIECE ? n - i : PIECE), x + i, 1, y + i, 1);
    *out = (float)acc;
    return 0;
}

int blas_reduce(cuk_redop op, float *out, const float *in, size_t n)
{
    if (op != CUK_RED_NORM)
        return cpu_reduce(op, out, in, n);
    double sq = 0;
    for (size_t i = 0; i < n; i += PIECE) {
        double piece = cblas_snrm2((int)(n - i < PIECE ? n - i : PIECE), in + i, 1);
        sq += piece * piece;
    }
    *out = (float)sqrt(sq);
    return 0;
}

int blas_linked(const char **why) { return 1; }

const char *blas_describe(void)
{
#ifdef CUK_OPENBLAS
    static char name[64];
    int n = openblas_get_num_threads();
    snprintf(name, sizeof name, "OpenBLAS, %d thread%s", n, n == 1 ? "" : "s");
    return name;
#else
    return "the system's BLAS";
#endif
}

#else /* no BLAS at build time: the mode is listed but unavailable */

int blas_linked(const char **why)
{
    *why = "cuk was built without a BLAS library (install libopenblas-dev and rebuild)";
    return 0;
}

const char *blas_describe(void) { return "no BLAS (not built with one)"; }
#endif
