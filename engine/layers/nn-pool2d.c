/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-pool2d.c: max and average pooling over NCHW windows; windows that
 * overhang the edge (padding "same") ignore the missing cells.
 *
 * A max pooling whose windows tile the input has room to record where each
 * window's maximum is (a POOL step with MAXIMA): the plan (nn-plan.c) then
 * runs it above a convolution with that layer's activation backward, from
 * a byte a window instead of the whole input.
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

/* Whether this pooling has room to record its maxima: max windows that
 * tile the input exactly and fit a byte, on a backend that runs such a
 * pooling as a step (the plan then asks for the step it makes). */
static bool
records_maxima (const NnModel *model, const NnPoolLayer *self)
{
  const NnBackendOps *ops = model->backend.ops;
  const NnPoolShape *s = &self->shape;
  NnBackendStep step = { .kind = NN_BK_STEP_POOL,
                         .flags = NN_BK_STEP_MAXIMA,
                         .n = s->n,
                         .act = NN_BK_ACT_LINEAR,
                         .pool = { .mode = POOL_MAX, .shape = *s } };
  return self->mode == POOL_MAX && s->stride_h == s->win_h && s->stride_w == s->win_w
         && s->pad_h == 0 && s->pad_w == 0 && s->out_h * s->win_h == s->h
         && s->out_w * s->win_w == s->w && s->win_h * s->win_w <= ARGMAX_CELLS
         && ops->step_supported != NULL && ops->step_supported (model->backend.ctx, &step);
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
  if (records_maxima (model, self))
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

NnPoolShape
_nn_pool_shape (const NnLayer *pool, int32_t n)
{
  NnPoolShape s = ((const NnPoolLayer *) pool)->shape;
  s.n = n;
  return s;
}

int
_nn_pool_mode (const NnLayer *pool)
{
  return ((const NnPoolLayer *) pool)->mode;
}

uint8_t *
_nn_pool_argmax (const NnLayer *pool)
{
  return ((const NnPoolLayer *) pool)->argmax;
}

static int
pool_forward (NnModel *model, NnLayer *layer, const NnPass *pass)
{
  NnPoolLayer *self = (NnPoolLayer *) layer;
  NnPoolShape s = _nn_pool_shape (layer, pass->n);

  return model->backend.ops->pool2d_forward (model->backend.ctx, self->mode, &s, layer->x,
                                             layer->y);
}

static int
pool_backward (NnModel *model, NnLayer *layer, const NnPass *pass, float *dy, float **dx)
{
  NnPoolLayer *self = (NnPoolLayer *) layer;
  NnPoolShape s = _nn_pool_shape (layer, pass->n);

  if (*dx == NULL)
    return 0;
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
