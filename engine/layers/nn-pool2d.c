/* nn-pool2d.c: max and average pooling over NCHW windows; windows that
 * overhang the edge (padding "same") ignore the missing cells.
 */

#include "nn-model-private.h"

enum
{
  POOL_MAX = 0,
  POOL_AVERAGE = 1,
};

typedef struct
{
  NnLayer parent;
  int mode;
  NnPoolShape shape; /* n is set per pass */
} NnPoolLayer;

static NnStatus
pool_setup (NnModel *model, NnLayer *layer, NnError *error)
{
  NnPoolLayer *self = (NnPoolLayer *) layer;
  NnPoolShape *s = &self->shape;

  if (layer->in.rank != 3 || layer->out.rank != 3)
    return _nn_error_set (error, NN_ERROR_SHAPE,
                          "%s: needs a 3-D input (channels, height, width)", layer->name);
  self->mode = layer->spec.kind == NN_LAYER_MAXPOOL2D ? POOL_MAX : POOL_AVERAGE;
  s->n = model->batch_size;
  s->c = layer->in.c;
  s->h = layer->in.h;
  s->w = layer->in.w;
  s->win_h = layer->spec.kernel_h;
  s->win_w = layer->spec.kernel_w;
  s->stride_h = layer->spec.stride_h > 0 ? layer->spec.stride_h : layer->spec.kernel_h;
  s->stride_w = layer->spec.stride_w > 0 ? layer->spec.stride_w : layer->spec.kernel_w;
  _nn_layer_padding (&layer->spec, layer->in, layer->out, &s->pad_h, &s->pad_w);
  s->out_h = layer->out.h;
  s->out_w = layer->out.w;
  return NN_OK;
}

NnLayer *
_nn_pool_fused_act (const NnModel *model, const NnLayer *pool, const NnPass *pass)
{
  NnLayer *below;

  if (model->backend.ops->pool2d_backward_act == NULL || pool->index < 1
      || (pool->klass != &_nn_maxpool2d_class && pool->klass != &_nn_avgpool2d_class))
    return NULL;
  below = model->layers[pool->index - 1];
  if (below->klass != &_nn_conv2d_class || _nn_layer_act (below, pass) == NN_BK_ACT_SOFTMAX)
    return NULL;
  return below;
}

NnLayer *
_nn_pool_fused_dropout (const NnModel *model, const NnLayer *pool, const NnPass *pass)
{
  NnLayer *next;

  if (!pass->training || pool->index + 1 >= model->count
      || model->backend.ops->pool2d_forward_dropout == NULL
      || _nn_pool_fused_act (model, pool, pass) == NULL)
    return NULL;
  next = model->layers[pool->index + 1];
  if (next->klass != &_nn_dropout_class || !(next->spec.rate > 0.0f))
    return NULL;
  return next;
}

static int
pool_forward (NnModel *model, NnLayer *layer, const NnPass *pass)
{
  NnPoolLayer *self = (NnPoolLayer *) layer;
  NnPoolShape s = self->shape;
  NnLayer *drop = _nn_pool_fused_dropout (model, layer, pass);

  s.n = pass->n;
  if (drop != NULL)
    return model->backend.ops->pool2d_forward_dropout (model->backend.ctx, self->mode, &s, layer->x,
                                                       layer->y, drop->y, drop->spec.rate,
                                                       _nn_layer_seed (model, drop), model->step);
  return model->backend.ops->pool2d_forward (model->backend.ctx, self->mode, &s, layer->x,
                                             layer->y);
}

static int
pool_backward (NnModel *model, NnLayer *layer, const NnPass *pass, float *dy, float **dx)
{
  NnPoolLayer *self = (NnPoolLayer *) layer;
  NnPoolShape s = self->shape;
  NnLayer *below = _nn_pool_fused_act (model, layer, pass);
  NnLayer *drop = _nn_pool_fused_dropout (model, layer, pass);

  if (*dx == NULL)
    return 0;
  s.n = pass->n;
  if (below != NULL)
    /* dz of the convolution below and its bias gradient, in one op; dy is
     * the gradient of the dropout above when that is fused too */
    return model->backend.ops->pool2d_backward_act (
        model->backend.ctx, self->mode, &s, layer->x, layer->y, dy, _nn_layer_act (below, pass),
        *dx, below->db, drop ? drop->spec.rate : 0.0f, drop ? _nn_layer_seed (model, drop) : 0,
        model->step);
  return model->backend.ops->pool2d_backward (model->backend.ctx, self->mode, &s, layer->x,
                                              layer->y, dy, *dx);
}

const NnLayerClass _nn_maxpool2d_class = {
  .kind = NN_LAYER_MAXPOOL2D,
  .instance_size = sizeof (NnPoolLayer),
  .setup = pool_setup,
  .forward = pool_forward,
  .backward = pool_backward,
};

const NnLayerClass _nn_avgpool2d_class = {
  .kind = NN_LAYER_AVGPOOL2D,
  .instance_size = sizeof (NnPoolLayer),
  .setup = pool_setup,
  .forward = pool_forward,
  .backward = pool_backward,
};
