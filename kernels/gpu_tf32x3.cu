/* gpu_tf32x3.cu - the `tf32x3` mode's product: FP32 accuracy from the TF32
 * tensor cores. Each operand is split, a = big + small, big the TF32
 * rounding of a (10-bit mantissa) and small the TF32 rounding of what big
 * missed; then c = big_a big_b + (big_a small_b + small_a big_b), the
 * small_a small_b term (about 2^-22 of c) dropped. The big product and the
 * two corrections go to separate accumulators, added only at the end: the
 * corrections are ~2^-11 of the big terms, and rounded into the big
 * accumulator at every step they would lose most of their bits (Ootomo and
 * Yokota 2022). Here: the split pass, the portable mma.sync kernel
 * (sm_80 on), and the choice between it and the Hopper wgmma kernel
 * (gpu_tf32x3_sm90.cu). */
#include "kernels/gpu_async.h"
#include "kernels/gpu_internal.h"

#include "kernels/tf32x3.h"
#include "kernels/variants.h"

/* The entry point of mode tf32x3 (modes.c), and fast's FP32 product, which
 * takes the thin products (TF32X3_SIMT_MAX). */
extern "C" cuk_matmul_fn tf32x3_matmul;
extern "C" cuk_matmul_fn fast_matmul;

/* --- the split pass --------------------------------------------------------- */

/* A block of the split pass writes SPLIT_ROWS rows x SPLIT_COLS columns of
 * the parts, 16 floats a thread, and few enough blocks (648 at
 * 1037x1055x1031) run that all are resident at once. The first split pass,
 * 32 x 32 blocks of 4 floats a thread (2376 blocks, 2.25 waves of 8 an SM),
 * took 19 us of the whole product's 58 there (H100, launch included). */
#define SPLIT_ROWS 32
#define SPLIT_COLS 128
#define SPLIT_WARPS 8

/* x rounded to TF32 (round to nearest, ties away: what the tensor cores
 * expect of an operand), as a float whose low 13 mantissa bits are 0. */
static __device__ __forceinline__ float to_tf32(float x)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap(); /* no TF32 before sm_80: the row's min_cc keeps the mode off */
    return x;
#else
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return __uint_as_float(r);
#endif
}

/* x's two parts at `at` of big and small: its TF32 rounding, and the
 * rounding of what that left (x - big is exact in FP32). */
static __device__ __forceinline__ void split_put(float *big, float *small, size_t at, float x)
{
    float b = to_tf32(x);
    big[at] = b;
    small[at] = to_tf32(x - b);
}

/* Both operands in one launch (one launch and its gap fewer before the
 * product, which matters to small products). Row r of the
 * parts big, small ((mp + np) x kp) is row r of a (m x k) for r < mp, else
 * column r - mp of b (k x n): b transposed, as wgmma wants it; zeros past
 * the edges. mp is a multiple of SPLIT_ROWS, so a block splits one operand.
 * A block moves its tile through shared memory, so both its reads and its
 * writes run along rows. The first block also zeroes the Hopper kernel's
 * ncount split-k counters, which that kernel, next on the stream, counts
 * its slices in. */
struct split_args {
    float *big, *small;
    const float *a, *b;
    unsigned *count;
    int m, n, k, mp, kp, ncount;
};

/* Each thread's 16 floats of the tile are loaded into v, all of them
 * before the first is stored, so that 16 loads a thread are in flight. */
#define SPLIT_PER_THREAD (SPLIT_ROWS * SPLIT_COLS / (32 * SPLIT_WARPS))

/* The block's rows of a: warp w reads rows w, w + 8, ..., each lane every
 * 32nd float of them. */
static __device__ __forceinline__ void split_load_a(float (*tile)[SPLIT_COLS + 1], const split_args &s, int r0,
                                                    int c0)
{
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    float v[SPLIT_PER_THREAD];
#pragma unroll
    for (int i = 0; i < SPLIT_ROWS / SPLIT_WARPS; i++)
#pragma unroll
        for (int q = 0; q < SPLIT_COLS / 32; q++) {
            int r = r0 + SPLIT_WARPS * i + w, c = c0 + 32 * q + lane;
            v[i * (SPLIT_COLS / 32) + q] = r < s.m && c < s.k ? s.a[(size_t)r * s.k + c] : 0.0f;
        }
#pragma unroll
    for (int i = 0; i < SPLIT_ROWS / SPLIT_WARPS; i++)
#pragma unroll
        for (int q = 0; q < SPLIT_COLS / 32; q++)
            tile[SPLIT_WARPS * i + w][32 * q + lane] = v[i * (SPLIT_COLS / 32) + q];
}

/* The block's columns j0.. of b, transposed: warp w reads rows w, w + 8,
 * ... of b, lane l its column j0 + l, into the tile's row l (the rows are
 * padded to 129 floats, so the 32 lanes' stores fall in 32 banks). */
static __device__ __forceinline__ void split_load_b(float (*tile)[SPLIT_COLS + 1], const split_args &s, int j0,
                                                    int c0)
{
    int lane = threadIdx.x % 32, w = threadIdx.x / 32, j = j0 + lane;
    float v[SPLIT_PER_THREAD];
#pragma unroll
    for (int q = 0; q < SPLIT_PER_THREAD; q++) {
        int c = c0 + SPLIT_WARPS * q + w;
        v[q] = c < s.k && j < s.n ? s.b[(size_t)c * s.n + j] : 0.0f;
    }
#pragma unroll
    for (int q = 0; q < SPLIT_PER_THREAD; q++)
        tile[lane][SPLIT_WARPS * q + w] = v[q];
}

static __global__ void __launch_bounds__(32 * SPLIT_WARPS) tf32x3_split(split_args s, int row0)
{
    __shared__ float tile[SPLIT_ROWS][SPLIT_COLS + 1];
    int r0 = row0 + blockIdx.y * SPLIT_ROWS, c0 = blockIdx.x * SPLIT_COLS;
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    if (r0 < s.mp)
        split_load_a(tile, s, r0, c0);
    else
        split_load_b(tile, s, r0 - s.mp, c0);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < SPLIT_ROWS; i += SPLIT_WARPS)
#pragma unroll
        for (int q = 0; q < SPLIT_COLS; q += 32) {
            int c = c0 + q + lane;
            if (c >= s.kp)
                continue;
            split_put(s.big, s.small, (size_t)(r0 + i + w) * s.kp + c, tile[i + w][q + lane]);
        }
    if (row0 == 0 && blockIdx.x == 0 && blockIdx.y == 0)
        for (int q = threadIdx.x; q < s.ncount; q += 32 * SPLIT_WARPS)
            s.count[q] = 0;
}

/* Split a and b into the parts of p, zeroing ncount counters. */
static int split(const tf32x3_parts *p, const float *a, const float *b, int ncount)
{
    split_args s = {(float *)p->a_big, (float *)p->a_small, a, b, p->count, p->m, p->n, p->k, p->mp, p->kp, ncount};
    return gpu_for_bands(p->mp + p->np, SPLIT_ROWS, [=](int r0, int n) {
        dim3 grid(gpu_cdiv(p->kp, SPLIT_COLS), gpu_cdiv(n, SPLIT_ROWS));
        return gpu_launch(tf32x3_split, "tf32x3_split", grid, dim3(32 * SPLIT_WARPS), 0, __FILE__, __LINE__, s, r0);
    });
}

/* --- the split streamed beside the product (Hopper) -------------------------- */

/* Where one slice of the product's tiles leaves SMs idle, the split runs
 * on them while the product runs on the others (tf32x3_sm90_plan says
 * when): a piece is one k-tile (32 k) of one band of 128 part rows, a's
 * rows or b's columns; the pieces go in k order, so the product's first
 * k-tiles are ready first, and the split's time hides under the
 * product's. A piece done, its flag takes the launch's epoch, which the
 * product's producer waits for before its copy engine reads the piece.
 * One block of 1024 threads an idle SM (the product then launches on the
 * SMs left: one of its blocks needs a whole SM's registers), each group
 * of 8 warps a piece at a time, 16 floats a thread in flight. */
#define STREAM_GROUPS 4
#define STREAM_THREADS (256 * STREAM_GROUPS)

struct stream_args {
    float *big, *small;
    const float *a, *b;
    unsigned *ready;
    unsigned epoch;
    int m, n, k, kp, bands_a, bands; /* bands of 128 part rows: a's, then b's */
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900 /* what follows runs on Hopper only */

/* A band of a: 128 rows, warp w rows 16w .. 16w + 15, a lane a float of
 * each, all loaded before any part is stored; no shared memory needed. */
static __device__ void stream_piece_a(const stream_args &s, int r0, int k0, int t)
{
    int lane = t % 32, w = t / 32, c = k0 + lane;
    float v[16];
#pragma unroll
    for (int i = 0; i < 16; i++) {
        int r = r0 + 16 * w + i;
        v[i] = r < s.m && c < s.k ? s.a[(size_t)r * s.k + c] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < 16; i++)
        split_put(s.big, s.small, (size_t)(r0 + 16 * w + i) * s.kp + c, v[i]);
}

/* A band of b transposed: 32 rows of b, 128 columns j0.., through the
 * group's tile (rows padded to 129 floats: both passes conflict-free);
 * part row mp + j0 + j (b's rows follow a's) takes column j0 + j. bar
 * names the group's barrier. */
static __device__ void stream_piece_b(const stream_args &s, float (*tile)[129], int j0, int k0, int t, int bar)
{
    int lane = t % 32, w = t / 32;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int q = 0; q < 4; q++) {
            int kk = 8 * i + w, j = j0 + 32 * q + lane, c = k0 + kk;
            tile[kk][32 * q + lane] = c < s.k && j < s.n ? s.b[(size_t)c * s.n + j] : 0.0f;
        }
    asm volatile("bar.sync %0, 256;" ::"r"(bar) : "memory");
#pragma unroll
    for (int i = 0; i < 16; i++)
        split_put(s.big, s.small, (size_t)(128 * s.bands_a + j0 + 16 * w + i) * s.kp + k0 + lane,
                  tile[lane][16 * w + i]);
}

#endif

/* The group's tiles: dynamic shared memory (more than the 48 KiB a block
 * has statically). */
#define STREAM_SMEM (STREAM_GROUPS * 32 * 129 * (int)sizeof(float))

static __global__ void __launch_bounds__(STREAM_THREADS) tf32x3_split_stream(stream_args s)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap(); /* the product beside it is Hopper's (tf32x3_sm90_plan) */
#else
    extern __shared__ float stream_smem[];
    float(*tile)[32][129] = (float(*)[32][129])stream_smem;
    int g = threadIdx.x / 256, t = threadIdx.x % 256, bar = 1 + g;
    /* The product may launch now: it waits for each piece's flag. */
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    int workers = gridDim.x * STREAM_GROUPS, pieces = s.kp / 32 * s.bands;
    for (int p = blockIdx.x * STREAM_GROUPS + g; p < pieces; p += workers) {
        int kt = p / s.bands, band = p % s.bands;
        if (band < s.bands_a)
            stream_piece_a(s, 128 * band, 32 * kt, t);
        else
            stream_piece_b(s, tile[g], 128 * (band - s.bands_a), 32 * kt, t, bar);
        /* the piece's stores seen on the GPU, and by the copy engine
         * (the async proxy), before its flag */
        __threadfence();
        asm volatile("fence.proxy.async.global;" ::: "memory");
        asm volatile("bar.sync %0, 256;" ::"r"(bar) : "memory");
        if (t == 0)
            asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(s.ready + p), "r"(s.epoch) : "memory");
    }
#endif
}

/* The pieces' flags, on the device they were made on; made zero, so that
 * no epoch (from 1 on) is found there before its piece is done. */
static struct {
    unsigned *ready;
    size_t cap;
    unsigned epoch;
    int device;
} stream;

static int stream_flags(size_t n)
{
    if (stream.ready && stream.cap >= n && stream.device == gpu_selected())
        return 0;
    if (stream.ready) { /* grown, or another GPU's: the old flags once no split reads them */
        GPU_WAIT(gpu_stream_handle());
        unsigned *old = stream.ready;
        stream.ready = NULL;
        GPU_CHECK(cudaFree(old));
    }
    size_t cap = n < 4096 ? 4096 : n;
    GPU_CHECK(cudaMalloc((void **)&stream.ready, cap * sizeof(unsigned)));
    stream.cap = cap, stream.device = gpu_selected(), stream.epoch = 0;
    GPU_CHECK(cudaMemsetAsync(stream.ready, 0, cap * sizeof(unsigned), gpu_stream_handle()));
    return 0;
}

/* Split a and b into p's parts on at most `blocks` blocks (no more than
 * the pieces keep busy), piece by piece; p's ready and epoch say where the
 * product finds the flags. */
static int split_streamed(tf32x3_parts *p, const float *a, const float *b, int blocks)
{
    int bands_a = p->mp / 128, bands = bands_a + p->np / 128, pieces = p->kp / 32 * bands;
    if (blocks > (pieces + STREAM_GROUPS - 1) / STREAM_GROUPS)
        blocks = (pieces + STREAM_GROUPS - 1) / STREAM_GROUPS;
    if (stream_flags((size_t)pieces) != 0)
        return -1;
    if (++stream.epoch == 0) { /* after 2^32 launches: the old epochs wiped first */
        GPU_CHECK(cudaMemsetAsync(stream.ready, 0, stream.cap * sizeof(unsigned), gpu_stream_handle()));
        stream.epoch = 1;
    }
    stream_args s = {(float *)p->a_big, (float *)p->a_small, a, b, stream.ready, stream.epoch,
                     p->m, p->n, p->k, p->kp, bands_a, bands};
    p->ready = stream.ready, p->epoch = stream.epoch;
    return gpu_launch(tf32x3_split_stream, "tf32x3_split_stream", dim3(blocks), dim3(STREAM_THREADS), STREAM_SMEM,
                      __FILE__, __LINE__, s);
}

/* --- the mma.sync product (sm_80 on) ---------------------------------------- */

/* A block of 256 threads makes a 64 x 128 tile of c, walking k 16 at a
 * time through MS_STAGES stages in shared memory, filled by cp.async
 * MS_STAGES - 1 k-tiles ahead; its 8 warps, 2 down and 4 across, make
 * 32 x 32 each: 2 x 4 m16n8k8 tiles in three accumulators. (With one
 * stage, loaded and then used, the MMAs waited for every load: 0.27-0.36
 * of cuBLAS FP32 on the H100, PERF.md.) The tensor cores' own accumulation
 * rounds toward zero, a bias that over all of k made the error several
 * times FP32's (gpu_tf32x3_sm90.cu): big_a big_b is summed 32 k at a time
 * into part, which an ordinary FADD then adds to big. The corrections,
 * 2^-11 of c, keep their accumulator for all of k. The shared rows are
 * padded to 20 floats: a fragment's 8 rows x 4 columns then fall in 32
 * different banks. */
#define MS_BM 64
#define MS_BN 128
#define MS_BK 16
#define MS_FLUSH 2 /* k-tiles (of 16) summed on the tensor cores before an FADD */
#define MS_PITCH (MS_BK + 4)
#define MS_THREADS 256
#define MS_STAGES 3

struct ms_stage {
    float ab[MS_BM][MS_PITCH], as[MS_BM][MS_PITCH], bb[MS_BN][MS_PITCH], bs[MS_BN][MS_PITCH];
};

/* d += a b for one m16n8k8 TF32 tile (PTX ISA, "mma.sync m16n8k8 .tf32"). */
static __device__ __forceinline__ void mma_tf32(float d[4], const unsigned a[4], const unsigned b[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap(); /* as in to_tf32 */
#else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

/* rows x 16 floats of two parts at row0, k0 into shared memory, 16 bytes
 * a copy, in flight until copy_wait: the parts are padded, so no bounds. */
template <int ROWS>
static __device__ __forceinline__ void ms_copy(float (*big)[MS_PITCH], float (*small)[MS_PITCH], const float *pb,
                                               const float *ps, int kp, int row0, int k0)
{
    for (int q = threadIdx.x; q < ROWS * MS_BK / 4; q += MS_THREADS) {
        int r = q / (MS_BK / 4), c = (q % (MS_BK / 4)) * 4;
        size_t at = (size_t)(row0 + r) * kp + k0 + c;
        copy_async<16>(&big[r][c], &pb[at], true);
        copy_async<16>(&small[r][c], &ps[at], true);
    }
}

/* The stage of k-tile k0 / MS_BK: a's and b's parts, one group of copies. */
static __device__ __forceinline__ void ms_fill(ms_stage *s, const tf32x3_parts &p, int i0, int j0, int k0)
{
    ms_copy<MS_BM>(s->ab, s->as, p.a_big, p.a_small, p.kp, i0, k0);
    ms_copy<MS_BN>(s->bb, s->bs, p.b_big, p.b_small, p.kp, j0, k0);
}

/* The fragments of one k8 step (the m16n8k8 register layout: g = lane / 4
 * picks the row, t = lane % 4 the column) and its 24 tensor-core ops. */
static __device__ __forceinline__ void ms_step(const ms_stage *s, int wm, int wn, int kk, float part[2][4][4],
                                               float cor[2][4][4])
{
    int g = (threadIdx.x & 31) >> 2, t = threadIdx.x & 3;
    unsigned ab[2][4], as[2][4], bb[4][2], bs[4][2];
#pragma unroll
    for (int i = 0; i < 2; i++) {
        int r = wm + 16 * i + g;
        ab[i][0] = __float_as_uint(s->ab[r][kk + t]), ab[i][1] = __float_as_uint(s->ab[r + 8][kk + t]);
        ab[i][2] = __float_as_uint(s->ab[r][kk + t + 4]), ab[i][3] = __float_as_uint(s->ab[r + 8][kk + t + 4]);
        as[i][0] = __float_as_uint(s->as[r][kk + t]), as[i][1] = __float_as_uint(s->as[r + 8][kk + t]);
        as[i][2] = __float_as_uint(s->as[r][kk + t + 4]), as[i][3] = __float_as_uint(s->as[r + 8][kk + t + 4]);
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        int c = wn + 8 * j + g;
        bb[j][0] = __float_as_uint(s->bb[c][kk + t]), bb[j][1] = __float_as_uint(s->bb[c][kk + t + 4]);
        bs[j][0] = __float_as_uint(s->bs[c][kk + t]), bs[j][1] = __float_as_uint(s->bs[c][kk + t + 4]);
    }
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            mma_tf32(part[i][j], ab[i], bb[j]);
            mma_tf32(cor[i][j], ab[i], bs[j]);
            mma_tf32(cor[i][j], as[i], bb[j]);
        }
}

/* big += part, and part back to 0 (the 2 x 4 x 4 accumulators as 32). */
static __device__ __forceinline__ void ms_flush(float *big, float *part)
{
#pragma unroll
    for (int q = 0; q < 32; q++) {
        big[q] += part[q];
        part[q] = 0.0f;
    }
}

#define MS_SMEM (MS_STAGES * (int)sizeof(ms_stage))

static __global__ void __launch_bounds__(MS_THREADS) tf32x3_mma(tf32x3_parts p)
{
    extern __shared__ float4 ms_smem[];
    ms_stage *st = (ms_stage *)ms_smem;
    float big[2][4][4] = {}, part[2][4][4] = {}, cor[2][4][4] = {};
    int i0 = blockIdx.y * MS_BM, j0 = blockIdx.x * MS_BN, warp = threadIdx.x >> 5;
    int wm = (warp >> 2) * 32, wn = (warp & 3) * 32, tiles = p.kp / MS_BK;
#pragma unroll
    for (int t = 0; t < MS_STAGES - 1; t++) {
        if (t < tiles)
            ms_fill(&st[t], p, i0, j0, t * MS_BK);
        copy_commit(); /* empty groups too: copy_wait counts groups */
    }
    for (int t = 0; t < tiles; t++) {
        copy_wait<MS_STAGES - 2>();
        __syncthreads(); /* k-tile t is in, and every warp is done with t - 1's stage */
        int next = t + MS_STAGES - 1;
        if (next < tiles)
            ms_fill(&st[next % MS_STAGES], p, i0, j0, next * MS_BK);
        copy_commit();
#pragma unroll
        for (int kk = 0; kk < MS_BK; kk += 8)
            ms_step(&st[t % MS_STAGES], wm, wn, kk, part, cor);
        if ((t + 1) % MS_FLUSH == 0 || t + 1 == tiles)
            ms_flush(&big[0][0][0], &part[0][0][0]);
    }
    /* A thread's two neighbours in a row as one float2 where c's rows are
     * 8-byte aligned: the four threads of a row then write 32 contiguous
     * bytes at once (a whole sector where n % 8 == 0), where alternate
     * floats left each sector half-written twice (as the Hopper kernel's
     * stores did: gpu_tf32x3_sm90.cu). */
    int g = (threadIdx.x & 31) >> 2, t = threadIdx.x & 3, pairs = p.n % 2 == 0 && (size_t)p.c % 8 == 0;
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int r = i0 + wm + 16 * i + g + 8 * h, c = j0 + wn + 8 * j + 2 * t;
                float x = big[i][j][2 * h] + cor[i][j][2 * h], y = big[i][j][2 * h + 1] + cor[i][j][2 * h + 1];
                if (r >= p.m || c >= p.n)
                    continue;
                float *at = p.c + (size_t)r * p.n + c;
                if (pairs)
                    *(float2 *)at = make_float2(x, y);
                else {
                    at[0] = x;
                    if (c + 1 < p.n)
                        at[1] = y;
                }
            }
}

/* The mp / 64 x np / 128 tiles of c. Grid y is at most 65535: a band of
 * rows is a product of its own, its parts' rows starting further down. */
static int run_mma(const tf32x3_parts *p)
{
    return gpu_for_bands(p->mp, MS_BM, [=](int r0, int rows) {
        tf32x3_parts band = *p;
        band.a_big += (size_t)r0 * p->kp, band.a_small += (size_t)r0 * p->kp, band.c += (size_t)r0 * p->n;
        band.m = p->m - r0 < rows ? p->m - r0 : rows, band.mp = rows;
        return gpu_launch(tf32x3_mma, "tf32x3_mma", dim3(p->np / MS_BN, rows / MS_BM), dim3(MS_THREADS), MS_SMEM,
                          __FILE__, __LINE__, band);
    });
}

/* --- the mode's product ------------------------------------------------------- */

static size_t round_up(int x, int to) { return ((size_t)x + to - 1) / to * to; }

/* The kernel this GPU runs best: wgmma on Hopper (when this binary carries
 * sm_90a code and `set tc` is wgmma), else mma.sync; its plan sizes the
 * session scratch: the parts (the big parts of a and b, then the small
 * ones: the split pass writes them as one matrix each), then the Hopper
 * kernel's split-k partials and counters. The split runs before the
 * product, or beside it where the plan says so. */
extern "C" int tf32x3_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    if (m <= TF32X3_SIMT_MAX || n <= TF32X3_SIMT_MAX)
        return fast_matmul(c, a, b, m, n, k);
    int hopper = variant_pick(VAR_TC) == VAR_TC_MMA ? 0 : tf32x3_sm90_ready();
    if (hopper < 0)
        return -1;
    size_t mp = round_up(m, TF32X3_PAD_MN), np = round_up(n, TF32X3_PAD_MN), kp = round_up(k, TF32X3_PAD_K);
    size_t parts = 2 * (mp + np) * kp;
    tf32x3_plan pl = {MS_BM, 1, 0, 0, 0, 0, 0};
    if (hopper)
        tf32x3_sm90_plan((int)mp, (int)np, (int)kp, &pl);
    float *buf;
    if (gpu_scratch((void **)&buf, (parts + pl.work_floats) * sizeof(float) + pl.tiles * sizeof(unsigned)) != 0)
        return -1;
    tf32x3_parts p;
    p.c = c, p.m = m, p.n = n, p.k = k, p.mp = (int)mp, p.np = (int)np, p.kp = (int)kp;
    p.a_big = buf, p.b_big = buf + mp * kp, p.a_small = buf + (mp + np) * kp, p.b_small = p.a_small + mp * kp;
    p.work = pl.tiles ? buf + parts : NULL;
    p.count = pl.tiles ? (unsigned *)(buf + parts + pl.work_floats) : NULL;
    p.ready = NULL, p.epoch = 0;
    if (pl.streamed ? split_streamed(&p, a, b, pl.streamed) != 0 : split(&p, a, b, pl.tiles) != 0)
        return -1;
    return hopper ? tf32x3_sm90_run(&p, &pl) : run_mma(&p);
}
