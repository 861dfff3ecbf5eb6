/* rates.c - the measured constants of mode fast's planner (plan.c): one
 * table, a line on each saying what it stands for. The estimates count
 * multiply-adds of one SM at its full rate ("units"); PERF.md (## fast,
 * the planner) has what each value was fitted to. */
#include "kernels/fast/plan.h"

const fast_rates fast_rates_measured = {
    /* Each shape's rate at 4096^3: 16 x 8 outputs a thread run fastest. */
    .shape_rel = {1.00, 0.92, 0.90, 1.03},
    /* Set where the cover measured faster than the plan it displaces. */
    .cover_rel = {1.03},
    /* Below 8 warps an SM, too few multiply-adds in flight. */
    .full_warps = 8,
    /* Partial products written and read once through L2. */
    .l2_per_byte = 2,
    /* The summing kernel's walk, a slice (or a split tile's part). */
    .slice_walk = 3e4,
    /* Split plans over their estimates, every plan timed at 14 shapes. */
    .split_over = 1.08,
    .split_over_raw = 1.18,
    /* Stream-K plans over their estimates in the same sweep. */
    .sk_over = 1.03,
    /* Shorter shares lost to the split plans: start and slots dominate. */
    .sk_min_share = 16,
    /* k-groups need no second kernel: short runs still beat splitting. */
    .kg_min_run = 2,
    /* b read a float at a time, in the tiled kernels and a k-groups block. */
    .raw_over = 1.15,
    .raw_over_kg = 1.07,
    /* 128 multiply-adds a cycle at about 1.98 GHz. */
    .units_per_us = 2.5e5,
    /* A padded copy's launch and start before the product can begin. */
    .copy_start_us = 3,
    /* A copy's bytes at about 2.5 TB/s. */
    .copy_per_byte = 0.1,
    /* A read runs at the rate counted, the tiled kernels at about half. */
    .thin_scale = 0.5,
    /* Estimates of different plans are a few per cent out against each other. */
    .thin_under = 0.85,
    /* A free place beside stream-K makes about a quarter of a block's work. */
    .rows_share = 0.3,
    /* The same beside a k-groups product. */
    .rows_rate = 0.25,
    /* The rows kernel's blocks a free SM takes beside a k-groups grid. */
    .kg_places = 6,
    /* Beside a k-groups product the edges kept up to about this share. */
    .edge_rate = 0.38,
    /* A right-strip warp waits on more loads a multiply-add. */
    .edge_right = 1.5,
    /* The edges' code in the k-groups loop costs it, however few. */
    .kg_edge_cost = 0.12,
    /* What the edges add to a k-groups product: beside it, in its blocks. */
    .edges_beside_cost = 0.06,
    .edges_blocks_cost = 0.2,
};
