/* plan.h - the facts of mode fast's product kernels that choosing among
 * them needs (kernels/fast/): the depth of a stage and of a running sum,
 * the warp groups of a k-groups or cover block, the widest thin product,
 * the most rows beside a product, the edges kernel's limits. Plain C, for
 * the planner and for the kernels (FAST_HD: on host and device). */
#ifndef CUK_FAST_PLAN_H
#define CUK_FAST_PLAN_H

#include <stddef.h>

#ifdef __CUDACC__
#define FAST_HD __host__ __device__
#else
#define FAST_HD
#endif

#define FAST_BK 16    /* k-depth of one shared-memory stage */
#define FAST_STAGES 3 /* stages in flight: 3 x 16 of k hide a global load */
#define FAST_APAD 4   /* floats of padding per k-row of a's tile (see fast_stage) */
/* The k-depth of one running sum: a block adds its accumulators into its
 * output every FAST_FOLD of k (add4) and starts them again from zero,
 * because one FP32 sum of k products loses accuracy in proportion to k
 * (3001x2999x3000 on U(0,1) inputs: 3.9 times cuBLAS's error in one sum,
 * 2.0 in sums 2048 deep, 1.2 in sums 1024 deep). A multiple of FAST_BK. */
#define FAST_FOLD 1024

/* How a plan's blocks share the work; FAST_KGEDGES is FAST_KGROUPS's
 * kernel with the edges beside the tiles (fast_kg_edges), which run_plan
 * takes where it is given them. */
enum { FAST_DATA, FAST_STREAMK, FAST_KGROUPS, FAST_KGEDGES, FAST_KINDS };

/* The tile shapes of the tiled kernels (block BM x BN, warp WM x 64),
 * X(BM, BN, WM, 1 where the shape has stream-K and k-groups kernels). */
#define FAST_SHAPES(X) X(64, 128, 32, 1) X(128, 64, 32, 0) X(64, 64, 32, 0) X(128, 128, 64, 0)
#define FAST_NSHAPES 4

/* Warp groups of a k-groups block (kgroups.cu). */
#define FAST_KG 3

/* The cover kernel (cover.cu): a group of COVER_WARPS warps, COVER_KG
 * groups a block, tiles of COVER_BM rows; the groups share k in runs of
 * half stages (cover_run_halves: a group's run, in halves). */
#define COVER_WARPS 3
#define COVER_KG 4 /* warp groups a block */
#define COVER_BM (32 * COVER_WARPS) /* 4 thread rows of 8 outputs a warp */
#define COVER_HALF (FAST_BK / 2)
static inline FAST_HD int cover_run_halves(int k)
{
    return ((k + COVER_HALF - 1) / COVER_HALF + COVER_KG - 1) / COVER_KG;
}

/* The widest b of the thin kernel (thin.cu), and the most rows of the
 * rows kernel (rows.cu), which makes 4, 8 or 16 (rows_wide). */
#define THIN_MAX 8
#define ROWS_MAX 16
static inline int rows_wide(int r) { return r > 8 ? 16 : r > 4 ? 8 : 4; }

/* Split tiles (stream-K) or column groups a launch can count arrivals at
 * (fast.cuh). */
#define FAST_SK_TILES 4096

/* The edges kernel (edges.cu): its threads, the most shared memory it
 * asks for (a's rows, or b's columns, all of k), the bottom strip's
 * column quads a block of `blocks` makes (its 4 Q columns from 4 Q g on,
 * a thread's Q apart: a warp's loads of b and stores of c in consecutive
 * floats), and its shared memory: a's h rows (k rounded up to 4), b's 8
 * columns, or the bottom strip's slices' sums, 4 rows at a time. */
#define EDGE_THREADS 512
#define EDGE_SMEM (100 << 10)
static inline FAST_HD int edge_quads(int n, int blocks) { return (n + 4 * blocks - 1) / (4 * blocks); }
static inline FAST_HD size_t edge_smem(int h, int n, int k, int blocks)
{
    size_t q = (size_t)edge_quads(n, blocks), rows = (size_t)h * ((k + 3) / 4 * 4), cols = (size_t)8 * k;
    size_t sums = 16 * q * (EDGE_THREADS / q), most = rows > cols ? rows : cols;
    return sizeof(float) * (most > sums ? most : sums);
}

#endif
