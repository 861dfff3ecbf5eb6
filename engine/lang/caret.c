/* caret.c - places in source text shown with a caret (caret.h). */
#include "engine/lang/caret.h"

#include <string.h>

#include "base/out.h"

/* Bytes that show as one column: a UTF-8 sequence; else 1 (shown as '?'). */
static size_t char_len(const unsigned char *p, const unsigned char *end)
{
    size_t n = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC2 ? 2 : 1;
    if (n == 1 || p + n > end)
        return 1;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 1;
    return n;
}

static int printable(const unsigned char *p, size_t n) { return n > 1 || (*p >= 32 && *p < 127) || *p == '\t'; }

/* The line holding pos, a caret under pos; long lines show a window. */
void caret_show(const char *text, size_t len, size_t line_start, size_t pos)
{
    const unsigned char *t = (const unsigned char *)text, *end = t + len;
    size_t line_end = line_start;
    while (line_end < len && text[line_end] != '\n')
        line_end++;
    size_t from = line_start, to = line_end;
    if (pos - line_start > 60) /* keep the caret in view on a 1 MB line */
        from = pos - 50;
    if (to - from > 100)
        to = from + 100;
    while (from > line_start && (t[from] & 0xC0) == 0x80)
        from--;
    char shown[512], caret[512];
    size_t ns = 0, nc = 0;
    if (from > line_start) {
        memcpy(shown, "...", 3);
        memcpy(caret, "   ", 3);
        ns = nc = 3;
    }
    for (size_t i = from; i < to && ns < 400;) {
        size_t n = char_len(t + i, end);
        int ok = printable(t + i, n);
        if (i < pos)
            caret[nc++] = text[i] == '\t' ? '\t' : ' ';
        if (ok) {
            memcpy(shown + ns, text + i, n);
            ns += n;
        } else {
            shown[ns++] = '?';
        }
        i += n;
    }
    if (to < line_end)
        memcpy(shown + ns, "...", 3), ns += 3;
    caret[nc++] = '^';
    out_errorf("  %.*s\n  %.*s\n", (int)ns, shown, (int)nc, caret);
}

void caret_where(const char *text, size_t len, size_t pos, int *line, int *col, size_t *line_start)
{
    *line = 1;
    *line_start = 0;
    for (size_t i = 0; i < pos && i < len; i++)
        if (text[i] == '\n') {
            (*line)++;
            *line_start = i + 1;
        }
    *col = 1;
    for (size_t i = *line_start; i < pos;) {
        i += char_len((const unsigned char *)text + i, (const unsigned char *)text + len);
        (*col)++;
    }
}

void caret_report(const char *file, const char *text, size_t len, size_t pos, const char *kind, const char *msg)
{
    int line, col;
    size_t ls;
    caret_where(text, len, pos, &line, &col, &ls);
    out_errorf("%s:%d:%d: %s: %s\n", file, line, col, kind, msg);
    caret_show(text, len, ls, pos);
}
