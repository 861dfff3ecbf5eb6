/* lines.c - reading text a line at a time, capped (see lines.h). */
#include "engine/files/lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"

/* The message "[WHAT: ]NAME:LINE: why"; returns -1. */
static int lines_fail(const line_reader *r, const char *why)
{
    return cuk_err("%s%s%s:%ld: %s", r->what ? r->what : "", r->what ? ": " : "", r->name, r->lineno + 1, why);
}

/* Room for at least need + 1 bytes (the '\0'): 0, or -1 with the error
 * set. Doubling, up to what the cap needs. */
static int lines_grow(line_reader *r, size_t need)
{
    char why[96], b[32];
    size_t cap = r->cap ? r->cap : 256;
    if (r->cap >= need + 1)
        return 0;
    while (cap < need + 1)
        cap *= 2;
    if (cap > LINES_MAX + 2)
        cap = LINES_MAX + 2;
    char *p = realloc(r->buf, cap);
    if (!p) {
        snprintf(why, sizeof why, "out of memory for a line of %s", fmt_bytes(b, sizeof b, (double)need));
        return lines_fail(r, why);
    }
    r->buf = p;
    r->cap = cap;
    return 0;
}

/* Where fgets ended in the n + 1 bytes at p, which were filled with '\n'
 * before it ran: its '\0' is the last one there, whatever NULs the line
 * holds before it, so the bytes read are told exactly. */
static size_t bytes_read(const char *p, size_t n)
{
    while (n > 0 && p[n] != '\0')
        n--;
    return n;
}

/* fgets a chunk at a time (growing from 256 bytes to 1 MiB), which is
 * fast also where every byte read one by one would be checked (the
 * sanitizer builds), up to one byte past the cap, to tell a line at the
 * cap from one past it. */
ssize_t lines_next(line_reader *r)
{
    size_t len = 0, chunk = 256;
    errno = 0;
    while (len <= LINES_MAX) {
        size_t room = LINES_MAX + 1 - len, n = chunk < room ? chunk : room;
        if (lines_grow(r, len + n) != 0)
            return -1;
        memset(r->buf + len, '\n', n + 1);
        if (!fgets(r->buf + len, (int)n + 1, r->f))
            break;
        size_t got = bytes_read(r->buf + len, n);
        len += got;
        if ((got > 0 && r->buf[len - 1] == '\n') || got < n)
            break; /* the line's end, or the input's */
        chunk = chunk < ((size_t)1 << 20) ? 2 * chunk : chunk;
    }
    if (ferror(r->f)) {
        char why[160];
        snprintf(why, sizeof why, "cannot read: %s", strerror(errno ? errno : EIO));
        return lines_fail(r, why);
    }
    if (len > LINES_MAX)
        return lines_fail(r, "line longer than 64 MiB: is this a text file?");
    if (len == 0)
        return 0;
    r->buf[len] = '\0';
    r->lineno++;
    return (ssize_t)len;
}

void lines_trim(line_reader *r, size_t keep)
{
    if (r->cap > keep) {
        free(r->buf);
        r->buf = NULL;
        r->cap = 0;
    }
}

void lines_free(line_reader *r) { lines_trim(r, 0); }
