/* user_launch.h - the launch lines of a user's CUDA file, and the geometry
 * they give for a shape. A launch line is a comment of its own:
 *
 *   // cuk: block 16 16; grid ceil(n / 16) ceil(m / 16); smem 0
 *   // cuk: cuk_sum block 256; grid min(ceil(n / 256), 1024)
 *   // cuk: base cublas; reuse 16
 *
 * block and grid take one to three sizes (x, then y, then z; blanks or
 * commas between them), smem the bytes of dynamic shared memory. A line
 * that names an entry point at its start sets that one's launch; one that
 * does not, the first entry point after it in the file. `base` names the
 * mode the file's missing operations come from (tiled by default), `reuse`
 * the product's multiply-adds per float loaded, for `why` (0: unknown).
 *
 * Sizes are integer expressions over the entry point's int parameters (m n
 * k, rows cols, or n): + - * /, parentheses, min(a, b), max(a, b); / rounds
 * down as in C, ceil(a / b) rounds up. What a file leaves out is the
 * kind's default (user_entry.h). Host code only. */
#ifndef CUK_USER_LAUNCH_H
#define CUK_USER_LAUNCH_H

#include <stddef.h>

#include "kernels/user_entry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A message about a place in the user's file: 1-based line and column. */
typedef struct {
    int line, col;
    int error;      /* 1 error, 0 warning */
    char msg[320];
} user_diag;

/* A size, compiled: a little stack program. */
#define UL_CODE 24
typedef struct {
    struct {
        unsigned char op;
        long long v;
    } c[UL_CODE];
    int n;
} ul_expr;

typedef struct {
    int line;                 /* the launch line that set it; 0: the default */
    int nblock, ngrid;        /* sizes given; 0: the kind's default */
    ul_expr block[3], grid[3];
    int has_smem;
    ul_expr smem;
} ul_launch;

typedef struct {
    char base[32];            /* "": tiled */
    int base_line, base_col;  /* where it was named */
    int reuse;
    ul_launch launch[USER_ENTRIES];
} ul_file;

/* Read every launch line of src (len bytes); defined[e] is 1 for the
 * entry points the file defines. 0, or -1 with *d saying where and why. */
int ul_parse(const char *src, size_t len, const int *defined, ul_file *f, user_diag *d);

typedef struct {
    unsigned grid[3], block[3];
    size_t smem;
} ul_geometry;

/* The geometry of entry e for the values of its kind's int parameters:
 * 0, or -1 with why (a sentence naming the size and the shape) set. */
int ul_geometry_of(const ul_file *f, int e, const long long *vals, ul_geometry *g, char *why, size_t cap);

/* The launch line that would give entry e its geometry, as text
 * ("block 16 16; grid ceil(n / 16) ceil(m / 16)"), for `kernel`'s report. */
const char *ul_describe(const ul_file *f, int e, const char *src, size_t len, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
