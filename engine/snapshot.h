/* snapshot.h - facts about the device and memory as plain values, taken in
 * one call: what `info`, `who` and a front end's panel show, so that none of
 * them reaches into the GPU runtime or the pool. */
#ifndef CUK_SNAPSHOT_H
#define CUK_SNAPSHOT_H

#include <stddef.h>

#include "base/device.h"

typedef struct {
    int usable;               /* 0: no device; why says why */
    const char *why;
    device_facts f;
} snap_device;

typedef struct {
    size_t host_matrices;     /* bytes of host memory held by matrices */
    int device;               /* 0: no device figures (why says why) */
    const char *why;
    size_t dev_total, dev_free;
    size_t pool_in_use;       /* bytes of device memory matrices asked for */
    size_t pool_held;         /* bytes the pool holds from the device */
    unsigned long long device_allocs;
} snap_memory;

void snap_device_get(snap_device *d);
void snap_memory_get(snap_memory *m);

#endif
