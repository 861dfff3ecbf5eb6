/* gpu_cublas.cu - the `cublas` mode: NVIDIA's library as the reference, in
 * true FP32 (no TF32 tensor cores): the product (through cublasLt, the
 * engine under cublasSgemm), Sgeam (transpose) and Sdot.
 * cuBLAS has no plain sum, min or max (Sasum sums |x|, Isamax finds the
 * largest |x|), and Snrm2 returns inf rather than NaN for a vector holding a
 * NaN, so the reductions come from the tiled mode through the table. */
#include "kernels/gpu_internal.h"

#include <string.h>

#include <cublasLt.h>

/* The entry points of mode cublas (modes.c). */
extern "C" cuk_matmul_fn cublas_matmul;
extern "C" cuk_transpose_fn cublas_transpose;
extern "C" cuk_dot_fn cublas_dot;

/* The product goes through cublasLt with a plan per shape, made once: the
 * descriptors and the algorithm cuBLAS's heuristic picks. A command then
 * only launches, which keeps the host's share of a small product low. The
 * engine makes the plan outside every timed region: the first product of a
 * shape runs once, untimed, before the start mark is recorded (warm.h),
 * and the handles are made when the mode is first used (warm_mode). Compute
 * type 32F_PEDANTIC: FP32 arithmetic exactly, never TF32. */
typedef struct {
    int m, n, k;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
} lt_plan;

/* More than the shapes engine/warm.c remembers per mode (32): a shape it
 * has run once, untimed, still has its plan when it is timed. */
#define LT_PLANS 64
#define LT_WORKSPACE (32u << 20) /* what cuBLAS suggests for Hopper */

/* The library's state, made on first use and kept for the process. */
static struct {
    cublasHandle_t handle;   /* for geam and dot */
    cublasLtHandle_t lt;     /* for the product */
    lt_plan plans[LT_PLANS]; /* a ring of the shapes seen */
    int nplans, next_plan;
    void *lt_workspace;
} lib;

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
    if (!lib.handle) {
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
        lib.handle = fresh;
    }
    return lib.handle;
}



static void plan_release(lt_plan *p)
{
    cublasLtMatrixLayoutDestroy(p->la);
    cublasLtMatrixLayoutDestroy(p->lb);
    cublasLtMatrixLayoutDestroy(p->lc);
    cublasLtMatmulDescDestroy(p->op);
    memset(p, 0, sizeof *p);
}

/* Row-major c = a @ b is column-major c^T = b^T a^T: cuBLAS's A is our b
 * (n x k, leading dimension n), its B our a (k x m, leading dimension k). */
static int plan_make(lt_plan *p, int m, int n, int k)
{
    const size_t ws = LT_WORKSPACE;
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulHeuristicResult_t best;
    int found = 0;
    p->m = m, p->n = n, p->k = k;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F_PEDANTIC, CUDA_R_32F));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->la, CUDA_R_32F, n, k, n));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->lb, CUDA_R_32F, k, m, k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->lc, CUDA_R_32F, n, m, n));
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                             sizeof ws);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(lib.lt, p->op, p->la, p->lb, p->lc, p->lc, pref, 1, &best, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    CUBLAS_CHECK(st);
    if (found == 0)
        CUBLAS_CHECK(CUBLAS_STATUS_NOT_SUPPORTED);
    p->algo = best.algo;
    return 0;
}

/* The plan for m x k x n: cached, or made in the oldest slot. */
static lt_plan *plan_for(int m, int n, int k)
{
    for (int i = 0; i < lib.nplans; i++)
        if (lib.plans[i].m == m && lib.plans[i].n == n && lib.plans[i].k == k)
            return &lib.plans[i];
    if (!lib.lt) {
        cublasStatus_t st = cublasLtCreate(&lib.lt);
        if (st != CUBLAS_STATUS_SUCCESS) {
            gpu_cublas_fail(st, "cublasLtCreate(&lib.lt)", __FILE__, __LINE__);
            return NULL;
        }
    }
    if (!lib.lt_workspace) {
        cudaError_t err = cudaMalloc(&lib.lt_workspace, LT_WORKSPACE);
        if (err != cudaSuccess) {
            gpu_fail(err, "cudaMalloc(&lib.lt_workspace, LT_WORKSPACE)", __FILE__, __LINE__);
            lib.lt_workspace = NULL;
            return NULL;
        }
    }
    lt_plan *p = &lib.plans[lib.nplans < LT_PLANS ? lib.nplans++ : lib.next_plan++ % LT_PLANS];
    if (p->op)
        plan_release(p);
    if (plan_make(p, m, n, k) != 0) {
        plan_release(p);
        return NULL;
    }
    return p;
}

extern "C" int cublas_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    const float one = 1.0f, zero = 0.0f;
    lt_plan *p = plan_for(m, n, k);
    if (!p)
        return -1;
    CUBLAS_CHECK(cublasLtMatmul(lib.lt, p->op, &one, b, p->la, a, p->lb, &zero, c, p->lc, c, p->lc, &p->algo,
                                lib.lt_workspace, LT_WORKSPACE, gpu_stream_handle()));
    gpu_count_call("cublasLtMatmul (library kernels)");
    return 0;
}

/* Row-major in (rows x cols) is column-major (cols x rows), leading dimension
 * cols; out (cols x rows row-major) is column-major (rows x cols), leading
 * dimension rows. geam computes out = 1 * in^T + 0 * out. */
extern "C" int cublas_transpose(float *out, const float *in, int rows, int cols)
{
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t h = get_handle();
    if (!h)
        return -1;
    CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    CUBLAS_CHECK(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in, cols, &zero, out, rows,
                             out, rows));
    gpu_count_call("cublasSgeam (library kernels)");
    return 0;
}

/* Device pointer mode: the result is written to out on the device and the
 * host does not wait for it. The _64 forms take n past 2^31. */
extern "C" int cublas_dot(float *out, const float *x, const float *y, size_t n)
{
    if (n == 0)
        return 0;
    cublasHandle_t h = get_handle();
    if (!h)
        return -1;
    CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CUBLAS_CHECK(cublasSdot_64(h, (int64_t)n, x, 1, y, 1, out));
    gpu_count_call("cublasSdot (library kernels)");
    return 0;
}

extern "C" int gpu_cublas_version(void)
{
    int major = 0, minor = 0, patch = 0;
    if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
        return 0;
    return major * 10000 + minor * 100 + patch;
}
