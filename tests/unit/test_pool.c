/* test_pool.c - the device memory pool on a fake device made of host
 * memory with a capacity: reuse, segments, size classes, trim-and-retry,
 * the out-of-memory message, poisoning; and the large host buffers that
 * matrix.c keeps for reuse. */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "engine/values/matrix.h"
#include "engine/values/pool.h"
#include "tests/check.h"

static size_t fake_cap, fake_used;
static int fake_allocs;

static int fake_alloc(void **p, size_t bytes)
{
    if (fake_used + bytes > fake_cap)
        return 1;
    *p = malloc(bytes + sizeof(size_t));
    if (!*p)
        return 1;
    *(size_t *)*p = bytes;
    *p = (char *)*p + sizeof(size_t);
    fake_used += bytes;
    fake_allocs++;
    return 0;
}

static int fake_release(void *p)
{
    char *base = (char *)p - sizeof(size_t);
    fake_used -= *(size_t *)base;
    free(base);
    return 0;
}

static int fake_info(size_t *free_b, size_t *total)
{
    *free_b = fake_cap - fake_used;
    *total = fake_cap;
    return 0;
}

static int fake_fill(void *p, int byte, size_t n)
{
    memset(p, byte, n);
    return 0;
}

static const pool_source fake = {fake_alloc, fake_release, fake_info, fake_fill};

static void reset(size_t cap)
{
    pool_trim();
    fake_cap = cap;
    fake_allocs = 0;
}

static void repeated_product_allocates_once(void)
{
    reset(1u << 30);
    pool_stats st;
    /* C = A @ B again and again: the new C is made while the old one lives */
    pool_block *c = pool_alloc(64 * 64 * 4);
    for (int i = 0; i < 10000; i++) {
        pool_block *next = pool_alloc(64 * 64 * 4);
        CHECK(next && next != c);
        pool_free(c);
        c = next;
    }
    pool_get_stats(&st);
    CHECKF(fake_allocs == 1, "%d device allocations", fake_allocs);
    pool_free(c);
    c = pool_alloc(8u << 20); /* a large block comes back too */
    pool_free(c);
    pool_block *d = pool_alloc((8u << 20) - 100);
    CHECKF(fake_allocs == 2 && d && d->ptr == c->ptr, "large block not reused (%d allocations)", fake_allocs);
    pool_free(d);
}

static void small_blocks_share_segments(void)
{
    reset(1u << 30);
    pool_block *b[128];
    for (int i = 0; i < 128; i++)
        b[i] = pool_alloc(16 << 10);
    CHECKF(fake_allocs == 1, "128 blocks of 16 KiB took %d segments", fake_allocs);
    for (int i = 0; i < 128; i++) {
        CHECK(b[i] && b[i]->size == (16u << 10));
        for (int j = 0; j < i; j++)
            CHECK(b[i]->ptr != b[j]->ptr);
    }
    pool_block *more = pool_alloc(16 << 10);
    CHECK(fake_allocs == 2);
    pool_free(more);
    for (int i = 0; i < 128; i++)
        pool_free(b[i]);
    pool_trim();
    CHECKF(fake_used == 0, "%zu bytes still held after trim", fake_used);
}

static void size_classes(void)
{
    reset(1u << 30);
    pool_block *a = pool_alloc(1), *b = pool_alloc(513), *c = pool_alloc((1u << 20) + 1);
    CHECK(a && a->size == 512 && b && b->size == 1024);
    CHECKF(c && c->size >= (1u << 20) + 1 && c->size <= (5u << 20) / 4 + (1u << 20) / 4, "class %zu",
           c ? c->size : 0);
    pool_stats st;
    pool_get_stats(&st);
    CHECK(st.requested == 1 + 513 + (1u << 20) + 1);
    pool_free(a);
    pool_free(b);
    pool_free(c);
    pool_get_stats(&st);
    CHECK(st.requested == 0 && st.in_use == 0 && st.held > 0);
}

static void trim_and_retry_then_report(void)
{
    reset(10u << 20);
    pool_block *a = pool_alloc(6u << 20);
    CHECK(a != NULL);
    pool_free(a); /* cached: 6 MiB held, none in use */
    pool_block *b = pool_alloc(9u << 20);
    CHECKF(b != NULL, "the cached block was not given back to make room");
    pool_block *c = pool_alloc(9u << 20);
    const cuk_error *e = cuk_err_get();
    CHECK(c == NULL);
    CHECKF(strstr(e->msg, "out of device memory") && strstr(e->msg, "needs 9.00 MiB") && strstr(e->msg, "free of"),
           "message: %s", e->msg);
    pool_free(b);
}

static void poison(void)
{
    reset(1u << 30);
    pool_set_poison(1);
    pool_block *a = pool_alloc(4000);
    unsigned char *p = a->ptr;
    int all = 1;
    for (int i = 0; i < 4000; i++)
        all &= p[i] == 0xFF;
    CHECK(all);
    pool_set_poison(0);
    pool_free(a);
}

/* A freed host matrix of 1 MiB or more gives its buffer to the next one of
 * the same size, so that a repeated product writes mapped pages; the live
 * total counts only live matrices; at most four are kept. */
static void host_buffers_reused(void)
{
    cuk_matrix *a = mat_new_host(1024, 1024);
    float *p = a ? a->host : NULL;
    size_t before = mat_host_total();
    mat_unref(a);
    CHECK(mat_host_total() == before - 4u * 1024 * 1024);
    cuk_matrix *b = mat_new_host(1024, 1024);
    CHECKF(b && b->host == p, "a freed 4 MiB buffer was not reused");
    CHECK(mat_host_total() == before);
    mat_unref(b);
    cuk_matrix *m[6];
    float *first[6];
    for (int i = 0; i < 6; i++) {
        m[i] = mat_new_host(512, 1024);
        first[i] = m[i] ? m[i]->host : NULL;
    }
    for (int i = 0; i < 6; i++)
        mat_unref(m[i]);
    int reused = 0;
    for (int i = 0; i < 6; i++) {
        m[i] = mat_new_host(512, 1024);
        for (int j = 0; m[i] && j < 6; j++)
            reused += m[i]->host == first[j];
    }
    CHECKF(reused <= 4, "%d of 6 buffers came back: at most 4 are kept", reused);
    CHECKF(reused >= 3, "only %d of 6 buffers came back", reused);
    for (int i = 0; i < 6; i++)
        mat_unref(m[i]);
    mat_host_trim();
}

/* A reused buffer is poisoned like a fresh one. */
static void host_buffers_poisoned(void)
{
    mat_set_poison(1);
    cuk_matrix *a = mat_new_host(1024, 512);
    for (size_t i = 0; a && i < mat_numel(a); i++)
        a->host[i] = 1.0f;
    mat_unref(a);
    cuk_matrix *b = mat_new_host(1024, 512);
    int nan = b != NULL;
    for (size_t i = 0; b && i < mat_numel(b); i++)
        nan &= isnan(b->host[i]);
    CHECK(nan);
    mat_unref(b);
    mat_set_poison(0);
    mat_host_trim();
}

/* The spread pool (mode multi) beside the device pool, both on the fake
 * device: a block goes back to the pool it came from, a large one is cut
 * to whole segments (no class slack), and out of memory there is no error
 * for pool_try_alloc, only the flag (the matrix then goes to host memory),
 * while pool_alloc_in still reports it. */
static void spread_pool_beside_device_pool(void)
{
    reset(64u << 20);
    pool_stats sd, ss;
    size_t odd = (5u << 20) + 12345; /* a class of 6 MiB in the device pool */
    pool_block *d = pool_alloc(odd), *sp = pool_alloc_in(POOL_SPREAD, odd);
    CHECK(d && sp && d->ptr != sp->ptr);
    CHECKF(d->size == (6u << 20) && sp->size == (6u << 20), "sizes %zu %zu", d ? d->size : 0, sp ? sp->size : 0);
    pool_block *sp2 = pool_alloc_in(POOL_SPREAD, (9u << 20) + 1);
    CHECKF(sp2 && sp2->size == (10u << 20), "spread block of %zu, want 10 MiB (whole segments)", sp2 ? sp2->size : 0);
    pool_get_stats_of(POOL_DEVICE, &sd);
    pool_get_stats_of(POOL_SPREAD, &ss);
    CHECKF(sd.requested == odd && ss.requested == odd + (9u << 20) + 1, "requested %zu and %zu", sd.requested,
           ss.requested);
    pool_free(sp);
    pool_block *again = pool_alloc_in(POOL_SPREAD, odd);
    CHECK(again && again->ptr == sp->ptr); /* back in the spread pool, not the device one */
    pool_free(d);
    pool_get_stats_of(POOL_DEVICE, &sd);
    CHECK(sd.requested == 0);
    int oom = 0;
    cuk_err_clear();
    pool_block *huge = pool_try_alloc(POOL_SPREAD, 100u << 20, &oom);
    CHECKF(!huge && oom && cuk_err_get()->kind == CUK_E_NONE, "try: %p, oom %d, error '%s'", (void *)huge, oom,
           cuk_err_get()->msg);
    CHECK(!pool_alloc_in(POOL_SPREAD, 100u << 20) && strstr(cuk_err_get()->msg, "out of device memory"));
    cuk_err_clear();
    pool_free(again);
    pool_free(sp2);
}

int main(void)
{
    pool_init(&fake);
    pool_init_kind(POOL_SPREAD, &fake);
    RUN(repeated_product_allocates_once);
    RUN(small_blocks_share_segments);
    RUN(size_classes);
    RUN(trim_and_retry_then_report);
    RUN(poison);
    RUN(host_buffers_reused);
    RUN(host_buffers_poisoned);
    RUN(spread_pool_beside_device_pool);
    pool_trim();
    return check_exit();
}
