/* test_placement.c - where a matrix lives across the GPUs, and when it
 * moves (engine/values/place.h). Without a GPU: the rule as a pure
 * function, and what `time on` and `why` say of a move or of an operand
 * read where it lies. With GPUs: matrices made on the host, on GPU 0 and in
 * row slabs on every GPU, each product run in every GPU mode and checked
 * against float64, with what moved and where `who` says each matrix ended
 * up; the second use of a one-pass op, slices that never move, the mode
 * multi set-up that `info` lists; and, in a child process allowed 16 MiB
 * of each GPU (CUK_MULTI_LIMIT), results the GPUs cannot hold page-locked
 * once, and an operand with no room to spread. Cases that need two GPUs
 * SKIP by name with one, and every GPU case without a GPU.
 *
 *   test_placement                 everything
 *   test_placement --out-of-core   the child's cases alone (the limit set) */
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "engine/lang/timereport.h"
#include "engine/run/run.h"
#include "engine/session/cost.h"
#include "engine/session/session.h"
#include "engine/session/snapshot.h"
#include "engine/values/place.h"
#include "engine/values/timing.h"
#include "kernels/gpu.h"
#include "kernels/variants.h"
#include "tests/capture.h"
#include "tests/check.h"

static cuk_session *S;

/* Wide enough that `why` prints each placement on one line. */
static int columns(void *ud) { return 400; }
static const cuk_frontend front = {.write = capture, .flush = no_flush, .columns = columns};

/* Run src, what it prints in captured; a failure fails the case. */
static int run(const char *src)
{
    capture_reset();
    int ok = run_source(S, src, strlen(src), "test", 1, 1) == RUN_OK;
    CHECKF(ok, "'%s' failed: %s", src, cuk_err_get()->msg);
    return ok;
}

static cuk_matrix *get(const char *name) { return ws_get(&S->ws, name); }

/* ---- the rule, without a GPU ---- */

/* A product moves its operands at once; a one-pass op at the second use;
 * a small slice only when the slices so far add up past the matrix. */
static void rule(void)
{
    const double b = 1e8, r = 1e6;
    CHECK(place_product_reads(b, 1) == b && place_product_reads(b, 128) == b);
    CHECK(place_product_reads(b, 129) == 2 * b && place_product_reads(b, 20000) == 157 * b);
    CHECK(place_decide(b, place_product_reads(b, 20000), 0) == PLACE_MOVE);
    CHECK(place_decide(b, place_product_reads(b, 129), 0) == PLACE_MOVE);
    CHECK(place_decide(b, place_product_reads(b, 1), 0) == PLACE_STAY); /* a matrix times a vector */
    CHECK(place_decide(b, b, 0) == PLACE_STAY && place_decide(b, b, b) == PLACE_MOVE);
    int stays = 0;
    double before = 0;
    while (stays < 1000 && place_decide(b, r, before) == PLACE_STAY)
        stays++, before += r;
    CHECKF(stays == 100, "slices of 1%% stayed %d times, want 100", stays);
}

/* A host mode never moves anything, and records nothing. */
static void host_untouched(void)
{
    if (!run("mode cpu; A = rand(30, 40); B = A @ A'; C = A + A;"))
        return;
    const timing_cmd *c = timing_history(0);
    CHECKF(c && c->nplaces == 0 && c->moved == 0, "%d placements, %zu bytes moved", c ? c->nplaces : -1,
           c ? c->moved : 0);
    CHECK(place_for(get("A"), mode_find("blas"), 1e9) == 0 && get("A")->read_away == 0);
    CHECK(place_gpus(get("A")) == 0);
    run("clear A B C;");
}

/* A record of `C = A @ B` in mode fast that moved A (20000x20000, 1.6 GB)
 * from two GPUs to GPU 0 in 4 ms, read B where it lay, and page-locked
 * 1 MiB. */
static timing_cmd made_record(void)
{
    timing_cmd c;
    memset(&c, 0, sizeof c);
    snprintf(c.text, sizeof c.text, "C = A @ B");
    c.mode = mode_find("fast");
    c.runs = 1;
    c.speedup = -1;
    c.rel_err = NAN;
    c.nops = 1;
    c.ops[0] = (timing_op){"matmul", "20000x20000 @ 20000x20000", c.mode, 1, 1.6e13, 4.8e9, 320.0, 1};
    c.kernel_ms = 320.0, c.wall_ms = 330.0, c.flops = 1.6e13, c.bytes = 4.8e9;
    c.places[0] = (timing_place){20000, 20000, 2, 1, 0, TIMING_PLACE_MOVED, 1.6e9 * 157, 0, 4.0};
    c.places[1] = (timing_place){20000, 20000, 2, 1, 0, TIMING_PLACE_LEFT, 1.6e9, 0, 0};
    c.nplaces = 2;
    c.moved = 1600000000, c.moved_ms = 4.0;
    c.pinned = 1 << 20, c.pinned_ms = 0.5;
    return c;
}

/* `time on`: the move with its bytes, destination, time and rate; the
 * operand read where it lay; the page-locking; the same in JSON. */
static void time_on_text(void)
{
    timing_cmd c = made_record();
    capture_reset();
    time_report(&c, 0, 200);
    CHECKF(strstr(captured, "moved 1.49 GiB to GPU 0 in 4.000 ms (400 GB/s)") &&
               strstr(captured, "1 operand read where it lies (see why)") &&
               strstr(captured, "page-locked 1.00 MiB in 500.0 µs"),
           "time on: %s", captured);
    capture_reset();
    time_report(&c, 1, 200);
    CHECKF(strstr(captured, "\"moved_bytes\":1.6e+09") && strstr(captured, "\"how\":\"moved\"") &&
               strstr(captured, "\"how\":\"left\"") && strstr(captured, "\"pinned_bytes\":1048576"),
           "time on --json: %s", captured);
    c.places[1].how = TIMING_PLACE_MOVED, c.places[1].to = 2; /* two destinations */
    capture_reset();
    time_report(&c, 0, 200);
    CHECKF(strstr(captured, "moved 1.49 GiB between GPUs") && !strstr(captured, "read where"), "time on: %s",
           captured);
}

/* `why`: a line per placement, saying what was done, why, and its cost. */
static void why_text(void)
{
    cost_ceilings ce = {.device = 1, .device_name = "a made-up GPU", .dev_gflops = 60000, .dev_gbs = 4000,
                        .dev_onchip_gbs = 30000, .dev_count = 2, .host_name = "a host", .host_cores = 8,
                        .host_gflops = 1000, .host_core_gflops = 100, .host_gbs = 100};
    timing_cmd c = made_record();
    cost_ceilings_set(&ce);
    timing_file(&c);
    if (run("why")) {
        CHECKF(strstr(captured, "  placement  moved a 20000x20000 operand (1.60 GB) from 2 GPUs to GPU 0 in 4.000 ms "
                                "(400 GB/s), before the kernel: the op reads 251 GB of it, about 157 times its size") &&
                   strstr(captured, "It lives on GPU 0 now (who).") &&
                   strstr(captured, "read a 20000x20000 operand (1.60 GB) where it lies, on 2 GPUs (mode fast works "
                                    "on GPU 0): the op reads 1.60 GB of it, as much as a move would"),
               "why: %s", captured);
    }
    c.places[0].how = TIMING_PLACE_NO_ROOM;
    c.nplaces = 1;
    timing_file(&c);
    if (run("why"))
        CHECKF(strstr(captured, "stays on 2 GPUs: GPU 0 has no room for it. Mode fast reads the other GPUs' rows"),
               "why: %s", captured);
    cost_ceilings_set(NULL);
}

/* ---- with GPUs ---- */

#define M_ 257
#define K_ 4099
#define N_ 259
/* A (257x4099) and B (4099x259) are over 4 MiB each, so that `set spread
 * all` cuts them; products read each of them three times (259 and 257
 * columns and rows of C: three blocks of 128), so they move at once. */

static float *host_a, *host_b;
static double *ref, *scale; /* A @ B in float64, and sum |a||b| */

/* m's values, read from wherever it lives without making a copy there. */
static float *values(cuk_matrix *m)
{
    float *h = malloc(mat_bytes(m));
    if (!h)
        abort();
    if (mat_read(m, 0, mat_numel(m), h) != 0)
        CHECKF(0, "reading a %dx%d matrix: %s", m->rows, m->cols, cuk_err_get()->msg);
    return h;
}

/* The reference of `seed 1; A = rand(257, 4099); B = rand(4099, 259)`, the
 * same matrices in every mode, made once. */
static int reference(void)
{
    if (ref)
        return 0;
    if (!run("mode cpu; seed 1; A = rand(257, 4099); B = rand(4099, 259);"))
        return -1;
    host_a = values(get("A")), host_b = values(get("B"));
    ref = calloc((size_t)M_ * N_, sizeof *ref), scale = calloc((size_t)M_ * N_, sizeof *scale);
    for (size_t i = 0; i < M_; i++)
        for (size_t p = 0; p < K_; p++)
            for (size_t j = 0; j < N_; j++) {
                double t = (double)host_a[i * K_ + p] * host_b[p * N_ + j];
                ref[i * N_ + j] += t;
                scale[i * N_ + j] += fabs(t);
            }
    run("clear A B;");
    return 0;
}

/* R (257x259) against the reference, as a share of sum |a||b|. */
static void product_right(const char *what)
{
    cuk_matrix *r = get("R");
    CHECKF(r && r->rows == M_ && r->cols == N_, "%s: no 257x259 R", what);
    if (!r || r->rows != M_ || r->cols != N_)
        return;
    float *h = values(r);
    double num = 0, den = 0;
    for (size_t i = 0; i < (size_t)M_ * N_; i++) {
        double d = isnan(h[i]) ? INFINITY : h[i] - ref[i];
        num += d * d, den += scale[i] * scale[i];
    }
    CHECKF(sqrt(num / den) < 1e-5, "%s: error %.3g of sum |a||b|", what, sqrt(num / den));
    free(h);
}

/* 1 if `who`'s line for name (in captured) says what. */
static int who_says(const char *name, const char *what)
{
    char key[32];
    snprintf(key, sizeof key, "\n  %s ", name);
    const char *line = strstr(captured, key), *end = line ? strchr(line + 1, '\n') : NULL;
    const char *at = line ? strstr(line, what) : NULL;
    return at && (!end || at < end);
}

/* The placements, how each matrix is made. */
static const struct {
    const char *name, *make; /* the mode that makes A and B */
} origins[] = {{"host", "cpu"}, {"one", "fast"}, {"spread", "multi"}};
static const char *const modes[] = {"naive", "tiled", "fast", "cublas", "tf32x3", "multi"};

static int spreads(const char *mode) { return mode_find(mode)->spread; }

/* The GPUs a matrix of mode `mode` lies on under `set spread all`. */
static int gpus_of(const char *mode) { return spreads(mode) ? gpu_count() : mode_on_device(mode_find(mode)) ? 1 : 0; }

/* A and B made in origin o, R = A @ B run in mode `mode`: R right; A and B
 * where the mode works, moved there (counted) only if they lay elsewhere;
 * `who` says where A is; a second product moves nothing. */
static void origin_mode(int o, const char *mode)
{
    char src[160];
    int from = gpus_of(origins[o].make), to = gpus_of(mode);
    snprintf(src, sizeof src, "mode %s; seed 1; A = rand(257, 4099); B = rand(4099, 259);", origins[o].make);
    if (reference() != 0 || !run(src))
        return;
    CHECKF(place_gpus(get("A")) == from, "A made in %s lies on %d GPUs, want %d", origins[o].make,
           place_gpus(get("A")), from);
    snprintf(src, sizeof src, "mode %s; R = A @ B;", mode);
    if (!run(src))
        return;
    const timing_cmd *c = timing_history(0);
    size_t bytes = mat_bytes(get("A")) + mat_bytes(get("B"));
    int moves = from != 0 && from != to;
    CHECKF(c->moved == (moves ? bytes : 0) && c->nplaces == (moves ? 2 : 0), "%s: %zu bytes moved, %d placements",
           src, c->moved, c->nplaces);
    CHECKF(c->h2d == (from == 0 ? bytes : 0), "%s: %zu bytes uploaded", src, c->h2d);
    for (int i = 0; moves && i < 2; i++)
        CHECKF(c->places[i].how == TIMING_PLACE_MOVED && c->places[i].from == from && c->places[i].to == to &&
                   c->places[i].ms >= 0,
               "%s: placement %d is %d, from %d to %d", src, i, (int)c->places[i].how, c->places[i].from,
               c->places[i].to);
    CHECKF(place_gpus(get("A")) == to && place_gpus(get("B")) == to, "A and B lie on %d and %d GPUs, want %d",
           place_gpus(get("A")), place_gpus(get("B")), to);
    product_right(src);
    if (run("who"))
        /* with one GPU `who` names none */
        CHECKF(to == 1 ? who_says("A", gpu_count() > 1 ? "device: GPU 0" : "device")
                       : who_says("A", "device: rows 0-") && who_says("A", " GPU 1"),
               "who after %s: %s", src, captured);
    if (run("R = A @ B;"))
        CHECKF(timing_history(0)->moved == 0 && timing_history(0)->nplaces == 0, "a second product moved %zu bytes",
               timing_history(0)->moved);
    product_right("a second product");
    run("clear A B R;");
}

/* A one-pass op reads its operands where they lie the first time, moves
 * them the second; the results are exact either way. */
static void second_use(void)
{
    if (!run("mode multi; A = rand(257, 4099); B = rand(257, 4099); mode fast; R = A + B;"))
        return;
    const timing_cmd *c = timing_history(0);
    CHECKF(c->moved == 0 && c->nplaces == 2 && c->places[0].how == TIMING_PLACE_LEFT &&
               c->places[1].how == TIMING_PLACE_LEFT,
           "first use: %zu bytes moved, %d placements", c->moved, c->nplaces);
    CHECK(place_gpus(get("A")) == gpu_count() && get("A")->read_away == (double)mat_bytes(get("A")));
    float *a = values(get("A")), *b = values(get("B")), *r = values(get("R"));
    for (size_t i = 0; i < (size_t)M_ * K_; i++)
        CHECKF(r[i] == a[i] + b[i], "R[%zu] = %g, want %g", i, r[i], a[i] + b[i]);
    free(r);
    if (run("R = A - B;")) {
        c = timing_history(0);
        CHECKF(c->moved == 2 * mat_bytes(get("A")) && c->places[0].how == TIMING_PLACE_MOVED &&
                   c->places[0].read_before == (double)mat_bytes(get("A")),
               "second use: %zu bytes moved", c->moved);
        CHECK(place_gpus(get("A")) == 1 && place_gpus(get("B")) == 1 && get("A")->read_away == 0);
        r = values(get("R"));
        for (size_t i = 0; i < (size_t)M_ * K_; i++)
            CHECKF(r[i] == a[i] - b[i], "R[%zu] = %g, want %g", i, r[i], a[i] - b[i]);
        free(r);
    }
    free(a), free(b);
    run("clear A B R;");
}

/* Slices read a little of a spread matrix: it stays where it lies, until
 * a whole read after them passes its size (a sum), which moves it. */
static void slices_stay(void)
{
    if (!run("mode multi; A = rand(257, 4099); mode fast; R = A[0:3, :]; R = A[100:103, 5:9];"))
        return;
    CHECKF(place_gpus(get("A")) == gpu_count(), "A moved for two slices (%d GPUs)", place_gpus(get("A")));
    CHECKF(fabs(get("A")->read_away - 4.0 * (3 * K_ + 3 * 4)) < 1, "A's reads where it lies: %g", get("A")->read_away);
    float *a = values(get("A")), *r = values(get("R"));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            CHECKF(r[i * 4 + j] == a[(size_t)(100 + i) * K_ + 5 + j], "R[%d,%d] is not A[%d,%d]", i, j, 100 + i, 5 + j);
    free(r);
    if (run("s = sum(A);")) {
        float *s = values(get("s"));
        double sum = 0;
        for (size_t i = 0; i < (size_t)M_ * K_; i++)
            sum += a[i];
        CHECKF(fabs(s[0] - sum) <= 1e-5 * fabs(sum), "sum(A) = %.9g, want %.9g", s[0], sum);
        CHECKF(place_gpus(get("A")) == 1 && timing_history(0)->moved == mat_bytes(get("A")),
               "after the sum A lies on %d GPUs, %zu bytes moved", place_gpus(get("A")), timing_history(0)->moved);
        free(s);
    }
    free(a);
    run("clear A R s;");
}

/* What `time on`, `why`, `who` and the panel's words say of each move. */
static void reports(void)
{
    char where[64];
    if (!run("mode multi; A = rand(257, 4099); B = rand(4099, 259); mode fast; time on; R = A @ B;"))
        return;
    CHECKF(strstr(captured, "; moved ") && strstr(captured, " to GPU 0 in "), "time on: %s", captured);
    if (run("why"))
        CHECKF(strstr(captured, "  placement  moved a 257x4099 operand") && strstr(captured, "It lives on GPU 0 now"),
               "why: %s", captured);
    if (run("time off; who"))
        CHECKF(who_says("A", "device: GPU 0") && who_says("B", "device: GPU 0"), "who: %s", captured);
    CHECKF(!strcmp(snap_where_gpus(get("A"), where, sizeof where), "device (GPU 0)"), "the panel says %s", where);
    if (run("mode multi; time on; R = A @ B;"))
        CHECKF(strstr(captured, "; moved ") && strstr(captured, " to 2 GPUs in "), "time on: %s", captured);
    if (run("time off; who"))
        CHECKF(who_says("A", "device: rows 0-") && who_says("A", " GPU 1"), "who: %s", captured);
    CHECKF(!strcmp(snap_where_gpus(get("A"), where, sizeof where), "device (GPUs 0-1)"), "the panel says %s", where);
    run("clear A B R;");
}

/* The one-time set-up of mode multi, each step named by `info`. */
static void multi_setup_listed(void)
{
    if (!run("mode multi; A = rand(257, 4099); B = rand(4099, 259); R = A @ B; info"))
        return;
    CHECKF(strstr(captured, "mode multi: streams, events and peer access on every GPU") &&
               strstr(captured, "mode multi: each GPU's kernels loaded and cuBLAS handle made") &&
               strstr(captured, "mode multi: first 257x4099x259 product, run once untimed"),
           "info: %s", captured);
    CHECKF(gpu_count() < 2 || (strstr(captured, "mode multi: NCCL communicators between the GPUs") &&
                               strstr(captured, "mode multi: NCCL's first broadcast and all-gather")),
           "info: %s", captured);
    run("clear A B R;");
}

/* ---- out of core: the child, allowed 16 MiB of each GPU ---- */

#define OOC_LIMIT "0.015625"

/* Fill the GPUs with 1024x1024 matrices X0, X1, ... made in multi until
 * one is left in host memory, which is cleared: the next matrix of that
 * size does not fit either. The count made on the GPUs, or -1. */
static int fill_gpus(void)
{
    char src[64];
    for (int i = 0; i < 32; i++) {
        snprintf(src, sizeof src, "X%d = rand(1024, 1024);", i);
        if (!run(src))
            return -1;
        snprintf(src, sizeof src, "X%d", i);
        if (!get(src)->dev) {
            snprintf(src, sizeof src, "clear X%d;", i);
            run(src);
            return i;
        }
    }
    CHECKF(0, "32 matrices of 4 MiB fit in " OOC_LIMIT " GiB a GPU");
    return -1;
}

/* c = a @ b (n x n) at every 97th row against float64, each element
 * within 1e-5 of its sum |a||b|. */
static void product_rows(const float *c, const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i += 97)
        for (size_t j = 0; j < n; j++) {
            double want = 0, sc = 0;
            for (size_t k = 0; k < n; k++) {
                double t = (double)a[i * n + k] * b[k * n + j];
                want += t, sc += fabs(t);
            }
            CHECKF(fabs(c[i * n + j] - want) <= 1e-5 * sc, "[%zu,%zu] = %g, want %g", i, j, c[i * n + j], want);
        }
}

/* A result the GPUs cannot hold is page-locked once: an elementwise op's,
 * its operands on the GPUs (run by the host mode), and a product's, all
 * three in host memory (cuBLASXt). Both right. */
static void ooc_pinned_once(void)
{
    int n = run("clear; mode multi; set spread all;") ? fill_gpus() : -1;
    CHECKF(n >= 2, "%d matrices fit on the GPUs, want 2 or more", n);
    if (n < 2 || !run("R = X0 + X1;"))
        return;
    const timing_cmd *c = timing_history(0);
    cuk_matrix *r = get("R");
    CHECKF(r && snap_out_of_core(r) && c->pinned == mat_bytes(r), "R = X0 + X1 page-locked %zu bytes (R is %zu)",
           c->pinned, r ? mat_bytes(r) : 0);
    float *x0 = values(get("X0")), *x1 = values(get("X1"));
    for (size_t i = 0; r && i < mat_numel(r); i++)
        CHECKF(r->host[i] == x0[i] + x1[i], "R[%zu] = %g, want %g", i, r->host[i], x0[i] + x1[i]);
    free(x0), free(x1);
    if (run("clear R; Y0 = rand(1024, 1024); Y1 = rand(1024, 1024); P = Y0 @ Y1;")) {
        c = timing_history(0);
        cuk_matrix *p = get("P"), *y0 = get("Y0"), *y1 = get("Y1");
        CHECKF(snap_out_of_core(y0) && snap_out_of_core(y1) && p && snap_out_of_core(p) && c->pinned == mat_bytes(p),
               "P = Y0 @ Y1 page-locked %zu bytes", c->pinned);
        if (p && y0->host && y1->host)
            product_rows(p->host, y0->host, y1->host, 1024);
    }
    run("clear P Y0 Y1;");
}

/* A matrix on GPU 0 that multi would spread, with no room left to: read
 * where it lies the first time, then a move due at the second use finds
 * no room; it stays, and the record says so. Both results right. */
static void ooc_no_room(void)
{
    if (!run("mode fast; F = rand(1024, 1024); mode multi; Q = F + X0; Q = F - X0;"))
        return;
    const timing_cmd *c = timing_history(0);
    int seen = 0;
    for (int i = 0; i < c->nplaces && i < TIMING_MAX_PLACES; i++)
        seen |= c->places[i].how == TIMING_PLACE_NO_ROOM && c->places[i].from == 1;
    CHECKF(seen || gpu_count() < 2, "no placement says F had no room: %d placements", c->nplaces);
    CHECKF(place_gpus(get("F")) == 1, "F lies on %d GPUs", place_gpus(get("F")));
    float *f = values(get("F")), *x = values(get("X0")), *q = values(get("Q"));
    for (size_t i = 0; i < 1024 * 1024; i++)
        CHECKF(q[i] == f[i] - x[i], "Q[%zu] = %g, want %g", i, q[i], f[i] - x[i]);
    free(f), free(x), free(q);
    run("clear; set spread large;");
}

/* ---- the cases ---- */

static const char *const ooc_cases[] = {"gpu_placement_ooc_pinned_once", "gpu_placement_ooc_no_room"};

static void skip_ooc(const char *why)
{
    for (size_t i = 0; i < sizeof ooc_cases / sizeof ooc_cases[0]; i++)
        check_skip(ooc_cases[i], why);
}

/* This program again, with the limit, for the out-of-core cases: their
 * lines join this one's, and its failure fails this program. */
static void run_child(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("CUK_MULTI_LIMIT", OOC_LIMIT, 1);
        execl("/proc/self/exe", "test_placement", "--out-of-core", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 127) {
        printf("FAIL gpu_placement_ooc: the child did not run (status %d)\n", status);
        check_failures++;
    } else if (WEXITSTATUS(status) != 0) {
        check_failures++; /* its FAIL lines said why */
    }
}

static void gpu_cases(void)
{
    char name[64];
    int two = gpu_count() >= 2;
    const char *why = NULL;
    for (size_t o = 0; o < sizeof origins / sizeof origins[0]; o++)
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            snprintf(name, sizeof name, "gpu_placement_%s_%s", origins[o].name, modes[m]);
            if (!mode_available(mode_find(modes[m]), &why) || !mode_available(mode_find(origins[o].make), &why))
                check_skip(name, why);
            else if (!two && (spreads(modes[m]) || spreads(origins[o].make)))
                check_skip(name, "one GPU: row slabs need two");
            else {
                check_begin(name);
                origin_mode((int)o, modes[m]);
                check_end();
            }
        }
    if (!mode_available(mode_find("multi"), &why)) {
        check_skip("gpu_placement_second_use", why);
        check_skip("gpu_placement_slices_stay", why);
        check_skip("gpu_placement_reports", why);
        check_skip("gpu_placement_multi_setup_listed", why);
        skip_ooc(why);
        return;
    }
    RUN(multi_setup_listed);
    if (two) {
        RUN(second_use);
        RUN(slices_stay);
        RUN(reports);
    } else {
        check_skip("gpu_placement_second_use", "one GPU: row slabs need two");
        check_skip("gpu_placement_slices_stay", "one GPU: row slabs need two");
        check_skip("gpu_placement_reports", "one GPU: row slabs need two");
    }
    run_child();
}

static void no_gpu_cases(const char *why)
{
    char name[64];
    for (size_t o = 0; o < sizeof origins / sizeof origins[0]; o++)
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            snprintf(name, sizeof name, "gpu_placement_%s_%s", origins[o].name, modes[m]);
            check_skip(name, why);
        }
    check_skip("gpu_placement_multi_setup_listed", why);
    check_skip("gpu_placement_second_use", why);
    check_skip("gpu_placement_slices_stay", why);
    check_skip("gpu_placement_reports", why);
    skip_ooc(why);
}

int main(int argc, char **argv)
{
    int ooc = argc > 1 && !strcmp(argv[1], "--out-of-core");
    const char *why;
    S = session_new(&front);
    mat_set_poison(1);
    if (ooc) {
        check_run(ooc_cases[0], ooc_pinned_once);
        check_run(ooc_cases[1], ooc_no_room);
    } else {
        RUN(rule);
        RUN(host_untouched);
        RUN(time_on_text);
        RUN(why_text);
        if (gpu_usable(&why) && run_source(S, "set spread all;", 15, "test", 1, 1) == RUN_OK)
            gpu_cases();
        else
            no_gpu_cases(gpu_usable(&why) ? cuk_err_get()->msg : why);
    }
    session_free(S);
    free(host_a), free(host_b), free(ref), free(scale);
    return check_exit();
}
