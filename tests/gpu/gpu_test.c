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
 *   gpu_test --tc          only the tensor-core modes, tf32, tf32x3 and
 *                          ozaki (and the variant `set tc mma`); with the
 *                          others too
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


static cuk_matrix *run_get(const char *src, const char *name)
{
    CHECKF(run_source(oc_s, src, strlen(src), "test", 1, 1) == RUN_OK, "'%s' failed", src);
    cuk_matrix *m = ws_get(&oc_s->ws, name);
    return m ? mat_ref(m) : NULL;
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

static void available(void)
{
    const char *why;
    for (size_t m = 0; m < NGPU_MODES; m++)
        CHECKF(mode_available(mode_find(gpu_modes[m]), &why), "%s unavailable", gpu_modes[m]);
    cuk_session *fresh = session_new(NULL);
    CHECKF(fresh->mode == mode_start(1), "default mode %s", fresh->mode->name);
    session_free(fresh);
}

#include "tests/gpu/variants.c"
#include "tests/gpu/session.c"
#include "tests/gpu/fast_mem.c"
#include "tests/gpu/multi.c"
#include "tests/gpu/tensor_cores.c"
#include "tests/gpu/ozaki.c"
#include "tests/gpu/fast_gemm.c"

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
                                      "gpu_fast_cover", "gpu_fast_fold", "gpu_ozaki"};
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
        ozaki_cases(quick ? NSHAPES_QUICK : (int)(sizeof shapes / sizeof shapes[0]), sanitizer);
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
    ozaki_cases(nshapes, sanitizer);
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
