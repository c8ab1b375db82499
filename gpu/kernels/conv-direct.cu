/* SPDX-License-Identifier: GPL-3.0-or-later */
/* conv-direct.cu: convolutions with few taps per output (c * r * s <= 32,
 * a first layer on 1 or 3 channels), forward and weight gradient, NCHW.
 * cuDNN spends ~54 us forward and ~84 us on the weight gradient of the cnn
 * preset's first layer (1 -> 32 channels, 28x28, batch 256: 0.1 GFLOP),
 * bound by launches and layout; here a thread loads its input patch once
 * and uses it for every filter: 14 us forward (H200, ncu), and the weight
 * gradient with the layer's relu backward and bias gradient 26 + 3 us
 * where those alone had taken 22 us more. T is the tap count
 * rounded up (9, 16, 32) so the patch and the sums stay in registers
 * (with more than 9 taps the weight gradient's spill 8 to 120 bytes a
 * thread, by nvcc's resource usage: such first layers pay for it).
 */

#include "kernels/conv-direct.h"
#include "kernels/launch.cuh"
#include "kernels/act.cuh"

/* Per tap: channel, row and column offset (shared, computed once per block). */
template <int T>
__device__ __forceinline__ void
tap_table (const DirectGeom &g, int *tc, int *tr, int *ts)
{
  int taps = g.c * g.r * g.s;
  for (int q = threadIdx.x; q < T; q += blockDim.x)
    {
      tc[q] = q < taps ? q / (g.r * g.s) : 0;
      tr[q] = q < taps ? q % (g.r * g.s) / g.s : 0;
      ts[q] = q < taps ? q % g.s : 0;
    }
}

/* The input patch of output position (n, oy, ox), 0 outside the image and
 * beyond the taps. */
template <int T>
__device__ __forceinline__ void
load_patch (const DirectGeom &g, const float *__restrict__ x, int n, int oy, int ox,
            const int *tc, const int *tr, const int *ts, float patch[T])
{
  int taps = g.c * g.r * g.s;
  int y0 = oy * g.stride_h - g.pad_h, x0 = ox * g.stride_w - g.pad_w;
  const float *xn = x + (size_t) n * g.c * g.h * g.w;
#pragma unroll
  for (int q = 0; q < T; q++)
    {
      int iy = y0 + tr[q], ix = x0 + ts[q];
      patch[q] = q < taps && iy >= 0 && iy < g.h && ix >= 0 && ix < g.w
                   ? xn[((size_t) tc[q] * g.h + iy) * g.w + ix]
                   : 0.0f;
    }
}

/* Threads take DIRECT_FWD_POSITIONS output positions (n, oy, ox), 32
 * apart so a warp's stores of a filter's outputs stay contiguous, and every
 * filter; w (k, taps) in shared memory. */
template <int T>
static __device__ __forceinline__ void
conv_direct_forward_kernel_body (DirectGeom g, const float *__restrict__ x,
                                 const float *__restrict__ w, const float *__restrict__ bias,
                                 int act, float *__restrict__ y)
{
  nn_kernel_enter ();
  const int P = DIRECT_FWD_POSITIONS;
  extern __shared__ float ws[]; /* (k, T), then the bias (k) */
  __shared__ int tc[T], tr[T], ts[T];
  int taps = g.c * g.r * g.s;
  float *bs = ws + g.k * T;
  for (int i = threadIdx.x; i < g.k * T; i += blockDim.x)
    ws[i] = i % T < taps ? w[i / T * taps + i % T] : 0.0f; /* rows padded to T */
  for (int f = threadIdx.x; f < g.k; f += blockDim.x)
    bs[f] = bias != NULL ? bias[f] : 0.0f;
  tap_table<T> (g, tc, tr, ts);
  __syncthreads ();
  int plane = g.out_h * g.out_w;
  size_t positions = (size_t) g.n * plane;
  int lane = threadIdx.x & 31;
  size_t warps = (size_t) gridDim.x * (blockDim.x >> 5);
  for (size_t tile = (size_t) blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
       tile * 32 * P < positions; tile += warps)
    {
      float patch[P][T];
      float *yp[P];
#pragma unroll
      for (int j = 0; j < P; j++)
        {
          size_t p = tile * 32 * P + j * 32 + lane;
          int n = (int) (p / plane), o = (int) (p % plane);
          yp[j] = p < positions ? y + (size_t) n * g.k * plane + o : NULL;
          if (yp[j] != NULL)
            load_patch<T> (g, x, n, o / g.out_w, o % g.out_w, tc, tr, ts, patch[j]);
          else
#pragma unroll
            for (int q = 0; q < T; q++)
              patch[j][q] = 0.0f;
        }
      for (int f = 0; f < g.k; f++)
        {
          float wf[T];
#pragma unroll
          for (int q = 0; q < T; q++)
            wf[q] = ws[f * T + q];
          float b = bs[f];
#pragma unroll
          for (int j = 0; j < P; j++)
            {
              float acc = 0.0f;
#pragma unroll
              for (int q = 0; q < T; q++)
                acc += patch[j][q] * wf[q];
              if (yp[j] != NULL)
                yp[j][(size_t) f * plane] = act_forward (act, acc + b);
            }
        }
    }
}

/* conv_direct_forward_kernel_T: the tap bounds the launcher rounds to
 * (ops/conv-direct.cc: taps_bound). */
#define CONV_DIRECT_FORWARD(T)                                                                     \
  extern "C" __global__ void __launch_bounds__ (256)                                               \
  NN_KERNEL_NAME1 (conv_direct_forward_kernel, T) (                                                \
    DirectGeom g, const float *__restrict__ x, const float *__restrict__ w,                        \
    const float *__restrict__ bias, int act, float *__restrict__ y)                                \
  {                                                                                                \
    conv_direct_forward_kernel_body<T> (g, x, w, bias, act, y);                                    \
  }

CONV_DIRECT_FORWARD (9)
CONV_DIRECT_FORWARD (16)
CONV_DIRECT_FORWARD (32)

/* The weight gradient. Work items are bands of b.band_rows output rows of
 * one image; a block takes items blockIdx.x, + gridDim.x, ..., copying each
 * band's input rows (every channel, the padding as zeros) to shared memory,
 * so patches are read there without bounds tests. Warp w is "virtual warp"
 * v = w (+ 8 per pass when there are more than 8 groups of KG filters):
 * filter group v % groups, stripe v / groups of the band's positions (lanes
 * 32 apart, stripes interleaved); it sums dy (or with y, FUSED: dz =
 * act' (y) dy) times the patch for each tap over every item of its block,
 * in registers, and leaves one partial sum per (filter, column) to
 * partials[(filter * slices + slice) * width + q], slice = blockIdx.x *
 * b.stripes + stripe, with the bias gradient (the sum of dz) at q = taps
 * when FUSED; width = taps + FUSED. With y the layer's activation backward
 * and bias gradient, which would otherwise read and write dz over the
 * whole output once more, ride on the loads this kernel makes anyway. */
template <int T, bool FUSED, int P>
static __device__ __forceinline__ void
conv_direct_wgrad_kernel_body (DirectGeom g, DirectPlan b, const float *__restrict__ x,
                               const float *__restrict__ dy, const float *__restrict__ y, int act,
                               float *__restrict__ partials)
{
  nn_kernel_enter ();
  const int KG = Group<T>::K;
  const int W = T + FUSED; /* sums a filter: its taps, then its bias */
  extern __shared__ float band[]; /* (c, in_rows, in_w) */
  int taps = g.c * g.r * g.s;
  int width = taps + FUSED;
  int plane = g.out_h * g.out_w;
  int items = g.n * b.bands;
  int band_plane = b.in_rows * b.in_w;
  int groups = (g.k + KG - 1) / KG, virtual_warps = groups * b.stripes;
  int slices = gridDim.x * b.stripes;
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  /* a tap's offset in the band from its patch's corner; past the taps any
   * cell (those sums are not stored) */
  int tap_at[T];
#pragma unroll
  for (int q = 0; q < T; q++)
    tap_at[q]
        = q < taps ? (q / (g.r * g.s) * b.in_rows + q % (g.r * g.s) / g.s) * b.in_w + q % g.s : 0;

  for (int v0 = 0; v0 < virtual_warps; v0 += 8)
    {
      int v = v0 + warp;
      bool active = v < virtual_warps;
      int f0 = v % groups * KG, stripe = v / groups;
      float acc[KG][W];
#pragma unroll
      for (int j = 0; j < KG; j++)
#pragma unroll
        for (int q = 0; q < W; q++)
          acc[j][q] = 0.0f;

      for (int item = blockIdx.x; item < items; item += gridDim.x)
        {
          int n = item / b.bands, oy0 = (item - n * b.bands) * b.band_rows;
          int rows = min (b.band_rows, g.out_h - oy0);
          int iy0 = oy0 * g.stride_h - g.pad_h;
          const float *xn = x + (size_t) n * g.c * g.h * g.w;
          __syncthreads (); /* the last band is read */
          for (int e = threadIdx.x; e < g.c * band_plane; e += blockDim.x)
            {
              int ch = e / band_plane, rest = e - ch * band_plane;
              int iy = iy0 + rest / b.in_w, ix = rest % b.in_w - g.pad_w;
              band[e] = (unsigned) iy < (unsigned) g.h && (unsigned) ix < (unsigned) g.w
                            ? xn[((size_t) ch * g.h + iy) * g.w + ix]
                            : 0.0f;
            }
          __syncthreads ();
          if (!active)
            continue;
          size_t at = (size_t) n * g.k * plane + (size_t) oy0 * g.out_w;
          int count = rows * g.out_w;
#pragma unroll 2
          for (int o = (stripe * 32 + lane) * P; o < count; o += 32 * b.stripes * P)
            {
              /* P consecutive positions of one row (P = 2: rows of even
               * length, so dy and y are read as float2) */
              int oy = o / g.out_w, ox = o - oy * g.out_w;
              const float *corner = band + oy * g.stride_h * b.in_w + ox * g.stride_w;
              float patch[P][T], d[KG][P], yv[KG][P];
#pragma unroll
              for (int j = 0; j < KG; j++)
                {
                  bool in = f0 + j < g.k;
                  size_t i = at + (size_t) (f0 + j) * plane + o;
                  if (P == 2)
                    {
                      float2 dd = in ? *(const float2 *) (dy + i) : make_float2 (0.0f, 0.0f);
                      d[j][0] = dd.x;
                      d[j][P - 1] = dd.y;
                      if (FUSED)
                        {
                          float2 yy = in ? *(const float2 *) (y + i) : make_float2 (0.0f, 0.0f);
                          yv[j][0] = yy.x;
                          yv[j][P - 1] = yy.y;
                        }
                    }
                  else
                    {
                      d[j][0] = in ? dy[i] : 0.0f;
                      if (FUSED)
                        yv[j][0] = in ? y[i] : 0.0f;
                    }
                }
#pragma unroll
              for (int u = 0; u < P; u++)
#pragma unroll
                for (int q = 0; q < T; q++)
                  patch[u][q] = corner[u * g.stride_w + tap_at[q]];
#pragma unroll
              for (int j = 0; j < KG; j++)
#pragma unroll
                for (int u = 0; u < P; u++)
                  {
                    float dz = FUSED ? act_backward (act, yv[j][u], d[j][u]) : d[j][u];
#pragma unroll
                    for (int q = 0; q < T; q++)
                      acc[j][q] += dz * patch[u][q];
                    if (FUSED)
                      acc[j][W - 1] += dz;
                  }
            }
        }

      if (!active)
        continue;
      /* the warp's sums by shuffles (a fixed tree), lane 0 stores them */
      int slice = blockIdx.x * b.stripes + stripe;
#pragma unroll
      for (int j = 0; j < KG; j++)
#pragma unroll
        for (int q = 0; q < W; q++)
          {
            float sum = acc[j][q];
            for (int off = 16; off > 0; off >>= 1)
              sum += __shfl_xor_sync (0xffffffffu, sum, off);
            /* the taps in use, then (FUSED) the bias sum in column W - 1 */
            int col = q < taps ? q : (FUSED && q == W - 1) ? taps : -1;
            if (lane == 0 && col >= 0 && f0 + j < g.k)
              partials[((size_t) (f0 + j) * slices + slice) * width + col] = sum;
          }
    }
}

/* conv_direct_wgrad_kernel_T_FUSED_P (FUSED: 0 or 1). */
#define CONV_DIRECT_WGRAD(T, FUSED, P)                                                             \
  extern "C" __global__ void __launch_bounds__ (256, 2)                                            \
  NN_KERNEL_NAME3 (conv_direct_wgrad_kernel, T, FUSED, P) (                                        \
    DirectGeom g, DirectPlan b, const float *__restrict__ x, const float *__restrict__ dy,        \
    const float *__restrict__ y, int act, float *__restrict__ partials)                            \
  {                                                                                                \
    conv_direct_wgrad_kernel_body<T, FUSED != 0, P> (g, b, x, dy, y, act, partials);               \
  }

/* The instances launch_wgrad (ops/conv-direct.cc) chooses from, with and
 * without the activation's backward: pairs of positions for up to 9 taps,
 * single positions for each tap bound. */
#define CONV_DIRECT_WGRAD_EACH(FUSED)                                                              \
  CONV_DIRECT_WGRAD (9, FUSED, 2)                                                                  \
  CONV_DIRECT_WGRAD (9, FUSED, 1)                                                                  \
  CONV_DIRECT_WGRAD (16, FUSED, 1)                                                                 \
  CONV_DIRECT_WGRAD (32, FUSED, 1)

CONV_DIRECT_WGRAD_EACH (1)
CONV_DIRECT_WGRAD_EACH (0)

/* dw (k, taps) and, where dbias is not NULL, dbias (k) = the sums over
 * slices of partials (k, slices, width), width = taps or taps + 1 with the
 * bias last; one warp per sum (lanes take slices, then a fixed-order
 * shuffle tree). */
extern "C" __global__ void
conv_direct_wgrad_sum_kernel (const float *__restrict__ partials, float *__restrict__ dw,
                              float *__restrict__ dbias, int k, int taps, int width, int slices)
{
  nn_kernel_enter ();
  int e = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (e >= k * width)
    return;
  int f = e / width, q = e % width;
  float s = 0.0f;
  for (int sl = lane; sl < slices; sl += 32)
    s += partials[((size_t) f * slices + sl) * width + q];
  for (int o = 16; o > 0; o >>= 1)
    s += __shfl_xor_sync (0xffffffffu, s, o);
  if (lane == 0)
    {
      if (q < taps)
        dw[(size_t) f * taps + q] = s;
      else if (dbias != NULL)
        dbias[f] = s;
    }
}
