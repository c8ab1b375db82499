/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fill.cu: set a float buffer to one value. */

#include "nn-cuda-private.h"
#include "launch.cuh"

__global__ void
fill_kernel (float *__restrict__ dst, float value, size_t count)
{
  nn_kernel_enter ();
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < count;
       i += (size_t) gridDim.x * blockDim.x)
    dst[i] = value;
}

int
_nn_cuda_fill (void *vctx, float *dst, float value, size_t count)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (count == 0)
    return NN_BACKEND_OK;
  if (value == 0.0f && !signbit (value))
    return _nn_cuda_fail (ctx, cudaMemsetAsync (dst, 0, count * sizeof (float), ctx->lane.stream),
                          "fill");
  _nn_cuda_launch (ctx, fill_kernel, _nn_cuda_blocks (ctx, count, 256), 256, 0, dst, value, count);
  return _nn_cuda_check_launch (ctx, "fill");
}
