/* fast_mem.c - gpu_test's cases of mode fast's memory-bound kernels,
 * called directly at unaligned offsets and ragged lengths.
 * Part of gpu_test: tests/gpu/gpu_test.c includes it, so that the whole
 * program is one translation unit (tests/check.h and tests/ops_check.h
 * keep the cases' state and the session in statics). */

/* --- mode fast's memory-bound kernels, called directly ------------------------ */

/* The lengths every one-pass kernel must get right: a single element, less
 * than one float4, around a warp, one past a float4 multiple, and one past
 * 2^24 (many grid-stride steps, and a tail); the last one is left out under
 * the sanitizer, which runs kernels a hundred times slower. */
static const size_t fm_lens[] = {1, 2, 31, 33, 4097, ((size_t)1 << 24) + 1};
#define FM_NLENS_SANITIZER 5
static int fm_nlens = (int)(sizeof fm_lens / sizeof fm_lens[0]);

/* A device copy of host[0..n) starting `off` floats past a 16-byte
 * boundary (the buffer itself is in *base, for gpu_raw_free). */
static float *fm_upload(const float *host, size_t n, size_t off, float **base)
{
    if (gpu_raw_alloc((void **)base, (n + off) * sizeof(float)) != 0) { /* no slack: memcheck sees overreads */
        CHECKF(0, "no device memory for %zu floats", n);
        return NULL;
    }
    if (gpu_h2d(*base + off, host, n * sizeof(float)) != 0) {
        CHECKF(0, "upload: %s", cuk_err_get()->msg);
        return NULL;
    }
    return *base + off;
}

/* Poison n floats of dev with NaN (all bits set), so that an element the
 * kernel never writes shows. */
static void fm_poison(float *dev, size_t n)
{
    CHECKF(gpu_memset(dev, 0xff, n * sizeof(float)) == 0, "memset: %s", cuk_err_get()->msg);
}

/* Read n floats back; 0 if the op and the copy went through. */
static int fm_read(int status, const char *what, float *host, const float *dev, size_t n)
{
    CHECKF(status == 0, "%s: %s", what, cuk_err_get()->msg);
    if (status != 0)
        return -1;
    int ok = gpu_d2h(host, dev, n * sizeof(float));
    CHECKF(ok == 0, "%s: read back: %s", what, cuk_err_get()->msg);
    return ok;
}

static const char *fm_red_name[] = {"sum", "mean", "norm", "min", "max"};

/* Every reduction of a (n floats at device address x) against float64.
 * A sum's error is measured against the sum of |a[i]| (a float sum's
 * rounding is bounded by a multiple of it): random terms can cancel to
 * near 0 and make the plain relative error large by chance. */
static void fm_reduce_all(const float *a, const float *x, size_t n, size_t off, float *out)
{
    const cuk_ops *fast = &mode_find("fast")->ops;
    double sum = 0, sumabs = 0, sq = 0, lo = a[0], hi = a[0];
    for (size_t i = 0; i < n; i++) {
        sum += a[i];
        sumabs += fabs(a[i]);
        sq += (double)a[i] * a[i];
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    const double want[] = {sum, sum / (double)n, sqrt(sq), lo, hi};
    const double scale[] = {sumabs, sumabs / (double)n, sqrt(sq), 0, 0};
    for (int op = 0; op < CUK_RED_COUNT; op++) {
        char what[64];
        float got;
        snprintf(what, sizeof what, "%s of %zu from +%zu", fm_red_name[op], n, off);
        fm_poison(out, 1);
        if (fm_read(fast->reduce[op](out, x, n), what, &got, out, 1) != 0)
            continue;
        CHECKF(op >= CUK_RED_MIN ? got == want[op] : fabs(got - want[op]) < OC_TOL * scale[op],
               "%s: %.9g, want %.9g", what, got, want[op]);
    }
}

/* dot(x, y) with y starting `yoff` floats past its boundary: equal to
 * off takes the float4 kernel, different the float one. */
static void fm_dot(const float *a, const float *b, const float *x, size_t n, size_t off, size_t yoff, float *out)
{
    float *ybase, got;
    const float *y = fm_upload(b, n, yoff, &ybase);
    double want = 0, scale = 0;
    char what[64];
    for (size_t i = 0; i < n; i++) {
        want += (double)a[i] * b[i];
        scale += fabs((double)a[i] * b[i]);
    }
    snprintf(what, sizeof what, "dot of %zu from +%zu, +%zu", n, off, yoff);
    fm_poison(out, 1);
    if (y && fm_read(mode_find("fast")->ops.dot(out, x, y, n), what, &got, out, 1) == 0)
        CHECKF(fabs(got - want) < OC_TOL * scale, "%s: %.9g, want %.9g", what, got, want);
    gpu_raw_free(ybase);
}

static void fast_reductions(void)
{
    float *out, *base;
    if (gpu_raw_alloc((void **)&out, sizeof(float)) != 0)
        return;
    mode_enter(mode_find("fast"));
    for (int l = 0; l < fm_nlens; l++)
        for (size_t off = 0; off < 2; off++) {
            size_t n = fm_lens[l];
            /* fm_upload's buffers start on 256 bytes: +1 makes a head of 31 */
            float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
            check_fill(a, n);
            check_fill(b, n);
            const float *x = fm_upload(a, n, off, &base);
            if (x) {
                fm_reduce_all(a, x, n, off, out);
                fm_dot(a, b, x, n, off, off, out);
                fm_dot(a, b, x, n, off, off + 2, out);
            }
            gpu_raw_free(base);
            free(a);
            free(b);
        }
    gpu_raw_free(out);
}

/* A NaN anywhere makes sum, norm, min and max NaN, as in tiled (min and
 * max must not drop it, as fminf and fmaxf would). */
static void fast_reductions_nan(void)
{
    static const size_t lens[] = {1, 33, 4097};
    float *out, *base;
    if (gpu_raw_alloc((void **)&out, sizeof(float)) != 0)
        return;
    mode_enter(mode_find("fast"));
    for (size_t l = 0; l < 3; l++) {
        size_t n = lens[l];
        float *a = malloc(n * sizeof *a), got;
        check_fill(a, n);
        a[(size_t)(check_uniform() * n)] = NAN;
        const float *x = fm_upload(a, n, 1, &base);
        for (int op = 0; x && op < CUK_RED_COUNT; op++) {
            char what[64];
            snprintf(what, sizeof what, "%s of %zu with a NaN", fm_red_name[op], n);
            /* not NaN before: a kernel that wrote nothing must fail */
            if (gpu_memset(out, 0, sizeof(float)) == 0 &&
                fm_read(mode_find("fast")->ops.reduce[op](out, x, n), what, &got, out, 1) == 0)
                CHECKF(isnan(got), "%s: %g", what, got);
        }
        gpu_raw_free(base);
        free(a);
    }
    gpu_raw_free(out);
}

static double fm_ew(cuk_ewop op, double x, double y)
{
    switch (op) {
    case CUK_EW_ADD: return x + y;
    case CUK_EW_SUB: return x - y;
    case CUK_EW_MUL: return x * y;
    case CUK_EW_DIV: return x / y;
    case CUK_EW_MIN: return x < y ? x : y;
    case CUK_EW_MAX: return x > y ? x : y;
    case CUK_EW_POW: return pow(x, y);
    default: return NAN;
    }
}

/* Each elementwise op at n, the operands at offsets (ao, bo) and out at
 * oo: the same offset for all takes the float4 path with its head, a
 * different one the float path; b also broadcast from a host value and
 * from a device 1x1. */
static void fm_ewise_at(size_t n, size_t ao, size_t bo, size_t oo)
{
    const cuk_ops *fast = &mode_find("fast")->ops;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *got = malloc(n * sizeof *got);
    double *ref = malloc(n * sizeof *ref);
    float *abase, *bbase, *obase, *sbase, s = 0.75f;
    check_fill(a, n);
    check_fill(b, n);
    for (size_t i = 0; i < n; i++) /* pow needs a positive base */
        a[i] = a[i] == 0 ? 0.5f : fabsf(a[i]);
    const float *da = fm_upload(a, n, ao, &abase), *db = fm_upload(b, n, bo, &bbase), *ds = fm_upload(&s, 1, 0, &sbase);
    float *dout = fm_upload(a, n, oo, &obase);
    for (int op = 0; da && db && ds && dout && op < CUK_EW_COUNT; op++)
        for (int form = 0; form < 3; form++) {
            cuk_arg x = {da, 0, 0}, y = form == 0 ? (cuk_arg){db, 0, 0} : form == 1 ? (cuk_arg){NULL, s, 1}
                                                                                      : (cuk_arg){ds, 0, 1};
            char what[96];
            snprintf(what, sizeof what, "ewise op %d (%s) at %zu, offsets %zu %zu %zu", op,
                     form == 0 ? "two matrices" : form == 1 ? "host scalar" : "device 1x1", n, ao, bo, oo);
            for (size_t i = 0; i < n; i++)
                ref[i] = fm_ew((cuk_ewop)op, a[i], form ? s : b[i]);
            fm_poison(dout, n);
            if (fm_read(fast->ewise((cuk_ewop)op, dout, x, y, n), what, got, dout, n) == 0)
                CHECKF(check_relerr(got, ref, n) < OC_TOL, "%s: relative error %.3g", what, check_relerr(got, ref, n));
        }
    gpu_raw_free(abase);
    gpu_raw_free(bbase);
    gpu_raw_free(obase);
    gpu_raw_free(sbase);
    free(a);
    free(b);
    free(got);
    free(ref);
}

static void fast_elementwise(void)
{
    mode_enter(mode_find("fast"));
    for (int l = 0; l < fm_nlens; l++) {
        fm_ewise_at(fm_lens[l], 0, 0, 0);
        fm_ewise_at(fm_lens[l], 3, 3, 3);
        fm_ewise_at(fm_lens[l], 1, 0, 1); /* b 3 floats past out's phase */
        fm_ewise_at(fm_lens[l], 3, 2, 1); /* a 2 past, b 1 past */
        fm_ewise_at(fm_lens[l], 2, 2, 1); /* both 1 past: float4 from shifted loads */
        fm_ewise_at(fm_lens[l], 0, 0, 1); /* both 3 past */
    }
}

static double fm_un(cuk_unop op, double x)
{
    switch (op) {
    case CUK_UN_NEG: return -x;
    case CUK_UN_ABS: return fabs(x);
    case CUK_UN_SQRT: return sqrt(x);
    case CUK_UN_EXP: return exp(x);
    case CUK_UN_LOG: return log(x);
    default: return NAN;
    }
}

/* Each unary op at n, in at offset io and out at oo; sqrt and log of |a|. */
static void fm_unary_at(size_t n, size_t io, size_t oo)
{
    float *a = malloc(n * sizeof *a), *got = malloc(n * sizeof *got), *ibase, *obase;
    double *ref = malloc(n * sizeof *ref);
    for (int op = 0; op < CUK_UN_COUNT; op++) {
        char what[64];
        check_fill(a, n);
        if (op == CUK_UN_SQRT || op == CUK_UN_LOG)
            for (size_t i = 0; i < n; i++)
                a[i] = a[i] == 0 ? 0.5f : fabsf(a[i]);
        for (size_t i = 0; i < n; i++)
            ref[i] = fm_un((cuk_unop)op, a[i]);
        const float *in = fm_upload(a, n, io, &ibase);
        float *dout = fm_upload(a, n, oo, &obase);
        snprintf(what, sizeof what, "unary op %d at %zu, offsets %zu %zu", op, n, io, oo);
        fm_poison(dout, n);
        if (in && dout && fm_read(mode_find("fast")->ops.unary((cuk_unop)op, dout, in, n), what, got, dout, n) == 0)
            CHECKF(check_relerr(got, ref, n) < OC_TOL, "%s: relative error %.3g", what, check_relerr(got, ref, n));
        gpu_raw_free(ibase);
        gpu_raw_free(obase);
    }
    free(a);
    free(got);
    free(ref);
}

static void fast_unary(void)
{
    mode_enter(mode_find("fast"));
    for (int l = 0; l < fm_nlens; l++) {
        fm_unary_at(fm_lens[l], 0, 0);
        fm_unary_at(fm_lens[l], 2, 2);
        fm_unary_at(fm_lens[l], 0, 1); /* in 3 floats past out's phase */
        fm_unary_at(fm_lens[l], 2, 1); /* 1 past */
        fm_unary_at(fm_lens[l], 3, 1); /* 2 past */
    }
}

/* Transposes, exact: shapes with both sides multiples of 4 take the
 * float4 kernel, the others the general one; both are checked to have run. */
static void fast_transposes(void)
{
    static const int tshapes[][2] = {{1, 1},   {1, 37},   {37, 1},     {17, 33},   {4, 8},    {64, 64},
                                    {68, 132}, {65, 63}, {1037, 1055}, {1036, 1056}, {128, 4100}, {3, 70001}};
    int vec0 = launches("fast", "transpose_fast"), any0 = launches("fast", "transpose_fast_any"), nvec = 0;
    mode_enter(mode_find("fast"));
    for (size_t s = 0; s < sizeof tshapes / sizeof tshapes[0]; s++) {
        int rows = tshapes[s][0], cols = tshapes[s][1];
        size_t n = (size_t)rows * cols;
        float *a = malloc(n * sizeof *a), *got = malloc(n * sizeof *got), *ibase, *obase;
        double *ref = malloc(n * sizeof *ref);
        char what[64];
        check_fill(a, n);
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                ref[(size_t)j * rows + i] = a[(size_t)i * cols + j];
        const float *in = fm_upload(a, n, 0, &ibase);
        float *dout = fm_upload(a, n, 0, &obase);
        snprintf(what, sizeof what, "transpose %dx%d", rows, cols);
        nvec += rows % 4 == 0 && cols % 4 == 0;
        fm_poison(dout, n);
        if (in && dout && fm_read(mode_find("fast")->ops.transpose(dout, in, rows, cols), what, got, dout, n) == 0)
            for (size_t i = 0; i < n; i++)
                if (got[i] != ref[i]) {
                    CHECKF(0, "%s: element %zu is %g, want %g", what, i, got[i], ref[i]);
                    break;
                }
        gpu_raw_free(ibase);
        gpu_raw_free(obase);
        free(a);
        free(got);
        free(ref);
    }
    int vec = launches("fast", "transpose_fast") - vec0, any = launches("fast", "transpose_fast_any") - any0;
    CHECKF(vec == nvec && any == (int)(sizeof tshapes / sizeof tshapes[0]) - nvec,
           "float4 kernel ran %d times for %d shapes, the general one %d", vec, nvec, any);
}

/* The float path of dot ran when the operands were out of phase, and the
 * elementwise kernels' shifted loads when they were out of out's. */
static void fast_kernels_ran(void)
{
    CHECKF(launches("fast", "dot_fast") > 0 && launches("fast", "dot_fast_unaligned") > 0 &&
               launches("fast", "reduce_fast_sum") > 0 && launches("fast", "ewise_fast") > 0 &&
               launches("fast", "unary_fast") > 0 && launches("fast", "ewise_fast_shifted") > 0 &&
               launches("fast", "unary_fast_shifted") > 0,
           "a kernel of mode fast was never launched");
}

static void fast_mem_cases(void)
{
    check_run("gpu_fast_reductions", fast_reductions);
    check_run("gpu_fast_reductions_nan", fast_reductions_nan);
    check_run("gpu_fast_elementwise", fast_elementwise);
    check_run("gpu_fast_unary", fast_unary);
    check_run("gpu_fast_transposes", fast_transposes);
    check_run("gpu_fast_kernels_ran", fast_kernels_ran);
}
