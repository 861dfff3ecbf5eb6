/* draw.h - what the panel and its large view share: the look (colours where
 * the terminal has them and NO_COLOR is not set, else bold and reverse),
 * text measured in display columns ("µs" is two bytes, one column), and
 * text put into a window cut at a width, never wrapping into the next row. */
#ifndef CUK_DRAW_H
#define CUK_DRAW_H

#if defined(CUK_HAVE_NCURSES) && defined(CUK_HAVE_READLINE)
#include <ncurses.h>
#include <stddef.h>

#include "base/error.h"

typedef struct {
    int colour;        /* colours are in use */
    attr_t title;      /* the title bar */
    attr_t title_mode; /* the mode's name in it */
    attr_t head;       /* column headings */
    attr_t error;      /* error output, "error" and "stopped" rows */
    attr_t mode;       /* mode names */
    attr_t good;       /* a speedup, the fastest mode's bar */
    attr_t mark;       /* "-- 40 lines below, PgDn --" */
    const char *block; /* a full block, or "#" where the terminal is not UTF-8 */
} draw_look;

/* Fill l for the current screen (after newterm): colours when has_colors()
 * and NO_COLOR is unset or empty (https://no-color.org). */
void draw_look_init(draw_look *l);

/* Display columns of s[0..n); the byte offset in s[0..n) after cols columns. */
int draw_width(const char *s, size_t n);
size_t draw_skip(const char *s, size_t n, int cols);

/* s at (row, col) in attribute a, cut at the window's right edge; the
 * column after it. */
int draw_text(WINDOW *w, int row, int col, attr_t a, const char *s);
int draw_textf(WINDOW *w, int row, int col, attr_t a, const char *fmt, ...) CUK_PRINTF(5, 6);
/* s in a cell `width` columns wide at (row, col), cut or padded with spaces
 * (right: aligned right); the column after the cell. */
int draw_cell(WINDOW *w, int row, int col, int width, int right, attr_t a, const char *s);

#endif
#endif
