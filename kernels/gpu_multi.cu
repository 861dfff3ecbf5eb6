/* gpu_multi.cu - mode multi: every visible GPU at once. Its matrices are in
 * spread memory (gpu_spread.cu), a row slab on each GPU, and each operation
 * runs as one share per GPU on that GPU's own slab, on its own stream:
 *
 *   elementwise, unary, fill, rand, eye, slicing: each GPU writes its own
 *     part of the result with the kernels of mode fast (or the common ones);
 *   transpose: each GPU writes its rows of the result, reading the columns
 *     they come from over the link (the transpose redistributes);
 *   sum, mean, norm, min, max, dot: each GPU reduces its part, NCCL's
 *     all-gather brings the partial results together and GPU 0 combines
 *     them in GPU order (the same rules for NaN as one GPU, and the same
 *     sum every time);
 *   the product C = A @ B: GPU g computes its row slab of C from its rows of
 *     A and all of B, a chunk of B's rows at a time: a chunk of its own
 *     where it lies, another GPU's broadcast by NCCL into a buffer while
 *     the previous chunk's product runs (a 1-D algorithm: every GPU
 *     receives all of B it lacks, (P-1)/P of B; where SUMMA's 2-D grid
 *     pays off: ARCHITECTURE.md);
 *   a product with an operand the GPUs cannot hold (host memory: out of
 *     core) goes to cuBLASXt over every GPU.
 *
 * Every share starts after the work queued before it on the engine's
 * stream (fork) and the engine's stream waits for every share (join), so
 * the engine's timing marks and waits cover all the GPUs. With one GPU, or
 * a matrix too small to spread, an operation is the single-GPU one.
 *
 * NCCL is opened with dlopen when the mode is first wanted, like cuBLAS;
 * NVLink multicast (NVLS) is kept off: on a shared host it can take every
 * GPU out of service. */
#include "kernels/gpu_internal.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nccl.h>

#include "base/error.h"
#include "kernels/elementwise.h"

extern "C" {
cuk_matmul_fn multi_matmul;
cuk_transpose_fn multi_transpose;
cuk_ewise_fn multi_ewise;
cuk_unary_fn multi_unary;
cuk_reduce_fn multi_reduce_sum;
cuk_reduce_fn multi_reduce_mean;
cuk_reduce_fn multi_reduce_norm;
cuk_reduce_fn multi_reduce_min;
cuk_reduce_fn multi_reduce_max;
cuk_dot_fn multi_dot;
cuk_fill_fn multi_fill;
cuk_eye_fn multi_eye;
cuk_random_fn multi_random;
cuk_copy2d_fn multi_copy2d;
int multi_load(const char **why);
int multi_setup(int step, char *what, size_t cap);

/* The kernels each GPU runs on its share. */
cuk_ewise_fn fast_ewise;
cuk_unary_fn fast_unary;
cuk_reduce_fn fast_reduce_sum;
cuk_reduce_fn fast_reduce_mean;
cuk_reduce_fn fast_reduce_norm;
cuk_reduce_fn fast_reduce_min;
cuk_reduce_fn fast_reduce_max;
cuk_dot_fn fast_dot;
cuk_fill_fn gpu_fill;
cuk_copy2d_fn gpu_copy2d;
cuk_matmul_fn cublas_matmul;
cuk_transpose_fn fast_transpose;
int gpu_random_from(cuk_dist dist, float *out, size_t first, size_t n, uint64_t seed, uint64_t stream);
int gpu_eye_rows(float *out, int cols, int r0, int r1);
int cublas_gemm_ld(float *c, size_t ldc, const float *a, size_t lda, const float *b, size_t ldb, int m, int n, int k,
                   float beta);
int cublas_xt_matmul(float *c, const float *a, const float *b, int m, int n, int k, int gpus, int block);
int cublas_load(const char **why);
}

/* --- NCCL, loaded on first use -------------------------------------------- */

#define NCCL_FUNCTIONS(X)                                                                                     \
    X(ncclCommInitAll) X(ncclBroadcast) X(ncclAllGather) X(ncclGroupStart) X(ncclGroupEnd) X(ncclGetErrorString) \
    X(ncclGetVersion)

static struct {
#define NCCL_POINTER(f) decltype(&::f) f;
    NCCL_FUNCTIONS(NCCL_POINTER)
#undef NCCL_POINTER
} nccl;

#define NCCL_FILE "libnccl.so.2"
#define TEXT(x) #x

static int nccl_fail(ncclResult_t r, const char *call, const char *file, int line)
{
    return cuk_err("NCCL error: %s (%d) in %s at %s:%d", nccl.ncclGetErrorString ? nccl.ncclGetErrorString(r) : "?",
                   (int)r, call, file, line);
}
#define NCCL_CHECK(call)                                             \
    do {                                                             \
        ncclResult_t nccl_r_ = (call);                               \
        if (nccl_r_ != ncclSuccess)                                  \
            return nccl_fail(nccl_r_, #call, __FILE__, __LINE__);    \
    } while (0)

/* Run NCCL's calls uncounted: its kernels wait for each other across the
 * GPUs, and `count` replays each kernel on its own (gpu_counters_hold). */
template <typename F> static int uncounted(F calls)
{
    gpu_counters_hold();
    int rc = calls();
    gpu_counters_resume();
    return rc;
}

/* A chunk of B: at most 512 MiB (two buffers on each GPU). Fewer, longer
 * products lose fewer partial last waves: at 16384^3 chunks of 8192 rows,
 * with each round's own chunks first, took 86.3 ms against 88.6 for 4096
 * (kernels/PERF.md, ## multi). */
#define CHUNK_FLOATS ((size_t)128 << 20)

/* The mode's state: the GPUs, their NCCL communicators, a second stream on
 * each for the broadcasts, the events that order the streams, and each
 * GPU's buffers for B's chunks and its partial results. */
typedef struct {
    cudaStream_t comm;          /* NCCL's work, beside the products */
    cudaEvent_t done, comm_done;/* this GPU's share finished (join) */
    cudaEvent_t ready[2], free[2]; /* chunk buffer i filled / read */
    float *chunk[2];
    size_t chunk_cap;           /* floats in each chunk buffer */
    float *partial;             /* GPU_MAX_DEVICES floats: every GPU's partial result */
} multi_gpu;

static struct {
    int loaded;                 /* 0 not tried, 1 yes, -1 no (why) */
    char why[640]; /* as long as the error slot's message */
    int step_done[4];           /* the set-up steps done (steps[] below) */
    int n;                      /* GPUs in use */
    ncclComm_t comm[GPU_MAX_DEVICES];
    cudaEvent_t fork;           /* on the engine's stream (device 0) */
    multi_gpu g[GPU_MAX_DEVICES];
} M;

static int load_nccl(void)
{
    /* Before NCCL reads its environment: NVLink SHARP multicast off. */
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    void *h = dlopen(NCCL_FILE, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *err = dlerror();
        snprintf(M.why, sizeof M.why, "mode multi needs NCCL for %d GPUs: cannot load %s (%s)", M.n, NCCL_FILE,
                 err ? err : "unknown error");
        return -1;
    }
#define NCCL_FIND(f)                                                                                             \
    if (!(*(void **)&nccl.f = dlsym(h, TEXT(f)))) {                                                              \
        snprintf(M.why, sizeof M.why, "cannot use %s: it has no %s (cuk was built against NCCL %d.%d)", NCCL_FILE, \
                 TEXT(f), NCCL_MAJOR, NCCL_MINOR);                                                               \
        return -1;                                                                                               \
    }
    NCCL_FUNCTIONS(NCCL_FIND)
#undef NCCL_FIND
    return 0;
}

/* 1 if the mode can run here (loading what it needs the first time), else
 * 0 and *why: the row's load hook, so `modes` and `mode multi` say why. */
extern "C" int multi_load(const char **why)
{
    if (M.loaded == 0) {
        const char *no = NULL;
        int pending = cuk_err_get()->kind != CUK_E_NONE; /* an error of the caller's: kept */
        M.loaded = -1;
        if (!cublas_load(&no))
            snprintf(M.why, sizeof M.why, "%s", no);
        else if ((M.n = gpu_spread_gpus()) <= 0)
            snprintf(M.why, sizeof M.why, "%s", cuk_err_get()->msg);
        else if (M.n == 1 || load_nccl() == 0)
            M.loaded = 1;
        if (!pending)
            cuk_err_clear(); /* what gpu_spread_gpus set is in M.why */
    }
    if (M.loaded < 0 && why)
        *why = M.why;
    return M.loaded > 0;
}

/* --- streams, events and buffers -------------------------------------------- */

static int open_gpu(int g)
{
    multi_gpu *d = &M.g[g];
    if (gpu_select(g) != 0)
        return -1;
    /* NCCL's kernels first: a broadcast waiting for SMs behind a long
     * product on its root would leave the GPUs it feeds idle. */
    int least, greatest;
    GPU_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    GPU_CHECK(cudaStreamCreateWithPriority(&d->comm, cudaStreamNonBlocking, greatest));
    GPU_CHECK(cudaEventCreateWithFlags(&d->done, cudaEventDisableTiming));
    GPU_CHECK(cudaEventCreateWithFlags(&d->comm_done, cudaEventDisableTiming));
    for (int i = 0; i < 2; i++) {
        GPU_CHECK(cudaEventCreateWithFlags(&d->ready[i], cudaEventDisableTiming));
        GPU_CHECK(cudaEventCreateWithFlags(&d->free[i], cudaEventDisableTiming));
    }
    GPU_CHECK(cudaMalloc(&d->partial, GPU_MAX_DEVICES * sizeof(float)));
    GPU_CHECK(cudaMemsetAsync(d->partial, 0, GPU_MAX_DEVICES * sizeof(float), gpu_stream_handle()));
    GPU_WAIT(gpu_stream_handle()); /* before NCCL's stream first reads it */
    /* Matrices of the single-GPU modes (device memory from cudaMalloc) are
     * operands too: every GPU reads them over the link. */
    for (int h = 0; h < M.n; h++) {
        if (h == g)
            continue;
        cudaError_t err = cudaDeviceEnablePeerAccess(h, 0);
        if (err == cudaErrorPeerAccessAlreadyEnabled)
            cudaGetLastError();
        else
            GPU_CHECK(err);
    }
    return 0;
}

static int comm_init(int *devs)
{
    NCCL_CHECK(nccl.ncclCommInitAll(M.comm, M.n, devs));
    return 0;
}

/* --- set-up, once -------------------------------------------------------------- */

/* The mode's one-time set-up in steps (the row's setup hook), so that the
 * engine runs each outside the clock and `info` names it (engine/values/
 * warm.c). The first two are what every operation needs: multi_ready runs
 * them where the engine has not. The last two bring up what an operation
 * would otherwise meet first inside a timed region: the kernels and the
 * cuBLAS handle of each GPU (the engine's own warm-up runs on GPU 0
 * alone), and NCCL's connections, made at a communicator's first
 * collective. */
static int open_streams(void)
{
    for (int g = 0; g < M.n; g++)
        if (open_gpu(g) != 0)
            return -1;
    if (gpu_select(0) != 0)
        return -1;
    GPU_CHECK(cudaEventCreateWithFlags(&M.fork, cudaEventDisableTiming));
    return 0;
}

static int open_comms(void)
{
    int devs[GPU_MAX_DEVICES];
    for (int g = 0; g < M.n; g++)
        devs[g] = g;
    return uncounted([&] { return comm_init(devs); });
}

static int first_shares(void);
static int first_links(void);

static const struct {
    int (*run)(void);
    const char *what;
    int several; /* only with two GPUs or more */
} steps[] = {
    {open_streams, "streams, events and peer access on every GPU", 0},
    {open_comms, "NCCL communicators between the GPUs", 1},
    {first_shares, "each GPU's kernels loaded and cuBLAS handle made (every share once)", 0},
    {first_links, "NCCL's first broadcast and all-gather (its connections)", 1},
};
#define NSTEPS ((int)(sizeof steps / sizeof steps[0]))
static_assert(NSTEPS <= (int)(sizeof M.step_done / sizeof M.step_done[0]), "a flag for every step");

/* Step i, unless done; GPU 0 selected again after it. */
static int run_step(int i)
{
    if (M.step_done[i] || (steps[i].several && M.n < 2))
        return 0;
    int rc = steps[i].run();
    if (gpu_select(0) != 0)
        rc = -1;
    M.step_done[i] = rc == 0;
    return rc;
}

/* What every operation needs, made the first time. */
static int multi_ready(void)
{
    const char *why;
    if (M.step_done[0] && (M.step_done[1] || M.n < 2))
        return 0;
    if (!multi_load(&why))
        return cuk_err("%s", why);
    return run_step(0) == 0 && run_step(1) == 0 ? 0 : -1;
}

extern "C" int multi_setup(int step, char *what, size_t cap)
{
    const char *why;
    if (!multi_load(&why))
        return cuk_err("%s", why);
    for (int i = 0, k = 0; i < NSTEPS; i++) { /* the step-th of those that apply here */
        if ((steps[i].several && M.n < 2) || k++ < step)
            continue;
        snprintf(what, cap, "%s", M.step_done[i] ? "" : steps[i].what);
        return run_step(i) == 0 ? 1 : -1;
    }
    return 0;
}

/* Grow GPU g's two chunk buffers to floats each (never per operation: a
 * product of the same width reuses them). */
static int chunk_buffers(int g, size_t floats)
{
    multi_gpu *d = &M.g[g];
    if (d->chunk_cap >= floats)
        return 0;
    GPU_CHECK(cudaStreamSynchronize(d->comm));
    GPU_WAIT(gpu_stream_handle());
    for (int i = 0; i < 2; i++) {
        GPU_CHECK(cudaFree(d->chunk[i]));
        d->chunk[i] = NULL;
    }
    d->chunk_cap = 0;
    for (int i = 0; i < 2; i++)
        GPU_CHECK(cudaMalloc(&d->chunk[i], floats * sizeof(float)));
    d->chunk_cap = floats;
    return 0;
}

/* GPU g's streams wait for the work queued so far on the engine's stream. */
static int fork_to(int g)
{
    if (gpu_select(g) != 0)
        return -1;
    GPU_CHECK(cudaStreamWaitEvent(gpu_stream_handle(), M.fork, 0));
    GPU_CHECK(cudaStreamWaitEvent(M.g[g].comm, M.fork, 0));
    return 0;
}

static int fork_all(void)
{
    if (gpu_select(0) != 0)
        return -1;
    GPU_CHECK(cudaEventRecord(M.fork, gpu_engine_stream()));
    for (int g = 0; g < M.n; g++)
        if (fork_to(g) != 0)
            return -1;
    return 0;
}

/* The engine's stream waits for every GPU's streams; device 0 selected
 * again. Also after a failure, so that nothing is left running unseen. */
static int join_all(int rc)
{
    for (int g = 0; g < M.n; g++) {
        multi_gpu *d = &M.g[g];
        if (gpu_select(g) != 0)
            return -1;
        GPU_CHECK(cudaEventRecord(d->done, gpu_stream_handle()));
        GPU_CHECK(cudaEventRecord(d->comm_done, d->comm));
        GPU_CHECK(cudaStreamWaitEvent(gpu_engine_stream(), d->done, 0));
        GPU_CHECK(cudaStreamWaitEvent(gpu_engine_stream(), d->comm_done, 0));
    }
    return gpu_select(0) != 0 ? -1 : rc;
}

/* --- shares ------------------------------------------------------------------ */

/* Each GPU's part of an n-float range at p: elements first[i] ..
 * first[i] + count[i] - 1 on GPU gpu[i]. Memory that is not spread (a
 * single-GPU mode's matrix, or one too small to spread) is GPU 0's. */
typedef struct {
    int n;
    int gpu[GPU_MAX_DEVICES];
    size_t first[GPU_MAX_DEVICES], count[GPU_MAX_DEVICES];
} shares;

static void shares_of(const float *p, size_t n, shares *s)
{
    size_t start[GPU_MAX_DEVICES], len[GPU_MAX_DEVICES];
    s->n = gpu_spread_parts(p, n * sizeof(float), s->gpu, start, len);
    for (int i = 0; i < s->n; i++) {
        s->first[i] = start[i] / sizeof(float);
        s->count[i] = len[i] / sizeof(float);
    }
    if (s->n == 0) {
        s->n = 1;
        s->gpu[0] = 0;
        s->first[0] = 0;
        s->count[0] = n;
    }
}

/* Rows of a rows x ld-strided block at p by the GPU their first element is
 * on: GPU gpu[i] has rows first[i] .. first[i] + count[i] - 1 (some maybe
 * none). */
static void row_shares(const float *p, int rows, size_t ld, size_t cols, shares *s)
{
    shares e;
    shares_of(p, (size_t)(rows - 1) * ld + cols, &e);
    s->n = 0;
    for (int i = 0; i < e.n; i++) {
        size_t r0 = (e.first[i] + ld - 1) / ld, r1 = (e.first[i] + e.count[i] + ld - 1) / ld;
        r1 = r1 < (size_t)rows ? r1 : (size_t)rows;
        if (r1 <= r0)
            continue;
        s->gpu[s->n] = e.gpu[i];
        s->first[s->n] = r0;
        s->count[s->n++] = r1 - r0;
    }
}

/* Run share(i) on GPU s->gpu[i] for every share: on GPU 0 alone with no
 * fork when there is one share there; else forked and joined. */
template <typename F> static int each_share(const shares *s, F share)
{
    if (multi_ready() != 0)
        return -1;
    if (s->n == 1 && s->gpu[0] == 0)
        return share(0);
    int rc = fork_all();
    for (int i = 0; i < s->n && rc == 0; i++)
        rc = gpu_select(s->gpu[i]) != 0 ? -1 : share(i);
    return join_all(rc);
}

/* 1 if p is host memory: an operand the GPUs could not hold (out of core). */
static int on_host(const void *p)
{
    cudaPointerAttributes a;
    if (!p)
        return 0;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return 1;
    }
    return a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeUnregistered;
}

/* --- elementwise ------------------------------------------------------------- */

static cuk_arg arg_at(cuk_arg a, size_t first)
{
    if (!a.bcast && a.p)
        a.p += first;
    return a;
}

extern "C" int multi_ewise(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n)
{
    shares s;
    shares_of(out, n, &s);
    return each_share(&s, [&](int i) {
        return fast_ewise(op, out + s.first[i], arg_at(a, s.first[i]), arg_at(b, s.first[i]), s.count[i]);
    });
}

extern "C" int multi_unary(cuk_unop op, float *out, const float *in, size_t n)
{
    shares s;
    shares_of(out, n, &s);
    return each_share(&s, [&](int i) { return fast_unary(op, out + s.first[i], in + s.first[i], s.count[i]); });
}

extern "C" int multi_fill(float *out, float v, size_t n)
{
    shares s;
    shares_of(out, n, &s);
    return each_share(&s, [&](int i) { return gpu_fill(out + s.first[i], v, s.count[i]); });
}

/* Element i is the stream's element i on every GPU: the same matrix as
 * every other mode makes. */
extern "C" int multi_random(cuk_dist dist, float *out, size_t n, uint64_t seed, uint64_t stream)
{
    shares s;
    shares_of(out, n, &s);
    return each_share(&s, [&](int i) {
        return gpu_random_from(dist, out + s.first[i], s.first[i], s.count[i], seed, stream);
    });
}

extern "C" int multi_eye(float *out, int rows, int cols)
{
    shares s;
    row_shares(out, rows, (size_t)cols, (size_t)cols, &s);
    return each_share(&s, [&](int i) {
        int r0 = (int)s.first[i];
        return gpu_eye_rows(out + (size_t)r0 * cols, cols, r0, r0 + (int)s.count[i]);
    });
}

extern "C" int multi_copy2d(float *dst, size_t dld, const float *src, size_t sld, int rows, int cols)
{
    shares s;
    row_shares(dst, rows, dld, (size_t)cols, &s);
    return each_share(&s, [&](int i) {
        size_t r0 = s.first[i];
        return gpu_copy2d(dst + r0 * dld, dld, src + r0 * sld, sld, (int)s.count[i], cols);
    });
}

/* --- transpose --------------------------------------------------------------- */

#define TILE 32

/* out (cols x rows, leading dimension ldo) = in (rows x cols, ldi)^T: a
 * 32 x 32 tile through shared memory (padded against bank conflicts), so
 * both sides are read and written a row at a time. */
static __global__ void transpose_strided(float *out, size_t ldo, const float *in, size_t ldi, int rows, int cols)
{
    __shared__ float t[TILE][TILE + 1];
    int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    for (int y = threadIdx.y; y < TILE; y += blockDim.y) {
        int r = r0 + y, c = c0 + threadIdx.x;
        if (r < rows && c < cols)
            t[y][threadIdx.x] = in[(size_t)r * ldi + c];
    }
    __syncthreads();
    for (int y = threadIdx.y; y < TILE; y += blockDim.y) {
        int c = c0 + y, r = r0 + threadIdx.x;
        if (r < rows && c < cols)
            out[(size_t)c * ldo + r] = t[threadIdx.x][y];
    }
}

/* Rows c0 .. c0 + ncols - 1 of out = in's columns c0 .. : one GPU's share. */
static int transpose_share(float *out, const float *in, int rows, int cols, int c0, int ncols)
{
    for (int r = 0; r < rows; r += GPU_MAX_GRID_Y * TILE) {
        int nr = rows - r < GPU_MAX_GRID_Y * TILE ? rows - r : GPU_MAX_GRID_Y * TILE;
        dim3 grid(gpu_cdiv(ncols, TILE), gpu_cdiv(nr, TILE));
        GPU_LAUNCH(transpose_strided, grid, dim3(TILE, 8), 0, out + (size_t)c0 * rows + r, (size_t)rows,
                   in + (size_t)r * cols + c0, (size_t)cols, nr, ncols);
    }
    return 0;
}

extern "C" int multi_transpose(float *out, const float *in, int rows, int cols)
{
    shares s;
    row_shares(out, cols, (size_t)rows, (size_t)rows, &s);
    if (s.n == 1 && s.gpu[0] == 0)
        return multi_ready() != 0 ? -1 : fast_transpose(out, in, rows, cols);
    return each_share(&s, [&](int i) {
        return transpose_share(out, in, rows, cols, (int)s.first[i], (int)s.count[i]);
    });
}

/* --- reductions -------------------------------------------------------------- */

/* out = the partial results of the GPUs in `mask` combined in GPU order:
 * the sum (sum, dot), the sum over n (mean), the root of the sum of
 * squares (norm, each partial a norm), the least or greatest with NaN
 * winning (min, max: the rules of elementwise.h). */
static __global__ void combine_partials(float *out, const float *part, unsigned mask, int op, double n)
{
    double acc = 0.0;
    float m = 0.0f;
    for (int g = 0, first = 1; g < GPU_MAX_DEVICES; g++) {
        if (!(mask >> g & 1))
            continue;
        float v = part[g];
        acc += op == CUK_RED_NORM ? (double)v * v : (double)v;
        m = first ? v : op == CUK_RED_MIN ? cuk_min_nan(m, v) : cuk_max_nan(m, v);
        first = 0;
    }
    if (op == CUK_RED_MIN || op == CUK_RED_MAX)
        *out = m;
    else if (op == CUK_RED_NORM)
        *out = (float)sqrt(acc);
    else if (op == CUK_RED_MEAN)
        *out = (float)(acc / n);
    else
        *out = (float)acc;
}

/* Every GPU's slot of the partial results to every GPU: NCCL's
 * all-gather. */
static int gather_partials(void)
{
    NCCL_CHECK(nccl.ncclGroupStart());
    for (int g = 0; g < M.n; g++)
        NCCL_CHECK(nccl.ncclAllGather(M.g[g].partial + g, M.g[g].partial, 1, ncclFloat, M.comm[g], M.g[g].comm));
    NCCL_CHECK(nccl.ncclGroupEnd());
    return 0;
}

/* Each share's partial (partial(i, slot) writes one float at slot on the
 * share's GPU), gathered to every GPU by NCCL, combined on GPU 0. */
template <typename F> static int reduce_shares(const shares *s, float *out, int op, size_t n, F partial)
{
    if (multi_ready() != 0)
        return -1;
    int rc = fork_all();
    for (int i = 0; i < s->n && rc == 0; i++)
        rc = gpu_select(s->gpu[i]) != 0 ? -1 : partial(i, M.g[s->gpu[i]].partial + s->gpu[i]);
    unsigned mask = 0;
    for (int i = 0; i < s->n; i++)
        mask |= 1u << s->gpu[i];
    /* every GPU sends its slot; those without a share are left out of the
     * combination by the mask */
    if (rc == 0 && M.n > 1 && uncounted(gather_partials) != 0)
        return join_all(-1);
    if (rc == 0 && gpu_select(0) == 0) {
        /* GPU 0's product stream waits for its gather */
        GPU_CHECK(cudaEventRecord(M.g[0].comm_done, M.g[0].comm));
        GPU_CHECK(cudaStreamWaitEvent(gpu_stream_handle(), M.g[0].comm_done, 0));
        GPU_LAUNCH(combine_partials, 1, 1, 0, out, M.g[0].partial, mask, op, (double)n);
    }
    return join_all(rc);
}

/* A reduction combined as op: fast's `whole` where one GPU holds all of in,
 * else `part` on each share (its partial), the partials combined. */
static int multi_reduction(cuk_redop op, cuk_reduce_fn *whole, cuk_reduce_fn *part, float *out, const float *in,
                           size_t n)
{
    shares s;
    shares_of(in, n, &s);
    if (s.n == 1 && s.gpu[0] == 0)
        return multi_ready() != 0 ? -1 : whole(out, in, n);
    return reduce_shares(&s, out, op, n, [&](int i, float *slot) {
        return part(slot, in + s.first[i], s.count[i]);
    });
}

/* Each kind with the partial its shares give: min, max and norm reduce
 * alike; a mean's shares are sums until combined. */
#define MULTI_REDUCE(kind, op, partial)                                                    \
    extern "C" int multi_reduce_##kind(float *out, const float *in, size_t n)              \
    {                                                                                      \
        return multi_reduction(op, fast_reduce_##kind, fast_reduce_##partial, out, in, n); \
    }
MULTI_REDUCE(sum, CUK_RED_SUM, sum)
MULTI_REDUCE(mean, CUK_RED_MEAN, sum)
MULTI_REDUCE(norm, CUK_RED_NORM, norm)
MULTI_REDUCE(min, CUK_RED_MIN, min)
MULTI_REDUCE(max, CUK_RED_MAX, max)

extern "C" int multi_dot(float *out, const float *x, const float *y, size_t n)
{
    shares s;
    shares_of(x, n, &s);
    if (s.n == 1 && s.gpu[0] == 0)
        return multi_ready() != 0 ? -1 : fast_dot(out, x, y, n);
    return reduce_shares(&s, out, CUK_RED_SUM, n, [&](int i, float *slot) {
        return fast_dot(slot, x + s.first[i], y + s.first[i], s.count[i]);
    });
}

/* --- the set-up's first runs ------------------------------------------------------ */

#define FIRST_N 32 /* first_shares' inputs: 32 x 32 */

/* Every kernel a share launches, once on GPU g (each GPU loads a kernel
 * at its first launch there), and the product's cuBLAS handle for g. */
static int first_ops(int g)
{
    const size_t nn = FIRST_N * FIRST_N;
    float *buf = NULL;
    if (gpu_select(g) != 0)
        return -1;
    GPU_CHECK(cudaMalloc(&buf, (3 * nn + 1) * sizeof(float)));
    float *x = buf, *y = buf + nn, *z = buf + 2 * nn, *one = buf + 3 * nn;
    cuk_arg ax = {x, 0, 0}, ay = {y, 0, 0};
    int rc = gpu_random_from(CUK_RAND_UNIFORM, x, 0, nn, 1, 0);
    rc = rc ? rc : gpu_random_from(CUK_RAND_UNIFORM, y, 0, nn, 1, 1);
    rc = rc ? rc : fast_ewise((cuk_ewop)0, z, ax, ay, nn);
    rc = rc ? rc : fast_unary((cuk_unop)0, z, x, nn);
    cuk_reduce_fn *const reduce[] = {fast_reduce_sum, fast_reduce_mean, fast_reduce_norm, fast_reduce_min,
                                     fast_reduce_max}; /* each kind, in cuk_redop's order */
    static_assert(sizeof reduce / sizeof reduce[0] == CUK_RED_COUNT, "a share runs every kind of reduction");
    for (int r = 0; r < CUK_RED_COUNT && !rc; r++)
        rc = reduce[r](one, x, nn);
    rc = rc ? rc : fast_dot(one, x, y, nn);
    rc = rc ? rc : gpu_fill(z, 1.0f, nn);
    rc = rc ? rc : gpu_eye_rows(z, FIRST_N, 0, FIRST_N);
    rc = rc ? rc : gpu_copy2d(z, FIRST_N, x, FIRST_N, FIRST_N / 2, FIRST_N / 2);
    rc = rc ? rc : transpose_share(z, x, FIRST_N, FIRST_N, 0, FIRST_N);
    rc = rc ? rc : cublas_gemm_ld(z, FIRST_N, x, FIRST_N, y, FIRST_N, FIRST_N, FIRST_N, FIRST_N, 0.0f);
    cudaError_t err = cudaStreamSynchronize(gpu_stream_handle()); /* also after a failure: buf is freed next */
    if (rc == 0 && err != cudaSuccess)
        rc = gpu_fail(err, "cudaStreamSynchronize (the set-up's first runs)", __FILE__, __LINE__);
    err = cudaFree(buf);
    if (rc == 0 && err != cudaSuccess)
        rc = gpu_fail(err, "cudaFree (the set-up's first runs)", __FILE__, __LINE__);
    return rc;
}

static int first_shares(void)
{
    if (multi_ready() != 0)
        return -1;
    for (int g = 0; g < M.n; g++)
        if (first_ops(g) != 0)
            return -1;
    return 0;
}

/* A float broadcast from GPU 0 to every GPU, in place. */
static int first_broadcast(void)
{
    NCCL_CHECK(nccl.ncclGroupStart());
    for (int g = 0; g < M.n; g++)
        NCCL_CHECK(nccl.ncclBroadcast(M.g[g].partial, M.g[g].partial, 1, ncclFloat, 0, M.comm[g], M.g[g].comm));
    NCCL_CHECK(nccl.ncclGroupEnd());
    return 0;
}

/* One broadcast and one all-gather between all the GPUs, as the product
 * and the reductions make them, the reductions' combining kernel once on
 * GPU 0, and a wait for all of it. */
static int first_links(void)
{
    if (multi_ready() != 0 || uncounted(first_broadcast) != 0 || uncounted(gather_partials) != 0)
        return -1;
    for (int g = 0; g < M.n; g++)
        GPU_CHECK(cudaStreamSynchronize(M.g[g].comm));
    if (gpu_select(0) != 0)
        return -1;
    GPU_LAUNCH(combine_partials, 1, 1, 0, M.g[0].partial, M.g[0].partial, 1u, (int)CUK_RED_SUM, 1.0);
    GPU_WAIT(gpu_stream_handle());
    return 0;
}

/* --- the product --------------------------------------------------------------- */

/* A product's plan: C's row shares (which GPU computes which rows) and B's
 * (which GPU holds which rows of B). */
typedef struct {
    float *c;
    const float *a, *b;
    int m, n, k;
    shares rows;   /* of C (and A: the same rows) */
    shares brows;  /* of B */
    int kc;        /* rows of B in a chunk */
    int started[GPU_MAX_DEVICES]; /* GPU's C slab has its first term (beta 0 after) */
} product;

/* GPU g's rows of C += its rows of A, columns k0 .., times rows k0 .. k0 +
 * kn - 1 of B (at bk, leading dimension n); the first term overwrites. */
static int share_gemm(product *p, int g, const float *bk, int k0, int kn)
{
    for (int i = 0; i < p->rows.n; i++) {
        if (p->rows.gpu[i] != g)
            continue;
        size_t r0 = p->rows.first[i];
        int beta_one = p->started[g];
        p->started[g] = 1;
        return cublas_gemm_ld(p->c + r0 * p->n, (size_t)p->n, p->a + r0 * p->k + k0, (size_t)p->k, bk, (size_t)p->n,
                              (int)p->rows.count[i], p->n, kn, beta_one ? 1.0f : 0.0f);
    }
    return 0;
}

/* n floats at src on GPU root to every other GPU's next chunk buffer:
 * NCCL's broadcast. */
static int broadcast(const float *src, size_t n, int root, const int *recv)
{
    NCCL_CHECK(nccl.ncclGroupStart());
    for (int g = 0; g < M.n; g++) {
        void *dst = g == root ? (void *)src : (void *)M.g[g].chunk[recv[g] % 2];
        NCCL_CHECK(nccl.ncclBroadcast(src, dst, n, ncclFloat, root, M.comm[g], M.g[g].comm));
    }
    NCCL_CHECK(nccl.ncclGroupEnd());
    return 0;
}

/* The term of rows k0 .. k0 + kn - 1 of B for every GPU but root, which
 * holds them: NCCL broadcasts them (on the comm streams) into each other
 * GPU's next chunk buffer, which it then multiplies in on its product
 * stream. A buffer is refilled only after the product that read it;
 * recv[g] counts the chunks GPU g has received. */
static int sent_term(product *p, int root, int k0, int kn, int *recv)
{
    const float *src = p->b + (size_t)k0 * p->n;
    for (int g = 0; g < M.n; g++) {
        if (g == root || recv[g] < 2)
            continue;
        if (gpu_select(g) != 0)
            return -1;
        GPU_CHECK(cudaStreamWaitEvent(M.g[g].comm, M.g[g].free[recv[g] % 2], 0));
    }
    if (uncounted([&] { return broadcast(src, (size_t)kn * p->n, root, recv); }) != 0)
        return -1;
    for (int g = 0; g < M.n; g++) {
        if (g == root)
            continue;
        multi_gpu *d = &M.g[g];
        int slot = recv[g]++ % 2;
        if (gpu_select(g) != 0)
            return -1;
        GPU_CHECK(cudaEventRecord(d->ready[slot], d->comm));
        GPU_CHECK(cudaStreamWaitEvent(gpu_stream_handle(), d->ready[slot], 0));
        if (share_gemm(p, g, d->chunk[slot], k0, kn) != 0)
            return -1;
        GPU_CHECK(cudaEventRecord(d->free[slot], gpu_stream_handle()));
    }
    return 0;
}

/* Owner j's chunk t of B's rows: 0 and its rows in *k0, *kn; -1 if it has
 * no chunk t. */
static int chunk_of(const product *p, int j, int t, int *k0, int *kn)
{
    int first = (int)p->brows.first[j] + t * p->kc, end = (int)(p->brows.first[j] + p->brows.count[j]);
    if (first >= end)
        return -1;
    *k0 = first;
    *kn = end - first < p->kc ? end - first : p->kc;
    return 0;
}

/* Every term, in rounds: in round t each GPU first multiplies in its own
 * chunk t (where it lies), then the other owners' chunks t as they arrive,
 * so that a GPU always has its own work while the next chunk travels.
 * Taken owner by owner instead, one GPU waited while another worked
 * through its chunks (NCCL keeps the broadcasts in order): 1046 ms against
 * 753 at 32768^3 on two H200s (kernels/PERF.md, ## multi). */
static int all_terms(product *p)
{
    int recv[GPU_MAX_DEVICES] = {0}, more = 1, k0, kn;
    for (int t = 0; more; t++) {
        more = 0;
        for (int j = 0; j < p->brows.n; j++) {
            if (chunk_of(p, j, t, &k0, &kn) != 0)
                continue;
            more = 1;
            if (gpu_select(p->brows.gpu[j]) != 0 ||
                share_gemm(p, p->brows.gpu[j], p->b + (size_t)k0 * p->n, k0, kn) != 0)
                return -1;
        }
        for (int j = 0; j < p->brows.n; j++)
            if (chunk_of(p, j, t, &k0, &kn) == 0 && sent_term(p, p->brows.gpu[j], k0, kn, recv) != 0)
                return -1;
    }
    return 0;
}

/* Rows of B in a chunk: CHUNK_FLOATS' worth, but at least CHUNK_MIN_ROWS,
 * so that each product of a chunk is a long one (every chunk's product
 * also reads and writes C's slab: at 100000^2 that is 15 GB a chunk). */
#define CHUNK_MIN_ROWS 1024

static int spread_product(product *p)
{
    size_t kc = CHUNK_FLOATS / (size_t)p->n;
    kc = kc < CHUNK_MIN_ROWS ? CHUNK_MIN_ROWS : kc;
    p->kc = (int)(kc < (size_t)p->k ? kc : (size_t)p->k);
    for (int g = 0; g < M.n; g++) {
        p->started[g] = 0;
        if (gpu_select(g) != 0 || chunk_buffers(g, (size_t)p->kc * p->n) != 0)
            return -1;
    }
    int rc = fork_all();
    rc = rc ? rc : all_terms(p);
    return join_all(rc);
}

/* Out of core: an operand (or the result) in host memory goes through
 * cuBLASXt over every GPU, which streams tiles through them. */
#define XT_BLOCK 8192 /* tile of cuBLASXt (bench/perf_multi.c tunes it) */

extern "C" int multi_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    if (multi_ready() != 0)
        return -1;
    if (on_host(c) || on_host(a) || on_host(b))
        return cublas_xt_matmul(c, a, b, m, n, k, M.n, XT_BLOCK);
    product p;
    memset(&p, 0, sizeof p);
    p.c = c, p.a = a, p.b = b, p.m = m, p.n = n, p.k = k;
    shares arows;
    row_shares(c, m, (size_t)n, (size_t)n, &p.rows);
    row_shares(b, k, (size_t)n, (size_t)n, &p.brows);
    row_shares(a, m, (size_t)k, (size_t)k, &arows);
    /* A whole on GPU 0 (an operand of a single-GPU mode the engine could
     * not spread) while C is spread: the other GPUs would read their rows
     * of A across the link at every tile, slower than GPU 0 alone. */
    int a_whole = arows.n == 1 && p.rows.n > 1;
    if (M.n == 1 || a_whole || (p.rows.n == 1 && p.brows.n == 1 && p.rows.gpu[0] == 0 && p.brows.gpu[0] == 0))
        return cublas_matmul(c, a, b, m, n, k);
    return spread_product(&p);
}
