/* test_sizes.c - sizes, indices and seeds are exact integers, checked
 * before use: dimensions and indices at 2^24 +- 1 (where float32 starts to
 * skip whole numbers), size() past 2^24, arithmetic on them, the shape
 * limits near 2^31 and 2^63, inf/nan/fractions, matrix literals whose width
 * would wrap an int, and sizes too large for memory refused before any
 * allocation. Matrices here are at most 64 MiB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/out.h"
#include "engine/run/run.h"
#include "engine/session/session.h"
#include "tests/capture.h"
#include "tests/check.h"

#define P24 16777216 /* 2^24 */

static cuk_session *S;

static run_status run(const char *src)
{
    capture_reset();
    return run_source(S, src, strlen(src), NULL, 1, 1);
}

static cuk_matrix *var(const char *name) { return ws_get(&S->ws, name); }

/* src runs, and NAME is then rows x cols. */
static void check_shape_of(const char *src, const char *name, int rows, int cols)
{
    CHECKF(run(src) == RUN_OK, "%s: %.200s", src, captured);
    cuk_matrix *m = var(name);
    CHECKF(m && m->rows == rows && m->cols == cols, "%s: %s is %dx%d, want %dx%d", src, name, m ? m->rows : -1,
           m ? m->cols : -1, rows, cols);
}

/* src fails with a message holding `says`, and changes nothing. */
static void check_fails(const char *src, const char *says)
{
    int n = S->ws.n;
    size_t host = mat_host_total();
    CHECKF(run(src) == RUN_ERROR, "'%s' did not fail", src);
    CHECKF(strstr(captured, says) != NULL, "'%s': got '%.300s', want '%s'", src, captured, says);
    CHECKF(S->ws.n == n && mat_host_total() == host, "'%s' changed the workspace or kept memory", src);
}

/* The value that a size, an index or a seed would read from NAME. */
static double exact_of(const char *name)
{
    double v = NAN;
    cuk_matrix *m = var(name);
    CHECKF(m && mat_scalar_exact(m, &v) == 0, "%s is not a scalar", name);
    return v;
}

/* zeros/ones/rand/eye/fill take dimensions at 2^24 +- 1 exactly, typed,
 * computed, or from size() (every form at 2^24 + 1, the first float32
 * cannot hold; each matrix is 64 MiB). */
static void dims_past_2_24(void)
{
    const char *forms[] = {"zeros(%d, 1)", "ones(1, %d)", "fill(%d, 1, 3)", "rand(1, %d)",
                           "zeros(%d - 1 + 1, 1)", "zeros(1, 2 * (%d / 2))", "randn((%d * 3 + 3) / 3 - 1, 1)"};
    for (int d = P24 - 1; d <= P24 + 1; d++)
        for (size_t f = 0; f < (d == P24 + 1 ? sizeof forms / sizeof forms[0] : 2); f++) {
            char src[96];
            int n = snprintf(src, sizeof src, "x = ");
            snprintf(src + n, sizeof src - n, forms[f], d);
            int col = strstr(forms[f], "(1, ") != NULL;
            check_shape_of(src, "x", col ? 1 : d, col ? d : 1);
            run("clear x");
        }
    check_fails("x = zeros(16777217 / 2, 1)", "zeros: dimensions must be whole numbers (got 8388608.5 and 1)");
    check_fails("x = ones(1, 16777217 * 0.5)", "ones: dimensions must be whole numbers (got 1 and 8388608.5)");
    check_shape_of("x = zeros(16777217, 1)", "x", P24 + 1, 1);
    check_shape_of("y = zeros(size(x)[0, 0], size(x)[0, 1])", "y", P24 + 1, 1);
    check_shape_of("z = eye(1, size(x')[0, 1])", "z", 1, P24 + 1);
    run("clear x y z n");
}

/* size() and what is computed from it are exact where a size or an index
 * reads them in the same statement; a value printed or kept under a name
 * is float32, like any (matrix.h): it shows what a save writes. */
static void size_exact(void)
{
    CHECK(run("x = [zeros(16777215, 1); 1; 2]; s = size(x)") == RUN_OK);
    CHECKF(strstr(captured, "s = 1x2 (host)\n  16777216         1\n"), "got '%s'", captured);
    check_shape_of("y = zeros(size(x)[0, 0] - 1, 1)", "y", P24, 1);
    check_shape_of("y = zeros(size(x)[0, 0] * 2 / 2, 1)", "y", P24 + 1, 1);
    check_shape_of("y = zeros((size(x)[0, 0] - 1) / 2, 1)", "y", P24 / 2, 1);
    check_shape_of("y = zeros(size(x)[0, -1], size(x)'[0, 0])", "y", 1, P24 + 1);
    run("clear y");
    check_fails("zeros(size(x)[0, 0] / 2, 1)", "zeros: dimensions must be whole numbers (got 8388608.5 and 1)");
    run("n = size(x)[0, 0]; m = n - 1; k = -size(x)[0, 0]");
    CHECK(exact_of("n") == P24 && var("n")->nexact == 0);
    CHECK(exact_of("m") == P24 - 1);
    CHECK(exact_of("k") == -P24);
    CHECK(run("n") == RUN_OK && !strcmp(captured, "n = 16777216\n"));
    CHECK(run("[size(x)[0, 0] 9007199254740991]") == RUN_OK && strstr(captured, "  1.6777e+07  9.0072e+15\n"));
    check_shape_of("y = zeros(n, 1)", "y", P24, 1);
    /* float32 arithmetic rounds it as it rounds any value */
    CHECK(run("g = n * ones(1, 1)") == RUN_OK && var("g")->nexact == 0 && var("g")->host[0] == (float)P24);
    run("clear n m k g s y");
}

/* Indices and slice bounds past 2^24 reach the right row; one past the end
 * is out of bounds, not rounded back in. x is 16777217 x 1, ending 1, 2. */
static void indices_past_2_24(void)
{
    struct {
        const char *src;
        int rows;
        float first;
    } ok[] = {
        {"y = x[16777216, 0]", 1, 2},           {"y = x[16777215, 0]", 1, 1},
        {"y = x[-1, 0]", 1, 2},                 {"y = x[-16777217, 0]", 1, 0},
        {"y = x[size(x)[0, 0] - 1, 0]", 1, 2},   {"y = x[16777215:, :]", 2, 1},
        {"y = x[-2:, :]", 2, 1},                {"y = x[16777216:16777217, :]", 1, 2},
        {"y = x[16777215:16777216]", 1, 1},     {"y = x[-16777217:-16777216, 0]", 1, 0},
        {"y = x[16777216:1e30, :]", 1, 2},      {"y = x[-1e30:1, :]", 1, 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        cuk_matrix *y = run(ok[i].src) == RUN_OK ? var("y") : NULL;
        CHECKF(y, "%s: %.200s", ok[i].src, captured);
        if (y)
            CHECKF(y->rows == ok[i].rows && mat_host(y)[0] == ok[i].first, "%s: %dx%d, first %g", ok[i].src, y->rows,
                   y->cols, mat_host(y)[0]);
    }
    run("clear y");
    check_fails("x[16777217, 0]",
                "index 16777217 is out of bounds: x has 16777217 rows (valid indices -16777217 to 16777216)");
    check_fails("x[-16777218]", "index -16777218 is out of bounds");
    check_fails("x[size(x)[0, 0], 0]", "index 16777217 is out of bounds");
    check_fails("x[16777216.5]", "indices must be whole numbers (got 16777216.5)");
    check_fails("x[16777217:, :]", "empty slice 16777217: of x (16777217 rows)");
    check_fails("x[-16777216:-16777216, :]", "empty slice -16777216:-16777216 of x (16777217 rows)");
    check_fails("x[0, 1]", "index 1 is out of bounds: x has 1 column (valid indices -1 to 0)");
    run("clear x");
}

/* Indices that no int can hold, and values that are not numbers, are
 * refused before any conversion (converting them is undefined in C). */
static void hostile_indices(void)
{
    const char *whole[] = {"2147483647", "2147483648", "-2147483649", "4294967296", "9007199254740993",
                           "9223372036854775807", "-9223372036854775808", "1e300", "-1e300"};
    const char *not_whole[] = {"inf", "-inf", "nan", "0.5", "-0.5", "1e-300", "2147483647.5"};
    char src[96], want[96];
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        snprintf(src, sizeof src, "v[0, %s]", whole[i]);
        check_fails(src, "is out of bounds: v has 3 columns (valid indices -3 to 2)");
        snprintf(src, sizeof src, "v[%s]", whole[i]);
        check_fails(src, "is out of bounds: v has 1 row (valid indices -1 to 0)");
    }
    for (size_t i = 0; i < sizeof not_whole / sizeof not_whole[0]; i++) {
        const char *forms[] = {"v[%s]", "v[0, %s]", "v[%s:]", "v[:, :%s]", "v[0, 0:%s]"};
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            snprintf(src, sizeof src, forms[f], not_whole[i]);
            snprintf(want, sizeof want, "indices must be whole numbers (got %s)", not_whole[i]);
            check_fails(src, want);
        }
    }
    /* slices clamp, as in NumPy */
    check_shape_of("y = v[:, -9223372036854775807:9223372036854775807]", "y", 1, 3);
    check_shape_of("y = v[:, -1e300:-2]", "y", 1, 1);
    check_fails("v[:, 1e300:]", "empty slice 1e300: of v (3 columns)");
    run("clear y");
}

/* The shape check: whole numbers from 1 to 2^31 - 1, messages with the
 * numbers as typed. */
static void shape_limits(void)
{
    struct {
        double r, c;
        const char *says; /* NULL: accepted */
    } c[] = {
        {2147483647, 1, NULL},
        {1, 2147483647, NULL},
        {2147483647, 2147483647, NULL}, /* a legal shape; memory refuses it (memory_refused) */
        {2147483648.0, 1, "t: 2147483648x1 is too large (at most 2147483647 rows and 2147483647 columns)"},
        {1, 2147483648.0, "t: 1x2147483648 is too large"},
        {9007199254740992.0, 1, "t: 9007199254740992x1 is too large"},
        {9223372036854775808.0, 1, "t: 9.223372036854776e+18x1 is too large"},
        {1e300, 1e300, "t: 1e+300x1e+300 is too large"},
        {16777217, 16777217.5, "t: dimensions must be whole numbers (got 16777217 and 16777217.5)"},
        {INFINITY, 1, "t: dimensions must be whole numbers (got inf and 1)"},
        {NAN, 3, "t: dimensions must be whole numbers (got nan and 3)"},
        {0, 3, "t: dimensions must be at least 1 (got 0x3)"},
        {-2147483649.0, 1, "t: dimensions must be at least 1 (got -2147483649x1)"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        cuk_err_clear();
        int rc = mat_check_shape("t", c[i].r, c[i].c);
        CHECKF(c[i].says ? rc != 0 && strstr(cuk_err_get()->msg, c[i].says) : rc == 0, "%g x %g: rc %d, '%s'",
               c[i].r, c[i].c, rc, cuk_err_get()->msg);
    }
    cuk_err_clear();
}

/* Shapes that are legal but would need more memory than there is are
 * refused by the allocation check, before anything is allocated. */
static void memory_refused(void)
{
    check_fails("eye(2147483647)", "out of host memory: needs 16.0 EiB");
    check_fails("zeros(2147483647, 2147483647)", "out of host memory: needs 16.0 EiB");
    check_fails("rand(16777216, 16777216)", "out of host memory: needs 1.00 PiB");
    check_fails("ones(16777217, 16777217)", "out of host memory: needs 1.00 PiB");
    check_fails("fill(2147483647, 1073741824, 1)", "out of host memory: needs 8.00 EiB");
}

/* [a a ... a] with 4097 copies of 1x2^20 is 2^32 + 2^20 wide: an int sum
 * wraps to 2^20 and the copies would write past the result. The width is
 * counted in 64 bits and refused; likewise for heights and at 2^31. */
static void literal_sizes(void)
{
    int counts[] = {2048, 4096, 4097, 8193};
    CHECK(run("a = ones(1, 1048576); b = a'") == RUN_OK);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        int n = counts[i];
        char *src = malloc((size_t)n * 3 + 16), want[96];
        for (int vertical = 0; vertical < 2; vertical++) {
            size_t k = (size_t)sprintf(src, "[");
            for (int j = 0; j < n; j++)
                k += (size_t)sprintf(src + k, vertical ? "b;" : "a ");
            sprintf(src + k, "]");
            long long total = (long long)n << 20;
            if (vertical)
                snprintf(want, sizeof want, "matrix literal: %lldx1 is too large", total);
            else
                snprintf(want, sizeof want, "matrix literal: 1x%lld is too large", total);
            check_fails(src, want);
        }
        free(src);
    }
    check_fails("[a; a a]", "vertical dimensions mismatch (1x1048576 vs 1x2097152)");
    check_fails("[b a]", "horizontal dimensions mismatch (1048576x1 vs 1x1048576)");
    run("clear a b");
}

/* seed reads exact values: a computed seed is the same seed as typed, and
 * past 2^53 (where digits are lost) it is refused. */
static void seeds_exact(void)
{
    CHECK(run("seed 16777217; p = rand(1, 4); seed 16777216 + 1; q = rand(1, 4); seed 16777216; r = rand(1, 4)") ==
          RUN_OK);
    CHECK(run("d = max(abs(p - q)), e = max(abs(p - r))") == RUN_OK);
    CHECKF(var("d") && var("d")->host[0] == 0, "seed 16777216 + 1 is not seed 16777217");
    CHECKF(var("e") && var("e")->host[0] > 0, "seeds 16777216 and 16777217 give the same numbers");
    CHECK(run("seed 9007199254740991") == RUN_OK);
    CHECK(run("seed 4503599627370496 * 2 - 1") == RUN_OK);
    check_fails("seed 9007199254740992", "seed: expected a whole number from 0 to 2^53 - 1");
    check_fails("seed 9007199254740993", "seed: expected a whole number from 0 to 2^53 - 1");
    check_fails("seed 16777217 / 2", "seed: expected a whole number");
    check_fails("seed -1", "seed: expected a whole number");
    check_fails("seed inf", "seed: expected a whole number");
    check_fails("seed nan", "seed: expected a whole number");
    run("clear p q r d e");
}

int main(void)
{
    static const cuk_frontend prompt = {.interactive = 1}; /* errors as at the prompt */
    S = session_new(&prompt);
    out_set_sink(&sink);
    if (run("mode cpu; v = [1 2 3]") != RUN_OK) {
        out_set_sink(NULL);
        printf("FAIL sizes_setup: %s\n", captured);
        return 1;
    }
    out_set_sink(NULL);
#define RUN_QUIET(fn) (out_set_sink(&sink), check_begin(#fn), fn(), out_set_sink(NULL), check_end())
    RUN_QUIET(shape_limits);
    RUN_QUIET(dims_past_2_24);
    RUN_QUIET(size_exact);
    RUN_QUIET(indices_past_2_24);
    RUN_QUIET(hostile_indices);
    RUN_QUIET(memory_refused);
    RUN_QUIET(literal_sizes);
    RUN_QUIET(seeds_exact);
    session_free(S);
    return check_exit();
}
