/* caret.h - a place in source text as cuk's errors show it: its line and
 * column, and the line with a caret under the place. Statements' errors
 * (run.c) and the compiler messages of a user's CUDA file (`kernel`) are
 * shown the same way. */
#ifndef CUK_CARET_H
#define CUK_CARET_H

#include <stddef.h>

/* Line (1-based) and column (1-based, in characters) of byte pos of text,
 * and where its line starts. */
void caret_where(const char *text, size_t len, size_t pos, int *line, int *col, size_t *line_start);

/* The line holding pos, and a caret under pos, on the error channel; a
 * long line shows a window around pos. */
void caret_show(const char *text, size_t len, size_t line_start, size_t pos);

/* "file:line:col: kind: msg", the line and the caret: a message about
 * byte pos of a file's whole text. */
void caret_report(const char *file, const char *text, size_t len, size_t pos, const char *kind, const char *msg);

#endif
