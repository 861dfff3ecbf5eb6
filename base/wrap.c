/* wrap.c - long output lines broken at words (see wrap.h). */
#include "base/wrap.h"

#include <string.h>

/* Bytes of the escape sequence or character at s[i] (of n), and its
 * display columns in *cols: 0 for an escape sequence or a continuation. */
static size_t unit_at(const char *s, size_t i, size_t n, int *cols)
{
    size_t k = i + 1;
    if (s[i] == '\033') { /* CSI ... final byte */
        if (k < n && s[k] == '[')
            for (k++; k < n && !((unsigned char)s[k] >= 0x40 && (unsigned char)s[k] <= 0x7E); k++)
                ;
        *cols = 0;
        return (k < n ? k + 1 : n) - i;
    }
    while (k < n && ((unsigned char)s[k] & 0xC0) == 0x80)
        k++;
    *cols = 1;
    return k - i;
}

static int columns(const char *s, size_t n)
{
    int w = 0, c;
    for (size_t i = 0; i < n; w += c)
        i += unit_at(s, i, n, &c);
    return w;
}

/* The column continuation lines start at: after the last gap of two or
 * more blanks before byte `upto` (where the first line breaks), so that a
 * table's cell goes on under itself, if that leaves 20 columns; else
 * under the line's leading blanks. */
static int hang(const char *s, size_t n, size_t upto, int width)
{
    size_t i = 0;
    int col = 0, c, lead, at = -1;
    while (i < n && s[i] == ' ')
        i++, col++;
    lead = col;
    while (i < upto && i < n) {
        if (s[i] == ' ' && i + 1 < n && s[i + 1] == ' ') {
            while (i < n && s[i] == ' ')
                i++, col++;
            at = col;
            continue;
        }
        i += unit_at(s, i, n, &c);
        col += c;
    }
    if (at >= 0 && at <= width - 20)
        return at;
    return lead <= width - 20 ? lead : 0;
}

/* Where the first `room` columns of s end: the last blank that fits
 * (*cut), or, with none, the end of what fits. */
static size_t fit(const char *s, size_t n, int room)
{
    size_t i = 0, cut = 0;
    int col = 0, c;
    while (i < n) {
        size_t u = unit_at(s, i, n, &c);
        if (col + c > room)
            break;
        if (s[i] == ' ' && i > 0)
            cut = i;
        col += c, i += u;
    }
    if (i == n)
        return n;
    return cut > 0 ? cut : i > 0 ? i : unit_at(s, 0, n, &c); /* one word wider than the room: cut it */
}

static void blanks(int k, wrap_emit emit, void *ud)
{
    static const char sp[] = "                                                                ";
    for (; k > 0; k -= 64)
        emit(ud, sp, (size_t)(k < 64 ? k : 64));
}

/* One line (no newline) passed on in pieces of at most width columns,
 * each broken at the last blank that fits. */
static void wrap_line(const char *s, size_t n, int width, wrap_emit emit, void *ud)
{
    int indent = hang(s, n, fit(s, n, width), width), first = 1;
    while (n > 0) {
        size_t cut = fit(s, n, first ? width : width - indent);
        if (!first)
            blanks(indent, emit, ud);
        emit(ud, s, cut);
        s += cut, n -= cut;
        while (n > 0 && *s == ' ')
            s++, n--;
        if (n > 0)
            emit(ud, "\n", 1);
        first = 0;
    }
}

static void pass_line(wrap_state *w, int width, wrap_emit emit, void *ud)
{
    if (width >= 20 && columns(w->line, w->len) > width)
        wrap_line(w->line, w->len, width, emit, ud);
    else
        emit(ud, w->line, w->len);
    w->len = 0;
}

void wrap_write(wrap_state *w, int width, const char *s, size_t n, wrap_emit emit, void *ud)
{
    while (n > 0) {
        const char *nl = memchr(s, '\n', n);
        size_t k = nl ? (size_t)(nl - s) : n;
        if (w->raw || w->len + k >= WRAP_LINE) { /* as it is, to the line's end */
            if (!w->raw && w->len)
                emit(ud, w->line, w->len);
            w->len = 0;
            w->raw = 1;
            emit(ud, s, k);
        } else {
            memcpy(w->line + w->len, s, k);
            w->len += k;
        }
        if (!nl)
            return;
        if (!w->raw)
            pass_line(w, width, emit, ud);
        w->raw = 0;
        emit(ud, "\n", 1);
        s += k + 1, n -= k + 1;
    }
}

void wrap_flush(wrap_state *w, wrap_emit emit, void *ud)
{
    if (w->len == 0)
        return;
    emit(ud, w->line, w->len);
    w->len = 0;
    w->raw = 1;
}
