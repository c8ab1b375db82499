/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pool2d.cu: max and average pooling, forward and backward, NCHW (launched
 * by ops/pool2d.cc).
 *
 * Windows start at (oy * stride - pad) and may overhang the edges; cells
 * outside the input are ignored by max and not counted by average. The
 * backward pass gathers: each input cell sums what the windows containing
 * it send back (max: only to the first maximum of the window), so every
 * cell of dx is written once and no atomics are needed.
 *
 * Max pooling whose windows tile the input can also record where each
 * window's maximum is, a byte a window (the argmax ops): its backward then
 * reads that byte and the window's output in place of the window's cells.
 * On the cnn's pooling (64 x 24 x 24 cells a 256-image batch, 37.7 MB)
 * that backward reads 21 MB and writes the 37.7 MB of dx, where the
 * backward that searches the window reads 47 MB (ncu's DRAM counters).
 */

#include "kernels/pool2d.h"
#include "kernels/launch.cuh"
#include "kernels/act.cuh"
#include "kernels/reduce.cuh"
#include "kernels/pool-max.cuh"

#include <type_traits>

/* The index type I of a kernel whose name gives its width W (32, 64). */
template <int W> using PoolIndex = std::conditional_t<W == 64, uint64_t, unsigned int>;

/* Index, within the plane, of the first maximum of window (oy, ox); -1 if empty. */
__device__ __forceinline__ int
window_argmax (const float *__restrict__ plane, const PoolGeom &g, int oy, int ox)
{
  int y0 = oy * g.stride_h - g.pad_h, x0 = ox * g.stride_w - g.pad_w;
  int best_i = -1;
  float best = 0.0f;
  for (int dy = 0; dy < g.win_h; dy++)
    {
      int iy = y0 + dy;
      if (iy < 0 || iy >= g.h)
        continue;
      for (int dx = 0; dx < g.win_w; dx++)
        {
          int ix = x0 + dx;
          if (ix < 0 || ix >= g.w)
            continue;
          float v = plane[iy * g.w + ix];
          if (best_i < 0 || v > best)
            {
              best = v;
              best_i = iy * g.w + ix;
            }
        }
    }
  return best_i;
}

__device__ __forceinline__ int
window_count (const PoolGeom &g, int oy, int ox)
{
  int y0 = oy * g.stride_h - g.pad_h, x0 = ox * g.stride_w - g.pad_w;
  int y1 = min (y0 + g.win_h, g.h), x1 = min (x0 + g.win_w, g.w);
  y0 = max (y0, 0);
  x0 = max (x0, 0);
  return max (y1 - y0, 0) * max (x1 - x0, 0);
}

/* One output cell per thread; I is the index type (32-bit when it fits:
 * 64-bit division is many times slower). TWO_BY_TWO: 2 x 2 windows that
 * tile the input (the cnn's pooling), read as two float2 rows. */
template <typename I, bool TWO_BY_TWO>
static __device__ __forceinline__ void
pool_forward_body (int mode, PoolGeom g, const float *__restrict__ x, float *__restrict__ y,
                   float *__restrict__ drop_y, PoolDrop drop)
{
  nn_kernel_enter ();
  I total = (I) g.n * g.c * g.out_h * g.out_w;
  const int64_t step = drop_step (drop);
  auto store = [&] (I i, float v) { store_pooled (drop, step, (size_t) i, v, y, drop_y); };
  for (I i = blockIdx.x * (I) blockDim.x + threadIdx.x; i < total; i += (I) gridDim.x * blockDim.x)
    {
      int ox = (int) (i % g.out_w);
      I t = i / g.out_w;
      int oy = (int) (t % g.out_h);
      I plane = t / g.out_h;
      const float *xp = x + plane * g.h * g.w;
      if (TWO_BY_TWO)
        {
          /* in the generic loops' order, so results match them */
          int at = 2 * oy * g.w + 2 * ox;
          float2 r0 = *(const float2 *) (xp + at), r1 = *(const float2 *) (xp + at + g.w);
          float v;
          int first; /* not stored: no argmax here */
          if (mode == 0)
            v = max_2x2 (r0.x, r0.y, r1.x, r1.y, &first);
          else
            {
              float s = r0.x;
              s += r0.y;
              s += r1.x;
              s += r1.y;
              v = s / 4;
            }
          store (i, v);
          continue;
        }
      if (mode == 0)
        {
          int k = window_argmax (xp, g, oy, ox);
          store (i, k >= 0 ? xp[k] : 0.0f);
        }
      else
        {
          int y0 = oy * g.stride_h - g.pad_h, x0 = ox * g.stride_w - g.pad_w;
          float s = 0.0f;
          for (int dy = 0; dy < g.win_h; dy++)
            {
              int iy = y0 + dy;
              if (iy < 0 || iy >= g.h)
                continue;
              for (int dx = 0; dx < g.win_w; dx++)
                {
                  int ix = x0 + dx;
                  if (ix >= 0 && ix < g.w)
                    s += xp[iy * g.w + ix];
                }
            }
          int count = window_count (g, oy, ox);
          store (i, count > 0 ? s / count : 0.0f);
        }
    }
}

/* pool_forward_kernel_W_TWO_BY_TWO: W-bit indices (32, 64) */
#define POOL_FORWARD_KERNEL(W, TWO_BY_TWO)                                                         \
  extern "C" __global__ void NN_KERNEL_NAME2 (pool_forward_kernel, W, TWO_BY_TWO) (                \
    int mode, PoolGeom g, const float *__restrict__ x, float *__restrict__ y,                      \
    float *__restrict__ drop_y, PoolDrop drop)                                                     \
  {                                                                                                \
    pool_forward_body<PoolIndex<W>, TWO_BY_TWO != 0> (mode, g, x, y, drop_y, drop);                \
  }

POOL_FORWARD_KERNEL (32, 1)
POOL_FORWARD_KERNEL (32, 0)
POOL_FORWARD_KERNEL (64, 0)

/* Windows that tile the input exactly: one thread per window writes all of
 * that window's cells. */
template <typename I>
static __device__ __forceinline__ void
pool_backward_tiled_body (int mode, PoolGeom g, const float *__restrict__ x,
                          const float *__restrict__ dy, float *__restrict__ dx)
{
  nn_kernel_enter ();
  I total = (I) g.n * g.c * g.out_h * g.out_w;
  for (I i = blockIdx.x * (I) blockDim.x + threadIdx.x; i < total; i += (I) gridDim.x * blockDim.x)
    {
      int ox = (int) (i % g.out_w);
      I t = i / g.out_w;
      int oy = (int) (t % g.out_h);
      I plane = t / g.out_h;
      const float *xp = x + plane * g.h * g.w;
      float *dxp = dx + plane * g.h * g.w;
      float d = dy[i];
      int y0 = oy * g.win_h, x0 = ox * g.win_w;
      if (mode == 0)
        {
          int k = window_argmax (xp, g, oy, ox);
          for (int wy = 0; wy < g.win_h; wy++)
            for (int wx = 0; wx < g.win_w; wx++)
              {
                int cell = (y0 + wy) * g.w + x0 + wx;
                dxp[cell] = cell == k ? d : 0.0f;
              }
        }
      else
        {
          float share = d / (g.win_h * g.win_w);
          for (int wy = 0; wy < g.win_h; wy++)
            for (int wx = 0; wx < g.win_w; wx++)
              dxp[(y0 + wy) * g.w + x0 + wx] = share;
        }
    }
}

/* pool_backward_tiled_kernel_W */
#define POOL_BACKWARD_TILED_KERNEL(W)                                                              \
  extern "C" __global__ void NN_KERNEL_NAME1 (pool_backward_tiled_kernel, W) (                     \
    int mode, PoolGeom g, const float *__restrict__ x, const float *__restrict__ dy,               \
    float *__restrict__ dx)                                                                        \
  {                                                                                                \
    pool_backward_tiled_body<PoolIndex<W>> (mode, g, x, dy, dx);                                  \
  }

POOL_BACKWARD_TILED_KERNEL (32)
POOL_BACKWARD_TILED_KERNEL (64)

/* The tiled backward fused with the activation backward of the layer below
 * (pool2d_backward_act): block (split, channel) takes images split,
 * split + splits, ... of one channel, a window per thread, writes
 * dz = act' (x) * (the window's gradient) into every cell of the window, and
 * leaves the block's sum of dz in partials[channel * splits + split] for the
 * bias gradient. Separately, the activation backward read the pooling's
 * input and gradient again and wrote dz over it: on the cnn's second
 * convolution, 37.7 MB each. */
template <bool TWO_BY_TWO>
static __device__ __forceinline__ void
pool_backward_act_body (int mode, PoolGeom g, int act, const float *__restrict__ x,
                        const float *__restrict__ dy, float *__restrict__ dx,
                        float *__restrict__ partials, PoolDrop drop)
{
  nn_kernel_enter ();
  const int64_t t = drop_step (drop);
  const int c = blockIdx.y, splits = gridDim.x;
  const int windows = g.out_h * g.out_w;
  const int images = (g.n - (int) blockIdx.x + splits - 1) / splits;
  float sum = 0.0f;
#pragma unroll 2
  for (int i = threadIdx.x; i < images * windows; i += blockDim.x)
    {
      int image = blockIdx.x + (i / windows) * splits, win = i % windows;
      int oy = win / g.out_w, ox = win % g.out_w;
      size_t plane = (size_t) image * g.c + c;
      const float *xp = x + plane * g.h * g.w;
      float *dxp = dx + plane * g.h * g.w;
      size_t at_y = plane * windows + win;
      float d = dy[at_y];
      if (drop.rate > 0.0f)
        d = nn_dropout_keep (drop.seed, t, at_y, drop.rate) ? d * drop.scale : 0.0f;
      if (TWO_BY_TWO)
        {
          /* the window's two rows as float2 (w is even); the first
           * maximum in row order, as window_argmax takes it */
          int at = 2 * oy * g.w + 2 * ox;
          float2 r0 = *(const float2 *) (xp + at), r1 = *(const float2 *) (xp + at + g.w);
          float g00 = d / 4.0f, g01 = g00, g10 = g00, g11 = g00;
          if (mode == 0)
            {
              int k = 0;
              float best = r0.x;
              if (r0.y > best)
                best = r0.y, k = 1;
              if (r1.x > best)
                best = r1.x, k = 2;
              if (r1.y > best)
                k = 3;
              g00 = k == 0 ? d : 0.0f;
              g01 = k == 1 ? d : 0.0f;
              g10 = k == 2 ? d : 0.0f;
              g11 = k == 3 ? d : 0.0f;
            }
          float2 z0 = make_float2 (act_backward (act, r0.x, g00), act_backward (act, r0.y, g01));
          float2 z1 = make_float2 (act_backward (act, r1.x, g10), act_backward (act, r1.y, g11));
          *(float2 *) (dxp + at) = z0;
          *(float2 *) (dxp + at + g.w) = z1;
          sum += (z0.x + z0.y) + (z1.x + z1.y);
          continue;
        }
      int k = mode == 0 ? window_argmax (xp, g, oy, ox) : -1;
      float share = d / (g.win_h * g.win_w);
      int y0 = oy * g.win_h, x0 = ox * g.win_w;
      for (int wy = 0; wy < g.win_h; wy++)
        for (int wx = 0; wx < g.win_w; wx++)
          {
            int cell = (y0 + wy) * g.w + x0 + wx;
            float grad = mode == 0 ? (cell == k ? d : 0.0f) : share;
            float dz = act_backward (act, xp[cell], grad);
            dxp[cell] = dz;
            sum += dz;
          }
    }
  if (partials != NULL)
    block_sum_store (sum, &partials[(size_t) c * splits + blockIdx.x]);
}

/* pool_backward_act_kernel_TWO_BY_TWO */
#define POOL_BACKWARD_ACT_KERNEL(TWO_BY_TWO)                                                       \
  extern "C" __global__ void NN_KERNEL_NAME1 (pool_backward_act_kernel, TWO_BY_TWO) (              \
    int mode, PoolGeom g, int act, const float *__restrict__ x, const float *__restrict__ dy,      \
    float *__restrict__ dx, float *__restrict__ partials, PoolDrop drop)                           \
  {                                                                                                \
    pool_backward_act_body<TWO_BY_TWO != 0> (mode, g, act, x, dy, dx, partials, drop);            \
  }

POOL_BACKWARD_ACT_KERNEL (1)
POOL_BACKWARD_ACT_KERNEL (0)

/* Max pooling of windows that tile the input exactly, a window per thread,
 * recording each window's maximum (pool2d_forward_argmax); TWO_BY_TWO as
 * pool_forward_kernel. I is the index type. */
template <typename I, bool TWO_BY_TWO>
static __device__ __forceinline__ void
pool_forward_argmax_body (PoolGeom g, const float *__restrict__ x, float *__restrict__ y,
                          float *__restrict__ drop_y, uint8_t *__restrict__ argmax, PoolDrop drop)
{
  nn_kernel_enter ();
  I total = (I) g.n * g.c * g.out_h * g.out_w;
  const int64_t step = drop_step (drop);
  for (I i = blockIdx.x * (I) blockDim.x + threadIdx.x; i < total; i += (I) gridDim.x * blockDim.x)
    {
      int ox = (int) (i % g.out_w);
      I t = i / g.out_w;
      int oy = (int) (t % g.out_h);
      I plane = t / g.out_h;
      const float *xp = x + (size_t) plane * g.h * g.w;
      float v;
      int at;
      if (TWO_BY_TWO)
        {
          const float *corner = xp + (2 * oy) * g.w + 2 * ox;
          float2 r0 = *(const float2 *) corner, r1 = *(const float2 *) (corner + g.w);
          v = max_2x2 (r0.x, r0.y, r1.x, r1.y, &at);
        }
      else
        {
          /* the search pool_forward_kernel makes; the window's position in
           * place of the plane's (the windows tile the input: no padding) */
          int k = window_argmax (xp, g, oy, ox);
          v = xp[k];
          at = (k / g.w - oy * g.win_h) * g.win_w + k % g.w - ox * g.win_w;
        }
      store_max (drop, step, (size_t) i, v, at, y, drop_y, argmax);
    }
}

/* pool_forward_argmax_kernel_W_TWO_BY_TWO */
#define POOL_FORWARD_ARGMAX_KERNEL(W, TWO_BY_TWO)                                                  \
  extern "C" __global__ void NN_KERNEL_NAME2 (pool_forward_argmax_kernel, W, TWO_BY_TWO) (         \
    PoolGeom g, const float *__restrict__ x, float *__restrict__ y, float *__restrict__ drop_y,    \
    uint8_t *__restrict__ argmax, PoolDrop drop)                                                   \
  {                                                                                                \
    pool_forward_argmax_body<PoolIndex<W>, TWO_BY_TWO != 0> (g, x, y, drop_y, argmax, drop);       \
  }

POOL_FORWARD_ARGMAX_KERNEL (32, 1)
POOL_FORWARD_ARGMAX_KERNEL (32, 0)
POOL_FORWARD_ARGMAX_KERNEL (64, 0)

/* pool2d_backward_argmax: blocks as pool_backward_act_kernel, a window per
 * thread; its cells get dz = act' (y) * g at its recorded maximum and 0
 * elsewhere. */
extern "C" __global__ void
pool_backward_argmax_kernel (PoolGeom g, int act, const uint8_t *__restrict__ argmax,
                             const float *__restrict__ y, const float *__restrict__ dy,
                             float *__restrict__ dx, float *__restrict__ partials, PoolDrop drop)
{
  nn_kernel_enter ();
  const int64_t t = drop_step (drop);
  const int c = blockIdx.y, splits = gridDim.x;
  const int windows = g.out_h * g.out_w, cells = g.win_h * g.win_w;
  const int images = (g.n - (int) blockIdx.x + splits - 1) / splits;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < images * windows; i += blockDim.x)
    {
      int image = blockIdx.x + (i / windows) * splits, win = i % windows;
      int oy = win / g.out_w, ox = win % g.out_w;
      size_t plane = (size_t) image * g.c + c;
      size_t at_y = plane * windows + win;
      float d = dy[at_y];
      if (drop.rate > 0.0f)
        d = nn_dropout_keep (drop.seed, t, at_y, drop.rate) ? d * drop.scale : 0.0f;
      float dz = act_backward (act, y[at_y], d);
      int k = argmax[at_y];
      float *corner = dx + (plane * g.h + oy * g.win_h) * g.w + ox * g.win_w;
      for (int q = 0; q < cells; q++)
        corner[q / g.win_w * g.w + q % g.win_w] = q == k ? dz : 0.0f;
      sum += dz;
    }
  if (partials != NULL)
    block_sum_store (sum, &partials[(size_t) c * splits + blockIdx.x]);
}

/* The same for 2 x 2 windows in rows of an even count: two windows side by
 * side a thread, read as float2 and two bytes, each row of their cells
 * stored as one float4. On the cnn's pooling this took two thirds of the
 * time of a window a thread with float2 stores, and less than four windows
 * a thread or the backward that searches the windows (ncu). */
extern "C" __global__ void
pool_backward_argmax_pairs_kernel (PoolGeom g, int act, const uint8_t *__restrict__ argmax,
                                   const float *__restrict__ y, const float *__restrict__ dy,
                                   float *__restrict__ dx, float *__restrict__ partials,
                                   PoolDrop drop)
{
  nn_kernel_enter ();
  const int64_t t = drop_step (drop);
  const int c = blockIdx.y, splits = gridDim.x;
  const int pairs = g.out_h * g.out_w / 2, across = g.out_w / 2;
  const int images = (g.n - (int) blockIdx.x + splits - 1) / splits;
  float sum = 0.0f;
#pragma unroll 2
  for (int i = threadIdx.x; i < images * pairs; i += blockDim.x)
    {
      int image = blockIdx.x + (i / pairs) * splits, pair = i % pairs;
      int oy = pair / across, ox = (pair % across) * 2;
      size_t plane = (size_t) image * g.c + c;
      size_t at_y = (plane * g.out_h + oy) * g.out_w + ox;
      float2 d = *(const float2 *) (dy + at_y), yy = *(const float2 *) (y + at_y);
      uchar2 k = *(const uchar2 *) (argmax + at_y);
      if (drop.rate > 0.0f)
        {
          d.x = nn_dropout_keep (drop.seed, t, at_y, drop.rate) ? d.x * drop.scale : 0.0f;
          d.y = nn_dropout_keep (drop.seed, t, at_y + 1, drop.rate) ? d.y * drop.scale : 0.0f;
        }
      float z0 = act_backward (act, yy.x, d.x), z1 = act_backward (act, yy.y, d.y);
      float *corner = dx + (plane * g.h + 2 * oy) * g.w + 2 * ox;
      *(float4 *) corner = make_float4 (k.x == 0 ? z0 : 0.0f, k.x == 1 ? z0 : 0.0f,
                                        k.y == 0 ? z1 : 0.0f, k.y == 1 ? z1 : 0.0f);
      *(float4 *) (corner + g.w) = make_float4 (k.x == 2 ? z0 : 0.0f, k.x == 3 ? z0 : 0.0f,
                                                k.y == 2 ? z1 : 0.0f, k.y == 3 ? z1 : 0.0f);
      sum += z0;
      sum += z1;
    }
  if (partials != NULL)
    block_sum_store (sum, &partials[(size_t) c * splits + blockIdx.x]);
}

template <typename I>
static __device__ __forceinline__ void
pool_backward_body (int mode, PoolGeom g, const float *__restrict__ x,
                    const float *__restrict__ dy, float *__restrict__ dx)
{
  nn_kernel_enter ();
  I total = (I) g.n * g.c * g.h * g.w;
  for (I i = blockIdx.x * (I) blockDim.x + threadIdx.x; i < total; i += (I) gridDim.x * blockDim.x)
    {
      int ix = (int) (i % g.w);
      I t = i / g.w;
      int iy = (int) (t % g.h);
      I plane = t / g.h;
      const float *xp = x + plane * g.h * g.w;
      const float *dyp = dy + plane * g.out_h * g.out_w;
      int cell = iy * g.w + ix;
      /* Windows containing (iy, ix): oy * stride - pad <= iy < oy * stride - pad + win. */
      int oy0 = iy + g.pad_h - g.win_h + 1;
      oy0 = oy0 <= 0 ? 0 : (oy0 + g.stride_h - 1) / g.stride_h;
      int oy1 = min ((iy + g.pad_h) / g.stride_h, g.out_h - 1);
      int ox0 = ix + g.pad_w - g.win_w + 1;
      ox0 = ox0 <= 0 ? 0 : (ox0 + g.stride_w - 1) / g.stride_w;
      int ox1 = min ((ix + g.pad_w) / g.stride_w, g.out_w - 1);
      float s = 0.0f;
      for (int oy = oy0; oy <= oy1; oy++)
        for (int ox = ox0; ox <= ox1; ox++)
          {
            float d = dyp[oy * g.out_w + ox];
            if (mode == 0)
              {
                if (window_argmax (xp, g, oy, ox) == cell)
                  s += d;
              }
            else
              {
                int count = window_count (g, oy, ox);
                if (count > 0)
                  s += d / count;
              }
          }
      dx[i] = s;
    }
}

/* pool_backward_kernel_W */
#define POOL_BACKWARD_KERNEL(W)                                                                    \
  extern "C" __global__ void NN_KERNEL_NAME1 (pool_backward_kernel, W) (                           \
    int mode, PoolGeom g, const float *__restrict__ x, const float *__restrict__ dy,               \
    float *__restrict__ dx)                                                                        \
  {                                                                                                \
    pool_backward_body<PoolIndex<W>> (mode, g, x, dy, dx);                                        \
  }

POOL_BACKWARD_KERNEL (32)
POOL_BACKWARD_KERNEL (64)
