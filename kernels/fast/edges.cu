/* edges.cu - mode fast's edges kernel: a k-groups product's last few rows
 * and columns, made beside it in the SMs its grid leaves free. */
#include "kernels/fast/fast.cuh"

/* c's last h rows (all n columns: the bottom strip) and, in its first m0
 * rows, its last w columns (the right strip), made beside a k-groups
 * product of the other m0 x n0 (launched early) by one block in each SM
 * its grid leaves free, not in its blocks (fast_kg_edges), where they
 * cost it a tenth or more however few. Beside it they cost nothing where
 * the free SMs make them in the product's time (plan.c, kg_edges_beside):
 * 13 rows alone or 8 columns, not 1037's 13 and 7. A thread of the
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
         * k-rows in flight during each step, no faster.) */
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

/* The kernels for h = 1 .. 16 rows (h 0: 1); w <= 8 columns. */
typedef void edges_fn(fast_edge_args);
#define EDGE_KERNEL(H) {gemm_edges<H>, "gemm_edges<" #H ">"}
static const struct {
    edges_fn *kernel;
    const char *name;
} edge_kernels[16] = {EDGE_KERNEL(1),  EDGE_KERNEL(2),  EDGE_KERNEL(3),  EDGE_KERNEL(4),  EDGE_KERNEL(5),  EDGE_KERNEL(6),
                      EDGE_KERNEL(7),  EDGE_KERNEL(8),  EDGE_KERNEL(9),  EDGE_KERNEL(10), EDGE_KERNEL(11), EDGE_KERNEL(12),
                      EDGE_KERNEL(13), EDGE_KERNEL(14), EDGE_KERNEL(15), EDGE_KERNEL(16)};
int fast_edges_run(float *c, const float *a, const float *b, int m0, int n0, int h, int w, int n, int k, int blocks)
{
    int H = h > 0 ? h : 1;
    fast_edge_args e = {c, a, b, n, k, n, m0, n0, h, w, n, k};
    return gpu_launch_early(1, edge_kernels[H - 1].kernel, edge_kernels[H - 1].name, dim3(blocks), dim3(EDGE_THREADS),
                            edge_smem(H, n, k, blocks), __FILE__, __LINE__, e);
}
