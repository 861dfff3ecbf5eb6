// Exercise 1: the naive product, one thread per element of C.
//
// C (m x n) = A (m x k) @ B (k x n), every matrix row-major float32: the
// element in row i, column j of C is C[i * n + j]. The launch line below
// starts a 16 x 16 block of threads for each 16 x 16 tile of C; the grid
// covers n columns in x and m rows in y, rounded up to whole blocks.
//
// Fill in the TODOs, then run check.cuk beside this file.

// cuk: block 16 16; grid ceil(n / 16) ceil(m / 16)
extern "C" __global__ void cuk_matmul(float *C, const float *A, const float *B, int m, int n, int k)
{
    // TODO: the row i and column j of C this thread computes, from
    //       blockIdx, blockDim and threadIdx (x walks the columns).

    // TODO: the last blocks stick out past the matrix when m or n is not a
    //       multiple of 16: a thread outside it must not write.

    // TODO: the dot product of row i of A with column j of B, summed in a
    //       float, then stored in C[i * n + j].
}
