/* chart.h - charts in text for bench, ladder and roofline: log-scaled bars
 * with their spread, and x-y charts on log-log axes drawn in braille dots
 * (or ASCII), one symbol and, where the terminal allows it, one colour per
 * series, labelled axes and a legend, in the width given. The same chart
 * values feed the SVG of `save plot` (svg.h). */
#ifndef CUK_CHART_H
#define CUK_CHART_H

#include <stddef.h>

#include "engine/measure/results.h"
#include "engine/session/session.h"

#define CHART_MAX_SERIES 40
#define CHART_MAX_POINTS 16
#define CHART_ROWS 12 /* rows of an x-y chart's plot: it fits 80x24 with its axes and legend */

/* How a chart may draw: Unicode (braille, blocks) or ASCII; ANSI colours. */
typedef struct {
    int unicode, colour;
} chart_style;

/* The style for output that goes to a terminal (tty) or not, with the
 * panel up or not: ASCII under TERM=dumb; colour only on a terminal
 * without the panel, with TERM set and not dumb and NO_COLOR unset or
 * empty (no-color.org), and no `record` transcript running. */
chart_style chart_style_for(int tty, int panel);
/* The style for what session s prints now. */
chart_style chart_style_of(const cuk_session *s);

/* What a tick label reads in. */
typedef enum {
    CHART_MS,     /* a time given in ms: "100µs", "1ms", "10s" */
    CHART_COUNT,  /* a size: "100", "1000", "1e+05" */
    CHART_GFLOPS, /* a rate given in GFLOP/s: "100M", "1G", "10T" */
    CHART_RATIO   /* FLOP per byte: "0.01", "1", "100" */
} chart_unit;

/* A label for v in unit u ("100µs", "10G"): compact, for an axis. */
const char *chart_label(char *buf, size_t cap, double v, chart_unit u);

typedef struct {
    char name[48];                 /* in the legend; "" keeps it out */
    char tag[48];                  /* written beside the last point ("H200"); "" none */
    int colour;                    /* index into the palette: series of one mode share it */
    int marks;                     /* 1: a symbol at each point; 0: a line only (a roof) */
    int dashed;                    /* a dashed line (end to end) */
    char symbol[8];                /* the mark; "" the palette's for colour */
    int n;
    double x[CHART_MAX_POINTS], y[CHART_MAX_POINTS];
    double lo[CHART_MAX_POINTS], hi[CHART_MAX_POINTS]; /* the spread; lo <= 0: none */
    unsigned char est[CHART_MAX_POINTS];               /* an estimate, not a measurement */
} chart_series;

typedef struct {
    char title[200];
    char xname[40], yname[40];     /* the axes: "n", "kernel time" */
    chart_unit xunit, yunit;
    double xmin, xmax, ymin, ymax; /* 0: from the points */
    int own_legend;                /* the caller prints the legend (chart_print does not) */
    int nseries;
    chart_series s[CHART_MAX_SERIES];
} chart;

/* A new series of c (NULL when full), its colour the next in the palette. */
chart_series *chart_add(chart *c, const char *name);
/* The axes' ranges: given ones, else the points' padded a little. */
void chart_ranges(const chart *c, double *xmin, double *xmax, double *ymin, double *ymax);
/* Ticks on a log axis from lo to hi: decades, or 1-2-5 steps when fewer
 * than two decades fall inside; how many (at most cap). */
int chart_ticks(double lo, double hi, double *t, int cap);
/* v's place on a log axis from lo to hi: 0 at lo, 1 at hi (not clamped). */
double chart_log_frac(double v, double lo, double hi);

/* Print c as title, plot of `rows` rows, x axis and legend, no line wider
 * than width. */
void chart_print(const chart *c, int width, int rows, chart_style st);

/* Print series s's mark, in its colour where st allows. */
void chart_put_mark(const chart_series *s, chart_style st);

/* A ladder as a chart: each available mode's kernel times against the
 * size, with their quartiles; with_e2e: also each GPU mode's end-to-end
 * times, dashed, in its colour and with no legend entry of its own. */
void chart_ladder(const result_table *t, chart *c, int with_e2e);
/* A ladder's kernel times as a chart, printed in width. */
void chart_print_ladder(const result_table *t, int width, chart_style st);

/* ---- bars ---- */

/* The log scale of a set of bars: lo half the smallest positive value (so
 * that the shortest bar is still seen), hi the largest; 0 if none. */
void chart_bar_scale(const double *v, int n, double *lo, double *hi);
/* Cells of a bar of at most `most` for v on that scale: at least 1 for
 * any v > 0, 0 for none. */
int chart_bar_cells(double v, double lo, double hi, int most);
/* A bar `width` columns wide into buf: filled to frac (in eighths of a
 * column with Unicode), then a whisker to frac_hi (the spread) if that is
 * further; padded with blanks. The bytes written. */
size_t chart_bar(char *buf, size_t cap, int width, double frac, double frac_hi, chart_style st);

/* The bars of the last comparison as `present` draws them: for rows idx[0..n)
 * of t, each one's length in cells out of most, on one log scale of their
 * kernel times (e2e: end-to-end times); 0 where a row has no time. */
void chart_present_bars(const result_table *t, const int *idx, int n, int e2e, int most, int *cells);

#endif
