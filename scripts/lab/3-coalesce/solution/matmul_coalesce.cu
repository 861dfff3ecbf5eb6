// Exercise 3, solved: threadIdx.x walks the columns j, so a warp reads 32
// neighbouring floats of a row of B, and A's one float, in a transaction,
// and writes 32 neighbouring floats of C.

// cuk: block 16 16; grid ceil(n / 16) ceil(m / 16); reuse 1
extern "C" __global__ void cuk_matmul(float *C, const float *A, const float *B, int m, int n, int k)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m || j >= n)
        return;
    float s = 0.0f;
    for (int l = 0; l < k; l++)
        s += A[i * k + l] * B[l * n + j];
    C[i * n + j] = s;
}
