/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fill.cc: the fill op (kernels/fill.cu); zero is a memset. */

#include "nn-cuda-launch.h"

#include <math.h>

NN_CUDA_FATBIN (fill, "fill.cu")
#include "kernels/fill.h"

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
    return _nn_cuda_fail (ctx,
                          nn_cu::cuMemsetD8Async ((CUdeviceptr) dst, 0, count * sizeof (float),
                                                  ctx->lane.stream),
                          "fill");
  _nn_cuda_launch (ctx, fill_kernel, _nn_cuda_blocks (ctx, count, 256), 256, 0, dst, value, count);
  return _nn_cuda_check_launch (ctx, "fill");
}
