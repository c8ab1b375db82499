/* SPDX-License-Identifier: GPL-3.0-or-later */
/* optimizer.cc: the optimizer_update op (kernels/optimizer.cu). */

#include "nn-cuda-launch.h"

NN_CUDA_FATBIN (optimizer, "optimizer.cu")
#include "kernels/optimizer.h"

/* The update of one kind: the float4 kernel when the arrays allow it (for
 * the second slot's alignment), else optimizer_kernel. */
template <int KIND>
static void
launch_update (NnCudaContext *ctx, const OptArgs &o, float *params, const float *grads,
               float *state, size_t count, size_t state_stride, int64_t *step,
               unsigned int *done, int early)
{
  if (count >= 4 && ((uintptr_t) params | (uintptr_t) grads | (uintptr_t) state) % 16 == 0)
    {
      /* one float4 per thread: no grid-stride passes for the presets */
      unsigned int blocks = (unsigned int) ((count / 4 + 255) / 256);
      if (blocks > 65535u)
        blocks = 65535u;
      uintptr_t v_at = (uintptr_t) (state + state_stride);
      if (v_at % 16 == 0)
        _nn_cuda_launch (ctx, optimizer_vec_kernel<KIND, 4>, blocks, 256, 0, o, params, grads,
                         state, count, state_stride, step, done, early);
      else if (v_at % 8 == 0)
        _nn_cuda_launch (ctx, optimizer_vec_kernel<KIND, 2>, blocks, 256, 0, o, params, grads,
                         state, count, state_stride, step, done, early);
      else
        _nn_cuda_launch (ctx, optimizer_vec_kernel<KIND, 1>, blocks, 256, 0, o, params, grads,
                         state, count, state_stride, step, done, early);
      return;
    }
  /* Few enough blocks that each thread has OPT_ILP elements (and the
   * last-block counter sees few atomics); with count 0 one block still runs,
   * so the step advances. */
  unsigned int blocks = _nn_cuda_blocks (ctx, (count + OPT_ILP - 1) / OPT_ILP, 256);
  _nn_cuda_launch (ctx, optimizer_kernel<KIND>, blocks, 256, 0, o, params, grads, state, count,
                   state_stride, step, done);
}

int
_nn_cuda_optimizer_update (void *vctx, const NnBackendOptimizer *opt, float *params,
                           const float *grads, float *state, size_t count, size_t state_stride,
                           int64_t *step)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (opt == NULL || step == NULL || opt->kind < NN_BK_OPT_SGD || opt->kind > NN_BK_OPT_ADAGRAD
      || state_stride < count)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "optimizer_update: bad arguments");
  OptArgs o = opt_args (opt);
  unsigned int *done = ctx->lane.counters + NN_CUDA_COUNTER_OPTIMIZER;
  const size_t bytes = count * sizeof (float);
  /* the state this op touches: slot 0's count floats and slot 1's, one
   * stride on */
  const size_t state_bytes = state_stride * sizeof (float) + bytes;
  int early = _nn_cuda_untouched (ctx, params, bytes)
              && _nn_cuda_untouched (ctx, state, state_bytes);
  switch (o.kind)
    {
    case NN_BK_OPT_SGD:
      launch_update<NN_BK_OPT_SGD> (ctx, o, params, grads, state, count, state_stride, step, done,
                                    early);
      break;
    case NN_BK_OPT_ADAM:
      launch_update<NN_BK_OPT_ADAM> (ctx, o, params, grads, state, count, state_stride, step,
                                     done, early);
      break;
    case NN_BK_OPT_ADADELTA:
      launch_update<NN_BK_OPT_ADADELTA> (ctx, o, params, grads, state, count, state_stride, step,
                                         done, early);
      break;
    case NN_BK_OPT_RMSPROP:
      launch_update<NN_BK_OPT_RMSPROP> (ctx, o, params, grads, state, count, state_stride, step,
                                        done, early);
      break;
    default:
      launch_update<NN_BK_OPT_ADAGRAD> (ctx, o, params, grads, state, count, state_stride, step,
                                        done, early);
      break;
    }
  const void *at[] = { params, state, step };
  const size_t written[] = { bytes, state_bytes, sizeof (int64_t) };
  _nn_cuda_writes_only (ctx, 3, at, written);
  return _nn_cuda_check_launch (ctx, "optimizer_update");
}
