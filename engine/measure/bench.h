/* bench.h - the tables of `bench` and `ladder`, printed from their results
 * (results.h) at a given width: the commands print them at the session's
 * width, tests at any width with made-up results and ceilings. */
#ifndef CUK_BENCH_H
#define CUK_BENCH_H

#include "engine/session/cost.h"
#include "engine/measure/results.h"

/* The bench table; before the session's first, the legend of its columns. */
void bench_print(const result_table *t, const cost_ceilings *ce, int width);
/* What the bench table's columns mean (`help bench` shows it too). */
void bench_legend(int width);
void ladder_print(const result_table *t, const int *sizes, int nsizes, int width);

#endif
