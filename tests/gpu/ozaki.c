/* ozaki.c - gpu_test's cases of mode ozaki, FP32 from the INT8 tensor
 * cores: every shape against float64 (the small ones on fast's kernels,
 * the rest sliced), the scheme at ragged shapes, its error against cuBLAS
 * FP32's on N(0,1), U(0,1) and rows scaled by 2^k (k in [-20, 20]), the
 * product built to defeat it refused with the workspace unchanged, inf and
 * NaN given FP32's meaning, the same bits twice, and `why` naming the
 * slices. Part of gpu_test (tests/gpu/gpu_test.c includes it). */
#include "kernels/ozaki.h"

/* Shapes (m x k x n) the scheme runs at: ragged sides, a k of 333, and 65
 * rows against a long k. */
static const int oz_sliced[][3] = {{1283, 1297, 1301}, {2049, 333, 4097}, {65, 8191, 4099}};

/* The scheme ran for the last product, with its kernels and INT8 GEMMs. */
static void ozaki_sliced(void)
{
    int slices = launches("ozaki", "ozaki_rows_slice");
    int gemms = launches("ozaki", "cublasGemmEx INT8 (library kernels)");
    CHECKF(ozaki_last()->how == OZAKI_SLICED, "the last product ran as %d, not sliced", (int)ozaki_last()->how);
    CHECKF(slices > 0 && gemms >= OZAKI_SLICES * slices, "%d slicings, %d INT8 GEMMs", slices, gemms);
}

/* The scheme's error at most cuBLAS FP32's on the same operands, made by
 * `make` (A and B). */
static void ozaki_error_case(const char *make)
{
    char src[512];
    cuk_matrix *a, *b;
    snprintf(src, sizeof src, "%s mode cublas; C1 = A @ B; mode ozaki; C3 = A @ B; mode tiled;", make);
    if (run_pair(src, "A", "B", &a, &b) != 0)
        return;
    static const char *const names[2] = {"C1", "C3"};
    double e[2];
    product_errors(names, e, a->host, b->host, a->rows, a->cols, b->cols);
    CHECKF(ozaki_last()->how == OZAKI_SLICED, "not sliced");
    CHECKF(e[1] <= e[0], "ozaki error %.3g, more than cuBLAS FP32's %.3g (%d slices)", e[1], e[0],
           ozaki_last()->slices);
    printf("  ozaki error %.3g, cuBLAS FP32 %.3g, %d slices\n", e[1], e[0], ozaki_last()->slices);
}

static void ozaki_error_normal(void) { ozaki_error_case("seed 5; A = randn(1283, 1297); B = randn(1297, 1301);"); }

static void ozaki_error_uniform(void) { ozaki_error_case("seed 6; A = rand(1283, 1297); B = rand(1297, 1301);"); }

static void ozaki_error_rows_scaled(void)
{
    ozaki_error_case("seed 7; A = randn(1283, 1297) * (pow(2, 40 * rand(1283, 1) - 20) @ ones(1, 1297)); "
                     "B = randn(1297, 1301) * (pow(2, 40 * rand(1297, 1) - 20) @ ones(1, 1301));");
}

/* Column 0 of B spans 2^-60..2^60 and its two large terms cancel against
 * A's 1 and -1: refused with a message, nothing assigned, A and B as they
 * were; fast still runs it. */
static void ozaki_refuses_span(void)
{
    CHECK(run_captured("seed 8; A = [ones(1283, 1) -ones(1283, 1) randn(1283, 1295)]; "
                       "col = [fill(2, 1, 1.152921504606846976e18); randn(1295, 1) * pow(2, 40 * rand(1295, 1) - 60)]; "
                       "B = [col randn(1297, 1300)]; C = ones(2, 2);"));
    CHECK(!run_captured("mode ozaki; C = A @ B;"));
    CHECKF(strstr(captured, "mode ozaki cannot hold this product") && strstr(captured, "column of the right operand") &&
               strstr(captured, "mode fast or tf32x3"),
           "%s", captured);
    cuk_matrix *c = ws_get(&oc_s->ws, "C");
    CHECKF(c && c->rows == 2 && c->cols == 2, "C changed");
    CHECK(run_captured("mode fast; C = A @ B; mode tiled;"));
}

/* inf and NaN in an operand: fast's FP32 kernels, as many non-finite
 * elements as cuBLAS FP32 gives. */
static void ozaki_nonfinite(void)
{
    cuk_matrix *c1, *c3;
    if (run_pair("seed 9; A = [fill(1283, 1, inf) randn(1283, 1296)]; B = randn(1297, 1301); "
                 "mode cublas; C1 = A @ B; mode ozaki; C3 = A @ B; mode tiled;",
                 "C1", "C3", &c1, &c3) != 0)
        return;
    CHECKF(ozaki_last()->how == OZAKI_NONFINITE, "ran as %d", (int)ozaki_last()->how);
    size_t n1 = 0, n3 = 0, cells = (size_t)c1->rows * c1->cols;
    for (size_t i = 0; i < cells; i++)
        n1 += !isfinite(c1->host[i]), n3 += !isfinite(c3->host[i]);
    CHECKF(n1 == cells && n3 == n1, "%zu of %zu not finite, cuBLAS %zu", n3, cells, n1);
}

/* The same product twice, bit for bit (integer sums: no order to care
 * about), and `why` naming its slices. */
static void ozaki_deterministic_and_said(void)
{
    cuk_matrix *c1, *c2;
    if (run_pair("seed 10; A = randn(1283, 1297); B = randn(1297, 1301); mode ozaki; time on; C1 = A @ B; "
                 "C2 = A @ B; time off",
                 "C1", "C2", &c1, &c2) != 0)
        return;
    CHECKF(!memcmp(c1->host, c2->host, (size_t)1283 * 1301 * sizeof(float)), "two results for one product");
    CHECK(run_captured("why"));
    CHECKF(strstr(captured, "scheme") && strstr(captured, "4 slices of 7 bits"), "%s", captured);
    run_source(oc_s, "mode tiled;", 11, "test", 1, 1);
}

/* Mode ozaki at every shape and where it slices; the rest where the GPU
 * has INT8 tensor cores (SKIP naming why elsewhere). */
static void ozaki_cases(int nshapes, int sanitizer)
{
    const char *why;
    if (!mode_available(mode_find("ozaki"), &why)) {
        check_skip("ops_ozaki", why);
        return;
    }
    for (int i = 0; i < nshapes; i++)
        oc_all("ozaki", shapes[i][0], shapes[i][1], shapes[i][2]);
    for (size_t i = 0; i < sizeof products / sizeof products[0]; i++)
        oc_matmul_case("ozaki", products[i][0], products[i][1], products[i][2]);
    for (size_t i = 0; i < (sanitizer ? 1 : sizeof oz_sliced / sizeof oz_sliced[0]); i++) {
        oc_matmul_case("ozaki", oz_sliced[i][0], oz_sliced[i][1], oz_sliced[i][2]);
        check_run(i == 0 ? "gpu_ozaki_sliced" : i == 1 ? "gpu_ozaki_sliced_short_k" : "gpu_ozaki_sliced_long_k",
                  ozaki_sliced);
    }
    if (sanitizer) {
        check_skip("gpu_ozaki_error_vs_fp32", "its float64 references take minutes under the sanitizers");
        return;
    }
    check_run("gpu_ozaki_error_normal", ozaki_error_normal);
    check_run("gpu_ozaki_error_uniform", ozaki_error_uniform);
    check_run("gpu_ozaki_error_rows_scaled", ozaki_error_rows_scaled);
    check_run("gpu_ozaki_refuses_span", ozaki_refuses_span);
    check_run("gpu_ozaki_nonfinite", ozaki_nonfinite);
    check_run("gpu_ozaki_deterministic_and_said", ozaki_deterministic_and_said);
}
