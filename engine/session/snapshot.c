/* snapshot.c - device and memory facts as values (see snapshot.h). */
#include "engine/session/snapshot.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "engine/values/matrix.h"
#include "engine/values/place.h"
#include "engine/values/pool.h"
#include "engine/values/timing.h"
#include "kernels/gpu.h"
#include "kernels/gpu_live.h"

_Static_assert(SNAP_MAX_GPUS == GPU_MAX_DEVICES, "snapshot.h lists every GPU kernels/gpu.h may use");
_Static_assert(SNAP_SLOW_POWER == GPU_SLOW_POWER && SNAP_SLOW_THERMAL == GPU_SLOW_THERMAL &&
                   SNAP_SLOW_HARDWARE == GPU_SLOW_HARDWARE && SNAP_SLOW_SETTING == GPU_SLOW_SETTING,
               "snapshot.h's reasons are kernels/gpu_live.h's");

void snap_device_get(snap_device *d)
{
    memset(d, 0, sizeof *d);
    const gpu_info *g = gpu_usable(&d->why) ? gpu_device() : NULL;
    if (!g)
        return;
    d->usable = 1;
    d->f = *g;
}

/* The spread pool's figures; no GPU is opened for them (the panel asks at
 * every redraw). */
static void spread_get(snap_memory *m)
{
    pool_stats ps;
    pool_get_stats_of(POOL_SPREAD, &ps);
    m->spread_in_use = ps.requested;
    m->spread_held = ps.held;
    m->spread_gpus = gpu_count();
    for (int g = 0; g < m->spread_gpus; g++)
        m->spread_on[g] = gpu_spread_held(g);
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
    spread_get(m);
}

void snap_gpus_get(snap_gpus *s)
{
    static char why[sizeof cuk_err_get()->msg];
    snap_memory mem;
    memset(s, 0, sizeof *s);
    snap_memory_get(&mem);
    s->why = mem.why;
    if (!mem.device)
        return;
    for (int g = 0; g < mem.spread_gpus; g++) {
        snap_gpu *x = &s->gpu[g];
        if (gpu_facts_of(g, &x->f, &x->free, &x->total) != 0) {
            snprintf(why, sizeof why, "%s", cuk_err_get()->msg);
            cuk_err_clear(); /* only the error gpu_facts_of just set */
            s->why = why;
            return;
        }
        x->matrices = mem.spread_on[g] + (g == 0 ? mem.pool_in_use : 0);
        x->pool_held = mem.spread_on[g] + (g == 0 ? mem.pool_held : 0);
    }
    s->n = mem.spread_gpus;
}

int snap_link_get(int i, int j, snap_link *l)
{
    gpu_link there, back;
    memset(l, 0, sizeof *l);
    if (gpu_link_of(i, j, &there) != 0 || gpu_link_of(j, i, &back) != 0)
        return -1;
    l->peer[0] = there.peer;
    l->peer[1] = back.peer;
    l->nvlink = there.nvlink && back.nvlink;
    l->gbs[0] = there.gbs;
    l->gbs[1] = back.gbs;
    return 0;
}

void snap_slabs_from_parts(snap_slabs *s, int rows, int cols, int nparts, const int *gpu, const size_t *start,
                           const size_t *len)
{
    size_t row_bytes = (size_t)cols * sizeof(float);
    s->n = 0;
    for (int k = 0; k < nparts && k < SNAP_MAX_GPUS; k++) {
        /* the rows whose first byte, r * row_bytes, is in the part */
        size_t r0 = (start[k] + row_bytes - 1) / row_bytes, r1 = (start[k] + len[k] + row_bytes - 1) / row_bytes;
        r1 = r1 < (size_t)rows ? r1 : (size_t)rows;
        if (r1 <= r0)
            continue;
        s->gpu[s->n] = gpu[k];
        s->first[s->n] = (int)r0;
        s->count[s->n++] = (int)(r1 - r0);
    }
}

void snap_slabs_of(const cuk_matrix *m, snap_slabs *s)
{
    int gpu[SNAP_MAX_GPUS];
    size_t start[SNAP_MAX_GPUS], len[SNAP_MAX_GPUS];
    int n = m->dev ? gpu_spread_parts(m->dev->ptr, mat_bytes(m), gpu, start, len) : 0;
    snap_slabs_from_parts(s, m->rows, m->cols, n, gpu, start, len);
}

int snap_out_of_core(const cuk_matrix *m) { return m->out_of_core && !m->dev; }

const char *snap_where(const cuk_matrix *m) { return snap_out_of_core(m) ? "host (out of core)" : mat_where(m); }

/* ---- the GPUs' state now ---- */

static void live_sample(snap_live *l)
{
    memset(l, 0, sizeof *l);
    l->n = gpu_count();
    for (int g = 0; g < l->n; g++) {
        snap_live_gpu *x = &l->gpu[g];
        gpu_live v;
        x->known = gpu_live_read(g, &v, &x->why) == 0;
        if (!x->known)
            continue;
        x->util_gpu = v.util_gpu, x->util_mem = v.util_mem;
        x->sm_mhz = v.sm_mhz, x->sm_max_mhz = v.sm_max_mhz, x->mem_mhz = v.mem_mhz;
        x->power_w = v.power_w, x->limit_w = v.limit_w;
        x->temp_c = v.temp_c;
        x->slow = v.slow;
    }
}

void snap_live_get(snap_live *l)
{
    static snap_live last;
    static double at = -1e9;
    double now = timing_now_ms();
    if (now - at >= SNAP_LIVE_MS) {
        live_sample(&last);
        at = now;
    }
    *l = last;
}

const char *snap_slow_words(unsigned bits, char *buf, size_t cap)
{
    static const struct {
        unsigned bit;
        const char *words;
    } reasons[] = {{SNAP_SLOW_POWER, "power cap"},
                   {SNAP_SLOW_THERMAL, "hot"},
                   {SNAP_SLOW_HARDWARE, "hardware slowdown"},
                   {SNAP_SLOW_SETTING, "application clocks set"}};
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0] && n < cap; i++)
        if (bits & reasons[i].bit)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", reasons[i].words);
    return buf;
}

int snap_gpus_of(const cuk_matrix *m) { return place_gpus(m); }

const char *snap_where_gpus(const cuk_matrix *m, char *buf, size_t cap)
{
    int n = m->dev && gpu_count() > 1 ? place_gpus(m) : 0;
    if (n == 1)
        snprintf(buf, cap, "%s (GPU 0)", snap_where(m));
    else if (n > 1)
        snprintf(buf, cap, "%s (GPUs 0-%d)", snap_where(m), n - 1);
    return n ? buf : snap_where(m);
}
