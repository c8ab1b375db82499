/* optimizer.cu: one update kernel over the whole parameter arena, for each
 * optimizer, with Keras' formulas.
 *
 * The step counter lives on the device: every thread reads t = *step + 1;
 * the last block to finish (a counter in the context) stores t back, after
 * every block has read it, so one launch does the update and the count.
 */

#include "nn-cuda-private.h"
#include "launch.cuh"

#include <math.h>
#include <stdint.h>

struct OptArgs
{
  int kind, nesterov;
  float lr, momentum, beta1, beta2, rho, epsilon;
  float log_beta1, log_beta2; /* log (beta), computed in double on the host */
};

/* Elements per thread per pass: their loads are issued together. */
#define OPT_ILP 4

template <int KIND>
__device__ __forceinline__ void
update_one (const OptArgs &o, float lr_t, float g, float &p, float &a, float &b)
{
  switch (KIND)
    {
    case NN_BK_OPT_SGD:
      if (o.momentum == 0.0f)
        p -= o.lr * g;
      else
        {
          a = o.momentum * a - o.lr * g;
          p += o.nesterov ? o.momentum * a - o.lr * g : a;
        }
      break;
    case NN_BK_OPT_ADAM:
      a = o.beta1 * a + (1.0f - o.beta1) * g;
      b = o.beta2 * b + (1.0f - o.beta2) * g * g;
      p -= lr_t * a / (sqrtf (b) + o.epsilon);
      break;
    case NN_BK_OPT_ADADELTA:
      {
        a = o.rho * a + (1.0f - o.rho) * g * g;
        float d = sqrtf (b + o.epsilon) / sqrtf (a + o.epsilon) * g;
        b = o.rho * b + (1.0f - o.rho) * d * d;
        p -= o.lr * d;
      }
      break;
    case NN_BK_OPT_RMSPROP:
      a = o.rho * a + (1.0f - o.rho) * g * g;
      p -= o.lr * g / (sqrtf (a) + o.epsilon);
      break;
    case NN_BK_OPT_ADAGRAD:
      a += g * g;
      p -= o.lr * g / (sqrtf (a) + o.epsilon);
      break;
    }
}

/* The last block to arrive stores the new step count t, once every block has
 * read the old one. No fence: a block counts itself only after all its
 * threads passed the barrier, by which time their reads of the step have
 * returned, and nothing else the kernel wrote needs ordering against the
 * step (the next kernel waits for this one to complete). A fence here would
 * make each block wait for its stores to drain before counting itself, on
 * the step's critical path. */
__device__ __forceinline__ void
advance_step (int64_t *step, int64_t t, unsigned int *done)
{
  __syncthreads ();
  if (threadIdx.x == 0 && atomicAdd (done, 1u) == gridDim.x - 1)
    {
      *step = t;
      *done = 0;
    }
}

template <int KIND>
__global__ void
optimizer_kernel (OptArgs o, float *__restrict__ params, const float *__restrict__ grads,
                  float *__restrict__ state, size_t count, int64_t *step,
                  unsigned int *__restrict__ done)
{
  nn_kernel_enter ();
  int64_t t = *(volatile int64_t *) step + 1;
  /* slots used: sgd 1 only with momentum, adam and adadelta 2, the rest 1 */
  const int slots = KIND == NN_BK_OPT_ADAM || KIND == NN_BK_OPT_ADADELTA ? 2
                    : KIND == NN_BK_OPT_SGD                               ? (o.momentum != 0.0f)
                                                                          : 1;
  float *s0 = state;
  float *s1 = state + count;
  float lr_t = o.lr;
  if (KIND == NN_BK_OPT_ADAM)
    {
      /* 1 - beta^t = -expm1 (t log beta): accurate in float also when
       * beta^t is close to 1 (early steps), where 1 - powf would cancel. */
      float c1 = -expm1f ((float) t * o.log_beta1);
      float c2 = -expm1f ((float) t * o.log_beta2);
      lr_t = o.lr * sqrtf (c2) / c1;
    }

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
 * float4; the second slot (which starts `count` floats after the first, so
 * its alignment depends on count) as float4, two float2 or four floats
 * (V_VEC 4, 2, 1). Each element gets the same update_one as in
 * optimizer_kernel. The count % 4 tail is block 0's. Adam over
 * mlp-wide's 1.8 M parameters: 13.6 -> 12.3 us
 * (bench/results/h200-gpu-mlp-2026-11-30.md); Adadelta over the cnn's
 * 1.2 M: 12.3 -> 11.1 us (ncu; h200-gpu-session4-2026-11-30.md). */
template <int V_VEC>
__device__ __forceinline__ float4
load_v (const float *v, size_t q)
{
  if (V_VEC == 4)
    return ((const float4 *) v)[q];
  if (V_VEC == 2)
    {
      float2 lo = ((const float2 *) v)[2 * q], hi = ((const float2 *) v)[2 * q + 1];
      return make_float4 (lo.x, lo.y, hi.x, hi.y);
    }
  return make_float4 (v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]);
}

template <int V_VEC>
__device__ __forceinline__ void
store_v (float *v, size_t q, float4 b)
{
  if (V_VEC == 4)
    ((float4 *) v)[q] = b;
  else if (V_VEC == 2)
    {
      ((float2 *) v)[2 * q] = make_float2 (b.x, b.y);
      ((float2 *) v)[2 * q + 1] = make_float2 (b.z, b.w);
    }
  else
    {
      v[4 * q] = b.x;
      v[4 * q + 1] = b.y;
      v[4 * q + 2] = b.z;
      v[4 * q + 3] = b.w;
    }
}

template <int KIND, int V_VEC>
__global__ void __launch_bounds__ (256)
optimizer_vec_kernel (OptArgs o, float *__restrict__ params, const float *__restrict__ grads,
                      float *__restrict__ state, size_t count, int64_t *step,
                      unsigned int *__restrict__ done)
{
  nn_kernel_enter ();
  int64_t t = *(volatile int64_t *) step + 1;
  const int slots = KIND == NN_BK_OPT_ADAM || KIND == NN_BK_OPT_ADADELTA ? 2
                    : KIND == NN_BK_OPT_SGD                              ? (o.momentum != 0.0f)
                                                                         : 1;
  float lr_t = o.lr;
  if (KIND == NN_BK_OPT_ADAM)
    {
      float c1 = -expm1f ((float) t * o.log_beta1);
      float c2 = -expm1f ((float) t * o.log_beta2);
      lr_t = o.lr * sqrtf (c2) / c1;
    }
  float *s0 = state, *s1 = state + count;
  size_t quads = count / 4;
  size_t stride = (size_t) gridDim.x * blockDim.x;
  const float4 zero = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);

  for (size_t q = blockIdx.x * (size_t) blockDim.x + threadIdx.x; q < quads; q += stride)
    {
      float4 g = ((const float4 *) grads)[q];
      float4 p = ((float4 *) params)[q];
      float4 a = slots >= 1 ? ((float4 *) s0)[q] : zero;
      float4 b = slots >= 2 ? load_v<V_VEC> (s1, q) : zero;
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
               float *state, size_t count, int64_t *step, unsigned int *done)
{
  if (count >= 4 && ((uintptr_t) params | (uintptr_t) grads | (uintptr_t) state) % 16 == 0)
    {
      /* one float4 per thread: no grid-stride passes for the presets */
      unsigned int blocks = (unsigned int) ((count / 4 + 255) / 256);
      if (blocks > 65535u)
        blocks = 65535u;
      uintptr_t v_at = (uintptr_t) (state + count);
      if (v_at % 16 == 0)
        _nn_cuda_launch (ctx, optimizer_vec_kernel<KIND, 4>, blocks, 256, 0, o, params, grads,
                         state, count, step, done);
      else if (v_at % 8 == 0)
        _nn_cuda_launch (ctx, optimizer_vec_kernel<KIND, 2>, blocks, 256, 0, o, params, grads,
                         state, count, step, done);
      else
        _nn_cuda_launch (ctx, optimizer_vec_kernel<KIND, 1>, blocks, 256, 0, o, params, grads,
                         state, count, step, done);
      return;
    }
  /* Few enough blocks that each thread has OPT_ILP elements (and the
   * last-block counter sees few atomics); with count 0 one block still runs,
   * so the step advances. */
  unsigned int blocks = _nn_cuda_blocks (ctx, (count + OPT_ILP - 1) / OPT_ILP, 256);
  _nn_cuda_launch (ctx, optimizer_kernel<KIND>, blocks, 256, 0, o, params, grads, state, count,
                   step, done);
}

int
_nn_cuda_optimizer_update (void *vctx, const NnBackendOptimizer *opt, float *params,
                           const float *grads, float *state, size_t count, int64_t *step)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  OptArgs o;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (opt == NULL || step == NULL || opt->kind < NN_BK_OPT_SGD || opt->kind > NN_BK_OPT_ADAGRAD)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "optimizer_update: bad arguments");
  o.kind = opt->kind;
  o.nesterov = opt->nesterov;
  o.lr = opt->lr;
  o.momentum = opt->momentum;
  o.beta1 = opt->beta1;
  o.beta2 = opt->beta2;
  o.rho = opt->rho;
  o.epsilon = opt->epsilon;
  o.log_beta1 = (float) log ((double) opt->beta1);
  o.log_beta2 = (float) log ((double) opt->beta2);
  unsigned int *done = ctx->counters + NN_CUDA_COUNTER_OPTIMIZER;
  switch (o.kind)
    {
    case NN_BK_OPT_SGD:
      launch_update<NN_BK_OPT_SGD> (ctx, o, params, grads, state, count, step, done);
      break;
    case NN_BK_OPT_ADAM:
      launch_update<NN_BK_OPT_ADAM> (ctx, o, params, grads, state, count, step, done);
      break;
    case NN_BK_OPT_ADADELTA:
      launch_update<NN_BK_OPT_ADADELTA> (ctx, o, params, grads, state, count, step, done);
      break;
    case NN_BK_OPT_RMSPROP:
      launch_update<NN_BK_OPT_RMSPROP> (ctx, o, params, grads, state, count, step, done);
      break;
    default:
      launch_update<NN_BK_OPT_ADAGRAD> (ctx, o, params, grads, state, count, step, done);
      break;
    }
  return _nn_cuda_check_launch (ctx, "optimizer_update");
}
