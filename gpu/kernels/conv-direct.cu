/* conv-direct.cu: convolutions with few taps per output (c * r * s <= 32,
 * a first layer on 1 or 3 channels), forward and weight gradient, NCHW.
 * cuDNN spends ~54 us forward and ~84 us on the weight gradient of the cnn
 * preset's first layer (1 -> 32 channels, 28x28, batch 256: 0.1 GFLOP),
 * bound by launches and layout; here a thread loads its input patch once
 * and uses it for every filter: 13 and 41 us (H200, ncu; see
 * bench/results/h200-trainbench-gpu-2026-11-30.txt). T is the tap count
 * rounded up (9, 16, 32) so the patch and the sums stay in registers.
 */

#include "nn-cuda-private.h"
#include "launch.cuh"
#include "act.cuh"

struct DirectGeom
{
  int n, c, h, w, k, r, s, stride_h, stride_w, pad_h, pad_w, out_h, out_w;
};

/* Filters per block in the weight gradient: as many as the registers allow. */
template <int T>
struct Group
{
  static const int K = T <= 16 ? 4 : 2;
};

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

/* One thread per output position (n, oy, ox), all filters; w (k, taps) in
 * shared memory. */
template <int T>
__global__ void
conv_direct_forward_kernel (DirectGeom g, const float *__restrict__ x,
                            const float *__restrict__ w, const float *__restrict__ bias, int act,
                            float *__restrict__ y)
{
  nn_kernel_enter ();
  extern __shared__ float ws[];
  __shared__ int tc[T], tr[T], ts[T];
  int taps = g.c * g.r * g.s;
  for (int i = threadIdx.x; i < g.k * T; i += blockDim.x)
    ws[i] = i % T < taps ? w[i / T * taps + i % T] : 0.0f; /* rows padded to T */
  tap_table<T> (g, tc, tr, ts);
  __syncthreads ();
  int plane = g.out_h * g.out_w;
  int positions = g.n * plane;
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < positions; p += gridDim.x * blockDim.x)
    {
      int n = p / plane, o = p % plane;
      float patch[T];
      load_patch<T> (g, x, n, o / g.out_w, o % g.out_w, tc, tr, ts, patch);
      float *yp = y + (size_t) n * g.k * plane + o;
      for (int f = 0; f < g.k; f++)
        {
          const float *wf = ws + f * T;
          float acc = 0.0f;
#pragma unroll
          for (int q = 0; q < T; q++)
            acc += patch[q] * wf[q];
          yp[(size_t) f * plane] = act_forward (act, bias != NULL ? acc + bias[f] : acc);
        }
    }
}

/* Block (x: slice of positions, y: group of filters): sums of dw for those
 * filters over its positions, to partials[(filter * slices + slice) * width
 * + q]. With y (FUSED), the gradient taken is dz = act' (y) * dy, and the
 * partial bias gradient (the sum of dz) goes to q = taps: the layer's
 * activation backward and bias gradient, which would otherwise read and
 * write dz over the whole output once more, ride on the loads this kernel
 * makes anyway. width = taps + FUSED. */
template <int T, bool FUSED>
__global__ void __launch_bounds__ (256)
    conv_direct_wgrad_kernel (DirectGeom g, const float *__restrict__ x,
                              const float *__restrict__ dy, const float *__restrict__ y, int act,
                              float *__restrict__ partials)
{
  nn_kernel_enter ();
  const int KG = Group<T>::K;
  const int W = T + FUSED; /* sums a filter: its taps, then its bias */
  __shared__ float red[8][KG * W];
  __shared__ int tc[T], tr[T], ts[T];
  int taps = g.c * g.r * g.s;
  int width = taps + FUSED;
  int plane = g.out_h * g.out_w;
  int positions = g.n * plane;
  int f0 = blockIdx.y * KG;
  float acc[KG][W];
#pragma unroll
  for (int j = 0; j < KG; j++)
#pragma unroll
    for (int q = 0; q < W; q++)
      acc[j][q] = 0.0f;
  tap_table<T> (g, tc, tr, ts);
  __syncthreads ();

  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < positions; p += gridDim.x * blockDim.x)
    {
      int n = p / plane, o = p % plane;
      float patch[T];
      load_patch<T> (g, x, n, o / g.out_w, o % g.out_w, tc, tr, ts, patch);
      size_t at = (size_t) n * g.k * plane + o;
      float d[KG], yv[KG];
#pragma unroll
      for (int j = 0; j < KG; j++)
        {
          bool in = f0 + j < g.k;
          d[j] = in ? dy[at + (size_t) (f0 + j) * plane] : 0.0f;
          if (FUSED)
            yv[j] = in ? y[at + (size_t) (f0 + j) * plane] : 0.0f;
        }
#pragma unroll
      for (int j = 0; j < KG; j++)
        {
          float dz = FUSED ? act_backward (act, yv[j], d[j]) : d[j];
#pragma unroll
          for (int q = 0; q < T; q++)
            acc[j][q] += dz * patch[q];
          if (FUSED)
            acc[j][W - 1] += dz;
        }
    }

  /* Sum over the block: each warp by shuffles, then the warps in shared memory. */
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
#pragma unroll
  for (int j = 0; j < KG; j++)
#pragma unroll
    for (int q = 0; q < W; q++)
      {
        float v = acc[j][q];
        for (int o = 16; o > 0; o >>= 1)
          v += __shfl_xor_sync (0xffffffffu, v, o);
        if (lane == 0)
          red[warp][j * W + q] = v;
      }
  __syncthreads ();
  for (int e = threadIdx.x; e < KG * W; e += blockDim.x)
    {
      int j = e / W, q = e % W;
      /* the taps in use, then (FUSED) the bias sum in column W - 1 */
      int col = q < taps ? q : (FUSED && q == W - 1) ? taps : -1;
      if (col < 0 || f0 + j >= g.k)
        continue;
      float s = 0.0f;
      for (int wi = 0; wi < (int) (blockDim.x >> 5); wi++)
        s += red[wi][e];
      partials[((size_t) (f0 + j) * gridDim.x + blockIdx.x) * width + col] = s;
    }
}

/* dw (k, taps) and, where dbias is not NULL, dbias (k) = the sums over
 * slices of partials (k, slices, width), width = taps or taps + 1 with the
 * bias last; one warp per sum (lanes take slices, then a fixed-order
 * shuffle tree). */
__global__ void
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

static DirectGeom
geom (const NnConvShape *s)
{
  DirectGeom g = { s->n, s->c, s->h, s->w, s->k, s->r, s->s, s->stride_h, s->stride_w,
                   s->pad_h, s->pad_w, s->out_h, s->out_w };
  return g;
}

static int
taps_bound (const NnConvShape *s)
{
  int taps = s->c * s->r * s->s;
  return taps <= 9 ? 9 : taps <= 16 ? 16 : 32;
}

int
_nn_cuda_conv_direct_ok (const NnConvShape *s)
{
  long long taps = (long long) s->c * s->r * s->s;
  return taps <= NN_CUDA_DIRECT_TAPS && (long long) s->k * 32 * 4 <= 48 * 1024
         && (long long) s->k * (taps + 1) <= NN_CUDA_PARTIALS
         && (long long) s->n * s->c * s->h * s->w < (1ll << 31)
         && (long long) s->n * s->k * s->out_h * s->out_w < (1ll << 31);
}

int
_nn_cuda_conv_direct_forward (NnCudaContext *ctx, const NnConvShape *s, const float *x,
                              const float *w, const float *bias, int act, float *y)
{
  DirectGeom g = geom (s);
  size_t positions = (size_t) s->n * s->out_h * s->out_w;
  int t = taps_bound (s);
  size_t smem = (size_t) s->k * t * sizeof (float);
  unsigned int blocks = _nn_cuda_blocks (ctx, positions, 256);
  if (t == 9)
    _nn_cuda_launch_serial (ctx, conv_direct_forward_kernel<9>, blocks, 256, smem, g, x, w, bias,
                            act, y);
  else if (t == 16)
    _nn_cuda_launch_serial (ctx, conv_direct_forward_kernel<16>, blocks, 256, smem, g, x, w, bias,
                            act, y);
  else
    _nn_cuda_launch_serial (ctx, conv_direct_forward_kernel<32>, blocks, 256, smem, g, x, w, bias,
                            act, y);
  return _nn_cuda_check_launch (ctx, "conv2d forward (direct)");
}

template <bool FUSED>
static void
launch_wgrad (NnCudaContext *ctx, int t, dim3 grid, const DirectGeom &g, const float *x,
              const float *dy, const float *y, int act)
{
  if (t == 9)
    _nn_cuda_launch_serial (ctx, conv_direct_wgrad_kernel<9, FUSED>, grid, 256, 0, g, x, dy, y, act,
                            ctx->partials);
  else if (t == 16)
    _nn_cuda_launch_serial (ctx, conv_direct_wgrad_kernel<16, FUSED>, grid, 256, 0, g, x, dy, y,
                            act, ctx->partials);
  else
    _nn_cuda_launch_serial (ctx, conv_direct_wgrad_kernel<32, FUSED>, grid, 256, 0, g, x, dy, y,
                            act, ctx->partials);
}

int
_nn_cuda_conv_direct_wgrad (NnCudaContext *ctx, const NnConvShape *s, const float *x,
                            const float *dy, const float *y, int act, float *dw, float *dbias)
{
  DirectGeom g = geom (s);
  bool fused = y != NULL;
  int taps = s->c * s->r * s->s;
  int width = taps + fused;
  int t = taps_bound (s);
  int kg = t == 9 ? Group<9>::K : t == 16 ? Group<16>::K : Group<32>::K;
  int groups = (s->k + kg - 1) / kg;
  size_t positions = (size_t) s->n * s->out_h * s->out_w;
  /* Enough blocks to fill the GPU, within the partials scratch. */
  int slices = (ctx->multiprocessors * 4 + groups - 1) / groups;
  if ((size_t) slices * 256 > positions)
    slices = (int) ((positions + 255) / 256);
  while (slices > 1 && (size_t) slices * s->k * width > NN_CUDA_PARTIALS)
    slices--;
  if (slices < 1)
    slices = 1;
  dim3 grid (slices, groups);
  if (fused)
    launch_wgrad<true> (ctx, t, grid, g, x, dy, y, act);
  else
    launch_wgrad<false> (ctx, t, grid, g, x, dy, NULL, NN_BK_ACT_LINEAR);
  int rc = _nn_cuda_check_launch (ctx, "conv2d backward (direct weights)");
  if (rc != 0)
    return rc;
  int outputs = s->k * width;
  _nn_cuda_launch_serial (ctx, conv_direct_wgrad_sum_kernel, (outputs + 7) / 8, 256, 0,
                          ctx->partials, dw, fused ? dbias : (float *) NULL, s->k, taps, width,
                          slices);
  return _nn_cuda_check_launch (ctx, "conv2d backward (direct weights sum)");
}
