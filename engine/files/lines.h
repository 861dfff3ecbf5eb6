/* lines.h - text read a line at a time, as scripts and .csv files are:
 * the end of the input told apart from a failure, and lines capped, so
 * that a file that never ends a line (a link to /dev/zero) or a line that
 * cannot be held is an error naming the file and the line, not the end of
 * the file. */
#ifndef CUK_LINES_H
#define CUK_LINES_H

#include <stdio.h>
#include <sys/types.h>

/* The longest line read: 64 MiB, far past any script, and a .csv row of
 * about five million values as cuk writes them. */
#define LINES_MAX ((size_t)64 << 20)

typedef struct {
    FILE *f;
    const char *name;   /* the file, for messages */
    const char *what;   /* the command whose messages these are ("load"), or NULL */
    char *buf;          /* the line read last, with its '\n', '\0'-terminated */
    size_t cap;
    long lineno;        /* of the line read last */
} line_reader;

/* Read the next line into r->buf: its length in bytes (> 0), 0 at the end
 * of the input, or -1 with the error set ("NAME:LINE: ..."): a read error,
 * out of memory for the line, or a line longer than LINES_MAX. */
ssize_t lines_next(line_reader *r);

/* Give back the buffer if it is larger than keep bytes (after a long
 * line); lines_free(r) is lines_trim(r, 0). */
void lines_trim(line_reader *r, size_t keep);
void lines_free(line_reader *r);

#endif
