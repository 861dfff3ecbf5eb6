/* fuzz_files.c - libFuzzer target: saving and loading among hostile file
 * types. The input's first bytes lay out a folder of the sandbox: each of
 * a few names (a.npy, b.csv, c.cuk, d.json, e.md, f.log) is absent, a
 * regular file (of two modes, or another user's when run as root), a link
 * to /dev/null or /dev/zero, a named pipe, a folder, a link to the next
 * name (chains, loops, dangling links) or a second hard link to g.dat; the
 * bytes up to the first NUL are the regular files' contents, and the rest
 * is run in a session a line at a time (save, load, record, save bench,
 * run on those names). After it, what must hold is checked, and a break aborts:
 * /dev/null and /dev/zero are still character devices, every pipe, folder
 * and link is still what it was, every regular file that is still there
 * has its owner, group and mode, and no temporary file is left behind.
 *
 *   make fuzz SECONDS=60      (fuzz/run.sh: every target, corpus, dictionary) */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/run/run.h"
#include "fuzz/harness.h"

#define NNAMES 6

static const char *const names[NNAMES] = {"a.npy", "b.csv", "c.cuk", "d.json", "e.md", "f.log"};

enum { ABSENT, REGULAR, PRIVATE, FOREIGN, TO_NULL, TO_ZERO, PIPE, FOLDER, TO_NEXT, HARD_LINK, KINDS };

/* What each name was made as, to be checked after the script. */
static struct {
    int kind;
    struct stat st;        /* as made (lstat) */
    char link[64];         /* a link's target */
} made[NNAMES];

static void fail(const char *what, const char *name)
{
    fprintf(stderr, "fuzz_files: %s: %s\n", name, what);
    abort();
}

static int write_regular(const char *name, const uint8_t *data, size_t size, mode_t mode)
{
    return fuzz_write_file(name, data, size) == 0 && chmod(name, mode) == 0 ? 0 : -1;
}

/* Make name i as kind k; 0, or -1 if this system cannot (it is left absent). */
static int make_one(int i, int k, const uint8_t *data, size_t size)
{
    const char *n = names[i];
    switch (k) {
    case REGULAR: return write_regular(n, data, size, 0644);
    case PRIVATE: return write_regular(n, data, size, 0600);
    case FOREIGN: /* another user's file: only root can make one */
        if (write_regular(n, data, size, 0640) != 0)
            return -1;
        return geteuid() == 0 ? chown(n, 1234, 5678) : 0;
    case TO_NULL: return symlink("/dev/null", n);
    case TO_ZERO: return symlink("/dev/zero", n);
    case PIPE: return mkfifo(n, 0644);
    case FOLDER: return mkdir(n, 0755);
    case TO_NEXT: return symlink(names[(i + 1) % NNAMES], n);
    case HARD_LINK:
        if (access("g.dat", F_OK) != 0 && write_regular("g.dat", data, size, 0644) != 0)
            return -1;
        return link("g.dat", n);
    default: return 0;
    }
}

static void lay_out(const uint8_t *kinds, const uint8_t *data, size_t size)
{
    memset(made, 0, sizeof made);
    for (int i = 0; i < NNAMES; i++) {
        made[i].kind = kinds[i] % KINDS;
        if (made[i].kind != ABSENT && make_one(i, made[i].kind, data, size) != 0)
            made[i].kind = ABSENT;
        if (made[i].kind != ABSENT && lstat(names[i], &made[i].st) != 0)
            fail("cannot look at what was made", names[i]);
        if (made[i].kind != ABSENT && S_ISLNK(made[i].st.st_mode) &&
            readlink(names[i], made[i].link, sizeof made[i].link - 1) < 0)
            fail("cannot read the link made", names[i]);
    }
}

/* A regular file made is still one, with its owner, group and mode (a
 * save replaces it with a file that keeps them). */
static void check_regular(int i, const struct stat *now)
{
    const struct stat *was = &made[i].st;
    if (!S_ISREG(now->st_mode))
        fail("a regular file is now something else", names[i]);
    if (now->st_uid != was->st_uid || now->st_gid != was->st_gid)
        fail("a save changed the file's owner or group", names[i]);
    if ((now->st_mode & 07777) != (was->st_mode & 07777))
        fail("a save changed the file's mode", names[i]);
}

static void check_one(int i)
{
    struct stat now;
    char link[64];
    if (made[i].kind == ABSENT)
        return;
    if (lstat(names[i], &now) != 0)
        fail("a file cuk was given is gone", names[i]);
    if (S_ISREG(made[i].st.st_mode)) {
        check_regular(i, &now);
    } else if ((now.st_mode & S_IFMT) != (made[i].st.st_mode & S_IFMT)) {
        fail("a pipe, folder or link was replaced", names[i]);
    } else if (S_ISLNK(now.st_mode)) {
        ssize_t n = readlink(names[i], link, sizeof link - 1);
        link[n > 0 ? n : 0] = '\0';
        if (strcmp(link, made[i].link))
            fail("a link points elsewhere", names[i]);
    }
}

/* /dev/null and /dev/zero are what they were, and no temporary file (a
 * hidden ".NAME.XXXXXX") is left in the sandbox. */
static void check_all(void)
{
    struct stat st;
    if (stat("/dev/null", &st) != 0 || !S_ISCHR(st.st_mode) || stat("/dev/zero", &st) != 0 || !S_ISCHR(st.st_mode))
        fail("no longer a character device", "/dev/null or /dev/zero");
    for (int i = 0; i < NNAMES; i++)
        check_one(i);
    DIR *d = opendir(".");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            fail("a temporary file was left behind", e->d_name);
    if (d)
        closedir(d);
}

/* Each line as a statement of its own, as at the prompt: an error does not
 * stop the lines after it. */
static void run_lines(cuk_session *s, const char *text, size_t len)
{
    for (size_t start = 0, i = 0; i <= len; i++)
        if (i == len || text[i] == '\n') {
            run_status st = run_source(s, text + start, i - start, "fuzz.cuk", 1, 1);
            if (st == RUN_QUIT || st == RUN_FATAL || cuk_interrupted)
                return;
            start = i + 1;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* What is fuzzed here is the files of bench and ladder, not their
     * clocks: a share of 1 ms keeps each input short. */
    setenv("CUK_BENCH_SHARE_MS", "1", 0);
    setenv("CUK_LADDER_SHARE_MS", "1", 0);
    setenv("CUK_TIMEIT_BUDGET_MS", "1", 0);
    if (size < NNAMES)
        return 0;
    const uint8_t *body = data + NNAMES, *end = data + size;
    const uint8_t *nul = memchr(body, 0, (size_t)(end - body));
    size_t content = nul ? (size_t)(nul - body) : 0;
    const char *script = (const char *)(nul ? nul + 1 : body);
    cuk_session *s = fuzz_begin(0);
    if (!s)
        return 0;
    lay_out(data, body, content);
    run_lines(s, script, (size_t)((const char *)end - script));
    fuzz_end(s); /* a transcript under way is put in place there */
    check_all();
    return 0;
}
