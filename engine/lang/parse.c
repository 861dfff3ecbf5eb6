/* parse.c - the recursive-descent parser (grammar in parse.h). Each function
 * opens with the rule it parses. Positions in the AST are byte offsets into
 * the source, for error carets. */
#include "engine/lang/parse.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/suggest.h"

typedef enum { CTX_PAREN, CTX_LITERAL, CTX_INDEX } ctx_kind;

typedef struct {
    const char *src;
    const token *tok;
    size_t ntok, i;
    arena *a;
    ctx_kind ctx[PARSE_MAX_DEPTH];
    const token *opener[PARSE_MAX_DEPTH];
    int depth;         /* brackets open: the only thing that nests the parser's recursion */
    int incomplete;
} parser;

/* A growable array of pointers in the arena (old buffers are left behind). */
typedef struct {
    void **v;
    int n, cap;
} ptrvec;

static int vec_push(parser *P, ptrvec *vec, void *x)
{
    if (vec->n == vec->cap) {
        int cap = vec->cap ? 2 * vec->cap : 4;
        void **v = arena_alloc(P->a, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        if (vec->n)
            memcpy(v, vec->v, (size_t)vec->n * sizeof *v);
        vec->v = v;
        vec->cap = cap;
    }
    vec->v[vec->n++] = x;
    return 0;
}

static int in_literal(const parser *P) { return P->depth > 0 && P->ctx[P->depth - 1] == CTX_LITERAL; }

/* The current token. Inside ( ) and index [ ], line breaks are blanks. */
static const token *cur(parser *P)
{
    if (P->depth > 0 && !in_literal(P))
        while (P->tok[P->i].kind == TK_NEWLINE)
            P->i++;
    return &P->tok[P->i];
}

static const token *advance(parser *P)
{
    const token *t = cur(P);
    if (t->kind != TK_EOF)
        P->i++;
    return t;
}

static int at(parser *P, tk_kind k) { return cur(P)->kind == k; }

/* True if the bracket opened by token o has no matching closer anywhere
 * after it in the input. */
static int never_closed(const parser *P, const token *o)
{
    int depth = 0;
    for (const token *t = o; t->kind != TK_EOF; t++) {
        depth += (t->kind == TK_LPAREN || t->kind == TK_LBRACKET) - (t->kind == TK_RPAREN || t->kind == TK_RBRACKET);
        if (depth == 0)
            return 0;
    }
    return 1;
}

/* Report a syntax error at token t. Inside a bracket that is never closed,
 * the bracket is the problem (at the end of the input: the input is not
 * wrong but incomplete, and more lines may finish it). */
static void *fail(parser *P, const token *t, const char *msg)
{
    const token *o = P->depth > 0 ? P->opener[P->depth - 1] : NULL;
    if (o && never_closed(P, o)) {
        P->incomplete = t->kind == TK_EOF;
        cuk_err_at(o->pos, "unterminated '%c': missing '%c'", o->kind == TK_LPAREN ? '(' : '[',
                   o->kind == TK_LPAREN ? ')' : ']');
    } else {
        cuk_err_at(t->pos, "%s, found %s", msg, lex_describe(t->kind));
    }
    return NULL;
}

/* Open a bracket. Brackets are what nests the parser's and the evaluator's
 * recursion, so their depth is bounded here, at the bracket too many. */
static int open_ctx(parser *P, ctx_kind k)
{
    const token *t = advance(P);
    if (P->depth == PARSE_MAX_DEPTH)
        return cuk_err_at(t->pos, "expression too complex (nested more than %d deep)", PARSE_MAX_DEPTH);
    P->ctx[P->depth] = k;
    P->opener[P->depth++] = t;
    return 0;
}

static int close_ctx(parser *P, tk_kind closer, const char *msg)
{
    if (!at(P, closer)) {
        fail(P, cur(P), msg);
        return -1;
    }
    P->depth--;
    advance(P);
    return 0;
}

static ast *node(parser *P, ast_kind kind, size_t pos, size_t start)
{
    ast *n = arena_alloc(P->a, sizeof *n);
    if (n) {
        n->kind = kind;
        n->pos = pos;
        n->start = start;
        n->end = start;
    }
    return n;
}

static size_t prev_end(parser *P)
{
    size_t j = P->i;
    while (j > 0 && P->tok[j - 1].kind == TK_NEWLINE)
        j--;
    return j ? P->tok[j - 1].pos + P->tok[j - 1].len : 0;
}

static int set_kids(parser *P, ast *n, ptrvec *v)
{
    n->kid = (ast **)v->v;
    n->nkid = v->n;
    n->end = prev_end(P);
    return 0;
}

static ast *parse_expr(parser *P);

static int starts_expr(tk_kind k)
{
    return k == TK_NUMBER || k == TK_NAME || k == TK_STRING || k == TK_LPAREN ||
           k == TK_LBRACKET || k == TK_MINUS || k == TK_PLUS;
}

/* args := [expr {',' expr}] ')' */
static ast *parse_call(parser *P, const token *name)
{
    ast *n = node(P, AST_CALL, name->pos, name->pos);
    ptrvec args = {0};
    if (!n || open_ctx(P, CTX_PAREN) != 0)
        return NULL;
    n->text = name->text;
    if (!at(P, TK_RPAREN)) {
        for (;;) {
            ast *e = parse_expr(P);
            if (!e || vec_push(P, &args, e) != 0)
                return NULL;
            if (!at(P, TK_COMMA))
                break;
            advance(P);
        }
    }
    if (close_ctx(P, TK_RPAREN, "expected ',' or ')' in the argument list") != 0)
        return NULL;
    set_kids(P, n, &args);
    return n;
}

/* row := expr { [','] expr }, ending at ';', a line break or ']' */
static int parse_row(parser *P, ptrvec *row)
{
    for (;;) {
        ast *e = parse_expr(P);
        if (!e || vec_push(P, row, e) != 0)
            return -1;
        const token *t = cur(P);
        if (t->kind == TK_COMMA) {
            advance(P);
            continue;
        }
        if (t->kind == TK_SEMI || t->kind == TK_NEWLINE || t->kind == TK_RBRACKET)
            return 0;
        if (!starts_expr(t->kind)) {
            fail(P, t, "expected ',', ';' or ']' in the matrix literal");
            return -1;
        }
    }
}

/* literal := '[' row { (';' | newline) row } ']' */
static ast *parse_literal(parser *P)
{
    const token *open = cur(P);
    ast *n = node(P, AST_MATRIX, open->pos, open->pos);
    ptrvec rows = {0};
    if (!n || open_ctx(P, CTX_LITERAL) != 0)
        return NULL;
    for (;;) {
        while (at(P, TK_SEMI) || at(P, TK_NEWLINE))
            advance(P);
        if (at(P, TK_RBRACKET) || at(P, TK_EOF))
            break;
        ast *row = node(P, AST_ROW, cur(P)->pos, cur(P)->pos);
        ptrvec elems = {0};
        if (!row || parse_row(P, &elems) != 0 || vec_push(P, &rows, row) != 0)
            return NULL;
        set_kids(P, row, &elems);
    }
    if (close_ctx(P, TK_RBRACKET, "expected ']'") != 0)
        return NULL;
    if (rows.n == 0) {
        cuk_err_at(open->pos, "empty matrix literal: cuk has no empty matrices");
        return NULL;
    }
    set_kids(P, n, &rows);
    return n;
}

/* slice := expr | [expr] ':' [expr] */
static ast *parse_slice(parser *P)
{
    ast *lo = NULL;
    const token *t = cur(P);
    if (t->kind != TK_COLON) {
        lo = parse_expr(P);
        if (!lo || !at(P, TK_COLON))
            return lo;
    }
    const token *colon = advance(P);
    ast *r = node(P, AST_RANGE, colon->pos, lo ? lo->start : colon->pos);
    if (!r)
        return NULL;
    ast **kids = arena_alloc(P->a, 2 * sizeof *kids);
    if (!kids)
        return NULL;
    kids[0] = lo;
    if (!at(P, TK_COMMA) && !at(P, TK_RBRACKET) && !(kids[1] = parse_expr(P)))
        return NULL;
    if (at(P, TK_COLON)) {
        cuk_err_at(cur(P)->pos, "slice steps (a:b:step) are not supported");
        return NULL;
    }
    r->kid = kids;
    r->nkid = 2;
    r->end = prev_end(P);
    return r;
}

/* index := '[' slice [',' slice] ']' */
static ast *parse_index(parser *P, ast *base)
{
    const token *open = cur(P);
    ast *n = node(P, AST_INDEX, open->pos, base->start);
    ptrvec kids = {0};
    if (!n || vec_push(P, &kids, base) != 0 || open_ctx(P, CTX_INDEX) != 0)
        return NULL;
    for (;;) {
        if (at(P, TK_RBRACKET) || at(P, TK_COMMA))
            return fail(P, cur(P), "expected an index");
        ast *s = parse_slice(P);
        if (!s || vec_push(P, &kids, s) != 0)
            return NULL;
        if (!at(P, TK_COMMA))
            break;
        if (kids.n == 3) {
            cuk_err_at(cur(P)->pos, "too many indices: matrices have two dimensions");
            return NULL;
        }
        advance(P);
    }
    if (close_ctx(P, TK_RBRACKET, "expected ',' or ']' after the index") != 0)
        return NULL;
    set_kids(P, n, &kids);
    return n;
}

/* primary := NUMBER | STRING | NAME ['(' args ')'] | '(' expr ')' | '[' rows ']' */
static ast *parse_primary(parser *P)
{
    const token *t = cur(P);
    ast *n;
    switch (t->kind) {
    case TK_NUMBER:
    case TK_STRING:
        advance(P);
        n = node(P, t->kind == TK_NUMBER ? AST_NUMBER : AST_STRING, t->pos, t->pos);
        if (n) {
            n->num = t->num;
            n->text = t->text;
            n->end = t->pos + t->len;
        }
        return n;
    case TK_NAME:
        advance(P);
        if (at(P, TK_LPAREN) && !(in_literal(P) && cur(P)->space_before))
            return parse_call(P, t);
        n = node(P, AST_NAME, t->pos, t->pos);
        if (n) {
            n->text = t->text;
            n->end = t->pos + t->len;
        }
        return n;
    case TK_LPAREN:
        if (open_ctx(P, CTX_PAREN) != 0 || !(n = parse_expr(P)))
            return NULL;
        if (close_ctx(P, TK_RPAREN, "expected ')'") != 0)
            return NULL;
        return n;
    case TK_LBRACKET:
        return parse_literal(P);
    case TK_QUOTE:
        cuk_err_at(t->pos, "unexpected ''': strings use double quotes");
        return NULL;
    default:
        return fail(P, t, "expected an expression");
    }
}

/* postfix := primary ( "'" | '.T' | '[' index ']' )* */
static ast *parse_postfix(parser *P)
{
    ast *e = parse_primary(P);
    while (e) {
        const token *t = cur(P);
        int glued = !(in_literal(P) && t->space_before);
        if (t->kind == TK_QUOTE || t->kind == TK_DOT_T) {
            advance(P);
            ast *n = node(P, AST_TRANSPOSE, t->pos, e->start);
            if (!n || !(n->kid = arena_alloc(P->a, sizeof *n->kid)))
                return NULL;
            n->kid[0] = e;
            n->nkid = 1;
            n->end = t->pos + t->len;
            e = n;
        } else if (t->kind == TK_LBRACKET && glued) {
            e = parse_index(P, e);
        } else {
            break;
        }
    }
    return e;
}

static ast *negate(parser *P, const token *t, ast *e)
{
    ast *n = node(P, AST_NEGATE, t->pos, t->pos);
    if (!n || !(n->kid = arena_alloc(P->a, sizeof *n->kid)))
        return NULL;
    n->kid[0] = e;
    n->nkid = 1;
    n->end = e->end;
    return n;
}

/* unary := ('-'|'+') unary | postfix
 * A loop, not recursion: a run of signs is as long as the line allows.
 * The signs are read again from the tokens, innermost first. */
static ast *parse_unary(parser *P)
{
    cur(P);
    size_t first = P->i;
    while (at(P, TK_MINUS) || at(P, TK_PLUS))
        advance(P);
    size_t last = P->i;
    ast *e = parse_postfix(P);
    for (size_t j = last; e && j-- > first;)
        if (P->tok[j].kind == TK_MINUS)
            e = negate(P, &P->tok[j], e);
    return e;
}

static ast *binary(parser *P, const token *op, ast *l, ast *r)
{
    ast *n = node(P, AST_BINARY, op->pos, l->start);
    if (!n || !(n->kid = arena_alloc(P->a, 2 * sizeof *n->kid)))
        return NULL;
    n->op = op->kind;
    n->kid[0] = l;
    n->kid[1] = r;
    n->nkid = 2;
    n->end = r->end;
    return n;
}

/* prod := unary (('*'|'/'|'@') unary)* */
static ast *parse_prod(parser *P)
{
    ast *e = parse_unary(P);
    while (e && (at(P, TK_STAR) || at(P, TK_SLASH) || at(P, TK_AT))) {
        const token *op = advance(P);
        ast *r = parse_unary(P);
        e = r ? binary(P, op, e, r) : NULL;
    }
    return e;
}

/* In a literal, "a -b" is two elements: a sign with a blank before it and
 * none after starts a new one. */
static int sign_starts_element(parser *P, const token *t)
{
    return in_literal(P) && t->space_before && !t->space_after;
}

/* expr := prod (('+'|'-') prod)* */
static ast *parse_expr(parser *P)
{
    ast *e = parse_prod(P);
    while (e && (at(P, TK_PLUS) || at(P, TK_MINUS)) && !sign_starts_element(P, cur(P))) {
        const token *op = advance(P);
        ast *r = parse_prod(P);
        e = r ? binary(P, op, e, r) : NULL;
    }
    return e;
}

static int at_stmt_end(parser *P)
{
    tk_kind k = cur(P)->kind;
    return k == TK_SEMI || k == TK_COMMA || k == TK_NEWLINE || k == TK_EOF;
}

static ast *word_arg(parser *P)
{
    const token *t = advance(P);
    ast *n = node(P, t->kind == TK_STRING ? AST_STRING : t->kind == TK_NUMBER ? AST_NUMBER : AST_NAME,
                  t->pos, t->pos);
    if (!n)
        return NULL;
    n->text = t->text;
    n->num = t->num;
    n->end = t->pos + t->len;
    if (!n->text) /* a number or an operator, as in `help @`: keep its spelling */
        n->text = arena_strndup(P->a, P->src + t->pos, t->len);
    return n;
}

#define CMDLIST_ROW(id, word, alias, shape, usage, summary) {#word, alias, shape, usage, summary},
static const cmd_spec commands[CMD_COUNT] = {CUK_COMMANDS(CMDLIST_ROW)};
#undef CMDLIST_ROW

const cmd_spec *cmd_get(cmd_id id) { return &commands[id]; }

int cmd_lookup(const char *word)
{
    for (int i = 0; i < CMD_COUNT; i++)
        if (!strcmp(commands[i].word, word) || (commands[i].alias && !strcmp(commands[i].alias, word)))
            return i;
    return -1;
}

static stmt *parse_simple(parser *P);

static int push_word(parser *P, ptrvec *args, tk_kind want, const char *msg)
{
    if (cur(P)->kind != want) {
        fail(P, cur(P), msg);
        return -1;
    }
    ast *w = word_arg(P);
    return w ? vec_push(P, args, w) : -1;
}

/* The statement a command runs (timeit's, count's) into s->sub; verb says
 * what the command does with it. */
static int parse_sub(parser *P, stmt *s, const char *verb)
{
    if (at_stmt_end(P)) {
        char msg[64];
        snprintf(msg, sizeof msg, "expected a statement to %s", verb);
        fail(P, cur(P), msg);
        return -1;
    }
    return (s->sub = parse_simple(P)) ? 0 : -1;
}

/* subset := [NAME... ':']  the modes a bench or ladder runs, before a colon */
static int parse_mode_subset(parser *P, ptrvec *args)
{
    size_t j = P->i;
    while (P->tok[j].kind == TK_NAME)
        j++;
    if (j == P->i || P->tok[j].kind != TK_COLON)
        return 0;
    while (P->i < j)
        if (push_word(P, args, TK_NAME, "expected a mode name") != 0)
            return -1;
    advance(P);
    return 0;
}

/* Expect the word w (for, in); fail with msg. */
static int expect_word(parser *P, const char *w, const char *msg)
{
    if (cur(P)->kind != TK_NAME || strcmp(cur(P)->text, w) != 0) {
        fail(P, cur(P), msg);
        return -1;
    }
    advance(P);
    return 0;
}

/* ladder := subset expr 'for' NAME 'in' NUMBER+  (the sizes go after the
 * mode words in args; the variable is s->name) */
static int parse_ladder(parser *P, stmt *s, ptrvec *args)
{
    if (parse_mode_subset(P, args) != 0 || !(s->expr = parse_expr(P)) ||
        expect_word(P, "for", "expected 'for', as in: ladder A @ B for n in 256 512 1024") != 0)
        return -1;
    if (cur(P)->kind != TK_NAME) {
        fail(P, cur(P), "expected the name of the size, as in: for n in 256 512");
        return -1;
    }
    s->name = cur(P)->text;
    s->name_pos = cur(P)->pos;
    advance(P);
    if (expect_word(P, "in", "expected 'in', as in: for n in 256 512") != 0)
        return -1;
    if (cur(P)->kind != TK_NUMBER) {
        fail(P, cur(P), "expected the sizes, as in: for n in 256 512 1024");
        return -1;
    }
    while (cur(P)->kind == TK_NUMBER)
        if (push_word(P, args, TK_NUMBER, "") != 0)
            return -1;
    return 0;
}

/* command := WORD args, the arguments' shape depending on the word */
static int parse_command_args(parser *P, stmt *s)
{
    ptrvec args = {0};
    switch (commands[s->cmd].shape) {
    case ARGS_NONE:
        break;
    case ARGS_OPT_WORD:
        if (!at_stmt_end(P) && push_word(P, &args, TK_NAME, "expected a mode name") != 0)
            return -1;
        break;
    case ARGS_WORDS:
        while (!at_stmt_end(P))
            if (push_word(P, &args, TK_NAME, "expected a variable name") != 0)
                return -1;
        break;
    case ARGS_ON_OFF:
    case ARGS_FORMAT:
        if (push_word(P, &args, TK_NAME,
                      commands[s->cmd].shape == ARGS_FORMAT ? "expected short or long" : "expected on or off") != 0)
            return -1;
        break;
    case ARGS_EXPR:
        if (!(s->expr = parse_expr(P)))
            return -1;
        break;
    case ARGS_TIMEIT: {
        const token *t = cur(P), *nx = &P->tok[P->i + 1];
        if (t->kind == TK_NUMBER && (nx->kind == TK_NAME || nx->kind == TK_LBRACKET || nx->kind == TK_LPAREN ||
                                      nx->kind == TK_NUMBER || nx->kind == TK_STRING) &&
            push_word(P, &args, TK_NUMBER, "") != 0)
            return -1;
        if (parse_sub(P, s, "time") != 0)
            return -1;
        break;
    }
    case ARGS_STMT:
        if (parse_sub(P, s, "count") != 0)
            return -1;
        break;
    case ARGS_SAVE:
        if (push_word(P, &args, TK_NAME, "expected the name of a variable to save") != 0 ||
            push_word(P, &args, TK_STRING, "expected a file name in double quotes") != 0)
            return -1;
        break;
    case ARGS_RUN:
        if (push_word(P, &args, TK_STRING, "expected a file name in double quotes") != 0)
            return -1;
        if (!at_stmt_end(P) &&
            push_word(P, &args, TK_NAME, "expected step or rehearse after the file name") != 0)
            return -1;
        break;
    case ARGS_KERNEL:
        if (push_word(P, &args, TK_STRING, "expected a file name in double quotes: kernel \"my_matmul.cu\"") != 0)
            return -1;
        if (!at_stmt_end(P) &&
            (expect_word(P, "for", "expected for and an architecture after the file name (for sm_90), or nothing") != 0 ||
             push_word(P, &args, TK_NAME, "expected an architecture after for: sm_90 or compute_75") != 0))
            return -1;
        break;
    case ARGS_BENCH:
        if (parse_mode_subset(P, &args) != 0 || !(s->expr = parse_expr(P)))
            return -1;
        break;
    case ARGS_LADDER:
        if (parse_ladder(P, s, &args) != 0)
            return -1;
        break;
    case ARGS_FILE_OR_OFF:
        if (cur(P)->kind == TK_STRING ? push_word(P, &args, TK_STRING, "") != 0
                                      : push_word(P, &args, TK_NAME, "expected a file name in double quotes, or off") != 0)
            return -1;
        break;
    case ARGS_TOPIC:
        if (!at_stmt_end(P)) {
            ast *w = word_arg(P);
            if (!w || vec_push(P, &args, w) != 0)
                return -1;
            w->kind = AST_STRING;
        }
        break;
    case ARGS_SETTING: /* a switch and its value; or kernel, a setting of user kernels and its value */
        if (!at_stmt_end(P) && push_word(P, &args, TK_NAME, "expected the name of a switch") != 0)
            return -1;
        if (args.n == 1 && !at_stmt_end(P) &&
            push_word(P, &args, at(P, TK_NUMBER) ? TK_NUMBER : TK_NAME, "expected a value for the switch") != 0)
            return -1;
        if (args.n == 2 && !at_stmt_end(P) && !strcmp(((ast *)args.v[0])->text, "kernel") &&
            push_word(P, &args, TK_NUMBER, "expected a number for the setting") != 0)
            return -1;
        break;
    }
    s->arg = (ast **)args.v;
    s->narg = args.n;
    return 0;
}

static stmt *new_stmt(parser *P, stmt_kind k, size_t start)
{
    stmt *s = arena_alloc(P->a, sizeof *s);
    if (s) {
        s->kind = k;
        s->start = start;
    }
    return s;
}

/* stmt := NAME '=' expr | expr  (what timeit may time) */
static stmt *parse_simple(parser *P)
{
    const token *t = cur(P), *nx = &P->tok[P->i + 1];
    stmt *s;
    if (t->kind == TK_NAME && nx->kind == TK_ASSIGN) {
        if (!(s = new_stmt(P, STMT_ASSIGN, t->pos)))
            return NULL;
        s->name = t->text;
        s->name_pos = t->pos;
        advance(P);
        advance(P);
    } else if (t->kind == TK_NUMBER && nx->kind == TK_ASSIGN) {
        cuk_err_at(t->pos, "cannot assign to '%.*s'", (int)t->len, P->src + t->pos);
        return NULL;
    } else if (!(s = new_stmt(P, STMT_EXPR, t->pos))) {
        return NULL;
    }
    if (!(s->expr = parse_expr(P)))
        return NULL;
    if (at(P, TK_ASSIGN)) {
        cuk_err_at(cur(P)->pos, s->kind == STMT_ASSIGN ? "unexpected '=': assignments don't chain"
                                : "can only assign to a name (indexed assignment is not supported)");
        return NULL;
    }
    s->end = prev_end(P);
    return s;
}

/* stmt := command | NAME '=' expr | expr */
static stmt *parse_stmt(parser *P)
{
    const token *t = cur(P), *nx = &P->tok[P->i + 1];
    int c = t->kind == TK_NAME && nx->kind != TK_ASSIGN ? cmd_lookup(t->text) : -1;
    if (c < 0)
        return parse_simple(P);
    stmt *s = new_stmt(P, STMT_CMD, t->pos);
    if (!s)
        return NULL;
    s->cmd = (cmd_id)c;
    s->cmd_pos = t->pos;
    advance(P);
    if (parse_command_args(P, s) != 0)
        return NULL;
    s->end = prev_end(P);
    return s;
}

/* A statement that is a lone name followed by more (`modee tiled`) was
 * meant as a command when the name is a likely typo of one: say so (1),
 * else 0. */
static int typo_of_command(parser *P, const stmt *s)
{
    suggest g;
    char note[SUGGEST_NOTE];
    if (s->kind != STMT_EXPR || s->expr->kind != AST_NAME)
        return 0;
    suggest_begin(&g, s->expr->text);
    for (int i = 0; i < CMD_COUNT; i++)
        suggest_offer(&g, commands[i].word);
    if (!suggest_best(&g))
        return 0;
    cuk_err_at(s->expr->pos, "'%s' is not a command%s", s->expr->text, suggest_note(&g, note, sizeof note));
    return 1;
}

/* program := { stmt (';' | ',' | newline) } */
static parse_status parse_all(parser *P, program *out)
{
    ptrvec list = {0};
    for (;;) {
        while (at(P, TK_SEMI) || at(P, TK_COMMA) || at(P, TK_NEWLINE))
            advance(P);
        if (at(P, TK_EOF))
            break;
        stmt *s = parse_stmt(P);
        if (!s)
            return P->incomplete ? PARSE_INCOMPLETE : PARSE_ERROR;
        if (!at_stmt_end(P)) {
            if (!typo_of_command(P, s))
                fail(P, cur(P), "expected an operator or the end of the statement");
            return PARSE_ERROR;
        }
        s->print = !at(P, TK_SEMI);
        if (vec_push(P, &list, s) != 0)
            return PARSE_ERROR;
    }
    out->stmt = (stmt **)list.v;
    out->n = list.n;
    return PARSE_OK;
}

parse_status parse_program(const char *src, size_t len, arena *a, program *out)
{
    token_list tl;
    memset(out, 0, sizeof *out);
    if (lex_all(src, len, a, &tl) != 0)
        return PARSE_ERROR;
    parser P;
    memset(&P, 0, sizeof P);
    P.src = src;
    P.tok = tl.tok;
    P.ntok = tl.n;
    P.a = a;
    return parse_all(&P, out);
}
