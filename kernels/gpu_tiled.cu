/* gpu_tiled.cu - the `tiled` mode: the same algorithms as `naive`, with each
 * block staging its data in shared memory so that global memory is read once
 * per tile instead of once per use. Every edge is handled: no size needs to be
 * a multiple of a tile. Its reductions are in gpu_tiled_reduce.cu. */
#include "kernels/gpu_internal.h"

/* The entry points of mode tiled (modes.c). */
extern "C" cuk_matmul_fn tiled_matmul;
extern "C" cuk_transpose_fn tiled_transpose;

#define TILE 16     /* matmul: 16 x 16 threads compute a 16 x 16 tile of C */
#define TR_TILE 32  /* transpose: 32 x 32 tiles ... */
#define TR_ROWS 8   /* ... moved by 32 x 8 threads, 4 elements each */

/* --- matrix product ---------------------------------------------------------- */

/* c (m x n) = a (m x k) @ b (k x n). The block walks along k one 16-wide
 * step at a time: its threads load a 16 x 16 tile of a and one of b into
 * shared memory (one element each, coalesced), then each thread does 16
 * multiply-adds from shared memory. Every element loaded is used 16 times.
 * Tile elements past the edges of a or b are loaded as 0, which adds nothing
 * to the sums, so the inner loop needs no bounds checks. */
static __global__ void matmul_tiled(float *c, const float *a, const float *b, int m, int n, int k)
{
    __shared__ float as[TILE][TILE];   /* as[ty][q] = a[i][p0 + q] */
    __shared__ float bs[TILE][TILE];   /* bs[q][tx] = b[p0 + q][j] */
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * TILE + ty;
    int j = blockIdx.x * TILE + tx;
    int steps = k / TILE + (k % TILE != 0);   /* (k + 15) / 16 could overflow */
    float acc = 0.0f;
    for (int s = 0; s < steps; s++) {
        int p0 = s * TILE;
        as[ty][tx] = (i < m && p0 + tx < k) ? a[(size_t)i * k + p0 + tx] : 0.0f;
        bs[ty][tx] = (p0 + ty < k && j < n) ? b[(size_t)(p0 + ty) * n + j] : 0.0f;
        __syncthreads();   /* the tiles are complete */
        for (int q = 0; q < TILE; q++)
            acc += as[ty][q] * bs[q][tx];
        __syncthreads();   /* everyone is done with them before they are overwritten */
    }
    if (i < m && j < n)
        c[(size_t)i * n + j] = acc;
}

extern "C" int tiled_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    return GPU_MATMUL_GRID(matmul_tiled, TILE, c, a, b, m, n, k);
}

/* --- transpose ----------------------------------------------------------------- */

/* out (cols x rows) = in (rows x cols)^T, rows from row0 on. A block reads
 * a 32 x 32 tile row by row (coalesced) into shared memory, then writes it
 * out row by row of out, reading the tile down its columns. The extra column
 * of padding puts the 32 elements of a tile column in 32 different banks;
 * without it they would all hit one bank and be served one at a time. */
static __global__ void transpose_tiled(float *out, const float *in, int rows, int cols, int row0)
{
    __shared__ float tile[TR_TILE][TR_TILE + 1];
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

extern "C" int tiled_transpose(float *out, const float *in, int rows, int cols)
{
    return GPU_TRANSPOSE_GRID(transpose_tiled, dim3(TR_TILE, TR_ROWS), TR_TILE, out, in, rows, cols);
}
