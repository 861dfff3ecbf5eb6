/* roofline.c - `roofline`: the newest timed operation of each mode on a
 * log-log roofline chart (chart.h) that fits 80x24: the device's roofs
 * (memory, on chip) and the host's (all cores, one core), each point
 * numbered and listed with its rate and what bounds it. The chart is kept
 * for `save plot`. The arithmetic is cost.h's. */
#include "engine/measure/roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/fmt.h"
#include "base/out.h"
#include "engine/lang/commands.h"
#include "engine/session/cost.h"

#define ROOF_XMIN 0.01 /* FLOP/B */
#define ROOF_XMAX 1000.0
#define ROOF_DECADES 5 /* of FLOP/s, down from the top */
#define ROOF_MAX_POINTS 6

typedef struct {
    const timing_cmd *c;
    const timing_op *op;
    double ai, gflops;
    cost_report r;
} roof_point;

static struct {
    chart c;
    unsigned serial;
    int have;
} last;

const chart *roofline_last(unsigned *serial)
{
    *serial = last.serial;
    return last.have ? &last.c : NULL;
}

/* The newest record of each mode and operation that did arithmetic. */
static int roof_points(const cost_ceilings *ce, roof_point *p)
{
    int n = 0;
    for (int i = 0; timing_history(i) && n < ROOF_MAX_POINTS; i++) {
        const timing_cmd *c = timing_history(i);
        const timing_op *op = cost_main_op(c);
        int seen = 0;
        if (c->failed || !op || op->ms <= 0 || op->flops <= 0)
            continue;
        for (int k = 0; k < n; k++)
            seen |= p[k].op->mode == op->mode && !strcmp(p[k].op->op, op->op);
        if (seen || cost_explain(c, op, ce, &p[n].r) != 0)
            continue;
        p[n].c = c, p[n].op = op;
        p[n].ai = p[n].r.flops / (p[n].r.req_bytes > 0 ? p[n].r.req_bytes : 1);
        p[n].gflops = p[n].r.flops / (p[n].r.ms * 1e6);
        n++;
    }
    return n;
}

/* A roof min(peak, ai * bw) as a line from where it enters the chart, by
 * the ridge, to the right edge; tagged at its flat end. */
static void add_roof(chart *c, double peak, double bw, const char *tag)
{
    chart_series *s;
    if (peak <= 0 || bw <= 0 || !(s = chart_add(c, "")))
        return;
    double x0 = c->ymin / bw > ROOF_XMIN ? c->ymin / bw : ROOF_XMIN, ridge = peak / bw;
    s->colour = -1;
    s->marks = 0;
    snprintf(s->tag, sizeof s->tag, "%s", tag);
    if (ridge > x0) {
        s->x[s->n] = x0, s->y[s->n++] = x0 * bw;
        s->x[s->n] = ridge, s->y[s->n++] = peak;
    } else {
        s->x[s->n] = ROOF_XMIN, s->y[s->n++] = peak;
    }
    s->x[s->n] = ROOF_XMAX, s->y[s->n++] = peak;
}

/* The chart of points p over the roofs of ce. */
static void build(chart *c, const cost_ceilings *ce, const roof_point *p, int n)
{
    double top = ce->device ? ce->dev_gflops : ce->host_gflops;
    for (int i = 0; i < n; i++)
        top = p[i].gflops > top ? p[i].gflops : top;
    memset(c, 0, sizeof *c);
    snprintf(c->title, sizeof c->title, "roofline: FLOP/s against FLOP per byte the kernel asks for (both log)");
    snprintf(c->xname, sizeof c->xname, "FLOP/B");
    snprintf(c->yname, sizeof c->yname, "FLOP/s");
    c->xunit = CHART_RATIO;
    c->yunit = CHART_GFLOPS;
    c->xmin = ROOF_XMIN, c->xmax = ROOF_XMAX;
    c->ymax = pow(10, ceil(log10(top * 1.2)));
    c->ymin = c->ymax / pow(10, ROOF_DECADES);
    c->own_legend = 1;
    if (ce->device) {
        add_roof(c, ce->dev_gflops, ce->dev_onchip_gbs, "on chip");
        add_roof(c, ce->dev_gflops, ce->dev_gbs, "GPU");
    }
    add_roof(c, ce->host_gflops, ce->host_gbs, "host");
    add_roof(c, ce->host_core_gflops, ce->host_gbs, "1 core");
    for (int i = 0; i < n; i++) {
        char name[48];
        snprintf(name, sizeof name, "%s %s", p[i].op->mode->name, p[i].op->op);
        chart_series *s = chart_add(c, name);
        if (!s)
            break;
        s->colour = i;
        snprintf(s->symbol, sizeof s->symbol, "%d", i + 1);
        s->x[0] = p[i].ai, s->y[0] = p[i].gflops, s->n = 1;
    }
}

/* Under the chart: the roofs, then each point with its numbers. */
static void captions(const chart *c, const cost_ceilings *ce, const roof_point *p, int n, chart_style st)
{
    if (ce->device)
        out_printf("  GPU: %.32s: %.3g TB/s to %.3g TFLOP/s; on chip %.3g TB/s\n", ce->device_name, ce->dev_gbs / 1e3,
                   ce->dev_gflops / 1e3, ce->dev_onchip_gbs / 1e3);
    out_printf("  host: %.3g GB/s to %.4g GFLOP/s (1 core), %.4g (all %d)\n", ce->host_gbs, ce->host_core_gflops,
               ce->host_gflops, ce->host_cores);
    for (int i = 0; i < n; i++) {
        char rate[32], ai[16];
        const chart_series *s = &c->s[c->nseries - n + i];
        fmt_rate(rate, sizeof rate, p[i].gflops * 1e9, "FLOP");
        /* 5 columns, so that the longest row (a 12-column rate and a
         * 14-column bound) still ends at column 80 */
        snprintf(ai, sizeof ai, p[i].ai < 0.1 ? "%.2g" : "%.3g", p[i].ai);
        out_printf("  ");
        chart_put_mark(s, st);
        out_printf(" %-6.6s %-6.6s %-21.21s %5s FLOP/B %11s %s\n", p[i].op->mode->name, p[i].op->op, p[i].op->shapes,
                   ai, rate, cost_bound_name(p[i].r.bound));
    }
}

int cmd_roofline(cuk_session *s, const stmt *st)
{
    cost_ceilings ce;
    roof_point p[ROOF_MAX_POINTS];
    chart_style style = chart_style_of(s);
    cost_ceilings_get(&ce, 1);
    int n = roof_points(&ce, p);
    if (n == 0) {
        out_printf("roofline: nothing timed yet (run a product or a sum in some modes first)\n");
        return 0;
    }
    build(&last.c, &ce, p, n);
    last.have = 1;
    last.serial = res_serial();
    chart_print(&last.c, session_columns(s), CHART_ROWS - (n > 4 ? n - 4 : 0), style);
    captions(&last.c, &ce, p, n, style);
    return 0;
}
