/* SPDX-License-Identifier: GPL-3.0-or-later */
/* epilogue.cuh: (device code) what a dense product's kernel does with each finished sum
 * (bias, activation and the next dropout), shared by the products of
 * dense.cu and the cluster kernel of dense-forward.cu.
 */
#pragma once

#include "kernels/epilogue.h"
#include "kernels/act.cuh"

__device__ __forceinline__ int64_t
epilogue_step (const Epilogue &e)
{
  return e.drop_y != NULL && e.step != NULL ? *e.step : 0;
}

/* y of an output whose sum is `sum` and whose bias (read by the caller,
 * ignored where e.bias is NULL) is `bias`, with the epilogue on. */
__device__ __forceinline__ float
epilogue_value (const Epilogue &e, float sum, float bias)
{
  return act_forward (e.act, e.bias != NULL ? sum + bias : sum);
}

/* Stores one output of a product and returns what it stored in C. */
__device__ __forceinline__ float
store_out (const Epilogue &e, int64_t t, float sum, int row, int col, int n, float alpha,
           float beta, float *c, int ldc)
{
  float *cp = c + (size_t) row * ldc + col;
  if (!e.on)
    {
      /* BLAS: C is not read when beta is 0 */
      float out = beta == 0.0f ? alpha * sum : alpha * sum + beta * *cp;
      *cp = out;
      return out;
    }
  /* the order of bias_act_forward and dropout_forward, so results match them */
  float v = epilogue_value (e, sum, e.bias != NULL ? e.bias[col] : 0.0f);
  *cp = v;
  if (e.drop_y != NULL)
    {
      size_t i = (size_t) row * n + col;
      e.drop_y[i] = nn_dropout_keep (e.seed, t, i, e.rate) ? v * e.scale : 0.0f;
    }
  return v;
}
