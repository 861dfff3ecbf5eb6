/* stats.h - repeated measurements as a reader can trust them: the run count,
 * the median and the spread (min-max and the quartiles) of a set of
 * samples, and the one definition of a speedup: a ratio of two medians that
 * is called noise when the two samples' bands overlap. */
#ifndef CUK_STATS_H
#define CUK_STATS_H

typedef struct {
    int runs;                 /* 0: not measured */
    double med, min, max;     /* in the samples' unit (ms) */
    double q1, q3;            /* quartiles (linear interpolation) */
} stat_summary;

/* Summarise n samples (sorted in place). n == 0 gives runs == 0. */
void stats_summarise(double *v, int n, stat_summary *out);

/* The band a sample's typical run falls in: its interquartile range,
 * widened to at least STATS_FLOOR of the median either side (host clocks,
 * caches and other load move a few percent between runs, more than the
 * quartiles of a quiet moment show). The extremes are left out: one run
 * caught by an interrupt must not hide a real difference. */
#define STATS_FLOOR 0.05
void stats_band(const stat_summary *s, double *lo, double *hi);

/* Half the interquartile range as a percentage of the median: the "±" shown. */
double stats_spread_pct(const stat_summary *s);

/* How many times faster x is than ref (ref.med / x.med), and whether the
 * difference is inside the noise: the two bands overlap, or either sample
 * has fewer than 3 runs. < 0 if either is unmeasured. */
double stats_ratio(const stat_summary *ref, const stat_summary *x, int *noise);

/* A ratio as a table shows it: "467x", "0.21x", "~1x (noise)"; "-" when
 * unknown (ratio < 0). estimated adds a '*'. */
const char *stats_fmt_ratio(char *buf, unsigned cap, double ratio, int noise, int estimated);

#endif
