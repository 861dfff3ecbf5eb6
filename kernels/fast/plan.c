/* plan.c - mode fast's planner: which kernels make c (m x n) = a (m x k) @
 * b (k x n), from the shape, the operands' alignment, the device's facts
 * and the measured rates (rates.c). Each candidate gets an estimate, in
 * multiply-adds of one SM at its full rate, and the cheapest is taken.
 * Pure: no GPU, no state; matmul.cu remembers the plans and launches them.
 * PERF.md (## fast, the planner) says what each rule was measured on. */
#include "kernels/fast/plan.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#define SHAPE(BM, BN, WM, ALL)                                                                                     \
    {BM, BN, WM, ALL, (BM) / (WM) * ((BN) / 64) * 32, FAST_STAGES * FAST_BK * ((BM) + FAST_APAD + (BN)) * sizeof(float)},
const fast_shape fast_shapes[FAST_NSHAPES] = {FAST_SHAPES(SHAPE)};

#define COVER_TN(TN, NAME) TN,
const int fast_cover_tn[FAST_NCOVERS] = {FAST_COVERS(COVER_TN)};

/* What every rule reads: the device, the rates, `set align`. */
typedef struct {
    const fast_device *dev;
    const fast_rates *r;
    int align;
} planner;

/* A tiling's two searches: on the rows as they lie (raw) and read 16
 * bytes at a time (padded), with their estimates. */
typedef struct {
    fast_tiling raw, padded;
    double raw_cost, padded_cost;
} tilings;

static long long cdiv(long long n, int per) { return (n + per - 1) / per; }
static int round4(int x) { return (x + 3) / 4 * 4; }

static int kchunk_for(int k, int slices)
{
    return ((k + slices - 1) / slices + FAST_BK - 1) / FAST_BK * FAST_BK;
}

/* An SM's rate with `warps` warps of the product on it, relative to its
 * full rate: fewer warps keep too few multiply-adds in flight to hide the
 * shared-memory and pipeline latencies. */
static double sm_rate(const planner *P, int warps)
{
    return warps >= P->r->full_warps ? 1.0 : warps / P->r->full_warps;
}

/* Whether shape f's aligned kernels need a's rows aligned too: only the 16
 * x 8 kernel loads a 16 bytes at a time; the others copy it 4 bytes at a
 * time whatever its alignment (tile.cuh, copy_a). */
static int needs_vec_a(const fast_shape *f) { return f->wm == 64; }

/* Whether f runs its aligned kernel on rows of a (va) and b (vb) that are
 * 16-byte aligned or not. */
static int runs_vec(const fast_shape *f, int va, int vb) { return vb && (va || !needs_vec_a(f)); }

/* The data-parallel plan of shape cfg in `slices` k-slices: the busiest
 * SM's blocks (blocks are dealt round the SMs), `resident` at a time,
 * each slowed by the shape's rate and by sm_rate when too few share the
 * SM; each block's work counted a stage deeper for its start and its
 * stores. When split, the partial products' trip through L2 and the
 * summing kernel's walk over the slices, and the whole over its estimate
 * by split_over (vec: a's and b's rows read 16 bytes at a time). */
static double plan_cost(const planner *P, int cfg, int slices, int m, int n, int k, int vec)
{
    const fast_shape *f = &fast_shapes[cfg];
    int sms = P->dev->sms, kchunk = kchunk_for(k, slices);
    slices = kchunk ? (k + kchunk - 1) / kchunk : 1;
    double tiles = (double)((m + f->bm - 1) / f->bm) * ((n + f->bn - 1) / f->bn);
    long long per_sm = (long long)ceil(tiles * slices / sms);
    int warps = f->threads / 32, r = P->dev->resident[FAST_DATA][cfg];
    double block = (double)f->bm * f->bn * (kchunk + FAST_BK) / P->r->shape_rel[cfg];
    long long full = per_sm / r, rest = per_sm % r;
    double work =
        full * r * block / sm_rate(P, r * warps) + (rest ? rest * block / sm_rate(P, (int)rest * warps) : 0);
    double split = slices > 1 ? (2.0 * slices + 1) * m * n * 4 * P->r->l2_per_byte / sms + P->r->slice_walk * slices
                              : 0;
    return work * (slices > 1 ? (vec ? P->r->split_over : P->r->split_over_raw) : 1.0) + split;
}

/* The stream-K plan of shape cfg: `resident` blocks on every SM, each
 * `share` k-steps. -1 where it does not apply: a shape without stream-K,
 * the tiles too many to count (FAST_SK_TILES), the k-steps past an int,
 * or a share under sk_min_share, where a block's start and slots cost
 * about what its arithmetic does. */
static int plan_sk(const planner *P, int cfg, int m, int n, int k, int *grid, int *share)
{
    const fast_shape *f = &fast_shapes[cfg];
    long long tiles = (long long)((m + f->bm - 1) / f->bm) * ((n + f->bn - 1) / f->bn);
    long long all = tiles * ((k + FAST_BK - 1) / FAST_BK);
    long long places = (long long)P->dev->sms * P->dev->resident[FAST_STREAMK][cfg];
    if (!f->all_kinds || places < 1 || tiles > FAST_SK_TILES || all > INT_MAX / 2 || all < 1)
        return -1;
    *share = (int)((all + places - 1) / places);
    *grid = (int)((all + *share - 1) / *share);
    return *share >= P->r->sk_min_share ? 0 : -1;
}

/* The stream-K plan's estimate: an SM's blocks, each its share plus a
 * step of start for each tile it touches, at the shape's rate; each
 * block's two slots written and read through L2; the last segment's walk
 * over a split tile's slots; all over its estimate by sk_over. */
static double plan_cost_sk(const planner *P, int cfg, int m, int n, int k)
{
    const fast_shape *f = &fast_shapes[cfg];
    int grid, share, sms = P->dev->sms;
    if (plan_sk(P, cfg, m, n, k, &grid, &share) != 0)
        return -1;
    int ipt = (k + FAST_BK - 1) / FAST_BK, per_sm = (grid + sms - 1) / sms, warps = f->threads / 32;
    int touched = (share + ipt - 1) / ipt + 1, parts = (ipt + share - 1) / share + 1;
    double work = per_sm * (double)f->bm * f->bn * FAST_BK * (share + touched) / P->r->shape_rel[cfg] /
                  sm_rate(P, per_sm * warps);
    double slots = 2.0 * per_sm * 2 * f->bm * f->bn * 4 * P->r->l2_per_byte;
    return (work + slots + P->r->slice_walk * parts) * P->r->sk_over;
}

/* The k-groups plan's estimate, or -1 where it does not apply: a shape
 * without the kernel, more tiles than the SMs hold at once (a block is an
 * SM's whole tile), or a group's run of k-steps past FAST_FOLD (the
 * kernel does not fold) or under kg_min_run. A block's groups at the
 * shape's rate, each its run plus a step of start, and the sum of their
 * tiles. The groups add their sums in shared memory, with no slots and
 * no second kernel, so a short run costs a group only its start. */
static double plan_cost_kg(const planner *P, int cfg, int m, int n, int k)
{
    const fast_shape *f = &fast_shapes[cfg];
    long long tiles = (long long)((m + f->bm - 1) / f->bm) * ((n + f->bn - 1) / f->bn);
    int run = ((k + FAST_BK - 1) / FAST_BK + FAST_KG - 1) / FAST_KG;
    if (!f->all_kinds || tiles > (long long)P->dev->sms * P->dev->resident[FAST_KGROUPS][cfg] ||
        run * FAST_BK > FAST_FOLD || run < P->r->kg_min_run)
        return -1;
    double work = (double)FAST_KG * f->bm * f->bn * FAST_BK * (run + 1) / P->r->shape_rel[cfg];
    return work + (double)FAST_KG * f->bm * f->bn;
}

/* The tiling with the lowest estimate (into *cost): every shape, every
 * useful slice count (each slice at least 4 stages deep), stream-K and
 * k-groups; va, vb: a's and b's rows are 16-byte aligned. */
static fast_tiling plan_search(const planner *P, int m, int n, int k, int va, int vb, double *cost)
{
    fast_tiling best = {0, FAST_DATA, 1, k, 0, 0, 0};
    double best_cost = -1;
    for (int i = 0; i < FAST_NSHAPES; i++) {
        if (!P->dev->resident[FAST_DATA][i])
            continue;
        for (int s = 1; s <= FAST_MAX_SLICES && (s == 1 || k / s >= 4 * FAST_BK); s++) {
            double c = plan_cost(P, i, s, m, n, k, runs_vec(&fast_shapes[i], va, vb));
            if (best_cost < 0 || c < best_cost)
                best_cost = c, best.shape = i, best.slices = s, best.kind = FAST_DATA;
        }
        double c = plan_cost_sk(P, i, m, n, k);
        if (c >= 0 && (best_cost < 0 || c < best_cost))
            best_cost = c, best.shape = i, best.kind = FAST_STREAMK;
        c = plan_cost_kg(P, i, m, n, k);
        if (c >= 0 && (best_cost < 0 || c < best_cost))
            best_cost = c, best.shape = i, best.kind = FAST_KGROUPS;
    }
    *cost = best_cost;
    best.vec = runs_vec(&fast_shapes[best.shape], va, vb);
    if (best.kind == FAST_STREAMK)
        plan_sk(P, best.shape, m, n, k, &best.grid, &best.share);
    if (best.kind != FAST_DATA) {
        best.slices = 1, best.kchunk = k;
        return best;
    }
    best.kchunk = kchunk_for(k, best.slices);
    best.slices = best.kchunk ? (k + best.kchunk - 1) / best.kchunk : 1;
    if (best.slices < 1)
        best.slices = 1;
    return best;
}

/* The searches for m x n x k with a's and b's rows aligned or not (va,
 * vb; b's rows may be wider than n: the thin kernel takes the last
 * columns), the padded one the raw one where both are aligned already. */
static tilings tilings_for(const planner *P, int m, int n, int k, int va, int vb)
{
    tilings t;
    t.raw = plan_search(P, m, n, k, va, vb, &t.raw_cost);
    if (va && vb)
        t.padded = t.raw, t.padded_cost = t.raw_cost;
    else
        t.padded = plan_search(P, m, n, k, 1, 1, &t.padded_cost);
    return t;
}

static const fast_tiling *route_tiling(const fast_route *r) { return r->padded_chosen ? &r->padded : &r->raw; }

/* A tiling's time over its estimate on rows as they lie: raw_over where b
 * is read a float at a time, raw_over_kg in a k-groups block. */
static double raw_over(const planner *P, const fast_tiling *t)
{
    if (t->vec)
        return 1.0;
    return t->kind == FAST_KGROUPS ? P->r->raw_over_kg : P->r->raw_over;
}

/* A padded copy's launch and start, in units. */
static double copy_start(const planner *P) { return P->r->copy_start_us * P->r->units_per_us; }

/* How m x n x k is made where a's and b's rows are aligned or not (ua,
 * ub): `set align auto` takes the padded copies where `padded` is 1, not
 * where it is 0, and where it is -1 where the estimates (the copies
 * counted) say so. */
static fast_route route_for(const planner *P, int m, int n, int k, int ua, int ub, int padded)
{
    fast_route r;
    tilings t = tilings_for(P, m, n, k, !ua, !ub);
    r.raw = t.raw, r.padded = t.padded, r.raw_cost = t.raw_cost, r.padded_cost = t.padded_cost;
    r.padded_chosen = 0, r.cost = r.raw_cost * raw_over(P, &r.raw);
    r.pad_a = ua && needs_vec_a(&fast_shapes[r.padded.shape]), r.pad_b = ub;
    if (!(r.pad_a || r.pad_b) || P->align == FAST_ALIGN_OFF)
        return r;
    double bytes = 4.0 * ((r.pad_a ? (double)m * (k + round4(k)) : 0) + (r.pad_b ? (double)k * (n + round4(n)) : 0));
    double cost = r.padded_cost + copy_start(P) + P->r->copy_per_byte * bytes;
    if (P->align == FAST_ALIGN_COPY || (padded < 0 ? cost < r.cost : padded))
        r.padded_chosen = 1, r.cost = cost;
    return r;
}

/* The thin kernel's estimate: a read once at the memory's rate, and a
 * launch, scaled by thin_scale (the units count the tiled kernels' full
 * rate, which they reach about half of; a read runs at about the rate
 * counted). */
static double thin_cost(const planner *P, int m, int k)
{
    return P->r->thin_scale * (copy_start(P) + P->r->copy_per_byte * 4.0 * m * k);
}

/* How many of b's last columns (n % 64, at most THIN_MAX) go to the thin
 * kernel, the whole product's route being `whole`, and the route of the
 * rest (*rest), 0 for none: where the whole would run as stream-K and the
 * rest, through copies or not as the whole would, runs the same kernel
 * (the thin kernel then runs early, in the SMs the rest's last blocks
 * leave idle); or where the two products' raw estimates, each product's
 * rows taken as aligned where its k and n are multiples of 4, come under
 * thin_under of the whole one's (the rest then runs raw). */
static int thin_cols(const planner *P, const fast_route *whole, fast_route *rest, int m, int n, int k, int ua, int ub)
{
    int w = n % 64, n0 = n - w;
    double all, part;
    if (w == 0 || w > THIN_MAX)
        return 0;
    *rest = route_for(P, m, n0, k, ua, ub, whole->padded_chosen);
    const fast_tiling *pw = route_tiling(whole), *pr = route_tiling(rest);
    if (P->dev->early && pw->kind == FAST_STREAMK && pr->kind == FAST_STREAMK && pw->shape == pr->shape)
        return w;
    plan_search(P, m, n, k, k % 4 == 0, n % 4 == 0, &all);
    plan_search(P, m, n0, k, k % 4 == 0, n0 % 4 == 0, &part);
    if (part + thin_cost(P, m, k) >= P->r->thin_under * all)
        return 0;
    *rest = route_for(P, m, n0, k, ua, ub, 0);
    return w;
}

/* How many of a's last rows (m % 64, at most ROWS_MAX) go to the rows
 * kernel beside the product of the others, where the product of c's
 * first n0 columns (route `tiled`) runs as stream-K: the first m0 rows
 * then run the same stream-K kernel whatever their estimates say (only
 * its blocks all start at once and let the next kernel start), and the
 * rows kernel keeps up in the `places` its grid leaves free (a place
 * makes about a quarter of what a block of the product does): where R /
 * m0 <= rows_share x places / grid (R: rows_wide). *rest: the first rows'
 * route. */
static int rows_split(const planner *P, const fast_route *tiled, fast_route *rest, int m, int n0, int k, int ua,
                      int ub, int *places)
{
    int h = m % 64, m0 = m - h, grid, share;
    const fast_tiling *pt = route_tiling(tiled);
    if (h == 0 || h > ROWS_MAX || m0 < 64 || !P->dev->early || pt->kind != FAST_STREAMK ||
        plan_sk(P, pt->shape, m0, n0, k, &grid, &share) != 0)
        return 0;
    *places = P->dev->sms * P->dev->resident[FAST_STREAMK][pt->shape] - grid;
    if (*places < 1 || (double)rows_wide(h) * grid > P->r->rows_share * *places * m0)
        return 0;
    *rest = route_for(P, m0, n0, k, ua, ub, tiled->padded_chosen);
    fast_tiling *pr = rest->padded_chosen ? &rest->padded : &rest->raw;
    const fast_shape *f = &fast_shapes[pt->shape];
    pr->shape = pt->shape, pr->kind = FAST_STREAMK, pr->grid = grid, pr->share = share, pr->slices = 1;
    pr->kchunk = k;
    pr->vec = rest->padded_chosen ? runs_vec(f, !ua || rest->pad_a, 1) : runs_vec(f, !ua, !ub);
    return h;
}

/* Whether a's last m % 64 <= FAST_KG_ROWS rows (*h) and b's last n % 64
 * <= FAST_KG_COLS columns (*w) go beside a k-groups product of the rest
 * (route *core): where the rest's plan is k-groups, with a row for each
 * row of its tiles and a column for each column. */
static int kg_edges(const planner *P, fast_route *core, int m, int n, int k, int ua, int ub, int *h, int *w)
{
    *h = m % 64 <= FAST_KG_ROWS ? m % 64 : 0;
    *w = n % 64 <= FAST_KG_COLS ? n % 64 : 0;
    int m0 = m - *h, n0 = n - *w;
    if (!(*h || *w) || m0 < 64 || n0 < 64)
        return 0;
    *core = route_for(P, m0, n0, k, ua, ub, -1);
    const fast_tiling *pc = route_tiling(core);
    const fast_shape *f = &fast_shapes[pc->shape];
    return pc->kind == FAST_KGROUPS && *h <= cdiv(m0, f->bm) && *w <= cdiv(n0, f->bn);
}

/* The SMs a k-groups grid of m0 x n0 in route core's tiles leaves free (a
 * block an SM). */
static int kg_free_sms(const planner *P, const fast_route *core, int m0, int n0)
{
    const fast_shape *f = &fast_shapes[route_tiling(core)->shape];
    return P->dev->sms - (int)(cdiv(m0, f->bm) * cdiv(n0, f->bn));
}

/* Whether kg_edges's h rows go to the rows kernel instead, in the SMs the
 * k-groups grid leaves free (and, as its blocks end, theirs): where their
 * multiply-adds are at most rows_rate of what those SMs would make at
 * full rate in the product's time. The rows kernel then makes c's whole
 * rows, the w columns' part too. */
static int kg_rows_beside(const planner *P, const fast_route *core, int m0, int n0, int k, int h)
{
    int free = kg_free_sms(P, core, m0, n0);
    return h && P->dev->early && free > 0 && (double)rows_wide(h) * n0 * k <= P->r->rows_rate * free * core->cost;
}

/* Whether kg_edges's rows and columns go to the edges kernel, a block in
 * each SM the k-groups grid leaves free: where a block makes them in about
 * the product's time. Its multiply-adds (h x 4 Q of the bottom strip, and
 * 8 columns of its rows of the right strip, counted edge_right times, all
 * of k) at most edge_rate of the product's estimate and kg_edge_cost
 * more, what the edges cost in its blocks; and its shared memory at most
 * EDGE_SMEM. */
static int kg_edges_beside(const planner *P, const fast_route *core, int m0, int n0, int k, int h, int w)
{
    int free = kg_free_sms(P, core, m0, n0), n = n0 + w, q = free > 0 ? edge_quads(n, free) : 0;
    if (!P->dev->early || free < 1 || q > EDGE_THREADS || edge_smem(h ? h : 1, n, k, free) > EDGE_SMEM)
        return 0;
    double work = ((double)h * 4 * q + (w ? P->r->edge_right * 8 * cdiv(m0, free) : 0)) * k;
    return work <= P->r->edge_rate * (1 + P->r->kg_edge_cost) * core->cost;
}

/* Cover i's estimate, as the k-groups plan's (b read a float at a time
 * counted as raw_over_kg), or -1 where it does not apply: the output
 * smaller than a tile (none can move back), more tiles than SMs, no block
 * fits, or a group's run past FAST_FOLD or under sk_min_share (at a short
 * k the cover ran slower than the k-groups or split plans). */
static double cover_cost(const planner *P, int i, int m, int n, int k)
{
    int bn = 8 * fast_cover_tn[i], halves = cover_run_halves(k), run = (halves + 1) / 2;
    long long tiles = cdiv(m, COVER_BM) * cdiv(n, bn);
    if (m < COVER_BM || n < bn || tiles > P->dev->sms || run * FAST_BK > FAST_FOLD || run < P->r->sk_min_share ||
        !P->dev->cover_fits[i])
        return -1;
    double work = (double)COVER_KG * COVER_BM * bn * (COVER_HALF * halves + FAST_BK) / P->r->cover_rel[i];
    return (work + (double)COVER_KG * COVER_BM * bn) * P->r->raw_over_kg;
}

/* The cover that makes m x n x k sooner than `other` (another plan's
 * estimate), or -1. */
static int cover_for(const planner *P, int m, int n, int k, double other)
{
    int best = -1;
    for (int i = 0; i < FAST_NCOVERS; i++) {
        double c = cover_cost(P, i, m, n, k);
        if (c >= 0 && c < other)
            best = i, other = c;
    }
    return best;
}

/* The k-groups plan of c's first m - h rows and n - w columns (route
 * core), and where its edges go: beside it in the edges kernel, the rows
 * in the rows kernel and the columns in its blocks, or both in its
 * blocks. */
static void kg_plan(const planner *P, fast_plan *pl, const fast_route *core, int m, int n, int k, int h, int w)
{
    int m0 = m - h, n0 = n - w;
    pl->how = FAST_TILED, pl->tiled = *core, pl->m0 = m0, pl->n0 = n0;
    if (kg_edges_beside(P, core, m0, n0, k, h, w)) {
        pl->edge_blocks = kg_free_sms(P, core, m0, n0);
    } else if (kg_rows_beside(P, core, m0, n0, k, h)) {
        pl->kg_w = w, pl->rows = h, pl->rows_n = n;
        pl->rows_places = P->r->kg_places * kg_free_sms(P, core, m0, n0);
    } else {
        pl->kg_h = h, pl->kg_w = w;
    }
}

fast_plan fast_plan_for(int m, int n, int k, int ua, int ub, int align, const fast_device *dev,
                        const fast_rates *rates)
{
    planner P = {dev, rates, align};
    fast_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.cover = -1;
    if (m == 0 || n == 0 || n == 1 || m == 1 || n <= THIN_MAX) {
        pl.how = m == 0 || n == 0 ? FAST_NOTHING : n == 1 ? FAST_GEMV_ROWS : m == 1 ? FAST_GEMV_COLS : FAST_THIN;
        return pl;
    }
    int h, w;
    fast_route core, whole, rest, top;
    if (kg_edges(&P, &core, m, n, k, ua, ub, &h, &w)) {
        int beside = kg_edges_beside(&P, &core, m - h, n - w, k, h, w);
        double edges = beside ? rates->edges_beside_cost : rates->edges_blocks_cost;
        if ((pl.cover = cover_for(&P, m, n, k, core.cost * (1 + edges))) >= 0)
            pl.how = FAST_COVER;
        else
            kg_plan(&P, &pl, &core, m, n, k, h, w);
        return pl;
    }
    whole = route_for(&P, m, n, k, ua, ub, -1);
    if ((pl.cover = cover_for(&P, m, n, k, whole.cost)) >= 0) {
        pl.how = FAST_COVER;
        return pl;
    }
    w = thin_cols(&P, &whole, &rest, m, n, k, ua, ub);
    const fast_route *r = w ? &rest : &whole;
    int places = 0;
    h = rows_split(&P, r, &top, m, n - w, k, ua, ub, &places);
    pl.how = FAST_TILED, pl.tiled = h ? top : *r, pl.m0 = m - h, pl.n0 = n - w;
    if (h)
        pl.rows = h, pl.rows_n = n - w, pl.rows_places = places;
    if (w)
        pl.thin = w, pl.thin_early = dev->early && route_tiling(r)->kind == FAST_STREAMK;
    return pl;
}

size_t fast_tiling_scratch(const fast_tiling *t, int m, int n)
{
    const fast_shape *f = &fast_shapes[t->shape];
    if (t->kind == FAST_STREAMK)
        return (size_t)t->grid * 2 * f->bm * f->bn;
    return t->kind == FAST_DATA && t->slices > 1 ? (size_t)t->slices * m * n : 0;
}
