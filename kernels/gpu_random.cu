/* gpu_random.cu - rand and randn on the device: the Philox stream of
 * kernels/philox.h, bit for bit the host's numbers. Built with -fmad=false
 * (Makefile): a fused multiply-add would round differently from the host. */
#include "kernels/gpu_internal.h"
#include "kernels/philox.h"

extern "C" cuk_random_fn gpu_random; /* shared by every GPU mode (modes.c) */
/* Elements first .. first + n - 1 of the stream into out (mode multi's slabs). */
extern "C" int gpu_random_from(cuk_dist dist, float *out, size_t first, size_t n, uint64_t seed, uint64_t stream);

/* One thread per Philox block: element i of the stream is value i%4 of
 * block i/4. out holds elements first .. first + n - 1 (a slab of a spread
 * matrix starts anywhere), so only the first and last runs of 4 can be
 * short. */
static __global__ void random_kernel(int normal, float *out, size_t first, size_t n, uint64_t seed,
                                     uint64_t stream)
{
    size_t b0 = first / 4, blocks = (first + n + 3) / 4 - b0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x; b < blocks; b += stride) {
        float v[4];
        philox_block(normal, b0 + b, stream, seed, v);
        size_t i = (b0 + b) * 4;
        for (int j = 0; j < 4; j++)
            if (i + j >= first && i + j < first + n)
                out[i + j - first] = v[j];
    }
}

extern "C" int gpu_random_from(cuk_dist dist, float *out, size_t first, size_t n, uint64_t seed, uint64_t stream)
{
    if (n == 0)
        return 0;
    size_t blocks = (first + n + 3) / 4 - first / 4;
    GPU_LAUNCH(random_kernel, gpu_grid_1d(blocks), GPU_THREADS, 0, dist == CUK_RAND_NORMAL, out, first, n, seed,
               stream);
    return 0;
}

extern "C" int gpu_random(cuk_dist dist, float *out, size_t n, uint64_t seed, uint64_t stream)
{
    return gpu_random_from(dist, out, 0, n, seed, stream);
}
