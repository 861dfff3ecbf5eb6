/* user_launch.c - launch lines: reading them, and the geometry they give
 * for a shape (user_launch.h). A size is compiled to a stack program once,
 * at `kernel`, so that an error in it points at the file before anything
 * runs, and evaluated at each launch. */
#include "kernels/user_launch.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The stack program's instructions. */
enum { OP_NUM, OP_VAR, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_CDIV, OP_MIN, OP_MAX, OP_NEG };

/* ---- the words of one line ---- */

typedef enum { T_END, T_INT, T_NAME, T_PUNCT } tok_kind;

typedef struct {
    const char *line;     /* the line's first byte, for columns */
    const char *p, *end;  /* what is left of it */
    int lineno;
    tok_kind k;           /* the current token */
    const char *s;
    size_t n;
    long long v;
    user_diag *d;
    const char *const *vars; /* the names sizes may use here */
    int nvars;
} lexer;

static int fail(lexer *L, const char *at, const char *fmt, ...)
{
    va_list ap;
    L->d->line = L->lineno;
    L->d->col = (int)(at - L->line) + 1;
    L->d->error = 1;
    va_start(ap, fmt);
    vsnprintf(L->d->msg, sizeof L->d->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static int next(lexer *L)
{
    while (L->p < L->end && (*L->p == ' ' || *L->p == '\t' || *L->p == '\r'))
        L->p++;
    L->s = L->p;
    L->n = 0;
    if (L->p >= L->end) {
        L->k = T_END;
        return 0;
    }
    if (isdigit((unsigned char)*L->p)) {
        long long v = 0;
        while (L->p < L->end && isdigit((unsigned char)*L->p)) {
            if (v > (LLONG_MAX - 9) / 10)
                return fail(L, L->s, "the number is too large");
            v = v * 10 + (*L->p++ - '0');
        }
        L->k = T_INT, L->v = v;
    } else if (isalpha((unsigned char)*L->p) || *L->p == '_') {
        while (L->p < L->end && (isalnum((unsigned char)*L->p) || *L->p == '_'))
            L->p++;
        L->k = T_NAME;
    } else if (strchr("+-*/(),;", *L->p)) {
        L->p++;
        L->k = T_PUNCT;
    } else {
        return fail(L, L->s, "unexpected '%c' in a launch line", *L->p);
    }
    L->n = (size_t)(L->p - L->s);
    return 0;
}

static int is_punct(const lexer *L, char c) { return L->k == T_PUNCT && *L->s == c; }

static int is_word(const lexer *L, const char *w) { return L->k == T_NAME && L->n == strlen(w) && !strncmp(L->s, w, L->n); }

/* ---- sizes ---- */

static int emit(lexer *L, ul_expr *e, int op, long long v)
{
    if (e->n == UL_CODE)
        return fail(L, L->s, "the expression is too long");
    e->c[e->n].op = (unsigned char)op;
    e->c[e->n++].v = v;
    return 0;
}

static int parse_sum(lexer *L, ul_expr *e);

/* "it may use m, n, k" */
static const char *var_list(const lexer *L, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < L->nvars && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", L->vars[i]);
    return buf;
}

/* NAME '(' sum [',' sum] ')': ceil of one, min or max of two */
static int parse_call(lexer *L, ul_expr *e)
{
    char fn[8];
    snprintf(fn, sizeof fn, "%.*s", (int)L->n, L->s);
    int op = !strcmp(fn, "ceil") ? OP_CDIV : !strcmp(fn, "min") ? OP_MIN : OP_MAX;
    if (next(L) != 0)
        return -1;
    if (!is_punct(L, '('))
        return fail(L, L->s, "expected ( after %s", fn);
    if (next(L) != 0 || parse_sum(L, e) != 0)
        return -1;
    if (op != OP_CDIV) {
        if (!is_punct(L, ','))
            return fail(L, L->s, "%s takes two sizes: %s(a, b)", fn, fn);
        if (next(L) != 0 || parse_sum(L, e) != 0 || emit(L, e, op, 0) != 0)
            return -1;
    } else if (e->n > 0 && e->c[e->n - 1].op == OP_DIV) {
        e->c[e->n - 1].op = OP_CDIV; /* ceil(a / b): the division rounds up; ceil of a whole number is itself */
    }
    if (!is_punct(L, ')'))
        return fail(L, L->s, "expected ) to close %s(", fn);
    return next(L);
}

/* factor := INT | NAME | call | '(' sum ')' | '-' factor */
static int parse_factor(lexer *L, ul_expr *e)
{
    char vars[64];
    if (L->k == T_INT) {
        if (emit(L, e, OP_NUM, L->v) != 0)
            return -1;
        return next(L);
    }
    if (is_punct(L, '-'))
        return next(L) != 0 || parse_factor(L, e) != 0 ? -1 : emit(L, e, OP_NEG, 0);
    if (is_punct(L, '(')) {
        if (next(L) != 0 || parse_sum(L, e) != 0)
            return -1;
        if (!is_punct(L, ')'))
            return fail(L, L->s, "expected )");
        return next(L);
    }
    if (is_word(L, "ceil") || is_word(L, "min") || is_word(L, "max"))
        return parse_call(L, e);
    if (L->k == T_NAME) {
        for (int i = 0; i < L->nvars; i++)
            if (is_word(L, L->vars[i]))
                return emit(L, e, OP_VAR, i) != 0 ? -1 : next(L);
        return fail(L, L->s, "unknown name '%.*s' in a size (this entry point's sizes may use %s)", (int)L->n, L->s,
                    var_list(L, vars, sizeof vars));
    }
    return fail(L, L->s, L->k == T_END ? "expected a size at the end of the line" : "expected a size");
}

/* term := factor (('*' | '/') factor)* */
static int parse_term(lexer *L, ul_expr *e)
{
    if (parse_factor(L, e) != 0)
        return -1;
    while (is_punct(L, '*') || is_punct(L, '/')) {
        int op = *L->s == '*' ? OP_MUL : OP_DIV;
        if (next(L) != 0 || parse_factor(L, e) != 0 || emit(L, e, op, 0) != 0)
            return -1;
    }
    return 0;
}

/* sum := term (('+' | '-') term)* */
static int parse_sum(lexer *L, ul_expr *e)
{
    if (parse_term(L, e) != 0)
        return -1;
    while (is_punct(L, '+') || is_punct(L, '-')) {
        int op = *L->s == '+' ? OP_ADD : OP_SUB;
        if (next(L) != 0 || parse_term(L, e) != 0 || emit(L, e, op, 0) != 0)
            return -1;
    }
    return 0;
}

/* Up to max sizes, blanks or commas between them, to ';' or the end. */
static int parse_sizes(lexer *L, ul_expr *e, int max, int *count, const char *what)
{
    *count = 0;
    while (L->k != T_END && !is_punct(L, ';')) {
        if (*count == max)
            return fail(L, L->s, "%s takes at most %d size%s", what, max, max == 1 ? "" : "s");
        memset(&e[*count], 0, sizeof e[0]);
        if (parse_sum(L, &e[(*count)++]) != 0)
            return -1;
        if (is_punct(L, ',') && next(L) != 0)
            return -1;
    }
    return *count ? 0 : fail(L, L->s, "%s needs a size", what);
}

/* ---- lines ---- */

/* The first entry point the file defines that is named after pos, or -1. */
static int entry_after(const char *pos, const char *end, const int *defined)
{
    int best = -1;
    const char *best_at = end;
    for (int e = 0; e < user_entry_count(); e++) {
        size_t n = strlen(user_entry_get(e)->name);
        for (const char *p = pos; defined[e] && p + n <= best_at; p++)
            if (!strncmp(p, user_entry_get(e)->name, n) && (p + n == end || !(isalnum((unsigned char)p[n]) || p[n] == '_')) &&
                (p == pos || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
                best = e, best_at = p;
                break;
            }
    }
    return best;
}

/* block, grid or smem for entry e. */
static int parse_clause(lexer *L, ul_launch *l, const char *entry)
{
    const char *at = L->s;
    int block = is_word(L, "block"), grid = is_word(L, "grid"), n = 0;
    int given = block ? l->nblock : grid ? l->ngrid : l->has_smem;
    char word[8];
    snprintf(word, sizeof word, "%.*s", (int)L->n, L->s);
    if (given)
        return fail(L, at, "a second %s for %s (the first is on line %d)", word, entry, l->line);
    if (next(L) != 0)
        return -1;
    if (block)
        return parse_sizes(L, l->block, 3, &l->nblock, "block");
    if (grid)
        return parse_sizes(L, l->grid, 3, &l->ngrid, "grid");
    if (parse_sizes(L, &l->smem, 1, &n, "smem") != 0)
        return -1;
    l->has_smem = 1;
    return 0;
}

/* base NAME | reuse INT: the file's own settings. */
static int parse_setting(lexer *L, ul_file *f)
{
    if (is_word(L, "base")) {
        if (next(L) != 0)
            return -1;
        if (L->k != T_NAME || L->n >= sizeof f->base)
            return fail(L, L->s, "base takes the name of a mode: base tiled");
        snprintf(f->base, sizeof f->base, "%.*s", (int)L->n, L->s);
        f->base_line = L->lineno, f->base_col = (int)(L->s - L->line) + 1;
        return next(L);
    }
    if (next(L) != 0)
        return -1;
    if (L->k != T_INT || L->v > 1 << 20)
        return fail(L, L->s, "reuse takes a whole number: how many multiply-adds each float loaded feeds");
    f->reuse = (int)L->v;
    return next(L);
}

static int is_clause(const lexer *L) { return is_word(L, "block") || is_word(L, "grid") || is_word(L, "smem"); }

/* The entry point a line's clauses are for: the one named at its start
 * (consumed), else the first defined after the line. -1 with the error. */
static int line_entry(lexer *L, const int *defined, const char *src_end)
{
    char name[64];
    if (L->k == T_NAME && L->n > 4 && !strncmp(L->s, "cuk_", 4)) {
        snprintf(name, sizeof name, "%.*s", (int)L->n, L->s);
        int e = user_entry_find(name);
        if (e < 0)
            return fail(L, L->s, "no entry point is called %s (`help kernel` lists them)", name);
        if (!defined[e])
            return fail(L, L->s, "%s is not defined in this file", name);
        return next(L) != 0 ? -1 : e;
    }
    int e = entry_after(L->end, src_end, defined);
    if (e < 0)
        return fail(L, L->s, "a launch line names its entry point (// cuk: cuk_matmul block 16 16), or stands before it");
    return e;
}

/* One launch line, after "cuk:". */
static int parse_line(lexer *L, const int *defined, const char *src_end, ul_file *f)
{
    int e = -2; /* not looked for yet: a line of settings alone needs no entry point */
    if (next(L) != 0)
        return -1;
    while (L->k != T_END) {
        if (is_word(L, "base") || is_word(L, "reuse")) {
            if (parse_setting(L, f) != 0)
                return -1;
        } else if (is_clause(L) || (e == -2 && L->k == T_NAME && !strncmp(L->s, "cuk_", 4))) {
            if (e == -2 && (e = line_entry(L, defined, src_end)) < 0)
                return -1;
            const user_kind_info *k = user_kind_get(user_entry_get(e)->kind);
            L->vars = k->var, L->nvars = k->nints;
            if (!is_clause(L))
                return fail(L, L->s, "expected block, grid or smem after %s", user_entry_get(e)->name);
            if (parse_clause(L, &f->launch[e], user_entry_get(e)->name) != 0)
                return -1;
            f->launch[e].line = L->lineno;
        } else if (L->k == T_NAME) {
            return fail(L, L->s, "unknown word '%.*s' in a launch line: expected block, grid, smem, base or reuse",
                        (int)L->n, L->s);
        } else {
            return fail(L, L->s, "expected block, grid, smem, base or reuse");
        }
        if (is_punct(L, ';')) {
            if (next(L) != 0)
                return -1;
        } else if (L->k != T_END) {
            return fail(L, L->s, "expected ; between the parts of a launch line");
        }
    }
    return 0;
}

/* Where "cuk:" starts the comment that is line [p, end), else NULL. */
static const char *launch_comment(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (end - p < 2 || p[0] != '/' || p[1] != '/')
        return NULL;
    for (p += 2; p < end && (*p == ' ' || *p == '\t'); p++)
        ;
    return end - p >= 4 && !strncmp(p, "cuk:", 4) ? p + 4 : NULL;
}

int ul_parse(const char *src, size_t len, const int *defined, ul_file *f, user_diag *d)
{
    const char *end = src + len;
    memset(f, 0, sizeof *f);
    memset(d, 0, sizeof *d);
    int lineno = 1;
    for (const char *line = src; line < end; lineno++) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        eol = eol ? eol : end;
        const char *body = launch_comment(line, eol);
        if (body) {
            lexer L = {line, body, eol, lineno, T_END, NULL, 0, 0, d, NULL, 0};
            if (parse_line(&L, defined, end, f) != 0)
                return -1;
        }
        line = eol + 1;
    }
    return 0;
}

/* ---- geometry ---- */

/* The value of e for vals, or -1 with why set. */
static int eval(const ul_expr *e, const long long *vals, long long *out, char *why, size_t cap)
{
    long long st[UL_CODE];
    int sp = 0;
    for (int i = 0; i < e->n; i++) {
        long long a = sp >= 2 ? st[sp - 2] : 0, b = sp >= 1 ? st[sp - 1] : 0, r = 0;
        int bad = 0;
        switch (e->c[i].op) {
        case OP_NUM: st[sp++] = e->c[i].v; continue;
        case OP_VAR: st[sp++] = vals[e->c[i].v]; continue;
        case OP_NEG: st[sp - 1] = -b; continue;
        case OP_ADD: bad = __builtin_add_overflow(a, b, &r); break;
        case OP_SUB: bad = __builtin_sub_overflow(a, b, &r); break;
        case OP_MUL: bad = __builtin_mul_overflow(a, b, &r); break;
        case OP_MIN: r = a < b ? a : b; break;
        case OP_MAX: r = a > b ? a : b; break;
        case OP_DIV:
        case OP_CDIV:
            if (b == 0) {
                snprintf(why, cap, "divides by zero");
                return -1;
            }
            r = a / b;
            if (e->c[i].op == OP_CDIV && r * b != a && (a < 0) == (b < 0))
                r++;
            break;
        }
        if (bad) {
            snprintf(why, cap, "overflows");
            return -1;
        }
        st[--sp - 1] = r;
    }
    *out = st[0];
    return 0;
}

/* The kind's default sizes for block or grid, compiled from its text. */
static int default_sizes(user_kind kind, int grid, ul_expr *e, int *n)
{
    const user_kind_info *k = user_kind_get(kind);
    const char *text = grid ? k->grid : k->block;
    user_diag d;
    lexer L = {text, text, text + strlen(text), 0, T_END, NULL, 0, 0, &d, k->var, k->nints};
    return next(&L) != 0 ? -1 : parse_sizes(&L, e, 3, n, grid ? "grid" : "block");
}

/* "m = 17, n = 33, k = 65" */
static const char *shape_text(user_kind kind, const long long *vals, char *buf, size_t cap)
{
    const user_kind_info *k = user_kind_get(kind);
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < k->nints && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s = %lld", i ? ", " : "", k->var[i], vals[i]);
    return buf;
}

/* Evaluate one or three sizes into dims (missing ones 1), each checked
 * against the limits; -1 with why. */
static int sizes(const ul_expr *e, int n, const long long *vals, const long long *limit, unsigned *dims,
                 const char *what, char *why, size_t cap)
{
    static const char axis[] = "xyz";
    char err[64];
    for (int i = 0; i < 3; i++) {
        long long v = 1;
        if (i < n && eval(&e[i], vals, &v, err, sizeof err) != 0) {
            snprintf(why, cap, "%s %c %s", what, axis[i], err);
            return -1;
        }
        if (v < 1 || v > limit[i]) {
            snprintf(why, cap, "%s %c is %lld; it must be 1 to %lld", what, axis[i], v, limit[i]);
            return -1;
        }
        dims[i] = (unsigned)v;
    }
    return 0;
}

int ul_geometry_of(const ul_file *f, int e, const long long *vals, ul_geometry *g, char *why, size_t cap)
{
    static const long long block_max[3] = {1024, 1024, 64}, grid_max[3] = {INT_MAX, 65535, 65535};
    const ul_launch *l = &f->launch[e];
    user_kind kind = user_entry_get(e)->kind;
    ul_expr dflt[3];
    int nd = 0;
    char err[200], shape[96];
    long long smem = 0;
    int rc = 0;
    if (l->nblock)
        rc = sizes(l->block, l->nblock, vals, block_max, g->block, "block", err, sizeof err);
    else
        rc = default_sizes(kind, 0, dflt, &nd) != 0 ? -1 : sizes(dflt, nd, vals, block_max, g->block, "block", err, sizeof err);
    if (rc == 0 && l->ngrid)
        rc = sizes(l->grid, l->ngrid, vals, grid_max, g->grid, "grid", err, sizeof err);
    else if (rc == 0)
        rc = default_sizes(kind, 1, dflt, &nd) != 0 ? -1 : sizes(dflt, nd, vals, grid_max, g->grid, "grid", err, sizeof err);
    if (rc == 0 && (unsigned long long)g->block[0] * g->block[1] * g->block[2] > 1024) {
        snprintf(err, sizeof err, "block is %ux%ux%u = %llu threads; a block holds at most 1024", g->block[0],
                 g->block[1], g->block[2], (unsigned long long)g->block[0] * g->block[1] * g->block[2]);
        rc = -1;
    }
    if (rc == 0 && l->has_smem && eval(&l->smem, vals, &smem, err, sizeof err) != 0)
        rc = -1;
    if (rc == 0 && (smem < 0 || smem > INT_MAX)) {
        snprintf(err, sizeof err, "smem is %lld bytes", smem);
        rc = -1;
    }
    g->smem = (size_t)smem;
    if (rc != 0)
        snprintf(why, cap, "%s at %s (%s)", err, shape_text(kind, vals, shape, sizeof shape),
                 l->line ? "its launch line" : "the default launch");
    return rc;
}

const char *ul_describe(const ul_file *f, int e, const char *src, size_t len, char *buf, size_t cap)
{
    const ul_launch *l = &f->launch[e];
    const user_kind_info *k = user_kind_get(user_entry_get(e)->kind);
    const char *line = src, *end = src + len;
    for (int i = 1; i < l->line && line < end; i++) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        line = eol ? eol + 1 : end;
    }
    const char *eol = line < end ? memchr(line, '\n', (size_t)(end - line)) : NULL;
    const char *body = l->line && line < end ? launch_comment(line, eol ? eol : end) : NULL;
    if (!body) {
        snprintf(buf, cap, "block %s; grid %s (the default)", k->block, k->grid);
        return buf;
    }
    while (*body == ' ' || *body == '\t')
        body++;
    int n = (int)((eol ? eol : end) - body);
    while (n > 0 && (body[n - 1] == ' ' || body[n - 1] == '\r' || body[n - 1] == '\t'))
        n--;
    snprintf(buf, cap, "%.*s (line %d)%s", n, body, l->line,
             l->nblock && l->ngrid ? "" : l->nblock ? "; the default grid" : l->ngrid ? "; the default block" : "");
    return buf;
}
