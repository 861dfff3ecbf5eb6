/* fileio.c - loading and saving matrices (see fileio.h): the format by the
 * file name's extension, and the atomic save that every file cuk writes
 * goes through (a temporary beside the file, renamed over it; links
 * followed; signals held off while it exists). */
#include "engine/files/fileio.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/error.h"
#include "engine/files/csv.h"
#include "engine/files/fileerr.h"
#include "engine/files/npy.h"

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

/* name as seen from the folder that holds path: "d/link" and "t.npy" ->
 * "d/t.npy"; an absolute name as it is. A new string, or NULL. */
static char *beside(const char *path, const char *name)
{
    const char *slash = strrchr(path, '/');
    int dirlen = name[0] == '/' || !slash ? 0 : (int)(slash - path) + 1;
    size_t n = (size_t)dirlen + strlen(name) + 1;
    char *p = malloc(n);

    if (p)
        snprintf(p, n, "%.*s%s", dirlen, path, name);
    return p;
}

/* The file that path names once symbolic links are followed, as open()
 * follows them: a save replaces the link's target and the link stays a
 * link, as NumPy's does (a dangling link's target is created). A new
 * string; NULL with errno set. */
static char *follow_links(const char *path)
{
    char *p = strdup(path);
    for (int hops = 0; p; hops++) {
        struct stat st;
        char target[PATH_MAX];
        ssize_t n = -1;
        int err = hops == 40 ? ELOOP : 0;     /* the limit the kernel sets */
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
            return p;             /* not there yet, or the file itself */
        if (!err && (n = readlink(p, target, sizeof target)) < 0)
            err = errno;
        else if (n == (ssize_t)sizeof target)
            err = ENAMETOOLONG;
        if (err) {
            free(p);
            errno = err;
            return NULL;
        }
        target[n] = '\0';
        char *next = beside(p, target);
        free(p);
        p = next;
    }
    return NULL;
}

/* A hidden temporary name beside path: "dir/a.npy" -> "dir/.a.npy.XXXXXX"
 * for mkstemp. Same folder, so that rename is atomic. A long name is cut
 * (at a character's start) so that the temporary's still fits NAME_MAX. */
static char *temp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;
    size_t keep = strlen(base);
    char *t;

    if (keep > NAME_MAX - 8) {
        keep = NAME_MAX - 8;
        while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80)
            keep--;
    }
    t = malloc(dirlen + keep + 9);
    if (t)
        sprintf(t, "%.*s.%.*s.XXXXXX", (int)dirlen, path, (int)keep, base);
    return t;
}

/* While a save's temporary file exists, the signals that end cuk (or at the
 * prompt cancel the command) are caught instead: the writer stops at its
 * next interrupt check, the temporary goes, and only then does the signal
 * do what it would have done. So neither Ctrl-C nor a kill leaves a
 * ".a.npy.XXXXXX" behind. (SIGKILL can't be caught; nothing helps there.) */
static const int save_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define SAVE_NSIG ((int)(sizeof save_signals / sizeof save_signals[0]))

static volatile sig_atomic_t save_caught;

static void on_save_signal(int sig)
{
    save_caught = sig;
    cuk_interrupted = 1;      /* the writer polls this (cuk_check_interrupt) */
}

/* Catch the signals not ignored; old gets the dispositions to put back. */
static void guard_begin(struct sigaction *old)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_save_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    save_caught = 0;
    for (int i = 0; i < SAVE_NSIG; i++)
        if (sigaction(save_signals[i], NULL, &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
            sigaction(save_signals[i], &sa, NULL);
}

/* Put the dispositions back, then deliver a signal caught meanwhile: by
 * default it ends cuk with the signal's status; at the prompt the REPL's
 * handler takes it. */
static void guard_end(const struct sigaction *old)
{
    for (int i = 0; i < SAVE_NSIG; i++)
        if (old[i].sa_handler != SIG_IGN)
            sigaction(save_signals[i], &old[i], NULL);
    if (save_caught)
        raise(save_caught);
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

/* Write the file mkstemp opened as fd through fn; 0, errno, or -1 with the
 * error set. */
static int write_temp(int fd, const char *path, fileio_writer fn, const void *ud)
{
    FILE *fp = NULL;
    int rc;

    if (fchmod(fd, new_file_mode(path)) != 0 || !(fp = fdopen(fd, "wb"))) {
        rc = fileerr_errno();
        close(fd);
        return rc;
    }
    errno = 0;                /* fileerr_errno must not report a stale one */
    rc = fn(fp, ud);
    return finish_file(fp, rc);
}

/* Create tmp, write it through fn and rename it over path; 0, errno, or -1
 * with the error set. On failure tmp goes and path is left as it was. */
static int write_over(char *tmp, const char *path, fileio_writer fn, const void *ud)
{
    int fd = mkstemp(tmp);
    int rc;

    if (fd < 0)
        return fileerr_errno();
    rc = write_temp(fd, path, fn, ud);
    if (rc == 0 && cuk_interrupted)   /* a signal in the last stretch: keep the old file */
        rc = cuk_err_cancel();
    if (rc == 0 && rename(tmp, path) != 0)
        rc = fileerr_errno();
    if (rc != 0)
        unlink(tmp);
    return rc;
}

/* Save to file, the path with its links followed; 0, errno, or -1 with the
 * error set. */
static int save_to(const char *file, fileio_writer fn, const void *ud)
{
    struct sigaction old[SAVE_NSIG];
    char *tmp = temp_name(file);
    int rc;

    if (!tmp)
        return ENOMEM;
    guard_begin(old);
    rc = write_over(tmp, file, fn, ud);
    guard_end(old);
    free(tmp);
    return rc;
}

int fileio_save_with(const char *path, const char *what, fileio_writer fn, const void *ud)
{
    char *file = follow_links(path);
    int rc = file ? save_to(file, fn, ud) : fileerr_errno();
    free(file);
    if (rc > 0)
        return cuk_err("%s: cannot write '%s': %s", what, path, strerror(rc));
    return rc;
}

/* A matrix in a format, for write_matrix. */
typedef struct {
    file_format fmt;
    const cuk_matrix *m;
    const float *x;
} matrix_file;

static int write_matrix(FILE *fp, const void *ud)
{
    const matrix_file *f = ud;
    return f->fmt == FMT_NPY ? npy_write(fp, f->m, f->x) : csv_write(fp, f->m, f->x);
}

int fileio_save(cuk_matrix *m, const char *path)
{
    matrix_file f = {format_of(path), m, NULL};

    if (f.fmt == FMT_NONE)
        return cuk_err("save: don't know how to write '%s': use .npy or .csv", path);
    f.x = mat_host(m);
    if (!f.x)
        return fileerr_wrap("save", path);
    return fileio_save_with(path, "save", write_matrix, &f);
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
