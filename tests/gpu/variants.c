/* variants.c - gpu_test's cases of the lessons' kernel variants (`set
 * tile 8`, ...), each against float64 and for its own kernels.
 * Part of gpu_test: tests/gpu/gpu_test.c includes it, so that the whole
 * program is one translation unit (tests/check.h and tests/ops_check.h
 * keep the cases' state and the session in statics). */

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
