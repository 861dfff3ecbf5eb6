/* pool.h - the device memory pool: a caching allocator in front of
 * cudaMalloc, so that repeated commands (C = A @ B, again and again) reuse
 * blocks instead of allocating.
 *
 * Small requests (up to POOL_SMALL_MAX) are carved from 2 MiB segments in
 * power-of-two slots; large ones get a block of their own, rounded up to a
 * size class (four classes per power of two), kept on a free list when
 * released. When the device says no, the pool gives back what it caches and
 * tries once more before reporting how much was needed and how much is free.
 *
 * The memory source is a table of functions, so the pool is tested on the
 * host with a fake device (tests/unit/test_pool.c). There are two pools
 * of the same design: one for device 0's memory (the single-GPU modes) and
 * one for spread memory (mode multi: row slabs on every GPU, kernels/gpu.h);
 * a block goes back to the pool it came from. */
#ifndef CUK_POOL_H
#define CUK_POOL_H

#include <stddef.h>

#define POOL_SEGMENT (2u << 20)
#define POOL_SMALL_MIN 512u
#define POOL_SMALL_MAX (1u << 20)

typedef struct {
    /* 0 ok; 1 out of memory (no error set); -1 other error (error set) */
    int (*alloc)(void **p, size_t bytes);
    int (*release)(void *p);
    int (*mem_info)(size_t *free_bytes, size_t *total_bytes);
    int (*fill)(void *p, int byte, size_t bytes);
} pool_source;

/* Which pool: the memory a mode's matrices live in. */
typedef enum { POOL_DEVICE, POOL_SPREAD, POOL_KINDS } pool_kind;

typedef struct pool_block {
    void *ptr;
    size_t size;             /* the block's class size */
    size_t requested;        /* what the caller asked for */
    struct pool_segment *seg;/* small blocks: their segment; large: NULL */
    struct pool_block *next; /* free list link */
    int in_use;
    struct pool *owner;      /* the pool it goes back to */
} pool_block;

typedef struct {
    size_t requested;              /* bytes asked for by live blocks */
    size_t in_use;                 /* class bytes of live blocks */
    size_t held;                   /* bytes obtained from the device */
    unsigned long long device_allocs;  /* calls to the source's alloc */
    unsigned long long requests;       /* pool_alloc calls */
    unsigned long long reused;         /* served without a device allocation */
} pool_stats;

/* Pool k uses src from now on (it must be empty). NULL: the GPU's own
 * (kernels/gpu.h: cudaMalloc for POOL_DEVICE, spread memory for
 * POOL_SPREAD). pool_init(src) is pool_init_kind(POOL_DEVICE, src). */
void pool_init_kind(pool_kind k, const pool_source *src);
void pool_init(const pool_source *src);

/* A block of at least bytes from pool k, or NULL with the error set (out of
 * device memory: needed and free sizes; or the device's own error).
 * pool_alloc(bytes) is pool_alloc_in(POOL_DEVICE, bytes). */
pool_block *pool_alloc_in(pool_kind k, size_t bytes);
/* The same, but out of device memory is NULL with *oom = 1 and no error
 * set (for a caller with somewhere else to go); any other failure is NULL
 * with *oom = 0 and the error set. */
pool_block *pool_try_alloc(pool_kind k, size_t bytes, int *oom);
pool_block *pool_alloc(size_t bytes);
void pool_free(pool_block *b);

/* Give every cached, unused byte of every pool back to its source, and the
 * kernels' scratch to the device. */
void pool_trim(void);

void pool_get_stats_of(pool_kind k, pool_stats *out);
void pool_get_stats(pool_stats *out); /* POOL_DEVICE's */
/* Fill every block handed out with 0xFF bytes (NaN as float32), so tests
 * catch kernels that leave elements unwritten. */
void pool_set_poison(int on);

#endif
