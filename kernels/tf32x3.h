/* tf32x3.h - what the two files of the `tf32x3` mode share: the split
 * operands' padded layout and the Hopper kernel's entry points. Include from
 * .cu only. */
#ifndef CUK_TF32X3_H
#define CUK_TF32X3_H

/* The split pass pads every operand to these multiples with zeros, so the
 * product kernels have no ragged edges but in their stores of c. */
#define TF32X3_PAD_MN 128 /* rows of a, columns of b: one block's tile of c */
#define TF32X3_PAD_K 32   /* 32 floats: one 128-byte swizzled row for wgmma */

/* A product with at most this many rows or columns runs on fast's FP32
 * kernels (gemv, rows, thin), at FP32's accuracy and faster: padded to the
 * 128 of a tile of c, such a product would spend 120 of every 128 rows of
 * tensor-core work on zeros, and the split pass would cost more than the
 * whole FP32 product. */
#define TF32X3_SIMT_MAX 8

/* c (m x n) = a @ b from the split parts: a_big, a_small are mp x kp (a's
 * rows, K-major), b_big, b_small np x kp (b transposed: TF32 wgmma reads
 * both operands K-major); mp, np, kp are the padded sizes. work and count:
 * the Hopper kernel's split-k scratch (tf32x3_plan), count zeroed by the
 * split pass; unused (NULL) when the plan has one slice. */
typedef struct {
    const float *a_big, *a_small, *b_big, *b_small;
    float *c;
    float *work;
    unsigned *count;
    /* Where the split runs beside the product: a piece (32 k of 128 part
     * rows: with bands_a = mp / 128 and bands = (mp + np) / 128, band
     * y < bands_a is a's rows 128 y.., band bands_a + x b's columns
     * 128 x..) is ready once ready[k-tile * bands + band] holds epoch.
     * NULL where the split ran first. */
    const unsigned *ready;
    unsigned epoch;
    int m, n, k;
    int mp, np, kp;
} tf32x3_parts;

/* How the Hopper kernel cuts a product: tiles of c of bm x 128, each tile's
 * k in `slices` slices of kslice k-tiles (split-k; the last maybe
 * shorter). Their sum: with `cluster`, the slices of a tile are one
 * cluster and sum in their shared memory; else their partial tiles wait
 * in work_floats of scratch for the tile's last slice to sum them, `tiles`
 * counters telling which is last. streamed > 0: one slice, and the split
 * runs beside the product on that many blocks (the SMs its tiles leave). */
typedef struct {
    int bm, slices, kslice, cluster, tiles;
    size_t work_floats;
    int streamed;
} tf32x3_plan;

/* 1 if this binary's wgmma kernel runs on this GPU (sm_90a code, cc 9.0);
 * 0 if not; -1 with the error set. Asked once, then cached. */
int tf32x3_sm90_ready(void);
/* The plan for the padded product mp x kp x np (multiples of the pads). */
void tf32x3_sm90_plan(int mp, int np, int kp, tf32x3_plan *pl);
/* The product on Hopper, cut as pl says: 0, or -1 with the error set. */
int tf32x3_sm90_run(const tf32x3_parts *p, const tf32x3_plan *pl);

#endif
