/* present.c - the large-type view of the last comparison (see present.h). */
#include "repl/present.h"

#if defined(CUK_HAVE_NCURSES) && defined(CUK_HAVE_READLINE)
#include <stdio.h>
#include <string.h>

#include "base/fmt.h"
#include "engine/measure/chart.h"
#include "engine/measure/results.h"
#include "engine/session/stats.h"

#define MAX_SHOWN 16

/* A 3x5 font, '#' a pixel: enough for a speedup ("47.7x", "~1x", "0.21x"). */
static const struct {
    char c;
    const char *row[5];
} font[] = {
    {'0', {"###", "#.#", "#.#", "#.#", "###"}},
    {'1', {".#.", "##.", ".#.", ".#.", "###"}},
    {'2', {"###", "..#", "###", "#..", "###"}},
    {'3', {"###", "..#", ".##", "..#", "###"}},
    {'4', {"#.#", "#.#", "###", "..#", "..#"}},
    {'5', {"###", "#..", "###", "..#", "###"}},
    {'6', {"###", "#..", "###", "#.#", "###"}},
    {'7', {"###", "..#", "..#", "..#", "..#"}},
    {'8', {"###", "#.#", "###", "#.#", "###"}},
    {'9', {"###", "#.#", "###", "..#", "###"}},
    {'.', {".", ".", ".", ".", "#"}},
    {'x', {"...", "...", "#.#", ".#.", "#.#"}},
    {'~', {".....", ".##.#", "#..#.", ".....", "....."}},
    {'-', {"...", "...", "###", "...", "..."}},
    {'*', {"#.#", ".#.", "#.#", "...", "..."}},
};

static int glyph(char c)
{
    for (size_t i = 0; i < sizeof font / sizeof font[0]; i++)
        if (font[i].c == c)
            return (int)i;
    return -1;
}

/* Pixels across s in the font, one between letters. */
static int big_width(const char *s)
{
    int px = 0;
    for (; *s; s++)
        if (glyph(*s) >= 0)
            px += (int)strlen(font[glyph(*s)].row[0]) + 1;
    return px > 0 ? px - 1 : 0;
}

/* s in the font from (row, col), each pixel sx columns by sy rows. */
static void draw_big(WINDOW *w, int row, int col, const char *s, int sx, int sy, attr_t a, const char *block)
{
    char line[2048];
    size_t bl = strlen(block);
    for (int r = 0; r < 5; r++) {
        size_t n = 0;
        for (const char *p = s; *p; p++) {
            int g = glyph(*p);
            if (g < 0)
                continue;
            for (const char *px = font[g].row[r]; *px; px++)
                for (int k = 0; k < sx && n + bl < sizeof line - 1; k++) {
                    memcpy(line + n, *px == '#' ? block : " ", *px == '#' ? bl : 1);
                    n += *px == '#' ? bl : 1;
                }
            for (int k = 0; k < sx && p[1] && n < sizeof line - 1; k++)
                line[n++] = ' ';
        }
        line[n] = '\0';
        for (int k = 0; k < sy; k++)
            draw_text(w, row + r * sy + k, col, a, line);
    }
}

/* The rows to compare, as indices into t: a bench's all; a ladder's at the
 * largest size measured. */
static int pick_rows(const result_table *t, int *idx, int most)
{
    int size = 0, n = 0;
    for (int i = 0; t->ladder && i < t->nrows; i++)
        if (t->rows[i].kernel.runs && t->rows[i].size > size)
            size = t->rows[i].size;
    for (int i = 0; i < t->nrows && n < most; i++)
        if (t->rows[i].size == size)
            idx[n++] = i;
    return n;
}

/* The times shown: kernel times, or end to end (e2e). */
static const stat_summary *shown(const result_row *r, int e2e) { return e2e ? &r->e2e : &r->kernel; }

/* Which two to set against each other: cpu if it was measured (else the
 * slowest) and the fastest of the others; -1 where there is none. */
static void pick_pair(const result_table *t, const int *idx, int n, int e2e, int *ref, int *fast)
{
    int slow = -1;
    *ref = *fast = -1;
    for (int k = 0; k < n; k++) {
        const result_row *r = &t->rows[idx[k]];
        if (!shown(r, e2e)->runs)
            continue;
        if (r->mode->reference)
            *ref = idx[k];
        if (slow < 0 || shown(r, e2e)->med > shown(&t->rows[slow], e2e)->med)
            slow = idx[k];
    }
    if (*ref < 0)
        *ref = slow;
    for (int k = 0; k < n; k++)
        if (shown(&t->rows[idx[k]], e2e)->runs && idx[k] != *ref &&
            (*fast < 0 || shown(&t->rows[idx[k]], e2e)->med < shown(&t->rows[*fast], e2e)->med))
            *fast = idx[k];
}

/* One mode: its name, a bar of len cells (a log scale: chart.h), the time;
 * or why it did not run. */
static void draw_bar(WINDOW *w, int row, int bh, const result_row *r, int len, int e2e, int fastest,
                     const draw_look *look)
{
    char t[32], bar[1024] = "";
    int x = draw_textf(w, row, 2, look->mode | A_BOLD, "%-8s", r->mode->name);
    if (!shown(r, e2e)->runs) {
        draw_textf(w, row, x, A_NORMAL, "not run: %s", r->why[0] ? r->why : e2e ? "no end-to-end time" : "no kernel time");
        return;
    }
    for (int i = 0; i < len && strlen(bar) + strlen(look->block) < sizeof bar; i++)
        strcat(bar, look->block);
    for (int k = 0; k < bh; k++)
        draw_text(w, row + k, x, fastest ? look->good : look->mode, bar);
    draw_textf(w, row + bh - 1, x + len, A_BOLD, " %s", fmt_ms(t, sizeof t, shown(r, e2e)->med));
}

void present_draw(WINDOW *w, int top, int rows, const draw_look *look, int e2e)
{
    const result_table *t = res_last();
    int W = getmaxx(w), idx[MAX_SHOWN], len[MAX_SHOWN], ref, fast;
    const char *what = e2e ? "end to end (copies included)" : "kernel time";
    if (!t) {
        draw_text(w, top + 1, 2, look->head, "present: no comparison yet.");
        draw_text(w, top + 2, 2, A_NORMAL, "Run a bench (bench cpu blas: A @ B)");
        draw_text(w, top + 3, 2, A_NORMAL, "and it shows here in large type.");
        draw_text(w, top + 4, 2, A_NORMAL, "present off: the panel again.");
        return;
    }
    int n = pick_rows(t, idx, MAX_SHOWN);
    if (n > rows - 4)
        n = rows - 4 > 0 ? rows - 4 : 0;
    pick_pair(t, idx, n, e2e, &ref, &fast);
    /* what to say: "47.7x", and over what */
    char big[32] = "", caption[160] = "";
    if (ref >= 0 && fast >= 0) {
        res_ratio x = res_speedup(t, fast, t->rows[ref].mode, e2e);
        if (x.noise)
            snprintf(big, sizeof big, "~1x");
        else
            stats_fmt_ratio(big, sizeof big, x.x, 0, x.est);
        const char *f = t->rows[fast].mode->name, *r = t->rows[ref].mode->name;
        if (x.noise)
            snprintf(caption, sizeof caption, "%s against %s: the same within the noise (%s)", f, r, what);
        else
            snprintf(caption, sizeof caption, "%s against %s: times as fast (%s, medians)", f, r, what);
    }
    /* rows: heading, blank, the bars, blank, caption, the digits 5 high at
     * the least; what is left widens the gaps, then the digits, then the bars */
    int spare = rows - (n + 9), gap = 0, sy = 0, bh = 1, bw = big_width(big);
    if (big[0] && spare >= 0) {
        if (n > 1 && spare >= n - 1)
            gap = 1, spare -= n - 1;
        sy = 1 + spare / 5;
        if (bw > 0 && sy > (W - 4) / (2 * bw))
            sy = (W - 4) / (2 * bw) > 0 ? (W - 4) / (2 * bw) : 1;
        spare -= 5 * (sy - 1);
        if (spare >= n)
            bh = 2;
    }
    int row = top;
    char size[48] = "";
    if (t->ladder && n > 0)
        snprintf(size, sizeof size, " at %s = %d", t->var, t->rows[idx[0]].size);
    int x = draw_textf(w, row, 2, look->head, "%s %s%s", t->ladder ? "ladder" : "bench", t->expr, size);
    draw_textf(w, row, x, A_NORMAL, "   %s, median of the runs, bars on a log scale", what);
    row += 2;
    chart_present_bars(t, idx, n, e2e, W - 2 - 8 - 14, len);
    for (int k = 0; k < n; k++, row += bh + gap)
        draw_bar(w, row, bh, &t->rows[idx[k]], len[k], e2e, idx[k] == fast, look);
    row += 1 - gap;
    if (!big[0])
        return;
    if (!sy) { /* no room for large digits */
        draw_textf(w, row, 2, look->head, "%s against %s: %s (%s)", t->rows[fast].mode->name,
                   t->rows[ref].mode->name, big, what);
        return;
    }
    int bigcols = bw * 2 * sy, col = (W - bigcols) / 2;
    draw_text(w, row, (W - (int)strlen(caption)) / 2 > 2 ? (W - (int)strlen(caption)) / 2 : 2, look->head, caption);
    draw_big(w, row + 1, col > 2 ? col : 2, big, 2 * sy, sy, look->good, look->block);
}

#endif
