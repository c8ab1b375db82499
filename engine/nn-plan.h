/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-plan.h: the steps of a forward, backward and update pass, made once
 * from the layer list and the fused steps the backend runs (nn-plan.c).
 *
 * The plan decides every fusion of neighbouring layers; a layer's own
 * forward and backward know nothing about the layers around it.
 */
#pragma once

#include "nn-json.h"
#include "nn-model-private.h"

/* What a step runs: a layer's own ops, or one fused step of the backend
 * (NnBackendStep, its kind in brackets). */
typedef enum
{
  NN_STEP_LAYER,        /* one layer's own ops: its class's forward or backward */
  NN_STEP_LOSS,         /* forward: the loss op on the output */
  NN_STEP_DENSE,        /* [DENSE] with the dropout above when drop >= 0 */
  NN_STEP_DENSE_UPDATE, /* backward: [DENSE] with the optimizer's update */
  NN_STEP_OUTPUT_LOSS,  /* forward: [OUTPUT_LOSS], the output layer and the loss */
  NN_STEP_POOL_DROPOUT, /* forward: [POOL] with the dropout above */
  NN_STEP_POOL_ACT,     /* backward: [POOL] with the convolution's activation backward */
  NN_STEP_POOL_ARGMAX,  /* [POOL] recording its maxima / working from them (as POOL_ACT) */
  NN_STEP_CONV_POOL,    /* forward: [CONV] with the pooling above, POOLED */
  NN_STEP_CONV_DZ,      /* backward: conv2d_backward from dz, the activation done above */
  NN_STEP_CONV_BELOW,   /* backward: [CONV] with the convolution below's gradients */
  NN_STEP_CONV,         /* [CONV]: the convolution with its bias and activation */
  NN_STEP_KINDS
} NnStepKind;

/* Step flags. */
enum
{
  NN_STEP_DZ_IN = 1u << 0,       /* the gradient it is handed is dz already */
  NN_STEP_FORMS_BELOW = 1u << 1, /* its dx is the dz of `other`, the dense layer below */
  NN_STEP_STORES = 1u << 2,      /* its update stores the step counter */
  NN_STEP_BRANCH = 1u << 3,      /* runs on a branch beside the steps after it */
  NN_STEP_JOIN = 1u << 4,        /* the branch is joined before it */
  NN_STEP_NO_DX = 1u << 5,       /* forms no input gradient: the backward ends with it */
  NN_STEP_WITH_DX = 1u << 6,     /* OUTPUT_LOSS: forms the layer's input gradient too */
};

typedef struct
{
  NnStepKind kind;
  int32_t layer;       /* the layer whose op it is */
  int32_t first, last; /* the layers it covers */
  int32_t drop;        /* the dropout layer it applies, or -1 */
  int32_t other;       /* the convolution (POOL_*, CONV_POOL, CONV_BELOW) or dense layer
                        * (FORMS_BELOW) below whose work it does, or -1 */
  uint32_t flags;
} NnStep;

/* _nn_plan_build's `loss` for a forward without one. */
#define NN_PLAN_NO_LOSS (-1)

typedef struct
{
  NnPass pass;         /* what it was made for; output_dx set by the plan */
  bool fusion;         /* fused steps allowed */
  bool loss;           /* the forward ends with the loss ... */
  NnLossKind loss_kind; /* ... of this kind */
  int32_t forward_count, backward_count;
  NnStep *forward;     /* (layers + 1), owned: in order */
  NnStep *backward;    /* (layers), owned: from the top down */
} NnPlan;

/* Whether the model's passes fuse neighbouring layers: model->fusion, which
 * a run sets from NnConditions.fused (off: every layer runs its own ops and
 * the optimizer updates every parameter at once). */
bool _nn_plan_fusion (const NnModel *model);

/* Whether `layer` can apply the optimizer's update `opt` in its backward in
 * a training pass on pass->n rows (a dense layer whose fused backward with
 * the update the backend runs, and says pays). */
bool _nn_plan_dense_updates_itself (NnModel *model, const NnLayer *layer, const NnPass *pass,
                                    const NnBackendOptimizer *opt);

/* The plan of `pass`, its forward ending with the loss of kind `loss`
 * (an NnLossKind, or NN_PLAN_NO_LOSS), made from the model's layers and
 * the steps its backend runs. */
NnStatus _nn_plan_build (NnModel *model, const NnPass *pass, int loss, NnPlan *plan,
                         NnError *error);
void _nn_plan_clear (NnPlan *plan);

/* Run the plan's forward (model->x, pass.n rows); with the loss, into
 * model->stats and d(mean loss)/d(output) into grad when not NULL. */
NnStatus _nn_plan_forward (NnModel *model, const NnPlan *plan, float *grad, NnError *error);
/* Run its backward from _nn_model_loss_grad (model, &plan->pass); *input_grad
 * as _nn_model_backward gives it. */
NnStatus _nn_plan_backward (NnModel *model, const NnPlan *plan, float **input_grad,
                            NnError *error);

/* The name of a step kind ("dense", "conv_pool"), as NnPlanStep has it. */
const char *_nn_step_name (NnStepKind kind);

/* The plan's steps as NnPlanStep (*out malloc'd, *count of them), the
 * forward's then the backward's. */
NnStatus _nn_plan_describe (const NnModel *model, const NnPlan *plan, NnPlanStep **out,
                            int32_t *count, NnError *error);

/* Those steps as a JSON array (the result file's "plan"). */
void _nn_plan_json (NnJson *json, const NnPlanStep *steps, int32_t count);
