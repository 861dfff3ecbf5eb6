// Exercise 3: fix the uncoalesced access. This is a naive product whose
// threads were laid out the wrong way round: threadIdx.x walks the rows i,
// so the 32 threads of a warp read B and write C 32 rows apart, n floats
// from each other, and every one of their accesses is a memory
// transaction of its own.
//
// The launch line is already the coalesced one: grid x covers the n
// columns of C, grid y its m rows. Make the kernel match it, so that
// threadIdx.x walks the columns j and a warp reads 32 neighbouring floats
// of a row of B (one transaction) and writes 32 neighbouring floats of C.
// As shipped the two disagree, and check.cuk says where C goes unwritten.
//
// C (m x n) = A (m x k) @ B (k x n), row-major float32.

// cuk: block 16 16; grid ceil(n / 16) ceil(m / 16); reuse 1
extern "C" __global__ void cuk_matmul(float *C, const float *A, const float *B, int m, int n, int k)
{
    // TODO: swap the roles of x and y: j from blockIdx.x and threadIdx.x,
    //       i from blockIdx.y and threadIdx.y.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= n)
        return;
    float s = 0.0f;
    for (int l = 0; l < k; l++)
        s += A[i * k + l] * B[l * n + j];
    C[i * n + j] = s;
}
