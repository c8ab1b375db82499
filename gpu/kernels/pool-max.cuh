/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pool-max.cuh: what a pooling's forward finds and stores, shared by
 * pool2d.cu and the convolution that pools its own output (conv-igemm.cu):
 * a 2 x 2 window's first maximum, the dropout after a pooling, and a max
 * window's output with the position of its maximum.
 */
#pragma once

#include "nn-backend-abi.h"
#include "kernels/pool-max.h"

#include <stdint.h>

__device__ __forceinline__ int64_t
drop_step (const PoolDrop &d)
{
  return d.rate > 0.0f && d.step != NULL ? *d.step : 0;
}

/* The first maximum of a 2 x 2 window in row order, a later value winning
 * only when greater (as the generic window search): its value, and its
 * position 0-3 in *at. */
__device__ __forceinline__ float
max_2x2 (float top_left, float top_right, float low_left, float low_right, int *at)
{
  float v = top_left;
  int k = 0;
  if (top_right > v)
    v = top_right, k = 1;
  if (low_left > v)
    v = low_left, k = 2;
  if (low_right > v)
    v = low_right, k = 3;
  *at = k;
  return v;
}

/* Output i of a pooling: y[i] = v, and its dropout as dropout_forward makes
 * it when drop.rate > 0. */
__device__ __forceinline__ void
store_pooled (const PoolDrop &drop, int64_t step, size_t i, float v, float *__restrict__ y,
              float *__restrict__ drop_y)
{
  y[i] = v;
  if (drop.rate > 0.0f)
    drop_y[i] = nn_dropout_keep (drop.seed, step, (uint64_t) i, drop.rate) ? v * drop.scale : 0.0f;
}

/* ... of a max pooling, also argmax[i] = at, the row-major position of the
 * window's first maximum within the window. */
__device__ __forceinline__ void
store_max (const PoolDrop &drop, int64_t step, size_t i, float v, int at, float *__restrict__ y,
           float *__restrict__ drop_y, uint8_t *__restrict__ argmax)
{
  argmax[i] = (uint8_t) at;
  store_pooled (drop, step, i, v, y, drop_y);
}
