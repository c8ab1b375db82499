/* SPDX-License-Identifier: GPL-3.0-or-later */
/* optimizer.cuh: the optimizers' update rules, shared by the update kernel
 * over the parameter arena (optimizer.cu) and the dense layer's backward
 * with the update built in (dense-update.cu), so both apply the very same
 * arithmetic to each parameter.
 */
#pragma once

#include "kernels/opt-args.h"

#include <math.h>
#include <stdint.h>


/* The update rules' square roots and divisions, approximate (sqrt.approx,
 * __fdividef: one special-function instruction each, a few ulp of error)
 * rather than IEEE (sqrtf and '/': a dozen instructions each and a branch
 * to a slow path). In the dense layers' backward with the update built in,
 * instruction-bound on them, the MLPs' steps on the H200 became a tenth
 * (mlp-small) to a sixth (mlp-wide) shorter than with IEEE; the cnn, whose Adadelta
 * runs over the arena, bound by memory, did not change. The CPU backend
 * keeps IEEE; the parity test's tolerances for the updates (1e-5 for the
 * optimizer op, 1e-4 for the fused update) hold. */
__device__ __forceinline__ float
opt_sqrt (float x)
{
  float r;
  asm ("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

__device__ __forceinline__ float
opt_div (float a, float b)
{
  return __fdividef (a, b);
}

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
      p -= opt_div (lr_t * a, opt_sqrt (b) + o.epsilon);
      break;
    case NN_BK_OPT_ADADELTA:
      {
        a = o.rho * a + (1.0f - o.rho) * g * g;
        float d = opt_div (opt_sqrt (b + o.epsilon), opt_sqrt (a + o.epsilon)) * g;
        b = o.rho * b + (1.0f - o.rho) * d * d;
        p -= o.lr * d;
      }
      break;
    case NN_BK_OPT_RMSPROP:
      a = o.rho * a + (1.0f - o.rho) * g * g;
      p -= opt_div (o.lr * g, opt_sqrt (a) + o.epsilon);
      break;
    case NN_BK_OPT_ADAGRAD:
      a += g * g;
      p -= opt_div (o.lr * g, opt_sqrt (a) + o.epsilon);
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
  if (threadIdx.x == 0 && atomicAdd (done, 1u) == gridDim.x * gridDim.y * gridDim.z - 1)
    {
      *step = t;
      *done = 0;
    }
}


/* Slots of state used: sgd 1 only with momentum, adam and adadelta 2, the
 * rest 1. */
template <int KIND>
__device__ __forceinline__ int
opt_slots (const OptArgs &o)
{
  return KIND == NN_BK_OPT_ADAM || KIND == NN_BK_OPT_ADADELTA ? 2
         : KIND == NN_BK_OPT_SGD                             ? (o.momentum != 0.0f)
                                                             : 1;
}

/* The learning rate of update t: Adam's with its bias correction,
 * 1 - beta^t = -expm1 (t log beta), accurate in float also when beta^t is
 * close to 1 (early steps), where 1 - powf would cancel. */
template <int KIND>
__device__ __forceinline__ float
opt_lr (const OptArgs &o, int64_t t)
{
  if (KIND != NN_BK_OPT_ADAM)
    return o.lr;
  float c1 = -expm1f ((float) t * o.log_beta1);
  float c2 = -expm1f ((float) t * o.log_beta2);
  return o.lr * sqrtf (c2) / c1;
}

/* The second slot of the state starts `count` floats after the first, so
 * its alignment depends on count: it is read as float4, two float2 or four
 * floats (V_VEC 4, 2, 1). */
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

