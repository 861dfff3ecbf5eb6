/* gpu_internal.h - what the CUDA files share and the engine never sees: error
 * checks, checked and recorded kernel launches, the stream and device
 * scratch. Include from .cu only. */
#ifndef CUK_GPU_INTERNAL_H
#define CUK_GPU_INTERNAL_H

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "kernels/backend.h"
#include "kernels/gpu.h"

/* Threads per block of the 1-D kernels (elementwise, reductions). */
#define GPU_THREADS 256
/* Dynamic shared memory a kernel may launch with before it must be allowed
 * more (gpu_allow_smem). */
#define GPU_DEFAULT_SMEM (48 * 1024)
/* gridDim.y and .z are limited to 65535 on every CUDA device. */
#define GPU_MAX_GRID_Y 65535

extern "C" {

/* Turn a failed CUDA call into the engine error, fatal if the context is
 * poisoned (which also calls gpu_poison). Always returns -1. */
int gpu_fail(cudaError_t err, const char *call, const char *file, int line);
int gpu_cublas_fail(cublasStatus_t st, const char *call, const char *file, int line);
/* A cuBLAS status's name and text, from the library loaded at run time
 * (gpu_cublas.cu): cuk links no cuBLAS, so call no cuBLAS function directly. */
void gpu_cublas_status(cublasStatus_t st, const char **name, const char **text);

/* The stream of the selected device (gpu_select): every copy, kernel and
 * cuBLAS call goes on it. Between operations that is device 0's, the
 * engine's stream, where the timing marks are. */
cudaStream_t gpu_stream_handle(void);
cudaStream_t gpu_engine_stream(void);
/* Make device g current (mode multi: each GPU's share of an operation):
 * cudaSetDevice, and g's stream and scratch for what follows; its stream is
 * made the first time. 0, or -1 with the error set. Select 0 again after. */
int gpu_select(int g);
int gpu_selected(void);
/* How many GPUs spread memory lies on (gpu_spread.cu): the visible ones
 * from 0 on that can all reach each other; 0 with the error set if none. */
int gpu_spread_gpus(void);

/* Record a launch of `func` named `name` (a string literal) under the mode
 * that is running (mode_running), for the `kernels` command, and check it
 * with cudaGetLastError: 0, or -1 with the error set. */
int gpu_launched(const char *name, const void *func, dim3 grid, dim3 block, size_t smem, const char *file,
                 int line);
/* dlopen a library by file name: the loader's search path, then cuk's run
 * path (the toolkit's lib64 at build time). NULL with *why = "cannot load
 * FILE: REASON" (cuBLAS, CUPTI). */
void *gpu_dlopen(const char *file, char *why, size_t cap);
/* Count a library call (cuBLAS) that launches kernels we cannot name. */
void gpu_count_call(const char *name);
/* 1 if cuk has opened GPU g (made its stream): a context is there. */
int gpu_opened(int g);

/* While `count` reads the counters (gpu_counters.cu), gpu_launched and
 * gpu_count_call tell it of each launch on the selected GPU, in order: a
 * kernel of cuk's (func, its block and dynamic shared memory, for the
 * theoretical occupancy), or a library call, whose kernels are those that
 * ran since. Not called otherwise: the flag is all a launch pays. */
extern int gpu_counters_on;
void gpu_counters_launched(const char *name, const void *func, dim3 block, size_t smem);
void gpu_counters_library(const char *name);

/* Let func launch with `smem` bytes of dynamic shared memory, past the
 * 48 KiB a block has by default (cudaFuncSetAttribute), once for each
 * function and device; gpu_launch asks for what it launches. 0, or -1
 * with the error set. */
int gpu_allow_smem(const void *func, size_t smem);
/* Achievable blocks per SM of func at this block size (occupancy API), >= 1;
 * or -1 with the error set. */
int gpu_blocks_per_sm(const void *func, int threads, size_t smem);
/* Blocks for a grid-stride loop over n elements: enough to fill the device
 * (SMs x 8 blocks of GPU_THREADS) but no more than the work needs; n > 0. */
unsigned gpu_grid_1d(size_t n);
int gpu_sm_count(void);

/* A buffer of at least `bytes` on the selected device that lives for the
 * session (reduction partials and accumulators). Grows only when too small;
 * never freed per op. */
int gpu_scratch(void **p, size_t bytes);
/* The same for a buffer the caller can do without (padded copies): 0, 1 out
 * of memory (no error set), or -1 with the error set. */
int gpu_scratch_try(void **p, size_t bytes);

}

/* Blocks of `per` to cover n, without int overflow near INT_MAX. */
static inline unsigned gpu_cdiv(long long n, int per)
{
    return (unsigned)((n + per - 1) / per);
}

/* gridDim.y stops at 65535 blocks on every device, so a grid over `rows`
 * rows, rows_per_block to a block row, is launched in bands:
 * launch(first_row, band_rows) launches one band and returns 0, or -1 with
 * the error set, which stops the walk. */
template <typename F> static inline int gpu_for_bands(int rows, int rows_per_block, F launch)
{
    const long long band = (long long)GPU_MAX_GRID_Y * rows_per_block;
    for (long long r0 = 0; r0 < rows; r0 += band)
        if (launch((int)r0, (int)(rows - r0 < band ? rows - r0 : band)) != 0)
            return -1;
    return 0;
}

/* Evaluate a CUDA runtime call; on failure set the error and return -1 from
 * the enclosing int function. */
#define GPU_CHECK(call)                                                \
    do {                                                               \
        cudaError_t gpu_err_ = (call);                                 \
        if (gpu_err_ != cudaSuccess)                                   \
            return gpu_fail(gpu_err_, #call, __FILE__, __LINE__);      \
    } while (0)

/* The host waits for stream s: the timing gate opened first (gpu_gate_close),
 * or a wait inside a timed op would sit out the gate's timeout. */
#define GPU_WAIT(s)                                                    \
    do {                                                               \
        gpu_gate_open();                                               \
        GPU_CHECK(cudaStreamSynchronize(s));                           \
    } while (0)

#define CUBLAS_CHECK(call)                                             \
    do {                                                               \
        cublasStatus_t gpu_st_ = (call);                               \
        if (gpu_st_ != CUBLAS_STATUS_SUCCESS)                          \
            return gpu_cublas_fail(gpu_st_, #call, __FILE__, __LINE__); \
    } while (0)

/* Launch kernel<<<grid, block, smem>>>(args) on the engine stream, record it
 * under `name` and check it: 0, or -1 with the error set (naming file:line). */
template <typename... P, typename... A>
static inline int gpu_launch(void (*kernel)(P...), const char *name, dim3 grid, dim3 block, size_t smem,
                             const char *file, int line, A... args)
{
    if (smem > GPU_DEFAULT_SMEM && gpu_allow_smem((const void *)kernel, smem) != 0)
        return -1;
    kernel<<<grid, block, smem, gpu_stream_handle()>>>(args...);
    return gpu_launched(name, (const void *)kernel, grid, block, smem, file, line);
}

/* Programmatic dependent launch (cc 9.0 on). gpu_launch_early, if `early`,
 * launches a kernel that may start before the one ahead of it on the
 * stream has finished: once every block of that one has called
 * gpu_next_may_start, or ended. What the early kernel can do before the
 * other ends is hidden: its blocks' launch and start, or (fast's
 * gemm_thin) its whole work, in the SMs the other's last blocks leave
 * idle. It must call gpu_wait_prior before it touches anything the one
 * ahead writes, and in one block at least before that block ends (a
 * grid ends with its last block: fast's gpu_end_after_prior), so that
 * whatever follows on the stream still finds both finished. Otherwise,
 * and on older GPUs, gpu_launch_early is gpu_launch, and the two device
 * calls do nothing. */
static __device__ __forceinline__ void gpu_next_may_start(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

static __device__ __forceinline__ void gpu_wait_prior(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Whether gpu_launch_early launches early on the GPU cuk opened. */
static inline int gpu_can_launch_early(void)
{
    const gpu_info *d = gpu_device();
    return d && d->cc_major >= 9;
}

template <typename... P, typename... A>
static inline int gpu_launch_early(int early, void (*kernel)(P...), const char *name, dim3 grid, dim3 block,
                                   size_t smem, const char *file, int line, A... args)
{
    if (!early || !gpu_can_launch_early())
        return gpu_launch(kernel, name, grid, block, smem, file, line, args...);
    if (smem > GPU_DEFAULT_SMEM && gpu_allow_smem((const void *)kernel, smem) != 0)
        return -1;
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid, cfg.blockDim = block, cfg.dynamicSmemBytes = smem, cfg.stream = gpu_stream_handle();
    cfg.attrs = &attr, cfg.numAttrs = 1;
    cudaError_t err = cudaLaunchKernelEx(&cfg, kernel, args...);
    if (err != cudaSuccess)
        return gpu_fail(err, name, file, line);
    return gpu_launched(name, (const void *)kernel, grid, block, smem, file, line);
}

/* gpu_launch under the kernel's own name; returns -1 from the enclosing
 * function if the launch failed. */
#define GPU_LAUNCH(kernel, grid, block, smem, ...)                                                        \
    do {                                                                                              \
        if (gpu_launch(kernel, #kernel, grid, block, smem, __FILE__, __LINE__, __VA_ARGS__) != 0)        \
            return -1;                                                                                \
    } while (0)

/* c (m x n) = a (m x k) @ b (k x n) by a kernel of one thread per element
 * of c in tile x tile blocks (naive, tiled): the grid covers c, rows i0..
 * of c needing only rows i0.. of a, so each band is a product of its own. */
template <typename K>
static int gpu_matmul_grid(K kernel, const char *name, int tile, const char *file, int line, float *c, const float *a,
                           const float *b, int m, int n, int k)
{
    return gpu_for_bands(m, tile, [=](int i0, int rows) {
        dim3 grid(gpu_cdiv(n, tile), gpu_cdiv(rows, tile));
        return gpu_launch(kernel, name, grid, dim3(tile, tile), 0, file, line, c + (size_t)i0 * n,
                          a + (size_t)i0 * k, b, rows, n, k);
    });
}
#define GPU_MATMUL_GRID(kernel, tile, ...) gpu_matmul_grid(kernel, #kernel, tile, __FILE__, __LINE__, __VA_ARGS__)

/* out (cols x rows) = in (rows x cols)^T by a kernel whose blocks of
 * `block` threads each move a block.x-wide, rows_per_block-tall tile of in
 * (kernel(out, in, rows, cols, first row of the band)). */
template <typename K>
static int gpu_transpose_grid(K kernel, const char *name, dim3 block, int rows_per_block, const char *file, int line,
                              float *out, const float *in, int rows, int cols)
{
    return gpu_for_bands(rows, rows_per_block, [=](int r0, int n) {
        dim3 grid(gpu_cdiv(cols, block.x), gpu_cdiv(n, rows_per_block));
        return gpu_launch(kernel, name, grid, block, 0, file, line, out, in, rows, cols, r0);
    });
}
#define GPU_TRANSPOSE_GRID(kernel, block, rows_per_block, ...) \
    gpu_transpose_grid(kernel, #kernel, block, rows_per_block, __FILE__, __LINE__, __VA_ARGS__)

#endif
