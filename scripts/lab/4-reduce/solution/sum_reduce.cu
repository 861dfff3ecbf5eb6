// Exercise 4, solved: each block's sum by a tree in shared memory, the
// blocks' sums added into *out with atomicAdd.

#define THREADS 256

// cuk: block 256; grid ceil(n / 256)
extern "C" __global__ void cuk_sum(float *out, const float *in, int n)
{
    __shared__ float partial[THREADS];
    int t = threadIdx.x, i = blockIdx.x * THREADS + t;
    partial[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride /= 2) {
        if (t < stride)
            partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, partial[0]);
}
