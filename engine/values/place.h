/* place.h - where a matrix's device copy lies across the GPUs, and when it
 * moves. A device copy lies on GPU 0 alone (the single-GPU modes' pool, or
 * spread memory too small to split) or in row slabs on every GPU (mode
 * multi's spread memory). When an op's mode works on the other kind, the
 * operand either moves once, a timed copy counted in the statement's
 * record, after which it lives there; or the op reads it where it lies,
 * across the link.
 *
 * The rule: moving reads the matrix once; running where it lies reads, across
 * the link, as many bytes as the op reads of it. So it moves as soon as
 * those reads, this op's and the earlier ones' since it last moved, would
 * pass its size: at once for a product (it reads each operand many times
 * over), at the second use for an op that reads it once (elementwise, a
 * reduction, a transpose), later or never for small slices. Where the
 * memory there cannot hold it, it stays, and the op reads it where it
 * lies: a single-GPU mode reads the other GPUs' slabs over the link, and
 * multi runs a product of an operand on GPU 0 alone there. docs/placement.md
 * has the user's side. */
#ifndef CUK_PLACE_H
#define CUK_PLACE_H

#include "engine/values/matrix.h"

typedef enum { PLACE_STAY, PLACE_MOVE } place_choice;

/* The rule, on its own: a matrix of `bytes`, read `before` bytes where it
 * lay by earlier ops, met by an op that reads `reads` bytes of it. */
place_choice place_decide(double bytes, double reads, double before);

/* Bytes a product reads of an operand of `bytes`, where `across` is the
 * result's count of columns (for A) or rows (for B): a blocked product reads
 * all of A once for every block of PLACE_BLOCK columns of C, and all of B
 * for every block of rows. At least the operand once. */
#define PLACE_BLOCK 128
double place_product_reads(double bytes, int across);

/* The GPUs m's device copy lies on: 0 (none), 1 (GPU 0 alone), or the
 * count of GPUs its row slabs are on. */
int place_gpus(const cuk_matrix *m);

/* Before an op of mode be that reads `reads` bytes of m: where m's device
 * copy lies elsewhere than be works, apply the rule (move it, or leave it
 * and count the reads) and note what was done in the statement's record.
 * A single-GPU mode works on GPU 0; a spread mode on row slabs, or on GPU
 * 0 alone for a matrix too small to split. Nothing to do for a host mode
 * or a matrix with no device copy (mat_data puts it there). 0, or -1 with
 * the error set (the matrix is then as it was). */
int place_for(cuk_matrix *m, const cuk_backend *be, double reads);

#endif
