/* user_client.cu - the session's side of the kernel helper process
 * (user_client.h). The helper is cuk itself, started with posix_spawn
 * (exec at once: nothing of the session's CUDA state crosses into it) and
 * USER_HELPER_FLAG; its socket is descriptor UW_FD, its standard output
 * and error a pipe the session reads, so that a kernel's printf shows in
 * the session's own output. Every wait on it polls with a deadline and
 * gives Ctrl-C its turn. */
#include "kernels/gpu_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/out.h"
#include "kernels/user_client.h"
#include "kernels/user_wire.h"

extern char **environ;

/* Seconds a start, a load or new buffers may take: a context, a JIT. */
#define SLOW_STEP_S 60.0
/* Lines of a run's printf shown at most; the rest are counted. */
#define MAX_PRINTED_LINES 200

/* The helper, while one runs. */
static struct {
    pid_t pid;                  /* 0: none */
    int status;                 /* how it ended, once reaped (ended: 1) */
    int ended;
    int sock, out;              /* its socket; the read end of its output */
    int loaded[USER_MAX_MODES];
    struct {
        char *base;             /* the session's mapping: the front guard's first byte */
        size_t cap;
    } buf[UW_BUFS];
    int lines, hidden;          /* printf lines shown and held back this run */
    int at_line_start;
} H = {0, 0, 0, -1, -1};

static void end_helper(char *why, size_t cap);

/* 1 if a helper process is there. One that ended between runs (killed
 * from outside, crashed) is reaped and closed here, before anything of
 * the session's touches memory it lent. */
static int still_there(void)
{
    if (H.pid > 0 && !H.ended && waitpid(H.pid, &H.status, WNOHANG) == H.pid) {
        H.ended = 1;
        end_helper(NULL, 0);
    }
    return H.pid > 0;
}

extern "C" int uc_alive(void) { return still_there(); }

extern "C" int uc_loaded(int slot) { return still_there() && H.loaded[slot]; }

static char *data_of(int b) { return H.buf[b].base + UW_GUARD; }

/* ---- output of the helper (printf) ---- */

/* Show what the helper printed, wait_ms at most for more. */
static void drain_output(int wait_ms)
{
    char chunk[4096];
    struct pollfd p = {H.out, POLLIN, 0};
    while (H.out >= 0 && poll(&p, 1, wait_ms) > 0) {
        ssize_t n = read(H.out, chunk, sizeof chunk);
        if (n <= 0)
            return;
        for (ssize_t i = 0; i < n; i++) {
            if (H.lines < MAX_PRINTED_LINES)
                out_printf("%c", chunk[i]);
            if (chunk[i] == '\n')
                H.lines < MAX_PRINTED_LINES ? H.lines++ : H.hidden++;
        }
        wait_ms = 0;
    }
}

static void output_done(void)
{
    if (H.hidden)
        out_printf("(%d more lines of the kernel's printf not shown)\n", H.hidden);
    H.lines = H.hidden = 0;
}

/* ---- the socket ---- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Wait for the answer of type t into body (n bytes), timeout_s at most,
 * showing the helper's output meanwhile. */
static uc_status wait_answer(uw_type t, void *body, size_t n, double timeout_s)
{
    double deadline = now_ms() + timeout_s * 1e3;
    uw_head h;
    struct pollfd p[2] = {{H.sock, POLLIN, 0}, {H.out, POLLIN, 0}};
    for (;;) {
        int r = poll(p, 2, 100); /* Ctrl-C and the panel's clock get a turn every 100 ms */
        if (r < 0 && errno != EINTR)
            return UC_ENDED;
        if (r > 0 && (p[1].revents & POLLIN))
            drain_output(0);
        else if (r > 0 && p[1].revents) /* its output closed: the socket says the rest */
            p[1].fd = -1;
        if (r > 0 && p[0].revents)
            break;
        if (cuk_check_interrupt())
            return UC_CANCELLED;
        if (now_ms() > deadline)
            return UC_TIMEOUT;
    }
    if (uw_recv(H.sock, &h, sizeof h) != 0 || h.type != (uint32_t)t || h.len != n || uw_recv(H.sock, body, n) != 0)
        return UC_ENDED;
    return UC_OK;
}

/* ---- starting and ending the helper ---- */

/* The session's mapping of buffer b, closed without touching it. */
static void unmap(int b)
{
    if (H.buf[b].base && cudaIpcCloseMemHandle(H.buf[b].base) != cudaSuccess)
        cudaGetLastError(); /* the helper's memory may be gone already: nothing to keep */
    H.buf[b].base = NULL;
    H.buf[b].cap = 0;
}

/* How the helper process ended, in words, after waiting for it (if
 * still_there has not). */
static void reap(char *why, size_t cap)
{
    int st = H.status;
    pid_t r = H.pid;
    while (!H.ended && (r = waitpid(H.pid, &st, 0)) < 0 && errno == EINTR)
        ;
    H.ended = 1;
    if (r < 0)
        snprintf(why, cap, "it ended");
    else if (WIFSIGNALED(st))
        snprintf(why, cap, "it was ended by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(why, cap, "it exited with status %d", WEXITSTATUS(st));
}

/* End the helper and close everything of it; why (if not NULL) gets how
 * it ended. It is killed first whatever it was doing: one that has ended
 * already is not hurt, and one that has not answered is not waited for. */
static void end_helper(char *why, size_t cap)
{
    char how[160];
    if (H.pid <= 0)
        return;
    if (!H.ended) /* a reaped pid may be another process's by now */
        kill(H.pid, SIGKILL);
    drain_output(0);
    output_done();
    close(H.sock);
    reap(how, sizeof how);
    if (why)
        snprintf(why, cap, "%s", how);
    close(H.out);
    for (int b = 0; b < UW_BUFS; b++)
        unmap(b);
    memset(H.loaded, 0, sizeof H.loaded);
    H.pid = 0;
    H.ended = 0;
    H.sock = H.out = -1;
}

/* At the session's end the helper is asked to finish rather than killed:
 * the session's mappings of its memory closed, its socket shut, a few
 * seconds to exit by itself, so that it ends like any program (a tool
 * following it, such as compute-sanitizer, then reports on it). */
extern "C" void uc_close(void)
{
    if (!still_there())
        return;
    for (int b = 0; b < UW_BUFS; b++)
        unmap(b);
    shutdown(H.sock, SHUT_RDWR);
    for (int i = 0; i < 500 && !H.ended; i++) {
        if (waitpid(H.pid, &H.status, WNOHANG) == H.pid)
            H.ended = 1;
        else
            usleep(10000);
    }
    end_helper(NULL, 0);
}

/* A descriptor at 10 or above, close-on-exec, in place of fd: posix_spawn's
 * dup2 onto UW_FD or 1 then always makes a fresh, inheritable copy. */
static int high_fd(int fd)
{
    int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    return h;
}

/* posix_spawn /proc/self/exe USER_HELPER_FLAG with the socket on UW_FD. */
static int spawn(int child_sock, int child_out)
{
    posix_spawn_file_actions_t fa;
    char *argv[] = {(char *)"cuk", (char *)USER_HELPER_FLAG, NULL};
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc == 0)
        rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, child_out, 1);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, child_out, 2);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, child_sock, UW_FD);
    if (rc == 0)
        rc = posix_spawn(&H.pid, "/proc/self/exe", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        H.pid = 0;
    return rc;
}

static int start_helper(void)
{
    int sv[2], pv[2];
    uw_ready ready;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return cuk_err("kernel helper: cannot make its socket: %s", strerror(errno));
    if (pipe2(pv, O_CLOEXEC) != 0) {
        close(sv[0]), close(sv[1]);
        return cuk_err("kernel helper: cannot make its pipe: %s", strerror(errno));
    }
    int child_sock = high_fd(sv[1]), child_out = high_fd(pv[1]);
    int rc = child_sock < 0 || child_out < 0 ? errno : spawn(child_sock, child_out);
    close(child_sock), close(child_out);
    H.sock = sv[0], H.out = pv[0];
    if (rc != 0) {
        close(H.sock), close(H.out);
        H.sock = H.out = -1;
        return cuk_err("kernel helper: cannot start it: %s", strerror(rc));
    }
    uc_status st = wait_answer(UW_READY, &ready, sizeof ready, SLOW_STEP_S);
    if (st == UC_OK && ready.ok)
        return 0;
    char how[160] = "";
    end_helper(how, sizeof how);
    if (st == UC_CANCELLED)
        return -1;
    return cuk_err("kernel helper: it did not start: %s", st == UC_OK ? ready.why : st == UC_TIMEOUT ? "no answer in 60 s" : how);
}

/* A request's answer not had: the helper is ended, and the error says so.
 * -1. */
static int lost(uc_status st, const char *what)
{
    char how[160] = "";
    end_helper(how, sizeof how);
    if (st == UC_CANCELLED)
        return -1;
    return cuk_err("kernel helper: no answer to %s: %s", what, st == UC_TIMEOUT ? "it took more than 60 s" : how);
}

/* ---- modules and buffers ---- */

extern "C" int uc_load(int slot, const void *image, size_t len, const int *defined, user_kernel_facts *facts)
{
    uw_load l;
    uw_loaded *a = (uw_loaded *)calloc(1, sizeof *a);
    if (!a)
        return cuk_err("out of host memory");
    if (!still_there() && start_helper() != 0) {
        free(a);
        return -1;
    }
    memset(&l, 0, sizeof l);
    l.slot = slot;
    memcpy(l.defined, defined, sizeof l.defined);
    l.image_len = len;
    H.loaded[slot] = 0;
    uc_status st = uw_send_msg(H.sock, UW_LOAD, &l, sizeof l, image, len) == 0 ? wait_answer(UW_LOADED, a, sizeof *a, SLOW_STEP_S)
                                                                  : UC_ENDED;
    int rc = st != UC_OK ? lost(st, "loading the module") : !a->ok ? cuk_err("%s", a->why) : 0;
    if (rc == 0) {
        memcpy(facts, a->facts, sizeof a->facts);
        H.loaded[slot] = 1;
    }
    free(a);
    return rc;
}

/* The helper's buffers at least need[] bytes each: those too small are
 * unmapped here first, remade there, and mapped again. */
static int ensure_buffers(const size_t *need)
{
    uw_buffers req;
    uw_buffers_made made;
    int grow = 0;
    for (int b = 0; b < UW_BUFS; b++) {
        req.need[b] = need[b];
        if (need[b] > H.buf[b].cap || !H.buf[b].base) {
            unmap(b); /* before the helper frees it */
            grow = 1;
        }
    }
    if (!grow)
        return 0;
    uc_status st = uw_send_msg(H.sock, UW_BUFFERS, &req, sizeof req, NULL, 0) == 0
                       ? wait_answer(UW_BUFFERS_MADE, &made, sizeof made, SLOW_STEP_S)
                       : UC_ENDED;
    if (st != UC_OK)
        return lost(st, "making its buffers");
    if (!made.ok)
        return cuk_err("kernel helper: %s", made.why);
    for (int b = 0; b < UW_BUFS; b++) {
        if (H.buf[b].base) /* kept: not remade */
            continue;
        void *p = NULL;
        GPU_CHECK(cudaIpcOpenMemHandle(&p, made.handle[b], cudaIpcMemLazyEnablePeerAccess));
        H.buf[b].base = (char *)p;
        H.buf[b].cap = made.cap[b];
    }
    return 0;
}

/* ---- runs ---- */

/* The operands into the helper's buffers, the session's stream drained
 * (the helper's kernel must find them there). */
static int copy_in(const uc_request *r)
{
    for (int b = 1; b < r->nbufs; b++)
        if (r->src[b])
            GPU_CHECK(cudaMemcpyAsync(data_of(b), r->src[b], r->bytes[b], cudaMemcpyDeviceToDevice, gpu_stream_handle()));
    GPU_WAIT(gpu_stream_handle());
    return 0;
}

static void request_of(const uc_request *r, uw_run *w)
{
    memset(w, 0, sizeof *w);
    w->slot = r->slot, w->entry = r->entry;
    for (int d = 0; d < 3; d++)
        w->grid[d] = r->g.grid[d], w->block[d] = r->g.block[d], w->ints[d] = r->ints[d];
    w->smem = (unsigned)r->g.smem;
    w->nbufs = r->nbufs;
    for (int b = 0; b < r->nbufs; b++) {
        w->used[b] = r->bytes[b];
        w->fill[b] = b > 0 && !r->src[b];
        w->value[b] = r->fill[b];
    }
    w->init_out = r->init_out;
    w->init = r->init;
}

/* What the helper's answer, or its silence, means for the run. */
static void result_of(uc_status st, const uw_ran *a, uc_result *res)
{
    memset(res, 0, sizeof *res);
    if (st == UC_OK) {
        res->status = a->status == UW_OK ? UC_OK : a->status == UW_LAUNCH_REFUSED ? UC_REFUSED
                      : a->status == UW_GUARD_HIT ? UC_GUARD : UC_FAULT;
        snprintf(res->why, sizeof res->why, "%s", a->why);
        res->ms = a->ms;
        res->blocks_per_sm = a->blocks_per_sm;
        res->guard_buf = a->guard_buf, res->guard_before = a->guard_before;
        res->guard_near = a->guard_near, res->guard_far = a->guard_far;
    } else {
        res->status = st;
    }
    if (st == UC_OK && res->status != UC_FAULT) /* the helper lives on */
        return;
    char how[160] = "";
    end_helper(how, sizeof how); /* after a fault it is ending anyway */
    if (st == UC_ENDED)
        snprintf(res->why, sizeof res->why, "%s", how);
}

extern "C" int uc_run(const uc_request *r, uc_result *res)
{
    uw_run w;
    uw_ran a;
    size_t need[UW_BUFS] = {0, 0, 0};
    for (int b = 0; b < r->nbufs; b++)
        need[b] = r->bytes[b];
    if (!uc_loaded(r->slot))
        return cuk_err("kernel helper: the mode's module is not loaded");
    if (ensure_buffers(need) != 0 || copy_in(r) != 0)
        return -1;
    request_of(r, &w);
    uc_status st = uw_send_msg(H.sock, UW_RUN, &w, sizeof w, NULL, 0) == 0 ? wait_answer(UW_RAN, &a, sizeof a, user_timeout())
                                                                : UC_ENDED;
    drain_output(0);
    output_done();
    result_of(st, &a, res);
    return st == UC_CANCELLED ? -1 : 0;
}

extern "C" int uc_fetch(void *host, size_t bytes)
{
    if (!H.buf[0].base)
        return cuk_err("kernel helper: no output to read");
    return gpu_d2h(host, data_of(0), bytes);
}

extern "C" int uc_deliver(float *dst, size_t bytes)
{
    if (!H.buf[0].base)
        return cuk_err("kernel helper: no output to read");
    return gpu_d2d(dst, data_of(0), bytes);
}
