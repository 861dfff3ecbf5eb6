/* place.c - where a device copy lies across the GPUs, and the rule that
 * moves it (see place.h). */
#include "engine/values/place.h"

#include <math.h>

#include "engine/values/pool.h"
#include "engine/values/timing.h"
#include "kernels/gpu.h"

place_choice place_decide(double bytes, double reads, double before)
{
    return before + reads > bytes ? PLACE_MOVE : PLACE_STAY;
}

double place_product_reads(double bytes, int across)
{
    double blocks = ceil((double)across / PLACE_BLOCK);
    return bytes * (blocks > 1 ? blocks : 1);
}

int place_gpus(const cuk_matrix *m)
{
    int gpu[GPU_MAX_DEVICES];
    size_t start[GPU_MAX_DEVICES], len[GPU_MAX_DEVICES];
    if (!m->dev)
        return 0;
    int n = gpu_spread_parts(m->dev->ptr, mat_bytes(m), gpu, start, len);
    return n > 1 ? n : 1;
}

/* m's device copy into a new block of pool k: 0 moved, 1 no room there (m
 * as it was), -1 with the error set. Timed like a host<->device copy: on
 * the host clock, after the work queued before it, until it is done; the
 * clock includes getting the new block, which the first move into a pool
 * maps afresh. The old block goes back to its pool. */
static int move(cuk_matrix *m, pool_kind k, double *ms)
{
    size_t bytes = mat_bytes(m);
    int oom;
    if (gpu_sync() != 0)
        return -1;
    double t0 = timing_now_ms();
    pool_block *b = pool_try_alloc(k, bytes, &oom);
    if (!b)
        return oom ? 1 : -1;
    if (gpu_spread_copy(b->ptr, m->dev->ptr, bytes) != 0 || gpu_sync() != 0) {
        pool_free(b);
        return -1;
    }
    *ms = timing_now_ms() - t0;
    pool_free(m->dev);
    m->dev = b;
    m->read_away = 0;
    return 0;
}

int place_for(cuk_matrix *m, const cuk_backend *be, double reads)
{
    if (!mode_on_device(be) || !m->dev)
        return 0;
    int from = place_gpus(m), to = 1;
    if (!be->spread && from == 1)
        return 0;
    if (be->spread) {
        if (from > 1)
            return 0;
        if ((to = gpu_spread_split(mat_bytes(m))) == 0)
            return -1; /* spread memory cannot be had: the error says why */
        if (to == 1)
            return 0; /* the spread mode keeps a matrix this small on GPU 0 too */
    }
    timing_place rec = {m->rows, m->cols, from, to, be->spread, TIMING_PLACE_LEFT, reads, m->read_away, 0};
    if (place_decide((double)mat_bytes(m), reads, m->read_away) == PLACE_MOVE) {
        int r = move(m, be->spread ? POOL_SPREAD : POOL_DEVICE, &rec.ms);
        if (r < 0)
            return -1;
        rec.how = r == 0 ? TIMING_PLACE_MOVED : TIMING_PLACE_NO_ROOM;
    }
    if (rec.how != TIMING_PLACE_MOVED)
        m->read_away += reads;
    timing_placed(&rec, mat_bytes(m));
    return 0;
}
