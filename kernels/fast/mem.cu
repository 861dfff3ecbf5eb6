/* mem.cu - the memory-bound operations of mode `fast`: the
 * reductions (sum mean norm min max) and dot in one launch each, transpose,
 * and the elementwise and unary ops. Each moves every byte once, 16 bytes
 * per access where the pointers allow, with several loads in flight per
 * thread and a grid sized to what the device holds at once: these kernels
 * are measured against the device-to-device copy and cublasSdot
 * (bench/perf_mem.c, kernels/PERF.md).
 *
 * Alignment is checked at run time: a buffer whose start is not on 512
 * bytes gets its first elements up to there (the head) and its last 0-3
 * (the tail) one at a time and the rest as float4. An elementwise op's
 * operands that start the same distance past out's 16 bytes are read as
 * float4 from shifted loads (shifted4); a dot's whose starts differ
 * modulo 16 bytes, or an elementwise op's that differ from each other,
 * take a plain float path, slower but right. The engine's own buffers
 * start where cudaMalloc puts them (on 256 bytes); the rest is for callers
 * with offsets, and the tests. */
#include "kernels/gpu_internal.h"

#include <math.h>
#include <stdint.h>

#include "base/error.h"
#include "kernels/elementwise.h"
#include "kernels/gpu_fold.h"

/* The entry points of mode fast (modes.c). */
extern "C" cuk_reduce_fn fast_reduce_sum;
extern "C" cuk_reduce_fn fast_reduce_mean;
extern "C" cuk_reduce_fn fast_reduce_norm;
extern "C" cuk_reduce_fn fast_reduce_min;
extern "C" cuk_reduce_fn fast_reduce_max;
extern "C" cuk_dot_fn fast_dot;
extern "C" cuk_transpose_fn fast_transpose;
extern "C" cuk_ewise_fn fast_ewise;
extern "C" cuk_unary_fn fast_unary;

#define VEC 4 /* floats in one 16-byte access */

/* --- where the float4 part of a buffer starts ------------------------------------ */

/* Elements before p reaches a 512-byte boundary (0..127), at most n. From
 * there a warp's 32 float4 are one whole 512-byte block. With a 16-byte
 * head each warp's access straddled five 128-byte lines, with a 128-byte
 * head two 512-byte blocks, and both ran slower from x + 1 than from x
 * itself; from a 512-byte head they run alike (PERF.md, ## fast:
 * memory-bound). */
#define FAST_HEAD_BYTES 512
static size_t head_of(const float *p, size_t n)
{
    size_t h = ((FAST_HEAD_BYTES - ((uintptr_t)p & (FAST_HEAD_BYTES - 1))) & (FAST_HEAD_BYTES - 1)) / sizeof(float);
    return h < n ? h : n;
}

/* 1 if p may be read as float4 from the same element on as q: both starts
 * are the same distance past a 16-byte boundary (floats are 4-byte
 * aligned), so q's head leaves both on 16 bytes. */
static int same_phase(const void *p, const void *q)
{
    return ((uintptr_t)p & 15) == ((uintptr_t)q & 15);
}

/* A buffer split for 16-byte access: head floats, then n4 float4, then the
 * tail (n - head - 4 n4 < 4). The head and the tail go one element a
 * thread (the head is under 128 floats, except on the float path, where it
 * is all n of them). */
typedef struct {
    size_t head, n4, tail;
} vec_split;

static vec_split split_of(const float *p, size_t n)
{
    vec_split s;
    s.head = head_of(p, n);
    s.n4 = (n - s.head) / VEC;
    s.tail = n - s.head - VEC * s.n4;
    return s;
}

/* Blocks for a grid-stride kernel with `items` work items of a thread each:
 * as many as the device holds at once (the occupancy API, asked once per
 * kernel family into *fits), fewer if the work is small; at least one. */
static int device_grid(const void *kernel, int *fits, size_t items, unsigned *grid)
{
    if (*fits == 0) {
        int per_sm = gpu_blocks_per_sm(kernel, GPU_THREADS, 0);
        if (per_sm < 0)
            return -1;
        *fits = per_sm * gpu_sm_count();
    }
    size_t need = (items + GPU_THREADS - 1) / GPU_THREADS;
    *grid = (unsigned)(need < 1 ? 1 : need < (size_t)*fits ? need : (size_t)*fits);
    return 0;
}

/* --- reductions: one pass, the last block folds the partials ------------------- */

/* The rules (K_SUM, K_SUMSQ, K_DOT, K_MIN, K_MAX), identity, combine and
 * block_shfl are tiled's (kernels/gpu_fold.h). What the final value
 * becomes: */
enum { FIN_NONE, FIN_MEAN, FIN_SQRT };

/* The term element i contributes; y is read only by dot. */
template <int K> static __device__ __forceinline__ float term(float x, float y)
{
    return K == K_DOT ? x * y : K == K_SUMSQ ? x * x : x;
}

/* Four elements' terms, paired so that a sum stays a small tree. */
template <int K> static __device__ __forceinline__ float term4(float4 x, float4 y)
{
    return combine<K>(combine<K>(term<K>(x.x, y.x), term<K>(x.y, y.y)),
                      combine<K>(term<K>(x.z, y.z), term<K>(x.w, y.w)));
}

template <int K> static __device__ __forceinline__ float4 load4_if(const float4 *p, size_t i)
{
    return K == K_DOT ? p[i] : make_float4(0, 0, 0, 0);
}

/* This thread's fold of its grid-stride share of the float4 body: four
 * float4 of each operand loaded before any is used (16 floats, 64 bytes a
 * thread in flight: with a full grid that is far more than memory latency
 * times bandwidth needs), the four folded as a tree into the accumulator. */
template <int K>
static __device__ __forceinline__ float fold_body(const float4 *x, const float4 *y, size_t n4, float acc)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a0 = x[i], a1 = x[i + stride], a2 = x[i + 2 * stride], a3 = x[i + 3 * stride];
        float4 b0 = load4_if<K>(y, i), b1 = load4_if<K>(y, i + stride), b2 = load4_if<K>(y, i + 2 * stride),
               b3 = load4_if<K>(y, i + 3 * stride);
        acc = combine<K>(acc, combine<K>(combine<K>(term4<K>(a0, b0), term4<K>(a1, b1)),
                                         combine<K>(term4<K>(a2, b2), term4<K>(a3, b3))));
    }
    for (; i < n4; i += stride)
        acc = combine<K>(acc, term4<K>(x[i], load4_if<K>(y, i)));
    return acc;
}

/* The same over plain floats, for a dot whose operands are out of phase. */
template <int K>
static __device__ __forceinline__ float fold_floats(const float *x, const float *y, size_t n, float acc)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride)
        acc = combine<K>(acc, combine<K>(combine<K>(term<K>(x[i], y[i]), term<K>(x[i + stride], y[i + stride])),
                                         combine<K>(term<K>(x[i + 2 * stride], y[i + 2 * stride]),
                                                    term<K>(x[i + 3 * stride], y[i + 3 * stride]))));
    for (; i < n; i += stride)
        acc = combine<K>(acc, term<K>(x[i], y[i]));
    return acc;
}

/* Blocks of the running reduction that have written their partial. The last
 * block to arrive is the one whose atomicInc finds gridDim.x - 1, and that
 * same atomicInc wraps the count to 0: the next launch finds it at 0
 * without a memset, and no block can leave it elsewhere without the launch
 * failing, which poisons the context anyway. One counter serves every
 * reduction, since they all run in order on the engine's one stream. */
static __device__ unsigned blocks_done;

/* The device-wide finish: each block leaves its value in part[], and the
 * last block to finish folds all of them, in block order (so the result
 * does not depend on which block came last), and writes *out. */
template <int K>
static __device__ __forceinline__ void finish_grid(float v, float *part, float *out, int fin, size_t count)
{
    __shared__ int last;
    v = block_shfl<K>(v);
    if (threadIdx.x == 0) {
        part[blockIdx.x] = v;
        __threadfence(); /* the partial is visible to every block before the count says so */
        last = atomicInc(&blocks_done, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads(); /* also: warp 0 is done with block_shfl's slots */
    if (!last)
        return;
    __threadfence(); /* and read after it: the other blocks' partials, past this SM's L1 */
    float acc = identity<K>();
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        acc = combine<K>(acc, __ldcg(part + b));
    acc = block_shfl<K>(acc); /* a norm's partials are sums too: combine<K_SUMSQ> adds */
    if (threadIdx.x == 0)
        *out = fin == FIN_MEAN ? (float)((double)acc / (double)count) : fin == FIN_SQRT ? sqrtf(acc) : acc;
}

/* *out = the reduction of x (of x*y for dot) over n elements: the head one
 * element a thread, the float4 body, the tail one element a thread; then
 * the finish. sp describes x (and y, which has x's phase). */
template <int K>
static __device__ __forceinline__ void reduce_one_pass(const float *x, const float *y, vec_split sp, float *part,
                                                       float *out, int fin, size_t count)
{
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t body_end = sp.head + VEC * sp.n4;
    float acc = identity<K>();
    if (g < sp.head)
        acc = term<K>(x[g], K == K_DOT ? y[g] : 0.0f);
    if (g < sp.tail)
        acc = combine<K>(acc, term<K>(x[body_end + g], K == K_DOT ? y[body_end + g] : 0.0f));
    acc = fold_body<K>((const float4 *)(x + sp.head), (const float4 *)(y + (K == K_DOT ? sp.head : 0)), sp.n4, acc);
    finish_grid<K>(acc, part, out, fin, count);
}

/* One kernel per rule, each under its own name in `kernels`. */
#define REDUCE_FAST(name, K)                                                                                     \
    static __global__ void __launch_bounds__(GPU_THREADS) name(const float *x, const float *y, vec_split sp,       \
                                                               float *part, float *out, int fin, size_t count)   \
    {                                                                                                            \
        reduce_one_pass<K>(x, y, sp, part, out, fin, count);                                                     \
    }
REDUCE_FAST(reduce_fast_sum, K_SUM)
REDUCE_FAST(reduce_fast_sumsq, K_SUMSQ)
REDUCE_FAST(reduce_fast_min, K_MIN)
REDUCE_FAST(reduce_fast_max, K_MAX)
REDUCE_FAST(dot_fast, K_DOT)

/* dot of operands out of phase: floats only. */
static __global__ void __launch_bounds__(GPU_THREADS)
    dot_fast_unaligned(const float *x, const float *y, size_t n, float *part, float *out)
{
    finish_grid<K_DOT>(fold_floats<K_DOT>(x, y, n, 0.0f), part, out, FIN_NONE, n);
}

/* Blocks the reduction kernels fit on the device at once (0: not asked);
 * they all have the same shape, so one figure serves the family. */
static int reduce_fits;

/* A reduction's launch: its grid and where its blocks leave their partials. */
typedef struct {
    unsigned grid;
    float *part;
} reduce_launch;

/* The launch of a reduction over n elements: a float4 a thread at least,
 * and room for the partials. */
static int reduce_grid(size_t n, reduce_launch *l)
{
    if (device_grid((const void *)dot_fast, &reduce_fits, (n + VEC - 1) / VEC, &l->grid) != 0)
        return -1;
    return gpu_scratch((void **)&l->part, l->grid * sizeof(float));
}

/* A reduction kernel K over x (and y) with split sp, through launch l. */
#define REDUCE_LAUNCH(K, x, y, sp, fin, n) \
    GPU_LAUNCH(K, l.grid, GPU_THREADS, 0, x, y, sp, l.part, out, fin, n)

/* fast's reduction of one kind: one pass of kernel K over in, ending in fin. */
#define FAST_REDUCE(kind, K, fin)                                            \
    extern "C" int fast_reduce_##kind(float *out, const float *in, size_t n) \
    {                                                                        \
        reduce_launch l;                                                     \
        if (n == 0)                                                          \
            return 0;                                                        \
        if (reduce_grid(n, &l) != 0)                                         \
            return -1;                                                       \
        REDUCE_LAUNCH(K, in, in, split_of(in, n), fin, n);                   \
        return 0;                                                            \
    }
FAST_REDUCE(sum, reduce_fast_sum, FIN_NONE)
FAST_REDUCE(mean, reduce_fast_sum, FIN_MEAN)
FAST_REDUCE(norm, reduce_fast_sumsq, FIN_SQRT)
FAST_REDUCE(min, reduce_fast_min, FIN_NONE)
FAST_REDUCE(max, reduce_fast_max, FIN_NONE)

extern "C" int fast_dot(float *out, const float *x, const float *y, size_t n)
{
    reduce_launch l;
    if (n == 0)
        return 0;
    if (reduce_grid(n, &l) != 0)
        return -1;
    if (same_phase(x, y))
        REDUCE_LAUNCH(dot_fast, x, y, split_of(x, n), FIN_NONE, n);
    else
        GPU_LAUNCH(dot_fast_unaligned, l.grid, GPU_THREADS, 0, x, y, n, l.part, out);
    return 0;
}

/* --- elementwise and unary ------------------------------------------------------- */

/* An operand D floats past out's phase (x * 2 from x + 1 into an aligned
 * result: D = 1), read as float4 all the same: float4 i of the body is
 * the last 4 - D floats of the aligned float4 p[i] and the first D of
 * p[i + 1] (p: the aligned float4 at or before the body's first element),
 * two 16-byte loads, the second the next thread's first, mostly from L1.
 * One float a thread ran at about two thirds of the copy's rate, this way
 * near the aligned kernels'; staging the operand through shared memory by
 * cp.async ran slower. The body stops a float4 short of the operand's end
 * (shifted_split), so p[i + 1] holds nothing past it; p[0]
 * starts at most 3 floats before the body's first element, in the same 16
 * bytes of the operand's buffer. */
template <int D> static __device__ __forceinline__ float4 shifted4(const float4 *p, size_t i)
{
    if (D == 0)
        return p[i];
    float4 a = p[i], b = p[i + 1];
    if (D == 1)
        return make_float4(a.y, a.z, a.w, b.x);
    if (D == 2)
        return make_float4(a.z, a.w, b.x, b.y);
    return make_float4(a.w, b.x, b.y, b.z);
}

/* The aligned float4 at or before element `head` of x, D floats before it
 * (shifted4). */
template <int D> static __device__ __forceinline__ const float4 *shifted_base(const float *x, size_t head)
{
    return (const float4 *)(x + head - D);
}

/* One operand of an elementwise op, as a float4 at body index i (p from
 * shifted_base), or its broadcast value s four times. */
template <int D>
static __device__ __forceinline__ float4 operand4(const cuk_arg &a, float s, const float4 *p, size_t i)
{
    return a.bcast ? make_float4(s, s, s, s) : shifted4<D>(p, i);
}

static __device__ __forceinline__ float4 ewise4(cuk_ewop op, float4 x, float4 y)
{
    return make_float4(cuk_ewise_one(op, x.x, y.x), cuk_ewise_one(op, x.y, y.y), cuk_ewise_one(op, x.z, y.z),
                       cuk_ewise_one(op, x.w, y.w));
}

static __device__ __forceinline__ float4 unary4(cuk_unop op, float4 x)
{
    return make_float4(cuk_unary_one(op, x.x), cuk_unary_one(op, x.y), cuk_unary_one(op, x.z),
                       cuk_unary_one(op, x.w));
}

/* Element i of an operand, one at a time (head, tail, or the float path). */
static __device__ __forceinline__ float operand1(const cuk_arg &a, float s, size_t i)
{
    return a.bcast ? s : a.p[i];
}

/* Round j of a thread: float4 j, j + stride, ... of the body, U of them,
 * each loaded (load(j): the operands of float4 j) into l. */
template <int U, typename Load, typename Loaded>
static __device__ __forceinline__ void load_round(Loaded *l, Load load, size_t j, size_t stride)
{
#pragma unroll
    for (int u = 0; u < U; u++)
        l[u] = load(j + u * stride);
}

/* ... and computed (apply) into out's float4s. */
template <int U, typename Loaded, typename Apply>
static __device__ __forceinline__ void store_round(float4 *o, const Loaded *l, Apply apply, size_t j, size_t stride)
{
#pragma unroll
    for (int u = 0; u < U; u++)
        o[j + u * stride] = apply(l[u]);
}

/* out = one value per element, over a split of out: the head and the tail
 * one element a thread (one(i) gives element i), the body as float4 in
 * rounds of U a thread, all U loaded before any is computed (apply): the
 * op's switch branches, and loads are not moved across branches, so a
 * load written after the first float4's arithmetic would wait for it.
 * With PIPE the next round is loaded before this one computes, so the
 * loads stay in flight through exp's or log's arithmetic too. Operands
 * out of out's phase take two loads a float4 (shifted4), the second
 * mostly of lines already on their way, and want more float4 a round
 * than aligned ones (U = 4 for the unary kernels, EW_SHIFT_U for ewise)
 * to keep as many bytes in flight. With
 * the float path (head = n), one element a thread throughout. */
template <int U, bool PIPE, typename One, typename Load, typename Apply>
static __device__ __forceinline__ void map_split(float *out, vec_split sp, One one, Load load, Apply apply)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t body_end = sp.head + VEC * sp.n4;
    for (size_t i = g; i < sp.head; i += stride)
        out[i] = one(i);
    for (size_t i = g; i < sp.tail; i += stride)
        out[body_end + i] = one(body_end + i);
    float4 *o = (float4 *)(out + sp.head);
    size_t j = g, round = U * stride;
    decltype(load(j)) cur[U], next[U];
    if (PIPE && j + (U - 1) * stride < sp.n4) {
        load_round<U>(cur, load, j, stride);
        for (bool more = true; more; j += round) {
            more = j + round + (U - 1) * stride < sp.n4;
            if (more)
                load_round<U>(next, load, j + round, stride);
            store_round<U>(o, cur, apply, j, stride);
            if (more) {
#pragma unroll
                for (int u = 0; u < U; u++)
                    cur[u] = next[u];
            }
        }
    }
    for (; !PIPE && j + (U - 1) * stride < sp.n4; j += round) {
        load_round<U>(cur, load, j, stride);
        store_round<U>(o, cur, apply, j, stride);
    }
    for (; j < sp.n4; j += stride)
        o[j] = apply(load(j));
}

/* The two operands of one float4 of an elementwise op. */
typedef struct {
    float4 x, y;
} operands4;

/* Float4 a thread a round of an ewise kernel whose two operands are
 * both out of out's phase (two loads each a float4): 8 ran x + y from +1
 * into +0 fastest of 4, 6, 8, 12 and 16 (no spill at 8; 12 and 16 ran far
 * slower). One operand and a broadcast value (x * 2) keep 4, as the unary
 * kernels do (8 was no faster there); the aligned kernels 2. */
#define EW_SHIFT_U 8

/* out[i] = a[i] op b[i], either side possibly one broadcast value, read
 * once per thread. Every pointer read is D floats past out's phase
 * (shifted4) unless sp is the float path. TWO: neither side is a
 * broadcast value. */
template <int D, bool TWO>
static __global__ void __launch_bounds__(GPU_THREADS)
    ewise_fast(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, vec_split sp)
{
    float sa = a.bcast ? (a.p ? a.p[0] : a.v) : 0.0f;
    float sb = b.bcast ? (b.p ? b.p[0] : b.v) : 0.0f;
    const float4 *pa = a.bcast ? NULL : shifted_base<D>(a.p, sp.head);
    const float4 *pb = b.bcast ? NULL : shifted_base<D>(b.p, sp.head);
    map_split<D ? (TWO ? EW_SHIFT_U : 4) : 2, false>(
        out, sp, [&](size_t i) { return cuk_ewise_one(op, operand1(a, sa, i), operand1(b, sb, i)); },
        [&](size_t j) { return operands4{operand4<D>(a, sa, pa, j), operand4<D>(b, sb, pb, j)}; },
        [&](operands4 v) { return ewise4(op, v.x, v.y); });
}

/* out[i] = OP(in[i]), in D floats past out's phase. A kernel for each op
 * (unary_by), its switch resolved in the compiling: with the op an
 * argument, exp(x) from +1 into an aligned result ran slower. */
template <cuk_unop OP, int D>
static __global__ void __launch_bounds__(GPU_THREADS) unary_fast(float *out, const float *in, vec_split sp)
{
    const float4 *p = shifted_base<D>(in, sp.head);
    map_split<D ? 4 : 2, true>(
        out, sp, [&](size_t i) { return cuk_unary_one(OP, in[i]); }, [&](size_t j) { return shifted4<D>(p, j); },
        [&](float4 v) { return unary4(OP, v); });
}

/* Floats x's element `head` lies past a 16-byte boundary. */
static int phase_at(const float *x, size_t head) { return (int)(((uintptr_t)(x + head) & 15) / sizeof(float)); }

/* out's split for operands D floats past its phase: the body a float4
 * shorter (its floats go to the tail), so that shifted4 reads nothing past
 * an operand's end; all floats (head = n) where the body would be empty. */
static vec_split shifted_split(const float *out, size_t n, int d)
{
    vec_split sp = split_of(out, n), floats = {n, 0, 0};
    if (d == 0)
        return sp;
    if (sp.n4 < 2)
        return floats;
    sp.n4--, sp.tail += VEC;
    return sp;
}

/* The kernels for operands D floats past out's phase, D = 0..3, and their
 * names in `kernels`; the ewise ones by whether both sides are read
 * (ewise_fast's TWO), the unary ones by op too. */
typedef void unary_kernel(float *, const float *, vec_split);

typedef struct {
    void (*ewise[2])(cuk_ewop, float *, cuk_arg, cuk_arg, vec_split);
    const char *ewise_name, *unary_name;
} shifted_kernels;

static const shifted_kernels by_phase[4] = {
    {{ewise_fast<0, false>, ewise_fast<0, false>}, "ewise_fast", "unary_fast"},
    {{ewise_fast<1, false>, ewise_fast<1, true>}, "ewise_fast_shifted", "unary_fast_shifted"},
    {{ewise_fast<2, false>, ewise_fast<2, true>}, "ewise_fast_shifted", "unary_fast_shifted"},
    {{ewise_fast<3, false>, ewise_fast<3, true>}, "ewise_fast_shifted", "unary_fast_shifted"},
};

#define UNARY_BY_PHASE(id, name, usage, expr)                                                          \
    {unary_fast<CUK_UN_##id, 0>, unary_fast<CUK_UN_##id, 1>, unary_fast<CUK_UN_##id, 2>,               \
     unary_fast<CUK_UN_##id, 3>},
static unary_kernel *const unary_by[CUK_UN_COUNT][4] = {CUK_UNARY_OPS(UNARY_BY_PHASE)};
#undef UNARY_BY_PHASE

/* The grid for a split: a float4 (or a float of the float path) a thread. */
static int elementwise_grid(const void *kernel, int *fits, vec_split sp, unsigned *grid)
{
    size_t items = sp.n4 > sp.head ? sp.n4 : sp.head;
    return device_grid(kernel, fits, items, grid);
}

static struct {
    int ewise[4][2], unary[CUK_UN_COUNT][4]; /* by phase and op or TWO (by_phase, unary_by) */
} elementwise_fits;

/* The float4 path when the operands read from memory (not a broadcast
 * value) are the same distance past out's phase, shifted or not (x + y
 * from x + 1 and y + 1 into an aligned result); else the float path, one
 * float a thread. */
extern "C" int fast_ewise(cuk_ewop op, float *out, cuk_arg a, cuk_arg b, size_t n)
{
    unsigned grid;
    if (n == 0)
        return 0;
    vec_split sp = split_of(out, n), floats = {n, 0, 0};
    int da = a.bcast ? -1 : phase_at(a.p, sp.head), db = b.bcast ? -1 : phase_at(b.p, sp.head);
    int d = da >= 0 ? da : db >= 0 ? db : 0;
    if ((da >= 0 && da != d) || (db >= 0 && db != d))
        sp = floats, d = 0;
    else
        sp = shifted_split(out, n, d);
    d = sp.head == n ? 0 : d; /* the float path reads no float4 */
    int two = !a.bcast && !b.bcast;
    void (*kernel)(cuk_ewop, float *, cuk_arg, cuk_arg, vec_split) = by_phase[d].ewise[two];
    if (elementwise_grid((const void *)kernel, &elementwise_fits.ewise[d][two], sp, &grid) != 0 ||
        gpu_launch(kernel, by_phase[d].ewise_name, grid, GPU_THREADS, 0, __FILE__, __LINE__, op, out, a, b, sp) != 0)
        return -1;
    return 0;
}

extern "C" int fast_unary(cuk_unop op, float *out, const float *in, size_t n)
{
    unsigned grid;
    if ((unsigned)op >= CUK_UN_COUNT)
        return cuk_err("internal error: unary op %d", (int)op);
    if (n == 0)
        return 0;
    int d = phase_at(in, head_of(out, n));
    vec_split sp = shifted_split(out, n, d);
    d = sp.head == n ? 0 : d; /* the float path reads no float4 */
    unary_kernel *kernel = unary_by[op][d];
    if (elementwise_grid((const void *)kernel, &elementwise_fits.unary[op][d], sp, &grid) != 0 ||
        gpu_launch(kernel, by_phase[d].unary_name, grid, GPU_THREADS, 0, __FILE__, __LINE__, out, in, sp) != 0)
        return -1;
    return 0;
}

/* --- transpose ------------------------------------------------------------------- */

#define TT 64            /* the tile: 64 x 64 floats of in, 16 KiB ... */
#define TQ (TT / VEC)    /* ... 16 float4 to a tile row */

/* The swizzle of the float4 tile: row r's float4 column q is stored at
 * column q ^ ((r / 4) % 8). A quarter warp's 16-byte accesses (the unit a
 * bank-conflict-free 16-byte access is served in) then always fall in 8
 * different 16-byte bank groups: when loading, its 8 threads write 8
 * neighbouring float4 of one row (q ^ const, distinct mod 8); when storing,
 * they read one float4 column of 8 row groups r = 4a + j, a = a0..a0+7
 * (q ^ a, distinct mod 8). Padding cannot do this for 16-byte accesses
 * without breaking their alignment. */
static __device__ __forceinline__ int swz(int r, int q)
{
    return q ^ ((r / VEC) % 8);
}

/* out (cols x rows) = in (rows x cols)^T when rows and cols are multiples
 * of 4 and both buffers 16-byte aligned, so that every row of each starts
 * on 16 bytes. 256 threads move a 64 x 64 tile: each loads four float4
 * along rows of in (a warp reads two 256-byte row pieces), all four in
 * flight, into the swizzled tile; then each reads a 4 x 4 block of the tile
 * as four float4 (in rows 4a..4a+3, in columns 4b..4b+3), transposes it in
 * registers and stores four float4 along rows of out (a warp writes two
 * 256-byte pieces of each of four out rows). A float4 is in or out of the
 * matrix as a whole, since its edges are multiples of 4. */
static __global__ void __launch_bounds__(GPU_THREADS)
    transpose_fast(float *out, const float *in, int rows, int cols, int row0)
{
    __shared__ float4 tile[TT][TQ];
    int t = threadIdx.x;
    int c0 = blockIdx.x * TT, r0 = row0 + blockIdx.y * TT;
    int q = t % TQ, r = t / TQ;
    float4 v[VEC];
#pragma unroll
    for (int p = 0; p < VEC; p++) {
        int rr = r + p * (GPU_THREADS / TQ);
        v[p] = make_float4(0, 0, 0, 0);
        if (r0 + rr < rows && c0 + VEC * q < cols)
            v[p] = *(const float4 *)(in + (size_t)(r0 + rr) * cols + c0 + VEC * q);
    }
#pragma unroll
    for (int p = 0; p < VEC; p++) {
        int rr = r + p * (GPU_THREADS / TQ);
        tile[rr][swz(rr, q)] = v[p];
    }
    __syncthreads();
    int a = t % TQ, b = t / TQ; /* this thread's 4 x 4 block: in rows 4a.., in columns 4b.. */
#pragma unroll
    for (int j = 0; j < VEC; j++)
        v[j] = tile[VEC * a + j][swz(VEC * a + j, b)];
    if (r0 + VEC * a >= rows)
        return;
    float *o = out + (size_t)(c0 + VEC * b) * rows + r0 + VEC * a;
    if (c0 + VEC * b + 0 < cols)
        *(float4 *)o = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
    if (c0 + VEC * b + 1 < cols)
        *(float4 *)(o + rows) = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
    if (c0 + VEC * b + 2 < cols)
        *(float4 *)(o + 2 * (size_t)rows) = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
    if (c0 + VEC * b + 3 < cols)
        *(float4 *)(o + 3 * (size_t)rows) = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
}

#define SECTOR 8 /* floats in a 32-byte sector, the unit memory is written in */

/* Any shape. Rows of odd length start anywhere, so accesses are single
 * floats, a warp's 32 of them consecutive, and a piece of an out row that
 * begins at a tile edge begins inside a 32-byte sector: the block that
 * writes the rest of that sector runs at another time, and the halves must
 * meet in L2 (the plain 64 x 64 tile ran the odd shape at two thirds of
 * its rate at 16384^2: PERF.md, ## fast: memory-bound). So each block
 * writes whole
 * sectors: out row c's pieces start at the rows r where c * rows + r is a
 * multiple of 8, which shifts this block's piece of out row c back by
 * 8 - e_c rows (e_c = the first such r, 0..7), and the block loads the
 * 8 rows of in before its own 64 as well (they come from L2: the block
 * before read them just now, blocks being numbered along the rows of in).
 * The tile is padded to 65 columns so that a tile column's floats are in
 * different banks (row r, column c is in bank (r + c) % 32). */
static __global__ void __launch_bounds__(GPU_THREADS)
    transpose_fast_any(float *out, const float *in, int rows, int cols, int col0)
{
    __shared__ float tile[TT + SECTOR][TT + 1];
    int tx = threadIdx.x % WARP, ty = threadIdx.x / WARP;
    const int ystep = GPU_THREADS / WARP;
    long long r0 = (long long)blockIdx.x * TT - SECTOR; /* in row of tile row 0 */
    int c0 = col0 + blockIdx.y * TT;
    const int passes = (TT + SECTOR) / ystep, halves = TT / WARP;
    float v[passes * halves]; /* all 18 loads in flight before the first store */
#pragma unroll
    for (int p = 0; p < passes; p++)
#pragma unroll
        for (int h = 0; h < halves; h++) {
            long long r = r0 + ty + p * ystep;
            int c = c0 + tx + h * WARP;
            v[p * halves + h] = r >= 0 && r < rows && c < cols ? in[(size_t)r * cols + c] : 0.0f;
        }
#pragma unroll
    for (int p = 0; p < passes; p++)
#pragma unroll
        for (int h = 0; h < halves; h++)
            tile[ty + p * ystep][tx + h * WARP] = v[p * halves + h];
    __syncthreads();
    /* Now tx runs along a row of out, i.e. down a column of in. */
#pragma unroll
    for (int p = 0; p < TT / ystep; p++) {
        int c = ty + p * ystep; /* out row c0 + c */
        int e = (int)((SECTOR - (size_t)(c0 + c) * rows % SECTOR) % SECTOR);
#pragma unroll
        for (int h = 0; h < halves; h++) {
            int t = e + tx + h * WARP; /* tile row */
            long long r = r0 + t;
            if (c0 + c < cols && r >= 0 && r < rows)
                out[(size_t)(c0 + c) * rows + r] = tile[t][c];
        }
    }
}

/* The float4 kernel, over in in bands of at most 65535 tile rows. */
static int transpose_vec(float *out, const float *in, int rows, int cols)
{
    return gpu_for_bands(rows, TT, [=](int r0, int n) {
        return gpu_launch(transpose_fast, "transpose_fast", dim3(gpu_cdiv(cols, TT), gpu_cdiv(n, TT)),
                          dim3(GPU_THREADS), 0, __FILE__, __LINE__, out, in, rows, cols, r0);
    });
}

/* The general kernel: blocks numbered along the rows of in first, so that
 * consecutive blocks write neighbouring pieces of the same out rows and
 * share the 8 rows they both read; one tile more than the rows need,
 * since each piece is shifted back by up to 8; in bands of at most 65535
 * tile columns. */
static int transpose_general(float *out, const float *in, int rows, int cols)
{
    return gpu_for_bands(cols, TT, [=](int c0, int n) {
        return gpu_launch(transpose_fast_any, "transpose_fast_any",
                          dim3(gpu_cdiv((long long)rows + SECTOR, TT), gpu_cdiv(n, TT)), dim3(GPU_THREADS), 0,
                          __FILE__, __LINE__, out, in, rows, cols, c0);
    });
}

extern "C" int fast_transpose(float *out, const float *in, int rows, int cols)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    int vec = rows % VEC == 0 && cols % VEC == 0 && ((uintptr_t)in & 15) == 0 && ((uintptr_t)out & 15) == 0;
    return vec ? transpose_vec(out, in, rows, cols) : transpose_general(out, in, rows, cols);
}
