/* panel.c - the live panel (see panel.h). ncurses owns the screen: a window
 * for the panel at the top, one for output below it, and the input line at
 * the bottom. Readline still does the editing, in callback mode: we hand it
 * the keys wgetch reads and draw its line buffer ourselves, so nothing it
 * does can scribble over the panel. Output reaches the screen only through
 * the REPL's front end, which sends it to the output window while the panel is up. */
#define _XOPEN_SOURCE 700 /* wcwidth */

#include "repl/panel.h"

#include "base/error.h"

#if defined(CUK_HAVE_NCURSES) && defined(CUK_HAVE_READLINE)
#include <ncurses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include <readline/readline.h>

#include "base/fmt.h"
#include "base/out.h"
#include "engine/cost.h"
#include "engine/snapshot.h"
#include "engine/stats.h"
#include "engine/timing.h"

#define MIN_LINES 14
#define MIN_COLS 60
#define KEEP_LINES 500  /* output lines kept to redraw after a resize */

static struct {
    int active;
    cuk_session *s;
    SCREEN *screen;
    WINDOW *top, *out, *in;
    int top_h;
    int keys[64];            /* typed, not yet given to readline */
    int nkeys, kpos;
    double started_ms;       /* > 0 while a command runs */
    char running[80];
    char *lines[KEEP_LINES]; /* the output, for redraws */
    int nlines, first;
    char partial[1024];      /* the output line not yet ended */
    size_t npartial;
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

static void keep_line(const char *s, size_t n)
{
    char *copy = malloc(n + 1);
    if (!copy)
        return;
    memcpy(copy, s, n);
    copy[n] = '\0';
    int slot = (P.first + P.nlines) % KEEP_LINES;
    if (P.nlines == KEEP_LINES) {
        free(P.lines[P.first]);
        P.first = (P.first + 1) % KEEP_LINES;
    } else {
        P.nlines++;
    }
    P.lines[slot] = copy;
}

void panel_write(out_channel ch, const char *s, size_t n)
{
    if (ch == OUT_ERROR)
        wattron(P.out, A_BOLD);
    waddnstr(P.out, s, (int)n);
    wattroff(P.out, A_BOLD);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n' || P.npartial == sizeof P.partial - 1) {
            keep_line(P.partial, P.npartial);
            P.npartial = 0;
        }
        if (s[i] != '\n')
            P.partial[P.npartial++] = s[i];
    }
}

void panel_flush(void) { wrefresh(P.out); }

int panel_columns(void) { return P.active ? getmaxx(P.out) : 0; }

static void redraw_output(void)
{
    int h = getmaxy(P.out), from = P.nlines > h - 1 ? P.nlines - (h - 1) : 0;
    werase(P.out);
    for (int i = from; i < P.nlines; i++)
        wprintw(P.out, "%s\n", P.lines[(P.first + i) % KEEP_LINES]);
    waddnstr(P.out, P.partial, (int)P.npartial);
    wnoutrefresh(P.out);
}

/* ---- the panel ---- */

static size_t skip_columns(const char *s, size_t n, int cols);

/* Print one row of the panel, cut at the window's width (never wrapping
 * into the row below). */
static void put_row(int row, int col, const char *fmt, ...) CUK_PRINTF(3, 4);

static void put_row(int row, int col, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    int room = getmaxx(P.top) - col;
    if (room > 0)
        mvwaddnstr(P.top, row, col, buf, (int)skip_columns(buf, strlen(buf), room));
}

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

static void draw_title(int w)
{
    char peak[48] = "", state[200], note[48];
    snap_device d;
    snap_device_get(&d);
    if (d.usable)
        snprintf(peak, sizeof peak, " | FP32 peak %.1f TFLOP/s", d.f.peak_gflops / 1e3);
    if (P.started_ms > 0)
        snprintf(state, sizeof state, "running %.1f s%s: %s", (timing_now_ms() - P.started_ms) / 1e3,
                 progress_note(note, sizeof note), P.running); /* before the text, which may be cut */
    else
        snprintf(state, sizeof state, "ready");
    wattron(P.top, A_REVERSE);
    mvwhline(P.top, 0, 0, ' ', w);
    put_row(0, 0, " cuk | mode %s | %s%s | %s", session_mode_name(P.s), d.usable ? d.f.name : "no GPU", peak, state);
    wattroff(P.top, A_REVERSE);
}

/* device [####====....      ] matrices, pool, free of total | host */
static void draw_memory(int row, int w)
{
    char a[32], b[32], c[32], t[32], h[32], bar[64];
    snap_memory m;
    snap_memory_get(&m);
    fmt_bytes(h, sizeof h, (double)m.host_matrices);
    if (!m.device) {
        put_row(row, 0, " memory: host %s held by matrices | no device (%s)", h, m.why);
        return;
    }
    int n = w >= 100 ? 40 : 20;
    double total = (double)m.dev_total, used = m.pool_in_use / total, held = m.pool_held / total,
           busy = 1.0 - m.dev_free / total;
    for (int i = 0; i < n; i++) {
        double x = (i + 0.5) / n;
        bar[i] = x < used ? '#' : x < held ? '=' : x < busy ? '.' : ' ';
    }
    bar[n] = '\0';
    put_row(row, 0, " device [%s] matrices %s, pool %s, free %s of %s | host %s", bar,
            fmt_bytes(a, sizeof a, (double)m.pool_in_use), fmt_bytes(b, sizeof b, (double)m.pool_held),
            fmt_bytes(c, sizeof c, (double)m.dev_free), fmt_bytes(t, sizeof t, total), h);
}

/* One row per command: a bench or timeit files one summary per mode (its
 * median, with the speedup over cpu measured in the same bench); a command
 * that failed says "error", one cut short by Ctrl-C "stopped". */
static void draw_command(int row, int w, const timing_cmd *c)
{
    char k[32], rate[80] = "", up[24] = "", moved[32], mode[16];
    const timing_op *op = c->failed ? NULL : cost_main_op(c);
    if (c->failed)
        snprintf(rate, sizeof rate, "%s", c->failed == TIMING_STOPPED ? "stopped" : "error");
    if (op)
        cost_rate_text(op, rate, sizeof rate);
    if (c->speedup > 0)
        stats_fmt_ratio(up, sizeof up, c->speedup, c->speedup_noise, 0);
    if (c->speedup_noise)
        snprintf(up, sizeof up, "~1x");
    snprintf(mode, sizeof mode, "%s%s", c->mode ? c->mode->name : "", c->runs > 1 ? "*" : "");
    fmt_bytes(moved, sizeof moved, (double)(c->h2d + c->d2h));
    int tw = w - 72 > 12 ? w - 72 : 12;
    put_row(row, 0, "  %-*.*s %-7s %10s  %-30.30s %7s %9s", tw, tw, c->text, mode,
            fmt_ms(k, sizeof k, c->nops ? c->kernel_ms : -1), rate, up, moved);
}

/* name shape size where, as many as fit in `rows` rows */
static void draw_workspace(int row, int rows, int w)
{
    int x = 1, r = 0;
    char item[96], sz[32];
    put_row(row, 0, " workspace:");
    x = 12;
    for (int i = 0; i < P.s->ws.n && r < rows; i++) {
        const cuk_matrix *m = P.s->ws.e[i].m;
        snprintf(item, sizeof item, " %s %dx%d %s %s ", P.s->ws.e[i].name, m->rows, m->cols,
                 fmt_bytes(sz, sizeof sz, (double)mat_bytes(m)), mat_where(m));
        int len = (int)strlen(item);
        if (x + len > w && x > 12) {
            if (++r == rows)
                break;
            x = 12;
        }
        put_row(row + r, x, "%s", item);
        x += len + 1;
    }
    if (P.s->ws.n == 0)
        put_row(row, 12, " (empty)");
}

static void draw_top(void)
{
    int w = getmaxx(P.top), h = P.top_h, ncmd = h >= 12 ? 5 : 2, row = 0;
    werase(P.top);
    draw_title(w);
    draw_memory(++row, w);
    int tw = w - 72 > 12 ? w - 72 : 12;
    wattron(P.top, A_BOLD);
    put_row(++row, 0, "  %-*.*s %-7s %10s  %-30s %7s %9s", tw, tw, "last commands (* median of runs)", "mode", "kernel",
            "rate", "vs cpu", "copied");
    wattroff(P.top, A_BOLD);
    for (int i = 0; i < ncmd; i++) {
        const timing_cmd *c = timing_history(i);
        row++;
        if (c)
            draw_command(row, w, c);
    }
    row++;
    draw_workspace(row, h - row - 1, w);
    mvwhline(P.top, h - 1, 0, '-', w);
    wnoutrefresh(P.top);
}

/* ---- the input line, drawn for readline ---- */

/* Byte offset in s[0..n) after `cols` display columns. */
static size_t skip_columns(const char *s, size_t n, int cols)
{
    mbstate_t st;
    size_t i = 0;
    memset(&st, 0, sizeof st);
    while (i < n && cols > 0) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, s + i, n - i, &st);
        if (k == 0 || k > n - i)
            k = 1;
        int cw = wcwidth(wc);
        cols -= cw > 0 ? cw : 1;
        i += k;
    }
    return i;
}

static int columns(const char *s, size_t n)
{
    mbstate_t st;
    int cols = 0;
    memset(&st, 0, sizeof st);
    for (size_t i = 0; i < n;) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, s + i, n - i, &st);
        if (k == 0 || k > n - i)
            k = 1;
        int cw = wcwidth(wc);
        cols += cw > 0 ? cw : 1;
        i += k;
    }
    return cols;
}

/* rl_redisplay_function: the prompt and the line, scrolled sideways so the
 * cursor stays in view. */
static void draw_input(void)
{
    const char *prompt = rl_display_prompt ? rl_display_prompt : "";
    if (!rl_line_buffer) /* readline has not started yet */
        return;
    size_t len = strlen(rl_line_buffer);
    int w = getmaxx(P.in), pw = columns(prompt, strlen(prompt));
    int cur = columns(rl_line_buffer, (size_t)rl_point), room = w - pw - 1;
    size_t from = cur > room ? skip_columns(rl_line_buffer, len, cur - room) : 0;
    werase(P.in);
    mvwaddstr(P.in, 0, 0, prompt);
    waddnstr(P.in, rl_line_buffer + from, (int)(len - from));
    wmove(P.in, 0, pw + cur - columns(rl_line_buffer, from));
    wrefresh(P.in);
}

/* rl_getc_function and rl_input_available_hook: readline reads the keys
 * panel_getch queued. A key sequence (an arrow's ESC [ A) is queued whole,
 * so readline never mistakes its ESC for a lone one. */
static int next_key(FILE *f) { return P.kpos < P.nkeys ? P.keys[P.kpos++] : EOF; }
static int key_waiting(void) { return P.kpos < P.nkeys; }

/* Tab's list of matches goes to the output window, in columns. */
static void show_matches(char **matches, int n, int longest)
{
    int w = getmaxx(P.out), per = w / (longest + 2) > 0 ? w / (longest + 2) : 1;
    out_printf("\n");
    for (int i = 1; i <= n; i++)
        out_printf("%-*s%s", longest + 2, matches[i], i % per == 0 || i == n ? "\n" : "");
    out_flush();
    rl_forced_update_display();
}

/* ---- screen layout ---- */

static void layout(void)
{
    int rows = LINES, cols = COLS;
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

void panel_tick(void)
{
    draw_title(getmaxx(P.top));
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

int panel_start(cuk_session *s)
{
    const char *why;
    struct winsize ws;
    if (!panel_available(&why))
        return cuk_err("panel: %s", why);
    if (ioctl(1, TIOCGWINSZ, &ws) == 0 && (ws.ws_row < MIN_LINES || ws.ws_col < MIN_COLS))
        return cuk_err("panel: the terminal is too small (%dx%d; needs %dx%d)", ws.ws_col, ws.ws_row, MIN_COLS,
                       MIN_LINES);
    if (!(P.screen = newterm(NULL, stdout, stdin)))
        return cuk_err("panel: ncurses cannot drive this terminal (TERM=%s)", getenv("TERM"));
    set_term(P.screen);
    cbreak(); /* keys one at a time; Ctrl-C still raises SIGINT */
    noecho();
    P.s = s;
    P.active = 1;
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
}

/* A byte for readline; ncurses' own codes (KEY_RESIZE when it caught the
 * resize itself) are not keys. */
static void relayout(void);

static void queue_key(int c)
{
    if (c == KEY_RESIZE) /* ncurses has already resized its screen */
        relayout();
    else if (c >= 0 && c < 256)
        P.keys[P.nkeys++] = c;
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
    return P.nkeys > 0 ? P.nkeys : -1;
}

int panel_key_waiting(void) { return P.active && key_waiting(); }

static void relayout(void)
{
    layout();
    clear();
    wnoutrefresh(stdscr);
    redraw_all();
}

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

#endif
