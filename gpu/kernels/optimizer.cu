/* optimizer.cu: one update kernel over the whole parameter arena, for each
 * optimizer, with Keras' formulas.
 *
 * The step counter lives on the device: every thread reads t = *step + 1;
 * the last block to finish (a counter in the context) stores t back, after
 * every block has read it, so one launch does the update and the count.
 */

#include "nn-cuda-private.h"

#include <math.h>

struct OptArgs
{
  int kind, nesterov;
  float lr, momentum, beta1, beta2, rho, epsilon;
  float log_beta1, log_beta2; /* log (beta), computed in double on the host */
};

__global__ void
optimizer_kernel (OptArgs o, float *__restrict__ p, const float *__restrict__ g,
                  float *__restrict__ state, size_t count, int64_t *step,
                  unsigned int *__restrict__ done)
{
  int64_t t = *(volatile int64_t *) step + 1;
  float *s0 = state;
  float *s1 = state + count;
  float lr_t = o.lr;
  if (o.kind == NN_BK_OPT_ADAM)
    {
      /* 1 - beta^t = -expm1 (t log beta): accurate in float also when
       * beta^t is close to 1 (early steps), where 1 - powf would cancel. */
      float c1 = -expm1f ((float) t * o.log_beta1);
      float c2 = -expm1f ((float) t * o.log_beta2);
      lr_t = o.lr * sqrtf (c2) / c1;
    }

  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < count;
       i += (size_t) gridDim.x * blockDim.x)
    {
      float gi = g[i];
      switch (o.kind)
        {
        case NN_BK_OPT_SGD:
          if (o.momentum == 0.0f)
            p[i] -= o.lr * gi;
          else
            {
              float v = o.momentum * s0[i] - o.lr * gi;
              s0[i] = v;
              p[i] += o.nesterov ? o.momentum * v - o.lr * gi : v;
            }
          break;
        case NN_BK_OPT_ADAM:
          {
            float m = o.beta1 * s0[i] + (1.0f - o.beta1) * gi;
            float v = o.beta2 * s1[i] + (1.0f - o.beta2) * gi * gi;
            s0[i] = m;
            s1[i] = v;
            p[i] -= lr_t * m / (sqrtf (v) + o.epsilon);
          }
          break;
        case NN_BK_OPT_ADADELTA:
          {
            float ag = o.rho * s0[i] + (1.0f - o.rho) * gi * gi;
            float d = sqrtf (s1[i] + o.epsilon) / sqrtf (ag + o.epsilon) * gi;
            s0[i] = ag;
            s1[i] = o.rho * s1[i] + (1.0f - o.rho) * d * d;
            p[i] -= o.lr * d;
          }
          break;
        case NN_BK_OPT_RMSPROP:
          {
            float v = o.rho * s0[i] + (1.0f - o.rho) * gi * gi;
            s0[i] = v;
            p[i] -= o.lr * gi / (sqrtf (v) + o.epsilon);
          }
          break;
        case NN_BK_OPT_ADAGRAD:
          {
            float a = s0[i] + gi * gi;
            s0[i] = a;
            p[i] -= o.lr * gi / (sqrtf (a) + o.epsilon);
          }
          break;
        }
    }

  __syncthreads ();
  if (threadIdx.x == 0)
    {
      __threadfence ();
      if (atomicAdd (done, 1u) == gridDim.x - 1)
        {
          *step = t;
          *done = 0;
        }
    }
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
  /* Also with count 0 one block runs, so the step still advances. */
  optimizer_kernel<<<_nn_cuda_blocks (ctx, count, 256), 256, 0, ctx->stream>>> (
    o, params, grads, state, count, step, ctx->counters + NN_CUDA_COUNTER_OPTIMIZER);
  return _nn_cuda_check_launch (ctx, "optimizer_update");
}
