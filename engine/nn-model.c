/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-model.c: a model on one backend: layers, flat parameter and gradient
 * arenas, activation buffers, weights files, predict and evaluate.
 *
 * Everything a training step touches is allocated in nn_model_new.
 */

#define _POSIX_C_SOURCE 200809L

#include "nn-model-private.h"
#include "nn-plan.h"
#include "nn-os.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WEIGHTS_MAGIC "TBWEIGHT"
#define WEIGHTS_VERSION 1u
#define WEIGHTS_SPEC_MAX (1u << 20)

/* Activation buffers start on 256-byte boundaries (vector loads on a GPU). */
#define ALIGN_FLOATS 64

/* ---------------------------------------------------------------- helpers */

static const NnBackendOps *test_ops; /* tests only; see _nn_model_set_test_ops */

void
_nn_model_set_test_ops (const NnBackendOps *ops)
{
  test_ops = ops;
}

NnStatus
_nn_model_alloc (NnModel *model, size_t bytes, const char *what, const char *hint, void **ptr,
                 NnError *error)
{
  int rc;
  char size_text[32];

  *ptr = NULL;
  if (bytes == 0)
    bytes = sizeof (float);
  rc = model->backend.ops->alloc (model->backend.ctx, bytes, ptr);
  if (rc == NN_BACKEND_OK && *ptr != NULL)
    return NN_OK;
  *ptr = NULL;
  _nn_format_bytes ((double) bytes, size_text, sizeof size_text);
  if ((rc == NN_BACKEND_OUT_OF_MEMORY || rc == NN_BACKEND_OK) && hint != NULL)
    return _nn_error_set (error, NN_ERROR_DEVICE_MEMORY, "%s: out of memory for %s (%s); %s",
                          model->device_name, what, size_text, hint);
  if (rc == NN_BACKEND_OUT_OF_MEMORY || rc == NN_BACKEND_OK)
    return _nn_error_set (error, NN_ERROR_DEVICE_MEMORY,
                          "%s: out of memory for %s (%s) at batch %d; try a smaller batch",
                          model->device_name, what, size_text, model->batch_size);
  return _nn_model_check (model, rc, what, error);
}

static void
device_free (NnModel *model, void *ptr)
{
  if (ptr != NULL)
    model->backend.ops->free (model->backend.ctx, ptr);
}

uint64_t
_nn_layer_seed (const NnModel *model, const NnLayer *layer)
{
  uint64_t state = model->seed ^ (0xA0761D6478BD642Full * (uint64_t) (layer->index + 1));
  return _nn_splitmix64 (&state);
}

static const NnLayerClass *
class_for_kind (NnLayerKind kind)
{
  switch (kind)
    {
    case NN_LAYER_DENSE: return &_nn_dense_class;
    case NN_LAYER_CONV2D: return &_nn_conv2d_class;
    case NN_LAYER_MAXPOOL2D: return &_nn_maxpool2d_class;
    case NN_LAYER_AVGPOOL2D: return &_nn_avgpool2d_class;
    case NN_LAYER_FLATTEN: return &_nn_flatten_class;
    case NN_LAYER_DROPOUT: return &_nn_dropout_class;
    case NN_LAYER_ACTIVATION: return &_nn_activation_class;
    }
  return NULL;
}

static bool
layer_has_activation (NnLayerKind kind)
{
  return kind == NN_LAYER_DENSE || kind == NN_LAYER_CONV2D || kind == NN_LAYER_ACTIVATION;
}

bool
_nn_model_ends_in_softmax (const NnModel *model)
{
  const NnLayer *last = model->layers[model->count - 1];
  return layer_has_activation (last->spec.kind) && last->spec.activation == NN_ACT_SOFTMAX;
}

/* Glorot-uniform kernel, zero bias, from the seed alone: every backend starts
 * from the same weights. */
static void
init_weights (NnModel *model, float *host)
{
  for (int32_t i = 0; i < model->count; i++)
    {
      NnLayer *layer = model->layers[i];
      uint64_t state = model->seed * 0x2545F4914F6CDD1Dull
                       + (uint64_t) (i + 1) * 0x9E3779B97F4A7C15ull;
      float *w = host + layer->param_offset;
      double limit;

      if (layer->w_count == 0)
        continue;
      limit = sqrt (6.0 / (double) (layer->fan_in + layer->fan_out));
      for (int64_t j = 0; j < layer->w_count; j++)
        {
          double u = (double) (_nn_splitmix64 (&state) >> 11) * (1.0 / 9007199254740992.0);
          w[j] = (float) ((2.0 * u - 1.0) * limit);
        }
      memset (w + layer->w_count, 0, sizeof (float) * (size_t) layer->b_count);
    }
}

static NnSpec *
spec_copy (const NnSpec *spec)
{
  NnSpec *copy = calloc (1, sizeof *copy);
  if (copy == NULL)
    return NULL;
  copy->layers = calloc ((size_t) spec->count, sizeof *copy->layers);
  if (copy->layers == NULL)
    {
      free (copy);
      return NULL;
    }
  copy->count = spec->count;
  memcpy (copy->layers, spec->layers, sizeof *copy->layers * (size_t) spec->count);
  return copy;
}

/* ---------------------------------------------------------------- new / free */

static NnStatus
build_layers (NnModel *model, NnError *error)
{
  NnShape in = model->in_shape;
  NnStatus status;

  model->layers = calloc ((size_t) model->count, sizeof *model->layers);
  if (model->layers == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the layers");

  for (int32_t i = 0; i < model->count; i++)
    {
      const NnLayerSpec *ls = &model->spec->layers[i];
      const NnLayerClass *klass = class_for_kind (ls->kind);
      NnShape out;
      int64_t params = 0;
      NnLayer *layer;

      if (klass == NULL)
        return _nn_error_set (error, NN_ERROR_SPEC, "layer %d: unknown kind %d", i + 1,
                              (int) ls->kind);
      status = _nn_layer_infer (ls, in, &out, &params, error);
      if (status != NN_OK)
        {
          _nn_error_prefix (error, "layer %d (%s)", i + 1, nn_layer_kind_name (ls->kind));
          return status;
        }
      layer = calloc (1, klass->instance_size);
      if (layer == NULL)
        return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the layers");
      model->layers[i] = layer;
      layer->klass = klass;
      layer->spec = *ls;
      layer->index = i;
      layer->last = i == model->count - 1;
      snprintf (layer->name, sizeof layer->name, "%s", model->infos[i].name);
      layer->in = in;
      layer->out = out;
      layer->in_size = _nn_shape_size (in);
      layer->out_size = _nn_shape_size (out);
      if (klass->setup != NULL)
        {
          status = klass->setup (model, layer, error);
          if (status != NN_OK)
            return status;
        }
      if (layer->w_count + layer->b_count != params)
        return _nn_error_set (error, NN_ERROR_SHAPE,
                              "%s: %lld parameters, but shape inference says %lld", layer->name,
                              (long long) (layer->w_count + layer->b_count), (long long) params);
      layer->param_offset = model->param_count;
      model->param_count += params;
      if (layer->out_size > model->max_size)
        model->max_size = layer->out_size;
      if (layer->workspace_bytes > model->workspace_bytes)
        model->workspace_bytes = layer->workspace_bytes;
      in = out;
    }
  model->classes = (int32_t) model->layers[model->count - 1]->out_size;
  return NN_OK;
}

/* Everything allocate_buffers and nn_model_new take, item by item, into
 * needs (room for MODEL_NEEDS); returns how many. Shapes are known
 * (build_layers ran), nothing is allocated yet. */
#define MODEL_NEEDS 12
static int
model_needs (const NnModel *model, NnMemoryNeed *needs)
{
  uint64_t batch = (uint64_t) model->batch_size;
  uint64_t params = (uint64_t) (model->param_count > 0 ? model->param_count : 1);
  uint64_t act_floats = 0;
  int n = 0;

  for (int32_t i = 0; i < model->count; i++)
    if (!model->layers[i]->aliases_input)
      act_floats += (batch * (uint64_t) model->layers[i]->out_size + ALIGN_FLOATS - 1)
                    / ALIGN_FLOATS * ALIGN_FLOATS;
  needs[n++] = (NnMemoryNeed) { "parameters", 4 * params, false, false };
  needs[n++] = (NnMemoryNeed) { "gradients", 4 * params, false, false };
  needs[n++] = (NnMemoryNeed) { "activations", 4 * act_floats, true, false };
  needs[n++] = (NnMemoryNeed) { "the input batch", 4 * batch * (uint64_t) model->in_size, true,
                                false };
  needs[n++] = (NnMemoryNeed) { "labels and targets",
                                batch * (4 + 4 * (uint64_t) model->classes), true, false };
  needs[n++] = (NnMemoryNeed) { "gradient buffers", 2 * 4 * batch * (uint64_t) model->max_size,
                                true, false };
  needs[n++] = (NnMemoryNeed) { "the loss gradient", 4 * batch * (uint64_t) model->classes, true,
                                false };
  needs[n++] = (NnMemoryNeed) { "convolution workspace", model->workspace_bytes, true, false };
  needs[n++] = (NnMemoryNeed) { "host batch buffers",
                                batch * (4 * (uint64_t) model->in_size + 4
                                         + 4 * (uint64_t) model->classes),
                                true, true };
  /* the initial weights are made on the host, then uploaded */
  needs[n++] = (NnMemoryNeed) { "initial weights", 4 * params, false, true };
  return n;
}

static NnStatus
allocate_buffers (NnModel *model, NnError *error)
{
  size_t batch = (size_t) model->batch_size;
  size_t act_floats = 0;
  void *ptr;
  NnStatus status;

  /* parameters and gradients: one flat arena each, same layout */
  status = _nn_model_alloc (model, sizeof (float) * (size_t) model->param_count, "parameters",
                            "the model is too large for this device", &ptr, error);
  if (status != NN_OK)
    return status;
  model->params = ptr;
  status = _nn_model_alloc (model, sizeof (float) * (size_t) model->param_count, "gradients",
                            "the model is too large for this device", &ptr, error);
  if (status != NN_OK)
    return status;
  model->grads = ptr;

  /* activations: every layer's y, carved from one block */
  for (int32_t i = 0; i < model->count; i++)
    if (!model->layers[i]->aliases_input)
      act_floats += (batch * (size_t) model->layers[i]->out_size + ALIGN_FLOATS - 1)
                    / ALIGN_FLOATS * ALIGN_FLOATS;
  status = _nn_model_alloc (model, sizeof (float) * act_floats, "activations", NULL,
                            &model->activations, error);
  if (status != NN_OK)
    return status;

  status = _nn_model_alloc (model, sizeof (float) * batch * (size_t) model->in_size,
                            "input batch", NULL, &ptr, error);
  if (status != NN_OK)
    return status;
  model->x = ptr;
  status = _nn_model_alloc (model, sizeof (int32_t) * batch, "labels", NULL, &ptr, error);
  if (status != NN_OK)
    return status;
  model->labels = ptr;
  status = _nn_model_alloc (model, sizeof (float) * batch * (size_t) model->classes, "targets",
                            NULL, &ptr, error);
  if (status != NN_OK)
    return status;
  model->targets = ptr;

  /* layer pointers */
  {
    float *next = model->activations;
    const float *x = model->x;
    for (int32_t i = 0; i < model->count; i++)
      {
        NnLayer *layer = model->layers[i];
        NnLayer *prev = i > 0 ? model->layers[i - 1] : NULL;
        layer->x = x;
        if (layer->aliases_input)
          layer->y = prev != NULL ? prev->y : model->x;
        else
          {
            layer->y = next;
            next += (batch * (size_t) layer->out_size + ALIGN_FLOATS - 1) / ALIGN_FLOATS
                    * ALIGN_FLOATS;
          }
        if (layer->w_count + layer->b_count > 0)
          {
            layer->w = model->params + layer->param_offset;
            layer->b = layer->w + layer->w_count;
            layer->dw = model->grads + layer->param_offset;
            layer->db = layer->dw + layer->w_count;
          }
        x = layer->y;
      }
  }

  for (int i = 0; i < 2; i++)
    {
      status = _nn_model_alloc (model, sizeof (float) * batch * (size_t) model->max_size,
                                "gradient buffers", NULL, &ptr, error);
      if (status != NN_OK)
        return status;
      model->scratch[i] = ptr;
    }
  status = _nn_model_alloc (model, sizeof (float) * batch * (size_t) model->classes,
                            "the loss gradient", NULL, &ptr, error);
  if (status != NN_OK)
    return status;
  model->output_grad = ptr;
  if (model->workspace_bytes > 0)
    {
      status = _nn_model_alloc (model, model->workspace_bytes, "convolution workspace", NULL,
                                &model->workspace, error);
      if (status != NN_OK)
        return status;
    }
  status = _nn_model_alloc (model, 2 * sizeof (float), "statistics", NULL, &ptr, error);
  if (status != NN_OK)
    return status;
  model->stats = ptr;
  status = _nn_model_alloc (model, sizeof (int64_t), "step counter", NULL, &ptr, error);
  if (status != NN_OK)
    return status;
  model->step = ptr;

  model->host_x = malloc (sizeof (float) * batch * (size_t) model->in_size);
  model->host_labels = malloc (sizeof (int32_t) * batch);
  model->host_targets = malloc (sizeof (float) * batch * (size_t) model->classes);
  if (model->host_x == NULL || model->host_labels == NULL || model->host_targets == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the host batch buffers");
  return NN_OK;
}

NnStatus
nn_model_new (const NnSpec *spec,
              NnInputShape input,
              int32_t batch_size,
              const NnDeviceOptions *device,
              uint64_t seed,
              NnModel **out,
              NnError *error)
{
  return _nn_model_new_with (spec, input, batch_size, device, seed, NULL, 0, out, error);
}

NnStatus
_nn_model_new_with (const NnSpec *spec,
                    NnInputShape input,
                    int32_t batch_size,
                    const NnDeviceOptions *device,
                    uint64_t seed,
                    const NnMemoryNeed *extra,
                    int extra_count,
                    NnModel **out,
                    NnError *error)
{
  NnDeviceOptions default_device = { 0 };
  NnModel *model;
  NnStatus status;
  int64_t total = 0;
  size_t len;
  float *host;

  *out = NULL;
  if (spec == NULL || spec->count <= 0 || spec->layers == NULL)
    return _nn_error_set (error, NN_ERROR_SPEC, "the model has no layers");
  if (batch_size < 1 || batch_size > NN_BATCH_SIZE_MAX)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "batch size %d is out of range (1 to %d)", batch_size,
                          NN_BATCH_SIZE_MAX);
  if (input.channels < 1 || input.height < 1 || input.width < 1)
    return _nn_error_set (error, NN_ERROR_SHAPE, "input shape (%d, %d, %d) is empty",
                          input.channels, input.height, input.width);
  if (device == NULL)
    device = &default_device;

  model = calloc (1, sizeof *model);
  if (model == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the model");
  model->spec = spec_copy (spec);
  model->infos = calloc ((size_t) spec->count, sizeof *model->infos);
  if (model->spec == NULL || model->infos == NULL)
    {
      nn_model_free (model);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the model");
    }
  model->count = spec->count;
  model->input = input;
  model->in_shape.rank = 3;
  model->in_shape.c = input.channels;
  model->in_shape.h = input.height;
  model->in_shape.w = input.width;
  model->in_size = _nn_shape_size (model->in_shape);
  model->max_size = model->in_size;
  model->batch_size = batch_size;
  model->seed = seed;
  model->fusion = true;

  {
    char probe[1];
    len = nn_spec_format (spec, probe, sizeof probe);
  }
  model->spec_text = malloc (len + 1);
  if (model->spec_text == NULL)
    {
      nn_model_free (model);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the model");
    }
  nn_spec_format (spec, model->spec_text, len + 1);

  status = nn_spec_infer (spec, input, model->infos, &total, error);
  if (status != NN_OK)
    {
      nn_model_free (model);
      return status;
    }

  status = _nn_backend_open (device, &model->backend, error);
  if (status != NN_OK)
    {
      nn_model_free (model);
      return status;
    }
  if (test_ops != NULL && device->kind == NN_DEVICE_CPU)
    model->backend.ops = test_ops;
  snprintf (model->device_name, sizeof model->device_name, "%s:%d", model->backend.ops->name,
            model->backend.device.index);

  status = build_layers (model, error);
  if (status == NN_OK)
    {
      /* What the run needs in all, from the shapes, against what is free,
       * before the first large block: a batch too large for the machine
       * fails here with a message, not in the kernel's OOM killer. */
      NnMemoryNeed needs[MODEL_NEEDS + 16];
      int n = model_needs (model, needs);
      for (int i = 0; i < extra_count && n < (int) (sizeof needs / sizeof needs[0]); i++)
        needs[n++] = extra[i];
      status = _nn_memory_check (needs, n, strcmp (model->backend.ops->name, "cpu") == 0,
                                 model->batch_size, model->device_name, error);
    }
  if (status == NN_OK)
    status = allocate_buffers (model, error);
  if (status != NN_OK)
    {
      nn_model_free (model);
      return status;
    }

  host = malloc (sizeof (float) * (size_t) (model->param_count > 0 ? model->param_count : 1));
  if (host == NULL)
    {
      nn_model_free (model);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the initial weights");
    }
  init_weights (model, host);
  status = nn_model_set_weights (model, host, model->param_count, error);
  free (host);
  if (status != NN_OK)
    {
      nn_model_free (model);
      return status;
    }
  *out = model;
  return NN_OK;
}

void
nn_model_free (NnModel *model)
{
  if (model == NULL)
    return;
  if (model->backend.ops != NULL)
    {
      if (model->layers != NULL)
        for (int32_t i = 0; i < model->count; i++)
          if (model->layers[i] != NULL && model->layers[i]->klass->finalize != NULL)
            model->layers[i]->klass->finalize (model, model->layers[i]);
      device_free (model, model->params);
      device_free (model, model->grads);
      device_free (model, model->activations);
      device_free (model, model->scratch[0]);
      device_free (model, model->scratch[1]);
      device_free (model, model->output_grad);
      device_free (model, model->x);
      device_free (model, model->labels);
      device_free (model, model->targets);
      device_free (model, model->opt_state);
      device_free (model, model->stats);
      device_free (model, model->step);
      device_free (model, model->workspace);
      _nn_backend_close (&model->backend);
    }
  if (model->layers != NULL)
    for (int32_t i = 0; i < model->count; i++)
      free (model->layers[i]);
  free (model->layers);
  free (model->infos);
  free (model->host_x);
  free (model->host_labels);
  free (model->host_targets);
  free (model->spec_text);
  if (model->spec != NULL)
    free (model->spec->layers);
  free (model->spec);
  free (model);
}

int64_t
nn_model_param_count (const NnModel *model)
{
  return model->param_count;
}

int32_t
nn_model_output_size (const NnModel *model)
{
  return model->classes;
}

NnStatus
nn_model_get_weights (NnModel *model, float *out, int64_t count, NnError *error)
{
  if (count != model->param_count)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "the model has %lld parameters, not %lld",
                          (long long) model->param_count, (long long) count);
  if (count == 0)
    return NN_OK;
  return _nn_model_check (model,
                          model->backend.ops->download (model->backend.ctx, out, model->params,
                                                        sizeof (float) * (size_t) count),
                          "reading the weights", error);
}

NnStatus
nn_model_set_weights (NnModel *model, const float *in, int64_t count, NnError *error)
{
  if (count != model->param_count)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "the model has %lld parameters, not %lld",
                          (long long) model->param_count, (long long) count);
  if (count == 0)
    return NN_OK;
  return _nn_model_check (model,
                          model->backend.ops->upload (model->backend.ctx, model->params, in,
                                                      sizeof (float) * (size_t) count),
                          "writing the weights", error);
}

/* ---------------------------------------------------------------- optimizer state */

int32_t
_nn_optimizer_slots (NnOptimizerKind kind)
{
  return kind == NN_OPT_ADAM || kind == NN_OPT_ADADELTA ? 2 : 1;
}

NnStatus
_nn_model_optimizer_state (NnModel *model, const NnOptimizer *opt, NnError *error)
{
  int32_t slots = _nn_optimizer_slots (opt->kind);
  int64_t stride = (model->param_count + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
  void *ptr = NULL;
  NnStatus status;

  device_free (model, model->opt_state);
  model->opt_state = NULL;
  status = _nn_model_alloc (model, sizeof (float) * (size_t) slots * (size_t) stride,
                            "optimizer state", "the model is too large for this device", &ptr,
                            error);
  if (status != NN_OK)
    return status;
  model->opt_state = ptr;
  model->opt_slots = slots;
  model->state_stride = stride;
  if (opt->kind == NN_OPT_ADAGRAD && model->param_count > 0)
    status = _nn_model_check (model,
                              model->backend.ops->fill (model->backend.ctx, model->opt_state,
                                                        opt->initial_accumulator,
                                                        (size_t) model->param_count),
                              "optimizer state", error);
  return status;
}

/* ---------------------------------------------------------------- passes */

NnStatus
_nn_model_prepare (NnModel *model, int32_t n, NnError *error)
{
  if (n < 1 || n > model->batch_size)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "a batch of %d rows does not fit the model's batch size %d", n,
                          model->batch_size);
  for (int32_t i = 0; i < model->count; i++)
    {
      NnLayer *layer = model->layers[i];
      if (layer->klass->prepare != NULL)
        {
          NnStatus status = layer->klass->prepare (model, layer, n, error);
          if (status != NN_OK)
            return status;
        }
    }
  return NN_OK;
}

/* A pass through a plan made for it: the trainer keeps its steps' plans;
 * predict, evaluate and the gradient checks make one for each pass. */
static NnStatus
run_pass (NnModel *model, const NnPass *pass, bool loss, NnLossKind kind, float *grad,
          bool backward, float **input_grad, NnError *error)
{
  NnPlan plan;
  NnStatus status = _nn_plan_build (model, pass, loss ? (int) kind : NN_PLAN_NO_LOSS, &plan,
                                    error);

  if (status != NN_OK)
    return status;
  if (!backward)
    status = _nn_plan_forward (model, &plan, grad, error);
  else
    status = _nn_plan_backward (model, &plan, input_grad, error);
  _nn_plan_clear (&plan);
  return status;
}

NnStatus
_nn_model_forward (NnModel *model, const NnPass *pass, NnError *error)
{
  return run_pass (model, pass, false, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, NULL, false, NULL,
                   error);
}

NnStatus
_nn_model_forward_loss (NnModel *model, const NnPass *pass, NnLossKind loss, float *grad,
                        NnError *error)
{
  return run_pass (model, pass, true, loss, grad, false, NULL, error);
}

NnStatus
_nn_model_backward (NnModel *model, const NnPass *pass, float **input_grad, NnError *error)
{
  NnPass with_input = *pass;
  with_input.input_grad = input_grad != NULL;
  return run_pass (model, &with_input, false, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, NULL, true,
                   input_grad, error);
}

NnStatus
_nn_model_upload_batch (NnModel *model, const float *x, const int32_t *labels, int32_t n,
                        NnError *error)
{
  const NnBackendOps *ops = model->backend.ops;
  NnStatus status;

  if (n < 1 || n > model->batch_size)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "a batch of %d rows does not fit the model's batch size %d", n,
                          model->batch_size);
  status = _nn_model_check (model,
                            ops->upload (model->backend.ctx, model->x, x,
                                         sizeof (float) * (size_t) n * (size_t) model->in_size),
                            "uploading a batch", error);
  if (status != NN_OK || labels == NULL)
    return status;
  memset (model->host_targets, 0, sizeof (float) * (size_t) n * (size_t) model->classes);
  for (int32_t i = 0; i < n; i++)
    {
      if (labels[i] < 0 || labels[i] >= model->classes)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "label %d is out of range for a model with %d outputs", labels[i],
                              model->classes);
      model->host_targets[(size_t) i * model->classes + labels[i]] = 1.0f;
    }
  status = _nn_model_check (model,
                            ops->upload (model->backend.ctx, model->labels, labels,
                                         sizeof (int32_t) * (size_t) n),
                            "uploading labels", error);
  if (status != NN_OK)
    return status;
  return _nn_model_check (model,
                          ops->upload (model->backend.ctx, model->targets, model->host_targets,
                                       sizeof (float) * (size_t) n * (size_t) model->classes),
                          "uploading targets", error);
}

/* ---------------------------------------------------------------- predict / evaluate */

static NnStatus
check_split (NnModel *model, const NnSplit *split, int32_t first, int32_t count, bool labels,
             NnError *error)
{
  if (split == NULL || (count > 0 && split->images == NULL)
      || (labels && count > 0 && split->labels == NULL))
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no data");
  if (split->channels != model->input.channels || split->height != model->input.height
      || split->width != model->input.width)
    return _nn_error_set (error, NN_ERROR_SHAPE,
                          "the data's images are (%d, %d, %d) but the model takes (%d, %d, %d)",
                          split->channels, split->height, split->width, model->input.channels,
                          model->input.height, model->input.width);
  if (first < 0 || count < 0 || (int64_t) first + count > split->count)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "samples %d to %lld are outside the %d samples there are", first,
                          (long long) first + count, split->count);
  return NN_OK;
}

/* Fill host_x (and host_labels) with n samples from first, scaled to 0..1. */
static void
stage_chunk (NnModel *model, const NnSplit *split, int32_t first, int32_t n)
{
  size_t sample = (size_t) model->in_size;
  const uint8_t *src = split->images + sample * (size_t) first;

  for (size_t i = 0; i < (size_t) n * sample; i++)
    model->host_x[i] = (float) src[i] * (1.0f / 255.0f);
  if (split->labels != NULL)
    for (int32_t i = 0; i < n; i++)
      model->host_labels[i] = split->labels[first + i];
}

NnStatus
nn_model_predict (NnModel *model,
                  const NnSplit *split,
                  int32_t first,
                  int32_t count,
                  float *probs,
                  NnError *error)
{
  const NnBackendOps *ops = model->backend.ops;
  NnStatus status = check_split (model, split, first, count, false, error);

  if (status == NN_OK && count > 0 && probs == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no place for the predictions");

  for (int32_t done = 0; status == NN_OK && done < count; done += model->batch_size)
    {
      int32_t n = count - done < model->batch_size ? count - done : model->batch_size;
      NnPass pass = { .n = n, .training = false, .logits = false };
      float *out;

      stage_chunk (model, split, first + done, n);
      status = _nn_model_upload_batch (model, model->host_x, NULL, n, error);
      if (status == NN_OK)
        status = _nn_model_forward (model, &pass, error);
      if (status != NN_OK)
        break;
      out = _nn_model_output (model);
      if (!_nn_model_ends_in_softmax (model))
        {
          /* the outputs are logits: turn them into probabilities */
          status = _nn_model_check (model,
                                    ops->bias_act_forward (model->backend.ctx, NN_BK_ACT_SOFTMAX,
                                                           out, NULL, n, model->classes, 1),
                                    "softmax", error);
          if (status != NN_OK)
            break;
        }
      status = _nn_model_check (model,
                                ops->download (model->backend.ctx,
                                               probs + (size_t) done * model->classes, out,
                                               sizeof (float) * (size_t) n * model->classes),
                                "reading predictions", error);
    }
  return status;
}

NnStatus
nn_model_evaluate (NnModel *model,
                   const NnSplit *split,
                   NnLossKind loss,
                   float *loss_out,
                   float *accuracy_out,
                   NnError *error)
{
  const NnBackendOps *ops = model->backend.ops;
  float stats[2] = { 0.0f, 0.0f };
  NnStatus status = check_split (model, split, 0, split != NULL ? split->count : 0, true, error);

  if (status != NN_OK)
    return status;
  if (split->count == 0)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no samples to evaluate on");
  if ((int) loss < 0 || loss > NN_LOSS_MEAN_SQUARED_ERROR)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "unknown loss %d", (int) loss);
  status = _nn_model_check (model, ops->fill (model->backend.ctx, model->stats, 0.0f, 2),
                            "clearing statistics", error);
  for (int32_t done = 0; status == NN_OK && done < split->count; done += model->batch_size)
    {
      int32_t n = split->count - done < model->batch_size ? split->count - done : model->batch_size;
      NnPass pass = { .n = n, .training = false, .logits = loss != NN_LOSS_MEAN_SQUARED_ERROR };

      stage_chunk (model, split, done, n);
      status = _nn_model_upload_batch (model, model->host_x, model->host_labels, n, error);
      if (status == NN_OK)
        status = _nn_model_forward_loss (model, &pass, loss, NULL, error);
    }
  if (status == NN_OK)
    status = _nn_model_check (model,
                              ops->download (model->backend.ctx, stats, model->stats, sizeof stats),
                              "reading statistics", error);
  if (status != NN_OK)
    return status;
  if (loss_out != NULL)
    *loss_out = stats[0] / (float) split->count;
  if (accuracy_out != NULL)
    *accuracy_out = stats[1] / (float) split->count;
  return NN_OK;
}

/* ---------------------------------------------------------------- weights files */

static void
put_u32 (uint8_t *p, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

static uint32_t
get_u32 (const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static void
put_u64 (uint8_t *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

static uint64_t
get_u64 (const uint8_t *p)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

NnStatus
nn_model_save (NnModel *model, const char *path, NnError *error)
{
  size_t spec_len = strlen (model->spec_text);
  size_t count = (size_t) model->param_count;
  uint8_t header[16];
  uint8_t shape[20];
  uint8_t *body = NULL;
  float *weights = NULL;
  NnAtomicFile af;
  NnStatus status;

  if (path == NULL || path[0] == '\0')
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no file name for the weights");
  weights = malloc (sizeof (float) * (count > 0 ? count : 1));
  body = malloc (4 * (count > 0 ? count : 1));
  if (weights == NULL || body == NULL)
    {
      free (weights);
      free (body);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the weights");
    }
  status = nn_model_get_weights (model, weights, model->param_count, error);
  if (status != NN_OK)
    {
      free (weights);
      free (body);
      return status;
    }
  for (size_t i = 0; i < count; i++)
    {
      uint32_t bits;
      memcpy (&bits, &weights[i], 4);
      put_u32 (body + 4 * i, bits);
    }
  free (weights);

  memcpy (header, WEIGHTS_MAGIC, 8);
  put_u32 (header + 8, WEIGHTS_VERSION);
  put_u32 (header + 12, (uint32_t) spec_len);
  put_u32 (shape, (uint32_t) model->input.channels);
  put_u32 (shape + 4, (uint32_t) model->input.height);
  put_u32 (shape + 8, (uint32_t) model->input.width);
  put_u64 (shape + 12, (uint64_t) count);

  /* an atomic file: a failed save never damages an existing one */
  status = _nn_atomic_file_open (&af, path, false, error);
  if (status != NN_OK)
    {
      free (body);
      return status;
    }

  /* One save to a file at a time, and a save reports success only for a
   * file that holds its own weights: two runs that finish together and save
   * to one path used to both say "saved" while the file held one of them.
   * The lock file beside the target lives as long as the save. */
  void *lock = NULL;
  if (!af.through)
    {
      char lock_path[sizeof af.target + 8];
      int e = 0;
      snprintf (lock_path, sizeof lock_path, "%s.lock", af.target);
      lock = _nn_os_lock_try (lock_path, &e);
      if (lock == NULL)
        {
          _nn_atomic_file_abort (&af);
          free (body);
          if (e == EBUSY)
            return _nn_error_set (error, NN_ERROR_IO,
                                  "%s: another save to this file is in progress; these weights "
                                  "were not saved",
                                  path);
          return _nn_error_set (error, NN_ERROR_IO, "%s: cannot lock the file for saving (%s): %s",
                                path, lock_path, strerror (e));
        }
      af.confirm = true;
    }
  _nn_atomic_file_write (&af, header, sizeof header);
  _nn_atomic_file_write (&af, model->spec_text, spec_len);
  _nn_atomic_file_write (&af, shape, sizeof shape);
  _nn_atomic_file_write (&af, body, 4 * count);
  free (body);
  status = _nn_atomic_file_commit (&af, error);
  _nn_os_lock_release (lock);
  return status;
}

NnStatus
_nn_weights_parse_header (const uint8_t *data, size_t size, uint64_t file_size, const char *name,
                          NnWeightsHeader *out, NnError *error)
{
  uint32_t version, spec_len;
  uint64_t n, body;
  NnSpec *spec = NULL;
  NnError parse_error;
  int64_t params = 0;

  memset (out, 0, sizeof *out);
  if (size > file_size)
    size = (size_t) file_size;
  if (size < 8 && memcmp (data, WEIGHTS_MAGIC, size) == 0)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: truncated header (%zu bytes)", name, size);
  if (size < 8 || memcmp (data, WEIGHTS_MAGIC, 8) != 0)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: not a Trainbench weights file (bad magic)", name);
  if (size < 16)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: truncated header (%zu bytes)", name, size);
  version = get_u32 (data + 8);
  if (version != WEIGHTS_VERSION)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: weights file version %u is not supported (this build reads "
                          "version %u)",
                          name, version, WEIGHTS_VERSION);
  spec_len = get_u32 (data + 12);
  if (spec_len == 0 || spec_len > WEIGHTS_SPEC_MAX)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: bad model spec length %u", name, spec_len);
  if (size < 16 + (size_t) spec_len)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: truncated model spec", name);
  if (memchr (data + 16, '\0', spec_len) != NULL)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: the model spec holds a NUL byte", name);
  if (size < 16 + (size_t) spec_len + 20)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: truncated input shape", name);
  const uint8_t *shape = data + 16 + spec_len;
  out->input.channels = (int32_t) get_u32 (shape);
  out->input.height = (int32_t) get_u32 (shape + 4);
  out->input.width = (int32_t) get_u32 (shape + 8);
  if (out->input.channels < 1 || out->input.height < 1 || out->input.width < 1
      || out->input.channels > 65536 || out->input.height > 65536 || out->input.width > 65536)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: bad input shape (%d, %d, %d)", name,
                          out->input.channels, out->input.height, out->input.width);
  n = get_u64 (shape + 12);
  if (n > (uint64_t) INT64_MAX / 4)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: bad parameter count", name);

  /* The file's length says how many weights it holds: checked before any
   * model is built for them (an 88-byte file naming a large model must not
   * cost the memory of that model first). */
  out->body_offset = 16 + (uint64_t) spec_len + 20;
  body = file_size - out->body_offset;
  if (body < 4 * n)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: truncated: %llu bytes of weights, fewer than the %llu parameters "
                          "it announces (%llu bytes)",
                          name, (unsigned long long) body, (unsigned long long) n,
                          (unsigned long long) (4 * n));
  if (body > 4 * n)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: %llu bytes of unexpected data after the weights", name,
                          (unsigned long long) (body - 4 * n));

  out->spec_text = malloc ((size_t) spec_len + 1);
  if (out->spec_text == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory");
  memcpy (out->spec_text, data + 16, spec_len);
  out->spec_text[spec_len] = '\0';

  /* and the model it names has that many parameters */
  nn_error_clear (&parse_error);
  NnStatus status = nn_spec_parse (out->spec_text, &spec, &parse_error);
  if (status == NN_OK)
    status = nn_spec_infer (spec, out->input, NULL, &params, &parse_error);
  nn_spec_free (spec);
  if (status != NN_OK)
    status = _nn_error_set (error, NN_ERROR_FORMAT, "%s: the stored model spec is bad: %s", name,
                            parse_error.message);
  else if ((uint64_t) params != n)
    status = _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: the file holds %llu parameters but its model '%s' has %lld",
                            name, (unsigned long long) n, out->spec_text, (long long) params);
  if (status != NN_OK)
    {
      free (out->spec_text);
      out->spec_text = NULL;
      return status;
    }
  out->count = (int64_t) n;
  return NN_OK;
}

/* The header of the weights file `f` (of `file_size` bytes), read whole and
 * checked (_nn_weights_parse_header); leaves f at the start of the floats. */
static NnStatus
read_header (FILE *f, uint64_t file_size, const char *path, NnWeightsHeader *out, NnError *error)
{
  size_t want = 16 + WEIGHTS_SPEC_MAX + 20;
  if (want > file_size)
    want = (size_t) file_size;
  uint8_t *head = malloc (want > 0 ? want : 1);
  if (head == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory");
  size_t got = fread (head, 1, want, f);
  if (got < want && ferror (f))
    {
      free (head);
      return _nn_error_set (error, NN_ERROR_IO, "%s: cannot read: %s", path, strerror (errno));
    }
  /* a file that shrank since it was opened is as long as what it gave */
  NnStatus status = _nn_weights_parse_header (head, got, got < want ? got : file_size, path, out,
                                              error);
  free (head);
  if (status == NN_OK && fseek (f, (long) out->body_offset, SEEK_SET) != 0)
    {
      free (out->spec_text);
      out->spec_text = NULL;
      status = _nn_error_set (error, NN_ERROR_IO, "%s: cannot seek: %s", path, strerror (errno));
    }
  return status;
}

/* Open a weights file: a regular file only (a FIFO would block, /dev/zero
 * never end), its size from the OS. */
static FILE *
open_weights (const char *path, uint64_t *size, NnError *error)
{
  const char *not_regular = NULL;
  FILE *f = _nn_os_open_regular (path, size, &not_regular);
  if (f == NULL && not_regular != NULL)
    _nn_error_set (error, NN_ERROR_IO, "%s: not a regular file (%-s)", path, not_regular);
  else if (f == NULL)
    _nn_error_set (error, NN_ERROR_IO, "%s: cannot open: %s", path, strerror (errno));
  return f;
}

NnStatus
nn_weights_file_peek (const char *path, char **spec_text, NnInputShape *input, NnError *error)
{
  FILE *f;
  uint64_t size = 0;
  NnWeightsHeader header;
  NnStatus status;

  *spec_text = NULL;
  if (path == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no weights file given");
  f = open_weights (path, &size, error);
  if (f == NULL)
    return error != NULL ? error->code : NN_ERROR_IO;
  status = read_header (f, size, path, &header, error);
  fclose (f);
  if (status != NN_OK)
    return status;
  *spec_text = header.spec_text;
  if (input != NULL)
    *input = header.input;
  return NN_OK;
}

/* Whether the header's model is `model`'s: same canonical spec, same input. */
static NnStatus
check_header_model (NnModel *model, const NnWeightsHeader *header, const char *name,
                    NnError *error)
{
  NnSpec *spec = NULL;
  NnError parse_error;
  char *canonical;
  size_t len;
  NnStatus status = NN_OK;

  /* compare specs in canonical form, so spacing and defaults do not matter */
  nn_error_clear (&parse_error);
  if (nn_spec_parse (header->spec_text, &spec, &parse_error) != NN_OK)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: the stored model spec is bad: %s", name,
                          parse_error.message);
  {
    char probe[1];
    len = nn_spec_format (spec, probe, sizeof probe);
  }
  canonical = malloc (len + 1);
  if (canonical == NULL)
    {
      nn_spec_free (spec);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory");
    }
  nn_spec_format (spec, canonical, len + 1);
  nn_spec_free (spec);
  if (strcmp (canonical, model->spec_text) != 0)
    status = _nn_error_set (error, NN_ERROR_SHAPE,
                            "%s: the weights are for the model '%s', not '%s'", name, canonical,
                            model->spec_text);
  else if (header->input.channels != model->input.channels
           || header->input.height != model->input.height
           || header->input.width != model->input.width)
    status = _nn_error_set (error, NN_ERROR_SHAPE,
                            "%s: the weights are for inputs of (%d, %d, %d), not (%d, %d, %d)",
                            name, header->input.channels, header->input.height,
                            header->input.width, model->input.channels, model->input.height,
                            model->input.width);
  else if (header->count != model->param_count)
    status = _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: the file holds %lld parameters but the model has %lld", name,
                            (long long) header->count, (long long) model->param_count);
  free (canonical);
  return status;
}

/* The little-endian floats of `body` (count of them) into the model. */
static NnStatus
set_weights_le (NnModel *model, const uint8_t *body, int64_t count, NnError *error)
{
  float *weights = malloc (sizeof (float) * (size_t) (count > 0 ? count : 1));
  if (weights == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the weights");
  for (int64_t i = 0; i < count; i++)
    {
      uint32_t bits = get_u32 (body + 4 * i);
      memcpy (&weights[i], &bits, 4);
    }
  NnStatus status = nn_model_set_weights (model, weights, count, error);
  free (weights);
  return status;
}

NnStatus
_nn_model_load_memory (NnModel *model, const uint8_t *data, size_t size, const char *name,
                       NnError *error)
{
  NnWeightsHeader header;
  NnStatus status = _nn_weights_parse_header (data, size, size, name, &header, error);
  if (status != NN_OK)
    return status;
  status = check_header_model (model, &header, name, error);
  if (status == NN_OK)
    status = set_weights_le (model, data + header.body_offset, header.count, error);
  free (header.spec_text);
  return status;
}

NnStatus
nn_model_load (NnModel *model, const char *path, NnError *error)
{
  FILE *f;
  uint64_t size = 0;
  NnWeightsHeader header;
  uint8_t *body = NULL;
  NnStatus status;

  if (path == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no weights file given");
  f = open_weights (path, &size, error);
  if (f == NULL)
    return error != NULL ? error->code : NN_ERROR_IO;
  status = read_header (f, size, path, &header, error);
  if (status != NN_OK)
    {
      fclose (f);
      return status;
    }
  status = check_header_model (model, &header, path, error);
  if (status == NN_OK)
    {
      /* the length was checked against the file's: this much and no more */
      body = malloc (4 * (size_t) (header.count > 0 ? header.count : 1));
      if (body == NULL)
        status = _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the weights");
      else if (fread (body, 4, (size_t) header.count, f) != (size_t) header.count)
        status = _nn_error_set (error, NN_ERROR_FORMAT,
                                "%s: truncated: fewer than the %lld parameters it announces",
                                path, (long long) header.count);
    }
  if (status == NN_OK)
    status = set_weights_le (model, body, header.count, error);
  fclose (f);
  free (body);
  free (header.spec_text);
  return status;
}
