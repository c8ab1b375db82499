/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bias-act.cc: the bias + activation ops, the dense layers' dz step and the
 * bias gradients' sums over images (kernels/bias-act.cu).
 */

#include "nn-cuda-launch.h"

#include <stdint.h>

NN_CUDA_FATBIN (bias_act, "bias-act.cu")
#include "kernels/bias-act.h"

int
_nn_cuda_bias_act_forward (void *vctx, int act, float *y, const float *bias, int n, int channels,
                           int spatial)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (n < 0 || channels < 0 || spatial < 0 || act < NN_BK_ACT_LINEAR || act > NN_BK_ACT_SOFTMAX)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "bias_act_forward: bad arguments");
  size_t total = (size_t) n * channels * spatial;
  if (total == 0)
    return NN_BACKEND_OK;
  if (act == NN_BK_ACT_SOFTMAX)
    {
      size_t warps = (size_t) n * spatial;
      _nn_cuda_launch (ctx, bias_act_softmax_kernel, (unsigned int) ((warps * 32 + 255) / 256), 256,
                       0, y, bias, n, channels, spatial);
    }
  else if (act == NN_BK_ACT_LINEAR && bias == NULL)
    return NN_BACKEND_OK;
  else if (spatial % 4 == 0 && (uintptr_t) y % 16 == 0 && total < 0xffffffffu)
    _nn_cuda_launch (ctx, bias_act_vec4_kernel, _nn_cuda_blocks (ctx, total / 4, 256), 256, 0, act,
                     (float4 *) y, bias, (unsigned int) (total / 4), (unsigned int) channels,
                     (unsigned int) (spatial / 4));
  else if (total < 0xffffffffu)
    _nn_cuda_launch (ctx, bias_act_kernel<32>, _nn_cuda_blocks (ctx, total, 256), 256, 0, act, y,
                     bias, (unsigned int) total, (unsigned int) channels, (unsigned int) spatial);
  else
    _nn_cuda_launch (ctx, bias_act_kernel<64>, _nn_cuda_blocks (ctx, total, 256), 256, 0, act, y,
                     bias, total, (size_t) channels, (size_t) spatial);
  return _nn_cuda_check_launch (ctx, "bias_act_forward");
}

int
_nn_cuda_bias_act_backward (void *vctx, int act, const float *y, float *dy, float *dbias, int n,
                            int channels, int spatial)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (n < 0 || channels < 0 || spatial < 0 || act < NN_BK_ACT_LINEAR || act > NN_BK_ACT_SOFTMAX)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "bias_act_backward: bad arguments");
  if (channels == 0)
    return NN_BACKEND_OK;
  if ((size_t) n * spatial == 0)
    {
      if (dbias != NULL)
        return _nn_cuda_fail (ctx,
                              nn_cu::cuMemsetD8Async ((CUdeviceptr) dbias, 0,
                                                      channels * sizeof (float), ctx->lane.stream),
                              "bias_act_backward");
      return NN_BACKEND_OK;
    }
  if (act == NN_BK_ACT_SOFTMAX)
    {
      size_t warps = (size_t) n * spatial;
      _nn_cuda_launch (ctx, bias_act_softmax_backward_kernel,
                       (unsigned int) ((warps * 32 + 255) / 256), 256, 0, y, dy, n, channels,
                       spatial);
      if ((rc = _nn_cuda_check_launch (ctx, "bias_act_backward (softmax)")) != 0)
        return rc;
      if (dbias == NULL)
        return NN_BACKEND_OK;
      act = NN_BK_ACT_LINEAR; /* dz is in dy now: only the bias sum is left */
    }
  if (spatial == 1)
    {
      dim3 block (32, DENSE_ROWS);
      _nn_cuda_launch (ctx, bias_act_dense_backward_kernel, (channels + 31) / 32, block, 0, act, y,
                       dy, dbias, n, channels, 0.0f, 1.0f, 0, (const int64_t *) NULL);
      return _nn_cuda_check_launch (ctx, "bias_act_backward");
    }
  int splits = _nn_cuda_channel_splits (ctx, n, channels);
  if (splits < 1)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                              "bias_act_backward: %d channels is more than this backend handles",
                              channels);
  dim3 grid (splits, channels);
  int vec4 = spatial % 4 == 0 && ((uintptr_t) y | (uintptr_t) dy) % 16 == 0;
  _nn_cuda_launch (ctx, bias_act_image_backward_kernel, grid, 256, 0, act, y, dy,
                   dbias ? ctx->lane.partials : NULL, n, channels, spatial, vec4);
  if ((rc = _nn_cuda_check_launch (ctx, "bias_act_backward")) != 0 || dbias == NULL)
    return rc;
  return _nn_cuda_sum_partials (ctx, dbias, channels, splits, "bias_act_backward (bias sum)");
}

int
_nn_cuda_channel_splits (const NnCudaContext *ctx, int n, int channels)
{
  /* Enough blocks to fill the GPU, within the partials scratch. */
  if (channels < 1 || channels > 65535)
    return 0;
  int splits = (ctx->multiprocessors * 8 + channels - 1) / channels;
  if (splits > n)
    splits = n;
  if (splits < 1)
    splits = 1;
  if ((size_t) splits * channels > NN_CUDA_PARTIALS)
    splits = NN_CUDA_PARTIALS / channels;
  return splits;
}

int
_nn_cuda_sum_partials (NnCudaContext *ctx, float *dbias, int channels, int splits, const char *what)
{
  _nn_cuda_launch (ctx, bias_act_sum_partials_kernel, (channels + 127) / 128, 128, 0,
                   ctx->lane.partials, dbias, channels, splits);
  return _nn_cuda_check_launch (ctx, what);
}

int
_nn_cuda_dense_dz (NnCudaContext *ctx, int act, const float *y, float *dy, float *dbias, int n,
                   int channels, float rate, uint64_t seed, const int64_t *step)
{
  if (channels <= 0)
    return NN_BACKEND_OK;
  if (n <= 0)
    {
      if (dbias != NULL)
        return _nn_cuda_fail (ctx,
                              nn_cu::cuMemsetD8Async ((CUdeviceptr) dbias, 0,
                                                      channels * sizeof (float), ctx->lane.stream),
                              "dense_backward");
      return NN_BACKEND_OK;
    }
  /* Without the bias sums (dense_backward_update's routes, whose kernels
   * sum them themselves), a band of rows per block; with them one block
   * walks every row of 32 channels (the cnn's 256 x 128 dz on 4 blocks).
   * The banded grid was not timed on its own. */
  dim3 block (32, DENSE_ROWS);
  dim3 grid ((channels + 31) / 32, dbias != NULL ? 1 : (n + DENSE_ROWS - 1) / DENSE_ROWS);
  _nn_cuda_launch (ctx, bias_act_dense_backward_kernel, grid, block, 0, act, y, dy, dbias, n,
                   channels, rate, _nn_cuda_dropout_scale (rate), seed, step);
  return _nn_cuda_check_launch (ctx, "dense_backward");
}
