/* nn-dense.c: the fully connected layer, y = act (x @ W + b).
 *
 * W is (in, units) row-major as Keras stores it, b is (units).
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

/* Whether the backend's fused dense ops serve this layer in this pass. */
static bool
dense_fused (const NnModel *model, const NnLayer *layer, const NnPass *pass)
{
  const NnBackendOps *ops = model->backend.ops;
  return ops->dense_forward != NULL && ops->dense_backward != NULL
         && layer->klass == &_nn_dense_class && _nn_layer_act (layer, pass) != NN_BK_ACT_SOFTMAX;
}

bool
_nn_dense_updates_itself (const NnModel *model, const NnLayer *layer, const NnPass *pass)
{
  const NnBackendOps *ops = model->backend.ops;
  return ops->dense_backward_update != NULL && ops->dense_backward_update_pays != NULL
         && dense_fused (model, layer, pass)
         && ops->dense_backward_update_pays (model->backend.ctx, pass->n, (int) layer->in_size,
                                             (int) layer->out_size);
}

NnLayer *
_nn_dense_fused_dropout (const NnModel *model, const NnLayer *layer, const NnPass *pass)
{
  NnLayer *next;

  if (!pass->training || layer->index + 1 >= model->count || !dense_fused (model, layer, pass))
    return NULL;
  next = model->layers[layer->index + 1];
  if (next->klass != &_nn_dropout_class || !(next->spec.rate > 0.0f))
    return NULL;
  return next;
}

static int
dense_forward (NnModel *model, NnLayer *layer, const NnPass *pass)
{
  const NnBackendOps *ops = model->backend.ops;
  void *ctx = model->backend.ctx;
  int in = (int) layer->in_size;
  int out = (int) layer->out_size;
  int rc;

  if (dense_fused (model, layer, pass))
    {
      /* one op: product, bias, activation and the next layer's dropout */
      NnLayer *drop = _nn_dense_fused_dropout (model, layer, pass);
      return ops->dense_forward (ctx, _nn_layer_act (layer, pass), pass->n, in, out, layer->x,
                                 layer->w, layer->b, layer->y, drop ? drop->y : NULL,
                                 drop ? drop->spec.rate : 0.0f,
                                 drop ? _nn_layer_seed (model, drop) : 0, model->step);
    }

  /* y (n, out) = x (n, in) @ W (in, out) */
  rc = ops->gemm (ctx, 0, 0, pass->n, out, in, 1.0f, layer->x, in, layer->w, out, 0.0f,
                  layer->y, out);
  if (rc != 0)
    return rc;
  return ops->bias_act_forward (ctx, _nn_layer_act (layer, pass), layer->y, layer->b, pass->n,
                                out, 1);
}

bool
_nn_dense_fuses_loss (const NnModel *model, const NnLayer *layer, const NnPass *pass)
{
  return model->backend.ops->dense_loss != NULL && layer->last && dense_fused (model, layer, pass);
}

/* The dense layer whose output, through its fused dropout if it has one,
 * is this layer's input; else NULL. */
static NnLayer *
dense_feeding (const NnModel *model, const NnLayer *layer, const NnPass *pass)
{
  int32_t i = layer->index - 1;
  if (i >= 1 && _nn_dense_fused_dropout (model, model->layers[i - 1], pass) == model->layers[i])
    i--;
  return i >= 0 && model->layers[i]->klass == &_nn_dense_class ? model->layers[i] : NULL;
}

/* In a pass with an update: the dense layer below `layer`, when it updates
 * itself too (then so does `layer`, every layer from update->first up
 * does), as dense_backward_update's `below`, whose dz the op forms where it
 * forms dx: one pass over dx less. False when there is none. */
static bool
updating_below (const NnModel *model, const NnLayer *layer, const NnPass *pass,
                NnBackendBelow *below)
{
  NnLayer *b = dense_feeding (model, layer, pass);
  NnLayer *drop;

  if (b == NULL || b->index < pass->update->first)
    return false;
  drop = _nn_dense_fused_dropout (model, b, pass);
  *below = (NnBackendBelow){ _nn_layer_act (b, pass), drop ? drop->spec.rate : 0.0f,
                             drop ? _nn_layer_seed (model, drop) : 0, b->y };
  return true;
}

bool
_nn_dense_loss_forms_dx (const NnModel *model, const NnPass *pass)
{
  const NnBackendOps *ops = model->backend.ops;
  const NnLayer *last = model->layers[model->count - 1];
  int below = 0;       /* layers with parameters under the output layer */
  bool lowest_stores = false; /* the lowest of them stores the step counter */

  /* Only an output layer that updates itself: its update is the op worth
   * taking off the step's chain. A gradient alone is short, and beside the
   * layers below it takes multiprocessors from them: on the H200 neither
   * the cnn nor mlp-small gained measurably that way, the difference
   * within the spread of one module from run to run. The op takes a
   * linear output (logits), whose loss gradient is its dz. */
  if (ops->dense_loss_dx == NULL || ops->branch_begin == NULL || ops->branch_end == NULL
      || ops->branch_join == NULL || !pass->training || pass->update == NULL
      || last->index < pass->update->first || !_nn_dense_fuses_loss (model, last, pass)
      || _nn_layer_act (last, pass) != NN_BK_ACT_LINEAR)
    return false;
  for (int32_t i = 0; i < last->index; i++)
    if (model->layers[i]->w_count + model->layers[i]->b_count > 0 && below++ == 0)
      lowest_stores = _nn_dense_update_stores_step (pass->update, model->layers[i]);
  /* with one layer below that stores the step, the branch would be joined
   * right away */
  return below >= 2 || (below == 1 && !lowest_stores);
}

int
_nn_dense_forward_loss (NnModel *model, NnLayer *layer, const NnPass *pass, int loss, float *grad)
{
  const NnBackendOps *ops = model->backend.ops;
  int act = _nn_layer_act (layer, pass), in = (int) layer->in_size, out = (int) layer->out_size;

  if (pass->output_dx)
    {
      /* the layer below's dz where that updates itself, as this layer's
       * backward would form it */
      NnBackendBelow below;
      bool has_below = pass->update != NULL && updating_below (model, layer, pass, &below);
      return ops->dense_loss_dx (model->backend.ctx, act, pass->n, in, out, layer->x, layer->w,
                                 layer->b, layer->y, loss, model->labels, model->targets, grad,
                                 model->stats, model->scratch[0], has_below ? &below : NULL,
                                 model->step);
    }
  return ops->dense_loss (model->backend.ctx, act, pass->n, in, out, layer->x, layer->w, layer->b,
                          layer->y, loss, model->labels, model->targets, grad, model->stats);
}

/* The other side of updating_below: whether the dense layer above this one
 * (which updates itself whenever this one does) hands it dz in place of dy. */
static bool
dz_from_above (const NnModel *model, const NnLayer *layer, const NnPass *pass)
{
  NnLayer *drop = _nn_dense_fused_dropout (model, layer, pass);
  int32_t i = layer->index + (drop != NULL ? 2 : 1);
  return i < model->count && model->layers[i]->klass == &_nn_dense_class
         && dense_feeding (model, model->layers[i], pass) == layer;
}

static int
dense_backward (NnModel *model, NnLayer *layer, const NnPass *pass, float *dy, float **dx)
{
  const NnBackendOps *ops = model->backend.ops;
  void *ctx = model->backend.ctx;
  int in = (int) layer->in_size;
  int out = (int) layer->out_size;
  int rc;

  if (dense_fused (model, layer, pass))
    {
      /* dy is the gradient of the dropout's output when that is fused */
      NnLayer *drop = _nn_dense_fused_dropout (model, layer, pass);
      const NnDenseUpdate *update = pass->update;
      int act = _nn_layer_act (layer, pass);
      float rate = drop ? drop->spec.rate : 0.0f;
      uint64_t seed = drop ? _nn_layer_seed (model, drop) : 0;

      if (update != NULL && layer->index >= update->first)
        {
          /* the optimizer's state of w and b, in the state of the fused suffix */
          float *w_state = update->state + (layer->param_offset - update->offset);
          float *b_state = w_state + layer->w_count;
          NnBackendBelow below;
          bool has_below = *dx != NULL && updating_below (model, layer, pass, &below);
          if (dz_from_above (model, layer, pass))
            {
              /* dy is dz already */
              act = NN_BK_ACT_LINEAR;
              rate = 0.0f;
            }
          return ops->dense_backward_update (
              ctx, act, pass->n, in, out, layer->x, layer->w, layer->b, layer->y, dy, *dx,
              has_below ? &below : NULL, rate, seed, model->step, update->opt, w_state, b_state,
              (size_t) update->count, _nn_dense_update_stores_step (update, layer));
        }
      return ops->dense_backward (ctx, act, pass->n, in, out, layer->x, layer->w, layer->y, dy,
                                  layer->dw, layer->db, *dx, rate, seed, model->step);
    }

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
