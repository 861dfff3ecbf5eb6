/* user_modes.c - the user modes (user.h): a few slots, each a row like
 * modes.c's, whose product, transpose, elementwise, unary and reduction
 * entries run the file's kernels in the helper process (user_client.h)
 * where the file defines them, and are the base mode's elsewhere. A slot's
 * entries are functions of their own (made by SLOT_OPS), since an op is
 * called without its mode. Every first result of a shape is checked
 * (user_check.h) before it is handed over. */
#include "kernels/user.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernels/gpu.h"
#include "kernels/user_check.h"
#include "kernels/user_client.h"

/* Shapes a slot remembers as checked, per entry point and shape. */
#define CHECKED 64

typedef struct {
    cuk_backend row;
    char summary[400];
    char file[256];
    char *src;                 /* the file as compiled: launch lines are quoted from it */
    size_t len;
    user_build build;
    const cuk_backend *base;
    user_kernel_facts facts[USER_ENTRIES];
    int have_facts;
    struct {
        int e;
        long long vals[3];
    } checked[CHECKED];
    int nchecked, next_checked;
} user_slot;

static struct {
    user_slot slot[USER_MAX_MODES];
    int n;
    double ms;                 /* user kernel time since the last take; < 0 none */
    double timeout_s;
} U = {.ms = -1, .timeout_s = 5};

/* ---- settings and the clock ---- */

double user_timeout(void) { return U.timeout_s; }

int user_timeout_set(double seconds)
{
    if (!(seconds >= 0.1 && seconds <= 86400))
        return cuk_err("set: kernel timeout takes seconds, from 0.1 to 86400");
    U.timeout_s = seconds;
    return 0;
}

double user_kernel_ms_take(void)
{
    double ms = U.ms;
    U.ms = -1;
    return ms;
}

int user_helper_main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], USER_HELPER_FLAG))
        return -1;
    return uc_helper_serve();
}

/* ---- the slots ---- */

int user_mode_count(void) { return U.n; }

const cuk_backend *user_mode_get(int i) { return i >= 0 && i < U.n ? &U.slot[i].row : NULL; }

static user_slot *slot_named(const char *name)
{
    for (int i = 0; i < U.n; i++)
        if (!strcmp(U.slot[i].build.name, name))
            return &U.slot[i];
    return NULL;
}

const cuk_backend *user_mode_find(const char *name)
{
    user_slot *s = slot_named(name);
    return s ? &s->row : NULL;
}

static user_slot *slot_of(const cuk_backend *m)
{
    for (int i = 0; i < U.n; i++)
        if (&U.slot[i].row == m)
            return &U.slot[i];
    return NULL;
}

static int slot_index(const user_slot *s) { return (int)(s - U.slot); }

const user_build *user_mode_build(const cuk_backend *m, const char **src, size_t *len)
{
    user_slot *s = slot_of(m);
    if (s && src)
        *src = s->src, *len = s->len;
    return s ? &s->build : NULL;
}

int user_mode_facts(const cuk_backend *m, int e, user_kernel_facts *f)
{
    user_slot *s = slot_of(m);
    if (!s || !s->have_facts || !s->build.defined[e])
        return 0;
    *f = s->facts[e];
    return 1;
}

/* "mode my_mm: cuk_matmul" */
static const char *who(const user_slot *s, int e, char *buf, size_t cap)
{
    snprintf(buf, cap, "mode %s: %s", s->build.name, user_entry_get(e)->name);
    return buf;
}

/* ---- running one kernel ---- */

/* The engine's warm-up (engine/values/warm.c) runs every op of a mode once
 * with no mode entered: a user op then only loads its module, which is the
 * set-up the warm-up keeps out of the clock, and computes nothing. */
static int warming(void) { return mode_running() == NULL; }

/* The slot's module loaded in the helper: 0 to run the kernel, 1 to skip
 * it (the warm-up), or -1 with the error set. */
static int ready(user_slot *s)
{
    if (!uc_loaded(slot_index(s))) {
        if (uc_load(slot_index(s), s->build.image, s->build.image_len, s->build.defined, s->facts) != 0)
            return -1;
        s->have_facts = 1;
    }
    return warming();
}

/* 1 the first time entry e runs at the shape vals (its int parameters)
 * since its file was loaded: its result is then checked. */
static int first_time(const user_slot *s, int e, const long long *vals)
{
    int n = user_kind_get(user_entry_get(e)->kind)->nints;
    for (int i = 0; i < s->nchecked; i++)
        if (s->checked[i].e == e && !memcmp(s->checked[i].vals, vals, (size_t)n * sizeof *vals))
            return 0;
    return 1;
}

static void mark_checked(user_slot *s, int e, const long long *vals)
{
    int i = s->nchecked < CHECKED ? s->nchecked++ : s->next_checked++ % CHECKED;
    s->checked[i].e = e;
    memset(s->checked[i].vals, 0, sizeof s->checked[i].vals);
    memcpy(s->checked[i].vals, vals, (size_t)user_kind_get(user_entry_get(e)->kind)->nints * sizeof *vals);
}

/* The run's faults in the user's words: 0 if it went well, else -1 with
 * the error set. shape names what it ran on ("17x65 @ 65x33"). */
static int run_error(const user_slot *s, const uc_request *r, const uc_result *res, const char *shape)
{
    const user_kind_info *k = user_kind_get(user_entry_get(r->entry)->kind);
    char w[96];
    who(s, r->entry, w, sizeof w);
    switch (res->status) {
    case UC_OK: return 0;
    case UC_CANCELLED: return -1;
    case UC_REFUSED:
        return cuk_err("%s at %s: the launch (grid %ux%ux%u, block %ux%ux%u, %zu B of shared memory) was refused: %s", w,
                       shape, r->g.grid[0], r->g.grid[1], r->g.grid[2], r->g.block[0], r->g.block[1], r->g.block[2],
                       r->g.smem, res->why);
    case UC_GUARD:
        return cuk_err("%s at %s wrote %s %s (%zu float%s): %zu to %zu floats %s it; the result was not kept", w,
                       shape, res->guard_before ? "before the start of" : "past the end of", k->buf[res->guard_buf],
                       r->bytes[res->guard_buf] / sizeof(float), r->bytes[res->guard_buf] == sizeof(float) ? "" : "s",
                       res->guard_near, res->guard_far, res->guard_before ? "before" : "past");
    case UC_FAULT:
        return cuk_err("%s at %s failed: %s. It ran in cuk's kernel helper process, which has ended: the session's "
                       "matrices are untouched, and the next user kernel starts a new helper", w, shape, res->why);
    case UC_TIMEOUT:
        return cuk_err("%s at %s ran past the kernel timeout (%g s) and was stopped with its helper process; the "
                       "session's matrices are untouched (`set kernel timeout S` allows longer)", w, shape, U.timeout_s);
    case UC_ENDED:
        return cuk_err("%s at %s: cuk's kernel helper process ended while it ran (%s); the session's matrices are "
                       "untouched", w, shape, res->why);
    }
    return -1;
}

/* The launch's `kernels` row, under the user mode. */
static void record_launch(const user_slot *s, const uc_request *r, const uc_result *res)
{
    gpu_kernel_row row;
    memset(&row, 0, sizeof row);
    row.name = user_entry_get(r->entry)->name;
    memcpy(row.grid, r->g.grid, sizeof row.grid);
    memcpy(row.block, r->g.block, sizeof row.block);
    row.dyn_smem = r->g.smem;
    row.regs = s->facts[r->entry].regs;
    row.static_smem = (size_t)s->facts[r->entry].static_smem;
    row.blocks_per_sm = res->blocks_per_sm;
    gpu_kernel_ran_elsewhere(&s->row, &row);
}

/* Entry e of slot s on request r (its buffers set), at the values of its
 * int parameters: the geometry, the run, its faults; its time added to
 * the clock. 0, or -1 with the error set. */
static int launch(user_slot *s, uc_request *r, const long long *vals, const char *shape)
{
    char why[320], w[96];
    const user_kind_info *k = user_kind_get(user_entry_get(r->entry)->kind);
    if (ul_geometry_of(&s->build.launch, r->entry, vals, &r->g, why, sizeof why) != 0)
        return cuk_err("%s: %s", who(s, r->entry, w, sizeof w), why);
    unsigned threads = r->g.block[0] * r->g.block[1] * r->g.block[2];
    const user_kernel_facts *f = &s->facts[r->entry];
    if (f->max_threads > 0 && threads > (unsigned)f->max_threads)
        return cuk_err("%s: a block of %u threads, but it uses %d registers a thread, which allows at most %d",
                       who(s, r->entry, w, sizeof w), threads, f->regs, f->max_threads);
    for (int i = 0; i < k->nints; i++)
        r->ints[i] = (int)vals[i];
    r->slot = slot_index(s);
    r->nbufs = k->nbufs;
    uc_result res;
    if (uc_run(r, &res) != 0 || run_error(s, r, &res, shape) != 0)
        return -1;
    U.ms = (U.ms > 0 ? U.ms : 0) + res.ms;
    record_launch(s, r, &res);
    return 0;
}

/* Host copies of the session's buffers (NULL ones skipped), for a check. */
static int to_host(float **host, const float *const *dev, const size_t *bytes, int n)
{
    for (int i = 0; i < n; i++) {
        host[i] = NULL;
        if (!dev[i] && i > 0)
            continue;
        if (!(host[i] = malloc(bytes[i] ? bytes[i] : 1)))
            return cuk_err("out of host memory");
        if ((i == 0 ? uc_fetch(host[i], bytes[i]) : gpu_d2h(host[i], dev[i], bytes[i])) != 0)
            return -1;
    }
    return 0;
}

/* A failed check as the error: -1. */
static int wrong(const user_slot *s, int e, const char *shape, const char *why)
{
    char w[96];
    return cuk_err("%s gave a wrong result at %s: %s; the result was not kept", who(s, e, w, sizeof w), shape, why);
}

/* ---- the entries ---- */

/* A check of a first result: 0 right, 1 wrong (why says how), -1 error. */
typedef int check_fn(const uc_request *r, const long long *vals, char *why, size_t cap);

/* Entry r->entry on request r (its buffers set) at the values of its int
 * parameters: run; its first result at this shape checked; handed over
 * into out. shape names the shape in messages. */
static int run_entry(user_slot *s, uc_request *r, const long long *vals, const char *shape, check_fn *check,
                     float *out)
{
    char why[480];
    int skip = ready(s);
    if (skip != 0)
        return skip > 0 ? 0 : -1;
    if (launch(s, r, vals, shape) != 0)
        return -1;
    if (first_time(s, r->entry, vals)) {
        int bad = check(r, vals, why, sizeof why);
        if (bad != 0)
            return bad > 0 ? wrong(s, r->entry, shape, why) : -1;
        mark_checked(s, r->entry, vals);
    }
    return uc_deliver(out, r->bytes[0]);
}

/* The request of entry e (nothing set apart), or -1 if the file does not
 * define it or the shape is empty (the base mode does those). */
static int request_for(const user_slot *s, uc_request *r, int e, size_t elements)
{
    memset(r, 0, sizeof *r);
    r->entry = e;
    return e >= 0 && s->build.defined[e] && elements > 0 ? 0 : -1;
}

/* The check's host copies: the helper's output, the session's inputs. */
static int check_matmul(const uc_request *r, const long long *v, char *why, size_t cap)
{
    float *h[3] = {NULL, NULL, NULL};
    int rc = to_host(h, r->src, r->bytes, 3);
    if (rc == 0)
        rc = ucheck_matmul(h[0], h[1], h[2], (int)v[0], (int)v[1], (int)v[2], why, cap) != 0;
    for (int i = 0; i < 3; i++)
        free(h[i]);
    return rc;
}

static int check_transpose(const uc_request *r, const long long *v, char *why, size_t cap)
{
    float *h[2] = {NULL, NULL};
    int rc = to_host(h, r->src, r->bytes, 2);
    if (rc == 0)
        rc = ucheck_transpose(h[0], h[1], (int)v[0], (int)v[1], why, cap) != 0;
    free(h[0]), free(h[1]);
    return rc;
}

static int run_matmul(user_slot *s, float *c, const float *a, const float *b, int m, int n, int k)
{
    uc_request r;
    char shape[64];
    if (request_for(s, &r, user_entry_of(UE_MATMUL, 0), (size_t)m * n * k) != 0)
        return s->base->ops.matmul(c, a, b, m, n, k);
    r.bytes[0] = (size_t)m * n * sizeof(float), r.bytes[1] = (size_t)m * k * sizeof(float);
    r.bytes[2] = (size_t)k * n * sizeof(float);
    r.src[1] = a, r.src[2] = b;
    long long vals[3] = {m, n, k};
    snprintf(shape, sizeof shape, "%dx%d @ %dx%d", m, k, k, n);
    return run_entry(s, &r, vals, shape, check_matmul, c);
}

static int run_transpose(user_slot *s, float *out, const float *in, int rows, int cols)
{
    uc_request r;
    char shape[64];
    if (request_for(s, &r, user_entry_of(UE_TRANSPOSE, 0), (size_t)rows * cols) != 0)
        return s->base->ops.transpose(out, in, rows, cols);
    r.bytes[0] = r.bytes[1] = (size_t)rows * cols * sizeof(float);
    r.src[1] = in;
    long long vals[2] = {rows, cols};
    snprintf(shape, sizeof shape, "%dx%d", rows, cols);
    return run_entry(s, &r, vals, shape, check_transpose, out);
}

/* An operand given as one value (a 1x1 beside a larger matrix): its value. */
static int scalar_value(cuk_arg x, float *v)
{
    *v = x.v;
    return x.p ? gpu_d2h(v, x.p, sizeof *v) : 0;
}

/* Host copies of a vector entry's inputs, a scalar one expanded, and its
 * output. */
static int vector_inputs(const uc_request *r, size_t n, float **h)
{
    for (int i = 1; i < r->nbufs; i++) {
        if (!(h[i] = malloc(r->bytes[i])))
            return cuk_err("out of host memory");
        if (r->src[i] && gpu_d2h(h[i], r->src[i], r->bytes[i]) != 0)
            return -1;
        for (size_t j = 0; !r->src[i] && j < n; j++)
            h[i][j] = r->fill[i];
    }
    return (h[0] = malloc(r->bytes[0])) ? uc_fetch(h[0], r->bytes[0]) : cuk_err("out of host memory");
}

static int check_vector(const uc_request *r, const long long *v, char *why, size_t cap)
{
    float *h[3] = {NULL, NULL, NULL};
    size_t n = (size_t)v[0];
    const user_entry *en = user_entry_get(r->entry);
    int rc = vector_inputs(r, n, h);
    if (rc == 0 && en->kind == UE_EWISE)
        rc = ucheck_ewise((cuk_ewop)en->op, h[0], h[1], h[2], n, why, cap) != 0;
    else if (rc == 0 && en->kind == UE_UNARY)
        rc = ucheck_unary((cuk_unop)en->op, h[0], h[1], n, why, cap) != 0;
    else if (rc == 0)
        rc = ucheck_reduce((cuk_redop)en->op, h[0][0], r->init, h[1], n, why, cap) != 0;
    for (int i = 0; i < 3; i++)
        free(h[i]);
    return rc;
}

/* An elementwise, unary or reduction entry over n elements (an int). */
static int run_vector(user_slot *s, uc_request *r, size_t n, float *out)
{
    char shape[48], w[96];
    long long vals[1] = {(long long)n};
    if (n > INT_MAX)
        return cuk_err("%s takes an int n, and this has %zu elements (more than 2^31 - 1)",
                       who(s, r->entry, w, sizeof w), n);
    r->bytes[1] = r->bytes[2] = n * sizeof(float);
    snprintf(shape, sizeof shape, "%zu elements", n);
    return run_entry(s, r, vals, shape, check_vector, out);
}

static int run_ewise(user_slot *s, cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n)
{
    uc_request r;
    if (request_for(s, &r, user_entry_of(UE_EWISE, op), n) != 0)
        return s->base->ops.ewise(op, out, a, b, n);
    r.bytes[0] = n * sizeof(float);
    r.src[1] = a.bcast ? NULL : a.p, r.src[2] = b.bcast ? NULL : b.p;
    if ((a.bcast && scalar_value(a, &r.fill[1]) != 0) || (b.bcast && scalar_value(b, &r.fill[2]) != 0))
        return -1;
    return run_vector(s, &r, n, out);
}

static int run_unary(user_slot *s, cuk_unop op, float *out, const float *in, size_t n)
{
    uc_request r;
    if (request_for(s, &r, user_entry_of(UE_UNARY, op), n) != 0)
        return s->base->ops.unary(op, out, in, n);
    r.bytes[0] = n * sizeof(float);
    r.src[1] = in;
    return run_vector(s, &r, n, out);
}

static int run_reduce(user_slot *s, cuk_redop op, float *out, const float *in, size_t n)
{
    uc_request r;
    if (request_for(s, &r, user_entry_of(UE_REDUCE, op), n) != 0)
        return s->base->ops.reduce[op](out, in, n);
    r.bytes[0] = sizeof(float);
    r.src[1] = in;
    r.init_out = 1;
    r.init = user_entry_get(r.entry)->init;
    return run_vector(s, &r, n, out);
}

/* Slot i's entry for one kind of reduction (each kind is a slot of cuk_ops). */
#define SLOT_REDUCE(i, kind, op)                                                                                 \
    static int reduce_##kind##_##i(float *out, const float *in, size_t n)                                       \
    {                                                                                                            \
        return run_reduce(&U.slot[i], op, out, in, n);                                                           \
    }

/* Each slot's entries, calling the above with the slot. */
#define SLOT_OPS(i)                                                                                              \
    static int matmul_##i(float *c, const float *a, const float *b, int m, int n, int k)                      \
    {                                                                                                            \
        return run_matmul(&U.slot[i], c, a, b, m, n, k);                                                         \
    }                                                                                                            \
    static int transpose_##i(float *out, const float *in, int rows, int cols)                                   \
    {                                                                                                            \
        return run_transpose(&U.slot[i], out, in, rows, cols);                                                   \
    }                                                                                                            \
    static int ewise_##i(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n)                               \
    {                                                                                                            \
        return run_ewise(&U.slot[i], op, out, a, b, n);                                                          \
    }                                                                                                            \
    static int unary_##i(cuk_unop op, float *out, const float *in, size_t n)                                    \
    {                                                                                                            \
        return run_unary(&U.slot[i], op, out, in, n);                                                            \
    }                                                                                                            \
    SLOT_REDUCE(i, sum, CUK_RED_SUM)                                                                             \
    SLOT_REDUCE(i, mean, CUK_RED_MEAN)                                                                           \
    SLOT_REDUCE(i, norm, CUK_RED_NORM)                                                                           \
    SLOT_REDUCE(i, min, CUK_RED_MIN)                                                                             \
    SLOT_REDUCE(i, max, CUK_RED_MAX)
SLOT_OPS(0)
SLOT_OPS(1)
SLOT_OPS(2)
SLOT_OPS(3)
SLOT_OPS(4)
SLOT_OPS(5)
SLOT_OPS(6)
SLOT_OPS(7)
SLOT_OPS(8)
SLOT_OPS(9)
SLOT_OPS(10)
SLOT_OPS(11)
SLOT_OPS(12)
SLOT_OPS(13)
SLOT_OPS(14)
SLOT_OPS(15)

#define SLOT_ROW(i)                                                                                              \
    {matmul_##i, transpose_##i, ewise_##i, unary_##i,                                                            \
     {reduce_sum_##i, reduce_mean_##i, reduce_norm_##i, reduce_min_##i, reduce_max_##i},                         \
     NULL, NULL, NULL, NULL, NULL}
static const cuk_ops slot_ops[USER_MAX_MODES] = {
    SLOT_ROW(0),  SLOT_ROW(1),  SLOT_ROW(2),  SLOT_ROW(3),  SLOT_ROW(4),  SLOT_ROW(5),  SLOT_ROW(6),  SLOT_ROW(7),
    SLOT_ROW(8),  SLOT_ROW(9),  SLOT_ROW(10), SLOT_ROW(11), SLOT_ROW(12), SLOT_ROW(13), SLOT_ROW(14), SLOT_ROW(15)};
_Static_assert(USER_MAX_MODES == 16, "SLOT_OPS makes the entries of 16 slots");

/* ---- registering ---- */

/* 1 if the build defines an entry of kind k. */
static int defines(const user_build *b, user_kind k)
{
    for (int e = 0; e < user_entry_count(); e++)
        if (b->defined[e] && user_entry_get(e)->kind == k)
            return 1;
    return 0;
}

/* "cuk_matmul, cuk_sum" */
static const char *entry_names(const user_build *b, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int e = 0; e < user_entry_count() && n < cap; e++)
        if (b->defined[e])
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", user_entry_get(e)->name);
    return buf;
}

/* The slot's row from its build: the base's resolved entries, the file's
 * kinds of operation in place of them. */
static void make_row(user_slot *s, int i)
{
    char names[160];
    const user_build *b = &s->build;
    cuk_backend *r = &s->row;
    memset(r, 0, sizeof *r);
    r->name = b->name;
    r->base = s->base->name;
    r->needs = NEEDS_GPU;
    r->min_cc = s->base->min_cc;
    r->min_cc_what = s->base->min_cc_what;
    r->load = s->base->load; /* its borrowed entries may need the base's library */
    r->matmul_reuse = b->launch.reuse;
    snprintf(s->summary, sizeof s->summary, "%s's kernels (%s); the rest from %s", s->file,
             entry_names(b, names, sizeof names), s->base->name);
    r->summary = s->summary;
    r->ops = s->base->ops;
    if (b->defined[user_entry_of(UE_MATMUL, 0)])
        r->ops.matmul = slot_ops[i].matmul;
    if (b->defined[user_entry_of(UE_TRANSPOSE, 0)])
        r->ops.transpose = slot_ops[i].transpose;
    if (defines(b, UE_EWISE))
        r->ops.ewise = slot_ops[i].ewise;
    if (defines(b, UE_UNARY))
        r->ops.unary = slot_ops[i].unary;
    for (int k = 0; k < CUK_RED_COUNT; k++) { /* each kind the file defines; the others stay the base's */
        int e = user_entry_of(UE_REDUCE, k);
        if (e >= 0 && b->defined[e])
            r->ops.reduce[k] = slot_ops[i].reduce[k];
    }
}

/* The slot the build goes to: its name's, or a new one. NULL with the
 * error set if the name is a built-in mode's or the slots are full. */
static user_slot *slot_for(const char *name, int *replaced)
{
    user_slot *s = slot_named(name);
    *replaced = s != NULL;
    if (s)
        return s;
    if (mode_find(name))
        return cuk_err("kernel: %s is the name of a built-in mode; rename the file", name), NULL;
    if (U.n == USER_MAX_MODES)
        return cuk_err("kernel: at most %d user modes; load a file of an existing one's name to replace it",
                       USER_MAX_MODES), NULL;
    return &U.slot[U.n];
}

/* With a GPU here, the build's module loaded in the helper in slot i
 * (it replaces what the slot had there), its facts into facts. 0 if
 * there is no GPU (loaded when first run), or -1 with the error set. */
static int load_now(int i, const user_build *b, user_kernel_facts *facts, int *have)
{
    *have = 0;
    if (!gpu_usable(NULL))
        return 0;
    if (uc_load(i, b->image, b->image_len, b->defined, facts) != 0)
        return -1;
    *have = 1;
    return 0;
}

int user_mode_register(user_build *b, const char *file, const char *src, size_t len, const cuk_backend **mode,
                       int *replaced)
{
    user_kernel_facts facts[USER_ENTRIES];
    int have = 0;
    user_slot *s = slot_for(b->name, replaced);
    if (!s)
        return -1;
    char *copy = malloc(len + 1);
    if (!copy)
        return cuk_err("out of host memory");
    memcpy(copy, src, len);
    copy[len] = '\0';
    memset(facts, 0, sizeof facts);
    if (load_now(slot_index(s), b, facts, &have) != 0) {
        free(copy); /* the slot's own module is loaded again when next run */
        return -1;
    }
    if (*replaced) {
        user_build_free(&s->build);
        free(s->src);
        gpu_kernels_forget(&s->row);
    } else {
        U.n++;
    }
    s->build = *b;
    b->image = NULL;
    s->src = copy, s->len = len;
    snprintf(s->file, sizeof s->file, "%s", file);
    /* no base named: the mode a session with a GPU starts in */
    s->base = b->launch.base[0] ? mode_find(b->launch.base) : mode_start(1);
    memcpy(s->facts, facts, sizeof facts);
    s->have_facts = have;
    s->nchecked = s->next_checked = 0;
    make_row(s, slot_index(s));
    *mode = &s->row;
    return 0;
}
