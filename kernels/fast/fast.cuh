/* fast.cuh - what the files of mode fast's matrix product (kernels/fast/)
 * share: the depth of a stage and of a running sum, the arguments of a
 * tiled launch, the counters by which the last block of a tile or column
 * group to arrive finds that it is last, and each kernel family's
 * launcher, which the dispatcher (matmul.cu) calls. Include from
 * kernels/fast/ .cu only. */
#ifndef CUK_FAST_CUH
#define CUK_FAST_CUH

#include "kernels/gpu_internal.h"
#include "kernels/fast/plan.h"

#include <stdint.h>


/* Warps of a block of the matrix-vector and thin kernels. */
#define GEMV_WARPS 8

static inline int aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

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

/* --- what each kernel family gives the dispatcher ---------------------------------- */

/* A kernel of the tiled product and the name `kernels` shows it under. */
typedef struct {
    void (*fn)(fast_args);
    const char *name;
} fast_kernel;

/* tiles.cu: each shape's data-parallel and stream-K kernels,
 * [shape][FAST_DATA or FAST_STREAMK][aligned] (fn NULL where it has
 * none), and c = the sum of `slices` partial products at part (m x n
 * each; c's rows ldc apart). */
extern const fast_kernel fast_tile_kernels[FAST_NSHAPES][2][2];
int fast_sum_run(float *c, int ldc, const float *part, int m, int n, int slices);

/* kgroups.cu: 64 x 128's k-groups kernels, [with the edges][aligned]. */
extern const fast_kernel fast_kg_kernels[2][2];

/* cover.cu: the cover kernels, their tiles' columns (8 tn) and shared
 * memory; and c (m x n) = a (m x k) @ b (k x n) by cover i, every row as
 * it lies. */
typedef struct {
    fast_kernel k;
    int tn;
    size_t smem;
} fast_cover_kernel;
extern const fast_cover_kernel fast_cover_kernels[FAST_NCOVERS];
int fast_cover_run(int i, float *c, const float *a, const float *b, int m, int n, int k);

/* pad.cu: padded copies of operands whose rows are not 16-byte aligned:
 * dst = src (rows x cols, rows lds apart) with each row padded by zeros
 * to ldd floats; both jobs in one launch, a job of 0 rows copying
 * nothing. */
typedef struct {
    float *dst;
    const float *src;
    int rows, cols, lds, ldd;
} fast_pad_job;
int fast_pad_run(const fast_pad_job *a, const fast_pad_job *b);

/* gemv.cu: c (m x 1) = a (m x k) @ b (k x 1), and c (1 x n) = a (1 x k) @
 * b (k x n). */
int fast_gemv_rows_run(float *c, const float *a, const float *b, int m, int k);
int fast_gemv_cols_run(float *c, const float *a, const float *b, int n, int k);

/* thin.cu: c (m x w, rows ldc apart) = a (m x k) @ b (k x w, rows ldb
 * apart), w <= THIN_MAX; beside: launched early beside the tiled product
 * ahead of it, whose scratch is the first `after` floats; and the kernel
 * for w (its occupancy is a fact the plans use). */
int fast_thin_run(float *c, int ldc, const float *a, const float *b, int ldb, int m, int k, int w, int beside,
                  size_t after);

/* rows.cu: c's last r rows (r x n, rows ldc apart) = a (r x k, rows lda
 * apart) @ b (k x n, rows ldb apart), beside the product of the others in
 * the `places` it leaves free; its scratch past the first `after` floats,
 * *used floats in all. */
int fast_rows_run(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int r, int n, int k,
                  int places, size_t after, size_t *used);

/* edges.cu: the last h rows and w columns of c (rows n apart) beside a
 * k-groups product of its first m0 x n0 (a: rows k apart; b: n), in
 * `blocks` blocks. */
int fast_edges_run(float *c, const float *a, const float *b, int m0, int n0, int h, int w, int n, int k,
                   int blocks);

#endif
