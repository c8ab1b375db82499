/* SPDX-License-Identifier: GPL-3.0-or-later */
/* below.cuh: (device code) the layer below a dense layer's backward, whose dz a kernel
 * writes in place of the input gradient (dense_backward_update's `below`,
 * in kernels/dense-update.cu, and dense_loss_dx's, in dense.cu).
 */
#pragma once

#include "kernels/below.h"
#include "kernels/act.cuh"

#include <stddef.h>
#include <stdint.h>

/* Whether the layer below's dropout keeps cell (always where it has none).
 * Apart from dx_value so that a kernel can work it out before it knows the
 * gradient. */
__device__ __forceinline__ bool
below_keeps (const Below &b, int64_t step, size_t cell)
{
  return b.act < 0 || !(b.rate > 0.0f) || nn_dropout_keep (b.seed, step, cell, b.rate);
}

/* dx_value with below_keeps known. */
__device__ __forceinline__ float
dx_value_kept (const Below &b, bool keep, float g, float y)
{
  if (b.act < 0)
    return g;
  if (b.rate > 0.0f)
    g = keep ? g * b.scale : 0.0f;
  return b.act == NN_BK_ACT_LINEAR ? g : act_backward (b.act, y, g);
}

/* The value stored at dx[r][i] (cell = r * in + i): the input gradient
 * g, or the layer below's dz from it and y, its output there. */
__device__ __forceinline__ float
dx_value (const Below &b, int64_t step, size_t cell, float g, float y)
{
  return dx_value_kept (b, below_keeps (b, step, cell), g, y);
}

/* The layer below's output at cell, when its dz needs it. */
__device__ __forceinline__ float
below_y (const Below &b, size_t cell)
{
  return b.act > NN_BK_ACT_LINEAR ? b.y[cell] : 0.0f;
}
