/* tile.cuh - the FP32 tile machinery of mode fast's tiled kernels
 * (tiles.cu, kgroups.cu, cover.cu): a block's stages in shared memory fed
 * by cp.async, the order of a thread's multiply-adds, the stores of its
 * outputs (written, or added by the L2 for the folds), and one block's
 * pipelined product over a run of k (tile_product). Include from
 * kernels/fast/ .cu only. */
#ifndef CUK_FAST_TILE_CUH
#define CUK_FAST_TILE_CUH

#include "kernels/fast/fast.cuh"
#include "kernels/gpu_async.h"

/* Block rows walked together, for L2 reuse of b's tiles: 4 ran faster
 * than 1, 2, 8 or 16 (PERF.md, ## fast, the tiled kernels). */
#define FAST_GROUP 4

/* Where outputs go: `at` is the corner of the region (all of c or of a
 * slice's partial product, a tile of c, or a stream-K slot, which holds a
 * whole tile), rows ld floats apart, rows x cols of it inside the matrix;
 * vec: the rows can take 16-byte stores. */
typedef struct {
    float *at;
    int ld, rows, cols, vec;
} fast_dst;

/* The shared-memory layout of one stage: a's tile k-major (as[q][i] =
 * a[i0 + i][k0 + q]), so that a thread's 8 values of a at one q are two
 * 16-byte loads, like its 8 values of b; b's tile as it is in memory. The
 * padding of 4 floats keeps the rows 16-byte aligned and halves the bank
 * conflicts of the transposed stores (2-way, on 8 stores against 64 loads
 * a stage). A swizzle that removed the rest ran slower: these stores are
 * not what the loop waits for. */
template <int BM, int BN> struct fast_stage {
    float as[FAST_BK][BM + FAST_APAD];
    float bs[FAST_BK][BN];
};

/* Where one thread's share of each stage comes from. a (the 16 x 8
 * kernel; the others copy it with copy_a): NA 16-byte pieces (4
 * consecutive q of one row) of rows ra + t * T / 4, through registers to
 * be stored transposed, which a 16-byte cp.async cannot do. b:
 * cp.async straight into shared memory, 16 bytes (VEC) or 4 at a time,
 * rows qb + t * (rows a round of the block covers). Pointers are to k = 0 of
 * the thread's first row (a) or column (b), so a stage adds only its k0:
 * no per-copy addresses to keep in registers. VEC: the rows of a and b are
 * 16-byte aligned (lda, ldb % 4 == 0, the buffers aligned), and a's
 * floats past k, up to lda, are zeros (a padded copy's); otherwise every
 * float is read on its own. */
template <int BM, int BN, int T> struct fast_loader {
    static constexpr int NA = BM * FAST_BK / 4 / T;
    const float *pa, *pb;
    int ra, qa, qb, jb;
};

/* The thread's fixed part of every stage's copies. */
template <int BM, int BN, int T, bool VEC>
static __device__ __forceinline__ fast_loader<BM, BN, T> loader_at(const fast_args &p, int i0, int j0)
{
    fast_loader<BM, BN, T> L;
    int t = threadIdx.x;
    static_assert(FAST_BK == 16, "4 threads of 4 floats load a row of a's stage: FAST_BK must be 16");
    L.ra = i0 + t / 4;
    L.qa = (t % 4) * 4;
    L.pa = p.a + (size_t)min(L.ra, p.m - 1) * p.lda + L.qa;
    constexpr int per_row = VEC ? BN / 4 : BN; /* threads across one row of b's tile */
    L.qb = t / per_row;
    L.jb = j0 + (t % per_row) * (VEC ? 4 : 1);
    L.pb = p.b + min(L.jb, p.n - 1) + (size_t)L.qb * p.ldb;
    return L;
}

/* a's pieces of the stage at k0 into registers; past an edge, zeros. With
 * VEC, a piece at q < kend is read whole: a slice's end is a multiple of
 * 4, and a piece across k reads the zeros that pad a's rows (or k % 4 ==
 * 0). */
template <int BM, int BN, int T, bool VEC>
static __device__ __forceinline__ void fetch_a(float4 *v, const fast_loader<BM, BN, T> &L, const fast_args &p, int k0,
                                               int kend)
{
    int q = k0 + L.qa;
    const float *base = L.pa + k0;
#pragma unroll
    for (int t = 0; t < L.NA; t++) {
        bool row_ok = L.ra + t * (T / 4) < p.m;
        const float *src = base + (size_t)t * (T / 4) * p.lda;
        if (VEC) {
            v[t] = row_ok && q < kend ? __ldg((const float4 *)src) : make_float4(0.f, 0.f, 0.f, 0.f);
        } else {
            v[t].x = row_ok && q < kend ? src[0] : 0.f;
            v[t].y = row_ok && q + 1 < kend ? src[1] : 0.f;
            v[t].z = row_ok && q + 2 < kend ? src[2] : 0.f;
            v[t].w = row_ok && q + 3 < kend ? src[3] : 0.f;
        }
    }
}

/* ... and from registers into the stage, transposed. */
template <int BM, int BN, int T>
static __device__ __forceinline__ void store_a(fast_stage<BM, BN> *st, const float4 *v,
                                               const fast_loader<BM, BN, T> &L, int i0)
{
#pragma unroll
    for (int t = 0; t < L.NA; t++) {
        int i = L.ra - i0 + t * (T / 4);
        st->as[L.qa + 0][i] = v[t].x;
        st->as[L.qa + 1][i] = v[t].y;
        st->as[L.qa + 2][i] = v[t].z;
        st->as[L.qa + 3][i] = v[t].w;
    }
}

/* x, which the compiler cannot see through: addresses computed from it
 * are computed where they are used, not hoisted out of the k loop into
 * registers the accumulators need. */
static __device__ __forceinline__ int opaque(int x)
{
    asm volatile("mov.b32 %0, %0;" : "+r"(x));
    return x;
}

/* a's tile at k0 by cp.async, straight into its k-major place, 4 bytes a
 * copy (no 16-byte copy can transpose): lane l copies k-row q0 + l / 4 of
 * rows i + l % 4 of the tile (i: 4 w, then every 4 W rows), then the same
 * 8 q further on. So a warp's copy reads 4 rows x 32 contiguous bytes
 * (4 whole sectors), and its 32 stores fall in 32 banks: as[q][i] is bank
 * 4 q + i (BM % 32 == 0, 4 floats of padding). Nothing passes through
 * registers, and a's floats past k or m are zero-filled whatever the
 * alignment, so VEC and unaligned a copy alike. tx is the thread's place
 * among the T that copy: threadIdx.x, or the cover kernel's cover_tid(),
 * an int; the type is the caller's, so that each kernel keeps the
 * arithmetic it was timed with (unsigned % and / are shifts). */
template <int BM, int BN, int T, class Tx>
static __device__ __forceinline__ void copy_a(fast_stage<BM, BN> *st, const fast_args &p, int i0, int k0, int kend,
                                              Tx tx)
{
    constexpr int W = T / 32, N = BM * FAST_BK / T;
    static_assert(FAST_APAD == 4 && BM % 32 == 0 && N % 2 == 0 && BM % (4 * W) == 0,
                  "copy_a's lanes map to 32 banks and whole rows");
    int lane = tx % 32;
    int i = lane % 4 + 4 * (tx / 32), q = lane / 4;
    /* Addresses walked from one pointer, the step made opaque: hoisted out
     * of the k loop, the N / 2 row pointers took 11 more registers. */
    size_t step = (size_t)opaque(4 * W) * p.lda;
    const float *src = p.a + (size_t)(i0 + i) * p.lda + k0 + q;
    int rows = p.m - i0 - i, qs = kend - k0 - q;
#pragma unroll
    for (int u = 0; u < N; u += 2) {
        bool row_ok = 4 * W * (u / 2) < rows;
        copy_async<4>(&st->as[q][i + 4 * W * (u / 2)], row_ok && 0 < qs ? src : p.a, row_ok && 0 < qs);
        copy_async<4>(&st->as[q + 8][i + 4 * W * (u / 2)], row_ok && 8 < qs ? src + 8 : p.a, row_ok && 8 < qs);
        src += step;
    }
}

/* b's tile at k0 as it lies, by cp.async: a warp copies 512 contiguous bytes
 * of a row (VEC; a piece at j < n is whole: n % 4 == 0, or the row is padded
 * to ldb) or 128. Rows past kend are zero-filled. WHOLE: the k-groups
 * kernel, which copies a whole stage's 4-byte pieces in one go. */
template <int BM, int BN, int T, bool VEC, bool WHOLE = false>
static __device__ __forceinline__ void copy_b(fast_stage<BM, BN> *st, const fast_loader<BM, BN, T> &L,
                                              const fast_args &p, int k0, int kend)
{
    constexpr int W = VEC ? 4 : 1, ROWS = T / (BN / W), N = FAST_BK / ROWS;
    int j = L.jb % BN; /* column within the tile: j0 is a multiple of BN */
    const float *base = L.pb + (size_t)k0 * p.ldb;
    if (!VEC && WHOLE && k0 + FAST_BK <= kend) {
        /* A whole stage of 4-byte copies: no row past kend, the column
         * the thread's own, the rows reached by adds. With each copy's
         * checks and address made on its own, the k-groups kernel, one
         * block an SM with nothing to hide its copies behind, ran many
         * more instructions on b as it lies than on b padded; the kernels
         * of two blocks an SM or more ran slower this way. */
        bool ok = L.jb < p.n;
        const float *src = ok ? base : p.b;
        size_t step = ok ? (size_t)ROWS * p.ldb : 0;
#pragma unroll
        for (int t = 0; t < N; t++, src += step)
            copy_async<4>(&st->bs[L.qb + t * ROWS][j], src, ok);
        return;
    }
#pragma unroll
    for (int t = 0; t < N; t++) {
        int q = L.qb + t * ROWS;
        bool ok = k0 + q < kend && L.jb < p.n;
        const float *src = ok ? base + (size_t)t * ROWS * p.ldb : p.b;
        copy_async<4 * W>(&st->bs[q][j], src, ok);
    }
}

/* Block tile (bi, bj) of block id `id`: the tiles are walked FAST_GROUP
 * block rows at a time, column by column, so that blocks running together
 * share b's column tiles and a's row tiles in L2. */
static __device__ __forceinline__ void tile_of(int id, int tiles_m, int tiles_n, int *bi, int *bj)
{
    int per_group = FAST_GROUP * tiles_n;
    int first = id / per_group * FAST_GROUP;
    int rows = min(tiles_m - first, FAST_GROUP);
    int in = id % per_group;
    *bi = first + in % rows;
    *bj = in / rows;
}

/* --- the order of a thread's multiply-adds -----------------------------------------
 * A k-row of a thread's tile is an outer product, acc[i][j] += a[i] b[j],
 * whose R x C multiply-adds may run in any order: each output's own sum
 * over k keeps its order, so the results are the same bits in every
 * order. ptxas keeps the source's order of the columns within a row (it
 * moves rows and halves of rows about), and that order decides which
 * operands the operand reuse cache can hand to the next instruction, and
 * what the scheduler makes of the loop: the orders tried ran the same
 * instructions up to 10% apart, and counting register bank conflicts in
 * the SASS picked out the worst, not the best: only timing did that
 * (PERF.md, ## fast, the tiled kernels). Each order the kernels use is a
 * snake: every other row (or column) runs backwards, so that it starts on
 * the operand the one before ended on. The 8 x 8 kernels take
 * FAST_FMA_SNAKE, the 16 x 8 kernel FAST_FMA_SNAKE_HALVES, the cover
 * kernel FAST_FMA_B_SNAKE (with its copies among the arithmetic,
 * cover.cu). */
#define FAST_FMA_SNAKE 1        /* odd rows backwards */
#define FAST_FMA_SNAKE_HALVES 2 /* a snake over columns 5, 4, 7, 6, 1, 0, 3, 2 (C = 8): pairs swapped, halves too */
#define FAST_FMA_B_SNAKE 4      /* b outer: column after column, its rows a snake */

/* Row i and column j of the e-th multiply-add of an R x C outer product
 * in order O. */
template <int O, int R, int C> static __device__ __forceinline__ void fma_place(int e, int &i, int &j)
{
    static_assert(O != FAST_FMA_SNAKE_HALVES || C % 2 == 0, "each order visits every (i, j) once only for these shapes");
    int v = e / C, x = v % 2 ? C - 1 - e % C : e % C; /* the v-th row, a snake */
    i = v;
    j = O == FAST_FMA_SNAKE_HALVES ? ((x ^ 1) + C / 2) % C : x;
    if (O == FAST_FMA_B_SNAKE) {
        int u = e / R, w = e % R; /* the u-th column, a snake */
        i = u % 2 ? R - 1 - w : w;
        j = u;
    }
}

/* A thread's 4MI x 8 outputs: rows r, r + 16, ... (MI groups of 4), columns
 * c and c + 32 onwards 4 each, of its warp's 16MI x 64 tile. Split in fours
 * so that the 8 threads of a warp row read 128 contiguous bytes of b's tile
 * (and 4 threads 64 of a's): no bank conflicts, and the stores are 16
 * bytes wide. Per k, MI + 2 16-byte loads feed 32MI multiply-adds: MI = 4
 * (16 x 8 a thread) needs a quarter fewer loads per multiply-add than MI = 2. */
template <int BM, int BN, int MI>
static __device__ __forceinline__ void fma_stage(float acc[4 * MI][8], const fast_stage<BM, BN> *st, int r, int c)
{
    /* The 16 x 8 kernel's k-rows 8 at a time, not all 16: a stage's 2048
     * multiply-adds unrolled whole are more code than the instruction
     * cache holds near the SM, and its warps stalled on fetching it; 4
     * deep ran slower than 8. */
    constexpr int QU = MI == 4 ? 8 : FAST_BK;
#pragma unroll QU
    for (int q = 0; q < FAST_BK; q++) {
        float av[4 * MI], bv[8];
#pragma unroll
        for (int g = 0; g < MI; g++)
            *(float4 *)&av[4 * g] = *(const float4 *)&st->as[q][r + 16 * g];
        *(float4 *)&bv[0] = *(const float4 *)&st->bs[q][c];
        *(float4 *)&bv[4] = *(const float4 *)&st->bs[q][c + 32];
#pragma unroll
        for (int e = 0; e < 32 * MI; e++) {
            int i, j;
            fma_place<MI == 4 ? FAST_FMA_SNAKE_HALVES : FAST_FMA_SNAKE, 4 * MI, 8>(e, i, j);
            acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
    }
}

/* dst[0..3] += v, in the L2, without waiting for the old values: the
 * fold's adds (tile_product). A load, add and store stalled the block for
 * the load's trip.
 * Only the thread that wrote dst adds to it, in program order, so the
 * order of the sum, and its bits, are those of the load, add and store
 * (but for subnormals, which the L2's adds flush to zero). */
static __device__ __forceinline__ void add4(float *dst, float4 v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(dst), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
                 : "memory");
#else
    atomicAdd(dst, v.x), atomicAdd(dst + 1, v.y), atomicAdd(dst + 2, v.z), atomicAdd(dst + 3, v.w);
#endif
}

/* Four outputs of row i from column j on (of the tile at d), written or
 * (add) added to what the same thread wrote there before; 16 bytes at once
 * where the row allows. */
static __device__ __forceinline__ void store4(const fast_dst &d, int i, int j, const float *v, bool add)
{
    if (i >= d.rows)
        return;
    float *dst = d.at + (size_t)i * d.ld + j;
    if (d.vec && j + 3 < d.cols) {
        float4 s = make_float4(v[0], v[1], v[2], v[3]);
        if (add)
            add4(dst, s);
        else
            *(float4 *)dst = s;
        return;
    }
    for (int t = 0; t < 4 && j + t < d.cols; t++)
        if (add)
            atomicAdd(dst + t, v[t]);
        else
            dst[t] = v[t];
}

/* Floats of shared memory a warp's patch holds for store_rows: 32 rows of
 * its 64 columns. */
#define FAST_PATCH (32 * 64)

/* The warp's outputs (the thread's 4MI x 8 from row r and column c of d)
 * into d a row at a time, through the warp's patch of the stages: for rows
 * that cannot take 16-byte stores. store4's floats one by one had each
 * store instruction write one float in four of the 32 bytes of each sector
 * it touched, 8 floats of each of 4 rows; here each writes 32 consecutive
 * floats of one row (the same problem slowed tf32x3's Hopper kernel:
 * PERF.md, ## tf32x3). 32 rows a
 * pass, so that a warp needs 8 KB whatever MI is. Every thread of the
 * block must come: the first barrier frees the stages. Added (add) by the
 * L2, as store4 adds: the thread that wrote an output before is of the
 * same warp, and a barrier has passed since. */
template <int MI>
static __device__ void store_rows(const fast_dst &d, const float acc[4 * MI][8], int r, int c, bool add,
                                  float *stages)
{
    int lane = threadIdx.x % 32;
    int lr = (lane / 8) * 4, lc = (lane % 8) * 4; /* the thread's place in its warp's tile */
    int wr = r - lr, wc = c - lc;                 /* the warp's corner in d */
    float *patch = stages + (threadIdx.x / 32) * FAST_PATCH;
    __syncthreads();
#pragma unroll
    for (int pass = 0; pass < MI / 2; pass++) {
#pragma unroll
        for (int t = 0; t < 8; t++) {
            const float *v = acc[pass * 8 + t];
            float *row = patch + ((t / 4) * 16 + lr + t % 4) * 64;
            *(float4 *)(row + lc) = make_float4(v[0], v[1], v[2], v[3]);
            *(float4 *)(row + lc + 32) = make_float4(v[4], v[5], v[6], v[7]);
        }
        __syncwarp();
        int rows = min(32, d.rows - (wr + 32 * pass));
        for (int i = 0; i < rows; i++) {
            float *dst = d.at + (size_t)(wr + 32 * pass + i) * d.ld + wc;
#pragma unroll
            for (int h = 0; h < 64; h += 32)
                if (wc + lane + h < d.cols) {
                    float v = patch[i * 64 + lane + h];
                    if (add)
                        atomicAdd(dst + lane + h, v);
                    else
                        dst[lane + h] = v;
                }
        }
        __syncwarp();
    }
}

/* The thread's 4MI x 8 outputs (its first row r and column c in the
 * tile) into d, written or added (see store4); through shared memory
 * (store_rows) where d's rows take no 16-byte stores and the stages are
 * given, free once every thread has come. */
template <int MI>
static __device__ __forceinline__ void store_tile(const fast_dst &d, const float acc[4 * MI][8], int r, int c, bool add,
                                                  float *stages = nullptr)
{
    if (stages && !d.vec) {
        store_rows<MI>(d, acc, r, c, add, stages);
        return;
    }
    r = opaque(r);
#pragma unroll
    for (int t = 0; t < 4 * MI; t++) {
        int row = r + (t / 4) * 16 + t % 4;
        store4(d, row, c, &acc[t][0], add);
        store4(d, row, c + 32, &acc[t][4], add);
    }
}

/* The tile at (i0, j0) of c, or of slice blockIdx.z's partial product. */
static __device__ __forceinline__ fast_dst c_tile(const fast_args &p, int i0, int j0)
{
    fast_dst d = {p.out + blockIdx.z * p.zstride + (size_t)i0 * p.ldc + j0, p.ldc, p.m - i0, p.n - j0, p.vec_c};
    return d;
}

/* Where tile_product stores. The data-parallel kernel addresses c (or
 * slice blockIdx.z's partial product) whole, from the parameters at the
 * store, by the outputs' own rows and columns: nothing of it stays in
 * registers through the k loop (addressed from the tile's corner, every
 * data-parallel kernel took more registers). A stream-K block's place,
 * c's tile or a slot, is chosen per tile and passed. */
struct fast_c_whole {
    template <int MI>
    __device__ void store(const fast_args &p, const float acc[4 * MI][8], int i0, int j0, int r, int c, bool add,
                          float *stages = nullptr) const
    {
        fast_dst d = {p.out + blockIdx.z * p.zstride, p.ldc, p.m, p.n, p.vec_c};
        store_tile<MI>(d, acc, i0 + r, j0 + c, add, stages);
    }
};

/* A running sum starts (again) from zero. */
template <int MI> static __device__ __forceinline__ void zero_tile(float acc[4 * MI][8])
{
#pragma unroll
    for (int i = 0; i < 4 * MI; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;
}

/* One block's product over k in [kbeg, kend) for the tile at (i0, j0),
 * into d: BM / WM x BN / 64 warps of WM x 64 outputs. Each k step waits
 * for its stage, starts the copies of the stage FAST_STAGES - 1 ahead
 * (into the buffer every thread finished with before the barrier), does 16
 * x 64 multiply-adds per thread from shared memory, then (the 16 x 8
 * kernel) stores the a pieces of that later stage, whose loads had the
 * step's arithmetic to arrive. Every FAST_FOLD of k the accumulators go
 * into d (the first time written, then added: the same thread, in the same
 * order every run) and start again from zero. */
#define FAST_THREADS(BM, BN, WM) ((BM) / (WM) * ((BN) / 64) * 32)

/* The barrier of the threads that share the stages: the whole block, or
 * (KG > 1: fast_sgemm_kg) the T threads of warp group threadIdx.y, which
 * has stages of its own and named barrier 1 + threadIdx.y (0 is
 * __syncthreads's), so that the groups run as freely as separate blocks. */
template <int KG, int T> static __device__ __forceinline__ void group_sync(void)
{
    if (KG == 1)
        __syncthreads();
    else
        asm volatile("bar.sync %0, %1;" ::"r"(1 + (int)threadIdx.y), "n"(T) : "memory");
}

/* What a block does beside its tile in each stage: nothing, but in the
 * k-groups kernel (fast_kg_edges). copy: its own copies for stage slot
 * `slot` at k0, in the stage's group of copies; step: its arithmetic on
 * that slot, once the stage is in. */
struct fast_no_extra {
    __device__ void copy(int, int, int) {}
    template <class Stage> __device__ void step(int, const Stage *) {}
};

template <int BM, int BN, int WM, bool VEC, int KG = 1, class Where, class Extra = fast_no_extra>
static __device__ __forceinline__ void tile_product(const fast_args &p, fast_stage<BM, BN> *st, int i0, int j0,
                                                    int kbeg, int kend, const Where &where, Extra &&extra = Extra())
{
    constexpr int T = FAST_THREADS(BM, BN, WM), MI = WM / 16;
    /* a's tile by copy_a in the 8 x 8 kernels, faster at the mid sizes;
     * the 16 x 8 kernel keeps the pieces through registers, which ran its
     * large products faster than copy_a. */
    constexpr bool A_ASYNC = WM == 32;
    static_assert(T >= BN && BM * FAST_BK % (4 * T) == 0, "the copies assume a round covers whole rows");
    int steps = kend > kbeg ? (kend - kbeg + FAST_BK - 1) / FAST_BK : 0;
    fast_loader<BM, BN, T> L = loader_at<BM, BN, T, VEC>(p, i0, j0);
    float4 va[fast_loader<BM, BN, T>::NA];

    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int r = (warp % (BM / WM)) * WM + (lane / 8) * 4;
    int c = (warp / (BM / WM)) * 64 + (lane % 8) * 4;
    constexpr int fold = FAST_FOLD / FAST_BK; /* steps a running sum */
    float acc[4 * MI][8];
    zero_tile<MI>(acc);

#pragma unroll
    for (int s = 0; s < FAST_STAGES - 1; s++) {
        if (s < steps) {
            if constexpr (A_ASYNC) {
                copy_a<BM, BN, T>(&st[s], p, i0, kbeg + s * FAST_BK, kend, threadIdx.x);
            } else {
                fetch_a<BM, BN, T, VEC>(va, L, p, kbeg + s * FAST_BK, kend);
                store_a<BM, BN, T>(&st[s], va, L, i0);
            }
            copy_b<BM, BN, T, VEC, (KG > 1)>(&st[s], L, p, kbeg + s * FAST_BK, kend);
            extra.copy(s, kbeg + s * FAST_BK, kend);
        }
        copy_commit();
    }
    auto step = [&](int s) {
        copy_wait<FAST_STAGES - 2>();
        group_sync<KG, T>(); /* stage s is complete, and stage s - 1 is free */
        int next = s + FAST_STAGES - 1;
        fast_stage<BM, BN> *later = &st[next % FAST_STAGES];
        if (next < steps) {
            if constexpr (A_ASYNC)
                copy_a<BM, BN, T>(later, p, i0, kbeg + next * FAST_BK, kend, threadIdx.x);
            else
                fetch_a<BM, BN, T, VEC>(va, L, p, kbeg + next * FAST_BK, kend);
            copy_b<BM, BN, T, VEC, (KG > 1)>(later, L, p, kbeg + next * FAST_BK, kend);
            extra.copy(next % FAST_STAGES, kbeg + next * FAST_BK, kend);
        }
        copy_commit();
        fma_stage<BM, BN, MI>(acc, &st[s % FAST_STAGES], r, c);
        extra.step(s % FAST_STAGES, &st[s % FAST_STAGES]);
        if (!A_ASYNC && next < steps)
            store_a<BM, BN, T>(later, va, L, i0);
    };
    /* The same steps and folds either way; the compiler makes faster code
     * of the 16 x 8 kernel from one loop with the fold inside, and of the
     * 8 x 8 ones from fold-deep chunks. */
    if (WM == 64) {
        for (int s = 0; s < steps; s++) {
            step(s);
            if ((s + 1) % fold == 0 && s + 1 < steps) {
                where.template store<MI>(p, acc, i0, j0, r, c, s + 1 > fold);
                zero_tile<MI>(acc);
            }
        }
    } else {
        for (int s0 = 0; s0 < steps; s0 += fold) {
            int s1 = min(steps, s0 + fold);
            for (int s = s0; s < s1; s++)
                step(s);
            if (s1 < steps) {
                where.template store<MI>(p, acc, i0, j0, r, c, s0 > 0);
                zero_tile<MI>(acc);
            }
        }
    }
    /* The last store may have the stages (store_rows): the folds' are made
     * while later stages are in flight. Not the 16 x 8 kernel's: it is run
     * for large products, whose stores are a small part, and with
     * store_rows in it (more registers) it ran slower. */
    static_assert(T / 32 * FAST_PATCH * sizeof(float) <= FAST_STAGES * sizeof(fast_stage<BM, BN>),
                  "the warps' patches fit in the stages");
    where.template store<MI>(p, acc, i0, j0, r, c, steps > fold, WM == 64 ? nullptr : (float *)st);
}

/* Blocks of the 4-warp shapes an SM may hold: 2 of 128 x 128 / 64 (227
 * registers a thread), else enough for 8 warps or more. */
#define FAST_MIN_BLOCKS(BM, BN, WM) (WM == 64 ? 2 : 128 * 128 / (BM * BN) + 1)

/* A group of `steps` k-steps, where the longest has `run`, passes its
 * barrier run - steps more times, so that every group has passed as many
 * as the others at the __syncthreads before kg_sum. The barriers order
 * the groups' sums before the sums are read either way, but racecheck
 * reported every such pair of write and read as a hazard whenever the
 * counts differed (1024^3: 64 steps, runs of 22, 22 and 20), and none
 * once they were even. The extra
 * passes are those of a group that waits at the __syncthreads anyway. */
template <int T, int KG = FAST_KG> static __device__ __forceinline__ void kg_even_barriers(int steps, int run)
{
    for (int s = steps; s < run; s++)
        group_sync<KG, T>();
}

#endif
