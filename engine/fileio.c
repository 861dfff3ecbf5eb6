/* fileio.c - loading and saving matrices (see fileio.h): the format by the
 * file name's extension, the atomic save, and errors that name the file. */
#include "engine/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/error.h"
#include "engine/csv.h"
#include "engine/fileerr.h"
#include "engine/npy.h"

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

/* ----------------------------------------------------------------- errors */

/* ----------------------------------------------------------------- saving */

/* A hidden temporary name beside path: "dir/a.npy" -> "dir/.a.npy.XXXXXX"
 * for mkstemp. Same directory, so that rename is atomic. */
static char *temp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    char *t = malloc(strlen(path) + 9);

    if (t)
        sprintf(t, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
    return t;
}

/* Permissions for the new file: an existing file's own (saving over it
 * should not change who can read it), else what open() would give,
 * 0666 less the umask, instead of mkstemp's 0600. */
static mode_t new_file_mode(const char *path)
{
    struct stat st;
    mode_t mask;

    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return st.st_mode & 07777;
    mask = umask(0);          /* the only way to read it; single-threaded */
    umask(mask);
    return 0666 & ~mask;
}

/* Flush all the way to the disk and close; 0 or errno. fclose runs even
 * after an error, so that the stream is never leaked. */
static int finish_file(FILE *fp, int rc)
{
    if (rc == 0 && fflush(fp) != 0)
        rc = fileerr_errno();
    if (rc == 0 && fsync(fileno(fp)) != 0)
        rc = fileerr_errno();
    if (fclose(fp) != 0 && rc == 0)
        rc = fileerr_errno();
    return rc;
}

/* Write the matrix to the file mkstemp opened as fd; 0, errno, or -1 with
 * the error set. */
static int write_temp(int fd, const char *path, file_format fmt, const cuk_matrix *m,
                      const float *x)
{
    FILE *fp = NULL;
    int rc;

    if (fchmod(fd, new_file_mode(path)) != 0 || !(fp = fdopen(fd, "wb"))) {
        rc = fileerr_errno();
        close(fd);
        return rc;
    }
    errno = 0;                /* fileerr_errno must not report a stale one */
    rc = fmt == FMT_NPY ? npy_write(fp, m, x) : csv_write(fp, m, x);
    return finish_file(fp, rc);
}

/* Create tmp, write the matrix to it and rename it over path; 0, errno, or
 * -1 with the error set. On failure tmp goes and path is left as it was. */
static int write_over(char *tmp, const char *path, file_format fmt, const cuk_matrix *m,
                      const float *x)
{
    int fd = mkstemp(tmp);
    int rc;

    if (fd < 0)
        return fileerr_errno();
    rc = write_temp(fd, path, fmt, m, x);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = fileerr_errno();
    if (rc != 0)
        unlink(tmp);
    return rc;
}

int fileio_save(cuk_matrix *m, const char *path)
{
    file_format fmt = format_of(path);
    const float *x;
    char *tmp;
    int rc;

    if (fmt == FMT_NONE)
        return cuk_err("save: don't know how to write '%s': use .npy or .csv", path);
    x = mat_host(m);
    if (!x)
        return fileerr_wrap("save", path);
    tmp = temp_name(path);
    if (!tmp)
        return cuk_err("save: %s: out of memory", path);
    rc = write_over(tmp, path, fmt, m, x);
    free(tmp);
    if (rc > 0)
        return cuk_err("save: cannot write '%s': %s", path, strerror(rc));
    return rc;
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
