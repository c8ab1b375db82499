/* SPDX-License-Identifier: GPL-3.0-or-later */
/* conv-direct.cc: the direct convolution's plan and launches, and the sums
 * of the weight gradients' partials (kernels/conv-direct.cu: the kernels,
 * and why they are as they are).
 */

#include "nn-cuda-launch.h"

NN_CUDA_FATBIN (conv_direct, "conv-direct.cu")
#include "kernels/conv-direct.h"

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

/* Floats of input a weight-gradient block holds in shared memory (48 KB,
 * which needs no opt-in). */
#define DIRECT_BAND_FLOATS 12288

/* The padded width of the input a band spans, and its rows for `rows`
 * output rows. */
static int
band_width (const NnConvShape *s)
{
  return (s->out_w - 1) * s->stride_w + s->s;
}

static int
band_in_rows (const NnConvShape *s, int rows)
{
  return (rows - 1) * s->stride_h + s->r;
}

int
_nn_cuda_conv_direct_ok (const NnConvShape *s)
{
  long long taps = (long long) s->c * s->r * s->s;
  return taps <= NN_CUDA_DIRECT_TAPS && (long long) s->k * 33 * 4 <= 48 * 1024
         && (long long) s->c * band_in_rows (s, 1) * band_width (s) <= DIRECT_BAND_FLOATS
         && (long long) s->n * s->c * s->h * s->w < (1ll << 31)
         && (long long) s->n * s->k * s->out_h * s->out_w < (1ll << 31);
}

void
_nn_cuda_conv_direct_plan (const NnCudaContext *ctx, const NnConvShape *s, NnCudaDirectPlan *plan)
{
  int taps = s->c * s->r * s->s;
  int kg = taps_bound (s) <= 16 ? Group<16>::K : Group<32>::K;
  int groups = (s->k + kg - 1) / kg;
  /* two blocks a multiprocessor (the registers allow two), at least two
   * items each: bands of whole rows that fit in shared memory */
  int blocks = (ctx->multiprocessors > 0 ? ctx->multiprocessors : 16) * 2;
  int bands = (2 * blocks + s->n - 1) / s->n;
  bands = bands < 1 ? 1 : bands > s->out_h ? s->out_h : bands;
  int rows = (s->out_h + bands - 1) / bands;
  while (rows > 1
         && (long long) s->c * band_in_rows (s, rows) * band_width (s) > DIRECT_BAND_FLOATS)
    rows--;
  plan->band_rows = rows;
  plan->bands = (s->out_h + rows - 1) / rows;
  plan->in_rows = band_in_rows (s, rows);
  plan->in_w = band_width (s);
  /* warps that share a filter group take interleaved stripes of positions */
  plan->stripes = groups < 8 ? 8 / groups : 1;
  int items = s->n * plan->bands;
  plan->blocks = items < blocks ? items : blocks;
  plan->partial_bytes = (size_t) s->k * plan->blocks * plan->stripes * (taps + 1) * sizeof (float);
}

int
_nn_cuda_conv_direct_forward (NnCudaContext *ctx, const NnConvShape *s, const float *x,
                              const float *w, const float *bias, int act, float *y)
{
  DirectGeom g = geom (s);
  size_t positions = (size_t) s->n * s->out_h * s->out_w;
  int t = taps_bound (s);
  size_t smem = (size_t) s->k * (t + 1) * sizeof (float);
  unsigned int blocks
      = _nn_cuda_blocks (ctx, (positions + DIRECT_FWD_POSITIONS - 1) / DIRECT_FWD_POSITIONS, 256);
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

/* The weight-gradient kernel for the tap bound t: pairs of positions
 * (float2 loads of dy and y) for up to 9 taps where rows have an even
 * length and the tensors are 8-byte aligned, single positions otherwise
 * (with more taps the pairs' patches spilled: nvcc gave 24 to 320 bytes of
 * stack). */
template <bool FUSED>
static void
launch_wgrad (NnCudaContext *ctx, int t, const DirectGeom &g, const NnCudaDirectPlan &b,
              const float *x, const float *dy, const float *y, int act, float *partials)
{
  size_t smem = (size_t) g.c * b.in_rows * b.in_w * sizeof (float);
  bool pairs = g.out_w % 2 == 0 && ((uintptr_t) dy | (uintptr_t) y) % 8 == 0;
  if (t == 9 && pairs)
    _nn_cuda_launch_serial (ctx, conv_direct_wgrad_kernel<9, FUSED, 2>, b.blocks, 256, smem, g, b,
                            x, dy, y, act, partials);
  else if (t == 9)
    _nn_cuda_launch_serial (ctx, conv_direct_wgrad_kernel<9, FUSED, 1>, b.blocks, 256, smem, g, b,
                            x, dy, y, act, partials);
  else if (t == 16)
    _nn_cuda_launch_serial (ctx, conv_direct_wgrad_kernel<16, FUSED, 1>, b.blocks, 256, smem, g,
                            b, x, dy, y, act, partials);
  else
    _nn_cuda_launch_serial (ctx, conv_direct_wgrad_kernel<32, FUSED, 1>, b.blocks, 256, smem, g,
                            b, x, dy, y, act, partials);
}

int
_nn_cuda_conv_direct_wgrad (NnCudaContext *ctx, const NnConvShape *s, const NnCudaDirectPlan *plan,
                            const float *x, const float *dy, const float *y, int act, float *dw,
                            float *dbias, void *workspace)
{
  DirectGeom g = geom (s);
  bool fused = y != NULL;
  int taps = s->c * s->r * s->s;
  int width = taps + fused;
  int t = taps_bound (s);
  float *partials = (float *) workspace;
  if (fused)
    launch_wgrad<true> (ctx, t, g, *plan, x, dy, y, act, partials);
  else
    launch_wgrad<false> (ctx, t, g, *plan, x, dy, NULL, NN_BK_ACT_LINEAR, partials);
  int rc = _nn_cuda_check_launch (ctx, "conv2d backward (direct weights)");
  if (rc != 0)
    return rc;
  return _nn_cuda_conv_wgrad_sums (ctx, partials, s->k, taps, width, plan->blocks * plan->stripes,
                                   dw, fused ? dbias : NULL, "conv2d backward (direct weights sum)");
}

int
_nn_cuda_conv_wgrad_sums (NnCudaContext *ctx, const float *partials, int k, int taps, int width,
                          int slices, float *dw, float *dbias, const char *what)
{
  int outputs = k * width;
  /* a small kernel: set up while the weight gradient finishes (nn-cuda-launch.h) */
  _nn_cuda_launch (ctx, conv_direct_wgrad_sum_kernel, (outputs + 7) / 8, 256, 0, partials, dw,
                   dbias, k, taps, width, slices);
  return _nn_cuda_check_launch (ctx, what);
}
