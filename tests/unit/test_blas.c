/* test_blas.c - mode blas gives float32-accurate results whichever BLAS it
 * loads: every operation at ragged shapes, reductions past 2^24 elements
 * (where a float32 accumulator stops growing), products run in several
 * panels, and `info` naming the library. Its own loops run on a pool of
 * CUK_THREADS=5 here, so that lengths split unevenly: every operation at
 * lengths 1, 3, 4097 and 2^20 + 1, random numbers bit for bit those of
 * mode cpu, and sums the same at every run. The Makefile builds this file
 * twice where Debian's reference BLAS is installed: test_blas, on the BLAS
 * mode blas finds by itself (OpenBLAS where installed), and
 * test_blas_reference, which points CUK_BLAS at the reference BLAS. */
#include <dlfcn.h>
#include <string.h>

#include "tests/ops_check.h"

static const int shapes[][3] = {{1, 1, 1}, {1, 77, 1}, {77, 1, 1}, {17, 33, 65}};

/* The library the loader gave is the one this build of the test expects,
 * and its description names its threads. */
static void blas_library_named(void)
{
    const char *d = blas_describe();
    printf("  mode blas uses %s\n", d);
    CHECKF(strstr(d, "thread") != NULL, "no thread count in '%s'", d);
#ifdef CUK_TEST_BLAS_FILE
    CHECKF(strstr(d, "reference BLAS"), "not the reference BLAS: '%s'", d);
#endif
    /* products cut into blocks, one on each of the pool's CUK_THREADS=5
     * (OpenBLAS's own threads above 1e10 FLOPs) */
    CHECKF(strstr(d, "5 threads (cuk's") || strstr(d, "cuk's 5, a call on each"), "not on cuk's 5 threads: '%s'", d);
#ifndef CUK_TEST_BLAS_FILE
    void *openblas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    CHECKF(!openblas || strstr(d, "OpenBLAS"), "OpenBLAS is installed, but mode blas uses '%s'", d);
    if (openblas)
        dlclose(openblas);
#endif
}

/* A 1 x n matrix named name of uniform values in [0, 1): all positive, so
 * that every sum grows and a stalled float accumulator shows. */
static float *positive_row(const char *name, size_t n)
{
    cuk_matrix *m = mat_new_host(1, (int)n);
    if (!m)
        return NULL;
    for (size_t i = 0; i < n; i++)
        m->host[i] = (float)check_uniform();
    ws_set(&oc_s->ws, name, m);
    return m->host;
}

/* sum, mean, norm and dot over 3 x 2^23 elements against float64: the
 * reference BLAS's snrm2 was 1% low here. */
static void blas_reductions_past_2e24(void)
{
    const size_t n = (size_t)3 << 23;
    const float *x = positive_row("X", n), *y = positive_row("Y", n);
    if (!x || !y) {
        CHECKF(0, "out of memory");
        return;
    }
    double sum = 0, sq = 0, dot = 0;
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        sq += (double)x[i] * x[i];
        dot += (double)x[i] * y[i];
    }
    const double want[] = {sum, sum / (double)n, sqrt(sq), dot, sq};
    static const char *src[] = {"R = sum(X);", "R = mean(X);", "R = norm(X);", "R = dot(X, Y);", "R = dot(X, X);"};
    for (int i = 0; i < 5; i++)
        oc_expect(src[i], &want[i], 1, 1, 1e-6);
    ws_remove(&oc_s->ws, "X");
    ws_remove(&oc_s->ws, "Y");
}

/* NaN and inf go through norm and dot as in every other mode. */
static void blas_nonfinite(void)
{
    const double nan = NAN, inf = INFINITY;
    oc_expect("A = [1 nan 3]; R = norm(A);", &nan, 1, 1, 0);
    oc_expect("A = [1 inf 3]; R = norm(A);", &inf, 1, 1, 0);
    oc_expect("A = [1 -inf 3]; R = dot(A, A);", &inf, 1, 1, 0);
    oc_expect("A = [1 nan 3]; R = dot(A, [1 2 3]);", &nan, 1, 1, 0);
}

/* Products of several panels: rows in blocks, and a single row split into
 * blocks of columns (its 2 k n FLOPs are more than the first panel's). */
static void blas_matmul_panels(void)
{
    oc_matmul(300, 400, 500);
    oc_matmul(1, 6000, 5000);
    oc_matmul(3, 9000, 2001);
}

/* Lengths around the pool's split: one element, fewer than a vector, one
 * part, and five uneven parts. */
static const int lengths[] = {1, 3, 4097, (1 << 20) + 1};

/* The matrix named name, or NULL (the case fails). */
static const cuk_matrix *named(const char *name)
{
    const cuk_matrix *m = ws_get(&oc_s->ws, name);
    CHECKF(m && m->host, "no %s", name);
    return m && m->host ? m : NULL;
}

/* rand and randn in mode blas are mode cpu's numbers bit for bit, at an
 * uneven split (the parts are ranges of 4-value blocks). */
static void blas_random_is_cpu_random(void)
{
    static const char *src = "mode cpu; seed 7; P = rand(1, 1048577); Q = randn(1037, 1055);"
                             "mode blas; seed 7; S = rand(1, 1048577); T = randn(1037, 1055);";
    CHECK(run_source(oc_s, src, strlen(src), "test", 1, 1) == RUN_OK);
    const cuk_matrix *p = named("P"), *q = named("Q"), *s = named("S"), *t = named("T");
    if (p && q && s && t) {
        CHECK(!memcmp(p->host, s->host, mat_bytes(p)));
        CHECK(!memcmp(q->host, t->host, mat_bytes(q)));
    }
}

/* The same sum, bit for bit, at every run: a fixed split, parts added in
 * order. */
static void blas_sums_deterministic(void)
{
    const float *x = positive_row("X", ((size_t)3 << 20) + 7), *y = positive_row("Y", ((size_t)3 << 20) + 7);
    float first[3] = {0};
    if (!x || !y) {
        CHECKF(0, "out of memory");
        return;
    }
    for (int run = 0; run < 4; run++) {
        static const char *src[] = {"R = sum(X);", "R = norm(X);", "R = dot(X, Y);"};
        for (int i = 0; i < 3; i++) {
            cuk_matrix *r = oc_run(src[i]);
            if (r && run == 0)
                first[i] = r->host[0];
            else if (r)
                CHECKF(!memcmp(&first[i], r->host, sizeof(float)), "'%s' gave %.9g, then %.9g", src[i], first[i],
                       r->host[0]);
        }
    }
    ws_remove(&oc_s->ws, "X");
    ws_remove(&oc_s->ws, "Y");
}

int main(void)
{
    setenv("CUK_THREADS", "5", 1); /* before mode blas first starts its pool */
#ifdef CUK_TEST_BLAS_FILE
    setenv("CUK_BLAS", CUK_TEST_BLAS_FILE, 1); /* before mode blas first loads a BLAS */
#endif
    oc_s = session_new(NULL);
    mat_set_poison(1);
    RUN(blas_library_named);
    RUN(oc_modes_resolved);
    if (oc_select("blas") != 0)
        return check_exit();
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        oc_all("blas", shapes[i][0], shapes[i][1], shapes[i][2]);
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
        for (size_t g = 0; g < sizeof oc_groups / sizeof oc_groups[0]; g++)
            oc_group_case("blas", g, 1, lengths[i]);
    oc_group_case("blas", 1, 1037, 1055); /* transposes of ragged tiles */
    RUN(blas_random_is_cpu_random);
    RUN(blas_sums_deterministic);
    RUN(blas_reductions_past_2e24);
    RUN(blas_nonfinite);
    RUN(blas_matmul_panels);
    session_free(oc_s);
    return check_exit();
}
