/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-flatten.c: flatten (c, h, w) to (c * h * w).
 *
 * NCHW rows are already flat, so the output is the input buffer itself and
 * both passes cost nothing.
 */

#include "nn-model-private.h"

static NnStatus
flatten_setup (NnModel *model, NnLayer *layer, NnError *error)
{
  layer->aliases_input = true;
  return NN_OK;
}

static int
flatten_forward (NnModel *model, NnLayer *layer, const NnPass *pass)
{
  return 0;
}

static int
flatten_backward (NnModel *model, NnLayer *layer, const NnPass *pass, float *dy, float **dx)
{
  if (*dx != NULL)
    *dx = dy;
  return 0;
}

const NnLayerClass _nn_flatten_class = {
  .kind = NN_LAYER_FLATTEN,
  .instance_size = sizeof (NnLayer),
  .setup = flatten_setup,
  .forward = flatten_forward,
  .backward = flatten_backward,
};
