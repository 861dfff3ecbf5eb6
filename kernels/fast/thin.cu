/* thin.cu - mode fast's thin product: b of at most THIN_MAX columns (or the
 * last few columns of a wide b, beside the tiled product of the others),
 * which reads a once and runs at the memory's bandwidth. */
#include "kernels/fast/fast.cuh"
#include "kernels/gpu_fold.h"

/* A product whose b has at most THIN_MAX columns, or the last few columns
 * of a wider one whose other columns fill tiles of 64 exactly: at n = 67
 * the tiles' 128 columns did 61 for nothing. Such a product reads a once
 * and uses
 * each float of it for every column: it runs at the memory's bandwidth,
 * as the matrix-vector kernels do. A block's 8 warps take THIN_RW rows of
 * a each, a warp's lanes 32 floats apart along k, each lane with two
 * batches of a's floats in flight (THIN_BATCH); b's columns (w rounded up
 * to W, 4 or 8) for the block's slice of k are staged in shared memory (up
 * to THIN_SMEM bytes at a time), each staged float serving the block's 32
 * rows. k is cut into slices so that the row groups fill the blocks the
 * SMs hold in one wave (a second wave of a few blocks, or b staged in
 * pieces with a barrier each, ran much slower), and so that a slice's
 * piece of b is staged at once. The lanes' first loads are issued before
 * b's piece is staged, and each batch's loads during the last one's
 * arithmetic. Each slice's sums go to
 * scratch, and the last slice of a row group to arrive adds them in slice
 * order (as gemv_cols): the same bits whatever the order of arrival. */
#define THIN_RW 4                             /* rows of a a warp: its THIN_RW x W sums, one a lane */
#define THIN_ROWS (GEMV_WARPS * THIN_RW)      /* rows of a a block */
/* Steps of 32 along k whose loads a lane issues at once: 4 for W = 4, 2
 * for W = 8, whose sums take twice the registers (4 ran W = 8 slower). */
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
 * crowding L2 (plain loads ran slower). */
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
int fast_thin_run(float *c, int ldc, const float *a, const float *b, int ldb, int m, int k, int w, int beside,
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
