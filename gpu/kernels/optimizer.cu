/* SPDX-License-Identifier: GPL-3.0-or-later */
/* optimizer.cu: one update kernel over the parameter arena (its first
 * `count` parameters, their state slots `stride` floats apart), for each
 * optimizer, with Keras' formulas.
 *
 * The step counter lives on the device: every thread reads t = *step + 1;
 * the last block to finish (a counter in the context) stores t back, after
 * every block has read it, so one launch does the update and the count.
 */

#include "nn-cuda-private.h"
#include "launch.cuh"
#include "optimizer.cuh"

#include <stdint.h>

/* Elements per thread per pass: their loads are issued together. */
#define OPT_ILP 4

template <int KIND>
__global__ void
optimizer_kernel (OptArgs o, float *__restrict__ params, const float *__restrict__ grads,
                  float *__restrict__ state, size_t count, size_t state_stride, int64_t *step,
                  unsigned int *__restrict__ done)
{
  nn_kernel_enter ();
  int64_t t = *(volatile int64_t *) step + 1;
  const int slots = opt_slots<KIND> (o);
  float *s0 = state;
  float *s1 = state + state_stride;
  float lr_t = opt_lr<KIND> (o, t);

  size_t stride = (size_t) gridDim.x * blockDim.x;
  for (size_t base = blockIdx.x * (size_t) blockDim.x + threadIdx.x; base < count;
       base += OPT_ILP * stride)
    {
      float g[OPT_ILP], p[OPT_ILP], a[OPT_ILP], b[OPT_ILP];
#pragma unroll
      for (int j = 0; j < OPT_ILP; j++)
        {
          size_t i = base + j * stride;
          a[j] = b[j] = 0.0f;
          if (i < count)
            {
              g[j] = grads[i];
              p[j] = params[i];
              if (slots >= 1)
                a[j] = s0[i];
              if (slots >= 2)
                b[j] = s1[i];
            }
        }
#pragma unroll
      for (int j = 0; j < OPT_ILP; j++)
        {
          size_t i = base + j * stride;
          if (i < count)
            {
              update_one<KIND> (o, lr_t, g[j], p[j], a[j], b[j]);
              params[i] = p[j];
              if (slots >= 1)
                s0[i] = a[j];
              if (slots >= 2)
                s1[i] = b[j];
            }
        }
    }

  advance_step (step, t, done);
}

/* The update with 16-byte loads: params, grads and the first slot as
 * float4; the second slot as load_v<V_VEC> reads it. Each element gets the same update_one as in
 * optimizer_kernel. The count % 4 tail is block 0's. About a tenth
 * faster than single floats for Adam over mlp-wide's 1.8 M parameters and
 * Adadelta over the cnn's 1.2 M (ncu). */
template <int KIND, int V_VEC>
__global__ void __launch_bounds__ (256)
optimizer_vec_kernel (OptArgs o, float *__restrict__ params, const float *__restrict__ grads,
                      float *__restrict__ state, size_t count, size_t state_stride, int64_t *step,
                      unsigned int *__restrict__ done, int early)
{
  const int slots = opt_slots<KIND> (o);
  float *s0 = state, *s1 = state + state_stride;
  size_t quads = count / 4;
  size_t stride = (size_t) gridDim.x * blockDim.x;
  const float4 zero = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
  size_t q = blockIdx.x * (size_t) blockDim.x + threadIdx.x;

  /* The first quad's parameters and state, requested before the kernel
   * before this one has finished where the op before did not write them
   * (weights_early in launch.cuh); the gradients come from that kernel. */
  float4 p = zero, a = zero, b = zero;
  bool loaded = early && q < quads;
  if (loaded)
    {
      p = ((float4 *) params)[q];
      a = slots >= 1 ? ((float4 *) s0)[q] : zero;
      b = slots >= 2 ? load_v<V_VEC> (s1, q) : zero;
    }
  nn_kernel_enter ();
  int64_t t = *(volatile int64_t *) step + 1;
  float lr_t = opt_lr<KIND> (o, t);

  for (; q < quads; q += stride, loaded = false)
    {
      float4 g = ((const float4 *) grads)[q];
      if (!loaded)
        {
          p = ((float4 *) params)[q];
          a = slots >= 1 ? ((float4 *) s0)[q] : zero;
          b = slots >= 2 ? load_v<V_VEC> (s1, q) : zero;
        }
      update_one<KIND> (o, lr_t, g.x, p.x, a.x, b.x);
      update_one<KIND> (o, lr_t, g.y, p.y, a.y, b.y);
      update_one<KIND> (o, lr_t, g.z, p.z, a.z, b.z);
      update_one<KIND> (o, lr_t, g.w, p.w, a.w, b.w);
      ((float4 *) params)[q] = p;
      if (slots >= 1)
        ((float4 *) s0)[q] = a;
      if (slots >= 2)
        store_v<V_VEC> (s1, q, b);
    }
  if (blockIdx.x == 0)
    for (size_t i = quads * 4 + threadIdx.x; i < count; i += blockDim.x)
      {
        float p = params[i], a = slots >= 1 ? s0[i] : 0.0f, b = slots >= 2 ? s1[i] : 0.0f;
        update_one<KIND> (o, lr_t, grads[i], p, a, b);
        params[i] = p;
        if (slots >= 1)
          s0[i] = a;
        if (slots >= 2)
          s1[i] = b;
      }

  advance_step (step, t, done);
}

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
