/* timereport.c - the `time on` report (see timereport.h). */
#include "engine/lang/timereport.h"

#include <stdio.h>
#include <string.h>

#include "base/fmt.h"
#include "base/out.h"
#include "engine/session/cost.h"
#include "engine/session/json.h"
#include "engine/session/snapshot.h"

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

/* The GPUs every move of c went to ("GPU 0", "2 GPUs"), or NULL if they
 * went to different places. */
static const char *moved_to(char *buf, size_t cap, const timing_cmd *c)
{
    int to = 0;
    for (int i = 0; i < c->nplaces && i < TIMING_MAX_PLACES; i++) {
        const timing_place *p = &c->places[i];
        if (p->how != TIMING_PLACE_MOVED)
            continue;
        if (to && p->to != to)
            return NULL;
        to = p->to;
    }
    return to ? fmt_gpus(buf, cap, to) : NULL;
}

static void places_json(json_buf *j, const timing_cmd *c)
{
    static const char *const how[] = {"left", "moved", "no room"};
    json_open_arr(j, "placements");
    for (int i = 0; i < c->nplaces && i < TIMING_MAX_PLACES; i++) {
        const timing_place *p = &c->places[i];
        json_open_obj(j, NULL);
        json_int(j, "rows", p->rows);
        json_int(j, "cols", p->cols);
        json_int(j, "from_gpus", p->from);
        json_int(j, "to_gpus", p->to);
        json_str(j, "how", how[p->how]);
        json_num(j, "reads", p->reads);
        json_num(j, "read_before", p->read_before);
        json_num(j, "ms", p->ms);
        json_close(j);
    }
    json_close(j);
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
    char why[64];
    json_str(&j, "slowed", c->slowed ? snap_slow_words(c->slowed, why, sizeof why) : NULL);
    json_num(&j, "moved_bytes", (double)c->moved);
    json_num(&j, "moved_ms", c->moved_ms);
    json_num(&j, "pinned_bytes", (double)c->pinned);
    json_num(&j, "pinned_ms", c->pinned_ms);
    places_json(&j, c);
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

/* Display columns of a UTF-8 string ("µs" is two bytes, one column). */
static int text_width(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += (*s & 0xC0) != 0x80;
    return n;
}

/* Append a clause to the line being printed, after its separator (", ",
 * "; "); a clause that would pass width starts a new line, indented. */
static void clause(int *col, int width, const char *sep, const char *text)
{
    int w = text_width(text);
    if (*col + (int)strlen(sep) + w > width && *col > 4) {
        out_printf("%c\n    ", sep[0]);
        *col = 4;
    } else {
        out_printf("%s", sep);
        *col += (int)strlen(sep);
    }
    out_printf("%s", text);
    *col += w;
}

void time_report(const timing_cmd *c, int json, int width)
{
    char t[32], rate[80], line[160], in[96], out[96];
    if (json) {
        report_json(c);
        return;
    }
    int sw = 5; /* the shapes column: as wide as the widest */
    for (int i = 0; i < c->nops; i++)
        if ((int)strlen(c->ops[i].shapes) > sw)
            sw = (int)strlen(c->ops[i].shapes);
    for (int i = 0; i < c->nops; i++) { /* the rate below when it does not fit beside */
        const timing_op *o = &c->ops[i];
        cost_rate_text(o, rate, sizeof rate);
        snprintf(line, sizeof line, "  %-7s %-9s %-*s %10s", o->mode->name, o->op, sw, o->shapes,
                 fmt_ms(t, sizeof t, o->ms));
        if (!rate[0] || text_width(line) + 2 + text_width(rate) <= width)
            out_printf("%s  %s\n", line, rate);
        else
            out_printf("%s\n    %s\n", line, rate);
    }
    int col = 0;
    snprintf(line, sizeof line, "  %s: kernels %s", c->mode->name, fmt_ms(t, sizeof t, c->kernel_ms));
    clause(&col, width, "", line);
    snprintf(line, sizeof line, "wall %s", fmt_ms(t, sizeof t, c->wall_ms));
    clause(&col, width, ", ", line);
    if (c->h2d || c->d2h) {
        copy_text(in, sizeof in, c->h2d, c->h2d_ms, "device");
        copy_text(out, sizeof out, c->d2h, c->d2h_ms, "host");
        snprintf(line, sizeof line, "copied %s", in);
        clause(&col, width, "; ", line);
        clause(&col, width, ", ", out);
    }
    if (c->moved) {
        char where[32], to[48] = "between GPUs";
        if (moved_to(where, sizeof where, c))
            snprintf(to, sizeof to, "to %s", where);
        fmt_bytes(in, sizeof in, (double)c->moved);
        snprintf(line, sizeof line, "moved %s %s in %s (%.3g GB/s)", in, to, fmt_ms(t, sizeof t, c->moved_ms),
                 c->moved_ms > 0 ? c->moved / (c->moved_ms * 1e6) : 0);
        clause(&col, width, "; ", line);
    }
    int left = 0;
    for (int i = 0; i < c->nplaces && i < TIMING_MAX_PLACES; i++)
        left += c->places[i].how != TIMING_PLACE_MOVED;
    if (left) {
        snprintf(line, sizeof line, "%d operand%s read where %s (see why)", left, left == 1 ? "" : "s",
                 left == 1 ? "it lies" : "they lie");
        clause(&col, width, "; ", line);
    }
    if (c->pinned) {
        fmt_bytes(in, sizeof in, (double)c->pinned);
        snprintf(line, sizeof line, "page-locked %s in %s", in, fmt_ms(t, sizeof t, c->pinned_ms));
        clause(&col, width, "; ", line);
    }
    if (c->setup_ms > 0) {
        snprintf(line, sizeof line, "one-time set-up %s left out (see info)", fmt_ms(t, sizeof t, c->setup_ms));
        clause(&col, width, "; ", line);
    }
    if (c->slowed) {
        snprintf(line, sizeof line, "the GPU held its clocks down (%s): slower than it can run",
                 snap_slow_words(c->slowed, in, sizeof in));
        clause(&col, width, "; ", line);
    }
    out_printf("\n");
}
