/* gpu_test.c - the GPU modes: every operation in naive, tiled, fast and cublas
 * against a float64 reference at 1x1, 1xN, Nx1, 17x33x65, 1037x1055x1031
 * and 2048^3; rand/randn bit-identical with the host; residency and the
 * bytes it moves; the pool reusing blocks; out of device memory as an
 * ordinary error; one-time set-up kept out of the first product's times;
 * bench's end-to-end runs copying fresh operands. Without a usable GPU every
 * case reports SKIP by name.
 *
 * The kernel variants of the lessons (`set tile 8`, ...) are checked the
 * same way at the small shapes and 1037x1055x1031, never at 2048^3.
 *
 *   gpu_test               everything
 *   gpu_test --quick       without the 1037 and 2048 shapes
 *   gpu_test --sanitizer   without the out-of-memory case, whose failing
 *                          cudaMalloc compute-sanitizer would count as an
 *                          error, and the variants without 1037x1055x1031 */
#include "base/out.h"
#include "engine/pool.h"
#include "engine/results.h"
#include "engine/timing.h"
#include "kernels/gpu.h"
#include "kernels/variants.h"
#include "tests/ops_check.h"

static const char *gpu_modes[] = {"naive", "tiled", "fast", "cublas"};
#define NGPU_MODES (sizeof gpu_modes / sizeof gpu_modes[0])

static char captured[4096];

static void capture(void *ud, out_channel ch, const char *text, size_t n)
{
    size_t have = strlen(captured);
    snprintf(captured + have, sizeof captured - have, "%.*s", (int)n, text);
}

static void no_flush(void *ud) {}

/* m x k x n: the product at m x k x n, every other op at m x k. */
static const int shapes[][3] = {{1, 1, 1}, {1, 300, 1}, {300, 1, 1}, {17, 33, 65}, {1037, 1055, 1031}, {2048, 2048, 2048}};
static const int products[][3] = {{1, 1, 300}, {1, 40, 13}, {77, 1, 9}, {5, 7, 1}};
#define NSHAPES_QUICK 4

/* The lessons' kernel variants (kernels/variants.h): every value of every
 * switch other than its default (the cases above check the defaults), set
 * with the `set` command in each mode whose kernels read it, on the
 * operations it changes, at the ragged shapes. A case per variant,
 * ops_MODE_TAG_kernels, checks that the variant's own kernels ran (their
 * launch counts in `kernels` grew), so that a value that quietly fell back
 * to the default kernel fails. */
enum { V_MATMUL, V_TRANSPOSE, V_REDUCE };
static const struct {
    const char *mode, *set, *tag;
    int what;
    const char *kernels; /* each must have been launched, blank-separated */
} variants[] = {
    {"naive", "set coalesce off", "coalesce_off", V_MATMUL, "matmul_naive_uncoalesced"},
    {"tiled", "set tile 8", "tile8", V_MATMUL, "matmul_tiled<8>"},
    {"tiled", "set tile 32", "tile32", V_MATMUL, "matmul_tiled<32>"},
    {"tiled", "set atile transposed; set tile 8", "atile_transposed_tile8", V_MATMUL, "matmul_tiled_at<8>"},
    {"tiled", "set atile transposed", "atile_transposed", V_MATMUL, "matmul_tiled_at<16>"},
    {"tiled", "set atile transposed; set tile 32", "atile_transposed_tile32", V_MATMUL, "matmul_tiled_at<32>"},
    {"tiled", "set pad off", "pad_off", V_TRANSPOSE, "transpose_tiled_nopad"},
    {"tiled", "set reduce seed", "reduce_seed", V_REDUCE,
     "reduce_seed_sum reduce_seed_sumsq reduce_seed_min reduce_seed_max dot_seed"},
    {"tiled", "set reduce shuffle", "reduce_shuffle", V_REDUCE,
     "reduce_shfl_sum reduce_shfl_sumsq reduce_shfl_min reduce_shfl_max dot_shfl"},
    /* cublas borrows tiled's reductions, all but dot */
    {"cublas", "set reduce seed", "reduce_seed", V_REDUCE,
     "reduce_seed_sum reduce_seed_sumsq reduce_seed_min reduce_seed_max"},
    {"cublas", "set reduce shuffle", "reduce_shuffle", V_REDUCE,
     "reduce_shfl_sum reduce_shfl_sumsq reduce_shfl_min reduce_shfl_max"},
};
/* Reductions also at 257x1031: enough elements that the seed's 32 blocks
 * walk a grid-stride loop, also with --quick. */
static const int reduce_mid[2] = {257, 1031};

/* Launches of the kernel `name` recorded under mode. */
static int launches(const char *mode, const char *name)
{
    gpu_kernel_row rows[64];
    int n = gpu_kernel_rows(mode_find(mode), rows, 64);
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].name, name))
            return rows[i].launches;
    return 0;
}

/* The launch counts of the kernels in list (blank-separated), into count. */
static int launch_counts(const char *mode, const char *list, int *count)
{
    char name[64];
    int n = 0;
    for (const char *p = list; *p; n++) {
        size_t len = strcspn(p, " ");
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        count[n] = launches(mode, name);
        p += len + (p[len] == ' ');
    }
    return n;
}

/* One variant's case at one shape: the ops it changes against float64 (the
 * groups of ops_check.h: 1 holds the transposes, 2 the reductions). */
static void variant_case(size_t v, int m, int k, int n)
{
    if (variants[v].what == V_MATMUL)
        oc_matmul_case(variants[v].mode, m, k, n);
    else
        oc_group_case(variants[v].mode, variants[v].what == V_TRANSPOSE ? 1 : 2, m, k);
}

/* Every variant at the small shapes, the products and (big) 1037x1055x1031;
 * then a case ops_MODE_TAG_kernels: each of the variant's kernels was
 * launched at least once per shape. */
static void variant_cases(int big)
{
    char src[96], name[128];
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        int before[8], after[8], nk = launch_counts(variants[v].mode, variants[v].kernels, before), runs = 0;
        snprintf(src, sizeof src, "%s;", variants[v].set);
        snprintf(name, sizeof name, "ops_%s_%s_kernels", variants[v].mode, variants[v].tag);
        if (run_source(oc_s, src, strlen(src), "test", 1, 1) != RUN_OK) {
            check_begin(name);
            CHECKF(0, "'%s' failed", src);
            check_end();
            continue;
        }
        oc_variant = variants[v].tag;
        for (int i = 0; i < NSHAPES_QUICK + big; i++, runs++)
            variant_case(v, shapes[i][0], shapes[i][1], shapes[i][2]);
        for (size_t i = 0; variants[v].what == V_MATMUL && i < sizeof products / sizeof products[0]; i++, runs++)
            variant_case(v, products[i][0], products[i][1], products[i][2]);
        if (variants[v].what == V_REDUCE)
            variant_case(v, reduce_mid[0], reduce_mid[1], 1), runs++;
        oc_variant = NULL;
        variant_reset();
        launch_counts(variants[v].mode, variants[v].kernels, after);
        check_begin(name);
        for (int i = 0; i < nk; i++)
            CHECKF(after[i] - before[i] >= runs, "'%s': kernel %d of '%s' launched %d times in %d shapes", src, i,
                   variants[v].kernels, after[i] - before[i], runs);
        check_end();
    }
}

static cuk_matrix *run_get(const char *src, const char *name)
{
    CHECKF(run_source(oc_s, src, strlen(src), "test", 1, 1) == RUN_OK, "'%s' failed", src);
    cuk_matrix *m = ws_get(&oc_s->ws, name);
    return m ? mat_ref(m) : NULL;
}

/* The same seed gives the same numbers, bit for bit, on host and device. */
static void random_bit_identical(void)
{
    static const char *draws[] = {"seed 7; A = rand(300,200);", "seed 7; A = randn(300,200);",
                                  "seed 11; x = rand(1,1); A = randn(1,4099);"};
    for (size_t d = 0; d < 3; d++) {
        char src[128];
        snprintf(src, sizeof src, "mode cpu; %s", draws[d]);
        cuk_matrix *host = run_get(src, "A");
        for (size_t m = 0; host && m < NGPU_MODES; m++) {
            snprintf(src, sizeof src, "mode %s; %s", gpu_modes[m], draws[d]);
            cuk_matrix *dev = run_get(src, "A");
            CHECKF(dev && !dev->host, "%s: the result should live on the device", src);
            CHECKF(dev && mat_host(dev) && !memcmp(host->host, dev->host, mat_bytes(host)),
                   "'%s' differs from mode cpu", src);
            mat_unref(dev);
        }
        mat_unref(host);
    }
}

/* Matrices move only when a mode on the other side needs them, and each
 * move is counted in the command's record. */
static void residency(void)
{
    cuk_matrix *a = run_get("mode tiled; A = rand(100, 50);", "A");
    CHECK(a && a->dev && !a->host);
    CHECK(timing_history(0)->h2d == 0 && timing_history(0)->d2h == 0);
    run_get("B = A @ A';", "B");
    CHECK(timing_history(0)->h2d == 0 && timing_history(0)->d2h == 0);
    run_get("mode cpu; C = A * 2;", "C");
    CHECKF(timing_history(0)->d2h == 100 * 50 * 4, "d2h %zu", timing_history(0)->d2h);
    CHECK(a->host && a->dev); /* both copies now, in sync */
    run_get("mode cublas; D = C + A;", "D");
    CHECKF(timing_history(0)->h2d == 100 * 50 * 4, "h2d %zu", timing_history(0)->h2d); /* C went up, A was there */
    mat_unref(a);
    cuk_matrix *m = run_get("mode tiled; L = [1 2; 3 4]; M = L @ L;", "M"); /* a literal goes up */
    CHECK(m && m->dev && !m->host && ws_get(&oc_s->ws, "L")->dev);
    mat_unref(m);
}

/* C = A @ B again and again allocates nothing after the first time. */
static void pool_reuse(void)
{
    pool_stats before, after;
    run_get("mode cublas; A = rand(64, 64); B = rand(64, 64); C = A @ B;", "C");
    pool_get_stats(&before);
    for (int i = 0; i < 1000; i++)
        run_source(oc_s, "C = A @ B;", 10, "test", 1, 1);
    pool_get_stats(&after);
    CHECKF(after.device_allocs == before.device_allocs, "%llu device allocations in 1000 products",
           after.device_allocs - before.device_allocs);
    CHECK(after.requests >= before.requests + 1000);
}

/* bench variants: A @ B in tiled races every tile size and both a-tiles,
 * one row each, and leaves the switches as they were. */
static void bench_variants(void)
{
    static const out_sink sink = {capture, no_flush, NULL};
    static const char *rows[] = {"tile=8", "tile=16", "tile=32", "atile=plain", "atile=transposed"};
    run_get("mode tiled; set tile 32; A = rand(257, 129); B = rand(129, 65);", "A");
    setenv("CUK_BENCH_SHARE_MS", "20", 1);
    captured[0] = '\0';
    out_set_sink(&sink);
    run_status st = run_source(oc_s, "bench variants: A @ B", 21, NULL, 1, 1);
    out_set_sink(NULL);
    unsetenv("CUK_BENCH_SHARE_MS");
    CHECKF(st == RUN_OK, "bench variants failed: %s", captured);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECKF(strstr(captured, rows[i]) != NULL, "no row %s in: %.600s", rows[i], captured);
    CHECKF(!strstr(captured, "pad=") && !strstr(captured, "reduce="), "a switch that A @ B never reads has rows");
    CHECK(variant_is(VAR_TILE, "32"));
    run_get("set tile 16;", "A");
}

/* Out of device memory: a clear error with the sizes, nothing changed. */
static void out_of_memory(void)
{
    static const out_sink sink = {capture, no_flush, NULL};
    cuk_matrix *keep = run_get("mode tiled; keep = rand(3, 3);", "keep");
    if (!keep || !mat_host(keep))
        return;
    float first = keep->host[0];
    captured[0] = '\0';
    out_set_sink(&sink);
    run_status st = run_source(oc_s, "Huge = rand(300000, 300000)", 27, NULL, 1, 1);
    out_set_sink(NULL);
    CHECK(st == RUN_ERROR);
    CHECKF(strstr(captured, "error: out of device memory: needs 335 GiB, ") && strstr(captured, " free of "),
           "message: %s", captured);
    printf("  %.*s\n", (int)strcspn(captured, "\n"), captured);
    CHECK(ws_get(&oc_s->ws, "keep") == keep && keep->host[0] == first && !ws_get(&oc_s->ws, "Huge"));
    cuk_matrix *again = run_get("R = keep * 1;", "R"); /* the device still works */
    CHECK(again && mat_host(again) && again->host[0] == first);
    mat_unref(again);
    mat_unref(keep);
}

/* Lesson 4's check, in each way of reducing: a[i] = i, b[i] = 2i for
 * N = 33 x 1024 gives dot(a, b) = 2 (N-1) N (2N-1) / 6. */
static void classic_dot(void)
{
    static const char *ways[] = {"seed", "grid", "shuffle"};
    const int n = 33 * 1024;
    char src[64], name[96];
    cuk_matrix *a = mat_new_host(1, n), *b = mat_new_host(1, n);
    if (!a || !b || oc_select("tiled") != 0)
        return;
    for (int i = 0; i < n; i++)
        a->host[i] = (float)i, b->host[i] = 2.0f * (float)i;
    ws_set(&oc_s->ws, "a", a);
    ws_set(&oc_s->ws, "b", b);
    double want = 2.0 * (n - 1.0) * n * (2.0 * n - 1.0) / 6.0;
    for (int w = 0; w < 3; w++) {
        snprintf(src, sizeof src, "set reduce %s", ways[w]);
        snprintf(name, sizeof name, "ops_tiled_reduce_%s_classic_dot_%d", ways[w], n);
        check_begin(name);
        CHECKF(run_source(oc_s, src, strlen(src), "test", 1, 1) == RUN_OK, "'%s' failed", src);
        oc_expect("R = dot(a, b);", &want, 1, 1, OC_TOL);
        check_end();
    }
    variant_reset();
}

/* The seed's reduction ends on the host, yet it is one timed op like any. */
static void seed_reduction_timed(void)
{
    static const out_sink sink = {capture, no_flush, NULL};
    static const char src[] = "mode tiled; A = rand(1000, 1000); set reduce seed; time on; s = sum(A); time off";
    out_set_sink(&sink);
    run_status st = run_source(oc_s, src, strlen(src), "test", 1, 1);
    out_set_sink(NULL);
    variant_reset();
    const timing_cmd *t = timing_history(0);
    CHECK(st == RUN_OK && t);
    if (t)
        CHECKF(t->nops == 1 && !strcmp(t->ops[0].op, "sum") && t->ops[0].on_device && t->ops[0].ms > 0,
               "'%s': %d ops, first '%s' %.3f ms", t->text, t->nops, t->ops[0].op, t->ops[0].ms);
}

/* A kernel borrowed through the table is listed under the mode that ran
 * it: cublas takes sum from tiled, naive gives fill to both. */
static void kernels_of_borrowing_mode(void)
{
    gpu_kernel_row rows[32];
    int found_sum = 0, found_fill = 0;
    cuk_matrix *r = run_get("mode cublas; K = fill(33, 17, 2); K = sum(K);", "K");
    mat_unref(r);
    int n = gpu_kernel_rows(mode_find("cublas"), rows, 32);
    for (int i = 0; i < n; i++) {
        found_sum |= !strcmp(rows[i].name, "reduce_sum");
        found_fill |= !strcmp(rows[i].name, "fill_kernel");
    }
    CHECKF(found_sum && found_fill, "mode cublas lists %d kernels, reduce_sum %d, fill_kernel %d", n, found_sum,
           found_fill);
    n = gpu_kernel_rows(mode_find("fast"), rows, 32);
    CHECKF(n == 0, "mode fast never ran, yet lists %d kernels", n);
}

static void discard(void *ud, out_channel ch, const char *text, size_t n) {}

/* One-time set-up stays out of the clock: the first product of a shape
 * runs once, untimed (its cost is the record's set-up, listed by `info`);
 * the second needs none. Structure only: no time is compared. */
static void first_product_warmed(void)
{
    oc_s->measuring = 1; /* kernel events on, as bench has them */
    for (size_t m = 0; m < NGPU_MODES; m++) {
        char src[160], what[96];
        snprintf(src, sizeof src, "mode %s; A = rand(999, 1001); B = rand(1001, 1003); C = A @ B;", gpu_modes[m]);
        mat_unref(run_get(src, "C"));
        const timing_cmd *c = timing_history(0);
        CHECKF(c->setup_ms > 0 && c->nops == 1 && c->ops[0].ms > 0, "%s: first product set-up %g ms, kernel %g ms",
               gpu_modes[m], c->setup_ms, c->nops ? c->ops[0].ms : -1);
        mat_unref(run_get("C = A @ B;", "C"));
        c = timing_history(0);
        CHECKF(c->setup_ms == 0 && c->ops[0].ms > 0, "%s: second product set-up %g ms", gpu_modes[m], c->setup_ms);
        snprintf(what, sizeof what, "mode %s: first 999x1001x1003 product", gpu_modes[m]);
        int listed = 0;
        for (int i = 0; timing_onetime_get(i); i++)
            listed |= strstr(timing_onetime_get(i)->what, what) != NULL;
        CHECKF(listed, "no one-time entry '%s'", what);
    }
    oc_s->measuring = 0;
}

/* bench's end-to-end runs copy fresh operands in and the result back, each
 * run; its kernel runs copy nothing. */
static void bench_end_to_end(void)
{
    static const out_sink quiet = {discard, no_flush, NULL};
    const char *src = "seed 2; A = rand(300, 200); B = rand(200, 100); bench naive cublas: A @ B";
    out_set_sink(&quiet);
    run_status st = run_source(oc_s, src, strlen(src), "test", 1, 1);
    out_set_sink(NULL);
    const result_table *t = res_last();
    CHECK(st == RUN_OK && t && t->nrows == 2);
    for (int i = 0; t && i < t->nrows; i++) {
        const result_row *r = &t->rows[i];
        CHECKF(r->kernel.runs >= 3 && r->e2e.runs >= 3, "%s: %d kernel runs, %d end-to-end", r->mode->name,
               r->kernel.runs, r->e2e.runs);
        CHECKF(r->h2d == (300 * 200 + 200 * 100) * 4 && r->d2h == 300 * 100 * 4, "%s: copied %g in, %g out",
               r->mode->name, r->h2d, r->d2h);
        CHECKF(r->h2d_ms > 0 && r->d2h_ms > 0, "%s: copy times unknown", r->mode->name);
    }
}

static void available(void)
{
    const char *why;
    for (size_t m = 0; m < NGPU_MODES; m++)
        CHECKF(mode_available(mode_find(gpu_modes[m]), &why), "%s unavailable", gpu_modes[m]);
    cuk_session *fresh = session_new(NULL);
    CHECKF(!strcmp(fresh->mode->name, "tiled"), "default mode %s", fresh->mode->name);
    session_free(fresh);
}

int main(int argc, char **argv)
{
    int quick = 0, sanitizer = 0;
    for (int i = 1; i < argc; i++) {
        quick |= !strcmp(argv[i], "--quick");
        sanitizer |= !strcmp(argv[i], "--sanitizer");
    }
    const char *why;
    if (!gpu_usable(&why)) {
        char name[96];
        static const char *cases[] = {"gpu_available", "gpu_modes_resolved", "gpu_kernels_of_borrowing_mode", "gpu_bench_variants", "gpu_ops",
                                      "gpu_variants", "gpu_classic_dot", "gpu_seed_reduction_timed",
                                      "gpu_random_bit_identical", "gpu_residency", "gpu_pool_reuse", "gpu_out_of_memory",
                                      "gpu_first_product_warmed", "gpu_bench_end_to_end"};
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            snprintf(name, sizeof name, "%s", cases[i]);
            check_skip(name, why);
        }
        return 0;
    }
    oc_s = session_new(NULL);
    mat_set_poison(1);
    check_run("gpu_available", available);
    check_run("gpu_modes_resolved", oc_modes_resolved);
    check_run("gpu_kernels_of_borrowing_mode", kernels_of_borrowing_mode);
    check_run("gpu_bench_variants", bench_variants);
    int nshapes = quick ? NSHAPES_QUICK : (int)(sizeof shapes / sizeof shapes[0]);
    for (size_t m = 0; m < NGPU_MODES; m++) {
        for (int i = 0; i < nshapes; i++)
            oc_all(gpu_modes[m], shapes[i][0], shapes[i][1], shapes[i][2]);
        for (size_t i = 0; i < sizeof products / sizeof products[0]; i++)
            oc_matmul_case(gpu_modes[m], products[i][0], products[i][1], products[i][2]);
    }
    variant_cases(!quick && !sanitizer);
    classic_dot();
    check_run("gpu_seed_reduction_timed", seed_reduction_timed);
    check_run("gpu_random_bit_identical", random_bit_identical);
    check_run("gpu_residency", residency);
    check_run("gpu_pool_reuse", pool_reuse);
    check_run("gpu_first_product_warmed", first_product_warmed);
    check_run("gpu_bench_end_to_end", bench_end_to_end);
    if (sanitizer)
        check_skip("gpu_out_of_memory", "its cudaMalloc fails on purpose; run without --sanitizer");
    else
        check_run("gpu_out_of_memory", out_of_memory);
    session_free(oc_s);
    return check_exit();
}
