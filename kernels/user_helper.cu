/* user_helper.cu - the kernel helper process (user_client.h): cuk started
 * again with USER_HELPER_FLAG, holding a CUDA context of its own, the user
 * modes' modules and three buffers with guard zones, which it lends the
 * session through CUDA IPC. For each run it fills the guards and poisons
 * the output, launches the user's kernel between two events, waits, and
 * looks at the guards; a kernel that breaks its context (an illegal
 * address, a trap) is reported and the helper ends, so that the session
 * starts a fresh one. It never sees the session's own matrices. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "kernels/user_client.h"
#include "kernels/user_wire.h"

/* The helper's state: one process, one of these. */
static struct {
    int fd;
    cudaStream_t stream;
    cudaEvent_t ev[2];
    cudaLibrary_t lib[USER_MAX_MODES];
    cudaKernel_t kern[USER_MAX_MODES][USER_ENTRIES];
    struct {
        char *base; /* the front guard; the data UW_GUARD bytes on */
        size_t cap;
    } buf[UW_BUFS];
    /* For each buffer and side, the first and last changed word of the
     * guard (device memory: the scan's atomics). */
    unsigned long long *first, *last;
} X;

/* ---- talking to the session ---- */

/* An answer; what a kernel printed goes out first, so that the session
 * shows it before the result. */
static int answer(uw_type t, const void *body, size_t n)
{
    fflush(stdout);
    fflush(stderr);
    return uw_send_msg(X.fd, t, body, n, NULL, 0);
}

/* The body of a request whose head said len bytes: -1 unless it is n. */
static int request(void *body, size_t n, size_t len) { return len == n ? uw_recv(X.fd, body, n) : -1; }

/* "text (cudaErrorName) in call" */
static void cuda_why(char *why, size_t cap, cudaError_t err, const char *call)
{
    snprintf(why, cap, "%s (%s) in %s", cudaGetErrorString(err), cudaGetErrorName(err), call);
}

/* Evaluate a CUDA call; on failure set why and return -1 from the
 * enclosing function. */
#define H_CHECK(call, why, cap)                                \
    do {                                                       \
        cudaError_t h_err_ = (call);                           \
        if (h_err_ != cudaSuccess) {                           \
            cuda_why(why, cap, h_err_, #call);                 \
            return -1;                                         \
        }                                                      \
    } while (0)

/* 1 if the context is broken: every call fails from now on. */
static int context_broken(void)
{
    cudaGetLastError();
    cudaError_t err = cudaStreamQuery(X.stream);
    cudaGetLastError();
    return err != cudaSuccess && err != cudaErrorNotReady;
}

/* ---- the helper's own kernels ---- */

static __global__ void fill_kernel(float *p, size_t n, float v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = v;
}

/* The first and last word of a guard that lost its pattern. */
static __global__ void guard_scan(const unsigned *g, size_t words, unsigned long long *first, unsigned long long *last)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        if (g[i] != UW_GUARD_WORD) {
            atomicMin(first, (unsigned long long)i);
            atomicMax(last, (unsigned long long)i);
        }
}

/* ---- starting ---- */

static int start(char *why, size_t cap)
{
    /* Modules loaded whole when loaded, not at a kernel's first launch,
     * which its events would then time. Before the first CUDA call. */
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    H_CHECK(cudaSetDevice(0), why, cap);
    H_CHECK(cudaStreamCreateWithFlags(&X.stream, cudaStreamNonBlocking), why, cap);
    H_CHECK(cudaEventCreate(&X.ev[0]), why, cap);
    H_CHECK(cudaEventCreate(&X.ev[1]), why, cap);
    H_CHECK(cudaMalloc(&X.first, 2 * UW_BUFS * sizeof *X.first), why, cap);
    H_CHECK(cudaMalloc(&X.last, 2 * UW_BUFS * sizeof *X.last), why, cap);
    return 0;
}

/* ---- modules ---- */

static int load(const uw_load *l, const void *image, uw_loaded *a)
{
    char log[800] = "";
    cudaJitOption opt[2] = {cudaJitErrorLogBuffer, cudaJitErrorLogBufferSizeBytes};
    void *val[2] = {log, (void *)(uintptr_t)sizeof log};
    int s = l->slot;
    if (s < 0 || s >= USER_MAX_MODES) {
        snprintf(a->why, sizeof a->why, "no such slot");
        return -1;
    }
    if (X.lib[s]) {
        H_CHECK(cudaStreamSynchronize(X.stream), a->why, sizeof a->why);
        H_CHECK(cudaLibraryUnload(X.lib[s]), a->why, sizeof a->why);
        X.lib[s] = NULL;
        memset(X.kern[s], 0, sizeof X.kern[s]);
    }
    cudaError_t err = cudaLibraryLoadData(&X.lib[s], image, opt, val, 2, NULL, NULL, 0);
    if (err != cudaSuccess) {
        X.lib[s] = NULL;
        snprintf(a->why, sizeof a->why, "the driver cannot load the module: %s (%s)%s%s", cudaGetErrorString(err),
                 cudaGetErrorName(err), log[0] ? ": " : "", log);
        return -1;
    }
    for (int e = 0; e < user_entry_count(); e++) {
        cudaFuncAttributes fa;
        if (!l->defined[e])
            continue;
        H_CHECK(cudaLibraryGetKernel(&X.kern[s][e], X.lib[s], user_entry_get(e)->name), a->why, sizeof a->why);
        H_CHECK(cudaFuncGetAttributes(&fa, (const void *)X.kern[s][e]), a->why, sizeof a->why);
        a->facts[e].regs = fa.numRegs;
        a->facts[e].static_smem = (int)fa.sharedSizeBytes;
        a->facts[e].local_bytes = (int)fa.localSizeBytes;
        a->facts[e].max_threads = fa.maxThreadsPerBlock;
    }
    return 0;
}

static int serve_load(size_t len)
{
    uw_load l;
    uw_loaded *a = (uw_loaded *)calloc(1, sizeof *a);
    char *image = len >= sizeof l ? (char *)malloc(len - sizeof l + 1) : NULL;
    int rc = a && image && uw_recv(X.fd, &l, sizeof l) == 0 && l.image_len == len - sizeof l &&
                     uw_recv(X.fd, image, l.image_len) == 0
                 ? 0
                 : -1;
    if (rc == 0) {
        image[l.image_len] = '\0';
        a->ok = load(&l, image, a) == 0;
        rc = answer(UW_LOADED, a, sizeof *a);
    }
    free(image);
    free(a);
    return rc;
}

/* ---- buffers ---- */

/* Buffer b at least need bytes between its guards: remade (and its old
 * memory freed: the session unmapped it first) when too small. */
static int grow(int b, size_t need, uw_buffers_made *m)
{
    if (X.buf[b].base && need <= X.buf[b].cap)
        return 0;
    size_t cap = need < 4096 ? 4096 : need + need / 4; /* room to grow a little without a new handle */
    if (X.buf[b].base) {
        H_CHECK(cudaStreamSynchronize(X.stream), m->why, sizeof m->why);
        H_CHECK(cudaFree(X.buf[b].base), m->why, sizeof m->why);
        X.buf[b].base = NULL;
        X.buf[b].cap = 0;
    }
    H_CHECK(cudaMalloc(&X.buf[b].base, UW_GUARD + cap + UW_GUARD), m->why, sizeof m->why);
    X.buf[b].cap = cap;
    m->remade[b] = 1;
    return 0;
}

static int serve_buffers(size_t len)
{
    uw_buffers r;
    uw_buffers_made m;
    memset(&m, 0, sizeof m);
    if (request(&r, sizeof r, len) != 0)
        return -1;
    m.ok = 1;
    for (int b = 0; b < UW_BUFS && m.ok; b++) {
        m.ok = grow(b, r.need[b], &m) == 0;
        if (m.ok && cudaIpcGetMemHandle(&m.handle[b], X.buf[b].base) != cudaSuccess) {
            cuda_why(m.why, sizeof m.why, cudaGetLastError(), "cudaIpcGetMemHandle");
            m.ok = 0;
        }
        m.cap[b] = X.buf[b].cap;
    }
    return answer(UW_BUFFERS_MADE, &m, sizeof m);
}

/* ---- runs ---- */

static char *data_of(int b) { return X.buf[b].base + UW_GUARD; }

/* Guards filled, the output poisoned (or at its start value), inputs
 * given by value filled. */
static int prepare(const uw_run *w, uw_ran *a)
{
    for (int b = 0; b < w->nbufs; b++) {
        H_CHECK(cudaMemsetAsync(X.buf[b].base, UW_GUARD_BYTE, UW_GUARD, X.stream), a->why, sizeof a->why);
        H_CHECK(cudaMemsetAsync(data_of(b) + w->used[b], UW_GUARD_BYTE, UW_GUARD, X.stream), a->why, sizeof a->why);
        if (w->fill[b]) {
            fill_kernel<<<256, 256, 0, X.stream>>>((float *)data_of(b), w->used[b] / sizeof(float), w->value[b]);
            H_CHECK(cudaGetLastError(), a->why, sizeof a->why);
        }
    }
    if (w->init_out)
        fill_kernel<<<1, 1, 0, X.stream>>>((float *)data_of(0), 1, w->init);
    else
        H_CHECK(cudaMemsetAsync(data_of(0), UW_POISON_BYTE, w->used[0], X.stream), a->why, sizeof a->why);
    H_CHECK(cudaGetLastError(), a->why, sizeof a->why);
    H_CHECK(cudaStreamSynchronize(X.stream), a->why, sizeof a->why); /* its own errors are not the kernel's */
    return 0;
}

/* The user's kernel, between the two events; its errors are reported as
 * the run's, not the helper's. 1 if it failed (a->status says how). */
static int launch(const uw_run *w, cudaKernel_t k, uw_ran *a)
{
    void *ptr[UW_BUFS];
    int ints[3];
    void *args[6];
    int n = 0;
    for (int b = 0; b < w->nbufs; b++)
        ptr[b] = data_of(b), args[n++] = &ptr[b];
    for (int i = 0; i < user_kind_get(user_entry_get(w->entry)->kind)->nints; i++)
        ints[i] = w->ints[i], args[n++] = &ints[i];
    dim3 grid(w->grid[0], w->grid[1], w->grid[2]), block(w->block[0], w->block[1], w->block[2]);
    cudaError_t err = cudaSuccess;
    if (w->smem > 48 * 1024)
        err = cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)w->smem);
    if (err == cudaSuccess &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&a->blocks_per_sm, (const void *)k,
                                                      (int)(block.x * block.y * block.z), w->smem) != cudaSuccess) {
        cudaGetLastError(); /* a figure for `kernels`, not a reason to refuse: the launch says */
        a->blocks_per_sm = 0;
    }
    if (err == cudaSuccess)
        err = cudaEventRecord(X.ev[0], X.stream);
    if (err == cudaSuccess)
        err = cudaLaunchKernel((const void *)k, grid, block, args, w->smem, X.stream);
    if (err == cudaSuccess)
        err = cudaEventRecord(X.ev[1], X.stream);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(X.stream);
    if (err == cudaSuccess)
        return 0;
    a->status = context_broken() ? UW_FAULT : UW_LAUNCH_REFUSED;
    snprintf(a->why, sizeof a->why, "%s (%s)", cudaGetErrorString(err), cudaGetErrorName(err));
    return 1;
}

/* Look at every guard the run had; the first one hit (the output's
 * first) goes into a. */
static int scan_guards(const uw_run *w, uw_ran *a)
{
    unsigned long long first[2 * UW_BUFS], last[2 * UW_BUFS];
    size_t words = UW_GUARD / sizeof(unsigned);
    H_CHECK(cudaMemsetAsync(X.first, 0xFF, sizeof first, X.stream), a->why, sizeof a->why);
    H_CHECK(cudaMemsetAsync(X.last, 0, sizeof last, X.stream), a->why, sizeof a->why);
    for (int b = 0; b < w->nbufs; b++)
        for (int side = 0; side < 2; side++) {
            const unsigned *g = (const unsigned *)(side ? data_of(b) + w->used[b] : X.buf[b].base);
            guard_scan<<<64, 256, 0, X.stream>>>(g, words, &X.first[2 * b + side], &X.last[2 * b + side]);
            H_CHECK(cudaGetLastError(), a->why, sizeof a->why);
        }
    H_CHECK(cudaMemcpyAsync(first, X.first, sizeof first, cudaMemcpyDeviceToHost, X.stream), a->why, sizeof a->why);
    H_CHECK(cudaMemcpyAsync(last, X.last, sizeof last, cudaMemcpyDeviceToHost, X.stream), a->why, sizeof a->why);
    H_CHECK(cudaStreamSynchronize(X.stream), a->why, sizeof a->why);
    for (int b = 0; b < w->nbufs; b++)
        for (int side = 1; side >= 0; side--) {
            int i = 2 * b + side;
            if (first[i] == ~0ull)
                continue;
            a->status = UW_GUARD_HIT;
            a->guard_buf = b, a->guard_before = !side;
            /* floats from the edge, 1 the nearest: after it word w is float
             * w + 1 past the end; before it the last word is the nearest */
            a->guard_near = side ? first[i] + 1 : words - last[i];
            a->guard_far = side ? last[i] + 1 : words - first[i];
            return 0;
        }
    return 0;
}

/* One run; -1 if the helper must end (its context is broken). */
static int run(const uw_run *w, uw_ran *a)
{
    float ms = 0;
    int e = w->entry, s = w->slot;
    if (s < 0 || s >= USER_MAX_MODES || e < 0 || e >= user_entry_count() || !X.kern[s][e] ||
        w->nbufs != user_kind_get(user_entry_get(e)->kind)->nbufs) {
        a->status = UW_LAUNCH_REFUSED;
        snprintf(a->why, sizeof a->why, "the helper has no such kernel loaded");
        return 0;
    }
    for (int b = 0; b < w->nbufs; b++)
        if (!X.buf[b].base || w->used[b] > X.buf[b].cap) {
            a->status = UW_LAUNCH_REFUSED;
            snprintf(a->why, sizeof a->why, "the helper's buffer %d is too small", b);
            return 0;
        }
    if (prepare(w, a) != 0) {
        a->status = UW_FAULT;
        return -1;
    }
    if (launch(w, X.kern[s][e], a))
        return a->status == UW_FAULT ? -1 : 0;
    if (cudaEventElapsedTime(&ms, X.ev[0], X.ev[1]) != cudaSuccess)
        cudaGetLastError();
    a->ms = ms;
    if (scan_guards(w, a) != 0) {
        a->status = UW_FAULT;
        return -1;
    }
    return 0;
}

static int serve_run(size_t len)
{
    uw_run w;
    uw_ran a;
    memset(&a, 0, sizeof a);
    if (request(&w, sizeof w, len) != 0)
        return -1;
    int rc = run(&w, &a);
    if (answer(UW_RAN, &a, sizeof a) != 0)
        return -1;
    return rc;
}

/* ---- the loop ---- */

extern "C" int uc_helper_serve(void)
{
    uw_ready ready;
    uw_head h;
    X.fd = UW_FD;
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the session gone, so is its helper */
    memset(&ready, 0, sizeof ready);
    ready.ok = start(ready.why, sizeof ready.why) == 0;
    if (answer(UW_READY, &ready, sizeof ready) != 0 || !ready.ok)
        return 1;
    while (uw_recv(X.fd, &h, sizeof h) == 0) {
        int rc = h.type == UW_LOAD      ? serve_load(h.len)
                 : h.type == UW_BUFFERS ? serve_buffers(h.len)
                 : h.type == UW_RUN     ? serve_run(h.len)
                                        : -1;
        if (rc != 0) /* a broken context, or a session that says what it should not */
            return 2;
    }
    return 0; /* the session closed its end */
}
