/* gpu_common.cu - the kernels every GPU mode shares because they make no
 * lecture point: elementwise and unary ops, fill, eye, and 2-D block copies.
 * All are memory-bound grid-stride loops with 64-bit indices. */
#include "kernels/gpu_internal.h"

#include <math.h>

#include "kernels/elementwise.h"

/* The entry points every GPU mode shares (naive's row in modes.c). */
extern "C" cuk_ewise_fn gpu_ewise;
extern "C" cuk_unary_fn gpu_unary;
extern "C" cuk_fill_fn gpu_fill;
extern "C" cuk_eye_fn gpu_eye;
extern "C" cuk_copy2d_fn gpu_copy2d;

/* One operand: the broadcast value is read once per thread, not per element. */
static __device__ __forceinline__ float scalar_of(cuk_arg a)
{
    return a.p ? a.p[0] : a.v;
}

/* out[i] = a[i] op b[i], either side possibly one broadcast value. */
static __global__ void ewise_kernel(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n)
{
    float sa = a.bcast ? scalar_of(a) : 0.0f;
    float sb = b.bcast ? scalar_of(b) : 0.0f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float x = a.bcast ? sa : a.p[i];
        float y = b.bcast ? sb : b.p[i];
        out[i] = cuk_ewise_one(op, x, y);
    }
}

static __global__ void unary_kernel(cuk_unop op, float *out, const float *in, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = cuk_unary_one(op, in[i]);
}

static __global__ void fill_kernel(float *out, float v, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = v;
}

/* The ones of eye: out is rows x cols, already zeroed; d = min(rows, cols). */
static __global__ void diagonal_kernel(float *out, size_t cols, size_t d)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < d; i += stride)
        out[i * cols + i] = 1.0f;
}

extern "C" int gpu_ewise(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n)
{
    if (n == 0)
        return 0;
    GPU_LAUNCH(ewise_kernel, gpu_grid_1d(n), GPU_THREADS, 0, op, out, a, b, n);
    return 0;
}

extern "C" int gpu_unary(cuk_unop op, float *out, const float *in, size_t n)
{
    if (n == 0)
        return 0;
    GPU_LAUNCH(unary_kernel, gpu_grid_1d(n), GPU_THREADS, 0, op, out, in, n);
    return 0;
}

extern "C" int gpu_fill(float *out, float v, size_t n)
{
    if (n == 0)
        return 0;
    GPU_LAUNCH(fill_kernel, gpu_grid_1d(n), GPU_THREADS, 0, out, v, n);
    return 0;
}

/* Zero everything with one memset, then write only the diagonal: cheaper than
 * a division per element to find it. */
extern "C" int gpu_eye(float *out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    size_t d = (size_t)(rows < cols ? rows : cols);
    GPU_CHECK(cudaMemsetAsync(out, 0, (size_t)rows * cols * sizeof(float), gpu_stream_handle()));
    GPU_LAUNCH(diagonal_kernel, gpu_grid_1d(d), GPU_THREADS, 0, out,
               (size_t)cols, d);
    return 0;
}

/* Rows r0 .. r1 - 1 of the rows x cols identity, into out (its row r0):
 * mode multi's share of eye on one GPU. */
extern "C" int gpu_eye_rows(float *out, int cols, int r0, int r1)
{
    if (r1 <= r0 || cols <= 0)
        return 0;
    GPU_CHECK(cudaMemsetAsync(out, 0, (size_t)(r1 - r0) * cols * sizeof(float), gpu_stream_handle()));
    size_t d = r0 < cols ? (size_t)((r1 < cols ? r1 : cols) - r0) : 0;
    if (d)
        GPU_LAUNCH(diagonal_kernel, gpu_grid_1d(d), GPU_THREADS, 0, out + r0, (size_t)cols, d);
    return 0;
}

/* Largest pitch cudaMemcpy2D accepts, in bytes (the attribute, asked once). */
static int max_pitch(size_t *pitch)
{
    static size_t cached;
    if (!cached) {
        int v = 0;
        GPU_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxPitch, 0));
        cached = v > 0 ? (size_t)v : 1;
    }
    *pitch = cached;
    return 0;
}

/* dst (rows x cols block, leading dimension dld) = the block of src (sld). */
extern "C" int gpu_copy2d(float *dst, size_t dld, const float *src, size_t sld, int rows, int cols)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    cudaStream_t s = gpu_stream_handle();
    size_t width = (size_t)cols * sizeof(float);
    if (rows == 1 || (dld == (size_t)cols && sld == (size_t)cols)) {
        /* One contiguous run: a plain copy has no pitch limits. */
        GPU_CHECK(cudaMemcpyAsync(dst, src, width * rows, cudaMemcpyDeviceToDevice, s));
        return 0;
    }
    size_t dpitch = dld * sizeof(float), spitch = sld * sizeof(float);
    size_t limit = 0; /* max_pitch sets it whenever it returns 0; gcc cannot see that */
    if (max_pitch(&limit) != 0)
        return -1;
    if (dpitch <= limit && spitch <= limit) {
        GPU_CHECK(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, (size_t)rows,
                                    cudaMemcpyDeviceToDevice, s));
        return 0;
    }
    /* Rows over 2 GiB apart: few of them fit in memory, so copy row by row. */
    for (int r = 0; r < rows; r++)
        GPU_CHECK(cudaMemcpyAsync(dst + (size_t)r * dld, src + (size_t)r * sld, width,
                                  cudaMemcpyDeviceToDevice, s));
    return 0;
}
