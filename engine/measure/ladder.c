/* ladder.c - `ladder [MODES:] EXPR for n in N1 N2 ...`: one command fills a
 * sizes x modes table. For each size, n is bound to the size, every other
 * name in EXPR is a fresh rand(n, n) operand, and every call that makes a
 * matrix (rand, randn, zeros, ones, eye, fill, load) is made too, all before
 * the clock starts; then the modes are timed as bench times them (measure.h).
 * A cell whose run is predicted to pass the per-run limit, or that comes
 * after the ladder's budget is spent, is not run: it shows an estimate from
 * the growth measured between that mode's last two sizes (at the first
 * size, what cuk predicts of a cpu product: measure.h), marked "~...*".
 * Last, for each GPU mode, the size from which it beats blas, with and
 * without the copies. The workspace is left as it was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "base/out.h"
#include "engine/measure/bench.h"
#include "engine/measure/chart.h"
#include "engine/lang/commands.h"
#include "engine/lang/eval.h"
#include "engine/measure/measure.h"
#include "engine/values/ops.h"
#include "engine/measure/tables.h"

#define LADDER_SHARE_MS 250.0      /* run time per mode and size */
#define LADDER_RUN_LIMIT_MS 1500.0 /* a cell whose one run would take longer is estimated */
#define LADDER_BUDGET_MS 45000.0   /* after this, every cell left is estimated */
#define LADDER_MAX_SIZES 16
#define MAX_MADE 16

/* What the ladder holds while it runs. */
typedef struct {
    cuk_session *s;
    const stmt *st;
    const cuk_backend *modes[MEASURE_MAX_MODES];
    int nmodes;
    int sizes[LADDER_MAX_SIZES], nsizes;
    double run_limit_ms, budget_ms, share_ms, t0;
    char made[MAX_MADE][24]; /* names of the operands made per size */
    int nmade;
    result_table *t;
    measure_lane last[MEASURE_MAX_MODES]; /* each mode's latest measured lane (records only) */
    int last_row[MEASURE_MAX_MODES];
} ladder;

/* ---- the sizes ---- */

static int read_sizes(ladder *L)
{
    const stmt *st = L->st;
    for (int i = 0; i < st->narg; i++) {
        const ast *a = st->arg[i];
        if (a->kind != AST_NUMBER)
            continue;
        if (L->nsizes == LADDER_MAX_SIZES)
            return cuk_err_at(a->pos, "ladder: at most %d sizes", LADDER_MAX_SIZES);
        if (a->num < 1 || a->num > 1e6 || a->num != floor(a->num))
            return cuk_err_at(a->pos, "ladder: a size is a whole number from 1 to 1000000");
        if (L->nsizes && a->num <= L->sizes[L->nsizes - 1])
            return cuk_err_at(a->pos, "ladder: the sizes must grow (%g after %d)", a->num, L->sizes[L->nsizes - 1]);
        L->sizes[L->nsizes++] = (int)a->num;
    }
    return 0;
}

/* ---- operands made before the clock ---- */

static int is_maker(const char *fn)
{
    static const char *const makers[] = {"rand", "randn", "zeros", "ones", "eye", "fill", "load"};
    for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++)
        if (!strcmp(fn, makers[i]))
            return 1;
    return 0;
}

static void free_tree(ast *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->nkid; i++)
        free_tree(e->kid[i]);
    free(e->kid);
    free(e);
}

static ast *node_copy(const ast *e)
{
    ast *n = malloc(sizeof *n);
    if (!n) {
        cuk_err("out of host memory");
        return NULL;
    }
    *n = *e;
    n->kid = NULL;
    n->nkid = 0;
    return n;
}

/* A copy of e in which each call that makes a matrix has been made, bound
 * in the (scratch) workspace, and stands as a name. */
static ast *prepare(ladder *L, const ast *e)
{
    ast *n = node_copy(e);
    if (!n)
        return NULL;
    if (e->kind == AST_CALL && is_maker(e->text) && L->nmade < MAX_MADE) {
        cuk_matrix *m = eval_expr(L->s, e);
        char *name = L->made[L->nmade++];
        snprintf(name, sizeof L->made[0], "(operand %d)", L->nmade);
        if (!m || ws_set(&L->s->ws, name, m) != 0) {
            free(n);
            return NULL;
        }
        n->kind = AST_NAME;
        n->text = name;
        return n;
    }
    if (e->nkid && !(n->kid = calloc((size_t)e->nkid, sizeof *n->kid))) {
        free(n);
        cuk_err("out of host memory");
        return NULL;
    }
    for (; n->nkid < e->nkid; n->nkid++)
        if (e->kid[n->nkid] && !(n->kid[n->nkid] = prepare(L, e->kid[n->nkid]))) {
            free_tree(n);
            return NULL;
        }
    return n;
}

/* Every name in e other than the size: a fresh rand(n, n), its own stream. */
static int bind_names(ladder *L, const ast *e, int size, uint64_t *stream)
{
    cuk_session *s = L->s;
    if (e->kind == AST_NAME && strcmp(e->text, L->st->name) && !ws_get(&s->ws, e->text)) {
        cuk_matrix *m = op_random(s->mode, CUK_RAND_UNIFORM, size, size, s->seed, (*stream)++);
        if (!m || ws_set(&s->ws, e->text, m) != 0)
            return -1;
    }
    for (int i = 0; i < e->nkid; i++)
        if (e->kid[i] && bind_names(L, e->kid[i], size, stream) != 0)
            return -1;
    return 0;
}

/* The scratch workspace of one size and the expression to time there. */
static ast *set_up_size(ladder *L, int size, uint64_t draws)
{
    cuk_session *s = L->s;
    cuk_matrix *n = mat_scalar((float)size);
    uint64_t stream = draws;
    if (!n || ws_set(&s->ws, L->st->name, n) != 0 || bind_names(L, L->st->expr, size, &stream) != 0)
        return NULL;
    s->draws = stream; /* makers draw after the named operands */
    L->nmade = 0;
    return prepare(L, L->st->expr);
}

/* ---- estimates ---- */

/* The measured (size, time) pairs of mode m before row `upto`; e2e or kernel. */
static int history(const ladder *L, const cuk_backend *m, int e2e, double *n, double *t, int cap)
{
    int k = 0;
    for (int i = 0; i < L->t->nrows && k < cap; i++) {
        const result_row *r = &L->t->rows[i];
        const stat_summary *st = e2e ? &r->e2e : &r->kernel;
        if (r->mode == m && st->runs && res_available(r)) {
            n[k] = r->size;
            t[k++] = st->med;
        }
    }
    return k;
}

/* The exponent of the growth when a mode has one point only: what the
 * FLOPs of the other modes' rows grew by, else 3 for a product, 2 else. */
static double default_exponent(const ladder *L, int size)
{
    double f1 = 0, n1 = 0, f2 = 0;
    for (int i = 0; i < L->t->nrows; i++) {
        const result_row *r = &L->t->rows[i];
        if (r->kernel.runs && r->size < size && r->size > n1)
            n1 = r->size, f1 = r->flops;
        if (r->kernel.runs && r->size == size)
            f2 = r->flops;
    }
    if (f1 > 0 && f2 > 0 && n1 > 0)
        return log(f2 / f1) / log(size / n1);
    return L->st->expr->kind == AST_BINARY && L->st->expr->op == TK_AT ? 3.0 : 2.0;
}

/* Time at size from the last two measured sizes (or one, and a default
 * exponent); < 0 if nothing was measured. */
static double extrapolate(const ladder *L, const cuk_backend *m, int e2e, int size)
{
    double n[LADDER_MAX_SIZES], t[LADDER_MAX_SIZES];
    int k = history(L, m, e2e, n, t, LADDER_MAX_SIZES);
    if (k == 0)
        return -1;
    double p = k >= 2 && t[k - 2] > 0 ? log(t[k - 1] / t[k - 2]) / log(n[k - 1] / n[k - 2]) : default_exponent(L, size);
    if (!(p > 0))
        p = 1; /* noise at small sizes can flatten the curve: never predict shrinking */
    return t[k - 1] * pow(size / n[k - 1], p);
}

/* The time of one kernel run of e (the size's expression) in mode m: from
 * the growth measured, or before any, what cuk predicts (measure.h: a cpu
 * product); < 0 if neither is known. */
static double kernel_estimate(const ladder *L, const ast *e, const cuk_backend *m, int size)
{
    double k = extrapolate(L, m, 0, size);
    return k >= 0 ? k : measure_predict_ms(L->s, e, m);
}

/* Should mode m be run at size? Not past the budget, nor when one run
 * would pass the limit: the first size too, where cuk can tell. */
static int worth_running(const ladder *L, const ast *e, const cuk_backend *m, int size)
{
    if (timing_now_ms() - L->t0 > L->budget_ms)
        return 0;
    double k = kernel_estimate(L, e, m, size), e2e = extrapolate(L, m, 1, size);
    return !(k > L->run_limit_ms || e2e > L->run_limit_ms);
}

static void estimate_row(const ladder *L, const ast *e, result_row *r)
{
    r->estimated = 1;
    r->est_kernel_ms = kernel_estimate(L, e, r->mode, r->size);
    r->est_e2e_ms = extrapolate(L, r->mode, 1, r->size);
    if (r->est_e2e_ms < 0 && !mode_on_device(r->mode))
        r->est_e2e_ms = r->est_kernel_ms;
}

/* ---- one size ---- */

static result_row *new_row(ladder *L, const cuk_backend *m, int size)
{
    if (L->t->nrows == RESULT_MAX_ROWS)
        return NULL;
    result_row *r = &L->t->rows[L->t->nrows++];
    const char *why = NULL;
    memset(r, 0, sizeof *r);
    r->mode = m;
    r->size = size;
    r->rel_err = NAN;
    if (!mode_available(m, &why))
        snprintf(r->why, sizeof r->why, "%s", why);
    return r;
}

/* Time the modes worth running at this size; estimate the rest. */
static int run_size(ladder *L, const ast *e, int size)
{
    measure_lane lanes[MEASURE_MAX_MODES];
    int rows[MEASURE_MAX_MODES], n = 0, first = L->t->nrows, rc = 0;
    char text[200];
    measure_plan plan = {L->share_ms, 3, 100000, 0};
    memset(lanes, 0, sizeof lanes);
    for (int i = 0; i < L->nmodes; i++) {
        result_row *r = new_row(L, L->modes[i], size);
        if (r && res_available(r) && worth_running(L, e, r->mode, size)) {
            rows[n] = (int)(r - L->t->rows);
            lanes[n++].be = r->mode;
        }
    }
    snprintf(text, sizeof text, "ladder %s=%d: %.*s", L->st->name, size, (int)(L->st->expr->end - L->st->expr->start),
             L->s->src->text + L->st->expr->start);
    if (n > 0)
        rc = measure_run(L->s, text, strlen(text), e, lanes, n, &plan);
    for (int i = 0; rc == 0 && i < n; i++) {
        result_row keep = L->t->rows[rows[i]];
        measure_row(&lanes[i], &L->t->rows[rows[i]]);
        L->t->rows[rows[i]].size = keep.size;
        L->t->rows[rows[i]].code = measure_code(e, lanes[i].be);
        int m = 0;
        while (L->modes[m] != lanes[i].be)
            m++;
        L->last[m] = lanes[i];
        L->last[m].k = L->last[m].w = L->last[m].e = NULL;
        L->last[m].value = NULL;
        L->last_row[m] = rows[i];
    }
    for (int i = first; rc == 0 && i < L->t->nrows; i++)
        if (res_available(&L->t->rows[i]) && !L->t->rows[i].kernel.runs)
            estimate_row(L, e, &L->t->rows[i]);
    measure_free(lanes, n);
    return rc;
}

/* One size in its own scratch workspace; the user's is back after. */
static int ladder_size(ladder *L, int size, uint64_t draws)
{
    cuk_session *s = L->s;
    workspace mine = s->ws, scratch = {0};
    s->ws = scratch;
    ast *e = set_up_size(L, size, draws);
    int rc = e ? run_size(L, e, size) : -1;
    free_tree(e);
    scratch = s->ws;
    s->ws = mine;
    ws_clear(&scratch);
    free(scratch.e);
    return rc;
}

/* ---- the report ---- */

static void time_cell(char *c, const result_row *r, int e2e)
{
    const stat_summary *st = e2e ? &r->e2e : &r->kernel;
    char t[32];
    if (st->runs)
        fmt_ms(c, TAB_CELL, st->med);
    else if (r->estimated && (e2e ? r->est_e2e_ms : r->est_kernel_ms) > 0)
        snprintf(c, TAB_CELL, "~%s*", fmt_ms(t, sizeof t, e2e ? r->est_e2e_ms : r->est_kernel_ms));
    else
        snprintf(c, TAB_CELL, "-");
}

/* The modes of the table that ran here, in the order met. */
static int table_modes(const result_table *t, const cuk_backend **modes)
{
    int nm = 0;
    for (int i = 0; i < t->nrows; i++) {
        int seen = 0;
        for (int k = 0; k < nm; k++)
            seen |= modes[k] == t->rows[i].mode;
        if (!seen && res_available(&t->rows[i]) && nm < MEASURE_MAX_MODES)
            modes[nm++] = t->rows[i].mode;
    }
    return nm;
}

static void ladder_table(const result_table *t, const int *sizes, int nsizes, int e2e, int width)
{
    tab_col cols[LADDER_MAX_SIZES + 1];
    char heads[LADDER_MAX_SIZES][48];
    const cuk_backend *modes[MEASURE_MAX_MODES];
    int nm = table_modes(t, modes);
    cols[0] = (tab_col){e2e ? "end to end" : "kernel", 10, 0, 0};
    for (int j = 0; j < nsizes; j++) {
        if (j)
            snprintf(heads[j], sizeof heads[j], "%d", sizes[j]);
        else
            snprintf(heads[j], sizeof heads[j], "%.20s=%d", t->var, sizes[j]);
        cols[j + 1] = (tab_col){heads[j], 10, 1, 0};
    }
    char(*cells)[TAB_CELL] = calloc((size_t)nm * (nsizes + 1) + 1, TAB_CELL);
    if (!cells)
        return;
    for (int m = 0; m < nm; m++) {
        char(*row)[TAB_CELL] = cells + (size_t)m * (nsizes + 1);
        snprintf(row[0], TAB_CELL, "%s", modes[m]->name);
        for (int j = 0; j < nsizes; j++) {
            int i = res_find(t, modes[m], sizes[j]);
            if (i >= 0)
                time_cell(row[j + 1], &t->rows[i], e2e);
            else
                snprintf(row[j + 1], TAB_CELL, "-");
        }
    }
    tab_print(cols, nsizes + 1, cells, nm, width, 2);
    free(cells);
}

/* The modes that could not run, once, each with its reason on one line. */
static void unavailable_lines(const result_table *t, int width)
{
    for (int i = 0; i < t->nrows; i++) {
        const result_row *r = &t->rows[i];
        char lead[48];
        if (res_available(r) || r->size != t->rows[0].size)
            continue;
        snprintf(lead, sizeof lead, "  %-8s  unavailable: ", r->mode->name);
        tab_line(lead, r->why, width);
    }
}

/* The first size from which g beats ref at every size after: its index, or
 * -1. *est: an estimate was involved. */
static int overtakes(const result_table *t, const cuk_backend *g, const cuk_backend *ref, const int *sizes, int nsizes,
                     int e2e, int *est)
{
    int from = -1;
    *est = 0;
    for (int j = nsizes - 1; j >= 0; j--) {
        int i = res_find(t, g, sizes[j]);
        res_ratio x = {-1, 0, 0};
        if (i >= 0)
            x = res_speedup(t, i, ref, e2e);
        if (!(x.x > 1) || x.noise)
            break;
        from = j;
        *est |= x.est;
    }
    return from;
}

static void overtake_lines(const result_table *t, const int *sizes, int nsizes, int width)
{
    /* the baseline where it was measured, else the reference */
    const cuk_backend *ref = res_find(t, mode_baseline(), sizes[0]) >= 0 ? mode_baseline() : mode_reference();
    char line[300], lead[32];
    for (int i = 0; i < t->nrows; i++) {
        const result_row *r = &t->rows[i];
        if (r->size != sizes[0] || !mode_on_device(r->mode) || !res_available(r))
            continue;
        char part[2][80];
        for (int e2e = 0; e2e < 2; e2e++) {
            int est, j = overtakes(t, r->mode, ref, sizes, nsizes, e2e, &est);
            if (j < 0)
                snprintf(part[e2e], sizeof part[0], "not up to %s=%d", t->var, sizes[nsizes - 1]);
            else
                snprintf(part[e2e], sizeof part[0], "from %s=%d%s", t->var, sizes[j], est ? "*" : "");
        }
        snprintf(lead, sizeof lead, "  %s ", r->mode->name);
        snprintf(line, sizeof line, "beats %s %s by kernel time, %s end to end (with the copies).", ref->name, part[0],
                 part[1]);
        tab_wrap(lead, line, width, 4);
    }
}

void ladder_print(const result_table *t, const int *sizes, int nsizes, int width)
{
    char lead[220];
    snprintf(lead, sizeof lead, "ladder %s for %s in", t->expr, t->var);
    for (int j = 0; j < nsizes; j++)
        snprintf(lead + strlen(lead), sizeof lead - strlen(lead), " %d", sizes[j]);
    tab_wrap(lead, "", width, 2);
    tab_wrap("  ",
             "medians of at least 3 runs; ~...* an estimate from the growth between the mode's last two "
             "measured sizes, or before any, cuk's prediction of a cpu product (the run would pass the ladder's "
             "limit); every other name is a fresh rand(n, n), made before the clock starts.",
             width, 2);
    ladder_table(t, sizes, nsizes, 0, width);
    ladder_table(t, sizes, nsizes, 1, width);
    unavailable_lines(t, width);
    overtake_lines(t, sizes, nsizes, width);
}

/* ---- the command ---- */

static void ladder_show(ladder *L)
{
    if (L->s->json) {
        cost_ceilings ce;
        json_buf j;
        cost_ceilings_get(&ce, 1);
        json_begin(&j);
        res_json(&j, L->t, &ce);
        json_open_arr(&j, "sizes");
        for (int i = 0; i < L->nsizes; i++)
            json_int(&j, NULL, L->sizes[i]);
        json_close(&j);
        json_print(&j);
    } else {
        ladder_print(L->t, L->sizes, L->nsizes, session_columns(L->s));
        chart_print_ladder(L->t, session_columns(L->s), chart_style_of(L->s));
    }
}

/* One summary per mode in the panel's history: its largest measured size. */
static void file_summaries(ladder *L)
{
    for (int m = 0; m < L->nmodes; m++)
        if (L->last[m].be) {
            int i = L->last_row[m];
            res_ratio up = res_speedup(L->t, i, mode_reference(), 0);
            measure_file(&L->last[m], &L->t->rows[i], L->modes[m]->reference ? -1 : up.x, up.noise);
        }
}

int cmd_ladder(cuk_session *s, const stmt *st)
{
    ladder *L = calloc(1, sizeof *L);
    int rc = L && (L->t = calloc(1, sizeof *L->t)) ? 0 : cuk_err("out of host memory");
    measure_draws draws;
    measure_draws_begin(s, &draws);
    if (rc == 0) {
        L->s = s, L->st = st;
        L->run_limit_ms = measure_budget("CUK_LADDER_RUN_LIMIT_MS", LADDER_RUN_LIMIT_MS);
        L->budget_ms = measure_budget("CUK_LADDER_BUDGET_MS", LADDER_BUDGET_MS);
        L->share_ms = measure_budget("CUK_LADDER_SHARE_MS", LADDER_SHARE_MS);
        L->t0 = timing_now_ms();
        L->t->ladder = 1;
        L->t->seed = s->seed;
        snprintf(L->t->var, sizeof L->t->var, "%s", st->name);
        fmt_escape(L->t->expr, sizeof L->t->expr, s->src->text + st->expr->start, st->expr->end - st->expr->start);
        if ((L->nmodes = measure_modes(st, L->modes, "ladder")) < 0 || read_sizes(L) != 0)
            rc = -1;
    }
    for (int j = 0; rc == 0 && j < L->nsizes; j++)
        rc = ladder_size(L, L->sizes[j], draws.base);
    measure_draws_end(s, &draws);
    if (rc == 0) {
        file_summaries(L);
        res_set_last(L->t);
        ladder_show(L);
    }
    if (L)
        free(L->t);
    free(L);
    return rc;
}
