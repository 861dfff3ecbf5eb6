/* blas.c - mode blas's product: the system's BLAS, whichever library is
 * found when the mode is first wanted (OpenBLAS, the reference BLAS, BLIS,
 * MKL), on every core: smaller products in blocks, a single-threaded call
 * on each of cuk's host threads, larger ones on the library's own threads.
 * Its other operations are cuk's own loops on every core (blas_host.c).
 *
 * The library is opened with dlopen, not linked: OpenBLAS starts a thread
 * per core when it is loaded (33 ms for an empty program with 64 threads),
 * which every start of cuk would pay, blas or not. CUK_BLAS names another
 * library file to use instead (a path, or a name the loader searches for).
 *
 * Results must not depend on which BLAS it is, so only sgemm is used: each
 * element a float sum of k products, as in mode cpu. Dot and norm are not
 * taken from the BLAS: the reference BLAS's snrm2 adds squares in float32
 * and stops growing past about 2^24 elements (its norm of rand(5000, 4000)
 * is 1% low), and OpenBLAS's dsdot ran on one thread; blas_host.c adds in
 * double on every core. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "kernels/backend.h"
#include "kernels/host_threads.h"

#ifdef CUK_HAVE_BLAS

/* The entry point of mode blas defined here (modes.c). */
cuk_matmul_fn blas_matmul;

/* --- the library, loaded on first use --------------------------------------
 * The CBLAS functions used, with CBLAS's own types (its enums are ints in
 * the C ABI, with values fixed by the standard). */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111 };
typedef void sgemm_fn(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a, int lda,
                      const float *b, int ldb, float beta, float *c, int ldc);

/* Tried in order when CUK_BLAS is not set: OpenBLAS, then what Debian's
 * alternatives call libblas.so.3 (OpenBLAS too, or the reference BLAS, whose
 * Debian build includes CBLAS), then a separate CBLAS (Fedora). */
static const char *const candidates[] = {"libopenblas.so.0", "libblas.so.3", "libcblas.so.3"};

static struct {
    int state;          /* 0 not tried, 1 loaded, -1 none found (why says why) */
    char why[400];
    void *handle;
    sgemm_fn *sgemm;
    int on_our_threads;     /* smaller products cut into blocks, a call each on cuk's threads (below) */
    void (*set_threads)(int); /* the library's own threads, if they can be set */
    int own, threads_now;   /* its thread count when loaded, and now */
    double budget;          /* FLOPs a panel of the product may take (below) */
} lib;

/* --- whose threads ------------------------------------------------------------
 * A product under BLOCKS_MAX_FLOPS runs as blocks of c, one single-threaded
 * BLAS call each, on cuk's host threads (host_threads.h), not on the
 * library's: on a 16-core host, against NumPy's OpenBLAS 0.3.34
 * in the same run, 1037x1055x1031 went from 0.88-0.91 of NumPy's rate on
 * OpenBLAS 0.3.26's own threads to 0.95-0.96 in 16 blocks, while 4096^3
 * went from 1.00-1.05 to 0.96-0.99 (kernels/PERF.md, ## blas): there the
 * library's shared packing wins. So the library's thread count is set per
 * call, where it can be set; a library that reports threads but cannot be
 * told keeps its own for every product, and the reference BLAS, which has
 * none, always runs in blocks. */
#define BLOCKS_MAX_FLOPS 1e10

/* Set the library's threads to n (its own count: `own`), if it can be. */
static void library_threads(int n)
{
    if (lib.set_threads && n != lib.threads_now) {
        lib.set_threads(n);
        lib.threads_now = n;
    }
}

static void (*openblas_set)(int), (*mkl_set)(int);
static void (*blis_set)(long long);
static void set_openblas(int n) { openblas_set(n); }
static void set_mkl(int n) { mkl_set(n); }
static void set_blis(int n) { blis_set(n); }

/* Which of the libraries' thread calls h has, and its threads now. */
static void find_thread_calls(void *h)
{
    int (*openblas_get)(void) = (int (*)(void))dlsym(h, "openblas_get_num_threads");
    long long (*blis_get)(void) = (long long (*)(void))dlsym(h, "bli_thread_get_num_threads");
    int (*mkl_get)(void) = (int (*)(void))dlsym(h, "MKL_Get_Max_Threads");
    openblas_set = (void (*)(int))dlsym(h, "openblas_set_num_threads");
    blis_set = (void (*)(long long))dlsym(h, "bli_thread_set_num_threads");
    mkl_set = (void (*)(int))dlsym(h, "MKL_Set_Num_Threads");
    lib.own = 1, lib.set_threads = NULL;
    if (openblas_get && openblas_set)
        lib.own = openblas_get(), lib.set_threads = set_openblas;
    else if (blis_get && blis_set)
        lib.own = (int)blis_get(), lib.set_threads = set_blis;
    else if (mkl_get && mkl_set)
        lib.own = mkl_get(), lib.set_threads = set_mkl;
    lib.threads_now = lib.own;
    /* one that reports threads it cannot be told to drop keeps them */
    lib.on_our_threads = lib.set_threads || !(openblas_get || blis_get || mkl_get);
}

/* Open file and find the functions in it: 0, or -1 with lib.why set. */
static int open_blas(const char *file)
{
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(lib.why, sizeof lib.why, "cannot load a BLAS: %s", dlerror());
        return -1;
    }
    lib.sgemm = (sgemm_fn *)dlsym(h, "cblas_sgemm");
    if (!lib.sgemm) {
        snprintf(lib.why, sizeof lib.why, "%s has no CBLAS interface (cblas_sgemm)", file);
        dlclose(h);
        return -1;
    }
    lib.handle = h;
    find_thread_calls(h);
    return 0;
}

/* CUK_BLAS if set, else the first candidate that opens. */
static int load_blas(void)
{
    const char *chosen = getenv("CUK_BLAS");
    if (chosen && *chosen)
        return open_blas(chosen);
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (open_blas(candidates[i]) == 0)
            return 0;
    snprintf(lib.why, sizeof lib.why, "no BLAS library found (install libopenblas0 or libblas3, or set CUK_BLAS)");
    return -1;
}

/* 1 once a BLAS is loaded (loading it now if never tried), else 0 and *why:
 * mode_available asks this, so `mode blas` and `modes` say what is wrong. */
int blas_linked(const char **why)
{
    if (lib.state == 0)
        lib.state = load_blas() == 0 ? 1 : -1;
    if (lib.state < 0 && why)
        *why = lib.why;
    return lib.state > 0;
}

/* 0 if a BLAS is loaded; -1 with the engine error set if none can be. */
static int need_blas(void)
{
    const char *why;
    return blas_linked(&why) ? 0 : cuk_err("mode blas: %s", why);
}

/* --- the product, in panels ------------------------------------------------
 * sgemm cannot be interrupted, so a large product runs as a sequence of
 * calls on blocks of c, with a Ctrl-C check before each. Each block should
 * take about PANEL_SECONDS: Ctrl-C is then noticed within a fifth of a
 * second, and every product that takes less than that is one call, as in
 * NumPy. Splitting costs: each call packs its panel of b again and starts
 * the BLAS's threads again (on 16 cores, 1037x1055x1031 in three calls ran
 * at 0.82 of one call's rate, 4096^3 in six at 0.70). Rates differ by 100x between
 * libraries and shapes, so the first block cuk ever runs is small, and
 * each next one is sized from the rate measured on the last, growing at
 * most GROWTH times. The budget is kept from one product to the next:
 * after the first, a product of the same kind is one call. Only blocks
 * that took long enough for their rate to mean something may lower it (a
 * 1x1 product's rate is all call overhead). */
#define PANEL_SECONDS 0.2
#define FIRST_PANEL_FLOPS 5e7 /* 0.05 s for the reference BLAS at 1 GFLOP/s */
#define GROWTH 16.0
#define MEASURABLE_SECONDS 0.002

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
    float *c;
    const float *a, *b;
    int n, k;        /* c is m x n, a m x k, b k x n, all row-major */
} panel_walk;

/* c[i0.., j0..] (rows x cols) = a[i0..] @ b[:, j0..], one call. */
static void sgemm_block(const panel_walk *w, int i0, int rows, int j0, int cols)
{
    lib.sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, rows, cols, w->k, 1.0f, w->a + (size_t)i0 * w->k, w->k,
              w->b + j0, w->n, 0.0f, w->c + (size_t)i0 * w->n + j0, w->n);
}

/* A panel cut into br x bc blocks, one a part of host_parallel. */
typedef struct {
    const panel_walk *w;
    int i0, rows, j0, cols, br, bc;
} block_job;

/* Where block q of n starts along len: even shares, columns on 16-float
 * (64-byte) lines where they are long enough that this costs no balance. */
static int block_edge(int q, int n, int len, int line)
{
    if (q >= n)
        return len;
    int at = (int)((long long)len * q / n);
    return len >= 8 * line * n ? at / line * line : at;
}

static int block_part(void *ctx, size_t lo, size_t hi, int part)
{
    const block_job *b = ctx;
    for (size_t u = lo; u < hi; u++) {
        int bi = (int)u / b->bc, bj = (int)u % b->bc;
        int r0 = block_edge(bi, b->br, b->rows, 1), r1 = block_edge(bi + 1, b->br, b->rows, 1);
        int c0 = block_edge(bj, b->bc, b->cols, 16), c1 = block_edge(bj + 1, b->bc, b->cols, 16);
        if (r1 > r0 && c1 > c0)
            sgemm_block(b->w, b->i0 + r0, r1 - r0, b->j0 + c0, c1 - c0);
    }
    return 0;
}

/* The squarest cut of rows x cols into `parts` blocks (br x bc = parts). */
static void block_grid(int parts, int rows, int cols, int *br, int *bc)
{
    double best = INFINITY;
    *br = 1, *bc = parts;
    for (int r = 1; r <= parts; r++)
        if (parts % r == 0 && r <= rows && parts / r <= cols) {
            double skew = fabs(log(((double)rows / r) / ((double)cols / (parts / r))));
            if (skew < best)
                best = skew, *br = r, *bc = parts / r;
        }
}

/* Below this a product is one call on the calling thread: waking the pool
 * costs more than the other threads would save. */
#define BLOCKS_MIN_FLOPS 2e6

/* The panel: in blocks on cuk's threads, the library on one; or one call,
 * on the library's own threads (a large product, or a library whose
 * threads cannot be set) or on this thread alone (a product too small to
 * share). 0, or -1 if interrupted. */
static int panel_blocks(const panel_walk *w, int i0, int rows, int j0, int cols)
{
    int parts = host_threads();
    double flops = 2.0 * rows * cols * w->k;
    if (!lib.on_our_threads || (lib.set_threads && flops >= BLOCKS_MAX_FLOPS)) {
        library_threads(lib.own);
        sgemm_block(w, i0, rows, j0, cols);
        return 0;
    }
    library_threads(1);
    if (parts < 2 || flops < BLOCKS_MIN_FLOPS || (long long)rows * cols < parts) {
        sgemm_block(w, i0, rows, j0, cols);
        return 0;
    }
    block_job b = {w, i0, rows, j0, cols, 1, parts};
    block_grid(parts, rows, cols, &b.br, &b.bc);
    return host_parallel(block_part, &b, (size_t)b.br * b.bc, 1);
}

/* The panel, after a Ctrl-C check; sizes the next panel from this one's
 * rate. 0, or -1 if interrupted. */
static int panel_run(panel_walk *w, int i0, int rows, int j0, int cols)
{
    if (cuk_check_interrupt())
        return -1;
    double flops = 2.0 * rows * cols * w->k, t0 = seconds_now();
    if (panel_blocks(w, i0, rows, j0, cols) != 0)
        return -1;
    double dt = seconds_now() - t0;
    double next = dt > 0 ? flops / dt * PANEL_SECONDS : GROWTH * lib.budget;
    if (next > GROWTH * lib.budget)
        next = GROWTH * lib.budget;
    if (dt >= MEASURABLE_SECONDS || next > lib.budget)
        lib.budget = next;
    return 0;
}

/* How many of `left` units of `cost` FLOPs each fit the budget: at least 1. */
static int units_fitting(const panel_walk *w, double cost, int left)
{
    double fit = lib.budget / cost;
    return fit < 1 ? 1 : fit < left ? (int)fit : left;
}

/* Row i of c alone, in blocks of columns. */
static int row_in_blocks(panel_walk *w, int i)
{
    for (int j = 0, cols; j < w->n; j += cols) {
        cols = units_fitting(w, 2.0 * w->k, w->n - j);
        if (panel_run(w, i, 1, j, cols) != 0)
            return -1;
    }
    return 0;
}

/* Whole rows of c while a row fits the budget; else one row at a time in
 * blocks of columns (a 1 x 20000 @ 20000 x 20000 row is 0.8 GFLOP). */
int blas_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    panel_walk w = {c, a, b, n, k};
    const double row_flops = 2.0 * n * k;
    if (need_blas() != 0)
        return -1;
    if (lib.budget <= 0)
        lib.budget = FIRST_PANEL_FLOPS;
    for (int i = 0, rows; i < m; i += rows) {
        rows = units_fitting(&w, row_flops, m - i);
        if (lib.budget < row_flops ? row_in_blocks(&w, i) : panel_run(&w, i, rows, 0, n))
            return -1;
    }
    return 0;
}

/* --- which BLAS ------------------------------------------------------------
 * A library is recognised by what only it exports; one with no threads
 * interface is single-threaded, as the reference BLAS is. */
static void *symbol(const char *name) { return dlsym(lib.handle, name); }

/* The file the BLAS was loaded from, without its folder. */
static const char *library_file(void)
{
    Dl_info info;
    if (!dladdr((void *)lib.sgemm, &info) || !info.dli_fname)
        return "?";
    const char *slash = strrchr(info.dli_fname, '/');
    return slash ? slash + 1 : info.dli_fname;
}

/* The library's name, and its threads in *threads. */
static void library_name(char *name, size_t cap, int *threads)
{
    char *(*openblas_config)(void) = (char *(*)(void))symbol("openblas_get_config");
    int (*openblas_threads)(void) = (int (*)(void))symbol("openblas_get_num_threads");
    long long (*blis_threads)(void) = (long long (*)(void))symbol("bli_thread_get_num_threads");
    int (*mkl_threads)(void) = (int (*)(void))symbol("MKL_Get_Max_Threads");
    *threads = 1;
    if (openblas_config && openblas_threads) {
        const char *config = openblas_config(); /* "OpenBLAS 0.3.21 DYNAMIC_ARCH ..." */
        size_t words = strcspn(config, " ");
        words += config[words] ? 1 + strcspn(config + words + 1, " ") : 0;
        snprintf(name, cap, "%.*s", (int)words, config);
        *threads = openblas_threads();
    } else if (blis_threads) {
        snprintf(name, cap, "BLIS");
        *threads = (int)blis_threads();
    } else if (mkl_threads) {
        snprintf(name, cap, "Intel MKL");
        *threads = mkl_threads();
    } else {
        snprintf(name, cap, "the reference BLAS");
    }
}

const char *blas_describe(void)
{
    static char text[sizeof lib.why + 16];
    char name[64];
    int threads;
    if (!blas_linked(NULL)) {
        snprintf(text, sizeof text, "no BLAS (%s)", lib.why);
        return text;
    }
    library_name(name, sizeof name, &threads);
    if (lib.on_our_threads && host_threads() > 1 && lib.set_threads)
        snprintf(text, sizeof text, "%s (%s), %d threads (its own for products of 1e10 FLOPs and more; cuk's %d, "
                 "a call on each, below)", name, library_file(), lib.own, host_threads());
    else if (lib.on_our_threads && host_threads() > 1)
        snprintf(text, sizeof text, "%s (%s), %d threads (cuk's, a call on each)", name, library_file(),
                 host_threads());
    else
        snprintf(text, sizeof text, "%s (%s), %d thread%s", name, library_file(), threads, threads == 1 ? "" : "s");
    return text;
}

/* The reference BLAS is plain loops, no faster than a textbook one by much:
 * a bench of mode blas on it says nothing of what a CPU does. Debian and
 * Ubuntu name it libblas.so.3 (libblas3), and OpenBLAS's package takes that
 * name over when installed. */
const char *blas_caveat(void)
{
    static char text[200];
    char name[64];
    int threads;
    if (!blas_linked(NULL))
        return NULL;
    library_name(name, sizeof name, &threads);
    if (strcmp(name, "the reference BLAS"))
        return NULL;
    snprintf(text, sizeof text,
             "runs on the reference BLAS (%s), plain loops far slower than an optimised BLAS; "
             "install OpenBLAS (Debian, Ubuntu: libopenblas0 or libopenblas-dev) for the rates a CPU user sees",
             library_file());
    return text;
}

#else /* no BLAS at build time: the mode is listed but unavailable */

int blas_linked(const char **why)
{
    *why = "cuk was built without a BLAS library (install libopenblas-dev and rebuild)";
    return 0;
}

const char *blas_describe(void) { return "no BLAS (not built with one)"; }
const char *blas_caveat(void) { return NULL; }
#endif
