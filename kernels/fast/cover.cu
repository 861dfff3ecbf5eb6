/* cover.cu - mode fast's cover kernel: tiles of 96 x 88 that cover the
 * whole output in one wave (1037 x 1031 in 11 x 12 = 132, a tile an SM of
 * a 132-SM Hopper GPU), with the k-groups kernel's plan (a tile an SM, its k
 * shared by COVER_KG warp groups, their sums added in shared memory in
 * group order): no edges. */
#include "kernels/fast/tile.cuh"

/* 1037 x 1031 in 64 x 128 tiles is 1024 x 1024 in 128 of them, and 13 rows
 * and 7 columns that cost the product much of its time whether its blocks
 * make them or gemm_edges does. Tiles of 96 x 88 cover all of 1037 x 1031
 * in 11 x 12 = 132, each a little bigger than 64 x 128: no edges. The
 * k-groups kernel's plan (a tile an
 * SM, its k shared by COVER_KG warp groups, their sums added in shared
 * memory in group order), with a thread of 8 x TN outputs: 8 rows (two
 * 16-byte loads of a's k-major stage) and TN columns, which b's stage
 * holds in COVER_CP(TN) floats so that they too are 16-byte loads (3 for
 * 11). A warp is 4 thread rows of 8 threads each: the 8 threads of one
 * row, which the shared memory serves together, read one address of a
 * and 8 x 16 bytes of b in 32 different banks (12 floats apart). A group
 * is 3 warps, and 4 groups (12 warps an SM, at most 168 registers a
 * thread) ran faster than 3. The last tile row and column are
 * moved back to end at the output's edge: every copy reads inside a and
 * b, and only the last stage, past k, needs checks. */
#define COVER_STAGES FAST_STAGES /* 4 ran slower */
#define COVER_T (32 * COVER_WARPS)
#define COVER_CP(TN) (((TN) + 3) / 4 * 4)                  /* b's floats a thread row in a stage */
template <int TN> using cover_stage = fast_stage<COVER_BM, 8 * COVER_CP(TN)>;

/* A group's warps on one of the SM's four schedulers. The SM deals warp w
 * (in the order of the block's threads) to scheduler w % 4, so a block of
 * 32 x COVER_KG x COVER_WARPS threads makes warp w warp w / 4 of group
 * w % 4: each group has a scheduler to itself, and no warp waits at its
 * group's barrier on warps that another group holds back (PERF.md,
 * ## fast, cover). Thread t of its group (threadIdx.y), 0 .. COVER_T - 1. */
static __device__ __forceinline__ int cover_tid(void) { return threadIdx.x + 32 * threadIdx.z; }

/* The groups share k in runs of half stages, not stages: 1055 is 66
 * stages, 17, 17, 17 and 15 a group, and the last group waited two stages
 * at the block's barrier; 132 halves give each group 33 (16 and a half
 * stages), and the barrier waits fall. A group's
 * last stage, half before kend, does the first half of its arithmetic
 * only (cover_fma); cover_run_halves (plan.h) is a group's run. */

/* The thread's rows of a's stage at k0, copies v0 .. v1 - 1 of its 8 (a row
 * and k-rows q and q + 8 each), laid out as copy_a
 * lays them (k-major, a warp's 32 copies in 32 banks), with no checks:
 * the stage lies before kend, and every row of a cover block lies in a
 * (fast_sgemm_cover moves the last tiles back). copy_a's checks made 8
 * instructions of each of its 16 copies a stage. Each
 * row's address from the first row's, not the row before's: a chain of
 * adds made the warps wait on each. */
template <int TN>
static __device__ __forceinline__ void cover_copy_a_rows(cover_stage<TN> *st, const fast_args &p, int i0, int k0,
                                                         int v0, int v1)
{
    constexpr int W = COVER_WARPS;
    int tx = cover_tid(), lane = tx % 32, i = lane % 4 + 4 * (tx / 32), q = lane / 4;
    const float *src = p.a + (size_t)(i0 + i) * p.lda + k0 + q;
    unsigned step = (unsigned)opaque(4 * W * p.lda);
#pragma unroll
    for (int v = v0; v < v1; v++) {
        const float *row = src + (size_t)v * step;
        copy_async<4>(&st->as[q][i + 4 * W * v], row, true);
        copy_async<4>(&st->as[q + 8][i + 4 * W * v], row + 8, true);
    }
}

/* b's stage at k0, k-rows q0 .. q1 - 1, all before kend: thread t fills
 * place t of each, column jb of b (place t % COVER_CP(TN) of thread column t /
 * COVER_CP(TN)); a thread on a place that pads copies nothing. By places,
 * not columns, so that a warp's copies land in 32 banks (by columns, two
 * of them shared a bank). */
template <int TN>
static __device__ __forceinline__ void cover_copy_b_rows(cover_stage<TN> *st, const fast_args &p, int jb, int k0,
                                                         int q0, int q1)
{
    int t = cover_tid();
    if (t % COVER_CP(TN) >= TN)
        return;
    const float *src = p.b + (size_t)k0 * p.ldb + jb;
    unsigned step = (unsigned)opaque(p.ldb);
#pragma unroll
    for (int q = q0; q < q1; q++)
        copy_async<4>(&st->bs[q][t], src + (size_t)q * step, true);
}

/* a's part of the stage at k0: the whole stage as above, or the last,
 * partly past kend, by copy_a, which zero-fills there. */
template <int TN>
static __device__ __forceinline__ void cover_copy_a(cover_stage<TN> *st, const fast_args &p, int i0, int k0, int kend)
{
    if (k0 + FAST_BK <= kend)
        cover_copy_a_rows<TN>(st, p, i0, k0, 0, COVER_BM / (4 * COVER_WARPS));
    else
        copy_a<COVER_BM, 8 * COVER_CP(TN), COVER_T>(st, p, i0, k0, kend, cover_tid());
}

/* b's part: the whole stage as above, or the last, zero-filled past kend. */
template <int TN>
static __device__ __forceinline__ void cover_copy_b(cover_stage<TN> *st, const fast_args &p, int jb, int k0,
                                                    int kend)
{
    if (k0 + FAST_BK <= kend) {
        cover_copy_b_rows<TN>(st, p, jb, k0, 0, FAST_BK);
        return;
    }
    int t = cover_tid();
    if (t % COVER_CP(TN) >= TN)
        return;
    const float *src = p.b + (size_t)k0 * p.ldb + jb;
#pragma unroll
    for (int q = 0; q < FAST_BK; q++)
        copy_async<4>(&st->bs[q][t], k0 + q < kend ? src + (size_t)q * p.ldb : p.b, k0 + q < kend);
}

/* The first of thread t's 8 rows of the tile: a warp is 4 thread rows of
 * 8 threads. */
static __device__ __forceinline__ int cover_row(int t) { return 32 * (t / 32) + 8 * (t % 32 / 8); }

/* The 16 bytes at shared-memory address addr. The loop's shared loads
 * are made from two 32-bit addresses made once, not from the stage's
 * pointer, whose shared-window base ptxas made again (S2R of the CTA's
 * id) every 8 k-rows, the first loads waiting on it. */
static __device__ __forceinline__ float4 lds128(unsigned addr)
{
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr));
    return v;
}

/* The thread's 8 x TN multiply-adds of one stage, sa and sb the shared
 * addresses of its first row of a's stage and of the stage plus its
 * first column of b's. The stage's 16 k-rows are unrolled whole, in two
 * halves of 8, the second only where `rows` (those before kend) reach
 * it; before k-row q, before(q), whose copies' places need every k-row's
 * number known. */
template <int TN, class Before>
static __device__ __forceinline__ void cover_fma(float acc[8][TN], int rows, Before &&before, unsigned sa, unsigned sb)
{
#pragma unroll
    for (int q = 0; q < FAST_BK; q++) {
        if (q == FAST_BK / 2 && rows <= FAST_BK / 2)
            break;
        before(q);
        float av[8], bv[COVER_CP(TN)];
        constexpr unsigned AS = sizeof(cover_stage<TN>::as[0]), BS = sizeof(cover_stage<TN>::bs[0]);
        constexpr unsigned BOFF = sizeof(cover_stage<TN>::as);
        *(float4 *)&av[0] = lds128(sa + q * AS);
        *(float4 *)&av[4] = lds128(sa + q * AS + 16);
#pragma unroll
        for (int g = 0; g < COVER_CP(TN) / 4; g++)
            *(float4 *)&bv[4 * g] = lds128(sb + BOFF + q * BS + 16 * g);
#pragma unroll
        for (int e = 0; e < 8 * TN; e++) {
            int i, j;
            fma_place<FAST_FMA_B_SNAKE, 8, TN>(e, i, j);
            acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
    }
}

/* Before k-row q of a stage's arithmetic, the copies of the stage at k0
 * that go there: a whole stage's 32 in BURSTS bursts of 4, a's rows two
 * at a time before k-rows 0, 4, 8 and 12, b's k-rows four at a time
 * before k-rows 2, 6, 10 and 14. Where the bursts go moves ptxas's
 * schedule as the order of the multiply-adds does; these places ran as
 * fast as any tried (PERF.md, ## fast, the plans). The last stage, checked,
 * goes all before k-row 0. */
template <int TN>
static __device__ __forceinline__ void cover_copies(cover_stage<TN> *st, const fast_args &p, int i0, int jb, int k0,
                                                    int kend, int q)
{
    constexpr int V = COVER_BM / (4 * COVER_WARPS), BURSTS = 4, EVERY = FAST_BK / BURSTS;
    static_assert(FAST_BK % (2 * BURSTS) == 0 && V % BURSTS == 0, "each burst copies whole rows and k-rows");
    if (k0 + FAST_BK > kend) {
        if (q == 0) {
            cover_copy_a<TN>(st, p, i0, k0, kend);
            cover_copy_b<TN>(st, p, jb, k0, kend);
        }
        return;
    }
    if (q % EVERY == 0)
        cover_copy_a_rows<TN>(st, p, i0, k0, q / EVERY * V / BURSTS, (q / EVERY + 1) * V / BURSTS);
    if (q % EVERY == EVERY / 2)
        cover_copy_b_rows<TN>(st, p, jb, k0, q / EVERY * FAST_BK / BURSTS, (q / EVERY + 1) * FAST_BK / BURSTS);
}

/* Group threadIdx.y's product over k in [kbeg, kend) for the tile at (i0,
 * j0), in its own stages st: tile_product's pipeline (each step waits for
 * its stage, starts the copies of the stage COVER_STAGES - 1 ahead, then
 * does its arithmetic), into acc; the copies go among the arithmetic
 * (cover_copies): all 32 at once, with no other instruction between
 * them, stalled the warps on the queue of loads. */
template <int TN>
static __device__ __forceinline__ void cover_product(const fast_args &p, cover_stage<TN> *st, int i0, int j0,
                                                     int kbeg, int kend, float acc[8][TN])
{
    int t = cover_tid(), steps = kend > kbeg ? (kend - kbeg + FAST_BK - 1) / FAST_BK : 0;
    int r = cover_row(t), cb = COVER_CP(TN) * (t % 8);
    int jb = j0 + t / COVER_CP(TN) * TN + t % COVER_CP(TN);
    unsigned sa0 = (unsigned)opaque((int)__cvta_generic_to_shared(&st[0].as[0][r]));
    unsigned sb0 = (unsigned)opaque((int)__cvta_generic_to_shared((float *)st + cb));
#pragma unroll
    for (int s = 0; s < COVER_STAGES - 1; s++) {
        if (s < steps) {
            cover_copy_a<TN>(&st[s], p, i0, kbeg + s * FAST_BK, kend);
            cover_copy_b<TN>(&st[s], p, jb, kbeg + s * FAST_BK, kend);
        }
        copy_commit();
    }
    for (int s = 0; s < steps; s++) {
        copy_wait<COVER_STAGES - 2>();
        group_sync<COVER_KG, COVER_T>(); /* stage s is complete, and stage s - 1 is free */
        int next = s + COVER_STAGES - 1, k0 = kbeg + next * FAST_BK;
        cover_stage<TN> *later = &st[next % COVER_STAGES];
        unsigned slot = (unsigned)(s % COVER_STAGES) * (unsigned)sizeof(cover_stage<TN>);
        cover_fma<TN>(acc, kend - kbeg - s * FAST_BK, [&](int q) {
            if (next < steps)
                cover_copies<TN>(later, p, i0, jb, k0, kend, q);
        }, sa0 + slot, sb0 + slot);
        copy_commit();
    }
}

/* The groups' tiles (group g's at part + g * gstride, rows BN + 1 floats
 * apart) added in group order and stored into d by every thread of the
 * block, as kg_sum does; but the first r0 rows and c0 columns, which
 * belong to the tiles before. A thread keeps one column and walks its
 * rows, RA = COVER_KG * COVER_T / BN at a time (4 at 88 columns: 352 of
 * the 384 threads), with no division and each load and store a step
 * from the last, where a loop over elements with a division and a check
 * each ran slower (PERF.md, ## fast, the plans); a warp's loads still read
 * consecutive floats and its stores write them. */
template <int BN>
static __device__ void cover_sum(const fast_dst &d, int r0, int c0, const float *part, size_t gstride)
{
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    constexpr int RA = COVER_KG * COVER_T / BN;
    static_assert(COVER_BM % RA == 0, "the rows split evenly among the threads of a column");
    int j = t % BN, i = t / BN;
    if (i >= RA || j < c0)
        return;
    const float *at = part + i * (BN + 1) + j;
    float *out = d.at + (size_t)i * d.ld + j;
    size_t step = (size_t)RA * d.ld;
#pragma unroll 8
    for (int n = 0; n < COVER_BM / RA; n++) {
        float s = at[0];
#pragma unroll
        for (int g = 1; g < COVER_KG; g++)
            s += at[g * gstride];
        if (i + n * RA >= r0)
            *out = s;
        at += RA * (BN + 1);
        out += step;
    }
}

/* Block x makes tile x (tile_of's order) of c, COVER_BM x 8 TN, as
 * fast_sgemm_kg does: each group its run of k (in half stages,
 * cover_run_halves), its sums into its own stages as a tile, and the
 * block's threads add the groups' tiles in group order (cover_sum). The
 * tile's rows are 8 TN + 1 floats apart there: 8 TN (88) put a warp's 4
 * thread rows, 8 rows apart, in one bank, and the stores ran 4-way
 * conflicted. */
template <int TN>
static __global__ void __launch_bounds__(COVER_KG * COVER_T, 1) fast_sgemm_cover(fast_args p)
{
    constexpr int BN = 8 * TN;
    constexpr size_t gstride = COVER_STAGES * sizeof(cover_stage<TN>) / sizeof(float);
    static_assert(COVER_BM * (BN + 1) <= gstride, "a group's tile fits its stages");
    static_assert(8 * COVER_CP(TN) <= COVER_T, "a thread copies one place of b's k-rows (cover_copy_b)");
    extern __shared__ float4 smem_raw[];
    cover_stage<TN> *st = (cover_stage<TN> *)smem_raw + threadIdx.y * COVER_STAGES;
    int bi, bj;
    tile_of(blockIdx.x, (p.m + COVER_BM - 1) / COVER_BM, (p.n + BN - 1) / BN, &bi, &bj);
    /* The last tile row and column end at the output's edge, over rows
     * and columns of the tiles before them, which they make again but
     * leave to those tiles: every copy then reads inside a and b. */
    int i0 = min(bi * COVER_BM, p.m - COVER_BM), j0 = min(bj * BN, p.n - BN);
    int run = cover_run_halves(p.k);
    int kbeg = min(p.k, (int)threadIdx.y * run * COVER_HALF), kend = min(p.k, kbeg + run * COVER_HALF);
    float acc[8][TN];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;
    cover_product<TN>(p, st, i0, j0, kbeg, kend, acc);
    kg_even_barriers<COVER_T, COVER_KG>((kend - kbeg + FAST_BK - 1) / FAST_BK, (run + 1) / 2);
    group_sync<COVER_KG, COVER_T>(); /* the group's warps are done with its stages */
    int t = cover_tid(), r = cover_row(t), c = TN * (t % 8);
    float *part = (float *)st;
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            part[(r + i) * (BN + 1) + c + j] = acc[i][j];
    __syncthreads(); /* every group's tile in its stages */
    cover_sum<BN>(c_tile(p, i0, j0), bi * COVER_BM - i0, bj * BN - j0, (const float *)smem_raw, gstride);
}

#define COVER_SMEM(TN) (COVER_KG * COVER_STAGES * sizeof(cover_stage<TN>))
#define COVER_KERNEL(TN, NAME) {{fast_sgemm_cover<TN>, "fast_sgemm_cover<" NAME ">"}, TN, COVER_SMEM(TN)},
const fast_cover_kernel fast_cover_kernels[FAST_NCOVERS] = {FAST_COVERS(COVER_KERNEL)};

/* c (m x n) = a (m x k) @ b (k x n) by cover i, every row as it lies. */
int fast_cover_run(int i, float *c, const float *a, const float *b, int m, int n, int k)
{
    const fast_cover_kernel *f = &fast_cover_kernels[i];
    fast_args p = {c, a, b, m, n, k, k, k, n, n, 0, n % 4 == 0 && aligned16(c), 0, NULL};
    unsigned tiles = gpu_cdiv(m, COVER_BM) * gpu_cdiv(n, 8 * f->tn);
    dim3 block(32, COVER_KG, COVER_WARPS);
    return gpu_launch(f->k.fn, f->k.name, dim3(tiles), block, f->smem, __FILE__, __LINE__, p);
}
