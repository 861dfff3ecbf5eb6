// Exercise 1, solved: the naive product, one thread per element of C.
// Each thread reads a row of A and a column of B from global memory: two
// floats loaded for every multiply-add.

// cuk: block 16 16; grid ceil(n / 16) ceil(m / 16); reuse 1
extern "C" __global__ void cuk_matmul(float *C, const float *A, const float *B, int m, int n, int k)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y; // the row of C
    int j = blockIdx.x * blockDim.x + threadIdx.x; // its column: neighbours in a warp, neighbours in memory
    if (i >= m || j >= n)
        return;
    float s = 0.0f;
    for (int l = 0; l < k; l++)
        s += A[i * k + l] * B[l * n + j];
    C[i * n + j] = s;
}
