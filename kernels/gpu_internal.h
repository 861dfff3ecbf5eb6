/* gpu_internal.h - what the CUDA files share and the engine never sees: error
 * checks, checked and recorded kernel launches, the stream and device
 * scratch. Include from .cu only. */
#ifndef CUK_GPU_INTERNAL_H
#define CUK_GPU_INTERNAL_H

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "kernels/entries.h"
#include "kernels/gpu.h"

/* Threads per block of the 1-D kernels (elementwise, reductions). */
#define GPU_THREADS 256
/* gridDim.y and .z are limited to 65535 on every CUDA device. */
#define GPU_MAX_GRID_Y 65535

extern "C" {

/* Turn a failed CUDA call into the engine error, fatal if the context is
 * poisoned (which also calls gpu_poison). Always returns -1. */
int gpu_fail(cudaError_t err, const char *call, const char *file, int line);
int gpu_cublas_fail(cublasStatus_t st, const char *call, const char *file, int line);

/* The engine's one stream: every copy, kernel and cuBLAS call goes on it. */
cudaStream_t gpu_stream_handle(void);

/* Record a launch of `func` named `name` (a string literal) under the mode
 * that is running (mode_running), for the `kernels` command, and check it
 * with cudaGetLastError: 0, or -1 with the error set. */
int gpu_launched(const char *name, const void *func, dim3 grid, dim3 block, size_t smem, const char *file,
                 int line);
/* Count a library call (cuBLAS) that launches kernels we cannot name. */
void gpu_count_call(const char *name);

/* Achievable blocks per SM of func at this block size (occupancy API), >= 1;
 * or -1 with the error set. */
int gpu_blocks_per_sm(const void *func, int threads, size_t smem);
/* Blocks for a grid-stride loop over n elements: enough to fill the device
 * (SMs x 8 blocks of GPU_THREADS) but no more than the work needs; n > 0. */
unsigned gpu_grid_1d(size_t n);
int gpu_sm_count(void);

/* A device buffer of at least `bytes` that lives for the session (reduction
 * partials and accumulators). Grows only when too small; never freed per op. */
int gpu_scratch(void **p, size_t bytes);

}

/* Blocks of `per` to cover n, without int overflow near INT_MAX. */
static inline unsigned gpu_cdiv(long long n, int per)
{
    return (unsigned)((n + per - 1) / per);
}

/* Evaluate a CUDA runtime call; on failure set the error and return -1 from
 * the enclosing int function. */
#define GPU_CHECK(call)                                                \
    do {                                                               \
        cudaError_t gpu_err_ = (call);                                 \
        if (gpu_err_ != cudaSuccess)                                   \
            return gpu_fail(gpu_err_, #call, __FILE__, __LINE__);      \
    } while (0)

#define CUBLAS_CHECK(call)                                             \
    do {                                                               \
        cublasStatus_t gpu_st_ = (call);                               \
        if (gpu_st_ != CUBLAS_STATUS_SUCCESS)                          \
            return gpu_cublas_fail(gpu_st_, #call, __FILE__, __LINE__); \
    } while (0)

/* Launch kernel<<<grid, block, smem>>> on the engine stream, record it under
 * the kernel's own name and check it; returns -1 from the enclosing function
 * if the launch failed. */
#define GPU_LAUNCH(kernel, grid, block, smem, ...)                                      \
    do {                                                                                \
        dim3 gpu_grid_ = (grid), gpu_block_ = (block);                                  \
        size_t gpu_smem_ = (smem);                                                      \
        kernel<<<gpu_grid_, gpu_block_, gpu_smem_, gpu_stream_handle()>>>(__VA_ARGS__); \
        if (gpu_launched(#kernel, (const void *)(kernel), gpu_grid_, gpu_block_, gpu_smem_, __FILE__, \
                         __LINE__) != 0)                                                \
            return -1;                                                                  \
    } while (0)

#endif
