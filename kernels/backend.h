/* backend.h - the modes: each is a backend that implements every operation
 * cuk has. The evaluator never switches on the mode; it looks the backend up
 * in the table (modes.c) and calls through its ops.
 *
 * Buffers are row-major float32 and live where the backend says (host memory
 * for cpu/blas, device memory for the GPU modes); the engine moves matrices
 * there before calling. Every op returns 0, or -1 with the error set
 * (base/error.h). Device ops are asynchronous on the engine's stream. */
#ifndef CUK_BACKEND_H
#define CUK_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/oplist.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OPLIST_ENUM_EW(id, name, usage, expr) CUK_EW_##id,
#define OPLIST_ENUM_UN(id, name, usage, expr) CUK_UN_##id,
#define OPLIST_ENUM_RED(id, name, usage) CUK_RED_##id,
typedef enum { CUK_EWISE_OPS(OPLIST_ENUM_EW) CUK_EW_COUNT } cuk_ewop;
typedef enum { CUK_UNARY_OPS(OPLIST_ENUM_UN) CUK_UN_COUNT } cuk_unop;
typedef enum { CUK_REDUCE_OPS(OPLIST_ENUM_RED) CUK_RED_COUNT } cuk_redop;
#undef OPLIST_ENUM_EW
#undef OPLIST_ENUM_UN
#undef OPLIST_ENUM_RED

typedef enum { CUK_RAND_UNIFORM, CUK_RAND_NORMAL } cuk_dist;

/* One operand of an elementwise op. With bcast set, element 0 stands for
 * every element: read from p[0] if p is set (a 1x1 matrix where the backend's
 * buffers live), else the host value v, passed by value to avoid a copy. */
typedef struct {
    const float *p;
    float v;
    int bcast;
} cuk_arg;

/* The operations, as function types: a backend file declares each entry
 * point it defines with its type (`cuk_matmul_fn tiled_matmul;`), so the
 * compiler checks it against the table's slot. */
/* c (m x n) = a (m x k) @ b (k x n) */
typedef int cuk_matmul_fn(float *c, const float *a, const float *b, int m, int n, int k);
/* out (cols x rows) = transpose of in (rows x cols) */
typedef int cuk_transpose_fn(float *out, const float *in, int rows, int cols);
typedef int cuk_ewise_fn(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n);
typedef int cuk_unary_fn(cuk_unop op, float *out, const float *in, size_t n);
/* out is one float where the backend's buffers live; one function per kind
 * of reduction (sum, mean, ...: the slots of cuk_ops.reduce) */
typedef int cuk_reduce_fn(float *out, const float *in, size_t n);
typedef int cuk_dot_fn(float *out, const float *x, const float *y, size_t n);
typedef int cuk_fill_fn(float *out, float v, size_t n);
typedef int cuk_eye_fn(float *out, int rows, int cols);
/* n values of the counter-based stream (seed, stream); element i is the same
 * number in every mode (kernels/philox.h). */
typedef int cuk_random_fn(cuk_dist dist, float *out, size_t n, uint64_t seed, uint64_t stream);
/* Copy a rows x cols block between row-major buffers with leading dimensions
 * sld and dld (in elements): slicing and concatenation. */
typedef int cuk_copy2d_fn(float *dst, size_t dld, const float *src, size_t sld, int rows, int cols);

/* What a backend implements. In the table a mode may leave an entry NULL:
 * it is then taken from its base mode when the table is resolved. Each
 * kind of reduction is an entry of its own, so a mode may give one kind
 * and take the others from its base. */
typedef struct {
    cuk_matmul_fn *matmul;
    cuk_transpose_fn *transpose;
    cuk_ewise_fn *ewise;
    cuk_unary_fn *unary;
    cuk_reduce_fn *reduce[CUK_RED_COUNT];
    cuk_dot_fn *dot;
    cuk_fill_fn *fill;
    cuk_eye_fn *eye;
    cuk_random_fn *random;
    cuk_copy2d_fn *copy2d;
} cuk_ops;

/* What a mode needs from the machine to be usable. */
typedef enum { NEEDS_HOST, NEEDS_BLAS, NEEDS_GPU } cuk_needs;

typedef struct cuk_backend {
    const char *name;
    const char *base;      /* the mode its empty entries come from, or NULL */
    cuk_needs needs;
    /* Roles, each held by one row: the mode speedups are measured against
     * (and the one a session starts in without a GPU); the library a CPU
     * user would pick, which bench and ladder also set every mode against;
     * the mode a session starts in where a GPU is usable. */
    int reference;
    int baseline;
    int start;
    int min_cc;            /* GPU compute capability needed, as 10*major+minor (80: TF32); 0: any */
    const char *min_cc_what; /* what that capability brings the mode ("TF32 tensor cores") */
    /* 1: its matrices are spread in row slabs over every GPU (spread
     * memory, kernels/gpu.h); one the GPUs cannot hold together lives in
     * host memory instead, and its ops take host pointers for it (out of
     * core). 0: one GPU's memory, or the host's. */
    int spread;
    /* A spread mode's host mode: what runs an op, the product excepted,
     * whose operands or result the GPUs could not hold (engine/values/ops.c);
     * the reference mode if it is unavailable. */
    const char *spill;
    /* not NULL: listed but not to be used yet, and why: its kernels are
     * still to come, or have not yet passed their tests on a GPU */
    const char *unwritten;
    const char *summary;   /* one line for `modes` and `help modes` */
    /* The product's access pattern, for `why` and `roofline`: how many
     * multiply-adds each float loaded from memory feeds (its CGMA ratio).
     * 1: two floats loaded per multiply-add (the triple loop, naive); 16:
     * 16x16 shared-memory tiles, which still read two floats per
     * multiply-add from shared memory; 0: a library's blocking, about the
     * minimum traffic. */
    int matmul_reuse;
    /* What this machine runs it with, after the summary in `modes` (blas:
     * the library and its threads); NULL: nothing to add. */
    const char *(*detail)(void);
    /* What a user should know before trusting its figures, as words that
     * follow "mode NAME": said once when the mode first runs, and in
     * bench's notes (blas: "runs on the reference BLAS ..., install ...");
     * NULL, or a NULL hook: nothing. */
    const char *(*caveat)(void);
    /* A library the mode loads when first wanted (cuBLAS): 1 once loaded,
     * else 0 and *why; NULL: none. mode_available calls it. */
    int (*load)(const char **why);
    /* One-time set-up of the mode's own that running each operation once
     * on small inputs does not reach (multi: every GPU's streams, kernels
     * and library handles, NCCL's communicators and connections), as
     * steps 0, 1, ... that the engine runs apart, outside the clock, each
     * named in what[] for `info` (engine/values/warm.c): 1 when step ran
     * (what[] empty if it had been done already), 0 when there is no such
     * step, -1 with the error set. NULL: none. */
    int (*setup)(int step, char *what, size_t cap);
    /* How the mode's last product was done, where it chooses per product
     * (ozaki: the slices, from its operands), for `why`, into buf; NULL
     * (the hook or what it returns): nothing to add. */
    const char *(*explain)(char *buf, size_t cap);
    cuk_ops ops;
} cuk_backend;

/* 1 if buffers are device pointers. */
static inline int mode_on_device(const cuk_backend *m) { return m->needs == NEEDS_GPU; }

/* How many modes there are, and the resolved row of mode i in ladder order
 * (every entry filled from its base chain); NULL past the end. */
int mode_count(void);
const cuk_backend *mode_get(int i);
/* By name; NULL if there is no such mode. */
const cuk_backend *mode_find(const char *name);
/* ": did you mean `tiled`?" when a mode's name is a likely typo of name
 * (base/suggest.h), else ""; into buf, returned. */
const char *mode_suggest(const char *name, char *buf, size_t cap);
/* The rows that hold the roles (modes.c marks them): the reference (cpu),
 * the baseline (blas); the mode a session starts in, with a usable GPU
 * (tiled) or without one (the reference). */
const cuk_backend *mode_reference(void);
const cuk_backend *mode_baseline(void);
const cuk_backend *mode_start(int gpu);
/* Fill every entry m leaves empty from b, each reduction's kind on its
 * own: what resolving the table does along each row's base chain. */
void mode_inherit(cuk_ops *m, const cuk_ops *b);
/* 1 if usable now; otherwise 0 and *why says why not. */
int mode_available(const cuk_backend *m, const char **why);
/* NULL if a GPU of compute capability cc_major.cc_minor runs mode m (its
 * min_cc); else the message mode_available gives on such a GPU, which
 * names both. Apart from the device so that it can be shown without one. */
const char *mode_cc_refusal(const cuk_backend *m, int cc_major, int cc_minor);

/* The mode whose op is running: the engine sets it around every backend
 * call, so a launch is recorded under the mode that asked for it, also when
 * the kernel is borrowed from another mode. */
void mode_enter(const cuk_backend *m);
const cuk_backend *mode_running(void);

/* Which BLAS mode blas was built against and its threads, for `modes` and
 * `info`; 0 and *why if none was linked. */
const char *blas_describe(void);
/* Mode blas's caveat: on the reference BLAS, what to install; else NULL. */
const char *blas_caveat(void);
int blas_linked(const char **why);

#ifdef __cplusplus
}
#endif

#endif
