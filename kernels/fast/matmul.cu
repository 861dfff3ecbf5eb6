/* matmul.cu - mode fast's matrix product: which kernels make a product of
 * a given shape (the plans and their estimates), and the launches. */
#include "kernels/fast/fast.cuh"
#include "kernels/fast/tile.cuh"
#include "kernels/variants.h"

#include <limits.h>
#include <math.h>

/* The entry point of mode fast (modes.c). */
extern "C" cuk_matmul_fn fast_matmul;

/* --- the configurations and the choice among them ------------------------------- */

#define FAST_SMEM(BM, BN) (FAST_STAGES * sizeof(fast_stage<BM, BN>))

/* The tile shapes (block BM x BN, warp WM x 64). rel is the rate of a full
 * SM running the shape relative to 64 x 128 / 32, from the 4096^3 times on
 * the H100 (PERF.md); 128 x 128 / 64 (16 x 8 outputs a thread, 4 warps, 2
 * blocks an SM) is the fastest. 64 x 64's, 0.97 from v4's sweep, is 0.90
 * since v10: its one-slice plan ran 3001x2999x3000 7% slower than 64 x
 * 128's stream-K, which the estimates put 1% behind it. Each shape has
 * data-parallel kernels, and 64 x 128 / 32 stream-K and k-groups ones
 * (with the edges or not), for 16-byte aligned rows (runs_vec) or
 * copying every float on its own. */
typedef struct {
    int bm, bn, wm, threads;
    size_t smem;
    double rel;
} fast_config;

/* Whether configuration f's "aligned" kernels need a's rows aligned too:
 * only the 16 x 8 kernel loads a 16 bytes at a time; the others copy it
 * 4 bytes at a time whatever its alignment (copy_a). */
static int needs_vec_a(const fast_config *f) { return f->wm == 64; }
/* Whether f runs its aligned kernel on rows of a (va) and b (vb) that are
 * 16-byte aligned or not. */
static int runs_vec(const fast_config *f, int va, int vb) { return vb && (va || !needs_vec_a(f)); }

#define FAST_SMEM(BM, BN) (FAST_STAGES * sizeof(fast_stage<BM, BN>))
#define FAST_CONFIG(BM, BN, WM, REL) {BM, BN, WM, FAST_THREADS(BM, BN, WM), FAST_SMEM(BM, BN), REL}
static const fast_config configs[] = {
    FAST_CONFIG(64, 128, 32, 1.00),
    FAST_CONFIG(128, 64, 32, 0.92),
    FAST_CONFIG(64, 64, 32, 0.90),
    FAST_CONFIG(128, 128, 64, 1.03),
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))
#define FAST_MAX_SLICES 256

/* How a product runs: a configuration, and its kind: k-slices (slices,
 * kchunk), stream-K (`grid` blocks of `share` k-steps) or k-groups (a
 * block of FAST_KG warp groups a tile); and whether it runs the
 * configuration's aligned kernels (runs_vec). */
typedef struct {
    const fast_config *cfg;
    int slices, kchunk;
    int kind, grid, share;
    int vec;
} fast_plan;

/* Configuration i's kernel of `kind`, aligned (vec) or not; fn NULL where
 * it has none (the k-groups kernels are 64 x 128's). */
static fast_kernel config_kernel(int i, int kind, int vec)
{
    static const fast_kernel none = {NULL, NULL};
    if (kind < FAST_KGROUPS)
        return fast_tile_kernels[i][kind][vec];
    return i == 0 ? fast_kg_kernels[kind == FAST_KGEDGES][vec] : none;
}

/* A block of configuration f run as `kind`: its threads and shared memory
 * (a k-groups block is FAST_KG of the others). */
static int kind_threads(const fast_config *f, int kind)
{
    return kind >= FAST_KGROUPS ? FAST_KG * f->threads : f->threads;
}
static size_t kind_smem(const fast_config *f, int kind) { return kind >= FAST_KGROUPS ? FAST_KG * f->smem : f->smem; }

/* Blocks of each configuration an SM holds at once (occupancy API), for
 * the estimates, [kind]; set by configs_ready. */
static int resident[FAST_KINDS][NCONFIGS];

/* Whether a block of `kernel` with `smem` bytes of dynamic shared memory
 * fits this GPU's opt-in limit: 1, 0, or -1 with the error set. */
static int smem_fits(const void *kernel, size_t smem)
{
    int device, optin;
    cudaFuncAttributes at;
    GPU_CHECK(cudaGetDevice(&device));
    GPU_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    GPU_CHECK(cudaFuncGetAttributes(&at, kernel));
    return at.sharedSizeBytes + smem <= (size_t)optin;
}

static int covers_ready(void);

/* Allow each kernel its dynamic shared memory past the 48 KB default, and
 * learn how many blocks of it an SM holds (0: none fits, the plans leave
 * it), and which covers fit (covers_ready); once per process. */
static int configs_ready(void)
{
    static int done;
    if (done)
        return 0;
    for (int i = 0; i < NCONFIGS; i++)
        for (int kind = 0; kind < FAST_KINDS; kind++) {
            const fast_config *c = &configs[i];
            resident[kind][i] = 0;
            if (!config_kernel(i, kind, 1).fn)
                continue;
            int fits = smem_fits((const void *)config_kernel(i, kind, 1).fn, kind_smem(c, kind));
            if (fits < 0)
                return -1;
            if (!fits)
                continue; /* a k-groups block's 115 KB: not on GPUs of 99 KB a block (cc 8.6, 8.9) or less */
            for (int v = 0; v < 2; v++) {
                const void *f = (const void *)config_kernel(i, kind, v).fn;
                if (gpu_allow_smem(f, kind_smem(c, kind)) != 0)
                    return -1;
                GPU_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout,
                                               cudaSharedmemCarveoutMaxShared));
            }
            resident[kind][i] =
                gpu_blocks_per_sm((const void *)config_kernel(i, kind, 1).fn, kind_threads(c, kind), kind_smem(c, kind));
            if (resident[kind][i] < 0)
                return -1;
        }
    if (covers_ready() != 0)
        return -1;
    done = 1;
    return 0;
}

static int kchunk_for(int k, int slices)
{
    return ((k + slices - 1) / slices + FAST_BK - 1) / FAST_BK * FAST_BK;
}

/* An SM's rate with `warps` warps of the product on it, relative to its
 * rate with 8 or more: fewer warps keep too few multiply-adds in flight to
 * hide the shared-memory and pipeline latencies. 4099x4093x67 in 65 blocks
 * of 64 x 128 (4 warps, one block an SM) ran at 43% of the SM's peak, the
 * 128 x 128 kernel 63% with 8 warps an SM at 2048^3; warps / 8 fitted the
 * whole sweep best (PERF.md, v4). */
static double sm_rate(int warps) { return warps >= 8 ? 1.0 : warps / 8.0; }

/* Split and stream-K plans measured over their estimates, against plans
 * of one slice (PERF.md, v5: a sweep of 14 shapes, every plan timed):
 * k-slices 0-8% with 16-byte rows (1000^3, 768x1024x768) and 5-25% with
 * unaligned ones (1009, 1025, 1037, 511x513x1025, 4099x4093x67,
 * 129x257x4099: the summing launch after a slower kernel), stream-K 0-5%
 * (2500x700x1300, 2048^3, 4097x333x4097, 3001^3). */
static double split_over(int vec) { return vec ? 1.08 : 1.18; }
#define FAST_SK_OVER 1.03

/* Estimated time of a plan, in multiply-adds of one SM at full rate: the
 * busiest SM's blocks (blocks are dealt round the SMs), `resident` at a
 * time, each slowed by the shape's rel and by sm_rate when too few share
 * the SM (the last of them alone, say); each block's work counted 16 k
 * deeper for its start and its stores. When split, the partial products'
 * trip through L2 (written and read once, about 2 multiply-add times a
 * byte per SM's share) and the summing kernel's walk over the slices
 * (about 0.12 us a slice). Constants fitted to a sweep of every shape and
 * slice count at 11 shapes on the H100 (PERF.md); split plans scaled by
 * split_over (vec: rows of a and b 16-byte aligned). */
static double plan_cost(int cfg, int slices, int m, int n, int k, int sms, int vec)
{
    const fast_config *f = &configs[cfg];
    int kchunk = kchunk_for(k, slices);
    slices = kchunk ? (k + kchunk - 1) / kchunk : 1;
    double tiles = (double)((m + f->bm - 1) / f->bm) * ((n + f->bn - 1) / f->bn);
    long long per_sm = (long long)ceil(tiles * slices / sms);
    int warps = f->threads / 32, r = resident[FAST_DATA][cfg];
    double block = (double)f->bm * f->bn * (kchunk + FAST_BK) / f->rel;
    long long full = per_sm / r, rest = per_sm % r;
    double work = full * r * block / sm_rate(r * warps) + (rest ? rest * block / sm_rate((int)rest * warps) : 0);
    double split = slices > 1 ? (2.0 * slices + 1) * m * n * 4 * 2 / sms + 3e4 * slices : 0;
    return work * (slices > 1 ? split_over(vec) : 1.0) + split;
}

/* The stream-K plan of configuration cfg: `resident` blocks on every SM,
 * each `share` k-steps. -1 where it does not apply: a shape without
 * stream-K, the tiles too many to count (sk_arrived), the k-steps past an
 * int, or a share under FAST_SK_MIN_SHARE steps, where a block's pipeline
 * start and its slots cost about what its arithmetic does (the shapes
 * where stream-K won in PERF.md's sweep had shares of 21 to 73 steps; it
 * lost at 5 and 6). */
#define FAST_SK_MIN_SHARE 16
static int plan_sk(int cfg, int m, int n, int k, int sms, int *grid, int *share)
{
    const fast_config *f = &configs[cfg];
    long long tiles = (long long)((m + f->bm - 1) / f->bm) * ((n + f->bn - 1) / f->bn);
    long long all = tiles * ((k + FAST_BK - 1) / FAST_BK);
    if (!config_kernel(cfg, FAST_STREAMK, 1).fn || tiles > FAST_SK_TILES || all > INT_MAX / 2 || all < 1)
        return -1;
    long long places = (long long)sms * resident[FAST_STREAMK][cfg];
    *share = (int)((all + places - 1) / places);
    *grid = (int)((all + *share - 1) / *share);
    return *share >= FAST_SK_MIN_SHARE ? 0 : -1;
}

/* Estimated time of the stream-K plan, in plan_cost's units: an SM's
 * blocks, each its share plus a step of start for each tile it touches,
 * at the shape's rate; each block's two slots written and read through L2;
 * and the last segment's walk over a split tile's slots; all scaled by
 * FAST_SK_OVER. */
static double plan_cost_sk(int cfg, int m, int n, int k, int sms)
{
    const fast_config *f = &configs[cfg];
    int grid, share;
    if (plan_sk(cfg, m, n, k, sms, &grid, &share) != 0)
        return -1;
    int ipt = (k + FAST_BK - 1) / FAST_BK, per_sm = (grid + sms - 1) / sms, warps = f->threads / 32;
    int touched = (share + ipt - 1) / ipt + 1, parts = (ipt + share - 1) / share + 1;
    double work = per_sm * (double)f->bm * f->bn * FAST_BK * (share + touched) / f->rel / sm_rate(per_sm * warps);
    double slots = 2.0 * per_sm * 2 * f->bm * f->bn * 4 * 2;
    return (work + slots + 3e4 * parts) * FAST_SK_OVER;
}

/* Estimated time of the k-groups plan, in plan_cost's units, or -1
 * where it does not apply: a shape without the kernel, more tiles than
 * the SMs hold at once (one wave: a block is an SM's whole tile), or a
 * group's run of k-steps past FAST_FOLD (no fold) or under
 * FAST_KG_MIN_RUN. A block's groups at the shape's rate, each its run
 * plus a step of start, and the sum of their tiles. */
/* Unlike stream-K's blocks (FAST_SK_MIN_SHARE), the groups add their sums
 * in shared memory, with no slots through L2 and no second kernel, so a
 * short run costs a group only its pipeline's start: at a short k the
 * groups give an SM three times the warps of a one-slice plan without a
 * summing launch. With runs of 2 steps on up allowed (not 16, stream-K's
 * floor), 129x257x4099's runs of 6 took 21.6 us against its split plan's
 * 25.9 (cuBLAS 19.0), 1000x128x1000's of 3 12.2 against 17.2,
 * 300x64x2000's of 2 (the third group empty) 8.7 against 9.8; no other
 * shape of the suite changed plan (H100, kernel times; PERF.md, ## fast,
 * session 32). */
#define FAST_KG_MIN_RUN 2
static double plan_cost_kg(int cfg, int m, int n, int k, int sms)
{
    const fast_config *f = &configs[cfg];
    long long tiles = (long long)((m + f->bm - 1) / f->bm) * ((n + f->bn - 1) / f->bn);
    int run = ((k + FAST_BK - 1) / FAST_BK + FAST_KG - 1) / FAST_KG;
    if (!config_kernel(cfg, FAST_KGROUPS, 1).fn || tiles > (long long)sms * resident[FAST_KGROUPS][cfg] ||
        run * FAST_BK > FAST_FOLD || run < FAST_KG_MIN_RUN)
        return -1;
    double work = (double)FAST_KG * f->bm * f->bn * FAST_BK * (run + 1) / f->rel;
    return work + (double)FAST_KG * f->bm * f->bn;
}

/* The plan with the lowest estimate (into *cost): every configuration,
 * every useful slice count (each slice at least 4 stages deep), and
 * stream-K; va, vb: a's and b's rows are 16-byte aligned. */
static fast_plan plan_search(int m, int n, int k, int va, int vb, double *cost)
{
    int sms = gpu_sm_count();
    fast_plan best = {&configs[0], 1, k, FAST_DATA, 0, 0, 0};
    double best_cost = -1;
    for (int i = 0; i < NCONFIGS; i++) {
        for (int s = 1; s <= FAST_MAX_SLICES && (s == 1 || k / s >= 4 * FAST_BK); s++) {
            double c = plan_cost(i, s, m, n, k, sms, runs_vec(&configs[i], va, vb));
            if (best_cost < 0 || c < best_cost) {
                best_cost = c;
                best.cfg = &configs[i];
                best.slices = s;
                best.kind = FAST_DATA;
            }
        }
        double c = plan_cost_sk(i, m, n, k, sms);
        if (c >= 0 && (best_cost < 0 || c < best_cost)) {
            best_cost = c;
            best.cfg = &configs[i];
            best.kind = FAST_STREAMK;
            plan_sk(i, m, n, k, sms, &best.grid, &best.share);
        }
        c = plan_cost_kg(i, m, n, k, sms);
        if (c >= 0 && (best_cost < 0 || c < best_cost)) {
            best_cost = c;
            best.cfg = &configs[i];
            best.kind = FAST_KGROUPS;
        }
    }
    *cost = best_cost;
    best.vec = runs_vec(best.cfg, va, vb);
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

/* A shape's two plans: for the rows as they lie (raw; vec as their
 * alignment allows) and for rows read 16 bytes at a time (padded: the
 * same plan where they are aligned already), with their estimates.
 * raw.vec: the raw plan's kernel reads 16 bytes at a time all it needs to. */
typedef struct {
    fast_plan raw, padded;
    double raw_cost, padded_cost;
} fast_plans;

/* plan_search's answers for m x n x k with a's and b's rows 16-byte
 * aligned or not (va, vb; b's rows may be wider than n: gemm_thin takes
 * the last columns), remembered for the last FAST_PLANS shapes: a search
 * takes up to ~10 us of host time (1,200 estimates at a long k), which a
 * small product would otherwise wait for on every call. */
#define FAST_PLANS 16
static fast_plans plans_for(int m, int n, int k, int va, int vb)
{
    static struct {
        int m, n, k, va, vb;
        fast_plans p;
    } known[FAST_PLANS];
    static int used, next;
    for (int i = 0; i < used; i++)
        if (known[i].m == m && known[i].n == n && known[i].k == k && known[i].va == va && known[i].vb == vb)
            return known[i].p;
    int at = next;
    next = (next + 1) % FAST_PLANS;
    used = used < FAST_PLANS ? used + 1 : used;
    fast_plans *p = &known[at].p;
    known[at].m = m, known[at].n = n, known[at].k = k, known[at].va = va, known[at].vb = vb;
    p->raw = plan_search(m, n, k, va, vb, &p->raw_cost);
    if (va && vb)
        p->padded = p->raw, p->padded_cost = p->raw_cost;
    else
        p->padded = plan_search(m, n, k, 1, 1, &p->padded_cost);
    return *p;
}

/* Floats of scratch plan pl needs: the slices' partial products, or the
 * stream-K blocks' two slots each. */
static size_t plan_scratch(const fast_plan *pl, int m, int n)
{
    const fast_config *f = pl->cfg;
    if (pl->kind == FAST_STREAMK)
        return (size_t)pl->grid * 2 * f->bm * f->bn;
    return pl->kind == FAST_DATA && pl->slices > 1 ? (size_t)pl->slices * m * n : 0;
}

/* The rows of a and columns of b past a k-groups product's m and n that
 * its blocks make beside their tiles (fast_kg_edges): h rows of a from a
 * (lda apart), w columns of b from b (ldb apart). */
typedef struct {
    const float *a, *b;
    int lda, ldb, h, w;
} fast_edges;

/* Run plan pl on a (rows lda apart) and b (ldb) into c (ldc): the tiled
 * kernel, and the sum of the slices if split; or the stream-K kernel; or
 * the k-groups kernel, with the edges e (or NULL) if it has any; work:
 * plan_scratch's floats, or NULL where it needs none. early (stream-K and
 * k-groups plans only): the kernel ahead on the stream is fast_pad_rows,
 * whose end the product's blocks may wait for in place
 * (gpu_launch_early). */
static int run_plan(const fast_plan *pl, float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m,
                    int n, int k, float *work, int early, const fast_edges *e)
{
    const fast_config *f = pl->cfg;
    fast_args p = {c, a, b, m, n, k, pl->kchunk > 0 ? pl->kchunk : FAST_BK, lda, ldb, ldc, 0, 0, pl->share, NULL};
    int kind = pl->kind;
    if (e && kind == FAST_KGROUPS && (e->h || e->w)) {
        p.xa = e->a, p.xb = e->b, p.xlda = e->lda, p.xldb = e->ldb, p.xh = e->h, p.xw = e->w;
        kind = FAST_KGEDGES;
    }
    int split = pl->kind == FAST_DATA && pl->slices > 1;
    if (pl->kind == FAST_STREAMK)
        p.work = work;
    else if (split)
        p.out = work, p.zstride = (size_t)m * n, p.ldc = n;
    p.vec_c = p.ldc % 4 == 0 && aligned16(p.out);
    unsigned blocks = pl->kind == FAST_STREAMK ? (unsigned)pl->grid : gpu_cdiv(m, f->bm) * gpu_cdiv(n, f->bn);
    fast_kernel fk = config_kernel((int)(f - configs), kind, pl->vec);
    void (*kernel)(fast_args) = fk.fn;
    const char *name = fk.name;
    dim3 grid(blocks, 1, split ? pl->slices : 1);
    dim3 block(f->threads, kind >= FAST_KGROUPS ? FAST_KG : 1);
    if (gpu_launch_early(early, kernel, name, grid, block, kind_smem(f, kind), __FILE__, __LINE__, p) != 0)
        return -1;
    return split ? fast_sum_run(c, ldc, p.out, m, n, pl->slices) : 0;
}
static int round4(int x) { return (x + 3) / 4 * 4; }

/* The plan estimates are in multiply-adds of one SM at full rate: 128 a
 * cycle at ~1.98 GHz, so about 2.5e5 a microsecond. A copy moves its
 * bytes at ~2.5 TB/s, 0.1 of those units a byte, and adds a launch and
 * its start, ~3 us, before the product can begin. FAST_RAW_OVER: the raw
 * plans' time over their estimate (the 4-byte loads). */
#define FAST_UNITS_PER_US 2.5e5
#define FAST_COPY_PER_BYTE 0.1
#define FAST_COPY_START (3 * FAST_UNITS_PER_US)
#define FAST_RAW_OVER 1.15

/* How tiled_product makes m x n x k when a's and b's rows are 16-byte
 * aligned or not (ua, ub): its plans, which it runs (the padded plan
 * where `set align` wants padded copies of a (pad_a) and b (pad_b), else
 * the raw one: route_plan) and that one's estimate, the copies counted.
 * `set align auto` takes `padded` (1 or 0), or where it is -1 the
 * estimates. */
typedef struct {
    fast_plans pp;
    int padded, pad_a, pad_b;
    double cost;
} fast_route;

static const fast_plan *route_plan(const fast_route *r) { return r->padded ? &r->pp.padded : &r->pp.raw; }

/* A plan's time over its estimate on rows as they lie: FAST_RAW_OVER
 * where b is copied a float at a time, FAST_RAW_OVER_KG in a k-groups
 * block, whose one block an SM has no other block's arithmetic to hide
 * its loads behind: 1037x1055x1031's 1024 x 1024 product on b as it lies
 * 62.3 us, on b padded 58.1 (Nsight Compute, H100, PERF.md, ## fast, v16;
 * 1.2 times before copy_b's whole stages), so that b's copy (~5 us) no
 * longer pays there. */
#define FAST_RAW_OVER_KG 1.07
static double raw_over(const fast_plan *pl)
{
    if (pl->vec)
        return 1.0;
    return pl->kind == FAST_KGROUPS ? FAST_RAW_OVER_KG : FAST_RAW_OVER;
}

static fast_route route_for(int m, int n, int k, int ua, int ub, int padded)
{
    fast_route r;
    r.pp = plans_for(m, n, k, !ua, !ub);
    r.padded = 0, r.cost = r.pp.raw_cost * raw_over(&r.pp.raw);
    r.pad_a = ua && needs_vec_a(r.pp.padded.cfg), r.pad_b = ub;
    if (!(r.pad_a || r.pad_b) || variant_pick(VAR_ALIGN) == VAR_ALIGN_OFF)
        return r;
    double bytes = 4.0 * ((r.pad_a ? (double)m * (k + round4(k)) : 0) + (r.pad_b ? (double)k * (n + round4(n)) : 0));
    double cost = r.pp.padded_cost + FAST_COPY_START + FAST_COPY_PER_BYTE * bytes;
    if (variant_pick(VAR_ALIGN) == VAR_ALIGN_COPY || (padded < 0 ? cost < r.cost : padded))
        r.padded = 1, r.cost = cost;
    return r;
}

/* The product through padded copies of the operands whose rows are not
 * aligned, the copies and the plan's work in one stretch of scratch
 * (*used floats of it): 0, -1 with the error set, or 1 where the scratch
 * could not be had (nothing done, no error: run raw). */
static int run_padded(const fast_plan *pl, float *c, int ldc, const float *a, const float *b, int ldb_in, int m, int n,
                      int k, int pad_a, int pad_b, size_t *used, const fast_edges *e)
{
    int lda = pad_a ? round4(k) : k, ldb = pad_b ? round4(n) : ldb_in;
    size_t fa = pad_a ? (size_t)m * lda : 0, fb = pad_b ? (size_t)k * ldb : 0;
    float *buf;
    *used = fa + fb + plan_scratch(pl, m, n);
    int got = gpu_scratch_try((void **)&buf, *used * sizeof(float));
    if (got != 0)
        return got;
    fast_pad_job ja = {buf, a, pad_a ? m : 0, k, k, lda}, jb = {buf + fa, b, pad_b ? k : 0, n, ldb_in, ldb};
    if (!pad_a) /* one job: b's */
        ja = jb, jb.rows = 0;
    if (fast_pad_run(&ja, &jb) != 0)
        return -1;
    /* A stream-K grid is every place on the chip (a k-groups grid nearly
     * every SM), so its blocks may take their places while the copy runs:
     * 1-2% off at 999^3 to 1037 (stream-K). Not a
     * data-parallel one: 999x1001x1003 in 64 x 128 slices then ran 0.094
     * ms in some processes against 0.072 (PERF.md, ## fast, v12; not
     * looked into: its fewer blocks, placed while the copy held part of
     * the SMs, may lie unevenly). */
    return run_plan(pl, c, ldc, pad_a ? buf : a, lda, pad_b ? buf + fa : b, ldb, m, n, k, buf + fa + fb,
                    pl->kind != FAST_DATA, e);
}

/* Whether rows ld floats apart from x (a's: k; b's: ldb) are not all
 * 16-byte aligned. */
static int unaligned(const float *x, int ld) { return ld % 4 != 0 || !aligned16(x); }

/* c (m x n, rows ldc apart) = a (m x k) @ b (k x n, rows ldb apart) by
 * route r (route_for): raw, or through padded copies. *used: the floats of
 * scratch (gpu_scratch) it may use till it ends. */
static int tiled_product(const fast_route *r, float *c, int ldc, const float *a, const float *b, int ldb, int m,
                         int n, int k, size_t *used, const fast_edges *e)
{
    if (r->padded) {
        int rc = run_padded(&r->pp.padded, c, ldc, a, b, ldb, m, n, k, r->pad_a, r->pad_b, used, e);
        if (rc <= 0)
            return rc;
    }
    float *work = NULL;
    *used = plan_scratch(&r->pp.raw, m, n);
    if (*used && gpu_scratch((void **)&work, *used * sizeof(float)) != 0)
        return -1;
    return run_plan(&r->pp.raw, c, ldc, a, k, b, ldb, m, n, k, work, 0, e);
}
/* The estimate of thin_run, in plan_cost's units: a read once at the
 * memory's rate, and a launch; times FAST_THIN_SCALE, since the plans'
 * units count multiply-adds at the SMs' full rate, which the tiled kernels
 * reach about half of (4099x4093x67: estimated 77 us, ran 147 on the H100;
 * its first 64 columns alone: 44 and 96 on the H200), while a read runs at
 * about the rate counted. */
#define FAST_THIN_SCALE 0.5
static double thin_cost(int m, int k)
{
    return FAST_THIN_SCALE * (FAST_COPY_START + FAST_COPY_PER_BYTE * 4.0 * m * k);
}
/* How many of b's last columns (n > THIN_MAX) go to the thin kernel, the
 * whole product's route being `whole`, and the route of the rest (*rest):
 * the n % 64 past the last whole tile of 64 where they are at most
 * THIN_MAX, and
 * - the whole product would run as stream-K and the rest, through copies
 *   or not as the whole would, runs the same kernel: the thin kernel
 *   beside it (gpu_launch_early). The rest's blocks have fewer k-steps
 *   each, and the thin kernel runs in the SMs their last ones leave idle
 *   (H100: 1037x1055x1031 11% faster, 1537x1001x1539 9%, 1025^3 7%;
 *   PERF.md, ## fast, v12). Or
 * - v9's rule: the two products' raw estimates come under
 *   FAST_THIN_UNDER of the whole one's, each product's rows taken as
 *   aligned where its k and n are multiples of 4, as when the margin was
 *   fitted; the rest then runs raw, as it was measured. Estimates of
 *   different plans are several percent out against each other: splits
 *   estimated 7% and 5% cheaper ran 11% slower (4097x333x4097) and no
 *   faster (1037x1055x1031) one after the other, while those at
 *   4099x4093x67 and 3000x4000x65, estimated 23% and 26% cheaper, ran
 *   faster (v9); the rest through padded copies ran those two 6-8%
 *   slower (v12).
 * Else none. */
#define FAST_THIN_UNDER 0.85
static int thin_cols(const fast_route *whole, fast_route *rest, int m, int n, int k, int ua, int ub)
{
    int w = n % 64, n0 = n - w;
    if (w == 0 || w > THIN_MAX)
        return 0;
    *rest = route_for(m, n0, k, ua, ub, whole->padded);
    const fast_plan *pw = route_plan(whole), *pr = route_plan(rest);
    if (gpu_can_launch_early() && pw->kind == FAST_STREAMK && pr->kind == FAST_STREAMK && pw->cfg == pr->cfg)
        return w;
    double all = plans_for(m, n, k, k % 4 == 0, n % 4 == 0).raw_cost;
    if (plans_for(m, n0, k, k % 4 == 0, n0 % 4 == 0).raw_cost + thin_cost(m, k) >= FAST_THIN_UNDER * all)
        return 0;
    *rest = route_for(m, n0, k, ua, ub, 0);
    return w;
}

/* Whether a's last m % 64 rows (at most ROWS_MAX) go to gemm_rows beside
 * the product of the others, where the product of c's first n0 columns
 * (route `tiled`) runs as stream-K: the first m0 = m - m % 64 rows then
 * run the same stream-K kernel, whatever their estimates say (only its
 * blocks all start at once and let the next kernel start), where
 * gemm_rows keeps up in the places its grid leaves free. At
 * 1030x1056x1024 the 1024 rows' 128 tiles of 66 k-steps make 384 blocks
 * of 22, a tile's three parts each, which leaves 12 places; gemm_rows's 8
 * rows (6 used) ended under the product, 8% faster in all, while at
 * 1037x1055x1031 its 16 (13 used) ran ~80 us beside the product's ~60
 * (H100, PERF.md, ## fast, v14): beside the product's blocks a place
 * makes about a quarter of their multiply-adds. So the rows go beside
 * where R / m0 <= ROWS_SHARE x places / grid (R: rows_wide), between the
 * two. *rest: the first rows' route; *places: the free places. 0 if not. */
#define ROWS_SHARE 0.3
static int rows_split(const fast_route *tiled, fast_route *rest, int m, int n0, int k, int ua, int ub, int *places)
{
    int h = m % 64, m0 = m - h, sms = gpu_sm_count();
    const fast_plan *pt = route_plan(tiled);
    int cfg = (int)(pt->cfg - configs), grid, share;
    if (h == 0 || h > ROWS_MAX || m0 < 64 || !gpu_can_launch_early() || pt->kind != FAST_STREAMK ||
        plan_sk(cfg, m0, n0, k, sms, &grid, &share) != 0)
        return 0;
    *places = sms * resident[FAST_STREAMK][cfg] - grid;
    if (*places < 1 || (double)rows_wide(h) * grid > ROWS_SHARE * *places * m0)
        return 0;
    *rest = route_for(m0, n0, k, ua, ub, tiled->padded);
    fast_plan *pr = rest->padded ? &rest->pp.padded : &rest->pp.raw;
    pr->cfg = pt->cfg, pr->kind = FAST_STREAMK, pr->grid = grid, pr->share = share, pr->slices = 1, pr->kchunk = k;
    pr->vec = rest->padded ? runs_vec(pt->cfg, !ua || rest->pad_a, 1) : runs_vec(pt->cfg, !ua, !ub);
    return h;
}
/* Whether a's last m % 64 <= 16 rows (*h) and b's last n % 64 <= 8
 * columns (*w) go to the blocks of a k-groups product of the rest (route
 * *core) beside their tiles (fast_kg_edges): where the rest's plan is
 * k-groups, a row for each row of its tiles and a column for each column
 * (1037x1055x1031: 1024 x 1024 in 16 x 8 tiles of 64 x 128, 13 rows and
 * 7 columns). */
#define FAST_KG_ROWS 16
#define FAST_KG_COLS 8
static int kg_edges(fast_route *core, int m, int n, int k, int ua, int ub, int *h, int *w)
{
    *h = m % 64 <= FAST_KG_ROWS ? m % 64 : 0;
    *w = n % 64 <= FAST_KG_COLS ? n % 64 : 0;
    int m0 = m - *h, n0 = n - *w;
    if (!(*h || *w) || m0 < 64 || n0 < 64)
        return 0;
    *core = route_for(m0, n0, k, ua, ub, -1);
    const fast_plan *pc = route_plan(core);
    return pc->kind == FAST_KGROUPS && *h <= (int)gpu_cdiv(m0, pc->cfg->bm) && *w <= (int)gpu_cdiv(n0, pc->cfg->bn);
}

/* Whether kg_edges's h rows go to gemm_rows instead, in the SMs the
 * k-groups grid leaves free (and, as its blocks end, theirs): where
 * their multiply-adds (rows_wide rows) are at most FAST_ROWS_RATE of what
 * those SMs would make at full rate in the product's time. There a
 * place makes about a quarter of the product's rate (as beside
 * stream-K, v14): 1030x1056x1024's 6 rows (8 computed) ended under the
 * product, 1037's 13 (16) 30 us after it, and in the blocks (the fold)
 * rows cost the product 5-8% (H100, PERF.md, ## fast, v15). The h rows
 * are then c's whole rows, the w columns' part too. Hopper only (the
 * early launch). */
#define FAST_ROWS_RATE 0.25
#define FAST_KG_PLACES 6 /* rows_run's places an SM left free: 48 blocks of 128 x k / 6 at 1030 */
/* The SMs a k-groups grid of m0 x n0 in route core's tiles leaves free
 * (a block an SM). */
static int kg_free_sms(const fast_route *core, int m0, int n0)
{
    const fast_config *f = route_plan(core)->cfg;
    return gpu_sm_count() - (int)(gpu_cdiv(m0, f->bm) * gpu_cdiv(n0, f->bn));
}

static int kg_rows_beside(const fast_route *core, int m0, int n0, int k, int h)
{
    int free = kg_free_sms(core, m0, n0);
    return h && gpu_can_launch_early() && free > 0 &&
           (double)rows_wide(h) * n0 * k <= FAST_ROWS_RATE * free * core->cost;
}

/* Whether kg_edges's h rows and w columns go to gemm_edges, in the SMs
 * the k-groups grid of the other m0 x n0 leaves free (a block each;
 * Hopper only: the early launch): where a block makes them in about the
 * product's time. Its multiply-adds (H x 4Q of the bottom strip, and 8
 * columns of its rows of the right strip, all of k, counted
 * FAST_EDGE_RIGHT times: its warps wait on more loads a multiply-add) at
 * most FAST_EDGE_RATE of the product's estimate, and FAST_KG_EDGE_COST
 * more, what the edges cost in its blocks. On the H100 (PERF.md, ## fast,
 * v16): 1037x1055x1024's 13 rows (0.39 of it) ended ~2 us after the
 * product, 5 us sooner than in its blocks; 1024x1056x1032's 8 columns
 * (0.36) under it, 6 us sooner; 1040x1056x1024's 16 rows (0.48) as late
 * as in the blocks; 1028x1055x1031's 4 rows and 7 columns (0.48) 4 us
 * later, and 1037's 13 and 7 (0.75) 20 us later. (1037's rows beside it
 * and its columns in its blocks ran no faster than both in the blocks:
 * the edges' code in the loop costs most of it, however few it makes.)
 * And the block's shared memory at most EDGE_SMEM. */
#define FAST_EDGE_RATE 0.38
#define FAST_EDGE_RIGHT 1.5
#define FAST_KG_EDGE_COST 0.12
static int kg_edges_beside(const fast_route *core, int m0, int n0, int k, int h, int w)
{
    int free = kg_free_sms(core, m0, n0), n = n0 + w, q = free > 0 ? edge_quads(n, free) : 0;
    if (!gpu_can_launch_early() || free < 1 || q > EDGE_THREADS ||
        edge_smem(h ? h : 1, n, k, free) > EDGE_SMEM)
        return 0;
    double work = ((double)h * 4 * q + (w ? FAST_EDGE_RIGHT * 8 * gpu_cdiv(m0, free) : 0)) * k;
    return work <= FAST_EDGE_RATE * (1 + FAST_KG_EDGE_COST) * core->cost;
}

/* The product as kg_edges says: the k-groups product of the first m - h
 * rows and n - w columns, with its edges in gemm_edges beside it
 * (kg_edges_beside) or in its blocks, or its rows in gemm_rows beside it
 * (kg_rows_beside). */
static int kg_run(const fast_route *core, float *c, const float *a, const float *b, int m, int n, int k, int h, int w)
{
    int m0 = m - h, n0 = n - w;
    size_t used = 0;
    if (kg_edges_beside(core, m0, n0, k, h, w)) {
        if (tiled_product(core, c, n, a, b, n, m0, n0, k, &used, NULL) != 0)
            return -1;
        return fast_edges_run(c, a, b, m0, n0, h, w, n, k, kg_free_sms(core, m0, n0));
    }
    int beside = kg_rows_beside(core, m0, n0, k, h);
    fast_edges e = {a + (size_t)m0 * k, b + n0, k, n, beside ? 0 : h, w};
    if (tiled_product(core, c, n, a, b, n, m0, n0, k, &used, &e) != 0)
        return -1;
    if (!beside)
        return 0;
    return fast_rows_run(c + (size_t)m0 * n, n, a + (size_t)m0 * k, k, b, n, h, n, k,
                    FAST_KG_PLACES * kg_free_sms(core, m0, n0), used, &used);
}

/* --- the covering tiles: the choice ------------------------------------------------ */

/* The shapes of fast_sgemm_cover: COVER_BM x 8 tn, and rel, its rate
 * relative to the k-groups kernel's on b as it lies (v17: 0.92, 8448
 * outputs an SM of 1037x1055x1031 in 64-66 us, against 8192 of
 * 1024x1055x1024 in 57.5; H100, Nsight Compute). v21 ran the cover 6%
 * faster; 1.03 makes the plan take it where it then measured faster than
 * the plan taken before (H200: 1009x1013x1019 0.0550-0.0555 ms against
 * 0.0594-0.0600, 1025^3 0.0580-0.0586 against 0.0614-0.0622,
 * 1036x1056x1032 0.0574-0.0581 against 0.0639-0.0643) and not where it
 * measured slower (1000^3 0.0545-0.0550 against 0.0534-0.0539, 1024^3
 * 0.0553-0.0556 against 0.0546-0.0549) or level (1037x1055x1024); it
 * would take 1009x1013x1019 from 1.018 on and 1037x1055x1024 from 1.058
 * (PERF.md, ## fast, v21). */
#define COVER_REL 1.03
static const double cover_rel[FAST_NCOVERS] = {COVER_REL};
#define NCOVERS FAST_NCOVERS

/* Whether an SM holds a block of cover i (its ~150 KB of shared memory:
 * not on GPUs of 99 KB a block or less), as configs_ready found. */
static int cover_fits[NCOVERS];

static int covers_ready(void)
{
    for (int i = 0; i < NCOVERS; i++)
        if ((cover_fits[i] = smem_fits((const void *)fast_cover_kernels[i].k.fn, fast_cover_kernels[i].smem)) < 0)
            return -1;
    return 0;
}

/* Estimated time of cover i at m x n x k, in plan_cost's units (as
 * plan_cost_kg's, b's 4-byte copies counted as FAST_RAW_OVER_KG), or -1
 * where it does not apply: the output smaller than a tile (none can move
 * back), its tiles more than the SMs, or a group's run of k-steps past
 * FAST_FOLD or under FAST_SK_MIN_SHARE (not FAST_KG_MIN_RUN: forced at a
 * short k, the cover ran slower than the k-groups or split plans at each
 * shape tried; PERF.md, ## fast, session 32). */
static double cover_cost(int i, int m, int n, int k)
{
    const fast_cover_kernel *f = &fast_cover_kernels[i];
    int bn = 8 * f->tn, halves = cover_run_halves(k), run = (halves + 1) / 2;
    long long tiles = (long long)gpu_cdiv(m, COVER_BM) * gpu_cdiv(n, bn);
    if (m < COVER_BM || n < bn || tiles > gpu_sm_count() || run * FAST_BK > FAST_FOLD || run < FAST_SK_MIN_SHARE ||
        !cover_fits[i])
        return -1;
    double work = (double)COVER_KG * COVER_BM * bn * (COVER_HALF * halves + FAST_BK) / cover_rel[i];
    return (work + (double)COVER_KG * COVER_BM * bn) * FAST_RAW_OVER_KG;
}

/* What kg_run's edges add to its product's time, as a share of it: in
 * gemm_edges beside it, or in its blocks. On the H100 (PERF.md, ## fast,
 * v17): 1037x1055x1024's 13 rows beside the product ran 0.061-0.064 ms,
 * 1025^3's row and column 0.066-0.068, where 1024x1055x1024 alone takes
 * 0.061-0.063; 1037x1055x1031's 13 rows and 7 columns in its blocks
 * 0.071-0.074. */
#define FAST_EDGES_BESIDE_COST 0.06
#define FAST_EDGES_BLOCKS_COST 0.2
static double kg_edges_cost(const fast_route *core, int m0, int n0, int k, int h, int w)
{
    return kg_edges_beside(core, m0, n0, k, h, w) ? FAST_EDGES_BESIDE_COST : FAST_EDGES_BLOCKS_COST;
}

/* The cover that makes m x n x k sooner than `other` (another plan's
 * estimate), or -1. */
static int cover_for(int m, int n, int k, double other)
{
    int best = -1;
    for (int i = 0; i < NCOVERS; i++) {
        double c = cover_cost(i, m, n, k);
        if (c >= 0 && c < other)
            best = i, other = c;
    }
    return best;
}

/* --- the entry point -------------------------------------------------------------- */

extern "C" int fast_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    if (m == 0 || n == 0)
        return 0;
    if (n == 1) {
        return fast_gemv_rows_run(c, a, b, m, k);
    }
    if (m == 1)
        return fast_gemv_cols_run(c, a, b, n, k);
    if (configs_ready() != 0)
        return -1;
    if (n <= THIN_MAX)
        return fast_thin_run(c, n, a, b, n, m, k, n, 0, 0);
    int ua = unaligned(a, k), ub = unaligned(b, n), h, w;
    fast_route core;
    int cover;
    if (kg_edges(&core, m, n, k, ua, ub, &h, &w)) {
        if ((cover = cover_for(m, n, k, core.cost * (1 + kg_edges_cost(&core, m - h, n - w, k, h, w)))) >= 0)
            return fast_cover_run(cover, c, a, b, m, n, k);
        return kg_run(&core, c, a, b, m, n, k, h, w);
    }
    size_t used = 0;
    fast_route whole = route_for(m, n, k, ua, ub, -1), rest;
    if ((cover = cover_for(m, n, k, whole.cost)) >= 0)
        return fast_cover_run(cover, c, a, b, m, n, k);
    w = thin_cols(&whole, &rest, m, n, k, ua, ub);
    int n0 = n - w;
    const fast_route *r = w ? &rest : &whole;
    fast_route top;
    int places = 0;
    h = rows_split(r, &top, m, n0, k, ua, ub, &places);
    int m0 = m - h;
    if (tiled_product(h ? &top : r, c, n, a, b, n, m0, n0, k, &used, NULL) != 0)
        return -1;
    if (h && fast_rows_run(c + (size_t)m0 * n, n, a + (size_t)m0 * k, k, b, n, h, n0, k, places, used, &used) != 0)
        return -1;
    return w ? fast_thin_run(c + n0, n, a, b + n0, n, m, k, w, route_plan(r)->kind == FAST_STREAMK, used) : 0;
}
