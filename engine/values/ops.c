/* ops.c - operations on matrices through the current mode's backend
 * (see ops.h). */
#include "engine/values/ops.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/fmt.h"
#include "engine/values/eta.h"
#include "engine/values/place.h"
#include "engine/values/pool.h"
#include "engine/values/timing.h"
#include "engine/values/warm.h"
#include "kernels/host_threads.h"

/* The names timing records show, from the operation lists. */
#define OPLIST_NAME(id, name, ...) name,

static const char *op_ewise_name(cuk_ewop op)
{
    static const char *const n[] = {CUK_EWISE_OPS(OPLIST_NAME)};
    return op < CUK_EW_COUNT ? n[op] : "?";
}

static const char *op_unary_name(cuk_unop op)
{
    static const char *const n[] = {CUK_UNARY_OPS(OPLIST_NAME)};
    return op < CUK_UN_COUNT ? n[op] : "?";
}

static const char *op_reduce_name(cuk_redop op)
{
    static const char *const n[] = {CUK_REDUCE_OPS(OPLIST_NAME)};
    return op < CUK_RED_COUNT ? n[op] : "?";
}

static const char *shape1(char *buf, size_t cap, const cuk_matrix *a)
{
    return fmt_shape(buf, cap, a->rows, a->cols);
}

static const char *shape2(char *buf, size_t cap, const cuk_matrix *a, const char *sep, const cuk_matrix *b)
{
    snprintf(buf, cap, "%dx%d %s %dx%d", a->rows, a->cols, sep, b->rows, b->cols);
    return buf;
}

/* Where a result made by mat_new(be, ...) keeps its data (already there:
 * nothing is copied). */
static float *out_data(cuk_matrix *m, const cuk_backend *be) { return mat_data(m, be); }

/* Close a timed kernel call: the result, or NULL if the kernel failed. */
static cuk_matrix *finish(const cuk_backend *be, cuk_matrix *out, int rc, const char *op, const char *shapes,
                          double flops, double bytes)
{
    timing_op_end(be, op, shapes, flops, bytes);
    if (rc != 0) {
        mat_unref(out);
        return NULL;
    }
    return out;
}

/* be recorded as the mode whose kernels run next, its one-time set-up
 * done first (warm.h): 0, or -1 with the error set. */
static int ready(const cuk_backend *be)
{
    if (warm_mode(be) != 0)
        return -1;
    mode_enter(be);
    return 0;
}

/* A result of rows x cols where be works, be ready to run. */
static cuk_matrix *result(const cuk_backend *be, int rows, int cols)
{
    return ready(be) == 0 ? mat_new(be, rows, cols) : NULL;
}

/* Start out's timing mark; NULL (out released) if it can't be recorded. */
static cuk_matrix *begin(const cuk_backend *be, cuk_matrix *out)
{
    if (out && timing_op_begin(be) != 0) {
        mat_unref(out);
        return NULL;
    }
    return out;
}

/* A spread mode's stand-in on the host (its row's spill), or the
 * reference mode if that one is unavailable. */
static const cuk_backend *spill_mode(const cuk_backend *be)
{
    const cuk_backend *h = be->spill ? mode_find(be->spill) : NULL;
    return h && mode_available(h, NULL) ? h : mode_reference();
}

/* Put the n operands (NULL ones skipped) where be works, each read
 * `part` of (1: whole) by the op, moved between GPUs by place.h's rule:
 * 1 if one of them stays in host memory because be spreads matrices over
 * the GPUs and they cannot hold it, 0 if not, -1 on error. */
static int place(const cuk_backend *be, cuk_matrix *const *ops, int n, double part)
{
    int host = 0;
    for (int i = 0; i < n; i++) {
        int again = 0;
        for (int j = 0; j < i; j++)
            again |= ops[j] == ops[i];
        if (!ops[i] || again)
            continue;
        if (place_for(ops[i], be, part * (double)mat_bytes(ops[i])) != 0 || !mat_data(ops[i], be))
            return -1;
        host |= be->spread && !ops[i]->dev;
    }
    return host;
}

/* The operands placed and the result made for an op of *be (copies counted
 * in the record, before the start mark). Out of core: when a spread mode
 * (multi) cannot hold an operand or the result on the GPUs, *be becomes
 * its host mode, where the op then runs; a result they could not hold is
 * already in host memory (matrix.h), and is kept. NULL with the error set. */
static cuk_matrix *prepare(const cuk_backend **be, cuk_matrix *const *ops, int n, double part, int rows, int cols)
{
    int host = ready(*be) == 0 ? place(*be, ops, n, part) : -1; /* set up before anything moves */
    if (host < 0)
        return NULL;
    cuk_matrix *c = host ? NULL : result(*be, rows, cols);
    if (host || (c && (*be)->spread && !c->dev)) {
        *be = spill_mode(*be);
        if (ready(*be) != 0 || place(*be, ops, n, part) < 0) {
            mat_unref(c);
            return NULL;
        }
        if (!c)
            c = mat_new(*be, rows, cols);
    }
    return c;
}

/* prepare for an op that reads all of one operand (or has none), with its
 * start mark. */
static cuk_matrix *start1(const cuk_backend **be, cuk_matrix *a, int rows, int cols)
{
    return begin(*be, prepare(be, &a, a ? 1 : 0, 1.0, rows, cols));
}

/* A product's operands where be works: each moved between GPUs by what
 * the product reads of it (place.h), then put on the device. */
static int place_product(const cuk_backend *be, cuk_matrix *a, cuk_matrix *b, int m, int n)
{
    double ra = place_product_reads((double)mat_bytes(a), n), rb = place_product_reads((double)mat_bytes(b), m);
    if (place_for(a, be, a == b ? ra + rb : ra) != 0 || (b != a && place_for(b, be, rb) != 0))
        return -1;
    return mat_data(a, be) && mat_data(b, be) ? 0 : -1;
}

/* A one-thread host mode's product runs pinned to its core (host_pin),
 * outside the clock; from this size on, where the two calls' microseconds
 * are lost in the work. */
#define PIN_MIN_FLOPS 1e6

/* 1 if an operand or the result of a spread mode's product is in host
 * memory: the product then runs out of core. */
static int out_of_core(const cuk_backend *be, const cuk_matrix *a, const cuk_matrix *b, const cuk_matrix *c)
{
    return be->spread && (!a->dev || !b->dev || !c->dev);
}

cuk_matrix *op_matmul(const cuk_backend *be, cuk_matrix *a, cuk_matrix *b)
{
    int m = a->rows, k = a->cols, n = b->cols;
    char sh[64];
    host_pinning pin = {.pinned = 0};
    if (ready(be) != 0 || place_product(be, a, b, m, n) != 0) /* set up before anything moves */
        return NULL;
    const float *pa = mat_data(a, be), *pb = mat_data(b, be);
    cuk_matrix *c = result(be, m, n);
    if (c && warm_matmul(be, out_data(c, be), pa, pb, m, n, k, out_of_core(be, a, b, c)) != 0) { /* untimed */
        mat_unref(c);
        return NULL;
    }
    if (c && be->needs == NEEDS_HOST && 2.0 * m * n * k >= PIN_MIN_FLOPS)
        host_pin(&pin);
    if (!(c = begin(be, c))) {
        host_unpin(&pin);
        return NULL;
    }
    eta_matmul_begin(be, m, n, k);
    int rc = be->ops.matmul(out_data(c, be), pa, pb, m, n, k);
    eta_matmul_end(be, rc == 0);
    c = finish(be, c, rc, "matmul", shape2(sh, sizeof sh, a, "@", b), 2.0 * m * n * k,
               4.0 * ((double)m * k + (double)k * n + (double)m * n));
    host_unpin(&pin);
    return c;
}

/* An elementwise operand: a 1x1 with a host copy goes by value, so a GPU
 * kernel needs no upload for `2 * A`. */
static int ewise_arg(const cuk_backend *be, cuk_matrix *x, int bcast, cuk_arg *arg)
{
    arg->bcast = bcast;
    arg->p = NULL;
    arg->v = 0;
    if (bcast && x->host) {
        arg->v = x->host[0];
        return 0;
    }
    return (arg->p = mat_data(x, be)) ? 0 : -1;
}

cuk_matrix *op_ewise(const cuk_backend *be, cuk_ewop op, cuk_matrix *a, cuk_matrix *b)
{
    const cuk_matrix *big = mat_numel(a) >= mat_numel(b) ? a : b;
    size_t n = mat_numel(big);
    char sh[64];
    cuk_arg pa, pb;
    int bca = mat_numel(a) == 1 && n > 1, bcb = mat_numel(b) == 1 && n > 1;
    cuk_matrix *ops[2] = {bca ? NULL : a, bcb ? NULL : b};
    cuk_matrix *c = prepare(&be, ops, 2, 1.0, big->rows, big->cols);
    if (c && (ewise_arg(be, a, bca, &pa) != 0 || ewise_arg(be, b, bcb, &pb) != 0)) {
        mat_unref(c);
        return NULL;
    }
    if (!(c = begin(be, c)))
        return NULL;
    int rc = be->ops.ewise(op, out_data(c, be), pa, pb, n);
    return finish(be, c, rc, op_ewise_name(op), shape2(sh, sizeof sh, a, ",", b), (double)n,
                  4.0 * ((double)mat_numel(a) + (double)mat_numel(b) + (double)n));
}

cuk_matrix *op_unary(const cuk_backend *be, cuk_unop op, cuk_matrix *a)
{
    size_t n = mat_numel(a);
    char sh[32];
    cuk_matrix *c = start1(&be, a, a->rows, a->cols);
    if (!c)
        return NULL;
    const float *pa = mat_data(a, be);
    int rc = be->ops.unary(op, out_data(c, be), pa, n);
    return finish(be, c, rc, op_unary_name(op), shape1(sh, sizeof sh, a), (double)n, 8.0 * (double)n);
}

cuk_matrix *op_transpose(const cuk_backend *be, cuk_matrix *a)
{
    char sh[32];
    cuk_matrix *c = start1(&be, a, a->cols, a->rows);
    if (!c)
        return NULL;
    const float *pa = mat_data(a, be);
    int rc = be->ops.transpose(out_data(c, be), pa, a->rows, a->cols);
    return finish(be, c, rc, "transpose", shape1(sh, sizeof sh, a), 0, 8.0 * (double)mat_numel(a));
}

cuk_matrix *op_reduce(const cuk_backend *be, cuk_redop op, cuk_matrix *a)
{
    size_t n = mat_numel(a);
    char sh[32];
    cuk_matrix *c = start1(&be, a, 1, 1);
    if (!c)
        return NULL;
    const float *pa = mat_data(a, be);
    int rc = be->ops.reduce[op](out_data(c, be), pa, n);
    return finish(be, c, rc, op_reduce_name(op), shape1(sh, sizeof sh, a), op == CUK_RED_NORM ? 2.0 * n : (double)n,
                  4.0 * (double)n);
}

cuk_matrix *op_dot(const cuk_backend *be, cuk_matrix *a, cuk_matrix *b)
{
    size_t n = mat_numel(a);
    char sh[64];
    cuk_matrix *ops[2] = {a, b};
    cuk_matrix *c = begin(be, prepare(&be, ops, 2, 1.0, 1, 1));
    if (!c)
        return NULL;
    const float *pa = mat_data(a, be), *pb = mat_data(b, be);
    int rc = be->ops.dot(out_data(c, be), pa, pb, n);
    /* dot(x, x) reads x once */
    return finish(be, c, rc, "dot", shape2(sh, sizeof sh, a, ",", b), 2.0 * n, (pa == pb ? 4.0 : 8.0) * n);
}

cuk_matrix *op_fill(const cuk_backend *be, int rows, int cols, float v)
{
    char sh[32];
    cuk_matrix *c = start1(&be, NULL, rows, cols);
    if (!c)
        return NULL;
    int rc = be->ops.fill(out_data(c, be), v, mat_numel(c));
    return finish(be, c, rc, "fill", shape1(sh, sizeof sh, c), 0, 4.0 * (double)mat_numel(c));
}

cuk_matrix *op_eye(const cuk_backend *be, int rows, int cols)
{
    char sh[32];
    cuk_matrix *c = start1(&be, NULL, rows, cols);
    if (!c)
        return NULL;
    int rc = be->ops.eye(out_data(c, be), rows, cols);
    return finish(be, c, rc, "eye", shape1(sh, sizeof sh, c), 0, 4.0 * (double)mat_numel(c));
}

cuk_matrix *op_random(const cuk_backend *be, cuk_dist dist, int rows, int cols, uint64_t seed, uint64_t stream)
{
    char sh[32];
    cuk_matrix *c = start1(&be, NULL, rows, cols);
    if (!c)
        return NULL;
    int rc = be->ops.random(dist, out_data(c, be), mat_numel(c), seed, stream);
    return finish(be, c, rc, dist == CUK_RAND_NORMAL ? "randn" : "rand", shape1(sh, sizeof sh, c), 0,
                  4.0 * (double)mat_numel(c));
}

cuk_matrix *op_slice(const cuk_backend *be, cuk_matrix *a, int r0, int nr, int c0, int nc)
{
    char sh[32];
    /* a slice reads its part of a: a small one never moves a */
    double part = (double)nr * nc / (double)mat_numel(a);
    cuk_matrix *c = begin(be, prepare(&be, &a, 1, part, nr, nc));
    if (!c)
        return NULL;
    const float *pa = mat_data(a, be);
    int rc = be->ops.copy2d(out_data(c, be), (size_t)nc, pa + (size_t)r0 * a->cols + c0, (size_t)a->cols, nr, nc);
    return finish(be, c, rc, "slice", shape1(sh, sizeof sh, c), 0, 8.0 * (double)mat_numel(c));
}

cuk_matrix *op_concat(const cuk_backend *be, const op_block *blocks, size_t nblocks, int rows, int cols)
{
    char sh[32];
    cuk_matrix **ops = malloc(nblocks * sizeof *ops);
    if (!ops)
        return cuk_err("out of host memory"), NULL;
    for (size_t i = 0; i < nblocks; i++) /* move every block first, so the copies are the only timed work */
        ops[i] = blocks[i].m;
    cuk_matrix *c = begin(be, prepare(&be, ops, (int)nblocks, 1.0, rows, cols));
    free(ops);
    if (!c)
        return NULL;
    float *dst = out_data(c, be);
    int rc = 0;
    for (size_t i = 0; i < nblocks && rc == 0; i++) {
        cuk_matrix *m = blocks[i].m;
        rc = be->ops.copy2d(dst + blocks[i].row * (size_t)cols + blocks[i].col, (size_t)cols, mat_data(m, be),
                        (size_t)m->cols, m->rows, m->cols);
    }
    return finish(be, c, rc, "concat", shape1(sh, sizeof sh, c), 0, 8.0 * (double)mat_numel(c));
}
