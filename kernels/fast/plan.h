/* plan.h - how mode fast makes a product of a given shape: the planner, a
 * pure function from the shape, the operands' alignment, the device's
 * facts and a table of measured rates to a plan (plan.c, rates.c), and the
 * facts of the kernels it chooses among. Plain C: built by cc, testable
 * without a GPU (tests/unit/test_fast_plan.c); the kernels include it too
 * (FAST_HD: a function on host and device). */
#ifndef CUK_FAST_PLAN_H
#define CUK_FAST_PLAN_H

#include <stddef.h>

#ifdef __CUDACC__
#define FAST_HD __host__ __device__
#else
#define FAST_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* --- the kernels' facts ------------------------------------------------------------ */

#define FAST_BK 16    /* k-depth of one shared-memory stage */
#define FAST_STAGES 3 /* stages in flight: 3 x 16 of k hide a global load */
#define FAST_APAD 4   /* floats of padding per k-row of a's tile (tile.cuh, fast_stage) */
/* The k-depth of one running sum: a block adds its accumulators into its
 * output every FAST_FOLD of k and starts them again from zero, because
 * one FP32 sum of k products loses accuracy in proportion to k (PERF.md,
 * ## fast, accuracy). A multiple of FAST_BK. */
#define FAST_FOLD 1024

/* How a tiled product's blocks share the work: k-slices (data-parallel),
 * stream-K, or k-groups (a tile a block, its k shared by the block's warp
 * groups); FAST_KGEDGES is the k-groups kernel that also makes the
 * output's last rows and columns beside its tiles. */
enum { FAST_DATA, FAST_STREAMK, FAST_KGROUPS, FAST_KGEDGES, FAST_KINDS };

/* The tile shapes of the tiled kernels (block BM x BN, warp WM x 64),
 * X(BM, BN, WM, 1 where the shape has stream-K and k-groups kernels). */
#define FAST_SHAPES(X) X(64, 128, 32, 1) X(128, 64, 32, 0) X(64, 64, 32, 0) X(128, 128, 64, 0)
#define FAST_NSHAPES 4
typedef struct {
    int bm, bn, wm, all_kinds;
    int threads;  /* of a data-parallel or stream-K block; a k-groups block has FAST_KG times them */
    size_t smem;  /* dynamic shared memory, the same */
} fast_shape;
extern const fast_shape fast_shapes[FAST_NSHAPES];

/* The most k-slices a data-parallel plan is split in. */
#define FAST_MAX_SLICES 256

/* Warp groups of a k-groups block (kgroups.cu). */
#define FAST_KG 3

/* The cover kernels (cover.cu): a group of COVER_WARPS warps, COVER_KG
 * groups a block, tiles of COVER_BM x 8 tn; the groups share k in runs of
 * half stages (cover_run_halves: a group's run, in halves). */
#define COVER_WARPS 3
#define COVER_KG 4
#define COVER_BM (32 * COVER_WARPS) /* 4 thread rows of 8 outputs a warp */
#define COVER_HALF (FAST_BK / 2)
#define FAST_COVERS(X) X(11, "96x88") /* X(tn, the tile as named) */
#define FAST_NCOVERS 1
extern const int fast_cover_tn[FAST_NCOVERS];
static inline FAST_HD int cover_run_halves(int k)
{
    return ((k + COVER_HALF - 1) / COVER_HALF + COVER_KG - 1) / COVER_KG;
}

/* The widest b of the thin kernel (thin.cu), the most rows of the rows
 * kernel (rows.cu), which makes 4, 8 or 16 (rows_wide), and the most rows
 * and columns the k-groups blocks make beside their tiles. */
#define THIN_MAX 8
#define ROWS_MAX 16
static inline int rows_wide(int r) { return r > 8 ? 16 : r > 4 ? 8 : 4; }
#define FAST_KG_ROWS 16
#define FAST_KG_COLS 8

/* Split tiles (stream-K) or column groups a launch can count arrivals at
 * (fast.cuh, arrived_last). */
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

/* --- what a plan depends on ---------------------------------------------------------- */

/* The device, as matmul.cu asks the CUDA runtime once: its SMs, whether a
 * kernel may start beside the one ahead of it (cc 9.0 on:
 * gpu_launch_early), how many blocks of each tiled kernel (the one that
 * reads rows 16 bytes at a time) an SM holds at once, [kind][shape], 0
 * where the shape has no such kernel or a block does not fit the shared
 * memory a block may have; and whether a block of each cover kernel fits. */
typedef struct {
    int sms;
    int early;
    int resident[FAST_KINDS][FAST_NSHAPES];
    int cover_fits[FAST_NCOVERS];
} fast_device;

/* The hand-fitted constants of the estimates, each from a measurement
 * that PERF.md (## fast, the planner) records: rates.c has the values
 * and a line on each. An estimate is in multiply-adds of one SM at its
 * full rate. */
typedef struct {
    double shape_rel[FAST_NSHAPES]; /* a full SM's rate with each shape, relative to 64 x 128 */
    double cover_rel[FAST_NCOVERS]; /* each cover's, relative to the k-groups kernel on b as it lies */
    double full_warps;              /* warps an SM needs to run at its full rate */
    double l2_per_byte;             /* units a byte of partial products costs through L2 */
    double slice_walk;              /* units the summing kernel's walk costs a slice */
    double split_over, split_over_raw; /* split plans' time over their estimate: aligned, not */
    double sk_over;                 /* stream-K plans' time over their estimate */
    int sk_min_share;               /* the fewest k-steps a stream-K block takes */
    int kg_min_run;                 /* the fewest k-steps a k-groups warp group takes */
    double raw_over, raw_over_kg;   /* plans on rows read a float at a time over their estimate */
    double units_per_us;            /* units a microsecond */
    double copy_start_us;           /* a padded copy's launch and start */
    double copy_per_byte;           /* units a byte of a padded copy costs */
    double thin_scale;              /* the thin kernel's time over the units it is counted in */
    double thin_under;              /* split off thin columns only under this share of the whole */
    double rows_share;              /* rows beside stream-K where rows / m0 <= this x places / grid */
    double rows_rate;               /* a free SM's rate beside a k-groups product, as a share */
    int kg_places;                  /* the rows kernel's places an SM a k-groups grid leaves free */
    double edge_rate;               /* edges beside a k-groups product up to this share of its time */
    double edge_right;              /* a right-strip multiply-add's cost, in bottom-strip ones */
    double kg_edge_cost;            /* what the edges cost a k-groups product in its blocks */
    double edges_beside_cost, edges_blocks_cost; /* the edges' share of a k-groups product's time */
} fast_rates;
extern const fast_rates fast_rates_measured;

/* `set align`: how rows that are not 16-byte aligned are read. */
enum { FAST_ALIGN_AUTO, FAST_ALIGN_COPY, FAST_ALIGN_OFF };

/* --- the plan ------------------------------------------------------------------------ */

/* One tiled product: a shape (index into fast_shapes) and its kind; as
 * k-slices, `slices` of kchunk (FAST_DATA), or `grid` blocks of `share`
 * k-steps (FAST_STREAMK); vec: the kernel that reads rows 16 bytes at a
 * time. */
typedef struct {
    int shape, kind;
    int slices, kchunk;
    int grid, share;
    int vec;
} fast_tiling;

/* How a tiled product reads rows that are not 16-byte aligned: its tiling
 * on the rows as they lie (raw) and on padded copies; padded: the copies
 * are made (of a where pad_a, of b where pad_b) and the padded tiling
 * runs, else the raw one (and the raw one too where the copies' scratch
 * cannot be had); cost: the estimate of the one chosen, copies counted. */
typedef struct {
    fast_tiling raw, padded;
    double raw_cost, padded_cost;
    int padded_chosen, pad_a, pad_b;
    double cost;
} fast_route;

/* What makes c (m x n) = a (m x k) @ b (k x n). */
enum {
    FAST_NOTHING,   /* m or n is 0 */
    FAST_GEMV_ROWS, /* n is 1 */
    FAST_GEMV_COLS, /* m is 1 */
    FAST_THIN,      /* n <= THIN_MAX: the thin kernel */
    FAST_COVER,     /* cover kernel `cover` */
    FAST_TILED,     /* a tiled product of the first m0 rows and n0 columns, and beside it: */
};
typedef struct {
    int how, cover;
    fast_route tiled;
    int m0, n0;
    int kg_h, kg_w;     /* rows past m0 and columns past n0 that the k-groups blocks make */
    int edge_blocks;    /* > 0: the edges kernel makes all past m0 and n0, in this many blocks */
    int rows, rows_n;   /* > 0: the rows kernel makes the last `rows` rows, rows_n columns wide, */
    int rows_places;    /* in the places the tiled grid leaves free */
    int thin;           /* > 0: the thin kernel makes the last `thin` columns of all m rows, */
    int thin_early;     /* launched early, beside the tiled product's last blocks */
} fast_plan;

/* The plan for c (m x n) = a (m x k) @ b (k x n), a's rows (k apart) not
 * all 16-byte aligned where ua, b's (n apart) where ub; align: `set
 * align` (FAST_ALIGN_...). */
fast_plan fast_plan_for(int m, int n, int k, int ua, int ub, int align, const fast_device *dev,
                        const fast_rates *rates);

/* Floats of scratch tiling t of m x n needs: the slices' partial
 * products, or the stream-K blocks' two slots each. */
size_t fast_tiling_scratch(const fast_tiling *t, int m, int n);

/* The device's facts as the dispatcher found them (matmul.cu; a build
 * without CUDA has none): 0, or -1 with the error set. */
int fast_device_facts(fast_device *dev);

#ifdef __cplusplus
}
#endif

#endif
