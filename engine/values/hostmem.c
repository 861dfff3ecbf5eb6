/* hostmem.c - the host memory cuk may still take (see hostmem.h). */
#include "engine/values/hostmem.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define NONE ((size_t)-1)

/* The first number of file path, or -1 ("max", missing, unreadable). */
static long long read_number(const char *path)
{
    FILE *f = fopen(path, "r");
    long long v = -1;
    if (f) {
        if (fscanf(f, "%lld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* MemAvailable from /proc/meminfo, or NONE. */
static size_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    int found = 0;
    if (!f)
        return NONE;
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
    fclose(f);
    return found ? (size_t)kb * 1024 : NONE;
}

/* What limit `res` leaves above `used` bytes, or NONE if it sets none. */
static size_t rlimit_room(int res, size_t used)
{
    struct rlimit rl;
    if (getrlimit(res, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return NONE;
    return rl.rlim_cur > used ? (size_t)(rl.rlim_cur - used) : 0;
}

/* The value of key in a memory.stat file ("inactive_file 4096"), 0 if
 * it has none. */
static long long stat_value(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[256];
    long long v = 0;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ' ') {
            v = atoll(line + n + 1);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

/* The room under one cgroup folder's limit, or NONE: v2 memory.max less
 * memory.current, v1 memory.limit_in_bytes less memory.usage_in_bytes (a
 * v1 limit near 2^63 is "none"). The usage counts the page cache, whose
 * inactive part the kernel gives back before it refuses: it is room. */
static size_t cgroup_dir_room(const char *dir)
{
    char a[PATH_MAX + 32], b[PATH_MAX + 32], st[PATH_MAX + 32];
    const char *cache = "inactive_file";
    long long lim, use;
    snprintf(a, sizeof a, "%s/memory.max", dir);
    snprintf(b, sizeof b, "%s/memory.current", dir);
    if ((lim = read_number(a)) < 0) {
        snprintf(a, sizeof a, "%s/memory.limit_in_bytes", dir);
        snprintf(b, sizeof b, "%s/memory.usage_in_bytes", dir);
        cache = "total_inactive_file";
        if ((lim = read_number(a)) < 0 || lim >= (1LL << 62))
            return NONE;
    }
    if ((use = read_number(b)) < 0)
        return NONE;
    snprintf(st, sizeof st, "%s/memory.stat", dir);
    use -= stat_value(st, cache);
    return lim > use ? (size_t)(lim - use) : 0;
}

/* The tightest room of folder mount/path and the folders above it. */
static size_t cgroup_path_room(const char *mount, const char *path)
{
    char dir[PATH_MAX];
    size_t room = NONE;
    int n = snprintf(dir, sizeof dir, "%s%s", mount, path);
    while (n > 0 && (size_t)n < sizeof dir) {
        size_t r = cgroup_dir_room(dir);
        room = r < room ? r : room;
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < strlen(mount))
            break;
        *slash = '\0';
        n = (int)strlen(dir);
    }
    return room;
}

size_t hostmem_cgroup_room(const char *proc_cgroup, const char *fs)
{
    FILE *f = fopen(proc_cgroup, "r");
    char line[PATH_MAX + 64], mount[PATH_MAX];
    size_t room = NONE;
    if (!f)
        return NONE;
    while (fgets(line, sizeof line, f)) { /* "0::/path" (v2) or "4:memory:/path" (v1) */
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        c2[strcspn(c2, "\n")] = '\0';
        const char *path = strcmp(c2 + 1, "/") ? c2 + 1 : "";
        size_t r = NONE;
        if (c2 == c1 + 1) { /* v2: alone at fs, or beside v1 at fs/unified */
            snprintf(mount, sizeof mount, "%s", fs);
            r = cgroup_path_room(mount, path);
            snprintf(mount, sizeof mount, "%s/unified", fs);
            size_t u = cgroup_path_room(mount, path);
            r = u < r ? u : r;
        } else if (!strncmp(c1 + 1, "memory", 6) && (c1[7] == ':' || c1[7] == ',')) {
            snprintf(mount, sizeof mount, "%s/memory", fs);
            r = cgroup_path_room(mount, path);
        }
        room = r < room ? r : room;
    }
    fclose(f);
    return room;
}

/* The process's virtual size and data size (/proc/self/statm), in bytes. */
static void process_sizes(size_t *vm, size_t *data)
{
    unsigned long long v[6] = {0};
    FILE *f = fopen("/proc/self/statm", "r");
    *vm = *data = 0;
    if (!f)
        return;
    if (fscanf(f, "%llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 6) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        *vm = (size_t)v[0] * page;
        *data = (size_t)v[5] * page;
    }
    fclose(f);
}

/* Keep the smaller of room and (r, limit). */
static void tighter(hostmem_room *room, size_t r, const char *limit)
{
    if (r < room->bytes) {
        room->bytes = r;
        room->limit = limit;
    }
}

hostmem_room hostmem_available(void)
{
    hostmem_room room = {NONE, "available"};
    size_t vm, data;
    process_sizes(&vm, &data);
    tighter(&room, mem_available(), "available");
    tighter(&room, rlimit_room(RLIMIT_AS, vm), "left under the address-space limit (ulimit -v)");
    tighter(&room, rlimit_room(RLIMIT_DATA, data), "left under the data-size limit (ulimit -d)");
    tighter(&room, hostmem_cgroup_room("/proc/self/cgroup", "/sys/fs/cgroup"), "left under the cgroup's memory limit");
    if (room.bytes == NONE)
        room.bytes = 0;
    return room;
}
