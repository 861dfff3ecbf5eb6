/* tables.c - tables packed to the terminal's width (see tables.h). */
#include "engine/measure/tables.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/out.h"
#include "engine/measure/chart.h"

int tab_width(const char *s)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        w += (*p & 0xC0) != 0x80;
    return w;
}

/* s padded to width display columns, on the left or the right. */
static void put_cell(const char *s, int width, int right)
{
    int pad = width - tab_width(s);
    if (pad < 0)
        pad = 0;
    out_printf(right ? "%*s%s" : "%*s%s%*s", right ? pad : 0, "", s, right ? 0 : pad, "");
}

/* A bar cell: "FRAC TOP", the bar's length and the top of its spread as
 * fractions of the width (chart.h). */
static void put_bar(const char *cell, int width)
{
    double f = 0, top = 0;
    char bar[1024];
    if (sscanf(cell, "%lf %lf", &f, &top) < 1 || !(f > 0)) {
        out_printf("%*s", width, "");
        return;
    }
    chart_bar(bar, sizeof bar, width < 200 ? width : 200, f, top, chart_style_for(0, 1));
    out_printf("%s", bar);
}

/* The columns of one block: from `first` on while they fit; returns the
 * end, and the width left over for a bar. */
static int block_end(const tab_col *cols, int ncols, int first, int width, int indent, int *spare)
{
    int used = indent + cols[0].width, c = first;
    while (c < ncols && used + 2 + cols[c].width <= width)
        used += 2 + cols[c++].width;
    if (c == first && c < ncols) /* one column wider than the screen still goes */
        used += 2 + cols[c++].width;
    *spare = width - used;
    return c;
}

static int is_note(char (*cells)[TAB_CELL], int ncols, int r) { return ncols > 1 && cells[r * ncols + 1][0] == '\t'; }

static void print_row(const tab_col *cols, int ncols, char (*cells)[TAB_CELL], int r, int from, int to, int spare,
                      int indent)
{
    out_printf("%*s", indent, "");
    put_cell(cells[r * ncols], cols[0].width, cols[0].right);
    for (int c = from; c < to; c++) {
        out_printf("  ");
        if (cols[c].bar)
            put_bar(cells[r * ncols + c], cols[c].width + spare);
        else
            put_cell(cells[r * ncols + c], cols[c].width, cols[c].right);
    }
    out_printf("\n");
}

static void print_head(const tab_col *cols, int from, int to, int spare, int indent)
{
    out_printf("%*s", indent, "");
    put_cell(cols[0].head, cols[0].width, cols[0].right);
    for (int c = from; c < to; c++) {
        out_printf("  ");
        put_cell(cols[c].head, cols[c].width + (cols[c].bar ? spare : 0), cols[c].right);
    }
    out_printf("\n");
}

/* Each column as wide as its widest header or cell (notes aside), so that
 * nothing pushes the columns after it out of line. */
static void fit_widths(const tab_col *cols, tab_col *fit, int ncols, char (*cells)[TAB_CELL], int nrows)
{
    for (int c = 0; c < ncols; c++) {
        fit[c] = cols[c];
        int w = tab_width(cols[c].head);
        if (w > fit[c].width)
            fit[c].width = w;
        for (int r = 0; r < nrows && !cols[c].bar; r++)
            if ((c == 0 || !is_note(cells, ncols, r)) && (w = tab_width(cells[r * ncols + c])) > fit[c].width)
                fit[c].width = w;
    }
}

void tab_print(const tab_col *given, int ncols, char (*cells)[TAB_CELL], int nrows, int width, int indent)
{
    tab_col cols[64];
    if (ncols > 64)
        ncols = 64;
    fit_widths(given, cols, ncols, cells, nrows);
    for (int from = 1, block = 0; from < ncols; block++) {
        int spare, to = block_end(cols, ncols, from, width, indent, &spare);
        int has_bar = 0;
        for (int c = from; c < to; c++)
            has_bar |= cols[c].bar;
        if (!has_bar)
            spare = 0;
        print_head(cols, from, to, spare, indent);
        for (int r = 0; r < nrows; r++) {
            if (!is_note(cells, ncols, r))
                print_row(cols, ncols, cells, r, from, to, spare, indent);
            else if (block == 0) {
                char lead[TAB_CELL + 8];
                snprintf(lead, sizeof lead, "%*s%-*s  ", indent, "", cols[0].width, cells[r * ncols]);
                tab_line(lead, cells[r * ncols + 1] + 1, width);
            }
        }
        from = to;
    }
}

void tab_wrap(const char *lead, const char *text, int width, int indent)
{
    int col = tab_width(lead), fresh = 1; /* fresh: no word yet on this line */
    out_printf("%s", lead);
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        const char *w = p;
        int wl = 0;
        for (; *p && *p != ' '; p++)
            wl += (*p & 0xC0) != 0x80;
        if (p == w)
            break;
        if (col + (fresh ? 0 : 1) + wl > width && (!fresh || col > indent)) {
            out_printf("\n%*s", indent, "");
            col = indent;
            fresh = 1;
        }
        if (!fresh) {
            out_printf(" ");
            col++;
        }
        out_printf("%.*s", (int)(p - w), w);
        col += wl;
        fresh = 0;
    }
    out_printf("\n");
}

void tab_line(const char *lead, const char *text, int width)
{
    int room = width - tab_width(lead), n = (int)strlen(text);
    if (tab_width(text) > room) { /* cut at the last blank that leaves a column for the ellipsis */
        int i = 0, cols = 0, cut = 0;
        while (text[i] && cols + 1 <= room - 1) {
            int len = 1;
            while ((text[i + len] & 0xC0) == 0x80)
                len++;
            if (text[i] == ' ')
                cut = i;
            cols++;
            i += len;
        }
        n = cut > 0 ? cut : i;
    }
    out_printf("%s%.*s%s\n", lead, n, text, n < (int)strlen(text) ? "…" : "");
}
