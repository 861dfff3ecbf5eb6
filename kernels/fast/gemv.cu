/* gemv.cu - mode fast's matrix-vector products, 1 x N and N x 1: they read
 * every byte of the matrix once and run at the memory's bandwidth. */
#include "kernels/fast/fast.cuh"

/* Arrivals at each column group of gemv_cols (fast.cuh, arrived_last). */
static __device__ unsigned gemv_arrived[FAST_SK_TILES];

#define GEMV_BATCH 8  /* rows of b a lane has in flight (col_sums) */
#define GEMV_PER_SM 4 /* blocks an SM that fast_gemv_cols_run's slices aim at */

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
 * wave of 8 blocks, and ran slower; other slice counts near 17 ran about
 * alike. */
int fast_gemv_cols_run(float *c, const float *a, const float *b, int n, int k)
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

int fast_gemv_rows_run(float *c, const float *a, const float *b, int m, int k)
{
    int vec = k % 4 == 0 && aligned16(a) && aligned16(b);
    GPU_LAUNCH(gemv_rows, gpu_cdiv(m, GEMV_WARPS), GEMV_WARPS * 32, 0, c, a, b, m, k, vec);
    return 0;
}
