/* chart.c - charts in text (see chart.h): x-y charts on a grid of braille
 * cells, each cell 2 dots wide and 4 high, so that a line or a roof climbs
 * smoothly at 80 columns; in ASCII a cell is one dot, drawn with the
 * character of the line's slope. Marks, tags and colours sit on top. */
#include "engine/measure/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/out.h"

/* Colours for series 0, 1, ... (ANSI SGR codes), and their marks. */
static const int palette[] = {34, 31, 32, 35, 36, 33, 94, 91, 92, 95, 96, 93};
#define NPALETTE ((int)(sizeof palette / sizeof palette[0]))
static const char *const marks_utf8[] = {"●", "■", "▲", "◆", "▼", "✚", "✖", "◉", "□", "△", "◇", "○"};
static const char *const marks_ascii[] = {"o", "#", "+", "x", "*", "@", "%", "&", "$", "=", "v", "^"};

/* ---- style ---- */

chart_style chart_style_for(int tty, int panel)
{
    const char *term = getenv("TERM"), *no_colour = getenv("NO_COLOR");
    int dumb = term && !strcmp(term, "dumb");
    chart_style st = {!dumb, 0};
    st.colour = tty && !panel && term && term[0] && !dumb && !(no_colour && no_colour[0]) && !out_tee();
    return st;
}

chart_style chart_style_of(const cuk_session *s)
{
    return chart_style_for(isatty(STDOUT_FILENO), s->panel_on || s->json);
}

/* ---- labels and scales ---- */

/* v scaled by 1000s to [1, 1000) with the prefix that says so. */
static const char *prefixed(char *buf, size_t cap, double v, const char *const *pre, int npre, int one,
                            const char *unit)
{
    int k = one;
    while (k + 1 < npre && fabs(v) >= 999.5)
        v /= 1000, k++;
    while (k > 0 && fabs(v) < 0.9995 && v != 0)
        v *= 1000, k--;
    snprintf(buf, cap, fabs(v) >= 999.5 ? "%.0f%s%s" : "%.3g%s%s", v, pre[k], unit); /* past the last prefix: 1000s */
    return buf;
}

const char *chart_label(char *buf, size_t cap, double v, chart_unit u)
{
    static const char *const time_pre[] = {"n", "µ", "m", ""};
    static const char *const rate_pre[] = {"", "k", "M", "G", "T", "P", "E"};
    switch (u) {
    case CHART_MS: return prefixed(buf, cap, v / 1e3, time_pre, 4, 3, "s");
    case CHART_GFLOPS: return prefixed(buf, cap, v * 1e9, rate_pre, 7, 0, "");
    default:
        if (v >= 1 && v < 1e6 && v == floor(v))
            snprintf(buf, cap, "%.0f", v);
        else
            snprintf(buf, cap, "%.3g", v);
        return buf;
    }
}

double chart_log_frac(double v, double lo, double hi)
{
    if (!(v > 0) || !(lo > 0) || !(hi > lo))
        return 0;
    return log(v / lo) / log(hi / lo);
}

int chart_ticks(double lo, double hi, double *t, int cap)
{
    static const double steps[] = {1, 2, 5};
    int n = 0;
    if (!(lo > 0) || !(hi > lo))
        return 0;
    int d0 = (int)floor(log10(lo)), d1 = (int)ceil(log10(hi));
    for (int d = d0; d <= d1 && n < cap; d++) {
        double v = pow(10, d);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
            t[n++] = v;
    }
    for (int d = d0, few = n < 2; few && d <= d1; d++) /* less than two decades inside: 1-2-5 steps */
        for (int k = 0; k < 3; k++) {
            double v = steps[k] * pow(10, d);
            int have = 0;
            for (int i = 0; i < n; i++)
                have |= fabs(t[i] - v) <= 1e-9 * v;
            if (!have && n < cap && v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
                t[n++] = v;
        }
    for (int i = 1; i < n; i++) /* in order: the 1-2-5 steps came after the decades */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
    return n;
}

chart_series *chart_add(chart *c, const char *name)
{
    if (c->nseries >= CHART_MAX_SERIES)
        return NULL;
    chart_series *s = &c->s[c->nseries];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->colour = c->nseries++;
    s->marks = 1;
    return s;
}

static void widen(double *lo, double *hi, double v)
{
    if (v > 0 && isfinite(v))
        *lo = v < *lo ? v : *lo, *hi = v > *hi ? v : *hi;
}

void chart_ranges(const chart *c, double *xmin, double *xmax, double *ymin, double *ymax)
{
    double x0 = INFINITY, x1 = 0, y0 = INFINITY, y1 = 0;
    for (int i = 0; i < c->nseries; i++)
        for (int k = 0; k < c->s[i].n; k++) {
            widen(&x0, &x1, c->s[i].x[k]);
            widen(&y0, &y1, c->s[i].y[k]);
            if (c->s[i].lo[k] > 0)
                widen(&y0, &y1, c->s[i].lo[k]), widen(&y0, &y1, c->s[i].hi[k]);
        }
    if (!(x1 > 0))
        x0 = 1, x1 = 10;
    if (!(y1 > 0))
        y0 = 1, y1 = 10;
    if (x1 <= x0 * 1.0001)
        x0 /= 3.16, x1 *= 3.16;
    if (y1 <= y0 * 1.0001)
        y0 /= 3.16, y1 *= 3.16;
    *xmin = c->xmin > 0 ? c->xmin : x0 / 1.15;
    *xmax = c->xmax > 0 ? c->xmax : x1 * 1.15;
    *ymin = c->ymin > 0 ? c->ymin : y0 / 1.5;
    *ymax = c->ymax > 0 ? c->ymax : y1 * 1.5;
}

/* ---- the grid ---- */

typedef struct {
    int w, h;                 /* cells */
    unsigned char *dots;      /* braille dots of each cell (bit per dot) */
    char *ascii;              /* ASCII: the line character of each cell */
    signed char *dcol;        /* the colour of a cell's line (-1 none) */
    char (*mark)[8];          /* a mark or a character of a tag; "" none */
    signed char *mcol;
    double x0, x1, y0, y1;
    chart_style st;
} grid;

static int grid_new(grid *g, int w, int h, chart_style st)
{
    size_t n = (size_t)w * (size_t)h;
    memset(g, 0, sizeof *g);
    g->w = w, g->h = h, g->st = st;
    g->dots = calloc(n, 1);
    g->ascii = calloc(n, 1);
    g->dcol = malloc(n);
    g->mark = calloc(n, sizeof *g->mark);
    g->mcol = malloc(n);
    if (!g->dots || !g->ascii || !g->dcol || !g->mark || !g->mcol)
        return -1;
    memset(g->dcol, -1, n);
    memset(g->mcol, -1, n);
    return 0;
}

static void grid_free(grid *g)
{
    free(g->dots);
    free(g->ascii);
    free(g->dcol);
    free(g->mark);
    free(g->mcol);
}

/* Dot coordinates: x from 0 (left) to 2w-1, y from 0 (top) to 4h-1. */
static int dot_x(const grid *g, double x) { return (int)lround(chart_log_frac(x, g->x0, g->x1) * (2 * g->w - 1)); }
static int dot_y(const grid *g, double y)
{
    return (int)lround((1 - chart_log_frac(y, g->y0, g->y1)) * (4 * g->h - 1));
}

static int inside(const grid *g, int dx, int dy) { return dx >= 0 && dy >= 0 && dx < 2 * g->w && dy < 4 * g->h; }

/* The bit of dot (dx, dy) in its braille cell (Unicode's dot numbering). */
static unsigned char braille_bit(int dx, int dy)
{
    static const unsigned char bits[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    return bits[dy & 3][dx & 1];
}

/* The ASCII character of a line whose run is sx cells across, sy down. */
static char slope_char(double sx, double sy)
{
    double r = sx != 0 ? fabs(sy / sx) : INFINITY;
    if (r < 0.4)
        return '-';
    if (r > 2.5)
        return '|';
    return (sx > 0) == (sy < 0) ? '/' : '\\';
}

static void put_dot(grid *g, int dx, int dy, int colour, char ch)
{
    if (!inside(g, dx, dy))
        return;
    size_t c = (size_t)(dy / 4) * g->w + dx / 2;
    g->dots[c] |= braille_bit(dx, dy);
    if (!g->ascii[c] || g->ascii[c] == '.')
        g->ascii[c] = ch;
    g->dcol[c] = (signed char)colour;
}

/* A line from (ax, ay) to (bx, by) in dots; dashed: two dots on, two off. */
static void draw_line(grid *g, int ax, int ay, int bx, int by, int colour, int dashed)
{
    int steps = abs(bx - ax) > abs(by - ay) ? abs(bx - ax) : abs(by - ay);
    char ch = dashed ? '.' : slope_char((bx - ax) / 2.0, (by - ay) / 4.0);
    for (int i = 0; i <= steps; i++) {
        if (dashed && (i / 2) % 2)
            continue;
        int x = steps ? ax + (int)lround((double)(bx - ax) * i / steps) : ax;
        int y = steps ? ay + (int)lround((double)(by - ay) * i / steps) : ay;
        put_dot(g, x, y, colour, ch);
    }
}

/* Whether cells [col, col + n) of row are free of lines and marks. */
static int row_free(const grid *g, int row, int col, int n)
{
    if (row < 0 || row >= g->h || col < 0 || col + n > g->w)
        return 0;
    for (int c = col; c < col + n; c++)
        if (g->dots[(size_t)row * g->w + c] || g->mark[(size_t)row * g->w + c][0])
            return 0;
    return 1;
}

/* Text from cell (col, row) on, one character a cell. */
static void put_text(grid *g, int col, int row, const char *text, int colour)
{
    for (const char *p = text; *p && col < g->w; col++) {
        int n = 1;
        while ((p[n] & 0xC0) == 0x80)
            n++;
        snprintf(g->mark[(size_t)row * g->w + col], sizeof g->mark[0], "%.*s", n, p);
        g->mcol[(size_t)row * g->w + col] = (signed char)colour;
        p += n;
    }
}

static int text_cols(const char *s)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        w += (*p & 0xC0) != 0x80;
    return w;
}

static const char *mark_of(const chart_series *s, chart_style st)
{
    if (s->symbol[0])
        return s->symbol;
    return st.unicode ? marks_utf8[s->colour % NPALETTE] : marks_ascii[s->colour % NPALETTE];
}

/* A mark at dot (dx, dy), moved right past marks already there. */
static void put_mark(grid *g, int dx, int dy, const char *mark, int colour)
{
    if (!inside(g, dx, dy))
        return;
    int row = dy / 4, col = dx / 2;
    while (col < g->w - 1 && g->mark[(size_t)row * g->w + col][0])
        col++;
    snprintf(g->mark[(size_t)row * g->w + col], sizeof g->mark[0], "%s", mark);
    g->mcol[(size_t)row * g->w + col] = (signed char)colour;
}

static int clamp_dot(int v, int most) { return v < 0 ? 0 : v > most ? most : v; }

static void draw_series(grid *g, const chart_series *s)
{
    for (int k = 0; k < s->n; k++) {
        int x = clamp_dot(dot_x(g, s->x[k]), 2 * g->w - 1), y = clamp_dot(dot_y(g, s->y[k]), 4 * g->h - 1);
        if (s->lo[k] > 0 && s->hi[k] > s->lo[k]) /* the spread, a whisker across the point */
            draw_line(g, x, clamp_dot(dot_y(g, s->hi[k]), 4 * g->h - 1), x,
                      clamp_dot(dot_y(g, s->lo[k]), 4 * g->h - 1), s->colour, 0);
        if (k > 0) {
            int px = clamp_dot(dot_x(g, s->x[k - 1]), 2 * g->w - 1);
            int py = clamp_dot(dot_y(g, s->y[k - 1]), 4 * g->h - 1);
            draw_line(g, px, py, x, y, s->colour, s->dashed || s->est[k] || s->est[k - 1]);
        }
    }
}

static void draw_marks(grid *g, const chart_series *s)
{
    for (int k = 0; s->marks && k < s->n; k++)
        put_mark(g, clamp_dot(dot_x(g, s->x[k]), 2 * g->w - 1), clamp_dot(dot_y(g, s->y[k]), 4 * g->h - 1),
                 mark_of(s, g->st), s->colour);
}

/* The series' tag, just above its last point and ending there; else below;
 * else none. */
static void draw_tag(grid *g, const chart_series *s)
{
    if (s->tag[0] && s->n > 0) {
        int n = text_cols(s->tag);
        int col = clamp_dot(dot_x(g, s->x[s->n - 1]), 2 * g->w - 1) / 2 - n + 1;
        int row = clamp_dot(dot_y(g, s->y[s->n - 1]), 4 * g->h - 1) / 4;
        col = col < 0 ? 0 : col;
        if (row_free(g, row - 1, col, n))
            put_text(g, col, row - 1, s->tag, s->colour);
        else if (row_free(g, row + 1, col, n))
            put_text(g, col, row + 1, s->tag, s->colour);
    }
}

/* ---- printing ---- */

typedef struct {
    int on;
    int now; /* the colour in force: -1 none */
} ink;

static void ink_set(ink *k, int colour)
{
    if (!k->on || colour == k->now)
        return;
    if (colour < 0)
        out_printf("\033[0m");
    else
        out_printf("\033[%dm", palette[colour % NPALETTE]);
    k->now = colour;
}

static void put_braille(unsigned char bits)
{
    unsigned code = 0x2800u + bits;
    out_printf("%c%c%c", (char)(0xE0 | (code >> 12)), (char)(0x80 | ((code >> 6) & 0x3F)), (char)(0x80 | (code & 0x3F)));
}

/* The cells of row r, trailing blanks left out. */
static void print_cells(const grid *g, int r, ink *k)
{
    int last = -1;
    for (int c = 0; c < g->w; c++) {
        size_t i = (size_t)r * g->w + c;
        if (g->mark[i][0] || g->dots[i])
            last = c;
    }
    for (int c = 0; c <= last; c++) {
        size_t i = (size_t)r * g->w + c;
        if (g->mark[i][0]) {
            ink_set(k, g->mcol[i]);
            out_printf("%s", g->mark[i]);
        } else if (g->dots[i]) {
            ink_set(k, g->dcol[i]);
            if (g->st.unicode)
                put_braille(g->dots[i]);
            else
                out_printf("%c", g->ascii[i]);
        } else {
            out_printf(" ");
        }
    }
    ink_set(k, -1);
}

/* The rows of the plot with the y axis: a label at each tick's row. */
static void print_plot(const grid *g, const double *yt, int nyt, int lw, chart_unit yunit)
{
    ink k = {g->st.colour, -1};
    for (int r = 0; r < g->h; r++) {
        char lab[32] = "";
        for (int i = 0; i < nyt; i++)
            if (dot_y(g, yt[i]) / 4 == r && !lab[0])
                chart_label(lab, sizeof lab, yt[i], yunit);
        out_printf("%*s%s ", lw - text_cols(lab), "", lab);
        out_printf("%s", lab[0] ? (g->st.unicode ? "┤" : "+") : (g->st.unicode ? "│" : "|"));
        print_cells(g, r, &k);
        out_printf("\n");
    }
}

/* The x axis: its line with a tick at each label, the labels centred
 * under their ticks where they do not collide, and the axis's name. */
static void print_x_axis(const grid *g, const double *xt, int nxt, int lw, chart_unit xunit, const char *xname,
                         int width)
{
    int left = lw + 1, cols[32], n = nxt < 32 ? nxt : 32;
    out_printf("%*s%s", left, "", g->st.unicode ? "└" : "+");
    for (int i = 0; i < n; i++)
        cols[i] = dot_x(g, xt[i]) / 2;
    for (int c = 0; c < g->w; c++) {
        int tick = 0;
        for (int i = 0; i < n; i++)
            tick |= cols[i] == c;
        out_printf("%s", tick ? (g->st.unicode ? "┬" : "+") : (g->st.unicode ? "─" : "-"));
    }
    out_printf("\n");
    int at = 0; /* the columns printed on the label line */
    for (int i = 0; i < n; i++) {
        char lab[32];
        int lwid = text_cols(chart_label(lab, sizeof lab, xt[i], xunit));
        int start = left + 1 + cols[i] - lwid / 2;
        if (start + lwid > width)
            start = width - lwid;
        if (start < at + (at ? 1 : 0))
            continue;
        out_printf("%*s%s", start - at, "", lab);
        at = start + lwid;
    }
    int nw = text_cols(xname);
    if (at + 2 + nw <= width)
        out_printf("%*s%s\n", left + 1 + g->w - nw > at + 2 ? left + 1 + g->w - nw - at : 2, "", xname);
    else
        out_printf("\n%*s%s\n", width - nw > 0 ? width - nw : 0, "", xname);
}

void chart_put_mark(const chart_series *s, chart_style st)
{
    ink k = {st.colour, -1};
    ink_set(&k, s->colour);
    out_printf("%s", mark_of(s, st));
    ink_set(&k, -1);
}

/* The legend: each named series' mark and name, as many a line as fit. */
static void print_legend(const chart *c, int width, chart_style st)
{
    int col = 0;
    for (int i = 0; i < c->nseries; i++) {
        const chart_series *s = &c->s[i];
        if (!s->name[0])
            continue;
        int w = text_cols(mark_of(s, st)) + 1 + text_cols(s->name);
        if (col > 0 && col + 2 + w > width) {
            out_printf("\n");
            col = 0;
        }
        out_printf("  ");
        chart_put_mark(s, st);
        out_printf(" %s", s->name);
        col += 2 + w;
    }
    if (col)
        out_printf("\n");
}

/* The title, cut at a word to fit the width. */
static void print_title(const char *title, int width)
{
    int n = (int)strlen(title);
    if (text_cols(title) > width) {
        n = 0;
        for (int i = 0, cols = 0; title[i] && cols < width - 1; i++) {
            cols += (title[i] & 0xC0) != 0x80;
            if (title[i] == ' ')
                n = i;
        }
        out_printf("%.*s…\n", n, title);
        return;
    }
    out_printf("%s\n", title);
}

void chart_print(const chart *c, int width, int rows, chart_style st)
{
    double yt[32], xt[32];
    grid g;
    int lw = 0;
    double x0, x1, y0, y1;
    chart_ranges(c, &x0, &x1, &y0, &y1);
    int nyt = chart_ticks(y0, y1, yt, 32), nxt = chart_ticks(x0, x1, xt, 32);
    for (int i = 0; i < nyt; i++) {
        char lab[32];
        int w = text_cols(chart_label(lab, sizeof lab, yt[i], c->yunit));
        lw = w > lw ? w : lw;
    }
    int w = width - lw - 3; /* label, blank, axis, cells, one column spare */
    if (w < 10)
        w = 10;
    if (grid_new(&g, w, rows < 4 ? 4 : rows, st) != 0) {
        grid_free(&g);
        out_errorf("error: out of host memory\n");
        return;
    }
    g.x0 = x0, g.x1 = x1, g.y0 = y0, g.y1 = y1;
    for (int i = 0; i < c->nseries; i++)
        draw_series(&g, &c->s[i]);
    for (int i = 0; i < c->nseries; i++)
        draw_marks(&g, &c->s[i]);
    for (int i = 0; i < c->nseries; i++)
        draw_tag(&g, &c->s[i]);
    print_title(c->title, width);
    out_printf("%s\n", c->yname);
    print_plot(&g, yt, nyt, lw, c->yunit);
    print_x_axis(&g, xt, nxt, lw, c->xunit, c->xname, width);
    if (!c->own_legend)
        print_legend(c, width, st);
    grid_free(&g);
}

/* ---- a ladder's series ---- */

/* The series of mode m in c, or -1. */
static int series_of(const chart *c, const char *name)
{
    for (int i = 0; i < c->nseries; i++)
        if (!strcmp(c->s[i].name, name))
            return i;
    return -1;
}

static void ladder_point(chart_series *s, const result_row *r, int e2e)
{
    const stat_summary *st = e2e ? &r->e2e : &r->kernel;
    double ms = e2e ? res_e2e_ms(r) : res_kernel_ms(r);
    if (!(ms > 0) || s->n >= CHART_MAX_POINTS)
        return;
    s->x[s->n] = r->size;
    s->y[s->n] = ms;
    s->lo[s->n] = st->runs ? st->q1 : 0;
    s->hi[s->n] = st->runs ? st->q3 : 0;
    s->est[s->n] = !st->runs;
    s->n++;
}

static void ladder_series(const result_table *t, chart *c, int e2e)
{
    int first = c->nseries;
    for (int i = 0; i < t->nrows; i++) {
        const result_row *r = &t->rows[i];
        if (!res_available(r))
            continue;
        int k = series_of(c, r->mode->name);
        chart_series *s = k >= first ? &c->s[k] : chart_add(c, r->mode->name);
        if (s)
            ladder_point(s, r, 0);
    }
    int nk = c->nseries;
    for (int k = first; e2e && k < nk; k++) { /* end to end, where it is not the kernel run itself */
        const cuk_backend *m = NULL;
        for (int i = 0; i < t->nrows && !m; i++)
            if (!strcmp(t->rows[i].mode->name, c->s[k].name))
                m = t->rows[i].mode;
        if (!m || !mode_on_device(m))
            continue;
        chart_series *s = chart_add(c, "");
        if (!s)
            break;
        s->colour = c->s[k].colour;
        s->dashed = 1;
        s->marks = 0;
        for (int i = 0; i < t->nrows; i++)
            if (t->rows[i].mode == m && res_available(&t->rows[i]))
                ladder_point(s, &t->rows[i], 1);
    }
}

/* ---- bars ---- */

void chart_bar_scale(const double *v, int n, double *lo, double *hi)
{
    *lo = INFINITY, *hi = 0;
    for (int i = 0; i < n; i++)
        widen(lo, hi, v[i]);
    if (!(*hi > 0))
        *lo = *hi = 0;
    else
        *lo /= 2;
}

int chart_bar_cells(double v, double lo, double hi, int most)
{
    if (!(v > 0) || most <= 0)
        return 0;
    if (!(hi > lo) || !(lo > 0))
        return most;
    long n = lround(chart_log_frac(v, lo, hi) * most);
    return n < 1 ? 1 : n > most ? most : (int)n;
}

size_t chart_bar(char *buf, size_t cap, int width, double frac, double frac_hi, chart_style st)
{
    static const char *const eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    size_t n = 0;
    int used = 0;
    buf[0] = '\0';
#define PUT(s) (n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s", (s)), n = n < cap ? n : cap - 1)
    if (frac > 0 && width > 0) {
        long e = lround((frac > 1 ? 1 : frac) * width * (st.unicode ? 8 : 1));
        int per = st.unicode ? 8 : 1;
        e = e < 1 ? 1 : e;
        for (; used < e / per; used++)
            PUT(st.unicode ? "█" : "#");
        if (e % per) {
            PUT(eighths[e % per]);
            used++;
        }
        int end = (int)lround((frac_hi > 1 ? 1 : frac_hi) * width);
        for (int c = used; c < end; c++, used++) /* the spread past the median */
            PUT(c == end - 1 ? (st.unicode ? "┤" : "|") : (st.unicode ? "─" : "-"));
    }
    for (; used < width; used++)
        PUT(" ");
#undef PUT
    return n;
}

void chart_present_bars(const result_table *t, const int *idx, int n, int e2e, int most, int *cells)
{
    double v[RESULT_MAX_ROWS], lo, hi;
    int m = n < RESULT_MAX_ROWS ? n : RESULT_MAX_ROWS;
    for (int k = 0; k < m; k++) {
        const result_row *r = &t->rows[idx[k]];
        const stat_summary *s = e2e ? &r->e2e : &r->kernel;
        v[k] = s->runs ? s->med : 0;
    }
    chart_bar_scale(v, m, &lo, &hi);
    for (int k = 0; k < n; k++)
        cells[k] = k < m ? chart_bar_cells(v[k], lo, hi, most) : 0;
}

void chart_ladder(const result_table *t, chart *c, int with_e2e)
{
    memset(c, 0, sizeof *c);
    snprintf(c->title, sizeof c->title, "ladder %.100s: %s against %.20s, both log; dotted: estimates", t->expr,
             with_e2e ? "time" : "kernel time", t->var);
    snprintf(c->xname, sizeof c->xname, "%.20s (size)", t->var);
    snprintf(c->yname, sizeof c->yname, "%s", with_e2e ? "time per run, median" : "kernel time");
    c->xunit = CHART_COUNT;
    c->yunit = CHART_MS;
    ladder_series(t, c, with_e2e);
}

void chart_print_ladder(const result_table *t, int width, chart_style st)
{
    chart *c = malloc(sizeof *c);
    if (!c) {
        out_errorf("error: out of host memory\n");
        return;
    }
    chart_ladder(t, c, 0);
    chart_print(c, width, CHART_ROWS, st);
    free(c);
}
