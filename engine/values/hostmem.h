/* hostmem.h - how much host memory cuk may still take: the least of the
 * machine's available memory (MemAvailable), what the process's own
 * limits leave (the address-space and data limits: ulimit -v, ulimit -d)
 * and what its cgroup's memory limit leaves (v2 memory.max, v1
 * memory.limit_in_bytes, on the process's cgroup and those above it).
 * Large host allocations are checked against it (Linux overcommits: a
 * matrix past a cgroup's limit is killed when first written, not refused),
 * and out-of-memory messages say it, with the limit that sets it. */
#ifndef CUK_HOSTMEM_H
#define CUK_HOSTMEM_H

#include <stddef.h>

typedef struct {
    size_t bytes;         /* 0: nothing is known */
    const char *limit;    /* what sets it, as a message goes on after the size: "available" (free
                           * memory), "left under the address-space limit (ulimit -v)", ... */
} hostmem_room;

hostmem_room hostmem_available(void);

/* The part that reads cgroups, from the files of another root (tests):
 * proc_cgroup is a /proc/self/cgroup, fs the folder where the cgroup file
 * systems are mounted (/sys/fs/cgroup). The room the tightest limit
 * leaves, or (size_t)-1 if none is set. */
size_t hostmem_cgroup_room(const char *proc_cgroup, const char *fs);

#endif
