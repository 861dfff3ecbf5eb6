/* fast_gemm.c - gpu_test's cases of mode fast's product: the shapes of
 * each of its plans (long k, thin, rows, stream-K, k-groups, edges,
 * cover), each checked for its kernels and for the same bits twice.
 * Part of gpu_test: tests/gpu/gpu_test.c includes it, so that the whole
 * program is one translation unit (tests/check.h and tests/ops_check.h
 * keep the cases' state and the session in statics). */

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
 * places its grid leaves (kernels/fast/plan.c, kg_rows_beside and
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
 * block makes them in about the product's time (kernels/fast/plan.c,
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
 * edges, or any other plan (kernels/fast/plan.c, cover_for; on 132 SMs
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
