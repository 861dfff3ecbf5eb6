/* gpu_tf32x3_sm90.cu - the `tf32x3` product on Hopper (sm_90a): warpgroup
 * MMA (wgmma, m64n128k8 TF32) reading both operands from shared memory,
 * which the bulk tensor copy engine (TMA) fills in a ring of stages, each
 * completed on an mbarrier. One warpgroup produces (one thread issues the
 * copies), C = 1 or 2 consume: each makes 64 rows of the block's 64C x 128
 * tile of c. The corrections big_a small_b + small_a big_b have their own
 * accumulator (gpu_tf32x3.cu says why); big_a big_b is summed 32 k at a
 * time on the tensor cores and each such partial added to an FP32 sum by
 * an ordinary FADD: the tensor cores' own accumulation truncates (rounds
 * toward zero), and over all of k that bias alone made the error 10-30
 * times cuBLAS FP32's (Ootomo and Yokota's "accumulation outside the
 * tensor cores"). wgmma reads TF32 operands only K-major, so the split
 * pass wrote b transposed; the parts are padded, so the loads have no
 * edges. Products with too few tiles to fill the SMs cut each tile's k in
 * slices (split-k, tf32x3_sm90_plan), summed in slice order: where a wave
 * holds them, a tile's slices run as one cluster, and each sums its share
 * of the tile from every slice's partial, read from the others' shared
 * memory; else each slice leaves its partial tile in device memory, and
 * the last of a tile to finish sums them. Where one slice leaves a
 * quarter of the SMs idle, the split runs on them beside the product
 * (gpu_tf32x3.cu), whose producer waits for each piece. The tiles go out
 * to c through shared memory, whole rows at a time (store). Built also for
 * sm_90a (Makefile); for every other target the kernels are empty stubs,
 * which the probe reports, and the mode runs its mma.sync kernel. */
#include "kernels/gpu_internal.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdint.h>

#include "base/error.h"
#include "kernels/tf32x3.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TF32X3_WGMMA 1
#endif

#define WG_BN 128
#define WG_BK 32 /* 32 floats = 128 bytes: one row of the 128-byte swizzle */
#define WG_B_BYTES (WG_BN * WG_BK * 4) /* one part's tile of b: 16 KiB */
/* A tile's slices may be one cluster, and 8 blocks is the largest cluster
 * every sm_90 GPU runs (more is "non-portable"). */
#define WG_MAX_SLICES 8
/* At most this many bytes of partial tiles in device memory: half the
 * H100's L2, so that they wait there for their tile's last slice. */
#define WG_MAX_WORK (24ll << 20)

/* What a block needs beyond the operands' maps: block (x, y, z) makes
 * k-tiles [z kslice, min(ktiles, (z + 1) kslice)) of c's tile (x, y),
 * rows from row0 on (gpu_for_bands). With gridDim.z > 1 slices, either
 * the blocks (x, y, 0 .. gridDim.z - 1) are one cluster, or partial tiles
 * go through work and count (tf32x3_parts). */
struct wg_args {
    float *c, *work;
    unsigned *count;
    const unsigned *ready; /* the streamed split's flags (tf32x3_parts), or NULL */
    unsigned epoch;
    int m, n, ktiles, kslice, row0, cluster, bands_a, bands;
};

/* The shape of the kernel with C consumer warpgroups: with 2, a 128 x 128
 * tile, 3 stages, one block an SM; with 1 (small products, whose 128-row
 * tiles would leave SMs idle), 64 x 128, 2 stages, two blocks an SM. */
template <int C> struct wg_shape {
    static constexpr int bm = 64 * C, threads = 128 * (C + 1), stages = C == 2 ? 3 : 2, per_sm = C == 2 ? 1 : 2;
    static constexpr int a_bytes = bm * WG_BK * 4;                      /* one part's tile of a */
    static constexpr int stage_bytes = 2 * a_bytes + 2 * WG_B_BYTES;    /* a_big, a_small, b_big, b_small */
    /* The stages, 1 KiB of slack to align them to the swizzle's 1024-byte
     * period, and the full and empty barriers of each stage. */
    static constexpr int smem = stages * stage_bytes + 1024 + 2 * stages * 8;
    /* setmaxnreg: the producer gives back what the consumers' three
     * 64-float accumulators need (the block's registers: 64 Ki / per_sm). */
    static constexpr int producer_regs = 40, consumer_regs = C == 2 ? 232 : 216;
};

#ifdef TF32X3_WGMMA

static __device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void bar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}

/* The producer's arrival, announcing the bytes the copies will bring. */
static __device__ __forceinline__ void bar_expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

static __device__ __forceinline__ void bar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

/* Until the barrier's phase of this parity has completed. */
static __device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
    unsigned done;
    do
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    while (!done);
}

/* One 32 x 128 box of the map at (k0, row0) into shared memory at dst. */
static __device__ __forceinline__ void tma_load(unsigned dst, const CUtensorMap *map, unsigned bar, int k0, int row0)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
                 "l"((uint64_t)map), "r"(k0), "r"(row0), "r"(bar)
                 : "memory");
}

/* The shared-memory matrix descriptor of a K-major tile with the 128-byte
 * swizzle (PTX ISA, "Matrix Descriptor Format"): start address / 16; the
 * leading offset unused by this layout (1); 1024 bytes, 8 rows of 128,
 * between core-matrix groups; swizzle mode 1 (128 bytes) in bits 62-63.
 * The k8 steps within a row are 32 bytes further along the start address. */
static __device__ __forceinline__ uint64_t smem_desc(unsigned addr)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 | (uint64_t)1 << 62;
}

static __device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
static __device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> static __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/* d (64 x 128, this warpgroup's fragment) = a (64 x 8) b (8 x 128)^T,
 * plus d if add. */
static __device__ __forceinline__ void wgmma_tf32(float d[64], uint64_t a, uint64_t b, int add)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
                 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
                 "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
                 "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
                 "}, %64, %65, p, 1, 1;\n}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(add));
}

static __device__ __forceinline__ unsigned ld_acquire(const unsigned *f)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(f) : "memory");
    return v;
}

/* Where the split runs beside the product: the k-tiles from kt on whose
 * pieces of a and b are split, as a count (at least 1: it waits for kt's).
 * The producer warp's 32 lanes read the flags of 32 k-tiles at once (one
 * trip to the L2 for all, not two a k-tile), and the pieces are ordered
 * before the copy engine's reads of them (the async proxy). */
static __device__ int pieces_ready(const wg_args &g, int i0, int j0, int kt0, int kt, int ktiles)
{
    int lane = threadIdx.x % 32;
    for (;;) {
        int k = kt + lane, ok = 1;
        if (k < ktiles) {
            const unsigned *f = g.ready + (size_t)(kt0 + k) * g.bands;
            ok = ld_acquire(f + i0 / 128) == g.epoch && ld_acquire(f + g.bands_a + j0 / 128) == g.epoch;
        }
        unsigned mask = __ballot_sync(0xffffffffu, ok);
        int run = mask == 0xffffffffu ? 32 : __ffs(~mask) - 1; /* ready from lane 0 on */
        if (run > 0) {
            asm volatile("fence.proxy.async.global;" ::: "memory");
            __syncwarp();
            return run;
        }
    }
}

/* The producer warp (lane 0 issues; all 32 read the streamed split's
 * flags): stage s of the slice's k-tile kt (k-tile kt0 + kt of the whole)
 * waits until the consumers have released its previous use (and, where
 * the split runs beside the product, until its pieces of a and b are
 * split), then its four copies are issued. */
template <int C>
static __device__ void produce(unsigned base, unsigned full, unsigned empty, const CUtensorMap *ab,
                               const CUtensorMap *as, const CUtensorMap *bb, const CUtensorMap *bs, int i0, int j0,
                               int kt0, int ktiles, const wg_args &g)
{
    typedef wg_shape<C> S;
    int ready_to = 0;
    for (int kt = 0; kt < ktiles; kt++) {
        int s = kt % S::stages;
        unsigned st = base + s * S::stage_bytes, bar = full + 8 * s;
        if (kt >= S::stages)
            bar_wait(empty + 8 * s, (kt / S::stages + 1) & 1);
        if (g.ready && kt >= ready_to)
            ready_to = kt + pieces_ready(g, i0, j0, kt0, kt, ktiles);
        if (threadIdx.x != 0)
            continue;
        bar_expect(bar, S::stage_bytes);
        int k0 = (kt0 + kt) * WG_BK;
        tma_load(st, ab, bar, k0, i0);
        tma_load(st + S::a_bytes, as, bar, k0, i0);
        tma_load(st + 2 * S::a_bytes, bb, bar, k0, j0);
        tma_load(st + 2 * S::a_bytes + WG_B_BYTES, bs, bar, k0, j0);
    }
}

/* A consumer warpgroup's k loop. Per k-tile: big_a big_b of its 32 k into
 * part (restarted: add 0 at the first k8 step), one commit group; the
 * corrections into cor, another. Waiting for all but the newest group
 * leaves the corrections running while part is added to big, and means
 * the previous k-tile is done with its stage, which is then released. */
template <int C>
static __device__ void consume(unsigned base, unsigned full, unsigned empty, int half, int ktiles, float big[64],
                               float cor[64])
{
    typedef wg_shape<C> S;
    float part[64];
#pragma unroll
    for (int i = 0; i < 64; i++)
        part[i] = 0.0f;
    int lead = threadIdx.x % 128 == 0;
    for (int kt = 0; kt < ktiles; kt++) {
        int s = kt % S::stages;
        unsigned st = base + s * S::stage_bytes, rows = half * 64 * WG_BK * 4;
        unsigned a_big = st + rows, a_small = st + S::a_bytes + rows, b_big = st + 2 * S::a_bytes,
                 b_small = b_big + WG_B_BYTES;
        bar_wait(full + 8 * s, (kt / S::stages) & 1);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < WG_BK / 8; kk++)
            wgmma_tf32(part, smem_desc(a_big + 32 * kk), smem_desc(b_big + 32 * kk), kk > 0);
        wgmma_commit();
#pragma unroll
        for (int kk = 0; kk < WG_BK / 8; kk++) {
            wgmma_tf32(cor, smem_desc(a_big + 32 * kk), smem_desc(b_small + 32 * kk), 1);
            wgmma_tf32(cor, smem_desc(a_small + 32 * kk), smem_desc(b_big + 32 * kk), 1);
        }
        wgmma_commit();
        wgmma_wait<1>();
        if (kt > 0 && lead)
            bar_arrive(empty + 8 * ((kt - 1) % S::stages));
#pragma unroll
        for (int i = 0; i < 64; i++)
            big[i] += part[i];
    }
    wgmma_wait<0>();
}

/* The consumers' own barrier (the producer warpgroup does not come). */
template <int C> static __device__ __forceinline__ void consumers_sync()
{
    asm volatile("bar.sync 1, %0;" ::"n"(128 * C) : "memory");
}

/* Split-k: this slice's partial tile v into work, each thread's 64 floats
 * as 16 float4 a warp writes side by side; then the tile's counter. The
 * slice that brings it to gridDim.z, the last, sums every slice's partial
 * into v in slice order (its own from registers), so that c does not
 * depend on which slice came last. Returns 1 in the last slice. */
template <int C> static __device__ int sum_slices(float v[64], const wg_args &g, int tile)
{
    __shared__ int last;
    const int threads = 128 * C;
    int t = threadIdx.x - 128, z = blockIdx.z, slices = gridDim.z;
    float4 *own = (float4 *)g.work + (size_t)tile * slices * 16 * threads + t;
#pragma unroll
    for (int q = 0; q < 16; q++)
        __stcg(own + (size_t)(z * 16 + q) * threads, make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]));
    __threadfence(); /* the partial is out before the counter says so */
    consumers_sync<C>();
    if (t == 0)
        last = atomicAdd(&g.count[tile], 1) == (unsigned)slices - 1;
    consumers_sync<C>();
    if (!last)
        return 0;
    __threadfence(); /* and read only after the counter */
    float sum[64];
#pragma unroll
    for (int i = 0; i < 64; i++)
        sum[i] = 0.0f;
    for (int s = 0; s < slices; s++)
#pragma unroll
        for (int q = 0; q < 16; q++) {
            float4 x = s == z ? make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3])
                              : __ldcg(own + (size_t)(s * 16 + q) * threads);
            sum[4 * q] += x.x, sum[4 * q + 1] += x.y, sum[4 * q + 2] += x.z, sum[4 * q + 3] += x.w;
        }
#pragma unroll
    for (int i = 0; i < 64; i++)
        v[i] = sum[i];
    return 1;
}

/* The cluster's barrier, every thread of its blocks: release orders this
 * thread's shared-memory stores before the others' reads after their wait
 * (acquire). Not the .aligned form: the producer warp's lanes may arrive
 * apart (lane 0 alone issues the copies). */
static __device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

static __device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

/* Four floats at a shared-memory address of block `rank` of the cluster
 * (addr is this block's address of the same place). */
static __device__ __forceinline__ float4 ld_cluster(unsigned addr, unsigned rank)
{
    unsigned remote;
    float4 v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
    asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(remote));
    return v;
}

static __device__ __forceinline__ void st_shared(unsigned addr, float4 v)
{
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
                 : "memory");
}

/* Groups [q0, q1) of v, the wgmma D fragment (warp w of the warpgroup
 * holds rows 16w + lane / 4 and 8 below, columns 8q + 2 (lane % 4) and
 * the next in v[4q .. 4q + 3]), into c at (r0, j0), through shared
 * memory. Stored straight from the fragment, each instruction filled
 * half of each 32-byte sector it touched, and at 1037x1055x1031 the
 * tiles' stores took 6 of the product's 55 us. So warp w's 16 rows go to
 * its own patch of 16 rows of WG_PATCH_ROW floats (the 8 beyond 128 make
 * the float2 writes conflict-free), then out a row at a time, the warp's
 * lanes side by side: float4s where c's rows are 16-byte aligned, else
 * floats. patch: the warp's, in stages no MMA reads any more. */
#define WG_PATCH_ROW 136
#define WG_PATCH_BYTES (16 * WG_PATCH_ROW * 4)

static __device__ void store(float *c, int m, int n, int r0, int j0, const float v[64], float *patch, int q0 = 0,
                             int q1 = 16)
{
    int lane = threadIdx.x % 32, r = r0 + 16 * ((threadIdx.x % 128) / 32);
#pragma unroll
    for (int q = 0; q < 16; q++)
        if (q0 <= q && q < q1)
#pragma unroll
            for (int h = 0; h < 2; h++)
                *(float2 *)(patch + (lane / 4 + 8 * h) * WG_PATCH_ROW + 8 * q + 2 * (lane % 4)) =
                    make_float2(v[4 * q + 2 * h], v[4 * q + 2 * h + 1]);
    __syncwarp();
    int rows = min(16, m - r), vec = n % 4 == 0 && (size_t)c % 16 == 0;
    int from = 8 * q0, to = min(8 * q1, n - j0); /* the columns to store, of the tile's */
    for (int i = 0; i < rows; i++) {
        float *out = c + (size_t)(r + i) * n + j0;
        const float *in = patch + i * WG_PATCH_ROW;
        if (vec && from + 4 * lane < to)
            *(float4 *)(out + from + 4 * lane) = *(const float4 *)(in + from + 4 * lane);
        else if (!vec)
#pragma unroll
            for (int k = 0; k < 4; k++)
                if (from + 32 * k + lane < to)
                    out[from + 32 * k + lane] = in[from + 32 * k + lane];
    }
}

/* The calling warp's patch (store): consumer warp w's is the w-th from
 * `at` bytes into the stages. */
static __device__ __forceinline__ float *warp_patch(unsigned char *stages, int at)
{
    return (float *)(stages + at + (threadIdx.x / 32 - 4) * WG_PATCH_BYTES);
}

/* Split-k: the consumers of each of the cluster's S blocks (one a slice
 * of the same tile) leave their partial tile v in their own shared memory
 * (the stages, done with: the consumers' barrier first, as one warpgroup
 * may finish its MMAs before the other), thread t's group q at float4
 * q T + t; then the block of rank z sums its share of the groups (the
 * z-th of S runs of columns) of every slice, from each block's shared
 * memory in slice order (so c does not depend on which finished first),
 * and stores them through patches past the partials. The second barrier
 * keeps each block's partial in place until all have read it. stages:
 * base as a pointer. */
template <int C>
static __device__ void sum_cluster(float v[64], unsigned base, unsigned char *stages, const wg_args &g, int r0, int j0)
{
    const int threads = 128 * C;
    unsigned t = threadIdx.x - 128, z = cluster_rank(), slices = gridDim.z;
    int q0 = 16 * z / slices, q1 = 16 * (z + 1) / slices;
    static_assert(16 * threads * 16 + 4 * C * WG_PATCH_BYTES <= wg_shape<C>::stages * wg_shape<C>::stage_bytes,
                  "the warps' patches fit in the stages past the partials");
    consumers_sync<C>();
#pragma unroll
    for (int q = 0; q < 16; q++)
        st_shared(base + (q * threads + t) * 16, make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]));
    cluster_sync();
#pragma unroll
    for (int q = 0; q < 16; q++)
        if (q0 <= q && q < q1)
            v[4 * q] = v[4 * q + 1] = v[4 * q + 2] = v[4 * q + 3] = 0.0f;
    for (unsigned s = 0; s < slices; s++)
#pragma unroll
        for (int q = 0; q < 16; q++)
            if (q0 <= q && q < q1) {
                float4 x = ld_cluster(base + (q * threads + t) * 16, s);
                v[4 * q] += x.x, v[4 * q + 1] += x.y, v[4 * q + 2] += x.z, v[4 * q + 3] += x.w;
            }
    store(g.c, g.m, g.n, r0, j0, v, warp_patch(stages, 16 * threads * 16), q0, q1);
    cluster_sync();
}

#endif /* TF32X3_WGMMA */

/* Block (x, y, z) makes slice z of c's 64C x 128 tile at rows row0 +
 * 64C y, columns 128 x; k in steps of 32. Each warpgroup's role is one
 * branch, as setmaxnreg wants. */
template <int C>
static __global__ void __launch_bounds__(wg_shape<C>::threads, wg_shape<C>::per_sm)
    tf32x3_wgmma(const __grid_constant__ CUtensorMap ab, const __grid_constant__ CUtensorMap as,
                 const __grid_constant__ CUtensorMap bb, const __grid_constant__ CUtensorMap bs, wg_args g)
{
#ifdef TF32X3_WGMMA
    typedef wg_shape<C> S;
    extern __shared__ unsigned char smem_raw[];
    unsigned base = (smem_addr(smem_raw) + 1023) & ~1023u;
    unsigned full = base + S::stages * S::stage_bytes, empty = full + 8 * S::stages;
    int wg = threadIdx.x / 128, i0 = g.row0 + blockIdx.y * S::bm, j0 = blockIdx.x * WG_BN;
    int kt0 = blockIdx.z * g.kslice, nk = min(g.ktiles - kt0, g.kslice);
    if (threadIdx.x == 0) {
        for (int s = 0; s < S::stages; s++) {
            bar_init(full + 8 * s, 1);
            bar_init(empty + 8 * s, C);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(S::producer_regs));
        if (threadIdx.x < 32)
            produce<C>(base, full, empty, &ab, &as, &bb, &bs, i0, j0, kt0, nk, g);
        if (g.cluster) { /* sum_cluster's two barriers */
            cluster_sync();
            cluster_sync();
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(S::consumer_regs));
        float big[64], cor[64];
#pragma unroll
        for (int i = 0; i < 64; i++)
            big[i] = cor[i] = 0.0f;
        consume<C>(base, full, empty, wg - 1, nk, big, cor);
#pragma unroll
        for (int i = 0; i < 64; i++)
            big[i] += cor[i];
        unsigned char *stages = smem_raw + (base - smem_addr(smem_raw));
        if (g.cluster) {
            sum_cluster<C>(big, base, stages, g, i0 + 64 * (wg - 1), j0);
            return;
        }
        if (gridDim.z > 1 && !sum_slices<C>(big, g, (i0 / S::bm) * gridDim.x + blockIdx.x))
            return;
        consumers_sync<C>(); /* every warpgroup's MMAs done with the stages the patches take */
        store(g.c, g.m, g.n, i0 + 64 * (wg - 1), j0, big, warp_patch(stages, 0));
    }
#endif
}

/* Writes 1 where the wgmma kernel has a body: the code this GPU loaded was
 * built for sm_90a. */
static __device__ int probe_flag;
static __global__ void tf32x3_sm90_probe(int *flag)
{
#ifdef TF32X3_WGMMA
    *flag = 1;
#else
    *flag = 0;
#endif
}

/* --- the host side ------------------------------------------------------------ */

static struct {
    int ready;    /* 0 not asked, 1 yes, 2 no */
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    /* Clusters of s 128-row blocks the GPU runs at once (s = 2 ..
     * WG_MAX_SLICES; 0: none), for the plan's waves: a cluster's blocks
     * must share a GPC, so this is not SMs / s. */
    int clusters[WG_MAX_SLICES + 1];
    struct { /* the last product's maps (part_maps) and what they were made for */
        const float *a_big;
        int mp, np, kp, bm;
        CUtensorMap ab, as, bb, bs;
    } maps;
} sm90;

/* cuTensorMapEncodeTiled is a driver function, and cuk links only the
 * static runtime: the runtime hands out the driver's entry point. */
static int find_encoder(void)
{
    cudaDriverEntryPointQueryResult q;
    void *fn = NULL;
    GPU_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !fn)
        return cuk_err("the CUDA driver has no cuTensorMapEncodeTiled (needed by mode tf32x3's Hopper kernel)");
    sm90.encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    return 0;
}

/* The launch of the 128-row kernel on `grid` with one attribute (its
 * slices a cluster each; or launched beside the split that runs first). */
static cudaLaunchConfig_t launch_config(dim3 grid, cudaLaunchAttribute *attr)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(wg_shape<2>::threads);
    cfg.dynamicSmemBytes = wg_shape<2>::smem;
    cfg.stream = gpu_stream_handle();
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

static cudaLaunchConfig_t cluster_config(dim3 grid, cudaLaunchAttribute *attr)
{
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = 1, attr->val.clusterDim.y = 1, attr->val.clusterDim.z = grid.z;
    return launch_config(grid, attr);
}

/* sm90.clusters, from the occupancy API. A size it refuses (a GPU shared
 * by MIG, say) counts as none: the plan then does without it. */
static void count_clusters(void)
{
    for (int s = 2; s <= WG_MAX_SLICES; s++) {
        cudaLaunchAttribute attr;
        cudaLaunchConfig_t cfg = cluster_config(dim3(1, 1, s), &attr);
        if (cudaOccupancyMaxActiveClusters(&sm90.clusters[s], tf32x3_wgmma<2>, &cfg) != cudaSuccess) {
            cudaGetLastError();
            sm90.clusters[s] = 0;
        }
    }
}

/* On cc 9.0 only: does the loaded code carry the kernel? Asked once. */
int tf32x3_sm90_ready(void)
{
    if (sm90.ready == 0) {
        const gpu_info *d = gpu_device();
        int flag = 0, *where;
        if (d->cc_major == 9 && d->cc_minor == 0) {
            GPU_CHECK(cudaGetSymbolAddress((void **)&where, probe_flag));
            GPU_LAUNCH(tf32x3_sm90_probe, dim3(1), dim3(1), 0, where);
            GPU_CHECK(cudaMemcpyFromSymbolAsync(&flag, probe_flag, sizeof flag, 0, cudaMemcpyDeviceToHost,
                                                gpu_stream_handle()));
            GPU_WAIT(gpu_stream_handle());
        }
        if (flag && find_encoder() != 0)
            return -1;
        if (flag) {
            if (gpu_allow_smem((const void *)tf32x3_wgmma<1>, wg_shape<1>::smem) != 0 ||
                gpu_allow_smem((const void *)tf32x3_wgmma<2>, wg_shape<2>::smem) != 0)
                return -1;
            count_clusters();
        }
        sm90.ready = flag ? 1 : 2;
    }
    return sm90.ready == 1;
}

/* The map of one part, rows x kp floats, read in 32 x box_rows boxes
 * with the 128-byte swizzle wgmma's descriptors name. */
static int part_map(CUtensorMap *map, const float *part, int rows, int kp, int box_rows)
{
    cuuint64_t dims[2] = {(cuuint64_t)kp, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)kp * sizeof(float)};
    cuuint32_t box[2] = {WG_BK, (cuuint32_t)box_rows}, step[2] = {1, 1};
    CUresult r = sm90.encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)part, dims, strides, box, step,
                             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : cuk_err("cuTensorMapEncodeTiled failed (CUresult %d) for a %d x %d part", (int)r,
                                           rows, kp);
}

/* The four parts' maps for tiles of bm rows, encoded again only when the
 * parts moved or changed shape: the encodes are host time between the
 * split pass's launch and the product's, which a short split pass (about
 * 10 us at 1037x1055x1031) no longer hides. */
static int part_maps(const tf32x3_parts *p, int bm, CUtensorMap *ab, CUtensorMap *as, CUtensorMap *bb,
                     CUtensorMap *bs)
{
    auto &last = sm90.maps;
    if (last.a_big != p->a_big || last.mp != p->mp || last.np != p->np || last.kp != p->kp || last.bm != bm) {
        last.a_big = NULL; /* until all four are made */
        if (part_map(&last.ab, p->a_big, p->mp, p->kp, bm) != 0 ||
            part_map(&last.as, p->a_small, p->mp, p->kp, bm) != 0 ||
            part_map(&last.bb, p->b_big, p->np, p->kp, WG_BN) != 0 ||
            part_map(&last.bs, p->b_small, p->np, p->kp, WG_BN) != 0)
            return -1;
        last.a_big = p->a_big, last.mp = p->mp, last.np = p->np, last.kp = p->kp, last.bm = bm;
    }
    *ab = last.ab, *as = last.as, *bb = last.bb, *bs = last.bs;
    return 0;
}

/* The product with C consumer warpgroups; with pl->cluster (128-row tiles
 * only), the slices of a tile a cluster. */
template <int C> static int run(const tf32x3_parts *p, const tf32x3_plan *pl)
{
    typedef wg_shape<C> S;
    CUtensorMap ab, as, bb, bs;
    if (part_maps(p, S::bm, &ab, &as, &bb, &bs) != 0)
        return -1;
    int bands_a = p->mp / 128; /* the streamed split's pieces (tf32x3_parts) */
    wg_args g = {p->c,  p->work, p->count, p->ready, p->epoch, p->m, p->n, p->kp / WG_BK, pl->kslice, 0, pl->cluster,
                 bands_a, bands_a + p->np / 128};
    const char *name = C == 1 ? "tf32x3_wgmma<1>" : pl->slices > 1 ? "tf32x3_wgmma<2>, slices summed in memory"
                                                                      : "tf32x3_wgmma<2>";
    return gpu_for_bands(p->mp, S::bm, [&](int r0, int rows) {
        g.row0 = r0;
        dim3 grid(p->np / WG_BN, rows / S::bm, pl->slices);
        if (!p->ready && !pl->cluster)
            return gpu_launch(tf32x3_wgmma<C>, name, grid, dim3(S::threads), S::smem, __FILE__, __LINE__, ab, as, bb,
                              bs, g);
        /* 128-row tiles: launched while the split runs (each piece waited
         * for), or a cluster a tile */
        cudaLaunchAttribute attr;
        cudaLaunchConfig_t cfg;
        if (p->ready) {
            attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr.val.programmaticStreamSerializationAllowed = 1;
            cfg = launch_config(grid, &attr);
            name = "tf32x3_wgmma<2>, beside the split";
        } else {
            cfg = cluster_config(grid, &attr);
            name = "tf32x3_wgmma<2>, a cluster a tile";
        }
        cudaError_t err = cudaLaunchKernelEx(&cfg, tf32x3_wgmma<2>, ab, as, bb, bs, g);
        if (err != cudaSuccess)
            return gpu_fail(err, name, __FILE__, __LINE__);
        return gpu_launched(name, (const void *)tf32x3_wgmma<2>, grid, dim3(S::threads), S::smem, __FILE__, __LINE__);
    });
}

/* The time of a product, in k-tiles of the busiest SM, when its tiles of
 * 128 x 128 are cut in s slices of k: blocks run one an SM, a wave at a
 * time; each costs about 2 k-tiles more to start and to store. The slices'
 * sum: through device memory, about 3 k-tiles more (the partials' trip
 * through the L2, the fences, the last slice's reads: measured against
 * the clustered sum at 511x777x1023, PERF.md, ## tf32x3); in a
 * cluster, nothing the model counts, but a wave is as many clusters as the
 * GPU runs at once, which is not SMs / s (a cluster's blocks share a GPC:
 * on the H100 39 clusters of 3, 30 of 4). A model to choose s and the sum,
 * no more; -1 where it cannot run. */
static long long cost(long long tiles, int kt, int s, int cluster)
{
    long long per_wave = !cluster ? gpu_sm_count() : s > 1 ? sm90.clusters[s] : 0;
    long long blocks = cluster ? tiles : tiles * s;
    if (per_wave <= 0 || (!cluster && s > 1 && blocks * 128 * WG_BN * 4 > WG_MAX_WORK))
        return -1;
    if (cluster && blocks > per_wave) /* measured slower than the sum in memory, every time */
        return -1;
    return (blocks + per_wave - 1) / per_wave * ((kt + s - 1) / s + 2) + (!cluster && s > 1 ? 3 : 0);
}

/* 128-row tiles, their k cut in the slices the model says finish first,
 * summed as it says (1037x1055x1031: 81 tiles fill 81 of 132 SMs; in 3
 * slices, 243 blocks in two waves of a third of k each, summed through
 * device memory: 81 clusters of 3 would take three waves). Where one slice
 * is best and 128-row tiles leave more than half the SMs idle, 64-row
 * tiles, two blocks to an SM. Not sooner: a 128-row tile shares each tile
 * of b between two warpgroups, and with a long k that told (H100,
 * 1537x8191x1539: 0.62 ms in 128-row tiles, 0.76 in 64-row ones). */
void tf32x3_sm90_plan(int mp, int np, int kp, tf32x3_plan *pl)
{
    long long tiles = (long long)(mp / 128) * (np / WG_BN), best_cost = -1;
    int kt = kp / WG_BK, best = 1, cluster = 0;
    for (int s = 1; s <= WG_MAX_SLICES && s <= kt; s++)
        for (int c = 0; c < 2; c++) {
            long long t = cost(tiles, kt, s, c);
            if (t >= 0 && (best_cost < 0 || t < best_cost))
                best_cost = t, best = s, cluster = c;
        }
    /* The split beside the product: one slice, one wave of 128-row tiles,
     * at least a quarter of the SMs left to split on; its cost the
     * product's alone (the split keeps ahead of it, a k-tile column at a
     * time, and the first is ready in about a k-tile). The others pay for
     * the split pass first: its bytes at about 4 MB a k-tile's time (3
     * TB/s for the ~1.3 us a k-tile takes on the H100), and its launch. */
    long long idle = gpu_sm_count() - tiles;
    long long split_cost = (4ll * (mp + np) * kp + 8ll * (mp + np) * kp) / (4 << 20) + 2;
    pl->streamed = kt > 0 && 4 * idle >= gpu_sm_count() && kt + 3 < best_cost + split_cost ? (int)idle : 0;
    if (pl->streamed)
        best = 1, cluster = 0;
    pl->kslice = kt > 0 ? (kt + best - 1) / best : 1;
    pl->slices = kt > 0 ? (kt + pl->kslice - 1) / pl->kslice : 1; /* no empty slice */
    /* fewer slices than chosen, in a cluster of a size that cannot run */
    pl->cluster = pl->slices > 1 && cluster && sm90.clusters[pl->slices] > 0;
    pl->bm = pl->slices == 1 && !pl->streamed && 2 * tiles <= gpu_sm_count() ? 64 : 128;
    pl->tiles = pl->slices > 1 && !pl->cluster ? (int)tiles : 0;
    pl->work_floats = (size_t)pl->tiles * pl->slices * 128 * WG_BN;
}

int tf32x3_sm90_run(const tf32x3_parts *p, const tf32x3_plan *pl)
{
    return pl->bm == 128 ? run<2>(p, pl) : run<1>(p, pl);
}
