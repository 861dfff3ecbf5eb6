/* host_threads.c - the parallel-for of mode blas (see host_threads.h): a
 * fixed pool of pthreads that sleep on a condition variable between jobs.
 *
 * Sleeping, not spinning: the pool shares the cores with OpenBLAS's own
 * threads, which spin for a while after each sgemm; threads of ours that
 * spun too would take cores from the BLAS. A wake-up costs tens of
 * microseconds, which is why no part is smaller than its grain. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "kernels/host_threads.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"

static struct {
    pthread_once_t once;
    int threads; /* the calling thread and the workers */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long job;   /* bumped for each job the workers are to run */
    int pending;         /* workers still on this job */
    int stopped;         /* a part said it stopped (Ctrl-C) */
    host_task_fn *fn;
    void *ctx;
    size_t n;
    int parts;
} P = {.once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER, .go = PTHREAD_COND_INITIALIZER,
       .done = PTHREAD_COND_INITIALIZER};

/* Part p of n units in `parts`: sizes differ by at most one unit, and the
 * bounds are computed without n * p overflowing. */
static void part_bounds(size_t n, int parts, int p, size_t *lo, size_t *hi)
{
    size_t base = n / (size_t)parts, extra = n % (size_t)parts;
    *lo = base * (size_t)p + ((size_t)p < extra ? (size_t)p : extra);
    *hi = *lo + base + ((size_t)p < extra);
}

static int run_part(int p)
{
    size_t lo, hi;
    part_bounds(P.n, P.parts, p, &lo, &hi);
    return P.fn(P.ctx, lo, hi, p);
}

/* Worker `p` (1 .. threads-1): wait for a job, run its part if it has one. */
static void *worker(void *arg)
{
    int p = (int)(size_t)arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&P.mu);
    for (;;) {
        while (P.job == seen)
            pthread_cond_wait(&P.go, &P.mu);
        seen = P.job;
        if (p >= P.parts)
            continue;
        pthread_mutex_unlock(&P.mu);
        int rc = run_part(p);
        pthread_mutex_lock(&P.mu);
        P.stopped |= rc != 0;
        if (--P.pending == 0)
            pthread_cond_signal(&P.done);
    }
    return NULL;
}

/* CUK_THREADS if set (tests use it for odd splits), else the CPUs this
 * process may run on: a container's cpuset, not the machine's count. */
static int wanted_threads(void)
{
    const char *env = getenv("CUK_THREADS");
    int n = env ? atoi(env) : 0;
    cpu_set_t set;
    if (n < 1 && sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n < 1)
        n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > HOST_MAX_PARTS ? HOST_MAX_PARTS : n;
}

/* Start the workers with every signal blocked, so that Ctrl-C is always
 * delivered to the thread that runs the session. A worker that cannot be
 * started leaves the pool smaller. */
static void start_pool(void)
{
    sigset_t all, old;
    int want = wanted_threads();
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    P.threads = 1;
    for (int p = 1; p < want; p++) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, (void *)(size_t)p) != 0)
            break;
        pthread_detach(t);
        P.threads++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int host_threads(void)
{
    pthread_once(&P.once, start_pool);
    return P.threads;
}

int host_parts(size_t n, size_t grain)
{
    size_t most = n / (grain ? grain : 1);
    int t = host_threads();
    return most < 1 ? 1 : most < (size_t)t ? (int)most : t;
}

/* Part 0 runs on the session's thread, which alone may touch the error
 * slot and the progress hook: it asks cuk_check_interrupt, as mode cpu's
 * loops do (and the fuzzer's budget counts those calls); the workers only
 * read the flag. */
int host_stopping(int part)
{
    return part == 0 ? cuk_check_interrupt() != 0 : cuk_interrupted != 0;
}

int host_parallel(host_task_fn *fn, void *ctx, size_t n, size_t grain)
{
    int parts = host_parts(n, grain), stopped;
    if (parts == 1)
        return fn(ctx, 0, n, 0) ? cuk_err_cancel() : 0;
    pthread_mutex_lock(&P.mu);
    P.fn = fn, P.ctx = ctx, P.n = n, P.parts = parts;
    P.pending = parts - 1;
    P.stopped = 0;
    P.job++;
    pthread_cond_broadcast(&P.go);
    pthread_mutex_unlock(&P.mu);
    stopped = run_part(0) != 0;
    pthread_mutex_lock(&P.mu);
    while (P.pending > 0)
        pthread_cond_wait(&P.done, &P.mu);
    stopped |= P.stopped;
    pthread_mutex_unlock(&P.mu);
    return stopped ? cuk_err_cancel() : 0;
}

/* --- the copy that measures the host's bandwidth --- */
typedef struct {
    char *dst;
    const char *src;
} copy_job;

#define COPY_GRAIN ((size_t)1 << 20)

static int copy_part(void *ctx, size_t lo, size_t hi, int part)
{
    copy_job *c = ctx;
    memcpy(c->dst + lo, c->src + lo, hi - lo);
    return 0;
}

int host_copy(void *dst, const void *src, size_t n)
{
    copy_job c = {dst, src};
    return host_parallel(copy_part, &c, n, COPY_GRAIN);
}

int host_pin(host_pinning *saved)
{
    cpu_set_t now, one;
    int cpu = sched_getcpu();
    saved->pinned = 0;
    if (cpu < 0 || cpu >= CPU_SETSIZE || sizeof now > sizeof saved->mask ||
        sched_getaffinity(0, sizeof now, &now) != 0 || CPU_COUNT(&now) < 2)
        return -1;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return -1;
    memcpy(saved->mask, &now, sizeof now);
    saved->pinned = 1;
    return 0;
}

void host_unpin(const host_pinning *saved)
{
    cpu_set_t was;
    if (!saved->pinned)
        return;
    memcpy(&was, saved->mask, sizeof was);
    sched_setaffinity(0, sizeof was, &was); /* a failure leaves it pinned: slower later, never wrong */
}
