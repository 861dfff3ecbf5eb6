/* gpu_async.h - cp.async copies from global to shared memory, which the
 * kernels with a pipeline of stages share (kernels/fast/, the mma.sync
 * kernel of gpu_tf32x3.cu). Include from .cu only. */
#ifndef CUK_GPU_ASYNC_H
#define CUK_GPU_ASYNC_H

/* cp.async (sm_80+) copies global to shared memory without passing through
 * registers, so the copies of later stages run while this stage computes.
 * With ok false nothing is read and the destination is zero-filled (the
 * src-size operand 0): edge tiles need no other bounds checks, and the
 * source is never read out of bounds. 16 bytes (src 16-byte aligned) go
 * .cg, past L1: operand tiles are shared by many blocks through L2, not
 * L1.
 * Older GPUs copy synchronously; the barriers then order everything. */
template <int BYTES> static __device__ __forceinline__ void copy_async(float *dst, const float *src, bool ok)
{
#if __CUDA_ARCH__ >= 800
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    if (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(ok ? 16 : 0));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src), "r"(ok ? 4 : 0));
#else
    if (BYTES == 16)
        *(float4 *)dst = ok ? *(const float4 *)src : make_float4(0.f, 0.f, 0.f, 0.f);
    else
        *dst = ok ? *src : 0.0f;
#endif
}

/* Close the group of copies issued since the last commit. */
static __device__ __forceinline__ void copy_commit(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/* Wait until at most `pending` committed groups are still in flight. */
template <int pending> static __device__ __forceinline__ void copy_wait(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending));
#endif
}

#endif
