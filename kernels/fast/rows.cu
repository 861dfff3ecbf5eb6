/* rows.cu - mode fast's rows kernel: the last few rows of a product (at
 * most ROWS_MAX) beside the tiled product of the others, in the places its
 * grid leaves free. */
#include "kernels/fast/fast.cuh"

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
#define ROWS_THREADS 128
#define ROWS_KS 64
#define ROWS_BATCH 16
/* Registers for 2 blocks in a place of the product's (128 threads of 168
 * registers): at most 80 a thread (a few bytes of the 16-row kernel
 * spill; at 128 registers, one block a place, it ran slower). */
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


/* c's last r rows beside the product of the others: as many k-slices as
 * fill the `places` the product leaves free with the column blocks (a
 * place holds ROWS_PER_PLACE of them), each at least ROWS_KS deep; the
 * slices' sums in the scratch past its first `after` floats (the
 * product's), *used floats of it in all. */
#define ROWS_PER_PLACE 2
typedef void rows_fn(float *, int, float *, const float *, int, const float *, int, int, int, int, int);
int fast_rows_run(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int r, int n, int k,
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
