/* gpu_none.c - kernels/gpu.h for a build without CUDA: there is never a
 * device. The GPU modes stay in the table so `modes` can list them, each
 * saying why it is unavailable. */
#include <stddef.h>

#include "base/error.h"
#include "kernels/backend.h"
#include "kernels/gpu.h"

#define NO_CUDA "cuk was built without CUDA (nvcc not found at build time)"

static int no_cuda(void)
{
    return cuk_err("%s", NO_CUDA);
}

int gpu_init(void) { return -1; }

int gpu_usable(const char **why)
{
    if (why)
        *why = NO_CUDA;
    return 0;
}

const gpu_info *gpu_device(void) { return NULL; }
void gpu_poison(const char *why) {}

int gpu_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    return no_cuda();
}

int gpu_raw_alloc(void **p, size_t bytes)
{
    *p = NULL;
    return no_cuda();
}

int gpu_raw_free(void *p) { return p ? no_cuda() : 0; }
int gpu_memset(void *p, int byte, size_t bytes) { return no_cuda(); }
int gpu_h2d(void *dst, const void *src, size_t bytes) { return no_cuda(); }
int gpu_d2h(void *dst, const void *src, size_t bytes) { return no_cuda(); }
int gpu_sync(void) { return 0; }   /* nothing was queued */
int gpu_idle(void) { return 1; }

gpu_mark *gpu_mark_new(void) { return NULL; }
int gpu_mark_record(gpu_mark *m) { return 0; }
double gpu_mark_elapsed(gpu_mark *from, gpu_mark *to) { return -1.0; }

int gpu_kernel_rows(const char *mode, gpu_kernel_row *rows, int cap) { return 0; }

static int none_available(const char **why)
{
    return gpu_usable(why);
}

/* The ops of every GPU mode in this build: each fails. available() says no
 * first, so the engine never calls them; they exist so that no table entry
 * is NULL. */
static int off_matmul(float *c, const float *a, const float *b, int m, int n, int k) { return no_cuda(); }
static int off_transpose(float *out, const float *in, int rows, int cols) { return no_cuda(); }
static int off_ewise(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n) { return no_cuda(); }
static int off_unary(cuk_unop op, float *out, const float *in, size_t n) { return no_cuda(); }
static int off_reduce(cuk_redop op, float *out, const float *in, size_t n) { return no_cuda(); }
static int off_dot(float *out, const float *x, const float *y, size_t n) { return no_cuda(); }
static int off_fill(float *out, float v, size_t n) { return no_cuda(); }
static int off_eye(float *out, int rows, int cols) { return no_cuda(); }
static int off_random(cuk_dist d, float *out, size_t n, uint64_t seed, uint64_t stream) { return no_cuda(); }
static int off_copy2d(float *dst, size_t dld, const float *src, size_t sld, int rows, int cols) { return no_cuda(); }

#define OFF_BACKEND(id, summary)                                                           \
    const cuk_backend cuk_backend_##id = {#id, summary, 1, none_available, off_matmul, off_transpose, \
                                          off_ewise, off_unary, off_reduce, off_dot, off_fill,      \
                                          off_eye, off_random, off_copy2d}

OFF_BACKEND(naive, "GPU: one thread per output element, global memory only");
OFF_BACKEND(tiled, "GPU: 16x16 shared-memory tiles, any size (edges zero-filled)");
OFF_BACKEND(fast, "GPU: register-blocked, vectorised FP32 SGEMM (not written yet)");
OFF_BACKEND(cublas, "GPU: cuBLAS SGEMM in true FP32 (no TF32), the reference; reductions use tiled's tree");
