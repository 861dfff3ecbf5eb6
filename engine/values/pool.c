/* pool.c - the device memory pool (see pool.h for the design). */
#include "engine/values/pool.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "kernels/gpu.h"

#define SMALL_CLASSES 12 /* 512 B .. 1 MiB */

typedef struct pool_segment {
    void *base;
    int slot_class;
    int nslots, nfree;
    pool_block *slots;
    struct pool_segment *next;
} pool_segment;

static const pool_source sources[POOL_KINDS] = {
    [POOL_DEVICE] = {gpu_raw_alloc, gpu_raw_free, gpu_mem_info, gpu_memset},
    [POOL_SPREAD] = {gpu_spread_alloc, gpu_spread_free, gpu_spread_mem_info, gpu_spread_fill},
};

typedef struct pool {
    const pool_source *src;
    /* Large blocks at their size in whole segments, not in a class: spread
     * memory is cut in equal parts over the GPUs, and a class's slack
     * (up to 25%) would all land on the last ones' share. */
    int exact;
    pool_block *small_free[SMALL_CLASSES];
    pool_segment *segments;
    pool_block *large_free;
    pool_stats st;
} pool;

static pool pools[POOL_KINDS] = {[POOL_DEVICE] = {&sources[POOL_DEVICE], 0},
                                 [POOL_SPREAD] = {&sources[POOL_SPREAD], 1}};
static int poison;

void pool_init_kind(pool_kind k, const pool_source *src) { pools[k].src = src ? src : &sources[k]; }

void pool_init(const pool_source *src) { pool_init_kind(POOL_DEVICE, src); }

void pool_set_poison(int on) { poison = on; }

void pool_get_stats_of(pool_kind k, pool_stats *out) { *out = pools[k].st; }

void pool_get_stats(pool_stats *out) { pool_get_stats_of(POOL_DEVICE, out); }

static int small_class(size_t bytes)
{
    int c = 0;
    size_t s = POOL_SMALL_MIN;
    while (s < bytes) {
        s <<= 1;
        c++;
    }
    return c;
}

static size_t small_size(int cls) { return (size_t)POOL_SMALL_MIN << cls; }

/* Round a large request up to one of four classes per power of two, so a
 * freed block fits later requests of nearly the same size (<= 25% waste). */
static size_t large_size(size_t bytes)
{
    size_t p = POOL_SMALL_MAX;
    while (p <= bytes / 2)
        p <<= 1;
    size_t step = p / 4;
    if (bytes > ((size_t)-1) - step)
        return bytes;
    return (bytes + step - 1) / step * step;
}

static int report_oom(pool *P, size_t bytes)
{
    char need[32], fr[32], tot[32];
    size_t free_b = 0, total_b = 0;
    fmt_bytes(need, sizeof need, (double)bytes);
    if (P->src->mem_info(&free_b, &total_b) != 0) {
        cuk_err_clear();
        return cuk_err("out of device memory: needs %s", need);
    }
    return cuk_err("out of device memory: needs %s, %s free of %s", need,
                   fmt_bytes(fr, sizeof fr, (double)free_b),
                   fmt_bytes(tot, sizeof tot, (double)total_b));
}

/* Device memory from the source; on refusal, trim the cache and try once
 * more. NULL with *oom set and no error if the device has too little. */
static void *source_alloc(pool *P, size_t bytes, int *oom)
{
    void *p = NULL;
    int r = P->src->alloc(&p, bytes);
    if (r == 1) {
        pool_trim();
        r = P->src->alloc(&p, bytes);
    }
    if (r == 1) {
        *oom = 1;
        return NULL;
    }
    if (r != 0)
        return NULL;
    P->st.device_allocs++;
    P->st.held += bytes;
    return p;
}

static void source_release(pool *P, void *p, size_t bytes)
{
    if (P->src->release(p) != 0)
        cuk_err_clear(); /* nothing useful to do: the memory is lost either way */
    P->st.held -= bytes;
}

static int add_segment(pool *P, int cls, int *oom)
{
    size_t slot = small_size(cls);
    pool_segment *seg = calloc(1, sizeof *seg);
    int n = (int)(POOL_SEGMENT / slot);
    if (seg)
        seg->slots = calloc((size_t)n, sizeof *seg->slots);
    if (!seg || !seg->slots) {
        free(seg);
        return cuk_err("out of host memory for the device pool");
    }
    seg->base = source_alloc(P, POOL_SEGMENT, oom);
    if (!seg->base) {
        free(seg->slots);
        free(seg);
        return -1;
    }
    seg->slot_class = cls;
    seg->nslots = seg->nfree = n;
    for (int i = n - 1; i >= 0; i--) {
        pool_block *b = &seg->slots[i];
        b->ptr = (char *)seg->base + (size_t)i * slot;
        b->size = slot;
        b->seg = seg;
        b->next = P->small_free[cls];
        P->small_free[cls] = b;
    }
    seg->next = P->segments;
    P->segments = seg;
    return 0;
}

static pool_block *alloc_small(pool *P, size_t bytes, int *oom)
{
    int cls = small_class(bytes);
    if (P->small_free[cls]) {
        P->st.reused++;
    } else if (add_segment(P, cls, oom) != 0) {
        return NULL;
    }
    pool_block *b = P->small_free[cls];
    P->small_free[cls] = b->next;
    b->seg->nfree--;
    return b;
}

static pool_block *alloc_large(pool *P, size_t bytes, int *oom)
{
    size_t size = P->exact ? (bytes + POOL_SEGMENT - 1) / POOL_SEGMENT * POOL_SEGMENT : large_size(bytes);
    for (pool_block **pp = &P->large_free; *pp; pp = &(*pp)->next) {
        if ((*pp)->size == size) {
            pool_block *b = *pp;
            *pp = b->next;
            P->st.reused++;
            return b;
        }
    }
    pool_block *b = calloc(1, sizeof *b);
    if (!b) {
        cuk_err("out of host memory for the device pool");
        return NULL;
    }
    b->ptr = source_alloc(P, size, oom);
    if (!b->ptr) {
        free(b);
        return NULL;
    }
    b->size = size;
    return b;
}

pool_block *pool_try_alloc(pool_kind k, size_t bytes, int *oom)
{
    pool *P = &pools[k];
    *oom = 0;
    if (bytes == 0)
        bytes = 1;
    P->st.requests++;
    pool_block *b = bytes <= POOL_SMALL_MAX ? alloc_small(P, bytes, oom) : alloc_large(P, bytes, oom);
    if (!b)
        return NULL;
    b->owner = P;
    if (poison && P->src->fill(b->ptr, 0xFF, b->size) != 0) {
        pool_free(b);
        return NULL;
    }
    b->requested = bytes;
    b->in_use = 1;
    b->next = NULL;
    P->st.requested += bytes;
    P->st.in_use += b->size;
    return b;
}

pool_block *pool_alloc_in(pool_kind k, size_t bytes)
{
    int oom;
    pool_block *b = pool_try_alloc(k, bytes, &oom);
    if (!b && oom)
        report_oom(&pools[k], bytes ? bytes : 1);
    return b;
}

pool_block *pool_alloc(size_t bytes) { return pool_alloc_in(POOL_DEVICE, bytes); }

void pool_free(pool_block *b)
{
    if (!b)
        return;
    pool *P = b->owner;
    if (b->in_use) {
        P->st.requested -= b->requested;
        P->st.in_use -= b->size;
        b->in_use = 0;
    }
    if (b->seg) {
        int cls = b->seg->slot_class;
        b->next = P->small_free[cls];
        P->small_free[cls] = b;
        b->seg->nfree++;
    } else {
        b->next = P->large_free;
        P->large_free = b;
    }
}

/* Unlink the free slots of an empty segment from its class's free list. */
static void unlink_segment_slots(pool *P, pool_segment *seg)
{
    pool_block **pp = &P->small_free[seg->slot_class];
    while (*pp) {
        if ((*pp)->seg == seg)
            *pp = (*pp)->next;
        else
            pp = &(*pp)->next;
    }
}

static void trim_one(pool *P)
{
    while (P->large_free) {
        pool_block *b = P->large_free;
        P->large_free = b->next;
        source_release(P, b->ptr, b->size);
        free(b);
    }
    for (pool_segment **pp = &P->segments; *pp;) {
        pool_segment *seg = *pp;
        if (seg->nfree < seg->nslots) {
            pp = &seg->next;
            continue;
        }
        unlink_segment_slots(P, seg);
        *pp = seg->next;
        source_release(P, seg->base, POOL_SEGMENT);
        free(seg->slots);
        free(seg);
    }
}

void pool_trim(void)
{
    for (int k = 0; k < POOL_KINDS; k++)
        trim_one(&pools[k]);
    /* the kernels' scratch (fast's padded copies of a large product) is
     * device memory no matrix holds either; a failure here leaves it, and
     * the allocation that asked for the trim then says what is short */
    if (gpu_scratch_release() != 0)
        cuk_err_clear();
}
