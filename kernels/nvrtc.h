/* nvrtc.h - NVIDIA's runtime compiler (NVRTC), opened with dlopen when
 * `kernel` first wants it, like cuBLAS: a CUDA C file to PTX, or to a
 * cubin for a real architecture. It needs no GPU, so a file can be checked
 * on a machine without one. Host code only: every build has it, and it
 * works wherever the toolkit's libnvrtc can be found. */
#ifndef CUK_NVRTC_H
#define CUK_NVRTC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 once NVRTC is loaded (loading it now if never tried); else 0 and
 * *why says why not. */
int nvrtc_load(const char **why);

/* What one compilation gave. */
typedef struct {
    int compiled;      /* 1: no errors */
    char *log;         /* the compiler's messages, "" if none */
    char *ptx;         /* the PTX text, NUL-terminated; NULL if not compiled */
    size_t ptx_len;
    void *cubin;       /* for a real architecture (sm_XY); else NULL */
    size_t cubin_len;
} nvrtc_output;

/* Compile src, calling it `name` in messages, for arch ("sm_90" or
 * "compute_75"), with -lineinfo and C++17. 0 whether or not it compiled
 * (out->compiled says), or -1 with the error set if NVRTC could not be
 * used. Free out with nvrtc_output_free in both cases. */
int nvrtc_compile(const char *src, size_t len, const char *name, const char *arch, nvrtc_output *out);
void nvrtc_output_free(nvrtc_output *out);

/* NVRTC's version ("13.0"), "" if not loaded. */
const char *nvrtc_version(void);
/* The newest real architecture NVRTC can compile for that is at most cc
 * (10*major + minor), so that a GPU newer than the compiler runs its PTX;
 * 0 if none is (or NVRTC is not loaded). */
int nvrtc_arch_for(int cc);
/* The oldest architecture NVRTC compiles for; 0 if not loaded. */
int nvrtc_arch_oldest(void);

#ifdef __cplusplus
}
#endif

#endif
