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

template <int KIND>
__global__ void
optimizer_kernel (OptArgs o, float *__restrict__ params, const float *__restrict__ grads,
                  float *__restrict__ state, size_t count, int64_t *step,
                  unsigned int *__restrict__ done)
{
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

  /* The last block to finish stores the step: every block has read it. */
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
  /* Few enough blocks that each thread has OPT_ILP elements (and the
   * last-block counter sees few atomics); with count 0 one block still runs,
   * so the step advances. */
  unsigned int blocks = _nn_cuda_blocks (ctx, (count + OPT_ILP - 1) / OPT_ILP, 256);
  unsigned int *done = ctx->counters + NN_CUDA_COUNTER_OPTIMIZER;
  switch (o.kind)
    {
    case NN_BK_OPT_SGD:
      optimizer_kernel<NN_BK_OPT_SGD><<<blocks, 256, 0, ctx->stream>>> (o, params, grads, state,
                                                                          count, step, done);
      break;
    case NN_BK_OPT_ADAM:
      optimizer_kernel<NN_BK_OPT_ADAM><<<blocks, 256, 0, ctx->stream>>> (o, params, grads, state,
                                                                           count, step, done);
      break;
    case NN_BK_OPT_ADADELTA:
      optimizer_kernel<NN_BK_OPT_ADADELTA><<<blocks, 256, 0, ctx->stream>>> (o, params, grads,
                                                                               state, count, step,
                                                                               done);
      break;
    case NN_BK_OPT_RMSPROP:
      optimizer_kernel<NN_BK_OPT_RMSPROP><<<blocks, 256, 0, ctx->stream>>> (o, params, grads, state,
                                                                              count, step, done);
      break;
    default:
      optimizer_kernel<NN_BK_OPT_ADAGRAD><<<blocks, 256, 0, ctx->stream>>> (o, params, grads, state,
                                                                              count, step, done);
      break;
    }
  return _nn_cuda_check_launch (ctx, "optimizer_update");
}
