/* user_compile.h - a user's CUDA file made ready to become a mode: NVRTC
 * compiles it (nvrtc.h), its compiler messages become diagnostics with a
 * line and column, its PTX says which entry points it defines and whether
 * their parameters are the documented ones (user_entry.h), and its launch
 * lines are read (user_launch.h). Host code only: it needs no GPU. */
#ifndef CUK_USER_COMPILE_H
#define CUK_USER_COMPILE_H

#include <stddef.h>

#include "kernels/user_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define USER_NAME_MAX 32
#define USER_MAX_DIAGS 24

typedef struct {
    char name[USER_NAME_MAX]; /* the mode's name: the file's, without its folders and extension */
    char arch[16];            /* compiled for: "sm_90" (a cubin) or "compute_75" (PTX) */
    int defined[USER_ENTRIES];/* 1 for each entry point the file defines */
    int nentries;
    ul_file launch;
    void *image;              /* the cubin, or the NUL-terminated PTX, to load */
    size_t image_len;
    user_diag diag[USER_MAX_DIAGS]; /* errors and warnings, in the file's order */
    int ndiag;
    int nerrors, nwarnings;   /* all of them, also past USER_MAX_DIAGS */
} user_build;

/* The mode name a file gives ("dir/my_mm.cu" -> "my_mm") into name: 0, or
 * -1 with the error set if it is not a name cuk can use. */
int user_mode_name(const char *file, char *name, size_t cap);

/* The architecture to compile for: arch as the user wrote it after `for`
 * (sm_XY or compute_XY), or NULL for the GPU here (compute_75 or the
 * oldest NVRTC knows, without one). 0, or -1 with the error set. */
int user_pick_arch(const char *arch, char *out, size_t cap);

/* Compile src (named file in messages) for arch (from user_pick_arch).
 * 0 when it was compiled and read, b->nerrors saying whether it has
 * errors; -1 with the error set if it could not be tried (no NVRTC). */
int user_compile(const char *file, const char *src, size_t len, const char *arch, user_build *b);
void user_build_free(user_build *b);

/* Compiler messages into diagnostics (exposed for tests): NVRTC's log,
 * "file(LINE): error: text", the line and a caret under the column. */
void user_read_log(const char *log, user_build *b);
/* The entry points the PTX defines, their parameters checked (exposed for
 * tests); diagnostics point into src. */
void user_read_ptx(const char *ptx, const char *src, size_t len, user_build *b);

#ifdef __cplusplus
}
#endif

#endif
