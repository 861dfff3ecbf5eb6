/* warm.c - one-time set-up outside every timed region (see warm.h). */
#include "engine/values/warm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "engine/values/pool.h"
#include "engine/values/timing.h"
#include "kernels/gpu.h"
#include "kernels/variants.h"

#define MAX_MODES 16
#define WARM_N 32 /* the small inputs: 32x32 */
/* Shapes remembered per mode. Fewer than the plans gpu_cublas.cu keeps
 * (64), so a shape remembered here still has its cuBLAS plan (variants do
 * not change cuBLAS's plans). */
#define SHAPES 32

/* What has been warmed: modes, and products of a shape, each under the
 * kernel variants then in force (`set tile 32` launches another kernel,
 * which has its own first launch). */
static struct {
    struct {
        const cuk_backend *mode;
        unsigned long variants;
    } mode[MAX_MODES * 4]; /* warmed modes */
    int nmodes;
    struct {
        const cuk_backend *mode;
        unsigned long variants;
        int m, n, k;
    } shape[MAX_MODES * SHAPES]; /* products already run once */
    int nshape;
} W;

void warm_reset(void) { memset(&W, 0, sizeof W); }

/* The variant switches' values, as one number: a digit for each. */
static unsigned long variants_now(void)
{
    unsigned long v = 0;
    for (int i = 0; i < VAR_COUNT; i++)
        v = v * VARIANT_MAX_VALUES + (unsigned long)variant_pick((variant_id)i);
    return v;
}

static int mode_warmed(const cuk_backend *be)
{
    unsigned long v = variants_now();
    for (int i = 0; i < W.nmodes; i++)
        if (W.mode[i].mode == be && W.mode[i].variants == v)
            return 1;
    return 0;
}

/* Buffers for the small run, where the mode works; one float each past
 * the matrix for the 1x1 results. */
typedef struct {
    pool_block *blk[4];
    float *p[4];
} warm_bufs;

static int bufs_get(const cuk_backend *be, warm_bufs *b)
{
    size_t bytes = (WARM_N * WARM_N + 1) * sizeof(float);
    memset(b, 0, sizeof *b);
    for (int i = 0; i < 4; i++) {
        if (mode_on_device(be)) {
            if (!(b->blk[i] = pool_alloc_in(be->spread ? POOL_SPREAD : POOL_DEVICE, bytes)))
                return -1;
            b->p[i] = b->blk[i]->ptr;
        } else if (!(b->p[i] = calloc(1, bytes))) {
            return cuk_err("out of host memory");
        }
    }
    return 0;
}

static void bufs_put(const cuk_backend *be, warm_bufs *b)
{
    for (int i = 0; i < 4; i++)
        if (mode_on_device(be))
            pool_free(b->blk[i]);
        else
            free(b->p[i]);
}

/* Every operation of the resolved table once: each kernel a mode reaches
 * is loaded at its first launch, and libraries make their handles at their
 * first call. Every reduction, since each may be its own kernel. */
static int run_every_op(const cuk_backend *be, warm_bufs *b)
{
    const cuk_ops *o = &be->ops;
    const size_t nn = WARM_N * WARM_N;
    float *x = b->p[0], *y = b->p[1], *z = b->p[2], *one = b->p[3];
    cuk_arg ax = {x, 0, 0}, ay = {y, 0, 0};
    int rc = o->random(CUK_RAND_UNIFORM, x, nn, 1, 0) | o->random(CUK_RAND_UNIFORM, y, nn, 1, 1);
    rc = rc ? rc : o->matmul(z, x, y, WARM_N, WARM_N, WARM_N);
    rc = rc ? rc : o->transpose(z, x, WARM_N, WARM_N);
    rc = rc ? rc : o->ewise((cuk_ewop)0, z, ax, ay, nn);
    rc = rc ? rc : o->unary((cuk_unop)0, z, x, nn);
    for (int r = 0; r < CUK_RED_COUNT && !rc; r++)
        rc = o->reduce[r](one, x, nn);
    rc = rc ? rc : o->dot(one, x, y, nn);
    rc = rc ? rc : o->fill(z, 1.0f, nn);
    rc = rc ? rc : o->eye(z, WARM_N, WARM_N);
    rc = rc ? rc : o->copy2d(z, WARM_N, x, WARM_N, WARM_N / 2, WARM_N / 2);
    return rc ? -1 : 0;
}

/* The steps of be's setup hook, each timed and noted apart ("mode multi:
 * NCCL communicators ..."). 0, or -1 with the error set. */
static int setup_steps(const cuk_backend *be)
{
    char step[80], what[96];
    int rc = 1;
    for (int i = 0; be->setup && rc == 1; i++) {
        step[0] = '\0';
        timing_setup_begin();
        rc = be->setup(i, step, sizeof step);
        snprintf(what, sizeof what, "mode %s: %s", be->name, step);
        timing_setup_end(rc == 1 && step[0] ? what : NULL);
    }
    return rc < 0 ? -1 : 0;
}

int warm_mode(const cuk_backend *be)
{
    const char *why;
    char what[96];
    warm_bufs b;
    if (mode_warmed(be) || !mode_available(be, &why))
        return 0;
    const cuk_backend *running = mode_running();
    mode_enter(NULL); /* these launches are no one's: `kernels` shows the user's */
    int rc = setup_steps(be);
    timing_setup_begin();
    if (rc == 0) {
        rc = bufs_get(be, &b) == 0 ? run_every_op(be, &b) : -1;
        bufs_put(be, &b);
    }
    mode_enter(running);
    snprintf(what, sizeof what, "mode %s: each operation once (kernels loaded, libraries up)", be->name);
    timing_setup_end(what);
    if (rc == 0 && W.nmodes < MAX_MODES * 4) {
        W.mode[W.nmodes].mode = be;
        W.mode[W.nmodes++].variants = variants_now();
    }
    return rc;
}

static int shape_seen(const cuk_backend *be, int m, int n, int k)
{
    unsigned long v = variants_now();
    for (int i = 0; i < W.nshape; i++)
        if (W.shape[i].mode == be && W.shape[i].variants == v && W.shape[i].m == m && W.shape[i].n == n &&
            W.shape[i].k == k)
            return 1;
    return 0;
}

/* Remember a shape; a mode keeps its SHAPES newest. */
static void shape_add(const cuk_backend *be, int m, int n, int k)
{
    int per_mode = 0, slot;
    for (int i = 0; i < W.nshape; i++)
        per_mode += W.shape[i].mode == be;
    if (per_mode >= SHAPES || W.nshape == MAX_MODES * SHAPES) { /* forget this mode's oldest */
        for (slot = 0; slot < W.nshape - 1 && W.shape[slot].mode != be; slot++)
            ;
        memmove(&W.shape[slot], &W.shape[slot + 1], (size_t)(W.nshape - slot - 1) * sizeof W.shape[0]);
        W.nshape--;
    }
    W.shape[W.nshape].mode = be;
    W.shape[W.nshape].variants = variants_now();
    W.shape[W.nshape].m = m;
    W.shape[W.nshape].n = n;
    W.shape[W.nshape].k = k;
    W.nshape++;
}

/* A spread product is not run twice past these FLOPs: a second of one
 * GPU's work on each (its one-time costs, the chunk buffers and each GPU's
 * first kernel of the shape, are then lost in its own time); out of core,
 * past a TFLOP (seconds at the link's rate). */
#define SPREAD_WARM_MAX_FLOPS_PER_GPU 5e13
#define OUT_OF_CORE_WARM_MAX_FLOPS 1e12

/* Whether a first product of this shape runs once, untimed: in a GPU mode
 * (host modes are left alone: a first run there costs what the others do,
 * and a cpu product can take minutes), unless it is too long to repeat. */
static int worth_warming(const cuk_backend *be, double flops, int out_of_core)
{
    if (!mode_on_device(be))
        return 0;
    if (out_of_core)
        return flops <= OUT_OF_CORE_WARM_MAX_FLOPS;
    return !be->spread || flops / (gpu_count() > 1 ? gpu_count() : 1) <= SPREAD_WARM_MAX_FLOPS_PER_GPU;
}

int warm_matmul(const cuk_backend *be, float *c, const float *a, const float *b, int m, int n, int k,
                int out_of_core)
{
    char what[96];
    if (shape_seen(be, m, n, k) || !worth_warming(be, 2.0 * m * n * k, out_of_core))
        return 0;
    const cuk_backend *running = mode_running();
    timing_setup_begin();
    mode_enter(NULL);
    int rc = be->ops.matmul(c, a, b, m, n, k);
    mode_enter(running);
    snprintf(what, sizeof what, "mode %s: first %dx%dx%d product, run once untimed", be->name, m, k, n);
    timing_setup_end(what);
    if (rc == 0)
        shape_add(be, m, n, k);
    return rc;
}
