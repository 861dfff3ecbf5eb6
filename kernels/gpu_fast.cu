/* gpu_fast.cu - the `fast` mode's matrix product: plain CUDA C on the FP32
 * cores (no tensor cores, no library). A register-blocked SGEMM (8 x 8
 * outputs per thread, 32 x 64 per warp, 64..128 x 64..128 per block) fed by
 * a cp.async pipeline, split along k when the output has too few tiles to
 * fill the chip; matrix-vector kernels for the 1 x N and N x 1 products,
 * which are bound by memory bandwidth, not arithmetic. kernels/PERF.md
 * (## fast) records what each version measured. */
#include "kernels/gpu_internal.h"

#include <stdint.h>

/* The entry point of mode fast (modes.c). */
extern "C" cuk_matmul_fn fast_matmul;

#define FAST_BK 16      /* k-depth of one shared-memory stage */
#define FAST_STAGES 3   /* stages in flight: 3 x 16 of k hide a global load */
#define FAST_APAD 4     /* floats of padding per k-row of a's tile (see load_a) */
#define FAST_GROUP 8    /* block rows walked together, for L2 reuse of b's tiles */

/* --- copies into shared memory ----------------------------------------------- */

/* cp.async (sm_80+) copies global to shared memory without passing through
 * registers, so the copies of later stages run while this stage computes.
 * With ok false nothing is read and the destination is zero-filled (the
 * src-size operand 0): edge tiles need no other bounds checks, and the
 * source is never read out of bounds. Older GPUs copy synchronously; the
 * barriers then order everything. */
static __device__ __forceinline__ void copy4(float *dst, const float *src, bool ok)
{
#if __CUDA_ARCH__ >= 800
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src), "r"(ok ? 4 : 0));
#else
    *dst = ok ? *src : 0.0f;
#endif
}

/* The same for 16 bytes; src is 16-byte aligned. .cg: b's tiles are shared
 * by many blocks through L2, not L1. */
static __device__ __forceinline__ void copy16(float *dst, const float *src, bool ok)
{
#if __CUDA_ARCH__ >= 800
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(ok ? 16 : 0));
#else
    *(float4 *)dst = ok ? *(const float4 *)src : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}

/* Close the group of copies issued since the last commit. */
static __device__ __forceinline__ void copy_commit(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/* Wait until at most `pending` committed groups are still in flight. */
template <int pending> static __device__ __forceinline__ void copy_wait(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending));
#endif
}

/* --- the tiled product --------------------------------------------------------- */

/* One launch of the tiled kernel: out (m x n) = a (m x k) @ b (k x n) over
 * k-slice blockIdx.z, k-slices kchunk wide (a multiple of FAST_BK). With one
 * slice out is c; with more, out is slice z's partial product at out + z *
 * zstride, summed by sum_slices. vec_a, vec_b, vec_c: the rows of a, b, out
 * can be read or written 16 bytes at a time (k resp. n % 4 == 0 and the
 * buffer aligned; the engine passes sub-buffers for big grids). */
typedef struct {
    float *out;
    const float *a, *b;
    int m, n, k, kchunk;
    size_t zstride;
    int vec_a, vec_b, vec_c;
} fast_args;

/* The shared-memory layout of one stage: a's tile k-major (as[q][i] =
 * a[i0 + i][k0 + q]), so that a thread's 8 values of a at one q are two
 * 16-byte loads, like its 8 values of b; b's tile as it is in memory. The
 * padding of 4 floats keeps the rows 16-byte aligned and halves the bank
 * conflicts of the transposed stores (2-way, on 8 stores against 64 loads
 * a stage). */
template <int BM, int BN> struct fast_stage {
    float as[FAST_BK][BM + FAST_APAD];
    float bs[FAST_BK][BN];
};

/* Where one thread's share of each stage comes from. a: NA 16-byte pieces
 * (4 consecutive q of one row) of rows ra + t * T / 4; the pieces pass
 * through registers to be stored transposed, which cp.async cannot do. b:
 * cp.async straight into shared memory, 16 bytes (vec_b) or 4 at a time,
 * rows qb + t * (rows a round of the block covers). Pointers are to k = 0 of
 * the thread's first row (a) or column (b), so a stage adds only its k0:
 * no per-copy addresses to keep in registers. */
template <int BM, int BN> struct fast_loader {
    static constexpr int T = BM * BN / 64;
    static constexpr int NA = BM * FAST_BK / 4 / T;
    const float *pa, *pb;
    int ra, qa, qb, jb;
};

/* The thread's fixed part of every stage's copies. */
template <int BM, int BN>
static __device__ __forceinline__ fast_loader<BM, BN> loader_at(const fast_args &p, int i0, int j0)
{
    constexpr int T = BM * BN / 64;
    fast_loader<BM, BN> L;
    int t = threadIdx.x;
    L.ra = i0 + t / 4;
    L.qa = (t % 4) * 4;
    L.pa = p.a + (size_t)min(L.ra, p.m - 1) * p.k + L.qa;
    int per_row = p.vec_b ? BN / 4 : BN; /* threads across one row of b's tile */
    L.qb = t / per_row;
    L.jb = j0 + (t % per_row) * (p.vec_b ? 4 : 1);
    L.pb = p.b + min(L.jb, p.n - 1) + (size_t)L.qb * p.n;
    (void)T;
    return L;
}

/* a's pieces of the stage at k0 into registers; past an edge, zeros. */
template <int BM, int BN>
static __device__ __forceinline__ void fetch_a(float4 *v, const fast_loader<BM, BN> &L, const fast_args &p, int k0,
                                               int kend)
{
    constexpr int T = BM * BN / 64;
    int q = k0 + L.qa;
#pragma unroll
    for (int t = 0; t < L.NA; t++) {
        int row = L.ra + t * (T / 4);
        const float *src = L.pa + (size_t)t * (T / 4) * p.k + k0;
        v[t] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (row >= p.m)
            continue;
        if (p.vec_a && q < kend) /* k % 4 == 0: all four or none */
            v[t] = *(const float4 *)src;
        else if (!p.vec_a) {
            v[t].x = q < kend ? src[0] : 0.f;
            v[t].y = q + 1 < kend ? src[1] : 0.f;
            v[t].z = q + 2 < kend ? src[2] : 0.f;
            v[t].w = q + 3 < kend ? src[3] : 0.f;
        }
    }
}

/* ... and from registers into the stage, transposed. */
template <int BM, int BN>
static __device__ __forceinline__ void store_a(fast_stage<BM, BN> *st, const float4 *v, const fast_loader<BM, BN> &L,
                                               int i0)
{
    constexpr int T = BM * BN / 64;
#pragma unroll
    for (int t = 0; t < L.NA; t++) {
        int i = L.ra - i0 + t * (T / 4);
        st->as[L.qa + 0][i] = v[t].x;
        st->as[L.qa + 1][i] = v[t].y;
        st->as[L.qa + 2][i] = v[t].z;
        st->as[L.qa + 3][i] = v[t].w;
    }
}

/* b's tile at k0 as it lies, by cp.async: a warp copies 512 contiguous bytes
 * of a row (vec_b) or 128. */
template <int BM, int BN>
static __device__ __forceinline__ void copy_b(fast_stage<BM, BN> *st, const fast_loader<BM, BN> &L,
                                              const fast_args &p, int k0, int kend)
{
    constexpr int T = BM * BN / 64;
    int j = L.jb - (L.jb / BN) * BN; /* column within the tile: j0 is a multiple of BN */
    if (p.vec_b) {
        constexpr int ROWS = T / (BN / 4), N = FAST_BK / ROWS;
#pragma unroll
        for (int t = 0; t < N; t++) {
            int q = L.qb + t * ROWS;
            bool ok = k0 + q < kend && L.jb < p.n; /* n % 4 == 0: all four or none */
            copy16(&st->bs[q][j], ok ? L.pb + (size_t)(k0 + t * ROWS) * p.n : p.b, ok);
        }
    } else {
        constexpr int ROWS = T / BN, N = FAST_BK / ROWS;
#pragma unroll
        for (int t = 0; t < N; t++) {
            int q = L.qb + t * ROWS;
            bool ok = k0 + q < kend && L.jb < p.n;
            copy4(&st->bs[q][j], ok ? L.pb + (size_t)(k0 + t * ROWS) * p.n : p.b, ok);
        }
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

/* A thread's 8 x 8 outputs: rows r, r + 16 onwards 4 each, columns c, c + 32
 * onwards 4 each, of its warp's 32 x 64 tile. Split in fours so that the 8
 * threads of a warp row read 128 contiguous bytes of b's tile (and 4 threads
 * 64 of a's): no bank conflicts, and the stores are 16 bytes wide. */
template <int BM, int BN>
static __device__ __forceinline__ void fma_stage(float acc[8][8], const fast_stage<BM, BN> *st, int r, int c)
{
#pragma unroll
    for (int q = 0; q < FAST_BK; q++) {
        float4 a0 = *(const float4 *)&st->as[q][r], a1 = *(const float4 *)&st->as[q][r + 16];
        float4 b0 = *(const float4 *)&st->bs[q][c], b1 = *(const float4 *)&st->bs[q][c + 32];
        float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < 8; j++)
                acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
}

/* Four outputs of one row from column j on; 16 bytes at once where the
 * row allows. */
static __device__ __forceinline__ void store4(const fast_args &p, float *out, int i, int j, const float *v)
{
    if (i >= p.m)
        return;
    float *dst = out + (size_t)i * p.n + j;
    if (p.vec_c && j + 3 < p.n) {
        *(float4 *)dst = make_float4(v[0], v[1], v[2], v[3]);
        return;
    }
    for (int t = 0; t < 4 && j + t < p.n; t++)
        dst[t] = v[t];
}

/* The product, block by block: T = BM / 32 x BN / 64 warps. Each k step
 * waits for its stage, starts the copies of the stage FAST_STAGES - 1 ahead
 * (into the buffer every thread finished with before the barrier), does 16
 * x 64 multiply-adds per thread from shared memory, then stores the a
 * pieces of that later stage, whose loads had the step's arithmetic to
 * arrive. */
template <int BM, int BN>
static __global__ void __launch_bounds__(BM * BN / 64, 128 * 128 / (BM * BN) + 1) fast_sgemm(fast_args p)
{
    extern __shared__ float4 smem_raw[];
    fast_stage<BM, BN> *st = (fast_stage<BM, BN> *)smem_raw;
    int bi, bj;
    tile_of(blockIdx.x, (p.m + BM - 1) / BM, (p.n + BN - 1) / BN, &bi, &bj);
    int i0 = bi * BM, j0 = bj * BN;
    int kbeg = blockIdx.z * p.kchunk, kend = min(p.k, kbeg + p.kchunk);
    int steps = kend > kbeg ? (kend - kbeg + FAST_BK - 1) / FAST_BK : 0;
    fast_loader<BM, BN> L = loader_at<BM, BN>(p, i0, j0);
    float4 va[fast_loader<BM, BN>::NA];

    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int r = (warp % (BM / 32)) * 32 + (lane / 8) * 4;
    int c = (warp / (BM / 32)) * 64 + (lane % 8) * 4;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;

#pragma unroll
    for (int s = 0; s < FAST_STAGES - 1; s++) {
        if (s < steps) {
            fetch_a<BM, BN>(va, L, p, kbeg + s * FAST_BK, kend);
            store_a<BM, BN>(&st[s], va, L, i0);
            copy_b<BM, BN>(&st[s], L, p, kbeg + s * FAST_BK, kend);
        }
        copy_commit();
    }
    for (int s = 0; s < steps; s++) {
        copy_wait<FAST_STAGES - 2>();
        __syncthreads(); /* stage s is complete, and stage s - 1 is free */
        int next = s + FAST_STAGES - 1;
        fast_stage<BM, BN> *later = &st[next % FAST_STAGES];
        if (next < steps) {
            fetch_a<BM, BN>(va, L, p, kbeg + next * FAST_BK, kend);
            copy_b<BM, BN>(later, L, p, kbeg + next * FAST_BK, kend);
        }
        copy_commit();
        fma_stage<BM, BN>(acc, &st[s % FAST_STAGES], r, c);
        if (next < steps)
            store_a<BM, BN>(later, va, L, i0);
    }

    float *out = p.out + blockIdx.z * p.zstride;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int row = i0 + r + (i / 4) * 16 + i % 4;
        store4(p, out, row, j0 + c, &acc[i][0]);
        store4(p, out, row, j0 + c + 32, &acc[i][4]);
    }
}

/* c = the sum of the `slices` partial products at part, slice after slice:
 * always in the same order, so a result never changes from run to run (no
 * float atomics). len = m x n; 4 elements a thread where aligned. */
static __global__ void sum_slices(float *c, const float *part, size_t len, int slices, int vec)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (vec) {
        for (; i < len / 4; i += stride) {
            float4 s = ((const float4 *)part)[i];
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
        for (int z = 1; z < slices; z++)
            s += part[z * len + i];
        c[i] = s;
    }
}

/* --- the configurations and the choice among them ------------------------------- */

#define FAST_SMEM(BM, BN) (FAST_STAGES * sizeof(fast_stage<BM, BN>))

/* The tile shapes, largest first. rel is the rate of a full SM running
 * this shape relative to 128 x 128 (smaller tiles load more per
 * multiply-add and have fewer warps), measured on the H100 (PERF.md). */
typedef struct {
    const char *name;
    void (*kernel)(fast_args);
    int bm, bn;
    size_t smem;
    double rel;
    int per_sm; /* resident blocks per SM, from the occupancy API at first use */
} fast_config;

static fast_config configs[] = {
    {"fast_sgemm<128x128>", fast_sgemm<128, 128>, 128, 128, FAST_SMEM(128, 128), 1.00, 0},
    {"fast_sgemm<128x64>", fast_sgemm<128, 64>, 128, 64, FAST_SMEM(128, 64), 0.85, 0},
    {"fast_sgemm<64x128>", fast_sgemm<64, 128>, 64, 128, FAST_SMEM(64, 128), 0.85, 0},
    {"fast_sgemm<64x64>", fast_sgemm<64, 64>, 64, 64, FAST_SMEM(64, 64), 0.70, 0},
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))
#define FAST_MAX_SLICES 32

/* How a product runs: a configuration and the number of k-slices. */
typedef struct {
    const fast_config *cfg;
    int slices, kchunk;
} fast_plan;

/* Allow each kernel its dynamic shared memory past the 48 KB default and
 * learn how many blocks fit an SM; once per process. */
static int configs_ready(void)
{
    static int done;
    if (done)
        return 0;
    for (int i = 0; i < NCONFIGS; i++) {
        fast_config *f = &configs[i];
        GPU_CHECK(cudaFuncSetAttribute(f->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)f->smem));
        GPU_CHECK(cudaFuncSetAttribute(f->kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       cudaSharedmemCarveoutMaxShared));
        f->per_sm = gpu_blocks_per_sm((const void *)f->kernel, f->bm * f->bn / 64, f->smem);
        if (f->per_sm < 0)
            return -1;
    }
    done = 1;
    return 0;
}

/* Estimated time of a plan, in multiply-adds of one SM at full rate: the
 * busiest SM's blocks (blocks are dealt round the SMs) times each block's
 * work, slowed by the shape's rel, plus the partial products' trip through
 * memory when split (one write and one read of each, at about 12 bytes a
 * cycle per SM: HBM3's 3.3 TB/s over 132 SMs at 2 GHz is roughly that, and
 * the multiply-adds run at 128 a cycle, so a byte costs about 10). */
static double plan_cost(const fast_config *f, int slices, int m, int n, int k, int sms)
{
    double tiles = (double)((m + f->bm - 1) / f->bm) * ((n + f->bn - 1) / f->bn);
    int kchunk = ((k + slices - 1) / slices + FAST_BK - 1) / FAST_BK * FAST_BK;
    double per_sm = ceil(tiles * slices / sms);
    double work = per_sm * f->bm * f->bn * (double)kchunk / f->rel;
    double split = slices > 1 ? (2.0 * slices + 1) * m * n * 4 * 10 / sms : 0;
    return work + split + (slices > 1 ? 5e5 : 0); /* + a launch (2 us) */
}

/* The plan with the lowest estimate: every configuration, every useful
 * slice count (each slice at least 4 stages deep). */
static fast_plan plan_for(int m, int n, int k)
{
    int sms = gpu_sm_count();
    fast_plan best = {&configs[0], 1, k};
    double best_cost = -1;
    for (int i = 0; i < NCONFIGS; i++)
        for (int s = 1; s <= FAST_MAX_SLICES && (s == 1 || k / s >= 4 * FAST_BK); s++) {
            double cost = plan_cost(&configs[i], s, m, n, k, sms);
            if (best_cost < 0 || cost < best_cost) {
                best_cost = cost;
                best.cfg = &configs[i];
                best.slices = s;
            }
        }
    best.kchunk = ((k + best.slices - 1) / best.slices + FAST_BK - 1) / FAST_BK * FAST_BK;
    best.slices = best.kchunk ? (k + best.kchunk - 1) / best.kchunk : 1;
    if (best.slices < 1)
        best.slices = 1;
    return best;
}

static int aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

/* Run plan pl: the tiled kernel, and the sum of the slices if split. */
static int run_plan(const fast_plan *pl, float *c, const float *a, const float *b, int m, int n, int k)
{
    const fast_config *f = pl->cfg;
    if (configs_ready() != 0)
        return -1;
    size_t len = (size_t)m * n;
    fast_args p = {c, a, b, m, n, k, pl->kchunk > 0 ? pl->kchunk : FAST_BK, 0,
                   k % 4 == 0 && aligned16(a), n % 4 == 0 && aligned16(b), 0};
    if (pl->slices > 1) {
        void *part;
        if (gpu_scratch(&part, (size_t)pl->slices * len * sizeof(float)) != 0)
            return -1;
        p.out = (float *)part;
        p.zstride = len;
    }
    p.vec_c = n % 4 == 0 && aligned16(p.out);
    unsigned tiles = gpu_cdiv(m, f->bm) * gpu_cdiv(n, f->bn); /* < 2^31 for any matrix that fits */
    if (gpu_launch(f->kernel, f->name, dim3(tiles, 1, pl->slices), dim3(f->bm * f->bn / 64), f->smem, __FILE__,
                   __LINE__, p) != 0)
        return -1;
    if (pl->slices > 1) {
        int vec = len % 4 == 0 && aligned16(c);
        GPU_LAUNCH(sum_slices, gpu_grid_1d(vec ? len / 4 : len), GPU_THREADS, 0, c, (const float *)p.out, len,
                   pl->slices, vec);
    }
    return 0;
}

/* --- matrix-vector products ----------------------------------------------------- */

#define GEMV_WARPS 8 /* warps per block of the matrix-vector kernels */

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

/* out (1 x n) = a (1 x k) @ b (k x n) over k-slice blockIdx.y: a lane owns
 * 4 adjacent columns (16-byte loads, vec) or 1, the block's warps take
 * every GEMV_WARPS-th row of the slice, and shared memory adds the warps'
 * sums. Slice z writes out + z * n, summed by sum_slices when split. */
static __global__ void gemv_cols(float *out, const float *a, const float *b, int n, int k, int kchunk, int vec)
{
    __shared__ float4 part[GEMV_WARPS][32];
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    int per = vec ? 4 : 1;
    int j = (blockIdx.x * 32 + lane) * per;
    int kbeg = blockIdx.y * kchunk, kend = min(k, kbeg + kchunk);
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
    if (j < n) {
        for (int q = kbeg + w; q < kend; q += GEMV_WARPS) {
            float x = a[q];
            if (vec) {
                float4 y = *(const float4 *)(b + (size_t)q * n + j);
                s.x = fmaf(x, y.x, s.x), s.y = fmaf(x, y.y, s.y), s.z = fmaf(x, y.z, s.z), s.w = fmaf(x, y.w, s.w);
            } else {
                s.x = fmaf(x, b[(size_t)q * n + j], s.x);
            }
        }
    }
    part[w][lane] = s;
    __syncthreads();
    if (w != 0 || j >= n)
        return;
    for (int v = 1; v < GEMV_WARPS; v++) {
        float4 t = part[v][lane];
        s.x += t.x, s.y += t.y, s.z += t.z, s.w += t.w;
    }
    float *dst = out + (size_t)blockIdx.y * n + j;
    if (vec)
        *(float4 *)dst = s;
    else
        dst[0] = s.x;
}

/* 1 x n: enough k-slices that the device has about 4 blocks per SM to
 * keep its loads in flight, each slice at least 64 rows of b. */
static int gemv_cols_run(float *c, const float *a, const float *b, int n, int k)
{
    int vec = n % 4 == 0 && aligned16(b) && aligned16(c);
    unsigned cols = gpu_cdiv(n, 32 * (vec ? 4 : 1));
    long long want = (4LL * gpu_sm_count() + cols - 1) / cols;
    long long most = (k + 63) / 64;
    int slices = (int)(want < most ? want : most);
    slices = slices < 1 ? 1 : slices > 65535 ? 65535 : slices;
    int kchunk = (k + slices - 1) / slices;
    slices = kchunk ? (k + kchunk - 1) / kchunk : 1;
    float *out = c;
    if (slices > 1) {
        void *part;
        if (gpu_scratch(&part, (size_t)slices * n * sizeof(float)) != 0)
            return -1;
        out = (float *)part;
    }
    GPU_LAUNCH(gemv_cols, dim3(cols, slices), GEMV_WARPS * 32, 0, out, a, b, n, k, kchunk, vec);
    if (slices > 1)
        GPU_LAUNCH(sum_slices, gpu_grid_1d(n), GPU_THREADS, 0, c, (const float *)out, (size_t)n, slices, 0);
    return 0;
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
    fast_plan pl = plan_for(m, n, k);
    return run_plan(&pl, c, a, b, m, n, k);
}
