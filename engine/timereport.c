/* timereport.c - the `time on` report (see timereport.h). */
#include "engine/timereport.h"

#include <stdio.h>

#include "base/fmt.h"
#include "base/out.h"
#include "engine/cost.h"
#include "engine/json.h"

/* "8.8 MB to the device in 1.84 ms (4.78 GB/s)" */
static void copy_text(char *buf, size_t cap, size_t bytes, double ms, const char *where)
{
    char b[32], t[32];
    fmt_bytes(b, sizeof b, (double)bytes);
    if (ms > 0)
        snprintf(buf, cap, "%s to the %s in %s (%.3g GB/s)", b, where, fmt_ms(t, sizeof t, ms), bytes / (ms * 1e6));
    else
        snprintf(buf, cap, "%s to the %s", b, where);
}

static void report_json(const timing_cmd *c)
{
    json_buf j;
    json_begin(&j);
    json_str(&j, "table", "time");
    json_str(&j, "stmt", c->text);
    json_str(&j, "mode", c->mode ? c->mode->name : NULL);
    json_num(&j, "kernel_ms", c->kernel_ms);
    json_num(&j, "wall_ms", c->wall_ms);
    json_num(&j, "setup_ms", c->setup_ms);
    json_num(&j, "h2d_bytes", (double)c->h2d);
    json_num(&j, "h2d_ms", c->h2d_ms);
    json_num(&j, "d2h_bytes", (double)c->d2h);
    json_num(&j, "d2h_ms", c->d2h_ms);
    json_open_arr(&j, "ops");
    for (int i = 0; i < c->nops; i++) {
        const timing_op *o = &c->ops[i];
        json_open_obj(&j, NULL);
        json_str(&j, "mode", o->mode->name);
        json_str(&j, "op", o->op);
        json_str(&j, "shapes", o->shapes);
        json_num(&j, "ms", o->ms);
        json_num(&j, "flops", o->flops);
        json_num(&j, "bytes", o->bytes);
        json_int(&j, "count", o->count);
        json_close(&j);
    }
    json_close(&j);
    json_print(&j);
}

void time_report(const timing_cmd *c, int json)
{
    char t[32], rate[80], in[96], out[96];
    if (json) {
        report_json(c);
        return;
    }
    for (int i = 0; i < c->nops; i++) {
        const timing_op *o = &c->ops[i];
        cost_rate_text(o, rate, sizeof rate);
        out_printf("  %-7s %-9s %-24s %10s  %s\n", o->mode->name, o->op, o->shapes, fmt_ms(t, sizeof t, o->ms), rate);
    }
    out_printf("  %s: kernels %s", c->mode->name, fmt_ms(t, sizeof t, c->kernel_ms));
    out_printf(", wall %s", fmt_ms(t, sizeof t, c->wall_ms));
    if (c->h2d || c->d2h) {
        copy_text(in, sizeof in, c->h2d, c->h2d_ms, "device");
        copy_text(out, sizeof out, c->d2h, c->d2h_ms, "host");
        out_printf("; copied %s, %s", in, out);
    }
    if (c->setup_ms > 0)
        out_printf("; one-time set-up %s left out (see info)", fmt_ms(t, sizeof t, c->setup_ms));
    out_printf("\n");
}
