/* test_hostmem.c - the memory cuk may still take (engine/values/hostmem.h):
 * cgroup limits read from made-up cgroup trees (v2 alone, v2 beside v1,
 * v1; limits on the process's cgroup or one above it; "max" and v1's
 * near-2^63 "none"; a container whose cgroup is the mount's root), and
 * the process's own address-space limit, set in a child. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/values/hostmem.h"
#include "tests/check.h"

#define NONE ((size_t)-1)

static char root[64];

/* root/rel holds text; folders on the way are made. */
static void put(const char *rel, const char *text)
{
    char path[256], *p;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The room a tree made by the caller gives, its /proc/self/cgroup being
 * `cgroup`; the tree is removed after. */
static size_t room(const char *cgroup)
{
    char proc[128], fs[128], cmd[160];
    snprintf(proc, sizeof proc, "%s/cgroup", root);
    snprintf(fs, sizeof fs, "%s/fs", root);
    put("cgroup", cgroup);
    size_t r = hostmem_cgroup_room(proc, fs);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/*", root);
    if (system(cmd) != 0)
        CHECKF(0, "cannot empty %s", root);
    return r;
}

static void cgroup_v2(void)
{
    put("fs/a/b/memory.max", "300000000\n");
    put("fs/a/b/memory.current", "100000000\n");
    put("fs/a/memory.max", "max\n");
    put("fs/a/memory.current", "120000000\n");
    CHECK(room("0::/a/b\n") == 200000000);
    put("fs/a/b/memory.max", "max\n");
    put("fs/a/b/memory.current", "100000000\n");
    put("fs/a/memory.max", "150000000\n"); /* the parent's limit holds the child too */
    put("fs/a/memory.current", "120000000\n");
    CHECK(room("0::/a/b\n") == 30000000);
    put("fs/a/memory.max", "150000000\n");
    put("fs/a/memory.current", "120000000\n");
    put("fs/a/memory.stat", "anon 100000000\ninactive_file 20000000\n"); /* cache it can give back */
    CHECK(room("0::/a\n") == 50000000);
    put("fs/a/memory.max", "100\n"); /* past the limit: nothing left */
    put("fs/a/memory.current", "120\n");
    CHECK(room("0::/a\n") == 0);
    CHECK(room("0::/\n") == NONE);
}

static void cgroup_v1_and_hybrid(void)
{
    put("fs/memory/x/memory.limit_in_bytes", "9223372036854771712\n"); /* v1's "no limit" */
    put("fs/memory/x/memory.usage_in_bytes", "5000\n");
    CHECK(room("4:memory:/x\n0::/\n") == NONE);
    put("fs/memory/x/memory.limit_in_bytes", "500000000\n");
    put("fs/memory/x/memory.usage_in_bytes", "250000000\n");
    put("fs/memory/x/memory.stat", "cache 60000000\ntotal_inactive_file 50000000\n");
    put("fs/unified/y/memory.max", "400000000\n");
    put("fs/unified/y/memory.current", "0\n");
    CHECK(room("9:name=systemd:/\n4:memory:/x\n3:cpuset:/\n0::/y\n") == 300000000);
    put("fs/unified/y/memory.max", "250000000\n");
    put("fs/unified/y/memory.current", "0\n");
    put("fs/memory/x/memory.limit_in_bytes", "500000000\n");
    put("fs/memory/x/memory.usage_in_bytes", "200000000\n");
    CHECK(room("4:memory:/x\n0::/y\n") == 250000000);
    put("fs/cpu/x/memory.limit_in_bytes", "1\n"); /* another controller's folder is not read */
    CHECK(room("1:cpu:/x\n") == NONE);
}

/* In a container the cgroup's path names the host's tree, and the mount's
 * root is the container's cgroup. */
static void cgroup_in_container(void)
{
    put("fs/memory.max", "64000000\n");
    put("fs/memory.current", "4000000\n");
    CHECK(room("0::/docker/0123abcd\n") == 60000000);
    CHECK(room("") == NONE);
}

/* A sanitizer reserves terabytes of address space: no limit can be set
 * under which it still runs. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

#ifndef SANITIZED
/* Under an address-space limit, what it leaves is said, well under it. */
static void address_space_limit(void)
{
    int fd[2];
    size_t got[2] = {0, 0};
    if (pipe(fd) != 0) {
        CHECKF(0, "no pipe");
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {200u << 20, 200u << 20};
        hostmem_room r = {0, NULL};
        if (setrlimit(RLIMIT_AS, &rl) == 0)
            r = hostmem_available();
        size_t out[2] = {r.bytes, r.limit && strstr(r.limit, "ulimit -v")};
        _exit(write(fd[1], out, sizeof out) == sizeof out ? 0 : 1);
    }
    close(fd[1]);
    CHECK(read(fd[0], got, sizeof got) == sizeof got);
    close(fd[0]);
    waitpid(pid, NULL, 0);
    CHECKF(got[0] > 0 && got[0] < (200u << 20) && got[1], "%zu bytes, named the limit: %zu", got[0], got[1]);
}
#endif

int main(void)
{
    snprintf(root, sizeof root, "/tmp/cuk_hostmem_XXXXXX");
    if (!mkdtemp(root)) {
        printf("FAIL hostmem: cannot make a scratch folder\n");
        return 1;
    }
    RUN(cgroup_v2);
    RUN(cgroup_v1_and_hybrid);
    RUN(cgroup_in_container);
#ifdef SANITIZED
    printf("SKIP address_space_limit: built with a sanitizer, which cannot run under an address-space limit\n");
#else
    RUN(address_space_limit);
#endif
    rmdir(root);
    return check_exit();
}
