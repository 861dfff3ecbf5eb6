/* wrap.h - output lines longer than the screen, broken at words as they
 * are shown, so that a terminal never cuts a word ("eleme/ntwise"): a
 * stream of output goes in, lines of at most `width` display columns come
 * out. A continuation line starts under the cell it breaks in: after the
 * last gap of two blanks before the break ("  bench EXPR   every mode, ..."
 * continues under "every"), else under the line's leading blanks. Lines
 * that fit, and escape sequences (colours), pass unchanged. */
#ifndef CUK_WRAP_H
#define CUK_WRAP_H

#include <stddef.h>

#define WRAP_LINE 4096 /* a longer line is passed on as it is */

typedef void (*wrap_emit)(void *ud, const char *s, size_t n);

typedef struct {
    char line[WRAP_LINE]; /* the line being written, not yet passed on */
    size_t len;
    int raw;              /* passed on as it is until its end (too long, or flushed half-way) */
} wrap_state;

/* Take n bytes of output; pass complete lines on to emit, wrapped to width
 * (width < 20: not wrapped). */
void wrap_write(wrap_state *w, int width, const char *s, size_t n, wrap_emit emit, void *ud);
/* Pass on a line begun and not ended (a prompt); the rest of it follows
 * unwrapped. */
void wrap_flush(wrap_state *w, wrap_emit emit, void *ud);

#endif
