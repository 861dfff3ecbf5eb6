/* gpu_random.cu - rand and randn on the device: the Philox stream of
 * kernels/philox.h, bit for bit the host's numbers. Built with -fmad=false
 * (Makefile): a fused multiply-add would round differently from the host. */
#include "kernels/gpu_internal.h"
#include "kernels/philox.h"

extern "C" cuk_random_fn gpu_random; /* shared by every GPU mode (modes.c) */

/* One thread per Philox block: element i is value i%4 of block i/4, so out
 * is written in runs of 4 and only the last run can be short. */
static __global__ void random_kernel(int normal, float *out, size_t n, uint64_t seed, uint64_t stream)
{
    size_t blocks = (n + 3) / 4;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x; b < blocks; b += stride) {
        float v[4];
        philox_block(normal, b, stream, seed, v);
        size_t i = b * 4;
        for (int j = 0; j < 4; j++)
            if (i + j < n)
                out[i + j] = v[j];
    }
}

extern "C" int gpu_random(cuk_dist dist, float *out, size_t n, uint64_t seed, uint64_t stream)
{
    if (n == 0)
        return 0;
    size_t blocks = (n + 3) / 4;
    GPU_LAUNCH(random_kernel, gpu_grid_1d(blocks), GPU_THREADS, 0,
               dist == CUK_RAND_NORMAL, out, n, seed, stream);
    return 0;
}
