/* test_user_kernels.c - user modes (`kernel "file.cu"`, kernels/user.h).
 *
 * Without a GPU: launch lines and the geometry they give; NVRTC's messages
 * as diagnostics with line and column; the entry points the PTX defines
 * and their parameters; the float64 checks and the patterns they name;
 * the `kernel` command compiling for compute_75 and saying so, a broken
 * file failing at its line with a caret; `help kernel`'s example
 * compiling; `set kernel timeout`; the helper process started and its
 * failure reported when there is no GPU.
 *
 * With a GPU (each case SKIPs by name without one): the lab's solutions
 * at 1x1x1, 17x65x33 and 1037x1055x1031; its skeletons failing with their
 * message; in one session holding matrices made before, a kernel writing
 * past its output, one dereferencing an illegal address, one trapping and
 * one that never ends, each an error within the timeout plus 5 s, after
 * which every earlier matrix is exact, modes tiled and cublas work and the
 * mode loads again fixed; and `kernels`, `why`, the panel's record and
 * `save bench` for a user mode.
 *
 *   test_user_kernels         every case
 *   test_user_kernels --gpu   the GPU cases only (bench/lab-check.sh) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/out.h"
#include "engine/run/kernel.h"
#include "engine/run/run.h"
#include "engine/session/cost.h"
#include "engine/session/session.h"
#include "engine/values/timing.h"
#include "kernels/gpu.h"
#include "kernels/nvrtc.h"
#include "kernels/user.h"
#include "kernels/user_check.h"
#include "kernels/user_client.h"
#include "tests/capture.h"
#include "tests/check.h"

/* ---- a session and what it printed (tests/capture.h) ---- */

static cuk_session *S;
static char lab_dir[900]; /* scripts/lab of the source tree */

static run_status run(const char *src)
{
    capture_reset();
    return run_source(S, src, strlen(src), "test", 1, 1);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* ---- launch lines ---- */

static int all_defined[USER_ENTRIES];

static int parse(const char *src, ul_file *f, user_diag *d)
{
    for (int e = 0; e < USER_ENTRIES; e++)
        all_defined[e] = 1;
    return ul_parse(src, strlen(src), all_defined, f, d);
}

static void launch_line_geometry(void)
{
    ul_file f;
    user_diag d;
    ul_geometry g;
    char why[320];
    int mm = user_entry_find("cuk_matmul"), sum = user_entry_find("cuk_sum");
    const char *src = "// cuk: block 16 8; grid ceil(n / 16) (m + 7) / 8; smem 4 * 16 * 8\n"
                      "extern \"C\" __global__ void cuk_matmul(float *C, const float *A, const float *B, int m, int n, int k) {}\n"
                      "// cuk: cuk_sum block 256; grid min(ceil(n / 256), 4096) ; base cublas; reuse 16\n";
    CHECKF(parse(src, &f, &d) == 0, "%d:%d %s", d.line, d.col, d.msg);
    long long v[3] = {17, 33, 65};
    CHECKF(ul_geometry_of(&f, mm, v, &g, why, sizeof why) == 0, "%s", why);
    CHECK(g.block[0] == 16 && g.block[1] == 8 && g.block[2] == 1);
    CHECKF(g.grid[0] == 3 && g.grid[1] == 3 && g.grid[2] == 1, "grid %u %u", g.grid[0], g.grid[1]); /* 33/16 up, 24/8 */
    CHECK(g.smem == 512);
    long long n1[1] = {1}, big[1] = {10000000};
    CHECK(ul_geometry_of(&f, sum, n1, &g, why, sizeof why) == 0 && g.grid[0] == 1 && g.block[0] == 256);
    CHECK(ul_geometry_of(&f, sum, big, &g, why, sizeof why) == 0 && g.grid[0] == 4096);
    CHECK(mode_find(f.base) == mode_find("cublas") && f.reuse == 16 && f.base_line == 3);
    /* an entry the file gives no line: the kind's default */
    int tr = user_entry_find("cuk_transpose");
    long long rc[2] = {33, 17};
    CHECK(ul_geometry_of(&f, tr, rc, &g, why, sizeof why) == 0 && g.grid[0] == 2 && g.grid[1] == 3 &&
          g.block[0] == 16 && g.block[1] == 16);
}

/* A launch line that is wrong: at the line and column named. */
static void expect_parse_error(const char *src, int line, int col, const char *words)
{
    ul_file f;
    user_diag d;
    CHECKF(parse(src, &f, &d) != 0, "accepted: %s", src);
    CHECKF(d.line == line && d.col == col, "at %d:%d, not %d:%d: %s", d.line, d.col, line, col, d.msg);
    CHECKF(strstr(d.msg, words), "'%s' not in: %s", words, d.msg);
}

static void launch_line_errors(void)
{
    expect_parse_error("// cuk: cuk_matmul block 16 q\n", 1, 29, "unknown name 'q'");
    expect_parse_error("x\n  // cuk: cuk_matmul block 1 2 3 4\n", 2, 34, "at most 3");
    expect_parse_error("// cuk: cuk_matmul grid 1; grid 2\n", 1, 28, "a second grid");
    expect_parse_error("// cuk: cuk_foo block 1\n", 1, 9, "no entry point is called cuk_foo");
    expect_parse_error("// cuk: block 16\nint x;\n", 1, 9, "names its entry point");
    expect_parse_error("// cuk: cuk_sum block ceil(n / 4\n", 1, 33, "expected )");
    expect_parse_error("// cuk: cuk_sum blocks 4\n", 1, 17, "expected block, grid or smem");
    expect_parse_error("// cuk: cuk_sum block 4 grid 2\n", 1, 25, "unknown name 'grid'");
    /* a plain comment mentioning cuk is not a launch line */
    ul_file f;
    user_diag d;
    CHECK(parse("// cuk is a calculator: block me\n", &f, &d) == 0);
}

static void launch_geometry_errors(void)
{
    ul_file f;
    user_diag d;
    ul_geometry g;
    char why[320];
    int sum = user_entry_find("cuk_sum");
    long long n[1] = {100};
    CHECK(parse("// cuk: cuk_sum block 64 32\n", &f, &d) == 0);
    CHECK(ul_geometry_of(&f, sum, n, &g, why, sizeof why) != 0 && strstr(why, "at most 1024") && strstr(why, "n = 100"));
    CHECK(parse("// cuk: cuk_sum grid n / (n - 100)\n", &f, &d) == 0);
    CHECK(ul_geometry_of(&f, sum, n, &g, why, sizeof why) != 0 && strstr(why, "divides by zero"));
    CHECK(parse("// cuk: cuk_sum grid 1 n * 1000\n", &f, &d) == 0);
    CHECKF(ul_geometry_of(&f, sum, n, &g, why, sizeof why) != 0 && strstr(why, "grid y is 100000"), "%s", why);
    CHECK(parse("// cuk: cuk_sum grid n - 200\n", &f, &d) == 0);
    CHECK(ul_geometry_of(&f, sum, n, &g, why, sizeof why) != 0 && strstr(why, "grid x is -100"));
}

/* ---- the compiler's messages and the PTX ---- */

static void compile_log_read(void)
{
    user_build b;
    memset(&b, 0, sizeof b);
    user_read_log("dir/my.cu(4): error: identifier \"bogus\" is undefined\n"
                  "  \tif (i < m)\tC[i] = A[i] + \tbogus;\n"
                  "  \t          \t              \t^\n"
                  "\n"
                  "dir/my.cu(6): warning #177-D: variable \"x\" was declared but never referenced\n"
                  "    float x = 1e100;\n"
                  "          ^\n"
                  "\n"
                  "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
                  "1 error detected in the compilation of \"dir/my.cu\".\n",
                  &b);
    CHECKF(b.ndiag == 2 && b.nerrors == 1 && b.nwarnings == 1, "%d diags", b.ndiag);
    CHECKF(b.diag[0].line == 4 && b.diag[0].col == 28 && b.diag[0].error, "%d:%d", b.diag[0].line, b.diag[0].col);
    CHECK(!strcmp(b.diag[0].msg, "identifier \"bogus\" is undefined"));
    CHECK(b.diag[1].line == 6 && b.diag[1].col == 9 && !b.diag[1].error && !strncmp(b.diag[1].msg, "variable", 8));
}

static void ptx_entries_read(void)
{
    const char *src = "__global__ void cuk_matmul(float *C, const float *A, const float *B, int m, int n, int k) {}\n"
                      "extern \"C\" __global__ void cuk_sum(float *out, const float *in, size_t n) {}\n"
                      "extern \"C\" __global__ void cuk_exp(float *out, const float *in, int n) {}\n"
                      "extern \"C\" __global__ void cuk_helper(float *out) {}\n";
    const char *ptx = ".visible .entry _Z10cuk_matmulPfPKfS1_iii(\n\t.param .u64 a,\n)\n"
                      ".visible .entry cuk_sum(\n\t.param .u64 cuk_sum_param_0,\n\t.param .u64 cuk_sum_param_1,\n"
                      "\t.param .u64 cuk_sum_param_2\n)\n"
                      ".visible .entry cuk_exp(\n\t.param .u64 cuk_exp_param_0,\n\t.param .u64 cuk_exp_param_1,\n"
                      "\t.param .u32 cuk_exp_param_2\n)\n"
                      ".visible .entry cuk_helper(\n\t.param .u64 cuk_helper_param_0\n)\n";
    user_build b;
    memset(&b, 0, sizeof b);
    user_read_ptx(ptx, src, strlen(src), &b);
    CHECK(b.defined[user_entry_find("cuk_exp")] && b.defined[user_entry_find("cuk_sum")]);
    CHECK(!b.defined[user_entry_find("cuk_matmul")]);
    CHECKF(b.nerrors == 2 && b.nwarnings == 1, "%d errors, %d warnings", b.nerrors, b.nwarnings);
    CHECKF(b.diag[0].line == 1 && b.diag[0].col == 17 && strstr(b.diag[0].msg, "extern \"C\""), "%s", b.diag[0].msg);
    CHECKF(b.diag[1].line == 2 && strstr(b.diag[1].msg, "parameter 3 is 8 bytes, not an int"), "%s", b.diag[1].msg);
    CHECKF(b.diag[2].line == 4 && !b.diag[2].error && strstr(b.diag[2].msg, "not one of cuk's entry points"), "%s",
           b.diag[2].msg);
    CHECK(user_entry_find("cuk_add") >= 0 && user_entry_find("cuk_amax") >= 0 && user_entry_find("cuk_mean") < 0);
}

/* ---- checks and their patterns ---- */

static float *random_floats(size_t n)
{
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; p && i < n; i++)
        p[i] = (float)check_uniform();
    return p;
}

/* c = a @ b in float64, rounded; the poison where none is computed */
static void product(float *c, const float *a, const float *b, int m, int n, int k)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int l = 0; l < k; l++)
                s += (double)a[(size_t)i * k + l] * b[(size_t)l * n + j];
            c[(size_t)i * n + j] = (float)s;
        }
}

static float poison(void)
{
    uint32_t u = UCHECK_POISON;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A product of this shape whose rows >= r0 (or columns >= c0) are set
 * to v: its check names the pattern words. */
static void product_pattern(int m, int n, int k, int r0, int c0, float v, const char *words)
{
    float *a = random_floats((size_t)m * k), *b = random_floats((size_t)k * n), *c = malloc((size_t)m * n * 4);
    char why[480];
    product(c, a, b, m, n, k);
    CHECKF(ucheck_matmul(c, a, b, m, n, k, why, sizeof why) == 0, "%dx%dx%d right, yet: %s", m, n, k, why);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            if (i >= r0 || j >= c0)
                c[(size_t)i * n + j] = v;
    CHECKF(ucheck_matmul(c, a, b, m, n, k, why, sizeof why) != 0 && strstr(why, words), "%dx%dx%d: '%s' not in: %s", m,
           n, k, words, why);
    free(a), free(b), free(c);
}

static void check_product_patterns(void)
{
    product_pattern(1, 1, 1, 0, 1, poison(), "nothing was written");
    product_pattern(17, 33, 65, 16, 33, poison(), "rows >= 16 were never written: the grid covers 16 rows");
    product_pattern(17, 33, 65, 17, 32, poison(), "columns >= 32 were never written: the grid covers 32 columns");
    product_pattern(40, 40, 9, 32, 16, poison(), "only the top-left 32x16 block was written");
    product_pattern(17, 33, 65, 16, 33, 0.0f, "C[16,0] is 0, expected");
    product_pattern(17, 33, 65, 16, 33, 0.0f, "rows >= 16 are zero");
    product_pattern(1, 300, 7, 1, 100, 0.0f, "columns >= 100 are zero");
    product_pattern(17, 33, 65, 0, 33, 0.0f, "every element is zero");
    /* sampled at 1037x1055x1031: the first wrong row found by halving */
    product_pattern(1037, 1031, 1055, 1000, 1031, 0.0f, "rows >= 1000 are zero");
    product_pattern(1037, 1031, 1055, 1037, 777, 1.0f, "columns >= 777 are wrong");
}

static void check_product_factor_and_noise(void)
{
    int m = 17, n = 33, k = 65;
    float *a = random_floats((size_t)m * k), *b = random_floats((size_t)k * n), *c = malloc((size_t)m * n * 4);
    char why[480];
    product(c, a, b, m, n, k);
    for (int i = 0; i < m * n; i++)
        c[i] *= 2;
    CHECKF(ucheck_matmul(c, a, b, m, n, k, why, sizeof why) != 0 && strstr(why, "every element is 2 times"), "%s", why);
    product(c, a, b, m, n, k);
    for (int i = 0; i < m * n; i++) /* a float32 product's rounding: within the bound */
        c[i] = nextafterf(nextafterf(c[i], INFINITY), INFINITY);
    CHECKF(ucheck_matmul(c, a, b, m, n, k, why, sizeof why) == 0, "two ulps off is wrong: %s", why);
    product(c, a, b, m, n, k);
    c[5 * n + 7] += 1e-2f; /* one wrong element among right ones */
    CHECKF(ucheck_matmul(c, a, b, m, n, k, why, sizeof why) != 0 && strstr(why, "C[5,7] is") &&
               strstr(why, "1 of the 561 elements checked are wrong"),
           "%s", why);
    free(a), free(b), free(c);
}

static void check_vectors(void)
{
    size_t n = 1037;
    float *a = random_floats(n), *b = random_floats(n), *out = malloc(n * 4);
    char why[480];
    for (size_t i = 0; i < n; i++)
        out[i] = a[i] / b[i];
    CHECKF(ucheck_ewise(CUK_EW_DIV, out, a, b, n, why, sizeof why) == 0, "%s", why);
    for (size_t i = 256; i < n; i++)
        out[i] = poison();
    CHECKF(ucheck_ewise(CUK_EW_DIV, out, a, b, n, why, sizeof why) != 0 &&
               strstr(why, "out[256] was never written") && strstr(why, "the grid covers 256 elements"),
           "%s", why);
    for (size_t i = 0; i < n; i++)
        out[i] = expf(a[i]);
    CHECKF(ucheck_unary(CUK_UN_EXP, out, a, n, why, sizeof why) == 0, "%s", why);
    out[3] = 0;
    CHECKF(ucheck_unary(CUK_UN_EXP, out, a, n, why, sizeof why) != 0 && strstr(why, "out[3] is 0"), "%s", why);
    free(a), free(b), free(out);
}

static void check_transposes(void)
{
    int rows = 17, cols = 33;
    float *in = random_floats((size_t)rows * cols), *out = malloc((size_t)rows * cols * 4);
    char why[480];
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            out[(size_t)j * rows + i] = in[(size_t)i * cols + j];
    CHECKF(ucheck_transpose(out, in, rows, cols, why, sizeof why) == 0, "%s", why);
    out[1] = nextafterf(out[1], 2.0f); /* exact: one ulp is wrong */
    CHECKF(ucheck_transpose(out, in, rows, cols, why, sizeof why) != 0 && strstr(why, "out[0,1]"), "%s", why);
    free(in), free(out);
}

static void check_reductions(void)
{
    size_t n = 1037 * 1055;
    float *in = random_floats(n);
    double s = 0, first = 0;
    char why[480];
    for (size_t i = 0; i < n; i++)
        s += in[i], first += i < 256 ? in[i] : 0;
    CHECKF(ucheck_reduce(CUK_RED_SUM, (float)s, 0, in, n, why, sizeof why) == 0, "%s", why);
    CHECKF(ucheck_reduce(CUK_RED_SUM, 0, 0, in, n, why, sizeof why) != 0 && strstr(why, "still holds the 0"), "%s",
           why);
    CHECKF(ucheck_reduce(CUK_RED_SUM, (float)first, 0, in, n, why, sizeof why) != 0 &&
               strstr(why, "the sum of the first 256 elements: the grid covers 256 elements"),
           "%s", why);
    CHECKF(ucheck_reduce(CUK_RED_SUM, (float)(2 * s), 0, in, n, why, sizeof why) != 0 && strstr(why, "2 times the sum"),
           "%s", why);
    float lo = in[0];
    for (size_t i = 0; i < n; i++)
        lo = in[i] < lo ? in[i] : lo;
    CHECK(ucheck_reduce(CUK_RED_MIN, lo, INFINITY, in, n, why, sizeof why) == 0);
    CHECK(ucheck_reduce(CUK_RED_MIN, nextafterf(lo, 1), INFINITY, in, n, why, sizeof why) != 0);
    free(in);
}

/* ---- NVRTC and the `kernel` command ---- */

static const char *nvrtc_missing(void)
{
    const char *why = NULL;
    return nvrtc_load(&why) ? NULL : why;
}

static int have_gpu(void) { return gpu_usable(NULL); }

static void help_example_compiles(void)
{
    user_build b;
    const char *ex = kernel_help_example();
    CHECK(user_compile("my_matmul.cu", ex, strlen(ex), "compute_75", &b) == 0);
    CHECKF(b.nerrors == 0 && b.nwarnings == 0, "%d errors: %s", b.nerrors, b.ndiag ? b.diag[0].msg : "");
    CHECK(b.defined[user_entry_find("cuk_matmul")] && b.nentries == 1 && b.image && !strcmp(b.name, "my_matmul"));
    CHECK(b.launch.launch[user_entry_find("cuk_matmul")].line == 1);
    user_build_free(&b);
    CHECK(run("help kernel") == RUN_OK);
    CHECK(strstr(captured, "cuk_matmul") && strstr(captured, "(float *C, const float *A, const float *B, int m, int n, int k)"));
    CHECK(strstr(captured, "// cuk: block 16 16; grid ceil(n / 16) ceil(m / 16)") && strstr(captured, ex));
    CHECK(strstr(captured, "cuk_sum cuk_amin cuk_amax") && strstr(captured, "set kernel timeout"));
}

/* A broken file: file:line:col, the line, a caret under the column. */
static void compile_error_shown(void)
{
    write_file("broken_mm.cu", "extern \"C\" __global__ void cuk_matmul(float *C, const float *A, const float *B,\n"
                               "                                      int m, int n, int k)\n"
                               "{\n"
                               "    C[0] = A[0] * undefined_thing;\n"
                               "}\n");
    CHECK(run("kernel \"broken_mm.cu\"") == RUN_ERROR);
    CHECKF(strstr(captured, "broken_mm.cu:4:19: error: identifier \"undefined_thing\" is undefined\n"
                              "      C[0] = A[0] * undefined_thing;\n"
                              "                    ^\n"),
           "%s", captured);
    CHECKF(strstr(captured, "test:1:8: error: kernel: broken_mm.cu did not compile (1 error)"), "%s", captured);
    CHECK(run("modes") == RUN_OK && !strstr(captured, "broken_mm"));
    write_file("bad_launch.cu", "// cuk: block 16 16; grid ceil(n / 16) ceil(q / 16)\n"
                                "extern \"C\" __global__ void cuk_sum(float *out, const float *in, int n) {}\n");
    CHECK(run("kernel \"bad_launch.cu\"") == RUN_ERROR);
    CHECKF(strstr(captured, "bad_launch.cu:1:45: error: unknown name 'q' in a size (this entry point's sizes may use n)"),
           "%s", captured);
    CHECK(run("kernel \"nowhere.cu\"") == RUN_ERROR && strstr(captured, "kernel: cannot read 'nowhere.cu'"));
    write_file("tiled.cu", "extern \"C\" __global__ void cuk_sum(float *out, const float *in, int n) {}\n");
    CHECK(run("kernel \"tiled.cu\"") == RUN_ERROR && strstr(captured, "tiled is the name of a built-in mode"));
    write_file("2nd.cu", "extern \"C\" __global__ void cuk_sum(float *out, const float *in, int n) {}\n");
    CHECK(run("kernel \"2nd.cu\"") == RUN_ERROR && strstr(captured, "'2nd' is not a name"));
    write_file("none.cu", "__device__ float twice(float x) { return 2 * x; }\n");
    CHECK(run("kernel \"none.cu\"") == RUN_ERROR && strstr(captured, "defines none of cuk's entry points"));
    CHECK(run("kernel \"tiled.cu\" for sm_20") == RUN_ERROR && strstr(captured, "test:1:23: error: kernel: for takes"));
}

/* Without a GPU the file compiles for compute_75, says so, and its mode is
 * listed as unavailable; with one, the mode is made. */
static void kernel_compiles_without_gpu(void)
{
    const char *ex = kernel_help_example();
    write_file("my_matmul.cu", ex);
    CHECK(run("kernel \"my_matmul.cu\"") == RUN_OK);
    if (have_gpu()) {
        CHECKF(strstr(captured, "mode my_matmul made: my_matmul.cu compiled for sm_"), "%s", captured);
        return;
    }
    CHECKF(strstr(captured, "compiled my_matmul.cu for compute_75 (NVRTC ") &&
               strstr(captured, "no GPU here to run it: mode my_matmul is listed, unavailable"),
           "%s", captured);
    CHECK(strstr(captured, "  cuk_matmul     block 16 16; grid ceil(n / 16) ceil(m / 16) (line 1)"));
    CHECK(run("modes") == RUN_OK && strstr(captured, "  my_matmul GPU   unavailable: "));
    CHECK(run("mode my_matmul") == RUN_ERROR && strstr(captured, "mode my_matmul is unavailable"));
    CHECK(run("kernel \"my_matmul.cu\" for sm_90") == RUN_OK && strstr(captured, "compiled my_matmul.cu for sm_90"));
    /* again: the same mode, made anew in its place */
    int count = mode_count();
    const cuk_backend *before = mode_find("my_matmul");
    CHECK(run("kernel \"my_matmul.cu\"") == RUN_OK && mode_count() == count && mode_find("my_matmul") == before);
    CHECK(mode_get(count - 1) == before);
}

/* A user mode's reuse is its file's, whatever `set tile` says of tiled's
 * product: `why` counts its traffic from it. */
static void reuse_from_the_file(void)
{
    write_file("reused.cu", "// cuk: block 16 16; reuse 16\n"
                            "extern \"C\" __global__ void cuk_matmul(float *C, const float *A, const float *B,\n"
                            "                                      int m, int n, int k) {}\n");
    CHECKF(run("kernel \"reused.cu\"") == RUN_OK, "%s", captured);
    const cuk_backend *m = mode_find("reused");
    CHECK(m && m->matmul_reuse == 16 && mode_find(m->base) == mode_start(1)); /* no base named */
    CHECK(run("set tile 32") == RUN_OK);
    timing_op op = {"matmul", "64x64 @ 64x64", m, 1, 2.0 * 64 * 64 * 64, 3 * 4 * 64 * 64, 1.0, 1};
    cost_ceilings ce = {0};
    cost_report r;
    cost_explain(NULL, &op, &ce, &r);
    CHECKF(r.reuse == 16, "reuse %d", r.reuse);
    op.mode = mode_find("tiled");
    cost_explain(NULL, &op, &ce, &r);
    CHECKF(r.reuse == 32, "tiled's reuse %d", r.reuse);
    run("set tile 16");
}

static void rehearsal_says_what_would_run(void)
{
    if (have_gpu()) {
        check_skip("rehearsal_says_what_would_run", "a GPU is here: nothing is skipped");
        return;
    }
    write_file("rehearse.cuk", "kernel \"my_matmul.cu\"\nmode my_matmul\nA = rand(4); C = A @ A\nmode cpu\nx = 1\n");
    check_begin("rehearsal_says_what_would_run");
    S->rehearse = 1;
    CHECK(run("run \"rehearse.cuk\"") == RUN_OK);
    S->rehearse = 0;
    CHECKF(strstr(captured, "no GPU here to run it") && strstr(captured, "skipped (no GPU): mode my_matmul") &&
               strstr(captured, "skipped (no GPU): C = A @ A") && strstr(captured, "x = 1"),
           "%s", captured);
    check_end();
}

static void kernel_timeout_setting(void)
{
    CHECK(run("set kernel timeout 2.5") == RUN_OK && user_timeout() == 2.5);
    CHECK(run("set kernel timeout") == RUN_OK && strstr(captured, "kernel timeout: 2.5 s"));
    CHECK(run("set kernel timeout 0") == RUN_ERROR && strstr(captured, "kernel timeout takes seconds") &&
          user_timeout() == 2.5);
    CHECK(run("set kernel speed 3") == RUN_ERROR && strstr(captured, "set kernel timeout SECONDS"));
    CHECK(run("set") == RUN_OK && strstr(captured, "`set kernel timeout S`"));
    CHECK(run("set kernel timeout 5") == RUN_OK);
}

/* The helper starts from this very binary; without a GPU it says why it
 * cannot run kernels, and nothing is left behind. */
#ifdef CUK_HAVE_CUDA
static void helper_without_gpu(void)
{
    user_kernel_facts facts[USER_ENTRIES];
    int defined[USER_ENTRIES] = {0};
    CHECK(uc_load(0, "", 1, defined, facts) != 0);
    CHECKF(strstr(cuk_err_get()->msg, "kernel helper: it did not start: ") && strstr(cuk_err_get()->msg, "CUDA"), "%s",
           cuk_err_get()->msg);
    printf("  %s\n", cuk_err_get()->msg);
    CHECK(!uc_alive());
    cuk_err_clear();
}
#endif

/* Modes up to USER_MAX_MODES; one more is an error that changes nothing.
 * Run last: it leaves no room for more. */
static void user_modes_limit(void)
{
    char name[32], src[64];
    int all = mode_count(), before = user_mode_count();
    write_file("limit.cu", "extern \"C\" __global__ void cuk_neg(float *out, const float *in, int n) {}\n");
    for (int i = user_mode_count(); i < USER_MAX_MODES; i++) {
        snprintf(name, sizeof name, "limit_%d.cu", i);
        CHECK(rename("limit.cu", name) == 0);
        snprintf(src, sizeof src, "kernel \"%s\"", name);
        CHECKF(run(src) == RUN_OK, "%s", captured);
        CHECK(rename(name, "limit.cu") == 0);
    }
    CHECK(user_mode_count() == USER_MAX_MODES && mode_count() == all + USER_MAX_MODES - before);
    CHECK(run("kernel \"limit.cu\"") == RUN_ERROR && strstr(captured, "at most 16 user modes") && !mode_find("limit"));
}

/* ---- with a GPU ---- */

/* A host copy of a matrix of the workspace, NULL if it is not there. */
static float *values_of(const char *name, size_t *n)
{
    cuk_matrix *m = ws_get(&S->ws, name);
    if (!m)
        return NULL;
    *n = (size_t)m->rows * m->cols;
    float *v = malloc(*n * sizeof *v);
    if (v && mat_read(m, 0, *n, v) != 0) {
        free(v);
        return NULL;
    }
    return v;
}

/* name holds exactly the values was, element by element. */
static int same_values(const char *name, const float *was, size_t n)
{
    size_t have = 0;
    float *now = values_of(name, &have);
    int same = now && have == n && memcmp(now, was, n * sizeof *now) == 0;
    free(now);
    return same;
}

/* C = A @ B in mode, right against float64 at every element. */
static int product_right(const char *mode)
{
    char src[128];
    snprintf(src, sizeof src, "mode %s; C = A @ B; mode tiled", mode);
    if (run(src) != RUN_OK)
        return 0;
    size_t na, nb, nc;
    float *a = values_of("A", &na), *b = values_of("B", &nb), *c = values_of("C", &nc);
    cuk_matrix *ma = ws_get(&S->ws, "A"), *mb = ws_get(&S->ws, "B");
    char why[480];
    int ok = a && b && c && ucheck_matmul(c, a, b, ma->rows, mb->cols, ma->cols, why, sizeof why) == 0;
    free(a), free(b), free(c);
    return ok;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* The lab's solution of an exercise, right at the three shapes: the
 * first result of each shape is checked against float64, so a run that
 * ends well is a right one. */
static void lab_solution(const char *folder, const char *file, const char *mode, const char *stmt)
{
    static const int shapes[][3] = {{1, 1, 1}, {17, 65, 33}, {1037, 1055, 1031}};
    char src[1024];
    snprintf(src, sizeof src, "kernel \"%s/%s/solution/%s\"; mode %s; seed 7", lab_dir, folder, file, mode);
    CHECKF(run(src) == RUN_OK, "%s", captured);
    for (int i = 0; i < 3; i++) {
        snprintf(src, sizeof src, "A = rand(%d, %d); B = rand(%d, %d); %s;", shapes[i][0], shapes[i][1], shapes[i][1],
                 shapes[i][2], stmt);
        CHECKF(run(src) == RUN_OK, "%s at %dx%dx%d: %s", mode, shapes[i][0], shapes[i][1], shapes[i][2], captured);
    }
    run("mode tiled");
}

static void gpu_lab_solutions(void)
{
    lab_solution("1-naive", "matmul_naive.cu", "matmul_naive", "X = A @ B");
    lab_solution("2-tiled", "matmul_tiled.cu", "matmul_tiled", "X = A @ B");
    lab_solution("3-coalesce", "matmul_coalesce.cu", "matmul_coalesce", "X = A @ B");
    lab_solution("4-reduce", "sum_reduce.cu", "sum_reduce", "X = sum(A)");
    lab_solution("5-transpose", "transpose_smem.cu", "transpose_smem", "X = A'");
}

/* The skeleton as shipped: its check fails and says what is wrong. */
static void lab_skeleton(const char *folder, const char *file, const char *mode, const char *stmt, const char *words)
{
    char src[1024];
    snprintf(src, sizeof src, "kernel \"%s/%s/%s\"; mode %s; seed 7", lab_dir, folder, file, mode);
    CHECKF(run(src) == RUN_OK, "%s", captured);
    snprintf(src, sizeof src, "A = rand(17, 65); B = rand(65, 33); %s", stmt);
    CHECKF(run(src) == RUN_ERROR && strstr(captured, "gave a wrong result") && strstr(captured, words),
           "%s: '%s' not in: %s", file, words, captured);
    CHECK(!ws_get(&S->ws, "X")); /* nothing was bound */
    run("mode tiled");
}

static void gpu_lab_skeletons(void)
{
    run("clear X");
    lab_skeleton("1-naive", "matmul_naive.cu", "matmul_naive", "X = A @ B", "nothing was written");
    lab_skeleton("2-tiled", "matmul_tiled.cu", "matmul_tiled", "X = A @ B", "every element is zero");
    lab_skeleton("3-coalesce", "matmul_coalesce.cu", "matmul_coalesce", "X = A @ B",
                 "columns >= 32 were never written: the grid covers 32 columns");
    lab_skeleton("4-reduce", "sum_reduce.cu", "sum_reduce", "X = sum(A)", "still holds the 0 it started at");
    lab_skeleton("5-transpose", "transpose_smem.cu", "transpose_smem", "X = A'", "nothing was written");
}

/* The fixed product every fault is replaced with. */
static const char fixed_mm[] =
    "extern \"C\" __global__ void cuk_matmul(float *C, const float *A, const float *B, int m, int n, int k)\n"
    "{\n"
    "    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= m || j >= n) return;\n"
    "    float s = 0;\n"
    "    for (int l = 0; l < k; l++) s += A[i * k + l] * B[l * n + j];\n"
    "    C[i * n + j] = s;\n"
    "}\n";

static const struct {
    const char *name, *body, *words;
} faults[] = {
    {"past_output", "    C[m * n + 100] = 1.0f; /* a write past the output */\n",
     "wrote past the end of C (4096 floats): 101 to 101 floats past it"},
    {"illegal_address", "    *(volatile float *)8 = 1.0f; /* nowhere */\n", "failed: an illegal memory access"},
    {"trap", "    __trap();\n", "failed: "},
    /* clock64 is read anew each time round and never goes back: a loop the
     * compiler cannot prove endless, so cannot remove */
    {"endless", "    long long t0 = clock64();\n    while (clock64() >= t0)\n        ;\n",
     "ran past the kernel timeout (2 s)"},
};

/* A fault: the error within the timeout plus 5 s; the earlier matrices
 * exact; tiled and cublas right; the mode made again fixed and right. */
static void one_fault(int f, const float *a0, size_t na, const float *b0, size_t nb)
{
    char text[4096];
    snprintf(text, sizeof text,
             "extern \"C\" __global__ void cuk_matmul(float *C, const float *A, const float *B, int m, int n, int k)\n"
             "{\n%s}\n",
             faults[f].body);
    write_file("faulty.cu", text);
    CHECKF(run("kernel \"faulty.cu\"; mode faulty") == RUN_OK, "%s", captured);
    double t0 = now_s();
    run_status st = run("C = A @ B");
    double took = now_s() - t0;
    printf("  %s: the error came after %.2f s\n", faults[f].name, took);
    CHECKF(st == RUN_ERROR && strstr(captured, faults[f].words), "%s: '%s' not in: %s", faults[f].name,
           faults[f].words, captured);
    CHECKF(took < user_timeout() + 5, "%s: %.1f s", faults[f].name, took);
    CHECKF(same_values("A0", a0, na) && same_values("B0", b0, nb), "%s: an earlier matrix changed", faults[f].name);
    CHECKF(product_right("tiled") && product_right("cublas"), "%s: tiled or cublas is wrong after it: %s",
           faults[f].name, captured);
    write_file("faulty.cu", fixed_mm);
    CHECKF(run("kernel \"faulty.cu\"") == RUN_OK && product_right("faulty"), "%s: fixed: %s", faults[f].name,
           captured);
}

static void gpu_faults_lose_nothing(void)
{
    size_t na = 0, nb = 0;
    CHECK(run("seed 3; A0 = rand(300, 200); B0 = randn(200, 100); A = rand(64, 64); B = rand(64, 64)") == RUN_OK);
    float *a0 = values_of("A0", &na), *b0 = values_of("B0", &nb);
    CHECK(run("set kernel timeout 2") == RUN_OK);
    for (int f = 0; f < (int)(sizeof faults / sizeof faults[0]) && a0 && b0; f++)
        one_fault(f, a0, na, b0, nb);
    run("set kernel timeout 5; mode tiled");
    free(a0), free(b0);
}

/* kernels, why, the panel's record and save bench, for a user mode. */
static void gpu_user_mode_is_a_mode(void)
{
    write_file("my_matmul.cu", kernel_help_example());
    CHECK(run("kernel \"my_matmul.cu\"; mode my_matmul; A = rand(257, 130); B = rand(130, 65); time on; C = A @ B;") ==
          RUN_OK);
    const timing_cmd *c = timing_history(0);
    CHECKF(c && c->mode == mode_find("my_matmul") && c->nops == 1 && c->ops[0].ms > 0 && c->ops[0].mode == c->mode,
           "the record: %s", c ? c->text : "none");
    CHECK(strstr(captured, "my_matmul"));
    CHECK(run("kernels") == RUN_OK);
    int regs = 0;
    const char *row = strstr(captured, "  cuk_matmul ");
    CHECKF(row && sscanf(row, "  cuk_matmul %*s %*s %d", &regs) == 1 && regs > 0 && strstr(row, "5x17x1 "),
           "%s", captured);
    CHECKF(run("why") == RUN_OK && strstr(captured, "(mode my_matmul"), "%s", captured);
    CHECK(run("time off; bench my_matmul tiled cublas: A @ B") == RUN_OK && strstr(captured, "my_matmul"));
    CHECK(run("save bench \"user_bench.json\"") == RUN_OK);
    FILE *f = fopen("user_bench.json", "r");
    char json[1 << 14] = "";
    size_t n = f ? fread(json, 1, sizeof json - 1, f) : 0;
    json[n] = '\0';
    if (f)
        fclose(f);
    CHECKF(strstr(json, "\"mode\":\"my_matmul\"") && strstr(json, "\"mode\":\"cublas\""), "%s", json);
    run("mode tiled");
}

/* ---- main ---- */

#define GPU_CASE(fn)                                                                 \
    do {                                                                             \
        if (have_gpu())                                                              \
            RUN(fn);                                                                 \
        else                                                                         \
            check_skip(#fn, "no usable GPU");                                        \
    } while (0)

#define NVRTC_CASE(fn)                                                               \
    do {                                                                             \
        if (!nvrtc_missing())                                                        \
            RUN(fn);                                                                 \
        else                                                                         \
            check_skip(#fn, nvrtc_missing());                                        \
    } while (0)

static void host_cases(void)
{
    RUN(launch_line_geometry);
    RUN(launch_line_errors);
    RUN(launch_geometry_errors);
    RUN(compile_log_read);
    RUN(ptx_entries_read);
    RUN(check_product_patterns);
    RUN(check_product_factor_and_noise);
    RUN(check_vectors);
    RUN(check_transposes);
    RUN(check_reductions);
    RUN(kernel_timeout_setting);
    NVRTC_CASE(help_example_compiles);
    NVRTC_CASE(compile_error_shown);
    NVRTC_CASE(kernel_compiles_without_gpu);
    NVRTC_CASE(reuse_from_the_file);
    if (!nvrtc_missing())
        rehearsal_says_what_would_run();
    else
        check_skip("rehearsal_says_what_would_run", nvrtc_missing());
#ifdef CUK_HAVE_CUDA
    if (!have_gpu())
        RUN(helper_without_gpu);
    else
        check_skip("helper_without_gpu", "a GPU is here");
#else
    check_skip("helper_without_gpu", "cuk was built without CUDA");
#endif
}

static void gpu_cases(void)
{
    if (nvrtc_missing()) {
        check_skip("gpu_cases", nvrtc_missing());
        return;
    }
    GPU_CASE(gpu_lab_solutions);
    GPU_CASE(gpu_lab_skeletons);
    GPU_CASE(gpu_faults_lose_nothing);
    GPU_CASE(gpu_user_mode_is_a_mode);
}

int main(int argc, char **argv)
{
    int helper = kernel_helper_main(argc, argv); /* this binary is the helper of its own sessions */
    if (helper >= 0)
        return helper;
    char dir[] = "/tmp/cuk-user-kernels-XXXXXX";
    if (!getcwd(lab_dir, sizeof lab_dir - 16) || !mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_user_kernels: scratch folder");
        return 1;
    }
    strcat(lab_dir, "/scripts/lab");
    out_set_sink(&sink);
    S = session_new(NULL);
    out_set_sink(&sink); /* session_new set the plain sink */
    if (argc < 2 || strcmp(argv[1], "--gpu"))
        host_cases();
    gpu_cases();
    if (argc < 2 || strcmp(argv[1], "--gpu")) {
        if (!nvrtc_missing())
            RUN(user_modes_limit);
        else
            check_skip("user_modes_limit", nvrtc_missing());
    }
    session_free(S);
    out_set_sink(NULL);
    char rm[96];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    if (system(rm) != 0)
        fprintf(stderr, "test_user_kernels: could not remove %s\n", dir);
    return check_exit();
}
