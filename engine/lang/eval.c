/* eval.c - the evaluator (see eval.h): walks an expression's AST, checks
 * shapes with messages that name the operands as the user wrote them, and
 * runs each operation in the current mode through engine/values/ops.h. */
#include "engine/lang/eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "base/suggest.h"
#include "engine/files/fileio.h"
#include "engine/values/ops.h"
#include "engine/lang/print.h"
#include "engine/lang/timereport.h"
#include "engine/values/timing.h"

/* What the user typed for e, in buf; NULL if it is longer than `longest`
 * or spans lines. */
static const char *typed(const cuk_session *s, const ast *e, size_t longest, char *buf, size_t cap)
{
    size_t n = e->end - e->start;
    if (n == 0 || n > longest || n >= cap || e->end > s->src->len || memchr(s->src->text + e->start, '\n', n))
        return NULL;
    snprintf(buf, cap, "%.*s", (int)n, s->src->text + e->start);
    return buf;
}

/* How an operand is named in messages: its source text when short
 * ("A", "A'", "B[0:2,:]"), else a generic word. */
static const char *label(const cuk_session *s, const ast *e, const char *generic, char *buf, size_t cap)
{
    const char *t = typed(s, e, 24, buf, cap);
    return t ? t : generic;
}

/* A scalar argument's value, exact if it carries one (matrix.h): sizes and
 * indices never pass through float32. `what` names it in messages. */
static int scalar_of(cuk_session *s, const ast *e, const char *what, double *out)
{
    cuk_matrix *m = eval_expr(s, e);
    if (!m)
        return -1;
    if (m->rows != 1 || m->cols != 1) {
        cuk_err_at(e->pos, "%s must be a scalar (got a %dx%d matrix)", what, m->rows, m->cols);
        mat_unref(m);
        return -1;
    }
    int rc = mat_scalar_exact(m, out);
    mat_unref(m);
    return rc;
}

/* ---- exact values (matrix.h) ----
 * Literals, size()'s values, and what + - * /, signs, transposes and
 * indexing make of them carry their values in double precision beside
 * their float32 ones, within the statement, so that a size or an index
 * written 16777217 or size(A)[0, 0] - 1 is exact past 2^24, and n / 2
 * with n odd is not a whole number however float32 would round it. The
 * value itself is float32 as any: computed in float32, printed, saved and
 * kept under a name as float32 (eval_stmt drops what it carries). */

/* A literal number: carried as typed. */
static cuk_matrix *number_value(double v) { return mat_exact(1, 1, &v); }

static double exact_op(tk_kind op, double x, double y)
{
    return op == TK_PLUS ? x + y : op == TK_MINUS ? x - y : op == TK_STAR ? x * y : x / y;
}

static float float_op(tk_kind op, float x, float y)
{
    return op == TK_PLUS ? x + y : op == TK_MINUS ? x - y : op == TK_STAR ? x * y : x / y;
}

/* a op b, element by element: the values in float32, as any operation
 * computes them, and what they carry in double precision. a and b carry
 * values and agree in shape or one is 1x1. */
static cuk_matrix *exact_binary(tk_kind op, cuk_matrix *a, cuk_matrix *b)
{
    double r[MAT_EXACT_MAX];
    cuk_matrix *big = a->nexact >= b->nexact ? a : b;
    const float *x = mat_host(a), *y = x ? mat_host(b) : NULL; /* a slice or a transpose may be on the device */
    for (int i = 0; i < big->nexact; i++)
        r[i] = exact_op(op, a->exact[a->nexact == 1 ? 0 : i], b->exact[b->nexact == 1 ? 0 : i]);
    cuk_matrix *m = y ? mat_exact(big->rows, big->cols, r) : NULL;
    for (int i = 0; m && i < big->nexact; i++)
        m->host[i] = float_op(op, x[a->nexact == 1 ? 0 : i], y[b->nexact == 1 ? 0 : i]);
    return m;
}

/* m is the block of a at (r0, c0): it carries a's values there. */
static cuk_matrix *exact_block(cuk_matrix *m, const cuk_matrix *a, int r0, int c0)
{
    if (!m || !a->nexact)
        return m;
    m->nexact = m->rows * m->cols;
    for (int i = 0; i < m->nexact; i++)
        m->exact[i] = a->exact[(size_t)(r0 + i / m->cols) * a->cols + c0 + i % m->cols];
    return m;
}

/* m = a': matrices that carry values are vectors, so their order stays. */
static cuk_matrix *exact_transposed(cuk_matrix *m, const cuk_matrix *a)
{
    if (!m || !a->nexact)
        return m;
    m->nexact = a->nexact;
    memcpy(m->exact, a->exact, sizeof m->exact);
    return m;
}

/* m = -a */
static cuk_matrix *exact_negated(cuk_matrix *m, const cuk_matrix *a)
{
    if (!m || !a->nexact)
        return m;
    m->nexact = a->nexact;
    for (int i = 0; i < a->nexact; i++)
        m->exact[i] = -a->exact[i];
    return m;
}

/* ---- built-in functions ---- */

/* How a built-in's arguments are evaluated before it runs. */
typedef enum {
    FN_DIMS,        /* () 1x1, (n) n x n, (m, n): rand, zeros, eye ... */
    FN_DIMS_VALUE,  /* (m, n, v): fill */
    FN_MATRICES,    /* matrices: sum(A), dot(x, y), min(A, B) ... */
    FN_FILE         /* ("file"): load */
} fn_shape;

/* A call's arguments, evaluated by shape. */
typedef struct {
    int n;
    cuk_matrix *m[2];       /* FN_MATRICES: n of them */
    int rows, cols;         /* FN_DIMS, FN_DIMS_VALUE */
    double value;           /* FN_DIMS_VALUE */
    const char *file;       /* FN_FILE */
} call_args;

typedef struct builtin builtin;
typedef cuk_matrix *(*builtin_fn)(cuk_session *s, const ast *call, const builtin *b, call_args *a);

struct builtin {
    const char *name;
    int min_args, max_args;
    fn_shape shape;
    builtin_fn fn;
    int op;                 /* the cuk_ewop, cuk_unop, cuk_redop or cuk_dist fn works with */
    const char *usage;
};

/* Dimensions from args first.. of a call: () is 1x1, (n) is n x n, (m, n). */
static int dims_of(cuk_session *s, const ast *call, int first, int *rows, int *cols)
{
    double r = 1, c = 1;
    char what[48];
    int n = call->nkid - first;
    snprintf(what, sizeof what, "%s: the dimension", call->text);
    if (n >= 1 && scalar_of(s, call->kid[first], what, &r) != 0)
        return -1;
    c = r;
    if (n >= 2 && scalar_of(s, call->kid[first + 1], what, &c) != 0)
        return -1;
    /* the caret goes under the dimension at fault: the second if the first alone is fine */
    int at = n >= 2 && mat_check_shape(call->text, r, 1) == 0 ? first + 1 : first;
    if (mat_check_shape(call->text, r, c) != 0) {
        cuk_err_locate(n >= 1 ? call->kid[at]->pos : call->pos);
        return -1;
    }
    *rows = (int)r;
    *cols = (int)c;
    return 0;
}

/* Evaluate the arguments of call as b's shape says; 0, or -1 with the
 * error set (and nothing left to release). */
static int eval_args(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    memset(a, 0, sizeof *a);
    switch (b->shape) {
    case FN_DIMS:
        return dims_of(s, call, 0, &a->rows, &a->cols);
    case FN_DIMS_VALUE:
        if (dims_of(s, call, 0, &a->rows, &a->cols) != 0)
            return -1;
        return scalar_of(s, call->kid[2], "fill: the value", &a->value);
    case FN_FILE:
        if (call->kid[0]->kind != AST_STRING)
            return cuk_err_at(call->kid[0]->pos, "%s: expected a file name in double quotes, as in %s(\"a.npy\")",
                              b->name, b->name);
        a->file = call->kid[0]->text;
        return 0;
    case FN_MATRICES:
        for (a->n = 0; a->n < call->nkid; a->n++)
            if (!(a->m[a->n] = eval_expr(s, call->kid[a->n]))) {
                while (a->n > 0)
                    mat_unref(a->m[--a->n]);
                return -1;
            }
        return 0;
    }
    return cuk_err_at(call->pos, "internal error: argument shape %d", (int)b->shape);
}

static cuk_matrix *fn_random(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    cuk_matrix *m = op_random(s->mode, (cuk_dist)b->op, a->rows, a->cols, s->seed, s->draws);
    if (m)
        s->draws++; /* only a draw that happened moves the stream on */
    return m;
}

/* zeros, ones (the value is the row's op), fill */
static cuk_matrix *fn_fill(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    return op_fill(s->mode, a->rows, a->cols, b->shape == FN_DIMS_VALUE ? (float)a->value : (float)b->op);
}

static cuk_matrix *fn_eye(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    return op_eye(s->mode, a->rows, a->cols);
}

static cuk_matrix *fn_unary(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    return op_unary(s->mode, (cuk_unop)b->op, a->m[0]);
}

static cuk_matrix *fn_transpose(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    return op_transpose(s->mode, a->m[0]);
}

/* size(A) is exact where a size or an index reads it (matrix.h):
 * zeros(size(A)[0, 0], 1) has A's rows, past 2^24 too. */
static cuk_matrix *fn_size(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    double v[2] = {a->m[0]->rows, a->m[0]->cols};
    return mat_exact(1, 2, v);
}

static int same_or_scalar(const cuk_matrix *a, const cuk_matrix *b)
{
    return (a->rows == b->rows && a->cols == b->cols) || mat_numel(a) == 1 || mat_numel(b) == 1;
}

/* An elementwise op after checking that the shapes agree (or one is 1x1). */
static cuk_matrix *ewise_checked(cuk_session *s, const ast *at, cuk_ewop op, const char *what,
                                 const ast *ea, cuk_matrix *a, const ast *eb, cuk_matrix *b)
{
    char la[32], lb[32];
    if (same_or_scalar(a, b))
        return op_ewise(s->mode, op, a, b);
    const char *hint = op == CUK_EW_MUL && a->cols == b->rows ? "; * is elementwise, @ is the matrix product" : "";
    cuk_err_at(at->pos, "%s: nonconformant operands (%s is %dx%d, %s is %dx%d)%s", what,
               label(s, ea, "left", la, sizeof la), a->rows, a->cols, label(s, eb, "right", lb, sizeof lb),
               b->rows, b->cols, hint);
    return NULL;
}

/* A two-argument elementwise function: pow(A, B), and min/max of two. */
static cuk_matrix *fn_ewise(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    return ewise_checked(s, call, (cuk_ewop)b->op, b->name, call->kid[0], a->m[0], call->kid[1], a->m[1]);
}

static cuk_matrix *fn_reduce(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    return op_reduce(s->mode, (cuk_redop)b->op, a->m[0]);
}

/* min(A) / max(A): the smallest / largest element; min(A, B): elementwise. */
static cuk_matrix *fn_extremum(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    int is_max = !strcmp(b->name, "max");
    if (a->n == 1)
        return op_reduce(s->mode, is_max ? CUK_RED_MAX : CUK_RED_MIN, a->m[0]);
    return ewise_checked(s, call, is_max ? CUK_EW_MAX : CUK_EW_MIN, b->name, call->kid[0], a->m[0], call->kid[1],
                         a->m[1]);
}

static cuk_matrix *fn_dot(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    char lx[32], ly[32];
    cuk_matrix *x = a->m[0], *y = a->m[1];
    if (mat_numel(x) == mat_numel(y))
        return op_dot(s->mode, x, y);
    cuk_err_at(call->pos, "dot: operands have different lengths (%s is %dx%d, %s is %dx%d)",
               label(s, call->kid[0], "x", lx, sizeof lx), x->rows, x->cols, label(s, call->kid[1], "y", ly, sizeof ly),
               y->rows, y->cols);
    return NULL;
}

/* arange(n): the row 0, 1, ..., n-1, as NumPy's arange(n); float32, so
 * whole numbers past 2^24 round as NumPy's float32 arange rounds them. It
 * is made on the host, as a literal is: a GPU mode copies it on first use,
 * as the classic lectures' programs filled a[i] = i on the host and copied
 * it over. */
static cuk_matrix *fn_arange(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    const cuk_matrix *arg = a->m[0];
    double n;
    if (arg->rows != 1 || arg->cols != 1) {
        cuk_err_at(call->kid[0]->pos, "arange: n must be a scalar (got a %dx%d matrix)", arg->rows, arg->cols);
        return NULL;
    }
    if (mat_scalar_exact(a->m[0], &n) != 0)
        return NULL;
    if (!(n >= 1 && n <= MAT_MAX_DIM && n == floor(n))) {
        char got[40];
        cuk_err_at(call->kid[0]->pos, "arange: n must be a whole number from 1 to %ld (got %s): cuk has no empty matrices",
                   MAT_MAX_DIM, fmt_number(got, sizeof got, n));
        return NULL;
    }
    cuk_matrix *m = mat_new_host(1, (int)n);
    for (size_t i = 0; m && i < (size_t)n; i++) {
        if (i % ((size_t)1 << 22) == 0 && cuk_check_interrupt() != 0) { /* 2^31 elements take seconds */
            mat_unref(m);
            return NULL;
        }
        m->host[i] = (float)i;
    }
    return m;
}

static cuk_matrix *fn_load(cuk_session *s, const ast *call, const builtin *b, call_args *a)
{
    char *path = session_path(s, a->file);
    cuk_matrix *m = path ? fileio_load(path) : NULL;
    free(path);
    if (!m)
        cuk_err_locate(call->kid[0]->pos);
    return m;
}

/* The functions: rows written here, and one per row of the operation lists
 * that has a usage line (oplist.h). Rows without one are operators only. */
#define BUILTIN_UNARY(id, name, usage, expr) {name, 1, 1, FN_MATRICES, fn_unary, CUK_UN_##id, usage},
#define BUILTIN_EWISE(id, name, usage, expr) {name, 2, 2, FN_MATRICES, fn_ewise, CUK_EW_##id, usage},
#define BUILTIN_REDUCE(id, name, usage) {name, 1, 1, FN_MATRICES, fn_reduce, CUK_RED_##id, usage},
static const builtin builtins[] = {
    {"arange", 1, 1, FN_MATRICES, fn_arange, 0, "arange(n)       the row 0, 1, ..., n-1 (1 x n), as NumPy's arange"},
    {"dot", 2, 2, FN_MATRICES, fn_dot, 0, "dot(x, y)       sum of x .* y (same number of elements)"},
    {"eye", 1, 2, FN_DIMS, fn_eye, 0, "eye(n), eye(m, n)  identity matrix"},
    {"fill", 3, 3, FN_DIMS_VALUE, fn_fill, 0, "fill(m, n, v)   m x n matrix of v"},
    {"load", 1, 1, FN_FILE, fn_load, 0, "load(\"file\")    read a .npy or .csv file"},
    {"max", 1, 2, FN_MATRICES, fn_extremum, 0, "max(A), max(A, B)  largest element; elementwise maximum"},
    {"min", 1, 2, FN_MATRICES, fn_extremum, 0, "min(A), min(A, B)  smallest element; elementwise minimum"},
    {"ones", 0, 2, FN_DIMS, fn_fill, 1, "ones(n), ones(m, n)  all ones"},
    {"rand", 0, 2, FN_DIMS, fn_random, CUK_RAND_UNIFORM, "rand(n), rand(m, n)  uniform random values in [0, 1)"},
    {"randn", 0, 2, FN_DIMS, fn_random, CUK_RAND_NORMAL, "randn(n), randn(m, n)  standard normal random values"},
    {"size", 1, 1, FN_MATRICES, fn_size, 0, "size(A)         [rows cols]"},
    {"transpose", 1, 1, FN_MATRICES, fn_transpose, 0, "transpose(A)    same as A'"},
    {"zeros", 0, 2, FN_DIMS, fn_fill, 0, "zeros(n), zeros(m, n)  all zeros"},
    CUK_UNARY_OPS(BUILTIN_UNARY) CUK_EWISE_OPS(BUILTIN_EWISE) CUK_REDUCE_OPS(BUILTIN_REDUCE)};
#undef BUILTIN_UNARY
#undef BUILTIN_EWISE
#undef BUILTIN_REDUCE

#define NBUILTINS ((int)(sizeof builtins / sizeof builtins[0]))

/* The functions by name, for lookups and help: the rows that have a usage
 * line, sorted once. */
static const builtin *by_name[NBUILTINS];
static int nby_name;

static int cmp_builtin(const void *x, const void *y)
{
    return strcmp((*(const builtin *const *)x)->name, (*(const builtin *const *)y)->name);
}

static void index_builtins(void)
{
    if (nby_name)
        return;
    for (int i = 0; i < NBUILTINS; i++)
        if (builtins[i].usage)
            by_name[nby_name++] = &builtins[i];
    qsort(by_name, (size_t)nby_name, sizeof by_name[0], cmp_builtin);
}

static const builtin *find_builtin(const char *name)
{
    index_builtins();
    for (int i = 0; i < nby_name; i++)
        if (!strcmp(by_name[i]->name, name))
            return by_name[i];
    return NULL;
}

/* ": did you mean `rand`?" for a likely typo of a function's name, else "". */
static const char *function_suggest(const char *name, char *buf, size_t cap)
{
    suggest g;
    suggest_begin(&g, name);
    for (int i = 0; eval_function_name(i); i++)
        suggest_offer(&g, eval_function_name(i));
    return suggest_note(&g, buf, cap);
}

/* The usage line's call forms, without the description after two blanks. */
static int usage_len(const builtin *b)
{
    const char *end = strstr(b->usage, "  ");
    return (int)(end ? (size_t)(end - b->usage) : strlen(b->usage));
}

const char *eval_function_name(int i)
{
    index_builtins();
    return i >= 0 && i < nby_name ? by_name[i]->name : NULL;
}

const char *eval_function_usage(const char *name)
{
    const builtin *b = find_builtin(name);
    return b ? b->usage : NULL;
}

/* ---- expressions ---- */

static cuk_matrix *eval_call(cuk_session *s, const ast *e)
{
    char note[SUGGEST_NOTE];
    const builtin *b = find_builtin(e->text);
    if (!b) {
        if (ws_get(&s->ws, e->text))
            cuk_err_at(e->pos, "'%s' is a variable, not a function: index it with %s[i, j] (0-based)", e->text,
                       e->text);
        else
            cuk_err_at(e->pos, "unknown function '%s'%s (`help functions` lists them)", e->text,
                       function_suggest(e->text, note, sizeof note));
        return NULL;
    }
    if (e->nkid < b->min_args || e->nkid > b->max_args) {
        char want[32];
        if (b->min_args == b->max_args)
            snprintf(want, sizeof want, "%d argument%s", b->min_args, b->min_args == 1 ? "" : "s");
        else
            snprintf(want, sizeof want, "%d to %d arguments", b->min_args, b->max_args);
        cuk_err_at(e->pos, "%s: expected %s, got %d (usage: %.*s)", b->name, want, e->nkid, usage_len(b), b->usage);
        return NULL;
    }
    call_args args;
    if (eval_args(s, e, b, &args) != 0)
        return NULL;
    cuk_matrix *m = b->fn(s, e, b, &args);
    for (int i = 0; i < args.n; i++)
        mat_unref(args.m[i]);
    return m;
}

static cuk_matrix *eval_name(cuk_session *s, const ast *e)
{
    char note[SUGGEST_NOTE];
    cuk_matrix *m = ws_get(&s->ws, e->text);
    if (m)
        return mat_ref(m);
    const builtin *b = find_builtin(e->text);
    if (b)
        cuk_err_at(e->pos, "'%s' is a function: call it as %.*s", e->text, usage_len(b), b->usage);
    else
        cuk_err_at(e->pos, "'%s' is not defined%s", e->text, ws_suggest(&s->ws, e->text, note, sizeof note));
    return NULL;
}

static cuk_matrix *eval_matmul(cuk_session *s, const ast *e, cuk_matrix *a, cuk_matrix *b)
{
    char la[32], lb[32];
    if (a->cols == b->rows)
        return op_matmul(s->mode, a, b);
    cuk_err_at(e->pos, "matmul: nonconformant operands (%s is %dx%d, %s is %dx%d)",
               label(s, e->kid[0], "left", la, sizeof la), a->rows, a->cols,
               label(s, e->kid[1], "right", lb, sizeof lb), b->rows, b->cols);
    return NULL;
}

/* a + b, a - b, a * b, a / b: in double precision on values carried
 * exactly (matrix.h), else elementwise in float32 by the mode. */
static cuk_matrix *eval_arith(cuk_session *s, const ast *e, cuk_matrix *a, cuk_matrix *b)
{
    static const struct {
        tk_kind tok;
        cuk_ewop op;
        const char *what;
    } ew[] = {{TK_PLUS, CUK_EW_ADD, "add"}, {TK_MINUS, CUK_EW_SUB, "subtract"},
              {TK_STAR, CUK_EW_MUL, "multiply"}, {TK_SLASH, CUK_EW_DIV, "divide"}};
    if (a->nexact && b->nexact && same_or_scalar(a, b))
        return exact_binary(e->op, a, b);
    for (size_t i = 0; i < sizeof ew / sizeof ew[0]; i++)
        if (ew[i].tok == e->op)
            return ewise_checked(s, e, ew[i].op, ew[i].what, e->kid[0], a, e->kid[1], b);
    cuk_err_at(e->pos, "internal error: unexpected operator %s", lex_describe(e->op));
    return NULL;
}

/* a OP kid[1]: a is the value of the left operand, evaluated already. */
static cuk_matrix *eval_binary(cuk_session *s, const ast *e, cuk_matrix *a)
{
    cuk_matrix *b = eval_expr(s, e->kid[1]), *m;
    if (!b)
        return NULL;
    m = e->op == TK_AT ? eval_matmul(s, e, a, b) : eval_arith(s, e, a, b);
    mat_unref(b);
    return m;
}

/* An index or a slice bound: a whole number (exact: matrix.h), checked
 * here, before anything converts it to an int. */
static int index_value(cuk_session *s, const ast *e, double *out)
{
    char got[40];
    if (scalar_of(s, e, "an index", out) != 0)
        return -1;
    if (!isfinite(*out) || *out != floor(*out))
        return cuk_err_at(e->pos, "indices must be whole numbers (got %s)", fmt_number(got, sizeof got, *out));
    return 0;
}

/* One position along a dimension of n; negative counts from the end. */
static int resolve_position(cuk_session *s, const ast *ix, int n, const char *noun, const char *what, int *at)
{
    char got[40], has[48];
    double v;
    if (index_value(s, ix, &v) != 0)
        return -1;
    if (v < -n || v >= n)
        return cuk_err_at(ix->pos, "index %s is out of bounds: %s has %s (valid indices %d to %d)",
                          fmt_number(got, sizeof got, v), what, fmt_count(has, sizeof has, n, noun), -n, n - 1);
    *at = (int)(v < 0 ? v + n : v);
    return 0;
}

/* A slice bound: negative counts from the end, and past either end it
 * stops there, as in NumPy. */
static int slice_bound(cuk_session *s, const ast *e, int n, int *out)
{
    double v;
    if (index_value(s, e, &v) != 0)
        return -1;
    if (v < 0)
        v += n;
    *out = v < 0 ? 0 : v > n ? n : (int)v;
    return 0;
}

/* lo:hi along a dimension of n; the message about an empty one shows the
 * bounds as the user typed them (as resolved only if that is too long). */
static int resolve_range(cuk_session *s, const ast *ix, int n, const char *noun, const char *what, int *lo,
                         int *count)
{
    char text[72], has[48];
    int hi = n;
    *lo = 0;
    if (ix->kid[0] && slice_bound(s, ix->kid[0], n, lo) != 0)
        return -1;
    if (ix->kid[1] && slice_bound(s, ix->kid[1], n, &hi) != 0)
        return -1;
    if (hi > *lo) {
        *count = hi - *lo;
        return 0;
    }
    if (!typed(s, ix, 64, text, sizeof text))
        snprintf(text, sizeof text, "%d:%d", *lo, hi);
    return cuk_err_at(ix->pos, "empty slice %s of %s (%s): cuk has no empty matrices", text, what,
                      fmt_count(has, sizeof has, n, noun));
}

/* Resolve one index (a position or lo:hi) against a dimension of size n. */
static int resolve_index(cuk_session *s, const ast *ix, int n, int axis, const char *what, int *lo, int *count)
{
    const char *noun = axis ? "column" : "row";
    if (ix->kind == AST_RANGE)
        return resolve_range(s, ix, n, noun, what, lo, count);
    *count = 1;
    return resolve_position(s, ix, n, noun, what, lo);
}

/* a[kid[1]] or a[kid[1], kid[2]]: a is the value of kid[0], evaluated already. */
static cuk_matrix *eval_index(cuk_session *s, const ast *e, cuk_matrix *a)
{
    char lbl[32];
    int r0, nr, c0 = 0, nc = a->cols;
    const char *what = label(s, e->kid[0], "the matrix", lbl, sizeof lbl);
    if (resolve_index(s, e->kid[1], a->rows, 0, what, &r0, &nr) != 0 ||
        (e->nkid == 3 && resolve_index(s, e->kid[2], a->cols, 1, what, &c0, &nc) != 0))
        return NULL;
    if (nr == a->rows && nc == a->cols)
        return mat_ref(a); /* the whole matrix: share it, values never change */
    return exact_block(op_slice(s->mode, a, r0, nr, c0, nc), a, r0, c0);
}

/* A literal whose elements are all 1x1 is built on the host directly; if
 * they all carry values and are few ([m n]), so does the literal. */
static cuk_matrix *literal_of_scalars(const ast *e, cuk_matrix **v, int rows, int cols)
{
    size_t n = (size_t)rows * (size_t)cols;
    int exact = n <= MAT_EXACT_MAX;
    cuk_matrix *m = mat_new_host(rows, cols);
    for (size_t i = 0; m && i < n; i++) {
        if (mat_scalar_value(v[i], &m->host[i]) != 0) {
            mat_unref(m);
            return NULL;
        }
        exact = exact && v[i]->nexact;
    }
    for (size_t i = 0; m && exact && i < n; i++)
        m->exact[m->nexact++] = v[i]->exact[0];
    return m;
}

/* Place each element of a literal: rows side by side must share a height,
 * stacked rows must share a width. Totals are 64-bit: many wide blocks
 * ([A A ... A]) may pass any int before the shape is checked. */
static int literal_layout(cuk_session *s, const ast *e, cuk_matrix **v, op_block *blk, int *rows, int *cols)
{
    char sa[48], sb[48];
    int64_t top = 0, width = -1;
    size_t k = 0;
    for (int r = 0; r < e->nkid; r++) {
        const ast *row = e->kid[r];
        int h = v[k]->rows;
        int64_t w = 0;
        for (int j = 0; j < row->nkid; j++, k++) {
            if (v[k]->rows != h)
                return cuk_err_at(row->kid[j]->pos, "horizontal dimensions mismatch (%s vs %s)",
                                  fmt_shape(sa, sizeof sa, h, w), fmt_shape(sb, sizeof sb, v[k]->rows, v[k]->cols));
            blk[k].m = v[k];
            blk[k].row = (size_t)top;
            blk[k].col = (size_t)w;
            w += v[k]->cols;
        }
        if (width >= 0 && w != width)
            return cuk_err_at(row->pos, "vertical dimensions mismatch (%s vs %s)", fmt_shape(sa, sizeof sa, top, width),
                              fmt_shape(sb, sizeof sb, h, w));
        width = w;
        top += h;
    }
    if (mat_check_shape("matrix literal", (double)top, (double)width) != 0)
        return -1;
    *rows = (int)top;
    *cols = (int)width;
    return 0;
}

static cuk_matrix *eval_literal(cuk_session *s, const ast *e)
{
    int all_scalar = 1, rows = 0, cols = 0;
    size_t n = 0, k = 0;
    for (int r = 0; r < e->nkid; r++)
        n += (size_t)e->kid[r]->nkid;
    cuk_matrix **v = calloc(n, sizeof *v);
    op_block *blk = calloc(n, sizeof *blk);
    cuk_matrix *m = NULL;
    int ok = v && blk;
    if (!ok)
        cuk_err("out of host memory");
    for (int r = 0; ok && r < e->nkid; r++)
        for (int j = 0; ok && j < e->kid[r]->nkid; j++, k++) {
            ok = (v[k] = eval_expr(s, e->kid[r]->kid[j])) != NULL;
            all_scalar = all_scalar && ok && mat_numel(v[k]) == 1;
        }
    if (ok && literal_layout(s, e, v, blk, &rows, &cols) == 0)
        m = all_scalar ? literal_of_scalars(e, v, rows, cols) : op_concat(s->mode, blk, n, rows, cols);
    for (size_t i = 0; v && i < n; i++)
        mat_unref(v[i]);
    free(v);
    free(blk);
    return m;
}

/* A node that is not a link of a chain (below). */
static cuk_matrix *eval_node(cuk_session *s, const ast *e)
{
    switch (e->kind) {
    case AST_NUMBER:
        return number_value(e->num);
    case AST_NEGATE: /* of a number: a negative literal is a value, not an operation */
        return number_value(-e->kid[0]->num);
    case AST_NAME:
        return eval_name(s, e);
    case AST_CALL:
        return eval_call(s, e);
    case AST_MATRIX:
        return eval_literal(s, e);
    case AST_STRING:
        cuk_err_at(e->pos, "a string can only be a file name, as in load(\"a.npy\")");
        return NULL;
    default:
        cuk_err_at(e->pos, "internal error: unexpected syntax node %d", (int)e->kind);
        return NULL;
    }
}

/* ---- chains ----
 * Operators, signs, transposes and indexing start from the value of their
 * kid[0]. A line such as 1+1+...+1 or A'''... is a chain of them as long as
 * the line, so a chain is walked with a loop: only brackets nest the
 * evaluator's recursion, and the parser bounds them (PARSE_MAX_DEPTH). */
static int is_link(const ast *e)
{
    switch (e->kind) {
    case AST_BINARY:
    case AST_TRANSPOSE:
    case AST_INDEX:
        return 1;
    case AST_NEGATE:
        return e->kid[0]->kind != AST_NUMBER;
    default:
        return 0;
    }
}

/* Apply link e to a, the value of its kid[0]; takes a's reference. */
static cuk_matrix *eval_link(cuk_session *s, const ast *e, cuk_matrix *a)
{
    cuk_matrix *m;
    if (cuk_check_interrupt() != 0)
        m = NULL;
    else if (e->kind == AST_BINARY)
        m = eval_binary(s, e, a);
    else if (e->kind == AST_INDEX)
        m = eval_index(s, e, a);
    else if (e->kind == AST_NEGATE)
        m = exact_negated(op_unary(s->mode, CUK_UN_NEG, a), a);
    else
        m = exact_transposed(op_transpose(s->mode, a), a);
    mat_unref(a);
    return m;
}

/* The links from e down to the first node that is not one (*leaf), in a
 * new array, innermost first; their number in *n. NULL if out of memory. */
static const ast **chain_of(const ast *e, size_t *n, const ast **leaf)
{
    const ast *x;
    size_t k = 0;
    for (x = e; is_link(x); x = x->kid[0])
        k++;
    *leaf = x;
    *n = k;
    const ast **links = malloc((k ? k : 1) * sizeof *links);
    for (x = e; links && k > 0; x = x->kid[0])
        links[--k] = x;
    return links;
}

cuk_matrix *eval_expr(cuk_session *s, const ast *e)
{
    const ast *leaf;
    size_t n;
    const ast **links = chain_of(e, &n, &leaf);
    cuk_matrix *m = NULL;
    if (!links)
        cuk_err("out of host memory");
    else if (cuk_check_interrupt() == 0)
        m = eval_node(s, leaf);
    if (!m)
        cuk_err_locate(leaf->pos);
    for (size_t i = 0; m && i < n; i++)
        if (!(m = eval_link(s, links[i], m)))
            cuk_err_locate(links[i]->pos);
    free((void *)links);
    return m;
}

/* An assignment, or an expression shown as `ans` and kept under that name.
 * A bare name is shown under its own name and left alone, as in Octave. */
int eval_stmt(cuk_session *s, const stmt *st)
{
    int bare = st->kind == STMT_EXPR && st->expr->kind == AST_NAME;
    const char *name = st->kind == STMT_ASSIGN ? st->name : bare ? st->expr->text : "ans";
    timing_begin(s->src->text + st->start, st->end - st->start, s->mode);
    cuk_matrix *m = eval_expr(s, st->expr);
    int rc = m ? 0 : -1;
    if (timing_end(rc != 0) != 0 && rc == 0) /* the record closes before printing starts */
        rc = -1;
    if (rc == 0 && st->print)
        rc = print_value(name, m, s->format_long, session_columns(s));
    if (rc != 0 || bare) {
        mat_unref(m);
        return rc;
    }
    m->nexact = 0; /* a value kept is float32, as printed and as saved (matrix.h) */
    if (ws_set(&s->ws, name, m) != 0)
        return -1;
    if (s->time_on)
        time_report(timing_history(0), s->json, session_columns(s));
    return 0;
}
