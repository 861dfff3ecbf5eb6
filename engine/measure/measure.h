/* measure.h - timing one expression in several modes, as bench and ladder
 * do. The modes take turns in rounds, so that drift and other load fall on
 * all of them alike; each gets a share of run time and at least a few runs
 * of two kinds:
 *   kernel runs     the operands already where the mode works: CUDA-event
 *                   (or host-clock) kernel time and the statement's wall time;
 *   end-to-end runs (GPU modes) fresh host copies of the operands, made
 *                   before the clock starts, uploaded, the expression, the
 *                   result downloaded: one host-clock region after a sync,
 *                   as the classic lecture programs timed. On the host the
 *                   kernel runs are end to end already.
 * The runs are kept out of the panel's history; one summary per mode is
 * filed instead (measure_file). */
#ifndef CUK_MEASURE_H
#define CUK_MEASURE_H

#include <stdint.h>

#include "engine/lang/ast.h"
#include "engine/measure/results.h"
#include "engine/session/session.h"
#include "engine/values/timing.h"
#include "kernels/variants.h"

#define MEASURE_MAX_MODES 32

/* The modes a bench or ladder runs: those named before the colon (repeats
 * allowed: `bench cpu cpu: A + B` times the same code twice), or every mode
 * in ladder order. How many, or -1 with the error set at the bad word. */
int measure_modes(const stmt *st, const cuk_backend **modes, const char *cmd);

/* A budget in ms: the environment variable name if set (tests shorten
 * budgets, slow machines lengthen them), else dflt. */
double measure_budget(const char *name, double dflt);

/* Random numbers while timing. The rand and randn calls of what bench,
 * timeit and ladder time draw from streams of their own (the session's
 * seed, streams from MEASURE_STREAMS up), the same ones at every run: every
 * run and every mode works on the same numbers, bench's float64 reference
 * is computed from them too, and the session's draws are left where they
 * were, however many runs the clock allowed. begin: s->draws moves to those
 * streams; rewind: back to their start, before each run; end: the
 * session's draws as they were. */
#define MEASURE_STREAMS (UINT64_C(1) << 63)

typedef struct {
    uint64_t session, base;
} measure_draws;

void measure_draws_begin(cuk_session *s, measure_draws *d);
void measure_draws_rewind(cuk_session *s, const measure_draws *d);
void measure_draws_end(cuk_session *s, const measure_draws *d);

typedef struct {
    double share_ms;   /* run time per mode: half kernel runs, half end to end */
    int min_runs;      /* at least this many of each kind */
    int max_runs;
    int keep_value;    /* keep each mode's first result (lane.value) */
} measure_plan;

typedef struct {
    const cuk_backend *be;
    const variant_switch *sw; /* bench variants: the switch the lane sets ... */
    int choice;               /* ... to this value (an index); NULL: none */
    double *k, *w, *e;       /* samples, ms: kernel, wall, end to end */
    int nk, nw, ne, cap_k, cap_w, cap_e;
    double spent_k, spent_e; /* run time so far */
    double run_ms, e2e_ms;   /* the latest of each, for sizing batches */
    double h2d_ms, d2h_ms;   /* summed over the end-to-end runs */
    double h2d, d2h;         /* bytes one end-to-end run copies */
    cuk_matrix *value;       /* the first result, if kept */
    timing_cmd rec;          /* the latest kernel run's record */
    unsigned slowed;         /* the kernel runs' slowed bits, together (timing.h) */
    int done;
} measure_lane;

/* Time e (text is what the records show) in every lane's mode. 0, or -1
 * with the error set (Ctrl-C included); s->mode is left as it was. Every
 * run starts from the random draws s has on entry, and s has them after. */
int measure_run(cuk_session *s, const char *text, size_t len, const ast *e, measure_lane *lanes, int n,
                const measure_plan *p);

/* How long one run of e in mode be will take, in ms, told before it runs:
 * the products of the mode whose products cuk predicts (eta.h: cpu's), on
 * shapes found from the operands in s's workspace without running; < 0
 * where it is not known (another mode, or a shape that needs values:
 * indexing, literals). What else e does is not counted: next to such a
 * product it is small. */
double measure_predict_ms(cuk_session *s, const ast *e, const cuk_backend *be);

/* The code mode be runs for e: a hash of the backend functions each of its
 * operations calls, 0 where that is not known. Two modes with the same
 * nonzero hash run literally the same code (blas borrows cpu's A + B), so a
 * difference between them can only be noise (results.h). */
unsigned long measure_code(const ast *e, const cuk_backend *be);

/* The lane's runs summarised into row (mode, stats, flops, bytes, copies). */
void measure_row(const measure_lane *l, result_row *row);

/* File the lane's summary in the history (the panel's one row per mode):
 * medians, the kernel range, and the speedup over cpu of the same bench. */
void measure_file(const measure_lane *l, const result_row *row, double speedup, int noise);

void measure_free(measure_lane *lanes, int n);

#endif
