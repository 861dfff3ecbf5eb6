/* perf_multi.c - `make bench`: mode multi's product on every GPU against
 * mode cublas on one (GPU 0) and against cuBLASXt over the same GPUs, turn
 * about in one process, at 8192^3 and 16384^3; then the same product out
 * of core (operands and result in host memory, which multi hands to
 * cuBLASXt) against it resident, at 32768^3. Beside each, the relative
 * error against float64 of multi and cublas, sampled (SAMPLES entries).
 *
 * Ratios: multi / cublas speed (>= 1.7 at 8192^3 and >= 1.85 at 16384^3
 * on two GPUs; on one GPU multi is cublas, no target), multi / cuBLASXt
 * (>= 1.0; cuBLASXt tuned: the best of its tile sizes, operands in pinned
 * host memory, its own use), out of core / resident (>= 0.7), and the
 * error ratio cublas / multi (>= 0.5: multi's error at most twice). With
 * arguments, only the parts they name (8192 16384 ooc). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bench/perf.h"
#include "kernels/backend.h"

#define SAMPLES 256

int cublas_xt_matmul(float *c, const float *a, const float *b, int m, int n, int k, int gpus, int block);

typedef struct {
    const cuk_backend *mode;
    float *a, *b, *c;
    int n;
    int xt_block; /* > 0: cuBLASXt with this tile */
} product;

static int run_product(void *ctx, int rep)
{
    product *p = ctx;
    if (p->xt_block)
        return cublas_xt_matmul(p->c, p->a, p->b, p->n, p->n, p->n, gpu_count(), p->xt_block);
    mode_enter(p->mode);
    return p->mode->ops.matmul(p->c, p->a, p->b, p->n, p->n, p->n);
}

static float *spread_alloc(size_t n)
{
    void *p;
    if (gpu_spread_alloc(&p, n * sizeof(float)) != 0)
        perf_die("spread memory");
    return p;
}

static float *dev_alloc(size_t n)
{
    void *p;
    if (gpu_raw_alloc(&p, n * sizeof(float)) != 0)
        perf_die("device memory");
    return p;
}

static float *host_alloc(size_t n, int pin)
{
    float *h = malloc(n * sizeof *h);
    if (!h || (pin && gpu_host_pin(h, n * sizeof *h) != 0))
        perf_die("host memory");
    return h;
}

static void host_free(float *h, int pin)
{
    if (pin)
        gpu_host_unpin(h);
    free(h);
}

static void fill(const char *mode, float *p, size_t n, uint64_t stream)
{
    mode_enter(mode_find(mode));
    if (mode_find(mode)->ops.random(CUK_RAND_NORMAL, p, n, 2026, stream) != 0 || gpu_sync() != 0)
        perf_die("random");
}

static void read_back(float *h, const float *d, size_t n)
{
    if (gpu_d2h(h, d, n * sizeof *h) != 0)
        perf_die("read back");
}

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* ||C_s - R_s|| / ||R_s|| over SAMPLES entries of the n x n product, each
 * read from c where it lives; the reference in float64 from ha, hb. */
static double sampled_error(const float *c, int c_on_host, const float *ha, const float *hb, int n)
{
    uint64_t seed = 99;
    double num = 0, den = 0;
    for (int t = 0; t < SAMPLES; t++) {
        size_t i = next(&seed) % (uint64_t)n, j = next(&seed) % (uint64_t)n;
        float got;
        if (c_on_host)
            got = c[i * n + j];
        else
            read_back(&got, c + i * n + j, 1);
        double r = 0;
        for (size_t p = 0; p < (size_t)n; p++)
            r += (double)ha[i * n + p] * hb[p * n + j];
        num += (got - r) * (got - r);
        den += r * r;
    }
    return sqrt(num / den);
}

static double tflops(int n, double ms) { return 2.0 * n * (double)n * n / (ms * 1e-3) / 1e12; }

static int nwanted;
static char **wanted;

static int named(const char *label)
{
    int yes = nwanted == 0;
    for (int i = 0; i < nwanted; i++)
        yes |= !strcmp(wanted[i], label);
    return yes;
}

/* cuBLASXt's best tile for this product (operands where p has them), by
 * the median of a few runs each; p->xt_block is left set to it. */
static perf_time tune_xt(product *p)
{
    static const int blocks[] = {4096, 8192, 16384};
    perf_time best = {0};
    int pick = 0;
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        if (blocks[i] > p->n)
            continue;
        p->xt_block = blocks[i];
        perf_time t = perf_one(run_product, p, 5);
        printf("#   cuBLASXt tile %5d: %9.3f ms [%.3f-%.3f] %6.1f TFLOP/s\n", blocks[i], t.median, t.lo, t.hi,
               tflops(p->n, t.median));
        if (!pick || t.median < best.median)
            best = t, pick = blocks[i];
    }
    p->xt_block = pick;
    return best;
}

/* multi against cublas on GPU 0 and against cuBLASXt, at n^3. */
static void resident(int n, double target, const char *label)
{
    if (!named(label))
        return;
    size_t nn = (size_t)n * n;
    int two = gpu_count() > 1;
    float *a = spread_alloc(nn), *b = spread_alloc(nn), *c = spread_alloc(nn);
    float *a1 = dev_alloc(nn), *b1 = dev_alloc(nn), *c1 = dev_alloc(nn);
    fill("multi", a, nn, 1), fill("multi", b, nn, 2);
    fill("cublas", a1, nn, 1), fill("cublas", b1, nn, 2);
    product pm = {mode_find("multi"), a, b, c, n, 0}, pc = {mode_find("cublas"), a1, b1, c1, n, 0};
    float *ha = host_alloc(nn, 1), *hb = host_alloc(nn, 1), *hc = host_alloc(nn, 1);
    read_back(ha, a, nn), read_back(hb, b, nn);
    if (run_product(&pm, 0) || run_product(&pc, 0) || gpu_sync())
        perf_die("first products");
    double em = sampled_error(c, 0, ha, hb, n), ec = sampled_error(c1, 0, ha, hb, n);
    perf_time tm, tc, tx;
    perf_pair(run_product, &pm, &tm, run_product, &pc, &tc, PERF_RUNS);
    product px = {NULL, ha, hb, hc, n, 0};
    tx = tune_xt(&px);
    perf_time tm2, tx2;
    perf_pair(run_product, &pm, &tm2, run_product, &px, &tx2, 7);
    printf("%-8s multi %8.3f ms [%.3f-%.3f] %6.1f TFLOP/s | cublas (GPU 0) %8.3f ms [%.3f-%.3f] %6.1f | "
           "cuBLASXt tile %d %8.3f ms [%.3f-%.3f] %6.1f (tuning: %.3f) | err multi %.2e cublas %.2e | %d GPUs\n",
           label, tm.median, tm.lo, tm.hi, tflops(n, tm.median), tc.median, tc.lo, tc.hi, tflops(n, tc.median),
           px.xt_block, tx2.median, tx2.lo, tx2.hi, tflops(n, tx2.median), tx.median, em, ec, gpu_count());
    char name[96];
    snprintf(name, sizeof name, "multi/cublas speed %s", label);
    perf_ratio(name, tc.median / tm.median, two ? target : 0);
    snprintf(name, sizeof name, "multi/cuBLASXt speed %s", label);
    perf_ratio(name, tx2.median / tm2.median, 1.0);
    snprintf(name, sizeof name, "cublas/multi error %s", label);
    perf_ratio(name, ec / em, 0.5);
    fflush(stdout);
    gpu_spread_free(a), gpu_spread_free(b), gpu_spread_free(c);
    gpu_raw_free(a1), gpu_raw_free(b1), gpu_raw_free(c1);
    host_free(ha, 1), host_free(hb, 1), host_free(hc, 1);
}

/* The same product with every matrix in host memory (what multi does with
 * matrices the GPUs cannot hold) against it resident; pinned as cuk pins
 * them, and once pageable, to show why. */
static void out_of_core(int n, const char *label)
{
    if (!named("ooc"))
        return;
    size_t nn = (size_t)n * n;
    float *a = spread_alloc(nn), *b = spread_alloc(nn), *c = spread_alloc(nn);
    fill("multi", a, nn, 1), fill("multi", b, nn, 2);
    float *ha = host_alloc(nn, 1), *hb = host_alloc(nn, 1), *hc = host_alloc(nn, 1);
    read_back(ha, a, nn), read_back(hb, b, nn);
    product pr = {mode_find("multi"), a, b, c, n, 0}, po = {mode_find("multi"), ha, hb, hc, n, 0};
    if (run_product(&po, 0) || gpu_sync())
        perf_die("out-of-core product");
    double eo = sampled_error(hc, 1, ha, hb, n);
    perf_time tr, to;
    perf_pair(run_product, &pr, &tr, run_product, &po, &to, 7);
    float *pa = host_alloc(nn, 0), *pb = host_alloc(nn, 0), *pc = host_alloc(nn, 0);
    memcpy(pa, ha, nn * sizeof *pa), memcpy(pb, hb, nn * sizeof *pb);
    product pp = {mode_find("multi"), pa, pb, pc, n, 0};
    perf_time tp = perf_one(run_product, &pp, 3);
    printf("%-8s resident %8.3f ms [%.3f-%.3f] %6.1f TFLOP/s | out of core, pinned %8.3f ms [%.3f-%.3f] %6.1f | "
           "pageable %8.3f ms %6.1f | err out of core %.2e | %d GPUs\n",
           label, tr.median, tr.lo, tr.hi, tflops(n, tr.median), to.median, to.lo, to.hi, tflops(n, to.median),
           tp.median, tflops(n, tp.median), eo, gpu_count());
    char name[96];
    snprintf(name, sizeof name, "multi out of core/resident %s", label);
    perf_ratio(name, tr.median / to.median, 0.7);
    fflush(stdout);
    gpu_spread_free(a), gpu_spread_free(b), gpu_spread_free(c);
    host_free(ha, 1), host_free(hb, 1), host_free(hc, 1);
    host_free(pa, 0), host_free(pb, 0), host_free(pc, 0);
}

int main(int argc, char **argv)
{
    nwanted = argc - 1, wanted = argv + 1;
    /* The products run on every GPU; the gate on GPU 0's stream would let
     * the others start before the first mark. Their times run to milliseconds,
     * where the host's launch time is noise. */
    perf_hold_us = 0;
    const char *why;
    if (gpu_init() != 0 || !gpu_usable(&why))
        perf_die("no GPU");
    static const char *need[] = {"cublas", "multi"};
    for (int i = 0; i < 2; i++)
        if (!mode_available(mode_find(need[i]), &why)) {
            printf("perf_multi: mode %s unavailable: %s\n", need[i], why);
            return 0;
        }
    printf("# perf_multi on %d x %s: medians of %d runs turn about (cuBLASXt and out of core: 7), "
           "[fastest-slowest]; TFLOP/s count 2n^3\n",
           gpu_count(), gpu_device()->name, PERF_RUNS);
    perf_clock_log("start");
    resident(8192, 1.7, "8192");
    resident(16384, 1.85, "16384");
    out_of_core(32768, "32768");
    perf_clock_log("end");
    return 0;
}
