/* gpu_test.c - the GPU modes: every operation in naive, tiled, fast and
 * cublas (and tf32, tf32x3, with their products' own bounds) against a
 * float64 reference at 1x1, 1xN, Nx1, 17x33x65, 1037x1055x1031
 * and 2048^3; rand/randn bit-identical with the host; residency and the
 * bytes it moves; the pool reusing blocks; out of device memory as an
 * ordinary error; one-time set-up kept out of the first product's times;
 * bench's end-to-end runs copying fresh operands; what `who`, `info` and
 * the panel are told about mode multi. Without a usable GPU every case
 * reports SKIP by name.
 *
 * The kernel variants of the lessons (`set tile 8`, ...) are checked the
 * same way at the small shapes and 1037x1055x1031, never at 2048^3.
 *
 *   gpu_test               everything
 *   gpu_test --quick       without the 1037 and 2048 shapes
 *   gpu_test --sanitizer   without the out-of-memory case, whose failing
 *                          cudaMalloc compute-sanitizer would count as an
 *                          error, and the variants without 1037x1055x1031
 *   gpu_test --fast-mem    only mode fast's memory-bound kernels, called
 *                          directly (with --sanitizer: not at 2^24 + 1)
 *   gpu_test --fast-gemm   only mode fast's product: the shapes (with
 *                          --quick the small ones), the long k, the thin
 *                          products and the folded sums; a short run for
 *                          the sanitizers
 *   gpu_test --tc          only the tensor-core modes, tf32 and tf32x3 (and
 *                          the variant `set tc mma`); with the others too
 *   gpu_test --multi       only mode multi, every matrix of 4 MiB and more
 *                          cut into row slabs (`set spread all`); with the
 *                          others too
 *   gpu_test --out-of-core only mode multi, allowed 4 MiB of each GPU
 *                          (CUK_MULTI_LIMIT): its matrices go to host
 *                          memory, its products to cuBLASXt, the rest to
 *                          mode blas */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/out.h"
#include "engine/values/pool.h"
#include "engine/measure/results.h"
#include "engine/session/snapshot.h"
#include "engine/values/timing.h"
#include "engine/values/warm.h"
#include "kernels/gpu.h"
#include "kernels/variants.h"
#include "tests/ops_check.h"

static const char *gpu_modes[] = {"naive", "tiled", "fast", "cublas"};
#define NGPU_MODES (sizeof gpu_modes / sizeof gpu_modes[0])

/* The tensor-core modes, each with its product's bound (of sum |a||b|):
 * TF32 keeps 10 of FP32's 23 mantissa bits (unit roundoff 2^-11, 4.9e-4
 * per operand), so tf32's products are off by ~1e-4 of the scale; tf32x3
 * must pass the FP32 modes' bar, and on cc 9.0 run its wgmma kernels. */
static const struct {
    const char *mode;
    double tol;
    int wgmma;
} tc_modes[] = {{"tf32", 3e-3, 0}, {"tf32x3", OC_TOL, 1}};

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
/* fast's product with a long k and a small output: split into dozens of
 * slices, summed by the kernel that spreads them over a block's warps (its
 * running sums folded every 1024 of k are covered by 2048^3 above). */
static const int fast_long_k[][3] = {{20, 5000, 24}, {3, 4099, 5}};
/* fast's thin products (kernels/fast/thin.cu, gemm_thin): b of 2 to 8
 * columns, in one k-slice or many (70 x 20000 x 5: 132 slices); and the
 * last n % 64 columns of a wider b beside the tiles' product, c's rows then
 * 65 floats apart (3000 x 4000 x 65). */
static const int fast_thin[][3] = {{777, 1031, 3}, {5, 9, 7},      {70, 20000, 5},  {4099, 300, 4},
                                   {2, 3, 2},      {1000, 200, 8}, {3000, 4000, 65}};
/* fast's products whose a has rows that are not 16-byte aligned (k % 4
 * != 0) and b's are: the 8 x 8 kernels copy a 4 bytes at a time whatever
 * its alignment (copy_a), so these run the 16-byte kernels on a as it
 * lies, with no padded copy. */
static const int fast_rows_a[][3] = {{300, 301, 256}, {1000, 1001, 1000}};
/* A product of mode fast's, with a `set` command before it (or ""). */
typedef struct {
    int m, k, n;
    const char *set;
} fast_case;
/* fast's stream-K products (fast_sgemm_sk), with `set` before: on a
 * padded copy of b (1037 x 1055 x 1031), on the rows as they lie (align
 * off), and with shares longer than a tile's k-steps, so that a block
 * makes whole tiles between its split ones (2500 x 700 x 1300 on 132 SMs:
 * 49 steps a block, 44 a tile). */
static const fast_case fast_streamk[] = {
    {1037, 1055, 1031, ""}, {1037, 1055, 1031, "set align off; "}, {2500, 700, 1300, ""}};
/* fast's products whose last n % 64 <= 8 columns go to the thin kernel,
 * launched early beside the stream-K product of the rest (cc 9.0 on; its
 * slices' sums in the scratch past the product's slots): b's rows
 * unaligned, padded or not (1037 x 1055 x 1031, 1537 x 1001 x 1539), and
 * aligned (1036 x 1056 x 1032: the product's b is 1024 of each row's
 * 1032). */
static const fast_case fast_beside[] = {{1037, 1055, 1031, "set align copy; "},
                                        {1037, 1055, 1031, "set align off; "},
                                        {1036, 1056, 1032, ""},
                                        {1537, 1001, 1539, ""}};
/* Products whose last m % 64 rows (16 or fewer) mode fast may run in
 * gemm_rows beside the product of the others, where they fit the SMs or
 * places its grid leaves (kernels/fast/matmul.cu, kg_rows_beside and
 * rows_split; on the H100, beside the k-groups kernel: 1028, whose rows
 * and columns together are too many for gemm_edges, at a k too short for
 * the cover kernel, which makes it whole at k = 1055): 6 rows on aligned
 * rows (1030 x 1056 x 1024), 1 with the last column (1025^3; on the H100
 * both in gemm_edges before v21, on 132 SMs in the cover kernel since),
 * 4 with b's rows unaligned and not copied (1028 x 900 x 1031, `set
 * align off`); 13 and 16 rows, which do not fit there
 * and run in the product or in the cover kernel (1037 x 1055 x 1031, 1040
 * x 1055 x 1031). */
static const fast_case fast_rows_beside[] = {{1030, 1056, 1024, ""},
                                             {1025, 1025, 1025, ""},
                                             {1028, 900, 1031, "set align off; "},
                                             {1037, 1055, 1031, ""},
                                             {1040, 1055, 1031, ""}};
/* fast's k-groups products (fast_sgemm_kg: a tile an SM, its k shared by
 * the block's three warp groups), where the tiles are about as many as
 * the SMs: whole (1000^3, 1024 x 1056 x 1024; b padded, 999 x 1001 x
 * 1003), and with the last rows and columns past 64-row and 128-column
 * tiles made in the blocks beside their tiles (the edges kernel): 13 rows
 * and 7 columns on b padded and on b as it lies (1037 x 1055 x 1031), 16
 * and 7 (1040), 12 and 8 (1036 x 1056 x 1032), columns alone (1024 x 1056
 * x 1032), rows alone (1037 x 1055 x 1024; these two in gemm_edges on the
 * H100: fast_edges_beside); and with k-steps that do not
 * split evenly among the groups (1024^3: 64, as 22, 22 and 20; 1037 x
 * 1040 x 1031 with its edges: 65), whose extra barriers kg_even_barriers
 * makes. Where the cover kernel fits (132 SMs), it makes the products
 * with edges at k >= 961 (fast_cover); at k = 900, 1037 x 900 x 1031 and
 * 1040 x 900 x 1031 still have their edges made in the k-groups blocks. */
static const fast_case fast_kgroups[] = {{1000, 1000, 1000, ""},
                                         {1024, 1056, 1024, ""},
                                         {999, 1001, 1003, "set align copy; "},
                                         {1037, 1055, 1031, "set align copy; "},
                                         {1037, 1055, 1031, "set align off; "},
                                         {1040, 1055, 1031, ""},
                                         {1036, 1056, 1032, ""},
                                         {1024, 1056, 1032, ""},
                                         {1037, 1055, 1024, ""},
                                         {1024, 1024, 1024, ""},
                                         {1037, 1040, 1031, ""},
                                         {1037, 900, 1031, ""},
                                         {1040, 900, 1031, "set align off; "}};
/* fast's k-groups products whose last rows and columns past the tiles
 * go to gemm_edges, in the SMs the product's grid leaves free, where a
 * block makes them in about the product's time (kernels/fast/matmul.cu,
 * kg_edges_beside; on the H100, each of these before v21, whose faster
 * cover kernel takes 1025^3 on 132 SMs): 13 rows (1037 x 1055 x
 * 1024), 6 (1030 x 1056 x 1024), 8 columns (1024 x 1056 x 1032), a row
 * and a column on b padded and as it lies (1025^3), and 3 rows where k
 * is no multiple of 4 or of the bottom strip's slices (1027 x 1001 x
 * 1024). */
static const fast_case fast_edges_beside[] = {{1037, 1055, 1024, ""},
                                              {1030, 1056, 1024, ""},
                                              {1024, 1056, 1032, ""},
                                              {1025, 1025, 1025, "set align copy; "},
                                              {1025, 1025, 1025, ""},
                                              {1027, 1001, 1024, ""}};
/* fast's products in the cover kernel (fast_sgemm_cover: 96 x 88 tiles,
 * one an SM, its k shared by four warp groups, the last tile row and
 * column moved back to end at the output's edge), where its tiles are no
 * more than the SMs and its estimate beats the k-groups product with its
 * edges, or any other plan (kernels/fast/matmul.cu, cover_for; on 132 SMs
 * all five since v21, where 1036 x 1056 x 1032 went to the k-groups
 * kernel on b's aligned rows): 1037 x 1031 (the last tiles 19 rows and
 * 25 columns back), 1040 x 1031, 1036 x 1032, and 1056 x 1056 (no tile moved);
 * k-steps split evenly among the groups or not (1055: 66 as 17, 17, 17
 * and 15; 1040: 65), and a last stage of one k-row (961). */
static const fast_case fast_cover[] = {{1037, 1055, 1031, ""}, {1040, 1040, 1031, ""}, {1036, 1056, 1032, ""},
                                       {1056, 1055, 1056, ""}, {1037, 961, 1031, ""}};
/* fast's k-groups products at a short k, each group's run a few k-steps:
 * 6, 6 and 5 on b as it lies (129 x 257 x 4099), 3, 3 and 2 (1000 x 128
 * x 1000), 3, 3 and 1 (200 x 100 x 300), and 2, 2 and none, the third
 * group's tile all zeros (300 x 64 x 2000). */
static const fast_case fast_kgroups_short[] = {
    {129, 257, 4099, ""}, {1000, 128, 1000, ""}, {200, 100, 300, ""}, {300, 64, 2000, ""}};
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
    int min;             /* ... at least this often; 0: once a shape */
    const char *never;   /* a kernel that must not have been launched, or NULL */
} variants[] = {
    {"naive", "set coalesce off", "coalesce_off", V_MATMUL, "matmul_naive_uncoalesced", 0, NULL},
    {"tiled", "set tile 8", "tile8", V_MATMUL, "matmul_tiled<8>", 0, NULL},
    {"tiled", "set tile 32", "tile32", V_MATMUL, "matmul_tiled<32>", 0, NULL},
    {"tiled", "set atile transposed; set tile 8", "atile_transposed_tile8", V_MATMUL, "matmul_tiled_at<8>", 0, NULL},
    {"tiled", "set atile transposed", "atile_transposed", V_MATMUL, "matmul_tiled_at<16>", 0, NULL},
    {"tiled", "set atile transposed; set tile 32", "atile_transposed_tile32", V_MATMUL, "matmul_tiled_at<32>", 0, NULL},
    {"tiled", "set pad off", "pad_off", V_TRANSPOSE, "transpose_tiled_nopad", 0, NULL},
    {"tiled", "set reduce classic", "reduce_classic", V_REDUCE,
     "reduce_classic_sum reduce_classic_sumsq reduce_classic_min reduce_classic_max dot_classic", 0, NULL},
    {"tiled", "set reduce shuffle", "reduce_shuffle", V_REDUCE,
     "reduce_shfl_sum reduce_shfl_sumsq reduce_shfl_min reduce_shfl_max dot_shfl", 0, NULL},
    /* cublas borrows tiled's reductions, all but dot */
    {"cublas", "set reduce classic", "reduce_classic", V_REDUCE,
     "reduce_classic_sum reduce_classic_sumsq reduce_classic_min reduce_classic_max", 0, NULL},
    {"cublas", "set reduce shuffle", "reduce_shuffle", V_REDUCE,
     "reduce_shfl_sum reduce_shfl_sumsq reduce_shfl_min reduce_shfl_max", 0, NULL},
    /* fast's products of one row or one column are matrix-vector kernels,
     * which need no copies: of the shapes, 17x33x65 and 77x1x9 (and
     * 1037x1055x1031) go through the tiled kernels. */
    {"fast", "set align copy", "align_copy", V_MATMUL, "fast_pad_rows", 2, NULL},
    {"fast", "set align off", "align_off", V_MATMUL, "fast_sgemm<64x128/32,unaligned>", 2, "fast_pad_rows"},
    {"tf32x3", "set tc mma", "tc_mma", V_MATMUL, "tf32x3_mma", 0, NULL},
};
/* Reductions also at 257x1031: enough elements that the classic 32 blocks
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

/* Launches under mode of the kernels whose names contain `part`. */
static int launches_like(const char *mode, const char *part)
{
    gpu_kernel_row rows[64];
    int n = gpu_kernel_rows(mode_find(mode), rows, 64), sum = 0;
    for (int i = 0; i < n; i++)
        if (strstr(rows[i].name, part))
            sum += rows[i].launches;
    return sum;
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
static void variant_cases(int big, const char *only_mode)
{
    char src[96], name[128];
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        if (only_mode && strcmp(variants[v].mode, only_mode))
            continue;
        int before[8], after[8], nk = launch_counts(variants[v].mode, variants[v].kernels, before), runs = 0;
        int never0 = variants[v].never ? launches(variants[v].mode, variants[v].never) : 0;
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
        int want = variants[v].min ? variants[v].min : runs;
        for (int i = 0; i < nk; i++)
            CHECKF(after[i] - before[i] >= want, "'%s': kernel %d of '%s' launched %d times in %d shapes (want %d)",
                   src, i, variants[v].kernels, after[i] - before[i], runs, want);
        if (variants[v].never)
            CHECKF(launches(variants[v].mode, variants[v].never) == never0, "'%s': %s was launched", src,
                   variants[v].never);
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

/* A script's statements leave their device work queued (the launch floor)
 * and still compute what a statement-by-statement run computes, bit for
 * bit; `time on` in a script waits for each statement again, and the
 * script's end waits for everything. */
static void script_queued(void)
{
    static const char head[] = "mode cublas; seed 3; A = rand(300, 257); B = rand(257, 300);\n";
    static const char body[] = "C = A @ B; D = C * 0.5 + 1; A = D @ A / 300;\n";
    char path[] = "/tmp/cuk-queued-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(head, f);
    for (int i = 0; i < 20; i++)
        fputs(body, f);
    fputs("time on\nE = A + 1;\n", f);
    fclose(f);
    CHECK(run_file(oc_s, path) == RUN_OK);
    CHECK(timing_history(0)->queued == 0 && timing_history(0)->kernel_ms > 0); /* E, timed */
    CHECK(timing_history(1)->queued == 1 && timing_history(1)->kernel_ms <= 0);  /* the last A, queued */
    cuk_matrix *queued = run_get("time off; X = A;", "X");
    run_source(oc_s, head, strlen(head), "test", 1, 1);
    for (int i = 0; i < 20; i++)
        run_source(oc_s, body, strlen(body), "test", 1, 1);
    cuk_matrix *waited = run_get("X = A;", "X");
    CHECK(timing_history(1)->queued == 0);
    CHECKF(queued && waited && mat_host(queued) && mat_host(waited) &&
               !memcmp(queued->host, waited->host, mat_bytes(queued)),
           "a queued script computed another A than the same statements run one by one");
    mat_unref(queued);
    mat_unref(waited);
    unlink(path);
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
    CHECK(variant_pick(VAR_TILE) == VAR_TILE_32);
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

/* The gate a timed op's first mark waits behind (gpu_gate_close): two
 * marks recorded 50 ms apart behind a closed gate both fire when it opens,
 * so the pair reads about 0 where from an idle device it read the host's
 * 50 ms; a gate nothing opens lets the stream go after its timeout (20
 * ms), and the first mark fires then, long before the second. The margins
 * are tens of ms against 50 and 150 ms of host sleep: what is checked is
 * the order of events, not a speed. */
static void gate_holds_marks(void)
{
    gpu_mark *m0 = gpu_mark_new(), *m1 = gpu_mark_new();
    CHECK(m0 && m1);
    if (!m0 || !m1)
        return;
    CHECK(gpu_gate_close(1e6) == 0 && gpu_mark_record(m0) == 0);
    usleep(50000);
    CHECK(gpu_mark_record(m1) == 0);
    gpu_gate_open();
    CHECK(gpu_sync() == 0);
    double held = gpu_mark_elapsed(m0, m1);
    CHECKF(held >= 0 && held < 10, "two marks behind an open gate %.3f ms apart (host: 50 ms)", held);
    CHECK(gpu_gate_close(20000) == 0 && gpu_mark_record(m0) == 0);
    usleep(150000);
    CHECK(gpu_mark_record(m1) == 0 && gpu_sync() == 0);
    double timed_out = gpu_mark_elapsed(m0, m1);
    CHECKF(timed_out > 60, "a gate left closed let its mark go %.3f ms before the next (host: 150 ms, timeout 20)",
           timed_out);
}

/* The scratch fast's padded copies grew is device memory no matrix holds:
 * trimming the pool (as it does when the device runs short, or `clear`)
 * gives it back. */
static void scratch_given_back(void)
{
    const int m = 1500, k = 2001, n = 1003; /* both operands copied: ~20 MB */
    pool_trim(); /* the pool's cache and any earlier scratch first */
    cuk_matrix *c = run_get("mode fast; set align copy; SA = rand(1500, 2001); SB = rand(2001, 1003);"
                            "SC = SA @ SB; set align auto;", "SC");
    size_t before, after, total;
    if (!c || gpu_mem_info(&before, &total) != 0)
        return;
    pool_trim();
    CHECK(gpu_mem_info(&after, &total) == 0);
    double copies = 4.0 * ((double)m * 2004 + (double)k * 1004);
    CHECKF(after >= before + copies - (2 << 20), "free %.1f MiB before the trim, %.1f after; the copies were %.1f",
           before / 1048576.0, after / 1048576.0, copies / 1048576.0);
    cuk_matrix *again = run_get("SD = SA @ SB;", "SD"); /* the scratch comes back when needed */
    CHECK(again && again->rows == m && again->cols == n);
    mat_unref(again);
    mat_unref(c);
    run_get("clear SA SB SC SD;", "none");
}

/* Lesson 4's check, in each way of reducing: a[i] = i, b[i] = 2i for
 * N = 33 x 1024 gives dot(a, b) = 2 (N-1) N (2N-1) / 6. */
static void classic_dot(void)
{
    static const char *ways[] = {"classic", "grid", "shuffle"};
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

/* The classic reduction ends on the host, yet it is one timed op like any. */
static void classic_reduction_timed(void)
{
    static const out_sink sink = {capture, no_flush, NULL};
    static const char src[] = "mode tiled; A = rand(1000, 1000); set reduce classic; time on; s = sum(A); time off";
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
    warm_reset(); /* the shape is new here whatever ran before */
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

/* --- mode fast's memory-bound kernels, called directly ------------------------ */

/* The lengths every one-pass kernel must get right: a single element, less
 * than one float4, around a warp, one past a float4 multiple, and one past
 * 2^24 (many grid-stride steps, and a tail); the last one is left out under
 * the sanitizer, which runs kernels a hundred times slower. */
static const size_t fm_lens[] = {1, 2, 31, 33, 4097, ((size_t)1 << 24) + 1};
#define FM_NLENS_SANITIZER 5
static int fm_nlens = (int)(sizeof fm_lens / sizeof fm_lens[0]);

/* A device copy of host[0..n) starting `off` floats past a 16-byte
 * boundary (the buffer itself is in *base, for gpu_raw_free). */
static float *fm_upload(const float *host, size_t n, size_t off, float **base)
{
    if (gpu_raw_alloc((void **)base, (n + off) * sizeof(float)) != 0) { /* no slack: memcheck sees overreads */
        CHECKF(0, "no device memory for %zu floats", n);
        return NULL;
    }
    if (gpu_h2d(*base + off, host, n * sizeof(float)) != 0) {
        CHECKF(0, "upload: %s", cuk_err_get()->msg);
        return NULL;
    }
    return *base + off;
}

/* Poison n floats of dev with NaN (all bits set), so that an element the
 * kernel never writes shows. */
static void fm_poison(float *dev, size_t n)
{
    CHECKF(gpu_memset(dev, 0xff, n * sizeof(float)) == 0, "memset: %s", cuk_err_get()->msg);
}

/* Read n floats back; 0 if the op and the copy went through. */
static int fm_read(int status, const char *what, float *host, const float *dev, size_t n)
{
    CHECKF(status == 0, "%s: %s", what, cuk_err_get()->msg);
    if (status != 0)
        return -1;
    int ok = gpu_d2h(host, dev, n * sizeof(float));
    CHECKF(ok == 0, "%s: read back: %s", what, cuk_err_get()->msg);
    return ok;
}

static const char *fm_red_name[] = {"sum", "mean", "norm", "min", "max"};

/* Every reduction of a (n floats at device address x) against float64.
 * A sum's error is measured against the sum of |a[i]| (a float sum's
 * rounding is bounded by a multiple of it): random terms can cancel to
 * near 0 and make the plain relative error large by chance. */
static void fm_reduce_all(const float *a, const float *x, size_t n, size_t off, float *out)
{
    const cuk_ops *fast = &mode_find("fast")->ops;
    double sum = 0, sumabs = 0, sq = 0, lo = a[0], hi = a[0];
    for (size_t i = 0; i < n; i++) {
        sum += a[i];
        sumabs += fabs(a[i]);
        sq += (double)a[i] * a[i];
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    const double want[] = {sum, sum / (double)n, sqrt(sq), lo, hi};
    const double scale[] = {sumabs, sumabs / (double)n, sqrt(sq), 0, 0};
    for (int op = 0; op < CUK_RED_COUNT; op++) {
        char what[64];
        float got;
        snprintf(what, sizeof what, "%s of %zu from +%zu", fm_red_name[op], n, off);
        fm_poison(out, 1);
        if (fm_read(fast->reduce[op](out, x, n), what, &got, out, 1) != 0)
            continue;
        CHECKF(op >= CUK_RED_MIN ? got == want[op] : fabs(got - want[op]) < OC_TOL * scale[op],
               "%s: %.9g, want %.9g", what, got, want[op]);
    }
}

/* dot(x, y) with y starting `yoff` floats past its boundary: equal to
 * off takes the float4 kernel, different the float one. */
static void fm_dot(const float *a, const float *b, const float *x, size_t n, size_t off, size_t yoff, float *out)
{
    float *ybase, got;
    const float *y = fm_upload(b, n, yoff, &ybase);
    double want = 0, scale = 0;
    char what[64];
    for (size_t i = 0; i < n; i++) {
        want += (double)a[i] * b[i];
        scale += fabs((double)a[i] * b[i]);
    }
    snprintf(what, sizeof what, "dot of %zu from +%zu, +%zu", n, off, yoff);
    fm_poison(out, 1);
    if (y && fm_read(mode_find("fast")->ops.dot(out, x, y, n), what, &got, out, 1) == 0)
        CHECKF(fabs(got - want) < OC_TOL * scale, "%s: %.9g, want %.9g", what, got, want);
    gpu_raw_free(ybase);
}

static void fast_reductions(void)
{
    float *out, *base;
    if (gpu_raw_alloc((void **)&out, sizeof(float)) != 0)
        return;
    mode_enter(mode_find("fast"));
    for (int l = 0; l < fm_nlens; l++)
        for (size_t off = 0; off < 2; off++) {
            size_t n = fm_lens[l];
            /* fm_upload's buffers start on 256 bytes: +1 makes a head of 31 */
            float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
            check_fill(a, n);
            check_fill(b, n);
            const float *x = fm_upload(a, n, off, &base);
            if (x) {
                fm_reduce_all(a, x, n, off, out);
                fm_dot(a, b, x, n, off, off, out);
                fm_dot(a, b, x, n, off, off + 2, out);
            }
            gpu_raw_free(base);
            free(a);
            free(b);
        }
    gpu_raw_free(out);
}

/* A NaN anywhere makes sum, norm, min and max NaN, as in tiled (min and
 * max must not drop it, as fminf and fmaxf would). */
static void fast_reductions_nan(void)
{
    static const size_t lens[] = {1, 33, 4097};
    float *out, *base;
    if (gpu_raw_alloc((void **)&out, sizeof(float)) != 0)
        return;
    mode_enter(mode_find("fast"));
    for (size_t l = 0; l < 3; l++) {
        size_t n = lens[l];
        float *a = malloc(n * sizeof *a), got;
        check_fill(a, n);
        a[(size_t)(check_uniform() * n)] = NAN;
        const float *x = fm_upload(a, n, 1, &base);
        for (int op = 0; x && op < CUK_RED_COUNT; op++) {
            char what[64];
            snprintf(what, sizeof what, "%s of %zu with a NaN", fm_red_name[op], n);
            /* not NaN before: a kernel that wrote nothing must fail */
            if (gpu_memset(out, 0, sizeof(float)) == 0 &&
                fm_read(mode_find("fast")->ops.reduce[op](out, x, n), what, &got, out, 1) == 0)
                CHECKF(isnan(got), "%s: %g", what, got);
        }
        gpu_raw_free(base);
        free(a);
    }
    gpu_raw_free(out);
}

static double fm_ew(cuk_ewop op, double x, double y)
{
    switch (op) {
    case CUK_EW_ADD: return x + y;
    case CUK_EW_SUB: return x - y;
    case CUK_EW_MUL: return x * y;
    case CUK_EW_DIV: return x / y;
    case CUK_EW_MIN: return x < y ? x : y;
    case CUK_EW_MAX: return x > y ? x : y;
    case CUK_EW_POW: return pow(x, y);
    default: return NAN;
    }
}

/* Each elementwise op at n, the operands at offsets (ao, bo) and out at
 * oo: the same offset for all takes the float4 path with its head, a
 * different one the float path; b also broadcast from a host value and
 * from a device 1x1. */
static void fm_ewise_at(size_t n, size_t ao, size_t bo, size_t oo)
{
    const cuk_ops *fast = &mode_find("fast")->ops;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *got = malloc(n * sizeof *got);
    double *ref = malloc(n * sizeof *ref);
    float *abase, *bbase, *obase, *sbase, s = 0.75f;
    check_fill(a, n);
    check_fill(b, n);
    for (size_t i = 0; i < n; i++) /* pow needs a positive base */
        a[i] = a[i] == 0 ? 0.5f : fabsf(a[i]);
    const float *da = fm_upload(a, n, ao, &abase), *db = fm_upload(b, n, bo, &bbase), *ds = fm_upload(&s, 1, 0, &sbase);
    float *dout = fm_upload(a, n, oo, &obase);
    for (int op = 0; da && db && ds && dout && op < CUK_EW_COUNT; op++)
        for (int form = 0; form < 3; form++) {
            cuk_arg x = {da, 0, 0}, y = form == 0 ? (cuk_arg){db, 0, 0} : form == 1 ? (cuk_arg){NULL, s, 1}
                                                                                      : (cuk_arg){ds, 0, 1};
            char what[96];
            snprintf(what, sizeof what, "ewise op %d (%s) at %zu, offsets %zu %zu %zu", op,
                     form == 0 ? "two matrices" : form == 1 ? "host scalar" : "device 1x1", n, ao, bo, oo);
            for (size_t i = 0; i < n; i++)
                ref[i] = fm_ew((cuk_ewop)op, a[i], form ? s : b[i]);
            fm_poison(dout, n);
            if (fm_read(fast->ewise((cuk_ewop)op, dout, x, y, n), what, got, dout, n) == 0)
                CHECKF(check_relerr(got, ref, n) < OC_TOL, "%s: relative error %.3g", what, check_relerr(got, ref, n));
        }
    gpu_raw_free(abase);
    gpu_raw_free(bbase);
    gpu_raw_free(obase);
    gpu_raw_free(sbase);
    free(a);
    free(b);
    free(got);
    free(ref);
}

static void fast_elementwise(void)
{
    mode_enter(mode_find("fast"));
    for (int l = 0; l < fm_nlens; l++) {
        fm_ewise_at(fm_lens[l], 0, 0, 0);
        fm_ewise_at(fm_lens[l], 3, 3, 3);
        fm_ewise_at(fm_lens[l], 1, 0, 1); /* b 3 floats past out's phase */
        fm_ewise_at(fm_lens[l], 3, 2, 1); /* a 2 past, b 1 past */
        fm_ewise_at(fm_lens[l], 2, 2, 1); /* both 1 past: float4 from shifted loads */
        fm_ewise_at(fm_lens[l], 0, 0, 1); /* both 3 past */
    }
}

static double fm_un(cuk_unop op, double x)
{
    switch (op) {
    case CUK_UN_NEG: return -x;
    case CUK_UN_ABS: return fabs(x);
    case CUK_UN_SQRT: return sqrt(x);
    case CUK_UN_EXP: return exp(x);
    case CUK_UN_LOG: return log(x);
    default: return NAN;
    }
}

/* Each unary op at n, in at offset io and out at oo; sqrt and log of |a|. */
static void fm_unary_at(size_t n, size_t io, size_t oo)
{
    float *a = malloc(n * sizeof *a), *got = malloc(n * sizeof *got), *ibase, *obase;
    double *ref = malloc(n * sizeof *ref);
    for (int op = 0; op < CUK_UN_COUNT; op++) {
        char what[64];
        check_fill(a, n);
        if (op == CUK_UN_SQRT || op == CUK_UN_LOG)
            for (size_t i = 0; i < n; i++)
                a[i] = a[i] == 0 ? 0.5f : fabsf(a[i]);
        for (size_t i = 0; i < n; i++)
            ref[i] = fm_un((cuk_unop)op, a[i]);
        const float *in = fm_upload(a, n, io, &ibase);
        float *dout = fm_upload(a, n, oo, &obase);
        snprintf(what, sizeof what, "unary op %d at %zu, offsets %zu %zu", op, n, io, oo);
        fm_poison(dout, n);
        if (in && dout && fm_read(mode_find("fast")->ops.unary((cuk_unop)op, dout, in, n), what, got, dout, n) == 0)
            CHECKF(check_relerr(got, ref, n) < OC_TOL, "%s: relative error %.3g", what, check_relerr(got, ref, n));
        gpu_raw_free(ibase);
        gpu_raw_free(obase);
    }
    free(a);
    free(got);
    free(ref);
}

static void fast_unary(void)
{
    mode_enter(mode_find("fast"));
    for (int l = 0; l < fm_nlens; l++) {
        fm_unary_at(fm_lens[l], 0, 0);
        fm_unary_at(fm_lens[l], 2, 2);
        fm_unary_at(fm_lens[l], 0, 1); /* in 3 floats past out's phase */
        fm_unary_at(fm_lens[l], 2, 1); /* 1 past */
        fm_unary_at(fm_lens[l], 3, 1); /* 2 past */
    }
}

/* Transposes, exact: shapes with both sides multiples of 4 take the
 * float4 kernel, the others the general one; both are checked to have run. */
static void fast_transposes(void)
{
    static const int tshapes[][2] = {{1, 1},   {1, 37},   {37, 1},     {17, 33},   {4, 8},    {64, 64},
                                    {68, 132}, {65, 63}, {1037, 1055}, {1036, 1056}, {128, 4100}, {3, 70001}};
    int vec0 = launches("fast", "transpose_fast"), any0 = launches("fast", "transpose_fast_any"), nvec = 0;
    mode_enter(mode_find("fast"));
    for (size_t s = 0; s < sizeof tshapes / sizeof tshapes[0]; s++) {
        int rows = tshapes[s][0], cols = tshapes[s][1];
        size_t n = (size_t)rows * cols;
        float *a = malloc(n * sizeof *a), *got = malloc(n * sizeof *got), *ibase, *obase;
        double *ref = malloc(n * sizeof *ref);
        char what[64];
        check_fill(a, n);
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                ref[(size_t)j * rows + i] = a[(size_t)i * cols + j];
        const float *in = fm_upload(a, n, 0, &ibase);
        float *dout = fm_upload(a, n, 0, &obase);
        snprintf(what, sizeof what, "transpose %dx%d", rows, cols);
        nvec += rows % 4 == 0 && cols % 4 == 0;
        fm_poison(dout, n);
        if (in && dout && fm_read(mode_find("fast")->ops.transpose(dout, in, rows, cols), what, got, dout, n) == 0)
            for (size_t i = 0; i < n; i++)
                if (got[i] != ref[i]) {
                    CHECKF(0, "%s: element %zu is %g, want %g", what, i, got[i], ref[i]);
                    break;
                }
        gpu_raw_free(ibase);
        gpu_raw_free(obase);
        free(a);
        free(got);
        free(ref);
    }
    int vec = launches("fast", "transpose_fast") - vec0, any = launches("fast", "transpose_fast_any") - any0;
    CHECKF(vec == nvec && any == (int)(sizeof tshapes / sizeof tshapes[0]) - nvec,
           "float4 kernel ran %d times for %d shapes, the general one %d", vec, nvec, any);
}

/* The float path of dot ran when the operands were out of phase, and the
 * elementwise kernels' shifted loads when they were out of out's. */
static void fast_kernels_ran(void)
{
    CHECKF(launches("fast", "dot_fast") > 0 && launches("fast", "dot_fast_unaligned") > 0 &&
               launches("fast", "reduce_fast_sum") > 0 && launches("fast", "ewise_fast") > 0 &&
               launches("fast", "unary_fast") > 0 && launches("fast", "ewise_fast_shifted") > 0 &&
               launches("fast", "unary_fast_shifted") > 0,
           "a kernel of mode fast was never launched");
}

static void fast_mem_cases(void)
{
    check_run("gpu_fast_reductions", fast_reductions);
    check_run("gpu_fast_reductions_nan", fast_reductions_nan);
    check_run("gpu_fast_elementwise", fast_elementwise);
    check_run("gpu_fast_unary", fast_unary);
    check_run("gpu_fast_transposes", fast_transposes);
    check_run("gpu_fast_kernels_ran", fast_kernels_ran);
}

/* Run src with its output in captured; 1 if it ran. */
static int run_captured(const char *src)
{
    static const out_sink sink = {capture, no_flush, NULL};
    captured[0] = '\0';
    out_set_sink(&sink);
    run_status st = run_source(oc_s, src, strlen(src), "test", 1, 1);
    out_set_sink(NULL);
    return st == RUN_OK;
}

/* The GPU that row r of spread matrix a starts on, or -1. */
static int gpu_of_row(const cuk_matrix *a, int r)
{
    int g;
    size_t start, len;
    const float *first = (const float *)a->dev->ptr + (size_t)r * (size_t)a->cols;
    return gpu_spread_parts(first, sizeof(float), &g, &start, &len) == 1 ? g : -1;
}

/* What the user sees of mode multi (engine/session/snapshot.h): a matrix past the
 * size spread memory splits (64 MiB) has a slab on GPUs 0, 1, ... in
 * order, covering its rows once, each slab's first and last rows starting
 * on its GPU; `who` prints them; each GPU's figures count its part; `info`
 * lists every GPU and, with two or more, the measured links. */
static void multi_views(void)
{
    const int rows = 5003, cols = 4001; /* 80 MB, rows of 16004 bytes: cuts fall inside rows */
    cuk_matrix *a = run_get("mode multi; A = rand(5003, 4001);", "A");
    int n = gpu_count(), next = 0;
    snap_slabs s;
    snap_gpus gs;
    snap_memory m;
    CHECK(a && a->dev && !a->host);
    if (!a || !a->dev)
        return;
    snap_slabs_of(a, &s);
    CHECKF(s.n >= 1 && s.n <= n && (n == 1 || s.n >= 2), "%d slabs on %d GPUs", s.n, n);
    for (int k = 0; k < s.n; k++) {
        int rk[2] = {s.first[k], s.first[k] + s.count[k] - 1};
        CHECKF(s.gpu[k] == k && s.first[k] == next && s.count[k] >= 1, "slab %d: GPU %d, rows %d+%d", k, s.gpu[k],
               s.first[k], s.count[k]);
        for (int e = 0; e < 2; e++) /* the row's first element is on the slab's GPU */
            CHECKF(gpu_of_row(a, rk[e]) == s.gpu[k], "row %d starts on GPU %d, its slab says GPU %d", rk[e],
                   gpu_of_row(a, rk[e]), s.gpu[k]);
        next += s.count[k];
    }
    CHECKF(next == rows, "the slabs end at row %d of %d", next, rows);
    CHECK(run_captured("who"));
    CHECKF(strstr(captured, "  A            5003x4001 ") && strstr(captured, "device: rows 0-") &&
               (s.n < 2 || strstr(captured, " GPU 1")) && strstr(captured, "spread pool (mode multi): "),
           "who: %s", captured);
    snap_memory_get(&m);
    snap_gpus_get(&gs);
    CHECKF(m.spread_in_use >= mat_bytes(a) && m.spread_held >= m.spread_in_use && gs.n == n, "%zu in use, %d GPUs",
           m.spread_in_use, gs.n);
    for (int k = 0; k < s.n && gs.n == n; k++)
        CHECKF(gs.gpu[s.gpu[k]].matrices >= (size_t)(s.count[k] - 1) * cols * sizeof(float) &&
                   gs.gpu[s.gpu[k]].free <= gs.gpu[s.gpu[k]].total,
               "GPU %d: %zu bytes of matrices for %d rows", s.gpu[k], gs.gpu[s.gpu[k]].matrices, s.count[k]);
    CHECK(run_captured("info"));
    CHECKF(n == 1 ? strstr(captured, "GPUs:     1 visible: mode multi runs on it alone\n") != NULL
                  : strstr(captured, "\n  GPU 1:  ") && strstr(captured, "\n  GPU 0 <-> GPU 1: ") &&
                        strstr(captured, "; measured ") && strstr(captured, " GB/s 1->0\n"),
           "info: %s", captured);
    const char *gpus = strstr(captured, "GPUs:"), *host = gpus ? strstr(gpus, "\nhost:") : NULL;
    if (host) /* for the log: what info says of the GPUs */
        printf("  %.*s\n", (int)(host - gpus), gpus);
    mat_unref(a);
    run_get("clear A;", "none");
}

static void available(void)
{
    const char *why;
    for (size_t m = 0; m < NGPU_MODES; m++)
        CHECKF(mode_available(mode_find(gpu_modes[m]), &why), "%s unavailable", gpu_modes[m]);
    cuk_session *fresh = session_new(NULL);
    CHECKF(fresh->mode == mode_start(1), "default mode %s", fresh->mode->name);
    session_free(fresh);
}

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

/* m x k x n twice in mode fast (after `set`, undone by `unset` after; ""
 * for none): the same bits both times, and at most twice cuBLAS FP32's
 * error against float64 on the same inputs, or than FP32's unit roundoff
 * where cuBLAS's is below it (a sum of 3 terms is exact or a rounding off
 * by luck: 2x3x2 once gave 4.4e-8 against cuBLAS's 1.2e-8). */
static void fast_twice(int m, int k, int n, const char *set, const char *unset)
{
    char src[320];
    snprintf(src, sizeof src,
             "A = rand(%d, %d); B = rand(%d, %d); mode cublas; R = A @ B; mode fast; %sC1 = A @ B; C2 = A @ B; "
             "%smode tiled;",
             m, k, k, n, set, unset);
    cuk_matrix *a, *b, *c1, *c2;
    if (run_pair(src, "A", "B", &a, &b) != 0 || !(c1 = ws_get(&oc_s->ws, "C1")) || !mat_host(c1) ||
        !(c2 = ws_get(&oc_s->ws, "C2")) || !mat_host(c2)) {
        CHECKF(0, "%dx%dx%d: the product or its copy back failed", m, k, n);
        return;
    }
    CHECKF(!memcmp(c1->host, c2->host, (size_t)m * n * sizeof(float)), "%dx%dx%d: two results for one product", m, k,
           n);
    static const char *const names[2] = {"C1", "R"};
    double e[2];
    product_errors(names, e, a->host, b->host, m, k, n);
    double ef = e[0], er = e[1];
    CHECKF(ef <= 2 * fmax(er, 0x1p-24), "%dx%dx%d: fast's error %.3g, more than twice cuBLAS FP32's %.3g", m, k, n, ef,
           er);
}

/* fast's running sums go into their outputs every 1024 of k as adds made
 * in the L2 (kernels/fast/tile.cuh, add4), each by the thread that wrote the
 * place: the same product twice agrees bit for bit, and its error against
 * float64 is at most twice cuBLAS FP32's, at shapes folded 2 to 4 times:
 * rows 16 bytes apart or not (`set align off`: the float path, and c's
 * rows added a float at a time), one slice or several. */
static void fast_fold(void)
{
    static const int folded[][3] = {{260, 4096, 264}, {257, 2101, 259}, {129, 4099, 257}};
    for (size_t i = 0; i < sizeof folded / sizeof folded[0]; i++)
        fast_twice(folded[i][0], folded[i][1], folded[i][2], "set align off; ", "set align auto; ");
}

/* fast_thin's products ran the thin kernel, twice with the same bits (its
 * k-slices are added in a fixed order whichever arrives last), with at
 * most twice cuBLAS FP32's error against float64. */
static void fast_thin_products(void)
{
    for (size_t i = 0; i < sizeof fast_thin / sizeof fast_thin[0]; i++) {
        int m = fast_thin[i][0], k = fast_thin[i][1], n = fast_thin[i][2];
        int before = launches("fast", "gemm_thin<4>") + launches("fast", "gemm_thin<8>");
        fast_twice(m, k, n, "", "");
        int ran = launches("fast", "gemm_thin<4>") + launches("fast", "gemm_thin<8>") - before;
        CHECKF(ran == 2, "%dx%dx%d: the thin kernel ran %d times for two products", m, k, n, ran);
    }
}

/* fast_rows_a's products ran the 16-byte kernels on a as it lies: no
 * padded copy, no kernel that copies b a float at a time; twice with the
 * same bits, with at most twice cuBLAS FP32's error against float64. */
static void fast_rows_a_products(void)
{
    for (size_t i = 0; i < sizeof fast_rows_a / sizeof fast_rows_a[0]; i++) {
        int m = fast_rows_a[i][0], k = fast_rows_a[i][1], n = fast_rows_a[i][2];
        int pads = launches("fast", "fast_pad_rows"), raw = launches_like("fast", ",unaligned");
        int tiled = launches_like("fast", "fast_sgemm");
        fast_twice(m, k, n, "", "");
        CHECKF(launches("fast", "fast_pad_rows") == pads, "%dx%dx%d: a padded copy ran", m, k, n);
        CHECKF(launches_like("fast", ",unaligned") == raw, "%dx%dx%d: an unaligned kernel ran", m, k, n);
        CHECKF(launches_like("fast", "fast_sgemm") == tiled + 2, "%dx%dx%d: %d tiled kernels for two products", m, k, n,
               launches_like("fast", "fast_sgemm") - tiled);
    }
}

/* fast_streamk's products, twice with the same bits (the last block to
 * arrive at a split tile adds the blocks' parts in k order, whichever it
 * is) and at most twice cuBLAS FP32's error; the stream-K kernel ran for
 * some of them (which plan a shape gets depends on the GPU's SMs). */
static void fast_streamk_products(void)
{
    int before = launches_like("fast", "fast_sgemm_sk");
    for (size_t i = 0; i < sizeof fast_streamk / sizeof fast_streamk[0]; i++)
        fast_twice(fast_streamk[i].m, fast_streamk[i].k, fast_streamk[i].n, fast_streamk[i].set,
                   *fast_streamk[i].set ? "set align auto; " : "");
    CHECKF(launches_like("fast", "fast_sgemm_sk") > before, "the stream-K kernel never ran");
}

/* The products of list (n of them), twice each with the same bits and at
 * most twice cuBLAS FP32's error; `kernel` and a kernel whose name holds
 * `product` both ran for some of them, twice each, where `when` (which
 * plan a shape gets depends on the GPU's SMs). */
static void fast_products_with(const fast_case *list, size_t n, const char *kernel, const char *product, int when)
{
    int both = 0;
    for (size_t i = 0; i < n; i++) {
        int ran = launches_like("fast", kernel), pr = launches_like("fast", product);
        fast_twice(list[i].m, list[i].k, list[i].n, list[i].set, *list[i].set ? "set align auto; " : "");
        both += launches_like("fast", kernel) == ran + 2 && launches_like("fast", product) == pr + 2;
    }
    if (when)
        CHECKF(both > 0, "%s never ran with %s", kernel, product);
}

/* On a GPU that launches early (cc 9.0 on). */
static int launches_early(void)
{
    const gpu_info *d = gpu_device();
    return d && d->cc_major >= 9;
}

/* Whether a grid of `blocks` blocks of a tile an SM, each of `kb` KB of
 * shared memory, is one wave on this GPU. */
static int one_wave(int blocks, size_t kb)
{
    const gpu_info *d = gpu_device();
    return d && d->sms >= blocks && d->smem_per_sm >= kb << 10;
}

/* Where a k-groups grid of 128 blocks (1024 x 1024 in tiles of 64 x 128)
 * is one wave: each SM able to hold one block's ~116 KB of shared memory
 * (not an RTX 4090's 100 KB an SM). */
static int kgroups_fit(void) { return one_wave(128, 120); }

/* fast_beside's products: the thin kernel beside the stream-K product. */
static void fast_beside_products(void)
{
    fast_products_with(fast_beside, sizeof fast_beside / sizeof fast_beside[0], "gemm_thin", "fast_sgemm_sk",
                       launches_early());
}

/* fast_rows_beside's products: gemm_rows beside the k-groups product. */
static void fast_rows_beside_products(void)
{
    fast_products_with(fast_rows_beside, sizeof fast_rows_beside / sizeof fast_rows_beside[0], "gemm_rows",
                       "fast_sgemm_kg", launches_early() && kgroups_fit());
}

/* fast_edges_beside's products: gemm_edges beside the k-groups product. */
static void fast_edges_beside_products(void)
{
    fast_products_with(fast_edges_beside, sizeof fast_edges_beside / sizeof fast_edges_beside[0], "gemm_edges<",
                       "fast_sgemm_kg", launches_early() && kgroups_fit());
}

/* Where the cover kernel's 132 tiles of 1037 x 1031 are one wave, a
 * block's ~150 KB of shared memory an SM. */
static int covers_fit(void) { return one_wave(132, 160); }

/* fast_cover's products: the cover kernel. */
static void fast_cover_products(void)
{
    fast_products_with(fast_cover, sizeof fast_cover / sizeof fast_cover[0], "fast_sgemm_cover<", "fast_sgemm_cover<",
                       covers_fit());
}

/* fast_kgroups_short's products: the k-groups kernel on short runs. */
static void fast_kgroups_short_products(void)
{
    fast_products_with(fast_kgroups_short, sizeof fast_kgroups_short / sizeof fast_kgroups_short[0],
                       "fast_sgemm_kg<", "fast_sgemm_kg<", kgroups_fit());
}

/* fast_kgroups's products: the k-groups kernel, and its edges kernel. */
static void fast_kgroups_products(void)
{
    size_t n = sizeof fast_kgroups / sizeof fast_kgroups[0];
    int edges = launches_like("fast", ",edges>");
    fast_products_with(fast_kgroups, n, "fast_sgemm_kg<", "fast_sgemm_kg<", kgroups_fit());
    if (kgroups_fit())
        CHECKF(launches_like("fast", ",edges>") >= edges + 2, "the k-groups kernel never made the edges");
}

/* Mode fast's products beyond the shapes every mode runs: the long k, the
 * thin products, the folded sums; first the products at the first nshapes
 * shapes and `products` (--fast-gemm, where nothing else runs them). */
static void fast_gemm_cases(int nshapes)
{
    for (int i = 0; i < nshapes; i++)
        oc_matmul_case("fast", shapes[i][0], shapes[i][1], shapes[i][2]);
    for (size_t i = 0; nshapes && i < sizeof products / sizeof products[0]; i++)
        oc_matmul_case("fast", products[i][0], products[i][1], products[i][2]);
    for (size_t i = 0; i < sizeof fast_long_k / sizeof fast_long_k[0]; i++)
        oc_matmul_case("fast", fast_long_k[i][0], fast_long_k[i][1], fast_long_k[i][2]);
    for (size_t i = 0; i < sizeof fast_thin / sizeof fast_thin[0]; i++)
        oc_matmul_case("fast", fast_thin[i][0], fast_thin[i][1], fast_thin[i][2]);
    for (size_t i = 0; i < sizeof fast_rows_a / sizeof fast_rows_a[0]; i++)
        oc_matmul_case("fast", fast_rows_a[i][0], fast_rows_a[i][1], fast_rows_a[i][2]);
    check_run("gpu_fast_thin", fast_thin_products);
    check_run("gpu_fast_rows_a", fast_rows_a_products);
    check_run("gpu_fast_streamk", fast_streamk_products);
    check_run("gpu_fast_thin_beside", fast_beside_products);
    check_run("gpu_fast_rows_beside", fast_rows_beside_products);
    check_run("gpu_fast_kgroups", fast_kgroups_products);
    check_run("gpu_fast_kgroups_short", fast_kgroups_short_products);
    check_run("gpu_fast_edges_beside", fast_edges_beside_products);
    check_run("gpu_fast_cover", fast_cover_products);
    check_run("gpu_fast_fold", fast_fold);
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

/* tf32 and tf32x3 at the shapes, and tf32x3's error against FP32's with
 * each of its kernels. */
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
    } else {
        check_skip("gpu_tf32x3_error_vs_fp32", why);
    }
}

/* On two GPUs or more, a 1037 x 1055 matrix made in mode multi under
 * `set spread all` lies on two of them, its split inside a row (4 MiB is
 * not a whole number of its rows): the case every share must get right. */
static void multi_spread(void)
{
    const char *src = "mode multi; set spread all; S = rand(1037, 1055); T = S';";
    CHECKF(run_source(oc_s, src, strlen(src), "test", 1, 1) == RUN_OK, "'%s' failed", src);
    cuk_matrix *m = ws_get(&oc_s->ws, "S");
    int gpus[GPU_MAX_DEVICES];
    size_t start[GPU_MAX_DEVICES], len[GPU_MAX_DEVICES];
    int parts = m && m->dev ? gpu_spread_parts(m->dev->ptr, mat_bytes(m), gpus, start, len) : -1;
    int want = gpu_count() > 1 ? 2 : 1;
    CHECKF(parts == want, "S lies in %d parts, want %d (%d GPUs)", parts, want, gpu_count());
    if (parts == 2)
        CHECKF(start[1] % (1055 * sizeof(float)) != 0, "S's split at byte %zu falls between rows", start[1]);
    variant_reset();
}

/* Mode multi like the other GPU modes, with every matrix of two pages or
 * more split over the GPUs, so that the small shapes reach the shares'
 * edges. Out of core (limit set): the same checks, the matrices then in
 * host memory. */
/* 1 if the line of `who`'s listing w for variable name says what. */
static int who_says(const char *w, const char *name, const char *what)
{
    char key[32];
    snprintf(key, sizeof key, "\n  %s ", name);
    const char *line = strstr(w, key), *end = line ? strchr(line + 1, '\n') : NULL;
    const char *at = line ? strstr(line, what) : NULL;
    return at && (!end || at < end);
}

/* Out of core (gpu_test --out-of-core: 4 MiB of each GPU): a matrix multi
 * cannot hold stays in host memory and `who` says so; an op with it runs
 * in multi's host stand-in, whose result, small enough for the GPUs, is an
 * ordinary host matrix, not marked out of core; and the product is right
 * (float64 reference). */
static void multi_spill_where(void)
{
    /* A larger than both GPUs' 8 MiB together, whatever else they hold;
     * the workspace cleared first: with --quick, the 1037 x 1055 matrices
     * of the group cases before (oc_group_case) held 6 of the 8 MiB, and
     * x's 4 KiB did not fit. (A was 1200 x 1100, 5.3 MB, out of core only
     * while other matrices took the rest.) */
    cuk_matrix *a =
        run_get("clear; mode multi; set spread all; A = rand(2100, 1100); x = randn(1100, 1); y = A @ x;", "A");
    cuk_matrix *x = run_get("", "x"), *y = run_get("", "y");
    CHECKF(a && snap_out_of_core(a) && !a->dev, "A (9.2 MB) should stay in host memory");
    CHECKF(y && !snap_out_of_core(y), "y (2100x1) was marked out of core");
    CHECK(run_captured("who"));
    CHECKF(who_says(captured, "A", "host (out of core)") && !who_says(captured, "y", "out of core"), "who: %s",
           captured);
    double err = 0, norm = 0;
    for (int i = 0; a && x && y && mat_host(a) && mat_host(x) && mat_host(y) && i < 2100; i++) {
        double r = 0;
        for (int k = 0; k < 1100; k++)
            r += (double)a->host[(size_t)i * 1100 + k] * x->host[k];
        err += (y->host[i] - r) * (y->host[i] - r), norm += r * r;
    }
    CHECKF(norm > 0 && sqrt(err / norm) < 1e-5, "y = A @ x: relative error %.3g", norm > 0 ? sqrt(err / norm) : -1);
    mat_unref(a), mat_unref(x), mat_unref(y);
    run_get("clear A x y; set spread large;", "none");
}

static void multi_cases(int nshapes, const char *tag)
{
    const char *why;
    if (!mode_available(mode_find("multi"), &why)) {
        check_skip("ops_multi", why);
        return;
    }
    run_source(oc_s, "set spread all;", 15, "test", 1, 1);
    oc_variant = tag;
    for (int i = 0; i < nshapes; i++)
        oc_all("multi", shapes[i][0], shapes[i][1], shapes[i][2]);
    for (size_t i = 0; i < sizeof products / sizeof products[0]; i++)
        oc_matmul_case("multi", products[i][0], products[i][1], products[i][2]);
    /* --quick's shapes are all under two pages, so nothing is split: the
     * shares still get one shape that is, without the product (cuBLAS's
     * kernels under the sanitizers would take minutes) */
    for (size_t g = 0; nshapes <= NSHAPES_QUICK && g < sizeof oc_groups / sizeof oc_groups[0]; g++)
        oc_group_case("multi", g, 1037, 1055);
    oc_variant = NULL;
    variant_reset();
    if (!tag) {
        check_run("gpu_multi_spread", multi_spread);
        check_run("gpu_multi_views", multi_views);
    } else {
        check_run("gpu_multi_spill_where", multi_spill_where);
    }
}

int main(int argc, char **argv)
{
    int quick = 0, sanitizer = 0, fast_mem = 0, fast_gemm = 0, tc = 0, multi = 0, ooc = 0;
    for (int i = 1; i < argc; i++) {
        quick |= !strcmp(argv[i], "--quick");
        sanitizer |= !strcmp(argv[i], "--sanitizer");
        fast_mem |= !strcmp(argv[i], "--fast-mem");
        fast_gemm |= !strcmp(argv[i], "--fast-gemm");
        tc |= !strcmp(argv[i], "--tc");
        multi |= !strcmp(argv[i], "--multi");
        ooc |= !strcmp(argv[i], "--out-of-core");
    }
    if (ooc) /* before mode multi reads it */
        setenv("CUK_MULTI_LIMIT", "0.004", 1);
    const char *why;
    if (!gpu_usable(&why)) {
        char name[96];
        static const char *cases[] = {"gpu_available", "gpu_modes_resolved", "gpu_kernels_of_borrowing_mode", "gpu_bench_variants", "gpu_ops",
                                      "gpu_variants", "gpu_classic_dot", "gpu_classic_reduction_timed",
                                      "gpu_random_bit_identical", "gpu_residency", "gpu_pool_reuse", "gpu_out_of_memory",
                                      "gpu_first_product_warmed", "gpu_bench_end_to_end", "gpu_script_queued",
                                      "gpu_fast_reductions", "gpu_fast_reductions_nan", "gpu_fast_elementwise",
                                      "gpu_fast_unary", "gpu_fast_transposes", "gpu_fast_kernels_ran",
                                      "gpu_multi_views", "gpu_scratch_given_back", "gpu_timing_gate", "gpu_fast_thin",
                                      "gpu_fast_rows_a",
                                      "gpu_fast_streamk", "gpu_fast_thin_beside", "gpu_fast_rows_beside",
                                      "gpu_fast_kgroups", "gpu_fast_kgroups_short", "gpu_fast_edges_beside",
                                      "gpu_fast_cover", "gpu_fast_fold"};
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            snprintf(name, sizeof name, "%s", cases[i]);
            check_skip(name, why);
        }
        return 0;
    }
    oc_s = session_new(NULL);
    mat_set_poison(1);
    check_run("gpu_available", available);
    if (sanitizer)
        fm_nlens = FM_NLENS_SANITIZER;
    if (fast_mem) {
        fast_mem_cases();
        session_free(oc_s);
        return check_exit();
    }
    if (fast_gemm) {
        fast_gemm_cases(quick ? NSHAPES_QUICK : (int)(sizeof shapes / sizeof shapes[0]));
        session_free(oc_s);
        return check_exit();
    }
    if (multi || ooc) {
        multi_cases(quick ? NSHAPES_QUICK : (int)(sizeof shapes / sizeof shapes[0]), ooc ? "ooc" : NULL);
        session_free(oc_s);
        return check_exit();
    }
    if (tc) { /* the tensor-core modes alone: a short run for their kernels */
        tc_cases(quick ? NSHAPES_QUICK : (int)(sizeof shapes / sizeof shapes[0]));
        variant_cases(!quick && !sanitizer, "tf32x3");
        session_free(oc_s);
        return check_exit();
    }
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
    fast_gemm_cases(0);
    tc_cases(nshapes);
    multi_cases(nshapes, NULL);
    variant_cases(!quick && !sanitizer, NULL);
    fast_mem_cases();
    classic_dot();
    check_run("gpu_classic_reduction_timed", classic_reduction_timed);
    check_run("gpu_random_bit_identical", random_bit_identical);
    check_run("gpu_residency", residency);
    check_run("gpu_pool_reuse", pool_reuse);
    check_run("gpu_first_product_warmed", first_product_warmed);
    check_run("gpu_bench_end_to_end", bench_end_to_end);
    check_run("gpu_script_queued", script_queued);
    check_run("gpu_scratch_given_back", scratch_given_back);
    check_run("gpu_timing_gate", gate_holds_marks);
    if (sanitizer)
        check_skip("gpu_out_of_memory", "its cudaMalloc fails on purpose; run without --sanitizer");
    else
        check_run("gpu_out_of_memory", out_of_memory);
    session_free(oc_s);
    return check_exit();
}
