/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-model-private.h: the layer interface and the insides of NnModel.
 *
 * Shared by nn-model.c, engine/layers/nn-*.c, the plan (nn-plan.h), the
 * trainer's units (nn-trainer-private.h) and the engine tests. Each layer
 * kind is written once against the backend ops.
 */
#pragma once

#include "nn-private.h"

typedef struct NnLayer NnLayer;
typedef struct NnLayerClass NnLayerClass;

/* The optimizer's update done by the dense layers at the top of the model in
 * a training step's backward (the backend's DENSE step with the update), in
 * place of their weight and bias gradients and optimizer_update on them. Their
 * gradients in model->grads are then not written: after a training step
 * nothing reads them (optimizer_update runs on the other parameters only,
 * and gradient checks run passes without an update). Their optimizer state
 * is the model's one arena, model->opt_state, as optimizer_update's is. */
typedef struct
{
  const NnBackendOptimizer *opt; /* borrowed */
  /* every layer with parameters from this index up updates itself */
  int32_t first;
  /* their parameters are the arena's suffix [offset, param_count);
   * optimizer_update takes the prefix [0, offset) */
  int64_t offset;
} NnDenseUpdate;

/* How a forward/backward pass runs. */
typedef struct
{
  int32_t n;      /* rows in this batch, 1..batch_size */
  bool training;  /* dropout active */
  bool logits;    /* the last layer's softmax is left to the loss (cross-entropy) */
  const NnDenseUpdate *update; /* borrowed: a training step's backward, else NULL */
  /* The output layer's input gradient is formed with its loss (the
   * backend's OUTPUT_LOSS step with dx), into scratch[0], and the loss's
   * gradient goes to model->output_grad; the layer's own backward then runs on a branch
   * beside the layers below (set by the plan, nn-plan.c, where it can). */
  bool output_dx;
  /* The model's input gradient is wanted (gradient checks): the first
   * layer that learns forms its input gradient too. Set by
   * _nn_model_backward from its input_grad argument. */
  bool input_grad;
} NnPass;

/* One layer kind: darknet's make_/forward_/backward_ as a small table. */
struct NnLayerClass
{
  NnLayerKind kind;
  size_t instance_size; /* sizeof the kind's struct, which starts with NnLayer */

  /* Set the parameter counts and fans, workspace_bytes and plans for
   * batch_size. Runs after the common fields (shapes, name) are set and
   * before any buffer is assigned. May be NULL. */
  NnStatus (*setup) (NnModel *model, NnLayer *layer, NnError *error);
  /* Make ready for batches of n rows (plans); may allocate. May be NULL. */
  NnStatus (*prepare) (NnModel *model, NnLayer *layer, int32_t n, NnError *error);
  /* Free what setup and prepare made. May be NULL. */
  void (*finalize) (NnModel *model, NnLayer *layer);

  /* y (n, out) from x (n, in). Returns a backend code. */
  int (*forward) (NnModel *model, NnLayer *layer, const NnPass *pass);
  /* From dy (n, out), which it may overwrite: parameter gradients into dw/db
   * (overwritten) and, when *dx is not NULL, the input gradient into *dx
   * (n, in). A layer whose input gradient equals its (modified) dy may set
   * *dx = dy instead of copying. Returns a backend code. */
  int (*backward) (NnModel *model, NnLayer *layer, const NnPass *pass, float *dy, float **dx);
};

/* The common header of every layer; each kind's struct starts with it. */
struct NnLayer
{
  const NnLayerClass *klass; /* borrowed: static */
  NnLayerSpec spec;
  int32_t index;             /* 0-based position in the model */
  bool last;                 /* the model's output layer */
  char name[32];             /* "dense_1" */
  NnShape in, out;
  int64_t in_size, out_size; /* per sample */

  /* set by setup */
  int64_t w_count, b_count;  /* parameters: kernel then bias */
  int64_t fan_in, fan_out;   /* Glorot-uniform limits */
  size_t workspace_bytes;    /* what its plans need in model->workspace */
  bool aliases_input;        /* y is x (flatten) */

  /* set by the model */
  int64_t param_offset;      /* into the arenas */
  float *w, *b;              /* device, into model->params (NULL when none) */
  float *dw, *db;            /* device, into model->grads */
  const float *x;            /* device (batch, in_size): the previous layer's y or model->x */
  float *y;                  /* device (batch, out_size) */
};

/* Whether `layer`'s update is the step's last op, which stores the step
 * counter: the backward ends with the lowest layer with parameters, and no
 * optimizer_update follows when every parameter updates itself (offset 0). */
static inline bool
_nn_dense_update_stores_step (const NnDenseUpdate *update, const NnLayer *layer)
{
  return update->offset == 0 && layer->index == update->first;
}

struct NnModel
{
  NnBackend backend;         /* owned */
  NnSpec *spec;              /* owned copy */
  char *spec_text;           /* owned: canonical text (nn_spec_format) */
  NnInputShape input;
  NnShape in_shape;
  int64_t in_size;           /* per sample */
  int32_t batch_size;
  int32_t classes;           /* outputs of the last layer */
  uint64_t seed;
  bool fusion;               /* passes may run the backend's fused steps (NnConditions.fused);
                              * true as nn_model_new makes it */
  char device_name[32];      /* "cpu:0", "cuda:1": prefix of messages */

  int32_t count;
  NnLayer **layers;          /* (count), owned */
  NnLayerInfo *infos;        /* (count), owned: names, shapes for summaries */

  int64_t param_count;
  float *params;             /* device (param_count): kernel then bias, layer by layer */
  float *grads;              /* device (param_count), same layout */
  void *activations;         /* device: every layer's y, carved */
  float *scratch[2];         /* device (batch, max_size): gradient ping-pong */
  float *output_grad;        /* device (batch, classes): the loss's gradient in a pass with
                              * output_dx, which the output layer's branch reads while the
                              * layers below use both scratch buffers */
  int64_t max_size;          /* largest per-sample size: input and every layer */
  float *x;                  /* device (batch, in_size): the input batch */
  int32_t *labels;           /* device (batch) */
  float *targets;            /* device (batch, classes): one-hot */
  float *opt_state;          /* device (opt_slots, state_stride): the optimizer's state, one
                              * arena for every parameter, slot j of parameter i at
                              * j * state_stride + i; NULL until a run makes it
                              * (_nn_model_optimizer_state) */
  int32_t opt_slots;
  int64_t state_stride;      /* param_count rounded up to whole 256-byte lines, so every
                              * slot starts aligned for vector loads */
  float *stats;              /* device (2): loss sum, correct count */
  int64_t *step;             /* device (1): step counter for dropout and optimizers */
  void *workspace;           /* device (workspace_bytes): shared by conv plans */
  size_t workspace_bytes;

  /* host staging for predict/evaluate/tests */
  float *host_x;             /* (batch, in_size) */
  int32_t *host_labels;      /* (batch) */
  float *host_targets;       /* (batch, classes) */
};

/* The classes of the layer kinds (engine/layers/). */
extern const NnLayerClass _nn_dense_class;
extern const NnLayerClass _nn_conv2d_class;
extern const NnLayerClass _nn_maxpool2d_class;
extern const NnLayerClass _nn_avgpool2d_class;
extern const NnLayerClass _nn_flatten_class;
extern const NnLayerClass _nn_dropout_class;
extern const NnLayerClass _nn_activation_class;

/* The activation a layer applies in this pass: its own, except the last
 * layer's softmax, which is linear in a logits pass. */
static inline int
_nn_layer_act (const NnLayer *layer, const NnPass *pass)
{
  if (pass->logits && layer->last && layer->spec.activation == NN_ACT_SOFTMAX)
    return NN_BK_ACT_LINEAR;
  return (int) layer->spec.activation;
}

/* The seed of a dropout layer: from the model seed and the layer index. */
uint64_t _nn_layer_seed (const NnModel *model, const NnLayer *layer);

/* Where a pass's loss gradient goes and its backward begins. */
static inline float *
_nn_model_loss_grad (const NnModel *model, const NnPass *pass)
{
  return pass->output_dx ? model->output_grad : model->scratch[0];
}

/* What the plan (nn-plan.c) reads of a pooling: its shape at n rows, its
 * mode (0 max, 1 average) and its maxima buffer, NULL when its windows
 * cannot record them (a POOL step with MAXIMA). */
NnPoolShape _nn_pool_shape (const NnLayer *pool, int32_t n);
int _nn_pool_mode (const NnLayer *pool);
uint8_t *_nn_pool_argmax (const NnLayer *pool);

/* The plan of convolution layer `conv` for batches of n rows, or NULL when
 * none was made. */
void *_nn_conv_plan (NnLayer *conv, int32_t n);

/* Make every layer ready for batches of n rows (conv plans); allocation
 * happens here, never in a step. */
NnStatus _nn_model_prepare (NnModel *model, int32_t n, NnError *error);

/* Forward model->x (n rows) through every layer. */
NnStatus _nn_model_forward (NnModel *model, const NnPass *pass, NnError *error);

/* Forward, then the loss of the batch against model->labels / targets:
 * added to model->stats, and d(mean loss)/d(output) into grad when grad is
 * not NULL. The output layer and the loss run as one op where the backend
 * has it. */
NnStatus _nn_model_forward_loss (NnModel *model, const NnPass *pass, NnLossKind loss, float *grad,
                                 NnError *error);

/* Backward from dy (n, classes), which must be at _nn_model_loss_grad; gradients
 * land in model->grads, except those of the layers that pass->update updates
 * instead. When input_grad is not NULL, the gradient with respect to
 * model->x is computed too and *input_grad points at it (device,
 * (n, in_size), valid until the next pass). */
NnStatus _nn_model_backward (NnModel *model, const NnPass *pass, float **input_grad,
                             NnError *error);

/* The output of the last forward: device (n, classes). */
static inline float *
_nn_model_output (NnModel *model)
{
  return model->layers[model->count - 1]->y;
}

/* Whether the model's last layer applies softmax (so its inference output is
 * probabilities). */
bool _nn_model_ends_in_softmax (const NnModel *model);

/* Upload n host rows into model->x (and labels, one-hot targets when labels
 * is not NULL). x is (n, in_size) floats. */
NnStatus _nn_model_upload_batch (NnModel *model, const float *x, const int32_t *labels, int32_t n,
                                 NnError *error);

/* Backend op check with the model's backend. */
static inline NnStatus
_nn_model_check (NnModel *model, int rc, const char *what, NnError *error)
{
  return _nn_backend_check (&model->backend, rc, what, error);
}

/* The state slots per parameter of an optimizer (nn-backend-abi.h):
 * Adam and Adadelta 2, the others 1. */
int32_t _nn_optimizer_slots (NnOptimizerKind kind);

/* The optimizer state of a run with `opt`, in model->opt_state: zero, or
 * Adagrad's initial accumulator in every parameter's slot. Replaces any
 * state a run made before. */
NnStatus _nn_model_optimizer_state (NnModel *model, const NnOptimizer *opt, NnError *error);

/* Allocate device memory or fail with "cuda:0: out of memory for <what>
 * (1.8 GiB) at batch 512; try a smaller batch", or with `hint` in place of
 * the batch advice for what does not depend on the batch size. */
NnStatus _nn_model_alloc (NnModel *model, size_t bytes, const char *what, const char *hint,
                          void **ptr, NnError *error);

/* nn_model_new, checking before it allocates that the model and `extra`
 * (what its caller will allocate for the run: the data set on the device,
 * optimizer state) fit in memory together. */
NnStatus _nn_model_new_with (const NnSpec *spec, NnInputShape input, int32_t batch_size,
                             const NnDeviceOptions *device, uint64_t seed,
                             const NnMemoryNeed *extra, int extra_count, NnModel **out,
                             NnError *error);

/* Tests only: make models on the CPU use `ops` (the CPU table with some
 * slots replaced, e.g. a fake whole-step capture) instead of the CPU table;
 * NULL restores it. The table must work on the CPU backend's context. */
void _nn_model_set_test_ops (const NnBackendOps *ops);

/* ---------------------------------------------------------------- weights files */

/* What the header of a weights file says. */
typedef struct
{
  char *spec_text;       /* owned: the model spec as stored */
  NnInputShape input;
  int64_t count;         /* parameters */
  uint64_t body_offset;  /* where the little-endian floats start */
} NnWeightsHeader;

/* Check a weights file's header from its first `size` bytes (the whole
 * header, or the whole file when shorter), against the file's length
 * `file_size`: magic, version, spec, input shape, and that the file holds
 * exactly the parameters it announces, which are the stored model's.
 * Messages start with `name`. On failure *out is zeroed. */
NnStatus _nn_weights_parse_header (const uint8_t *data, size_t size, uint64_t file_size,
                                   const char *name, NnWeightsHeader *out, NnError *error);

/* nn_model_load from a whole weights file in memory. */
NnStatus _nn_model_load_memory (NnModel *model, const uint8_t *data, size_t size,
                                const char *name, NnError *error);
