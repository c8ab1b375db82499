/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dense-update.cc: a dense layer's backward with the optimizer's update
 * built in, the ABI's dense_backward_update (kernels/dense-update.cu says
 * how), whether it pays for a layer, and the helpers dense_loss_dx shares
 * with it: whether a layer below is one the kernels take, and the input
 * gradient on cuBLAS with that layer's dz.
 */

#include "nn-cuda-launch.h"

NN_CUDA_FATBIN (dense_update, "dense-update.cu")
#include "kernels/dense-update.h"

int
_nn_cuda_below_ok (const NnBackendBelow *below, const int64_t *step)
{
  return below == NULL
         || (below->act >= NN_BK_ACT_LINEAR && below->act < NN_BK_ACT_SOFTMAX
             && below->rate >= 0.0f && below->rate < 1.0f
             && (below->act == NN_BK_ACT_LINEAR || below->y != NULL)
             && (below->rate == 0.0f || step != NULL));
}

int
_nn_cuda_dx_below (NnCudaContext *ctx, int n, int in, int out, const float *dz, const float *w,
                   float *dx, const NnBackendBelow *below, const int64_t *step)
{
  int rc = _nn_cuda_gemm (ctx, 0, 1, n, in, out, 1.0f, dz, out, w, out, 0.0f, dx, in);
  if (rc != 0 || below == NULL || (below->act == NN_BK_ACT_LINEAR && below->rate == 0.0f))
    return rc;
  return _nn_cuda_dense_dz (ctx, below->act, below->y, dx, NULL, n, in, below->rate, below->seed,
                            step);
}

/* Whether the wide layers run on the tensor-core kernel. */
static bool
tensor_cores (const NnCudaContext *ctx)
{
  return ctx->tf32 && ctx->compute_major >= 8;
}

template <int KIND>
static void
launch_kind (NnCudaContext *ctx, const DenseUpdate &d, const OptArgs &o)
{
  if (d.out <= DN_OUT)
    {
      _nn_cuda_launch (ctx, dense_update_narrow_kernel<KIND>, (d.in + DN_INPUTS - 1) / DN_INPUTS,
                       DN_THREADS, 0, d, o);
      return;
    }
  bool vec = d.out % 4 == 0 && ((uintptr_t) d.w | (uintptr_t) d.w_s0) % 16 == 0;
  uintptr_t v_at = (uintptr_t) d.w_s1;
  if (tensor_cores (ctx))
    {
      dim3 grid ((d.out + DT_TILE - 1) / DT_TILE, (d.in + DT_TILE - 1) / DT_TILE);
      if (!vec)
        _nn_cuda_launch (ctx, dense_update_tc_kernel<KIND, 0, 1>, grid, DT_THREADS, 0, d, o);
      else if (v_at % 16 == 0)
        _nn_cuda_launch (ctx, dense_update_tc_kernel<KIND, 1, 4>, grid, DT_THREADS, 0, d, o);
      else if (v_at % 8 == 0)
        _nn_cuda_launch (ctx, dense_update_tc_kernel<KIND, 1, 2>, grid, DT_THREADS, 0, d, o);
      else
        _nn_cuda_launch (ctx, dense_update_tc_kernel<KIND, 1, 1>, grid, DT_THREADS, 0, d, o);
      return;
    }
  dim3 grid ((d.out + DW_COLS - 1) / DW_COLS, (d.in + DW_ROWS - 1) / DW_ROWS);
  if (!vec)
    _nn_cuda_launch (ctx, dense_update_wide_kernel<KIND, 0, 1>, grid, 256, 0, d, o);
  else if (v_at % 16 == 0)
    _nn_cuda_launch (ctx, dense_update_wide_kernel<KIND, 1, 4>, grid, 256, 0, d, o);
  else if (v_at % 8 == 0)
    _nn_cuda_launch (ctx, dense_update_wide_kernel<KIND, 1, 2>, grid, 256, 0, d, o);
  else
    _nn_cuda_launch (ctx, dense_update_wide_kernel<KIND, 1, 1>, grid, 256, 0, d, o);
}

/* One pass over the batch, and enough blocks: for more outputs than the
 * narrow kernel takes, a tile per multiprocessor on tensor cores, and eight
 * blocks for the narrow kernel. On the H200, mlp-wide's layers (208 and
 * 256 tiles) made its step shorter than cuBLAS and separate kernels did,
 * but not on 32-bit multiply-adds; mlp-small's layers, 784 x 128 (26
 * tiles) and 128 x 10 (four narrow blocks), made its step longer, fused
 * together or the 128 x 10 alone, so they keep the separate kernels. */
int
_nn_cuda_dense_backward_update_pays (void *vctx, int n, int in, int out)
{
  const NnCudaContext *ctx = (const NnCudaContext *) vctx;
  int64_t tiles = (int64_t) ((in + DT_TILE - 1) / DT_TILE) * ((out + DT_TILE - 1) / DT_TILE);
  if (n < 1 || n > DU_KC || in < 1 || out < 1)
    return 0;
  if (out <= DN_OUT)
    return (in + DN_INPUTS - 1) / DN_INPUTS >= 8;
  return tensor_cores (ctx) && tiles >= ctx->multiprocessors;
}

int
_nn_cuda_dense_backward_update (void *vctx, int act, int n, int in, int out, const float *x,
                                float *w, float *bias, const float *y, float *dy, float *dx,
                                const NnBackendBelow *below, float rate, uint64_t seed,
                                int64_t *step, const NnBackendOptimizer *opt, float *w_state,
                                float *bias_state, size_t state_stride, int store_step)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (n < 0 || in <= 0 || out <= 0 || act < NN_BK_ACT_LINEAR || act >= NN_BK_ACT_SOFTMAX
      || !(rate >= 0.0f && rate < 1.0f) || step == NULL || opt == NULL
      || opt->kind < NN_BK_OPT_SGD || opt->kind > NN_BK_OPT_ADAGRAD || w_state == NULL
      || (bias != NULL && bias_state == NULL) || !_nn_cuda_below_ok (below, step))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "dense_backward_update: bad arguments");

  /* Whether the kernel may read w and its state early: the op before did
   * not write them, or a kernel of this op that does not write them runs
   * first (the dz kernel, cuBLAS' input gradient). Asked before those, as
   * they count as ops of their own. */
  const size_t w_bytes = (size_t) in * out * sizeof (float), b_bytes = (size_t) out * sizeof (float);
  float *w_s1 = w_state + state_stride, *b_s1 = bias != NULL ? bias_state + state_stride : NULL;
  bool untouched = _nn_cuda_untouched (ctx, w, w_bytes) && _nn_cuda_untouched (ctx, w_state, w_bytes)
                   && _nn_cuda_untouched (ctx, w_s1, w_bytes)
                   && (bias == NULL
                       || (_nn_cuda_untouched (ctx, bias, b_bytes)
                           && _nn_cuda_untouched (ctx, bias_state, b_bytes)
                           && _nn_cuda_untouched (ctx, b_s1, b_bytes)));
  bool launched = false;

  OptArgs o = opt_args (opt);
  bool narrow = out <= DN_OUT;
  int tiles = (out + DW_COLS - 1) / DW_COLS;
  DenseUpdate d = { act, n, in, out, x, y, dy, w, bias, w_state, w_state + state_stride,
                    bias_state, bias_state != NULL ? bias_state + state_stride : NULL, NULL,
                    below_of (below), rate,
                    _nn_cuda_dropout_scale (rate), seed, step,
                    store_step ? ctx->lane.counters + NN_CUDA_COUNTER_OPTIMIZER : NULL, 0, 0 };
  /* The input gradient in the kernel: the narrow one forms it whole; the
   * wide one in one pass, as partial sums when there are several columns of
   * tiles. */
  bool dx_here = dx != NULL
                 && (narrow
                     || (n <= DU_KC
                         && (tiles == 1 || (size_t) tiles * n * in <= NN_CUDA_DX_PARTIALS)));

  /* The wide kernels read dz: formed in place of dy, unless the layer
   * above did (act linear, no dropout). */
  if (!narrow && n > 0 && (act != NN_BK_ACT_LINEAR || rate > 0.0f))
    {
      if ((rc = _nn_cuda_dense_dz (ctx, act, y, dy, NULL, n, out, rate, seed, step)) != 0)
        return rc;
      d.act = NN_BK_ACT_LINEAR;
      d.rate = 0.0f;
      launched = true;
    }
  /* Otherwise dx on cuBLAS from the old weights, before the update, and
   * the layer below's dz from it. */
  if (dx != NULL && !dx_here && n > 0)
    {
      if ((rc = _nn_cuda_dx_below (ctx, n, in, out, dy, w, dx, below, step)) != 0)
        return rc;
      launched = true;
    }
  if (dx_here)
    d.dx = narrow || tiles == 1 ? dx : ctx->lane.dx_partials;
  d.early = untouched || launched;
  d.x_early = d.early && _nn_cuda_untouched (ctx, x, (size_t) n * in * sizeof (float))
              && (d.below.act <= NN_BK_ACT_LINEAR
                  || _nn_cuda_untouched (ctx, d.below.y, (size_t) n * in * sizeof (float)));
  {
    const void *at[] = { w, w_state, w_s1, bias, bias_state, b_s1, dx, dy, step };
    const size_t bytes[] = { w_bytes, w_bytes, w_bytes, b_bytes, b_bytes, b_bytes,
                             (size_t) n * in * sizeof (float), (size_t) n * out * sizeof (float),
                             sizeof (int64_t) };
    _nn_cuda_writes_only (ctx, 9, at, bytes);
  }

  switch (o.kind)
    {
    case NN_BK_OPT_SGD: launch_kind<NN_BK_OPT_SGD> (ctx, d, o); break;
    case NN_BK_OPT_ADAM: launch_kind<NN_BK_OPT_ADAM> (ctx, d, o); break;
    case NN_BK_OPT_ADADELTA: launch_kind<NN_BK_OPT_ADADELTA> (ctx, d, o); break;
    case NN_BK_OPT_RMSPROP: launch_kind<NN_BK_OPT_RMSPROP> (ctx, d, o); break;
    default: launch_kind<NN_BK_OPT_ADAGRAD> (ctx, d, o); break;
    }
  if ((rc = _nn_cuda_check_launch (ctx, "dense_backward_update")) != 0)
    return rc;
  if (d.dx == ctx->lane.dx_partials && n > 0)
    {
      size_t count = (size_t) n * in;
      _nn_cuda_launch (ctx, dense_update_dx_kernel, _nn_cuda_blocks (ctx, count, 256), 256, 0,
                       (const float *) ctx->lane.dx_partials, dx, count, tiles, d.below,
                       (const int64_t *) step);
      return _nn_cuda_check_launch (ctx, "dense_backward_update");
    }
  return NN_BACKEND_OK;
}
