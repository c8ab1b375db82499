/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dropout.cc: the dropout ops (kernels/dropout.cu). */

#include "nn-cuda-launch.h"

NN_CUDA_FATBIN (dropout, "dropout.cu")
#include "kernels/dropout.h"

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
