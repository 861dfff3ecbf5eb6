/* gpu_cublas.cu - the `cublas` mode: NVIDIA's library as the reference, in
 * true FP32 (no TF32 tensor cores): Sgemm, Sgeam (transpose) and Sdot.
 * cuBLAS has no plain sum, min or max (Sasum sums |x|, Isamax finds the
 * largest |x|), so the reductions run the tiled mode's tree reduction. */
#include "kernels/gpu_internal.h"

static cublasHandle_t handle;

/* Bind a new handle to the engine's stream. Pedantic math: FP32 arithmetic
 * exactly as specified, never TF32. */
static int configure(cublasHandle_t h)
{
    CUBLAS_CHECK(cublasSetStream(h, gpu_stream_handle()));
    CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
    return 0;
}

/* The handle, created on first use; a half-configured one is never kept.
 * NULL with the error set if cuBLAS cannot start. */
static cublasHandle_t get_handle(void)
{
    if (!handle) {
        cublasHandle_t fresh;
        cublasStatus_t st = cublasCreate(&fresh);
        if (st != CUBLAS_STATUS_SUCCESS) {
            gpu_cublas_fail(st, "cublasCreate(&fresh)", __FILE__, __LINE__);
            return NULL;
        }
        if (configure(fresh) != 0) {
            cublasDestroy(fresh);
            return NULL;
        }
        handle = fresh;
    }
    return handle;
}

/* Row-major c = a @ b is column-major c^T = b^T a^T: hand cuBLAS the same
 * buffers as column-major b (n x k) and a (k x m) and swap their order. */
static int cublas_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t h = get_handle();
    if (!h)
        return -1;
    CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n));
    gpu_count_call("cublas", "cublasSgemm (library kernels)");
    return 0;
}

/* Row-major in (rows x cols) is column-major (cols x rows), leading dimension
 * cols; out (cols x rows row-major) is column-major (rows x cols), leading
 * dimension rows. geam computes out = 1 * in^T + 0 * out. */
static int cublas_transpose(float *out, const float *in, int rows, int cols)
{
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t h = get_handle();
    if (!h)
        return -1;
    CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    CUBLAS_CHECK(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in, cols, &zero, out, rows,
                             out, rows));
    gpu_count_call("cublas", "cublasSgeam (library kernels)");
    return 0;
}

/* Device pointer mode: the result is written to out on the device and the
 * host does not wait for it. The _64 forms take n past 2^31. */
static int cublas_dot(float *out, const float *x, const float *y, size_t n)
{
    if (n == 0)
        return 0;
    cublasHandle_t h = get_handle();
    if (!h)
        return -1;
    CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CUBLAS_CHECK(cublasSdot_64(h, (int64_t)n, x, 1, y, 1, out));
    gpu_count_call("cublas", "cublasSdot (library kernels)");
    return 0;
}

/* Only the norm has a cuBLAS routine, Snrm2, and it returns inf rather than
 * NaN for a vector holding a NaN; so every reduction runs the tree. */
static int cublas_reduce(cuk_redop op, float *out, const float *in, size_t n)
{
    return gpu_tree_reduce("cublas", op, out, in, n);
}

static int cublas_available(const char **why)
{
    return gpu_usable(why);
}

extern "C" const cuk_backend cuk_backend_cublas = {
    "cublas",
    "GPU: cuBLAS SGEMM in true FP32 (no TF32), the reference; reductions use tiled's tree",
    1,
    cublas_available,
    cublas_matmul,
    cublas_transpose,
    gpu_ewise,
    gpu_unary,
    cublas_reduce,
    cublas_dot,
    gpu_fill,
    gpu_eye,
    gpu_random,
    gpu_copy2d,
};
