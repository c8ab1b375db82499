/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bias-act.cu: bias + activation forward, and its backward with the bias
 * gradient, fused so each pass reads and writes the activations once
 * (launched by ops/bias-act.cc).
 *
 * Layout (n, channels, spatial): dense layers have spatial 1, convolutions
 * spatial = out_h * out_w. Softmax works over channels.
 */

#include "kernels/bias-act.h"
#include "kernels/launch.cuh"
#include "kernels/act.cuh"
#include "kernels/reduce.cuh"

#include <stdint.h>

/* y (total) = act (y + bias[(i / spatial) % channels]). */
template <typename I>
static __device__ __forceinline__ void
bias_act_body (int act, float *__restrict__ y, const float *__restrict__ bias, I total,
               I channels, I spatial)
{
  nn_kernel_enter ();
  for (I i = blockIdx.x * (I) blockDim.x + threadIdx.x; i < total; i += (I) gridDim.x * blockDim.x)
    {
      float z = y[i];
      if (bias != NULL)
        z += bias[spatial == 1 ? i % channels : (i / spatial) % channels];
      y[i] = act_forward (act, z);
    }
}

/* bias_act_kernel_W: W-bit indices (32, 64) */
#define BIAS_ACT_KERNEL(W)                                                                         \
  extern "C" __global__ void NN_KERNEL_NAME1 (bias_act_kernel, W) (                                \
    int act, float *__restrict__ y, const float *__restrict__ bias, BiasActIndex<W> total,         \
    BiasActIndex<W> channels, BiasActIndex<W> spatial)                                             \
  {                                                                                                \
    bias_act_body<BiasActIndex<W>> (act, y, bias, total, channels, spatial);                      \
  }

BIAS_ACT_KERNEL (32)
BIAS_ACT_KERNEL (64)

/* The same with float4, when spatial is a multiple of 4 (each quad then
 * lies in one channel) and the buffer is 16-byte aligned. */
extern "C" __global__ void
bias_act_vec4_kernel (int act, float4 *__restrict__ y, const float *__restrict__ bias,
                      unsigned int quads, unsigned int channels, unsigned int spatial_quads)
{
  nn_kernel_enter ();
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < quads;
       i += gridDim.x * blockDim.x)
    {
      float4 v = y[i];
      float b = bias != NULL ? bias[(i / spatial_quads) % channels] : 0.0f;
      v.x = act_forward (act, v.x + b);
      v.y = act_forward (act, v.y + b);
      v.z = act_forward (act, v.z + b);
      v.w = act_forward (act, v.w + b);
      y[i] = v;
    }
}

/* Softmax over channels for each (row, spatial) pair, one warp each:
 * y (rows, channels, spatial), bias added first when given. */
extern "C" __global__ void
bias_act_softmax_kernel (float *__restrict__ y, const float *__restrict__ bias, int rows,
                         int channels, int spatial)
{
  nn_kernel_enter ();
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= rows * spatial)
    return;
  float *row = y + (size_t) (warp / spatial) * channels * spatial + warp % spatial;
  float m = -INFINITY;
  for (int c = lane; c < channels; c += 32)
    {
      float z = row[(size_t) c * spatial] + (bias ? bias[c] : 0.0f);
      m = fmaxf (m, z);
    }
  for (int o = 16; o > 0; o >>= 1)
    m = fmaxf (m, __shfl_xor_sync (0xffffffffu, m, o));
  float sum = 0.0f;
  for (int c = lane; c < channels; c += 32)
    sum += expf (row[(size_t) c * spatial] + (bias ? bias[c] : 0.0f) - m);
  for (int o = 16; o > 0; o >>= 1)
    sum += __shfl_xor_sync (0xffffffffu, sum, o);
  float inv = 1.0f / sum;
  for (int c = lane; c < channels; c += 32)
    {
      float z = row[(size_t) c * spatial] + (bias ? bias[c] : 0.0f);
      row[(size_t) c * spatial] = expf (z - m) * inv;
    }
}

/* dz = y * (dy - sum_c y dy) per (row, spatial), in place in dy. */
extern "C" __global__ void
bias_act_softmax_backward_kernel (const float *__restrict__ y, float *__restrict__ dy, int rows,
                                  int channels, int spatial)
{
  nn_kernel_enter ();
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= rows * spatial)
    return;
  size_t base = (size_t) (warp / spatial) * channels * spatial + warp % spatial;
  float dot = 0.0f;
  for (int c = lane; c < channels; c += 32)
    dot += y[base + (size_t) c * spatial] * dy[base + (size_t) c * spatial];
  for (int o = 16; o > 0; o >>= 1)
    dot += __shfl_xor_sync (0xffffffffu, dot, o);
  for (int c = lane; c < channels; c += 32)
    {
      size_t i = base + (size_t) c * spatial;
      dy[i] = y[i] * (dy[i] - dot);
    }
}

/* Dense layout (rows, channels): block (32, DENSE_ROWS) owns 32 channels
 * of every gridDim.y-th band of DENSE_ROWS rows; each thread walks its rows
 * (unrolled, so several loads are in flight), writes dz in place and sums
 * it; dbias when not NULL (then gridDim.y is 1, so a block sees every row).
 * With
 * rate > 0, dy first goes through the dropout mask of (seed, *step), as
 * dropout_backward would do it (the fused dense backward). */
extern "C" __global__ void __launch_bounds__ (32 * DENSE_ROWS)
bias_act_dense_backward_kernel (int act, const float *__restrict__ y, float *__restrict__ dy,
                                float *__restrict__ dbias, int rows, int channels, float rate,
                                float scale, uint64_t seed, const int64_t *__restrict__ step)
{
  nn_kernel_enter ();
  __shared__ float part[DENSE_ROWS][33];
  int c = blockIdx.x * 32 + threadIdx.x;
  int64_t t = rate > 0.0f && step != NULL ? *step : 0;
  float sum = 0.0f;
  if (c < channels)
    {
#pragma unroll 4
      for (int r = blockIdx.y * DENSE_ROWS + threadIdx.y; r < rows; r += DENSE_ROWS * gridDim.y)
        {
          size_t i = (size_t) r * channels + c;
          float g = dy[i];
          if (rate > 0.0f)
            g = nn_dropout_keep (seed, t, i, rate) ? g * scale : 0.0f;
          float dz = act_backward (act, y[i], g);
          dy[i] = dz;
          sum += dz;
        }
    }
  if (dbias == NULL)
    return;
  part[threadIdx.y][threadIdx.x] = sum;
  __syncthreads ();
  /* The partial sums of each channel, added in a fixed order. */
  if (threadIdx.y == 0 && c < channels)
    {
      float s = 0.0f;
      for (int k = 0; k < DENSE_ROWS; k++)
        s += part[k][threadIdx.x];
      dbias[c] = s;
    }
}

/* Image layout (rows, channels, spatial): block (x = split, y = channel)
 * handles every splits-th row of that channel, writes dz in
 * place and its partial sum to partials[channel * splits + split]. */
extern "C" __global__ void
bias_act_image_backward_kernel (int act, const float *__restrict__ y, float *__restrict__ dy,
                                float *__restrict__ partials, int rows, int channels,
                                int spatial, int vec4)
{
  nn_kernel_enter ();
  int c = blockIdx.y;
  int splits = gridDim.x;
  float sum = 0.0f;
  if (vec4)
    {
      /* Rows of one channel are contiguous runs of `spatial` cells; with
       * spatial a multiple of 4, runs of float4. The block's rows are
       * flattened so short runs still keep every thread busy. */
      int quads = spatial >> 2;
      int my_rows = (rows - blockIdx.x + splits - 1) / splits;
      int items = my_rows * quads;
#pragma unroll 2
      for (int i = threadIdx.x; i < items; i += blockDim.x)
        {
          int r = blockIdx.x + (i / quads) * splits;
          size_t at = ((size_t) r * channels + c) * spatial + ((size_t) (i % quads) << 2);
          /* linear: dz is dy, and only its sum is needed */
          float4 yv = act != NN_BK_ACT_LINEAR ? *(const float4 *) (y + at)
                                              : make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
          float4 d = *(float4 *) (dy + at);
          d.x = act_backward (act, yv.x, d.x);
          d.y = act_backward (act, yv.y, d.y);
          d.z = act_backward (act, yv.z, d.z);
          d.w = act_backward (act, yv.w, d.w);
          if (act != NN_BK_ACT_LINEAR)
            *(float4 *) (dy + at) = d;
          sum += (d.x + d.y) + (d.z + d.w);
        }
    }
  else
    for (int r = blockIdx.x; r < rows; r += splits)
      {
        size_t base = ((size_t) r * channels + c) * spatial;
#pragma unroll 4
        for (int s = threadIdx.x; s < spatial; s += blockDim.x)
          {
            if (act == NN_BK_ACT_LINEAR)
              {
                sum += dy[base + s];
                continue;
              }
            float dz = act_backward (act, y[base + s], dy[base + s]);
            dy[base + s] = dz;
            sum += dz;
          }
      }
  if (partials != NULL)
    block_sum_store (sum, &partials[(size_t) c * splits + blockIdx.x]);
}

/* dbias[c] = sum of partials[c * splits ...], in a fixed order. */
extern "C" __global__ void
bias_act_sum_partials_kernel (const float *__restrict__ partials, float *__restrict__ dbias,
                              int channels, int splits)
{
  nn_kernel_enter ();
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels)
    return;
  float s = 0.0f;
  for (int k = 0; k < splits; k++)
    s += partials[(size_t) c * splits + k];
  dbias[c] = s;
}
