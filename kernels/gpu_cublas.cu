/* gpu_cublas.cu - the `cublas` mode: NVIDIA's library as the reference, in
 * true FP32 (no TF32 tensor cores): the product (through cublasLt, the
 * engine under cublasSgemm), Sgeam (transpose) and Sdot. Also the `tf32`
 * mode's product: the same cublasLt call on the TF32 tensor cores.
 * cuBLAS has no plain sum, min or max (Sasum sums |x|, Isamax finds the
 * largest |x|), and Snrm2 returns inf rather than NaN for a vector holding a
 * NaN, so the reductions come from the tiled mode through the table.
 *
 * cuk does not link cuBLAS: loading its 600 MB of libraries took 110-450 ms
 * and 220 MB at every start, GPU or not, and a machine without the toolkit
 * could not start cuk at all. It is opened with dlopen when the mode is
 * first wanted (cublas_load, through the mode's row in modes.c), and every
 * function this file calls is a pointer in one table, `api`. */
#include "kernels/gpu_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cublasLt.h>
#include <cublasXt.h>

#include "base/error.h"

/* The entry points of mode cublas (modes.c), and its library loader. */
extern "C" cuk_matmul_fn cublas_matmul;
extern "C" cuk_matmul_fn tf32_matmul;
extern "C" cuk_transpose_fn cublas_transpose;
extern "C" cuk_dot_fn cublas_dot;
extern "C" int cublas_load(const char **why);

/* --- the library, loaded on first use ------------------------------------- */

/* Every cuBLAS and cuBLASLt function this file calls, by its name in the
 * headers: a name the headers #define to a versioned symbol (cublasCreate
 * is cublasCreate_v2) is that symbol, in the table and in dlsym alike. */
#define CUBLAS_FUNCTIONS(X)                                                                                     \
    X(cublasCreate) X(cublasDestroy) X(cublasSetStream) X(cublasSetMathMode) X(cublasSetPointerMode)            \
    X(cublasSgeam) X(cublasSdot_64) X(cublasGetStatusName) X(cublasGetStatusString) X(cublasGetProperty)         \
    X(cublasSgemm) X(cublasXtCreate) X(cublasXtDestroy) X(cublasXtDeviceSelect) X(cublasXtSetBlockDim)          \
    X(cublasXtSgemm)
#define CUBLASLT_FUNCTIONS(X)                                                                                   \
    X(cublasLtCreate) X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) X(cublasLtMatrixLayoutCreate)    \
    X(cublasLtMatrixLayoutDestroy) X(cublasLtMatmulPreferenceCreate) X(cublasLtMatmulPreferenceDestroy)         \
    X(cublasLtMatmulPreferenceSetAttribute) X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmul)

/* A pointer of each function's own type, named as the function:
 * api.cublasSgeam(...) is checked by the compiler like cublasSgeam(...). */
static struct {
#define API_POINTER(f) decltype(&::f) f;
    CUBLAS_FUNCTIONS(API_POINTER) CUBLASLT_FUNCTIONS(API_POINTER)
#undef API_POINTER
    /* C++ sees two cublasGemmEx, the library's and an inline one of the
     * header's that takes the compute type as a cudaDataType: the
     * library's, by its type. */
    cublasStatus_t (*cublasGemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                                   const void *, cudaDataType, int, const void *, cudaDataType, int, const void *,
                                   void *, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
} api;

#define TEXT(x) TEXT_(x) /* the name after macro expansion, as a string */
#define TEXT_(x) #x
#define CUBLAS_FILE "libcublas.so." TEXT(CUBLAS_VER_MAJOR)
#define CUBLASLT_FILE "libcublasLt.so." TEXT(CUBLAS_VER_MAJOR)

static struct {
    int state;      /* 0 not tried, 1 loaded, -1 failed (why says why) */
    char why[400];
} loader;

/* dlopen by file name (gpu_dlopen); NULL with loader.why set. */
static void *open_library(const char *file) { return gpu_dlopen(file, loader.why, sizeof loader.why); }

/* Symbol name of library h into *slot; -1 with loader.why set if missing. */
static int find_symbol(void *h, const char *file, const char *name, void **slot)
{
    *slot = dlsym(h, name);
    if (*slot)
        return 0;
    snprintf(loader.why, sizeof loader.why, "cannot load %s: it has no %s (cuk was built against cuBLAS %d.%d)",
             file, name, CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR);
    return -1;
}

/* cuBLASLt first: libcublas needs it and finds it only beside itself. */
static int load_all(void)
{
    void *lt = open_library(CUBLASLT_FILE), *blas = lt ? open_library(CUBLAS_FILE) : NULL;
    if (!blas)
        return -1;
#define API_FIND(h, file, f)                                          \
    if (find_symbol(h, file, TEXT(f), (void **)&api.f) != 0)          \
        return -1;
#define API_FIND_BLAS(f) API_FIND(blas, CUBLAS_FILE, f)
#define API_FIND_LT(f) API_FIND(lt, CUBLASLT_FILE, f)
    CUBLAS_FUNCTIONS(API_FIND_BLAS)
    CUBLASLT_FUNCTIONS(API_FIND_LT)
    API_FIND_BLAS(cublasGemmEx)
#undef API_FIND_LT
#undef API_FIND_BLAS
#undef API_FIND
    return 0;
}

/* 1 once cuBLAS is loaded (loading it now if never tried), else 0 and
 * *why: the mode's row asks this, so `mode cublas` and `modes` say why. */
extern "C" int cublas_load(const char **why)
{
    if (loader.state == 0) {
        loader.state = load_all() == 0 ? 1 : -1;
        if (loader.state < 0)
            memset(&api, 0, sizeof api);
    }
    if (loader.state < 0 && why)
        *why = loader.why;
    return loader.state > 0;
}

/* 0 if cuBLAS is loaded; -1 with the engine error set if it cannot be. */
static int need_library(void)
{
    const char *why;
    return cublas_load(&why) ? 0 : cuk_err("%s", why);
}

/* The status's name and text for gpu_cublas_fail (gpu_runtime.cu); a
 * status can only come from a loaded library, but say something if not. */
extern "C" void gpu_cublas_status(cublasStatus_t st, const char **name, const char **text)
{
    static char number[32];
    if (loader.state > 0) {
        *name = api.cublasGetStatusName(st);
        *text = api.cublasGetStatusString(st);
        return;
    }
    snprintf(number, sizeof number, "status %d", (int)st);
    *name = number;
    *text = "cuBLAS is not loaded";
}

/* --- the mode's operations ------------------------------------------------ */

/* The product goes through cublasLt with a plan per shape, made once: the
 * descriptors and the algorithm cuBLAS's heuristic picks. A command then
 * only launches, which keeps the host's share of a small product low. The
 * engine makes the plan outside every timed region: the first product of a
 * shape runs once, untimed, before the start mark is recorded (warm.h),
 * and the handles are made when the mode is first used (warm_mode). Compute
 * type 32F_PEDANTIC for cublas: FP32 arithmetic exactly, never TF32;
 * 32F_FAST_TF32 for tf32: each operand rounded to TF32 (10-bit mantissa)
 * on its way into the tensor cores, the sums kept in FP32. */
typedef struct {
    int m, n, k;
    cublasComputeType_t compute;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
} lt_plan;

/* More than the shapes engine/values/warm.c remembers per mode (32): a shape it
 * has run once, untimed, still has its plan when it is timed. */
#define LT_PLANS 64
#define LT_WORKSPACE (32u << 20) /* what cuBLAS suggests for Hopper */

/* The library's state, made on first use and kept for the process. */
static struct {
    cublasHandle_t handle;   /* for geam and dot */
    cublasHandle_t int8;     /* mode ozaki's INT8 products, in the default math mode */
    int int8_default;
    cublasHandle_t on[GPU_MAX_DEVICES]; /* mode multi's products, one per GPU */
    cublasXtHandle_t xt;     /* out-of-core products over xt_gpus GPUs */
    int xt_gpus;
    cublasLtHandle_t lt;     /* for the product */
    lt_plan plans[LT_PLANS]; /* a ring of the shapes seen */
    int nplans, next_plan;
    void *lt_workspace;
} lib;

/* Bind a new handle to the engine's stream. Pedantic math: FP32 arithmetic
 * exactly as specified, never TF32. */
static int configure(cublasHandle_t h)
{
    CUBLAS_CHECK(api.cublasSetStream(h, gpu_stream_handle()));
    CUBLAS_CHECK(api.cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
    return 0;
}

/* A handle in *slot on the current device, created on first use; a
 * half-configured one is never kept. NULL with the error set if cuBLAS
 * cannot be loaded or cannot start. */
static cublasHandle_t handle_in(cublasHandle_t *slot)
{
    if (!*slot) {
        cublasHandle_t fresh;
        if (need_library() != 0)
            return NULL;
        cublasStatus_t st = api.cublasCreate(&fresh);
        if (st != CUBLAS_STATUS_SUCCESS) {
            gpu_cublas_fail(st, "cublasCreate(&fresh)", __FILE__, __LINE__);
            return NULL;
        }
        if (configure(fresh) != 0) {
            api.cublasDestroy(fresh);
            return NULL;
        }
        *slot = fresh;
    }
    return *slot;
}

static cublasHandle_t get_handle(void) { return handle_in(&lib.handle); }

static void plan_release(lt_plan *p)
{
    api.cublasLtMatrixLayoutDestroy(p->la);
    api.cublasLtMatrixLayoutDestroy(p->lb);
    api.cublasLtMatrixLayoutDestroy(p->lc);
    api.cublasLtMatmulDescDestroy(p->op);
    memset(p, 0, sizeof *p);
}

/* Row-major c = a @ b is column-major c^T = b^T a^T: cuBLAS's A is our b
 * (n x k, leading dimension n), its B our a (k x m, leading dimension k). */
static int plan_make(lt_plan *p, int m, int n, int k, cublasComputeType_t compute)
{
    const size_t ws = LT_WORKSPACE;
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulHeuristicResult_t best;
    int found = 0;
    p->m = m, p->n = n, p->k = k, p->compute = compute;
    CUBLAS_CHECK(api.cublasLtMatmulDescCreate(&p->op, compute, CUDA_R_32F));
    CUBLAS_CHECK(api.cublasLtMatrixLayoutCreate(&p->la, CUDA_R_32F, n, k, n));
    CUBLAS_CHECK(api.cublasLtMatrixLayoutCreate(&p->lb, CUDA_R_32F, k, m, k));
    CUBLAS_CHECK(api.cublasLtMatrixLayoutCreate(&p->lc, CUDA_R_32F, n, m, n));
    CUBLAS_CHECK(api.cublasLtMatmulPreferenceCreate(&pref));
    cublasStatus_t st =
        api.cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = api.cublasLtMatmulAlgoGetHeuristic(lib.lt, p->op, p->la, p->lb, p->lc, p->lc, pref, 1, &best, &found);
    api.cublasLtMatmulPreferenceDestroy(pref);
    CUBLAS_CHECK(st);
    if (found == 0)
        CUBLAS_CHECK(CUBLAS_STATUS_NOT_SUPPORTED);
    p->algo = best.algo;
    return 0;
}

/* The plan for m x k x n in this compute type: cached, or made in the
 * oldest slot. */
static lt_plan *plan_for(int m, int n, int k, cublasComputeType_t compute)
{
    for (int i = 0; i < lib.nplans; i++)
        if (lib.plans[i].m == m && lib.plans[i].n == n && lib.plans[i].k == k && lib.plans[i].compute == compute)
            return &lib.plans[i];
    if (!lib.lt) {
        if (need_library() != 0)
            return NULL;
        cublasStatus_t st = api.cublasLtCreate(&lib.lt);
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
    if (plan_make(p, m, n, k, compute) != 0) {
        plan_release(p);
        return NULL;
    }
    return p;
}

/* c = a @ b through the cached plan of this shape and compute type. */
static int lt_matmul(float *c, const float *a, const float *b, int m, int n, int k, cublasComputeType_t compute,
                     const char *counted)
{
    const float one = 1.0f, zero = 0.0f;
    lt_plan *p = plan_for(m, n, k, compute);
    if (!p)
        return -1;
    CUBLAS_CHECK(api.cublasLtMatmul(lib.lt, p->op, &one, b, p->la, a, p->lb, &zero, c, p->lc, c, p->lc, &p->algo,
                                lib.lt_workspace, LT_WORKSPACE, gpu_stream_handle()));
    gpu_count_call(counted);
    return 0;
}

extern "C" int cublas_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    return lt_matmul(c, a, b, m, n, k, CUBLAS_COMPUTE_32F_PEDANTIC, "cublasLtMatmul (library kernels)");
}

extern "C" int tf32_matmul(float *c, const float *a, const float *b, int m, int n, int k)
{
    return lt_matmul(c, a, b, m, n, k, CUBLAS_COMPUTE_32F_FAST_TF32, "cublasLtMatmul TF32 (library kernels)");
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
    CUBLAS_CHECK(api.cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    CUBLAS_CHECK(api.cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in, cols, &zero, out, rows,
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
    CUBLAS_CHECK(api.cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CUBLAS_CHECK(api.cublasSdot_64(h, (int64_t)n, x, 1, y, 1, out));
    gpu_count_call("cublasSdot (library kernels)");
    return 0;
}

/* --- mode ozaki's products (gpu_ozaki.cu) ------------------------------------- */

/* Column-major c (m x n, INT32, leading dimension ldc) = a^T b, a (k x m)
 * and b (k x n) INT8 with leading dimensions lda and ldb: the layout
 * (TN) the INT8 tensor cores take, exact in INT32. A handle of its own,
 * in the default math mode: pedantic math is for floating point. */
extern "C" int cublas_gemm_s8(int m, int n, int k, const int8_t *a, int lda, const int8_t *b, int ldb, int32_t *c,
                              int ldc)
{
    const int32_t one = 1, zero = 0;
    cublasHandle_t h = handle_in(&lib.int8);
    if (!h)
        return -1;
    if (!lib.int8_default) {
        CUBLAS_CHECK(api.cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
        lib.int8_default = 1;
    }
    CUBLAS_CHECK(api.cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    CUBLAS_CHECK(api.cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, a, CUDA_R_8I, lda, b, CUDA_R_8I, ldb,
                                  &zero, c, CUDA_R_32I, ldc, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
    gpu_count_call("cublasGemmEx INT8 (library kernels)");
    return 0;
}

/* --- mode multi's products (gpu_multi.cu) ------------------------------------ */

/* c (m x n, leading dimension ldc) = a (m x k, lda) @ b (k x n, ldb) +
 * beta c on the selected GPU and its stream, in FP32 exactly: one GPU's
 * share of a spread product. Row-major, so cuBLAS computes c^T = b^T a^T. */
extern "C" int cublas_gemm_ld(float *c, size_t ldc, const float *a, size_t lda, const float *b, size_t ldb, int m,
                              int n, int k, float beta)
{
    const float one = 1.0f;
    cublasHandle_t h = handle_in(&lib.on[gpu_selected()]);
    if (!h)
        return -1;
    CUBLAS_CHECK(api.cublasSetStream(h, gpu_stream_handle()));
    CUBLAS_CHECK(api.cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    CUBLAS_CHECK(api.cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, (int)ldb, a, (int)lda, &beta, c,
                                 (int)ldc));
    gpu_count_call("cublasSgemm per GPU (library kernels)");
    return 0;
}

/* c = a @ b by cuBLASXt over GPUs 0 .. gpus - 1 in tiles of block x block
 * (0: the library's own choice): operands and result anywhere, host memory
 * included, which is what mode multi's out-of-core product needs. The call
 * returns when the product is done. */
extern "C" int cublas_xt_matmul(float *c, const float *a, const float *b, int m, int n, int k, int gpus, int block)
{
    const float one = 1.0f, zero = 0.0f;
    int ids[GPU_MAX_DEVICES];
    if (need_library() != 0)
        return -1;
    if (lib.xt && lib.xt_gpus != gpus) {
        api.cublasXtDestroy(lib.xt);
        lib.xt = NULL;
    }
    if (!lib.xt) {
        for (int g = 0; g < gpus; g++)
            ids[g] = g;
        CUBLAS_CHECK(api.cublasXtCreate(&lib.xt));
        lib.xt_gpus = gpus;
        CUBLAS_CHECK(api.cublasXtDeviceSelect(lib.xt, gpus, ids));
    }
    if (block > 0)
        CUBLAS_CHECK(api.cublasXtSetBlockDim(lib.xt, block));
    /* Work queued before on the engine's stream must be done: cuBLASXt
     * runs on streams of its own. */
    if (gpu_sync() != 0)
        return -1;
    /* Its kernels are launched by threads of its own, on streams cuk does
     * not know: `count` leaves them, and the call, uncounted. */
    gpu_counters_hold();
    cublasStatus_t st = api.cublasXtSgemm(lib.xt, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n);
    if (st == CUBLAS_STATUS_SUCCESS)
        gpu_count_call("cublasXtSgemm (library, every GPU)");
    gpu_counters_resume();
    CUBLAS_CHECK(st);
    return 0;
}

/* The version of the cuBLAS loaded (loading it if need be); 0 if none. */
extern "C" int gpu_cublas_version(void)
{
    int major = 0, minor = 0, patch = 0;
    const char *why;
    if (!cublas_load(&why) || api.cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
        api.cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
        api.cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
        return 0;
    return major * 10000 + minor * 100 + patch;
}
