/* gpu_fast.cu - the `fast` mode: a register-blocked, vectorised FP32 matrix
 * product, not written yet. Until it is, the mode says so and stays
 * unavailable; its table borrows the tiled kernels so that no entry is NULL. */
#include "kernels/gpu_internal.h"

static int fast_available(const char **why)
{
    if (!gpu_usable(why))
        return 0;
    if (why)
        *why = "the fast kernel is not written yet (use tiled or cublas)";
    return 0;
}

static int fast_reduce(cuk_redop op, float *out, const float *in, size_t n)
{
    return gpu_tree_reduce("fast", op, out, in, n);
}

static int fast_dot(float *out, const float *x, const float *y, size_t n)
{
    return gpu_tree_dot("fast", out, x, y, n);
}

extern "C" const cuk_backend cuk_backend_fast = {
    "fast",
    "GPU: register-blocked, vectorised FP32 SGEMM (not written yet)",
    1,
    fast_available,
    gpu_tiled_matmul,
    gpu_tiled_transpose,
    gpu_ewise,
    gpu_unary,
    fast_reduce,
    fast_dot,
    gpu_fill,
    gpu_eye,
    gpu_random,
    gpu_copy2d,
};
