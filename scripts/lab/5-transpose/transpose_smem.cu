// Exercise 5: a transpose without bank conflicts.
//
// out (cols x rows) = in (rows x cols) transposed. Read straight across a
// row of in and write straight across a row of out, and one of the two
// walks down a column: 32 threads of a warp touch 32 rows, 32 memory
// transactions. So a block of 32 x 8 threads moves a 32 x 32 tile through
// shared memory: it reads the tile row by row (coalesced), and writes it
// out transposed, again row by row, reading the tile down its columns.
//
// Shared memory has 32 banks, 4 bytes wide: float tile[32][32] puts a
// whole column of the tile in one bank, and a warp reading down it waits
// for 32 turns of that bank. One float of padding a row, tile[32][33],
// puts the column in 32 different banks.
//
// Fill in the TODOs, then run check.cuk beside this file.

#define TILE 32
#define ROWS 8 /* threads in y: each moves TILE / ROWS floats */

// cuk: block 32 8; grid ceil(cols / 32) ceil(rows / 32)
extern "C" __global__ void cuk_transpose(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE]; // TODO: pad it against bank conflicts
    int x = blockIdx.x * TILE + threadIdx.x; // a column of in
    int y = blockIdx.y * TILE + threadIdx.y; // a row of in
    for (int r = 0; r < TILE; r += ROWS)
        if (x < cols && y + r < rows)
            tile[threadIdx.y + r][threadIdx.x] = in[(size_t)(y + r) * cols + x];
    __syncthreads();

    // TODO: write the tile out transposed. This block's tile goes to rows
    //       blockIdx.x * TILE ... of out (a column of in is a row of out)
    //       and columns blockIdx.y * TILE ...; thread (threadIdx.x,
    //       threadIdx.y + r) writes out's element in row
    //       blockIdx.x * TILE + threadIdx.y + r, column
    //       blockIdx.y * TILE + threadIdx.x, which is
    //       tile[threadIdx.x][threadIdx.y + r]. Mind the edges: out has
    //       cols rows and rows columns.
}
