/* gpu_fast.cu - the `fast` mode's matrix product: plain CUDA C on the FP32
 * cores (no tensor cores, no library). A register-blocked SGEMM (8 x 8 or
 * 16 x 8 outputs per thread, 32..64 x 64 per warp, 64..128 x 64..128 per
 * block) fed by a cp.async pipeline, its running sums folded into the
 * output every 1024 of k, split along k when the output has too few tiles
 * to fill the chip, run as stream-K when the tiles do not divide evenly
 * among the SMs, or as k-groups (a tile an SM, its k shared by the block's
 * three warp groups, the output's last few rows and columns made beside
 * the tiles) when the tiles are about as many as the SMs, or as tiles of
 * 96 x 88 that cover the whole output in one wave (the cover kernel, a
 * tile an SM, no edges) where those cost less; a's tile copied
 * into shared memory 4 bytes at a time (but in the 16 x 8 kernel), b's 16
 * bytes where its rows are 16-byte aligned, else 4 or, where it pays, from
 * a copy in padded rows (`set align`); matrix-vector kernels for the 1 x N
 * and N x 1 products, and a thin kernel for b of at most 8 columns (and a
 * wide b's last few, beside the stream-K product on Hopper), which are
 * bound by memory bandwidth, not arithmetic; on Hopper, a row kernel for
 * a's last few rows beside the stream-K or k-groups product of the others,
 * and an edges kernel for the k-groups product's last rows and columns.
 * kernels/PERF.md (## fast) records what each version measured. */
#include "kernels/gpu_async.h"
#include "kernels/gpu_fold.h"
#include "kernels/gpu_internal.h"
#include "kernels/variants.h"

#include <limits.h>
#include <stdint.h>

/* The entry point of mode fast (modes.c). */
extern "C" cuk_matmul_fn fast_matmul;

#ifndef FAST_BK
#define FAST_BK 16      /* k-depth of one shared-memory stage */
#endif
#ifndef FAST_STAGES
#define FAST_STAGES 3   /* stages in flight: 3 x 16 of k hide a global load */
#endif
#ifndef FAST_APAD
#define FAST_APAD 4     /* floats of padding per k-row of a's tile (see fast_stage) */
#endif
/* Block rows walked together, for L2 reuse of b's tiles: at 4096^3 4 ran
 * 1.5% faster than 8, and 1, 2 and 16 slower (PERF.md, v8). */
#ifndef FAST_GROUP
#define FAST_GROUP 4
#endif
/* The k-depth of one running sum: a block adds its accumulators into its
 * output every FAST_FOLD of k (add4) and starts them again from zero,
 * because one FP32 sum of k products loses accuracy in proportion to k
 * (3001x2999x3000 on U(0,1) inputs: 3.9 times cuBLAS's error in one sum,
 * 2.0 in sums 2048 deep, 1.2 in sums 1024 deep). A multiple of FAST_BK.
 * The #ifndef guards let a measurement build variants (-DFAST_FOLD=...). */
#ifndef FAST_FOLD
#define FAST_FOLD 1024
#endif

static int aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

/* --- the tiled product --------------------------------------------------------- */

/* One launch of the tiled kernel: out (m x n) = a (m x k) @ b (k x n) over
 * k-slice blockIdx.z, k-slices kchunk wide (a multiple of FAST_BK). a's rows
 * are lda floats apart, b's ldb, out's ldc: k and n, or the padded copies'
 * (see fast_matmul), or b's and c's first n columns of wider ones (their
 * last few columns are gemm_thin's). With one slice out is c; with more,
 * out is slice z's partial product at out + z * zstride, summed by
 * sum_slices. vec_c: out's rows can be written 16 bytes at a time. The
 * stream-K kernel (fast_sgemm_sk) reads share and work instead of kchunk
 * and zstride. */
typedef struct {
    float *out;
    const float *a, *b;
    int m, n, k, kchunk;
    int lda, ldb, ldc;
    size_t zstride;
    int vec_c;
    int share;   /* stream-K: k-steps of every block */
    float *work; /* stream-K: two tile-sized slots a block for its partial tiles */
    /* k-groups: the xh rows of a past m (xa, rows xlda apart) and the xw
     * columns of b past n (xb, rows xldb apart) that the blocks make
     * beside their tiles (fast_kg_edges); 0 and NULL where none. */
    const float *xa, *xb;
    int xlda, xldb, xh, xw;
} fast_args;

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
 * a stage). A swizzle that removed the rest (columns 8..15 of each 16
 * swapped with 0..7 in the k-rows q >= 8) ran 1% slower at 4096^3 and
 * 2048^3 (PERF.md, v4): these stores are not what the loop waits for. */
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
         * checks and address made on its own, the k-groups kernel on b
         * as it lies ran 16% more instructions than on b padded, and
         * 1037x1055x1031 5% slower; in the kernels of two blocks an SM
         * or more, 4099x4093x67 ran 3% slower this way (H100, PERF.md,
         * ## fast, v16). */
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
 * what the scheduler makes of the loop. On one H200 (PERF.md, ## fast,
 * v19: every order tried and what it measured) 4096^3 ran 2.945 ms in
 * the 16 x 8 kernel's order here against 3.045 row after row and 3.28 in
 * the worst order tried; the cover kernel's 1037x1055x1031 0.0630 against
 * 0.0651; 3001^3 on the 8 x 8 kernels 1.236 against 1.281. Counting
 * register bank conflicts in the SASS picked out the worst order tried,
 * not the best: only timing did that. Each order the kernels use is a
 * snake: every other row (or column) runs backwards, so that it starts on
 * the operand the one before ended on. The cover kernel's order changed
 * again in v21, after v20 had changed its layout: column after column ran
 * 0.0599-0.0601 ms against 0.0612-0.0620 in v20's order, and 0.0578 with
 * the copies spread (cover_copies), where v20's order ran 0.0601-0.0603.
 * Building with an order 0 (-DFAST_FMA_16X8=0 ...) gives the kernels as
 * they were before v19, byte for byte. */
#define FAST_FMA_ROWS 0         /* row after row, each from column 0 */
#define FAST_FMA_SNAKE 1        /* odd rows backwards */
#define FAST_FMA_SNAKE_HALVES 2 /* a snake over columns 5, 4, 7, 6, 1, 0, 3, 2 (C = 8): pairs swapped, halves too */
#define FAST_FMA_SNAKE_SPREAD 3 /* a snake over rows 0, R/2, 1, R/2 + 1, ... */
#define FAST_FMA_B_SNAKE 4      /* b outer: column after column, its rows a snake */
#ifndef FAST_FMA_16X8
#define FAST_FMA_16X8 FAST_FMA_SNAKE_HALVES
#endif
#ifndef FAST_FMA_8X8
#define FAST_FMA_8X8 FAST_FMA_SNAKE
#endif
#ifndef FAST_FMA_COVER
#define FAST_FMA_COVER FAST_FMA_B_SNAKE
#endif

/* Row i and column j of the e-th multiply-add of an R x C outer product
 * in order O. */
template <int O, int R, int C> static __device__ __forceinline__ void fma_place(int e, int &i, int &j)
{
    static_assert((O != FAST_FMA_SNAKE_HALVES || C % 2 == 0) && (O != FAST_FMA_SNAKE_SPREAD || R % 2 == 0),
                  "each order visits every (i, j) once only for these shapes");
    int v = e / C, x = v % 2 ? C - 1 - e % C : e % C; /* the v-th row, a snake */
    i = O == FAST_FMA_SNAKE_SPREAD ? v % 2 * (R / 2) + v / 2 : v;
    j = O == FAST_FMA_ROWS ? e % C : O == FAST_FMA_SNAKE_HALVES ? ((x ^ 1) + C / 2) % C : x;
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
     * multiply-adds unrolled whole are ~35 KB of code, more than the
     * instruction cache holds near the SM, and its warps stalled on
     * fetching it (Nsight Compute at 4096^3: 0.10 cycles an instruction,
     * 0.05 at 8). 4096^3 and 2048^3 ran 1-1.5% faster; 4 deep ran 2-3%
     * slower (PERF.md, ## fast, v10). */
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
            fma_place<MI == 4 ? FAST_FMA_16X8 : FAST_FMA_8X8, 4 * MI, 8>(e, i, j);
            acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
    }
}

/* dst[0..3] += v, in the L2, without waiting for the old values: the
 * fold's adds (tile_product). A load, add and store stalled the block for
 * the load's trip, and at 4096^3 the three folds cost 6% (PERF.md, v8).
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
 * floats of one row (the same problem cost tf32x3's Hopper kernel 6-8 us
 * of 55 at 1037x1055x1031: PERF.md, ## tf32x3, session 21). 32 rows a
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
 * store, by the outputs' own rows and columns, as v4 did: nothing of it
 * stays in registers through the k loop, and the kernels compile to v4's
 * code. (Addressed from the tile's corner instead, every data-parallel
 * kernel's registers changed, 159 -> 167 for 64 x 64, and in PERF.md's v5a
 * run the unaligned split plans ran 11-13% slower than in v4's; not
 * separated from that run's noise.) A stream-K block's place, c's tile or
 * a slot, is chosen per tile and passed. */
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
    /* a's tile by copy_a in the 8 x 8 kernels: 2-5% faster at the mid
     * sizes (1000^3, 2500x700x1300, 4099x4093x67), with 6-7 more registers
     * and no spill; the 16 x 8 kernel keeps the pieces through registers,
     * which ran 4096^3 7% faster than copy_a (PERF.md, ## fast, v10). */
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
     * 8 x 8 ones from fold-deep chunks (H100: 4096^3 5% slower in chunks;
     * 3001x2999x3000 on 64 x 64 / 32 4% faster, 4097x333x4097 3%; PERF.md,
     * v8). */
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
     * store_rows in it (233 -> 235 registers) 4096^3 ran 0.9% slower
     * (PERF.md, ## fast, v9). */
    static_assert(T / 32 * FAST_PATCH * sizeof(float) <= FAST_STAGES * sizeof(fast_stage<BM, BN>),
                  "the warps' patches fit in the stages");
    where.template store<MI>(p, acc, i0, j0, r, c, steps > fold, WM == 64 ? nullptr : (float *)st);
}

/* Blocks of the 4-warp shapes an SM may hold: 2 of 128 x 128 / 64 (227
 * registers a thread), else enough for 8 warps or more. */
#define FAST_MIN_BLOCKS(BM, BN, WM) (WM == 64 ? 2 : 128 * 128 / (BM * BN) + 1)

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

/* Arrivals at each split tile, counted by atomicInc, which wraps the count
 * to 0 at the last arrival: the next launch finds every count at 0 without
 * a memset (as gpu_fast_mem.cu's blocks_done). */
#define FAST_SK_TILES 4096
static __device__ unsigned sk_arrived[FAST_SK_TILES];
static __device__ unsigned gemv_arrived[FAST_SK_TILES]; /* gemv_cols's column groups, the same way */

/* After this block wrote its partial: 1 in the block that arrives last of
 * `count`, which may then read every other partial. Every thread must come. */
static __device__ int arrived_last(unsigned *counter, unsigned count)
{
    __shared__ int last;
    __threadfence(); /* this block's partial is visible before the count says so */
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicInc(counter, count - 1) == count - 1;
    __syncthreads();
    if (last)
        __threadfence(); /* and the others' are read after it, past this SM's L1 (__ldcg) */
    return last;
}

/* The sum of `slices` partials, the first at part + at and each next
 * `stride` floats on, in slice order: the same bits whichever slice
 * arrived last. Read past this SM's L1, as arrived_last wants. */
static __device__ __forceinline__ float slices_sum(const float *part, size_t at, size_t stride, unsigned slices)
{
    float s = __ldcg(part + at);
    for (unsigned z = 1; z < slices; z++)
        s += __ldcg(part + at + z * stride);
    return s;
}

/* For the kernels launched beside the product (gemm_thin, gemm_rows): the
 * grid ends after the kernel ahead of it, so that whatever follows on the
 * stream finds both finished. One block waits, the grid's last (the last
 * to take a place): the others, done, leave their places to the blocks
 * still to come (beside a k-groups product, gemm_rows's 48 blocks take
 * the 4 free SMs in two rounds). */
static __device__ __forceinline__ void gpu_end_after_prior(void)
{
    if (blockIdx.x == gridDim.x - 1 && blockIdx.y == gridDim.y - 1)
        gpu_wait_prior();
}

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

/* --- k-groups: a tile an SM, its k shared by the block's warp groups ---------- */

/* Where the tiles are about as many as the SMs (1024 x 1024: 128 tiles of
 * 64 x 128 for 132 SMs), stream-K's three blocks an SM each take a third
 * of a tile's k-steps and sum the thirds through scratch in L2: at 1037's
 * 1024 rows each block stores its part (3.1 us), counts it (1.6) and the
 * last sums and stores the tile (3.4), and a tile's thirds lie on
 * different SMs, which end at different times (PERF.md, ## fast, v13). A
 * block of FAST_KG warp groups (threadIdx.y: the group) instead takes one
 * tile whole: group g makes the g-th of FAST_KG equal runs of its k-steps
 * in stages of its own, with a barrier of its own (group_sync), so the
 * SM runs the 12 warps it runs in stream-K, and the groups' sums are
 * added in shared memory, in group order (k order: the same bits every
 * run), and stored by the whole block. A group's run is at most
 * FAST_FOLD deep (plan_cost_kg): no fold. At 1024 x 1056 x 1024 the
 * blocks end at 54-55 us, where stream-K's SMs ended at 64.5-68 (H100,
 * PERF.md, ## fast, v15). */
#define FAST_KG 3

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
 * kernels of their own (gemm_rows, gemm_thin) in the 4 SMs the product
 * leaves, 1037's 13 rows and 7 columns ended 30 us after it; here they
 * cost it 10-15% (its blocks' ends from 54-55 us to 59-65), 8 columns
 * alone 10% (H100, PERF.md, ## fast, v15). Where they are few enough,
 * gemm_edges makes them in those SMs instead (kg_edges_beside). */
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
         * value, but a race: racecheck, PERF.md, ## fast, v15). */
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

/* A group of `steps` k-steps, where the longest has `run`, passes its
 * barrier run - steps more times, so that every group has passed as many
 * as the others at the __syncthreads before kg_sum. The barriers order
 * the groups' sums before the sums are read either way, but racecheck
 * reported every such pair of write and read as a hazard whenever the
 * counts differed (1024^3: 64 steps, runs of 22, 22 and 20; 1025^3), and
 * none once they were even (H100, PERF.md, ## fast, v15). The extra
 * passes are those of a group that waits at the __syncthreads anyway. */
template <int T, int KG = FAST_KG> static __device__ __forceinline__ void kg_even_barriers(int steps, int run)
{
    for (int s = steps; s < run; s++)
        group_sync<KG, T>();
}

/* Block x makes tile x (tile_of's order) of c, and with EDGES the row
 * and column beside it that fast_kg_edges says (a kernel of its own: the
 * edges' code in the loop, off, cost 1024x1056x1024 6%, v15). Launched
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

/* --- k-groups on tiles that cover the output ---------------------------------- */

/* 1037 x 1031 in 64 x 128 tiles is 1024 x 1024 in 128 of them, and 13 rows
 * and 7 columns that cost the product 15-20% whether its blocks make them
 * or gemm_edges does (PERF.md, ## fast, v16). Tiles of 96 x 88 cover all
 * of 1037 x 1031 in 11 x 12 = 132, one an SM of the H100 or H200, each 3%
 * bigger than 64 x 128: no edges. The k-groups kernel's plan (a tile an
 * SM, its k shared by COVER_KG warp groups, their sums added in shared
 * memory in group order), with a thread of 8 x TN outputs: 8 rows (two
 * 16-byte loads of a's k-major stage) and TN columns, which b's stage
 * holds in COVER_CP(TN) floats so that they too are 16-byte loads (3 for
 * 11). A warp is 4 thread rows of 8 threads each: the 8 threads of one
 * row, which the shared memory serves together, read one address of a
 * and 8 x 16 bytes of b in 32 different banks (12 floats apart). A group
 * is 3 warps, and 4 groups (12 warps an SM, at most 168 registers a
 * thread; 168 used) ran 1056x1055x1056 in 0.070 ms where 3 groups took
 * 0.082 (H100, PERF.md, ## fast, v17). The last tile row and column are
 * moved back to end at the output's edge: every copy reads inside a and
 * b, and only the last stage, past k, needs checks. */
#define COVER_WARPS 3
#ifndef COVER_KG
#define COVER_KG 4 /* warp groups a block */
#endif
#ifndef COVER_STAGES
#define COVER_STAGES FAST_STAGES /* 4 ran 1037x1055x1031 6-9% slower */
#endif
#define COVER_T (32 * COVER_WARPS)
#define COVER_BM (32 * COVER_WARPS)                        /* 4 thread rows of 8 outputs a warp */
#define COVER_CP(TN) (((TN) + 3) / 4 * 4)                  /* b's floats a thread row in a stage */
template <int TN> using cover_stage = fast_stage<COVER_BM, 8 * COVER_CP(TN)>;

/* A group's warps on one of the SM's four schedulers. The SM deals warp w
 * (in the order of the block's threads) to scheduler w % 4. As a block of
 * COVER_T x COVER_KG threads, group g was warps 3g..3g + 2, on three
 * schedulers each shared with two other groups, and a warp at its
 * group's barrier waited on warps that another group's warps held back
 * on their schedulers: at 1037x1055x1031 the groups' loops took 49-55.5
 * us (a clock read in each group; H200). As a block of 32 x COVER_KG x
 * COVER_WARPS threads, warp w is warp w / 4 of group w % 4, each group
 * has a scheduler to itself, and the groups' loops take 52.3-54.1 us.
 * Alone it timed as the old layout did; with the stage's 16 k-rows
 * unrolled (cover_fma) it is 2% faster, where the old layout ran 7%
 * slower (PERF.md, ## fast, v20). COVER_ONE_SMSP 0: the old layout. */
#ifndef COVER_ONE_SMSP
#define COVER_ONE_SMSP 1
#endif
/* Thread t of its group (threadIdx.y), 0 .. COVER_T - 1. */
static __device__ __forceinline__ int cover_tid(void)
{
    return COVER_ONE_SMSP ? threadIdx.x + 32 * threadIdx.z : threadIdx.x;
}

/* The groups share k in runs of half stages, not stages: 1055 is 66
 * stages, 17, 17, 17 and 15 a group, and the last group waited two stages
 * at the block's barrier; 132 halves give each group 33 (16 and a half
 * stages). Barrier waits fell from 0.48 to 0.29 cycles an instruction and
 * 1037x1055x1031 ran ~1% faster (H100; PERF.md, ## fast, v18). A group's
 * last stage, half before kend, does the first half of its arithmetic
 * only (cover_fma). */
#define COVER_HALF (FAST_BK / 2)
static __host__ __device__ __forceinline__ int cover_run_halves(int k)
{
    return ((k + COVER_HALF - 1) / COVER_HALF + COVER_KG - 1) / COVER_KG;
}

/* The thread's rows of a's stage at k0, copies v0 .. v1 - 1 of its 8 (a row
 * and k-rows q and q + 8 each), laid out as copy_a
 * lays them (k-major, a warp's 32 copies in 32 banks), with no checks:
 * the stage lies before kend, and every row of a cover block lies in a
 * (fast_sgemm_cover moves the last tiles back). copy_a's checks made 8
 * instructions of each of its 16 copies a stage (H100, SASS). Each
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

/* The stage's 16 k-rows are unrolled whole, not 8 at a time in a loop
 * (v20: with COVER_ONE_SMSP 2% faster; since v21 the copies' places
 * need every k-row's number known). COVER_SMEM32: the loop's shared loads
 * from two 32-bit addresses made once (lds128), not from the stage's
 * pointer, whose shared-window base ptxas made again (S2R of the CTA's
 * id) every 8 k-rows, the first loads waiting on it; 0.1-0.6% (v20). */
#ifndef COVER_SMEM32
#define COVER_SMEM32 1
#endif

#if COVER_SMEM32
/* The 16 bytes at shared-memory address addr. */
static __device__ __forceinline__ float4 lds128(unsigned addr)
{
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr));
    return v;
}
#endif

/* The thread's 8 x TN multiply-adds of one stage: rows r.. of a's stage,
 * columns cb.. of b's, the stage's k-rows in two halves of 8, the second
 * only where `rows` (those before kend) reach it; before k-row q,
 * before(q). With COVER_SMEM32, sa and sb are the shared addresses of a's
 * row r and of the stage plus cb floats. */
template <int TN, class Before>
static __device__ __forceinline__ void cover_fma(float acc[8][TN], const cover_stage<TN> *st, int r, int cb,
                                                 int rows, Before &&before, unsigned sa = 0, unsigned sb = 0)
{
#pragma unroll
    for (int q = 0; q < FAST_BK; q++) {
        if (q == FAST_BK / 2 && rows <= FAST_BK / 2)
            break;
        before(q);
        float av[8], bv[COVER_CP(TN)];
#if COVER_SMEM32
        constexpr unsigned AS = sizeof(st->as[0]), BS = sizeof(st->bs[0]), BOFF = sizeof(st->as);
        *(float4 *)&av[0] = lds128(sa + q * AS);
        *(float4 *)&av[4] = lds128(sa + q * AS + 16);
#pragma unroll
        for (int g = 0; g < COVER_CP(TN) / 4; g++)
            *(float4 *)&bv[4 * g] = lds128(sb + BOFF + q * BS + 16 * g);
#else
        *(float4 *)&av[0] = *(const float4 *)&st->as[q][r];
        *(float4 *)&av[4] = *(const float4 *)&st->as[q][r + 4];
#pragma unroll
        for (int g = 0; g < COVER_CP(TN) / 4; g++)
            *(float4 *)&bv[4 * g] = *(const float4 *)&st->bs[q][cb + 4 * g];
#endif
#pragma unroll
        for (int e = 0; e < 8 * TN; e++) {
            int i, j;
            fma_place<FAST_FMA_COVER, 8, TN>(e, i, j);
            acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
    }
}

/* Before k-row q of a stage's arithmetic, the copies of the stage at k0
 * that go there. COVER_SPREAD: a whole stage's 32 in 8 bursts of 4, a's
 * rows two at a time before k-rows 0, 4, 8 and 12, b's k-rows four at a
 * time before k-rows 2, 6, 10 and 14; 0: v20's two bursts of 16, a's
 * before k-row 0, b's before k-row 8. Where the bursts go moves ptxas's
 * schedule as the order of the multiply-adds does: at 1037x1055x1031
 * (H200, this file's order) the 8 bursts ran 0.0578 ms in each of three
 * runs, two bursts each of a and b 0.0576-0.0589 at the k-rows tried;
 * with v20's order the places alone ran from 0.0595 to 0.0644 against
 * v20's 0.0612-0.0620 (PERF.md, ## fast, v21). The last stage, checked,
 * goes all before k-row 0. */
#ifndef COVER_SPREAD
#define COVER_SPREAD 1
#endif
template <int TN>
static __device__ __forceinline__ void cover_copies(cover_stage<TN> *st, const fast_args &p, int i0, int jb, int k0,
                                                    int kend, int q)
{
    constexpr int V = COVER_BM / (4 * COVER_WARPS), BURSTS = COVER_SPREAD ? 4 : 1, EVERY = FAST_BK / BURSTS;
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
 * (cover_copies). On the H100 at 1037x1055x1031, with a stage's k-rows in
 * a loop of 8 (Nsight Compute; PERF.md, ## fast, v17): all 32 at once,
 * with no other instruction between them, stalled the warps on the queue
 * of loads (66 us); split in two, 64-65 us; in four parts, the loop at
 * 168 registers, 71; one a k-row, 71. With the stage unrolled whole
 * (v21), 8 bursts of 4 run as fast as any places tried. */
template <int TN>
static __device__ __forceinline__ void cover_product(const fast_args &p, cover_stage<TN> *st, int i0, int j0,
                                                     int kbeg, int kend, float acc[8][TN])
{
    int t = cover_tid(), steps = kend > kbeg ? (kend - kbeg + FAST_BK - 1) / FAST_BK : 0;
    int r = cover_row(t), cb = COVER_CP(TN) * (t % 8);
    int jb = j0 + t / COVER_CP(TN) * TN + t % COVER_CP(TN);
#if COVER_SMEM32
    unsigned sa0 = (unsigned)opaque((int)__cvta_generic_to_shared(&st[0].as[0][r]));
    unsigned sb0 = (unsigned)opaque((int)__cvta_generic_to_shared((float *)st + cb));
#else
    unsigned sa0 = 0, sb0 = 0;
#endif
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
        cover_fma<TN>(acc, &st[s % COVER_STAGES], r, cb, kend - kbeg - s * FAST_BK, [&](int q) {
            if (next < steps)
                cover_copies<TN>(later, p, i0, jb, k0, kend, q);
        }, sa0 + slot, sb0 + slot);
        copy_commit();
    }
}

/* The groups' tiles (group g's at part + g * gstride, rows BN + 1 floats
 * apart) added in group order and stored into d by every thread of the
 * block, as kg_sum does; but the first r0 rows and c0 columns, which
 * belong to the tiles before. Not kg_sum's loop with these as parameters:
 * that one, with its checks of c's edges, ran the cover kernel 0.6-0.9%
 * slower at 1037x1055x1031 (three rounds, H100; PERF.md, ## fast, v18).
 * With COVER_SUM_COLS a thread keeps one column and walks its rows,
 * RA = COVER_KG * COVER_T / BN at a time (4 at 88 columns: 352 of the 384
 * threads), with no division and each load and store a step from the
 * last; a warp's loads still read consecutive floats and its stores
 * write them. The sums took 1.6 us a block where the loop over
 * elements, a division and a check each, took 2.1 (clock reads, H200;
 * 0.5-0.8% of 1037x1055x1031). COVER_SUM_COLS 0: that loop. */
#ifndef COVER_SUM_COLS
#define COVER_SUM_COLS 1
#endif
template <int BN>
static __device__ void cover_sum(const fast_dst &d, int r0, int c0, const float *part, size_t gstride)
{
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    if (COVER_SUM_COLS) {
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
        return;
    }
    int all = blockDim.x * blockDim.y * blockDim.z;
    for (int e = t; e < COVER_BM * BN; e += all) {
        int i = e / BN, j = e % BN;
        const float *at = part + i * (BN + 1) + j;
        float s = at[0];
#pragma unroll
        for (int g = 1; g < COVER_KG; g++)
            s += at[g * gstride];
        if (i >= r0 && j >= c0)
            d.at[(size_t)i * d.ld + j] = s;
    }
}

/* Block x makes tile x (tile_of's order) of c, COVER_BM x 8 TN, as
 * fast_sgemm_kg does: each group its run of k (in half stages,
 * cover_run_halves), its sums into its own stages as a tile, and the
 * block's threads add the groups' tiles in group order (cover_sum). The
 * tile's rows are 8 TN + 1 floats apart there: 8 TN (88) put a warp's 4
 * thread rows, 8 rows apart, in one bank, and the stores ran 4-way
 * conflicted (Nsight Compute, H100). */
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

/* c (m x n, rows ldc apart) = the sum of the `slices` partial products at
 * part (m x n each). */
static int sum_run(float *c, int ldc, const float *part, int m, int n, int slices)
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
/* How a plan's blocks share the work; FAST_KGEDGES is FAST_KGROUPS's
 * kernel with the edges beside the tiles (fast_kg_edges), which run_plan
 * takes where it is given them. */
enum { FAST_DATA, FAST_STREAMK, FAST_KGROUPS, FAST_KGEDGES, FAST_KINDS };
typedef struct {
    const char *name[FAST_KINDS][2];           /* [kind][aligned] */
    void (*kernel[FAST_KINDS][2])(fast_args); /* the same */
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

#define FAST_NAME(BM, BN, WM, SK, ANY) "fast_sgemm" SK "<" #BM "x" #BN "/" #WM ANY ">"
#define FAST_DP(BM, BN, WM) {FAST_NAME(BM, BN, WM, "", ",unaligned"), FAST_NAME(BM, BN, WM, "", "")}
#define FAST_SK(BM, BN, WM) {FAST_NAME(BM, BN, WM, "_sk", ",unaligned"), FAST_NAME(BM, BN, WM, "_sk", "")}
#define FAST_KGN(BM, BN, WM) {FAST_NAME(BM, BN, WM, "_kg", ",unaligned"), FAST_NAME(BM, BN, WM, "_kg", "")}
#define FAST_KGE(BM, BN, WM)                                                                                       \
    {FAST_NAME(BM, BN, WM, "_kg", ",unaligned,edges"), FAST_NAME(BM, BN, WM, "_kg", ",edges")}
#define FAST_SHAPE(BM, BN, WM, REL) BM, BN, WM, FAST_THREADS(BM, BN, WM), FAST_SMEM(BM, BN), REL
#define FAST_CONFIG(BM, BN, WM, REL)                                                                               \
    {{FAST_DP(BM, BN, WM), FAST_SK(BM, BN, WM), FAST_KGN(BM, BN, WM), FAST_KGE(BM, BN, WM)},                       \
     {{fast_sgemm<BM, BN, WM, false>, fast_sgemm<BM, BN, WM, true>},                                               \
      {fast_sgemm_sk<BM, BN, WM, false>, fast_sgemm_sk<BM, BN, WM, true>},                                         \
      {fast_sgemm_kg<BM, BN, WM, false, false>, fast_sgemm_kg<BM, BN, WM, true, false>},                           \
      {fast_sgemm_kg<BM, BN, WM, false, true>, fast_sgemm_kg<BM, BN, WM, true, true>}},                            \
     FAST_SHAPE(BM, BN, WM, REL)}
/* A shape without stream-K. 128 x 64 and 64 x 64 had stream-K kernels in
 * the sweep of PERF.md (v5), and at none of 14 shapes did one beat 64 x
 * 128's stream-K; nor did 128 x 128 / 64's (v10: 254 registers and no
 * spill with fast_sk_where, but slower than 64 x 128's stream-K at each of
 * 14 shapes, 1037x1055x1031 0.110 ms against 0.093). */
#define FAST_CONFIG_DP(BM, BN, WM, REL)                                                                            \
    {{FAST_DP(BM, BN, WM), {NULL, NULL}, {NULL, NULL}, {NULL, NULL}},                                              \
     {{fast_sgemm<BM, BN, WM, false>, fast_sgemm<BM, BN, WM, true>}, {NULL, NULL}, {NULL, NULL}, {NULL, NULL}},    \
     FAST_SHAPE(BM, BN, WM, REL)}
static const fast_config configs[] = {
    FAST_CONFIG(64, 128, 32, 1.00),
    FAST_CONFIG_DP(128, 64, 32, 0.92),
    FAST_CONFIG_DP(64, 64, 32, 0.90),
    FAST_CONFIG_DP(128, 128, 64, 1.03),
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
            if (!c->kernel[kind][1])
                continue;
            int fits = smem_fits((const void *)c->kernel[kind][1], kind_smem(c, kind));
            if (fits < 0)
                return -1;
            if (!fits)
                continue; /* a k-groups block's 115 KB: not on GPUs of 99 KB a block (cc 8.6, 8.9) or less */
            for (int v = 0; v < 2; v++) {
                const void *f = (const void *)c->kernel[kind][v];
                if (gpu_allow_smem(f, kind_smem(c, kind)) != 0)
                    return -1;
                GPU_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout,
                                               cudaSharedmemCarveoutMaxShared));
            }
            resident[kind][i] =
                gpu_blocks_per_sm((const void *)c->kernel[kind][1], kind_threads(c, kind), kind_smem(c, kind));
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
    if (!f->kernel[FAST_STREAMK][1] || tiles > FAST_SK_TILES || all > INT_MAX / 2 || all < 1)
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
 * plus a step of start, and the sum of their tiles; scaled by
 * FAST_KG_OVER. */
#ifndef FAST_KG_OVER
#define FAST_KG_OVER 1.0
#endif
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
    if (!f->kernel[FAST_KGROUPS][1] || tiles > (long long)sms * resident[FAST_KGROUPS][cfg] ||
        run * FAST_BK > FAST_FOLD || run < FAST_KG_MIN_RUN)
        return -1;
    double work = (double)FAST_KG * f->bm * f->bn * FAST_BK * (run + 1) / f->rel;
    return (work + (double)FAST_KG * f->bm * f->bn) * FAST_KG_OVER;
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
    void (*kernel)(fast_args) = f->kernel[kind][pl->vec];
    const char *name = f->name[kind][pl->vec];
    dim3 grid(blocks, 1, split ? pl->slices : 1);
    dim3 block(f->threads, kind >= FAST_KGROUPS ? FAST_KG : 1);
    if (gpu_launch_early(early, kernel, name, grid, block, kind_smem(f, kind), __FILE__, __LINE__, p) != 0)
        return -1;
    return split ? sum_run(c, ldc, p.out, m, n, pl->slices) : 0;
}

/* --- rows that are not 16-byte aligned ------------------------------------------- */

/* Where b's rows are not a multiple of 4 floats apart (ldb), or the
 * matrix does not start on 16 bytes, the kernels above copy every float
 * of it on its own: four times the copies of a stage, and (with a read the
 * same way, before v10) about 1.2 times the time of the same plan on
 * aligned rows (PERF.md, v5). The same for a in the 16 x 8 kernel; the
 * others copy a 4 bytes at a time anyway (copy_a). A copy whose rows are
 * padded with zeros to a multiple of 4 costs a pass over the operand; `set
 * align` says which (auto: the estimates decide). */
typedef struct {
    float *dst;
    const float *src;
    int rows, cols, lds, ldd;
} fast_pad_job;

/* dst = src with each row padded by zeros to ldd floats. A warp copies a
 * chunk of FAST_PAD_CHUNK floats of a row at a time, its lanes 32 floats
 * apart (128-byte accesses both ways, FAST_PAD_CHUNK / 32 in flight);
 * chunks rather than whole rows, so that a few long rows (97 x 1999)
 * still spread over the chip. 512: b's copy at 1037x1055x1031 in 4.4-4.9
 * us, against 7.2-7.7 with chunks of 128 (two rounds of them, four loads
 * in flight); the products with copies 0.5-4% faster; 1024 no faster
 * (PERF.md, ## fast, v11). The grid's first `split` blocks copy job a,
 * the others job b. */
#ifndef FAST_PAD_CHUNK
#define FAST_PAD_CHUNK 512
#endif
static __global__ void fast_pad_rows(fast_pad_job a, fast_pad_job b, unsigned split)
{
    constexpr int U = FAST_PAD_CHUNK / 32;
    gpu_next_may_start(); /* the product's blocks, waiting, in place as the copy ends */
    int second = blockIdx.x >= split;
    const fast_pad_job &j = second ? b : a;
    long long warps = (second ? gridDim.x - split : split) * (blockDim.x / 32);
    long long per_row = (j.ldd + FAST_PAD_CHUNK - 1) / FAST_PAD_CHUNK, chunks = per_row * j.rows;
    int lane = threadIdx.x % 32;
    for (long long w = (blockIdx.x - (second ? split : 0)) * (blockDim.x / 32) + threadIdx.x / 32; w < chunks;
         w += warps) {
        long long i = w / per_row;
        int c = (int)(w - i * per_row) * FAST_PAD_CHUNK + lane;
        const float *s = j.src + i * j.lds;
        float *d = j.dst + i * j.ldd;
        float v[U];
#pragma unroll
        for (int t = 0; t < U; t++)
            v[t] = c + 32 * t < j.cols ? s[c + 32 * t] : 0.f;
#pragma unroll
        for (int t = 0; t < U; t++)
            if (c + 32 * t < j.ldd)
                d[c + 32 * t] = v[t];
    }
}

#define FAST_PAD_WARPS 8 /* warps of a block of fast_pad_rows */

/* The copies in one launch, the blocks shared between the jobs as their
 * bytes are; a job of 0 rows copies nothing. */
static int pad_run(const fast_pad_job *a, const fast_pad_job *b)
{
    double fa = (double)a->rows * a->ldd, fb = (double)b->rows * b->ldd;
    unsigned need = gpu_cdiv((long long)a->rows * gpu_cdiv(a->ldd, FAST_PAD_CHUNK), FAST_PAD_WARPS) +
                    gpu_cdiv((long long)b->rows * gpu_cdiv(b->ldd, FAST_PAD_CHUNK), FAST_PAD_WARPS);
    unsigned full = (unsigned)gpu_sm_count() * 8, blocks = need < full ? need : full;
    unsigned split = b->rows == 0 ? blocks : (unsigned)(blocks * fa / (fa + fb));
    if (split < 1)
        split = 1;
    if (b->rows && split >= blocks)
        blocks = split + 1;
    GPU_LAUNCH(fast_pad_rows, blocks, FAST_PAD_WARPS * 32, 0, *a, *b, split);
    return 0;
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
#ifndef FAST_RAW_OVER_KG
#define FAST_RAW_OVER_KG 1.07
#endif
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
    if (pad_run(&ja, &jb) != 0)
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

/* --- matrix-vector products ----------------------------------------------------- */

#define GEMV_WARPS 8 /* warps per block of the matrix-vector kernels */
#ifndef GEMV_BATCH
#define GEMV_BATCH 8  /* rows of b a lane has in flight (col_sums) */
#endif
#ifndef GEMV_PER_SM
#define GEMV_PER_SM 4 /* blocks an SM that gemv_cols_run's slices aim at */
#endif

/* c (m x 1) = a (m x k) @ b (k x 1): a warp per row, reading it 16 bytes
 * a lane where the rows allow (vec), then a shuffle tree. Every byte of a
 * is read once: this runs at the memory's bandwidth. */
static __global__ void gemv_rows(float *c, const float *a, const float *b, int m, int k, int vec)
{
    int lane = threadIdx.x % 32;
    long long i = (long long)blockIdx.x * GEMV_WARPS + threadIdx.x / 32;
    if (i >= m)
        return;
    const float *row = a + (size_t)i * k;
    float s = 0.0f;
    int q = 0;
    if (vec) {
        const float4 *r4 = (const float4 *)row, *b4 = (const float4 *)b;
        for (int t = lane; t < k / 4; t += 32) {
            float4 x = r4[t], y = b4[t];
            s = fmaf(x.x, y.x, s);
            s = fmaf(x.y, y.y, s);
            s = fmaf(x.z, y.z, s);
            s = fmaf(x.w, y.w, s);
        }
        q = k / 4 * 4;
    }
    for (q += lane; q < k; q += 32)
        s = fmaf(row[q], b[q], s);
    for (int off = 16; off > 0; off /= 2)
        s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0)
        c[i] = s;
}

/* A lane's sums for its 4 (VEC) or 1 columns from j on over rows q0,
 * q0 + GEMV_WARPS, ... below kend: a[q] times b's row q. The rows come in
 * batches of GEMV_BATCH, every load of a batch issued before its first
 * multiply-add, so that a lane keeps that many of b's rows in flight: the
 * kernel is bound by how many bytes are on their way from memory. */
template <bool VEC> static __device__ __forceinline__ float4 b_at(const float *b, size_t at)
{
    return VEC ? __ldcs((const float4 *)(b + at)) : make_float4(__ldcs(b + at), 0.f, 0.f, 0.f);
}

template <bool VEC>
static __device__ __forceinline__ float4 col_sums(const float *a, const float *b, int n, int j, int q0, int kend)
{
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
    if (j >= n)
        return s;
    int q = q0;
    for (; q + (GEMV_BATCH - 1) * GEMV_WARPS < kend; q += GEMV_BATCH * GEMV_WARPS) {
        float4 y[GEMV_BATCH];
        float x[GEMV_BATCH];
#pragma unroll
        for (int u = 0; u < GEMV_BATCH; u++) {
            x[u] = a[q + u * GEMV_WARPS];
            y[u] = b_at<VEC>(b, (size_t)(q + u * GEMV_WARPS) * n + j);
        }
#pragma unroll
        for (int u = 0; u < GEMV_BATCH; u++)
            s.x = fmaf(x[u], y[u].x, s.x), s.y = fmaf(x[u], y[u].y, s.y), s.z = fmaf(x[u], y[u].z, s.z),
            s.w = fmaf(x[u], y[u].w, s.w);
    }
    for (; q < kend; q += GEMV_WARPS) {
        float4 y = b_at<VEC>(b, (size_t)q * n + j);
        s.x = fmaf(a[q], y.x, s.x), s.y = fmaf(a[q], y.y, s.y), s.z = fmaf(a[q], y.z, s.z), s.w = fmaf(a[q], y.w, s.w);
    }
    return s;
}

/* The block's warps' values added in warp order, into warp 0's. Every
 * thread must come; the slots are free again on return. */
static __device__ float4 warps_sum(float4 s)
{
    __shared__ float4 part[GEMV_WARPS][32];
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    part[w][lane] = s;
    __syncthreads();
    if (w == 0)
        for (int v = 1; v < GEMV_WARPS; v++) {
            float4 t = part[v][lane];
            s.x += t.x, s.y += t.y, s.z += t.z, s.w += t.w;
        }
    __syncthreads();
    return s;
}

template <bool VEC> static __device__ __forceinline__ void put_cols(float *dst, float4 s)
{
    if (VEC)
        *(float4 *)dst = s;
    else
        dst[0] = s.x;
}

/* out (1 x n) = a (1 x k) @ b (k x n): block (x, y) sums k-slice y (rows
 * kchunk wide) of column group x, a lane owning 4 adjacent columns (16-byte
 * loads, VEC) or 1, the block's 8 warps every 8th row of the slice. With
 * one slice the sums go to c. With more, each slice's go to part + y n,
 * and the column group's last slice to arrive adds all of them, slice by
 * slice in a fixed order (warp v slices v, v + 8, ..., then the warps in
 * order): no second launch, and the same bits whatever the arrival order. */
template <bool VEC>
static __global__ void __launch_bounds__(GEMV_WARPS * 32)
    gemv_cols(float *c, float *part, const float *a, const float *b, int n, int k, int kchunk)
{
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    int j = (blockIdx.x * 32 + lane) * (VEC ? 4 : 1);
    int kbeg = blockIdx.y * kchunk, kend = min(k, kbeg + kchunk);
    float4 s = warps_sum(col_sums<VEC>(a, b, n, j, kbeg + w, kend));
    float *dst = gridDim.y == 1 ? c : part + (size_t)blockIdx.y * n;
    if (w == 0 && j < n)
        put_cols<VEC>(dst + j, s);
    if (gridDim.y == 1 || !arrived_last(&gemv_arrived[blockIdx.x], gridDim.y))
        return;
    s = make_float4(0.f, 0.f, 0.f, 0.f);
    if (j < n)
#pragma unroll 4
        for (int z = w; z < (int)gridDim.y; z += GEMV_WARPS) {
            const float *src = part + (size_t)z * n + j;
            float4 v = VEC ? __ldcg((const float4 *)src) : make_float4(__ldcg(src), 0.f, 0.f, 0.f);
            s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
        }
    s = warps_sum(s);
    if (w == 0 && j < n)
        put_cols<VEC>(c + j, s);
}

/* 1 x n: enough k-slices for about 4 blocks an SM, each slice at least 64
 * rows of b; one slice when the column groups are too many to count.
 * Filling every block slot an SM has instead (6 at 40 registers a thread:
 * 25 slices at 1 x 4096 x 4096) made 800 blocks for 792 slots, a second
 * wave of 8 blocks, and ran 13% slower (PERF.md, v5); 17, 8 or 66 slices
 * ran within 5% of one another there. */
static int gemv_cols_run(float *c, const float *a, const float *b, int n, int k)
{
    int vec = n % 4 == 0 && aligned16(b) && aligned16(c);
    unsigned cols = gpu_cdiv(n, 32 * (vec ? 4 : 1));
    long long want = ((long long)GEMV_PER_SM * gpu_sm_count() + cols - 1) / cols;
    long long most = (k + 63) / 64;
    int slices = (int)(want < most ? want : most);
    slices = cols > FAST_SK_TILES || slices < 1 ? 1 : slices > GPU_MAX_GRID_Y ? GPU_MAX_GRID_Y : slices;
    int kchunk = (k + slices - 1) / slices;
    slices = kchunk ? (k + kchunk - 1) / kchunk : 1;
    void *part = NULL;
    if (slices > 1 && gpu_scratch(&part, (size_t)slices * n * sizeof(float)) != 0)
        return -1;
    if (vec)
        GPU_LAUNCH(gemv_cols<true>, dim3(cols, slices), GEMV_WARPS * 32, 0, c, (float *)part, a, b, n, k, kchunk);
    else
        GPU_LAUNCH(gemv_cols<false>, dim3(cols, slices), GEMV_WARPS * 32, 0, c, (float *)part, a, b, n, k, kchunk);
    return 0;
}

/* --- thin products: a few columns --------------------------------------------------- */

/* A product whose b has at most THIN_MAX columns, or the last few columns
 * of a wider one whose other columns fill tiles of 64 exactly: at n = 67
 * the tiles' 128 columns did 61 for nothing, and 4099x4093x67 ran at 0.76
 * of cuBLAS (PERF.md, ## fast, v9). Such a product reads a once and uses
 * each float of it for every column: it runs at the memory's bandwidth,
 * as the matrix-vector kernels do. A block's 8 warps take THIN_RW rows of
 * a each, a warp's lanes 32 floats apart along k, each lane with two
 * batches of a's floats in flight (THIN_BATCH); b's columns (w rounded up
 * to W, 4 or 8) for the block's slice of k are staged in shared memory (up
 * to THIN_SMEM bytes at a time), each staged float serving the block's 32
 * rows. k is cut into slices so that the row groups fill the blocks the
 * SMs hold in one wave, and so that a slice's piece of b is staged at
 * once: at 4099x4093x3 a first version (4 slices, 516 blocks for 396
 * places, b staged 512 rows at a time, a barrier each) ran 0.050 ms on
 * the H200, this one's layout 0.037. The lanes' first loads are issued before b's piece is staged, and
 * each batch's loads during the last one's arithmetic (1000000x64x4: 0.234
 * -> 0.167 ms on the H100; PERF.md, ## fast, v9). Each slice's sums go to
 * scratch, and the last slice of a row group to arrive adds them in slice
 * order (as gemv_cols): the same bits whatever the order of arrival. */
#define THIN_MAX 8
#define THIN_RW 4                             /* rows of a a warp: its THIN_RW x W sums, one a lane */
#define THIN_ROWS (GEMV_WARPS * THIN_RW)      /* rows of a a block */
/* Steps of 32 along k whose loads a lane issues at once: 4 for W = 4, 2
 * for W = 8, whose sums take twice the registers (4099x4093x8: 0.062 ms
 * with 4, 0.054 with 2; 4099x4093x3 0.045 with 4, 0.046 with 2). */
#define THIN_BATCH(W) (16 / (W))
#define THIN_SMEM 49152                       /* under every GPU's default */
static __device__ unsigned thin_arrived[FAST_SK_TILES];

/* One k of the lane's THIN_RW rows: x, a's values, times the W columns of
 * b's row at bq (W / 4 float4s, kstage apart). */
template <int W>
static __device__ __forceinline__ void thin_step(float acc[THIN_RW][W], const float *x, const float4 *bq, int kstage)
{
#pragma unroll
    for (int h = 0; h < W / 4; h++) {
        float4 y = bq[h * kstage];
#pragma unroll
        for (int r = 0; r < THIN_RW; r++) {
            acc[r][4 * h] = fmaf(x[r], y.x, acc[r][4 * h]);
            acc[r][4 * h + 1] = fmaf(x[r], y.y, acc[r][4 * h + 1]);
            acc[r][4 * h + 2] = fmaf(x[r], y.z, acc[r][4 * h + 2]);
            acc[r][4 * h + 3] = fmaf(x[r], y.w, acc[r][4 * h + 3]);
        }
    }
}

/* A lane's batch of a's floats: B steps of 32 from q on, below kc, of its
 * THIN_RW rows from k0. Read once: evict-first, which keeps them from
 * crowding L2 (plain loads ran 4099x4093x67 6% slower: 0.144 ms against
 * 0.136). */
template <int B>
static __device__ __forceinline__ void thin_load(float x[B][THIN_RW], const float *const *ar, int k0, int q, int kc)
{
#pragma unroll
    for (int u = 0; u < B; u++)
#pragma unroll
        for (int r = 0; r < THIN_RW; r++)
            x[u][r] = q + 32 * u < kc ? __ldcs(ar[r] + k0 + q + 32 * u) : 0.0f;
}

/* c (m x w, rows ldc apart) = a (m x k, rows lda apart) @ b (k x w, rows
 * ldb apart), w <= W, over k-slices kchunk deep (blockIdx.y), b's rows
 * staged kstage at a time; part: the slices' sums, W a row. */
template <int W>
static __global__ void __launch_bounds__(GEMV_WARPS * 32)
    gemm_thin(float *c, int ldc, float *part, const float *a, int lda, const float *b, int ldb, int m, int k, int w,
              int kchunk, int kstage)
{
    extern __shared__ float4 smem_raw[]; /* [j / 4][q]: b's row q, columns j..j+3, of the piece staged */
    int lane = threadIdx.x % 32, row0 = blockIdx.x * THIN_ROWS + threadIdx.x / 32 * THIN_RW;
    int kbeg = blockIdx.y * kchunk, kend = min(k, kbeg + kchunk);
    const float *ar[THIN_RW]; /* rows past m read row m - 1, and are not stored */
    float acc[THIN_RW][W];
#pragma unroll
    for (int r = 0; r < THIN_RW; r++) {
        ar[r] = a + (size_t)min(row0 + r, m - 1) * lda;
#pragma unroll
        for (int j = 0; j < W; j++)
            acc[r][j] = 0.0f;
    }
    for (int k0 = kbeg; k0 < kend; k0 += kstage) {
        int kc = min(kstage, kend - k0);
        constexpr int B = THIN_BATCH(W);
        float x[B][THIN_RW];
        thin_load<B>(x, ar, k0, lane, kc); /* on their way while b's piece is staged */
        __syncthreads();                   /* every warp is done with the last piece */
        for (int i = threadIdx.x; i < kc * W; i += blockDim.x) {
            int q = i / W, j = i % W;
            ((float *)&smem_raw[j / 4 * kstage + q])[j % 4] = j < w ? b[(size_t)(k0 + q) * ldb + j] : 0.0f;
        }
        __syncthreads();
        for (int q = lane; q < kc; q += 32 * B) {
            float next[B][THIN_RW];
            thin_load<B>(next, ar, k0, q + 32 * B, kc); /* in flight during this batch's arithmetic */
#pragma unroll
            for (int u = 0; u < B; u++)
                if (q + 32 * u < kc)
                    thin_step<W>(acc, x[u], smem_raw + q + 32 * u, kstage);
#pragma unroll
            for (int u = 0; u < B; u++)
#pragma unroll
                for (int r = 0; r < THIN_RW; r++)
                    x[u][r] = next[u][r];
        }
    }
    /* Lane r W + j keeps row r's column j: to c, or with several slices to
     * part. */
    float mine = 0.0f;
#pragma unroll
    for (int r = 0; r < THIN_RW; r++)
#pragma unroll
        for (int j = 0; j < W; j++) {
            float t = warp_total(acc[r][j]);
            mine = lane == r * W + j ? t : mine;
        }
    int row = row0 + lane / W, j = lane % W;
    if (lane < THIN_RW * W && row < m && (gridDim.y > 1 || j < w)) {
        if (gridDim.y == 1)
            c[(size_t)row * ldc + j] = mine;
        else
            part[((size_t)blockIdx.y * m + row) * W + j] = mine;
    }
    if (gridDim.y > 1 && arrived_last(&thin_arrived[blockIdx.x], gridDim.y))
        for (int e = threadIdx.x; e < THIN_ROWS * W; e += blockDim.x) {
            int row = blockIdx.x * THIN_ROWS + e / W, j = e % W;
            if (row >= m || j >= w)
                continue;
            c[(size_t)row * ldc + j] = slices_sum(part, (size_t)row * W + j, (size_t)m * W, gridDim.y);
        }
    gpu_end_after_prior();
}

/* c (m x w, rows ldc apart) = a (m x k) @ b (k x w, rows ldb apart), w <=
 * THIN_MAX: as many k-slices as the row groups leave places for in one
 * wave, each at least 256 deep (8 floats a lane), and at least enough for
 * each slice's piece of b to be staged at once; one where the row groups
 * are too many to count (then pieces of b). beside: the kernel ahead on
 * the stream is the tiled product of c's other columns, which uses the
 * scratch's first `after` floats, so the slices' sums go past them; the
 * kernel is launched early, to run in the SMs the product's last blocks
 * leave idle (gpu_launch_early). */
typedef void thin_fn(float *, int, float *, const float *, int, const float *, int, int, int, int, int, int);
static int thin_run(float *c, int ldc, const float *a, const float *b, int ldb, int m, int k, int w, int beside,
                    size_t after)
{
    static int held[2]; /* blocks of gemm_thin<4>, <8> an SM holds; 0: not asked yet */
    int wide = w > 4 ? 8 : 4, most_rows = THIN_SMEM / (wide * (int)sizeof(float));
    thin_fn *kernel = wide == 4 ? gemm_thin<4> : gemm_thin<8>;
    const char *name = wide == 4 ? "gemm_thin<4>" : "gemm_thin<8>";
    int per_sm = held[wide / 8] ? held[wide / 8] : gpu_blocks_per_sm((const void *)kernel, GEMV_WARPS * 32, THIN_SMEM);
    if (per_sm < 1)
        return -1;
    held[wide / 8] = per_sm;
    unsigned groups = gpu_cdiv(m, THIN_ROWS);
    long long fill = (long long)per_sm * gpu_sm_count() / groups, deep = (k + 255) / 256;
    long long slices = fill < deep ? fill : deep, fit = (k + most_rows - 1) / most_rows;
    slices = slices < fit ? fit : slices;
    slices = groups > FAST_SK_TILES || slices < 1 ? 1 : slices > GPU_MAX_GRID_Y ? GPU_MAX_GRID_Y : slices;
    int kchunk = (int)((k + slices - 1) / slices), kstage = kchunk < most_rows ? kchunk : most_rows;
    slices = (k + kchunk - 1) / kchunk;
    float *part = NULL;
    if (slices > 1) {
        if (gpu_scratch((void **)&part, (after + (size_t)slices * m * wide) * sizeof(float)) != 0)
            return -1;
        part += after;
    }
    dim3 grid(groups, (unsigned)slices), block(GEMV_WARPS * 32);
    size_t smem = (size_t)kstage * wide * sizeof(float);
    return gpu_launch_early(beside, kernel, name, grid, block, smem, __FILE__, __LINE__, c, ldc, part, a, k, b, ldb, m,
                            k, w, kchunk, kstage);
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

/* --- the last few rows beside the product ------------------------------------------ */

/* c (r x n, rows ldc apart) = a (r x k, rows lda apart) @ b (k x n, rows
 * ldb apart), r <= R <= ROWS_MAX: the last m % 64 rows of a product whose
 * other rows are tiled (1037 = 16 x 64 + 13: in 64-row tiles the 17th row
 * of tiles holds 13 rows and costs 1/17 of the k-steps), run beside it in
 * the places its grid leaves free. A thread keeps the R sums of one
 * column, a block ROWS_THREADS columns; k in slices (blockIdx.y) kchunk
 * deep. a's rows are staged ROWS_KS of k at a time, k-major, and read as
 * broadcasts, the next piece's loads in flight during this one's
 * arithmetic; b's floats one by one (its rows need not be aligned: no
 * padded copy to wait for), ROWS_BATCH k-rows in flight during the last
 * batch's. The slices' sums go to part (R x n each, one slice or more:
 * one path), and the last slice of a column block to arrive adds them in
 * slice order, as gemm_thin does. */
#define ROWS_MAX 16
#define ROWS_THREADS 128
#define ROWS_KS 64
#define ROWS_BATCH 16
/* Registers for 2 blocks in a place of the product's (128 threads of 168
 * registers): at most 80 a thread (48 bytes of the 16-row kernel's spill;
 * at 128 registers, one block a place, it ran slower, PERF.md v14). */
#define ROWS_MIN_BLOCKS 6
static __device__ unsigned rows_arrived[FAST_SK_TILES];

/* ROWS_BATCH k-rows of b's column j from q on (below kc); zeros past the
 * edges. */
static __device__ __forceinline__ void rows_load(float v[ROWS_BATCH], const float *b, int ldb, int q, int kc, bool in)
{
#pragma unroll
    for (int u = 0; u < ROWS_BATCH; u++)
        v[u] = in && q + u < kc ? __ldg(b + (size_t)(q + u) * ldb) : 0.0f;
}

/* The thread's floats of a's piece at k0 (below kend), for as: a warp
 * reads 32 consecutive floats of a row. All loads at once, into registers,
 * not each stored before the next is read. */
template <int R>
static __device__ __forceinline__ void rows_fetch_a(float *v, const float *a, int lda, int r, int k0, int kend)
{
#pragma unroll
    for (int u = 0; u < ROWS_KS * R / ROWS_THREADS; u++) {
        int e = threadIdx.x + u * ROWS_THREADS, i = e / ROWS_KS, q = e % ROWS_KS;
        v[u] = i < r && k0 + q < kend ? a[(size_t)i * lda + k0 + q] : 0.0f;
    }
}

template <int R>
static __global__ void __launch_bounds__(ROWS_THREADS, ROWS_MIN_BLOCKS)
    gemm_rows(float *c, int ldc, float *part, const float *a, int lda, const float *b, int ldb, int r, int n, int k,
              int kchunk)
{
    static_assert(R % 4 == 0 && R <= ROWS_MAX && ROWS_KS % ROWS_BATCH == 0 && ROWS_KS * R % ROWS_THREADS == 0,
                  "whole float4s, batches and pieces");
    __shared__ float4 as[ROWS_KS][R / 4]; /* as[q][i / 4] holds a[i][k0 + q] */
    gpu_next_may_start();                 /* the thin kernel, launched after this one (fast_matmul) */
    int j = blockIdx.x * ROWS_THREADS + threadIdx.x;
    bool in = j < n;
    int kbeg = blockIdx.y * kchunk, kend = min(k, kbeg + kchunk);
    float acc[R];
#pragma unroll
    for (int i = 0; i < R; i++)
        acc[i] = 0.0f;
    float ap[ROWS_KS * R / ROWS_THREADS]; /* a's next piece, in flight during this one's arithmetic */
    rows_fetch_a<R>(ap, a, lda, r, kbeg, kend);
    for (int k0 = kbeg; k0 < kend; k0 += ROWS_KS) {
        int kc = min(ROWS_KS, kend - k0);
        const float *bk = b + (size_t)k0 * ldb + (in ? j : 0);
        float next[ROWS_BATCH];
        rows_load(next, bk, ldb, 0, kc, in); /* on their way while a's piece is staged */
        __syncthreads();                     /* every thread is done with the last piece */
#pragma unroll
        for (int u = 0; u < ROWS_KS * R / ROWS_THREADS; u++) {
            int e = threadIdx.x + u * ROWS_THREADS;
            ((float *)as[e % ROWS_KS])[e / ROWS_KS] = ap[u];
        }
        __syncthreads();
        if (k0 + ROWS_KS < kend)
            rows_fetch_a<R>(ap, a, lda, r, k0 + ROWS_KS, kend);
        for (int q = 0; q < kc; q += ROWS_BATCH) {
            float v[ROWS_BATCH];
#pragma unroll
            for (int u = 0; u < ROWS_BATCH; u++)
                v[u] = next[u];
            rows_load(next, bk, ldb, q + ROWS_BATCH, kc, in);
#pragma unroll
            for (int u = 0; u < ROWS_BATCH; u++) {
                float x[R];
#pragma unroll
                for (int g = 0; g < R / 4; g++)
                    *(float4 *)&x[4 * g] = as[q + u][g]; /* q + u < ROWS_KS: q <= ROWS_KS - ROWS_BATCH */
#pragma unroll
                for (int i = 0; i < R; i++)
                    acc[i] = fmaf(x[i], v[u], acc[i]);
            }
        }
    }
    float *mine = part + (size_t)blockIdx.y * R * n;
#pragma unroll
    for (int i = 0; i < R; i++)
        if (i < r && in)
            mine[(size_t)i * n + j] = acc[i];
    if (arrived_last(&rows_arrived[blockIdx.x], gridDim.y) && in)
        for (int i = 0; i < r; i++)
            c[(size_t)i * ldc + j] = slices_sum(part, (size_t)i * n + j, (size_t)R * n, gridDim.y);
    gpu_end_after_prior();
}

/* The rows gemm_rows computes for r: 4, 8 or 16. */
static int rows_wide(int r) { return r > 8 ? 16 : r > 4 ? 8 : 4; }

/* c's last r rows beside the product of the others: as many k-slices as
 * fill the `places` the product leaves free with the column blocks (a
 * place holds ROWS_PER_PLACE of them), each at least ROWS_KS deep; the
 * slices' sums in the scratch past its first `after` floats (the
 * product's), *used floats of it in all. */
#define ROWS_PER_PLACE 2
typedef void rows_fn(float *, int, float *, const float *, int, const float *, int, int, int, int, int);
static int rows_run(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int r, int n, int k,
                    int places, size_t after, size_t *used)
{
    int wide = rows_wide(r);
    rows_fn *kernel = wide == 16 ? gemm_rows<16> : wide == 8 ? gemm_rows<8> : gemm_rows<4>;
    const char *name = wide == 16 ? "gemm_rows<16>" : wide == 8 ? "gemm_rows<8>" : "gemm_rows<4>";
    unsigned cols = gpu_cdiv(n, ROWS_THREADS);
    int slices = ROWS_PER_PLACE * places / (int)cols, deep = (k + ROWS_KS - 1) / ROWS_KS;
    slices = slices < 1 ? 1 : slices > deep ? deep : slices > GPU_MAX_GRID_Y ? GPU_MAX_GRID_Y : slices;
    if (cols > FAST_SK_TILES)
        slices = 1;
    int kchunk = (k + slices - 1) / slices;
    slices = (k + kchunk - 1) / kchunk;
    float *part;
    *used = after + (size_t)slices * wide * n;
    if (gpu_scratch((void **)&part, *used * sizeof(float)) != 0)
        return -1;
    part += after;
    dim3 grid(cols, (unsigned)slices), block(ROWS_THREADS);
    return gpu_launch_early(1, kernel, name, grid, block, 0, __FILE__, __LINE__, c, ldc, part, a, lda, b, ldb, r, n, k,
                            kchunk);
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
#ifndef FAST_THIN_UNDER
#define FAST_THIN_UNDER 0.85
#endif
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

/* --- the edges beside a k-groups product ------------------------------------------ */

/* c's last h rows (all n columns: the bottom strip) and, in its first m0
 * rows, its last w columns (the right strip), made beside a k-groups
 * product of the other m0 x n0 (launched early) by one block in each SM
 * its grid leaves free, not in its blocks (fast_kg_edges), where they
 * cost it 11-14% however few (1037x1056x1032 0.068-0.069 ms, its 13 rows
 * alone or 8 columns alone ~0.067, against 1024x1056x1024's 0.060; H100,
 * PERF.md, ## fast, v16). Beside it they cost nothing where the free SMs
 * make them in the product's time (kg_edges_beside): 13 rows alone or 8
 * columns, not 1037's 13 and 7 (~94 us in its 4 free SMs). A thread of the
 * bottom strip makes H rows x 4 columns (Q apart) over a k-slice of its
 * own, from a's rows in shared memory (16-byte broadcasts, 4 k at a
 * time) and b's floats from L2, and the slices are added in slice order;
 * a warp of the right strip makes 8 rows x 8 columns, its lanes along k
 * (a's rows read 128 bytes at a time), b's w columns in shared memory,
 * and adds its lanes' sums in a fixed tree (edge_lanes_sum). Every sum
 * has one order: the same bits every run. */
typedef struct {
    float *c;
    const float *a, *b;
    int ldc, lda, ldb, m0, n0, h, w, n, k;
} fast_edge_args;

#define EDGE_THREADS 512
#define EDGE_SMEM (100 << 10) /* the most gemm_edges asks for: a's rows, or b's columns, all of k */

/* The bottom strip's column quads a block of `blocks` makes: its 4 Q
 * columns from 4 Q g on, a thread's Q apart (a warp's loads of b and
 * stores of c in consecutive floats). */
static __host__ __device__ int edge_quads(int n, int blocks) { return (n + 4 * blocks - 1) / (4 * blocks); }
/* Shared memory of gemm_edges: a's h rows (k rounded up to 4), b's 8
 * columns, or the bottom strip's slices' sums, 4 rows at a time. */
static __host__ __device__ size_t edge_smem(int h, int n, int k, int blocks)
{
    size_t q = (size_t)edge_quads(n, blocks), rows = (size_t)h * ((k + 3) / 4 * 4), cols = (size_t)8 * k;
    size_t sums = 16 * q * (EDGE_THREADS / q), most = rows > cols ? rows : cols;
    return sizeof(float) * (most > sums ? most : sums);
}

/* 4 k-rows of the bottom strip from k-row kk: a's H floats from sm (rows
 * kp apart), b's 4 x 4 at b + col[j] + (kk + u) ldb, zeros from k-row
 * `end` on where TAIL (the slice's last, short step). */
template <int H, bool TAIL>
static __device__ __forceinline__ void edge_bottom_step(float acc[H][4], const float *sm, int kp, const float *b,
                                                        const int col[4], int ldb, int kk, int end)
{
    float bv[4][4];
#pragma unroll
    for (int u = 0; u < 4; u++) {
        const float *row = b + (size_t)(kk + u) * ldb;
#pragma unroll
        for (int j = 0; j < 4; j++)
            bv[u][j] = !TAIL || kk + u < end ? __ldg(row + col[j]) : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < H; i++) {
        float4 x = *(const float4 *)&sm[i * kp + kk];
        const float xa[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
            for (int j = 0; j < 4; j++)
                acc[i][j] = fmaf(xa[u], bv[u][j], acc[i][j]);
    }
}

template <int H> static __device__ void edge_bottom(const fast_edge_args &e, float *sm)
{
    int Q = edge_quads(e.n, gridDim.x), col0 = 4 * Q * blockIdx.x, t = threadIdx.x;
    int slices = EDGE_THREADS / Q, s = t / Q, q = t % Q, kp = (e.k + 3) / 4 * 4;
    const float *a = e.a + (size_t)e.m0 * e.lda;
#pragma unroll 1
    for (int i = 0; i < H; i++) /* sm[i kp + q] = a[m0 + i][q]; zeros past k */
        for (int kk = t; kk < kp; kk += EDGE_THREADS)
            sm[i * kp + kk] = kk < e.k ? a[(size_t)i * e.lda + kk] : 0.0f;
    __syncthreads();
    float acc[H][4];
#pragma unroll
    for (int i = 0; i < H; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            acc[i][j] = 0.0f;
    int col[4]; /* the thread's columns, past n read as n - 1 and not stored */
#pragma unroll
    for (int j = 0; j < 4; j++)
        col[j] = min(col0 + q + j * Q, e.n - 1);
    if (s < slices) {
        /* Slices of a multiple of 4 of k: only the last one's last step
         * reaches past k, where a's floats are zeros. (With b's next 4
         * k-rows in flight during each step, no faster: PERF.md, v16.) */
        int per = (e.k + 4 * slices - 1) / (4 * slices) * 4, kk = s * per, end = min(e.k, kk + per);
        for (; kk + 4 <= end; kk += 4)
            edge_bottom_step<H, false>(acc, sm, kp, e.b, col, e.ldb, kk, end);
        if (kk < end)
            edge_bottom_step<H, true>(acc, sm, kp, e.b, col, e.ldb, kk, end);
    }
    /* The slices' sums in slice order, 4 rows a pass: slice z's row r,
     * column l of the block at sm[16 Q z + 4 Q r + l]. */
#pragma unroll
    for (int r0 = 0; r0 < H; r0 += 4) {
        __syncthreads(); /* a's rows, or the last pass's sums, read */
        if (s < slices)
#pragma unroll
            for (int r = 0; r < 4; r++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    sm[(4 * s + r) * 4 * Q + q + j * Q] = r0 + r < H ? acc[r0 + r < H ? r0 + r : 0][j] : 0.0f;
        __syncthreads();
        for (int x = t; x < 16 * Q; x += EDGE_THREADS) {
            int r = x / (4 * Q), l = x - r * 4 * Q;
            if (r0 + r >= H || col0 + l >= e.n)
                continue;
            float v = sm[x];
            for (int z = 1; z < slices; z++)
                v += sm[16 * Q * z + x];
            e.c[(size_t)(e.m0 + r0 + r) * e.ldc + col0 + l] = v;
        }
    }
}

/* The warp's 64 sums (v[8 r + j]: row r, column j) over its lanes: in
 * five steps (OFF 16, 8, .. 1) each lane gives the lane OFF away half of
 * what it holds and adds that lane's half of its own, so that lane l ends
 * with outputs 2 l and 2 l + 1 in v[0] and v[1]: 62 shuffles, not 64 x 5.
 * A template a step, so that every index is a constant and v stays in
 * registers. */
template <int OFF> static __device__ __forceinline__ void edge_lanes_sum(float v[64])
{
    bool up = threadIdx.x & OFF;
#pragma unroll
    for (int i = 0; i < 2 * OFF; i++) {
        float lo = v[i], hi = v[i + 2 * OFF];
        v[i] = (up ? hi : lo) + __shfl_xor_sync(0xffffffffu, up ? lo : hi, OFF);
    }
    if constexpr (OFF > 1)
        edge_lanes_sum<OFF / 2>(v);
}

/* k-rows kk (and kk + 32 where TWO) of the warp's 8 rows of a (at a +
 * off[r]) into its 8 x 8 sums, b's 8 columns from sm. */
template <bool TWO>
static __device__ __forceinline__ void edge_right_step(float v[64], const float *a, const int off[8], const float *sm,
                                                       int kk)
{
    float x[2][8];
#pragma unroll
    for (int h = 0; h < (TWO ? 2 : 1); h++)
#pragma unroll
        for (int r = 0; r < 8; r++)
            x[h][r] = __ldg(a + off[r] + kk + 32 * h);
#pragma unroll
    for (int h = 0; h < (TWO ? 2 : 1); h++) {
        float4 b0 = *(const float4 *)&sm[8 * (kk + 32 * h)], b1 = *(const float4 *)&sm[8 * (kk + 32 * h) + 4];
        const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int r = 0; r < 8; r++)
#pragma unroll
            for (int j = 0; j < 8; j++)
                v[8 * r + j] = fmaf(x[h][r], bv[j], v[8 * r + j]);
    }
}

static __device__ void edge_right(const fast_edge_args &e, float *sm)
{
    int t = threadIdx.x, lane = t % 32;
    for (int x = t; x < 8 * e.k; x += EDGE_THREADS) { /* sm[8 q + j] = b[q][n0 + j]; zeros past w */
        int kk = x / 8, j = x % 8;
        sm[x] = j < e.w ? e.b[(size_t)kk * e.ldb + e.n0 + j] : 0.0f;
    }
    __syncthreads();
    int rows = (e.m0 + gridDim.x - 1) / gridDim.x, row0 = rows * blockIdx.x, row1 = min(e.m0, row0 + rows);
    for (int i0 = row0 + 8 * (t / 32); i0 < row1; i0 += 8 * (EDGE_THREADS / 32)) {
        float v[64];
#pragma unroll
        for (int i = 0; i < 64; i++)
            v[i] = 0.0f;
        const float *a = e.a + (size_t)i0 * e.lda;
        int off[8]; /* rows past row1 read as its last, not stored */
#pragma unroll
        for (int r = 0; r < 8; r++)
            off[r] = (min(i0 + r, row1 - 1) - i0) * e.lda;
        int kk = lane; /* two k-rows a lane a step */
        for (; kk + 32 < e.k; kk += 64)
            edge_right_step<true>(v, a, off, sm, kk);
        if (kk < e.k)
            edge_right_step<false>(v, a, off, sm, kk);
        edge_lanes_sum<16>(v);
        int r = lane / 4, j = 2 * (lane % 4);
        if (i0 + r < row1) {
            float *dst = e.c + (size_t)(i0 + r) * e.ldc + e.n0 + j;
            if (j < e.w)
                dst[0] = v[0];
            if (j + 1 < e.w)
                dst[1] = v[1];
        }
    }
}

/* H: the bottom strip's rows, h exactly (1 where there are none). */
template <int H> static __global__ void __launch_bounds__(EDGE_THREADS, 1) gemm_edges(fast_edge_args e)
{
    extern __shared__ float4 smem_raw[];
    float *sm = (float *)smem_raw;
    if (e.h)
        edge_bottom<H>(e, sm);
    if (e.w) {
        __syncthreads(); /* the bottom strip's sums read */
        edge_right(e, sm);
    }
    gpu_end_after_prior();
}

/* The edges of a k-groups product of c's first m0 rows and n0 columns
 * (c: rows n apart; a: k; b: n), h <= 16 rows and w <= 8 columns (either
 * may be 0), in `blocks` blocks beside it. */
typedef void edges_fn(fast_edge_args);
#define EDGE_KERNEL(H) {gemm_edges<H>, "gemm_edges<" #H ">"}
static const struct {
    edges_fn *kernel;
    const char *name;
} edge_kernels[16] = {EDGE_KERNEL(1),  EDGE_KERNEL(2),  EDGE_KERNEL(3),  EDGE_KERNEL(4),  EDGE_KERNEL(5),  EDGE_KERNEL(6),
                      EDGE_KERNEL(7),  EDGE_KERNEL(8),  EDGE_KERNEL(9),  EDGE_KERNEL(10), EDGE_KERNEL(11), EDGE_KERNEL(12),
                      EDGE_KERNEL(13), EDGE_KERNEL(14), EDGE_KERNEL(15), EDGE_KERNEL(16)};
static int edges_run(float *c, const float *a, const float *b, int m0, int n0, int h, int w, int n, int k, int blocks)
{
    int H = h > 0 ? h : 1;
    fast_edge_args e = {c, a, b, n, k, n, m0, n0, h, w, n, k};
    return gpu_launch_early(1, edge_kernels[H - 1].kernel, edge_kernels[H - 1].name, dim3(blocks), dim3(EDGE_THREADS),
                            edge_smem(H, n, k, blocks), __FILE__, __LINE__, e);
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
 * And the block's shared memory at most EDGE_SMEM. FAST_EDGES_BESIDE (a
 * measurement build's switch): 0 never, 1 wherever there are free SMs. */
#ifndef FAST_EDGE_RATE
#define FAST_EDGE_RATE 0.38
#endif
#define FAST_EDGE_RIGHT 1.5
#define FAST_KG_EDGE_COST 0.12
#ifndef FAST_EDGES_BESIDE
#define FAST_EDGES_BESIDE -1
#endif
static int kg_edges_beside(const fast_route *core, int m0, int n0, int k, int h, int w)
{
    int free = kg_free_sms(core, m0, n0), n = n0 + w, q = free > 0 ? edge_quads(n, free) : 0;
    if (FAST_EDGES_BESIDE == 0 || !gpu_can_launch_early() || free < 1 || q > EDGE_THREADS ||
        edge_smem(h ? h : 1, n, k, free) > EDGE_SMEM)
        return 0;
    double work = ((double)h * 4 * q + (w ? FAST_EDGE_RIGHT * 8 * gpu_cdiv(m0, free) : 0)) * k;
    return FAST_EDGES_BESIDE == 1 || work <= FAST_EDGE_RATE * (1 + FAST_KG_EDGE_COST) * core->cost;
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
        return edges_run(c, a, b, m0, n0, h, w, n, k, kg_free_sms(core, m0, n0));
    }
    int beside = kg_rows_beside(core, m0, n0, k, h);
    fast_edges e = {a + (size_t)m0 * k, b + n0, k, n, beside ? 0 : h, w};
    if (tiled_product(core, c, n, a, b, n, m0, n0, k, &used, &e) != 0)
        return -1;
    if (!beside)
        return 0;
    return rows_run(c + (size_t)m0 * n, n, a + (size_t)m0 * k, k, b, n, h, n, k,
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
typedef struct {
    void (*kernel)(fast_args);
    const char *name;
    int tn;
    size_t smem;
    double rel;
} cover_config;
#define COVER_SMEM(TN) (COVER_KG * COVER_STAGES * sizeof(cover_stage<TN>))
#ifndef COVER_REL
#define COVER_REL 1.03
#endif
static const cover_config covers[] = {
    {fast_sgemm_cover<11>, "fast_sgemm_cover<96x88>", 11, COVER_SMEM(11), COVER_REL},
};
#define NCOVERS ((int)(sizeof covers / sizeof covers[0]))

/* Whether an SM holds a block of cover i (its ~150 KB of shared memory:
 * not on GPUs of 99 KB a block or less), as configs_ready found. */
static int cover_fits[NCOVERS];

static int covers_ready(void)
{
    for (int i = 0; i < NCOVERS; i++)
        if ((cover_fits[i] = smem_fits((const void *)covers[i].kernel, covers[i].smem)) < 0)
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
    const cover_config *f = &covers[i];
    int bn = 8 * f->tn, halves = cover_run_halves(k), run = (halves + 1) / 2;
    long long tiles = (long long)gpu_cdiv(m, COVER_BM) * gpu_cdiv(n, bn);
    if (m < COVER_BM || n < bn || tiles > gpu_sm_count() || run * FAST_BK > FAST_FOLD || run < FAST_SK_MIN_SHARE ||
        !cover_fits[i])
        return -1;
    double work = (double)COVER_KG * COVER_BM * bn * (COVER_HALF * halves + FAST_BK) / f->rel;
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
 * estimate), or NULL. FAST_COVER (a measurement build's switch): 0 never,
 * 1 wherever one applies. */
#ifndef FAST_COVER
#define FAST_COVER -1
#endif
static const cover_config *cover_for(int m, int n, int k, double other)
{
    const cover_config *best = NULL;
    for (int i = 0; i < NCOVERS && FAST_COVER != 0; i++) {
        double c = cover_cost(i, m, n, k);
        if (c >= 0 && (FAST_COVER == 1 || c < other))
            best = &covers[i], other = c;
    }
    return best;
}

/* c (m x n) = a (m x k) @ b (k x n) by cover f, every row as it lies. */
static int cover_run(const cover_config *f, float *c, const float *a, const float *b, int m, int n, int k)
{
    fast_args p = {c, a, b, m, n, k, k, k, n, n, 0, n % 4 == 0 && aligned16(c), 0, NULL};
    unsigned tiles = gpu_cdiv(m, COVER_BM) * gpu_cdiv(n, 8 * f->tn);
    dim3 block = COVER_ONE_SMSP ? dim3(32, COVER_KG, COVER_WARPS) : dim3(COVER_T, COVER_KG);
    return gpu_launch(f->kernel, f->name, dim3(tiles), block, f->smem, __FILE__, __LINE__, p);
}

/* --- the entry point -------------------------------------------------------------- */

extern "C" int fast_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    if (m == 0 || n == 0)
        return 0;
    if (n == 1) {
        int vec = k % 4 == 0 && aligned16(a) && aligned16(b);
        GPU_LAUNCH(gemv_rows, gpu_cdiv(m, GEMV_WARPS), GEMV_WARPS * 32, 0, c, a, b, m, k, vec);
        return 0;
    }
    if (m == 1)
        return gemv_cols_run(c, a, b, n, k);
    if (configs_ready() != 0)
        return -1;
    if (n <= THIN_MAX)
        return thin_run(c, n, a, b, n, m, k, n, 0, 0);
    int ua = unaligned(a, k), ub = unaligned(b, n), h, w;
    fast_route core;
    const cover_config *cover;
    if (kg_edges(&core, m, n, k, ua, ub, &h, &w)) {
        if ((cover = cover_for(m, n, k, core.cost * (1 + kg_edges_cost(&core, m - h, n - w, k, h, w)))))
            return cover_run(cover, c, a, b, m, n, k);
        return kg_run(&core, c, a, b, m, n, k, h, w);
    }
    size_t used = 0;
    fast_route whole = route_for(m, n, k, ua, ub, -1), rest;
    if ((cover = cover_for(m, n, k, whole.cost)))
        return cover_run(cover, c, a, b, m, n, k);
    w = thin_cols(&whole, &rest, m, n, k, ua, ub);
    int n0 = n - w;
    const fast_route *r = w ? &rest : &whole;
    fast_route top;
    int places = 0;
    h = rows_split(r, &top, m, n0, k, ua, ub, &places);
    int m0 = m - h;
    if (tiled_product(h ? &top : r, c, n, a, b, n, m0, n0, k, &used, NULL) != 0)
        return -1;
    if (h && rows_run(c + (size_t)m0 * n, n, a + (size_t)m0 * k, k, b, n, h, n0, k, places, used, &used) != 0)
        return -1;
    return w ? thin_run(c + n0, n, a, b + n0, n, m, k, w, route_plan(r)->kind == FAST_STREAMK, used) : 0;
}
