/* test_fast_plan.c - mode fast's planner (kernels/fast/plan.c) without a
 * GPU: for two devices written out here, an H200 (132 SMs, cc 9.0) and a
 * 46-SM cc 8.6 GPU (an RTX 3070's size), the plan of each of 27 shapes is
 * the one the product's host code chose before the planner was a function
 * of its own (its launches recorded for these two devices). Shapes are m x
 * k x n, as PERF.md writes them: a is m x k, b is k x n. With a GPU
 * present, the facts the dispatcher asks of an H200 are the ones written
 * here (SKIP elsewhere). */
#include <stdio.h>
#include <string.h>

#include "kernels/fast/plan.h"
#include "kernels/gpu.h"
#include "tests/check.h"

/* The occupancy API's blocks an SM for each tiled kernel, [kind][shape]
 * (shapes 64x128/32, 128x64/32, 64x64/32, 128x128/64): on the H200, 3
 * blocks of 4 warps at 163-168 registers, 6 of 64x64's 2 warps, 2 of the
 * 16 x 8 kernel at 229 registers, and one k-groups block of 12 warps an
 * SM; the cover's 147 KiB fit. On the 46-SM GPU, 100 KiB of shared memory
 * an SM holds 2 blocks of 37 KiB or 49 KiB, 3 of 25 KiB, and no k-groups
 * or cover block (99 KiB a block); no early launch before cc 9.0. */
static const fast_device h200 = {
    132,
    1,
    {{3, 3, 6, 2}, {3, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}},
    {1},
};
static const fast_device sm46 = {
    46,
    0,
    {{2, 2, 3, 2}, {2, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}},
    {0},
};

/* A plan in one line: how, or the tiled product's shape, kind, slices or
 * grid, aligned kernel or not, padded copies, its part of c, and what runs
 * beside it. */
static void describe(const fast_plan *p, int m, int n, char *s, size_t size)
{
    static const char *how[] = {"nothing", "gemv_rows", "gemv_cols", "thin"};
    static const char *kind[] = {"data", "streamk", "kgroups"};
    if (p->how == FAST_COVER) {
        snprintf(s, size, "cover %d", fast_cover_tn[p->cover]);
        return;
    }
    if (p->how != FAST_TILED) {
        snprintf(s, size, "%s", how[p->how]);
        return;
    }
    const fast_route *r = &p->tiled;
    const fast_tiling *t = r->padded_chosen ? &r->padded : &r->raw;
    const fast_shape *f = &fast_shapes[t->shape];
    int at = snprintf(s, size, "%dx%d/%d %s", f->bm, f->bn, f->wm, kind[t->kind]);
#define ADD(...) at += snprintf(s + at, size - (size_t)at, __VA_ARGS__)
    if (t->kind == FAST_DATA && t->slices > 1)
        ADD(" %d slices of %d", t->slices, t->kchunk);
    if (t->kind == FAST_STREAMK)
        ADD(" %d blocks of %d", t->grid, t->share);
    ADD(" %s", t->vec ? "aligned" : "unaligned");
    if (r->padded_chosen)
        ADD(" padded %s%s", r->pad_a ? "a" : "", r->pad_b ? "b" : "");
    if (p->m0 != m || p->n0 != n)
        ADD(" on %dx%d", p->m0, p->n0);
    if (p->kg_h || p->kg_w)
        ADD("; blocks make %d rows %d cols", p->kg_h, p->kg_w);
    if (p->edge_blocks)
        ADD("; edges in %d blocks", p->edge_blocks);
    if (p->rows)
        ADD("; rows %d of %d in %d places", p->rows, p->rows_n, p->rows_places);
    if (p->thin)
        ADD("; thin %d%s", p->thin, p->thin_early ? " early" : "");
#undef ADD
}

typedef struct {
    const char *name;
    int m, k, n, ua, ub, align;
    const char *h200, *sm46; /* the plan on each device */
} plan_case;

#define A FAST_ALIGN_AUTO
static const plan_case cases[] = {
    {"ragged_1037", 1037, 1055, 1031, 1, 1, A, "cover 11", "64x128/32 streamk 92 blocks of 110 aligned padded b"},
    {"square_4096", 4096, 4096, 4096, 0, 0, A, "128x128/64 data aligned",
     "64x128/32 streamk 92 blocks of 5699 aligned"},
    {"row_1xN", 1, 4096, 4096, 0, 0, A, "gemv_cols", "gemv_cols"},
    {"column_Nx1", 4096, 4096, 1, 0, 1, A, "gemv_rows", "gemv_rows"},
    {"one_1x1x1", 1, 1, 1, 1, 1, A, "gemv_rows", "gemv_rows"},
    {"ragged_17x33x65", 17, 33, 65, 1, 1, A, "64x128/32 data unaligned", "64x128/32 data unaligned"},
    {"thin_n_3", 4099, 4093, 3, 1, 1, A, "thin", "thin"},
    {"thin_n_4_tall", 1000000, 64, 4, 0, 0, A, "thin", "thin"},
    {"thin_cols_67", 4099, 4093, 67, 1, 1, A, "128x64/32 data 8 slices of 512 unaligned on 4099x64; thin 3",
     "128x64/32 data 8 slices of 512 unaligned on 4099x64; thin 3"},
    {"thin_k_16", 4096, 16, 4096, 0, 0, A, "128x128/64 data aligned", "64x128/32 data aligned"},
    {"thin_k_8", 2048, 8, 2048, 0, 0, A, "128x128/64 data aligned", "128x128/64 data aligned"},
    {"long_k", 129, 4099, 257, 1, 1, A, "64x128/32 data 29 slices of 144 unaligned",
     "64x128/32 streamk 91 blocks of 17 unaligned on 129x256; thin 1"},
    {"kgroups_1024", 1024, 1056, 1024, 0, 0, A, "64x128/32 kgroups aligned",
     "64x128/32 streamk 92 blocks of 92 aligned"},
    {"edges_kernel_rows", 1030, 1056, 1024, 0, 0, A, "64x128/32 kgroups aligned on 1024x1024; edges in 4 blocks",
     "64x128/32 streamk 92 blocks of 98 aligned"},
    {"edges_kernel_13", 1037, 1055, 1024, 1, 0, A, "64x128/32 kgroups aligned on 1024x1024; edges in 4 blocks",
     "64x128/32 streamk 92 blocks of 98 aligned"},
    {"edges_in_blocks", 1037, 300, 1031, 0, 1, A,
     "64x128/32 kgroups unaligned on 1024x1024; blocks make 13 rows 7 cols",
     "64x128/32 streamk 91 blocks of 32 aligned padded b"},
    {"rows_beside_streamk", 2061, 300, 2061, 0, 1, A,
     "64x128/32 streamk 383 blocks of 27 aligned padded b on 2048x2061; rows 13 of 2061 in 13 places",
     "64x128/32 streamk 92 blocks of 116 aligned padded b"},
    {"rows_beside_one", 513, 2048, 1500, 0, 0, A,
     "64x128/32 streamk 384 blocks of 32 aligned on 512x1500; rows 1 of 1500 in 12 places",
     "64x128/32 streamk 92 blocks of 151 aligned"},
    {"thin_beside_streamk", 1030, 300, 4103, 0, 1, A,
     "64x128/32 streamk 383 blocks of 27 aligned padded b on 1030x4096; thin 7 early",
     "64x128/32 streamk 92 blocks of 116 aligned padded b"},
    {"streamk_3001", 3001, 2999, 3000, 1, 0, A, "64x128/32 streamk 396 blocks of 536 aligned",
     "64x128/32 streamk 92 blocks of 2306 aligned"},
    {"split_511", 511, 513, 1025, 1, 1, A, "64x128/32 data 3 slices of 176 unaligned",
     "64x128/32 streamk 92 blocks of 26 aligned padded b"},
    {"split_aligned", 130, 4099, 1500, 1, 0, A, "64x128/32 data 7 slices of 592 aligned",
     "64x128/32 streamk 92 blocks of 101 aligned"},
    {"padded_b_4097", 4097, 333, 4097, 1, 1, A, "64x128/32 data aligned padded b", "128x128/64 data aligned padded ab"},
    {"align_copy_999", 999, 1001, 1003, 1, 1, FAST_ALIGN_COPY, "cover 11",
     "64x128/32 streamk 92 blocks of 88 aligned padded b"},
    {"align_off_999", 999, 1001, 1003, 1, 1, FAST_ALIGN_OFF, "64x128/32 kgroups unaligned",
     "64x128/32 streamk 92 blocks of 88 unaligned"},
    {"b_offset_1024", 1024, 1024, 1024, 0, 1, A, "cover 11", "64x128/32 streamk 92 blocks of 90 aligned padded b"},
    {"square_8192", 8192, 8192, 8192, 0, 0, A, "128x128/64 data aligned", "128x128/64 data aligned"},
};
#undef A
#define NCASES (int)(sizeof cases / sizeof cases[0])

static void check_plans(const char *device, const fast_device *dev, int which)
{
    char name[96], got[256];
    for (int i = 0; i < NCASES; i++) {
        const plan_case *c = &cases[i];
        snprintf(name, sizeof name, "fast_plan_%s_%s", device, c->name);
        check_begin(name);
        fast_plan p = fast_plan_for(c->m, c->n, c->k, c->ua, c->ub, c->align, dev, &fast_rates_measured);
        describe(&p, c->m, c->n, got, sizeof got);
        const char *want = which ? c->sm46 : c->h200;
        CHECKF(strcmp(got, want) == 0, "%dx%dx%d: got \"%s\", want \"%s\"", c->m, c->k, c->n, got, want);
        check_end();
    }
}

/* The same question twice gets the same answer: no state in the planner. */
static void fast_plan_is_pure(void)
{
    char a[256], b[256];
    fast_plan p = fast_plan_for(1037, 1031, 1055, 1, 1, FAST_ALIGN_AUTO, &h200, &fast_rates_measured);
    describe(&p, 1037, 1031, a, sizeof a);
    p = fast_plan_for(999, 1003, 1001, 1, 1, FAST_ALIGN_OFF, &sm46, &fast_rates_measured);
    p = fast_plan_for(1037, 1031, 1055, 1, 1, FAST_ALIGN_AUTO, &h200, &fast_rates_measured);
    describe(&p, 1037, 1031, b, sizeof b);
    CHECKF(strcmp(a, b) == 0, "\"%s\" then \"%s\"", a, b);
}

/* On an H200, the facts the dispatcher gathers are the ones the plans
 * above were checked with. */
static void fast_plan_facts_h200(void)
{
    fast_device d;
    CHECKF(fast_device_facts(&d) == 0, "the facts could not be had");
    CHECKF(memcmp(&d, &h200, sizeof d) == 0, "%d SMs, early %d, resident %d %d %d %d / %d / %d / %d, cover %d", d.sms,
           d.early, d.resident[0][0], d.resident[0][1], d.resident[0][2], d.resident[0][3], d.resident[1][0],
           d.resident[2][0], d.resident[3][0], d.cover_fits[0]);
}

int main(void)
{
    check_plans("h200", &h200, 0);
    check_plans("sm46", &sm46, 1);
    RUN(fast_plan_is_pure);
    const char *why = NULL;
    const gpu_info *g = gpu_usable(&why) ? gpu_device() : NULL;
    if (!g)
        check_skip("fast_plan_facts_h200", why ? why : "no GPU");
    else if (g->cc_major != 9 || g->cc_minor != 0 || g->sms != 132)
        check_skip("fast_plan_facts_h200", "the GPU is not an H200 (132 SMs, cc 9.0)");
    else
        RUN(fast_plan_facts_h200);
    return check_exit();
}
