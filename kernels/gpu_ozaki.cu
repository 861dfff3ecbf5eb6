/* gpu_ozaki.cu - the `ozaki` mode's product: FP32 from the INT8 tensor
 * cores (Ozaki's scheme, docs/ozaki.md). Each row of a and each column of
 * b is scaled by a power of two into (-1, 1) and cut into s slices of 7
 * bits: small integers in [-64, 64], so that a = 2^(e-6) sum_p a_p 2^-7p.
 * The products of the slices are exact in INT32 on the tensor cores
 * (cuBLAS's INT8 GEMM). All pairs of one weight, p + q = d, are one GEMM:
 * the slices lie side by side along k, a's in order and b's reversed, so
 * that one product sums them all; pairs with d >= s, worth 2^-7s of the
 * largest terms, are left out. A last pass scales each of the s sums by
 * its weight and the rows' and columns' powers of two, adds them in FP64
 * and rounds once to FP32.
 *
 * s comes from the operands: 4 slices keep 28 bits of a row's largest
 * element, and one more is added for every 7 bits by which a row's or a
 * column's largest element stands above its root mean square, the bits
 * its typical elements lose. A row or column spanning more than 2^96
 * (largest over smallest nonzero) is refused: its small elements fall
 * past every slice, and only a cancellation of the large ones, which the
 * scheme cannot see, would make them count. */
#include "kernels/gpu_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"
#include "kernels/ozaki.h"

/* The entry point of mode ozaki (modes.c); fast's FP32 product, which
 * takes what the scheme cannot win or cannot hold; the INT8 GEMM, through
 * the cuBLAS cuk loaded (gpu_cublas.cu). */
extern "C" cuk_matmul_fn ozaki_matmul;
extern "C" cuk_matmul_fn fast_matmul;
extern "C" int cublas_gemm_s8(int m, int n, int k, const int8_t *a, int lda, const int8_t *b, int ldb, int32_t *c,
                              int ldc);

/* What the statistics pass finds over both operands, read by the host to
 * choose s: the largest bulk (max over rms, in thousandths of a bit) and
 * span (in bits) of a's rows and of b's columns, and whether any element
 * is inf or NaN. */
typedef struct {
    int bulk_a, bulk_b;
    int span_a, span_b;
    int nonfinite;
} ozaki_stats;

#define STAT_THREADS 256
#define COL_TILE 32 /* columns of b a statistics or slicing block takes */
#define COL_ROWS 8  /* threads down each of those columns */

/* A row's or column's n elements summed up in s (ozaki_run): its
 * exponent into *e, and its bulk and span into the totals. */
static __device__ void stats_publish(const ozaki_run &s, int n, int *e, int *bulk, int *span, int *nonfinite)
{
    *e = s.hi > 0.0f ? s.e : 0;
    if (s.bad)
        atomicOr(nonfinite, 1);
    if (s.hi == 0.0f)
        return;
    atomicMax(bulk, ozaki_run_bulk(&s, n));
    atomicMax(span, s.e - ozaki_exponent(s.lo));
}

/* Warp w's statistics to lane 0 of warp 0, through shared memory. */
static __device__ ozaki_run stats_block(ozaki_run s, ozaki_run *shared, int threads)
{
    for (int off = 16; off > 0; off /= 2) {
        ozaki_run t;
        t.hi = __shfl_down_sync(~0u, s.hi, off), t.lo = __shfl_down_sync(~0u, s.lo, off);
        t.e = __shfl_down_sync(~0u, s.e, off), t.ss = __shfl_down_sync(~0u, s.ss, off);
        t.bad = __shfl_down_sync(~0u, s.bad, off);
        ozaki_run_merge(&s, &t);
    }
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        shared[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0)
        for (int w = 1; w < threads / 32; w++)
            ozaki_run_merge(&s, &shared[w]);
    return s;
}

/* Block i: the statistics of row i of a (m x k). */
static __global__ void __launch_bounds__(STAT_THREADS)
    ozaki_rows_stats(const float *a, int k, int *ea, ozaki_stats *out)
{
    __shared__ ozaki_run shared[STAT_THREADS / 32];
    const float *row = a + (size_t)blockIdx.x * k;
    ozaki_run s;
    ozaki_run_init(&s);
    for (int p = threadIdx.x; p < k; p += STAT_THREADS)
        ozaki_run_add(&s, row[p]);
    s = stats_block(s, shared, STAT_THREADS);
    if (threadIdx.x == 0)
        stats_publish(s, k, &ea[blockIdx.x], &out->bulk_a, &out->span_a, &out->nonfinite);
}

/* Block x: the statistics of columns 32 x.. of b (k x n), COL_ROWS threads
 * down each, reading along b's rows. */
static __global__ void __launch_bounds__(COL_TILE *COL_ROWS)
    ozaki_cols_stats(const float *b, int k, int n, int *eb, ozaki_stats *out)
{
    __shared__ ozaki_run shared[COL_ROWS][COL_TILE];
    int j = blockIdx.x * COL_TILE + threadIdx.x;
    ozaki_run s;
    ozaki_run_init(&s);
    if (j < n)
        for (int r = threadIdx.y; r < k; r += COL_ROWS)
            ozaki_run_add(&s, b[(size_t)r * n + j]);
    shared[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y != 0 || j >= n)
        return;
    for (int y = 1; y < COL_ROWS; y++)
        ozaki_run_merge(&s, &shared[y][threadIdx.x]);
    stats_publish(s, k, &eb[j], &out->bulk_b, &out->span_b, &out->nonfinite);
}

/* --- the slices ------------------------------------------------------------ */

/* The slicing kernels take s as a template argument, so that an element's
 * digits stay in registers. */

/* Block i: row i of a cut into S slices into as (ozaki_a_at; ka a
 * multiple of 32), zeros from k to ka. Each thread cuts 4 neighbouring
 * elements and stores 4 bytes a slice. */
template <int S>
static __global__ void __launch_bounds__(STAT_THREADS)
    ozaki_rows_slice(int8_t *as, const float *a, const int *ea, int k, int ka)
{
    const float *row = a + (size_t)blockIdx.x * k;
    int e = ea[blockIdx.x];
    for (int p0 = 4 * threadIdx.x; p0 < ka; p0 += 4 * STAT_THREADS) {
        int8_t d[4][S];
#pragma unroll
        for (int u = 0; u < 4; u++)
            ozaki_digits(p0 + u < k ? row[p0 + u] : 0.0f, e, S, d[u]);
#pragma unroll
        for (int p = 0; p < S; p++) {
            char4 v = make_char4(d[0][p], d[1][p], d[2][p], d[3][p]);
            *(char4 *)(as + ozaki_a_at(blockIdx.x, p, p0, ka, S)) = v;
        }
    }
}

/* Block (x, y): columns 32 x.. and rows 32 y.. of b (k x n) cut into S
 * slices and transposed into bs (ozaki_b_at: each column's slices along
 * a row, reversed). The tile goes through shared memory, so that reads
 * run along b's rows and writes along bs's. */
template <int S>
static __global__ void __launch_bounds__(COL_TILE *COL_ROWS)
    ozaki_cols_slice(int8_t *bs, const float *b, const int *eb, int k, int n, int ka)
{
    __shared__ int8_t tile[S][COL_TILE][COL_TILE + 4];
    int j = blockIdx.x * COL_TILE + threadIdx.x, r0 = blockIdx.y * COL_TILE;
    int e = j < n ? eb[j] : 0;
    for (int y = threadIdx.y; y < COL_TILE; y += COL_ROWS) {
        int r = r0 + y;
        int8_t d[S];
        ozaki_digits(j < n && r < k ? b[(size_t)r * n + j] : 0.0f, e, S, d);
#pragma unroll
        for (int p = 0; p < S; p++)
            tile[p][threadIdx.x][y] = d[p];
    }
    __syncthreads();
    for (int c = threadIdx.y; c < COL_TILE; c += COL_ROWS) {
        int jc = blockIdx.x * COL_TILE + c;
        if (jc >= n)
            break;
#pragma unroll
        for (int p = 0; p < S; p++)
            bs[ozaki_b_at(jc, p, r0 + threadIdx.x, ka, S)] = tile[p][c][threadIdx.x];
    }
}

/* --- the sum ---------------------------------------------------------------- */

/* c[i][j] = 2^(ea_i + eb_j - 12) sum_d 2^-7d sums[d][i][j], in FP64 (every
 * term is exact there: at most 31 + 7 (s - 1) bits), rounded once to FP32.
 * sums holds s INT32 matrices of m rows ldc apart. Block (x, y) takes
 * columns 256 x.. of rows y, y + gridDim.y, ... */
static __global__ void __launch_bounds__(STAT_THREADS) ozaki_sum(float *c, const int32_t *sums, const int *ea,
                                                                const int *eb, int m, int n, int ldc, int s)
{
    size_t plane = (size_t)m * ldc;
    int j = blockIdx.x * STAT_THREADS + threadIdx.x;
    if (j >= n)
        return;
    for (int i = blockIdx.y; i < m; i += gridDim.y) {
        const int32_t *at = sums + (size_t)i * ldc + j;
        double acc = at[(size_t)(s - 1) * plane];
        for (int d = s - 2; d >= 0; d--)
            acc = acc * (1.0 / 128.0) + at[(size_t)d * plane];
        c[(size_t)i * n + j] = (float)ldexp(acc, ea[i] + eb[j] - 12);
    }
}

/* --- the mode's product ------------------------------------------------------- */

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* The scratch: the statistics, the rows' and columns' exponents, the
 * slices of a (m x s ka) and b (n x s ka), the s sums (m x ldc INT32). */
typedef struct {
    ozaki_stats *stats;
    int *ea, *eb;
    int8_t *as, *bs;
    int32_t *sums;
} ozaki_room;

static int room_for(ozaki_room *r, int m, int n, int ka, int ldc, int s)
{
    size_t o_ea = 256, o_eb = o_ea + round_up((size_t)m * 4, 256), o_as = o_eb + round_up((size_t)n * 4, 256);
    size_t o_bs = o_as + round_up((size_t)m * s * ka, 256), o_sums = o_bs + round_up((size_t)n * s * ka, 256);
    char *p;
    if (gpu_scratch((void **)&p, o_sums + (size_t)s * m * ldc * 4) != 0)
        return -1;
    r->stats = (ozaki_stats *)p, r->ea = (int *)(p + o_ea), r->eb = (int *)(p + o_eb);
    r->as = (int8_t *)(p + o_as), r->bs = (int8_t *)(p + o_bs), r->sums = (int32_t *)(p + o_sums);
    return 0;
}

/* The statistics of both operands, read back: the host chooses s. */
static int measure(ozaki_room *r, const float *a, const float *b, int m, int n, int k, ozaki_stats *got)
{
    GPU_CHECK(cudaMemsetAsync(r->stats, 0, sizeof *r->stats, gpu_stream_handle()));
    GPU_LAUNCH(ozaki_rows_stats, dim3(m), dim3(STAT_THREADS), 0, a, k, r->ea, r->stats);
    GPU_LAUNCH(ozaki_cols_stats, dim3(gpu_cdiv(n, COL_TILE)), dim3(COL_TILE, COL_ROWS), 0, b, k, n, r->eb, r->stats);
    GPU_CHECK(cudaMemcpyAsync(got, r->stats, sizeof *got, cudaMemcpyDeviceToHost, gpu_stream_handle()));
    GPU_WAIT(gpu_stream_handle());
    return 0;
}

/* Both operands' slicing kernels for S slices. */
template <int S> static int slice_with(const ozaki_room *r, const float *a, const float *b, int m, int n, int k, int ka)
{
    if (gpu_launch(ozaki_rows_slice<S>, "ozaki_rows_slice", dim3(m), dim3(STAT_THREADS), 0, __FILE__, __LINE__, r->as,
                   a, r->ea, k, ka) != 0)
        return -1;
    return gpu_launch(ozaki_cols_slice<S>, "ozaki_cols_slice", dim3(gpu_cdiv(n, COL_TILE), ka / COL_TILE),
                      dim3(COL_TILE, COL_ROWS), 0, __FILE__, __LINE__, r->bs, b, r->eb, k, n, ka);
}

static int slice(const ozaki_room *r, const float *a, const float *b, int m, int n, int k, int ka, int s)
{
    switch (s) {
    case 4: return slice_with<4>(r, a, b, m, n, k, ka);
    case 5: return slice_with<5>(r, a, b, m, n, k, ka);
    case 6: return slice_with<6>(r, a, b, m, n, k, ka);
    case 7: return slice_with<7>(r, a, b, m, n, k, ka);
    default: return slice_with<OZAKI_MAX_SLICES>(r, a, b, m, n, k, ka);
    }
}

/* The slices, the s GEMMs of one weight each, and their sum into c. */
static int run_scheme(float *c, const float *a, const float *b, const ozaki_room *r, int m, int n, int k, int ka,
                      int ldc, int s)
{
    if (slice(r, a, b, m, n, k, ka, s) != 0)
        return -1;
    for (int d = 0; d < s; d++) {
        ozaki_gemm g = ozaki_gemm_of(d, m, n, ka, ldc, s);
        if (cublas_gemm_s8(g.m, g.n, g.k, r->bs + g.b_off, g.lda, r->as, g.ldb, r->sums + g.c_off, g.ldc) != 0)
            return -1;
    }
    dim3 grid(gpu_cdiv(n, STAT_THREADS), m < GPU_MAX_GRID_Y ? m : GPU_MAX_GRID_Y);
    GPU_LAUNCH(ozaki_sum, grid, dim3(STAT_THREADS), 0, c, r->sums, r->ea, r->eb, m, n, ldc, s);
    return 0;
}

/* The choice for this product into *ch: the scheme in ch->slices slices
 * with the room for them in *r, or fast's FP32 kernels (ch->how); or -1
 * with the error set (a span past OZAKI_MAX_SPAN, or the GPU's). The
 * statistics are taken in room sized for 4 slices, and again in a larger
 * room if the operands need more. */
static int choose(ozaki_choice *ch, ozaki_room *r, const float *a, const float *b, int m, int n, int k, int ka,
                  int ldc)
{
    ozaki_stats got;
    int s = OZAKI_SLICES;
    for (;;) {
        if (room_for(r, m, n, ka, ldc, s) != 0 || measure(r, a, b, m, n, k, &got) != 0)
            return -1;
        int want = ozaki_slices_for(got.bulk_a, got.bulk_b);
        if (want <= s || got.nonfinite)
            break;
        s = want;
    }
    ch->bulk_a = got.bulk_a, ch->bulk_b = got.bulk_b, ch->span_a = got.span_a, ch->span_b = got.span_b;
    ch->how = got.nonfinite ? OZAKI_NONFINITE : OZAKI_SLICED;
    ch->slices = s;
    if (ch->how == OZAKI_SLICED && (got.span_a > OZAKI_MAX_SPAN || got.span_b > OZAKI_MAX_SPAN)) {
        int rows = got.span_a >= got.span_b;
        return cuk_err("mode ozaki cannot hold this product: a %s spans 2^%d (largest over smallest nonzero "
                       "magnitude), past the 2^%d its slices keep; mode fast or tf32x3 can",
                       rows ? "row of the left operand" : "column of the right operand",
                       rows ? got.span_a : got.span_b, OZAKI_MAX_SPAN);
    }
    return 0;
}

extern "C" int ozaki_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    ozaki_choice ch;
    memset(&ch, 0, sizeof ch);
    ch.m = m, ch.n = n, ch.k = k, ch.how = OZAKI_ON_FP32;
    if (!ozaki_worth(m, n, k)) {
        ozaki_record(&ch);
        return fast_matmul(c, a, b, m, n, k);
    }
    int ka = (int)round_up((size_t)k, 32), ldc = (int)round_up((size_t)n, 4);
    ozaki_room r;
    if (choose(&ch, &r, a, b, m, n, k, ka, ldc) != 0)
        return -1;
    ozaki_record(&ch);
    /* inf and NaN have no slices: FP32 gives them their meaning */
    if (ch.how == OZAKI_NONFINITE)
        return fast_matmul(c, a, b, m, n, k);
    return run_scheme(c, a, b, &r, m, n, k, ka, ldc, ch.slices);
}
