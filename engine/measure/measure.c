/* measure.c - timing an expression across modes (see measure.h). */
#include "engine/measure/measure.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/suggest.h"
#include "engine/lang/eval.h"
#include "engine/values/eta.h"
#include "kernels/gpu.h"
#include "kernels/variants.h"

#define MAX_NAMES 32
/* A first run this slow is kept as a measurement: what a first run adds
 * (set-up is already outside the clock) is lost in it, and running it
 * again costs the user seconds. */
#define FIRST_RUN_KEEP_MS 100.0
#define ROUNDS 8

int measure_modes(const stmt *st, const cuk_backend **modes, const char *cmd)
{
    int n = 0;
    for (int i = 0; i < st->narg; i++) {
        const ast *a = st->arg[i];
        if (a->kind != AST_NAME)
            continue;
        if (n == MEASURE_MAX_MODES)
            return cuk_err_at(a->pos, "%s: at most %d modes", cmd, MEASURE_MAX_MODES);
        char note[SUGGEST_NOTE];
        if (!(modes[n++] = mode_find(a->text)))
            return cuk_err_at(a->pos, "%s: unknown mode '%s'%s (see `modes`)", cmd, a->text,
                              mode_suggest(a->text, note, sizeof note));
    }
    if (n > 0)
        return n;
    for (; n < mode_count() && n < MEASURE_MAX_MODES; n++)
        modes[n] = mode_get(n);
    return n;
}

double measure_budget(const char *name, double dflt)
{
    const char *v = getenv(name);
    return v && atof(v) > 0 ? atof(v) : dflt;
}

/* ---- random draws (measure.h) ---- */

void measure_draws_begin(cuk_session *s, measure_draws *d)
{
    d->session = s->draws;
    d->base = MEASURE_STREAMS | s->draws; /* a timing command's streams move with the session's */
    s->draws = d->base;
}

void measure_draws_rewind(cuk_session *s, const measure_draws *d) { s->draws = d->base; }

void measure_draws_end(cuk_session *s, const measure_draws *d) { s->draws = d->session; }

/* ---- samples ---- */

static int push(double **v, int *n, int *cap, double x)
{
    if (*n == *cap) {
        int c = *cap ? *cap * 2 : 64;
        double *p = realloc(*v, (size_t)c * sizeof *p);
        if (!p)
            return cuk_err("out of host memory");
        *v = p;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return 0;
}

/* ---- the operands an expression reads ---- */

typedef struct {
    const char *name[MAX_NAMES];
    int n;
} name_list;

static void collect_names(const ast *e, name_list *l)
{
    if (!e)
        return;
    if (e->kind == AST_NAME) {
        for (int i = 0; i < l->n; i++)
            if (!strcmp(l->name[i], e->text))
                return;
        if (l->n < MAX_NAMES)
            l->name[l->n++] = e->text;
    }
    for (int i = 0; i < e->nkid; i++)
        collect_names(e->kid[i], l);
}

/* A workspace holding a fresh host-only copy of each operand. */
static int fresh_operands(const cuk_session *s, const name_list *l, workspace *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < l->n; i++) {
        cuk_matrix *m = ws_get(&s->ws, l->name[i]), *c;
        if (!m)
            continue; /* eval names it in its error */
        if (!(c = mat_new_host(m->rows, m->cols)) || mat_read(m, 0, mat_numel(m), c->host) != 0 ||
            ws_set(out, l->name[i], c) != 0) {
            mat_unref(c);
            ws_clear(out);
            free(out->e);
            return -1;
        }
    }
    return 0;
}

/* ---- the code a mode runs ---- */

/* Where fn is in names[0..n), or -1. */
static int name_at(const char *fn, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(fn, names[i]))
            return i;
    return -1;
}

#define OPLIST_NAME(id, name, ...) name,

/* The backend function a call runs, NULL for none (size, load); *unknown
 * for a function this list does not know. */
static const void *call_code(const ast *e, const cuk_ops *o, int *unknown)
{
    static const char *const red[] = {CUK_REDUCE_OPS(OPLIST_NAME)}, *const un[] = {CUK_UNARY_OPS(OPLIST_NAME)},
                             *const ew[] = {CUK_EWISE_OPS(OPLIST_NAME)};
    const char *fn = e->text;
    int r = name_at(fn, red, (int)(sizeof red / sizeof red[0]));
    if (e->nkid == 1 && r >= 0)
        return (const void *)o->reduce[r];
    if (name_at(fn, un, (int)(sizeof un / sizeof un[0])) >= 0)
        return (const void *)o->unary;
    if (name_at(fn, ew, (int)(sizeof ew / sizeof ew[0])) >= 0)
        return (const void *)o->ewise;
    if (!strcmp(fn, "dot"))
        return (const void *)o->dot;
    if (!strcmp(fn, "rand") || !strcmp(fn, "randn"))
        return (const void *)o->random;
    if (!strcmp(fn, "zeros") || !strcmp(fn, "ones") || !strcmp(fn, "fill"))
        return (const void *)o->fill;
    if (!strcmp(fn, "eye"))
        return (const void *)o->eye;
    if (!strcmp(fn, "transpose"))
        return (const void *)o->transpose;
    *unknown |= strcmp(fn, "size") && strcmp(fn, "load");
    return NULL;
}

static const void *node_code(const ast *e, const cuk_ops *o, int *unknown)
{
    switch (e->kind) {
    case AST_BINARY: return e->op == TK_AT ? (const void *)o->matmul : (const void *)o->ewise;
    case AST_NEGATE: return e->kid[0]->kind == AST_NUMBER ? NULL : (const void *)o->unary;
    case AST_TRANSPOSE: return (const void *)o->transpose;
    case AST_INDEX:
    case AST_MATRIX: return (const void *)o->copy2d;
    case AST_CALL: return call_code(e, o, unknown);
    default: return NULL;
    }
}

static void code_walk(const ast *e, const cuk_ops *o, unsigned long *h, int *unknown)
{
    const void *f = e ? node_code(e, o, unknown) : NULL;
    if (f) { /* FNV-1a over the function's address */
        uintptr_t v = (uintptr_t)f;
        for (size_t i = 0; i < sizeof v; i++, v >>= 8)
            *h = (*h ^ (v & 0xff)) * 1099511628211ul;
    }
    for (int i = 0; e && i < e->nkid; i++)
        code_walk(e->kid[i], o, h, unknown);
}

unsigned long measure_code(const ast *e, const cuk_backend *be)
{
    unsigned long h = 14695981039346656037ul;
    int unknown = 0;
    code_walk(e, &be->ops, &h, &unknown);
    return unknown ? 0 : h;
}

/* ---- predicting a run ---- */

/* Shapes found without running: e's value's shape, and the time of the
 * products on the way added to *ms. */
typedef struct {
    cuk_session *s;
    const cuk_backend *be;
    double ms;
} predict;

static int shape_of(predict *p, const ast *e, int *rows, int *cols);

/* A dimension given as an argument: a number typed, or a 1x1 variable. */
static int dim_of(predict *p, const ast *e, int *d)
{
    double v = -1;
    float f;
    cuk_matrix *m = e->kind == AST_NAME ? ws_get(&p->s->ws, e->text) : NULL;
    if (e->kind == AST_NUMBER)
        v = e->num;
    else if (m && m->rows == 1 && m->cols == 1 && mat_read(m, 0, 1, &f) == 0)
        v = f;
    if (!(v >= 1 && v <= MAT_MAX_DIM))
        return -1;
    *d = (int)v;
    return 0;
}

/* The shape rand, zeros, eye, fill ... make: () 1x1, (n) n x n, (m, n),
 * fill's (m, n, v). */
static int maker_shape(predict *p, const ast *e, int *rows, int *cols)
{
    int dims = e->nkid - !strcmp(e->text, "fill");
    if (dims == 0)
        return *rows = *cols = 1, 0;
    if (dims > 2 || dim_of(p, e->kid[0], rows) != 0)
        return -1;
    if (dims == 1)
        return *cols = *rows, 0;
    return dim_of(p, e->kid[1], cols);
}

/* The shape a call makes, where its arguments' shapes or its dimensions
 * tell it. */
static int call_shape(predict *p, const ast *e, int *rows, int *cols)
{
    static const char *const makers[] = {"rand", "randn", "zeros", "ones", "eye", "fill"};
    static const char *const red[] = {CUK_REDUCE_OPS(OPLIST_NAME)}, *const un[] = {CUK_UNARY_OPS(OPLIST_NAME)},
                             *const ew[] = {CUK_EWISE_OPS(OPLIST_NAME)};
    int n = e->nkid, r2, c2;
    if (name_at(e->text, makers, (int)(sizeof makers / sizeof makers[0])) >= 0)
        return maker_shape(p, e, rows, cols);
    if (n == 0 || n > 2 || shape_of(p, e->kid[0], rows, cols) != 0)
        return -1;
    if (!strcmp(e->text, "dot") || (n == 1 && name_at(e->text, red, (int)(sizeof red / sizeof red[0])) >= 0))
        return *rows = *cols = 1, 0;
    if (n == 1 && !strcmp(e->text, "transpose"))
        return r2 = *rows, *rows = *cols, *cols = r2, 0;
    if (n == 1 && name_at(e->text, un, (int)(sizeof un / sizeof un[0])) >= 0)
        return 0;
    if (n == 2 && name_at(e->text, ew, (int)(sizeof ew / sizeof ew[0])) >= 0 &&
        shape_of(p, e->kid[1], &r2, &c2) == 0) {
        if ((long long)*rows * *cols == 1) /* a 1x1 broadcasts */
            *rows = r2, *cols = c2;
        return 0;
    }
    return -1;
}

static int shape_of(predict *p, const ast *e, int *rows, int *cols)
{
    int r2, c2;
    cuk_matrix *m;
    switch (e->kind) {
    case AST_NUMBER: *rows = *cols = 1; return 0;
    case AST_NAME:
        if (!(m = ws_get(&p->s->ws, e->text)))
            return -1;
        *rows = m->rows, *cols = m->cols;
        return 0;
    case AST_CALL: return call_shape(p, e, rows, cols);
    case AST_NEGATE: return shape_of(p, e->kid[0], rows, cols);
    case AST_TRANSPOSE:
        if (shape_of(p, e->kid[0], cols, rows) != 0)
            return -1;
        return 0;
    case AST_BINARY:
        if (shape_of(p, e->kid[0], rows, cols) != 0 || shape_of(p, e->kid[1], &r2, &c2) != 0)
            return -1;
        if (e->op == TK_AT) {
            double sec = eta_matmul_seconds(p->be, *rows, c2, *cols);
            if (*cols != r2)
                return -1;
            p->ms += sec > 0 ? sec * 1e3 : 0;
            *cols = c2;
        } else if ((long long)*rows * *cols == 1) {
            *rows = r2, *cols = c2;
        }
        return 0;
    default: return -1; /* indexing and literals: their shapes need their values */
    }
}

double measure_predict_ms(cuk_session *s, const ast *e, const cuk_backend *be)
{
    predict p = {s, be, 0};
    int rows, cols;
    if (eta_matmul_seconds(be, 1, 1, 1) < 0 || shape_of(&p, e, &rows, &cols) != 0)
        return -1;
    return p.ms;
}

/* ---- single runs ---- */

/* One kernel run in s->mode, from the draws at `draws`; the value, or
 * NULL with the error set. */
static cuk_matrix *kernel_run(cuk_session *s, const char *text, size_t len, const ast *e, uint64_t draws)
{
    s->draws = draws;
    timing_begin(text, len, s->mode);
    cuk_matrix *m = eval_expr(s, e);
    if (timing_end(m == NULL) != 0 && m) {
        mat_unref(m);
        m = NULL;
    }
    return m;
}

/* One end-to-end run: fresh host operands swapped in for the names e reads,
 * then copies in, the expression, the result back, on one host clock; from
 * the draws at `draws`. */
static int e2e_run(cuk_session *s, const char *text, size_t len, const ast *e, const name_list *names,
                   uint64_t draws)
{
    workspace fresh, mine = s->ws;
    if (fresh_operands(s, names, &fresh) != 0 || gpu_sync() != 0)
        return -1;
    s->draws = draws;
    s->ws = fresh;
    timing_gate(0); /* the wall time is the measurement: no gate in it */
    timing_begin(text, len, s->mode);
    cuk_matrix *m = eval_expr(s, e);
    int rc = m && mat_host(m) ? 0 : -1;
    if (timing_end(rc != 0) != 0)
        rc = -1;
    timing_gate(1);
    fresh = s->ws;
    s->ws = mine;
    mat_unref(m);
    ws_clear(&fresh);
    free(fresh.e);
    return rc;
}

/* ---- lanes ---- */

static int record_kernel_run(measure_lane *l, int first)
{
    const timing_cmd *c = timing_last();
    int moved = c->h2d || c->d2h;
    l->rec = *c;
    l->slowed |= c->slowed;
    l->run_ms = c->wall_ms;
    l->spent_k += c->wall_ms;
    if (first && (moved || c->wall_ms < FIRST_RUN_KEEP_MS))
        return 0; /* a warm-up: it moved the operands, or it is cheap to repeat */
    if (push(&l->k, &l->nk, &l->cap_k, c->kernel_ms) != 0 || push(&l->w, &l->nw, &l->cap_w, c->wall_ms) != 0)
        return -1;
    if (!mode_on_device(l->be) && !moved) /* on the host a kernel run is end to end */
        return push(&l->e, &l->ne, &l->cap_e, c->wall_ms);
    return 0;
}

static int record_e2e_run(measure_lane *l)
{
    const timing_cmd *c = timing_last();
    l->e2e_ms = c->wall_ms;
    l->spent_e += c->wall_ms;
    l->h2d = (double)c->h2d, l->d2h = (double)c->d2h;
    l->h2d_ms += c->h2d_ms, l->d2h_ms += c->d2h_ms;
    return push(&l->e, &l->ne, &l->cap_e, c->wall_ms);
}

/* Runs of one kind to fill about a round's slice of the share. */
static int batch(double slice_ms, double run_ms, int have, int max_runs)
{
    double n = run_ms > 1e-3 ? ceil(slice_ms / run_ms) : 1000;
    if (n > max_runs - have)
        n = max_runs - have;
    return n < 1 ? 1 : (int)n;
}

static int lane_done(const measure_lane *l, const measure_plan *p)
{
    int k_done = l->nk >= p->max_runs || (l->nk >= p->min_runs && l->spent_k >= p->share_ms / 2);
    int e_done =
        !mode_on_device(l->be) || l->ne >= p->max_runs || (l->ne >= p->min_runs && l->spent_e >= p->share_ms / 2);
    return k_done && e_done;
}

static int lane_round(cuk_session *s, const char *text, size_t len, const ast *e, const name_list *names,
                      measure_lane *l, const measure_plan *p, uint64_t draws)
{
    double slice = p->share_ms / 2 / ROUNDS;
    int nk = batch(slice, l->run_ms, l->nk, p->max_runs);
    for (int i = 0; i < nk && l->nk < p->max_runs; i++) {
        cuk_matrix *m = kernel_run(s, text, len, e, draws);
        if (!m || record_kernel_run(l, 0) != 0) {
            mat_unref(m);
            return -1;
        }
        mat_unref(m);
    }
    if (mode_on_device(l->be)) {
        int ne = batch(slice, l->e2e_ms, l->ne, p->max_runs);
        for (int i = 0; i < ne && l->ne < p->max_runs; i++)
            if (e2e_run(s, text, len, e, names, draws) != 0 || record_e2e_run(l) != 0)
                return -1;
    }
    l->done = lane_done(l, p);
    return 0;
}

/* The first run of each lane: it moves the operands where the mode works
 * and keeps the value. */
static int lane_first(cuk_session *s, const char *text, size_t len, const ast *e, measure_lane *l,
                      const measure_plan *p, uint64_t draws)
{
    cuk_matrix *m = kernel_run(s, text, len, e, draws);
    if (!m || record_kernel_run(l, 1) != 0) {
        mat_unref(m);
        return -1;
    }
    if (p->keep_value)
        l->value = m;
    else
        mat_unref(m);
    l->e2e_ms = l->run_ms;
    return 0;
}

static int all_done(const measure_lane *lanes, int n)
{
    for (int i = 0; i < n; i++)
        if (!lanes[i].done)
            return 0;
    return 1;
}

/* Put the session in the lane's mode, and its switch at the lane's value. */
static void lane_enter(cuk_session *s, const measure_lane *l)
{
    s->mode = l->be;
    if (l->sw)
        variant_set(l->sw->name, l->sw->values[l->choice].value);
}

int measure_run(cuk_session *s, const char *text, size_t len, const ast *e, measure_lane *lanes, int n,
                const measure_plan *p)
{
    const cuk_backend *saved = s->mode, *chosen = s->chosen;
    uint64_t draws = s->draws;
    int switches[VAR_COUNT];
    for (int v = 0; v < VAR_COUNT; v++)
        switches[v] = variant_current(variant_get(v));
    name_list names = {{0}, 0};
    int rc = 0;
    collect_names(e, &names);
    s->chosen = chosen ? chosen : saved; /* the panel's title keeps the user's mode */
    s->measuring = 1;
    timing_kernel_events(1);
    timing_quiet(1);
    for (int i = 0; i < n && rc == 0; i++) {
        lane_enter(s, &lanes[i]);
        rc = lane_first(s, text, len, e, &lanes[i], p, draws);
    }
    while (rc == 0 && !all_done(lanes, n))
        for (int i = 0; i < n && rc == 0; i++)
            if (!lanes[i].done) {
                lane_enter(s, &lanes[i]);
                rc = lane_round(s, text, len, e, &names, &lanes[i], p, draws);
            }
    for (int v = 0; v < VAR_COUNT; v++) /* the user's settings, whatever the lanes did */
        variant_set(variant_get(v)->name, variant_get(v)->values[switches[v]].value);
    timing_quiet(0);
    s->measuring = 0;
    s->mode = saved;
    s->chosen = chosen;
    s->draws = draws;
    return rc;
}

void measure_row(const measure_lane *l, result_row *row)
{
    memset(row, 0, sizeof *row);
    row->mode = l->be;
    if (l->sw)
        snprintf(row->label, sizeof row->label, "%s=%s", l->sw->name, l->sw->values[l->choice].value);
    row->rel_err = NAN;
    stats_summarise(l->k, l->nk, &row->kernel);
    stats_summarise(l->w, l->nw, &row->wall);
    stats_summarise(l->e, l->ne, &row->e2e);
    row->flops = l->rec.flops;
    row->bytes = l->rec.bytes;
    row->slowed = l->slowed;
    if (mode_on_device(l->be) && l->ne > 0) {
        row->h2d = l->h2d, row->d2h = l->d2h;
        row->h2d_ms = l->h2d_ms / l->ne, row->d2h_ms = l->d2h_ms / l->ne;
    }
    const timing_op *op = l->rec.nops ? &l->rec.ops[0] : NULL;
    snprintf(row->shapes, sizeof row->shapes, "%s", op && l->rec.nops == 1 ? op->shapes : "");
}

void measure_file(const measure_lane *l, const result_row *row, double speedup, int noise)
{
    timing_cmd c = l->rec;
    double scale = c.kernel_ms > 0 ? row->kernel.med / c.kernel_ms : 1;
    c.runs = row->kernel.runs;
    c.kernel_ms = row->kernel.med;
    c.kernel_lo = row->kernel.min;
    c.kernel_hi = row->kernel.max;
    c.wall_ms = row->wall.med;
    for (int i = 0; i < c.nops; i++) /* the ops' share of the median */
        c.ops[i].ms *= scale;
    c.speedup = speedup;
    c.speedup_noise = noise;
    c.rel_err = row->rel_err;
    c.slowed = l->slowed;
    c.h2d = c.d2h = 0;
    c.h2d_ms = c.d2h_ms = c.setup_ms = 0;
    timing_file(&c);
}

void measure_free(measure_lane *lanes, int n)
{
    for (int i = 0; i < n; i++) {
        free(lanes[i].k);
        free(lanes[i].w);
        free(lanes[i].e);
        mat_unref(lanes[i].value);
        memset(&lanes[i], 0, sizeof lanes[i]);
    }
}
