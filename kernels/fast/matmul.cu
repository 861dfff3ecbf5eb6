/* matmul.cu - mode fast's matrix product: the device's facts, asked of the
 * CUDA runtime once; the plan for each shape (plan.c), remembered for the
 * last few shapes; and the launches the plan says, each family's through
 * its own launcher. */
#include "kernels/fast/fast.cuh"
#include "kernels/variants.h"

/* The entry point of mode fast (modes.c). */
extern "C" cuk_matmul_fn fast_matmul;

/* --- the device's facts ----------------------------------------------------------- */

/* Shape i's kernel of `kind`, aligned (vec) or not; fn NULL where it has
 * none (the k-groups kernels are 64 x 128's). */
static fast_kernel shape_kernel(int i, int kind, int vec)
{
    static const fast_kernel none = {NULL, NULL};
    if (kind < FAST_KGROUPS)
        return fast_tile_kernels[i][kind][vec];
    return fast_shapes[i].all_kinds ? fast_kg_kernels[kind == FAST_KGEDGES][vec] : none;
}

/* A block of shape f run as `kind`: its threads and shared memory (a
 * k-groups block is FAST_KG of the others). */
static int kind_threads(const fast_shape *f, int kind) { return kind >= FAST_KGROUPS ? FAST_KG * f->threads : f->threads; }
static size_t kind_smem(const fast_shape *f, int kind) { return kind >= FAST_KGROUPS ? FAST_KG * f->smem : f->smem; }

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

/* Shape i's kernels of `kind` allowed their dynamic shared memory past
 * the 48 KB default, and how many blocks of the aligned one an SM holds
 * (0: none fits, or the shape has none, and the plans leave it): into
 * *resident, 0, or -1 with the error set. */
static int kind_ready(int i, int kind, int *resident)
{
    const fast_shape *f = &fast_shapes[i];
    const void *aligned = (const void *)shape_kernel(i, kind, 1).fn;
    *resident = 0;
    if (!aligned)
        return 0;
    int fits = smem_fits(aligned, kind_smem(f, kind));
    if (fits <= 0)
        return fits; /* a k-groups block's 110 KiB: not on GPUs of 99 KiB a block (cc 8.6, 8.9) or less */
    for (int v = 0; v < 2; v++) {
        const void *fn = (const void *)shape_kernel(i, kind, v).fn;
        if (gpu_allow_smem(fn, kind_smem(f, kind)) != 0)
            return -1;
        GPU_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       cudaSharedmemCarveoutMaxShared));
    }
    *resident = gpu_blocks_per_sm(aligned, kind_threads(f, kind), kind_smem(f, kind));
    return *resident < 0 ? -1 : 0;
}

static int facts_gather(fast_device *d)
{
    d->sms = gpu_sm_count();
    d->early = gpu_can_launch_early();
    for (int i = 0; i < FAST_NSHAPES; i++)
        for (int kind = 0; kind < FAST_KINDS; kind++)
            if (kind_ready(i, kind, &d->resident[kind][i]) != 0)
                return -1;
    for (int i = 0; i < FAST_NCOVERS; i++)
        if ((d->cover_fits[i] = smem_fits((const void *)fast_cover_kernels[i].k.fn, fast_cover_kernels[i].smem)) < 0)
            return -1;
    return 0;
}

extern "C" int fast_device_facts(fast_device *dev)
{
    static fast_device facts;
    static int done;
    if (!done && facts_gather(&facts) != 0)
        return -1;
    done = 1;
    *dev = facts;
    return 0;
}

/* --- the plans -------------------------------------------------------------------- */

/* The plan for m x n x k with a's and b's rows aligned or not (ua, ub)
 * under `set align`, remembered for the last FAST_PLANS shapes: a plan
 * takes tens of microseconds of host time (over a thousand estimates at a
 * long k), which a small product would otherwise wait for on every call.
 * 0, or -1 with the error set. */
#define FAST_PLANS 16
static int plan_of(int m, int n, int k, int ua, int ub, fast_plan *pl)
{
    static struct {
        int m, n, k, ua, ub, align;
        fast_plan pl;
    } known[FAST_PLANS];
    static int used, next;
    int pick = variant_pick(VAR_ALIGN);
    int align = pick == VAR_ALIGN_COPY ? FAST_ALIGN_COPY : pick == VAR_ALIGN_OFF ? FAST_ALIGN_OFF : FAST_ALIGN_AUTO;
    for (int i = 0; i < used; i++)
        if (known[i].m == m && known[i].n == n && known[i].k == k && known[i].ua == ua && known[i].ub == ub &&
            known[i].align == align) {
            *pl = known[i].pl;
            return 0;
        }
    fast_device dev;
    if (fast_device_facts(&dev) != 0)
        return -1;
    *pl = fast_plan_for(m, n, k, ua, ub, align, &dev, &fast_rates_measured);
    int at = next;
    next = (next + 1) % FAST_PLANS;
    used = used < FAST_PLANS ? used + 1 : used;
    known[at].m = m, known[at].n = n, known[at].k = k, known[at].ua = ua, known[at].ub = ub, known[at].align = align;
    known[at].pl = *pl;
    return 0;
}

/* --- the tiled product ------------------------------------------------------------- */

/* The rows of a and columns of b past a k-groups product's m and n that
 * its blocks make beside their tiles (kgroups.cu, fast_kg_edges): h rows
 * of a from a (lda apart), w columns of b from b (ldb apart). */
typedef struct {
    const float *a, *b;
    int lda, ldb, h, w;
} fast_edges;

/* Run tiling t on a (rows lda apart) and b (ldb) into c (ldc): the tiled
 * kernel, and the sum of the slices if split; or the stream-K kernel; or
 * the k-groups kernel, with the edges e (or NULL) if it has any; work:
 * fast_tiling_scratch's floats, or NULL where it needs none. early
 * (stream-K and k-groups only): the kernel ahead on the stream is the
 * padded copy, whose end the product's blocks may wait for in place. */
static int run_tiling(const fast_tiling *t, float *c, int ldc, const float *a, int lda, const float *b, int ldb,
                      int m, int n, int k, float *work, int early, const fast_edges *e)
{
    const fast_shape *f = &fast_shapes[t->shape];
    int share = t->kind == FAST_STREAMK ? t->share : 0;
    fast_args p = {c, a, b, m, n, k, t->kchunk > 0 ? t->kchunk : FAST_BK, lda, ldb, ldc, 0, 0, share, NULL};
    int kind = t->kind;
    if (e && kind == FAST_KGROUPS && (e->h || e->w)) {
        p.xa = e->a, p.xb = e->b, p.xlda = e->lda, p.xldb = e->ldb, p.xh = e->h, p.xw = e->w;
        kind = FAST_KGEDGES;
    }
    int split = t->kind == FAST_DATA && t->slices > 1;
    if (t->kind == FAST_STREAMK)
        p.work = work;
    else if (split)
        p.out = work, p.zstride = (size_t)m * n, p.ldc = n;
    p.vec_c = p.ldc % 4 == 0 && aligned16(p.out);
    unsigned blocks = t->kind == FAST_STREAMK ? (unsigned)t->grid : gpu_cdiv(m, f->bm) * gpu_cdiv(n, f->bn);
    fast_kernel fk = shape_kernel(t->shape, kind, t->vec);
    dim3 grid(blocks, 1, split ? t->slices : 1), block(f->threads, kind >= FAST_KGROUPS ? FAST_KG : 1);
    if (gpu_launch_early(early, fk.fn, fk.name, grid, block, kind_smem(f, kind), __FILE__, __LINE__, p) != 0)
        return -1;
    return split ? fast_sum_run(c, ldc, p.out, m, n, t->slices) : 0;
}

static int round4(int x) { return (x + 3) / 4 * 4; }

/* The product through padded copies of the operands whose rows are not
 * aligned (route r), the copies and the tiling's work in one stretch of
 * scratch (*used floats of it): 0, -1 with the error set, or 1 where the
 * scratch could not be had (nothing done, no error: run raw). A stream-K
 * grid is every place on the chip (a k-groups grid nearly every SM), so
 * its blocks may take their places while the copy runs; not a
 * data-parallel one, whose fewer blocks, placed while the copy held part
 * of the SMs, ran unevenly (PERF.md, ## fast, the plans). */
static int run_padded(const fast_route *r, float *c, int ldc, const float *a, const float *b, int ldb_in, int m, int n,
                      int k, size_t *used, const fast_edges *e)
{
    const fast_tiling *t = &r->padded;
    int lda = r->pad_a ? round4(k) : k, ldb = r->pad_b ? round4(n) : ldb_in;
    size_t fa = r->pad_a ? (size_t)m * lda : 0, fb = r->pad_b ? (size_t)k * ldb : 0;
    float *buf;
    *used = fa + fb + fast_tiling_scratch(t, m, n);
    int got = gpu_scratch_try((void **)&buf, *used * sizeof(float));
    if (got != 0)
        return got;
    fast_pad_job ja = {buf, a, r->pad_a ? m : 0, k, k, lda}, jb = {buf + fa, b, r->pad_b ? k : 0, n, ldb_in, ldb};
    if (!r->pad_a) /* one job: b's */
        ja = jb, jb.rows = 0;
    if (fast_pad_run(&ja, &jb) != 0)
        return -1;
    return run_tiling(t, c, ldc, r->pad_a ? buf : a, lda, r->pad_b ? buf + fa : b, ldb, m, n, k, buf + fa + fb,
                      t->kind != FAST_DATA, e);
}

/* c (m x n, rows ldc apart) = a (m x k) @ b (k x n, rows ldb apart) by
 * route r: raw, or through padded copies. *used: the floats of scratch
 * (gpu_scratch) it may use till it ends. */
static int tiled_product(const fast_route *r, float *c, int ldc, const float *a, const float *b, int ldb, int m,
                         int n, int k, size_t *used, const fast_edges *e)
{
    if (r->padded_chosen) {
        int rc = run_padded(r, c, ldc, a, b, ldb, m, n, k, used, e);
        if (rc <= 0)
            return rc;
    }
    float *work = NULL;
    *used = fast_tiling_scratch(&r->raw, m, n);
    if (*used && gpu_scratch((void **)&work, *used * sizeof(float)) != 0)
        return -1;
    return run_tiling(&r->raw, c, ldc, a, k, b, ldb, m, n, k, work, 0, e);
}

/* Plan pl's tiled product of c's first m0 rows and n0 columns, and the
 * kernels beside it that make the rest. */
static int run_tiled(const fast_plan *pl, float *c, const float *a, const float *b, int m, int n, int k)
{
    int m0 = pl->m0, n0 = pl->n0;
    fast_edges e = {a + (size_t)m0 * k, b + n0, k, n, pl->kg_h, pl->kg_w};
    size_t used = 0;
    if (tiled_product(&pl->tiled, c, n, a, b, n, m0, n0, k, &used, pl->kg_h || pl->kg_w ? &e : NULL) != 0)
        return -1;
    if (pl->edge_blocks)
        return fast_edges_run(c, a, b, m0, n0, m - m0, n - n0, n, k, pl->edge_blocks);
    if (pl->rows && fast_rows_run(c + (size_t)m0 * n, n, a + (size_t)m0 * k, k, b, n, pl->rows, pl->rows_n, k,
                                  pl->rows_places, used, &used) != 0)
        return -1;
    return pl->thin ? fast_thin_run(c + n0, n, a, b + n0, n, m, k, pl->thin, pl->thin_early, used) : 0;
}

/* Whether rows ld floats apart from x are not all 16-byte aligned. */
static int unaligned(const float *x, int ld) { return ld % 4 != 0 || !aligned16(x); }

extern "C" int fast_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    fast_plan pl;
    if (plan_of(m, n, k, unaligned(a, k), unaligned(b, n), &pl) != 0)
        return -1;
    switch (pl.how) {
    case FAST_NOTHING: return 0;
    case FAST_GEMV_ROWS: return fast_gemv_rows_run(c, a, b, m, k);
    case FAST_GEMV_COLS: return fast_gemv_cols_run(c, a, b, n, k);
    case FAST_THIN: return fast_thin_run(c, n, a, b, n, m, k, n, 0, 0);
    case FAST_COVER: return fast_cover_run(pl.cover, c, a, b, m, n, k);
    default: return run_tiled(&pl, c, a, b, m, n, k);
    }
}
