/* session.c - gpu_test's cases of a session on the GPU: random numbers
 * bit-identical with the host, residency, the pool, queued scripts, bench
 * and timing, out of memory, one-time set-up kept out of the clock.
 * Part of gpu_test: tests/gpu/gpu_test.c includes it, so that the whole
 * program is one translation unit (tests/check.h and tests/ops_check.h
 * keep the cases' state and the session in statics). */

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
