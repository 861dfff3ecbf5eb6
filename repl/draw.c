/* draw.c - the panel's look and its text cells (see draw.h). */
#define _XOPEN_SOURCE 700 /* wcwidth, nl_langinfo */

#include "repl/draw.h"

#if defined(CUK_HAVE_NCURSES) && defined(CUK_HAVE_READLINE)
#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

enum { PAIR_TITLE = 1, PAIR_TITLE_MODE, PAIR_ERROR, PAIR_MODE, PAIR_GOOD, PAIR_MARK };

void draw_look_init(draw_look *l)
{
    const char *no = getenv("NO_COLOR");
    const char *cs = nl_langinfo(CODESET);
    memset(l, 0, sizeof *l);
    l->block = cs && !strcmp(cs, "UTF-8") ? "\xe2\x96\x88" : "#"; /* U+2588 FULL BLOCK */
    l->colour = !(no && *no) && has_colors() && start_color() == OK;
    if (!l->colour) { /* bold and reverse only */
        l->title = l->title_mode = l->mark = A_REVERSE;
        l->head = l->error = A_BOLD;
        return;
    }
    short bg = use_default_colors() == OK ? -1 : COLOR_BLACK; /* the terminal's own background */
    init_pair(PAIR_TITLE, COLOR_WHITE, COLOR_BLUE);
    init_pair(PAIR_TITLE_MODE, COLOR_YELLOW, COLOR_BLUE);
    init_pair(PAIR_ERROR, COLOR_RED, bg);
    init_pair(PAIR_MODE, COLOR_CYAN, bg);
    init_pair(PAIR_GOOD, COLOR_GREEN, bg);
    init_pair(PAIR_MARK, COLOR_BLACK, COLOR_YELLOW);
    l->title = COLOR_PAIR(PAIR_TITLE) | A_BOLD;
    l->title_mode = COLOR_PAIR(PAIR_TITLE_MODE) | A_BOLD;
    l->head = A_BOLD;
    l->error = COLOR_PAIR(PAIR_ERROR) | A_BOLD;
    l->mode = COLOR_PAIR(PAIR_MODE);
    l->good = COLOR_PAIR(PAIR_GOOD) | A_BOLD;
    l->mark = COLOR_PAIR(PAIR_MARK);
}

/* One character of s[i..n): its length in bytes (a bad byte is one) and
 * its display columns (a control or unknown character counts one). */
static size_t next_char(const char *s, size_t i, size_t n, mbstate_t *st, int *cols)
{
    wchar_t wc;
    size_t k = mbrtowc(&wc, s + i, n - i, st);
    if (k == 0 || k > n - i) {
        memset(st, 0, sizeof *st);
        *cols = 1;
        return 1;
    }
    int cw = wcwidth(wc);
    *cols = cw > 0 ? cw : 1;
    return k;
}

int draw_width(const char *s, size_t n)
{
    mbstate_t st;
    int total = 0, cw;
    memset(&st, 0, sizeof st);
    for (size_t i = 0; i < n; total += cw)
        i += next_char(s, i, n, &st, &cw);
    return total;
}

size_t draw_skip(const char *s, size_t n, int cols)
{
    mbstate_t st;
    size_t i = 0;
    memset(&st, 0, sizeof st);
    while (i < n && cols > 0) {
        int cw;
        size_t k = next_char(s, i, n, &st, &cw);
        if (cw > cols) /* a wide character that would stick out */
            break;
        cols -= cw;
        i += k;
    }
    return i;
}

int draw_text(WINDOW *w, int row, int col, attr_t a, const char *s)
{
    int room = getmaxx(w) - col;
    if (room <= 0 || row < 0 || row >= getmaxy(w))
        return col;
    size_t len = strlen(s), n = draw_skip(s, len, room);
    wattron(w, a);
    mvwaddnstr(w, row, col, s, (int)n);
    wattroff(w, a);
    return col + draw_width(s, n);
}

int draw_textf(WINDOW *w, int row, int col, attr_t a, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return draw_text(w, row, col, a, buf);
}

int draw_cell(WINDOW *w, int row, int col, int width, int right, attr_t a, const char *s)
{
    char buf[512];
    size_t n = draw_skip(s, strlen(s), width);
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    /* the rows were erased before drawing: the padding is already blank */
    draw_text(w, row, right ? col + width - draw_width(buf, n) : col, a, buf);
    return col + width;
}

#endif
