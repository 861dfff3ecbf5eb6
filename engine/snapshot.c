/* snapshot.c - device and memory facts as values (see snapshot.h). */
#include "engine/snapshot.h"

#include <string.h>

#include "base/error.h"
#include "engine/matrix.h"
#include "engine/pool.h"
#include "kernels/gpu.h"

void snap_device_get(snap_device *d)
{
    memset(d, 0, sizeof *d);
    const gpu_info *g = gpu_usable(&d->why) ? gpu_device() : NULL;
    if (!g)
        return;
    d->usable = 1;
    d->f = *g;
}

void snap_memory_get(snap_memory *m)
{
    pool_stats ps;
    memset(m, 0, sizeof *m);
    m->host_matrices = mat_host_total();
    if (!gpu_usable(&m->why))
        return;
    if (gpu_mem_info(&m->dev_free, &m->dev_total) != 0) {
        m->why = "its memory cannot be read";
        cuk_err_clear(); /* only the error gpu_mem_info just set */
        return;
    }
    pool_get_stats(&ps);
    m->device = 1;
    m->pool_in_use = ps.requested;
    m->pool_held = ps.held;
    m->device_allocs = ps.device_allocs;
}
