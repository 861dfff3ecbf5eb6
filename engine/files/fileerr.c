/* fileerr.c - errors of file I/O that name the file, shared by fileio.c,
 * npy.c and csv.c (see fileerr.h). */
#include "engine/files/fileerr.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"

/* Prefix the pending error (say "out of memory ..." from the allocator) with
 * the operation and the file, so that the user sees which file it concerns.
 * A cancel or fatal error is left as it is. Returns -1. */
int fileerr_wrap(const char *op, const char *path)
{
    const cuk_error *e = cuk_err_get();
    char why[sizeof e->msg];

    if (e->kind != CUK_E_USER)
        return -1;
    snprintf(why, sizeof why, "%s", e->msg);   /* cuk_err overwrites e->msg */
    return cuk_err("%s: %s: %s", op, path, why);
}

cuk_matrix *fileerr_new_matrix(int rows, int cols, const char *path)
{
    cuk_matrix *m = mat_new_host(rows, cols);

    if (!m)
        fileerr_wrap("load", path);
    return m;
}

int fileerr_errno(void)
{
    return errno ? errno : EIO;
}

int fileerr_read(const char *path)
{
    return cuk_err("load: cannot read '%s': %s", path, strerror(fileerr_errno()));
}
