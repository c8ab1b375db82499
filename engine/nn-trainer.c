/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-trainer.c: the trainer and its loop: the run's settings checked
 * against the data set and the model, the set-up of a run (its passes
 * planned once), the forward/loss/backward/update steps (replayed as one
 * captured graph where the backend can), progress, evaluation after each
 * epoch and the run result. Where the batches come from is
 * nn-trainer-feed.c's, how the steps are timed nn-trainer-timing.c's.
 */

#define _POSIX_C_SOURCE 200809L

#include "nn-trainer-private.h"
#include "nn-os.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Full-batch steps captured into one graph where the backend captures
 * (NnConditions.graph turns graphs on or off). Between two replayed graphs
 * the GPU waits for the next launch to be set up, and a kernel cannot
 * start early across that boundary, so a graph of several steps runs a
 * short step faster; TRAINBENCH_GRAPH_STEPS sets how many, for
 * comparisons. */
#define GRAPH_STEPS_DEFAULT 8
#define GRAPH_STEPS_MAX 64

struct NnTrainer
{
  NnTrainConfig config;        /* spec_text and model_name point into the fields below */
  char *spec_text;             /* owned */
  char model_name[64];
  const NnDataset *dataset;    /* borrowed: must outlive the trainer */
  NnSpec *spec;                /* owned */
  NnInputShape input;
  int64_t params;
  NnModel *model;              /* owned: built by nn_trainer_run */
  NnProgressCallback progress; /* borrowed */
  void *progress_data;
  atomic_int cancel;
};

void
nn_train_config_init (NnTrainConfig *config)
{
  memset (config, 0, sizeof *config);
  config->optimizer = nn_optimizer_defaults (NN_OPT_ADAM);
  config->loss = NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY;
  config->batch_size = 32;
  config->epochs = 10;
  config->seed = 42;
  config->device.kind = NN_DEVICE_CPU;
  config->device.index = 0;
  config->device.threads = 0;
  config->device.tf32 = false;
  config->progress_every = 0;
  config->max_steps = 0;
  config->conditions = nn_conditions_default ();
  config->breakdown = true;
  config->warmup_steps = 0;
  config->skip_evaluation = false;
}

/* ---------------------------------------------------------------- conditions */

NnConditions
nn_conditions_default (void)
{
  NnConditions c = { .data = NN_DATA_DEVICE, .graph = true, .loss_every_step = false,
                     .fused = true };
  return c;
}

NnConditions
nn_conditions_article (void)
{
  /* Keras fed each batch from NumPy arrays (ordinary, pageable memory)
   * through feed_dict, TensorFlow 1 launched every op of the step itself,
   * the progress bar read the loss after every batch, and the ops were
   * not fused. */
  NnConditions c = { .data = NN_DATA_PAGEABLE, .graph = false, .loss_every_step = true,
                     .fused = false };
  return c;
}

bool
nn_conditions_equal (const NnConditions *a, const NnConditions *b)
{
  return a->data == b->data && a->graph == b->graph && a->loss_every_step == b->loss_every_step
         && a->fused == b->fused;
}

const char *
nn_conditions_name (const NnConditions *conditions)
{
  NnConditions d = nn_conditions_default (), a = nn_conditions_article ();

  if (nn_conditions_equal (conditions, &d))
    return "default";
  if (nn_conditions_equal (conditions, &a))
    return "article";
  return "custom";
}

static const char *const data_on_names[] = { "device", "pinned", "pageable" };

const char *
nn_data_on_name (NnDataOn data)
{
  return (int) data >= 0 && data <= NN_DATA_PAGEABLE ? data_on_names[data] : "device";
}

NnStatus
nn_data_on_from_name (const char *name, NnDataOn *out, NnError *error)
{
  for (int i = 0; i <= NN_DATA_PAGEABLE; i++)
    if (name != NULL && strcmp (name, data_on_names[i]) == 0)
      {
        *out = (NnDataOn) i;
        return NN_OK;
      }
  return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                        "unknown place for the data \"%s\" (device, pinned or pageable)",
                        name != NULL ? name : "");
}

/* ---------------------------------------------------------------- validation */

static NnStatus
check_split (const NnSplit *split, const char *which, NnError *error)
{
  if (split->count <= 0)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "the data set's %-s split is empty",
                          which);
  if (split->images == NULL || split->labels == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "the data set's %-s split has no images or labels", which);
  if (split->channels < 1 || split->height < 1 || split->width < 1)
    return _nn_error_set (error, NN_ERROR_SHAPE, "the data set's %-s images are (%d, %d, %d)",
                          which, split->channels, split->height, split->width);
  return NN_OK;
}

/* How many distinct labels the data set's samples use. When every class
 * 0 .. classes - 1 has a sample, its largest label is its class count and a
 * model with fewer outputs is what is wrong; otherwise a label far off the
 * others (255 in a 10-class file) is more likely damage than a class. */
static int32_t
distinct_labels (const NnDataset *dataset)
{
  bool seen[256] = { false };
  const NnSplit *splits[2] = { &dataset->train, &dataset->test };
  int32_t distinct = 0;

  for (int s = 0; s < 2; s++)
    for (int32_t i = 0; i < splits[s]->count; i++)
      if (!seen[splits[s]->labels[i]])
        {
          seen[splits[s]->labels[i]] = true;
          distinct++;
        }
  return distinct;
}

/* The first sample whose label the model's `outputs` cannot hold, named
 * with its file and index. */
static NnStatus
label_out_of_range (const NnDataset *dataset, int32_t outputs, int32_t distinct, NnError *error)
{
  const NnSplit *splits[2] = { &dataset->train, &dataset->test };
  static const char *const names[2] = { NN_MESSAGE ("training"), NN_MESSAGE ("test") };

  for (int s = 0; s < 2; s++)
    for (int32_t i = 0; i < splits[s]->count; i++)
      if (splits[s]->labels[i] >= outputs)
        {
          const char *source = splits[s]->labels_source[0] != '\0' ? splits[s]->labels_source
                                                                    : dataset->path;
          return _nn_error_set (error, NN_ERROR_FORMAT,
                                "%s: %-s sample %d has label %d, but the model has %d outputs "
                                "(labels 0 to %d); the data set's labels use only %d of the "
                                "values 0 to %d, so this one looks damaged",
                                source, names[s], i, splits[s]->labels[i], outputs, outputs - 1,
                                distinct, dataset->classes - 1);
        }
  return _nn_error_set (error, NN_ERROR_SHAPE, "the model has %d outputs, fewer than the %d "
                        "classes", outputs, dataset->classes);
}

/* The settings of a run that need no data set, each in its range. */
static NnStatus
check_config (const NnTrainConfig *config, NnError *error)
{
  if (config == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no training configuration");
  if (config->spec_text == NULL || config->spec_text[0] == '\0')
    return _nn_error_set (error, NN_ERROR_SPEC, "no model spec given");
  if (config->batch_size < 1 || config->batch_size > NN_BATCH_SIZE_MAX)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "batch size %d is out of range (1 to %d)", config->batch_size,
                          NN_BATCH_SIZE_MAX);
  if (config->epochs < 1 || config->epochs > NN_EPOCHS_MAX)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "epochs %d is out of range (1 to %d)", config->epochs, NN_EPOCHS_MAX);
  if (config->progress_every < 0)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "progress interval %d is negative", config->progress_every);
  if (config->max_steps < 0)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "step limit %d is negative",
                          config->max_steps);
  if (config->warmup_steps < 0)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "warm-up of %d steps is negative",
                          config->warmup_steps);
  if (config->max_steps > 0 && config->warmup_steps >= config->max_steps)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "warm-up of %d steps leaves none of the step limit %d to measure",
                          config->warmup_steps, config->max_steps);
  if ((int) config->loss < 0 || config->loss > NN_LOSS_MEAN_SQUARED_ERROR)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "unknown loss %d", (int) config->loss);
  if (config->device.kind != NN_DEVICE_CPU && config->device.kind != NN_DEVICE_CUDA)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "unknown device kind %d",
                          (int) config->device.kind);
  if (config->device.threads < 0 || config->device.threads > NN_THREADS_MAX)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "thread count %d is out of range (0 = all cores, at most %d)",
                          config->device.threads, NN_THREADS_MAX);
  if (config->device.index < 0)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "device index %d is negative",
                          config->device.index);
  if ((int) config->conditions.data < 0 || config->conditions.data > NN_DATA_PAGEABLE)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "unknown place for the data %d",
                          (int) config->conditions.data);
  return nn_optimizer_validate (&config->optimizer, error);
}

NnStatus
nn_trainer_new (const NnTrainConfig *config,
                const NnDataset *dataset,
                NnTrainer **out,
                NnError *error)
{
  NnTrainer *trainer;
  NnSpec *spec = NULL;
  NnLayerInfo *infos;
  NnStatus status;
  NnInputShape input;
  int64_t params = 0;
  int32_t outputs;

  *out = NULL;
  status = check_config (config, error);
  if (status != NN_OK)
    return status;
  if (dataset == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no data set");

  status = check_split (&dataset->train, NN_MESSAGE ("training"), error);
  if (status == NN_OK)
    status = check_split (&dataset->test, NN_MESSAGE ("test"), error);
  if (status != NN_OK)
    return status;
  if (dataset->test.channels != dataset->train.channels
      || dataset->test.height != dataset->train.height
      || dataset->test.width != dataset->train.width)
    return _nn_error_set (error, NN_ERROR_SHAPE,
                          "the data set's training images are (%d, %d, %d) but its test images "
                          "are (%d, %d, %d)",
                          dataset->train.channels, dataset->train.height, dataset->train.width,
                          dataset->test.channels, dataset->test.height, dataset->test.width);
  if (dataset->classes < 2 || dataset->classes > 65536)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "the data set has %d classes; at least 2 are needed", dataset->classes);
  for (int32_t i = 0; i < dataset->train.count; i++)
    if (dataset->train.labels[i] >= dataset->classes)
      return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                            "training label %d of sample %d is not below the %d classes",
                            dataset->train.labels[i], i, dataset->classes);
  for (int32_t i = 0; i < dataset->test.count; i++)
    if (dataset->test.labels[i] >= dataset->classes)
      return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                            "test label %d of sample %d is not below the %d classes",
                            dataset->test.labels[i], i, dataset->classes);

  status = nn_spec_parse (config->spec_text, &spec, error);
  if (status != NN_OK)
    return status;
  input.channels = dataset->train.channels;
  input.height = dataset->train.height;
  input.width = dataset->train.width;
  infos = calloc ((size_t) spec->count, sizeof *infos);
  if (infos == NULL)
    {
      nn_spec_free (spec);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory");
    }
  status = nn_spec_infer (spec, input, infos, &params, error);
  if (status != NN_OK)
    {
      free (infos);
      nn_spec_free (spec);
      return status;
    }
  {
    const NnLayerInfo *last = &infos[spec->count - 1];
    outputs = _nn_spec_outputs (last);
    int32_t distinct = last->rank == 1 && outputs < dataset->classes ? distinct_labels (dataset)
                                                                      : dataset->classes;
    if (distinct < dataset->classes)
      status = label_out_of_range (dataset, outputs, distinct, error);
    else
      status = _nn_spec_check_outputs (last, dataset->classes, error);
    if (status != NN_OK)
      {
        free (infos);
        nn_spec_free (spec);
        return status;
      }
  }
  free (infos);

  trainer = calloc (1, sizeof *trainer);
  if (trainer != NULL)
    trainer->spec_text = strdup (config->spec_text);
  if (trainer == NULL || trainer->spec_text == NULL)
    {
      free (trainer);
      nn_spec_free (spec);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory");
    }
  trainer->config = *config;
  trainer->config.spec_text = trainer->spec_text;
  snprintf (trainer->model_name, sizeof trainer->model_name, "%s",
            config->model_name != NULL ? config->model_name : "");
  trainer->config.model_name = config->model_name != NULL ? trainer->model_name : NULL;
  trainer->dataset = dataset;
  trainer->spec = spec;
  trainer->input = input;
  trainer->params = params;
  atomic_init (&trainer->cancel, 0);
  *out = trainer;
  return NN_OK;
}

void
nn_trainer_free (NnTrainer *trainer)
{
  if (trainer == NULL)
    return;
  nn_model_free (trainer->model);
  nn_spec_free (trainer->spec);
  free (trainer->spec_text);
  free (trainer);
}

void
nn_trainer_set_progress (NnTrainer *trainer, NnProgressCallback callback, void *user_data)
{
  trainer->progress = callback;
  trainer->progress_data = user_data;
}

void
nn_trainer_cancel (NnTrainer *trainer)
{
  if (trainer != NULL)
    atomic_store (&trainer->cancel, 1);
}

NnModel *
nn_trainer_model (NnTrainer *trainer)
{
  return trainer->model;
}

/* ---------------------------------------------------------------- set-up */

/* GRAPH_STEPS_DEFAULT, or TRAINBENCH_GRAPH_STEPS when it is a number from
 * 1 to GRAPH_STEPS_MAX. */
static int32_t
graph_steps_wanted (void)
{
  char env[32];
  char *end;
  long v;

  if (!_nn_os_getenv ("TRAINBENCH_GRAPH_STEPS", env, sizeof env) || env[0] == '\0')
    return GRAPH_STEPS_DEFAULT;
  v = strtol (env, &end, 10);
  if (*end != '\0' || v < 1 || v > GRAPH_STEPS_MAX)
    return GRAPH_STEPS_DEFAULT;
  return (int32_t) v;
}

/* The pass of a training step on n rows. */
static NnPass
training_pass (const NnTrainConfig *config, int32_t n)
{
  NnPass pass = { .n = n,
                  .training = true,
                  .logits = config->loss != NN_LOSS_MEAN_SQUARED_ERROR };
  return pass;
}

/* The optimizer's settings as the backends take them. */
static NnBackendOptimizer
backend_optimizer (const NnOptimizer *o)
{
  NnBackendOptimizer opt = {
    .kind = (int32_t) o->kind,
    .nesterov = o->nesterov,
    .lr = o->lr,
    .momentum = o->momentum,
    .beta1 = o->beta1,
    .beta2 = o->beta2,
    .rho = o->rho,
    .epsilon = o->epsilon,
  };
  return opt;
}

/* Finds the dense layers at the top of the model that apply the optimizer's
 * update in their backward: the highest layers with parameters, as far down
 * as every one of them can and the backend says it pays at the run's batch
 * size (update->offset is param_count when the top one cannot: the step
 * then updates every parameter with optimizer_update). The arena is laid
 * out in layer order, so theirs are its suffix [P, param_count) and the
 * prefix [0, P) is left to optimizer_update; both keep their state in the
 * model's one arena. */
static void
find_dense_update (NnModel *model, const NnTrainConfig *config, const NnBackendOptimizer *opt,
                   NnDenseUpdate *update)
{
  NnPass pass = training_pass (config, model->batch_size);

  update->opt = opt;
  update->first = model->count;
  update->offset = model->param_count;
  for (int32_t i = model->count - 1; i >= 0; i--)
    {
      NnLayer *layer = model->layers[i];
      if (layer->w_count + layer->b_count == 0)
        continue;
      if (!_nn_plan_dense_updates_itself (model, layer, &pass, opt))
        break;
      update->first = i;
      update->offset = layer->param_offset;
    }
}

/* The plan of a training step on n rows, with the update found above. */
static NnStatus
training_plan (NnModel *model, const NnTrainConfig *config, int32_t n,
               const NnDenseUpdate *update, NnPlan *plan, NnError *error)
{
  NnPass pass = training_pass (config, n);
  pass.update = update->offset < model->param_count ? update : NULL;
  return _nn_plan_build (model, &pass, (int) config->loss, plan, error);
}

NnStatus
nn_train_plan (const NnTrainConfig *config, NnInputShape input, NnPlanStep **steps,
               int32_t *count, NnError *error)
{
  NnSpec *spec = NULL;
  NnModel *model = NULL;
  NnPlan plan;
  NnDenseUpdate update;
  NnStatus status;

  *steps = NULL;
  *count = 0;
  status = check_config (config, error);
  if (status == NN_OK)
    status = nn_spec_parse (config->spec_text, &spec, error);
  if (status == NN_OK)
    status = nn_model_new (spec, input, config->batch_size, &config->device, config->seed,
                           &model, error);
  nn_spec_free (spec);
  if (status != NN_OK)
    return status;
  model->fusion = config->conditions.fused;
  NnBackendOptimizer opt = backend_optimizer (&config->optimizer);
  find_dense_update (model, config, &opt, &update);
  status = training_plan (model, config, model->batch_size, &update, &plan, error);
  if (status == NN_OK)
    status = _nn_plan_describe (model, &plan, steps, count, error);
  _nn_plan_clear (&plan);
  nn_model_free (model);
  return status;
}

/* The plan of the evaluation's forward on n test rows, with the loss. */
static NnStatus
evaluation_plan (NnModel *model, const NnTrainConfig *config, int32_t n, NnPlan *plan,
                 NnError *error)
{
  NnPass pass = { .n = n, .training = false,
                  .logits = config->loss != NN_LOSS_MEAN_SQUARED_ERROR };
  return _nn_plan_build (model, &pass, (int) config->loss, plan, error);
}

/* Everything the steps use, made before the first: the data in place, the
 * optimizer's state, every pass planned, the counters at zero and the
 * records' room; whether steps are captured, and how many at once. */
static NnStatus
run_setup (NnTrainRun *run, NnError *error)
{
  const NnDataset *ds = run->dataset;
  const NnTrainConfig *config = run->config;
  NnModel *model = run->model;
  NnStatus status;

  status = _nn_feed_setup (run, error);
  if (status != NN_OK)
    return status;

  /* the optimizer's state, one arena of the model whoever applies the update */
  status = _nn_model_optimizer_state (model, &config->optimizer, error);
  if (status != NN_OK)
    return status;
  run->opt = backend_optimizer (&config->optimizer);
  find_dense_update (model, config, &run->opt, &run->update);

  /* the odd batch sizes this run will see, prepared now; the evaluation's
   * passes planned once, as the training's below: on a full test batch (or
   * the whole test set, when it is smaller than one) and on the last */
  if (run->remainder > 0)
    {
      status = _nn_model_prepare (model, run->remainder, error);
      if (status != NN_OK)
        return status;
    }
  if (!config->skip_evaluation)
    {
      int32_t test = ds->test.count;
      status = evaluation_plan (model, config, test < model->batch_size ? test : model->batch_size,
                                &run->eval_full, error);
      if (status == NN_OK && test > model->batch_size && test % model->batch_size != 0)
        status = evaluation_plan (model, config, test % model->batch_size, &run->eval_rest,
                                  error);
      if (status != NN_OK)
        return status;
    }

  /* the steps of every training step, decided once, and what they are
   * for the result */
  status = training_plan (model, config, model->batch_size, &run->update, &run->plan_full, error);
  if (status == NN_OK && run->remainder > 0)
    status = training_plan (model, config, run->remainder, &run->update, &run->plan_rest, error);
  if (status == NN_OK)
    status = _nn_plan_describe (model, &run->plan_full, &run->plan_steps,
                                &run->plan_step_count, error);
  if (status != NN_OK)
    return status;

  /* counters */
  {
    int64_t zero = 0;
    status = _nn_model_check (model,
                              run->ops->upload (run->backend->ctx, model->step, &zero, sizeof zero),
                              "step counter", error);
    if (status != NN_OK)
      return status;
  }
  status = _nn_model_check (model, run->ops->fill (run->backend->ctx, model->stats, 0.0f, 2),
                            "statistics", error);
  if (status != NN_OK)
    return status;

  status = _nn_timing_setup (run, error);
  if (status != NN_OK)
    return status;
  run->epochs = calloc ((size_t) config->epochs, sizeof *run->epochs);
  if (run->epochs == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the run's records");
  run->can_capture = config->conditions.graph && run->ops->capture_begin != NULL
                     && run->ops->capture_end != NULL && run->ops->graph_launch != NULL
                     && run->ops->graph_free != NULL;
  run->graph_steps = run->can_capture ? graph_steps_wanted () : 1;
  /* A batch copied from the host, or the loss read back, between every two
   * steps: each step is a graph of its own. */
  if (run->feed.data != NN_DATA_DEVICE || run->loss_every_step)
    run->graph_steps = 1;
  if (run->graph_steps > run->progress_every)
    run->graph_steps = run->progress_every;
  /* A chosen interval is made of whole graphs: the cnn's 11 steps (235 an
   * epoch) were a graph of 8 and three of one, each one more launch and one
   * more boundary a kernel cannot start early across. */
  if (config->progress_every == 0 && run->graph_steps > 1)
    run->progress_every = (run->progress_every + run->graph_steps - 1) / run->graph_steps
                          * run->graph_steps;
  return NN_OK;
}

static void
run_free (NnTrainRun *run)
{
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend != NULL ? run->backend->ctx : NULL;

  if (ops != NULL)
    {
      if (run->graph != NULL)
        ops->graph_free (ctx, run->graph);
      if (run->graph_many != NULL)
        ops->graph_free (ctx, run->graph_many);
    }
  _nn_feed_free (run);
  _nn_plan_clear (&run->plan_full);
  _nn_plan_clear (&run->plan_rest);
  _nn_plan_clear (&run->eval_full);
  _nn_plan_clear (&run->eval_rest);
  free (run->plan_steps);
  _nn_timing_free (run);
  free (run->epochs);
}

/* ---------------------------------------------------------------- steps */

static NnStatus
read_stats (NnTrainRun *run, float out[2], NnError *error)
{
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend->ctx;
  NnStatus status;
  /* the download of the sums and the wait for it: "sync_wait" */
  int back = _nn_clock_enter (NN_BREAKDOWN_SYNC_WAIT);

  if (ops->download_async != NULL)
    {
      status = _nn_model_check (run->model,
                                ops->download_async (ctx, run->stats_host, run->model->stats,
                                                     sizeof run->stats_host),
                                "reading statistics", error);
      if (status == NN_OK)
        status = _nn_model_check (run->model, ops->synchronize (ctx), "reading statistics", error);
    }
  else
    status = _nn_model_check (run->model,
                              ops->download (ctx, run->stats_host, run->model->stats,
                                             sizeof run->stats_host),
                              "reading statistics", error);
  _nn_clock_leave (back);
  if (status != NN_OK)
    return status;
  out[0] = run->stats_host[0];
  out[1] = run->stats_host[1];
  back = _nn_clock_enter_from (NN_BREAKDOWN_HOST, run->async ? NN_BREAKDOWN_LAUNCH
                                                             : NN_BREAKDOWN_HOST);
  status = _nn_model_check (run->model, ops->fill (ctx, run->model->stats, 0.0f, 2),
                            "clearing statistics", error);
  _nn_clock_leave (back);
  return status;
}

/* The ops of one training step on n rows; nothing here allocates or waits. */
static NnStatus
step_ops (NnTrainRun *run, int32_t n, NnError *error)
{
  NnModel *model = run->model;
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend->ctx;
  const NnPlan *plan = n == model->batch_size ? &run->plan_full : &run->plan_rest;
  int64_t prefix = run->update.offset;
  NnStatus status;

  /* the batch gathered on the device, when the data set is there; one from
   * the host is in place already (_nn_feed_host_batch) */
  status = _nn_feed_device_batch (run, n, error);
  if (status != NN_OK)
    return status;
  /* d(mean loss)/d(output) (n, classes); the fused dense layers update
   * their parameters as they go */
  status = _nn_plan_forward (model, plan, _nn_model_loss_grad (model, &plan->pass),
                             error);
  if (status != NN_OK)
    return status;
  status = _nn_plan_backward (model, plan, NULL, error);
  if (status != NN_OK)
    return status;
  /* the rest, the arena's prefix, at once */
  if (prefix == 0)
    return NN_OK;
  return _nn_model_check (model,
                          ops->optimizer_update (ctx, &run->opt, model->params, model->grads,
                                                 model->opt_state, (size_t) prefix,
                                                 (size_t) model->state_stride, model->step),
                          "optimizer update", error);
}

/* Records `count` steps of a full batch into one graph; NULL when the
 * backend could not. */
static void *
capture_steps (NnTrainRun *run, int32_t count)
{
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend->ctx;
  NnError capture_error;
  NnStatus captured = NN_OK;
  void *graph = NULL;

  nn_error_clear (&capture_error);
  if (ops->capture_begin (ctx) != 0)
    return NULL;
  for (int32_t i = 0; i < count && captured == NN_OK; i++)
    captured = step_ops (run, run->model->batch_size, &capture_error);
  if (ops->capture_end (ctx, &graph) == 0 && captured == NN_OK && graph != NULL)
    return graph;
  if (graph != NULL)
    ops->graph_free (ctx, graph);
  return NULL;
}

/* `count` steps (1, or graph_steps of a full batch): plain, or replayed
 * from a captured graph. The first full batch runs plainly (warm-up: lazy
 * library set-up must not land in a capture), the second is captured, and
 * the graph of graph_steps steps is captured the first time it is asked
 * for. A failed capture falls back to plain steps for the rest of the run,
 * or to the one-step graph where only the longer one failed. */
static NnStatus
train_steps (NnTrainRun *run, int32_t n, int32_t count, int32_t step_in_epoch, NnError *error)
{
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend->ctx;
  bool full = n == run->model->batch_size;
  NnStatus status = NN_OK;

  /* from the host, one batch at a time (graph_steps is 1), outside any graph */
  status = _nn_feed_host_batch (run, n, step_in_epoch, error);
  if (status != NN_OK)
    return status;

  if (full && run->can_capture && !run->capture_failed && run->full_steps >= 1)
    {
      if (run->graph == NULL && (run->graph = capture_steps (run, 1)) == NULL)
        run->capture_failed = true;
      if (count > 1 && run->graph != NULL && run->graph_many == NULL
          && (run->graph_many = capture_steps (run, count)) == NULL)
        run->graph_steps = 1;
    }
  if (full && count > 1 && run->graph_many != NULL)
    {
      run->full_steps += count;
      return _nn_model_check (run->model, ops->graph_launch (ctx, run->graph_many),
                              "replaying steps", error);
    }
  for (int32_t i = 0; i < count && status == NN_OK; i++)
    {
      if (full && run->graph != NULL)
        status = _nn_model_check (run->model, ops->graph_launch (ctx, run->graph),
                                  "replaying a step", error);
      else
        status = step_ops (run, n, error);
      if (status == NN_OK && full)
        run->full_steps++;
    }
  return status;
}

/* train_steps, its host time the step's "launch" part on an asynchronous
 * backend, and its device time a span of the backend's timer
 * (_nn_timing_launch_begin says which). */
static NnStatus
timed_steps (NnTrainRun *run, int32_t n, int32_t count, int32_t step_in_epoch, NnError *error)
{
  if (!run->timing.breakdown || !run->async)
    return train_steps (run, n, count, step_in_epoch, error);
  int back = _nn_timing_launch_begin (run, count);
  NnStatus status = train_steps (run, n, count, step_in_epoch, error);
  _nn_timing_launch_end (run, count, back);
  return status;
}

/* How many steps the loop may run as one: graph_steps where that many full
 * batches remain before the next progress report, the epoch's last batch
 * and max_steps, else 1. */
static int32_t
steps_at_once (const NnTrainRun *run, int64_t step, int64_t interval_first, int32_t step_in_epoch)
{
  int64_t room = run->progress_every - (step - interval_first);
  int64_t full_left = run->steps_per_epoch - step_in_epoch - (run->remainder > 0);
  const NnTrainConfig *config = run->config;

  if (run->graph_steps <= 1 || run->graph == NULL)
    return 1;
  if (full_left < room)
    room = full_left;
  if (config->max_steps > 0 && config->max_steps - step < room)
    room = config->max_steps - step;
  if (step < config->warmup_steps && config->warmup_steps - step < room)
    room = config->warmup_steps - step;
  return room >= run->graph_steps ? run->graph_steps : 1;
}

/* ---------------------------------------------------------------- evaluation */

/* The loss and accuracy on the test set, in batches of the model's batch
 * size through the passes planned in run_setup. */
static NnStatus
evaluate_test (NnTrainRun *run, float *loss_out, float *accuracy_out, NnError *error)
{
  NnModel *model = run->model;
  const NnSplit *test = &run->dataset->test;
  float stats[2];
  NnStatus status = NN_OK;

  for (int32_t done = 0; status == NN_OK && done < test->count; done += model->batch_size)
    {
      int32_t n = test->count - done < model->batch_size ? test->count - done : model->batch_size;
      const NnPlan *plan = n == run->eval_full.pass.n ? &run->eval_full : &run->eval_rest;

      status = _nn_feed_test_batch (run, done, n, error);
      if (status == NN_OK)
        status = _nn_plan_forward (model, plan, NULL, error);
    }
  if (status == NN_OK)
    status = read_stats (run, stats, error);
  if (status != NN_OK)
    return status;
  *loss_out = stats[0] / (float) test->count;
  *accuracy_out = stats[1] / (float) test->count;
  return NN_OK;
}

/* ---------------------------------------------------------------- the run */

static void
fill_result_start (NnTrainer *trainer, NnRunResult *result)
{
  const NnDataset *ds = trainer->dataset;

  memset (result, 0, sizeof *result);
  result->status = NN_RUN_FAILED;
  result->config = trainer->config;
  result->conditions = trainer->config.conditions;
  result->conditions.graph = false; /* until a graph is replayed */
  snprintf (result->spec_text, sizeof result->spec_text, "%s", trainer->spec_text);
  snprintf (result->model_name, sizeof result->model_name, "%s", trainer->model_name);
  result->config.spec_text = result->spec_text;
  result->config.model_name = trainer->config.model_name != NULL ? result->model_name : NULL;
  snprintf (result->dataset_name, sizeof result->dataset_name, "%s", ds->name);
  snprintf (result->dataset_path, sizeof result->dataset_path, "%s", ds->path);
  result->train_samples = ds->train.count;
  result->test_samples = ds->test.count;
  result->params = trainer->params;
  result->device.kind = trainer->config.device.kind;
  result->device.index = trainer->config.device.index;
  snprintf (result->device.name, sizeof result->device.name, "%s",
            trainer->config.device.kind == NN_DEVICE_CPU ? "CPU" : "CUDA GPU");
}

static void
fill_result_end (NnTrainRun *run, NnRunResult *result, double t_entry)
{
  if (run->model != NULL)
    {
      result->device = run->model->backend.device;
      result->params = run->model->param_count;
    }
  result->epoch_count = run->epoch_count;
  if (run->epoch_count > 0)
    {
      result->epochs = malloc (sizeof *result->epochs * (size_t) run->epoch_count);
      if (result->epochs != NULL)
        memcpy (result->epochs, run->epochs, sizeof *result->epochs * (size_t) run->epoch_count);
      else
        result->epoch_count = 0;
    }
  result->step_count = run->steps_done;
  _nn_timing_result (run, result);
  result->conditions = run->config->conditions;
  result->conditions.graph = run->graph != NULL || run->graph_many != NULL;
  result->plan = run->plan_steps;
  result->plan_count = run->plan_step_count;
  run->plan_steps = NULL;
  run->plan_step_count = 0;
  result->total_seconds = _nn_now () - t_entry;
  result->time_to_first_step_seconds = run->first_step_end > 0 ? run->first_step_end - t_entry : 0;
}

static bool
report (NnTrainRun *run, NnProgress *progress)
{
  NnTrainer *trainer = run->trainer;
  if (trainer->progress == NULL)
    return true;
  return trainer->progress (progress, trainer->progress_data);
}

/* Marks the run cancelled and says where it stopped. */
static NnStatus
cancelled_at (NnTrainRun *run, int64_t step, int32_t epoch, NnError *error)
{
  run->cancelled = true;
  return _nn_error_set (error, NN_ERROR_CANCELLED, "training was cancelled at step %lld (epoch %d)",
                        (long long) step, epoch);
}

/* Where the loop stands: the run's step and training time, the epoch's
 * sums, and the interval since the last progress report. */
typedef struct
{
  int32_t epoch;
  int64_t step;
  int32_t step_in_epoch;
  bool stop;                /* max_steps reached */
  double train_seconds;     /* training time of all epochs so far, evaluation excluded */
  double epoch_seconds, epoch_loss, epoch_correct, epoch_samples;
  double interval_start;
  int64_t interval_first;
  double interval_samples;
} Tally;

/* A progress report's fields that say where the run stands. */
static void
progress_at (const NnTrainRun *run, const Tally *t, NnProgressKind kind, NnProgress *p)
{
  memset (p, 0, sizeof *p);
  p->kind = kind;
  p->epoch = t->epoch;
  p->epochs = run->config->epochs;
  p->step = t->step;
  p->steps_per_epoch = run->steps_per_epoch;
  p->total_steps = run->total_steps;
  p->step_in_epoch = t->step_in_epoch;
}

/* loss_every_step: the step's loss and accuracy read back at once (the
 * download waits for the step), as Keras' progress bar read them after
 * every batch; a loss that is no longer finite stops the run at its step. */
static NnStatus
read_step_stats (NnTrainRun *run, const Tally *t, NnError *error)
{
  float stats[2];
  NnStatus status = read_stats (run, stats, error);

  if (status != NN_OK)
    return status;
  if (!isfinite (stats[0]))
    return _nn_error_set (error, NN_ERROR_DIVERGED,
                          "loss became %-s at step %lld (epoch %d); try a lower "
                          "learning rate",
                          isnan (stats[0]) ? "NaN" : NN_MESSAGE ("infinite"),
                          (long long) t->step + 1, t->epoch);
  run->stats_sum[0] += stats[0];
  run->stats_sum[1] += stats[1];
  return NN_OK;
}

/* The interval since the last report is over: its loss and accuracy read
 * from the device, the step times of an asynchronous run, a report. */
static NnStatus
end_interval (NnTrainRun *run, Tally *t, double t_entry, NnError *error)
{
  const NnTrainConfig *config = run->config;
  int64_t interval_steps = t->step - t->interval_first;
  float stats[2];
  double now, interval_seconds;
  float loss, accuracy;
  NnProgress p;
  NnStatus status;

  if (run->async && run->timing.breakdown)
    {
      int back = _nn_clock_enter (NN_BREAKDOWN_LAUNCH);
      _nn_timing_span_end (run);
      _nn_clock_leave (back);
    }
  /* The next epoch's order, while the device still has this interval's
   * steps to run: the shuffle then costs no time of its own there. */
  if (run->async && t->epoch < config->epochs && !t->stop)
    _nn_feed_order_ahead (run, t->epoch + 1);
  if (run->loss_every_step)
    {
      /* read after each step already (read_step_stats) */
      stats[0] = (float) run->stats_sum[0];
      stats[1] = (float) run->stats_sum[1];
      run->stats_sum[0] = run->stats_sum[1] = 0.0;
    }
  else
    {
      status = read_stats (run, stats, error);
      if (status != NN_OK)
        return status;
    }
  if (run->async && run->timing.breakdown)
    {
      _nn_timing_stop (run);
      _nn_timing_read_device (run);
    }
  now = _nn_now ();
  interval_seconds = now - t->interval_start;
  if (run->async && run->timing.breakdown)
    _nn_timing_close (run, t->interval_first + 1, interval_steps);
  if (!run->step_clock)
    for (int64_t i = 0; i < interval_steps; i++)
      _nn_timing_step (run, t->interval_first + 1 + i,
                       interval_seconds / (double) interval_steps);
  t->epoch_seconds += interval_seconds;
  t->train_seconds += interval_seconds;

  loss = stats[0] / (float) t->interval_samples;
  accuracy = stats[1] / (float) t->interval_samples;
  if (!isfinite (loss))
    return _nn_error_set (error, NN_ERROR_DIVERGED,
                          "loss became %-s at step %lld (epoch %d); try a lower "
                          "learning rate",
                          isnan (loss) ? "NaN" : NN_MESSAGE ("infinite"),
                          (long long) t->step, t->epoch);
  t->epoch_loss += stats[0];
  t->epoch_correct += stats[1];
  t->epoch_samples += t->interval_samples;
  _nn_timing_curve_add (run, stats[0], t->interval_samples, t->step);

  progress_at (run, t, NN_PROGRESS_STEP, &p);
  p.loss = loss;
  p.accuracy = accuracy;
  p.samples_per_second = interval_seconds > 0 ? t->interval_samples / interval_seconds : 0;
  p.elapsed_seconds = now - t_entry;
  p.eta_seconds = (double) (run->total_steps - t->step) * t->train_seconds / (double) t->step;
  if (!report (run, &p))
    atomic_store (&run->trainer->cancel, 1);

  t->interval_start = _nn_now ();
  t->interval_first = t->step;
  t->interval_samples = 0.0;
  /* the epoch's evaluation, next when the epoch is over, is no step's */
  if (run->async && t->step_in_epoch < run->steps_per_epoch && !t->stop)
    _nn_timing_open (run);
  return NN_OK;
}

/* One epoch's steps (or as many as max_steps leaves), a report every
 * progress_every steps and at the end. */
static NnStatus
train_epoch (NnTrainRun *run, Tally *t, double t_entry, NnError *error)
{
  NnTrainer *trainer = run->trainer;
  const NnTrainConfig *config = run->config;
  NnModel *model = run->model;
  NnStatus status;

  status = _nn_feed_epoch (run, t->epoch, error);
  if (status != NN_OK)
    return status;

  while (t->step_in_epoch < run->steps_per_epoch)
    {
      int32_t n, count;
      double t0;
      bool last_in_epoch;

      if (atomic_load (&trainer->cancel) != 0)
        return cancelled_at (run, t->step, t->epoch, error);
      n = t->step_in_epoch == run->steps_per_epoch - 1 && run->remainder > 0 ? run->remainder
                                                                             : model->batch_size;
      count = n == model->batch_size
                ? steps_at_once (run, t->step, t->interval_first, t->step_in_epoch)
                : 1;
      t0 = _nn_now ();
      if (run->timing.breakdown && !run->async)
        _nn_timing_open (run);
      status = timed_steps (run, n, count, t->step_in_epoch, error);
      if (status == NN_OK && run->loss_every_step)
        {
          status = read_step_stats (run, t, error);
          /* the read waited for the step: its span has ended, and reading
           * it now keeps the backend's spans from running out */
          if (run->async && run->timing.breakdown)
            _nn_timing_read_device (run);
        }
      if (run->timing.breakdown && !run->async)
        _nn_timing_stop (run);
      if (status != NN_OK)
        {
          _nn_error_prefix (error, "step %lld (epoch %d)", (long long) t->step + 1, t->epoch);
          return status;
        }
      t->step += count;
      t->step_in_epoch += count;
      run->steps_done = t->step;
      t->interval_samples += (double) n * count;
      if (run->step_clock)
        {
          /* with the breakdown on, the steps' time is its window's, from
           * the same two clock reads, so the parts add up to it and the
           * clock's own start and stop are no step's time */
          double seconds = run->timing.breakdown && !run->async
                             ? run->timing.clock.window_seconds
                             : _nn_now () - t0;
          double each = seconds / count;
          for (int32_t i = 0; i < count; i++)
            _nn_timing_step (run, t->step - count + 1 + i, each);
          if (run->timing.breakdown && !run->async)
            _nn_timing_close (run, t->step - count + 1, count);
        }
      if (t->step == 1)
        {
          if (run->async)
            {
              int back = _nn_clock_enter (NN_BREAKDOWN_SYNC_WAIT);
              status = _nn_model_check (model, run->ops->synchronize (run->backend->ctx),
                                        "first step", error);
              _nn_clock_leave (back);
              if (status != NN_OK)
                return status;
            }
          run->first_step_end = _nn_now ();
        }

      last_in_epoch = t->step_in_epoch == run->steps_per_epoch;
      if (config->max_steps > 0 && t->step >= config->max_steps)
        t->stop = true;
      /* An asynchronous run's steps are timed by the interval: one ends
       * where the warm-up does, so no warm-up step is in a measured one. */
      if (last_in_epoch || t->stop || (t->step - t->interval_first) >= run->progress_every
          || t->step == config->warmup_steps)
        {
          status = end_interval (run, t, t_entry, error);
          if (status != NN_OK)
            return status;
        }
      if (t->stop)
        break;
    }
  return NN_OK;
}

/* The epoch (or the part max_steps allowed) is done: evaluate it on the
 * test set, record it, report it. */
static NnStatus
end_epoch (NnTrainRun *run, Tally *t, double t_entry, NnError *error)
{
  NnTrainer *trainer = run->trainer;
  const NnTrainConfig *config = run->config;
  NnEpochRecord *rec = &run->epochs[run->epoch_count];
  NnProgress p;
  double eval_start;
  NnStatus status;

  if (atomic_load (&trainer->cancel) != 0)
    return cancelled_at (run, t->step, t->epoch, error);
  eval_start = _nn_now ();
  memset (rec, 0, sizeof *rec);
  rec->epoch = t->epoch;
  rec->seconds = t->epoch_seconds;
  rec->train_loss = t->epoch_samples > 0 ? (float) (t->epoch_loss / t->epoch_samples) : 0.0f;
  rec->train_accuracy = t->epoch_samples > 0 ? (float) (t->epoch_correct / t->epoch_samples)
                                             : 0.0f;
  rec->samples_per_second = t->epoch_seconds > 0 ? t->epoch_samples / t->epoch_seconds : 0.0;
  rec->test_loss = NAN;
  rec->test_accuracy = NAN;
  status = config->skip_evaluation
             ? NN_OK
             : evaluate_test (run, &rec->test_loss, &rec->test_accuracy, error);
  if (status != NN_OK)
    {
      _nn_error_prefix (error, "evaluating epoch %d", t->epoch);
      return status;
    }
  run->timing.evaluation_seconds += _nn_now () - eval_start;
  run->epoch_count++;

  progress_at (run, t, NN_PROGRESS_EPOCH_END, &p);
  p.loss = rec->train_loss;
  p.accuracy = rec->train_accuracy;
  p.samples_per_second = rec->samples_per_second;
  p.elapsed_seconds = _nn_now () - t_entry;
  p.eta_seconds = -1.0;
  if (t->step > 0)
    p.eta_seconds = (double) (run->total_steps - t->step) * t->train_seconds / (double) t->step
                    + (double) (config->epochs - t->epoch) * (_nn_now () - eval_start);
  if (t->stop)
    p.eta_seconds = 0.0;
  p.epoch_seconds = rec->seconds;
  p.train_loss = rec->train_loss;
  p.train_accuracy = rec->train_accuracy;
  p.test_loss = rec->test_loss;
  p.test_accuracy = rec->test_accuracy;
  if (!report (run, &p) && !t->stop && t->epoch < config->epochs)
    {
      atomic_store (&trainer->cancel, 1);
      run->cancelled = true;
      return _nn_error_set (error, NN_ERROR_CANCELLED,
                            "training was cancelled after epoch %d", t->epoch);
    }
  return NN_OK;
}

static NnStatus
train_loop (NnTrainRun *run, double t_entry, NnError *error)
{
  Tally t = { 0 };

  for (t.epoch = 1; t.epoch <= run->config->epochs && !t.stop; t.epoch++)
    {
      NnStatus status;

      t.step_in_epoch = 0;
      t.epoch_seconds = t.epoch_loss = t.epoch_correct = t.epoch_samples = 0.0;
      t.interval_start = _nn_now ();
      t.interval_first = t.step;
      t.interval_samples = 0.0;
      if (run->async)
        _nn_timing_open (run);
      status = train_epoch (run, &t, t_entry, error);
      _nn_timing_span_end (run); /* one a cancel or an error left open */
      _nn_timing_drop (run);
      if (status == NN_OK)
        status = end_epoch (run, &t, t_entry, error);
      if (status != NN_OK)
        return status;
    }
  return NN_OK;
}

NnStatus
nn_trainer_run (NnTrainer *trainer, NnRunResult *result, NnError *error)
{
  double t_entry = _nn_now ();
  const NnTrainConfig *config = &trainer->config;
  const NnDataset *ds = trainer->dataset;
  NnRunResult local;
  NnError local_error;
  NnTrainRun run;
  NnStatus status;

  if (result == NULL)
    result = &local;
  if (error == NULL)
    error = &local_error;
  nn_error_clear (error);
  fill_result_start (trainer, result);
  nn_run_id_new (trainer->model_name[0] ? trainer->model_name : NULL, &result->device,
                 result->run_id, sizeof result->run_id, result->started_at,
                 sizeof result->started_at);
  memset (&run, 0, sizeof run);
  run.trainer = trainer;
  run.config = config;
  run.dataset = ds;

  nn_model_free (trainer->model);
  trainer->model = NULL;
  if (config->device.kind == NN_DEVICE_CPU)
    result->threads = nn_threads_set (config->device.threads);

  /* what run_setup allocates beside the model, counted with it before
   * anything is allocated */
  {
    uint64_t sample = (uint64_t) ds->train.channels * ds->train.height * ds->train.width;
    /* the state's stride: the parameters rounded up to whole lines, as
     * _nn_model_optimizer_state makes it */
    uint64_t params = ((uint64_t) (trainer->params > 0 ? trainer->params : 1) + 63) / 64 * 64;
    uint64_t slots = (uint64_t) _nn_optimizer_slots (config->optimizer.kind);
    int64_t steps = (int64_t) ((ds->train.count + config->batch_size - 1) / config->batch_size)
                    * config->epochs;
    if (config->max_steps > 0 && config->max_steps < steps)
      steps = config->max_steps;
    uint64_t kept = (uint64_t) (steps < NN_STEP_TIMES_MAX ? steps : NN_STEP_TIMES_MAX);
    uint64_t test = config->skip_evaluation ? 0 : (uint64_t) ds->test.count;
    NnMemoryNeed extra[] = {
      /* on the device unless the batches come from the host, which then
       * holds one batch of floats to copy (and keeps the data set, as
       * always) */
      { "the training images",
        config->conditions.data == NN_DATA_DEVICE ? sample * (uint64_t) ds->train.count : 0,
        false, false },
      { "the batches' host buffer",
        config->conditions.data == NN_DATA_DEVICE
          ? 0
          : (4 * sample + 68) * (uint64_t) config->batch_size,
        true, true },
      { "the test images", sample * test, false, false },
      { "labels and sample order", 9 * (uint64_t) ds->train.count + 5 * test, false, false },
      { "optimizer state", 4 * slots * params, false, false },
      { "the run's records", 4 * (uint64_t) ds->train.count + 8 * kept
                               + sizeof (NnEpochRecord) * (uint64_t) config->epochs,
        false, true },
    };
    status = _nn_model_new_with (trainer->spec, trainer->input, config->batch_size,
                                 &config->device, config->seed, extra,
                                 (int) (sizeof extra / sizeof extra[0]), &trainer->model, error);
  }
  if (status == NN_OK)
    {
      run.model = trainer->model;
      run.backend = &run.model->backend;
      run.ops = run.backend->ops;
      run.async = strcmp (run.ops->name, "cpu") != 0;
      run.feed.data = config->conditions.data;
      run.loss_every_step = config->conditions.loss_every_step;
      run.step_clock = !run.async || run.loss_every_step;
      run.model->fusion = config->conditions.fused;
      run.timing.breakdown = config->breakdown;
      run.timing.device_timer = run.timing.breakdown && run.ops->timer_begin != NULL;
      run.sample_size = ds->train.channels * ds->train.height * ds->train.width;
      run.steps_per_epoch = (ds->train.count + config->batch_size - 1) / config->batch_size;
      run.remainder = ds->train.count % config->batch_size;
      run.total_steps = (int64_t) run.steps_per_epoch * config->epochs;
      if (config->max_steps > 0 && config->max_steps < run.total_steps)
        run.total_steps = config->max_steps;
      run.progress_every = config->progress_every;
      if (run.progress_every == 0)
        {
          /* about 20 reports an epoch, at least one every 200 steps (on a
           * GPU rounded up to whole graphs: run_setup) */
          run.progress_every = run.steps_per_epoch / 20;
          if (run.progress_every < 1)
            run.progress_every = 1;
          if (run.progress_every > 200)
            run.progress_every = 200;
        }
      result->device = run.model->backend.device;
      if (config->device.kind == NN_DEVICE_CPU)
        result->threads = _nn_threads ();
      status = run_setup (&run, error);
    }
  if (status == NN_OK)
    status = train_loop (&run, t_entry, error);
  _nn_timing_drop (&run);
  if (status == NN_OK && run.async && run.ops != NULL)
    status = _nn_model_check (run.model, run.ops->synchronize (run.backend->ctx), "finishing",
                              error);

  fill_result_end (&run, result, t_entry);
  if (status == NN_OK)
    result->status = NN_RUN_COMPLETED;
  else if (status == NN_ERROR_CANCELLED)
    result->status = NN_RUN_CANCELLED;
  else
    result->status = NN_RUN_FAILED;
  if (status != NN_OK)
    snprintf (result->error, sizeof result->error, "%s", error->message);
  run_free (&run);
  if (result == &local)
    nn_run_result_clear (&local);
  return status;
}
