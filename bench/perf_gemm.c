/* perf_gemm.c - `make bench`: mode fast's matrix product against mode
 * cublas's (cublasLt, pedantic FP32), both through the mode table, timed
 * turn about in this one process: 4096^3, 2048^3, 1037x1055x1031 and a
 * suite of ragged shapes (their geometric mean and worst ratio), then the
 * relative error of each against a float64 reference computed here, on
 * U(0,1) and N(0,1) inputs.
 *
 *   perf_gemm              everything
 *   perf_gemm M K N ...    only these shapes (A is M x K, B is K x N)
 *   perf_gemm --time M K N ...   only these shapes, timed, no error check
 *   perf_gemm -s NAME=VALUE ...   first `set NAME VALUE` (a variant
 *                          switch: `-s align=off`), then as above
 *   perf_gemm --hold US ...   the gate before each timed run holds the
 *                          device at most US microseconds (perf.h; 0: no
 *                          gate, time from an idle device, the host's
 *                          launch work inside), then as above */
#include <math.h>
#include <stdint.h>

#include "bench/perf.h"
#include "kernels/backend.h"
#include "kernels/variants.h"

typedef struct {
    int m, k, n;
} shape;

/* The headline shapes, with their targets (kernels/PERF.md, ## fast). */
static const struct {
    shape s;
    const char *name;
    double target;
} headline[] = {
    {{4096, 4096, 4096}, "4096^3", 0.90},
    {{2048, 2048, 2048}, "2048^3", 0.85},
    {{1037, 1055, 1031}, "1037x1055x1031", 1.20},
};

/* The ragged suite, M x K x N: every shape must work, and their geometric
 * mean counts, not the best of them. Primes, odd sizes, 1 x N and N x 1
 * (matrix-vector), a long k with a tiny output, tall-skinny and short-wide
 * operands, and sizes just past a tile. */
static const shape suite[] = {
    {1000, 1000, 1000}, {333, 4097, 65},   {4097, 333, 4097}, {1009, 1013, 1019}, {1, 4096, 4096},
    {4096, 4096, 1},    {1, 1, 1},         {17, 33, 65},      {1, 1000, 999},     {999, 1001, 1},
    {64, 16384, 64},    {16384, 128, 128}, {128, 128, 16384}, {8192, 64, 8192},   {3001, 2999, 3000},
    {511, 513, 1025},   {97, 1999, 101},   {4099, 4093, 67},  {2500, 700, 1300},  {1025, 1025, 1025},
    {7, 7, 7},          {129, 257, 4099},  {67, 4093, 4099},
};
#define NSUITE ((int)(sizeof suite / sizeof suite[0]))

/* One product's operands: `sets` of (a, b, c), rotated so that no run finds
 * the last run's operands in L2. */
#define MAX_SETS 64
typedef struct {
    const cuk_backend *mode;
    float *a[MAX_SETS], *b[MAX_SETS], *c[MAX_SETS];
    int sets, m, n, k;
} product;

static int run_product(void *ctx, int rep)
{
    product *p = ctx;
    int s = rep % p->sets;
    mode_enter(p->mode); /* its launches are recorded under it (print_plan) */
    return p->mode->ops.matmul(p->c[s], p->a[s], p->b[s], p->m, p->n, p->k);
}

static float *dev_alloc(size_t n)
{
    void *p = NULL;
    if (gpu_raw_alloc(&p, (n ? n : 1) * sizeof(float)) != 0)
        perf_die("device allocation");
    return p;
}

static void fill(const cuk_backend *gpu, cuk_dist dist, float *p, size_t n, uint64_t seed)
{
    if (gpu->ops.random(dist, p, n, seed, 1) != 0)
        perf_die("random fill");
}

static double flops(shape s) { return 2.0 * s.m * s.k * s.n; }

/* What mode fast launched since `before` (its launch counts, by kernel),
 * on one line: the plan it chose, e.g. "fast_pad_rows fast_sgemm_sk<64x128/32>". */
#define MAX_KERNELS 64
static int fast_launches(gpu_kernel_row *rows)
{
    return gpu_kernel_rows(mode_find("fast"), rows, MAX_KERNELS);
}

static void print_plan(const gpu_kernel_row *before, int nbefore)
{
    gpu_kernel_row now[MAX_KERNELS];
    int n = fast_launches(now);
    printf("%16s plan:", "");
    for (int i = 0; i < n; i++) {
        int was = 0;
        for (int j = 0; j < nbefore; j++)
            if (!strcmp(before[j].name, now[i].name))
                was = before[j].launches;
        if (now[i].launches > was)
            printf(" %s", now[i].name);
    }
    printf("\n");
}

/* fast's and cublas's medians at s, on random N(0,1) operands; prints a
 * line and returns fast's speed over cuBLAS's (time ratio). */
static double time_shape(shape s, const char *label)
{
    const cuk_backend *fast = mode_find("fast"), *cublas = mode_find("cublas");
    size_t na = (size_t)s.m * s.k, nb = (size_t)s.k * s.n, nc = (size_t)s.m * s.n;
    product pf = {fast, {0}, {0}, {0}, perf_sets((na + nb + nc) * sizeof(float)), s.m, s.n, s.k};
    if (pf.sets > MAX_SETS)
        pf.sets = MAX_SETS;
    for (int i = 0; i < pf.sets; i++) {
        pf.a[i] = dev_alloc(na), pf.b[i] = dev_alloc(nb), pf.c[i] = dev_alloc(nc);
        fill(fast, CUK_RAND_NORMAL, pf.a[i], na, 100 + 2 * i);
        fill(fast, CUK_RAND_NORMAL, pf.b[i], nb, 101 + 2 * i);
    }
    product pc = pf;
    pc.mode = cublas;
    perf_time tf, tc;
    gpu_kernel_row before[MAX_KERNELS];
    int nbefore = fast_launches(before);
    perf_pair(run_product, &pf, &tf, run_product, &pc, &tc, PERF_RUNS);
    double ratio = tc.median / tf.median;
    printf("%-16s fast %9.4f ms [%.4f..%.4f] %6.2f TFLOP/s | cublas %9.4f ms [%.4f..%.4f] %6.2f TFLOP/s | %5.3f  (%d sets)\n",
           label, tf.median, tf.lo, tf.hi, flops(s) / tf.median * 1e-9, tc.median, tc.lo, tc.hi,
           flops(s) / tc.median * 1e-9, ratio, pf.sets);
    print_plan(before, nbefore);
    for (int i = 0; i < pf.sets; i++)
        gpu_raw_free(pf.a[i]), gpu_raw_free(pf.b[i]), gpu_raw_free(pf.c[i]);
    return ratio;
}

/* ||got[w] - ref|| / ||ref|| for both results w over the sampled entries
 * of a @ b, the reference in float64 here: every row and column where the
 * product is small enough, else 61 rows and 61 columns spread over it, the
 * first and last included (the edges of the tiles). */
static void relerr(double err[2], float *const got[2], const float *a, const float *b, shape s)
{
    int full = (double)s.m * s.n * s.k <= 1.2e9;
    int nr = full || s.m <= 61 ? s.m : 61, nc = full || s.n <= 61 ? s.n : 61;
    double num[2] = {0, 0}, den = 0;
    for (int ri = 0; ri < nr; ri++) {
        int i = nr == s.m ? ri : (int)((long long)ri * (s.m - 1) / (nr - 1));
        for (int ci = 0; ci < nc; ci++) {
            int j = nc == s.n ? ci : (int)((long long)ci * (s.n - 1) / (nc - 1));
            double ref = 0;
            for (int q = 0; q < s.k; q++)
                ref += (double)a[(size_t)i * s.k + q] * b[(size_t)q * s.n + j];
            den += ref * ref;
            for (int w = 0; w < 2; w++) {
                double g = got[w][(size_t)i * s.n + j];
                num[w] += isnan(g) ? INFINITY : (g - ref) * (g - ref);
            }
        }
    }
    for (int w = 0; w < 2; w++)
        err[w] = den > 0 ? sqrt(num[w] / den) : sqrt(num[w]);
}

/* The error of both modes at s on U(0,1) and N(0,1) inputs; c is poisoned
 * (NaN) before each product, so an unwritten element fails. Returns the
 * worse of fast's two errors over cuBLAS's. */
static double check_shape(shape s, const char *label)
{
    const cuk_backend *modes[2] = {mode_find("fast"), mode_find("cublas")};
    size_t na = (size_t)s.m * s.k, nb = (size_t)s.k * s.n, nc = (size_t)s.m * s.n;
    float *a = dev_alloc(na), *b = dev_alloc(nb), *c = dev_alloc(nc);
    float *ha = malloc(na * sizeof *ha), *hb = malloc(nb * sizeof *hb);
    float *hc[2] = {malloc(nc * sizeof(float)), malloc(nc * sizeof(float))};
    if (!ha || !hb || !hc[0] || !hc[1])
        perf_die("out of host memory");
    double worst = 0;
    for (int d = 0; d < 2; d++) {
        cuk_dist dist = d ? CUK_RAND_NORMAL : CUK_RAND_UNIFORM;
        fill(modes[0], dist, a, na, 7 + d), fill(modes[0], dist, b, nb, 9 + d);
        if (gpu_d2h(ha, a, na * sizeof *ha) || gpu_d2h(hb, b, nb * sizeof *hb))
            perf_die("copy");
        for (int w = 0; w < 2; w++)
            if (gpu_memset(c, 0xff, nc * sizeof(float)) || modes[w]->ops.matmul(c, a, b, s.m, s.n, s.k) ||
                gpu_d2h(hc[w], c, nc * sizeof(float)))
                perf_die(modes[w]->name);
        double err[2];
        relerr(err, hc, ha, hb, s);
        double r = err[1] > 0 ? err[0] / err[1] : err[0] > 0 ? INFINITY : 1;
        printf("%-16s %s  error fast %.3e  cublas %.3e  fast/cublas %.2f\n", label, d ? "N(0,1)" : "U(0,1)", err[0],
               err[1], r);
        worst = r > worst ? r : worst;
    }
    gpu_raw_free(a), gpu_raw_free(b), gpu_raw_free(c);
    free(ha), free(hb), free(hc[0]), free(hc[1]);
    return worst;
}

static void shape_label(char *buf, size_t cap, shape s) { snprintf(buf, cap, "%dx%dx%d", s.m, s.k, s.n); }

/* Only the shapes given as M K N triples, timed and (check) checked. */
static int run_given(int argc, char **argv, int check)
{
    for (int i = 1; i + 2 < argc; i += 3) {
        shape s = {atoi(argv[i]), atoi(argv[i + 1]), atoi(argv[i + 2])};
        char label[64];
        shape_label(label, sizeof label, s);
        time_shape(s, label);
        if (check)
            check_shape(s, label);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *why = NULL; /* a GPU mode is available only with a usable GPU */
    if (!mode_available(mode_find("fast"), &why) || !mode_available(mode_find("cublas"), &why)) {
        printf("perf_gemm: skipped: %s\n", why);
        return 0;
    }
    while (argc > 2 && !strcmp(argv[1], "-s")) {
        char name[32];
        const char *eq = strchr(argv[2], '=');
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - argv[2]) : 0, argv[2]);
        if (!eq) {
            fprintf(stderr, "perf_gemm: -s wants NAME=VALUE, not %s\n", argv[2]);
            return 2;
        }
        if (variant_set(name, eq + 1) != 0)
            perf_die(argv[2]);
        printf("# set %s %s\n", name, eq + 1);
        argc -= 2, argv += 2;
    }
    if (argc > 2 && !strcmp(argv[1], "--hold")) {
        perf_hold_us = atof(argv[2]);
        printf("# the gate before each timed run's first mark holds at most %g us\n", perf_hold_us);
        argc -= 2, argv += 2;
    }
    perf_clock_log("before");
    if (argc > 1 && !strcmp(argv[1], "--time"))
        return run_given(argc - 1, argv + 1, 0);
    if (argc > 1)
        return run_given(argc, argv, 1);
    double ratio[3], worst_err = 0;
    for (int h = 0; h < 3; h++)
        ratio[h] = time_shape(headline[h].s, headline[h].name);
    double logsum = 0, worst = INFINITY;
    const char *worst_at = "";
    static char labels[NSUITE][64];
    for (int i = 0; i < NSUITE; i++) {
        shape_label(labels[i], sizeof labels[i], suite[i]);
        double r = time_shape(suite[i], labels[i]);
        logsum += log(r);
        if (r < worst)
            worst = r, worst_at = labels[i];
    }
    perf_clock_log("after timing");
    for (int h = 0; h < 3; h++) {
        double e = check_shape(headline[h].s, headline[h].name);
        worst_err = e > worst_err ? e : worst_err;
    }
    for (int i = 0; i < NSUITE; i++) {
        double e = check_shape(suite[i], labels[i]);
        worst_err = e > worst_err ? e : worst_err;
    }
    char name[160];
    for (int h = 0; h < 3; h++) {
        snprintf(name, sizeof name, "gemm fast/cublas %s", headline[h].name);
        perf_ratio(name, ratio[h], headline[h].target);
    }
    snprintf(name, sizeof name, "gemm fast/cublas geomean of %d ragged", NSUITE);
    perf_ratio(name, exp(logsum / NSUITE), 1.0);
    snprintf(name, sizeof name, "gemm fast/cublas worst (%.40s)", worst_at);
    perf_ratio(name, worst, 0.8);
    /* at most twice cuBLAS's error: its error over fast's at least 0.5 */
    perf_ratio("gemm error cublas/fast, worst shape", worst_err > 0 ? 1 / worst_err : 1, 0.5);
    return 0;
}
