/* modes.c - the ladder of modes, one row each, in ladder order. A row names
 * its base mode and fills only what it does differently; the rest is taken
 * from the base chain once, when the table is first used. */
#include "kernels/backend.h"

#include <stddef.h>
#include <string.h>

#include "kernels/entries.h"
#include "kernels/gpu.h"

/* Entry points of optional parts are left out of builds without them; the
 * mode is then unavailable (mode_available says why) and never called. */
#ifdef CUK_HAVE_CUDA
#define GPU_OP(fn) fn
#else
#define GPU_OP(fn) NULL
#endif
#ifdef CUK_HAVE_BLAS
#define BLAS_OP(fn) fn
#else
#define BLAS_OP(fn) NULL
#endif

static cuk_backend table[MODE_COUNT] = {
    {MODE_CPU, "cpu", MODE_CPU, NEEDS_HOST, 1, NULL,
     "textbook triple loop on one host thread: the lecture baseline",
     {cpu_matmul, cpu_transpose, cpu_ewise, cpu_unary, cpu_reduce, cpu_dot, cpu_fill, cpu_eye, cpu_random,
      cpu_copy2d}},
    {MODE_BLAS, "blas", MODE_CPU, NEEDS_BLAS, 0, NULL,
     "the system BLAS (cblas_sgemm), all cores: what a CPU user would pick",
     {.matmul = BLAS_OP(blas_matmul), .reduce = BLAS_OP(blas_reduce), .dot = BLAS_OP(blas_dot)}},
    {MODE_NAIVE, "naive", MODE_NAIVE, NEEDS_GPU, 0, NULL,
     "GPU: one thread per output element, global memory only",
     {GPU_OP(naive_matmul), GPU_OP(naive_transpose), GPU_OP(gpu_ewise), GPU_OP(gpu_unary), GPU_OP(naive_reduce),
      GPU_OP(naive_dot), GPU_OP(gpu_fill), GPU_OP(gpu_eye), GPU_OP(gpu_random), GPU_OP(gpu_copy2d)}},
    {MODE_TILED, "tiled", MODE_NAIVE, NEEDS_GPU, 0, NULL,
     "GPU: 16x16 shared-memory tiles, any size (edges zero-filled)",
     {.matmul = GPU_OP(tiled_matmul), .transpose = GPU_OP(tiled_transpose), .reduce = GPU_OP(tiled_reduce),
      .dot = GPU_OP(tiled_dot)}},
    {MODE_FAST, "fast", MODE_TILED, NEEDS_GPU, 0, "the fast kernel is not written yet (use tiled or cublas)",
     "GPU: register-blocked, vectorised FP32 SGEMM (not written yet)", {0}},
    {MODE_CUBLAS, "cublas", MODE_TILED, NEEDS_GPU, 0, NULL,
     "GPU: cuBLAS SGEMM in true FP32 (no TF32), the reference; reductions use tiled's tree",
     {.matmul = GPU_OP(cublas_matmul), .transpose = GPU_OP(cublas_transpose), .dot = GPU_OP(cublas_dot)}},
};

static const cuk_backend *running;

/* Take every entry m leaves empty from b. */
static void inherit(cuk_ops *m, const cuk_ops *b)
{
#define INHERIT(f) m->f = m->f ? m->f : b->f
    INHERIT(matmul);
    INHERIT(transpose);
    INHERIT(ewise);
    INHERIT(unary);
    INHERIT(reduce);
    INHERIT(dot);
    INHERIT(fill);
    INHERIT(eye);
    INHERIT(random);
    INHERIT(copy2d);
#undef INHERIT
}

/* Fill m's empty entries from its base chain, nearest base first. */
static void resolve_one(cuk_backend *m)
{
    for (const cuk_backend *b = m; b->base != b->id;) {
        b = &table[b->base];
        inherit(&m->ops, &b->ops);
    }
}

static void resolve(void)
{
    static int done;
    if (done)
        return;
    for (int i = 0; i < MODE_COUNT; i++)
        resolve_one(&table[i]);
    done = 1;
}

const cuk_backend *mode_get(cuk_mode_id id)
{
    resolve();
    return id >= 0 && id < MODE_COUNT ? &table[id] : NULL;
}

const cuk_backend *mode_find(const char *name)
{
    resolve();
    for (int i = 0; i < MODE_COUNT; i++)
        if (!strcmp(table[i].name, name))
            return &table[i];
    return NULL;
}

const cuk_backend *mode_reference(void)
{
    resolve();
    for (int i = 0; i < MODE_COUNT; i++)
        if (table[i].reference)
            return &table[i];
    return &table[MODE_CPU];
}

int mode_available(const cuk_backend *m, const char **why)
{
    const char *no = NULL;
    if (m->needs == NEEDS_GPU && !gpu_usable(&no))
        ;
    else if (m->needs == NEEDS_BLAS && !blas_linked(&no))
        ;
    else
        no = m->unwritten;
    if (no && why)
        *why = no;
    return no == NULL;
}

void mode_enter(const cuk_backend *m) { running = m; }

const cuk_backend *mode_running(void) { return running; }
