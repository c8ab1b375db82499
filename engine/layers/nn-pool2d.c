/* nn-pool2d.c: max and average pooling over NCHW windows; windows that
 * overhang the edge (padding "same") ignore the missing cells.
 *
 * Above a convolution a pooling also does that layer's activation backward
 * and bias gradient, and applies the dropout above it (the backend's
 * pool2d_backward_act and pool2d_forward_dropout). A max pooling whose
 * windows tile the input records where each window's maximum is (the
 * backend's pool2d_*_argmax): its backward then reads a byte a window
 * instead of the whole input, and where the backend can, the convolution
 * below runs with the pooling as one op that never writes its own output
 * (conv2d_forward_pool; the convolution's forward then does nothing).
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
  uint8_t *argmax;   /* device (batch, out_size) when the pooling records its maxima, else NULL */
} NnPoolLayer;

/* The window cells an argmax byte can name. */
#define ARGMAX_CELLS 256

/* Whether the backend can record this pooling's maxima: max windows that
 * tile the input exactly and fit a byte. */
static bool
records_maxima (const NnModel *model, const NnPoolLayer *self)
{
  const NnPoolShape *s = &self->shape;
  return model->backend.ops->pool2d_backward_argmax != NULL
         && model->backend.ops->pool2d_forward_argmax != NULL && self->mode == POOL_MAX
         && s->stride_h == s->win_h && s->stride_w == s->win_w && s->pad_h == 0 && s->pad_w == 0
         && s->out_h * s->win_h == s->h && s->out_w * s->win_w == s->w
         && s->win_h * s->win_w <= ARGMAX_CELLS;
}

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
  if (layer->index >= 1 && model->layers[layer->index - 1]->klass == &_nn_conv2d_class
      && records_maxima (model, self))
    {
      void *ptr = NULL;
      NnStatus status = _nn_model_alloc (model, (size_t) model->batch_size * layer->out_size,
                                         "the pooling's maxima", NULL, &ptr, error);
      if (status != NN_OK)
        return status;
      self->argmax = ptr;
    }
  return NN_OK;
}

static void
pool_finalize (NnModel *model, NnLayer *layer)
{
  NnPoolLayer *self = (NnPoolLayer *) layer;

  if (self->argmax != NULL)
    model->backend.ops->free (model->backend.ctx, self->argmax);
  self->argmax = NULL;
}

/* The convolution below `pool` and whether its activation is one a pooling's
 * backward can do (not softmax), else NULL. */
static NnLayer *
conv_below (const NnModel *model, const NnLayer *pool, const NnPass *pass)
{
  NnLayer *below;

  if (pool->index < 1
      || (pool->klass != &_nn_maxpool2d_class && pool->klass != &_nn_avgpool2d_class))
    return NULL;
  below = model->layers[pool->index - 1];
  if (below->klass != &_nn_conv2d_class || _nn_layer_act (below, pass) == NN_BK_ACT_SOFTMAX)
    return NULL;
  return below;
}

/* Whether `pool` records its maxima in this pass (and so its backward reads
 * them): set up to, above a convolution it does the backward of. The
 * forward and the backward of a pass agree on it. */
static bool
keeps_maxima (const NnModel *model, const NnLayer *pool, const NnPass *pass)
{
  /* conv_below first: it checks that `pool` is a pooling at all */
  return conv_below (model, pool, pass) != NULL && ((const NnPoolLayer *) pool)->argmax != NULL;
}

NnLayer *
_nn_pool_fused_act (const NnModel *model, const NnLayer *pool, const NnPass *pass)
{
  NnLayer *below = conv_below (model, pool, pass);

  if (below == NULL
      || (model->backend.ops->pool2d_backward_act == NULL && !keeps_maxima (model, pool, pass)))
    return NULL;
  return below;
}

NnLayer *
_nn_pool_runs_conv (NnModel *model, const NnLayer *pool, const NnPass *pass)
{
  const NnBackendOps *ops = model->backend.ops;

  if (ops->conv2d_forward_pool == NULL || !keeps_maxima (model, pool, pass))
    return NULL;
  NnLayer *below = model->layers[pool->index - 1];
  NnPoolShape s = ((const NnPoolLayer *) pool)->shape;
  void *plan = _nn_conv_plan (below, pass->n);
  s.n = pass->n;
  return plan != NULL && ops->conv2d_pool_fits (model->backend.ctx, plan, &s) ? below : NULL;
}

NnLayer *
_nn_pool_fused_dropout (const NnModel *model, const NnLayer *pool, const NnPass *pass)
{
  NnLayer *next;

  if (!pass->training || pool->index + 1 >= model->count
      || _nn_pool_fused_act (model, pool, pass) == NULL
      || (model->backend.ops->pool2d_forward_dropout == NULL
          && !keeps_maxima (model, pool, pass)))
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
  const NnBackendOps *ops = model->backend.ops;
  NnPoolShape s = self->shape;
  NnLayer *drop = _nn_pool_fused_dropout (model, layer, pass);
  NnLayer *conv = _nn_pool_runs_conv (model, layer, pass);
  float rate = drop != NULL ? drop->spec.rate : 0.0f;
  uint64_t seed = drop != NULL ? _nn_layer_seed (model, drop) : 0;
  float *drop_y = drop != NULL ? drop->y : NULL;

  s.n = pass->n;
  if (conv != NULL)
    /* the convolution below and this pooling in one op: its output is
     * never written */
    return ops->conv2d_forward_pool (model->backend.ctx, _nn_conv_plan (conv, pass->n), conv->x,
                                     conv->w, conv->b, _nn_layer_act (conv, pass), &s, layer->y,
                                     drop_y, rate, seed, model->step, self->argmax,
                                     model->workspace);
  if (keeps_maxima (model, layer, pass))
    return ops->pool2d_forward_argmax (model->backend.ctx, &s, layer->x, layer->y, drop_y, rate,
                                       seed, model->step, self->argmax);
  if (drop != NULL)
    return ops->pool2d_forward_dropout (model->backend.ctx, self->mode, &s, layer->x, layer->y,
                                        drop_y, rate, seed, model->step);
  return ops->pool2d_forward (model->backend.ctx, self->mode, &s, layer->x, layer->y);
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
  if (below != NULL && keeps_maxima (model, layer, pass))
    /* the same from the maxima the forward recorded: the pooling's input
     * is not read (and may not have been written) */
    return model->backend.ops->pool2d_backward_argmax (
        model->backend.ctx, &s, self->argmax, layer->y, dy, _nn_layer_act (below, pass), *dx,
        below->db, drop ? drop->spec.rate : 0.0f, drop ? _nn_layer_seed (model, drop) : 0,
        model->step);
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
  .finalize = pool_finalize,
  .forward = pool_forward,
  .backward = pool_backward,
};

const NnLayerClass _nn_avgpool2d_class = {
  .kind = NN_LAYER_AVGPOOL2D,
  .instance_size = sizeof (NnPoolLayer),
  .setup = pool_setup,
  .finalize = pool_finalize,
  .forward = pool_forward,
  .backward = pool_backward,
};
