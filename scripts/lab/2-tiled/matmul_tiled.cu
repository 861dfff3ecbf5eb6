// Exercise 2: the tiled product. A block of 16 x 16 threads computes a
// 16 x 16 tile of C; it walks along k a tile at a time, each thread
// loading one float of A's tile and one of B's into shared memory, where
// the whole block then reads them 16 times each.
//
// C (m x n) = A (m x k) @ B (k x n), row-major float32. m, n and k need
// not be multiples of 16: a tile that sticks out past a matrix is filled
// with zeros there, so that it adds nothing.
//
// Fill in the TODOs, then run check.cuk beside this file.

#define T 16

// cuk: block 16 16; grid ceil(n / 16) ceil(m / 16); reuse 16
extern "C" __global__ void cuk_matmul(float *C, const float *A, const float *B, int m, int n, int k)
{
    __shared__ float As[T][T], Bs[T][T];
    int ty = threadIdx.y, tx = threadIdx.x;
    int i = blockIdx.y * T + ty, j = blockIdx.x * T + tx;
    float s = 0.0f;
    for (int l0 = 0; l0 < k; l0 += T) {
        // TODO: As[ty][tx] = A's element in row i, column l0 + tx, or 0
        //       where that is outside A; Bs[ty][tx] likewise from B, row
        //       l0 + ty, column j.
        As[ty][tx] = 0.0f;
        Bs[ty][tx] = 0.0f;

        __syncthreads(); // every load of the tiles done before any thread reads them

        // TODO: add the products of row ty of As with column tx of Bs to s.

        __syncthreads(); // every read done before the next tiles overwrite them
    }
    if (i < m && j < n)
        C[i * n + j] = s;
}
