/* SPDX-License-Identifier: GPL-3.0-or-later */
/* loss.cuh: the loss of one row and the block's statistics, shared by the
 * loss op (softmax-xent.cu) and the output layer fused with it
 * (dense.cu, dense_loss).
 */
#pragma once

#include "nn-backend-abi.h"

#include <stdint.h>

/* First index of the largest value among the lanes' (value, index) pairs. */
__device__ __forceinline__ void
warp_argmax (float *v, int *idx)
{
  for (int o = 16; o > 0; o >>= 1)
    {
      float ov = __shfl_xor_sync (0xffffffffu, *v, o);
      int oi = __shfl_xor_sync (0xffffffffu, *idx, o);
      if (ov > *v || (ov == *v && oi < *idx) || (*v != *v && ov == ov))
        {
          *v = ov;
          *idx = oi;
        }
    }
}

/* The target of class c in a row: its one-hot targets t when not NULL, else
 * whether c is its label. */
__device__ __forceinline__ float
target_of (int label, const float *t, int c)
{
  return t != NULL ? t[c] : (label == c ? 1.0f : 0.0f);
}

/* The loss of one row of a batch of n, whose `classes` predictions are
 * p[0 .. classes) and whose label is `label` (sparse cross-entropy) or
 * targets t[0 .. classes) (the others; from the label when t is NULL),
 * computed by one whole warp: returns the row's loss on every lane and sets
 * *correct to 1 when the first argmax of p is the true class. When g is not
 * NULL, writes the row's part of d(mean loss)/d(p) there. */
__device__ __forceinline__ float
loss_row (int kind, const float *p, int label, const float *t, int n, int classes, float *g,
          float *correct)
{
  int lane = threadIdx.x & 31;
  float inv_n = 1.0f / n;

  /* The prediction's argmax (first maximum) and the true class. */
  float best = -INFINITY;
  int best_i = classes;
  float tbest = -INFINITY;
  int tbest_i = classes;
  for (int c = lane; c < classes; c += 32)
    {
      float v = p[c];
      if (v > best || best_i == classes)
        {
          best = v;
          best_i = c;
        }
      if (kind != NN_BK_LOSS_SPARSE_XENT)
        {
          float tc = target_of (label, t, c);
          if (tc > tbest || tbest_i == classes)
            {
              tbest = tc;
              tbest_i = c;
            }
        }
    }
  warp_argmax (&best, &best_i);
  int truth;
  if (kind == NN_BK_LOSS_SPARSE_XENT)
    truth = label;
  else
    {
      warp_argmax (&tbest, &tbest_i);
      truth = tbest_i;
    }
  *correct = best_i == truth ? 1.0f : 0.0f;

  if (kind == NN_BK_LOSS_MSE)
    {
      float s = 0.0f, scale = 2.0f / ((float) classes * n);
      for (int c = lane; c < classes; c += 32)
        {
          float d = p[c] - target_of (label, t, c);
          s += d * d;
          if (g != NULL)
            g[c] = d * scale;
        }
      for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync (0xffffffffu, s, o);
      return s / classes;
    }
  /* log-sum-exp with the maximum taken out; best is the row maximum. */
  float m = best;
  float sum = 0.0f;
  for (int c = lane; c < classes; c += 32)
    sum += expf (p[c] - m);
  for (int o = 16; o > 0; o >>= 1)
    sum += __shfl_xor_sync (0xffffffffu, sum, o);
  float lse = logf (sum) + m;
  float inv_sum = 1.0f / sum;
  float l = 0.0f;
  for (int c = lane; c < classes; c += 32)
    {
      float tc = kind == NN_BK_LOSS_SPARSE_XENT ? (c == truth ? 1.0f : 0.0f)
                                                : target_of (label, t, c);
      if (tc != 0.0f)
        l += tc * (lse - p[c]);
      if (g != NULL)
        g[c] = (expf (p[c] - m) * inv_sum - tc) * inv_n;
    }
  for (int o = 16; o > 0; o >>= 1)
    l += __shfl_xor_sync (0xffffffffu, l, o);
  return l;
}

/* Adds the block's rows to stats (loss sum, correct count): one value per
 * warp, from its lane 0, summed in warp order, then one atomic pair. All
 * threads of the block call it. */
template <int WARPS>
__device__ __forceinline__ void
add_block_stats (float loss, float correct, float *stats)
{
  __shared__ float block_loss[WARPS];
  __shared__ float block_correct[WARPS];
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0)
    {
      block_loss[warp] = loss;
      block_correct[warp] = correct;
    }
  __syncthreads ();
  if (threadIdx.x == 0)
    {
      float l = 0.0f, k = 0.0f;
      for (int w = 0; w < WARPS; w++)
        {
          l += block_loss[w];
          k += block_correct[w];
        }
      atomicAdd (&stats[0], l);
      atomicAdd (&stats[1], k);
    }
}
