/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-conv2d.c: 2-D convolution, y = act (conv (x, W) + b), NCHW.
 *
 * W is (k, c, r, s), b is (k). The backend does the convolution through a
 * plan made per batch size (descriptors and algorithm on cuDNN, im2col on
 * the CPU); plans are made in nn_model_new and _nn_model_prepare, never in a
 * step. Its bias and activation in the same op, and its fusions with the
 * layers around it, are steps of the plan (nn-plan.c).
 */

#include "nn-model-private.h"

#define CONV_PLANS 4

typedef struct
{
  NnLayer parent;
  NnConvShape shape;          /* for batch_size; n changes per plan */
  int32_t plan_n[CONV_PLANS]; /* 0 = free slot; slot 0 is batch_size's */
  void *plans[CONV_PLANS];    /* owned */
} NnConv2dLayer;

static void *
find_plan (NnConv2dLayer *self, int32_t n)
{
  for (int i = 0; i < CONV_PLANS; i++)
    if (self->plan_n[i] == n)
      return self->plans[i];
  return NULL;
}

void *
_nn_conv_plan (NnLayer *conv, int32_t n)
{
  return find_plan ((NnConv2dLayer *) conv, n);
}

static NnStatus
conv_prepare (NnModel *model, NnLayer *layer, int32_t n, NnError *error)
{
  NnConv2dLayer *self = (NnConv2dLayer *) layer;
  const NnBackendOps *ops = model->backend.ops;
  NnConvShape shape = self->shape;
  size_t bytes = 0;
  void *plan = NULL;
  int slot = -1;
  NnStatus status;

  if (find_plan (self, n) != NULL)
    return NN_OK;
  shape.n = n;
  int rc = ops->conv2d_plan_new (model->backend.ctx, &shape, &plan, &bytes);
  if (rc == NN_BACKEND_OUT_OF_MEMORY)
    return _nn_error_set (error, NN_ERROR_DEVICE_MEMORY,
                          "%s: out of memory for the convolution plan of %s at batch %d; "
                          "try a smaller batch",
                          model->device_name, layer->name, n);
  status = _nn_model_check (model, rc, layer->name, error);
  if (status != NN_OK)
    return status;
  for (int i = 0; i < CONV_PLANS && slot < 0; i++)
    if (self->plan_n[i] == 0)
      slot = i;
  if (slot < 0)
    {
      /* keep batch_size's plan in slot 0; recycle the last slot */
      slot = CONV_PLANS - 1;
      ops->conv2d_plan_free (model->backend.ctx, self->plans[slot]);
    }
  self->plans[slot] = plan;
  self->plan_n[slot] = n;

  if (bytes > layer->workspace_bytes)
    layer->workspace_bytes = bytes;
  if (model->params != NULL && bytes > model->workspace_bytes)
    {
      /* a later batch size needs more workspace than nn_model_new made */
      void *grown = NULL;
      status = _nn_model_alloc (model, bytes, "convolution workspace", NULL, &grown, error);
      if (status != NN_OK)
        return status;
      if (model->workspace != NULL)
        ops->free (model->backend.ctx, model->workspace);
      model->workspace = grown;
      model->workspace_bytes = bytes;
    }
  return NN_OK;
}

static NnStatus
conv_setup (NnModel *model, NnLayer *layer, NnError *error)
{
  NnConv2dLayer *self = (NnConv2dLayer *) layer;
  NnConvShape *s = &self->shape;

  if (layer->in.rank != 3 || layer->out.rank != 3)
    return _nn_error_set (error, NN_ERROR_SHAPE,
                          "%s: needs a 3-D input (channels, height, width)", layer->name);
  s->n = model->batch_size;
  s->c = layer->in.c;
  s->h = layer->in.h;
  s->w = layer->in.w;
  s->k = layer->spec.filters;
  s->r = layer->spec.kernel_h;
  s->s = layer->spec.kernel_w;
  s->stride_h = layer->spec.stride_h > 0 ? layer->spec.stride_h : 1;
  s->stride_w = layer->spec.stride_w > 0 ? layer->spec.stride_w : 1;
  _nn_layer_padding (&layer->spec, layer->in, layer->out, &s->pad_h, &s->pad_w);
  s->out_h = layer->out.h;
  s->out_w = layer->out.w;

  layer->w_count = (int64_t) s->k * s->c * s->r * s->s;
  layer->b_count = s->k;
  layer->fan_in = (int64_t) s->c * s->r * s->s;
  layer->fan_out = (int64_t) s->k * s->r * s->s;
  return conv_prepare (model, layer, model->batch_size, error);
}

static void
conv_finalize (NnModel *model, NnLayer *layer)
{
  NnConv2dLayer *self = (NnConv2dLayer *) layer;

  for (int i = 0; i < CONV_PLANS; i++)
    if (self->plan_n[i] != 0)
      {
        model->backend.ops->conv2d_plan_free (model->backend.ctx, self->plans[i]);
        self->plan_n[i] = 0;
        self->plans[i] = NULL;
      }
}

static int
conv_forward (NnModel *model, NnLayer *layer, const NnPass *pass)
{
  NnConv2dLayer *self = (NnConv2dLayer *) layer;
  const NnBackendOps *ops = model->backend.ops;
  void *plan = find_plan (self, pass->n);
  int rc;

  if (plan == NULL)
    return NN_BACKEND_ERROR; /* _nn_model_forward prepares first */
  /* y (n, k, out_h, out_w) */
  rc = ops->conv2d_forward (model->backend.ctx, plan, layer->x, layer->w, layer->y,
                            model->workspace);
  if (rc != 0)
    return rc;
  return ops->bias_act_forward (model->backend.ctx, _nn_layer_act (layer, pass), layer->y,
                                layer->b, pass->n, self->shape.k,
                                self->shape.out_h * self->shape.out_w);
}

static int
conv_backward (NnModel *model, NnLayer *layer, const NnPass *pass, float *dy, float **dx)
{
  NnConv2dLayer *self = (NnConv2dLayer *) layer;
  const NnBackendOps *ops = model->backend.ops;
  void *plan = find_plan (self, pass->n);
  int rc;

  if (plan == NULL)
    return NN_BACKEND_ERROR;
  /* dz (n, k, out_h, out_w) in place of dy and db (k) */
  rc = ops->bias_act_backward (model->backend.ctx, _nn_layer_act (layer, pass), layer->y, dy,
                               layer->db, pass->n, self->shape.k,
                               self->shape.out_h * self->shape.out_w);
  if (rc != 0)
    return rc;
  return ops->conv2d_backward (model->backend.ctx, plan, layer->x, layer->w, dy, *dx, layer->dw,
                               model->workspace);
}

const NnLayerClass _nn_conv2d_class = {
  .kind = NN_LAYER_CONV2D,
  .instance_size = sizeof (NnConv2dLayer),
  .setup = conv_setup,
  .prepare = conv_prepare,
  .finalize = conv_finalize,
  .forward = conv_forward,
  .backward = conv_backward,
};
