/* harness.c - the fuzz targets' sandbox and budget (harness.h).
 *
 * The targets link the engine as one object, made by `ld -r --wrap=...`
 * from the core objects (the Makefile's FUZZ_WRAP), so that the engine's
 * calls to the functions below come here, and nothing else's (libFuzzer
 * writes its crash files with fopen too). While an input runs, a path with
 * a '/' or a ".." is refused (EACCES): `save`, `load` and `run` touch only
 * files of the sandbox, a fresh folder under /tmp that the process works
 * in and removes at exit.
 *
 * The wrappers also cap what one input may cost: mat_new and mat_new_host
 * refuse matrices of more than FUZZ_MAX_ELEMENTS (an input may not ask for
 * 40 GB), and cuk_check_interrupt, which every long loop and every
 * expression node calls, acts as Ctrl-C after FUZZ_MAX_CHECKS calls, so a
 * slow input is cancelled the way a user would cancel it, the same way
 * each time. */
#include "fuzz/harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "engine/files/record.h"
#include "engine/values/matrix.h"

#define FUZZ_MAX_ELEMENTS (1L << 16)
#define FUZZ_MAX_CHECKS 20000

static struct {
    int on;          /* an input is running: file names are confined */
    long checks;     /* interrupt checks so far in this input */
    char dir[64];    /* the sandbox folder, "" until made */
} H;

/* A name the engine may use while confined: a file of the sandbox folder. */
static int confined_ok(const char *path) { return !H.on || (!strchr(path, '/') && !strstr(path, "..")); }

static int refuse(void)
{
    errno = EACCES;
    return -1;
}

/* The engine's calls (the Makefile's FUZZ_WRAP list): each is declared here,
 * as nothing else calls it. */
FILE *__wrap_fopen(const char *path, const char *mode);
int __wrap_mkstemp(char *tmpl);
int __wrap_rename(const char *from, const char *to);
int __wrap_unlink(const char *path);
int __wrap_stat(const char *path, struct stat *st);
cuk_matrix *__wrap_mat_new(const cuk_backend *be, int rows, int cols);
cuk_matrix *__wrap_mat_new_host(int rows, int cols);
int __wrap_cuk_check_interrupt(void);

/* A named pipe is opened for reading without waiting for a writer, which
 * never comes here: it reads as empty instead of blocking the input. */
FILE *__wrap_fopen(const char *path, const char *mode)
{
    struct stat st;
    if (!confined_ok(path))
        return refuse(), NULL;
    if (H.on && mode[0] == 'r' && stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
        int fd = open(path, O_RDONLY | O_NONBLOCK);
        FILE *f = fd >= 0 ? fdopen(fd, mode) : NULL;
        if (!f && fd >= 0)
            close(fd);
        return f;
    }
    return fopen(path, mode);
}

int __wrap_mkstemp(char *tmpl) { return confined_ok(tmpl) ? mkstemp(tmpl) : refuse(); }

int __wrap_rename(const char *from, const char *to)
{
    return confined_ok(from) && confined_ok(to) ? rename(from, to) : refuse();
}

int __wrap_unlink(const char *path) { return confined_ok(path) ? unlink(path) : refuse(); }

int __wrap_stat(const char *path, struct stat *st) { return confined_ok(path) ? stat(path, st) : refuse(); }

/* A shape over the cap (a bad shape goes on to the engine's own check). */
static int too_big(int rows, int cols)
{
    if (!H.on || rows <= 0 || cols <= 0 || (long)rows * cols <= FUZZ_MAX_ELEMENTS)
        return 0;
    cuk_err("fuzz build: %dx%d is more than %ld elements", rows, cols, FUZZ_MAX_ELEMENTS);
    return 1;
}

cuk_matrix *__wrap_mat_new(const cuk_backend *be, int rows, int cols)
{
    return too_big(rows, cols) ? NULL : mat_new(be, rows, cols);
}

cuk_matrix *__wrap_mat_new_host(int rows, int cols)
{
    return too_big(rows, cols) ? NULL : mat_new_host(rows, cols);
}

int __wrap_cuk_check_interrupt(void)
{
    if (H.on && ++H.checks > FUZZ_MAX_CHECKS)
        cuk_interrupted = 1;
    return cuk_check_interrupt();
}

/* Remove every file of the sandbox folder, and the empty folders
 * fuzz_files makes (the engine makes none). */
static void empty_sandbox(void)
{
    DIR *d = opendir(".");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && unlink(e->d_name) != 0)
            rmdir(e->d_name);
    if (d)
        closedir(d);
}

static void remove_sandbox(void)
{
    if (!H.dir[0] || chdir(H.dir) != 0)
        return;
    empty_sandbox();
    if (chdir("/") == 0)
        rmdir(H.dir);
}

/* Make the sandbox folder and work in it; stdin reads nothing (`run "-"`). */
static void enter_sandbox(void)
{
    if (H.dir[0])
        return;
    snprintf(H.dir, sizeof H.dir, "/tmp/cuk-fuzz-XXXXXX");
    if (!mkdtemp(H.dir) || chdir(H.dir) != 0) {
        perror("fuzz: cannot make the sandbox folder");
        abort();
    }
    atexit(remove_sandbox);
    if (!freopen("/dev/null", "r", stdin))
        abort();
}

static void drop(void *ud, out_channel ch, const char *s, size_t n) {}

static const cuk_frontend script_fe = {.write = drop};
static const cuk_frontend repl_fe = {.write = drop, .interactive = 1};

cuk_session *fuzz_begin(int interactive)
{
    enter_sandbox();
    empty_sandbox();
    H.checks = 0;
    cuk_interrupted = 0;
    cuk_err_clear();
    H.on = 1;
    return session_new(interactive ? &repl_fe : &script_fe);
}

void fuzz_end(cuk_session *s)
{
    record_stop(); /* a transcript under way is put in place, as at cuk's end */
    session_free(s);
    H.on = 0;
    cuk_interrupted = 0;
    cuk_err_clear();
}

int fuzz_write_file(const char *name, const uint8_t *data, size_t size)
{
    FILE *f = fopen(name, "wb");
    int ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}
