/* pad.cu - copies of operands whose rows are not 16-byte aligned, each row
 * padded with zeros to a multiple of 4 floats, for the tiled kernels that
 * read rows 16 bytes at a time (`set align`). */
#include "kernels/fast/fast.cuh"

/* Where b's rows are not a multiple of 4 floats apart (ldb), or the
 * matrix does not start on 16 bytes, the kernels above copy every float
 * of it on its own: four times the copies of a stage, and a slower
 * kernel (plan.c, raw_over). The same for a in the 16 x 8 kernel; the
 * others copy a 4 bytes at a time anyway (copy_a). A copy whose rows are
 * padded with zeros to a multiple of 4 costs a pass over the operand; `set
 * align` says which (auto: the estimates decide). */


/* dst = src with each row padded by zeros to ldd floats. A warp copies a
 * chunk of FAST_PAD_CHUNK floats of a row at a time, its lanes 32 floats
 * apart (128-byte accesses both ways, FAST_PAD_CHUNK / 32 in flight);
 * chunks rather than whole rows, so that a few long rows (97 x 1999)
 * still spread over the chip. 512 ran the copies much faster than chunks
 * of 128 (four loads in flight a lane), 1024 no faster. The grid's first
 * `split` blocks copy job a,
 * the others job b. */
#define FAST_PAD_CHUNK 512
static __global__ void fast_pad_rows(fast_pad_job a, fast_pad_job b, unsigned split)
{
    constexpr int U = FAST_PAD_CHUNK / 32;
    gpu_next_may_start(); /* the product's blocks, waiting, in place as the copy ends */
    int second = blockIdx.x >= split;
    const fast_pad_job &j = second ? b : a;
    long long warps = (second ? gridDim.x - split : split) * (blockDim.x / 32);
    long long per_row = (j.ldd + FAST_PAD_CHUNK - 1) / FAST_PAD_CHUNK, chunks = per_row * j.rows;
    int lane = threadIdx.x % 32;
    for (long long w = (blockIdx.x - (second ? split : 0)) * (blockDim.x / 32) + threadIdx.x / 32; w < chunks;
         w += warps) {
        long long i = w / per_row;
        int c = (int)(w - i * per_row) * FAST_PAD_CHUNK + lane;
        const float *s = j.src + i * j.lds;
        float *d = j.dst + i * j.ldd;
        float v[U];
#pragma unroll
        for (int t = 0; t < U; t++)
            v[t] = c + 32 * t < j.cols ? s[c + 32 * t] : 0.f;
#pragma unroll
        for (int t = 0; t < U; t++)
            if (c + 32 * t < j.ldd)
                d[c + 32 * t] = v[t];
    }
}

#define FAST_PAD_WARPS 8 /* warps of a block of fast_pad_rows */

/* The copies in one launch, the blocks shared between the jobs as their
 * bytes are; a job of 0 rows copies nothing. */
int fast_pad_run(const fast_pad_job *a, const fast_pad_job *b)
{
    double fa = (double)a->rows * a->ldd, fb = (double)b->rows * b->ldd;
    unsigned need = gpu_cdiv((long long)a->rows * gpu_cdiv(a->ldd, FAST_PAD_CHUNK), FAST_PAD_WARPS) +
                    gpu_cdiv((long long)b->rows * gpu_cdiv(b->ldd, FAST_PAD_CHUNK), FAST_PAD_WARPS);
    unsigned full = (unsigned)gpu_sm_count() * 8, blocks = need < full ? need : full;
    unsigned split = b->rows == 0 ? blocks : (unsigned)(blocks * fa / (fa + fb));
    if (split < 1)
        split = 1;
    if (b->rows && split >= blocks)
        blocks = split + 1;
    GPU_LAUNCH(fast_pad_rows, blocks, FAST_PAD_WARPS * 32, 0, *a, *b, split);
    return 0;
}
