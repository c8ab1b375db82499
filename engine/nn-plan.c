/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-plan.c: the steps of a pass, and running them.
 *
 * Every fusion of neighbouring layers is decided here, once per plan, from
 * the layer list and the fused steps the backend says it runs
 * (step_supported in nn-backend-abi.h): the rules are the facts in
 * layer_facts, and the steps follow from them in plan_forward and
 * plan_backward. A fused step reaches the backend as an NnBackendStep,
 * made by backend_step for the question when the plan is made and for
 * step_run when it runs. The layers' own ops are their classes'.
 */

#include "nn-plan.h"
#include "nn-os.h"

#include <stdlib.h>
#include <string.h>

bool
_nn_plan_fusion (const NnModel *model)
{
  return model->fusion;
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
  [NN_STEP_CONV] = "conv",
};

const char *
_nn_step_name (NnStepKind kind)
{
  return kind >= 0 && kind < NN_STEP_KINDS ? step_names[kind] : "?";
}

/* ---------------------------------------------------------------- the backend's steps */

static NnStep
step_of (NnStepKind kind, int32_t layer)
{
  return (NnStep){ .kind = kind, .layer = layer, .first = layer, .last = layer, .drop = -1,
                   .other = -1 };
}

/* Whether layer i is a dropout that drops in this pass. */
static bool
active_dropout (const NnModel *model, int32_t i, const NnPass *pass)
{
  return pass->training && i < model->count && model->layers[i]->klass == &_nn_dropout_class
         && model->layers[i]->spec.rate > 0.0f;
}

/* The dropout layer `index` as a step's drop (rate 0 for none). */
static void
drop_of (NnModel *model, int32_t index, NnBackendStep *b)
{
  if (index < 0)
    return;
  NnLayer *d = model->layers[index];
  b->drop.rate = d->spec.rate;
  b->drop.seed = _nn_layer_seed (model, d);
  b->drop.y = d->y;
}

/* The dense layer `index` below, whose dz a step forms in place of its dx:
 * its activation, its output and the dropout above it in this pass. */
static NnBackendBelow
dense_below (NnModel *model, const NnPass *pass, int32_t index)
{
  NnLayer *b = model->layers[index];
  NnBackendStep d = { 0 };
  if (active_dropout (model, index + 1, pass))
    drop_of (model, index + 1, &d);
  return (NnBackendBelow){ .kind = NN_BK_BELOW_DENSE, .act = _nn_layer_act (b, pass),
                           .rate = d.drop.rate, .seed = d.drop.seed, .y = b->y };
}

/* Step s of `plan` (a fused kind) as the backend takes it, in the
 * backward when `backward`: dy and dx are the gradients it reads and
 * writes (when planned, stand-ins of the same kind: NULL where there is
 * none), grad the loss's gradient. */
static void
backend_step (NnModel *model, const NnPlan *plan, const NnStep *s, bool backward, float *dy,
              float *dx, float *grad, NnBackendStep *b)
{
  const NnPass *pass = &plan->pass;
  NnLayer *layer = model->layers[s->layer];

  memset (b, 0, sizeof *b);
  b->backward = backward;
  b->n = pass->n;
  b->act = _nn_layer_act (layer, pass);
  b->step = model->step;
  b->x = layer->x;
  b->w = layer->w;
  b->b = layer->b;
  b->y = layer->y;
  drop_of (model, s->drop, b);
  if (backward)
    {
      b->dy = dy;
      b->dx = dx;
      b->dw = layer->dw;
      b->db = layer->db;
    }
  if (s->flags & NN_STEP_DZ_IN)
    b->flags |= NN_BK_STEP_DZ_IN;
  if (s->flags & NN_STEP_BRANCH)
    b->flags |= NN_BK_STEP_BRANCH;
  if (s->flags & NN_STEP_FORMS_BELOW)
    b->below = dense_below (model, pass, s->other);

  switch (s->kind)
    {
    case NN_STEP_DENSE:
    case NN_STEP_DENSE_UPDATE:
    case NN_STEP_OUTPUT_LOSS:
      b->kind = s->kind == NN_STEP_OUTPUT_LOSS ? NN_BK_STEP_OUTPUT_LOSS : NN_BK_STEP_DENSE;
      b->dense.in = (int32_t) layer->in_size;
      b->dense.out = (int32_t) layer->out_size;
      if (s->kind == NN_STEP_OUTPUT_LOSS)
        {
          b->loss.kind = (int32_t) plan->loss_kind;
          b->loss.labels = model->labels;
          b->loss.targets = model->targets;
          b->loss.grad = grad;
          b->loss.stats = model->stats;
          b->dx = (s->flags & NN_STEP_WITH_DX) ? model->scratch[0] : NULL;
        }
      if (s->kind == NN_STEP_DENSE_UPDATE)
        {
          /* the optimizer's state of w and b, in the model's one arena */
          b->update.opt = pass->update->opt;
          b->update.w_state = model->opt_state != NULL ? model->opt_state + layer->param_offset
                                                       : NULL;
          b->update.b_state = b->update.w_state != NULL ? b->update.w_state + layer->w_count
                                                        : NULL;
          b->update.stride = (size_t) model->state_stride;
          b->update.store_step = (s->flags & NN_STEP_STORES) != 0;
          b->dw = b->db = NULL;
        }
      break;
    case NN_STEP_CONV:
    case NN_STEP_CONV_BELOW:
      b->kind = NN_BK_STEP_CONV;
      b->conv.plan = _nn_conv_plan (layer, pass->n);
      b->conv.workspace = model->workspace;
      if (s->kind == NN_STEP_CONV_BELOW)
        {
          /* the convolution below, the first that learns: its gradients
           * from this one's input gradient, which is never written */
          NnLayer *below = model->layers[s->other];
          b->dx = NULL;
          b->below = (NnBackendBelow){ .kind = NN_BK_BELOW_CONV,
                                       .act = _nn_layer_act (below, pass),
                                       .plan = _nn_conv_plan (below, pass->n),
                                       .x = below->x,
                                       .dw = below->dw,
                                       .db = below->db };
        }
      break;
    case NN_STEP_CONV_POOL:
      {
        /* the step's layer is the pooling; the convolution below it runs too */
        NnLayer *conv = model->layers[s->other];
        b->kind = NN_BK_STEP_CONV;
        b->flags |= NN_BK_STEP_POOLED | NN_BK_STEP_MAXIMA;
        b->act = _nn_layer_act (conv, pass);
        b->x = conv->x;
        b->w = conv->w;
        b->b = conv->b;
        b->conv.plan = _nn_conv_plan (conv, pass->n);
        b->conv.workspace = model->workspace;
        b->pool.mode = _nn_pool_mode (layer);
        b->pool.shape = _nn_pool_shape (layer, pass->n);
        b->pool.argmax = _nn_pool_argmax (layer);
      }
      break;
    case NN_STEP_POOL_DROPOUT:
    case NN_STEP_POOL_ACT:
    case NN_STEP_POOL_ARGMAX:
      b->kind = NN_BK_STEP_POOL;
      b->act = NN_BK_ACT_LINEAR;
      b->w = b->b = b->dw = b->db = NULL;
      b->pool.mode = _nn_pool_mode (layer);
      b->pool.shape = _nn_pool_shape (layer, pass->n);
      if (s->kind == NN_STEP_POOL_ARGMAX)
        {
          b->flags |= NN_BK_STEP_MAXIMA;
          b->pool.argmax = _nn_pool_argmax (layer);
        }
      if (s->other >= 0)
        {
          /* the convolution below: its activation backward and bias gradient */
          NnLayer *conv = model->layers[s->other];
          b->below = (NnBackendBelow){ .kind = NN_BK_BELOW_CONV,
                                       .act = _nn_layer_act (conv, pass),
                                       .db = backward ? conv->db : NULL };
        }
      break;
    default:
      break;
    }
}

/* Whether the backend runs step s of `plan` (its pass, its loss): asked
 * when the plan is made, the gradients stand-ins. */
static bool
runs (NnModel *model, const NnPlan *plan, const NnStep *s, bool backward)
{
  const NnBackendOps *ops = model->backend.ops;
  NnBackendStep b;
  float *dx = backward && !(s->flags & NN_STEP_NO_DX) ? model->scratch[1] : NULL;

  if (ops->step_supported == NULL)
    return false;
  backend_step (model, plan, s, backward, backward ? model->scratch[0] : NULL, dx,
                _nn_model_loss_grad (model, &plan->pass), &b);
  return ops->step_supported (model->backend.ctx, &b) != 0;
}

/* The join of a branch as a step. */
static int
join_branch (NnModel *model)
{
  NnBackendStep b = { .kind = NN_BK_STEP_JOIN };
  return model->backend.ops->step_run (model->backend.ctx, &b);
}

/* ---------------------------------------------------------------- the rules */

/* What the plan knows of each layer in one pass. */
typedef struct
{
  bool dense_fused; /* a dense layer whose fused steps the backend runs */
  int32_t drop;     /* the dropout above that this layer applies, or -1 */
  int32_t applied;  /* a dropout layer: the layer applying it, or -1 */
  bool conv_fwd;    /* a convolution whose forward runs with its bias and activation */
  bool conv_bwd;    /* ... and whose backward runs with its activation's */
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

/* A step of `kind` at layer i applying the dropout `drop` (-1: none), in
 * a plan of `pass` (NO_DX where layer i forms no input gradient). */
static NnStep
candidate (NnStepKind kind, int32_t i, int32_t drop, const Facts *f)
{
  NnStep s = step_of (kind, i);
  s.drop = drop;
  if (f != NULL && !f[i].wants_dx)
    s.flags |= NN_STEP_NO_DX;
  return s;
}

/* A plan of `pass` with nothing in it yet, to ask questions with. */
static NnPlan
asking (const NnPass *pass, NnLossKind loss)
{
  NnPlan p = { .pass = *pass, .fusion = true, .loss = true, .loss_kind = loss };
  return p;
}

/* Whether dense layer i runs as a fused step both ways, applying `drop`. */
static bool
dense_runs (NnModel *model, const NnPlan *p, int32_t i, int32_t drop, const Facts *f)
{
  NnStep s = candidate (NN_STEP_DENSE, i, drop, f);
  return runs (model, p, &s, false) && runs (model, p, &s, true);
}

bool
_nn_plan_dense_updates_itself (NnModel *model, const NnLayer *layer, const NnPass *pass,
                               const NnBackendOptimizer *opt)
{
  NnDenseUpdate update = { .opt = opt, .first = layer->index, .offset = layer->param_offset };
  NnPass with = *pass;
  NnPlan p;
  int32_t drop = active_dropout (model, layer->index + 1, pass) ? layer->index + 1 : -1;

  if (!_nn_plan_fusion (model) || layer->klass != &_nn_dense_class
      || _nn_layer_act (layer, pass) == NN_BK_ACT_SOFTMAX)
    return false;
  with.update = &update;
  p = asking (&with, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY);
  NnStep s = candidate (NN_STEP_DENSE_UPDATE, layer->index, drop, NULL);
  return dense_runs (model, &p, layer->index, drop, NULL) && runs (model, &p, &s, true);
}

/* The facts of every layer: each rule of a fusion in one place. */
static void
layer_facts (NnModel *model, const NnPlan *plan, Facts *f)
{
  const NnPass *pass = &plan->pass;
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
      bool element_wise = _nn_layer_act (layer, pass) != NN_BK_ACT_SOFTMAX;
      int32_t above = active_dropout (model, i + 1, pass) ? i + 1 : -1;
      /* dense: product, bias, activation and the dropout above as one step,
       * or without the dropout where the backend runs only that */
      if (layer->klass == &_nn_dense_class && element_wise)
        {
          if (above >= 0 && dense_runs (model, plan, i, above, f))
            f[i].drop = above;
          f[i].dense_fused = f[i].drop >= 0 || dense_runs (model, plan, i, -1, f);
        }
      /* a convolution with its bias and activation */
      if (layer->klass == &_nn_conv2d_class && element_wise)
        {
          NnStep s = candidate (NN_STEP_CONV, i, -1, f);
          f[i].conv_fwd = runs (model, plan, &s, false);
          f[i].conv_bwd = runs (model, plan, &s, true);
        }
    }
  for (int32_t i = 1; i < model->count; i++)
    {
      NnLayer *layer = model->layers[i];
      NnLayer *below = model->layers[i - 1];
      int32_t above = active_dropout (model, i + 1, pass) ? i + 1 : -1;
      /* a pooling above a convolution does its activation backward; a max
       * pooling whose windows tile its input from its recorded maxima */
      if (!is_pool (layer) || below->klass != &_nn_conv2d_class
          || _nn_layer_act (below, pass) == NN_BK_ACT_SOFTMAX)
        continue;
      NnStep s = candidate (NN_STEP_POOL_ARGMAX, i, -1, f);
      s.other = i - 1;
      f[i].maxima = _nn_pool_argmax (layer) != NULL && runs (model, plan, &s, false)
                    && runs (model, plan, &s, true);
      if (!f[i].maxima)
        s.kind = NN_STEP_POOL_ACT;
      f[i].conv_act = f[i].maxima || runs (model, plan, &s, true);
      if (f[i].conv_act && above >= 0)
        {
          NnStep fwd = s, bwd = s;
          fwd.kind = f[i].maxima ? NN_STEP_POOL_ARGMAX : NN_STEP_POOL_DROPOUT;
          fwd.drop = bwd.drop = above;
          if (runs (model, plan, &fwd, false) && runs (model, plan, &bwd, true))
            f[i].drop = above;
        }
      if (f[i].maxima)
        {
          NnStep c = candidate (NN_STEP_CONV_POOL, i, f[i].drop, f);
          c.other = i - 1;
          f[i].runs_conv = runs (model, plan, &c, false);
        }
    }
  for (int32_t i = 1; i < model->count; i++)
    {
      NnLayer *layer = model->layers[i];
      NnLayer *below = model->layers[i - 1];
      /* a convolution above the first layer that learns, itself a
       * convolution whose input gradient no one needs */
      if (layer->klass == &_nn_conv2d_class && below->klass == &_nn_conv2d_class
          && _nn_layer_act (layer, pass) != NN_BK_ACT_SOFTMAX
          && _nn_layer_act (below, pass) != NN_BK_ACT_SOFTMAX && !f[i - 1].wants_dx)
        {
          NnStep s = candidate (NN_STEP_CONV_BELOW, i, -1, f);
          s.other = s.first = i - 1;
          if (i + 1 < model->count && f[i + 1].conv_act)
            s.flags |= NN_STEP_DZ_IN;
          f[i].runs_below = runs (model, plan, &s, true);
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

/* The output layer's step with the loss, with its input gradient when
 * `with_dx` (and the dz of the dense layer below that updates itself). */
static NnStep
output_step (const NnModel *model, const NnPass *pass, const Facts *f, bool with_dx)
{
  int32_t last = model->count - 1;
  NnStep s = step_of (NN_STEP_OUTPUT_LOSS, last);
  if (with_dx)
    {
      s.flags |= NN_STEP_WITH_DX;
      s.other = updating_below (model, pass, f, last);
      if (s.other >= 0)
        s.flags |= NN_STEP_FORMS_BELOW;
    }
  return s;
}

/* Whether a training pass can form the output layer's input gradient with
 * its loss and run that layer's update on a branch: only where the output
 * layer updates itself, and the branch would run beside something, a
 * layer with parameters below it whose backward comes before the op that
 * stores the step counter. Its gradient alone is short, and beside the
 * layers below it takes multiprocessors from them: on the H200 neither the
 * cnn nor mlp-small gained measurably that way. The step takes a linear
 * output (logits), whose loss gradient is its dz. */
static bool
output_forms_dx (NnModel *model, const NnPlan *plan, const Facts *f)
{
  const NnPass *pass = &plan->pass;
  const NnLayer *last = model->layers[model->count - 1];
  int below = 0;
  bool lowest_stores = false;

  if (!plan->loss || !pass->training || pass->update == NULL
      || last->index < pass->update->first || !f[last->index].dense_fused
      || _nn_layer_act (last, pass) != NN_BK_ACT_LINEAR)
    return false;
  for (int32_t i = 0; i < last->index; i++)
    if (model->layers[i]->w_count + model->layers[i]->b_count > 0 && below++ == 0)
      lowest_stores = _nn_dense_update_stores_step (pass->update, model->layers[i]);
  if (!(below >= 2 || (below == 1 && !lowest_stores)))
    return false;
  /* the loss with the gradient, the update on a branch, and the join */
  NnPlan with = *plan;
  with.pass.output_dx = true;
  NnStep loss = output_step (model, &with.pass, f, true);
  NnStep update = candidate (NN_STEP_DENSE_UPDATE, last->index, -1, NULL);
  update.flags |= NN_STEP_BRANCH | NN_STEP_NO_DX;
  NnBackendStep join = { .kind = NN_BK_STEP_JOIN };
  return runs (model, &with, &loss, false) && runs (model, &with, &update, true)
         && model->backend.ops->step_supported (model->backend.ctx, &join);
}

/* ---------------------------------------------------------------- the steps */

static void
plan_forward (NnModel *model, NnPlan *plan, const Facts *f)
{
  const NnPass *pass = &plan->pass;
  int32_t last = model->count - 1;
  bool fused_loss = false;

  if (plan->loss && plan->fusion && f[last].dense_fused)
    {
      NnStep s = output_step (model, pass, f, pass->output_dx);
      fused_loss = runs (model, plan, &s, false);
    }
  plan->forward_count = 0;
  for (int32_t i = 0; i < model->count; i++)
    {
      NnStep s = step_of (NN_STEP_LAYER, i);
      if (plan->fusion && f[i].applied >= 0)
        continue; /* applied by the layer below */
      if (plan->fusion && i < last && f[i + 1].runs_conv)
        continue; /* run by the pooling above */
      if (i == last && fused_loss)
        s = output_step (model, pass, f, pass->output_dx);
      else if (plan->fusion && f[i].dense_fused)
        s.kind = NN_STEP_DENSE;
      else if (plan->fusion && f[i].runs_conv)
        {
          s.kind = NN_STEP_CONV_POOL;
          s.other = s.first = i - 1;
        }
      else if (plan->fusion && f[i].maxima)
        {
          s.kind = NN_STEP_POOL_ARGMAX;
          s.other = i - 1;
        }
      else if (plan->fusion && f[i].drop >= 0 && f[i].conv_act)
        {
          s.kind = NN_STEP_POOL_DROPOUT;
          s.other = i - 1;
        }
      else if (plan->fusion && f[i].conv_fwd)
        s.kind = NN_STEP_CONV;
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
          else if (f[i].conv_bwd)
            s.kind = NN_STEP_CONV;
        }
      if (s.drop >= 0)
        s.last = s.drop;
      plan->backward[plan->backward_count++] = s;
      if (!need_dx)
        break;
    }
}

NnStatus
_nn_plan_build (NnModel *model, const NnPass *pass, int loss, NnPlan *plan, NnError *error)
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
  plan->pass.output_dx = false;
  plan->fusion = _nn_plan_fusion (model);
  plan->loss = loss != NN_PLAN_NO_LOSS;
  plan->loss_kind = plan->loss ? (NnLossKind) loss : NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY;
  if (!plan->fusion)
    plan->pass.update = NULL;
  layer_facts (model, plan, f);
  plan->pass.output_dx = plan->fusion && output_forms_dx (model, plan, f);
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

/* Whether a step of this kind is one of the backend's fused steps. */
static bool
is_fused (NnStepKind kind)
{
  return kind != NN_STEP_LAYER && kind != NN_STEP_LOSS && kind != NN_STEP_CONV_DZ;
}

static int
run_forward_step (NnModel *model, const NnPlan *plan, const NnStep *s, float *grad)
{
  const NnBackendOps *ops = model->backend.ops;
  const NnPass *pass = &plan->pass;
  NnLayer *layer = model->layers[s->layer];
  NnBackendStep b;

  switch (s->kind)
    {
    case NN_STEP_LAYER:
      return layer->klass->forward (model, layer, pass);
    case NN_STEP_LOSS:
      return ops->loss (model->backend.ctx, (int) plan->loss_kind, layer->y, model->labels,
                        model->targets, grad, model->stats, pass->n, model->classes);
    default:
      backend_step (model, plan, s, false, NULL, NULL, grad, &b);
      return ops->step_run (model->backend.ctx, &b);
    }
}

NnStatus
_nn_plan_forward (NnModel *model, const NnPlan *plan, float *grad, NnError *error)
{
  NnStatus status = _nn_model_prepare (model, plan->pass.n, error);
  char what[64];

  for (int32_t i = 0; i < plan->forward_count && status == NN_OK; i++)
    {
      const NnStep *s = &plan->forward[i];
      int rc = run_forward_step (model, plan, s, grad);
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
  const NnPass *pass = &plan->pass;
  NnLayer *layer = model->layers[s->layer];
  NnBackendStep b;

  switch (s->kind)
    {
    case NN_STEP_LAYER:
      return layer->klass->backward (model, layer, pass, dy, dx);
    case NN_STEP_CONV_DZ:
      return ops->conv2d_backward (model->backend.ctx, _nn_conv_plan (layer, pass->n), layer->x,
                                   layer->w, dy, *dx, layer->dw, model->workspace);
    default:
      backend_step (model, plan, s, true, dy, *dx, NULL, &b);
      return ops->step_run (model->backend.ctx, &b);
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

NnStatus
_nn_plan_backward (NnModel *model, const NnPlan *plan, float **input_grad, NnError *error)
{
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
          /* the output layer's update beside the steps after it, its input
           * gradient formed with the loss already; the backend ends the
           * branch whatever fails, and it is joined below */
          float *no_dx = NULL;
          branched = true;
          status = backward_check (model, s, run_backward_step (model, plan, s,
                                                                model->output_grad, &no_dx),
                                   error);
          dy = model->scratch[0];
          continue;
        }
      /* the branch may read the step counter, which this step stores */
      if ((s->flags & NN_STEP_JOIN) && branched)
        {
          branched = false;
          status = _nn_model_check (model, join_branch (model), "joining a branch", error);
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
      int joined = join_branch (model);
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
  d->fused = is_fused (s->kind);
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
_nn_plan_describe (const NnModel *model, const NnPlan *plan, NnPlanStep **out, int32_t *count,
                   NnError *error)
{
  NnLossKind loss = plan->loss_kind;
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
      bool room = out != NULL && used < size;
      int n = snprintf (room ? out + used : NULL, room ? size - used : 0,
                        "%-8s  %-12s  %s (%s)%s%s%s\n", d->backward ? "backward" : "forward",
                        d->kind, range, d->layers, fused, d->note[0] != '\0' ? "; " : "",
                        d->note);
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
