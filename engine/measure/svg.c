/* svg.c - the charts as SVG for a slide (see svg.h). One canvas: the title
 * and a subtitle (device, host, date) at the top, the plot on the left with
 * log axes and light grid lines, the legend on the right. Each series is a
 * group that names itself and its colour (data-series, data-colour), and
 * the plot's area is the rect with id "plot-area", so that a test can find
 * the plotted series in a rendering. */
#include "engine/measure/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/error.h"
#include "base/fmt.h"
#include "engine/files/savefile.h"
#include "engine/measure/roofline.h"
#include "engine/session/cost.h"
#include "engine/session/snapshot.h"

#define SVG_W 960
#define SVG_H 540
#define PLOT_L 110.0 /* the plot's edges */
#define PLOT_R 730.0
#define PLOT_T 84.0
#define PLOT_B 462.0
#define LEGEND_X 752.0
#define FONT "DejaVu Sans, Helvetica, Arial, sans-serif"

/* Series colours, in the order of the terminal's (blue, red, green, ...);
 * none of them a grey, which the roofs and axes use. */
static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#17becf", "#ff7f0e",
                                      "#8c564b", "#e377c2", "#bcbd22", "#393b79", "#0b6e4f", "#843c39"};
#define NCOLOURS ((int)(sizeof colours / sizeof colours[0]))
#define ROOF_COLOUR "#777777"

static const char *colour_of(int i) { return i < 0 ? ROOF_COLOUR : colours[i % NCOLOURS]; }

/* ---- text ---- */

/* Bytes of the valid UTF-8 character at p, or 0 if it is not one. */
static int utf8_len(const unsigned char *p)
{
    int n = p[0] < 0x80 ? 1 : p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
                          : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] > 0x9F) || (p[0] == 0xF0 && p[1] < 0x90) ||
        (p[0] == 0xF4 && p[1] > 0x8F)) /* overlong, a surrogate, past U+10FFFF */
        return 0;
    return n;
}

/* s as XML character data or an attribute's value: markup escaped, control
 * characters and bytes that are not UTF-8 replaced, so that no name, path
 * or expression can break the file. */
static void put_escaped(FILE *fp, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_len(p);
        if (n == 0 || (n == 1 && *p < 0x20)) {
            fputs(n == 0 ? "\xEF\xBF\xBD" : " ", fp);
            p++;
            continue;
        }
        switch (*p) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        default: fwrite(p, 1, (size_t)n, fp);
        }
        p += n;
    }
}

/* <text> at (x, y) with extra attributes, its content escaped. */
static void text_at(FILE *fp, double x, double y, const char *attrs, const char *s)
{
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
    put_escaped(fp, s);
    fputs("</text>\n", fp);
}

/* ---- the canvas ---- */

static void begin(FILE *fp, const char *title, const svg_meta *m)
{
    fprintf(fp,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"%s\">\n<title>",
            SVG_W, SVG_H, SVG_W, SVG_H, FONT);
    put_escaped(fp, title);
    fprintf(fp,
            "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
            "<clipPath id=\"plot\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath>\n",
            SVG_W, SVG_H, PLOT_L, PLOT_T, PLOT_R - PLOT_L, PLOT_B - PLOT_T);
    text_at(fp, 24, 34, "font-size=\"20\" font-weight=\"bold\" fill=\"#222222\"", title);
    char sub[400];
    snprintf(sub, sizeof sub, "%s · %s · cuk", m->device, m->date);
    text_at(fp, 24, 58, "font-size=\"13\" fill=\"#555555\"", sub);
    fprintf(fp, "<rect id=\"plot-area\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                "stroke=\"#bbbbbb\"/>\n",
            PLOT_L, PLOT_T, PLOT_R - PLOT_L, PLOT_B - PLOT_T);
}

static void end(FILE *fp) { fputs("</svg>\n", fp); }

/* A log axis: values lo..hi onto pixels p0..p1. */
typedef struct {
    double lo, hi, p0, p1;
} axis;

static double at(const axis *a, double v)
{
    double f = chart_log_frac(v, a->lo, a->hi);
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return a->p0 + f * (a->p1 - a->p0);
}

/* Grid lines and labels of a log axis; vertical: the y axis. Minor lines
 * at 2..9 of each decade where the axis spans one at least. */
static void grid(FILE *fp, const axis *a, int vertical, chart_unit u, const char *name)
{
    double t[32];
    int n = chart_ticks(a->lo, a->hi, t, 32);
    if (a->hi / a->lo >= 10)
        for (int d = (int)floor(log10(a->lo)); d <= (int)ceil(log10(a->hi)); d++)
            for (int k = 2; k <= 9; k++) {
                double v = k * pow(10, d);
                if (v <= a->lo || v >= a->hi)
                    continue;
                double p = at(a, v);
                if (vertical)
                    fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#f0f0f0\"/>\n",
                            PLOT_L, PLOT_R, p, p);
                else
                    fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#f0f0f0\"/>\n", p,
                            p, PLOT_T, PLOT_B);
            }
    for (int i = 0; i < n; i++) {
        char lab[32];
        double p = at(a, t[i]);
        chart_label(lab, sizeof lab, t[i], u);
        if (vertical) {
            fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", PLOT_L,
                    PLOT_R, p, p);
            text_at(fp, PLOT_L - 8, p + 4, "font-size=\"13\" text-anchor=\"end\" fill=\"#333333\"", lab);
        } else {
            fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", p, p,
                    PLOT_T, PLOT_B);
            text_at(fp, p, PLOT_B + 20, "font-size=\"13\" text-anchor=\"middle\" fill=\"#333333\"", lab);
        }
    }
    if (vertical) {
        char attrs[160];
        snprintf(attrs, sizeof attrs,
                 "font-size=\"14\" text-anchor=\"middle\" fill=\"#222222\" transform=\"rotate(-90 %.1f %.1f)\"", 30.0,
                 (PLOT_T + PLOT_B) / 2);
        text_at(fp, 30, (PLOT_T + PLOT_B) / 2, attrs, name);
    } else {
        text_at(fp, (PLOT_L + PLOT_R) / 2, PLOT_B + 46, "font-size=\"14\" text-anchor=\"middle\" fill=\"#222222\"",
                name);
    }
}

/* One line of the legend at row i: a swatch (bar 1: a bar; else a line,
 * and for bar 2 a mark on it) and the text. */
static void legend_row(FILE *fp, int i, const char *colour, int bar, const char *dash, const char *text)
{
    double y = PLOT_T + 10 + 24 * i;
    if (bar > 1) /* a line with its mark */
        fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\"/>\n", LEGEND_X + 11, y - 4, colour);
    if (bar == 1)
        fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"12\" fill=\"%s\"/>\n", LEGEND_X, y - 10,
                colour);
    else
        fprintf(fp,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"%s%s%s/>\n",
                LEGEND_X, LEGEND_X + 22, y - 4, y - 4, colour, dash ? " stroke-dasharray=\"" : "", dash ? dash : "",
                dash ? "\"" : "");
    text_at(fp, LEGEND_X + 30, y, "font-size=\"13\" fill=\"#222222\"", text);
}

/* ---- a bench: bars ---- */

/* The bench's rows that ran, and the time scale that holds them all. */
static int bench_rows(const result_table *t, int *idx, axis *a)
{
    double lo = INFINITY, hi = 0;
    int n = 0;
    for (int i = 0; i < t->nrows && n < RESULT_MAX_ROWS; i++) {
        const result_row *r = &t->rows[i];
        if (!res_available(r) || !r->kernel.runs)
            continue;
        idx[n++] = i;
        double v[4] = {r->kernel.q1, r->kernel.q3, r->kernel.med, r->e2e.runs ? r->e2e.med : 0};
        for (int k = 0; k < 4; k++)
            if (v[k] > 0)
                lo = v[k] < lo ? v[k] : lo, hi = v[k] > hi ? v[k] : hi;
    }
    if (!(hi > 0))
        lo = 1, hi = 10;
    a->lo = pow(10, floor(log10(lo / 1.5)));
    a->hi = pow(10, ceil(log10(hi * 1.2)));
    a->p0 = PLOT_L, a->p1 = PLOT_R;
    return n;
}

/* One mode's bar: the kernel median, the quartiles as a whisker, end to
 * end (device modes) as a dashed outline; its name and time beside it. */
static void bench_bar(FILE *fp, const result_row *r, int colour, const axis *a, double y, double h)
{
    const char *c = colour_of(colour);
    fputs("<g class=\"series\" data-series=\"", fp);
    put_escaped(fp, res_row_name(r));
    fprintf(fp, "\" data-colour=\"%s\">\n", c);
    if (r->e2e.runs && mode_on_device(r->mode))
        fprintf(fp,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"%s\" "
                "stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n",
                PLOT_L, y - h / 2 - 4, at(a, r->e2e.med) - PLOT_L, h + 8, c);
    fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", PLOT_L, y - h / 2,
            at(a, r->kernel.med) - PLOT_L, h, c);
    double x1 = at(a, r->kernel.q1), x3 = at(a, r->kernel.q3);
    fprintf(fp,
            "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\" stroke=\"#222222\" stroke-width=\"1.5\" "
            "fill=\"none\"/>\n",
            x1, y, x3, x1, y - h / 4, y + h / 4, x3, y - h / 4, y + h / 4);
    fputs("</g>\n", fp);
}

/* A bar's labels, outside the plot's clip: the mode left of the axis, the
 * time past the bar and its whisker. */
static void bench_labels(FILE *fp, const result_row *r, const axis *a, double y)
{
    char t[32];
    double x = at(a, r->kernel.q3) > at(a, r->kernel.med) ? at(a, r->kernel.q3) : at(a, r->kernel.med);
    text_at(fp, PLOT_L - 8, y + 5, "font-size=\"14\" text-anchor=\"end\" fill=\"#222222\"", res_row_name(r));
    text_at(fp, x + 6, y + 5, "font-size=\"12\" fill=\"#333333\"", fmt_ms(t, sizeof t, r->kernel.med));
}

/* The modes that did not run, on one line under the axis. */
static void not_run(FILE *fp, const result_table *t)
{
    char line[400] = "";
    size_t n = 0;
    for (int i = 0; i < t->nrows && n < sizeof line - 40; i++)
        if (!res_available(&t->rows[i]))
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", n ? ", " : "not run here: ",
                                  res_row_name(&t->rows[i]));
    for (int i = 0; n && i < t->nrows; i++)
        if (!res_available(&t->rows[i])) { /* the first one's reason */
            snprintf(line + n, sizeof line - n, " (%.120s)", t->rows[i].why);
            break;
        }
    if (n)
        text_at(fp, 24, SVG_H - 12, "font-size=\"12\" fill=\"#777777\"", line);
}

void svg_bench(FILE *fp, const result_table *t, const svg_meta *m)
{
    int idx[RESULT_MAX_ROWS];
    axis a;
    char title[240];
    int n = bench_rows(t, idx, &a);
    snprintf(title, sizeof title, "bench %.150s%s%.60s", t->expr, n ? "   " : "", n ? t->rows[idx[0]].shapes : "");
    begin(fp, title, m);
    grid(fp, &a, 0, CHART_MS, "time per run, median of the runs (log scale)");
    double step = n ? (PLOT_B - PLOT_T) / n : 0, h = step * 0.5 < 30 ? step * 0.5 : 30;
    fputs("<g clip-path=\"url(#plot)\">\n", fp);
    for (int k = 0; k < n; k++)
        bench_bar(fp, &t->rows[idx[k]], k, &a, PLOT_T + step * (k + 0.5), h);
    fputs("</g>\n", fp);
    for (int k = 0; k < n; k++)
        bench_labels(fp, &t->rows[idx[k]], &a, PLOT_T + step * (k + 0.5));
    legend_row(fp, 0, "#555555", 1, NULL, "kernel time");
    legend_row(fp, 1, "#222222", 0, NULL, "quartiles of the runs");
    legend_row(fp, 2, "#555555", 0, "5 3", "end to end (GPU modes):");
    text_at(fp, LEGEND_X + 30, PLOT_T + 10 + 24 * 2 + 16, "font-size=\"13\" fill=\"#222222\"", "copies included");
    not_run(fp, t);
    end(fp);
}

/* ---- a chart: lines and marks ---- */

static void series_lines(FILE *fp, const chart_series *s, const axis *ax, const axis *ay, const char *c)
{
    for (int k = 1; k < s->n; k++) {
        const char *dash = s->dashed ? "7 4" : s->est[k] || s->est[k - 1] ? "2 4" : NULL;
        fprintf(fp,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"%s%s%s/>\n",
                at(ax, s->x[k - 1]), at(ay, s->y[k - 1]), at(ax, s->x[k]), at(ay, s->y[k]), c,
                s->colour < 0 ? "2" : "2.5", dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
    }
    for (int k = 0; k < s->n; k++)
        if (s->lo[k] > 0 && s->hi[k] > s->lo[k]) { /* the spread: a whisker with caps */
            double x = at(ax, s->x[k]), y0 = at(ay, s->lo[k]), y1 = at(ay, s->hi[k]);
            fprintf(fp, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"%s\" fill=\"none\"/>\n",
                    x, y0, y1, x - 4, y0, x + 4, x - 4, y1, x + 4, c);
        }
}

static void series_marks(FILE *fp, const chart_series *s, const axis *ax, const axis *ay, const char *c)
{
    for (int k = 0; s->marks && k < s->n; k++) {
        double x = at(ax, s->x[k]), y = at(ay, s->y[k]);
        if (s->symbol[0]) { /* a numbered point (roofline) */
            fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"%s\"/>\n", x, y, c);
            text_at(fp, x, y + 4, "font-size=\"11\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#ffffff\"",
                    s->symbol);
        } else {
            fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"%s\" stroke-width=\"2\"/>\n", x,
                    y, s->est[k] ? "#ffffff" : c, c);
        }
    }
    if (s->tag[0] && s->n > 0)
        text_at(fp, at(ax, s->x[s->n - 1]) - 4, at(ay, s->y[s->n - 1]) - 6,
                "font-size=\"12\" text-anchor=\"end\" fill=\"#555555\"", s->tag);
}

/* The legend: each named series, then what dashes and hollow marks mean. */
static void chart_legend(FILE *fp, const chart *c)
{
    int row = 0, dashed = 0, est = 0;
    for (int i = 0; i < c->nseries && row < 14; i++) {
        const chart_series *s = &c->s[i];
        dashed |= s->dashed;
        for (int k = 0; k < s->n; k++)
            est |= s->est[k];
        if (!s->name[0])
            continue;
        char text[64];
        snprintf(text, sizeof text, "%s%s%s", s->symbol, s->symbol[0] ? " " : "", s->name);
        legend_row(fp, row++, colour_of(s->colour), s->marks && !s->symbol[0] ? 2 : 0, NULL, text);
    }
    if (dashed)
        legend_row(fp, row++, "#555555", 0, "7 4", "end to end");
    if (est)
        legend_row(fp, row++, "#555555", 0, "2 4", "estimated (hollow)");
}

void svg_chart(FILE *fp, const chart *c, const svg_meta *m)
{
    axis ax = {0, 0, PLOT_L, PLOT_R}, ay = {0, 0, PLOT_B, PLOT_T};
    chart_ranges(c, &ax.lo, &ax.hi, &ay.lo, &ay.hi);
    begin(fp, c->title, m);
    grid(fp, &ax, 0, c->xunit, c->xname);
    grid(fp, &ay, 1, c->yunit, c->yname);
    fputs("<g clip-path=\"url(#plot)\">\n", fp);
    for (int i = 0; i < c->nseries; i++) {
        const chart_series *s = &c->s[i];
        const char *col = colour_of(s->colour);
        if (s->colour < 0) {
            fputs("<g class=\"roof\">\n", fp);
        } else {
            fputs("<g class=\"series\" data-series=\"", fp);
            put_escaped(fp, s->name[0] ? s->name : "(end to end)");
            fprintf(fp, "\" data-colour=\"%s\">\n", col);
        }
        series_lines(fp, s, &ax, &ay, col);
        series_marks(fp, s, &ax, &ay, col);
        fputs("</g>\n", fp);
    }
    fputs("</g>\n", fp);
    chart_legend(fp, c);
    end(fp);
}

/* ---- save plot ---- */

void svg_meta_now(svg_meta *m)
{
    snap_device d;
    cost_ceilings ce;
    time_t now = time(NULL);
    struct tm tm;
    snap_device_get(&d);
    cost_ceilings_get(&ce, 0);
    snprintf(m->device, sizeof m->device, "%.120s · host %.120s", d.usable ? d.f.name : "no GPU", ce.host_name);
    if (!localtime_r(&now, &tm) || !strftime(m->date, sizeof m->date, "%Y-%m-%d %H:%M", &tm))
        snprintf(m->date, sizeof m->date, "date unknown");
}

/* What save plot writes: one of the three. */
typedef struct {
    const result_table *bench;
    const chart *c;
    svg_meta meta;
} plot_job;

static int write_plot(FILE *fp, const void *ud)
{
    const plot_job *j = ud;
    if (j->bench)
        svg_bench(fp, j->bench, &j->meta);
    else
        svg_chart(fp, j->c, &j->meta);
    return 0;
}

int svg_save_last(const char *path)
{
    unsigned serial;
    const chart *roof = roofline_last(&serial);
    const result_table *t = res_last();
    const char *dot = strrchr(path, '.');
    plot_job j = {NULL, NULL, {{0}, {0}}};
    chart *lad = NULL;
    if (!dot || strchr(dot, '/') || strcasecmp(dot, ".svg"))
        return cuk_err("save plot: writes SVG: name the file .svg ('%s')", path);
    if (!t && !roof)
        return cuk_err("save plot: nothing to plot yet: run a bench, a ladder or roofline first");
    if (roof && (!t || serial == res_serial()))
        j.c = roof;
    else if (!t->ladder)
        j.bench = t;
    else if (!(lad = calloc(1, sizeof *lad)))
        return cuk_err("save plot: out of host memory");
    if (lad) {
        chart_ladder(t, lad, 1);
        j.c = lad;
    }
    svg_meta_now(&j.meta);
    int rc = savefile_write("save plot", path, write_plot, &j);
    free(lad);
    return rc;
}
