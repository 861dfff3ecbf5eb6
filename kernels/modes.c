/* modes.c - the ladder of modes, one row each, in ladder order. A row names
 * its base mode and fills only what it does differently; the rest is taken
 * from the base chain once, when the table is first used. A new mode is a
 * row here and a file with its kernels. */
#include "kernels/backend.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
#include "kernels/gpu.h"
#include "kernels/ozaki.h"
#include "kernels/user.h"

/* The entry points the rows name, each defined in its mode's file. */
cuk_matmul_fn cpu_matmul, blas_matmul, naive_matmul, tiled_matmul, fast_matmul, cublas_matmul, tf32_matmul,
    tf32x3_matmul, ozaki_matmul, multi_matmul;
cuk_transpose_fn cpu_transpose, blas_transpose, naive_transpose, tiled_transpose, fast_transpose, cublas_transpose,
    multi_transpose;
cuk_ewise_fn cpu_ewise, blas_ewise, gpu_ewise, fast_ewise, multi_ewise;
cuk_unary_fn cpu_unary, blas_unary, gpu_unary, fast_unary, multi_unary;
/* A mode's reductions, one entry point per kind: MODE_reduce_sum, ... */
#define REDUCE_ENTRIES(m) m##_reduce_sum, m##_reduce_mean, m##_reduce_norm, m##_reduce_min, m##_reduce_max
cuk_reduce_fn REDUCE_ENTRIES(cpu), REDUCE_ENTRIES(blas), REDUCE_ENTRIES(naive), REDUCE_ENTRIES(tiled),
    REDUCE_ENTRIES(fast), REDUCE_ENTRIES(multi);
cuk_dot_fn cpu_dot, blas_dot, naive_dot, tiled_dot, fast_dot, cublas_dot, multi_dot;
cuk_fill_fn cpu_fill, blas_fill, gpu_fill, multi_fill;
cuk_eye_fn cpu_eye, blas_eye, gpu_eye, multi_eye;
cuk_random_fn cpu_random, blas_random, gpu_random, multi_random;
cuk_copy2d_fn cpu_copy2d, gpu_copy2d, multi_copy2d;
int cublas_load(const char **why); /* cuBLAS is opened when first wanted */

/* Entry points of optional parts are left out of builds without them; the
 * mode is then unavailable (mode_available says why) and never called. */
#ifdef CUK_HAVE_CUDA
#define GPU_OP(fn) fn
#else
#define GPU_OP(fn) NULL
#endif
/* Mode multi needs NCCL's header to build (kernels/gpu_multi.cu). */
#if defined(CUK_HAVE_CUDA) && defined(CUK_HAVE_NCCL)
#define MULTI_OP(fn) fn
int multi_load(const char **why); /* NCCL is opened when first wanted */
int multi_setup(int step, char *what, size_t cap);
#else
#define MULTI_OP(fn) NULL
static int multi_load(const char **why)
{
    *why = "cuk was built without NCCL's header (nccl.h), which mode multi needs";
    return 0;
}
#endif
#ifdef CUK_HAVE_BLAS
#define BLAS_OP(fn) fn
#else
#define BLAS_OP(fn) NULL
#endif
#define HOST_OP(fn) fn

/* The reduce entries of a row: mode m's function for each kind, through
 * OP (GPU_OP, ...) like the row's other entries. */
#define REDUCTIONS(OP, m)                                                         \
    {                                                                             \
        [CUK_RED_SUM] = OP(m##_reduce_sum), [CUK_RED_MEAN] = OP(m##_reduce_mean), \
        [CUK_RED_NORM] = OP(m##_reduce_norm), [CUK_RED_MIN] = OP(m##_reduce_min), \
        [CUK_RED_MAX] = OP(m##_reduce_max)                                        \
    }

static cuk_backend table[] = {
    {.name = "cpu", .needs = NEEDS_HOST, .reference = 1, .matmul_reuse = 1,
     .summary = "textbook triple loop on one host thread: the lecture baseline",
     .ops = {cpu_matmul, cpu_transpose, cpu_ewise, cpu_unary, REDUCTIONS(HOST_OP, cpu), cpu_dot, cpu_fill, cpu_eye,
             cpu_random, cpu_copy2d}},
    {.name = "blas", .base = "cpu", .needs = NEEDS_BLAS, .baseline = 1, .matmul_reuse = 0,
     .summary = "the system BLAS (cblas_sgemm); the rest on every core, vectorised: the best a CPU does",
     .detail = blas_describe, .caveat = blas_caveat,
     .ops = {BLAS_OP(blas_matmul), BLAS_OP(blas_transpose), BLAS_OP(blas_ewise), BLAS_OP(blas_unary),
             REDUCTIONS(BLAS_OP, blas), BLAS_OP(blas_dot), BLAS_OP(blas_fill), BLAS_OP(blas_eye),
             BLAS_OP(blas_random)}},
    /* naive is the root of the GPU modes: it holds the kernels they share */
    {.name = "naive", .needs = NEEDS_GPU, .matmul_reuse = 1,
     .summary = "GPU: one thread per output element, global memory only",
     .ops = {GPU_OP(naive_matmul), GPU_OP(naive_transpose), GPU_OP(gpu_ewise), GPU_OP(gpu_unary),
             REDUCTIONS(GPU_OP, naive), GPU_OP(naive_dot), GPU_OP(gpu_fill), GPU_OP(gpu_eye), GPU_OP(gpu_random),
             GPU_OP(gpu_copy2d)}},
    {.name = "tiled", .base = "naive", .needs = NEEDS_GPU, .start = 1, .matmul_reuse = 16,
     .summary = "GPU: 16x16 shared-memory tiles, any size (edges zero-filled)",
     .ops = {.matmul = GPU_OP(tiled_matmul), .transpose = GPU_OP(tiled_transpose),
             .reduce = REDUCTIONS(GPU_OP, tiled), .dot = GPU_OP(tiled_dot)}},
    {.name = "fast", .base = "tiled", .needs = NEEDS_GPU, .matmul_reuse = 0, /* blocked like a library */
     .summary = "GPU: register-blocked FP32 SGEMM (cp.async stages, split-K), one-pass reductions, 16-byte kernels",
     .ops = {.matmul = GPU_OP(fast_matmul), .transpose = GPU_OP(fast_transpose), .ewise = GPU_OP(fast_ewise),
             .unary = GPU_OP(fast_unary), .reduce = REDUCTIONS(GPU_OP, fast), .dot = GPU_OP(fast_dot)}},
    {.name = "cublas", .base = "tiled", .needs = NEEDS_GPU, .matmul_reuse = 0, .load = GPU_OP(cublas_load),
     .summary = "GPU: cuBLAS SGEMM in true FP32 (no TF32), the reference; reductions use tiled's tree",
     .ops = {.matmul = GPU_OP(cublas_matmul), .transpose = GPU_OP(cublas_transpose), .dot = GPU_OP(cublas_dot)}},
    /* The tensor-core rungs: TF32 needs Ampere (8.0) or later. */
    {.name = "tf32", .base = "fast", .needs = NEEDS_GPU, .min_cc = 80, .min_cc_what = "TF32 tensor cores",
     .matmul_reuse = 0, .load = GPU_OP(cublas_load),
     .summary = "GPU: cuBLAS on the TF32 tensor cores (operands rounded to 10-bit mantissas): fast, ~1e-4 error",
     .ops = {.matmul = GPU_OP(tf32_matmul)}},
    {.name = "tf32x3", .base = "fast", .needs = NEEDS_GPU, .min_cc = 80, .min_cc_what = "TF32 tensor cores",
     .matmul_reuse = 0,
     .summary = "GPU: cuk's 3xTF32 tensor-core product (big+small split, corrections summed apart): FP32 accuracy",
     .ops = {.matmul = GPU_OP(tf32x3_matmul)}},
    /* FP32 from the INT8 tensor cores, which came with Turing (7.5). Held
     * back until tests/gpu/ozaki.c has passed on a GPU. */
    {.name = "ozaki", .base = "fast", .needs = NEEDS_GPU, .min_cc = 75, .min_cc_what = "INT8 tensor cores",
     .matmul_reuse = 0, .load = GPU_OP(cublas_load), .explain = ozaki_explain,
     .unwritten = "not yet checked on a GPU (docs/ozaki.md)",
     .summary = "GPU: FP32 from the INT8 tensor cores (Ozaki's scheme: operands cut in 7-bit slices, exact integer "
                "products)",
     .ops = {.matmul = GPU_OP(ozaki_matmul)}},
    /* Every GPU at once: row slabs in spread memory, NCCL between them; a
     * matrix they cannot hold goes to host memory, where blas's kernels
     * work on it (spill) and the product runs out of core on cuBLASXt. */
    {.name = "multi", .needs = NEEDS_GPU, .spread = 1, .spill = "blas", .matmul_reuse = 0,
     .load = multi_load, .setup = MULTI_OP(multi_setup),
     .summary = "every GPU: row slabs on each, cuBLAS per GPU with B broadcast by NCCL; out of core past them",
     .ops = {MULTI_OP(multi_matmul), MULTI_OP(multi_transpose), MULTI_OP(multi_ewise), MULTI_OP(multi_unary),
             REDUCTIONS(MULTI_OP, multi), MULTI_OP(multi_dot), MULTI_OP(multi_fill), MULTI_OP(multi_eye),
             MULTI_OP(multi_random), MULTI_OP(multi_copy2d)}},
};

#define NMODES ((int)(sizeof table / sizeof table[0]))

static const cuk_backend *running;

void mode_inherit(cuk_ops *m, const cuk_ops *b)
{
#define INHERIT(f) m->f = m->f ? m->f : b->f
    INHERIT(matmul);
    INHERIT(transpose);
    INHERIT(ewise);
    INHERIT(unary);
    for (int r = 0; r < CUK_RED_COUNT; r++)
        INHERIT(reduce[r]);
    INHERIT(dot);
    INHERIT(fill);
    INHERIT(eye);
    INHERIT(random);
    INHERIT(copy2d);
#undef INHERIT
}

static cuk_backend *row_named(const char *name)
{
    for (int i = 0; i < NMODES; i++)
        if (!strcmp(table[i].name, name))
            return &table[i];
    return NULL;
}

/* Fill each row's empty entries from its base chain, nearest base first.
 * A base is an earlier row, so the chain always ends. */
static void resolve(void)
{
    static int done;
    if (done)
        return;
    for (int i = 0; i < NMODES; i++)
        for (const cuk_backend *b = &table[i]; b->base && (b = row_named(b->base)) && b < &table[i];)
            mode_inherit(&table[i].ops, &b->ops);
    done = 1;
}

/* The table's rows, then the user modes (user.h: `kernel "file.cu"`). */
int mode_count(void) { return NMODES + user_mode_count(); }

const cuk_backend *mode_get(int i)
{
    resolve();
    return i >= 0 && i < NMODES ? &table[i] : user_mode_get(i - NMODES);
}

const cuk_backend *mode_find(const char *name)
{
    resolve();
    const cuk_backend *m = row_named(name);
    return m ? m : user_mode_find(name);
}

const char *mode_suggest(const char *name, char *buf, size_t cap)
{
    suggest g;
    suggest_begin(&g, name);
    for (int i = 0; i < mode_count(); i++)
        suggest_offer(&g, mode_get(i)->name);
    return suggest_note(&g, buf, cap);
}

static int holds_reference(const cuk_backend *m) { return m->reference; }
static int holds_baseline(const cuk_backend *m) { return m->baseline; }
static int holds_start(const cuk_backend *m) { return m->start; }

/* The row that holds a role; the first row if none does. */
static const cuk_backend *row_holding(int (*holds)(const cuk_backend *))
{
    resolve();
    for (int i = 0; i < NMODES; i++)
        if (holds(&table[i]))
            return &table[i];
    return &table[0];
}

const cuk_backend *mode_reference(void) { return row_holding(holds_reference); }

const cuk_backend *mode_baseline(void) { return row_holding(holds_baseline); }

const cuk_backend *mode_start(int gpu) { return row_holding(gpu ? holds_start : holds_reference); }

const char *mode_cc_refusal(const cuk_backend *m, int cc_major, int cc_minor)
{
    static char msg[160];
    if (cc_major * 10 + cc_minor >= m->min_cc)
        return NULL;
    snprintf(msg, sizeof msg, "mode %s needs %s, which came with compute capability %d.%d; this GPU is %d.%d",
             m->name, m->min_cc_what ? m->min_cc_what : "a newer GPU", m->min_cc / 10, m->min_cc % 10, cc_major,
             cc_minor);
    return msg;
}

/* 1 if this GPU (if any) is new enough for the row; else 0 and *why says
 * so (mode_cc_refusal). */
static int cc_enough(const cuk_backend *m, const char **why)
{
    const gpu_info *d = m->min_cc ? gpu_device() : NULL;
    const char *no = d ? mode_cc_refusal(m, d->cc_major, d->cc_minor) : NULL;
    if (no)
        *why = no;
    return no == NULL;
}

int mode_available(const cuk_backend *m, const char **why)
{
    const char *no = m->unwritten;
    if (m->needs == NEEDS_GPU && !gpu_usable(&no))
        ;
    else if (!cc_enough(m, &no))
        ;
    else if (m->needs == NEEDS_BLAS && !blas_linked(&no))
        ;
    else if (m->load && !m->load(&no))
        ;
    else
        no = m->unwritten;
    if (no && why)
        *why = no;
    return no == NULL;
}

void mode_enter(const cuk_backend *m) { running = m; }

const cuk_backend *mode_running(void) { return running; }
