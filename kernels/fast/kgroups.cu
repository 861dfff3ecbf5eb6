/* kgroups.cu - mode fast's k-groups product: where the tiles are about as
 * many as the SMs, a block of FAST_KG warp groups takes one tile whole,
 * each group a run of its k-steps, the groups' sums added in shared
 * memory; with the output's last few rows and columns made beside the
 * tiles (fast_kg_edges) or not. */
#include "kernels/fast/tile.cuh"

/* Where the tiles are about as many as the SMs (1024 x 1024: 128 tiles of
 * 64 x 128 for 132 SMs), stream-K's three blocks an SM each take a third
 * of a tile's k-steps and sum the thirds through scratch in L2: each
 * block stores its part, counts it, and the last sums and stores the
 * tile, and a tile's thirds lie on different SMs, which end at different
 * times. A
 * block of FAST_KG warp groups (threadIdx.y: the group) instead takes one
 * tile whole: group g makes the g-th of FAST_KG equal runs of its k-steps
 * in stages of its own, with a barrier of its own (group_sync), so the
 * SM runs the 12 warps it runs in stream-K, and the groups' sums are
 * added in shared memory, in group order (k order: the same bits every
 * run), and stored by the whole block. A group's run is at most
 * FAST_FOLD deep (plan.c, plan_cost_kg): no fold. Its blocks end well
 * before stream-K's SMs did (PERF.md, ## fast, the plans). */

/* The group's sums into its own stages (free once its warps are done with
 * them), as a BM x BN tile, rows BN floats apart. */
template <int BN, int T> struct fast_kg_where {
    template <int MI>
    __device__ void store(const fast_args &, const float acc[4 * MI][8], int, int, int r, int c, bool,
                          float *stages = nullptr) const
    {
        group_sync<FAST_KG, T>();
#pragma unroll
        for (int t = 0; t < 4 * MI; t++) {
            float *row = stages + (size_t)(r + (t / 4) * 16 + t % 4) * BN;
            *(float4 *)(row + c) = make_float4(acc[t][0], acc[t][1], acc[t][2], acc[t][3]);
            *(float4 *)(row + c + 32) = make_float4(acc[t][4], acc[t][5], acc[t][6], acc[t][7]);
        }
    }
};

/* The edges a k-groups block makes beside its tile, where the output's
 * last m % 64 rows and n % 64 columns are too few for tiles of their own
 * (1037x1055x1031: 13 rows and 7 columns past 1024 x 1024): block (bi,
 * bj) makes row m + bi of c if bi < xh, from a's row and the b columns of
 * its tile, which are in its stages already; column n + bj if bj < xw,
 * from its tile's a rows and b's column; and where both, their crossing:
 * 32 floats more a stage (xs: the row's 16 of a, the column's 16 of b).
 * A thread's part of a stage is 16-byte loads, as the tile's: 4 columns
 * of the row at 4 of the stage's k (rs), 4 rows of the column at 2 of
 * them (cs), and lanes 0-15 of warp 0 one k of the crossing (x). In
 * kernels of their own in the few SMs the product leaves, 1037's 13 rows
 * and 7 columns ended long after it; here they cost it a tenth or so.
 * Where they are few enough, the edges kernel makes them in those SMs
 * instead (plan.c, kg_edges_beside). */
template <int BM, int BN, int T> struct fast_kg_edges {
    static_assert(16 * T == FAST_BK * BN && 8 * T == FAST_BK * BM && T >= 32 + FAST_BK,
                  "each thread 4 columns at 4 k, 4 rows at 2 k");
    float (*xs)[2][FAST_BK]; /* the group's [slot][row of a, column of b][q] */
    const float *ar, *bc;    /* a's row and b's column at k = 0 */
    int ldb;
    bool row, col;
    float4 rs, cs;
    float x;

    __device__ void copy(int slot, int k0, int kend)
    {
        int warp = threadIdx.x / 32, q = threadIdx.x % 32;
        bool ok = k0 + q < kend;
        if (q >= FAST_BK)
            return;
        /* Warp 0 the row, warp 1 the column, and no other warp: the others
         * copying the column too wrote each float three times (the same
         * value, but a race that racecheck reports). */
        if (row && warp == 0)
            copy_async<4>(&xs[slot][0][q], ok ? ar + k0 + q : ar, ok);
        else if (col && warp == 1)
            copy_async<4>(&xs[slot][1][q], ok ? bc + (size_t)(k0 + q) * ldb : bc, ok);
    }
    template <class Stage> __device__ void step(int slot, const Stage *st)
    {
        int t = threadIdx.x;
        if (row) { /* columns 4 (t % (BN / 4)) on, k from 4 (t / (BN / 4)) */
            int j = 4 * (t % (BN / 4)), q0 = 4 * (t / (BN / 4));
            float4 a4 = *(const float4 *)&xs[slot][0][q0];
            const float av[4] = {a4.x, a4.y, a4.z, a4.w};
#pragma unroll
            for (int u = 0; u < 4; u++) {
                float4 b4 = *(const float4 *)&st->bs[q0 + u][j];
                rs.x = fmaf(av[u], b4.x, rs.x), rs.y = fmaf(av[u], b4.y, rs.y);
                rs.z = fmaf(av[u], b4.z, rs.z), rs.w = fmaf(av[u], b4.w, rs.w);
            }
        }
        if (col) { /* rows 4 (t % (BM / 4)) on, k from 2 (t / (BM / 4)) */
            int i = 4 * (t % (BM / 4)), q0 = 2 * (t / (BM / 4));
            float2 b2 = *(const float2 *)&xs[slot][1][q0];
            const float bv[2] = {b2.x, b2.y};
#pragma unroll
            for (int u = 0; u < 2; u++) {
                float4 a4 = *(const float4 *)&st->as[q0 + u][i];
                cs.x = fmaf(a4.x, bv[u], cs.x), cs.y = fmaf(a4.y, bv[u], cs.y);
                cs.z = fmaf(a4.z, bv[u], cs.z), cs.w = fmaf(a4.w, bv[u], cs.w);
            }
        }
        if (row && col && t < FAST_BK)
            x = fmaf(xs[slot][0][t], xs[slot][1][t], x);
    }
    /* The thread's sums into its group's part of `at`: the row's [k part
     * (4)][BN], the column's [k part (8)][BM], the crossing's [16]. */
    __device__ void keep(float *at) const
    {
        int t = threadIdx.x;
        *(float4 *)&at[t / (BN / 4) * BN + 4 * (t % (BN / 4))] = rs;
        *(float4 *)&at[4 * BN + t / (BM / 4) * BM + 4 * (t % (BM / 4))] = cs;
        if (t < FAST_BK)
            at[4 * BN + 8 * BM + t] = x;
    }
};
#define FAST_KG_EDGE_SUMS(BM, BN) (4 * (BN) + 8 * (BM) + FAST_BK) /* floats of fast_kg_edges::keep's */

/* The edges' sums of the groups (group g's at sums + g * gstride: see
 * fast_kg_edges::keep), added in group order and each group's in k order,
 * and stored by threads of the block. */
template <int BM, int BN, int T>
static __device__ void kg_edges_store(const fast_args &p, const float *sums, size_t gstride, int bi, int bj, int i0,
                                      int j0)
{
    int t = threadIdx.y * T + threadIdx.x;
    bool row = bi < p.xh, col = bj < p.xw;
    if (row && t < BN && t < p.n - j0) {
        float v = 0.0f;
        for (int g = 0; g < FAST_KG; g++)
            for (int h = 0; h < 4; h++)
                v = g || h ? v + sums[g * gstride + h * BN + t] : sums[t];
        p.out[(size_t)(p.m + bi) * p.ldc + j0 + t] = v;
    }
    int i = t - BN;
    if (col && i >= 0 && i < BM && i < p.m - i0) {
        float v = 0.0f;
        for (int g = 0; g < FAST_KG; g++)
            for (int h = 0; h < 8; h++)
                v = g || h ? v + sums[g * gstride + 4 * BN + h * BM + i] : sums[4 * BN + i];
        p.out[(size_t)(i0 + i) * p.ldc + p.n + bj] = v;
    }
    if (row && col && t == BN + BM) {
        float v = 0.0f;
        for (int g = 0; g < FAST_KG; g++)
            for (int q = 0; q < FAST_BK; q++)
                v = g || q ? v + sums[g * gstride + 4 * BN + 8 * BM + q] : sums[4 * BN + 8 * BM];
        p.out[(size_t)(p.m + bi) * p.ldc + p.n + bj] = v;
    }
}

/* The groups' tiles (group g's at part + g * gstride) added in group
 * order and stored into d by every thread of the block: a warp's 32
 * floats (or float4s) lie in one row of c. */
template <int BM, int BN>
static __device__ void kg_sum(const fast_dst &d, const float *part, size_t gstride)
{
    int t = threadIdx.y * blockDim.x + threadIdx.x, all = blockDim.x * blockDim.y;
    if (d.vec) {
        for (int e = t; e < BM * BN / 4; e += all) {
            int i = e / (BN / 4), j = e % (BN / 4) * 4;
            float4 s = ((const float4 *)part)[e];
#pragma unroll
            for (int g = 1; g < FAST_KG; g++) {
                float4 v = ((const float4 *)(part + g * gstride))[e];
                s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
            }
            store4(d, i, j, &s.x, false);
        }
        return;
    }
    for (int e = t; e < BM * BN; e += all) {
        int i = e / BN, j = e % BN;
        float s = part[e];
#pragma unroll
        for (int g = 1; g < FAST_KG; g++)
            s += part[g * gstride + e];
        if (i < d.rows && j < d.cols)
            d.at[(size_t)i * d.ld + j] = s;
    }
}

/* Block x makes tile x (tile_of's order) of c, and with EDGES the row
 * and column beside it that fast_kg_edges says (a kernel of its own: the
 * edges' code in the loop, even off, costs a product without edges time).
 * Launched
 * early where a padded copy is ahead of it. */
template <int BM, int BN, int WM, bool VEC, bool EDGES>
static __global__ void __launch_bounds__(FAST_KG * FAST_THREADS(BM, BN, WM), 1) fast_sgemm_kg(fast_args p)
{
    constexpr int T = FAST_THREADS(BM, BN, WM);
    constexpr size_t gstride = FAST_STAGES * sizeof(fast_stage<BM, BN>) / sizeof(float); /* a group's stages */
    static_assert(WM == 32, "the last store of tile_product hands the group's stages only where WM is 32");
    static_assert((BM * BN + FAST_KG_EDGE_SUMS(BM, BN)) * sizeof(float) <= gstride * sizeof(float),
                  "a tile and the edges' sums fit a group's stages");
    extern __shared__ float4 smem_raw[];
    gpu_wait_prior();     /* for the padded copies, if launched early (run_padded) */
    gpu_next_may_start(); /* gemm_rows, in the SMs its grid leaves (fast_matmul) */
    fast_stage<BM, BN> *st = (fast_stage<BM, BN> *)smem_raw + threadIdx.y * FAST_STAGES;
    int bi, bj;
    tile_of(blockIdx.x, (p.m + BM - 1) / BM, (p.n + BN - 1) / BN, &bi, &bj);
    int i0 = bi * BM, j0 = bj * BN;
    int steps = (p.k + FAST_BK - 1) / FAST_BK, run = (steps + FAST_KG - 1) / FAST_KG;
    int kbeg = min(p.k, (int)threadIdx.y * run * FAST_BK), kend = min(p.k, kbeg + run * FAST_BK);
    if constexpr (EDGES) {
        __shared__ __align__(16) float xs[FAST_KG][FAST_STAGES][2][FAST_BK];
        bool row = bi < p.xh, col = bj < p.xw;
        fast_kg_edges<BM, BN, T> e = {xs[threadIdx.y], row ? p.xa + (size_t)bi * p.xlda : p.a, col ? p.xb + bj : p.b,
                                      p.xldb, row, col, {0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}, 0.f};
        tile_product<BM, BN, WM, VEC, FAST_KG>(p, st, i0, j0, kbeg, kend, fast_kg_where<BN, T>(), e);
        e.keep((float *)st + BM * BN);
    } else {
        tile_product<BM, BN, WM, VEC, FAST_KG>(p, st, i0, j0, kbeg, kend, fast_kg_where<BN, T>());
    }
    kg_even_barriers<T>((kend - kbeg + FAST_BK - 1) / FAST_BK, run);
    __syncthreads(); /* every group's tile (and edges' sums) in its stages */
    kg_sum<BM, BN>(c_tile(p, i0, j0), (const float *)smem_raw, gstride);
    if (EDGES && (bi < p.xh || bj < p.xw))
        kg_edges_store<BM, BN, T>(p, (const float *)smem_raw + BM * BN, gstride, bi, bj, i0, j0);
}

/* [with the edges][aligned], named as fast_sgemm's kernels are (tiles.cu). */
#define FAST_KG_NAME(ANY) "fast_sgemm_kg<64x128/32" ANY ">"
const fast_kernel fast_kg_kernels[2][2] = {
    {{fast_sgemm_kg<64, 128, 32, false, false>, FAST_KG_NAME(",unaligned")},
     {fast_sgemm_kg<64, 128, 32, true, false>, FAST_KG_NAME("")}},
    {{fast_sgemm_kg<64, 128, 32, false, true>, FAST_KG_NAME(",unaligned,edges")},
     {fast_sgemm_kg<64, 128, 32, true, true>, FAST_KG_NAME(",edges")}},
};
