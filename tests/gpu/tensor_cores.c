/* tensor_cores.c - gpu_test's cases of the tensor-core modes, tf32 and
 * tf32x3: every shape against float64 with each mode's own bound,
 * tf32x3's error against cuBLAS FP32's, and its sums' order.
 * Part of gpu_test: tests/gpu/gpu_test.c includes it, so that the whole
 * program is one translation unit (tests/check.h and tests/ops_check.h
 * keep the cases' state and the session in statics). */

/* The tensor-core modes, each with its product's bound (of sum |a||b|):
 * TF32 keeps 10 of FP32's 23 mantissa bits (unit roundoff 2^-11, 4.9e-4
 * per operand), so tf32's products are off by ~1e-4 of the scale; tf32x3
 * must pass the FP32 modes' bar, and on cc 9.0 run its wgmma kernels. */
static const struct {
    const char *mode;
    double tol;
    int wgmma;
} tc_modes[] = {{"tf32", 3e-3, 0}, {"tf32x3", OC_TOL, 1}};

/* A tensor-core mode at every shape with its own bound, or SKIP with the
 * reason where this GPU has no TF32; on Hopper, tf32x3's product must have
 * been the wgmma kernel (the binary carries sm_90a code). */
static void tc_mode_cases(size_t t, int nshapes)
{
    const char *why;
    char name[96];
    if (!mode_available(mode_find(tc_modes[t].mode), &why)) {
        snprintf(name, sizeof name, "ops_%s", tc_modes[t].mode);
        check_skip(name, why);
        return;
    }
    oc_matmul_tol = tc_modes[t].tol;
    for (int i = 0; i < nshapes; i++)
        oc_all(tc_modes[t].mode, shapes[i][0], shapes[i][1], shapes[i][2]);
    for (size_t i = 0; i < sizeof products / sizeof products[0]; i++)
        oc_matmul_case(tc_modes[t].mode, products[i][0], products[i][1], products[i][2]);
    /* tf32x3's Hopper kernel: 32 tiles of 128 x 128, whose k is cut in
     * slices summed in clusters; 81, one slice beside the split */
    oc_matmul_case(tc_modes[t].mode, 511, 777, 1023);
    oc_matmul_case(tc_modes[t].mode, 1037, 1055, 1031);
    /* 72 tiles and a longer k: slices summed through device memory */
    oc_matmul_case(tc_modes[t].mode, 1021, 1600, 1100);
    oc_matmul_tol = OC_TOL;
    const gpu_info *d = gpu_device();
    if (tc_modes[t].wgmma && d->cc_major == 9 && d->cc_minor == 0) {
        check_begin("gpu_tf32x3_hopper_kernel");
        CHECKF(launches("tf32x3", "tf32x3_wgmma<1>") + launches("tf32x3", "tf32x3_wgmma<2>") +
                       launches("tf32x3", "tf32x3_wgmma<2>, a cluster a tile") >
                   0,
               "on cc 9.0 tf32x3 never launched its wgmma kernel");
        /* 511x777x1023's slices sum in clusters, 1021x1600x1100's through
         * device memory, and 1037x1055x1031 runs in one slice beside its
         * split, on the SMs its 81 tiles leave (a quarter or more of them
         * on every Hopper GPU but a MIG share): each way ran (the cases
         * above checked their results) */
        CHECKF(launches("tf32x3", "tf32x3_wgmma<2>, a cluster a tile") > 0,
               "tf32x3 never summed its slices in a cluster");
        CHECKF(launches("tf32x3", "tf32x3_wgmma<2>, slices summed in memory") > 0,
               "tf32x3 never summed its slices through device memory");
        if (4 * (d->sms - 81) >= d->sms)
            CHECKF(launches("tf32x3", "tf32x3_wgmma<2>, beside the split") > 0 &&
                       launches("tf32x3", "tf32x3_split_stream") > 0,
                   "tf32x3 never ran its product beside the split");
        check_end();
    }
}

/* ||R - ref|| / ||ref|| of the two products named r[0] and r[1] (each
 * m x n) into err, against a @ b in float64, made once for both, a row at
 * a time (b read along its rows). A result missing: INFINITY. */
static void product_errors(const char *const r[2], double err[2], const float *a, const float *b, int m, int k, int n)
{
    const float *got[2];
    double num[2] = {0, 0}, den = 0, *ref = malloc((size_t)n * sizeof *ref);
    for (int w = 0; w < 2; w++) {
        cuk_matrix *c = ws_get(&oc_s->ws, r[w]);
        got[w] = c && mat_host(c) ? c->host : NULL;
    }
    for (size_t i = 0; ref && i < (size_t)m; i++) {
        for (int j = 0; j < n; j++)
            ref[j] = 0;
        for (size_t p = 0; p < (size_t)k; p++) {
            double x = a[i * k + p];
            const float *bp = b + p * n;
            for (int j = 0; j < n; j++)
                ref[j] += x * bp[j];
        }
        for (int j = 0; j < n; j++) {
            den += ref[j] * ref[j];
            for (int w = 0; w < 2; w++)
                if (got[w])
                    num[w] += (got[w][i * n + j] - ref[j]) * (got[w][i * n + j] - ref[j]);
        }
    }
    for (int w = 0; w < 2; w++)
        err[w] = got[w] && ref ? sqrt(num[w] / den) : INFINITY;
    free(ref);
}

/* Runs src, then finds its matrices x and y with their host copies: 0, or
 * -1 (the failure recorded, or a matrix missing). */
static int run_pair(const char *src, const char *x, const char *y, cuk_matrix **mx, cuk_matrix **my)
{
    CHECKF(run_source(oc_s, src, strlen(src), "test", 1, 1) == RUN_OK, "'%s' failed", src);
    *mx = ws_get(&oc_s->ws, x), *my = ws_get(&oc_s->ws, y);
    return *mx && *my && mat_host(*mx) && mat_host(*my) ? 0 : -1;
}

/* The bar tf32x3 must clear: its error at most twice cuBLAS FP32's on the same
 * inputs, here all positive (rand: [0, 1)), where any bias in the
 * accumulation adds up over k instead of cancelling. */
static void tf32x3_error_vs_fp32(void)
{
    cuk_matrix *a, *b;
    if (run_pair("A = rand(64, 4099); B = rand(4099, 96); mode cublas; C1 = A @ B; mode tf32x3; C3 = A @ B; "
                 "mode tiled;",
                 "A", "B", &a, &b) != 0)
        return;
    static const char *const names[2] = {"C1", "C3"};
    double e[2];
    product_errors(names, e, a->host, b->host, 64, 4099, 96);
    CHECKF(e[1] <= 2 * e[0], "tf32x3 error %.3g, more than twice cuBLAS FP32's %.3g", e[1], e[0]);
}

/* The same product twice, bit for bit: the Hopper kernel's slices of a
 * tile may finish in any order, and their sum must not care (a race or an
 * order-dependent sum shows here first). */
static void tf32x3_deterministic(void)
{
    cuk_matrix *c1, *c2;
    if (run_pair("A = randn(511, 777); B = randn(777, 1023); mode tf32x3; C1 = A @ B; C2 = A @ B; mode tiled;",
                 "C1", "C2", &c1, &c2) != 0)
        return;
    CHECKF(!memcmp(c1->host, c2->host, (size_t)511 * 1023 * sizeof(float)), "tf32x3 gave two results for one product");
}

/* Products of at most TF32X3_SIMT_MAX (8) rows or columns run on fast's
 * FP32 kernels: right against float64 at a vector, a row, a few columns
 * and 8 rows, with no tensor-core kernel launched for them. */
static void tf32x3_thin_on_fp32(void)
{
    static const int thin[][3] = {{1, 4096, 513}, {700, 300, 1}, {301, 257, 5}, {8, 1000, 333}};
    int before = launches_like("tf32x3", "tf32x3"), others = launches_like("tf32x3", "") - before;
    for (size_t i = 0; i < sizeof thin / sizeof thin[0]; i++)
        oc_matmul_case("tf32x3", thin[i][0], thin[i][1], thin[i][2]);
    check_begin("gpu_tf32x3_thin_on_fp32");
    CHECKF(launches_like("tf32x3", "tf32x3") == before, "a product of 8 rows or columns or fewer ran %d tf32x3 kernels",
           launches_like("tf32x3", "tf32x3") - before);
    CHECKF(launches_like("tf32x3", "") - launches_like("tf32x3", "tf32x3") - others >= 4,
           "tf32x3's 4 thin products launched %d of fast's kernels",
           launches_like("tf32x3", "") - launches_like("tf32x3", "tf32x3") - others);
    check_end();
}

/* tf32 and tf32x3 at the shapes, and tf32x3's error against FP32's with
 * each of its kernels; its thin products on fast's kernels. */
static void tc_cases(int nshapes)
{
    const char *why;
    for (size_t t = 0; t < sizeof tc_modes / sizeof tc_modes[0]; t++)
        tc_mode_cases(t, nshapes);
    if (mode_available(mode_find("tf32x3"), &why)) {
        check_run("gpu_tf32x3_error_vs_fp32", tf32x3_error_vs_fp32);
        check_run("gpu_tf32x3_deterministic", tf32x3_deterministic);
        run_source(oc_s, "set tc mma;", 11, "test", 1, 1);
        check_run("gpu_tf32x3_mma_error_vs_fp32", tf32x3_error_vs_fp32);
        variant_reset();
        tf32x3_thin_on_fp32();
    } else {
        check_skip("gpu_tf32x3_error_vs_fp32", why);
        check_skip("gpu_tf32x3_thin_on_fp32", why);
    }
}
