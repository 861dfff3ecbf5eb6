/* test_ops.c - every operation in the host modes (cpu, blas) against a
 * float64 reference at ragged shapes; the two modes agreeing on the large
 * product; rand/randn reproducible and sane; each kind of reduction an
 * entry of the table of its own. */
#include "tests/ops_check.h"

/* Every operation at m x k (the product at m x k x n): 1x1, 1xN, Nx1, ragged. */
static const int shapes[][3] = {{1, 1, 1}, {1, 77, 1}, {77, 1, 1}, {17, 33, 65}};
/* More products: vector times matrix, outer product, matrix times vector. */
static const int products[][3] = {{1, 1, 77}, {1, 40, 13}, {77, 1, 9}, {5, 7, 1}};

static void host_modes(void)
{
    static const char *modes[] = {"cpu", "blas"};
    for (size_t m = 0; m < 2; m++) {
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            oc_all(modes[m], shapes[i][0], shapes[i][1], shapes[i][2]);
        for (size_t i = 0; i < sizeof products / sizeof products[0]; i++)
            oc_matmul_case(modes[m], products[i][0], products[i][1], products[i][2]);
    }
}

static cuk_matrix *run_get(const char *src, const char *name)
{
    CHECKF(run_source(oc_s, src, strlen(src), "test", 1, 1) == RUN_OK, "'%s' failed", src);
    cuk_matrix *m = ws_get(&oc_s->ws, name);
    return m ? mat_ref(m) : NULL;
}

/* The same seeded product in cpu and blas, and both against float64. */
static void cpu_blas_agree(void)
{
    const char *setup = "seed 1; A = rand(1037,1055); B = rand(1055,1031);";
    cuk_matrix *c1 = run_get("mode cpu; seed 1; A = rand(1037,1055); B = rand(1055,1031); C = A @ B;", "C");
    cuk_matrix *c2 = run_get("mode blas; seed 1; A = rand(1037,1055); B = rand(1055,1031); C = A @ B;", "C");
    cuk_matrix *a = run_get(setup, "A"), *b = ws_get(&oc_s->ws, "B");
    if (!c1 || !c2 || !a || !b)
        return;
    size_t n = mat_numel(c1);
    double *ref = oc_ref(n), *c1d = oc_ref(n);
    for (size_t i = 0; i < 1037; i++)
        for (size_t j = 0; j < 1031; j++) {
            double acc = 0;
            for (size_t p = 0; p < 1055; p++)
                acc += (double)a->host[i * 1055 + p] * b->host[p * 1031 + j];
            ref[i * 1031 + j] = acc;
        }
    for (size_t i = 0; i < n; i++)
        c1d[i] = c1->host[i];
    double cpu_vs_blas = check_relerr(c2->host, c1d, n);
    CHECKF(cpu_vs_blas < 1e-5, "cpu and blas differ by %.3g", cpu_vs_blas);
    CHECKF(check_relerr(c1->host, ref, n) < 1e-5, "cpu vs float64: %.3g", check_relerr(c1->host, ref, n));
    CHECKF(check_relerr(c2->host, ref, n) < 1e-5, "blas vs float64: %.3g", check_relerr(c2->host, ref, n));
    printf("  cpu vs blas at 1037x1055x1031: relative difference %.2e\n", cpu_vs_blas);
    free(ref);
    free(c1d);
    mat_unref(c1);
    mat_unref(c2);
    mat_unref(a);
}

static void moments(const float *x, size_t n, double *mean, double *var)
{
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        s2 += (double)x[i] * x[i];
    }
    *mean = s / (double)n;
    *var = s2 / (double)n - *mean * *mean;
}

static void random_numbers(void)
{
    double mean, var;
    cuk_matrix *u = run_get("mode cpu; seed 7; U = rand(300, 200);", "U");
    cuk_matrix *u2 = run_get("mode blas; seed 7; U = rand(300, 200);", "U");
    cuk_matrix *u3 = run_get("U = rand(300, 200);", "U"); /* the next draw differs */
    cuk_matrix *z = run_get("seed 3; Z = randn(400, 250);", "Z");
    if (!u || !u2 || !u3 || !z)
        return;
    CHECK(memcmp(u->host, u2->host, mat_bytes(u)) == 0);
    CHECK(memcmp(u->host, u3->host, mat_bytes(u)) != 0);
    for (size_t i = 0; i < mat_numel(u); i++)
        CHECKF(u->host[i] >= 0 && u->host[i] < 1, "rand gave %g", u->host[i]);
    moments(u->host, mat_numel(u), &mean, &var);
    CHECKF(fabs(mean - 0.5) < 0.005 && fabs(var - 1.0 / 12) < 0.003, "rand: mean %g var %g", mean, var);
    moments(z->host, mat_numel(z), &mean, &var);
    CHECKF(fabs(mean) < 0.01 && fabs(var - 1) < 0.02, "randn: mean %g var %g", mean, var);
    mat_unref(u);
    mat_unref(u2);
    mat_unref(u3);
    mat_unref(z);
}

static void discard(void *ud, out_channel ch, const char *s, size_t n) {}
static void no_flush(void *ud) {}

/* The classic lectures' check of their dot product: a[i] = i, b[i] = 2i give
 * 2 * (N-1) N (2N-1) / 6, at N = 33 x 1024; and arange's edges. */
static void arange_closed_form(void)
{
    static const char *modes[] = {"cpu", "blas"};
    const double n = 33 * 1024, want = 2 * (n - 1) * n * (2 * n - 1) / 6;
    for (int i = 0; i < 2; i++) {
        char src[160];
        snprintf(src, sizeof src, "mode %s; N = 33 * 1024; a = arange(N); b = 2 * a; d = dot(a, b);", modes[i]);
        cuk_matrix *d = run_get(src, "d");
        CHECKF(d && fabs(d->host[0] - want) / want < 1e-6, "%s: dot gave %.9g, want %.9g", modes[i],
               d ? d->host[0] : NAN, want);
        if (d)
            mat_unref(d);
    }
    cuk_matrix *a = run_get("a = arange(1);", "a");
    CHECK(a && a->rows == 1 && a->cols == 1 && a->host[0] == 0);
    if (a)
        mat_unref(a);
    static const char *bad[] = {"arange(0)", "arange(-1)", "arange(2.5)", "arange([1 2])", "arange()",
                                "arange(1, 2)"};
    static const out_sink quiet = {discard, no_flush, NULL}; /* the messages are tests/bad_inputs' business */
    out_set_sink(&quiet);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECKF(run_source(oc_s, bad[i], strlen(bad[i]), "test", 1, 1) == RUN_ERROR, "'%s' did not fail", bad[i]);
    out_set_sink(NULL);
}

/* A row that gives one kind of reduction keeps it and takes the other
 * kinds from its base, as the table resolves (mode_inherit); the kinds
 * are distinct entries of the reference mode. */
static void reductions_by_kind(void)
{
    const cuk_ops *base = &mode_reference()->ops;
    cuk_ops own;
    memset(&own, 0, sizeof own);
    own.reduce[CUK_RED_MAX] = base->reduce[CUK_RED_MIN]; /* any function but base's max */
    mode_inherit(&own, base);
    for (int r = 0; r < CUK_RED_COUNT; r++) {
        CHECKF(own.reduce[r] == (r == CUK_RED_MAX ? base->reduce[CUK_RED_MIN] : base->reduce[r]), "kind %d", r);
        for (int q = 0; q < r; q++)
            CHECKF(base->reduce[q] != base->reduce[r], "kinds %d and %d share an entry", q, r);
    }
    CHECK(own.matmul == base->matmul && own.dot == base->dot && own.copy2d == base->copy2d);
}

int main(void)
{
    oc_s = session_new(NULL);
    mat_set_poison(1);
    RUN(oc_modes_resolved);
    host_modes();
    RUN(cpu_blas_agree);
    RUN(random_numbers);
    RUN(arange_closed_form);
    RUN(reductions_by_kind);
    session_free(oc_s);
    return check_exit();
}
