/* matrix.c - matrices and their residency (see matrix.h). */
#include "engine/values/matrix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "engine/values/hostmem.h"
#include "engine/values/pool.h"
#include "engine/values/timing.h"
#include "kernels/gpu.h"

static int poison;
static size_t host_total;

void mat_set_poison(int on)
{
    poison = on;
    pool_set_poison(on);
}

size_t mat_host_total(void) { return host_total; }

int mat_check_shape(const char *what, double rows, double cols)
{
    char r[40], c[40];
    fmt_number(r, sizeof r, rows);
    fmt_number(c, sizeof c, cols);
    if (!isfinite(rows) || !isfinite(cols) || rows != floor(rows) || cols != floor(cols))
        return cuk_err("%s: dimensions must be whole numbers (got %s and %s)", what, r, c);
    if (rows < 1 || cols < 1)
        return cuk_err("%s: dimensions must be at least 1 (got %sx%s): cuk has no empty matrices", what, r, c);
    if (rows > MAT_MAX_DIM || cols > MAT_MAX_DIM)
        return cuk_err("%s: %sx%s is too large (at most %ld rows and %ld columns)", what, r, c, MAT_MAX_DIM,
                       MAT_MAX_DIM);
    return 0;
}

/* Freed host buffers of KEEP_MIN bytes and more are kept for the next
 * allocation of the same size, as the device pool keeps its blocks: a
 * product repeated into a fresh result (C = A @ B, again) then writes pages
 * that are already mapped. A fresh 64 MiB result faulted in 4 KiB pages by
 * the BLAS's 16 threads cost about 35 ms of a 160 ms product at 4096^3
 * (kernels/PERF.md, ## blas). At most KEEP buffers, KEEP_BYTES in all. */
#define KEEP 4
#define KEEP_MIN ((size_t)1 << 20)
#define KEEP_BYTES ((size_t)1 << 30)

static struct {
    float *p[KEEP]; /* oldest first */
    size_t bytes[KEEP];
    int n;
    size_t total;
} kept;

/* Take kept buffer i out of the list. */
static float *kept_remove(int i)
{
    float *p = kept.p[i];
    kept.total -= kept.bytes[i];
    kept.n--;
    memmove(&kept.p[i], &kept.p[i + 1], (size_t)(kept.n - i) * sizeof kept.p[0]);
    memmove(&kept.bytes[i], &kept.bytes[i + 1], (size_t)(kept.n - i) * sizeof kept.bytes[0]);
    return p;
}

/* A kept buffer of exactly `bytes`, or NULL. */
static float *kept_take(size_t bytes)
{
    for (int i = kept.n - 1; i >= 0; i--)
        if (kept.bytes[i] == bytes)
            return kept_remove(i);
    return NULL;
}

void mat_host_trim(void)
{
    while (kept.n)
        free(kept_remove(0));
}

/* Keep p for reuse (the oldest kept go first to make room), or free it. */
static void host_release(float *p, size_t bytes)
{
    host_total -= bytes;
    if (bytes < KEEP_MIN || bytes > KEEP_BYTES) {
        free(p);
        return;
    }
    while (kept.n == KEEP || kept.total + bytes > KEEP_BYTES)
        free(kept_remove(0));
    kept.p[kept.n] = p;
    kept.bytes[kept.n++] = bytes;
    kept.total += bytes;
}

/* Large host allocations are checked against the memory cuk may take
 * (hostmem.h), and a refusal says how much that is and what limits it. */
static float *host_alloc(size_t bytes)
{
    char need[32], have[32];
    float *p = kept_take(bytes);
    hostmem_room room = {0, NULL};
    if (!p && bytes > (64u << 20))
        room = hostmem_available();
    if (room.bytes && bytes > room.bytes && kept.total) { /* what is kept is free memory too */
        mat_host_trim();
        room = hostmem_available();
    }
    if (!p)
        p = (room.bytes && bytes > room.bytes) ? NULL : malloc(bytes);
    if (!p) {
        if (!room.bytes)
            room = hostmem_available();
        if (room.bytes)
            cuk_err("out of host memory: needs %s, %s %s", fmt_bytes(need, sizeof need, (double)bytes),
                    fmt_bytes(have, sizeof have, (double)room.bytes), room.limit);
        else
            cuk_err("out of host memory: needs %s", fmt_bytes(need, sizeof need, (double)bytes));
        return NULL;
    }
    if (poison)
        memset(p, 0xFF, bytes);
    host_total += bytes;
    return p;
}

static cuk_matrix *mat_shell(int rows, int cols)
{
    cuk_matrix *m = calloc(1, sizeof *m);
    if (!m) {
        cuk_err("out of host memory");
        return NULL;
    }
    m->refs = 1;
    m->rows = rows;
    m->cols = cols;
    return m;
}

cuk_matrix *mat_new_host(int rows, int cols)
{
    cuk_matrix *m = mat_shell(rows, cols);
    if (m && !(m->host = host_alloc(mat_bytes(m)))) {
        free(m);
        return NULL;
    }
    return m;
}

/* A device block for m where be keeps its matrices. A spread mode's matrix
 * the GPUs cannot hold together gets none: NULL with no error, and the
 * matrix stays in (or goes to) host memory, where the mode's ops work on it
 * out of core. */
static pool_block *dev_block(const cuk_matrix *m, const cuk_backend *be, int *oom)
{
    *oom = 0;
    return be->spread ? pool_try_alloc(POOL_SPREAD, mat_bytes(m), oom) : pool_alloc(mat_bytes(m));
}

/* Mark m as a matrix the GPUs could not hold (`who` says so) and page-lock
 * its host copy, so that they stream it at the link's rate
 * (bench/perf_multi.c measures both). Where the system refuses (a
 * memory-lock limit), it stays pageable. */
static void mat_out_of_core(cuk_matrix *m)
{
    m->out_of_core = 1;
    if (m->pinned || !m->host)
        return;
    double t0 = timing_now_ms();
    m->pinned = gpu_host_pin(m->host, mat_bytes(m)) == 0;
    if (m->pinned) /* seconds at tens of GiB: the statement's record shows it */
        timing_pinned(mat_bytes(m), timing_now_ms() - t0);
}

cuk_matrix *mat_new(const cuk_backend *be, int rows, int cols)
{
    if (!mode_on_device(be))
        return mat_new_host(rows, cols);
    cuk_matrix *m = mat_shell(rows, cols);
    int oom;
    if (m && !(m->dev = dev_block(m, be, &oom)) && (!oom || !(m->host = host_alloc(mat_bytes(m))))) {
        free(m);
        return NULL;
    }
    if (m && !m->dev)
        mat_out_of_core(m);
    return m;
}

cuk_matrix *mat_scalar(float v)
{
    cuk_matrix *m = mat_new_host(1, 1);
    if (m)
        m->host[0] = v;
    return m;
}

cuk_matrix *mat_exact(int rows, int cols, const double *v)
{
    cuk_matrix *m = mat_new_host(rows, cols);
    if (!m)
        return NULL;
    m->nexact = rows * cols;
    for (int i = 0; i < m->nexact; i++) {
        m->exact[i] = v[i];
        m->host[i] = (float)v[i];
    }
    return m;
}

cuk_matrix *mat_ref(cuk_matrix *m)
{
    m->refs++;
    return m;
}

void mat_unref(cuk_matrix *m)
{
    if (!m || --m->refs > 0)
        return;
    if (m->pinned)
        gpu_host_unpin(m->host); /* it is freed either way */
    if (m->host)
        host_release(m->host, mat_bytes(m));
    pool_free(m->dev);
    free(m);
}

/* A synchronous copy between host and device, timed on the host clock
 * after the device has finished what was queued before it, so that the
 * time is the copy's alone; counted in the command's record. */
static int copy_timed(int to_device, void *dst, const void *src, size_t bytes)
{
    if (gpu_sync() != 0)
        return -1;
    double t0 = timing_now_ms();
    int rc = to_device ? gpu_h2d(dst, src, bytes) : gpu_d2h(dst, src, bytes);
    if (rc == 0 && to_device)
        rc = gpu_sync();
    if (rc == 0)
        timing_copied(to_device, bytes, timing_now_ms() - t0);
    return rc;
}

float *mat_host(cuk_matrix *m)
{
    if (m->host)
        return m->host;
    float *h = host_alloc(mat_bytes(m));
    if (!h)
        return NULL;
    if (copy_timed(0, h, m->dev->ptr, mat_bytes(m)) != 0) {
        host_release(h, mat_bytes(m));
        return NULL;
    }
    return m->host = h;
}

/* The device copy (made now if need be); for a spread mode, the host copy
 * of a matrix the GPUs cannot hold (out of core). */
static float *mat_dev(cuk_matrix *m, const cuk_backend *be)
{
    if (m->dev)
        return m->dev->ptr;
    int oom;
    pool_block *b = dev_block(m, be, &oom);
    if (!b && oom)
        mat_out_of_core(m);
    if (!b)
        return oom ? m->host : NULL;
    if (copy_timed(1, b->ptr, m->host, mat_bytes(m)) != 0) {
        pool_free(b);
        return NULL;
    }
    m->dev = b;
    return b->ptr;
}

float *mat_data(cuk_matrix *m, const cuk_backend *be)
{
    return mode_on_device(be) ? mat_dev(m, be) : mat_host(m);
}

int mat_read(cuk_matrix *m, size_t first, size_t n, float *dst)
{
    if (m->host) {
        memcpy(dst, m->host + first, n * sizeof *dst);
        return 0;
    }
    return copy_timed(0, dst, (const float *)m->dev->ptr + first, n * sizeof *dst);
}

int mat_scalar_value(cuk_matrix *m, float *out)
{
    if (m->rows != 1 || m->cols != 1)
        return cuk_err("expected a scalar, got a %dx%d matrix", m->rows, m->cols);
    const float *h = mat_host(m);
    if (!h)
        return -1;
    *out = h[0];
    return 0;
}

int mat_scalar_exact(cuk_matrix *m, double *out)
{
    float f = 0;
    if (m->nexact == 1) {
        *out = m->exact[0];
        return 0;
    }
    if (mat_scalar_value(m, &f) != 0)
        return -1;
    *out = f;
    return 0;
}

const char *mat_where(const cuk_matrix *m)
{
    return m->host && m->dev ? "host+device" : m->dev ? "device" : "host";
}

size_t mat_host_bytes(const cuk_matrix *m) { return m->host ? mat_bytes(m) : 0; }
size_t mat_dev_bytes(const cuk_matrix *m) { return m->dev ? mat_bytes(m) : 0; }
