/* nn-plan.c: the steps of a pass, and running them.
 *
 * Every fusion of neighbouring layers is decided here, once per plan, from
 * the layer list and the backend's optional ops (nn-backend-abi.h): the
 * rules are the facts in layer_facts, and the steps follow from them in
 * plan_forward and plan_backward. The layers' own ops are their classes'.
 */

#include "nn-plan.h"
#include "nn-os.h"

#include <stdlib.h>
#include <string.h>

static int fusion_forced = -1; /* _nn_plan_set_fusion */

bool
_nn_plan_fusion (void)
{
  char env[8];
  if (fusion_forced >= 0)
    return fusion_forced != 0;
  return !(_nn_os_getenv ("TRAINBENCH_FUSION", env, sizeof env) && strcmp (env, "0") == 0);
}

void
_nn_plan_set_fusion (int on)
{
  fusion_forced = on < 0 ? -1 : on != 0;
}

/* The kinds' names in plan descriptions and result files (NnPlanStep). */
static const char *const step_names[NN_STEP_KINDS] = {
  [NN_STEP_LAYER] = "layer",
  [NN_STEP_LOSS] = "loss",
  [NN_STEP_DENSE] = "dense",
  [NN_STEP_DENSE_UPDATE] = "dense_update",
  [NN_STEP_OUTPUT_LOSS] = "output_loss",
  [NN_STEP_POOL_DROPOUT] = "pool_dropout",
  [NN_STEP_POOL_ACT] = "pool_act",
  [NN_STEP_POOL_ARGMAX] = "pool_argmax",
  [NN_STEP_CONV_POOL] = "conv_pool",
  [NN_STEP_CONV_DZ] = "conv_dz",
  [NN_STEP_CONV_BELOW] = "conv_below",
};

const char *
_nn_step_name (NnStepKind kind)
{
  return kind >= 0 && kind < NN_STEP_KINDS ? step_names[kind] : "?";
}

/* ---------------------------------------------------------------- the rules */

/* What the plan knows of each layer in one pass. */
typedef struct
{
  bool dense_fused; /* a dense layer the backend's dense ops run */
  int32_t drop;     /* the dropout above that this layer applies, or -1 */
  int32_t applied;  /* a dropout layer: the layer applying it, or -1 */
  bool conv_act;    /* a pooling that does the activation backward of the conv below */
  bool maxima;      /* a pooling that records its maxima (then conv_act) */
  bool runs_conv;   /* a pooling that runs the conv below's forward with its own */
  bool runs_below;  /* a conv whose backward does the conv below's too */
  bool wants_dx;    /* its backward forms its input gradient */
} Facts;

static bool
is_pool (const NnLayer *layer)
{
  return layer->klass == &_nn_maxpool2d_class || layer->klass == &_nn_avgpool2d_class;
}

static bool
dense_fused (const NnModel *model, const NnLayer *layer, const NnPass *pass)
{
  const NnBackendOps *ops = model->backend.ops;
  return ops->dense_forward != NULL && ops->dense_backward != NULL
         && layer->klass == &_nn_dense_class
         && _nn_layer_act (layer, pass) != NN_BK_ACT_SOFTMAX;
}

bool
_nn_plan_dense_updates_itself (const NnModel *model, const NnLayer *layer, const NnPass *pass)
{
  const NnBackendOps *ops = model->backend.ops;
  return _nn_plan_fusion () && ops->dense_backward_update != NULL
         && dense_fused (model, layer, pass)
         && ops->dense_backward_update_pays (model->backend.ctx, pass->n, (int) layer->in_size,
                                             (int) layer->out_size);
}

static bool
active_dropout (const NnModel *model, int32_t i, const NnPass *pass)
{
  return pass->training && i < model->count && model->layers[i]->klass == &_nn_dropout_class
         && model->layers[i]->spec.rate > 0.0f;
}

/* The facts of every layer: each rule of a fusion in one place. */
static void
layer_facts (NnModel *model, const NnPass *pass, Facts *f)
{
  const NnBackendOps *ops = model->backend.ops;
  bool learns_below = false;

  for (int32_t i = 0; i < model->count; i++)
    {
      f[i] = (Facts){ .drop = -1, .applied = -1 };
      /* a layer forms its input gradient when one below it learns, or the
       * model's input gradient is wanted (gradient checks) */
      f[i].wants_dx = pass->input_grad || learns_below;
      learns_below = learns_below || model->layers[i]->w_count > 0;
    }
  for (int32_t i = 0; i < model->count; i++)
    {
      NnLayer *layer = model->layers[i];
      NnLayer *below = i >= 1 ? model->layers[i - 1] : NULL;
      /* dense: product, bias, activation and the dropout above as one op */
      f[i].dense_fused = dense_fused (model, layer, pass);
      if (f[i].dense_fused && active_dropout (model, i + 1, pass))
        f[i].drop = i + 1;
      /* a pooling above a convolution does its activation backward; a max
       * pooling whose windows tile its input from its recorded maxima */
      if (is_pool (layer) && below != NULL && below->klass == &_nn_conv2d_class
          && _nn_layer_act (below, pass) != NN_BK_ACT_SOFTMAX)
        {
          f[i].maxima = _nn_pool_argmax (layer) != NULL;
          f[i].conv_act = f[i].maxima || ops->pool2d_backward_act != NULL;
          if (f[i].conv_act && active_dropout (model, i + 1, pass)
              && (f[i].maxima || ops->pool2d_forward_dropout != NULL))
            f[i].drop = i + 1;
          if (f[i].maxima && ops->conv2d_forward_pool != NULL)
            {
              NnPoolShape s = _nn_pool_shape (layer, pass->n);
              void *plan = _nn_conv_plan (below, pass->n);
              f[i].runs_conv = plan != NULL && ops->conv2d_pool_fits (model->backend.ctx, plan, &s);
            }
        }
      /* a convolution above the first layer that learns, itself a
       * convolution whose input gradient no one needs */
      if (layer->klass == &_nn_conv2d_class && below != NULL && ops->conv2d_backward_below != NULL
          && below->klass == &_nn_conv2d_class && _nn_layer_act (below, pass) != NN_BK_ACT_SOFTMAX
          && !f[i - 1].wants_dx)
        {
          void *plan = _nn_conv_plan (layer, pass->n);
          void *below_plan = _nn_conv_plan (below, pass->n);
          f[i].runs_below = plan != NULL && below_plan != NULL
                            && ops->conv2d_below_fits (model->backend.ctx, plan, below_plan);
        }
    }
  for (int32_t i = 0; i < model->count; i++)
    if (f[i].drop >= 0)
      f[f[i].drop].applied = i;
}

/* The dense layer whose output, through the dropout it applies if any, is
 * layer i's input, or -1. */
static int32_t
dense_feeding (const NnModel *model, const Facts *f, int32_t i)
{
  int32_t j = i - 1;
  if (j >= 0 && f[j].applied >= 0)
    j = f[j].applied;
  return j >= 0 && model->layers[j]->klass == &_nn_dense_class ? j : -1;
}

/* In a pass with an update: the dense layer below i when it updates itself
 * too, whose dz i's update forms in place of its dx; else -1. */
static int32_t
updating_below (const NnModel *model, const NnPass *pass, const Facts *f, int32_t i)
{
  int32_t b = dense_feeding (model, f, i);
  return b >= 0 && pass->update != NULL && b >= pass->update->first && f[b].dense_fused ? b : -1;
}

/* Whether a training pass can form the output layer's input gradient with
 * its loss and run that layer's update on a branch: only where the output
 * layer updates itself, and the branch would run beside something, a
 * layer with parameters below it whose backward comes before the op that
 * stores the step counter. Its gradient alone is short, and beside the
 * layers below it takes multiprocessors from them: on the H200 neither the
 * cnn nor mlp-small gained measurably that way. The op takes a linear
 * output (logits), whose loss gradient is its dz. */
static bool
output_forms_dx (const NnModel *model, const NnPass *pass, const Facts *f)
{
  const NnBackendOps *ops = model->backend.ops;
  const NnLayer *last = model->layers[model->count - 1];
  int below = 0;
  bool lowest_stores = false;

  if (ops->dense_loss_dx == NULL || !pass->training || pass->update == NULL
      || last->index < pass->update->first || ops->dense_loss == NULL
      || !f[last->index].dense_fused || _nn_layer_act (last, pass) != NN_BK_ACT_LINEAR)
    return false;
  for (int32_t i = 0; i < last->index; i++)
    if (model->layers[i]->w_count + model->layers[i]->b_count > 0 && below++ == 0)
      lowest_stores = _nn_dense_update_stores_step (pass->update, model->layers[i]);
  return below >= 2 || (below == 1 && !lowest_stores);
}

/* ---------------------------------------------------------------- the steps */

static NnStep
step_of (NnStepKind kind, int32_t layer)
{
  return (NnStep){ .kind = kind, .layer = layer, .first = layer, .last = layer, .drop = -1,
                   .other = -1 };
}

static void
plan_forward (NnModel *model, NnPlan *plan, const Facts *f)
{
  const NnPass *pass = &plan->pass;
  int32_t last = model->count - 1;
  bool fused_loss = plan->loss && plan->fusion && model->backend.ops->dense_loss != NULL
                    && f[last].dense_fused;

  plan->forward_count = 0;
  for (int32_t i = 0; i < model->count; i++)
    {
      NnStep s = step_of (NN_STEP_LAYER, i);
      if (plan->fusion && f[i].applied >= 0)
        continue; /* applied by the layer below */
      if (plan->fusion && i < last && f[i + 1].runs_conv)
        continue; /* run by the pooling above */
      if (i == last && fused_loss)
        {
          s.kind = NN_STEP_OUTPUT_LOSS;
          if (pass->output_dx)
            {
              s.flags |= NN_STEP_WITH_DX;
              s.other = updating_below (model, pass, f, i);
              if (s.other >= 0)
                s.flags |= NN_STEP_FORMS_BELOW;
            }
        }
      else if (plan->fusion && f[i].dense_fused)
        s.kind = NN_STEP_DENSE;
      else if (plan->fusion && f[i].runs_conv)
        {
          s.kind = NN_STEP_CONV_POOL;
          s.other = s.first = i - 1;
        }
      else if (plan->fusion && f[i].maxima)
        s.kind = NN_STEP_POOL_ARGMAX;
      else if (plan->fusion && f[i].drop >= 0 && f[i].conv_act)
        s.kind = NN_STEP_POOL_DROPOUT;
      if (plan->fusion && s.kind != NN_STEP_LAYER && s.kind != NN_STEP_OUTPUT_LOSS)
        s.drop = f[i].drop;
      if (s.drop >= 0)
        s.last = s.drop;
      plan->forward[plan->forward_count++] = s;
    }
  if (plan->loss && !fused_loss)
    plan->forward[plan->forward_count++] = step_of (NN_STEP_LOSS, last);
}

static void
plan_backward (NnModel *model, NnPlan *plan, const Facts *f)
{
  const NnPass *pass = &plan->pass;
  const NnDenseUpdate *update = plan->fusion ? pass->update : NULL;
  bool branched = false;

  plan->backward_count = 0;
  for (int32_t i = model->count - 1; i >= 0; i--)
    {
      NnLayer *layer = model->layers[i];
      NnStep s = step_of (NN_STEP_LAYER, i);
      bool need_dx = f[i].wants_dx;

      if (!need_dx && layer->w_count == 0)
        break;
      if (plan->fusion && f[i].applied >= 0)
        continue; /* the layer below undoes it in its backward */
      if (plan->fusion && i + 1 < model->count && f[i + 1].runs_below)
        break;    /* done by the convolution above, and the backward ends here */
      if (!need_dx)
        s.flags |= NN_STEP_NO_DX;
      if (pass->output_dx && layer->last)
        {
          s.kind = NN_STEP_DENSE_UPDATE;
          s.flags |= NN_STEP_BRANCH | NN_STEP_NO_DX;
          if (update != NULL && _nn_dense_update_stores_step (update, layer))
            s.flags |= NN_STEP_STORES;
          branched = true;
          plan->backward[plan->backward_count++] = s;
          continue;
        }
      if (branched && update != NULL && _nn_dense_update_stores_step (update, layer))
        {
          s.flags |= NN_STEP_JOIN;
          branched = false;
        }
      if (plan->fusion && f[i].dense_fused)
        {
          s.kind = NN_STEP_DENSE;
          s.drop = f[i].drop;
          if (update != NULL && i >= update->first)
            {
              s.kind = NN_STEP_DENSE_UPDATE;
              s.other = need_dx ? updating_below (model, pass, f, i) : -1;
              if (s.other >= 0)
                s.flags |= NN_STEP_FORMS_BELOW;
              /* the dense layer above forms this one's dz when it updates itself */
              int32_t above = f[i].drop >= 0 ? f[i].drop + 1 : i + 1;
              if (above < model->count && model->layers[above]->klass == &_nn_dense_class
                  && updating_below (model, pass, f, above) == i)
                s.flags |= NN_STEP_DZ_IN;
              if (_nn_dense_update_stores_step (update, layer))
                s.flags |= NN_STEP_STORES;
            }
        }
      else if (plan->fusion && f[i].conv_act && need_dx)
        {
          s.kind = f[i].maxima ? NN_STEP_POOL_ARGMAX : NN_STEP_POOL_ACT;
          s.other = s.first = i - 1;
          s.drop = f[i].drop;
        }
      else if (plan->fusion && layer->klass == &_nn_conv2d_class)
        {
          bool done_above = i + 1 < model->count && f[i + 1].conv_act;
          if (f[i].runs_below)
            {
              s.kind = NN_STEP_CONV_BELOW;
              s.other = s.first = i - 1;
              if (done_above)
                s.flags |= NN_STEP_DZ_IN;
            }
          else if (done_above)
            s.kind = NN_STEP_CONV_DZ;
        }
      if (s.drop >= 0)
        s.last = s.drop;
      plan->backward[plan->backward_count++] = s;
      if (!need_dx)
        break;
    }
}

NnStatus
_nn_plan_build (NnModel *model, const NnPass *pass, bool loss, NnPlan *plan, NnError *error)
{
  Facts *f;
  /* the facts ask for the convolutions' plans at pass->n rows */
  NnStatus status = _nn_model_prepare (model, pass->n, error);

  memset (plan, 0, sizeof *plan);
  if (status != NN_OK)
    return status;
  f = malloc (sizeof *f * (size_t) model->count);
  plan->forward = malloc (sizeof (NnStep) * (size_t) (model->count + 1));
  plan->backward = malloc (sizeof (NnStep) * (size_t) model->count);
  if (f == NULL || plan->forward == NULL || plan->backward == NULL)
    {
      free (f);
      _nn_plan_clear (plan);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the plan of a pass");
    }
  plan->pass = *pass;
  plan->fusion = _nn_plan_fusion ();
  plan->loss = loss;
  if (!plan->fusion)
    plan->pass.update = NULL;
  layer_facts (model, &plan->pass, f);
  plan->pass.output_dx = plan->fusion && loss && output_forms_dx (model, &plan->pass, f);
  plan_forward (model, plan, f);
  plan_backward (model, plan, f);
  free (f);
  return NN_OK;
}

void
_nn_plan_clear (NnPlan *plan)
{
  free (plan->forward);
  free (plan->backward);
  plan->forward = plan->backward = NULL;
  plan->forward_count = plan->backward_count = 0;
}

/* ---------------------------------------------------------------- running the steps */

/* The dropout a step applies: rate (0 for none), seed and output. */
typedef struct
{
  float rate;
  uint64_t seed;
  float *y;
} Drop;

static Drop
drop_of (NnModel *model, int32_t index)
{
  if (index < 0)
    return (Drop){ 0.0f, 0, NULL };
  NnLayer *d = model->layers[index];
  return (Drop){ d->spec.rate, _nn_layer_seed (model, d), d->y };
}

/* The dense layer below as dense_backward_update's and dense_loss_dx's `below`. */
static NnBackendBelow
below_of (NnModel *model, const NnPass *pass, int32_t index)
{
  NnLayer *b = model->layers[index];
  int32_t drop = index + 1 < model->count && model->layers[index + 1]->klass == &_nn_dropout_class
                         && pass->training && model->layers[index + 1]->spec.rate > 0.0f
                     ? index + 1
                     : -1;
  Drop d = drop_of (model, drop);
  return (NnBackendBelow){ _nn_layer_act (b, pass), d.rate, d.seed, b->y };
}

static int
run_forward_step (NnModel *model, const NnPlan *plan, const NnStep *s, int loss, float *grad)
{
  const NnBackendOps *ops = model->backend.ops;
  void *ctx = model->backend.ctx;
  const NnPass *pass = &plan->pass;
  NnLayer *layer = model->layers[s->layer];
  int act = _nn_layer_act (layer, pass), in = (int) layer->in_size, out = (int) layer->out_size;
  Drop d = drop_of (model, s->drop);

  switch (s->kind)
    {
    case NN_STEP_LAYER:
      return layer->klass->forward (model, layer, pass);
    case NN_STEP_LOSS:
      return ops->loss (ctx, loss, layer->y, model->labels, model->targets, grad, model->stats,
                        pass->n, model->classes);
    case NN_STEP_DENSE:
      return ops->dense_forward (ctx, act, pass->n, in, out, layer->x, layer->w, layer->b,
                                 layer->y, d.y, d.rate, d.seed, model->step);
    case NN_STEP_OUTPUT_LOSS:
      if (s->flags & NN_STEP_WITH_DX)
        {
          NnBackendBelow below;
          if (s->other >= 0)
            below = below_of (model, pass, s->other);
          return ops->dense_loss_dx (ctx, act, pass->n, in, out, layer->x, layer->w, layer->b,
                                     layer->y, loss, model->labels, model->targets, grad,
                                     model->stats, model->scratch[0],
                                     s->other >= 0 ? &below : NULL, model->step);
        }
      return ops->dense_loss (ctx, act, pass->n, in, out, layer->x, layer->w, layer->b, layer->y,
                              loss, model->labels, model->targets, grad, model->stats);
    case NN_STEP_CONV_POOL:
      {
        NnLayer *conv = model->layers[s->other];
        NnPoolShape ps = _nn_pool_shape (layer, pass->n);
        return ops->conv2d_forward_pool (ctx, _nn_conv_plan (conv, pass->n), conv->x, conv->w,
                                         conv->b, _nn_layer_act (conv, pass), &ps, layer->y, d.y,
                                         d.rate, d.seed, model->step, _nn_pool_argmax (layer),
                                         model->workspace);
      }
    case NN_STEP_POOL_ARGMAX:
      {
        NnPoolShape ps = _nn_pool_shape (layer, pass->n);
        return ops->pool2d_forward_argmax (ctx, &ps, layer->x, layer->y, d.y, d.rate, d.seed,
                                           model->step, _nn_pool_argmax (layer));
      }
    case NN_STEP_POOL_DROPOUT:
      {
        NnPoolShape ps = _nn_pool_shape (layer, pass->n);
        return ops->pool2d_forward_dropout (ctx, _nn_pool_mode (layer), &ps, layer->x, layer->y,
                                            d.y, d.rate, d.seed, model->step);
      }
    default:
      return NN_BACKEND_ERROR;
    }
}

NnStatus
_nn_plan_forward (NnModel *model, const NnPlan *plan, NnLossKind loss, float *grad,
                  NnError *error)
{
  NnStatus status = _nn_model_prepare (model, plan->pass.n, error);
  char what[64];

  for (int32_t i = 0; i < plan->forward_count && status == NN_OK; i++)
    {
      const NnStep *s = &plan->forward[i];
      int rc = run_forward_step (model, plan, s, (int) loss, grad);
      if (rc != 0)
        {
          if (s->kind == NN_STEP_LOSS)
            snprintf (what, sizeof what, "loss");
          else if (s->kind == NN_STEP_OUTPUT_LOSS)
            snprintf (what, sizeof what, "output layer and loss");
          else
            snprintf (what, sizeof what, "%s forward", model->layers[s->layer]->name);
          status = _nn_model_check (model, rc, what, error);
        }
    }
  return status;
}

static int
run_backward_step (NnModel *model, const NnPlan *plan, const NnStep *s, float *dy, float **dx)
{
  const NnBackendOps *ops = model->backend.ops;
  void *ctx = model->backend.ctx;
  const NnPass *pass = &plan->pass;
  NnLayer *layer = model->layers[s->layer];
  int act = _nn_layer_act (layer, pass), in = (int) layer->in_size, out = (int) layer->out_size;
  Drop d = drop_of (model, s->drop);

  switch (s->kind)
    {
    case NN_STEP_LAYER:
      return layer->klass->backward (model, layer, pass, dy, dx);
    case NN_STEP_DENSE:
      return ops->dense_backward (ctx, act, pass->n, in, out, layer->x, layer->w, layer->y, dy,
                                  layer->dw, layer->db, *dx, d.rate, d.seed, model->step);
    case NN_STEP_DENSE_UPDATE:
      {
        const NnDenseUpdate *update = pass->update;
        /* the optimizer's state of w and b, in the model's one arena */
        float *w_state = model->opt_state + layer->param_offset;
        float *b_state = w_state + layer->w_count;
        NnBackendBelow below;
        if (s->flags & NN_STEP_FORMS_BELOW)
          below = below_of (model, pass, s->other);
        if (s->flags & NN_STEP_DZ_IN)
          {
            act = NN_BK_ACT_LINEAR;
            d.rate = 0.0f;
          }
        return ops->dense_backward_update (
            ctx, act, pass->n, in, out, layer->x, layer->w, layer->b, layer->y, dy, *dx,
            (s->flags & NN_STEP_FORMS_BELOW) ? &below : NULL, d.rate, d.seed, model->step,
            update->opt, w_state, b_state, (size_t) model->state_stride,
            (s->flags & NN_STEP_STORES) != 0);
      }
    case NN_STEP_POOL_ARGMAX:
    case NN_STEP_POOL_ACT:
      {
        NnLayer *conv = model->layers[s->other];
        NnPoolShape ps = _nn_pool_shape (layer, pass->n);
        if (s->kind == NN_STEP_POOL_ARGMAX)
          /* from the maxima the forward recorded: the pooling's input is
           * not read (and may not have been written) */
          return ops->pool2d_backward_argmax (ctx, &ps, _nn_pool_argmax (layer), layer->y, dy,
                                              _nn_layer_act (conv, pass), *dx, conv->db, d.rate,
                                              d.seed, model->step);
        return ops->pool2d_backward_act (ctx, _nn_pool_mode (layer), &ps, layer->x, layer->y, dy,
                                         _nn_layer_act (conv, pass), *dx, conv->db, d.rate,
                                         d.seed, model->step);
      }
    case NN_STEP_CONV_DZ:
      return ops->conv2d_backward (ctx, _nn_conv_plan (layer, pass->n), layer->x, layer->w, dy,
                                   *dx, layer->dw, model->workspace);
    case NN_STEP_CONV_BELOW:
      {
        NnLayer *below = model->layers[s->other];
        if (!(s->flags & NN_STEP_DZ_IN))
          {
            int rc = ops->bias_act_backward (ctx, act, layer->y, dy, layer->db, pass->n,
                                             layer->out.c, layer->out.h * layer->out.w);
            if (rc != 0)
              return rc;
          }
        /* the lower convolution's gradients from this one's dx, which is
         * never written */
        return ops->conv2d_backward_below (ctx, _nn_conv_plan (layer, pass->n), layer->x,
                                           layer->w, dy, layer->dw, _nn_conv_plan (below, pass->n),
                                           below->x, _nn_layer_act (below, pass), below->dw,
                                           below->db, model->workspace);
      }
    default:
      return NN_BACKEND_ERROR;
    }
}

/* A step's backend code as a status, naming its layer. */
static NnStatus
backward_check (NnModel *model, const NnStep *s, int rc, NnError *error)
{
  char what[64];
  if (rc == 0)
    return NN_OK;
  snprintf (what, sizeof what, "%s backward", model->layers[s->layer]->name);
  return _nn_model_check (model, rc, what, error);
}

/* The output layer's update on a branch beside the steps after it, its
 * input gradient formed with the loss already. */
static NnStatus
run_beside (NnModel *model, const NnPlan *plan, const NnStep *s, bool *begun, NnError *error)
{
  const NnBackendOps *ops = model->backend.ops;
  float *no_dx = NULL;
  NnStatus status = _nn_model_check (model, ops->branch_begin (model->backend.ctx),
                                     "starting a branch", error);
  if (status != NN_OK)
    return status;
  *begun = true;
  int rc = run_backward_step (model, plan, s, model->output_grad, &no_dx);
  /* ended whatever failed, so that a capture never ends inside a branch */
  int end = ops->branch_end (model->backend.ctx);
  if (rc != 0)
    return backward_check (model, s, rc, error);
  return _nn_model_check (model, end, "ending a branch", error);
}

NnStatus
_nn_plan_backward (NnModel *model, const NnPlan *plan, float **input_grad, NnError *error)
{
  const NnBackendOps *ops = model->backend.ops;
  float *dy = _nn_model_loss_grad (model, &plan->pass);
  bool branched = false;
  NnStatus status = NN_OK;

  for (int32_t i = 0; i < plan->backward_count && status == NN_OK; i++)
    {
      const NnStep *s = &plan->backward[i];
      float *other = dy == model->scratch[0] ? model->scratch[1] : model->scratch[0];
      float *dx = (s->flags & NN_STEP_NO_DX) ? NULL : other;

      if (s->flags & NN_STEP_BRANCH)
        {
          status = run_beside (model, plan, s, &branched, error);
          dy = model->scratch[0];
          continue;
        }
      /* the branch may read the step counter, which this step stores */
      if ((s->flags & NN_STEP_JOIN) && branched)
        {
          branched = false;
          status = _nn_model_check (model, ops->branch_join (model->backend.ctx),
                                    "joining a branch", error);
          if (status != NN_OK)
            break;
        }
      status = backward_check (model, s, run_backward_step (model, plan, s, dy, &dx), error);
      if (status != NN_OK || dx == NULL)
        break;
      dy = dx;
    }
  if (branched)
    {
      /* joined on failure too, so that a capture never ends with a branch open */
      int joined = ops->branch_join (model->backend.ctx);
      if (status == NN_OK)
        status = _nn_model_check (model, joined, "joining a branch", error);
    }
  if (status == NN_OK && input_grad != NULL)
    *input_grad = dy;
  return status;
}

/* ---------------------------------------------------------------- describing the steps */

/* Adds a phrase to a comma-separated list. */
static void
list_add (char *list, size_t size, const char *phrase)
{
  size_t used = strlen (list);
  snprintf (list + used, size - used, "%s%s", used > 0 ? ", " : "", phrase);
}

static void
describe_step (const NnModel *model, const NnStep *s, bool backward, NnLossKind loss,
               NnPlanStep *d)
{
  char phrase[96];

  memset (d, 0, sizeof *d);
  d->backward = backward;
  snprintf (d->kind, sizeof d->kind, "%s", _nn_step_name (s->kind));
  d->first = s->first + 1;
  d->last = s->last + 1;
  d->fused = s->kind != NN_STEP_LAYER && s->kind != NN_STEP_LOSS && s->kind != NN_STEP_CONV_DZ;
  if (s->kind == NN_STEP_LOSS)
    snprintf (d->layers, sizeof d->layers, "%s", nn_loss_name (loss));
  else
    for (int32_t i = s->first; i <= s->last; i++)
      {
        size_t used = strlen (d->layers);
        if (i > s->first)
          used += (size_t) snprintf (d->layers + used, sizeof d->layers - used, " + ");
        if (used < sizeof d->layers)
          _nn_layer_spec_format (&model->layers[i]->spec, d->layers + used,
                                 sizeof d->layers - used);
      }

  switch (s->kind)
    {
    case NN_STEP_DENSE_UPDATE:
      list_add (d->fused_with, sizeof d->fused_with, "optimizer update");
      break;
    case NN_STEP_OUTPUT_LOSS:
      list_add (d->fused_with, sizeof d->fused_with, "loss");
      if (s->flags & NN_STEP_WITH_DX)
        list_add (d->fused_with, sizeof d->fused_with, "input gradient");
      break;
    case NN_STEP_POOL_ACT:
    case NN_STEP_POOL_ARGMAX:
      if (backward)
        {
          snprintf (phrase, sizeof phrase, "activation backward of layer %d%s",
                    (int) s->other + 1,
                    s->kind == NN_STEP_POOL_ARGMAX ? " from the recorded maxima" : "");
          list_add (d->fused_with, sizeof d->fused_with, phrase);
        }
      else
        list_add (d->fused_with, sizeof d->fused_with, "maxima recorded");
      break;
    case NN_STEP_CONV_POOL:
      list_add (d->fused_with, sizeof d->fused_with, "maxima recorded");
      break;
    default:
      break;
    }
  if (s->flags & NN_STEP_FORMS_BELOW)
    {
      snprintf (phrase, sizeof phrase, "dz of layer %d", (int) s->other + 1);
      list_add (d->fused_with, sizeof d->fused_with, phrase);
    }

  if (s->flags & NN_STEP_BRANCH)
    list_add (d->note, sizeof d->note, "on a branch beside the steps after it");
  if (s->flags & NN_STEP_JOIN)
    list_add (d->note, sizeof d->note, "after the branch is joined");
  if ((s->flags & NN_STEP_DZ_IN) || s->kind == NN_STEP_CONV_DZ)
    list_add (d->note, sizeof d->note, "from its dz, formed above");
}

NnStatus
_nn_plan_describe (const NnModel *model, const NnPlan *plan, NnLossKind loss, NnPlanStep **out,
                   int32_t *count, NnError *error)
{
  int32_t total = plan->forward_count + plan->backward_count;
  NnPlanStep *steps = calloc ((size_t) (total > 0 ? total : 1), sizeof *steps);

  *out = NULL;
  *count = 0;
  if (steps == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the plan's description");
  for (int32_t i = 0; i < plan->forward_count; i++)
    describe_step (model, &plan->forward[i], false, loss, &steps[i]);
  for (int32_t i = 0; i < plan->backward_count; i++)
    describe_step (model, &plan->backward[i], true, loss, &steps[plan->forward_count + i]);
  *out = steps;
  *count = total;
  return NN_OK;
}

size_t
nn_plan_format (const NnPlanStep *steps, int32_t count, char *out, size_t size)
{
  size_t used = 0;

  if (out != NULL && size > 0)
    out[0] = '\0';
  for (int32_t i = 0; i < count; i++)
    {
      const NnPlanStep *d = &steps[i];
      char range[32], fused[160];
      if (d->first == d->last)
        snprintf (range, sizeof range, "layer %d", (int) d->first);
      else
        snprintf (range, sizeof range, "layers %d-%d", (int) d->first, (int) d->last);
      if (!d->fused)
        fused[0] = '\0';
      else if (d->fused_with[0] != '\0')
        snprintf (fused, sizeof fused, ", %s fused", d->fused_with);
      else
        snprintf (fused, sizeof fused, ", fused");
      int n = snprintf (out != NULL && used < size ? out + used : NULL,
                        out != NULL && used < size ? size - used : 0, "%-8s  %-12s  %s (%s)%s%s%s\n",
                        d->backward ? "backward" : "forward", d->kind, range, d->layers, fused,
                        d->note[0] != '\0' ? "; " : "", d->note);
      if (n > 0)
        used += (size_t) n;
    }
  return used;
}

void
_nn_plan_json (NnJson *j, const NnPlanStep *steps, int32_t count)
{
  _nn_json_begin_array (j);
  for (int32_t i = 0; i < count; i++)
    {
      const NnPlanStep *d = &steps[i];
      _nn_json_begin_object (j);
      _nn_json_key (j, "pass");
      _nn_json_string (j, d->backward ? "backward" : "forward");
      _nn_json_key (j, "kind");
      _nn_json_string_bounded (j, d->kind, sizeof d->kind);
      _nn_json_key (j, "first");
      _nn_json_int (j, d->first);
      _nn_json_key (j, "last");
      _nn_json_int (j, d->last);
      _nn_json_key (j, "layers");
      _nn_json_string_bounded (j, d->layers, sizeof d->layers);
      _nn_json_key (j, "fused");
      _nn_json_bool (j, d->fused);
      _nn_json_key (j, "fused_with");
      _nn_json_string_bounded (j, d->fused_with, sizeof d->fused_with);
      _nn_json_key (j, "note");
      _nn_json_string_bounded (j, d->note, sizeof d->note);
      _nn_json_end_object (j);
    }
  _nn_json_end_array (j);
}
