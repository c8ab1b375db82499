/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dropout.cu: inverted dropout with the counter-based mask of
 * nn_dropout_keep, so every backend drops the same elements for a seed and
 * step. The step is read on the device: a captured step replays correctly.
 */

#include "nn-cuda-private.h"
#include "launch.cuh"

__global__ void
dropout_kernel (float *__restrict__ y, const float *__restrict__ x, size_t count, float rate,
                float scale, uint64_t seed, const int64_t *__restrict__ step)
{
  nn_kernel_enter ();
  int64_t t = step != NULL ? *step : 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < count;
       i += (size_t) gridDim.x * blockDim.x)
    y[i] = nn_dropout_keep (seed, t, i, rate) ? x[i] * scale : 0.0f;
}

static int
dropout (NnCudaContext *ctx, float *y, const float *x, size_t count, float rate, uint64_t seed,
         const int64_t *step, const char *what)
{
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (!(rate >= 0.0f && rate < 1.0f))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "%s: rate %g is not in [0, 1)", what, rate);
  if (count == 0)
    return NN_BACKEND_OK;
  _nn_cuda_launch (ctx, dropout_kernel, _nn_cuda_blocks (ctx, count, 256), 256, 0, y, x, count,
                   rate, _nn_cuda_dropout_scale (rate), seed, step);
  return _nn_cuda_check_launch (ctx, what);
}

int
_nn_cuda_dropout_forward (void *vctx, float *y, const float *x, size_t count, float rate,
                          uint64_t seed, const int64_t *step)
{
  return dropout ((NnCudaContext *) vctx, y, x, count, rate, seed, step, "dropout forward");
}

int
_nn_cuda_dropout_backward (void *vctx, float *dx, const float *dy, size_t count, float rate,
                           uint64_t seed, const int64_t *step)
{
  return dropout ((NnCudaContext *) vctx, dx, dy, count, rate, seed, step, "dropout backward");
}
