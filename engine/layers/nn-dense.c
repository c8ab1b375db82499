/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-dense.c: the fully connected layer, y = act (x @ W + b).
 *
 * W is (in, units) row-major as Keras stores it, b is (units). The
 * backend's fused dense ops, with the dropout above or the optimizer's
 * update, run as steps of the plan (nn-plan.c).
 */

#include "nn-model-private.h"

static NnStatus
dense_setup (NnModel *model, NnLayer *layer, NnError *error)
{
  if (layer->out_size != layer->spec.units)
    return _nn_error_set (error, NN_ERROR_SHAPE,
                          "%s: dense on a %d-D input is not supported; add flatten before it",
                          layer->name, layer->in.rank);
  layer->w_count = layer->in_size * layer->spec.units;
  layer->b_count = layer->spec.units;
  layer->fan_in = layer->in_size;
  layer->fan_out = layer->spec.units;
  return NN_OK;
}

static int
dense_forward (NnModel *model, NnLayer *layer, const NnPass *pass)
{
  const NnBackendOps *ops = model->backend.ops;
  void *ctx = model->backend.ctx;
  int in = (int) layer->in_size;
  int out = (int) layer->out_size;
  int rc;

  /* y (n, out) = x (n, in) @ W (in, out) */
  rc = ops->gemm (ctx, 0, 0, pass->n, out, in, 1.0f, layer->x, in, layer->w, out, 0.0f,
                  layer->y, out);
  if (rc != 0)
    return rc;
  return ops->bias_act_forward (ctx, _nn_layer_act (layer, pass), layer->y, layer->b, pass->n,
                                out, 1);
}

static int
dense_backward (NnModel *model, NnLayer *layer, const NnPass *pass, float *dy, float **dx)
{
  const NnBackendOps *ops = model->backend.ops;
  void *ctx = model->backend.ctx;
  int in = (int) layer->in_size;
  int out = (int) layer->out_size;
  int rc;

  /* dz (n, out) in place of dy; db (out) */
  rc = ops->bias_act_backward (ctx, _nn_layer_act (layer, pass), layer->y, dy, layer->db,
                               pass->n, out, 1);
  if (rc != 0)
    return rc;
  /* dW (in, out) = x^T (in, n) @ dz (n, out) */
  rc = ops->gemm (ctx, 1, 0, in, out, pass->n, 1.0f, layer->x, in, dy, out, 0.0f, layer->dw, out);
  if (rc != 0)
    return rc;
  /* dx (n, in) = dz (n, out) @ W^T (out, in) */
  if (*dx != NULL)
    rc = ops->gemm (ctx, 0, 1, pass->n, in, out, 1.0f, dy, out, layer->w, out, 0.0f, *dx, in);
  return rc;
}

const NnLayerClass _nn_dense_class = {
  .kind = NN_LAYER_DENSE,
  .instance_size = sizeof (NnLayer),
  .setup = dense_setup,
  .forward = dense_forward,
  .backward = dense_backward,
};
