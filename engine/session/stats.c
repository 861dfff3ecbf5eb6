/* stats.c - medians, spreads and honest ratios (see stats.h). */
#include "engine/session/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The p-quantile of sorted v by linear interpolation (NumPy's default). */
static double quantile(const double *v, int n, double p)
{
    double at = p * (n - 1);
    int lo = (int)at;
    if (lo >= n - 1)
        return v[n - 1];
    return v[lo] + (at - lo) * (v[lo + 1] - v[lo]);
}

void stats_summarise(double *v, int n, stat_summary *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0)
        return;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    out->runs = n;
    out->min = v[0];
    out->max = v[n - 1];
    out->med = quantile(v, n, 0.5);
    out->q1 = quantile(v, n, 0.25);
    out->q3 = quantile(v, n, 0.75);
}

double stats_spread_pct(const stat_summary *s)
{
    return s->runs > 0 && s->med > 0 ? 50.0 * (s->q3 - s->q1) / s->med : 0;
}

void stats_band(const stat_summary *s, double *lo, double *hi)
{
    *lo = s->q1 < s->med * (1 - STATS_FLOOR) ? s->q1 : s->med * (1 - STATS_FLOOR);
    *hi = s->q3 > s->med * (1 + STATS_FLOOR) ? s->q3 : s->med * (1 + STATS_FLOOR);
}

double stats_ratio(const stat_summary *ref, const stat_summary *x, int *noise)
{
    double rlo, rhi, xlo, xhi;
    *noise = 0;
    if (ref->runs == 0 || x->runs == 0 || ref->med <= 0 || x->med <= 0)
        return -1;
    stats_band(ref, &rlo, &rhi);
    stats_band(x, &xlo, &xhi);
    *noise = ref->runs < 3 || x->runs < 3 || (xlo <= rhi && rlo <= xhi);
    return ref->med / x->med;
}

const char *stats_fmt_ratio(char *buf, unsigned cap, double ratio, int noise, int estimated)
{
    const char *star = estimated ? "*" : "";
    if (ratio < 0)
        snprintf(buf, cap, "-");
    else if (noise)
        snprintf(buf, cap, "~1x (noise)%s", star);
    else if (ratio >= 100)
        snprintf(buf, cap, "%.0fx%s", ratio, star);
    else if (ratio >= 10)
        snprintf(buf, cap, "%.1fx%s", ratio, star);
    else
        snprintf(buf, cap, "%.2fx%s", ratio, star);
    return buf;
}
