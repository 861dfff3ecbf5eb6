/* svg.h - `save plot "file.svg"`: the last bench, ladder or roofline as a
 * standalone SVG a slide can take (960x540): title, device, date, log axes
 * with their units, a legend, the spread as whiskers; every string the
 * user or the machine gave escaped. Written through the atomic save of
 * engine/files/fileio.h. */
#ifndef CUK_SVG_H
#define CUK_SVG_H

#include <stdio.h>

#include "engine/measure/chart.h"
#include "engine/measure/results.h"

/* What the subtitle says: where it ran and when. */
typedef struct {
    char device[300];
    char date[40];
} svg_meta;

/* This machine's device (or host) and the time now. */
void svg_meta_now(svg_meta *m);

/* A bench as bars (kernel medians on a log scale, the quartiles as
 * whiskers, end to end as an outline), or a chart (ladder, roofline) as
 * lines and marks, to fp. */
void svg_bench(FILE *fp, const result_table *t, const svg_meta *m);
void svg_chart(FILE *fp, const chart *c, const svg_meta *m);

/* save plot "path": the newest of the last bench or ladder and the last
 * roofline. 0, or -1 with the error set. */
int svg_save_last(const char *path);

#endif
