/* test_parse.c - the lexer and parser: tokens and positions, the grammar's
 * shapes, Octave's blank rule in literals, incomplete input, and the
 * position of every syntax error. */
#include <string.h>

#include "base/error.h"
#include "engine/lang/parse.h"
#include "tests/check.h"

static arena A;
static program P;

static parse_status parse(const char *src)
{
    arena_free(&A);
    cuk_err_clear();
    return parse_program(src, strlen(src), &A, &P);
}

/* The tree as a compact S-expression, to compare shapes. */
static void show(const ast *e, char *out, size_t cap)
{
    char buf[512] = "";
    size_t n = strlen(out);
    if (!e) {
        snprintf(out + n, cap - n, "_");
        return;
    }
    switch (e->kind) {
    case AST_NUMBER: snprintf(out + n, cap - n, "%g", e->num); return;
    case AST_NAME: snprintf(out + n, cap - n, "%s", e->text); return;
    case AST_STRING: snprintf(out + n, cap - n, "\"%s\"", e->text); return;
    case AST_BINARY: snprintf(buf, sizeof buf, "(%s", lex_describe(e->op)); break;
    case AST_NEGATE: snprintf(buf, sizeof buf, "(neg"); break;
    case AST_TRANSPOSE: snprintf(buf, sizeof buf, "(T"); break;
    case AST_CALL: snprintf(buf, sizeof buf, "(%s", e->text); break;
    case AST_INDEX: snprintf(buf, sizeof buf, "(idx"); break;
    case AST_RANGE: snprintf(buf, sizeof buf, "(:"); break;
    case AST_MATRIX: snprintf(buf, sizeof buf, "(mat"); break;
    case AST_ROW: snprintf(buf, sizeof buf, "(row"); break;
    }
    snprintf(out + n, cap - n, "%s", buf);
    for (int i = 0; i < e->nkid; i++) {
        n = strlen(out);
        snprintf(out + n, cap - n, " ");
        show(e->kid[i], out, cap);
    }
    n = strlen(out);
    snprintf(out + n, cap - n, ")");
}

static const char *tree(const char *src)
{
    static char out[2048];
    out[0] = '\0';
    if (parse(src) != PARSE_OK || P.n != 1)
        return cuk_err_get()->msg;
    show(P.stmt[0]->expr, out, sizeof out);
    return out;
}

#define TREE(src, want) CHECKF(!strcmp(tree(src), want), "%s -> %s, want %s", src, tree(src), want)

static void precedence(void)
{
    TREE("1 + 2 * 3", "('+' 1 ('*' 2 3))");
    TREE("1 - 2 - 3", "('-' ('-' 1 2) 3)");
    TREE("-A @ B", "('@' (neg A) B)");
    TREE("A @ B'", "('@' A (T B))");
    TREE("(A + B).T", "(T ('+' A B))");
    TREE("A'' ", "(T (T A))");
    TREE("2 / -x", "('/' 2 (neg x))");
    TREE("- - 1", "(neg (neg 1))");
    TREE("+A", "A");
    TREE("f(a, b + 1)", "(f a ('+' b 1))");
    TREE("rand()", "(rand)");
    TREE("1.5e-3 + .5", "('+' 0.0015 0.5)");
}

static void literals(void)
{
    TREE("[1 2; 3 4]", "(mat (row 1 2) (row 3 4))");
    TREE("[1, 2\n 3, 4]", "(mat (row 1 2) (row 3 4))");
    TREE("[1 -2]", "(mat (row 1 (neg 2)))");
    TREE("[1 - 2]", "(mat (row ('-' 1 2)))");
    TREE("[1 -  2]", "(mat (row ('-' 1 2)))");
    TREE("[a' b']", "(mat (row (T a) (T b)))");
    TREE("[A [1 2]]", "(mat (row A (mat (row 1 2))))");
    TREE("[f (1)]", "(mat (row f 1))");
    TREE("[f(1)]", "(mat (row (f 1)))");
    TREE("[1 2;]", "(mat (row 1 2))");
    TREE("[(1 -2)]", "(mat (row ('-' 1 2)))");
    TREE("[x[0] 1]", "(mat (row (idx x 0) 1))");
    TREE("[inf nan]", "(mat (row inf nan))");
}

static void indexing(void)
{
    TREE("A[2, 3]", "(idx A 2 3)");
    TREE("A[0:5, :]", "(idx A (: 0 5) (: _ _))");
    TREE("A[:2, 1:]", "(idx A (: _ 2) (: 1 _))");
    TREE("A[-1]", "(idx A (neg 1))");
    TREE("A[1][0]", "(idx (idx A 1) 0)");
    TREE("A[\n1,\n2]", "(idx A 1 2)");
}

static void statements(void)
{
    CHECK(parse("A = 1; B = 2, C = 3\nD") == PARSE_OK && P.n == 4);
    CHECK(P.stmt[0]->kind == STMT_ASSIGN && !strcmp(P.stmt[0]->name, "A") && !P.stmt[0]->print);
    CHECK(P.stmt[1]->print && P.stmt[2]->print && P.stmt[3]->kind == STMT_EXPR);
    CHECK(parse("#!/usr/bin/env cuk\n# only comments\n\n") == PARSE_OK && P.n == 0);
    CHECK(parse("x = 1 # trailing comment") == PARSE_OK && P.n == 1);
    /* the word as typed: the command, not the parser, looks it up in the mode table */
    CHECK(parse("mode warp; modes; who") == PARSE_OK && P.n == 3 && P.stmt[0]->kind == STMT_CMD &&
          P.stmt[0]->cmd == CMD_MODE && !strcmp(P.stmt[0]->arg[0]->text, "warp"));
    CHECK(parse("mode = 3") == PARSE_OK && P.stmt[0]->kind == STMT_ASSIGN); /* a variable, not the command */
    CHECK(parse("timeit 100 C = A @ B") == PARSE_OK && P.stmt[0]->cmd == CMD_TIMEIT && P.stmt[0]->narg == 1 &&
          P.stmt[0]->arg[0]->num == 100 && P.stmt[0]->sub->kind == STMT_ASSIGN);
    CHECK(parse("timeit 2 + 3") == PARSE_OK && P.stmt[0]->narg == 0 && P.stmt[0]->sub->kind == STMT_EXPR);
    CHECK(parse("save A \"a b.npy\"") == PARSE_OK && !strcmp(P.stmt[0]->arg[1]->text, "a b.npy"));
    CHECK(parse("clear A B C") == PARSE_OK && P.stmt[0]->narg == 3);
    CHECK(parse("help @") == PARSE_OK && !strcmp(P.stmt[0]->arg[0]->text, "@"));
    CHECK(parse("bench A @ B") == PARSE_OK && P.stmt[0]->expr->kind == AST_BINARY);
    CHECK(parse("seed 42; exit") == PARSE_OK && P.stmt[1]->cmd == CMD_QUIT);
    CHECK(parse("s = \"a\\\"b\\\\\"") == PARSE_OK && !strcmp(P.stmt[0]->expr->text, "a\"b\\"));
}

static void incomplete(void)
{
    CHECK(parse("A = [1 2") == PARSE_INCOMPLETE);
    CHECK(parse("A = [1 2;\n3 4") == PARSE_INCOMPLETE);
    CHECK(parse("f(1,") == PARSE_INCOMPLETE);
    CHECK(parse("(((") == PARSE_INCOMPLETE);
    CHECK(parse("A[0,") == PARSE_INCOMPLETE);
    CHECK(parse("A = [1 2\n3 4]") == PARSE_OK); /* the continuation, joined */
    CHECK(parse("A = 1 +") == PARSE_ERROR);     /* a dangling operator is wrong, not open */
    CHECK(parse("A = [1 2)") == PARSE_ERROR);
    CHECK(parse("x = \"abc") == PARSE_ERROR); /* strings don't span lines */
    CHECK(parse("A = [1 2") == PARSE_INCOMPLETE && cuk_err_get()->pos == 4);
}

/* Each bad input: the error's byte position, and a word its message must hold. */
static void error_positions(void)
{
    static const struct {
        const char *src;
        size_t pos;
        const char *says;
    } bad[] = {
        {"A = ", 4, "expected an expression"},
        {"A = B +", 7, "expected an expression"},
        {"A = B + * C", 8, "expected an expression"},
        {"C = A @@ B", 7, "expected an expression"},
        {"A B", 2, "expected an operator"},
        {"A = (1 + 2", 4, "unterminated '('"},
        {"A = 1 + 2)", 9, "found ')'"},
        {"x = 3 $ 4", 6, "unexpected character '$'"},
        {"x = \x01", 4, "unexpected byte 0x01"},
        {"x = 'abc'", 4, "strings use double quotes"},
        {"x = \"abc", 4, "unterminated string"},
        {"x = 1e", 4, "exponent"},
        {"x = 2x", 4, "malformed number"},
        {"x = A .* B", 6, "'.*' is not an operator"},
        {"x = A ^ 2", 6, "'^' is not supported"},
        {"x == 1", 2, "comparisons"},
        {"A[0] = 1", 5, "indexed assignment"},
        {"a = b = 1", 6, "don't chain"},
        {"inf = 1", 0, "cannot assign to 'inf'"},
        {"x = []", 4, "empty matrix literal"},
        {"x = A[0:1:2]", 9, "slice steps"},
        {"x = A[1, 2, 3]", 10, "too many indices"},
        {"x = A[]", 6, "expected an index"},
        {"mode 3", 5, "expected a mode name"},
        {"save A", 6, "file name in double quotes"},
        {"save \"a.npy\"", 5, "name of a variable"},
        {"time;", 4, "on or off"},
        {"run a.cuk", 5, "double quotes"},
        {"run \"a.cuk\" step x", 17, "end of the statement"},
        {"run \"a.cuk\" 3", 12, "step or rehearse"},
        {"timeit", 6, "statement to time"},
        {"x = \"a\\q\"", 6, "unknown escape"},
        {"f(1 2)", 4, "',' or ')'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        parse_status st = parse(bad[i].src);
        const cuk_error *e = cuk_err_get();
        CHECKF(st != PARSE_OK, "'%s' parsed", bad[i].src);
        CHECKF(e->pos == bad[i].pos, "'%s': error at %zu, want %zu (%s)", bad[i].src, e->pos, bad[i].pos, e->msg);
        CHECKF(strstr(e->msg, bad[i].says) != NULL, "'%s': message '%s' lacks '%s'", bad[i].src, e->msg,
               bad[i].says);
    }
}

/* Hostile input must end in an error, not a crash: brackets past
 * PARSE_MAX_DEPTH are an error at the bracket too many; runs of signs are
 * flat, any length. */
static void deep_nesting(void)
{
    static char deep[100001];
    memset(deep, '(', 100000);
    CHECK(parse(deep) == PARSE_ERROR && strstr(cuk_err_get()->msg, "expression too complex"));
    CHECKF(cuk_err_get()->pos == PARSE_MAX_DEPTH, "error at %zu", cuk_err_get()->pos);
    for (int i = 0; i < 100000; i += 2) {
        deep[i] = '[';
        deep[i + 1] = ' ';
    }
    CHECK(parse(deep) == PARSE_ERROR && strstr(cuk_err_get()->msg, "nested more than 200 deep"));
    CHECKF(cuk_err_get()->pos == 2 * PARSE_MAX_DEPTH, "error at %zu", cuk_err_get()->pos);
    memset(deep, '-', 100000);
    CHECK(parse(deep) == PARSE_ERROR && strstr(cuk_err_get()->msg, "expected an expression, found end of input"));
    deep[99999] = '1';
    CHECK(parse(deep) == PARSE_OK);
    deep[99999] = '\0';
    memset(deep, '(', PARSE_MAX_DEPTH);
    deep[PARSE_MAX_DEPTH] = '1';
    memset(deep + PARSE_MAX_DEPTH + 1, ')', PARSE_MAX_DEPTH);
    deep[2 * PARSE_MAX_DEPTH + 1] = '\0';
    CHECK(parse(deep) == PARSE_OK);
}

/* Chains are built by loops: long ones parse, and keep their shape. */
static void long_chains(void)
{
    static char src[300001];
    const char *link[] = {"+1", "-1", "*A", "@A", "'", ".T", "[0]", "[0, :]"};
    TREE("- + - 1", "(neg (neg 1))");
    TREE("-+x", "(neg x)");
    TREE("A'[0].T", "(T (idx (T A) 0))");
    for (size_t k = 0; k < sizeof link / sizeof link[0]; k++) {
        size_t n = 1, len = strlen(link[k]);
        src[0] = 'A';
        while (n + len < sizeof src) {
            memcpy(src + n, link[k], len);
            n += len;
        }
        src[n] = '\0';
        CHECKF(parse(src) == PARSE_OK, "A%s... (%zu bytes): %s", link[k], n, cuk_err_get()->msg);
    }
}

int main(void)
{
    RUN(precedence);
    RUN(literals);
    RUN(indexing);
    RUN(statements);
    RUN(incomplete);
    RUN(error_positions);
    RUN(deep_nesting);
    RUN(long_chains);
    arena_free(&A);
    return check_exit();
}
