/* gpu_spread.cu - spread memory (kernels/gpu.h): one range of addresses
 * whose bytes lie on every visible GPU in consecutive parts, each part
 * mapped for every GPU, so that a row-major matrix in it is a stack of row
 * slabs that any GPU can also read and write whole. Mode multi's matrices
 * live in it. Also how the GPUs are linked, for `info`.
 *
 * It is built with CUDA's virtual memory management (reserve a range, make
 * one physical allocation per GPU, map them one after the other, grant
 * every GPU access), reached through cudaGetDriverEntryPointByVersion so
 * that cuk links no driver library. One contiguous range is what lets the
 * engine keep one pointer per matrix: slicing, printing, host copies and
 * the single-GPU modes work on a spread matrix unchanged, each GPU reading
 * the others' parts over the link, while mode multi's kernels work on each
 * GPU's own part (gpu_multi.cu). */
#include "kernels/gpu_internal.h"

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernels/variants.h"

/* Below this a matrix is not worth splitting: it goes whole on GPU 0, and
 * its operations run there alone (a fork and join across GPUs costs more
 * than they save). `set spread all` splits every allocation of two pages
 * or more. */
#define SPREAD_MIN ((size_t)64 << 20)

/* --- the driver's virtual memory functions ---------------------------------- */

#define DRIVER_FUNCTIONS(X)                                                                                   \
    X(cuMemAddressReserve) X(cuMemAddressFree) X(cuMemCreate) X(cuMemRelease) X(cuMemMap) X(cuMemUnmap)      \
    X(cuMemSetAccess) X(cuMemGetAllocationGranularity) X(cuGetErrorName)

static struct {
#define DRV_POINTER(f) decltype(&::f) f;
    DRIVER_FUNCTIONS(DRV_POINTER)
#undef DRV_POINTER
} drv;

/* One spread allocation: parts[g] bytes on GPU g, mapped in GPU order. */
typedef struct {
    CUdeviceptr base;
    size_t bytes;
    int nparts;
    size_t part[GPU_MAX_DEVICES];
    CUmemGenericAllocationHandle handle[GPU_MAX_DEVICES];
} spread_alloc;

static struct {
    int state;            /* 0 not tried, 1 ready, -1 unusable (why says why) */
    char why[640]; /* as long as the error slot's message */
    int ngpu;             /* GPUs the parts go to: every visible one that all can reach */
    size_t gran;          /* the mapping granularity, the same on every GPU */
    size_t limit;         /* CUK_MULTI_LIMIT: bytes a GPU may hold for spread memory; 0 none */
    size_t held[GPU_MAX_DEVICES];
    spread_alloc *list;
    int n, cap;
} S;

#define TEXT(x) #x
static int drv_fail(CUresult r, const char *call, const char *file, int line)
{
    const char *name = "?";
    if (drv.cuGetErrorName)
        drv.cuGetErrorName(r, &name);
    return cuk_err("CUDA driver error: %s (%d) in %s at %s:%d", name, (int)r, call, file, line);
}
#define DRV_CHECK(call)                                            \
    do {                                                           \
        CUresult drv_r_ = (call);                                  \
        if (drv_r_ != CUDA_SUCCESS)                                \
            return drv_fail(drv_r_, #call, __FILE__, __LINE__);    \
    } while (0)

static int load_driver(void)
{
    cudaDriverEntryPointQueryResult found;
#define DRV_FIND(f)                                                                                            \
    GPU_CHECK(cudaGetDriverEntryPointByVersion(TEXT(f), (void **)&drv.f, 12000, cudaEnableDefault, &found));    \
    if (found != cudaDriverEntryPointSuccess)                                                                  \
        return cuk_err("the CUDA driver has no %s: spread memory needs driver 12.0 or later", TEXT(f));
    DRIVER_FUNCTIONS(DRV_FIND)
#undef DRV_FIND
    return 0;
}

static CUmemAllocationProp part_prop(int g)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = g;
    return p;
}

/* GPUs 0..n-1 can all reach each other's memory: the count of GPUs from 0
 * on for which that holds. */
static int reachable_count(int n)
{
    for (int g = 1; g < n; g++)
        for (int h = 0; h < g; h++) {
            int ok = 0, back = 0;
            if (cudaDeviceCanAccessPeer(&ok, g, h) != cudaSuccess || cudaDeviceCanAccessPeer(&back, h, g) != cudaSuccess) {
                cudaGetLastError();
                return g;
            }
            if (!ok || !back)
                return g;
        }
    return n;
}

/* CUK_MULTI_LIMIT in GiB (a fraction is fine): what spread memory may use
 * of each GPU, to share a machine or to show out-of-core work on one whose
 * GPUs would hold the matrices; 0 when unset. */
static size_t read_limit(void)
{
    const char *v = getenv("CUK_MULTI_LIMIT");
    double gib = v ? atof(v) : 0;
    return gib > 0 ? (size_t)(gib * 1073741824.0) : 0;
}

static int open_spread(void)
{
    if (gpu_init() != 0)
        return cuk_err("no GPU for spread memory");
    if (load_driver() != 0)
        return -1;
    S.ngpu = reachable_count(gpu_count());
    for (int g = 0; g < S.ngpu; g++) {
        CUmemAllocationProp p = part_prop(g);
        size_t gran = 0;
        DRV_CHECK(drv.cuMemGetAllocationGranularity(&gran, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        S.gran = gran > S.gran ? gran : S.gran;
    }
    S.limit = read_limit();
    return 0;
}

static int spread_ready(void)
{
    if (S.state == 0) {
        S.state = open_spread() == 0 ? 1 : -1;
        if (S.state < 0)
            snprintf(S.why, sizeof S.why, "%s", cuk_err_get()->msg);
    }
    return S.state > 0 ? 0 : cuk_err("%s", S.why);
}

extern "C" int gpu_spread_gpus(void)
{
    return spread_ready() == 0 ? S.ngpu : 0;
}

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

/* The GPUs an allocation of bytes goes to: one below the size worth
 * splitting, else every one. */
static int split_count(size_t bytes)
{
    size_t total = round_up(bytes, S.gran);
    return total < (variant_pick(VAR_SPREAD) == VAR_SPREAD_ALL ? 2 * S.gran : SPREAD_MIN) ? 1 : S.ngpu;
}

extern "C" int gpu_spread_split(size_t bytes)
{
    return spread_ready() == 0 ? split_count(bytes) : 0;
}

/* Split bytes into per-GPU parts, multiples of the granularity. */
static int plan_parts(spread_alloc *a, size_t bytes)
{
    size_t total = round_up(bytes, S.gran);
    int n = split_count(bytes);
    size_t per = round_up((total + n - 1) / n, S.gran);
    a->bytes = 0;
    a->nparts = 0;
    for (int g = 0; g < n && a->bytes < total; g++) {
        size_t part = total - a->bytes < per ? total - a->bytes : per;
        a->part[a->nparts++] = part;
        a->bytes += part;
    }
    return 0;
}

static void release_parts(spread_alloc *a, int made, int mapped)
{
    size_t off = 0;
    for (int g = 0; g < mapped; g++) {
        drv.cuMemUnmap(a->base + off, a->part[g]);
        off += a->part[g];
    }
    for (int g = 0; g < made; g++)
        drv.cuMemRelease(a->handle[g]);
    if (a->base)
        drv.cuMemAddressFree(a->base, a->bytes);
}

/* Make, map and open every part of a; 1 if a GPU has too little memory
 * (nothing kept), -1 on another error. */
static int map_parts(spread_alloc *a)
{
    int made = 0, mapped = 0;
    CUresult r = drv.cuMemAddressReserve(&a->base, a->bytes, S.gran, 0, 0);
    for (; r == CUDA_SUCCESS && made < a->nparts; made++) {
        if (S.limit && S.held[made] + a->part[made] > S.limit) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
            break;
        }
        CUmemAllocationProp p = part_prop(made);
        r = drv.cuMemCreate(&a->handle[made], a->part[made], &p, 0);
        if (r != CUDA_SUCCESS)
            break;
    }
    for (size_t off = 0; r == CUDA_SUCCESS && mapped < a->nparts; mapped++) {
        r = drv.cuMemMap(a->base + off, a->part[mapped], 0, a->handle[mapped], 0);
        if (r != CUDA_SUCCESS)
            break;
        off += a->part[mapped];
    }
    CUmemAccessDesc access[GPU_MAX_DEVICES];
    for (int g = 0; g < S.ngpu; g++) {
        access[g].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access[g].location.id = g;
        access[g].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }
    if (r == CUDA_SUCCESS)
        r = drv.cuMemSetAccess(a->base, a->bytes, access, (size_t)S.ngpu);
    if (r == CUDA_SUCCESS)
        return 0;
    if (!a->base)
        made = mapped = 0;
    release_parts(a, made, mapped);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        return 1;
    return drv_fail(r, "making spread memory (cuMemCreate, cuMemMap, cuMemSetAccess)", __FILE__, __LINE__);
}

static int list_add(const spread_alloc *a)
{
    if (S.n == S.cap) {
        int cap = S.cap ? 2 * S.cap : 64;
        spread_alloc *l = (spread_alloc *)realloc(S.list, (size_t)cap * sizeof *l);
        if (!l)
            return cuk_err("out of host memory");
        S.list = l;
        S.cap = cap;
    }
    S.list[S.n++] = *a;
    for (int g = 0; g < a->nparts; g++)
        S.held[g] += a->part[g];
    return 0;
}

extern "C" int gpu_spread_alloc(void **p, size_t bytes)
{
    spread_alloc a;
    memset(&a, 0, sizeof a);
    *p = NULL;
    if (spread_ready() != 0 || plan_parts(&a, bytes) != 0)
        return -1;
    int r = map_parts(&a);
    if (r != 0)
        return r;
    if (list_add(&a) != 0) {
        release_parts(&a, a.nparts, a.nparts);
        return -1;
    }
    *p = (void *)a.base;
    return 0;
}

/* The allocation holding address p, or NULL. */
static spread_alloc *find(const void *p)
{
    CUdeviceptr v = (CUdeviceptr)p;
    for (int i = 0; i < S.n; i++)
        if (v >= S.list[i].base && v < S.list[i].base + S.list[i].bytes)
            return &S.list[i];
    return NULL;
}

extern "C" int gpu_spread_free(void *p)
{
    spread_alloc *a = find(p);
    if (!p)
        return 0;
    if (!a)
        return cuk_err("gpu_spread_free: %p is not spread memory", p);
    /* Unmapping does not wait for kernels that use the range; every GPU's
     * work joins the engine's stream (gpu_multi.cu), so waiting there does. */
    if (gpu_sync() != 0)
        return -1;
    for (int g = 0; g < a->nparts; g++)
        S.held[g] -= a->part[g];
    release_parts(a, a->nparts, a->nparts);
    *a = S.list[--S.n];
    return 0;
}

extern "C" int gpu_spread_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    if (spread_ready() != 0)
        return -1;
    for (int g = 0; g < S.ngpu; g++) {
        device_facts f;
        size_t fr = 0, tot = 0;
        if (gpu_facts_of(g, &f, &fr, &tot) != 0)
            return -1;
        if (S.limit) {
            tot = S.limit;
            fr = S.held[g] < S.limit ? S.limit - S.held[g] : 0;
        }
        *free_bytes += fr;
        *total_bytes += tot;
    }
    return 0;
}

extern "C" int gpu_spread_fill(void *p, int byte, size_t bytes)
{
    GPU_CHECK(cudaMemsetAsync(p, byte, bytes, gpu_engine_stream()));
    return 0;
}

extern "C" size_t gpu_spread_held(int g)
{
    return g >= 0 && g < GPU_MAX_DEVICES ? S.held[g] : 0;
}

extern "C" int gpu_spread_parts(const void *p, size_t bytes, int *gpu, size_t *start, size_t *len)
{
    const spread_alloc *a = find(p);
    if (!a)
        return 0;
    size_t lo = (size_t)((CUdeviceptr)p - a->base), hi = lo + bytes, off = 0;
    int n = 0;
    for (int g = 0; g < a->nparts; off += a->part[g], g++) {
        size_t b = off > lo ? off : lo, e = off + a->part[g] < hi ? off + a->part[g] : hi;
        if (b >= e)
            continue;
        gpu[n] = g;
        start[n] = b - lo;
        len[n++] = e - b;
    }
    return n;
}

/* The end of the part holding byte off of the range [p, p + bytes): the
 * range's end where p is not spread memory. */
static size_t part_end(const void *p, size_t bytes, size_t off)
{
    int gpu[GPU_MAX_DEVICES];
    size_t start[GPU_MAX_DEVICES], len[GPU_MAX_DEVICES];
    int n = gpu_spread_parts(p, bytes, gpu, start, len);
    for (int i = 0; i < n; i++)
        if (off >= start[i] && off < start[i] + len[i])
            return start[i] + len[i];
    return bytes;
}

/* Each copy within one part of either side: one physical allocation at
 * each end, so that the copy engine meets no mapping boundary. */
extern "C" int gpu_spread_copy(void *dst, const void *src, size_t bytes)
{
    for (size_t off = 0, end; off < bytes; off = end) {
        size_t d = part_end(dst, bytes, off), s = part_end(src, bytes, off);
        end = d < s ? d : s;
        GPU_CHECK(cudaMemcpyAsync((char *)dst + off, (const char *)src + off, end - off, cudaMemcpyDeviceToDevice,
                                  gpu_engine_stream()));
    }
    return 0;
}

/* --- links ------------------------------------------------------------------- */

#define LINK_PROBE ((size_t)256 << 20) /* bytes copied to measure a link */

static struct {
    int measured[GPU_MAX_DEVICES][GPU_MAX_DEVICES];
    gpu_link link[GPU_MAX_DEVICES][GPU_MAX_DEVICES];
} L;

/* Copy LINK_PROBE bytes from GPU j to GPU i three times, the best in GB/s
 * (buffers made and freed here: `info` asks once per pair). */
static int measure(int i, int j, double *gbs)
{
    void *src = NULL, *dst = NULL;
    cudaEvent_t t0, t1;
    float best = 0;
    int rc = gpu_select(j) != 0 ? -1 : 0;
    cudaError_t err = rc ? cudaSuccess : cudaMalloc(&src, LINK_PROBE);
    if (!rc && err == cudaSuccess && (rc = gpu_select(i)) == 0)
        err = cudaMalloc(&dst, LINK_PROBE);
    if (!rc && err == cudaSuccess)
        err = cudaEventCreate(&t0);
    if (!rc && err == cudaSuccess)
        err = cudaEventCreate(&t1);
    for (int rep = 0; !rc && err == cudaSuccess && rep < 3; rep++) {
        float ms = 0;
        err = cudaEventRecord(t0, gpu_stream_handle());
        if (err == cudaSuccess)
            err = cudaMemcpyPeerAsync(dst, i, src, j, LINK_PROBE, gpu_stream_handle());
        if (err == cudaSuccess)
            err = cudaEventRecord(t1, gpu_stream_handle());
        if (err == cudaSuccess)
            err = cudaEventSynchronize(t1);
        if (err == cudaSuccess)
            err = cudaEventElapsedTime(&ms, t0, t1);
        if (err == cudaSuccess && ms > 0 && LINK_PROBE / (ms * 1e6) > best)
            best = (float)(LINK_PROBE / (ms * 1e6));
    }
    if (!rc && err != cudaSuccess)
        rc = gpu_fail(err, "cudaMemcpyPeerAsync (measuring a link)", __FILE__, __LINE__);
    cudaFree(dst);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    if (gpu_select(j) == 0)
        cudaFree(src);
    if (gpu_select(0) != 0)
        rc = -1;
    *gbs = best;
    return rc;
}

extern "C" int gpu_link_of(int i, int j, gpu_link *out)
{
    int n = gpu_count();
    if (i < 0 || j < 0 || i >= n || j >= n || i == j)
        return cuk_err("no link between GPU %d and GPU %d (%d visible)", i, j, n);
    if (!L.measured[i][j]) {
        gpu_link *k = &L.link[i][j];
        int atomics = 0;
        GPU_CHECK(cudaDeviceCanAccessPeer(&k->peer, i, j));
        GPU_CHECK(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, i, j));
        k->nvlink = k->peer && atomics;
        if (measure(i, j, &k->gbs) != 0)
            return -1;
        L.measured[i][j] = 1;
    }
    *out = L.link[i][j];
    return 0;
}
