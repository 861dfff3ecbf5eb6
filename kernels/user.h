/* user.h - user modes: `kernel "file.cu"` compiles a user's CUDA file with
 * NVRTC and registers its entry points (user_entry.h) as a mode named
 * after the file, its missing operations from a base mode, like a row of
 * the table in modes.c. Its kernels run in a helper process with a CUDA
 * context of its own (the cuk binary run again with USER_HELPER_FLAG), on
 * copies of the operands in guarded buffers: a wrong write, an illegal
 * address, a trap or an endless loop ends at most the helper, never the
 * session's matrices. Each first result of a shape is checked against
 * float64 (user_check.h) before it is used. */
#ifndef CUK_USER_H
#define CUK_USER_H

#include <stddef.h>

#include "kernels/backend.h"
#include "kernels/user_compile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define USER_MAX_MODES 16
#define USER_HELPER_FLAG "--kernel-helper"

/* Make build b (compiled without errors, user_compile.h) the user mode of
 * its name: a new one, or in place of the one of that name (the same row:
 * a session in it stays in it), from the file `file` with source src.
 * With a GPU here its kernels are loaded in the helper first, so that a
 * module the driver refuses is reported now. 0, and b's image belongs to
 * the mode; or -1 with the error set and nothing changed (a built-in
 * mode's name, more than USER_MAX_MODES). *replaced: 1 if it took the
 * place of an earlier one. */
int user_mode_register(user_build *b, const char *file, const char *src, size_t len, const cuk_backend **mode,
                       int *replaced);
/* The build a user mode was made from (its entry points, its launch
 * lines), and its source; NULL if m is not a user mode. */
const user_build *user_mode_build(const cuk_backend *m, const char **src, size_t *len);

/* The user modes, in the order they were first registered. */
int user_mode_count(void);
const cuk_backend *user_mode_get(int i);
const cuk_backend *user_mode_find(const char *name);

/* What the driver says of a loaded entry point. */
typedef struct {
    int regs;           /* registers a thread */
    int static_smem;    /* bytes of __shared__ arrays */
    int local_bytes;    /* bytes of local memory a thread (spills) */
    int max_threads;    /* the most threads a block may have, with those registers */
} user_kernel_facts;

/* The facts of entry e of a user mode, once its kernels are loaded in the
 * helper (a GPU is here): 1, else 0. */
int user_mode_facts(const cuk_backend *m, int e, user_kernel_facts *f);

/* The time user kernels took since the last call, in ms (CUDA events in
 * the helper, around the kernel alone); < 0 if none ran. The engine's
 * timing takes it for the op in place of its own marks, which would time
 * the copies to the helper and the round trip too. */
double user_kernel_ms_take(void);

/* `set kernel timeout`: how long a user kernel may run before its helper
 * is stopped, in seconds. set: 0, or -1 with the error set. */
double user_timeout(void);
int user_timeout_set(double seconds);

/* The helper process: if argv[1] is USER_HELPER_FLAG, serve the session
 * on the descriptor it left open and return the exit status; else -1. */
int user_helper_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
