/* test_ozaki.c - mode ozaki's scheme without a GPU: its digits, where it
 * runs, how many slices it takes, and the scheme itself run on the host
 * exactly as the GPU runs it (the same digits, exact integer sums of the
 * slice pairs of weight below s, one FP64 sum rounded to FP32), against
 * float64 and against an FP32 product on the same inputs: N(0,1), U(0,1),
 * rows of both operands scaled by 2^k with k uniform in [-20, 20], and a
 * product built to defeat it, which the span guard must refuse. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ozaki.h"
#include "tests/check.h"

/* A normal variate (Box-Muller) from the tests' generator. */
static double normal(void)
{
    double u = check_uniform(), v = check_uniform();
    return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

/* Every digit is in [-64, 64], and they give back x to within
 * 2^(e - 13 - 7 (s - 1)): the bound the error of the scheme rests on. */
static void ozaki_digits_bounded_and_exact(void)
{
    check_seed(11);
    for (int t = 0; t < 20000; t++) {
        float x = (float)(normal() * ldexp(1.0, (int)(check_uniform() * 60) - 30));
        if (t % 97 == 0)
            x = 0.0f;
        float hi = fabsf(x) * (float)(1.0 + 3.0 * check_uniform());
        int e = ozaki_exponent(hi), s = OZAKI_SLICES + t % 5;
        int8_t d[OZAKI_MAX_SLICES];
        ozaki_digits(x, e, s, d);
        double back = 0;
        for (int p = 0; p < s; p++) {
            CHECKF(d[p] >= -64 && d[p] <= 64, "x %g: digit %d is %d", x, p, d[p]);
            back += ldexp(d[p], e - 6 - 7 * p);
        }
        CHECKF(fabs(back - x) <= ldexp(1.0, e - 13 - 7 * (s - 1)), "x %g, %d slices: back %.17g", x, s, back);
    }
}

/* Where the scheme runs: both sides 64 or more, k from 256 to 32768, and
 * 2^31 multiply-adds; elsewhere fast's FP32 kernels (thin, small, long). */
static void ozaki_runs_where_it_wins(void)
{
    static const struct {
        int m, k, n, scheme;
    } shapes[] = {{4096, 4096, 4096, 1}, {8192, 8192, 8192, 1}, {1283, 1297, 1301, 1}, {2049, 333, 4097, 1},
                  {65, 8191, 4099, 1},   {1037, 1055, 1031, 0}, {1, 4096, 4096, 0},   {4096, 4096, 1, 0},
                  {63, 8192, 8192, 0},   {8192, 255, 8192, 0},  {4096, 40000, 4096, 0}, {17, 33, 65, 0},
                  {4099, 4093, 67, 0},   {67, 4093, 4099, 0},   {4096, 64, 4096, 0}, {64, 32768, 1024, 1}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        CHECKF(ozaki_worth(shapes[i].m, shapes[i].n, shapes[i].k) == shapes[i].scheme, "%dx%dx%d: %s",
               shapes[i].m, shapes[i].k, shapes[i].n, shapes[i].scheme ? "not sliced" : "sliced");
}

/* 4 slices up to OZAKI_BULK_FREE bits of bulk, one more each 7 bits, at
 * most OZAKI_MAX_SLICES. */
static void ozaki_slices_grow_with_bulk(void)
{
    CHECK(ozaki_slices_for(0, 0) == 4);
    CHECK(ozaki_slices_for(2400, 2400) == 4);
    CHECK(ozaki_slices_for(3000, 3000) == 4);
    CHECK(ozaki_slices_for(3000, 3001) == 5);
    CHECK(ozaki_slices_for(6500, 6500) == 5);
    CHECK(ozaki_slices_for(10000, 10000) == 6);
    CHECK(ozaki_slices_for(90000, 90000) == OZAKI_MAX_SLICES);
    for (int b = 0; b < 60000; b += 100)
        CHECKF(ozaki_slices_for(b, b) <= ozaki_slices_for(b + 100, b + 100), "bulk %d: fewer slices than below", b);
}

/* --- the scheme on the host ---------------------------------------------- */

/* The statistics of n values `stride` apart, as the GPU takes them. */
static void stats(const float *x, int n, size_t stride, int *e, int *bulk_milli, int *span)
{
    double hi = 0, lo = INFINITY, ss = 0;
    for (int i = 0; i < n; i++) {
        double v = fabs(x[i * stride]);
        hi = v > hi ? v : hi;
        lo = v > 0 && v < lo ? v : lo;
        ss += v * v;
    }
    *e = ozaki_exponent((float)hi);
    *bulk_milli = hi > 0 ? (int)(log2(hi / sqrt(ss / n)) * 1000.0) : 0;
    *span = hi > 0 ? *e - ozaki_exponent((float)lo) : 0;
}

typedef struct {
    int slices, span, refused;
} model_run;

/* c = a @ b (m x k, k x n) by the scheme; refused (c untouched) where a
 * span passes OZAKI_MAX_SPAN; slices forced if s > 0. */
static model_run model(float *c, const float *a, const float *b, int m, int k, int n, int s)
{
    model_run run = {0, 0, 0};
    int *ea = malloc(sizeof *ea * m), *eb = malloc(sizeof *eb * n), bulk_a = 0, bulk_b = 0, bulk, span;
    for (int i = 0; i < m; i++) {
        stats(a + (size_t)i * k, k, 1, &ea[i], &bulk, &span);
        bulk_a = bulk > bulk_a ? bulk : bulk_a, run.span = span > run.span ? span : run.span;
    }
    for (int j = 0; j < n; j++) {
        stats(b + j, k, n, &eb[j], &bulk, &span);
        bulk_b = bulk > bulk_b ? bulk : bulk_b, run.span = span > run.span ? span : run.span;
    }
    run.slices = s > 0 ? s : ozaki_slices_for(bulk_a, bulk_b);
    run.refused = s == 0 && run.span > OZAKI_MAX_SPAN;
    if (!run.refused) {
        s = run.slices;
        int8_t *da = malloc((size_t)m * k * s), *db = malloc((size_t)k * n * s);
        for (int i = 0; i < m; i++)
            for (int p = 0; p < k; p++)
                ozaki_digits(a[(size_t)i * k + p], ea[i], s, da + ((size_t)i * k + p) * s);
        for (int p = 0; p < k; p++)
            for (int j = 0; j < n; j++)
                ozaki_digits(b[(size_t)p * n + j], eb[j], s, db + ((size_t)p * n + j) * s);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                long long sum[OZAKI_MAX_SLICES] = {0};
                for (int p = 0; p < k; p++) {
                    const int8_t *x = da + ((size_t)i * k + p) * s, *y = db + ((size_t)p * n + j) * s;
                    for (int d = 0; d < s; d++)
                        for (int u = 0; u <= d; u++)
                            sum[d] += x[u] * y[d - u];
                }
                double acc = (double)sum[s - 1];
                for (int d = s - 2; d >= 0; d--)
                    acc = acc / 128.0 + (double)sum[d];
                c[(size_t)i * n + j] = (float)ldexp(acc, ea[i] + eb[j] - 12);
            }
        free(da);
        free(db);
    }
    free(ea);
    free(eb);
    return run;
}

/* The FP32 product (one FMA chain per element, as a GPU thread sums its
 * k), and float64's. */
static void references(float *f32, double *f64, const float *a, const float *b, int m, int k, int n)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float s = 0.0f;
            double r = 0;
            for (int p = 0; p < k; p++) {
                s = fmaf(a[(size_t)i * k + p], b[(size_t)p * n + j], s);
                r += (double)a[(size_t)i * k + p] * b[(size_t)p * n + j];
            }
            f32[(size_t)i * n + j] = s, f64[(size_t)i * n + j] = r;
        }
}

enum { NORMAL, UNIFORM, ROWS_SCALED };

static void fill(float *x, int rows, int cols, int kind)
{
    for (int i = 0; i < rows; i++) {
        double scale = kind == ROWS_SCALED ? pow(2.0, 40.0 * check_uniform() - 20.0) : 1.0;
        for (int j = 0; j < cols; j++)
            x[(size_t)i * cols + j] = (float)(scale * (kind == UNIFORM ? check_uniform() : normal()));
    }
}

/* The scheme's error against float64 at most FP32's, with the slices it
 * chose (4 where neither operand's bulk passes 3 bits). */
static void scheme_case(const char *name, int kind, int want_slices)
{
    const int m = 64, k = 4099, n = 96;
    float *a = malloc(sizeof *a * m * k), *b = malloc(sizeof *b * k * n), *c = malloc(sizeof *c * m * n),
          *f32 = malloc(sizeof *f32 * m * n);
    double *f64 = malloc(sizeof *f64 * m * n);
    check_seed(1000 + kind);
    fill(a, m, k, kind);
    fill(b, k, n, kind);
    check_begin(name);
    model_run run = model(c, a, b, m, k, n, 0);
    references(f32, f64, a, b, m, k, n);
    double e = check_relerr(c, f64, (size_t)m * n), e32 = check_relerr(f32, f64, (size_t)m * n);
    CHECKF(!run.refused, "refused: span 2^%d", run.span);
    CHECKF(run.slices == want_slices, "%d slices, want %d", run.slices, want_slices);
    CHECKF(e <= e32, "error %.3g, FP32's %.3g", e, e32);
    printf("  %s: %d slices, error %.3g, FP32 %.3g\n", name, run.slices, e, e32);
    check_end();
    free(a), free(b), free(c), free(f32), free(f64);
}

/* A column of b spanning 2^-60..2^60 whose two large terms cancel, the
 * rest between 2^-60 and 2^-20: FP32 gets that rest, slices that reach
 * 2^-28 of 2^60 cannot hold it. The
 * guard refuses it; forced through with every slice, the scheme is off
 * (so the guard is what keeps the mode right, and this case can fail). */
static void ozaki_refuses_what_defeats_it(void)
{
    const int m = 64, k = 300, n = 64;
    float *a = malloc(sizeof *a * m * k), *b = malloc(sizeof *b * k * n), *c = malloc(sizeof *c * m * n),
          *f32 = malloc(sizeof *f32 * m * n);
    double *f64 = malloc(sizeof *f64 * m * n);
    check_seed(77);
    fill(a, m, k, NORMAL);
    fill(b, k, n, NORMAL);
    for (int i = 0; i < m; i++)
        a[(size_t)i * k] = 1.0f, a[(size_t)i * k + 1] = -1.0f;
    for (int p = 0; p < k; p++)
        b[(size_t)p * n] = (float)ldexp(normal(), -60 + (int)(40 * check_uniform()));
    b[0] = b[n] = (float)ldexp(1.0, 60);
    model_run run = model(c, a, b, m, k, n, 0);
    CHECKF(run.refused, "not refused: span 2^%d", run.span);
    memset(c, 0, sizeof *c * m * n);
    model(c, a, b, m, k, n, OZAKI_MAX_SLICES);
    references(f32, f64, a, b, m, k, n);
    double worst = 0, worst32 = 0;
    for (int i = 0; i < m; i++) {
        double r = f64[(size_t)i * n], d = fabs(c[(size_t)i * n] - r) / fabs(r),
               d32 = fabs(f32[(size_t)i * n] - r) / fabs(r);
        worst = d > worst ? d : worst, worst32 = d32 > worst32 ? d32 : worst32;
    }
    CHECKF(worst32 < 1e-5, "FP32 itself is off by %.3g in column 0", worst32);
    CHECKF(worst > 1e-3, "the scheme held column 0 (off by %.3g): the case no longer defeats it", worst);
    free(a), free(b), free(c), free(f32), free(f64);
}

/* The GPU's running statistics (ozaki_run), gathered as 256 threads each
 * take every 256th element and then merged pairwise, as a block does,
 * agree with float64's: the same exponent and span, the bulk within a
 * thousandth of a bit or two; inf and NaN flagged. Rows of one scale, of
 * mixed scales, near FLT_MAX and among the subnormals. */
static void ozaki_statistics_as_threads_gather_them(void)
{
    enum { THREADS = 256, N = 5000 };
    static float x[N];
    static ozaki_run part[THREADS];
    check_seed(31);
    for (int t = 0; t < 40; t++) {
        double scale = t % 4 == 0 ? 1.0 : t % 4 == 1 ? ldexp(1.0, 120) : t % 4 == 2 ? ldexp(1.0, -135) : 1.0;
        for (int i = 0; i < N; i++) {
            double v = normal() * scale * (t % 4 == 3 ? pow(2.0, 60.0 * check_uniform() - 30.0) : 1.0);
            x[i] = (float)v;
        }
        if (t % 10 == 9)
            x[t * 7] = t % 20 == 9 ? INFINITY : NAN;
        int e, bulk, span;
        stats(x, N, 1, &e, &bulk, &span);
        for (int p = 0; p < THREADS; p++) {
            ozaki_run_init(&part[p]);
            for (int i = p; i < N; i += THREADS)
                ozaki_run_add(&part[p], x[i]);
        }
        for (int w = 1; w < THREADS; w *= 2)
            for (int p = 0; p + w < THREADS; p += 2 * w)
                ozaki_run_merge(&part[p], &part[p + w]);
        ozaki_run *r = &part[0];
        if (t % 10 == 9) {
            CHECKF(r->bad, "row %d: inf or NaN not flagged", t);
            continue;
        }
        CHECKF(!r->bad && r->e == e && r->e - ozaki_exponent(r->lo) == span, "row %d: e %d span %d, want %d %d", t,
               r->e, r->e - ozaki_exponent(r->lo), e, span);
        CHECKF(abs(ozaki_run_bulk(r, N) - bulk) <= 2, "row %d: bulk %d, float64's %d", t, ozaki_run_bulk(r, N), bulk);
    }
}

/* The GPU's layout (ozaki_a_at, ozaki_b_at) and its INT8 GEMMs
 * (ozaki_gemm_of, run here as cuBLAS runs TN: C(i, j) = sum_l A[l + i lda]
 * B[l + j ldb], column-major) give the model's product bit for bit at a
 * ragged shape, each GEMM reading inside the slices it was given. */
static void layout_case(int m, int k, int n, int s)
{
    int ka = (k + 31) / 32 * 32, ldc = (n + 3) / 4 * 4, bulk, span;
    float *a = malloc(sizeof *a * m * k), *b = malloc(sizeof *b * k * n), *c = malloc(sizeof *c * m * n),
          *want = malloc(sizeof *want * m * n);
    int *ea = malloc(sizeof *ea * m), *eb = malloc(sizeof *eb * n);
    int8_t *as = calloc((size_t)m * s * ka, 1), *bs = calloc((size_t)n * s * ka, 1);
    int32_t *sums = calloc((size_t)s * m * ldc, sizeof *sums);
    check_seed((uint64_t)m * 1000003 + k * 101 + n + s);
    fill(a, m, k, NORMAL);
    fill(b, k, n, ROWS_SCALED);
    model(want, a, b, m, k, n, s);
    for (int i = 0; i < m; i++)
        stats(a + (size_t)i * k, k, 1, &ea[i], &bulk, &span);
    for (int j = 0; j < n; j++)
        stats(b + j, k, n, &eb[j], &bulk, &span);
    int8_t d[OZAKI_MAX_SLICES];
    for (int i = 0; i < m; i++)
        for (int p = 0; p < k; p++) {
            ozaki_digits(a[(size_t)i * k + p], ea[i], s, d);
            for (int q = 0; q < s; q++)
                as[ozaki_a_at(i, q, p, ka, s)] = d[q];
        }
    for (int p = 0; p < k; p++)
        for (int j = 0; j < n; j++) {
            ozaki_digits(b[(size_t)p * n + j], eb[j], s, d);
            for (int q = 0; q < s; q++)
                bs[ozaki_b_at(j, q, p, ka, s)] = d[q];
        }
    for (int w = 0; w < s; w++) {
        ozaki_gemm g = ozaki_gemm_of(w, m, n, ka, ldc, s);
        CHECKF(g.b_off + (size_t)(g.m - 1) * g.lda + g.k <= (size_t)n * s * ka &&
                   (size_t)(g.n - 1) * g.ldb + g.k <= (size_t)m * s * ka && g.c_off + (size_t)(g.n - 1) * g.ldc + g.m <=
                   (size_t)s * m * ldc,
               "weight %d reads or writes past its buffers", w);
        for (int i = 0; i < g.m; i++)
            for (int j = 0; j < g.n; j++) {
                int32_t acc = 0;
                for (int l = 0; l < g.k; l++)
                    acc += bs[g.b_off + l + (size_t)i * g.lda] * as[l + (size_t)j * g.ldb];
                sums[g.c_off + i + (size_t)j * g.ldc] = acc;
            }
    }
    size_t plane = (size_t)m * ldc;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double acc = sums[(size_t)(s - 1) * plane + (size_t)i * ldc + j];
            for (int w = s - 2; w >= 0; w--)
                acc = acc * (1.0 / 128.0) + sums[(size_t)w * plane + (size_t)i * ldc + j];
            c[(size_t)i * n + j] = (float)ldexp(acc, ea[i] + eb[j] - 12);
        }
    CHECKF(!memcmp(c, want, sizeof *c * m * n), "%dx%dx%d, %d slices: the layout's product differs from the model's",
           m, k, n, s);
    free(a), free(b), free(c), free(want), free(ea), free(eb), free(as), free(bs), free(sums);
}

static void ozaki_layout_sums_every_pair(void)
{
    layout_case(37, 75, 29, 4);
    layout_case(5, 33, 17, 5);
    layout_case(64, 300, 3, OZAKI_MAX_SLICES);
}

/* `why`'s words for each way a product ran. */
static void ozaki_says_what_it_did(void)
{
    char buf[400];
    ozaki_choice ch = {OZAKI_SLICED, 4096, 4096, 4096, 5, 2310, 4870, 19, 23};
    ozaki_describe(&ch, buf, sizeof buf);
    CHECKF(strstr(buf, "5 slices") && strstr(buf, "2.3 bits") && strstr(buf, "4.9"), "%s", buf);
    ch.how = OZAKI_ON_FP32;
    ozaki_describe(&ch, buf, sizeof buf);
    CHECKF(strstr(buf, "fast's FP32"), "%s", buf);
    ch.how = OZAKI_NONFINITE;
    ozaki_describe(&ch, buf, sizeof buf);
    CHECKF(strstr(buf, "inf or NaN"), "%s", buf);
}

int main(void)
{
    RUN(ozaki_digits_bounded_and_exact);
    RUN(ozaki_runs_where_it_wins);
    RUN(ozaki_slices_grow_with_bulk);
    RUN(ozaki_statistics_as_threads_gather_them);
    scheme_case("ozaki_model_normal", NORMAL, 4);
    scheme_case("ozaki_model_uniform", UNIFORM, 4);
    scheme_case("ozaki_model_rows_scaled", ROWS_SCALED, 5);
    RUN(ozaki_refuses_what_defeats_it);
    RUN(ozaki_layout_sums_every_pair);
    RUN(ozaki_says_what_it_did);
    return check_exit();
}
