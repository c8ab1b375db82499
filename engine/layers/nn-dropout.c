/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-dropout.c: inverted dropout (Keras): in training y = x * keep / (1 - rate)
 * with a counter-based mask (nn_dropout_keep of the layer seed, the device
 * step counter and the element index); identity in inference. A dense
 * layer or a pooling below may apply it in its own op instead: the plan
 * then has no step of this layer.
 */

#include "nn-model-private.h"

static int
dropout_forward (NnModel *model, NnLayer *layer, const NnPass *pass)
{
  const NnBackendOps *ops = model->backend.ops;
  size_t count = (size_t) pass->n * (size_t) layer->out_size;

  if (!pass->training || layer->spec.rate <= 0.0f)
    return ops->copy (model->backend.ctx, layer->y, layer->x, count * sizeof (float));
  return ops->dropout_forward (model->backend.ctx, layer->y, layer->x, count, layer->spec.rate,
                               _nn_layer_seed (model, layer), model->step);
}

static int
dropout_backward (NnModel *model, NnLayer *layer, const NnPass *pass, float *dy, float **dx)
{
  size_t count = (size_t) pass->n * (size_t) layer->out_size;

  if (*dx == NULL)
    return 0;
  if (!pass->training || layer->spec.rate <= 0.0f)
    {
      *dx = dy;
      return 0;
    }
  /* in place: the mask depends only on the index */
  *dx = dy;
  return model->backend.ops->dropout_backward (model->backend.ctx, dy, dy, count, layer->spec.rate,
                                               _nn_layer_seed (model, layer), model->step);
}

const NnLayerClass _nn_dropout_class = {
  .kind = NN_LAYER_DROPOUT,
  .instance_size = sizeof (NnLayer),
  .forward = dropout_forward,
  .backward = dropout_backward,
};
