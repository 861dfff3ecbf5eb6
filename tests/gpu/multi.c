/* multi.c - gpu_test's cases of mode multi: spread matrices' views, where
 * each row lies, what `who` and the panel say, and out-of-core.
 * Part of gpu_test: tests/gpu/gpu_test.c includes it, so that the whole
 * program is one translation unit (tests/check.h and tests/ops_check.h
 * keep the cases' state and the session in statics). */

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
