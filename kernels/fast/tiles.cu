/* tiles.cu - mode fast's tiled product in its two plainest plans: the
 * data-parallel kernel (a block a tile of c, or of one k-slice's partial
 * product, the slices then summed in slice order by sum_slices), and
 * stream-K, where every block of a grid the SMs hold at once takes the
 * same share of all tiles' k-steps. One kernel of each for every tile
 * shape the dispatcher has (fast.cuh, FAST_SHAPES), for rows read 16
 * bytes at a time or a float at a time. */
#include "kernels/fast/tile.cuh"

/* The data-parallel product: block x makes tile x (in tile_of's order) of
 * c, or of k-slice blockIdx.z's partial product. */
template <int BM, int BN, int WM, bool VEC>
static __global__ void __launch_bounds__(FAST_THREADS(BM, BN, WM), FAST_MIN_BLOCKS(BM, BN, WM))
    fast_sgemm(fast_args p)
{
    extern __shared__ float4 smem_raw[];
    int bi, bj;
    tile_of(blockIdx.x, (p.m + BM - 1) / BM, (p.n + BN - 1) / BN, &bi, &bj);
    int i0 = bi * BM, j0 = bj * BN;
    int kbeg = blockIdx.z * p.kchunk, kend = min(p.k, kbeg + p.kchunk);
    tile_product<BM, BN, WM, VEC>(p, (fast_stage<BM, BN> *)smem_raw, i0, j0, kbeg, kend, fast_c_whole());
}

/* --- stream-K ------------------------------------------------------------------ */

/* When the tiles do not divide evenly among the SMs (1037 x 1031 is 153
 * tiles of 64 x 128 for 132 SMs, so one slice leaves most SMs half busy
 * and two slices give some SMs 3 blocks and others 2), the product may run
 * as stream-K (64 x 128 only; plan_cost_sk says when): every block of a
 * grid the SMs hold at once takes the same
 * number of k-steps (`share`) from the list of all tiles' k-steps, tile
 * after tile in tile_of's order. A tile whose k-steps fall to one block is
 * written to c as usual; one split between blocks has each block's part
 * (its segment) in a slot of its own, and the block whose segment arrives
 * last adds the slots in segment order, which is k order: the result does
 * not depend on which block came last, and no float atomics between
 * blocks. A block has at most two split tiles, its first and its last:
 * slots 2 g and 2 g + 1 of block g. */

/* Arrivals at each split tile (fast.cuh, arrived_last). */
static __device__ unsigned sk_arrived[FAST_SK_TILES];

/* Block g's slot for its segment of tile t (t is its first tile or its
 * last). */
template <int BM, int BN>
static __device__ __forceinline__ float *sk_slot(const fast_args &p, int g, int t, int ipt)
{
    int first = (int)((long long)g * p.share / ipt);
    return p.work + ((size_t)2 * g + (t == first ? 0 : 1)) * BM * BN;
}

/* Tile t's segments, blocks lo..hi, added in that order into the thread's
 * outputs of c (the same places it wrote in its own slot). */
template <int BM, int BN, int WM>
static __device__ void sk_fixup(const fast_args &p, int t, int lo, int hi, int ipt, const fast_dst &d)
{
    constexpr int MI = WM / 16;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int r = (warp % (BM / WM)) * WM + (lane / 8) * 4;
    int c = (warp / (BM / WM)) * 64 + (lane % 8) * 4;
    float acc[4 * MI][8];
    for (int g = lo; g <= hi; g++) {
        const float *slot = sk_slot<BM, BN>(p, g, t, ipt);
#pragma unroll
        for (int i = 0; i < 4 * MI; i++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                float4 v = __ldcg((const float4 *)(slot + (size_t)(r + (i / 4) * 16 + i % 4) * BN + c + 32 * h));
                float *o = &acc[i][4 * h];
                o[0] = g == lo ? v.x : o[0] + v.x, o[1] = g == lo ? v.y : o[1] + v.y;
                o[2] = g == lo ? v.z : o[2] + v.z, o[3] = g == lo ? v.w : o[3] + v.w;
            }
    }
    store_tile<MI>(d, acc, r, c, false);
}

/* sk_fixup for rows of c that take no 16-byte stores: the thread's
 * outputs are every T-th float of the tile, so that a warp's loads and
 * stores are 32 consecutive floats of a row (the reason for store_rows). The
 * same sums, in the same order. */
template <int BM, int BN, int WM>
static __device__ void sk_fixup_rows(const fast_args &p, int t, int lo, int hi, int ipt, const fast_dst &d)
{
    constexpr int T = FAST_THREADS(BM, BN, WM), N = BM * BN / T;
    static_assert(BN % 32 == 0 && T % BN == 0, "a warp's 32 floats lie in one row, the same columns each round");
    float acc[N];
    const float *slot = sk_slot<BM, BN>(p, lo, t, ipt) + threadIdx.x;
#pragma unroll
    for (int e = 0; e < N; e++)
        acc[e] = __ldcg(slot + e * T);
    for (int g = lo + 1; g <= hi; g++) {
        slot = sk_slot<BM, BN>(p, g, t, ipt) + threadIdx.x;
#pragma unroll
        for (int e = 0; e < N; e++)
            acc[e] += __ldcg(slot + e * T);
    }
    int i = threadIdx.x / BN, j = threadIdx.x % BN;
    if (j >= d.cols)
        return;
    float *o = d.at + (size_t)i * d.ld + j;
    size_t step = (size_t)(T / BN) * d.ld;
#pragma unroll
    for (int e = 0; e < N; e++, o += step)
        if (i + e * (T / BN) < d.rows)
            *o = acc[e];
}

/* Block blockIdx.x's segment from k-step `it` of all tiles' k-steps: tile
 * t at (i0, j0), its k-steps [kb, ke), and the blocks lo..hi that share
 * it. Cheap enough to compute twice: nothing of it need stay in registers
 * while the tile's loop runs. */
typedef struct {
    int t, kb, ke, lo, hi, i0, j0;
} fast_seg;

template <int BM, int BN>
static __device__ __forceinline__ fast_seg sk_segment(const fast_args &p, int it)
{
    int tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN, ipt = (p.k + FAST_BK - 1) / FAST_BK;
    int end = min(tiles_m * tiles_n * ipt, ((int)blockIdx.x + 1) * p.share);
    fast_seg s;
    s.t = it / ipt, s.kb = it - s.t * ipt, s.ke = min(ipt, s.kb + end - it);
    s.lo = s.t * ipt / p.share, s.hi = ((s.t + 1) * ipt - 1) / p.share;
    int bi, bj;
    tile_of(s.t, tiles_m, tiles_n, &bi, &bj);
    s.i0 = bi * BM, s.j0 = bj * BN;
    return s;
}

/* Where a stream-K block's segment from k-step `it` goes: the tile of c
 * if the segment is the whole tile, else the block's slot. Found again at
 * each store from `it` alone, so that only `it` stays in registers
 * through the k loop (with the place kept from the start, 64 x 128's
 * stream-K kernel spilled 8-12 bytes; now none). */
template <int BM, int BN> struct fast_sk_where {
    int it;
    template <int MI>
    __device__ void store(const fast_args &p, const float acc[4 * MI][8], int, int, int r, int c, bool add,
                          float *stages = nullptr) const
    {
        fast_seg s = sk_segment<BM, BN>(p, opaque(it));
        fast_dst d = c_tile(p, s.i0, s.j0);
        if (s.lo != s.hi)
            d = {sk_slot<BM, BN>(p, blockIdx.x, s.t, (p.k + FAST_BK - 1) / FAST_BK), BN, BM, BN, 1};
        store_tile<MI>(d, acc, r, c, add, stages);
    }
};

/* Block g's k-steps [g share, (g + 1) share) of all tiles' tiles x ipt. */
template <int BM, int BN, int WM, bool VEC>
static __global__ void __launch_bounds__(FAST_THREADS(BM, BN, WM), FAST_MIN_BLOCKS(BM, BN, WM))
    fast_sgemm_sk(fast_args p)
{
    extern __shared__ float4 smem_raw[];
    gpu_wait_prior();     /* for the padded copies, if launched early (run_padded) */
    gpu_next_may_start(); /* gemm_thin, beside the last of the product (fast_matmul) */
    fast_stage<BM, BN> *st = (fast_stage<BM, BN> *)smem_raw;
    int all = (p.m + BM - 1) / BM * ((p.n + BN - 1) / BN) * ((p.k + FAST_BK - 1) / FAST_BK);
    int end = min(all, ((int)blockIdx.x + 1) * p.share);
    for (int it = blockIdx.x * p.share; it < end;) {
        fast_seg s = sk_segment<BM, BN>(p, it);
        tile_product<BM, BN, WM, VEC>(p, st, s.i0, s.j0, s.kb * FAST_BK, min(p.k, s.ke * FAST_BK),
                                      fast_sk_where<BM, BN>{it});
        it = opaque(it);
        s = sk_segment<BM, BN>(p, it);
        if (s.lo != s.hi && arrived_last(&sk_arrived[s.t], s.hi - s.lo + 1)) {
            fast_dst c = c_tile(p, s.i0, s.j0);
            int steps = (p.k + FAST_BK - 1) / FAST_BK; /* ipt, not kept through the loop */
            if (c.vec)
                sk_fixup<BM, BN, WM>(p, s.t, s.lo, s.hi, steps, c);
            else
                sk_fixup_rows<BM, BN, WM>(p, s.t, s.lo, s.hi, steps, c);
        }
        __syncthreads(); /* every thread is done with the stages before the next tile's copies */
        it += s.ke - s.kb;
        end = opaque(end);
    }
}

/* --- the sum of the slices --------------------------------------------------------- */

/* Where element i of an n-column output goes in c, whose rows are ldc
 * apart. */
static __device__ __forceinline__ size_t c_index(size_t i, int n, int ldc)
{
    return ldc == n ? i : i / n * ldc + i % n;
}

/* c = the sum of the `slices` partial products at part, slice after slice:
 * always in the same order, so a result never changes from run to run (no
 * float atomics between blocks). len = m x n, c's rows ldc apart; 4
 * elements a thread where aligned (vec: then ldc == n). The unrolled walk
 * issues 8 slices' loads before their adds: with a small output and many
 * slices, the walk's latency is the whole cost. */
static __global__ void sum_slices(float *c, const float *part, size_t len, int n, int ldc, int slices, int vec)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (vec) {
        for (; i < len / 4; i += stride) {
            float4 s = ((const float4 *)part)[i];
#pragma unroll 8
            for (int z = 1; z < slices; z++) {
                float4 v = ((const float4 *)(part + z * len))[i];
                s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
            }
            ((float4 *)c)[i] = s;
        }
        return;
    }
    for (; i < len; i += stride) {
        float s = part[i];
#pragma unroll 8
        for (int z = 1; z < slices; z++)
            s += part[z * len + i];
        c[c_index(i, n, ldc)] = s;
    }
}

/* The same sum when there are many slices of a small output (a long k):
 * sum_slices would give each thread a long walk down the slices in a grid
 * too small to fill the chip. Here a block of SUM_WARPS warps takes 32
 * outputs; warp w adds slices w, w + SUM_WARPS, ... and shared memory adds
 * the warps' sums in warp order: the same order every run. */
#define SUM_WARPS 8
static __global__ void sum_slices_wide(float *c, const float *part, size_t len, int n, int ldc, int slices)
{
    __shared__ float sums[SUM_WARPS][32];
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    size_t i = (size_t)blockIdx.x * 32 + lane;
    float s = 0.0f;
    if (i < len)
        for (int z = w; z < slices; z += SUM_WARPS)
            s += part[(size_t)z * len + i];
    sums[w][lane] = s;
    __syncthreads();
    if (w != 0 || i >= len)
        return;
    for (int v = 1; v < SUM_WARPS; v++)
        s += sums[v][lane];
    c[c_index(i, n, ldc)] = s;
}

int fast_sum_run(float *c, int ldc, const float *part, int m, int n, int slices)
{
    size_t len = (size_t)m * n;
    if (slices >= 2 * SUM_WARPS) {
        GPU_LAUNCH(sum_slices_wide, gpu_cdiv((long long)len, 32), SUM_WARPS * 32, 0, c, part, len, n, ldc, slices);
        return 0;
    }
    int vec = ldc == n && len % 4 == 0 && aligned16(c) && aligned16(part);
    GPU_LAUNCH(sum_slices, gpu_grid_1d(vec ? len / 4 : len), GPU_THREADS, 0, c, part, len, n, ldc, slices, vec);
    return 0;
}

/* --- the kernels of each shape ------------------------------------------------------ */

/* A shape's kernels by name: fast_sgemm<64x128/32> reads rows 16 bytes at
 * a time, fast_sgemm<64x128/32,unaligned> a float at a time; _sk for
 * stream-K. Stream-K kernels of the other shapes, timed at 14 shapes, beat
 * 64 x 128's at none: only 64 x 128 has one. */
#define FAST_NAME(BM, BN, WM, SK, ANY) "fast_sgemm" SK "<" #BM "x" #BN "/" #WM ANY ">"
#define FAST_DP(BM, BN, WM)                                                                                        \
    {{fast_sgemm<BM, BN, WM, false>, FAST_NAME(BM, BN, WM, "", ",unaligned")},                                     \
     {fast_sgemm<BM, BN, WM, true>, FAST_NAME(BM, BN, WM, "", "")}}
#define FAST_SK(BM, BN, WM)                                                                                        \
    {{fast_sgemm_sk<BM, BN, WM, false>, FAST_NAME(BM, BN, WM, "_sk", ",unaligned")},                               \
     {fast_sgemm_sk<BM, BN, WM, true>, FAST_NAME(BM, BN, WM, "_sk", "")}}
#define FAST_SK_1(BM, BN, WM) FAST_SK(BM, BN, WM)
#define FAST_SK_0(BM, BN, WM) {{NULL, NULL}, {NULL, NULL}}
#define FAST_TILE_ROW(BM, BN, WM, SK) {FAST_DP(BM, BN, WM), FAST_SK_##SK(BM, BN, WM)},
const fast_kernel fast_tile_kernels[FAST_NSHAPES][2][2] = {FAST_SHAPES(FAST_TILE_ROW)};

/* The planner's figures of each shape (plan.c, fast_shapes) are these
 * kernels'. */
#define FAST_SHAPE_AGREES(BM, BN, WM, SK)                                                                          \
    static_assert(FAST_STAGES * FAST_BK * ((BM) + FAST_APAD + (BN)) * sizeof(float) ==                             \
                          FAST_STAGES * sizeof(fast_stage<BM, BN>) &&                                              \
                      (BM) / (WM) * ((BN) / 64) * 32 == FAST_THREADS(BM, BN, WM),                                  \
                  "plan.c's shape " #BM "x" #BN " is the kernels'");
FAST_SHAPES(FAST_SHAPE_AGREES)
