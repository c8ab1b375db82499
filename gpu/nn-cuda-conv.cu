/* nn-cuda-conv.cu: 2-D convolutions on cuDNN.
 *
 * A plan holds the descriptors of one exact shape and, for each direction
 * (forward, backward data, backward filter), the algorithm cuDNN measured
 * fastest, chosen once at plan time (outside the step, so the timing runs
 * and their allocations never happen in a step). The engine's tensors are
 * NCHW; cuDNN's tensor-core kernels are often much faster on NHWC, so each
 * direction is also measured on NHWC copies and takes that route when it
 * wins even after paying for the transposes (made in the workspace).
 * TF32 is allowed or forbidden per context through the math type.
 */

#include "nn-cuda-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
  LAYOUT_NCHW = 0,
  LAYOUT_NHWC = 1,
};

enum
{
  DIR_FWD = 0,
  DIR_DATA = 1,
  DIR_FILTER = 2,
};

/* Descriptors of the shape in one layout. */
typedef struct
{
  cudnnTensorDescriptor_t x;           /* (n, c, h, w) in this layout */
  cudnnTensorDescriptor_t y;           /* (n, k, out_h, out_w) in this layout */
  cudnnFilterDescriptor_t w;           /* (k, c, r, s), KCRS or KRSC */
  cudnnConvolutionDescriptor_t conv[3]; /* per direction: each keeps its math type */
} Layout;

typedef struct
{
  int layout;        /* LAYOUT_* this direction runs in */
  int algo;          /* cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t */
  size_t memory;     /* cuDNN's workspace for it */
} Choice;

typedef struct
{
  NnConvShape shape;
  Layout lay[2];
  Choice dir[3];
  size_t cudnn_bytes;  /* cuDNN's part of the workspace, at its start */
  /* Offsets in the workspace of the NHWC copies (when a direction uses them). */
  size_t off_x, off_y, off_dx, off_w, off_dw;
  size_t workspace;
} NnCudaConvPlan;

static void
layout_destroy (Layout *l)
{
  if (l->x)
    cudnnDestroyTensorDescriptor (l->x);
  if (l->y)
    cudnnDestroyTensorDescriptor (l->y);
  if (l->w)
    cudnnDestroyFilterDescriptor (l->w);
  for (int i = 0; i < 3; i++)
    if (l->conv[i])
      cudnnDestroyConvolutionDescriptor (l->conv[i]);
}

static void
plan_destroy (NnCudaConvPlan *p)
{
  if (p == NULL)
    return;
  layout_destroy (&p->lay[0]);
  layout_destroy (&p->lay[1]);
  free (p);
}

/* The most workspace a plan may ask for: a quarter of the free memory, at
 * most 1 GiB, so small GPUs keep room for the model. */
static size_t
workspace_limit (void)
{
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo (&free_bytes, &total_bytes) != cudaSuccess)
    {
      cudaGetLastError ();
      return 64u << 20;
    }
  size_t limit = free_bytes / 4;
  return limit > (1u << 30) ? (size_t) 1 << 30 : limit;
}

static cudnnStatus_t
layout_init (Layout *l, const NnConvShape *s, int layout, cudnnMathType_t math)
{
  cudnnTensorFormat_t f = layout == LAYOUT_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  cudnnStatus_t st;
  if ((st = cudnnCreateTensorDescriptor (&l->x)) != CUDNN_STATUS_SUCCESS
      || (st = cudnnCreateTensorDescriptor (&l->y)) != CUDNN_STATUS_SUCCESS
      || (st = cudnnCreateFilterDescriptor (&l->w)) != CUDNN_STATUS_SUCCESS
      || (st = cudnnSetTensor4dDescriptor (l->x, f, CUDNN_DATA_FLOAT, s->n, s->c, s->h, s->w))
           != CUDNN_STATUS_SUCCESS
      || (st = cudnnSetTensor4dDescriptor (l->y, f, CUDNN_DATA_FLOAT, s->n, s->k, s->out_h,
                                           s->out_w))
           != CUDNN_STATUS_SUCCESS
      || (st = cudnnSetFilter4dDescriptor (l->w, CUDNN_DATA_FLOAT, f, s->k, s->c, s->r, s->s))
           != CUDNN_STATUS_SUCCESS)
    return st;
  for (int i = 0; i < 3; i++)
    {
      if ((st = cudnnCreateConvolutionDescriptor (&l->conv[i])) != CUDNN_STATUS_SUCCESS)
        return st;
      /* Keras convolutions are cross-correlations. */
      if ((st = cudnnSetConvolution2dDescriptor (l->conv[i], s->pad_h, s->pad_w, s->stride_h,
                                                 s->stride_w, 1, 1, CUDNN_CROSS_CORRELATION,
                                                 CUDNN_DATA_FLOAT))
            != CUDNN_STATUS_SUCCESS
          || (st = cudnnSetConvolutionMathType (l->conv[i], math)) != CUDNN_STATUS_SUCCESS)
        return st;
    }
  return CUDNN_STATUS_SUCCESS;
}

/* Measure one direction in one layout: the fastest algorithm that fits in
 * `limit`. Returns its time in ms, or a negative number when none works;
 * sets the descriptor's math type to the one measured. */
static float
find_best (NnCudaContext *ctx, Layout *l, int dir, size_t limit, Choice *out, cudnnStatus_t *err)
{
  int found = 0;
  *err = CUDNN_STATUS_SUCCESS;
  if (dir == DIR_FWD)
    {
      cudnnConvolutionFwdAlgoPerf_t r[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      *err = cudnnFindConvolutionForwardAlgorithm (ctx->cudnn, l->x, l->w, l->conv[dir], l->y,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, r);
      for (int i = 0; *err == CUDNN_STATUS_SUCCESS && i < found; i++)
        if (r[i].status == CUDNN_STATUS_SUCCESS && r[i].memory <= limit)
          {
            out->algo = r[i].algo;
            out->memory = r[i].memory;
            cudnnSetConvolutionMathType (l->conv[dir], r[i].mathType);
            return r[i].time;
          }
    }
  else if (dir == DIR_DATA)
    {
      cudnnConvolutionBwdDataAlgoPerf_t r[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      *err = cudnnFindConvolutionBackwardDataAlgorithm (ctx->cudnn, l->w, l->y, l->conv[dir], l->x,
                                                        CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                                        &found, r);
      for (int i = 0; *err == CUDNN_STATUS_SUCCESS && i < found; i++)
        if (r[i].status == CUDNN_STATUS_SUCCESS && r[i].memory <= limit)
          {
            out->algo = r[i].algo;
            out->memory = r[i].memory;
            cudnnSetConvolutionMathType (l->conv[dir], r[i].mathType);
            return r[i].time;
          }
    }
  else
    {
      cudnnConvolutionBwdFilterAlgoPerf_t r[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      *err = cudnnFindConvolutionBackwardFilterAlgorithm (ctx->cudnn, l->x, l->y, l->conv[dir],
                                                          l->w,
                                                          CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                          &found, r);
      for (int i = 0; *err == CUDNN_STATUS_SUCCESS && i < found; i++)
        if (r[i].status == CUDNN_STATUS_SUCCESS && r[i].memory <= limit)
          {
            out->algo = r[i].algo;
            out->memory = r[i].memory;
            cudnnSetConvolutionMathType (l->conv[dir], r[i].mathType);
            return r[i].time;
          }
    }
  return -1.0f;
}

static size_t
align256 (size_t bytes)
{
  return (bytes + 255) & ~(size_t) 255;
}

int
_nn_cuda_conv2d_plan_new (void *vctx, const NnConvShape *s, void **out, size_t *workspace_bytes)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  static const char *dir_names[3] = { "forward", "backward-data", "backward-filter" };
  NnCudaConvPlan *p;
  cudnnStatus_t st;
  int rc, on, oc, oh, ow;
  cudnnMathType_t math = ctx->tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
  const char *force = getenv ("TRAINBENCH_CUDA_CONV_LAYOUT"); /* "nchw" or "nhwc": tests */

  *out = NULL;
  *workspace_bytes = 0;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (ctx->capturing)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "conv2d plan: not allowed while capturing");
  if (s->n <= 0 || s->c <= 0 || s->h <= 0 || s->w <= 0 || s->k <= 0 || s->r <= 0 || s->s <= 0
      || s->stride_h <= 0 || s->stride_w <= 0 || s->pad_h < 0 || s->pad_w < 0 || s->out_h <= 0
      || s->out_w <= 0)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "conv2d plan: bad shape");
  p = (NnCudaConvPlan *) calloc (1, sizeof *p);
  if (p == NULL)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_OUT_OF_MEMORY, "conv2d plan: out of host memory");
  p->shape = *s;

  for (int l = 0; l < 2; l++)
    if ((st = layout_init (&p->lay[l], s, l, math)) != CUDNN_STATUS_SUCCESS)
      {
        rc = _nn_cuda_fail_cudnn (ctx, st, "conv2d plan");
        goto failed;
      }
  st = cudnnGetConvolution2dForwardOutputDim (p->lay[0].conv[0], p->lay[0].x, p->lay[0].w, &on,
                                              &oc, &oh, &ow);
  if (st != CUDNN_STATUS_SUCCESS)
    {
      rc = _nn_cuda_fail_cudnn (ctx, st, "conv2d plan");
      goto failed;
    }
  if (on != s->n || oc != s->k || oh != s->out_h || ow != s->out_w)
    {
      /* cuDNN pads both sides alike; "same" padding with an even kernel or a
       * stride pads the bottom and right one more than the top and left. */
      rc = _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                              "conv2d: cuDNN cannot pad this shape unevenly (input %dx%d, kernel "
                              "%dx%d, stride %dx%d, padding %d,%d gives %dx%d, wanted %dx%d)",
                              s->h, s->w, s->r, s->s, s->stride_h, s->stride_w, s->pad_h, s->pad_w,
                              oh, ow, s->out_h, s->out_w);
      goto failed;
    }

  {
    size_t limit = workspace_limit ();
    size_t sx = (size_t) s->n * s->c * s->h * s->w;
    size_t sy = (size_t) s->n * s->k * s->out_h * s->out_w;
    size_t sw = (size_t) s->k * s->c * s->r * s->s;
    /* Three transposes per direction on the NHWC route, each a read and a
     * write at about 2 TB/s, plus their launches (ms). */
    float transposes_ms = (float) (2.0 * 4.0 * (sx + sy + sw) / 2.0e12 * 1e3 + 3 * 4e-3);
    int any_nhwc = 0;

    for (int d = 0; d < 3; d++)
      {
        Choice c[2];
        float t[2];
        cudnnStatus_t e[2];
        for (int l = 0; l < 2; l++)
          {
            t[l] = find_best (ctx, &p->lay[l], d, limit, &c[l], &e[l]);
            cudaGetLastError (); /* a layout cuDNN rejects must not leave an error behind */
          }
        if (t[0] < 0.0f && t[1] < 0.0f)
          {
            if (e[0] == CUDNN_STATUS_ALLOC_FAILED)
              rc = _nn_cuda_fail (ctx, cudaErrorMemoryAllocation, "conv2d plan");
            else if (e[0] != CUDNN_STATUS_SUCCESS)
              rc = _nn_cuda_fail_cudnn (ctx, e[0], "conv2d plan");
            else
              rc = _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                                      "conv2d: cuDNN has no %s algorithm for this shape within "
                                      "%.0f MiB of workspace",
                                      dir_names[d], limit / 1048576.0);
            goto failed;
          }
        int use = t[0] < 0.0f ? 1 : t[1] < 0.0f ? 0 : (t[1] + transposes_ms < t[0] ? 1 : 0);
        if (force != NULL && strcmp (force, "nhwc") == 0 && t[1] >= 0.0f)
          use = 1;
        if (force != NULL && strcmp (force, "nchw") == 0 && t[0] >= 0.0f)
          use = 0;
        p->dir[d] = c[use];
        p->dir[d].layout = use;
        any_nhwc |= use;
        if (c[use].memory > p->cudnn_bytes)
          p->cudnn_bytes = c[use].memory;
      }

    p->workspace = align256 (p->cudnn_bytes);
    if (any_nhwc)
      {
        p->off_x = p->workspace;
        p->off_y = p->off_x + align256 (sx * sizeof (float));
        p->off_dx = p->off_y + align256 (sy * sizeof (float));
        p->off_w = p->off_dx + align256 (sx * sizeof (float));
        p->off_dw = p->off_w + align256 (sw * sizeof (float));
        p->workspace = p->off_dw + align256 (sw * sizeof (float));
      }
  }

  /* Find may have left an error of its own trials behind. */
  if ((rc = _nn_cuda_check_launch (ctx, "conv2d plan")) != 0)
    goto failed;
  *workspace_bytes = p->workspace;
  *out = p;
  return NN_BACKEND_OK;

failed:
  plan_destroy (p);
  return rc;
}

void
_nn_cuda_conv2d_plan_free (void *vctx, void *plan)
{
  plan_destroy ((NnCudaConvPlan *) plan);
}

/* NCHW (n, c, hw) -> NHWC (n, hw, c) and back; filters KCRS <-> KRSC. */
static int
to_nhwc (NnCudaContext *ctx, const float *in, float *out, int n, int c, int hw)
{
  return _nn_cuda_transpose (ctx, in, out, n, c, hw);
}

static int
to_nchw (NnCudaContext *ctx, const float *in, float *out, int n, int c, int hw)
{
  return _nn_cuda_transpose (ctx, in, out, n, hw, c);
}

#define WS(p, ws, off) ((float *) ((char *) (ws) + (p)->off))

int
_nn_cuda_conv2d_forward (void *vctx, void *plan, const float *x, const float *w, float *y,
                         void *workspace)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  NnCudaConvPlan *p = (NnCudaConvPlan *) plan;
  const NnConvShape *s = &p->shape;
  const float one = 1.0f, zero = 0.0f;
  const Choice *c = &p->dir[DIR_FWD];
  const Layout *l = &p->lay[c->layout];
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  const float *cx = x, *cw = w;
  float *cy = y;
  if (c->layout == LAYOUT_NHWC)
    {
      cx = WS (p, workspace, off_x);
      cw = WS (p, workspace, off_w);
      cy = WS (p, workspace, off_y);
      if ((rc = to_nhwc (ctx, x, (float *) cx, s->n, s->c, s->h * s->w)) != 0
          || (rc = to_nhwc (ctx, w, (float *) cw, s->k, s->c, s->r * s->s)) != 0)
        return rc;
    }
  cudnnStatus_t st = cudnnConvolutionForward (ctx->cudnn, &one, l->x, cx, l->w, cw, l->conv[DIR_FWD],
                                              (cudnnConvolutionFwdAlgo_t) c->algo, workspace,
                                              p->cudnn_bytes, &zero, l->y, cy);
  if (st != CUDNN_STATUS_SUCCESS)
    return _nn_cuda_fail_cudnn (ctx, st, "conv2d forward");
  if (c->layout == LAYOUT_NHWC
      && (rc = to_nchw (ctx, cy, y, s->n, s->k, s->out_h * s->out_w)) != 0)
    return rc;
  return _nn_cuda_check_launch (ctx, "conv2d forward");
}

int
_nn_cuda_conv2d_backward (void *vctx, void *plan, const float *x, const float *w, const float *dy,
                          float *dx, float *dw, void *workspace)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  NnCudaConvPlan *p = (NnCudaConvPlan *) plan;
  const NnConvShape *s = &p->shape;
  const float one = 1.0f, zero = 0.0f;
  const Choice *cf = &p->dir[DIR_FILTER], *cd = &p->dir[DIR_DATA];
  bool data = dx != NULL;
  bool dy_nhwc = cf->layout == LAYOUT_NHWC || (data && cd->layout == LAYOUT_NHWC);
  cudnnStatus_t st;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  float *ty = WS (p, workspace, off_y);
  if (dy_nhwc && (rc = to_nhwc (ctx, dy, ty, s->n, s->k, s->out_h * s->out_w)) != 0)
    return rc;

  /* weights */
  {
    const Layout *l = &p->lay[cf->layout];
    const float *cx = x, *cdy = dy;
    float *cdw = dw;
    if (cf->layout == LAYOUT_NHWC)
      {
        cx = WS (p, workspace, off_x);
        cdy = ty;
        cdw = WS (p, workspace, off_dw);
        if ((rc = to_nhwc (ctx, x, (float *) cx, s->n, s->c, s->h * s->w)) != 0)
          return rc;
      }
    st = cudnnConvolutionBackwardFilter (ctx->cudnn, &one, l->x, cx, l->y, cdy,
                                         l->conv[DIR_FILTER],
                                         (cudnnConvolutionBwdFilterAlgo_t) cf->algo, workspace,
                                         p->cudnn_bytes, &zero, l->w, cdw);
    if (st != CUDNN_STATUS_SUCCESS)
      return _nn_cuda_fail_cudnn (ctx, st, "conv2d backward (weights)");
    if (cf->layout == LAYOUT_NHWC && (rc = to_nchw (ctx, cdw, dw, s->k, s->c, s->r * s->s)) != 0)
      return rc;
  }

  /* input */
  if (data)
    {
      const Layout *l = &p->lay[cd->layout];
      const float *cw = w, *cdy = dy;
      float *cdx = dx;
      if (cd->layout == LAYOUT_NHWC)
        {
          cw = WS (p, workspace, off_w);
          cdy = ty;
          cdx = WS (p, workspace, off_dx);
          if ((rc = to_nhwc (ctx, w, (float *) cw, s->k, s->c, s->r * s->s)) != 0)
            return rc;
        }
      st = cudnnConvolutionBackwardData (ctx->cudnn, &one, l->w, cw, l->y, cdy, l->conv[DIR_DATA],
                                         (cudnnConvolutionBwdDataAlgo_t) cd->algo, workspace,
                                         p->cudnn_bytes, &zero, l->x, cdx);
      if (st != CUDNN_STATUS_SUCCESS)
        return _nn_cuda_fail_cudnn (ctx, st, "conv2d backward (input)");
      if (cd->layout == LAYOUT_NHWC
          && (rc = to_nchw (ctx, cdx, dx, s->n, s->c, s->h * s->w)) != 0)
        return rc;
    }
  return _nn_cuda_check_launch (ctx, "conv2d backward");
}
