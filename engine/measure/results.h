/* results.h - a bench or ladder as values: one row per mode (bench) or per
 * mode and size (ladder), each with its runs, medians and spreads, or an
 * estimate; the figures derived from them (rates, speedups with the noise
 * rule, steps up the ladder); and the files `save bench` writes (.json,
 * .csv, .md) with the device, host, library versions and seed. */
#ifndef CUK_RESULTS_H
#define CUK_RESULTS_H

#include <stdint.h>

#include "engine/session/cost.h"
#include "engine/session/json.h"
#include "engine/session/stats.h"
#include "kernels/backend.h"

#define RESULT_MAX_ROWS 128

typedef struct {
    const cuk_backend *mode;
    char label[32];             /* bench variants: the switch, "tile=8"; else "" */
    char why[200];              /* unavailable: why; "" when it ran */
    int size;                   /* ladder: this cell's n; bench: 0 */
    stat_summary kernel;        /* ms; runs == 0: not measured */
    stat_summary wall;          /* the kernel runs' host clock */
    stat_summary e2e;           /* end to end: copies in, kernel, copy back */
    int estimated;              /* ladder: not run; est_* from the measured growth */
    double est_kernel_ms, est_e2e_ms;
    double flops, bytes;        /* per run (bytes: the minimum) */
    double h2d, d2h;            /* bytes an end-to-end run copied */
    double h2d_ms, d2h_ms;      /* and the time those copies took (medians) */
    double rel_err;             /* against t->err_ref; NaN unknown */
    unsigned long code;         /* measure_code: equal and nonzero, the same code */
    unsigned slowed;            /* why the GPU held its clocks down in some run (timing.h); 0 if not */
    char shapes[64];
} result_row;

typedef struct {
    int ladder;                 /* 0: bench, 1: ladder */
    char expr[160];             /* as typed */
    char var[32];               /* ladder: the size variable */
    char err_ref[16];           /* what rel_err is against: "float64" or a mode's name */
    const cuk_backend *err_mode; /* that mode (the reference), or NULL */
    uint64_t seed;
    int nrows;
    result_row rows[RESULT_MAX_ROWS];
} result_table;

/* The last bench or ladder (what `save bench` writes), and how many have
 * been set so far (what is newer than a roofline: `save plot`). */
void res_set_last(const result_table *t);
const result_table *res_last(void);
unsigned res_serial(void);

/* A row's kernel and end-to-end time: the median, or the estimate; < 0 if
 * neither. */
double res_kernel_ms(const result_row *r);
double res_e2e_ms(const result_row *r);
int res_available(const result_row *r);
/* What names the row: its variant ("tile=8") or its mode ("tiled"). */
const char *res_row_name(const result_row *r);
/* The row of mode m at size (0 for bench), or -1. */
int res_find(const result_table *t, const cuk_backend *m, int size);

/* A ratio of times: x < 0 when either side is missing; noise: the ranges
 * of the runs overlap (stats_ratio), so it reads "~1x (noise)"; est: an
 * estimate is involved. */
typedef struct {
    double x;
    int noise, est;
} res_ratio;

/* How many times faster row i is than mode ref at the same size: kernel
 * times, or end to end. The row of ref itself is 1x. */
res_ratio res_speedup(const result_table *t, int i, const cuk_backend *ref, int e2e);
/* Over the row above it (the previous rung of the same size). */
res_ratio res_step(const result_table *t, int i);
/* "467x", "~1x (noise)", "~12x*"; "-" when unknown. */
const char *res_fmt_ratio(char *buf, unsigned cap, res_ratio r);
/* Rate (GFLOP/s or GB/s) and % of the ceiling that matters; pct < 0 unknown. */
double res_rate(const result_table *t, int i, const cost_ceilings *ce, double *pct, int *is_compute);

/* Members describing the machine: device, host, library versions. */
void res_json_machine(json_buf *j, const cost_ceilings *ce);
/* The whole table as members of the open object j. */
void res_json(json_buf *j, const result_table *t, const cost_ceilings *ce);

/* Write t to path: .json, .csv or .md by the extension; atomically (a
 * temporary file renamed over path). 0, or -1 with the error set. */
int res_save(const result_table *t, const char *path);

#endif
