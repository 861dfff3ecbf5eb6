/* test_snapshot.c - what `who`, `info` and the panel are told about mode
 * multi (engine/session/snapshot.h): a spread matrix's row slabs against a row by
 * row reference, at ragged shapes and random splits of its bytes over the
 * GPUs; "host (out of core)" in `who` and its JSON for exactly the matrices
 * marked so; and, here, the GPU figures as the machine has them (none
 * without a GPU: nothing listed, the link an error). */
#include <string.h>

#include "base/error.h"
#include "engine/run/run.h"
#include "engine/session/session.h"
#include "engine/session/snapshot.h"
#include "kernels/gpu.h"
#include "tests/capture.h"
#include "tests/check.h"

static cuk_session *S;

/* Run src, what it prints in captured. */
static run_status run(const char *src)
{
    capture_reset();
    return run_source(S, src, strlen(src), "test", 1, 1);
}

/* ---- row slabs ---- */

#define MAXP SNAP_MAX_GPUS

/* Parts of a matrix's bytes: part k is bytes start[k] .. start[k] + len[k]
 * - 1 on GPU gpu[k]. */
typedef struct {
    int n;
    int gpu[MAXP];
    size_t start[MAXP], len[MAXP];
} parts;

/* The reference, a row at a time: the GPU of the part holding the row's
 * first byte. */
static int gpu_of_row(const parts *p, int cols, int r)
{
    size_t b = (size_t)r * (size_t)cols * sizeof(float);
    for (int k = 0; k < p->n; k++)
        if (b >= p->start[k] && b < p->start[k] + p->len[k])
            return p->gpu[k];
    return -1;
}

/* The slabs cover rows 0 .. rows-1 once, in order, each row on the GPU
 * the reference says; what was checked goes in the failure message. */
static void slabs_match(const parts *p, int rows, int cols, const char *what)
{
    snap_slabs s;
    memset(&s, 0x5A, sizeof s); /* poisoned: every field must be written */
    snap_slabs_from_parts(&s, rows, cols, p->n, p->gpu, p->start, p->len);
    CHECKF(s.n >= 1 && s.n <= p->n, "%s: %d slabs from %d parts", what, s.n, p->n);
    int next = 0;
    for (int k = 0; k < s.n && k < MAXP; k++) {
        CHECKF(s.first[k] == next && s.count[k] >= 1, "%s: slab %d is rows %d+%d, expected to start at %d", what, k,
               s.first[k], s.count[k], next);
        for (int r = s.first[k]; r < s.first[k] + s.count[k] && r < rows; r += 1 + (s.count[k] > 5000) * 97)
            CHECKF(gpu_of_row(p, cols, r) == s.gpu[k], "%s: row %d in the slab of GPU %d, its first byte on GPU %d",
                   what, r, s.gpu[k], gpu_of_row(p, cols, r));
        /* a slab's edges exactly, also when the rows between are sampled */
        CHECKF(gpu_of_row(p, cols, s.first[k] + s.count[k] - 1) == s.gpu[k], "%s: last row of slab %d", what, k);
        next = s.first[k] + s.count[k];
    }
    CHECKF(next == rows, "%s: the slabs end at row %d of %d", what, next, rows);
}

/* n parts cutting rows x cols floats at random element boundaries (none
 * empty); GPUs numbered out of order, so that a slab must carry the part's
 * GPU and not its place. */
static void random_parts(parts *p, int rows, int cols, int n)
{
    size_t elems = (size_t)rows * (size_t)cols, cut[MAXP + 1];
    n = (size_t)n > elems ? (int)elems : n;
    cut[0] = 0;
    cut[n] = elems;
    for (int k = 1; k < n; k++) { /* increasing, each part at least one element */
        size_t lo = cut[k - 1] + 1, hi = elems - (size_t)(n - k);
        cut[k] = lo + (size_t)(check_uniform() * (double)(hi - lo + 1));
        cut[k] = cut[k] > hi ? hi : cut[k];
    }
    p->n = n;
    for (int k = 0; k < n; k++) {
        p->gpu[k] = (3 * k + 5) % MAXP;
        p->start[k] = cut[k] * sizeof(float);
        p->len[k] = (cut[k + 1] - cut[k]) * sizeof(float);
    }
}

static void slabs_random(void)
{
    static const int shapes[][2] = {{1, 1}, {1, 4097}, {4097, 1}, {17, 33}, {1037, 1055}, {3, 5}, {65, 2}};
    char what[96];
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int n = 1; n <= MAXP; n++)
            for (int rep = 0; rep < 20; rep++) {
                parts p;
                random_parts(&p, shapes[i][0], shapes[i][1], n);
                snprintf(what, sizeof what, "%dx%d in %d parts (try %d)", shapes[i][0], shapes[i][1], p.n, rep);
                slabs_match(&p, shapes[i][0], shapes[i][1], what);
            }
}

/* A row split between two GPUs goes with its first element; a part that
 * holds no row's first element (the middle of one row) gets no slab. */
static void slabs_straddle(void)
{
    parts p = {2, {0, 1}, {0, 28}, {28, 32}}; /* 3x5: elements 0-6 on GPU 0, 7-14 on GPU 1 */
    snap_slabs s;
    snap_slabs_from_parts(&s, 3, 5, p.n, p.gpu, p.start, p.len);
    CHECKF(s.n == 2 && s.gpu[0] == 0 && s.first[0] == 0 && s.count[0] == 2 && s.gpu[1] == 1 && s.first[1] == 2 &&
               s.count[1] == 1,
           "3x5 cut at element 7: %d slabs, the first %d+%d", s.n, s.first[0], s.count[0]);
    parts mid = {3, {0, 1, 2}, {0, 400, 800}, {400, 400, 3200}}; /* 4x250: GPU 1 holds the middle of row 0 */
    snap_slabs_from_parts(&s, 4, 250, mid.n, mid.gpu, mid.start, mid.len);
    CHECKF(s.n == 2 && s.gpu[0] == 0 && s.count[0] == 1 && s.gpu[1] == 2 && s.first[1] == 1 && s.count[1] == 3,
           "a part inside row 0 got a slab: %d slabs", s.n);
    slabs_match(&mid, 4, 250, "4x250 with a part inside a row");
}

/* 100000^2 over two GPUs as kernels/gpu_spread.cu plans it (parts of a
 * multiple of 2 MiB): the row that straddles the cut stays on GPU 0. */
static void slabs_planned(void)
{
    size_t bytes = (size_t)100000 * 100000 * sizeof(float), gran = (size_t)2 << 20;
    size_t per = ((bytes + gran - 1) / gran + 1) / 2 * gran;
    parts p = {2, {0, 1}, {0, per}, {per, bytes - per}};
    snap_slabs s;
    snap_slabs_from_parts(&s, 100000, 100000, p.n, p.gpu, p.start, p.len);
    CHECKF(s.n == 2 && s.first[1] == 50002 && s.count[0] == 50002 && s.count[1] == 49998,
           "100000^2 over 2 GPUs: GPU 1 from row %d (%d rows on GPU 0)", s.first[1], s.count[0]);
    slabs_match(&p, 100000, 100000, "100000x100000 over 2 GPUs");
}

/* ---- who ---- */

/* The line of `who` that names `name`, or "". */
static const char *who_line(const char *name, char *buf, size_t cap)
{
    char head[32];
    snprintf(head, sizeof head, "\n  %-12s ", name);
    const char *p = strstr(captured, head);
    buf[0] = '\0';
    if (p) {
        const char *e = strchr(p + 1, '\n');
        size_t n = e ? (size_t)(e - p - 1) : strlen(p + 1);
        snprintf(buf, cap, "%.*s", (int)n, p + 1);
    }
    return buf;
}

/* A matrix of multi the GPUs could not hold says so; others do not. */
static void who_out_of_core(void)
{
    char a[200], b[200];
    CHECK(run("clear; mode cpu; A = rand(3, 4); B = rand(2, 5)") == RUN_OK);
    cuk_matrix *m = ws_get(&S->ws, "A");
    CHECK(m && m->host && !m->dev && !m->out_of_core && !snap_out_of_core(m));
    if (!m)
        return;
    m->out_of_core = 1; /* what mode multi sets when the GPUs cannot hold it */
    CHECK(snap_out_of_core(m) && !strcmp(snap_where(m), "host (out of core)"));
    CHECK(run("who") == RUN_OK);
    who_line("A", a, sizeof a);
    who_line("B", b, sizeof b);
    CHECKF(strstr(a, "3x4") && strlen(a) > 18 && !strcmp(a + strlen(a) - 18, "host (out of core)"), "A: '%s'", a);
    CHECKF(strstr(b, "2x5") && strlen(b) > 5 && !strcmp(b + strlen(b) - 5, " host"), "B: '%s'", b);
    S->json = 1;
    CHECK(run("who") == RUN_OK);
    S->json = 0;
    static const char
        a_row[] = "{\"name\":\"A\",\"rows\":3,\"cols\":4,\"bytes\":48,\"where\":\"host\",\"out_of_core\":true,"
                  "\"gpus\":0}",
        b_row[] = "{\"name\":\"B\",\"rows\":2,\"cols\":5,\"bytes\":40,\"where\":\"host\",\"out_of_core\":false,"
                  "\"gpus\":0}";
    CHECKF(strstr(captured, a_row) && strstr(captured, b_row), "who --json: %s", captured);
    snap_slabs s;
    snap_slabs_of(m, &s);
    CHECKF(s.n == 0, "a host matrix has %d slabs", s.n);
    m->out_of_core = 0;
}

/* ---- the machine's GPUs ---- */

/* Without a GPU nothing is listed and a link is an error; with one, every
 * visible GPU, GPU 0's matrices counting the device pool's. */
static void gpus_as_here(void)
{
    snap_gpus g;
    snap_memory m;
    snap_link l;
    memset(&g, 0x5A, sizeof g);
    snap_gpus_get(&g);
    snap_memory_get(&m);
    CHECK(run("info") == RUN_OK);
    if (!m.device) {
        CHECKF(g.n == 0 && g.why && *g.why, "no GPU, yet %d listed", g.n);
        CHECK(m.spread_held == 0 && m.spread_in_use == 0 && m.spread_gpus == 0);
        CHECKF(!strstr(captured, "GPUs:") && strstr(captured, "device:   none ("), "info: %s", captured);
        CHECK(snap_link_get(0, 1, &l) == -1 && cuk_err_get()->msg[0]);
        cuk_err_clear();
        return;
    }
    CHECKF(g.n == gpu_count() && g.n >= 1, "%d GPUs listed of %d", g.n, gpu_count());
    CHECK(g.n >= 1 && g.gpu[0].matrices >= m.pool_in_use && g.gpu[0].total > 0 && g.gpu[0].free <= g.gpu[0].total);
    const char *why, *head = "  GPU 1:  ";
    if (g.n == 1 && mode_available(mode_find("multi"), &why))
        head = "GPUs:     1 visible: mode multi runs on it alone";
    else if (g.n == 1)
        head = "GPUs:     1 visible; mode multi is unavailable: ";
    CHECKF(strstr(captured, head), "info: %s", captured);
    if (g.n >= 2)
        CHECKF(strstr(captured, "GPU 0 <-> GPU 1: ") && strstr(captured, " GB/s 1->0"), "info: %s", captured);
}

int main(void)
{
    out_set_sink(&sink);
    S = session_new(NULL);
    out_set_sink(&sink); /* session_new set the plain sink */
    RUN(slabs_random);
    RUN(slabs_straddle);
    RUN(slabs_planned);
    RUN(who_out_of_core);
    RUN(gpus_as_here);
    session_free(S);
    out_set_sink(NULL);
    return check_exit();
}
