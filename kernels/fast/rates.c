/* rates.c - the measured constants of mode fast's planner (plan.c): one
 * table, each value with where it came from. The estimates count
 * multiply-adds of one SM at its full rate ("units"); PERF.md (## fast,
 * the planner) has the measurements and what each constant decides. */
#include "kernels/fast/plan.h"

const fast_rates fast_rates_measured = {
    /* 4096^3 on one shape at a time: 128 x 64 and 64 x 64 run below 64 x
     * 128, 128 x 128 / 64 (16 x 8 outputs a thread) above it. */
    .shape_rel = {1.00, 0.92, 0.90, 1.03},
    /* The cover taken where it measured faster than the plan before it
     * and left where it measured slower. */
    .cover_rel = {1.03},
    /* Under 8 warps an SM runs at warps / 8 of its rate: too few
     * multiply-adds in flight to hide shared-memory latency. */
    .full_warps = 8,
    /* Partial products written and read once through L2. */
    .l2_per_byte = 2,
    /* The summing kernel's walk over the slices, about 0.12 us a slice. */
    .slice_walk = 3e4,
    /* Split plans against one-slice plans, every plan timed at 14 shapes:
     * 0-8% over their estimate on aligned rows, 5-25% on rows read a
     * float at a time (the summing launch after a slower kernel). */
    .split_over = 1.08,
    .split_over_raw = 1.18,
    /* Stream-K plans 0-5% over their estimate in the same sweep. */
    .sk_over = 1.03,
    /* Stream-K won at shares of 21 to 73 k-steps and lost at 5 and 6: a
     * block's start and slots cost about what a short share does. */
    .sk_min_share = 16,
    /* k-groups sum in shared memory, with no second kernel: runs of 2
     * steps beat the split plans at short k. */
    .kg_min_run = 2,
    /* b read a float at a time: the tiled kernels, and a k-groups block,
     * which has no other block's arithmetic to hide its loads behind. */
    .raw_over = 1.15,
    .raw_over_kg = 1.07,
    /* 128 multiply-adds a cycle at about 1.98 GHz. */
    .units_per_us = 2.5e5,
    /* A padded copy's launch and start before the product can begin. */
    .copy_start_us = 3,
    /* A copy moves its bytes at about 2.5 TB/s. */
    .copy_per_byte = 0.1,
    /* The tiled kernels reach about half of the rate the units count, a
     * read about all of it. */
    .thin_scale = 0.5,
    /* Estimates of different plans are several percent out against each
     * other: thin columns split off only where both parts come well under
     * the whole. */
    .thin_under = 0.85,
    /* Beside stream-K's blocks a free place makes about a quarter of
     * their multiply-adds; rows go beside up to this share. */
    .rows_share = 0.3,
    /* The same beside a k-groups product. */
    .rows_rate = 0.25,
    /* 48 blocks of the rows kernel in the 4 SMs 1030's product leaves. */
    .kg_places = 6,
    /* Edges beside a k-groups product ended under it up to about 0.38 of
     * its estimate, after it from 0.48 on. */
    .edge_rate = 0.38,
    /* A right-strip warp waits on more loads a multiply-add. */
    .edge_right = 1.5,
    /* The edges' code in the k-groups loop costs it 11-14% however few. */
    .kg_edge_cost = 0.12,
    /* What the edges add to a k-groups product: beside it, in its blocks. */
    .edges_beside_cost = 0.06,
    .edges_blocks_cost = 0.2,
};
