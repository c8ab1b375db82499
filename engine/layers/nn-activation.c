/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-activation.c: a stand-alone activation layer (relu, sigmoid, tanh,
 * softmax), y = act (x). Softmax runs over the whole sample.
 */

#include "nn-model-private.h"

/* (channels, spatial) as bias_act sees a sample of this layer */
static void
act_geometry (const NnLayer *layer, int act, int *channels, int *spatial)
{
  if (layer->out.rank == 3 && act != NN_BK_ACT_SOFTMAX)
    {
      *channels = layer->out.c;
      *spatial = layer->out.h * layer->out.w;
    }
  else
    {
      *channels = (int) layer->out_size;
      *spatial = 1;
    }
}

static int
activation_forward (NnModel *model, NnLayer *layer, const NnPass *pass)
{
  const NnBackendOps *ops = model->backend.ops;
  int act = _nn_layer_act (layer, pass);
  int channels, spatial, rc;

  rc = ops->copy (model->backend.ctx, layer->y, layer->x,
                  (size_t) pass->n * (size_t) layer->out_size * sizeof (float));
  if (rc != 0 || act == NN_BK_ACT_LINEAR)
    return rc;
  act_geometry (layer, act, &channels, &spatial);
  return ops->bias_act_forward (model->backend.ctx, act, layer->y, NULL, pass->n, channels,
                                spatial);
}

static int
activation_backward (NnModel *model, NnLayer *layer, const NnPass *pass, float *dy, float **dx)
{
  int act = _nn_layer_act (layer, pass);
  int channels, spatial;

  if (*dx == NULL)
    return 0;
  *dx = dy;
  if (act == NN_BK_ACT_LINEAR)
    return 0;
  act_geometry (layer, act, &channels, &spatial);
  return model->backend.ops->bias_act_backward (model->backend.ctx, act, layer->y, dy, NULL,
                                                pass->n, channels, spatial);
}

const NnLayerClass _nn_activation_class = {
  .kind = NN_LAYER_ACTIVATION,
  .instance_size = sizeof (NnLayer),
  .forward = activation_forward,
  .backward = activation_backward,
};
