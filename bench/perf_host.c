/* perf_host.c - mode blas on the host, through the mode table: sum, dot
 * and elementwise + over 2^26 floats against a copy of the same bytes on
 * every core, turn about, and the product at 1037x1055x1031 and 4096^3.
 * Host work is timed with the monotonic clock (no device events), medians
 * of PERF_RUNS runs; buffers come from the engine's allocator, as a
 * session's matrices do. NumPy's side is bench/perf_host.py, which runs this
 * program with --serve and times products turn about with NumPy's:
 *
 *   perf_host            the bandwidth ratios and the products' rates
 *   perf_host --serve    reads "M K N RUNS FRESH" lines, answers each with
 *                        the RUNS times of the product in ms on one line:
 *                        FRESH 1, each into a new result (a @ b), 0, all
 *                        into one kept result (matmul(a, b, out=c)) */
#include <math.h>
#include <stdint.h>
#include <time.h>

#include "bench/perf.h"
#include "engine/values/matrix.h"
#include "kernels/backend.h"
#include "kernels/host_threads.h"

#define STREAM_FLOATS ((size_t)1 << 26)
#define BANDWIDTH_TARGET 0.6

static const cuk_ops *blas;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* Sort the runs and keep median, fastest and slowest. */
static perf_time summarise(double *x, int runs)
{
    qsort(x, (size_t)runs, sizeof *x, perf_cmp_double);
    return (perf_time){x[runs / 2], x[0], x[runs - 1], runs};
}

/* A rows x cols host matrix of uniform values from mode blas. */
static cuk_matrix *host_floats(int rows, int cols, uint64_t stream)
{
    cuk_matrix *m = mat_new_host(rows, cols);
    if (!m || blas->random(CUK_RAND_UNIFORM, m->host, (size_t)rows * cols, 12345, stream) != 0)
        perf_die("operands");
    return m;
}

/* --- the memory-bound operations against the copy ------------------------- */
typedef struct {
    float *x, *y, *z, r;
} streams;

static float *stream_new(uint64_t stream, cuk_matrix **keep)
{
    *keep = host_floats(1, (int)STREAM_FLOATS, stream);
    return (*keep)->host;
}

static int run_copy(streams *s) { return host_copy(s->z, s->x, STREAM_FLOATS * sizeof(float)); }
static int run_sum(streams *s) { return blas->reduce[CUK_RED_SUM](&s->r, s->x, STREAM_FLOATS); }
static int run_dot(streams *s) { return blas->dot(&s->r, s->x, s->y, STREAM_FLOATS); }
static int run_add(streams *s)
{
    return blas->ewise(CUK_EW_ADD, s->z, (cuk_arg){.p = s->x}, (cuk_arg){.p = s->y}, STREAM_FLOATS);
}

static const struct {
    const char *name;
    int (*run)(streams *);
    int arrays; /* floats moved per element: read + written */
} stream_ops[] = {{"copy", run_copy, 2}, {"sum", run_sum, 1}, {"dot", run_dot, 2}, {"add", run_add, 3}};
#define NSTREAM ((int)(sizeof stream_ops / sizeof stream_ops[0]))

static void bandwidth(void)
{
    cuk_matrix *keep[3];
    streams s = {stream_new(1, &keep[0]), stream_new(2, &keep[1]), stream_new(3, &keep[2]), 0};
    double times[NSTREAM][PERF_RUNS];
    perf_time t[NSTREAM];
    for (int r = -PERF_WARM; r < PERF_RUNS; r++) /* turn about: one of each per round */
        for (int o = 0; o < NSTREAM; o++) {
            double t0 = now_ms();
            if (stream_ops[o].run(&s) != 0)
                perf_die(stream_ops[o].name);
            if (r >= 0)
                times[o][r] = now_ms() - t0;
        }
    for (int o = 0; o < NSTREAM; o++) {
        t[o] = summarise(times[o], PERF_RUNS);
        double gbs = stream_ops[o].arrays * STREAM_FLOATS * sizeof(float) / (t[o].median * 1e6);
        printf("host %-4s 2^26 floats, %d threads: %8.3f ms (%.3f .. %.3f) = %6.1f GB/s\n", stream_ops[o].name,
               host_threads(), t[o].median, t[o].lo, t[o].hi, gbs);
    }
    for (int o = 1; o < NSTREAM; o++) {
        char name[64];
        snprintf(name, sizeof name, "host_blas_%s_vs_copy_2^26", stream_ops[o].name);
        perf_ratio(name, stream_ops[o].arrays * t[0].median / (2 * t[o].median), BANDWIDTH_TARGET);
    }
    for (int i = 0; i < 3; i++)
        mat_unref(keep[i]);
}

/* --- the product ------------------------------------------------------------ */
typedef struct {
    int m, k, n;
    cuk_matrix *a, *b, *kept;
} product;

static product product_new(int m, int k, int n)
{
    product p = {m, k, n, host_floats(m, k, 4), host_floats(k, n, 5), host_floats(m, n, 6)};
    return p;
}

static void product_free(product *p)
{
    if (p->a) {
        mat_unref(p->a);
        mat_unref(p->b);
        mat_unref(p->kept);
    }
}

/* runs timed products into ms[]. fresh: each into a new result, as
 * `C = A @ B` in a session and NumPy's a @ b make one (the engine gives it
 * the buffer the last result of that size freed, as in a session: see
 * matrix.c); else into the kept one. */
static void product_times(product *p, double *ms, int runs, int fresh)
{
    for (int r = 0; r < runs; r++) {
        double t0 = now_ms();
        cuk_matrix *c = fresh ? mat_new_host(p->m, p->n) : p->kept;
        if (!c || blas->matmul(c->host, p->a->host, p->b->host, p->m, p->n, p->k) != 0)
            perf_die("matmul");
        if (fresh)
            mat_unref(c);
        ms[r] = now_ms() - t0;
    }
}

static void products(void)
{
    static const int shapes[][3] = {{1037, 1055, 1031}, {4096, 4096, 4096}};
    for (int i = 0; i < 2; i++) {
        double ms[PERF_RUNS];
        product p = product_new(shapes[i][0], shapes[i][1], shapes[i][2]);
        product_times(&p, ms, PERF_WARM, 1);
        product_times(&p, ms, PERF_RUNS, 1);
        perf_time t = summarise(ms, PERF_RUNS);
        printf("host blas matmul %dx%dx%d: %.3f ms (%.3f .. %.3f) = %.0f GFLOP/s (NumPy beside it: perf_host.py)\n",
               p.m, p.k, p.n, t.median, t.lo, t.hi, 2.0 * p.m * p.n * p.k / (t.median * 1e6));
        product_free(&p);
    }
}

/* perf_host.py's side: a product per request line, its runs' times back;
 * the operands are kept while the shape stays the same, as NumPy's are. */
static void serve(void)
{
    int m, k, n, runs, fresh;
    product p = {0};
    while (scanf("%d %d %d %d %d", &m, &k, &n, &runs, &fresh) == 5 && m > 0 && k > 0 && n > 0 && runs > 0) {
        double *ms = calloc((size_t)runs, sizeof *ms);
        if (!ms)
            perf_die("out of host memory");
        if (p.m != m || p.k != k || p.n != n) {
            product_free(&p);
            p = product_new(m, k, n);
        }
        product_times(&p, ms, runs, fresh);
        for (int r = 0; r < runs; r++)
            printf("%.6f%c", ms[r], r + 1 < runs ? ' ' : '\n');
        fflush(stdout);
        free(ms);
    }
    product_free(&p);
}

int main(int argc, char **argv)
{
    const cuk_backend *mode = mode_find("blas");
    const char *why = "no mode blas";
    if (!mode || !mode_available(mode, &why)) {
        fprintf(stderr, "perf_host: mode blas is unavailable: %s\n", why);
        return 2;
    }
    blas = &mode->ops;
    if (argc > 1 && !strcmp(argv[1], "--serve")) {
        serve();
        return 0;
    }
    printf("# mode blas: %s; %d threads in cuk's pool\n", mode->detail ? mode->detail() : "", host_threads());
    bandwidth();
    products();
    return 0;
}
