/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cuda-conv.cc: 2-D convolutions: which kernels run each direction.
 *
 * A plan is made once per exact shape, outside the step, and picks a route
 * per direction:
 *   - few taps per output (a first layer): forward and weight gradient on our
 *     direct kernels (kernels/conv-direct.cu, ops/conv-direct.cc);
 *   - TF32 allowed on sm_80+, stride 1, up to 9 taps: every other pass on
 *     our implicit GEMM on tensor cores (kernels/conv-igemm.cu, ops/conv-igemm.cc), which also
 *     pads unevenly;
 *   - otherwise cuDNN, with the algorithm its Find measured fastest (the
 *     timing runs and their allocations happen here, never in a step); TF32
 *     is allowed or forbidden through the math type.
 * cuDNN's descriptors and Find are made only for the directions it runs.
 * TRAINBENCH_CUDA_CONV_ROUTE=cudnn|igemm forces a route, for tests and
 * measurements; igemm fails the plan where it cannot run.
 */

#include "nn-cuda-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  NnConvShape shape;
  cudnnTensorDescriptor_t x_desc;        /* (n, c, h, w) */
  cudnnTensorDescriptor_t y_desc;        /* (n, k, out_h, out_w) */
  cudnnFilterDescriptor_t w_desc;        /* (k, c, r, s) */
  cudnnConvolutionDescriptor_t fwd_desc; /* one per direction: each has its math type */
  cudnnConvolutionDescriptor_t data_desc;
  cudnnConvolutionDescriptor_t filter_desc;
  cudnnConvolutionFwdAlgo_t fwd_algo;
  cudnnConvolutionBwdDataAlgo_t data_algo;
  cudnnConvolutionBwdFilterAlgo_t filter_algo;
  size_t workspace;
  int direct; /* forward and weight gradient by kernels/conv-direct.cu */
  int igemm;  /* every direction not direct by kernels/conv-igemm.cu */
  int cudnn_fwd, cudnn_data, cudnn_filter; /* directions left to cuDNN */
  NnCudaIgemmPlan igemm_plan;
  NnCudaDirectPlan direct_plan;
} NnCudaConvPlan;

static void
plan_destroy (NnCudaConvPlan *p)
{
  if (p == NULL)
    return;
  if (p->x_desc)
    nn_cu::cudnnDestroyTensorDescriptor (p->x_desc);
  if (p->y_desc)
    nn_cu::cudnnDestroyTensorDescriptor (p->y_desc);
  if (p->w_desc)
    nn_cu::cudnnDestroyFilterDescriptor (p->w_desc);
  if (p->fwd_desc)
    nn_cu::cudnnDestroyConvolutionDescriptor (p->fwd_desc);
  if (p->data_desc)
    nn_cu::cudnnDestroyConvolutionDescriptor (p->data_desc);
  if (p->filter_desc)
    nn_cu::cudnnDestroyConvolutionDescriptor (p->filter_desc);
  free (p);
}

/* The most workspace a plan may ask for: a quarter of the free memory, at
 * most 1 GiB, so small GPUs keep room for the model. */
static size_t
workspace_limit (void)
{
  size_t free_bytes = 0, total_bytes = 0;
  if (nn_cu::cuMemGetInfo (&free_bytes, &total_bytes) != CUDA_SUCCESS)
    return 64u << 20;
  size_t limit = free_bytes / 4;
  return limit > (1u << 30) ? (size_t) 1 << 30 : limit;
}

/* Which route runs each direction of the convolution: our implicit GEMM
 * (TF32), our direct kernels (few taps per output), or cuDNN.
 * TRAINBENCH_CUDA_CONV_ROUTE=cudnn or igemm forces one, for comparisons. */
static int
plan_routes (NnCudaContext *ctx, const NnConvShape *s, NnCudaConvPlan *p)
{
  const char *route = getenv ("TRAINBENCH_CUDA_CONV_ROUTE");
  int force_cudnn = route != NULL && strcmp (route, "cudnn") == 0;
  int force_igemm = route != NULL && strcmp (route, "igemm") == 0;

  p->igemm = !force_cudnn && _nn_cuda_conv_igemm_ok (ctx, s);
  p->direct = !force_cudnn && !force_igemm && _nn_cuda_conv_direct_ok (s);
  if (force_igemm && !p->igemm)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                              "conv2d: the implicit-GEMM route needs TF32 allowed, a GPU of "
                              "compute capability 8.0 or newer, stride 1, at most 9 taps and "
                              "padding below the kernel size");
  p->cudnn_fwd = !p->direct && !p->igemm;
  p->cudnn_filter = !p->direct && !p->igemm;
  p->cudnn_data = !p->igemm;
  return NN_BACKEND_OK;
}

/* A cuDNN call of the plan: on failure, return its error (named `what`). */
#define CUDNN_CK(call, what)                                                                       \
  do                                                                                               \
    {                                                                                              \
      cudnnStatus_t st_ = (call);                                                                  \
      if (st_ != CUDNN_STATUS_SUCCESS)                                                             \
        return _nn_cuda_fail_cudnn (ctx, st_, what);                                               \
    }                                                                                              \
  while (0)

/* cuDNN's descriptors of the tensors and the convolution, and the check that
 * cuDNN computes the output shape the engine inferred. */
static int
cudnn_describe (NnCudaContext *ctx, const NnConvShape *s, NnCudaConvPlan *p)
{
  const char *what = "conv2d plan";
  cudnnMathType_t math = ctx->tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
  cudnnConvolutionDescriptor_t descs[3];
  int on, oc, oh, ow;

  CUDNN_CK (nn_cu::cudnnCreateTensorDescriptor (&p->x_desc), what);
  CUDNN_CK (nn_cu::cudnnCreateTensorDescriptor (&p->y_desc), what);
  CUDNN_CK (nn_cu::cudnnCreateFilterDescriptor (&p->w_desc), what);
  CUDNN_CK (nn_cu::cudnnCreateConvolutionDescriptor (&p->fwd_desc), what);
  CUDNN_CK (nn_cu::cudnnCreateConvolutionDescriptor (&p->data_desc), what);
  CUDNN_CK (nn_cu::cudnnCreateConvolutionDescriptor (&p->filter_desc), what);
  CUDNN_CK (nn_cu::cudnnSetTensor4dDescriptor (p->x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s->n, s->c,
                                        s->h, s->w),
            what);
  CUDNN_CK (nn_cu::cudnnSetTensor4dDescriptor (p->y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s->n, s->k,
                                        s->out_h, s->out_w),
            what);
  CUDNN_CK (nn_cu::cudnnSetFilter4dDescriptor (p->w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s->k, s->c,
                                        s->r, s->s),
            what);
  descs[0] = p->fwd_desc;
  descs[1] = p->data_desc;
  descs[2] = p->filter_desc;
  for (int i = 0; i < 3; i++)
    {
      /* Keras convolutions are cross-correlations. */
      CUDNN_CK (nn_cu::cudnnSetConvolution2dDescriptor (descs[i], s->pad_h, s->pad_w, s->stride_h,
                                                 s->stride_w, 1, 1, CUDNN_CROSS_CORRELATION,
                                                 CUDNN_DATA_FLOAT),
                what);
      CUDNN_CK (nn_cu::cudnnSetConvolutionMathType (descs[i], math), what);
    }
  CUDNN_CK (nn_cu::cudnnGetConvolution2dForwardOutputDim (p->fwd_desc, p->x_desc, p->w_desc, &on, &oc,
                                                   &oh, &ow),
            what);
  if (on != s->n || oc != s->k || oh != s->out_h || ow != s->out_w)
    /* cuDNN pads both sides alike; "same" padding with an even kernel or a
     * stride pads the bottom and right one more than the top and left. */
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                              "conv2d: cuDNN cannot pad this shape unevenly (input %dx%d, kernel "
                              "%dx%d, stride %dx%d, padding %d,%d gives %dx%d, wanted %dx%d)",
                              s->h, s->w, s->r, s->s, s->stride_h, s->stride_w, s->pad_h, s->pad_w,
                              oh, ow, s->out_h, s->out_w);
  return NN_BACKEND_OK;
}

/* cuDNN's algorithm for each direction it runs: Find runs and times every
 * algorithm (results fastest first); the fastest that succeeds within the
 * workspace limit is kept, with the math type it was timed with. */
static int
cudnn_choose_algorithms (NnCudaContext *ctx, NnCudaConvPlan *p)
{
  size_t limit = workspace_limit ();
  int found, i;

  if (p->cudnn_fwd)
    {
      cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      const char *what = "conv2d plan: choosing the forward algorithm";

      CUDNN_CK (nn_cu::cudnnFindConvolutionForwardAlgorithm (ctx->cudnn, p->x_desc, p->w_desc,
                                                      p->fwd_desc, p->y_desc,
                                                      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, fwd),
                what);
      for (i = 0; i < found; i++)
        if (fwd[i].status == CUDNN_STATUS_SUCCESS && fwd[i].memory <= limit)
          break;
      if (i == found)
        return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                                  "conv2d: cuDNN has no forward algorithm for this shape");
      p->fwd_algo = fwd[i].algo;
      CUDNN_CK (nn_cu::cudnnSetConvolutionMathType (p->fwd_desc, fwd[i].mathType), what);
      if (fwd[i].memory > p->workspace)
        p->workspace = fwd[i].memory;
    }

  if (p->cudnn_data)
    {
      cudnnConvolutionBwdDataAlgoPerf_t data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      const char *what = "conv2d plan: choosing the backward-data algorithm";

      CUDNN_CK (nn_cu::cudnnFindConvolutionBackwardDataAlgorithm (
                    ctx->cudnn, p->w_desc, p->y_desc, p->data_desc, p->x_desc,
                    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, data),
                what);
      for (i = 0; i < found; i++)
        if (data[i].status == CUDNN_STATUS_SUCCESS && data[i].memory <= limit)
          break;
      if (i == found)
        return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                                  "conv2d: cuDNN has no backward-data algorithm for this shape");
      p->data_algo = data[i].algo;
      CUDNN_CK (nn_cu::cudnnSetConvolutionMathType (p->data_desc, data[i].mathType), what);
      if (data[i].memory > p->workspace)
        p->workspace = data[i].memory;
    }

  if (p->cudnn_filter)
    {
      cudnnConvolutionBwdFilterAlgoPerf_t filt[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      const char *what = "conv2d plan: choosing the backward-filter algorithm";

      CUDNN_CK (nn_cu::cudnnFindConvolutionBackwardFilterAlgorithm (
                    ctx->cudnn, p->x_desc, p->y_desc, p->filter_desc, p->w_desc,
                    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, filt),
                what);
      for (i = 0; i < found; i++)
        if (filt[i].status == CUDNN_STATUS_SUCCESS && filt[i].memory <= limit)
          break;
      if (i == found)
        return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                                  "conv2d: cuDNN has no backward-filter algorithm for this shape");
      p->filter_algo = filt[i].algo;
      CUDNN_CK (nn_cu::cudnnSetConvolutionMathType (p->filter_desc, filt[i].mathType), what);
      if (filt[i].memory > p->workspace)
        p->workspace = filt[i].memory;
    }
  /* Find may have left an error of its own trials behind. */
  return _nn_cuda_check_launch (ctx, "conv2d plan");
}

#undef CUDNN_CK

int
_nn_cuda_conv2d_plan_new (void *vctx, const NnConvShape *s, void **out, size_t *workspace_bytes)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  NnCudaConvPlan *p;
  int rc;

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
  if ((rc = plan_routes (ctx, s, p)) != 0)
    goto failed;
  if (p->igemm && (rc = _nn_cuda_conv_igemm_plan (ctx, s, &p->igemm_plan, &p->workspace)) != 0)
    goto failed;
  if (p->direct)
    {
      _nn_cuda_conv_direct_plan (ctx, s, &p->direct_plan);
      if (p->direct_plan.partial_bytes > p->workspace)
        p->workspace = p->direct_plan.partial_bytes;
    }
  if (p->cudnn_fwd || p->cudnn_data || p->cudnn_filter)
    {
      if ((rc = cudnn_describe (ctx, s, p)) != 0 || (rc = cudnn_choose_algorithms (ctx, p)) != 0)
        goto failed;
    }
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

const NnConvShape *
_nn_cuda_conv2d_shape (const void *plan)
{
  return &((const NnCudaConvPlan *) plan)->shape;
}

/* y = act (conv (x, w) + bias): our kernels apply the bias and activation
 * as they store y; after cuDNN it is one more pass. */
int
_nn_cuda_conv2d_forward_bias_act (void *vctx, void *plan, const float *x, const float *w,
                                  const float *bias, int act, float *y, void *workspace)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  NnCudaConvPlan *p = (NnCudaConvPlan *) plan;
  const NnConvShape *s = &p->shape;
  const float one = 1.0f, zero = 0.0f;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (act == NN_BK_ACT_SOFTMAX)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                              "conv2d: softmax is not an element-wise activation");
  if (p->direct)
    return _nn_cuda_conv_direct_forward (ctx, s, x, w, bias, act, y);
  if (p->igemm)
    return _nn_cuda_conv_igemm_forward (ctx, s, &p->igemm_plan, x, w, bias, act, y, workspace);
  cudnnStatus_t st
      = nn_cu::cudnnConvolutionForward (ctx->cudnn, &one, p->x_desc, x, p->w_desc, w, p->fwd_desc,
                                 p->fwd_algo, workspace, p->workspace, &zero, p->y_desc, y);
  if (st != CUDNN_STATUS_SUCCESS)
    return _nn_cuda_fail_cudnn (ctx, st, "conv2d forward");
  if ((rc = _nn_cuda_check_launch (ctx, "conv2d forward")) != 0)
    return rc;
  if (bias == NULL && act == NN_BK_ACT_LINEAR)
    return 0;
  return _nn_cuda_bias_act_forward (ctx, act, y, bias, s->n, s->k, s->out_h * s->out_w);
}

/* Only the implicit GEMM pools its own output: the convolutions worth it
 * (the cnn's second layer) run there when TF32 is allowed. */
int
_nn_cuda_conv2d_pool_fits (void *ctx, void *plan, const NnPoolShape *pool)
{
  NnCudaConvPlan *p = (NnCudaConvPlan *) plan;
  const NnConvShape *s = &p->shape;
  return p->igemm && pool->n == s->n && pool->c == s->k && pool->h == s->out_h
         && pool->w == s->out_w && _nn_cuda_conv_igemm_pool_ok (s, pool);
}

int
_nn_cuda_conv2d_forward_pool (void *vctx, void *plan, const float *x, const float *w,
                              const float *bias, int act, const NnPoolShape *pool, float *y,
                              float *drop_y, float rate, uint64_t seed, const int64_t *step,
                              uint8_t *argmax, void *workspace)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  NnCudaConvPlan *p = (NnCudaConvPlan *) plan;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (act < NN_BK_ACT_LINEAR || act >= NN_BK_ACT_SOFTMAX)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "conv2d forward: activation %d", act);
  if (!_nn_cuda_conv2d_pool_fits (ctx, plan, pool))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                              "conv2d forward: this convolution cannot pool its output here");
  if (!(rate >= 0.0f && rate < 1.0f) || (rate > 0.0f && drop_y == NULL))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "conv2d forward: dropout rate %g",
                              (double) rate);
  return _nn_cuda_conv_igemm_forward_pool (ctx, &p->shape, x, w, bias, act, pool, y, drop_y, rate,
                                           seed, step, argmax, workspace);
}

int
_nn_cuda_conv2d_forward (void *vctx, void *plan, const float *x, const float *w, float *y,
                         void *workspace)
{
  return _nn_cuda_conv2d_forward_bias_act (vctx, plan, x, w, NULL, NN_BK_ACT_LINEAR, y,
                                           workspace);
}

int
_nn_cuda_conv2d_backward (void *vctx, void *plan, const float *x, const float *w, const float *dy,
                          float *dx, float *dw, void *workspace)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  NnCudaConvPlan *p = (NnCudaConvPlan *) plan;
  const float one = 1.0f, zero = 0.0f;
  cudnnStatus_t st;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (p->direct)
    {
      if ((rc = _nn_cuda_conv_direct_wgrad (ctx, &p->shape, &p->direct_plan, x, dy, NULL,
                                            NN_BK_ACT_LINEAR, dw, NULL, workspace))
          != 0)
        return rc;
    }
  else if (p->igemm)
    {
      if ((rc = _nn_cuda_conv_igemm_weights (ctx, &p->shape, &p->igemm_plan, x, dy, dw, workspace))
          != 0)
        return rc;
    }
  else
    {
      st = nn_cu::cudnnConvolutionBackwardFilter (ctx->cudnn, &one, p->x_desc, x, p->y_desc, dy,
                                           p->filter_desc, p->filter_algo, workspace, p->workspace,
                                           &zero, p->w_desc, dw);
      if (st != CUDNN_STATUS_SUCCESS)
        return _nn_cuda_fail_cudnn (ctx, st, "conv2d backward (weights)");
    }
  if (dx != NULL && p->igemm)
    {
      if ((rc = _nn_cuda_conv_igemm_data (ctx, &p->shape, &p->igemm_plan, w, dy, dx, workspace)) != 0)
        return rc;
    }
  else if (dx != NULL)
    {
      st = nn_cu::cudnnConvolutionBackwardData (ctx->cudnn, &one, p->w_desc, w, p->y_desc, dy,
                                         p->data_desc, p->data_algo, workspace, p->workspace, &zero,
                                         p->x_desc, dx);
      if (st != CUDNN_STATUS_SUCCESS)
        return _nn_cuda_fail_cudnn (ctx, st, "conv2d backward (input)");
    }
  return _nn_cuda_check_launch (ctx, "conv2d backward");
}

/* dz = act' (y) * dy, dbias, dw and dx. Where only the weights are wanted
 * from a direct plan (a first layer), its weight-gradient kernel forms dz
 * and the bias sums as it reads dy: on the cnn's first layer that saves the
 * pass that read y and dy and wrote dz over the whole output. Otherwise the
 * activation backward, then the convolution's. */
int
_nn_cuda_conv2d_backward_bias_act (void *vctx, void *plan, const float *x, const float *w,
                                   const float *y, float *dy, int act, float *dx, float *dw,
                                   float *dbias, void *workspace)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  NnCudaConvPlan *p = (NnCudaConvPlan *) plan;
  const NnConvShape *s = &p->shape;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (act < NN_BK_ACT_LINEAR || act >= NN_BK_ACT_SOFTMAX)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR,
                              "conv2d backward: activation %d is not element-wise", act);
  if (p->direct && dx == NULL)
    {
      rc = _nn_cuda_conv_direct_wgrad (ctx, s, &p->direct_plan, x, dy, y, act, dw, dbias,
                                       workspace);
      const void *at[] = { dw, dbias, workspace };
      const size_t bytes[] = { (size_t) s->k * s->c * s->r * s->s * sizeof (float),
                               (size_t) s->k * sizeof (float), p->workspace };
      _nn_cuda_writes_only (ctx, 3, at, bytes);
      return rc;
    }
  if ((rc = _nn_cuda_bias_act_backward (ctx, act, y, dy, dbias, s->n, s->k, s->out_h * s->out_w))
      != 0)
    return rc;
  return _nn_cuda_conv2d_backward (ctx, plan, x, w, dy, dx, dw, workspace);
}

/* Only the implicit GEMM's data gradient forms the weight gradient of the
 * layer below (on the cnn: the first layer's, from the second's data
 * gradient, whose 22 MB the first layer's weight gradient would read back
 * with its output's). */
int
_nn_cuda_conv2d_below_fits (void *ctx, void *plan, void *below_plan)
{
  NnCudaConvPlan *p = (NnCudaConvPlan *) plan, *b = (NnCudaConvPlan *) below_plan;
  return p->igemm && _nn_cuda_conv_igemm_below_ok (&p->shape, &p->igemm_plan, &b->shape);
}

int
_nn_cuda_conv2d_backward_below (void *vctx, void *plan, const float *x, const float *w,
                                const float *dy, float *dw, void *below_plan,
                                const float *below_x, int below_act, float *below_dw,
                                float *below_dbias, void *workspace)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  NnCudaConvPlan *p = (NnCudaConvPlan *) plan, *b = (NnCudaConvPlan *) below_plan;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (below_act < NN_BK_ACT_LINEAR || below_act >= NN_BK_ACT_SOFTMAX)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR,
                              "conv2d backward: activation %d below is not element-wise",
                              below_act);
  if (!_nn_cuda_conv2d_below_fits (ctx, plan, below_plan))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED,
                              "conv2d backward: this convolution cannot form the weight gradient "
                              "of the one below here");
  /* the upper weights as conv2d_backward takes them, then its dx as the
   * lower layer's output gradient */
  if ((rc = _nn_cuda_conv2d_backward (ctx, plan, x, w, dy, NULL, dw, workspace)) != 0)
    return rc;
  return _nn_cuda_conv_igemm_data_below (ctx, &p->shape, &p->igemm_plan, w, dy, &b->shape,
                                         below_x, x, below_act, below_dw, below_dbias, workspace);
}
