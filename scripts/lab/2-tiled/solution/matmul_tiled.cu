// Exercise 2, solved: the tiled product. Each float a block loads from
// global memory is read 16 times from shared memory.

#define T 16

// cuk: block 16 16; grid ceil(n / 16) ceil(m / 16); reuse 16
extern "C" __global__ void cuk_matmul(float *C, const float *A, const float *B, int m, int n, int k)
{
    __shared__ float As[T][T], Bs[T][T];
    int ty = threadIdx.y, tx = threadIdx.x;
    int i = blockIdx.y * T + ty, j = blockIdx.x * T + tx;
    float s = 0.0f;
    for (int l0 = 0; l0 < k; l0 += T) {
        As[ty][tx] = i < m && l0 + tx < k ? A[i * k + l0 + tx] : 0.0f;
        Bs[ty][tx] = l0 + ty < k && j < n ? B[(l0 + ty) * n + j] : 0.0f;
        __syncthreads();
        for (int l = 0; l < T; l++)
            s += As[ty][l] * Bs[l][tx];
        __syncthreads();
    }
    if (i < m && j < n)
        C[i * n + j] = s;
}
