/* replay.c - `make test` runs every input that ever crashed a fuzz target
 * (tests/fuzz/regressions/TARGET/) and the target's starting corpus
 * (fuzz/corpus/TARGET/) through the same target, built with the normal
 * compiler and objects and linked with the same sandbox (fuzz/harness.c). One PASS line per file; a crash is the
 * test program's failure. FUZZ_TARGET and REPLAY_DIRS (folders separated by
 * ':', relative to the source tree) come from the Makefile. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/harness.h"

/* The whole file, in a buffer of its own (so ASan sees reads past its end). */
static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc(n > 0 ? (size_t)n : 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        *size = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static int plain_file(const struct dirent *e) { return e->d_name[0] != '.'; }

/* "a" "/" "b" in a new buffer (NULL if out of memory). */
static char *join(const char *a, const char *b)
{
    char *p = malloc(strlen(a) + strlen(b) + 2);
    if (p)
        sprintf(p, "%s/%s", a, b);
    return p;
}

/* Replay every file of dir (an absolute path: the harness changes folder). */
static int replay_dir(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, plain_file, by_name), failed = 0;
    for (int i = 0; i < n; i++) {
        char *path = join(dir, names[i]->d_name);
        size_t size = 0;
        uint8_t *data = path ? read_all(path, &size) : NULL;
        if (!data) {
            printf("FAIL fuzz_%s_replay %s: cannot read it\n", FUZZ_TARGET, path);
            failed = 1;
        } else {
            LLVMFuzzerTestOneInput(data, size);
            printf("PASS fuzz_%s_replay %s\n", FUZZ_TARGET, names[i]->d_name);
            fflush(stdout);
        }
        free(data);
        free(path);
        free(names[i]);
    }
    if (n >= 0)
        free(names);
    return failed;
}

int main(void)
{
    char dirs[] = REPLAY_DIRS, *save = NULL, root[PATH_MAX];
    int failed = 0;
    if (!realpath(".", root))
        return 1;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char *abs = join(root, d);
        failed |= !abs || replay_dir(abs);
        free(abs);
    }
    return failed;
}
