/* gpu_tiled.cu - the `tiled` mode: the same algorithms as `naive`, with each
 * block staging its data in shared memory so that global memory is read once
 * per tile instead of once per use. Every edge is handled: no size needs to be
 * a multiple of a tile. The lessons' variants (`set tile`, `set atile`, `set
 * pad`) are kernels of their own here; the reductions are in
 * gpu_tiled_reduce.cu. */
#include "kernels/gpu_internal.h"

#include "kernels/variants.h"

/* The entry points of mode tiled (modes.c). */
extern "C" cuk_matmul_fn tiled_matmul;
extern "C" cuk_transpose_fn tiled_transpose;

#define TR_TILE 32  /* transpose: 32 x 32 tiles ... */
#define TR_ROWS 8   /* ... moved by 32 x 8 threads, 4 elements each */

/* --- matrix product ---------------------------------------------------------- */

/* c (m x n) = a (m x k) @ b (k x n) with T x T tiles (`set tile 8|16|32`,
 * default 16, the Programming Guide's BLOCK_SIZE). The block walks along k
 * one T-wide step at a time: its threads load a T x T tile of a and one of b
 * into shared memory (one element each, coalesced), then each thread does T
 * multiply-adds from shared memory. Every element loaded is used T times, so
 * global reads drop T-fold against the naive kernel (its CGMA, flops per
 * global load, is T instead of 1). A bigger tile saves more reads but makes
 * fewer, bigger blocks: at T = 32 a block has 1024 threads, the most allowed,
 * and only one or two fit an SM, so few warps are left to run while a
 * block's warps wait at its barriers.
 * Tile elements past the edges of a or b are loaded as 0, which adds nothing
 * to the sums, so the inner loop needs no bounds checks. Reading as[ty][q]
 * is a broadcast (a warp's threads share one or a few ty), bs[q][tx] runs
 * along a row: no bank conflicts anywhere. */
template <int T> static __global__ void matmul_tiled(float *c, const float *a, const float *b, int m, int n, int k)
{
    __shared__ float as[T][T];   /* as[ty][q] = a[i][p0 + q] */
    __shared__ float bs[T][T];   /* bs[q][tx] = b[p0 + q][j] */
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * T + ty;
    int j = blockIdx.x * T + tx;
    int steps = k / T + (k % T != 0);   /* (k + T - 1) / T could overflow */
    float acc = 0.0f;
    for (int s = 0; s < steps; s++) {
        int p0 = s * T;
        as[ty][tx] = (i < m && p0 + tx < k) ? a[(size_t)i * k + p0 + tx] : 0.0f;
        bs[ty][tx] = (p0 + ty < k && j < n) ? b[(size_t)(p0 + ty) * n + j] : 0.0f;
        __syncthreads();   /* the tiles are complete */
        for (int q = 0; q < T; q++)
            acc += as[ty][q] * bs[q][tx];
        __syncthreads();   /* everyone is done with them before they are overwritten */
    }
    if (i < m && j < n)
        c[(size_t)i * n + j] = acc;
}

/* The same with a's tile stored transposed in shared memory (`set atile
 * transposed`), as the classic lectures' third version did: thread (tx, ty) still reads
 * a[i][p0 + tx] (coalesced) but stores it at at[tx][ty], so that the inner
 * loop indexes both tiles by q first (at[q][ty], bs[q][tx]). That gains
 * nothing (as[ty][q] was already a broadcast) and costs the store: a warp's
 * threads differ mostly in tx, so their stores land T floats apart, in the
 * same few of the 32 banks, and are served one after another: a 2-way
 * conflict at T = 8, 8-way at 16 (the stride of 16 floats of the lesson),
 * 32-way at 32. It is one shared-memory access in 2T + 2 per step, so the
 * cost may not show: the classic lectures timed this version at 135 ms against 147 ms
 * for plain tiles, both slower than their naive kernel (103 ms). Measure,
 * don't assume. */
template <int T> static __global__ void matmul_tiled_at(float *c, const float *a, const float *b, int m, int n, int k)
{
    __shared__ float at[T][T];   /* at[q][ty] = a[i][p0 + q]: transposed */
    __shared__ float bs[T][T];   /* bs[q][tx] = b[p0 + q][j] */
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * T + ty;
    int j = blockIdx.x * T + tx;
    int steps = k / T + (k % T != 0);
    float acc = 0.0f;
    for (int s = 0; s < steps; s++) {
        int p0 = s * T;
        at[tx][ty] = (i < m && p0 + tx < k) ? a[(size_t)i * k + p0 + tx] : 0.0f;   /* the conflicting store */
        bs[ty][tx] = (p0 + ty < k && j < n) ? b[(size_t)(p0 + ty) * n + j] : 0.0f;
        __syncthreads();
        for (int q = 0; q < T; q++)
            acc += at[q][ty] * bs[q][tx];
        __syncthreads();
    }
    if (i < m && j < n)
        c[(size_t)i * n + j] = acc;
}

/* Each tile size is its own kernel, named in `kernels` as matmul_tiled<16>
 * (GPU_MATMUL_GRID takes the name from the text), so each instance is
 * spelled out here. */
extern "C" int tiled_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    int at = variant_pick(VAR_ATILE) == VAR_ATILE_TRANSPOSED;
    if (variant_pick(VAR_TILE) == VAR_TILE_8)
        return at ? GPU_MATMUL_GRID(matmul_tiled_at<8>, 8, c, a, b, m, n, k)
                  : GPU_MATMUL_GRID(matmul_tiled<8>, 8, c, a, b, m, n, k);
    if (variant_pick(VAR_TILE) == VAR_TILE_32)
        return at ? GPU_MATMUL_GRID(matmul_tiled_at<32>, 32, c, a, b, m, n, k)
                  : GPU_MATMUL_GRID(matmul_tiled<32>, 32, c, a, b, m, n, k);
    return at ? GPU_MATMUL_GRID(matmul_tiled_at<16>, 16, c, a, b, m, n, k)
              : GPU_MATMUL_GRID(matmul_tiled<16>, 16, c, a, b, m, n, k);
}

/* --- transpose ----------------------------------------------------------------- */

/* out (cols x rows) = in (rows x cols)^T, rows from row0 on. A block reads
 * a 32 x 32 tile row by row (coalesced) into shared memory, then writes it
 * out row by row of out, reading the tile down its columns: both global
 * sides are coalesced, which the naive transpose cannot have. With PITCH 33
 * (`set pad on`, the default) the extra column of padding puts the 32
 * elements of a tile column in 32 different banks. With PITCH 32 (`set pad
 * off`) element [r][c] is in bank c, so a whole tile column is in one bank:
 * each warp's read of the tile is a 32-way bank conflict, served one
 * element at a time: 32 shared-memory cycles where one would do. */
template <int PITCH>
static __device__ __forceinline__ void transpose_tile(float *out, const float *in, int rows, int cols, int row0)
{
    __shared__ float tile[TR_TILE][PITCH];
    int bx = blockIdx.x * TR_TILE;            /* first column of in */
    int by = row0 + blockIdx.y * TR_TILE;     /* first row of in */
    int x = bx + threadIdx.x;
    for (int r = threadIdx.y; r < TR_TILE; r += TR_ROWS)
        if (x < cols && by + r < rows)
            tile[r][threadIdx.x] = in[(size_t)(by + r) * cols + x];
    __syncthreads();
    /* Now threadIdx.x runs along a row of out, i.e. down a column of in. */
    int y = by + threadIdx.x;
    for (int r = threadIdx.y; r < TR_TILE; r += TR_ROWS)
        if (y < rows && bx + r < cols)
            out[(size_t)(bx + r) * rows + y] = tile[threadIdx.x][r];
}

static __global__ void transpose_tiled(float *out, const float *in, int rows, int cols, int row0)
{
    transpose_tile<TR_TILE + 1>(out, in, rows, cols, row0);
}

static __global__ void transpose_tiled_nopad(float *out, const float *in, int rows, int cols, int row0)
{
    transpose_tile<TR_TILE>(out, in, rows, cols, row0);
}

extern "C" int tiled_transpose(float *out, const float *in, int rows, int cols)
{
    if (variant_pick(VAR_PAD) == VAR_PAD_OFF)
        return GPU_TRANSPOSE_GRID(transpose_tiled_nopad, dim3(TR_TILE, TR_ROWS), TR_TILE, out, in, rows, cols);
    return GPU_TRANSPOSE_GRID(transpose_tiled, dim3(TR_TILE, TR_ROWS), TR_TILE, out, in, rows, cols);
}
