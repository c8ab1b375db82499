/* transpose.cu: batched matrix transpose, (batch, rows, cols) ->
 * (batch, cols, rows), through a shared-memory tile so reads and writes are
 * both coalesced. Used to move convolution tensors between the engine's NCHW
 * and the NHWC layout cuDNN's tensor-core kernels prefer.
 */

#include "nn-cuda-private.h"

#define TILE 32

__global__ void
transpose_kernel (const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
  __shared__ float tile[TILE][TILE + 1];
  size_t plane = (size_t) rows * cols;
  in += blockIdx.z * plane;
  out += blockIdx.z * plane;
  int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
  for (int j = threadIdx.y; j < TILE; j += blockDim.y)
    {
      int r = r0 + j, c = c0 + threadIdx.x;
      if (r < rows && c < cols)
        tile[j][threadIdx.x] = in[(size_t) r * cols + c];
    }
  __syncthreads ();
  for (int j = threadIdx.y; j < TILE; j += blockDim.y)
    {
      int c = c0 + j, r = r0 + threadIdx.x;
      if (r < rows && c < cols)
        out[(size_t) c * rows + r] = tile[threadIdx.x][j];
    }
}

int
_nn_cuda_transpose (NnCudaContext *ctx, const float *in, float *out, int batch, int rows, int cols)
{
  if (batch <= 0 || rows <= 0 || cols <= 0)
    return NN_BACKEND_OK;
  dim3 block (TILE, 8);
  for (int b0 = 0; b0 < batch; b0 += 65535)
    {
      int nb = batch - b0 < 65535 ? batch - b0 : 65535;
      dim3 grid ((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE, nb);
      size_t offset = (size_t) b0 * rows * cols;
      transpose_kernel<<<grid, block, 0, ctx->stream>>> (in + offset, out + offset, rows, cols);
    }
  return _nn_cuda_check_launch (ctx, "transpose");
}
