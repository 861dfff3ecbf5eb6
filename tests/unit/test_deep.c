/* test_deep.c - the shape of an expression never crashes cuk: chains as
 * long as the line (1+1+...+1, A'''..., A[0][0]..., - - x) evaluate, and
 * brackets nested past PARSE_MAX_DEPTH are one clear error at the bracket
 * too many, after which the session goes on with its workspace intact.
 * The test lowers its own stack limit to 1 MiB first, as `ulimit -s 1024`
 * would (tests/deep.sh runs the binary that way too). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/out.h"
#include "engine/lang/parse.h"
#include "engine/run/run.h"
#include "engine/session/session.h"
#include "tests/capture.h"
#include "tests/check.h"

#define LONG_CHAIN 50000
#define FAR_OVER 50000

static cuk_session *S;

/* A growing string for generated sources. */
typedef struct {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *s)
{
    size_t k = strlen(s);
    if (t->n + k + 1 > t->cap) {
        t->cap = 2 * (t->n + k + 1);
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->n, s, k + 1);
    t->n += k;
}

static void put_n(text *t, const char *s, int n)
{
    for (int i = 0; i < n; i++)
        put(t, s);
}

/* "NAME = " + open x depth + middle + close x depth */
static text nest(const char *name, const char *open, const char *middle, const char *close, int depth)
{
    text t = {0};
    put(&t, name);
    put(&t, " = ");
    put_n(&t, open, depth);
    put(&t, middle);
    put_n(&t, close, depth);
    return t;
}

static run_status run(const char *src)
{
    capture_reset();
    return run_source(S, src, strlen(src), NULL, 1, 1);
}

/* The value of variable name, which must be a matrix of rows x cols. */
static float value_at(const char *name, int rows, int cols, int i)
{
    cuk_matrix *m = ws_get(&S->ws, name);
    CHECKF(m && m->rows == rows && m->cols == cols, "%s is %dx%d, want %dx%d", name, m ? m->rows : -1,
           m ? m->cols : -1, rows, cols);
    return m && m->rows == rows && m->cols == cols ? mat_host(m)[i] : NAN;
}

/* After an error: the session still works and the workspace is as it was. */
static void still_works(int nvars)
{
    CHECKF(S->ws.n == nvars, "the workspace has %d names, want %d", S->ws.n, nvars);
    CHECKF(run("alive = A + 1") == RUN_OK, "the session does not work after the error: %s", captured);
    run("clear alive");
}

/* Byte offset of the opening bracket that is PARSE_MAX_DEPTH + 1 deep. */
static size_t bracket_too_many(const char *src)
{
    int depth = 0;
    for (size_t i = 0; src[i]; i++) {
        depth += (src[i] == '(' || src[i] == '[') - (src[i] == ')' || src[i] == ']');
        if (depth > PARSE_MAX_DEPTH)
            return i;
    }
    return (size_t)-1;
}

/* src must fail with the nesting error, its caret at the bracket too many. */
static void check_too_deep(const char *what, const char *src)
{
    size_t at = bracket_too_many(src);
    char want[80];
    snprintf(want, sizeof want, "error: expression too complex (nested more than %d deep)\n", PARSE_MAX_DEPTH);
    int nvars = S->ws.n;
    CHECKF(run(src) == RUN_ERROR, "%s: did not fail", what);
    CHECKF(!strncmp(captured, want, strlen(want)), "%s: got '%.200s'", what, captured);
    /* the caret line shows a window of the line: the caret sits under the bracket */
    const char *l2 = strchr(captured, '\n'), *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
    const char *caret = l3 ? strchr(l3, '^') : NULL;
    CHECKF(caret && caret - l3 - 1 < l3 - l2 && l2[1 + (caret - l3 - 1)] == src[at],
           "%s: the caret is not under the bracket too many: %.300s", what, captured);
    CHECK(at != (size_t)-1);
    still_works(nvars);
}

/* Each bracket that nests: at the limit it works, one past it and far past
 * it it is the nesting error. `middle` is what the innermost holds. */
typedef struct {
    const char *name, *open, *middle, *close;
    int brackets; /* opening brackets per `open` */
    float want;   /* the value at the limit (a 1x1) */
} nesting;

static const nesting nestings[] = {
    {"parens", "(", "1", ")", 1, 1},
    {"parens_sum", "1+(", "1", ")", 1, PARSE_MAX_DEPTH + 1},
    {"literal", "[", "7", "]", 1, 7},
    {"literal_row", "[-", "7", "]", 1, 7},
    {"index", "Z[", "0", "]", 1, 0},
    {"slice", "O[0:", "1", "]", 1, 1},
    {"call", "abs(", "-2", ")", 1, 2},
    {"call_dims", "ones(", "1", ")", 1, 1},
    {"call_args", "fill(1, 1, ", "5", ")", 1, 5},
    {"transposed_parens", "(-", "2", ")'", 1, 2},
    {"literal_in_index", "Z[[(", "0", ")]]", 3, 0},
};

static void one_nesting(const nesting *c)
{
    char what[64];
    int at_limit = PARSE_MAX_DEPTH / c->brackets;
    text t = nest("x", c->open, c->middle, c->close, at_limit);
    CHECKF(run(t.s) == RUN_OK, "%s at depth %d failed: %.300s", c->name, at_limit * c->brackets, captured);
    CHECKF(value_at("x", 1, 1, 0) == c->want, "%s at the limit: x = %g, want %g", c->name, value_at("x", 1, 1, 0),
           c->want);
    run("clear x");
    free(t.s);
    int over[] = {at_limit + 1, FAR_OVER};
    for (int i = 0; i < 2; i++) {
        t = nest("x", c->open, c->middle, c->close, over[i]);
        snprintf(what, sizeof what, "%s nested %d deep", c->name, over[i] * c->brackets);
        check_too_deep(what, t.s);
        free(t.s);
    }
    /* never closed: still the same error, not a wait for more input */
    t = nest("x", c->open, c->middle, "", FAR_OVER);
    ncaptured = 0;
    CHECKF(run_source(S, t.s, t.n, NULL, 1, 0) == RUN_ERROR, "%s left open asks for more input", c->name);
    free(t.s);
}

static void nesting_limit(void)
{
    for (size_t i = 0; i < sizeof nestings / sizeof nestings[0]; i++)
        one_nesting(&nestings[i]);
}

/* A chain: NAME = first link link ... link (n links). */
static text chain(const char *first, const char *link, int n)
{
    text t = {0};
    put(&t, "x = ");
    put(&t, first);
    put_n(&t, link, n);
    return t;
}

/* Each chain, LONG_CHAIN links long, and its value. */
static void long_chains(void)
{
    struct {
        const char *first, *link;
        int n, rows, cols;
        float want;  /* element 0 */
    } c[] = {
        {"0", "+1", LONG_CHAIN, 1, 1, LONG_CHAIN},
        {"0", "-1", LONG_CHAIN + 1, 1, 1, -(LONG_CHAIN + 1)},
        {"3", "/1", LONG_CHAIN, 1, 1, 3},
        {"P", "@P", LONG_CHAIN + 1, 2, 2, 1},  /* P swaps: an even power of it is I */
        {"R", "'", LONG_CHAIN + 1, 3, 1, 1},   /* R is 1x3 */
        {"R", ".T", LONG_CHAIN, 1, 3, 1},
        {"R", "'.T", LONG_CHAIN, 1, 3, 1},
        {"A", "[0]", LONG_CHAIN, 1, 1, 3},
        {"R", "[0, -1:]", LONG_CHAIN, 1, 1, 3},
        {"A", "'[0]*1", LONG_CHAIN, 1, 1, 3},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        text t = chain(c[i].first, c[i].link, c[i].n);
        CHECKF(run(t.s) == RUN_OK, "%s%s x %d failed: %.200s", c[i].first, c[i].link, c[i].n, captured);
        float v = value_at("x", c[i].rows, c[i].cols, 0);
        CHECKF(v == c[i].want, "%s%s x %d: x[0] = %g, want %g", c[i].first, c[i].link, c[i].n, v, c[i].want);
        run("clear x");
        free(t.s);
    }
}

/* Runs of signs are chains too: any length, blanks or not. */
static void sign_runs(void)
{
    const char *signs[] = {"-", "- ", "+-", "-+ ", "+"};
    int lengths[] = {1, 2, LONG_CHAIN, LONG_CHAIN + 1};
    for (size_t i = 0; i < sizeof signs / sizeof signs[0]; i++)
        for (size_t j = 0; j < sizeof lengths / sizeof lengths[0]; j++) {
            text t = {0};
            put(&t, "x = ");
            put_n(&t, signs[i], lengths[j]);
            put(&t, "A");
            int minus = (int)(strchr(signs[i], '-') != NULL) * lengths[j];
            CHECKF(run(t.s) == RUN_OK, "'%s' x %d failed: %.200s", signs[i], lengths[j], captured);
            float v = value_at("x", 1, 1, 0);
            CHECKF(v == (minus % 2 ? -3 : 3), "'%s' x %d A: x = %g", signs[i], lengths[j], v);
            run("clear x");
            free(t.s);
        }
}

/* A long chain whose last link is wrong reports that link, and nothing
 * changes. */
static void chain_error_at_the_end(void)
{
    text t = chain("A", "+1", LONG_CHAIN);
    put(&t, "@[1; 2]");
    int nvars = S->ws.n;
    CHECKF(run(t.s) == RUN_ERROR && strstr(captured, "matmul: nonconformant operands"), "got '%.200s'", captured);
    still_works(nvars);
    free(t.s);
}

int main(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= (1 << 20))) {
        rl.rlim_cur = 1 << 20;
        setrlimit(RLIMIT_STACK, &rl);
    }
    static const cuk_frontend prompt = {.interactive = 1}; /* errors as at the prompt */
    S = session_new(&prompt);
    out_set_sink(&sink);
    const char *init = "mode cpu; A = 3; Z = 0; O = 1; P = [0 1; 1 0]; R = [1 2 3];";
    if (run(init) != RUN_OK) {
        out_set_sink(NULL);
        printf("FAIL deep_setup: %s\n", captured);
        return 1;
    }
    out_set_sink(NULL);
#define RUN_QUIET(fn) (out_set_sink(&sink), check_begin(#fn), fn(), out_set_sink(NULL), check_end())
    RUN_QUIET(nesting_limit);
    RUN_QUIET(long_chains);
    RUN_QUIET(sign_runs);
    RUN_QUIET(chain_error_at_the_end);
    session_free(S);
    return check_exit();
}
