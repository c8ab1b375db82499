/* SPDX-License-Identifier: GPL-3.0-or-later */
/* optimizer.cu: one update kernel over the parameter arena (its first
 * `count` parameters, their state slots `stride` floats apart), for each
 * optimizer, with Keras' formulas (launched by ops/optimizer.cc).
 *
 * The step counter lives on the device: every thread reads t = *step + 1;
 * the last block to finish (a counter in the context) stores t back, after
 * every block has read it, so one launch does the update and the count.
 */

#include "kernels/optimizer.h"
#include "kernels/launch.cuh"
#include "kernels/optimizer.cuh"

#include <stdint.h>

/* The kernels' names carry the optimizer's kind as its number. */
static_assert (NN_BK_OPT_SGD == 0 && NN_BK_OPT_ADAM == 1 && NN_BK_OPT_ADADELTA == 2
                 && NN_BK_OPT_RMSPROP == 3 && NN_BK_OPT_ADAGRAD == 4,
               "optimizer_kernel_KIND names");

template <int KIND>
static __device__ __forceinline__ void
optimizer_body (OptArgs o, float *__restrict__ params, const float *__restrict__ grads,
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

/* optimizer_kernel_KIND */
#define OPTIMIZER_KERNEL(KIND)                                                                     \
  extern "C" __global__ void NN_KERNEL_NAME1 (optimizer_kernel, KIND) (                            \
    OptArgs o, float *__restrict__ params, const float *__restrict__ grads,                        \
    float *__restrict__ state, uint64_t count, uint64_t state_stride, int64_t *step,               \
    unsigned int *__restrict__ done)                                                               \
  {                                                                                                \
    optimizer_body<KIND> (o, params, grads, state, count, state_stride, step, done);               \
  }

OPTIMIZER_KERNEL (0)
OPTIMIZER_KERNEL (1)
OPTIMIZER_KERNEL (2)
OPTIMIZER_KERNEL (3)
OPTIMIZER_KERNEL (4)

/* The update with 16-byte loads: params, grads and the first slot as
 * float4; the second slot as load_v<V_VEC> reads it. Each element gets the same update_one as in
 * optimizer_kernel. The count % 4 tail is block 0's. About a tenth
 * faster than single floats for Adam over mlp-wide's 1.8 M parameters and
 * Adadelta over the cnn's 1.2 M (ncu). */
template <int KIND, int V_VEC>
static __device__ __forceinline__ void
optimizer_vec_body (OptArgs o, float *__restrict__ params, const float *__restrict__ grads,
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

/* optimizer_vec_kernel_KIND_V_VEC */
#define OPTIMIZER_VEC_KERNEL(KIND, V_VEC)                                                          \
  extern "C" __global__ void __launch_bounds__ (256)                                              \
    NN_KERNEL_NAME2 (optimizer_vec_kernel, KIND, V_VEC) (                                          \
      OptArgs o, float *__restrict__ params, const float *__restrict__ grads,                      \
      float *__restrict__ state, uint64_t count, uint64_t state_stride, int64_t *step,             \
      unsigned int *__restrict__ done, int early)                                                  \
  {                                                                                                \
    optimizer_vec_body<KIND, V_VEC> (o, params, grads, state, count, state_stride, step, done,     \
                                     early);                                                       \
  }

#define OPTIMIZER_VEC_KERNELS(KIND)                                                                \
  OPTIMIZER_VEC_KERNEL (KIND, 4)                                                                   \
  OPTIMIZER_VEC_KERNEL (KIND, 2)                                                                   \
  OPTIMIZER_VEC_KERNEL (KIND, 1)

OPTIMIZER_VEC_KERNELS (0)
OPTIMIZER_VEC_KERNELS (1)
OPTIMIZER_VEC_KERNELS (2)
OPTIMIZER_VEC_KERNELS (3)
OPTIMIZER_VEC_KERNELS (4)
