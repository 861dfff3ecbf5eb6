/* test_counters.c - `count STMT`, `set counters` and the GPUs' live state
 * (engine/measure/count.c, kernels/gpu_counters.cu, kernels/gpu_live.c).
 *
 * Everywhere: CUPTI knows every metric count asks for on Ampere, Ada and
 * Hopper (its host half needs no GPU) and says so of a made-up one; count
 * without a GPU, in a host mode, and with a driver that denies the
 * counters (faked: gpu_counters_test_deny) refuses, saying why and how to
 * enable them, and changes nothing; the parser wants a statement; the
 * table and its plain words from made-up counters; NVML absent (CUK_NVML
 * names no file) leaves the live state unknown with its reason and breaks
 * nothing.
 *
 * On a GPU (each case skips by name without one): the uncoalesced naive
 * product's loads take >= 4x the sectors per request of the coalesced one;
 * the unpadded transpose has >= 8x the bank conflicts of the padded one,
 * which has nearly none; y = x + 1 over 2^28 floats moves 2 x 2^30 bytes
 * of DRAM within 5%; tiled's achieved occupancy at tile 32 is below tile
 * 16's; a statement with no kernel, a cuBLAS call, mode multi over two GPUs
 * (its NCCL reductions and products included) and a denied driver each get
 * a sensible answer; counting never changes a result; `why` shows the
 * bytes counted. A watchdog fails the program rather than let a hung
 * replay hold the GPU machine. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "engine/measure/count.h"
#include "engine/lang/timereport.h"
#include "engine/run/run.h"
#include "engine/session/session.h"
#include "engine/session/snapshot.h"
#include "engine/values/matrix.h"
#include "kernels/gpu.h"
#include "tests/capture.h"
#include "tests/check.h"

#define WATCHDOG_S 300
#define LD_SECT_NAME "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
#define LD_REQ_NAME "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"

static cuk_session *S;

/* Run src, what it prints in captured. */
static run_status run(const char *src)
{
    capture_reset();
    return run_source(S, src, strlen(src), "test", 1, 1);
}

/* The scalar variable name's value; NaN if there is none. */
static double scalar(const char *name)
{
    cuk_matrix *m = ws_get(&S->ws, name);
    float v = NAN;
    if (!m || mat_scalar_value(m, &v) != 0)
        cuk_err_clear();
    return v;
}

/* ---- everywhere ---- */

/* The host half of CUPTI on a chip: every metric known, a made-up one not. */
static void metrics_known_on(const char *chip)
{
    char name[64], detail[640];
    int n, unknown, passes;
    const gpu_metric *m = count_metrics(&n);
    snprintf(name, sizeof name, "count_metrics_known_%s", chip);
#ifndef CUK_HAVE_CUDA
    check_skip(name, "cuk was built without CUDA");
    return;
#endif
    int known = gpu_counters_known(chip, m, n, &unknown, &passes, detail, sizeof detail);
    if (known < 0 && strstr(detail, "cannot load")) {
        check_skip(name, detail);
        return;
    }
    check_begin(name);
    CHECKF(known == n, "%d of %d metrics known on %s (first unknown: %s) %s", known, n, chip,
           unknown >= 0 ? m[unknown].name : "none", known < 0 ? detail : "");
    CHECKF(passes >= 1 && passes < 64, "%d passes", passes);
    gpu_metric bad[3] = {m[0], {"dram__bytes_read.sumx", 0}, m[1]};
    known = gpu_counters_known(chip, bad, 3, &unknown, &passes, detail, sizeof detail);
    CHECKF(known == 2 && unknown == 1, "a made-up metric: %d known, unknown at %d", known, unknown);
    check_end();
}

/* A variable's first element, to see that a refused count changed nothing. */
static double first_of(const char *name)
{
    char src[64];
    snprintf(src, sizeof src, "first_ = %s[0, 0]", name);
    return run(src) == RUN_OK ? scalar("first_") : NAN;
}

static void count_refused_without_gpu(void)
{
    if (gpu_usable(NULL)) {
        check_skip("count_refused_without_gpu", "a GPU is here (the GPU cases count on it)");
        return;
    }
    check_begin("count_refused_without_gpu");
    CHECK(run("clear; mode cpu; seed 1; A = rand(3)") == RUN_OK);
    double a0 = first_of("A");
    CHECK(run("count A = A @ A + 1") == RUN_ERROR);
    CHECKF(strstr(captured, "count: there is no GPU here"), "said: %s", captured);
    CHECK(first_of("A") == a0);
    CHECK(run("count B = A + 1") == RUN_ERROR && !ws_get(&S->ws, "B"));
    CHECK(run("set counters on") == RUN_ERROR);
    CHECKF(strstr(captured, "set counters: there is no GPU here"), "said: %s", captured);
    CHECK(run("set counters") == RUN_OK && strstr(captured, "counters: off"));
    check_end();
}

/* A driver that lets only administrators read the counters: count says so
 * and how to allow them, on any machine, and nothing changes. */
static void count_denied(void)
{
    gpu_counters_test_deny(1);
    CHECK(run("clear; mode cpu; seed 2; A = rand(4)") == RUN_OK);
    double a0 = first_of("A");
    CHECK(run("count A = A * 2") == RUN_ERROR);
    CHECKF(strstr(captured, "only administrators") && strstr(captured, "NVreg_RestrictProfilingToAdminUsers=0") &&
               strstr(captured, "INSUFFICIENT_PRIVILEGES"),
           "said: %s", captured);
    CHECK(first_of("A") == a0);
    CHECK(run("set counters on") == RUN_ERROR && strstr(captured, "only administrators"));
    CHECK(run("set counters") == RUN_OK && strstr(captured, "counters: off"));
    CHECK(run("x = 1 + 1") == RUN_OK && scalar("x") == 2); /* nothing else breaks */
    gpu_counters_test_deny(0);
}

static void count_needs_statement(void)
{
    CHECK(run("count") == RUN_ERROR && strstr(captured, "expected a statement to count"));
    CHECK(run("count 1 +") != RUN_OK);
    CHECK(run("count who") == RUN_ERROR); /* a name that is not a variable: the statement's own error */
}

static void count_in_host_mode(void)
{
    if (!gpu_usable(NULL)) {
        check_skip("count_in_host_mode", "no GPU: count_refused_without_gpu covers it");
        return;
    }
    check_begin("count_in_host_mode");
    CHECK(run("clear; mode cpu; A = rand(3); count B = A + 1") == RUN_ERROR);
    CHECKF(strstr(captured, "mode cpu runs on the host"), "said: %s", captured);
    CHECK(!ws_get(&S->ws, "B"));
    check_end();
}

/* CUK_NVML names no file (set in main, before NVML is first asked for):
 * every GPU's state unknown with the loader's reason; the rest works. */
static void live_without_nvml(void)
{
    snap_live l;
    char words[64];
    snap_live_get(&l);
    CHECK(l.n == gpu_count());
    for (int g = 0; g < l.n; g++)
        CHECKF(!l.gpu[g].known && strstr(l.gpu[g].why, "NVML cannot be loaded"), "GPU %d: %s", g,
               l.gpu[g].known ? "known" : l.gpu[g].why);
    CHECK(run("info") == RUN_OK);
    CHECKF(!gpu_usable(NULL) || strstr(captured, "now:      unknown: NVML cannot be loaded"), "info: %s", captured);
    CHECK(run("time on; mode cpu; x = rand(30); time off") == RUN_OK);
    CHECK(strcmp(snap_slow_words(SNAP_SLOW_POWER | SNAP_SLOW_THERMAL, words, sizeof words), "power cap, hot") == 0);
    CHECK(strcmp(snap_slow_words(0, words, sizeof words), "") == 0);
}

/* A made-up kernel row: metrics by name, the rest NaN (as unread). */
static gpu_counter_row fake_row(const char *kernel, double theory, const char *const *names, const double *values,
                                int nvalues)
{
    gpu_counter_row r;
    int n;
    const gpu_metric *m = count_metrics(&n);
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", kernel);
    r.theory_pct = theory;
    for (int i = 0; i < GPU_COUNTERS_METRICS; i++)
        r.value[i] = NAN;
    for (int k = 0; k < nvalues; k++)
        for (int i = 0; i < n; i++)
            if (!strcmp(m[i].name, names[k]))
                r.value[i] = values[k];
    return r;
}

/* Whether what was captured says phrase, however its lines were wrapped:
 * every run of blanks and line ends counts as one space. */
static int says(const char *phrase)
{
    static char flat[sizeof captured];
    size_t n = 0;
    for (const char *p = captured; *p; p++) {
        int blank = *p == ' ' || *p == '\n';
        if (!blank || (n && flat[n - 1] != ' '))
            flat[n++] = blank ? ' ' : *p;
    }
    flat[n] = '\0';
    return strstr(flat, phrase) != NULL;
}

/* Every line of what was captured fits width columns. */
static int fits(int width)
{
    for (const char *p = captured; *p;) {
        size_t n = strcspn(p, "\n");
        int cols = 0;
        for (size_t i = 0; i < n; i++)
            cols += (p[i] & 0xC0) != 0x80;
        if (cols > width)
            return 0;
        p += n + (p[n] == '\n');
    }
    return 1;
}

/* The table and its words from made-up counters: the rules pick what the
 * numbers show, unread metrics read "-", and 80 columns are never passed. */
static void count_table_words(void)
{
    static const char *const names[] = {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
                                        LD_SECT_NAME, LD_REQ_NAME,
                                        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
                                        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                                        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                                        "smsp__inst_executed_op_shared_ld.sum",
                                        "smsp__inst_executed_op_shared_st.sum",
                                        "sm__warps_active.avg.pct_of_peak_sustained_active", "lts__t_sector_hit_rate.pct"};
    const double coalesced[] = {2.1e6, 33554432, 16777216, 2.5e6, 1e6, 4e4, 1e4, 0, 0, 0, 0, 92, 97};
    const double rows_apart[] = {9.8e6, 33554432, 16777216, 16.5e6, 1e6, 3.2e5, 1e4, 0, 0, 0, 0, 90, 96};
    const double starved[] = {2.1e6, 33554432, 16777216, 2.5e6, 1e6, 4e4, 1e4, 0, 0, 0, 0, 40, 97};
    const double conflicted[] = {0.5e6, 67108864, 67108864, 4e5, 1e5, 4e5, 1e5, 3.1e6, 0, 1e5, 1e5, 80, 50};
    timing_cmd c;
    gpu_counter_summary sum = {0};
    gpu_counter_row rows[2];
    memset(&c, 0, sizeof c);
    snprintf(c.text, sizeof c.text, "C = A @ B");
    c.mode = S->mode;
    c.bytes = 50331648; /* 48 MiB */
    sum.passes = 5;
    sum.nrows = 1;

    rows[0] = fake_row("matmul_naive", 100, names, coalesced, 13);
    capture_reset();
    count_show(S, rows, &sum, &c);
    CHECKF(says("count: C = A @ B (mode ") && says(": 1 kernel, each run 5 times"), "heading: %s", captured);
    CHECKF(strstr(captured, "matmul_naive") && strstr(captured, "2.50") && strstr(captured, "92% of 100%"),
           "cells: %s", captured);
    CHECKF(says("DRAM: 48.0 MiB read and written; the least the statement needs, by cuk's model: 48.0 MiB (1.00x)"),
           "DRAM line: %s", captured);
    CHECKF(says("each byte came from memory about once"), "words: %s", captured);
    CHECKF(!strstr(captured, "all kernels") && fits(80), "%s", captured);

    rows[0] = fake_row("matmul_naive_uncoalesced", 100, names, rows_apart, 13);
    capture_reset();
    count_show(S, rows, &sum, &c);
    CHECKF(says("each warp's store in matmul_naive_uncoalesced touched 32.0 sectors"), "words: %s", captured);

    rows[0] = fake_row("transpose_tiled_nopad", NAN, names, conflicted, 13);
    rows[1] = fake_row("matmul_naive", 100, names, coalesced, 13);
    sum.nrows = 2;
    capture_reset();
    count_show(S, rows, &sum, &c);
    CHECKF(says("transpose_tiled_nopad waited 15.5 extra cycles"), "words: %s", captured);
    CHECKF(strstr(captured, "all kernels") && strstr(captured, "2 kernels") && fits(80), "%s", captured);
    CHECKF(strstr(captured, "  -"), "unread metrics should read -: %s", captured);

    rows[0] = fake_row("matmul_tiled<32>", 100, names, starved, 13);
    sum.nrows = 1;
    capture_reset();
    count_show(S, rows, &sum, &c);
    CHECKF(says("kept 40% of the SMs' warp slots busy, of the 100%"), "words: %s", captured);
}

/* A timing the GPU slowed says so, with the reason: `time on` (and its
 * JSON); one it did not slow says nothing of clocks. */
static void slowed_timing_says_so(void)
{
    timing_cmd c;
    memset(&c, 0, sizeof c);
    snprintf(c.text, sizeof c.text, "C = A @ B");
    c.mode = S->mode;
    c.wall_ms = c.kernel_ms = 1.5;
    c.slowed = SNAP_SLOW_POWER;
    capture_reset();
    time_report(&c, 0, 80);
    CHECKF(says("the GPU held its clocks down (power cap): slower than it can run"), "said: %s", captured);
    capture_reset();
    time_report(&c, 1, 80);
    CHECKF(strstr(captured, "\"slowed\":\"power cap\""), "JSON: %s", captured);
    c.slowed = 0;
    capture_reset();
    time_report(&c, 0, 80);
    CHECKF(!strstr(captured, "clocks"), "said: %s", captured);
}

/* ---- on a GPU ---- */

/* The sum of a metric over the last count's rows whose kernel name starts
 * with `kernel` (NULL: every row); NaN if no row matched. */
static double counted_sum(const char *kernel, const char *metric)
{
    int n, nm, at = -1, rows = 0;
    const gpu_metric *m = count_metrics(&nm);
    const gpu_counter_row *r = count_last_rows(&n);
    double sum = 0;
    for (int i = 0; i < nm; i++)
        if (!strcmp(m[i].name, metric))
            at = i;
    for (int i = 0; i < n && at >= 0; i++)
        if (!kernel || !strncmp(r[i].name, kernel, strlen(kernel))) {
            sum += r[i].value[at];
            rows++;
        }
    return rows ? sum : NAN;
}

static int gpu_case(const char *name)
{
    if (gpu_usable(NULL))
        return 1;
    check_skip(name, "no GPU");
    return 0;
}

/* The counted statement's result equals the uncounted one's (the replays
 * put memory back). */
static void same_as_uncounted(const char *setup, const char *expr)
{
    char src[512];
    snprintf(src, sizeof src, "%s; U_ = %s; count V_ = %s; d_ = max(abs(V_ - U_))", setup, expr, expr);
    CHECKF(run(src) == RUN_OK, "%s: %s", src, captured);
    CHECKF(scalar("d_") == 0, "%s: counted and uncounted differ by %g", expr, scalar("d_"));
}


static void count_coalescing(void)
{
    if (!gpu_case("count_coalescing"))
        return;
    check_begin("count_coalescing");
    CHECK(run("clear; mode naive; seed 4; A = rand(1024); B = rand(1024); set coalesce on") == RUN_OK);
    CHECKF(run("count C = A @ B;") == RUN_OK, "%s", captured);
    CHECKF(strstr(captured, "matmul_naive") && strstr(captured, "ld sect/req"), "shown: %s", captured);
    double on = counted_sum("matmul_naive", LD_SECT_NAME) / counted_sum("matmul_naive", LD_REQ_NAME);
    CHECK(run("set coalesce off") == RUN_OK);
    CHECKF(run("count C2 = A @ B;") == RUN_OK, "%s", captured);
    CHECKF(strstr(captured, "matmul_naive_uncoalesced") && says("sectors of 32 bytes"), "shown: %s", captured);
    double off = counted_sum("matmul_naive_uncoalesced", LD_SECT_NAME) / counted_sum("matmul_naive_uncoalesced", LD_REQ_NAME);
    printf("   coalesced %.2f, uncoalesced %.2f sectors per load request\n", on, off);
    CHECKF(on > 0 && off >= 4 * on, "sectors per request: coalesced %.2f, uncoalesced %.2f", on, off);
    same_as_uncounted("set coalesce off", "A @ B");
    run("set coalesce on");
    check_end();
}

static double conflicts_per_request(const char *kernel)
{
    double c = counted_sum(kernel, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum") +
               counted_sum(kernel, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
    double r = counted_sum(kernel, "smsp__inst_executed_op_shared_ld.sum") +
               counted_sum(kernel, "smsp__inst_executed_op_shared_st.sum");
    return r > 0 ? c / r : NAN;
}

static void count_bank_conflicts(void)
{
    if (!gpu_case("count_bank_conflicts"))
        return;
    check_begin("count_bank_conflicts");
    CHECK(run("clear; mode tiled; seed 5; A = rand(4096); set pad on") == RUN_OK);
    CHECKF(run("count T = A';") == RUN_OK, "%s", captured);
    double padded = conflicts_per_request("transpose_tiled");
    CHECK(run("set pad off") == RUN_OK);
    CHECKF(run("count T2 = A';") == RUN_OK, "%s", captured);
    CHECKF(strstr(captured, "transpose_tiled_nopad") && says("same banks"), "shown: %s", captured);
    double unpadded = conflicts_per_request("transpose_tiled_nopad");
    printf("   bank conflicts per shared request: padded %.3f, unpadded %.3f\n", padded, unpadded);
    CHECKF(padded < 0.5 && unpadded > 4 && unpadded >= 8 * padded, "padded %.3f, unpadded %.3f", padded, unpadded);
    same_as_uncounted("set pad off", "A'");
    run("set pad on");
    check_end();
}

static void count_dram_bytes(void)
{
    if (!gpu_case("count_dram_bytes"))
        return;
    check_begin("count_dram_bytes");
    CHECK(run("clear; mode tiled; seed 6; x = rand(1, 268435456);") == RUN_OK);
    CHECKF(run("count y = x + 1;") == RUN_OK, "%s", captured);
    double moved = counted_sum(NULL, "dram__bytes_read.sum") + counted_sum(NULL, "dram__bytes_write.sum");
    double want = 2.0 * 1073741824.0;
    printf("   y = x + 1 over 2^28 floats: %.4g bytes of DRAM, %.4f of 2 x 2^30\n", moved, moved / want);
    CHECKF(fabs(moved / want - 1) <= 0.05, "DRAM moved %.4g bytes, %.3fx 2 x 2^30", moved, moved / want);
    CHECKF(says("DRAM: ") && says("the least the statement needs, by cuk's model: 2.00 GiB"), "shown: %s", captured);
    /* `why` of the same statement, timed, shows the bytes counted */
    CHECK(run("time on; y = x + 1; time off; count y = x + 1; why") == RUN_OK);
    CHECKF(says("measured") && says("when `count` ran it"), "why: %s", captured);
    run("clear x y");
    check_end();
}

/* The theoretical occupancy count showed for the last statement's first
 * kernel named `kernel`; NaN if none. */
static double counted_theory(const char *kernel)
{
    int n;
    const gpu_counter_row *r = count_last_rows(&n);
    for (int i = 0; i < n; i++)
        if (!strncmp(r[i].name, kernel, strlen(kernel)))
            return r[i].theory_pct;
    return NAN;
}

/* Tiles of 32x32 are blocks of 1024 threads: an SM holds whole blocks
 * only, so where it holds 1536 threads (sm_86, sm_89) one block fills two
 * thirds of it and the achieved occupancy must fall with the theoretical;
 * where it holds 2048 (sm_80, sm_90) two blocks fill it as eight of 16x16
 * do, and the two achieved figures must agree. Either way each stays at or
 * under its theoretical figure. */
static void count_occupancy(void)
{
    if (!gpu_case("count_occupancy"))
        return;
    check_begin("count_occupancy");
    CHECK(run("clear; mode tiled; seed 7; A = rand(2048); B = rand(2048); set tile 16") == RUN_OK);
    CHECKF(run("count C = A @ B;") == RUN_OK, "%s", captured);
    double t16 = counted_sum("matmul_tiled<16>", "sm__warps_active.avg.pct_of_peak_sustained_active");
    double th16 = counted_theory("matmul_tiled<16>");
    CHECK(run("set tile 32") == RUN_OK);
    CHECKF(run("count C = A @ B;") == RUN_OK, "%s", captured);
    double t32 = counted_sum("matmul_tiled<32>", "sm__warps_active.avg.pct_of_peak_sustained_active");
    double th32 = counted_theory("matmul_tiled<32>");
    printf("   occupancy achieved (theoretical): tile 16 %.1f%% (%.0f%%), tile 32 %.1f%% (%.0f%%)\n", t16, th16, t32,
           th32);
    CHECKF(t16 > 0 && t32 > 0 && t16 <= th16 + 1 && t32 <= th32 + 1,
           "achieved above theoretical: tile 16 %.1f%% of %.0f%%, tile 32 %.1f%% of %.0f%%", t16, th16, t32, th32);
    if (th32 < th16)
        CHECKF(t32 < t16, "tile 32's blocks fill less of an SM (%.0f%% against %.0f%%) but achieved %.1f%% >= %.1f%%",
               th32, th16, t32, t16);
    else
        CHECKF(fabs(t32 - t16) <= 5, "both tiles can fill an SM (%.0f%%, %.0f%%) but achieved %.1f%% and %.1f%%", th16,
               th32, t16, t32);
    CHECKF(strstr(captured, "% of "), "no theoretical occupancy shown: %s", captured);
    same_as_uncounted("set tile 32", "A @ B");
    /* a ragged product, counted, is still right */
    same_as_uncounted("set tile 16; A = rand(17, 33); B = rand(33, 65)", "A @ B");
    run("set tile 16");
    check_end();
}

static void count_no_kernel(void)
{
    if (!gpu_case("count_no_kernel"))
        return;
    check_begin("count_no_kernel");
    CHECK(run("clear; mode tiled; count x = 3") == RUN_OK);
    CHECKF(strstr(captured, "launched no GPU kernel: nothing to count"), "said: %s", captured);
    CHECKF(strstr(captured, "x = 3") || strstr(captured, "x ="), "the value is still shown: %s", captured);
    CHECK(scalar("x") == 3);
    check_end();
}

static void count_cublas(void)
{
    if (!gpu_case("count_cublas"))
        return;
    check_begin("count_cublas");
    CHECK(run("clear; mode cublas; seed 8; A = rand(512); B = rand(512)") == RUN_OK);
    CHECKF(run("count C = A @ B;") == RUN_OK, "%s", captured);
    CHECKF(strstr(captured, "cublasLtMatmul"), "shown: %s", captured);
    double flops = counted_sum("cublasLtMatmul", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
    printf("   cuBLAS 512^3: %.4g FFMA, %.3f of 512^3\n", flops, flops / (512.0 * 512 * 512));
    CHECKF(isnan(flops) || fabs(flops / (512.0 * 512 * 512) - 1) < 0.05, "%.4g FFMA for 512^3", flops);
    same_as_uncounted("mode cublas", "A @ B");
    check_end();
}

/* Mode multi's memory is mapped across the GPUs, which the replay cannot
 * restore: count refuses before anything runs, says what to do instead,
 * and the session goes on (its matrices, the statement uncounted, and
 * `set counters on` passing multi's statements through uncounted). */
static void count_multi(void)
{
    if (gpu_count() < 2) {
        check_skip("count_multi_two_gpus", gpu_count() ? "fewer than 2 GPUs" : "no GPU");
        return;
    }
    check_begin("count_multi_two_gpus");
    CHECKF(run("clear; mode multi; set spread all; seed 9; x = rand(4096); y = rand(4096)") == RUN_OK, "%s",
           captured);
    CHECKF(run("count z = x + y;") == RUN_ERROR && strstr(captured, "single-GPU mode"), "%s", captured);
    CHECKF(run("z = x + y; s = sum(z); C = x @ y;") == RUN_OK, "after the refusal: %s", captured);
    CHECKF(run("set counters on; w = x + y; set counters off") == RUN_OK, "counters on: %s", captured);
    CHECKF(scalar("s") > 0, "sum(z) = %g", scalar("s"));
    /* while they live, no mode counts; once cleared, the next count runs */
    CHECKF(run("mode tiled; count v = x + y;") == RUN_ERROR && strstr(captured, "clear them"), "%s", captured);
    CHECKF(run("set spread large; clear; x = rand(100); count v = x + 1;") == RUN_OK && says("count: v = x + 1"),
           "after clear: %s", captured);
    run("clear");
    check_end();
}

static void count_denied_on_gpu(void)
{
    if (!gpu_case("count_denied_on_gpu"))
        return;
    check_begin("count_denied_on_gpu");
    CHECK(run("clear; mode tiled; x = rand(100)") == RUN_OK);
    gpu_counters_test_deny(1);
    CHECK(run("count x = x + 1") == RUN_ERROR && strstr(captured, "only administrators"));
    gpu_counters_test_deny(0);
    CHECKF(run("count y = x + 1;") == RUN_OK && says("count: y = x + 1"), "%s", captured);
    check_end();
}

static void counters_every_statement(void)
{
    if (!gpu_case("counters_every_statement"))
        return;
    check_begin("counters_every_statement");
    CHECKF(run("clear; mode tiled; set counters on") == RUN_OK, "%s", captured);
    CHECKF(run("x = rand(1000); y = x * 2;") == RUN_OK && says("count: y = x * 2"), "%s", captured);
    CHECK(run("mode cpu; z = rand(3)") == RUN_OK && !strstr(captured, "count:"));
    CHECK(run("set counters off; mode tiled; w = x * 3;") == RUN_OK && !strstr(captured, "count:"));
    check_end();
}

static void watchdog(int sig)
{
    static const char msg[] = "FAIL test_counters: no answer in 300 s (a replay hung?)\n";
    if (write(1, msg, sizeof msg - 1) < 0)
        _exit(2);
    _exit(1);
}

int main(void)
{
    setenv("CUK_NVML", "/nonexistent/libnvidia-ml.so.1", 1);
    signal(SIGALRM, watchdog);
    alarm(WATCHDOG_S);
    out_set_sink(&sink);
    S = session_new(NULL);
    out_set_sink(&sink);
    metrics_known_on("GH100");
    metrics_known_on("GA100");
    metrics_known_on("AD102");
    count_refused_without_gpu();
    RUN(count_denied);
    RUN(count_needs_statement);
    count_in_host_mode();
    RUN(live_without_nvml);
    RUN(count_table_words);
    RUN(slowed_timing_says_so);
    count_coalescing();
    count_bank_conflicts();
    count_dram_bytes();
    count_occupancy();
    count_no_kernel();
    count_cublas();
    count_multi();
    count_denied_on_gpu();
    counters_every_statement();
    session_free(S);
    out_set_sink(NULL);
    return check_exit();
}
