/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pool2d.cc: the pooling ops (kernels/pool2d.cu says how they pool). */

#include "nn-cuda-launch.h"

NN_CUDA_FATBIN (pool2d, "pool2d.cu")
#include "kernels/pool2d.h"

static int
geometry (NnCudaContext *ctx, int mode, const NnPoolShape *s, PoolGeom *g, const char *what)
{
  if (mode != 0 && mode != 1)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "%s: unknown mode %d", what, mode);
  if (s->n < 0 || s->c < 0 || s->h <= 0 || s->w <= 0 || s->win_h <= 0 || s->win_w <= 0
      || s->stride_h <= 0 || s->stride_w <= 0 || s->pad_h < 0 || s->pad_w < 0 || s->out_h <= 0
      || s->out_w <= 0)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "%s: bad shape", what);
  g->n = s->n;
  g->c = s->c;
  g->h = s->h;
  g->w = s->w;
  g->win_h = s->win_h;
  g->win_w = s->win_w;
  g->stride_h = s->stride_h;
  g->stride_w = s->stride_w;
  g->pad_h = s->pad_h;
  g->pad_w = s->pad_w;
  g->out_h = s->out_h;
  g->out_w = s->out_w;
  return NN_BACKEND_OK;
}

/* Checks a dropout's arguments and makes its kernel form (rate 0: off). */
static int
pool_drop (NnCudaContext *ctx, float rate, uint64_t seed, const int64_t *step, PoolDrop *d,
           const char *what)
{
  if (!(rate >= 0.0f && rate < 1.0f))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "%s: dropout rate %g", what, rate);
  *d = PoolDrop{ rate, _nn_cuda_dropout_scale (rate), seed, step };
  return NN_BACKEND_OK;
}

int
_nn_cuda_pool2d_maxima_ok (const NnPoolShape *s)
{
  PoolGeom g = {};
  g.h = s->h;
  g.w = s->w;
  g.win_h = s->win_h;
  g.win_w = s->win_w;
  g.stride_h = s->stride_h;
  g.stride_w = s->stride_w;
  g.pad_h = s->pad_h;
  g.pad_w = s->pad_w;
  g.out_h = s->out_h;
  g.out_w = s->out_w;
  return tiles_exactly (g) && g.win_h * g.win_w <= 256;
}

/* Whether the argmax ops take this pooling: max windows that tile the
 * input exactly and hold at most 256 cells; the reason when not. */
static int
records_maxima (NnCudaContext *ctx, int mode, const PoolGeom &g, const char *what)
{
  if (mode == 0 && tiles_exactly (g) && g.win_h * g.win_w <= 256)
    return NN_BACKEND_OK;
  return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                            "%s: recording maxima needs max windows that tile the input "
                            "exactly, of at most 256 cells (%dx%d windows, stride %dx%d, input "
                            "%dx%d)",
                            what, g.win_h, g.win_w, g.stride_h, g.stride_w, g.h, g.w);
}

/* pool2d_forward_dropout, and with argmax not NULL pool2d_forward_argmax. */
static int
pool_forward (NnCudaContext *ctx, int mode, const NnPoolShape *shape, const float *x, float *y,
              float *drop_y, float rate, uint64_t seed, const int64_t *step, uint8_t *argmax)
{
  PoolGeom g;
  PoolDrop drop;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if ((rc = geometry (ctx, mode, shape, &g, "pool2d forward")) != 0)
    return rc;
  if ((argmax != NULL && (rc = records_maxima (ctx, mode, g, "pool2d forward")) != 0)
      || (rc = pool_drop (ctx, rate, seed, step, &drop, "pool2d forward")) != 0)
    return rc;
  if (rate > 0.0f && drop_y == NULL)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "pool2d forward: dropout without an output");
  size_t total = (size_t) g.n * g.c * g.out_h * g.out_w;
  if (total == 0)
    return NN_BACKEND_OK;
  unsigned int blocks = _nn_cuda_blocks (ctx, total, 256);
  bool small = (size_t) g.n * g.c * g.h * g.w < 0x7fffffffu;
  if (argmax != NULL)
    {
      if (small && two_by_two (g) && (uintptr_t) x % 8 == 0)
        _nn_cuda_launch (ctx, pool_forward_argmax_kernel<32, 1>, blocks, 256, 0, g, x, y, drop_y,
                         argmax, drop);
      else if (small)
        _nn_cuda_launch (ctx, pool_forward_argmax_kernel<32, 0>, blocks, 256, 0, g, x, y, drop_y,
                         argmax, drop);
      else
        _nn_cuda_launch (ctx, pool_forward_argmax_kernel<64, 0>, blocks, 256, 0, g, x, y, drop_y,
                         argmax, drop);
    }
  else if (small && two_by_two (g) && (uintptr_t) x % 8 == 0)
    _nn_cuda_launch (ctx, pool_forward_kernel<32, 1>, blocks, 256, 0, mode, g, x, y, drop_y, drop);
  else if (total < 0x7fffffffu)
    _nn_cuda_launch (ctx, pool_forward_kernel<32, 0>, blocks, 256, 0, mode, g, x, y, drop_y, drop);
  else
    _nn_cuda_launch (ctx, pool_forward_kernel<64, 0>, blocks, 256, 0, mode, g, x, y, drop_y, drop);
  return _nn_cuda_check_launch (ctx, "pool2d forward");
}

int
_nn_cuda_pool2d_forward (void *ctx, int mode, const NnPoolShape *shape, const float *x, float *y)
{
  return pool_forward ((NnCudaContext *) ctx, mode, shape, x, y, NULL, 0.0f, 0, NULL, NULL);
}

int
_nn_cuda_pool2d_forward_dropout (void *ctx, int mode, const NnPoolShape *shape, const float *x,
                                 float *y, float *drop_y, float rate, uint64_t seed,
                                 const int64_t *step)
{
  return pool_forward ((NnCudaContext *) ctx, mode, shape, x, y, drop_y, rate, seed, step, NULL);
}

int
_nn_cuda_pool2d_backward (void *vctx, int mode, const NnPoolShape *shape, const float *x,
                          const float *y, const float *dy, float *dx)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  PoolGeom g;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if ((rc = geometry (ctx, mode, shape, &g, "pool2d backward")) != 0)
    return rc;
  size_t total = (size_t) g.n * g.c * g.h * g.w;
  if (total == 0)
    return NN_BACKEND_OK;
  bool small = total < 0x7fffffffu;
  if (tiles_exactly (g))
    {
      size_t outputs = (size_t) g.n * g.c * g.out_h * g.out_w;
      unsigned int blocks = _nn_cuda_blocks (ctx, outputs, 256);
      if (small)
        _nn_cuda_launch (ctx, pool_backward_tiled_kernel<32>, blocks, 256, 0, mode, g, x, dy, dx);
      else
        _nn_cuda_launch (ctx, pool_backward_tiled_kernel<64>, blocks, 256, 0, mode, g, x, dy, dx);
    }
  else if (small)
    _nn_cuda_launch (ctx, pool_backward_kernel<32>, _nn_cuda_blocks (ctx, total, 256), 256, 0,
                     mode, g, x, dy, dx);
  else
    _nn_cuda_launch (ctx, pool_backward_kernel<64>, _nn_cuda_blocks (ctx, total, 256), 256, 0,
                     mode, g, x, dy, dx);
  return _nn_cuda_check_launch (ctx, "pool2d backward");
}

/* pool2d_backward_act, and with argmax not NULL pool2d_backward_argmax
 * (x is then not read). */
static int
pool_backward_act (NnCudaContext *ctx, int mode, const NnPoolShape *shape, const float *x,
                   const uint8_t *argmax, const float *y, float *dy, int act, float *dx,
                   float *dbias, float rate, uint64_t seed, const int64_t *step)
{
  PoolGeom g;
  PoolDrop drop;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if ((rc = geometry (ctx, mode, shape, &g, "pool2d backward")) != 0)
    return rc;
  if ((argmax != NULL && (rc = records_maxima (ctx, mode, g, "pool2d backward")) != 0)
      || (rc = pool_drop (ctx, rate, seed, step, &drop, "pool2d backward")) != 0)
    return rc;
  if (act < NN_BK_ACT_LINEAR || act >= NN_BK_ACT_SOFTMAX)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "pool2d backward: activation %d", act);
  int splits = _nn_cuda_channel_splits (ctx, g.n, g.c);
  /* a block's windows are counted in an int */
  if (argmax != NULL && (splits < 1 || (size_t) g.n * g.h * g.w >= 0x7fffffffu))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                              "pool2d backward: %d channels of %dx%d in %d images is more than "
                              "this backend handles",
                              g.c, g.h, g.w, g.n);
  if (argmax == NULL
      && (!tiles_exactly (g) || splits < 1 || (size_t) g.n * g.c * g.h * g.w >= 0x7fffffffu))
    {
      /* other shapes: the separate ops (the maxima's kernels take any size) */
      if (rate > 0.0f
          && (rc = _nn_cuda_dropout_backward (ctx, dy, dy, (size_t) g.n * g.c * g.out_h * g.out_w,
                                              rate, seed, step))
                 != 0)
        return rc;
      if ((rc = _nn_cuda_pool2d_backward (ctx, mode, shape, x, y, dy, dx)) != 0)
        return rc;
      return _nn_cuda_bias_act_backward (ctx, act, x, dx, dbias, g.n, g.c, g.h * g.w);
    }
  if (g.n == 0)
    return dbias != NULL ? _nn_cuda_fill (ctx, dbias, 0.0f, (size_t) g.c) : NN_BACKEND_OK;
  float *partials = dbias != NULL ? ctx->lane.partials : NULL;
  dim3 grid (splits, g.c);
  bool pairs = two_by_two (g) && g.out_w % 2 == 0
               && ((uintptr_t) dx % 16 | (uintptr_t) y % 8 | (uintptr_t) dy % 8
                   | (uintptr_t) argmax % 2)
                      == 0;
  if (argmax != NULL && pairs)
    _nn_cuda_launch (ctx, pool_backward_argmax_pairs_kernel, grid, 256, 0, g, act, argmax, y, dy,
                     dx, partials, drop);
  else if (argmax != NULL)
    _nn_cuda_launch (ctx, pool_backward_argmax_kernel, grid, 256, 0, g, act, argmax, y, dy, dx,
                     partials, drop);
  else if (two_by_two (g) && ((uintptr_t) x | (uintptr_t) dx) % 8 == 0)
    _nn_cuda_launch (ctx, pool_backward_act_kernel<1>, grid, 256, 0, mode, g, act, x, dy, dx,
                     partials, drop);
  else
    _nn_cuda_launch (ctx, pool_backward_act_kernel<0>, grid, 256, 0, mode, g, act, x, dy, dx,
                     partials, drop);
  if ((rc = _nn_cuda_check_launch (ctx, "pool2d backward")) != 0 || dbias == NULL)
    return rc;
  return _nn_cuda_sum_partials (ctx, dbias, g.c, splits, "pool2d backward (bias sum)");
}

int
_nn_cuda_pool2d_backward_act (void *ctx, int mode, const NnPoolShape *shape, const float *x,
                              const float *y, float *dy, int act, float *dx, float *dbias,
                              float rate, uint64_t seed, const int64_t *step)
{
  return pool_backward_act ((NnCudaContext *) ctx, mode, shape, x, NULL, y, dy, act, dx, dbias,
                            rate, seed, step);
}

int
_nn_cuda_pool2d_forward_argmax (void *ctx, const NnPoolShape *shape, const float *x, float *y,
                                float *drop_y, float rate, uint64_t seed, const int64_t *step,
                                uint8_t *argmax)
{
  return pool_forward ((NnCudaContext *) ctx, 0, shape, x, y, drop_y, rate, seed, step, argmax);
}

int
_nn_cuda_pool2d_backward_argmax (void *ctx, const NnPoolShape *shape, const uint8_t *argmax,
                                 const float *y, float *dy, int act, float *dx, float *dbias,
                                 float rate, uint64_t seed, const int64_t *step)
{
  return pool_backward_act ((NnCudaContext *) ctx, 0, shape, NULL, argmax, y, dy, act, dx, dbias,
                            rate, seed, step);
}
