// Exercise 5, solved: a 32 x 32 tile through shared memory, padded to 33
// floats a row so that a column of it lies in 32 different banks.

#define TILE 32
#define ROWS 8

// cuk: block 32 8; grid ceil(cols / 32) ceil(rows / 32)
extern "C" __global__ void cuk_transpose(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int r = 0; r < TILE; r += ROWS)
        if (x < cols && y + r < rows)
            tile[threadIdx.y + r][threadIdx.x] = in[(size_t)(y + r) * cols + x];
    __syncthreads();
    int ox = blockIdx.y * TILE + threadIdx.x; // a column of out: a row of in
    int oy = blockIdx.x * TILE + threadIdx.y; // a row of out: a column of in
    for (int r = 0; r < TILE; r += ROWS)
        if (ox < rows && oy + r < cols)
            out[(size_t)(oy + r) * rows + ox] = tile[threadIdx.x][threadIdx.y + r];
}
