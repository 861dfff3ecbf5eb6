/* user_wire.h - what the session and its kernel helper process say to each
 * other over their socket (user_client.cu, user_helper.cu): a head, then
 * one of these structs, then for a load the module's bytes. Both ends are
 * the same binary, so the structs go as they lie in memory. Include from
 * .cu only. */
#ifndef CUK_USER_WIRE_H
#define CUK_USER_WIRE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <cuda_runtime.h>

#include "kernels/user.h"

/* The helper's buffers: 0 the output, 1 and 2 the inputs. */
#define UW_BUFS 3
/* Bytes of guard before and after each buffer: a write there is found
 * after the run. */
#define UW_GUARD ((size_t)1 << 20)
/* The guards' bytes, and the output's before a run (UCHECK_POISON). */
#define UW_GUARD_BYTE 0xA5
#define UW_GUARD_WORD 0xA5A5A5A5u
#define UW_POISON_BYTE 0xFF

/* The descriptor the helper finds its socket on. */
#define UW_FD 3

typedef enum {
    UW_READY = 1,   /* helper -> session, once started: uw_ready */
    UW_LOAD,        /* session -> helper: uw_load and the module's bytes; answered by uw_loaded */
    UW_LOADED,
    UW_BUFFERS,     /* session -> helper: uw_buffers; answered by uw_buffers_made */
    UW_BUFFERS_MADE,
    UW_RUN,         /* session -> helper: uw_run; answered by uw_ran */
    UW_RAN
} uw_type;

typedef struct {
    uint32_t type;
    uint32_t len; /* bytes after the head */
} uw_head;

typedef struct {
    int ok;
    char why[400];
} uw_ready;

typedef struct {
    int slot;
    int defined[USER_ENTRIES];
    size_t image_len; /* the bytes that follow */
} uw_load;

typedef struct {
    int ok;
    char why[1200];   /* the loader's error and its log */
    user_kernel_facts facts[USER_ENTRIES];
} uw_loaded;

typedef struct {
    size_t need[UW_BUFS]; /* bytes each buffer must hold */
} uw_buffers;

typedef struct {
    int ok;
    char why[400];
    int remade[UW_BUFS];  /* made anew: open its handle */
    cudaIpcMemHandle_t handle[UW_BUFS];
    size_t cap[UW_BUFS];  /* bytes it holds between its guards */
} uw_buffers_made;

typedef struct {
    int slot, entry;
    unsigned grid[3], block[3];
    unsigned smem;
    int ints[3];
    int nbufs;
    size_t used[UW_BUFS];  /* bytes of each the kernel may touch */
    int fill[UW_BUFS];     /* an input given by value: every float is value[b] */
    float value[UW_BUFS];
    int init_out;          /* the output starts at init (a reduction), else poisoned */
    float init;
} uw_run;

typedef enum {
    UW_OK,
    UW_LAUNCH_REFUSED, /* the launch was refused (resources, configuration): the helper lives on */
    UW_FAULT,          /* the kernel broke the helper's context: it ends after saying so */
    UW_GUARD_HIT       /* it wrote into a guard */
} uw_status;

typedef struct {
    int status;
    char why[400];
    double ms;
    int blocks_per_sm;
    int guard_buf, guard_before;      /* which buffer's guard, and which side */
    size_t guard_near, guard_far;     /* floats from the buffer's edge (1: the next one): the nearest and farthest changed */
} uw_ran;

/* All n bytes to / from socket fd: 0, or -1 if it is closed or broken (a
 * dead peer is an answer, never SIGPIPE). */
static inline int uw_send(int fd, const void *p, size_t n)
{
    for (const char *c = (const char *)p; n > 0;) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w, n -= (size_t)w;
    }
    return 0;
}

static inline int uw_recv(int fd, void *p, size_t n)
{
    for (char *c = (char *)p; n > 0;) {
        ssize_t r = recv(fd, c, n, MSG_WAITALL);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r, n -= (size_t)r;
    }
    return 0;
}

/* A message: its head, then body and extra (either may be empty). */
static inline int uw_send_msg(int fd, uw_type t, const void *body, size_t n, const void *extra, size_t extra_n)
{
    uw_head h = {(uint32_t)t, (uint32_t)(n + extra_n)};
    return uw_send(fd, &h, sizeof h) != 0 || uw_send(fd, body, n) != 0 ||
                   (extra_n && uw_send(fd, extra, extra_n) != 0)
               ? -1
               : 0;
}

#endif
