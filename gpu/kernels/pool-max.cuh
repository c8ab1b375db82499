/* pool-max.cuh: what a pooling's forward stores, shared by pool2d.cu and the
 * convolution that pools its own output (conv-igemm.cu): the dropout after
 * a pooling, and a max window's output with the position of its maximum.
 */
#pragma once

#include "nn-backend-abi.h"

#include <stdint.h>

/* The dropout after a pooling, applied by its kernels (pool2d_forward_dropout,
 * pool2d_backward_act and the argmax ops): off when rate is 0. scale =
 * 1 / (1 - rate), as dropout.cu has it; the mask index is the pooling
 * output's index. */
struct PoolDrop
{
  float rate, scale;
  uint64_t seed;
  const int64_t *step; /* device, or NULL for step 0 */
};

__device__ __forceinline__ int64_t
drop_step (const PoolDrop &d)
{
  return d.rate > 0.0f && d.step != NULL ? *d.step : 0;
}

/* Output i of a max pooling: y[i] = v, its dropout as dropout_forward makes
 * it when drop.rate > 0, and argmax[i] = at, the row-major position of the
 * window's first maximum within the window. */
__device__ __forceinline__ void
store_max (const PoolDrop &drop, int64_t step, size_t i, float v, int at, float *__restrict__ y,
           float *__restrict__ drop_y, uint8_t *__restrict__ argmax)
{
  y[i] = v;
  argmax[i] = (uint8_t) at;
  if (drop.rate > 0.0f)
    drop_y[i] = nn_dropout_keep (drop.seed, step, (uint64_t) i, drop.rate) ? v * drop.scale : 0.0f;
}
