/* panel.c - the live panel (see panel.h). ncurses owns the screen: a window
 * for the panel at the top, one for output below it, and the input line at
 * the bottom. Readline still does the editing, in callback mode: we hand it
 * the keys wgetch reads and draw its line buffer ourselves, so nothing it
 * does can scribble over the panel. Output reaches the screen only through
 * the REPL's front end, which sends it to the output window while the panel
 * is up; the window keeps the last lines, for redraws and for PgUp/PgDn. */
#define _XOPEN_SOURCE 700

#include "repl/panel.h"

#include "base/error.h"

#if defined(CUK_HAVE_NCURSES) && defined(CUK_HAVE_READLINE)
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <readline/readline.h>

#include "base/fmt.h"
#include "base/out.h"
#include "engine/session/cost.h"
#include "engine/session/snapshot.h"
#include "engine/session/stats.h"
#include "engine/values/timing.h"
#include "repl/draw.h"
#include "repl/present.h"

#define MIN_LINES 14
#define MIN_COLS 60
#define KEEP_LINES 500  /* output lines kept for redraws and PgUp */

typedef struct {
    char *text;
    int error;               /* written to the error channel */
} kept_line;

static struct {
    int active;
    cuk_session *s;
    SCREEN *screen;
    WINDOW *top, *out, *in;
    int top_h;
    int present;             /* a present_how: the top shows the last bench in large type */
    draw_look look;
    int keys[64];            /* typed, not yet given to readline */
    int nkeys, kpos;
    double started_ms;       /* > 0 while a command runs */
    int live_row, live_rows; /* where the GPUs' state is, redrawn at each tick */
    char running[80];
    kept_line lines[KEEP_LINES];
    int nlines, first;
    int scroll;              /* kept lines below the view (PgUp); 0: at the bottom */
    char partial[1024];      /* the output line not yet ended */
    size_t npartial;
    int partial_error;
} P;

int panel_available(const char **why)
{
    const char *term = getenv("TERM");
    if (!term || !*term || !strcmp(term, "dumb")) {
        *why = "the terminal is dumb (TERM)";
        return 0;
    }
    if (!isatty(0) || !isatty(1)) {
        *why = "input and output must be a terminal";
        return 0;
    }
    return 1;
}

int panel_active(void) { return P.active; }

/* ---- the output window and its memory ---- */

static const kept_line *kept(int i) { return &P.lines[(P.first + i) % KEEP_LINES]; }

static void keep_line(const char *s, size_t n, int error)
{
    char *copy = malloc(n + 1);
    if (!copy)
        return;
    memcpy(copy, s, n);
    copy[n] = '\0';
    int slot = (P.first + P.nlines) % KEEP_LINES;
    if (P.nlines == KEEP_LINES) {
        free(P.lines[P.first].text);
        P.first = (P.first + 1) % KEEP_LINES;
    } else {
        P.nlines++;
    }
    P.lines[slot].text = copy;
    P.lines[slot].error = error;
}

/* Rows a kept line takes in a window w columns wide: one of exactly w
 * columns takes the row below too (the cursor wraps before the newline). */
static int rows_of(const char *s, int w) { return draw_width(s, strlen(s)) / w + 1; }

/* The first of the kept lines before `end` that together fill at most
 * `rows` rows. */
static int fill_from(int end, int rows, int w)
{
    int i = end;
    while (i > 0 && (rows -= rows_of(kept(i - 1)->text, w)) >= 0)
        i--;
    return i;
}

/* How far PgUp can go: until the oldest kept line is at the top. */
static int max_scroll(int rows, int w)
{
    int k = 0;
    while (k < P.nlines && (rows -= rows_of(kept(k)->text, w)) >= 0)
        k++;
    return P.nlines - k;
}

/* The kept lines that end `scroll` lines above the newest, with a marker
 * on the last row while scrolled back; at the bottom, the line being
 * written, where the next output continues. */
static void redraw_output(void)
{
    int h = getmaxy(P.out), w = getmaxx(P.out), most = max_scroll(h - 1, w), row = 0;
    if (P.scroll > most) /* the window grew */
        P.scroll = most;
    int end = P.nlines - P.scroll;
    werase(P.out);
    for (int i = fill_from(end, h - 1, w); i < end; i++) {
        const kept_line *l = kept(i);
        wmove(P.out, row, 0);
        wattron(P.out, l->error ? P.look.error : A_NORMAL);
        waddstr(P.out, l->text);
        wattroff(P.out, P.look.error);
        row += rows_of(l->text, w);
    }
    if (P.scroll) {
        draw_textf(P.out, h - 1, 0, P.look.mark, "-- %d line%s below, PgDn --", P.scroll, P.scroll == 1 ? "" : "s");
    } else {
        wmove(P.out, row, 0);
        wattron(P.out, P.partial_error ? P.look.error : A_NORMAL);
        waddnstr(P.out, P.partial, (int)P.npartial);
        wattroff(P.out, P.look.error);
    }
    wnoutrefresh(P.out);
}

static void draw_input(void);

/* PgUp (dir 1) or PgDn (-1): a page less one line, so that one line of the
 * page left stays in view. */
static void scroll_page(int dir)
{
    int h = getmaxy(P.out), w = getmaxx(P.out), page = h > 3 ? h - 2 : 1;
    int to = P.scroll + dir * page, most = max_scroll(h - 1, w);
    to = to > most ? most : to < 0 ? 0 : to;
    if (to == P.scroll)
        return;
    P.scroll = to;
    redraw_output();
    doupdate();
    draw_input(); /* the cursor back on the input line */
}

static void scroll_to_bottom(void)
{
    if (P.scroll) {
        P.scroll = 0;
        redraw_output();
    }
}

void panel_write(out_channel ch, const char *s, size_t n)
{
    int error = ch == OUT_ERROR;
    scroll_to_bottom(); /* new output is shown where it is written */
    wattron(P.out, error ? P.look.error : A_NORMAL);
    waddnstr(P.out, s, (int)n);
    wattroff(P.out, P.look.error);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n' || P.npartial == sizeof P.partial - 1) {
            keep_line(P.partial, P.npartial, P.partial_error);
            P.npartial = 0;
            P.partial_error = 0;
        }
        if (s[i] != '\n') {
            P.partial[P.npartial++] = s[i];
            P.partial_error |= error;
        }
    }
}

void panel_flush(void) { wrefresh(P.out); }

/* One less than the window: a line as wide as the window would wrap before
 * its newline and leave a blank row under it. */
int panel_columns(void) { return P.active ? getmaxx(P.out) - 1 : 0; }

/* ---- the panel ---- */

/* " — 42%, about 4 s left" while long work reports its progress, else "". */
static const char *progress_note(char *buf, size_t cap)
{
    double left_ms, f = cuk_progress_fraction(&left_ms);
    buf[0] = '\0';
    if (f >= 0 && left_ms >= 0)
        snprintf(buf, cap, " — %.0f%%, about %.0f %s left", 100 * f, left_ms < 120e3 ? left_ms / 1e3 : left_ms / 60e3,
                 left_ms < 120e3 ? "s" : "min");
    else if (f >= 0)
        snprintf(buf, cap, " — %.0f%%", 100 * f);
    return buf;
}

/* The text of the title that must stay whole, the rest (the running
 * command) may be cut: " cuk | mode cpu | <device> | <peak> | <state>".
 * The device's peak goes first when it is narrow, then its name. */
static void draw_title(int w)
{
    char peak[48] = "", state[200], note[48];
    snap_device d;
    snap_device_get(&d);
    const char *dev = d.usable ? d.f.name : "no GPU";
    if (d.usable)
        snprintf(peak, sizeof peak, " | FP32 peak %.1f TFLOP/s", d.f.peak_gflops / 1e3);
    int keep = 5; /* "ready" */
    if (P.started_ms > 0) { /* the progress before the command's text, which may be cut */
        int n = snprintf(state, sizeof state, "running %.1f s%s: ", (timing_now_ms() - P.started_ms) / 1e3,
                         progress_note(note, sizeof note));
        keep = n + 12; /* and the start of the command */
        snprintf(state + n, sizeof state - (size_t)n, "%s", P.running);
    } else {
        snprintf(state, sizeof state, "ready");
    }
    const char *mode = session_mode_name(P.s);
    int fixed = (int)strlen(" cuk | mode ") + draw_width(mode, strlen(mode)) + 3 + keep;
    if (fixed + draw_width(dev, strlen(dev)) + 3 + (int)strlen(peak) > w)
        peak[0] = '\0';
    int show_dev = fixed + draw_width(dev, strlen(dev)) + 3 <= w;
    wattron(P.top, P.look.title);
    mvwhline(P.top, 0, 0, ' ', w);
    wattroff(P.top, P.look.title);
    int x = draw_text(P.top, 0, 0, P.look.title, " cuk | mode ");
    x = draw_text(P.top, 0, x, P.look.title_mode, mode);
    if (show_dev)
        x = draw_textf(P.top, 0, x, P.look.title, " | %s%s", dev, peak);
    draw_textf(P.top, 0, x, P.look.title, " | %s", state);
}

/* One memory bar's figures: a GPU's, or the device's. */
typedef struct {
    double in_use, held, free, total; /* matrices, + the pool's cached blocks, free, total */
} bar_part;

/* Fill bar (n columns) with parts side by side, '|' between them: each
 * part '#' for matrices, '=' for the pool's cached blocks, '.' for memory
 * used otherwise, ' ' for free memory. */
static void fill_bar(char *bar, int n, const bar_part *parts, int nparts)
{
    int each = (n - (nparts - 1)) / nparts, x = 0;
    each = each < 1 ? 1 : each;
    for (int p = 0; p < nparts; p++) {
        const bar_part *b = &parts[p];
        double used = b->in_use / b->total, held = b->held / b->total, busy = 1.0 - b->free / b->total;
        if (p)
            bar[x++] = '|';
        for (int i = 0; i < each; i++) {
            double f = (i + 0.5) / each;
            bar[x++] = f < used ? '#' : f < held ? '=' : f < busy ? '.' : ' ';
        }
    }
    bar[x] = '\0';
}

/* One line of memory bars: label [####====....      ] matrices, pool,
 * free of total | host, the figures summed over its parts; three wordings
 * of the tail, each shorter than the one before. */
typedef struct {
    char label[24];
    char tail[3][200];
    const bar_part *parts;
    int nparts;
} bar_line;

/* host: NULL leaves it out. */
static void bar_line_set(bar_line *l, const char *label, const bar_part *parts, int nparts, const char *host)
{
    char a[32], b[32], c[32], t[32], hs[48] = "";
    bar_part sum = {0, 0, 0, 0};
    for (int p = 0; p < nparts; p++) {
        sum.in_use += parts[p].in_use;
        sum.held += parts[p].held;
        sum.free += parts[p].free;
        sum.total += parts[p].total;
    }
    fmt_bytes(a, sizeof a, sum.in_use), fmt_bytes(b, sizeof b, sum.held);
    fmt_bytes(c, sizeof c, sum.free), fmt_bytes(t, sizeof t, sum.total);
    if (host)
        snprintf(hs, sizeof hs, " | host %s", host);
    snprintf(l->label, sizeof l->label, "%s", label);
    snprintf(l->tail[0], sizeof l->tail[0], "] matrices %s, pool %s, free %s of %s%s", a, b, c, t, hs);
    snprintf(l->tail[1], sizeof l->tail[1], "] used %s, pool %s, free %s/%s%s", a, b, c, t, hs);
    snprintf(l->tail[2], sizeof l->tail[2], "] used %s, pool %s, free %s/%s", a, b, c, t);
    l->parts = parts;
    l->nparts = nparts;
}

/* Columns left for line l's bar in wording k. */
static int bar_room(const bar_line *l, int k, int w)
{
    return w - draw_width(l->label, strlen(l->label)) - 3 - draw_width(l->tail[k], strlen(l->tail[k]));
}

/* The lines from row on, in one wording and one bar width, so that their
 * bars line up: the bar narrows, then the words shorten, then the host
 * goes. A bar wants 10 columns and 2 a part (a '|' between parts), is
 * at most 20 (40 on a wide screen) unless that is less, and never less
 * than a column a part. */
static void draw_bars(int row, int w, const bar_line *lines, int nlines)
{
    char bar[64];
    int nparts = lines[0].nparts, want = 3 * nparts - 1 > 10 ? 3 * nparts - 1 : 10, least = 2 * nparts - 1;
    int k = 0, n = 0, most = w >= 100 ? 40 : 20;
    for (; k < 3; k++) { /* the first wording that leaves every bar `want` wide */
        n = bar_room(&lines[0], k, w);
        for (int i = 1; i < nlines; i++)
            n = bar_room(&lines[i], k, w) < n ? bar_room(&lines[i], k, w) : n;
        if (n >= want || k == 2)
            break;
    }
    most = most > want ? most : want;
    n = n > most ? most : n < least ? least : n;
    for (int i = 0; i < nlines; i++) {
        fill_bar(bar, n, lines[i].parts, lines[i].nparts);
        draw_textf(P.top, row + i, 0, A_NORMAL, " %s [%s%s", lines[i].label, bar, lines[i].tail[k]);
    }
}

/* The memory lines: one bar for device 0 as the single-GPU modes see it;
 * once mode multi holds spread memory, a bar per GPU (GPU 0's counting
 * both pools), or, when the panel has fewer than `room` rows for them, one
 * bar cut into a part per GPU. Every GPU only then: reading another GPU's
 * memory opens a CUDA context on it, which a session of single-GPU modes
 * should not pay for on a shared machine (snapshot.h). The rows drawn. */
static int draw_memory(int row, int w, int room)
{
    char h[32], label[24];
    snap_memory m;
    snap_gpus gs;
    bar_part parts[SNAP_MAX_GPUS];
    bar_line lines[SNAP_MAX_GPUS];
    snap_memory_get(&m);
    fmt_bytes(h, sizeof h, (double)m.host_matrices);
    if (!m.device) {
        char tail[3][200];
        snprintf(tail[0], sizeof tail[0], " memory: host %s held by matrices | no device (%s)", h, m.why);
        snprintf(tail[1], sizeof tail[1], " memory: host %s held by matrices | no device", h);
        snprintf(tail[2], sizeof tail[2], " memory: host %s held by matrices", h);
        int k = 0;
        while (k < 2 && draw_width(tail[k], strlen(tail[k])) > w)
            k++;
        draw_text(P.top, row, 0, A_NORMAL, tail[k]);
        return 1;
    }
    gs.n = 0;
    if (m.spread_held)
        snap_gpus_get(&gs);
    if (gs.n == 0) {
        parts[0] = (bar_part){(double)m.pool_in_use, (double)m.pool_held, (double)m.dev_free, (double)m.dev_total};
        bar_line_set(&lines[0], "device", parts, 1, h);
        draw_bars(row, w, lines, 1);
        return 1;
    }
    for (int g = 0; g < gs.n; g++)
        parts[g] = (bar_part){(double)gs.gpu[g].matrices, (double)gs.gpu[g].pool_held, (double)gs.gpu[g].free,
                              (double)gs.gpu[g].total};
    if (gs.n > room) {
        snprintf(label, sizeof label, "GPUs 0-%d", gs.n - 1);
        bar_line_set(&lines[0], label, parts, gs.n, h);
        draw_bars(row, w, lines, 1);
        return 1;
    }
    for (int g = 0; g < gs.n; g++) {
        snprintf(label, sizeof label, "GPU %d", g);
        bar_line_set(&lines[g], label, &parts[g], 1, g == 0 ? h : NULL);
    }
    draw_bars(row, w, lines, gs.n);
    return gs.n;
}

/* ---- the GPUs' state now ---- */

/* GPU g's state in wording k, each shorter than the one before. */
static void live_text(char *buf, size_t cap, int g, const snap_live_gpu *x, int k)
{
    char why[64], down[96] = "";
    snap_slow_words(x->slow, why, sizeof why);
    if (x->slow)
        snprintf(down, sizeof down, k == 0 ? " | clocks held down: %s" : k == 1 ? " | down: %s" : " !", why);
    if (k == 0)
        snprintf(buf, cap, " GPU %d now: %u%% busy, memory %u%% | SM %u of %u MHz, memory %u MHz | %.0f W of %.0f W "
                 "| %u C%s", g, x->util_gpu, x->util_mem, x->sm_mhz, x->sm_max_mhz, x->mem_mhz, x->power_w, x->limit_w,
                 x->temp_c, down);
    else if (k == 1)
        snprintf(buf, cap, " GPU %d: %u%% busy | SM %u/%u MHz | %.0f/%.0f W | %u C%s", g, x->util_gpu, x->sm_mhz,
                 x->sm_max_mhz, x->power_w, x->limit_w, x->temp_c, down);
    else
        snprintf(buf, cap, " GPU %d %u%% %u MHz %.0f W %u C%s", g, x->util_gpu, x->sm_mhz, x->power_w, x->temp_c, down);
}

/* GPU g's line at row, in the widest wording that fits. */
static void live_line(int row, int w, int g, const snap_live_gpu *x)
{
    char text[240];
    int k = 0;
    do
        live_text(text, sizeof text, g, x, k);
    while (++k < 3 && draw_width(text, strlen(text)) > w);
    draw_text(P.top, row, 0, x->slow & ~SNAP_SLOW_SETTING ? P.look.error : A_NORMAL, text);
}

static int live_known(const snap_live *l)
{
    int n = 0;
    for (int g = 0; g < l->n; g++)
        n += l->gpu[g].known;
    return n;
}

/* The GPUs' state from row on in at most `room` rows: a line per GPU, or
 * all of them on one line when they do not fit; nothing when NVML cannot
 * say (`info` says why). The rows drawn. */
static int draw_live(int row, int w, int room)
{
    snap_live l;
    char text[400], part[240];
    snap_live_get(&l);
    int n = live_known(&l), len = 0;
    if (n == 0 || room <= 0)
        return 0;
    for (int r = row; r < row + (n <= room ? n : 1); r++)
        mvwhline(P.top, r, 0, ' ', w);
    if (n <= room) {
        for (int g = 0, r = row; g < l.n; g++)
            if (l.gpu[g].known)
                live_line(r++, w, g, &l.gpu[g]);
        return n;
    }
    for (int g = 0; g < l.n && len < (int)sizeof text - 1; g++)
        if (l.gpu[g].known) {
            live_text(part, sizeof part, g, &l.gpu[g], 2);
            len += snprintf(text + len, sizeof text - (size_t)len, "%s%s", len ? " |" : "", part);
        }
    draw_text(P.top, row, 0, A_NORMAL, text);
    return 1;
}

/* The last commands' columns at a width. The text shrinks first, down to
 * TEXT_MIN; then the rate loses its words ("61.1 GFLOP/s (46% of peak)"
 * becomes "61.1 GFLOP/s 46%"); then whole columns go, least needed first
 * (the kernel time, which the rate restates; the speedup; the mode), so
 * that no number is ever cut. */
#define TEXT_MIN 12
#define RATE_FULL 30
#define RATE_SHORT 17

typedef struct {
    int text, rate, mode;              /* widths (mode: 0, not shown) */
    int kernel, speedup, copied;       /* shown */
} cmd_columns;

static int cmd_fixed(const cmd_columns *c)
{
    return 2 + (c->mode ? c->mode + 1 : 0) + (c->kernel ? 11 : 0) + 2 + c->rate + (c->speedup ? 8 : 0) +
           (c->copied ? 10 : 0);
}

/* The columns at width w, the modes' names mode_w wide. */
static cmd_columns cmd_fit(int w, int mode_w)
{
    cmd_columns c = {0, RATE_FULL, mode_w, 1, 1, 1};
    int *drop[] = {&c.kernel, &c.speedup, &c.mode};
    if (w - cmd_fixed(&c) < TEXT_MIN)
        c.rate = RATE_SHORT;
    for (int i = 0; i < 3 && w - cmd_fixed(&c) < TEXT_MIN; i++)
        *drop[i] = 0;
    c.text = w - cmd_fixed(&c);
    if (c.text < 4)
        c.text = 4;
    return c;
}

/* One row of the last commands: the cells given, in the columns of c. */
static void draw_cmd_row(int row, const cmd_columns *c, const char *text, const char *mode, const char *kernel,
                         const char *rate, attr_t rate_a, const char *up, attr_t up_a, const char *moved, attr_t a)
{
    int x = draw_cell(P.top, row, 2, c->text, 0, a, text);
    if (c->mode)
        x = draw_cell(P.top, row, x + 1, c->mode, 0, a ? a : P.look.mode, mode);
    if (c->kernel)
        x = draw_cell(P.top, row, x + 1, 10, 1, a, kernel);
    x = draw_cell(P.top, row, x + 2, c->rate, 0, a | rate_a, rate);
    if (c->speedup)
        x = draw_cell(P.top, row, x + 1, 7, 1, a | up_a, up);
    if (c->copied)
        draw_cell(P.top, row, x + 1, 9, 1, a, moved);
}

/* "61.1 GFLOP/s (46% of peak)" when it fits the column, else "61.1 GFLOP/s 46%". */
static void rate_text(const timing_op *op, int width, char *buf, size_t cap)
{
    cost_ceilings ce;
    char r[32];
    double rate;
    int compute;
    cost_rate_text(op, buf, cap);
    if (draw_width(buf, strlen(buf)) <= width || op->ms <= 0 || cost_too_short(op->ms))
        return;
    cost_ceilings_get(&ce, 0);
    double pct = cost_percent(&ce, op->mode, op->flops, op->bytes, op->ms, &rate, &compute);
    fmt_rate(r, sizeof r, rate * 1e9, compute ? "FLOP" : "B");
    if (pct >= 0)
        snprintf(buf, cap, "%s %.*f%%", r, pct < 10 ? 1 : 0, pct);
    else
        snprintf(buf, cap, "%s", r);
}

/* One row per command: a bench or timeit files one summary per mode (its
 * median, with the speedup over cpu measured in the same bench); a command
 * that failed says "error", one cut short by Ctrl-C "stopped". */
static void draw_command(int row, const cmd_columns *cols, const timing_cmd *c)
{
    char k[32], rate[80] = "", up[24] = "", moved[32], mode[48];
    const timing_op *op = c->failed ? NULL : cost_main_op(c);
    if (c->failed)
        snprintf(rate, sizeof rate, "%s", c->failed == TIMING_STOPPED ? "stopped" : "error");
    if (op)
        rate_text(op, cols->rate, rate, sizeof rate);
    if (c->speedup > 0)
        stats_fmt_ratio(up, sizeof up, c->speedup, c->speedup_noise, 0);
    if (c->speedup_noise)
        snprintf(up, sizeof up, "~1x");
    /* * a median of runs; ! the GPU held its clocks down meanwhile */
    snprintf(mode, sizeof mode, "%s%s%s", c->mode ? c->mode->name : "", c->runs > 1 ? "*" : "", c->slowed ? "!" : "");
    fmt_bytes(moved, sizeof moved, (double)(c->h2d + c->d2h + c->moved)); /* across GPUs too */
    fmt_ms(k, sizeof k, c->nops ? c->kernel_ms : -1);
    draw_cmd_row(row, cols, c->text, mode, k, rate, c->failed ? P.look.error : A_NORMAL, up,
                 c->speedup > 1 && !c->speedup_noise ? P.look.good : A_NORMAL, moved, A_NORMAL);
}

/* The heading of the last commands: the longest of its wordings that fits. */
static void draw_cmd_heading(int row, const cmd_columns *c)
{
    static const char *const text[] = {"last commands (* median of runs)", "last commands (* median)", "last commands",
                                       "command"};
    int k = 0;
    while (k < 3 && (int)strlen(text[k]) > c->text)
        k++;
    draw_cmd_row(row, c, text[k], "mode", "kernel", c->rate == RATE_FULL ? "rate" : "rate, % peak/bw", A_NORMAL,
                 "vs cpu", A_NORMAL, "copied", P.look.head);
}

/* name shape size where, as many as fit in `rows` rows */
static void draw_workspace(int row, int rows, int w)
{
    int x, r = 0;
    char item[128], sz[32], where[48];
    draw_text(P.top, row, 0, A_NORMAL, " workspace:");
    x = 12;
    for (int i = 0; i < P.s->ws.n && r < rows; i++) {
        const cuk_matrix *m = P.s->ws.e[i].m;
        snprintf(item, sizeof item, " %s %dx%d %s %s ", P.s->ws.e[i].name, m->rows, m->cols,
                 fmt_bytes(sz, sizeof sz, (double)mat_bytes(m)), snap_where_gpus(m, where, sizeof where));
        int len = (int)strlen(item);
        if (x + len > w && x > 12) {
            if (++r == rows)
                break;
            x = 12;
        }
        draw_text(P.top, row + r, x, A_NORMAL, item);
        x += len + 1;
    }
    if (P.s->ws.n == 0)
        draw_text(P.top, row, 12, A_NORMAL, " (empty)");
}

static void draw_top(void)
{
    int w = getmaxx(P.top), h = P.top_h, row = 0;
    werase(P.top);
    draw_title(w);
    P.live_rows = 0;
    if (P.present) {
        present_draw(P.top, 1, h - 2, &P.look, P.present == PRESENT_E2E);
    } else {
        int ncmd = h >= 12 ? 5 : 2, longest = 32; /* "last commands (* median of runs)" */
        int mode_w = 7;                              /* "tf32x3*"; a user mode's name may be longer */
        for (int i = 0; i < ncmd && timing_history(i); i++) {
            const timing_cmd *c = timing_history(i);
            if (draw_width(c->text, strlen(c->text)) > longest)
                longest = draw_width(c->text, strlen(c->text));
            int mw = c->mode ? (int)strlen(c->mode->name) + (c->runs > 1) : 0;
            mode_w = mw > mode_w ? (mw < 24 ? mw : 24) : mode_w;
        }
        cmd_columns cols = cmd_fit(w, mode_w);
        if (cols.text > longest) /* the numbers next to the text on a wide screen */
            cols.text = longest;
        /* the memory lines and the GPUs' state may take what is left over
         * the heading, the commands, one workspace row and the rule; the
         * state a row at least, when NVML can say it */
        snap_live l;
        snap_live_get(&l);
        int room = h - 4 - ncmd, live = live_known(&l) > 0 && room > 1;
        row += draw_memory(row + 1, w, room - live);
        P.live_row = row + 1;
        P.live_rows = draw_live(row + 1, w, room - row);
        row += P.live_rows;
        draw_cmd_heading(++row, &cols);
        for (int i = 0; i < ncmd; i++) {
            const timing_cmd *c = timing_history(i);
            row++;
            if (c)
                draw_command(row, &cols, c);
        }
        row++;
        draw_workspace(row, h - row - 1, w);
    }
    mvwhline(P.top, h - 1, 0, '-', w);
    wnoutrefresh(P.top);
}

/* ---- the input line, drawn for readline ---- */

/* rl_redisplay_function: the prompt and the line, scrolled sideways so the
 * cursor stays in view. */
static void draw_input(void)
{
    const char *prompt = rl_display_prompt ? rl_display_prompt : "";
    if (!rl_line_buffer) /* readline has not started yet */
        return;
    size_t len = strlen(rl_line_buffer);
    int w = getmaxx(P.in), pw = draw_width(prompt, strlen(prompt));
    int cur = draw_width(rl_line_buffer, (size_t)rl_point), room = w - pw - 1;
    size_t from = cur > room ? draw_skip(rl_line_buffer, len, cur - room) : 0;
    werase(P.in);
    mvwaddstr(P.in, 0, 0, prompt);
    waddnstr(P.in, rl_line_buffer + from, (int)(len - from));
    wmove(P.in, 0, pw + cur - draw_width(rl_line_buffer, from));
    wrefresh(P.in);
}

/* rl_getc_function and rl_input_available_hook: readline reads the keys
 * panel_getch queued. A key sequence (an arrow's ESC [ A) is queued whole,
 * so readline never mistakes its ESC for a lone one. */
static int next_key(FILE *f) { return P.kpos < P.nkeys ? P.keys[P.kpos++] : EOF; }
static int key_waiting(void) { return P.kpos < P.nkeys; }

/* A match as the list shows it: a file name without its folder, as
 * readline's own list shows it (the folder is on the input line). */
static const char *shown_match(const char *m)
{
    const char *slash = rl_filename_completion_desired ? strrchr(m, '/') : NULL;
    return slash && slash[1] ? slash + 1 : m;
}

/* Tab's list of matches goes to the output window, in columns as wide as
 * the widest name shown (readline's `longest` counts what it would show,
 * which need not be what we do). */
static void show_matches(char **matches, int n, int longest)
{
    int widest = 0;
    for (int i = 1; i <= n; i++) {
        const char *m = shown_match(matches[i]);
        int mw = draw_width(m, strlen(m));
        widest = mw > widest ? mw : widest;
    }
    int w = panel_columns(), per = w / (widest + 2) > 0 ? w / (widest + 2) : 1;
    out_printf("\n");
    for (int i = 1; i <= n; i++) {
        const char *m = shown_match(matches[i]);
        out_printf("%s%*s%s", m, i % per == 0 || i == n ? 0 : widest + 2 - draw_width(m, strlen(m)), "",
                   i % per == 0 || i == n ? "\n" : "");
    }
    out_flush();
    rl_forced_update_display();
}

/* ---- screen layout ---- */

/* The panel's rows: 12 on a 24-row terminal, 8 below; in present mode all
 * but a few output lines. */
static void layout(void)
{
    int rows = LINES, cols = COLS;
    if (P.present)
        P.top_h = rows - 1 - (rows >= 30 ? rows / 5 : 4);
    else
        P.top_h = rows >= 24 ? 12 : 8;
    if (P.top)
        delwin(P.top), delwin(P.out), delwin(P.in);
    P.top = newwin(P.top_h, cols, 0, 0);
    P.out = newwin(rows - P.top_h - 1, cols, P.top_h, 0);
    P.in = newwin(1, cols, rows - 1, 0);
    scrollok(P.out, TRUE);
    keypad(P.in, FALSE); /* readline decodes the escape sequences itself */
    wtimeout(P.in, 150);
}

static void redraw_all(void)
{
    draw_top();
    redraw_output();
    doupdate();
    draw_input();
}

void panel_refresh(void)
{
    if (P.active)
        redraw_all();
}

void panel_command_done(void)
{
    P.started_ms = 0;
    panel_refresh();
}

/* A command has run this long before the ticks sample the GPUs' state:
 * NVML's calls then stay out of the short commands' wall times. */
#define LIVE_AFTER_MS 500.0

/* While a command runs: its time in the title, and once it is a long one
 * the GPUs' state now. */
void panel_tick(void)
{
    draw_title(getmaxx(P.top));
    if (P.live_rows > 0 && P.started_ms > 0 && timing_now_ms() - P.started_ms >= LIVE_AFTER_MS)
        draw_live(P.live_row, getmaxx(P.top), P.live_rows);
    wrefresh(P.top);
}

void panel_command_started(const char *text)
{
    if (!P.active)
        return;
    snprintf(P.running, sizeof P.running, "%s", text);
    for (char *c = P.running; *c; c++)
        if (*c == '\n')
            *c = ' ';
    P.started_ms = timing_now_ms();
    panel_tick();
}

static void relayout(void)
{
    layout();
    clear();
    wnoutrefresh(stdscr);
    redraw_all();
}

void panel_present(int how)
{
    if (P.present == how)
        return;
    P.present = how;
    if (P.active)
        relayout();
}

int panel_start(cuk_session *s)
{
    const char *why;
    struct winsize ws;
    if (!panel_available(&why))
        return cuk_err("panel: %s", why);
    if (ioctl(1, TIOCGWINSZ, &ws) == 0 && (ws.ws_row < MIN_LINES || ws.ws_col < MIN_COLS))
        return cuk_err("panel: the terminal is too small (%dx%d; needs %dx%d)", ws.ws_col, ws.ws_row, MIN_COLS,
                       MIN_LINES);
    /* The size from the terminal, never from LINES and COLUMNS: readline
     * exports those, and they go stale when the window is resized. */
    use_env(FALSE);
    use_tioctl(TRUE);
    if (!(P.screen = newterm(NULL, stdout, stdin)))
        return cuk_err("panel: ncurses cannot drive this terminal (TERM=%s)", getenv("TERM"));
    set_term(P.screen);
    cbreak(); /* keys one at a time; Ctrl-C still raises SIGINT */
    noecho();
    draw_look_init(&P.look);
    P.s = s;
    P.active = 1;
    P.scroll = 0;
    s->panel_on = 1;
    layout();
    rl_redisplay_function = draw_input;
    rl_getc_function = next_key;
    rl_input_available_hook = key_waiting;
    rl_prep_term_function = NULL; /* ncurses owns the terminal modes */
    rl_deprep_term_function = NULL;
    rl_completion_display_matches_hook = show_matches;
    redraw_all();
    return 0;
}

void panel_stop(void)
{
    if (!P.active)
        return;
    rl_redisplay_function = rl_redisplay;
    rl_getc_function = rl_getc;
    rl_input_available_hook = NULL;
    rl_prep_term_function = rl_prep_terminal;
    rl_deprep_term_function = rl_deprep_terminal;
    rl_completion_display_matches_hook = NULL;
    P.s->panel_on = 0;
    delwin(P.top), delwin(P.out), delwin(P.in);
    P.top = P.out = P.in = NULL;
    endwin();
    delscreen(P.screen);
    P.screen = NULL;
    P.active = 0;
    P.present = 0;
}

/* A byte for readline; ncurses' own codes (KEY_RESIZE when it caught the
 * resize itself) are not keys. Enter brings the output back to the bottom. */
static void queue_key(int c)
{
    if (c == KEY_RESIZE) /* ncurses has already resized its screen */
        relayout();
    else if (c >= 0 && c < 256)
        P.keys[P.nkeys++] = c;
    if (c == '\r' || c == '\n')
        scroll_to_bottom();
}

/* PgUp and PgDn (ESC [ 5 ~ and ESC [ 6 ~) scroll the output; readline
 * never sees them. */
static void take_page_keys(void)
{
    int n = 0;
    for (int i = 0; i < P.nkeys; i++) {
        const int *k = P.keys + i;
        if (i + 3 < P.nkeys && k[0] == 27 && k[1] == '[' && (k[2] == '5' || k[2] == '6') && k[3] == '~') {
            scroll_page(k[2] == '5' ? 1 : -1);
            i += 3;
        } else {
            P.keys[n++] = P.keys[i];
        }
    }
    P.nkeys = n;
}

int panel_getch(void)
{
    int c = wgetch(P.in);
    P.nkeys = P.kpos = 0;
    if (c == ERR)
        return -1;
    queue_key(c);
    nodelay(P.in, TRUE); /* and whatever else has arrived with it */
    while (P.nkeys < (int)(sizeof P.keys / sizeof P.keys[0]) && (c = wgetch(P.in)) != ERR)
        queue_key(c);
    nodelay(P.in, FALSE);
    wtimeout(P.in, 150);
    take_page_keys();
    return P.nkeys > 0 ? P.nkeys : -1;
}

int panel_key_waiting(void) { return P.active && key_waiting(); }

/* Our SIGWINCH handler saw it. resizeterm only when the size really
 * changed: it queues a KEY_RESIZE each time it is called. */
void panel_resize(void)
{
    struct winsize ws;
    if (!P.active || ioctl(1, TIOCGWINSZ, &ws) != 0)
        return;
    if (ws.ws_row != LINES || ws.ws_col != COLS)
        resizeterm(ws.ws_row, ws.ws_col);
    relayout();
}

#else /* without ncurses and readline there is no panel */

int panel_available(const char **why)
{
    *why = "cuk was built without ncurses or readline";
    return 0;
}

int panel_start(cuk_session *s)
{
    const char *why;
    panel_available(&why);
    return cuk_err("panel: %s", why);
}

void panel_stop(void) {}
int panel_active(void) { return 0; }
int panel_getch(void) { return -1; }
int panel_key_waiting(void) { return 0; }
void panel_resize(void) {}
void panel_refresh(void) {}
void panel_command_started(const char *text) {}
void panel_command_done(void) {}
void panel_write(out_channel ch, const char *s, size_t n) {}
void panel_flush(void) {}
int panel_columns(void) { return 0; }
void panel_tick(void) {}
void panel_present(int how) {}

#endif
