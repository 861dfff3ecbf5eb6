/* user_client.h - the session's side of the kernel helper process
 * (user_client.cu): started when first wanted, told to load each user
 * mode's module, handed the operands of each run. Its buffers, each with a
 * guard zone before and after, are made by the helper and opened in the
 * session through CUDA IPC; the session copies operands in and the result
 * out on its own stream, and never lets the helper see its matrices. A
 * run that ends the helper (a fault, the timeout, Ctrl-C) closes the
 * session's mappings of its memory without touching them, and the next
 * run starts a new helper. In a build without CUDA, gpu_none.c answers
 * that there is no GPU. */
#ifndef CUK_USER_CLIENT_H
#define CUK_USER_CLIENT_H

#include <stddef.h>

#include "kernels/user.h"
#include "kernels/user_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a run went. */
typedef enum {
    UC_OK,
    UC_REFUSED,   /* the launch was refused: too many resources, a bad configuration */
    UC_FAULT,     /* an illegal address, a trap, an assert: the helper has ended */
    UC_GUARD,     /* the kernel wrote into a guard zone */
    UC_TIMEOUT,   /* it ran past `set kernel timeout`: the helper was stopped */
    UC_ENDED,     /* the helper ended without a word (killed, crashed) */
    UC_CANCELLED  /* Ctrl-C: the helper was stopped, the error is set */
} uc_status;

typedef struct {
    uc_status status;
    char why[480];               /* the CUDA error or how the helper ended */
    double ms;                   /* the kernel's time: CUDA events in the helper */
    int blocks_per_sm;           /* the occupancy API's, for the launch */
    int guard_buf, guard_before; /* UC_GUARD: which buffer (0 the output), which side */
    size_t guard_near, guard_far;/* floats past its edge (1: the next one): the nearest and farthest written */
} uc_result;

typedef struct {
    int slot, entry;
    ul_geometry g;
    int ints[3];
    int nbufs;                   /* the output, then the inputs */
    size_t bytes[3];
    const float *src[3];         /* inputs: the session's device buffers; NULL: filled with fill[b] */
    float fill[3];
    int init_out;                /* a reduction: the output starts at init */
    float init;
} uc_request;

/* Load a user mode's module (a cubin or PTX) into the helper, starting
 * it if it is not running; facts[e] for each defined entry. 0, or -1
 * with the error set (a module the driver refuses, its log included). */
int uc_load(int slot, const void *image, size_t len, const int *defined, user_kernel_facts *facts);
/* 1 if slot's module is loaded in the running helper. */
int uc_loaded(int slot);
/* Run one launch: 0 with res saying how it went (the helper then
 * restarted lazily if it ended), or -1 with the error set when the
 * session's own side failed. */
int uc_run(const uc_request *r, uc_result *res);
/* The last run's output, bytes of it: to the host (waits), or queued on
 * the session's stream into dst. 0, or -1 with the error set. */
int uc_fetch(void *host, size_t bytes);
int uc_deliver(float *dst, size_t bytes);
/* 1 if a helper process is running. */
int uc_alive(void);
/* The helper ended at the session's end, given time to exit by itself. */
void uc_close(void);

/* The helper's side (user_helper.cu): serve the session on the socket it
 * was started with until the session closes it; the exit status. */
int uc_helper_serve(void);

#ifdef __cplusplus
}
#endif

#endif
