// Exercise 4: a reduction, the sum of all n elements of a matrix.
//
// Each block of 256 threads sums its 256 elements in shared memory as a
// tree: in each step the lower half of the threads still busy adds in
// the upper half's values, until partial[0] holds the block's sum. Thread
// 0 then adds that to *out with atomicAdd (cuk sets *out to 0 before the
// launch), so that the blocks' sums add up to the whole.
//
// Fill in the TODOs, then run check.cuk beside this file.

#define THREADS 256

// cuk: block 256; grid ceil(n / 256)
extern "C" __global__ void cuk_sum(float *out, const float *in, int n)
{
    __shared__ float partial[THREADS];
    int t = threadIdx.x, i = blockIdx.x * THREADS + t;
    partial[t] = i < n ? in[i] : 0.0f; // past the end: 0, which adds nothing
    __syncthreads();

    // TODO: the tree: for stride = THREADS / 2, THREADS / 4, ..., 1, the
    //       threads t < stride add partial[t + stride] to partial[t]; every
    //       thread waits (__syncthreads) before the next step reads them.

    // TODO: thread 0 adds the block's sum, partial[0], to *out with
    //       atomicAdd.
}
