/* fileio.c - loading and saving matrices (see fileio.h): the format by the
 * file name's extension; saves go through savefile.h. */
#include "engine/files/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/error.h"
#include "engine/files/csv.h"
#include "engine/files/fileerr.h"
#include "engine/files/npy.h"
#include "engine/files/savefile.h"

typedef enum { FMT_NONE, FMT_NPY, FMT_CSV } file_format;

/* The format the file name asks for: its extension, in any case. */
static file_format format_of(const char *path)
{
    const char *base = strrchr(path, '/');
    const char *dot;

    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    if (!dot || dot == base)          /* ".npy" alone is a hidden file's name */
        return FMT_NONE;
    if (strcasecmp(dot, ".npy") == 0)
        return FMT_NPY;
    if (strcasecmp(dot, ".csv") == 0)
        return FMT_CSV;
    return FMT_NONE;
}

/* ----------------------------------------------------------------- saving */

/* What a save writes: the matrix m, whose values are x, in format fmt. */
typedef struct {
    file_format fmt;
    const cuk_matrix *m;
    const float *x;
} matrix_file;

static int write_matrix(FILE *fp, const void *ud)
{
    const matrix_file *w = ud;
    return w->fmt == FMT_NPY ? npy_write(fp, w->m, w->x) : csv_write(fp, w->m, w->x);
}

int fileio_save(cuk_matrix *m, const char *path)
{
    matrix_file w = {format_of(path), m, NULL};

    if (w.fmt == FMT_NONE)
        return cuk_err("save: don't know how to write '%s': use .npy or .csv", path);
    if (!(w.x = mat_host(m)))
        return fileerr_wrap("save", path);
    return savefile_write("save", path, write_matrix, &w);
}

/* ---------------------------------------------------------------- loading */

/* path opened for reading; NULL with the error set. */
static FILE *open_for_load(const char *path)
{
    FILE *fp = fopen(path, "rb");
    int err = fp ? 0 : errno;
    struct stat st;

    /* fopen opens a directory for reading; say so instead of "truncated". */
    if (fp && fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        fp = NULL;
        err = EISDIR;
    }
    if (!fp)
        cuk_err("load: cannot open '%s': %s", path, strerror(err));
    return fp;
}

cuk_matrix *fileio_load(const char *path)
{
    file_format fmt = format_of(path);
    cuk_matrix *m;
    FILE *fp;

    if (fmt == FMT_NONE) {
        cuk_err("load: don't know how to read '%s': use .npy or .csv", path);
        return NULL;
    }
    fp = open_for_load(path);
    if (!fp)
        return NULL;
    errno = 0;                /* fileerr_errno must not report a stale one */
    m = fmt == FMT_NPY ? npy_load(fp, path) : csv_load(fp, path);
    fclose(fp);
    return m;
}
