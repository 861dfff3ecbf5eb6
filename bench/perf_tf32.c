/* perf_tf32.c - `make bench`: the FP32-accurate tensor-core modes, tf32x3
 * and ozaki (INT8 slices), each against cuBLAS FP32 (mode cublas), turn
 * about in one process, at 4096^3, 8192^3,
 * 1037x1055x1031 and a ragged suite of odd sizes (K up to 8192); beside
 * each, the relative error of both (and of mode tf32, cuBLAS on TF32)
 * against float64 on N(0,1) and U(0,1) inputs, sampled: SAMPLES entries
 * (i, j) picked by a seeded generator, each a float64 dot product of a's
 * row and b's column, the error ||C_s - R_s|| / ||R_s|| over the sample.
 * Ratios: speed tf32x3 over cublas (>= 2.0 at 4096^3, 2.5 stretch at
 * 8192^3, >= 1.5 at 1037, >= 0.9 on the ragged suite, >= 0.95 on the
 * thin shapes: a vector, a row, thin k, thin m or n), and error cublas over
 * tf32x3 (>= 0.5: tf32x3's error at most twice cuBLAS FP32's); speed
 * ozaki over cublas (>= 3.0 at 8192^3, 2.5 at 4096^3, 1.0 elsewhere) and
 * error cublas over ozaki (>= 1: at most cuBLAS FP32's). With arguments,
 * only the shapes they name (perf_tf32 1037x1055x1031 4096^3). */
#include <string.h>
#include <math.h>
#include <stdint.h>

#include "bench/perf.h"
#include "kernels/backend.h"
#include "kernels/ozaki.h"

#define SAMPLES 512

typedef struct {
    const cuk_backend *mode;
    float **a, **b, **c;
    int sets, m, n, k;
} product;

static int run_product(void *ctx, int rep)
{
    product *p = ctx;
    int s = rep % p->sets;
    mode_enter(p->mode);
    return p->mode->ops.matmul(p->c[s], p->a[s], p->b[s], p->m, p->n, p->k);
}

static float *dev_alloc(size_t n)
{
    void *p;
    if (gpu_raw_alloc(&p, n * sizeof(float)) != 0)
        perf_die("device memory");
    return p;
}

static float *host_read(const float *d, size_t n)
{
    float *h = malloc(n * sizeof *h);
    if (!h)
        perf_die("out of host memory");
    if (gpu_d2h(h, d, n * sizeof *h) != 0)
        perf_die("read back");
    return h;
}

/* A seeded generator for the sample positions (the same in every run). */
static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* ||C_s - R_s|| / ||R_s|| over SAMPLES entries of c (m x n) = a @ b, the
 * reference in float64 from the host copies ha, hb. */
static double sampled_error(const float *hc, const float *ha, const float *hb, int m, int n, int k)
{
    uint64_t seed = 12345;
    double num = 0, den = 0;
    for (int t = 0; t < SAMPLES; t++) {
        size_t i = next(&seed) % (uint64_t)m, j = next(&seed) % (uint64_t)n;
        double r = 0;
        for (size_t p = 0; p < (size_t)k; p++)
            r += (double)ha[i * k + p] * hb[p * n + j];
        double d = hc[i * n + j] - r;
        num += d * d;
        den += r * r;
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void fill(float *d, size_t n, cuk_dist dist, uint64_t stream)
{
    if (mode_find("cublas")->ops.random(dist, d, n, 2026, stream) != 0)
        perf_die("random");
}

/* Each mode's error on set 0 drawn from dist, into err[mode]. */
static void errors(product *const *modes, int nmodes, cuk_dist dist, double *err)
{
    product *p = modes[0];
    size_t ma = (size_t)p->m * p->k, mb = (size_t)p->k * p->n, mc = (size_t)p->m * p->n;
    fill(p->a[0], ma, dist, 1);
    fill(p->b[0], mb, dist, 2);
    float *ha = host_read(p->a[0], ma), *hb = host_read(p->b[0], mb);
    for (int i = 0; i < nmodes; i++) {
        if (run_product(modes[i], 0) != 0 || gpu_sync() != 0)
            perf_die(modes[i]->mode->name);
        float *hc = host_read(p->c[0], mc);
        err[i] = sampled_error(hc, ha, hb, p->m, p->n, p->k);
        free(hc);
    }
    free(ha);
    free(hb);
}

/* The ratio line "WHAT LABEL". */
static void ratio(const char *what, const char *label, double value, double target)
{
    char name[96];
    snprintf(name, sizeof name, "%s %s", what, label);
    perf_ratio(name, value, target);
}

static double tflops(int m, int n, int k, double ms) { return 2.0 * m * n * k / (ms * 1e-3) / 1e12; }

static int nwanted;
static char **wanted;
static int with_ozaki; /* mode ozaki is available: timed too */

/* One shape: errors on N(0,1) and U(0,1), then the timings on N(0,1);
 * skipped when the command line names other shapes. */
static void shape(int m, int k, int n, double target, double oz_target, const char *label)
{
    int named = nwanted == 0;
    for (int i = 0; i < nwanted; i++)
        named |= !strcmp(wanted[i], label);
    if (!named)
        return;
    size_t ma = (size_t)m * k, mb = (size_t)k * n, mc = (size_t)m * n;
    int sets = perf_sets((ma + mb + mc) * sizeof(float));
    float *a[64], *b[64], *c[64];
    for (int s = 0; s < sets; s++) {
        a[s] = dev_alloc(ma), b[s] = dev_alloc(mb), c[s] = dev_alloc(mc);
        fill(a[s], ma, CUK_RAND_NORMAL, 10 + 2 * s);
        fill(b[s], mb, CUK_RAND_NORMAL, 11 + 2 * s);
    }
    product x3 = {mode_find("tf32x3"), a, b, c, sets, m, n, k}, fp = {mode_find("cublas"), a, b, c, sets, m, n, k},
            t1 = {mode_find("tf32"), a, b, c, sets, m, n, k}, oz = {mode_find("ozaki"), a, b, c, sets, m, n, k};
    product *all[4] = {&x3, &fp, &t1, &oz};
    double en[4], eu[4];
    errors(all, with_ozaki ? 4 : 3, CUK_RAND_NORMAL, en);
    errors(all, with_ozaki ? 4 : 3, CUK_RAND_UNIFORM, eu);
    fill(a[0], ma, CUK_RAND_NORMAL, 10);
    fill(b[0], mb, CUK_RAND_NORMAL, 11);
    perf_time tx, tf, tt, to, tf2;
    char how[400];
    perf_pair(run_product, &x3, &tx, run_product, &fp, &tf, PERF_RUNS);
    tt = perf_one(run_product, &t1, PERF_RUNS);
    printf("%-16s tf32x3 %8.3f ms [%.3f-%.3f] %6.1f TFLOP/s | cublas %8.3f ms [%.3f-%.3f] %6.1f | tf32 %7.3f ms "
           "%6.1f | err N(0,1) x3 %.2e fp32 %.2e tf32 %.2e | U(0,1) x3 %.2e fp32 %.2e tf32 %.2e | %d sets\n",
           label, tx.median, tx.lo, tx.hi, tflops(m, n, k, tx.median), tf.median, tf.lo, tf.hi,
           tflops(m, n, k, tf.median), tt.median, tflops(m, n, k, tt.median), en[0], en[1], en[2], eu[0], eu[1],
           eu[2], sets);
    ratio("tf32x3/cublas speed", label, tf.median / tx.median, target);
    ratio("cublas/tf32x3 error N", label, en[1] / en[0], 0.5);
    ratio("cublas/tf32x3 error U", label, eu[1] / eu[0], 0.5);
    if (with_ozaki) {
        perf_pair(run_product, &oz, &to, run_product, &fp, &tf2, PERF_RUNS);
        printf("%-16s ozaki  %8.3f ms [%.3f-%.3f] %6.1f TFLOP/s | cublas %8.3f ms [%.3f-%.3f] | err N(0,1) %.2e "
               "U(0,1) %.2e | %s\n",
               label, to.median, to.lo, to.hi, tflops(m, n, k, to.median), tf2.median, tf2.lo, tf2.hi, en[3], eu[3],
               ozaki_describe(ozaki_last(), how, sizeof how));
        ratio("ozaki/cublas speed", label, tf2.median / to.median, oz_target);
        ratio("cublas/ozaki error N", label, en[1] / en[3], 1.0);
        ratio("cublas/ozaki error U", label, eu[1] / eu[3], 1.0);
    }
    fflush(stdout);
    for (int s = 0; s < sets; s++)
        gpu_raw_free(a[s]), gpu_raw_free(b[s]), gpu_raw_free(c[s]);
}

int main(int argc, char **argv)
{
    nwanted = argc - 1, wanted = argv + 1;
    static const int ragged[][3] = {{511, 777, 1023},   {1000, 1000, 1000}, {2047, 2049, 2051}, {3001, 2999, 3003},
                                    {4095, 4097, 4093}, {1537, 8191, 1539}, {6143, 1025, 6145}, {257, 4099, 8191},
                                    {8191, 257, 4097},  {2500, 3333, 1777}, {1023, 8192, 1025}, {5003, 5005, 5007}};
    const char *why;
    if (gpu_init() != 0 || !gpu_usable(&why))
        perf_die("no GPU");
    static const char *need[] = {"cublas", "tf32", "tf32x3"};
    with_ozaki = mode_available(mode_find("ozaki"), &why);
    if (!with_ozaki)
        printf("perf_tf32: mode ozaki left out: %s\n", why);
    for (int i = 0; i < 3; i++)
        if (!mode_available(mode_find(need[i]), &why)) {
            printf("perf_tf32: mode %s unavailable: %s\n", need[i], why);
            return 0;
        }
    printf("# perf_tf32 on %s: medians of %d runs turn about, [fastest-slowest]; TFLOP/s count 2mnk\n",
           gpu_device()->name, PERF_RUNS);
    /* M x K x N: a row times a matrix, a matrix times a column, thin n,
     * thin m, thin k */
    static const int thin[][3] = {{1, 4096, 4096}, {4096, 4096, 1}, {4099, 4093, 67}, {67, 4093, 4099},
                                  {4096, 64, 4096}};
    perf_clock_log("start");
    shape(4096, 4096, 4096, 2.0, 2.5, "4096^3");
    shape(1037, 1055, 1031, 1.5, 1.0, "1037x1055x1031");
    char label[48];
    for (size_t i = 0; i < sizeof ragged / sizeof ragged[0]; i++) {
        snprintf(label, sizeof label, "%dx%dx%d", ragged[i][0], ragged[i][1], ragged[i][2]);
        shape(ragged[i][0], ragged[i][1], ragged[i][2], 0.9, 1.0, label);
    }
    for (size_t i = 0; i < sizeof thin / sizeof thin[0]; i++) {
        snprintf(label, sizeof label, "%dx%dx%d", thin[i][0], thin[i][1], thin[i][2]);
        shape(thin[i][0], thin[i][1], thin[i][2], 0.95, 1.0, label);
    }
    shape(8192, 8192, 8192, 2.5, 3.0, "8192^3");
    perf_clock_log("end");
    return 0;
}
