/* perf_mem.c - `make bench`: mode fast's memory-bound kernels against their
 * references, each pair in this one process, turn about (bench/perf.h):
 * every reduction against cublasSdot's bandwidth (bytes each reads), at
 * 2^28 floats, at odd lengths and from an unaligned start; each reduction's
 * cost at 2^20 floats against a bare launch and synchronise (host clock);
 * transpose and the elementwise ops against the device-to-device copy
 * (bytes read + written), also with their operands and result from an
 * unaligned start, and with the operands so and the result aligned; beside
 * those two, the copy itself from such a start (no target: what the
 * library's own copy loses there). Every kernel is reached through the
 * mode table. */
#include <math.h>
#include <time.h>

#include "bench/perf.h"
#include "kernels/backend.h"

#define BIG ((size_t)1 << 28)
#define SMALL ((size_t)1 << 20)
#define FLOOR_REPS 2000

/* The device buffers: x, y, z of BIG + 8 floats each, out one float. */
static float *x, *y, *z, *out;
static const cuk_ops *fast, *cublas;

/* What one measured run does. */
typedef enum { W_REDUCE, W_DOT, W_SDOT, W_COPY, W_TRANSPOSE, W_EWISE, W_UNARY } work_kind;

typedef struct {
    work_kind kind;
    int op;       /* the reduction, elementwise or unary op */
    size_t n;     /* elements (a transpose: rows * cols) */
    size_t off;   /* first element (an unaligned start) */
    int rows, cols;
    int sets;     /* operand sets rotated through, each n floats apart */
    cuk_arg b;    /* the right operand of an elementwise op, if broadcast */
    int out_at_0; /* an elementwise op's result from element 0 (aligned), not off */
} work;

static int run_work(void *ctx, int rep)
{
    const work *w = ctx;
    size_t at = w->off + (size_t)(rep % w->sets) * w->n;
    const float *in = x + at;
    float *res = z + at - (w->out_at_0 ? w->off : 0); /* an elementwise op's or a copy's result */
    switch (w->kind) {
    case W_REDUCE: mode_enter(mode_find("fast")); return fast->reduce[w->op](out, in, w->n);
    case W_DOT: mode_enter(mode_find("fast")); return fast->dot(out, in, y + at, w->n);
    case W_SDOT: mode_enter(mode_find("cublas")); return cublas->dot(out, in, y + at, w->n);
    case W_COPY: return gpu_d2d(res, in, w->n * sizeof(float));
    case W_TRANSPOSE: mode_enter(mode_find("fast")); return fast->transpose(z + at, in, w->rows, w->cols);
    case W_EWISE: {
        cuk_arg a = {in, 0, 0}, b = w->b.bcast ? w->b : (cuk_arg){y + at, 0, 0};
        mode_enter(mode_find("fast"));
        return fast->ewise((cuk_ewop)w->op, res, a, b, w->n);
    }
    case W_UNARY: mode_enter(mode_find("fast")); return fast->unary((cuk_unop)w->op, res, in, w->n);
    }
    return -1;
}

/* GB/s of `bytes` moved in t milliseconds. */
static double gbs(double bytes, perf_time t) { return bytes / (t.median * 1e6); }

static void show(const char *what, double bytes, perf_time t)
{
    printf("%-34s %9.4f ms  [%.4f .. %.4f]  %7.0f GB/s  (%d runs)\n", what, t.median, t.lo, t.hi, gbs(bytes, t),
           t.runs);
}

/* a against b, each moving its bytes: the ratio of their bandwidths. */
static void pair(const char *name, work *a, double abytes, work *b, double bbytes, const char *bname, double target)
{
    perf_time ta, tb;
    char line[96];
    perf_pair(run_work, a, &ta, run_work, b, &tb, PERF_RUNS);
    show(name, abytes, ta);
    snprintf(line, sizeof line, "  %s", bname);
    show(line, bbytes, tb);
    perf_ratio(name, gbs(abytes, ta) / gbs(bbytes, tb), target);
}

static const char *red_name[] = {"sum", "mean", "norm", "min", "max"};

/* Every reduction and dot at n floats from element off, against
 * cublasSdot over 2^28 floats. */
static void reductions_vs_sdot(size_t n, size_t off, const char *tag)
{
    work sdot = {W_SDOT, 0, BIG, 0, 0, 0, 1, {0}, 0};
    char name[64];
    for (int op = 0; op <= CUK_RED_COUNT; op++) {
        int is_dot = op == CUK_RED_COUNT;
        work w = {is_dot ? W_DOT : W_REDUCE, op, n, off, 0, 0, 1, {0}, 0};
        snprintf(name, sizeof name, "%s %s/sdot", is_dot ? "dot" : red_name[op], tag);
        pair(name, &w, (is_dot ? 2.0 : 1.0) * n * 4, &sdot, 2.0 * BIG * 4, "cublasSdot 2^28", 0.95);
    }
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* Each reduction at 2^20 floats, op + gpu_sync on the host clock, turn
 * about with an empty launch + gpu_sync: the launch floor / the op's wall
 * time, which must stay >= 0.5 (the op at most twice the floor). */
static void launch_floor(void)
{
    static double top[FLOOR_REPS], tempty[FLOOR_REPS];
    char name[64];
    for (int op = 0; op <= CUK_RED_COUNT; op++) {
        int is_dot = op == CUK_RED_COUNT;
        work w = {is_dot ? W_DOT : W_REDUCE, op, SMALL, 0, 0, 0, perf_sets(SMALL * 4), {0}, 0};
        for (int r = 0; r < 50; r++)
            if (run_work(&w, r) || gpu_launch_empty() || gpu_sync())
                perf_die("warm-up");
        for (int r = 0; r < FLOOR_REPS; r++) {
            double t0 = now_us();
            if (run_work(&w, r) || gpu_sync())
                perf_die("reduction");
            double t1 = now_us();
            if (gpu_launch_empty() || gpu_sync())
                perf_die("empty launch");
            double t2 = now_us();
            top[r] = t1 - t0;
            tempty[r] = t2 - t1;
        }
        double mo = median_of(top, FLOOR_REPS), me = median_of(tempty, FLOOR_REPS);
        printf("%-34s %7.2f us  [%.2f .. %.2f]   empty launch + sync %6.2f us  [%.2f .. %.2f]\n",
               is_dot ? "dot 2^20 + sync" : red_name[op], mo, top[0], top[FLOOR_REPS - 1], me, tempty[0],
               tempty[FLOOR_REPS - 1]);
        snprintf(name, sizeof name, "launch floor / %s 2^20 (wall)", is_dot ? "dot" : red_name[op]);
        perf_ratio(name, me / mo, 0.5);
    }
}

static void transposes(int rows, int cols, double target)
{
    size_t n = (size_t)rows * cols;
    work t = {W_TRANSPOSE, 0, n, 0, rows, cols, 1, {0}, 0}, c = {W_COPY, 0, n, 0, 0, 0, 1, {0}, 0};
    char name[64];
    snprintf(name, sizeof name, "transpose %dx%d/copy", rows, cols);
    pair(name, &t, 8.0 * n, &c, 8.0 * n, "device copy", target);
}

static void elementwise(size_t n, size_t off, int out_at_0, const char *tag)
{
    work c = {W_COPY, 0, n, 0, 0, 0, 1, {0}, 0};
    work add = {W_EWISE, CUK_EW_ADD, n, off, 0, 0, 1, {0}, out_at_0};
    work twice = {W_EWISE, CUK_EW_MUL, n, off, 0, 0, 1, {NULL, 2.0f, 1}, out_at_0};
    work ex = {W_UNARY, CUK_UN_EXP, n, off, 0, 0, 1, {0}, out_at_0};
    work shifted = {W_COPY, 0, n, off, 0, 0, 1, {0}, out_at_0};
    char name[64];
    if (off != 0) {
        snprintf(name, sizeof name, "copy %s/copy", tag);
        pair(name, &shifted, 8.0 * n, &c, 8.0 * n, "device copy", 0);
    }
    snprintf(name, sizeof name, "x + y %s/copy", tag);
    pair(name, &add, 12.0 * n, &c, 8.0 * n, "device copy", 0.9);
    snprintf(name, sizeof name, "x * 2 %s/copy", tag);
    pair(name, &twice, 8.0 * n, &c, 8.0 * n, "device copy", 0.9);
    snprintf(name, sizeof name, "exp(x) %s/copy", tag);
    pair(name, &ex, 8.0 * n, &c, 8.0 * n, "device copy", 0.9);
}

static void setup(void)
{
    const char *why;
    if (gpu_init() != 0 || !gpu_usable(&why))
        perf_die("no GPU");
    if (!mode_available(mode_find("fast"), &why) || !mode_available(mode_find("cublas"), &why)) {
        fprintf(stderr, "perf_mem: %s\n", why);
        exit(2);
    }
    fast = &mode_find("fast")->ops;
    cublas = &mode_find("cublas")->ops;
    size_t bytes = (BIG + 8) * sizeof(float);
    if (gpu_raw_alloc((void **)&x, bytes) || gpu_raw_alloc((void **)&y, bytes) || gpu_raw_alloc((void **)&z, bytes) ||
        gpu_raw_alloc((void **)&out, sizeof(float)))
        perf_die("device memory");
    /* random operands, never zeros */
    const cuk_ops *naive = &mode_find("naive")->ops;
    if (naive->random(CUK_RAND_UNIFORM, x, BIG + 8, 1, 0) || naive->random(CUK_RAND_UNIFORM, y, BIG + 8, 2, 0) ||
        naive->random(CUK_RAND_NORMAL, z, BIG + 8, 3, 0) || gpu_sync())
        perf_die("random operands");
}

int main(void)
{
    setup();
    printf("# %s, %d SMs; kernel medians of %d runs (event pairs), operands rotated past the L2\n",
           gpu_device()->name, gpu_device()->sms, PERF_RUNS);
    perf_clock_log("start");
    reductions_vs_sdot(BIG, 0, "2^28");
    reductions_vs_sdot(BIG - 1, 0, "2^28-1");
    reductions_vs_sdot(BIG + 3, 0, "2^28+3");
    reductions_vs_sdot(BIG - 1, 1, "2^28-1 from x+1");
    perf_clock_log("after the reductions");
    launch_floor();
    transposes(16384, 16384, 0.9);
    transposes(16383, 16385, 0.8);
    elementwise(BIG, 0, 0, "2^28");
    elementwise(BIG - 1, 1, 0, "2^28-1 from +1");
    elementwise(BIG - 1, 1, 1, "2^28-1 from +1 to +0");
    perf_clock_log("end");
    return 0;
}
