/* savefile.c - writing a file by a temporary beside it and a rename (see
 * savefile.h): links followed, only regular files replaced, owner, group
 * and mode kept, hard links said, signals held off while the temporary
 * exists. */
#include "engine/files/savefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fmt.h"
#include "base/out.h"
#include "engine/files/fileerr.h"

struct savefile {
    const char *what;   /* the command, for messages */
    char *path;         /* as the user gave it, for messages */
    char *file;         /* path with its links followed: what is replaced */
    char *tmp;          /* the temporary beside file */
    FILE *fp;
};

/* ------------------------------------------------------------ the target */

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

/* What a file that is not a regular one is, in words. */
static const char *kind_of(mode_t mode)
{
    return S_ISDIR(mode) ? "a folder" : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
         : S_ISFIFO(mode) ? "a named pipe" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/* "WHAT: cannot write 'PATH': WHY" for errno value err; returns -1. */
static int cannot_write(const savefile *f, int err)
{
    return cuk_err("%s: cannot write '%s': %s", f->what, f->path, strerror(err));
}

/* The file f replaces, as it is now: 1 and *st if it exists, 0 if not, -1
 * with the error set if it cannot be replaced: it is not a regular file
 * (replacing a device or a pipe would put a regular file in its place), or
 * it cannot be looked at. */
static int look(const savefile *f, struct stat *st)
{
    if (lstat(f->file, st) != 0)
        return errno == ENOENT ? 0 : cannot_write(f, errno);
    if (S_ISREG(st->st_mode))
        return 1;
    if (strcmp(f->file, f->path))
        return cuk_err("%s: cannot write '%s': it leads to '%s', %s; cuk writes only regular files", f->what,
                       f->path, f->file, kind_of(st->st_mode));
    return cuk_err("%s: cannot write '%s': it is %s; cuk writes only regular files", f->what, f->path,
                   kind_of(st->st_mode));
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

static void savefile_free(savefile *f)
{
    free(f->path);
    free(f->file);
    free(f->tmp);
    free(f);
}

/* Follow f->path's links, check the file, open its temporary: 0, or -1
 * with the error set. */
static int open_temp(savefile *f)
{
    struct stat st;
    int fd;
    if (!(f->file = follow_links(f->path)))
        return cannot_write(f, fileerr_errno());
    if (look(f, &st) < 0)
        return -1;
    if (!(f->tmp = temp_name(f->file)))
        return cuk_err("%s: out of host memory", f->what);
    if ((fd = mkstemp(f->tmp)) < 0)
        return cannot_write(f, fileerr_errno());
    if (!(f->fp = fdopen(fd, "wb"))) {
        cannot_write(f, fileerr_errno());
        close(fd);
        unlink(f->tmp);
        return -1;
    }
    return 0;
}

savefile *savefile_open(const char *what, const char *path)
{
    savefile *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        cuk_err("%s: out of host memory", what);
        return NULL;
    }
    f->what = what;
    if (open_temp(f) != 0) {
        savefile_free(f);
        return NULL;
    }
    return f;
}

FILE *savefile_stream(savefile *f) { return f->fp; }

void savefile_abandon(savefile *f)
{
    if (!f)
        return;
    fclose(f->fp);
    unlink(f->tmp);
    savefile_free(f);
}

/* ------------------------------------------------------ putting it in place */

/* What open() would give a new file: 0666 less the umask, instead of
 * mkstemp's 0600. */
static mode_t new_file_mode(void)
{
    mode_t mask = umask(0);   /* the only way to read it; single-threaded */
    umask(mask);
    return 0666 & ~mask;
}

/* Give the temporary (fd) the old file's owner, group and mode, or a new
 * file's mode: 0, or -1 with the error set. The owner goes first: chown
 * may clear set-user-ID bits that chmod then sets. */
static int keep_identity(const savefile *f, int fd, int exists, const struct stat *old)
{
    struct stat me;
    if (!exists)
        return fchmod(fd, new_file_mode()) == 0 ? 0 : cannot_write(f, errno);
    if (fstat(fd, &me) != 0)
        return cannot_write(f, errno);
    if ((me.st_uid != old->st_uid || me.st_gid != old->st_gid) && fchown(fd, old->st_uid, old->st_gid) != 0)
        return cuk_err("%s: '%s' was not replaced: its owner (user %ld, group %ld) could not be kept (%s)", f->what,
                       f->path, (long)old->st_uid, (long)old->st_gid, strerror(errno));
    if (fchmod(fd, old->st_mode & 07777) != 0)
        return cannot_write(f, errno);
    return 0;
}

/* Flush all the way to the disk and close, checking each step: 0, or -1
 * with the error set. fclose runs whatever happened, so that the stream is
 * never leaked. */
static int finish_stream(savefile *f, int rc)
{
    FILE *fp = f->fp;
    int err = 0;
    f->fp = NULL;
    errno = 0; /* a write that failed earlier left the stream's flag, not its errno: EIO then */
    if (rc == 0 && (fflush(fp) != 0 || ferror(fp) || fsync(fileno(fp)) != 0))
        err = fileerr_errno();
    if (fclose(fp) != 0 && rc == 0 && !err)
        err = fileerr_errno();
    return err ? cannot_write(f, err) : rc;
}

/* The folder's entry of the rename made durable too; a folder that cannot
 * be synced (some file systems) loses nothing that was not lost anyway. */
static void sync_folder(const char *file)
{
    const char *slash = strrchr(file, '/');
    char *dir = slash ? strndup(file, slash == file ? 1 : (size_t)(slash - file)) : strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

/* The other names of a file with hard links keep what it held: say so
 * (the name as given, its control characters escaped as in messages). */
static void note_links(const savefile *f, const struct stat *old)
{
    char name[256];
    long others = (long)old->st_nlink - 1;
    fmt_escape(name, sizeof name, f->path, strlen(f->path));
    out_printf("note: '%s' had %ld other name%s (hard links); %s the old contents\n", name, others,
               others == 1 ? "" : "s", others == 1 ? "it keeps" : "they keep");
}

/* Put the written temporary in place: 0, or -1 with the error set. The
 * file is looked at again just before the rename: it may have changed
 * since the save began (a transcript's lasts a while). */
static int put_in_place(savefile *f)
{
    struct stat old;
    int exists = look(f, &old), rc = exists < 0 ? -1 : 0;
    if (rc == 0)
        rc = keep_identity(f, fileno(f->fp), exists, &old);
    rc = finish_stream(f, rc);
    if (rc == 0 && cuk_interrupted) /* a signal in the last stretch: keep the old file */
        rc = cuk_err_cancel();
    if (rc == 0 && rename(f->tmp, f->file) != 0)
        rc = cannot_write(f, fileerr_errno());
    if (rc != 0) {
        unlink(f->tmp);
        return rc;
    }
    sync_folder(f->file);
    if (exists && old.st_nlink > 1)
        note_links(f, &old);
    return 0;
}

/* -------------------------------------------------- signals held off */

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

int savefile_commit(savefile *f)
{
    struct sigaction old[SAVE_NSIG];
    guard_begin(old);
    int rc = put_in_place(f);
    guard_end(old);
    savefile_free(f);
    return rc;
}

int savefile_write(const char *what, const char *path, savefile_writer write, const void *ud)
{
    struct sigaction old[SAVE_NSIG];
    guard_begin(old);
    savefile *f = savefile_open(what, path);
    int rc = -1;
    if (f) {
        errno = 0;            /* fileerr_errno must not report a stale one */
        rc = write(f->fp, ud);
        if (rc > 0)
            rc = cannot_write(f, rc);
        if (rc == 0)
            rc = put_in_place(f);
        else
            unlink(f->tmp);
        if (f->fp)
            fclose(f->fp);
        savefile_free(f);
    }
    guard_end(old);
    return rc;
}
