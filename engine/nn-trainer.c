/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-trainer.c: the training loop: validation, data upload, shuffled
 * batches gathered on the device (or on the host and copied every step, as
 * the run's conditions say), forward/loss/backward/update steps (replayed
 * as one captured graph where the backend can), progress, evaluation after
 * each epoch, timing and the run result.
 */

#define _POSIX_C_SOURCE 200809L

#include "nn-model-private.h"
#include "nn-plan.h"
#include "nn-os.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per-step times kept exactly up to this many steps, then sampled. */
#define STEP_TIMES_MAX (1 << 20)

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

/* ---------------------------------------------------------------- one run's state */

typedef struct
{
  double sum;
  double samples;
  int64_t step; /* the step the bucket ends at */
} CurvePoint;

typedef struct
{
  NnTrainer *trainer;
  NnModel *model;        /* borrowed from trainer */
  NnBackend *backend;    /* borrowed: model's */
  const NnBackendOps *ops;
  bool async;            /* ops are asynchronous: time whole intervals */
  bool cancelled;
  /* the run's conditions (NnConditions) */
  NnDataOn data;         /* where training batches come from */
  bool loss_every_step;  /* stats read back after every step */
  bool step_clock;       /* each step timed on its own: the CPU, or a step that waits */

  /* device data, owned */
  uint8_t *train_images; /* (train, sample) */
  uint8_t *train_labels; /* (train) */
  uint8_t *test_images;  /* (test, sample) */
  uint8_t *test_labels;  /* (test) */
  int32_t *perm;         /* (train): this epoch's order */
  int32_t *ident;        /* (test): 0, 1, 2, ... */
  /* the parameters the dense layers update in the backward: see find_dense_update */
  NnDenseUpdate update;
  /* the steps of a training step on a full batch and on the epoch's last,
   * shorter one (made once, in run_setup) */
  NnPlan plan_full;
  NnPlan plan_rest;
  NnPlanStep *plan_steps; /* (plan_step_count), owned until the result takes them:
                           * plan_full's */
  int32_t plan_step_count;

  /* batches gathered on the host (data pinned or pageable), owned: host_alloc's
   * memory when pinned, else malloc's; NULL when the data is on the device */
  void *staging;         /* stage_x, then stage_labels, then stage_targets */
  float *stage_x;        /* (batch, sample) */
  int32_t *stage_labels; /* (batch) */
  float *stage_targets;  /* (batch, classes), one-hot; NULL for sparse labels */
  double stats_sum[2];   /* loss_every_step: the sums read since the last report */

  /* host */
  int32_t *host_perm;    /* (train) */
  float stats_host[2];
  NnBackendOptimizer opt;
  int32_t sample_size;
  int32_t steps_per_epoch;
  int32_t remainder;     /* rows in the last batch of an epoch, 0 when even */
  int64_t total_steps;
  int32_t progress_every;

  /* capture */
  bool can_capture;
  bool capture_failed;
  void *graph;           /* owned: one full-batch step */
  void *graph_many;      /* owned: graph_steps full-batch steps */
  int32_t graph_steps;   /* steps in graph_many; 1 when there is none */
  int64_t full_steps;    /* full-batch steps run so far */
  bool next_perm_ready;  /* host_perm already holds the next epoch's order */

  /* timing */
  double *step_times;    /* (min (total_steps, STEP_TIMES_MAX)) */
  int64_t step_times_count; /* steps timed: those after the warm-up */
  int64_t step_times_cap;
  int64_t steps_done;    /* steps run, the warm-up's too */
  uint64_t reservoir_rng;
  double first_step_end;

  /* loss curve: streaming buckets, merged in pairs when full */
  CurvePoint curve[NN_LOSS_CURVE_MAX];
  int32_t curve_count;
  int64_t curve_span;    /* intervals per bucket */
  int64_t curve_fill;    /* intervals in the open bucket */

  /* epochs */
  NnEpochRecord *epochs; /* (epochs) */
  int32_t epoch_count;

  /* where the steps' time went (config.breakdown): the clock runs on this
   * thread over a window of steps (each call of train_steps on the CPU, an
   * interval between two reads of the loss sums on an asynchronous
   * backend) and is added to the totals when the window's steps are
   * counted, so a window a cancel or an error cut short adds nothing */
  bool timing;
  bool device_timer;     /* the backend times spans of its stream */
  bool span_open;        /* a span of the backend's timer is open (end_span) */
  int32_t span_steps;    /* the steps launched inside it */
  NnStepClock clock;
  double part_total[NN_BREAKDOWN_PARTS];
  double window_bytes;   /* host-to-device bytes of the open window */
  double copy_bytes;
  int64_t timed_steps;
  double timed_seconds;  /* the timed steps' wall time: their windows' */
  double device_seconds; /* device time of the spans read back */
  int64_t device_steps;  /* the steps those spans covered */
  double evaluation_seconds;
} Run;

/* Opens a window of measured steps on this thread: what the clock has is
 * dropped. */
static void
clock_open (Run *run)
{
  if (!run->timing)
    return;
  run->window_bytes = 0;
  _nn_clock_start (&run->clock, NN_BREAKDOWN_HOST);
}

/* Closes the window: its `steps` steps, the first of them step
 * `first_step` (1-based), took the window's wall time. A window of
 * the warm-up is not counted (an asynchronous run's interval ends where
 * the warm-up does, so a window is all warm-up or none). */
static void
clock_close (Run *run, int64_t first_step, int64_t steps)
{
  if (first_step <= run->trainer->config.warmup_steps)
    return;
  for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
    run->part_total[p] += run->clock.seconds[p];
  run->copy_bytes += run->window_bytes;
  run->timed_steps += steps;
  run->timed_seconds += run->clock.window_seconds;
}

/* Stops the clock of a window that ends without its steps counted. */
static void
clock_drop (Run *run)
{
  if (_nn_step_clock == &run->clock)
    _nn_clock_stop (&run->clock);
}

/* upload () of `bytes` inside a measured window: the step's "copy" part. */
static int
timed_upload (Run *run, void *dst, const void *src, size_t bytes)
{
  int back = _nn_clock_enter (NN_BREAKDOWN_COPY);
  int status = run->ops->upload (run->backend->ctx, dst, src, bytes);
  _nn_clock_leave (back);
  if (back >= 0)
    run->window_bytes += (double) bytes;
  return status;
}

/* The device time of the spans that have ended; called only where the
 * trainer has synchronized anyway, so it never waits. */
static void
read_device_timer (Run *run)
{
  double seconds = 0;
  int64_t steps = 0;

  if (!run->device_timer)
    return;
  if (run->ops->timer_read (run->backend->ctx, &seconds, &steps) == 0)
    {
      run->device_seconds += seconds;
      run->device_steps += steps;
    }
}

/* The time of step `step` (1-based); the warm-up's are left out. */
static void
record_step_time (Run *run, int64_t step, double seconds)
{
  if (step <= run->trainer->config.warmup_steps)
    return;
  if (run->step_times_count < run->step_times_cap)
    run->step_times[run->step_times_count] = seconds;
  else
    {
      /* reservoir sampling: keep a uniform sample of all steps */
      uint64_t j = _nn_splitmix64 (&run->reservoir_rng) % (uint64_t) (run->step_times_count + 1);
      if (j < (uint64_t) run->step_times_cap)
        run->step_times[j] = seconds;
    }
  run->step_times_count++;
}

static void
curve_add (Run *run, double loss_sum, double samples, int64_t step)
{
  if (run->curve_fill == 0)
    {
      if (run->curve_count == NN_LOSS_CURVE_MAX)
        {
          for (int32_t i = 0; i < NN_LOSS_CURVE_MAX / 2; i++)
            {
              CurvePoint a = run->curve[2 * i], b = run->curve[2 * i + 1];
              run->curve[i].sum = a.sum + b.sum;
              run->curve[i].samples = a.samples + b.samples;
              run->curve[i].step = b.step;
            }
          run->curve_count = NN_LOSS_CURVE_MAX / 2;
          run->curve_span *= 2;
        }
      run->curve[run->curve_count].sum = 0;
      run->curve[run->curve_count].samples = 0;
      run->curve_count++;
    }
  CurvePoint *p = &run->curve[run->curve_count - 1];
  p->sum += loss_sum;
  p->samples += samples;
  p->step = step;
  if (++run->curve_fill >= run->curve_span)
    run->curve_fill = 0;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

static double
percentile (const double *sorted, int64_t count, double p)
{
  double pos, frac;
  int64_t lo;

  if (count == 0)
    return 0.0;
  pos = p * (double) (count - 1);
  lo = (int64_t) pos;
  frac = pos - (double) lo;
  if (lo + 1 >= count)
    return sorted[count - 1];
  return sorted[lo] * (1.0 - frac) + sorted[lo + 1] * frac;
}

static void
run_free (Run *run)
{
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend != NULL ? run->backend->ctx : NULL;

  if (ops != NULL)
    {
      if (run->graph != NULL)
        ops->graph_free (ctx, run->graph);
      if (run->graph_many != NULL)
        ops->graph_free (ctx, run->graph_many);
      void *buffers[] = { run->train_images, run->train_labels, run->test_images, run->test_labels,
                          run->perm, run->ident };
      for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i] != NULL)
          ops->free (ctx, buffers[i]);
    }
  if (run->staging != NULL)
    {
      if (run->data == NN_DATA_PINNED && ops != NULL)
        ops->host_free (ctx, run->staging);
      else
        free (run->staging);
    }
  _nn_plan_clear (&run->plan_full);
  _nn_plan_clear (&run->plan_rest);
  free (run->plan_steps);
  free (run->host_perm);
  free (run->step_times);
  free (run->epochs);
}

/* ---------------------------------------------------------------- set-up */

static NnStatus
upload_new (Run *run, const void *src, size_t bytes, const char *what, void **out, NnError *error)
{
  NnStatus status = _nn_model_alloc (run->model, bytes, what,
                                     "the data set does not fit on this device", out, error);
  if (status != NN_OK || bytes == 0)
    return status;
  return _nn_model_check (run->model, run->ops->upload (run->backend->ctx, *out, src, bytes), what,
                          error);
}

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

/* The host buffer a batch is gathered into when the data stays on the
 * host (NN_DATA_PINNED: page-locked, host_alloc; NN_DATA_PAGEABLE: malloc),
 * made once: (batch, sample) floats, the labels, the one-hot targets. */
static NnStatus
staging_new (Run *run, NnError *error)
{
  const NnTrainConfig *config = &run->trainer->config;
  NnModel *model = run->model;
  size_t rows = (size_t) model->batch_size;
  size_t x_bytes = rows * (size_t) run->sample_size * sizeof (float);
  size_t label_bytes = (rows * sizeof (int32_t) + 63) / 64 * 64;
  bool sparse = config->loss == NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY;
  size_t target_bytes = sparse ? 0 : rows * (size_t) model->classes * sizeof (float);
  size_t bytes = (x_bytes + 63) / 64 * 64 + label_bytes + target_bytes;

  if (run->data == NN_DATA_PINNED)
    {
      if (run->ops->host_alloc == NULL)
        return _nn_error_set (error, NN_ERROR_UNAVAILABLE,
                              "%s: this device has no page-locked host memory for batches "
                              "from pinned memory; use pageable",
                              model->device_name);
      NnStatus status = _nn_model_check (model, run->ops->host_alloc (run->backend->ctx, bytes,
                                                                      &run->staging),
                                         "page-locked memory for the batches", error);
      if (status != NN_OK)
        {
          run->staging = NULL;
          return status;
        }
    }
  else if ((run->staging = malloc (bytes)) == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the batches' host buffer");
  run->stage_x = run->staging;
  run->stage_labels = (int32_t *) ((char *) run->staging + (x_bytes + 63) / 64 * 64);
  run->stage_targets = sparse ? NULL
                              : (float *) ((char *) run->stage_labels + label_bytes);
  return NN_OK;
}

/* A training batch of n rows from the host (data pinned or pageable): the
 * rows of this epoch's order gathered into the staging buffer as
 * gather_batch forms them on the device (the same floats), then copied into
 * the model's batch buffers: without waiting from page-locked memory, once
 * the copy before has read it; with a copy that waits from pageable
 * memory. */
static NnStatus
feed_batch (Run *run, int32_t n, int32_t step_in_epoch, NnError *error)
{
  NnModel *model = run->model;
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend->ctx;
  const NnSplit *train = &run->trainer->dataset->train;
  const int32_t *rows = run->host_perm + (size_t) step_in_epoch * (size_t) model->batch_size;
  size_t sample = (size_t) run->sample_size;
  const float scale = 1.0f / 255.0f;
  bool pinned = run->data == NN_DATA_PINNED;
  int (*copy) (void *, void *, const void *, size_t) = pinned ? ops->upload_async : ops->upload;
  NnStatus status;

  /* the wait for the copy before and the copies themselves: "copy" */
  int back;

  if (pinned)
    {
      back = _nn_clock_enter (NN_BREAKDOWN_COPY);
      status = _nn_model_check (model, ops->upload_wait (ctx), "waiting for a batch's copy",
                                error);
      _nn_clock_leave (back);
      if (status != NN_OK)
        return status;
    }
  for (int32_t i = 0; i < n; i++)
    {
      const uint8_t *src = train->images + (size_t) rows[i] * sample;
      float *dst = run->stage_x + (size_t) i * sample;
      for (size_t j = 0; j < sample; j++)
        dst[j] = (float) src[j] * scale;
      run->stage_labels[i] = train->labels[rows[i]];
    }
  if (run->stage_targets != NULL)
    {
      memset (run->stage_targets, 0, sizeof (float) * (size_t) n * (size_t) model->classes);
      for (int32_t i = 0; i < n; i++)
        run->stage_targets[(size_t) i * (size_t) model->classes + run->stage_labels[i]] = 1.0f;
    }
  size_t x_bytes = sizeof (float) * (size_t) n * sample;
  size_t label_bytes = sizeof (int32_t) * (size_t) n;
  size_t target_bytes = run->stage_targets != NULL
                          ? sizeof (float) * (size_t) n * (size_t) model->classes
                          : 0;
  back = _nn_clock_enter (NN_BREAKDOWN_COPY);
  status = _nn_model_check (model, copy (ctx, model->x, run->stage_x, x_bytes),
                            "copying a batch to the device", error);
  if (status == NN_OK)
    status = _nn_model_check (model, copy (ctx, model->labels, run->stage_labels, label_bytes),
                              "copying a batch's labels to the device", error);
  if (status == NN_OK && run->stage_targets != NULL)
    status = _nn_model_check (model, copy (ctx, model->targets, run->stage_targets,
                                           target_bytes),
                              "copying a batch's targets to the device", error);
  _nn_clock_leave (back);
  if (back >= 0)
    run->window_bytes += (double) (x_bytes + label_bytes + target_bytes);
  return status;
}

static NnStatus
run_setup (Run *run, NnError *error)
{
  NnTrainer *trainer = run->trainer;
  const NnDataset *ds = trainer->dataset;
  const NnTrainConfig *config = &trainer->config;
  NnModel *model = run->model;
  size_t sample = (size_t) run->sample_size;
  int32_t *ident_host;
  void *ptr;
  NnStatus status;

  /* the training set, resident on the device for the whole run, or a
   * host buffer its batches are gathered into */
  if (run->data == NN_DATA_DEVICE)
    {
      status = upload_new (run, ds->train.images, sample * (size_t) ds->train.count,
                           "the training images", &ptr, error);
      if (status != NN_OK)
        return status;
      run->train_images = ptr;
      status = upload_new (run, ds->train.labels, (size_t) ds->train.count,
                           "the training labels", &ptr, error);
      if (status != NN_OK)
        return status;
      run->train_labels = ptr;
    }
  else
    {
      status = staging_new (run, error);
      if (status != NN_OK)
        return status;
    }
  run->host_perm = malloc (sizeof (int32_t) * (size_t) ds->train.count);
  if (run->host_perm == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the sample order");
  /* the test set, unless the run is not evaluated: a sweep's point then
   * copies nothing it does not use */
  if (!config->skip_evaluation)
    {
      status = upload_new (run, ds->test.images, sample * (size_t) ds->test.count,
                           "the test images", &ptr, error);
      if (status != NN_OK)
        return status;
      run->test_images = ptr;
      status = upload_new (run, ds->test.labels, (size_t) ds->test.count, "the test labels",
                           &ptr, error);
      if (status != NN_OK)
        return status;
      run->test_labels = ptr;

      ident_host = malloc (sizeof (int32_t) * (size_t) ds->test.count);
      if (ident_host == NULL)
        return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the sample order");
      for (int32_t i = 0; i < ds->test.count; i++)
        ident_host[i] = i;
      status = upload_new (run, ident_host, sizeof (int32_t) * (size_t) ds->test.count,
                           "the test order", &ptr, error);
      free (ident_host);
      if (status != NN_OK)
        return status;
      run->ident = ptr;
    }
  if (run->data == NN_DATA_DEVICE)
    {
      status = _nn_model_alloc (model, sizeof (int32_t) * (size_t) ds->train.count,
                                "the training order", "the data set does not fit on this device",
                                &ptr, error);
      if (status != NN_OK)
        return status;
      run->perm = ptr;
    }

  /* the optimizer's state, one arena of the model whoever applies the update */
  status = _nn_model_optimizer_state (model, &config->optimizer, error);
  if (status != NN_OK)
    return status;
  run->opt = backend_optimizer (&config->optimizer);
  find_dense_update (model, config, &run->opt, &run->update);

  /* the odd batch sizes this run will see, prepared now */
  if (run->remainder > 0)
    {
      status = _nn_model_prepare (model, run->remainder, error);
      if (status != NN_OK)
        return status;
    }
  if (!config->skip_evaluation && ds->test.count % model->batch_size != 0)
    {
      status = _nn_model_prepare (model, ds->test.count % model->batch_size, error);
      if (status != NN_OK)
        return status;
    }
  if (!config->skip_evaluation && ds->test.count < model->batch_size)
    {
      status = _nn_model_prepare (model, ds->test.count, error);
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

  run->step_times_cap = run->total_steps < STEP_TIMES_MAX ? run->total_steps : STEP_TIMES_MAX;
  run->step_times = malloc (sizeof (double)
                            * (size_t) (run->step_times_cap > 0 ? run->step_times_cap : 1));
  run->epochs = calloc ((size_t) config->epochs, sizeof *run->epochs);
  if (run->step_times == NULL || run->epochs == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the run's records");
  run->reservoir_rng = config->seed ^ 0x94D049BB133111EBull;
  run->curve_span = 1;
  run->can_capture = config->conditions.graph && run->ops->capture_begin != NULL
                     && run->ops->capture_end != NULL && run->ops->graph_launch != NULL
                     && run->ops->graph_free != NULL;
  run->graph_steps = run->can_capture ? graph_steps_wanted () : 1;
  /* A batch copied from the host, or the loss read back, between every two
   * steps: each step is a graph of its own. */
  if (run->data != NN_DATA_DEVICE || run->loss_every_step)
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

/* ---------------------------------------------------------------- steps */

static NnStatus
read_stats (Run *run, float out[2], NnError *error)
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
step_ops (Run *run, int32_t n, NnError *error)
{
  NnModel *model = run->model;
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend->ctx;
  const NnTrainConfig *config = &run->trainer->config;
  bool sparse = config->loss == NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY;
  const NnPlan *plan = n == model->batch_size ? &run->plan_full : &run->plan_rest;
  int64_t prefix = run->update.offset;
  NnStatus status = NN_OK;

  /* a batch from the host is in place already (feed_batch) */
  if (run->data == NN_DATA_DEVICE)
    status = _nn_model_check (model,
                              ops->gather_batch (ctx, run->train_images, run->train_labels,
                                                 run->perm, model->step, run->steps_per_epoch,
                                                 model->batch_size, n, run->sample_size,
                                                 1.0f / 255.0f, model->x, model->labels,
                                                 sparse ? NULL : model->targets,
                                                 model->classes),
                              "gathering a batch", error);
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
capture_steps (Run *run, int32_t count)
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
train_steps (Run *run, int32_t n, int32_t count, int32_t step_in_epoch, NnError *error)
{
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend->ctx;
  bool full = n == run->model->batch_size;
  NnStatus status = NN_OK;

  /* from the host, one batch at a time (graph_steps is 1), outside any graph */
  if (run->data != NN_DATA_DEVICE)
    {
      status = feed_batch (run, n, step_in_epoch, error);
      if (status != NN_OK)
        return status;
    }

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

/* Ends the open span of the backend's timer, if any. */
static void
end_span (Run *run)
{
  if (!run->span_open)
    return;
  if (run->ops->timer_end (run->backend->ctx, run->span_steps) != 0)
    run->device_timer = false;
  run->span_open = false;
  run->span_steps = 0;
}

/* train_steps, its host time the step's "launch" part on an asynchronous
 * backend, and its device time a span of the backend's timer. A step
 * launched on its own has a span of its own. Graphs of several steps,
 * back to back, share one until the interval ends: with a span each the
 * breakdown cost 1-3 % of mlp-small's step on an H100, with one at most
 * 0.83 % (bench/results/h100-gpu-2026-12-06.md), and the host queues those
 * graphs far ahead of the GPU, so the shared span holds no time the GPU
 * sat idle (its busy time per step came out the same). */
static NnStatus
timed_steps (Run *run, int32_t n, int32_t count, int32_t step_in_epoch, NnError *error)
{
  if (!run->timing || !run->async)
    return train_steps (run, n, count, step_in_epoch, error);
  int back = _nn_clock_enter (NN_BREAKDOWN_LAUNCH);
  if (count == 1)
    end_span (run);
  /* no free span (more spans between two reads than the backend keeps):
   * these steps go untimed rather than wait */
  if (!run->span_open && run->device_timer)
    run->span_open = run->ops->timer_begin (run->backend->ctx) == 0;
  NnStatus status = train_steps (run, n, count, step_in_epoch, error);
  if (run->span_open)
    run->span_steps += count;
  if (count == 1)
    end_span (run);
  _nn_clock_leave (back);
  return status;
}

/* How many steps the loop may run as one: graph_steps where that many full
 * batches remain before the next progress report, the epoch's last batch
 * and max_steps, else 1. */
static int32_t
steps_at_once (const Run *run, int64_t step, int64_t interval_first, int32_t step_in_epoch)
{
  int64_t room = run->progress_every - (step - interval_first);
  int64_t full_left = run->steps_per_epoch - step_in_epoch - (run->remainder > 0);
  const NnTrainConfig *config = &run->trainer->config;

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

static NnStatus
evaluate_test (Run *run, float *loss_out, float *accuracy_out, NnError *error)
{
  NnModel *model = run->model;
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend->ctx;
  const NnTrainConfig *config = &run->trainer->config;
  const NnSplit *test = &run->trainer->dataset->test;
  bool sparse = config->loss == NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY;
  float stats[2];
  NnStatus status = NN_OK;

  for (int32_t done = 0; status == NN_OK && done < test->count; done += model->batch_size)
    {
      int32_t n = test->count - done < model->batch_size ? test->count - done : model->batch_size;
      NnPass pass = { .n = n, .training = false,
                      .logits = config->loss != NN_LOSS_MEAN_SQUARED_ERROR };

      status = _nn_model_check (model,
                                ops->gather_batch (ctx, run->test_images, run->test_labels,
                                                   run->ident + done, NULL, 0, model->batch_size,
                                                   n, run->sample_size, 1.0f / 255.0f, model->x,
                                                   model->labels, sparse ? NULL : model->targets,
                                                   model->classes),
                                "gathering a test batch", error);
      if (status == NN_OK)
        status = _nn_model_forward_loss (model, &pass, config->loss, NULL, error);
    }
  if (status == NN_OK)
    status = read_stats (run, stats, error);
  if (status != NN_OK)
    return status;
  *loss_out = stats[0] / (float) test->count;
  *accuracy_out = stats[1] / (float) test->count;
  return NN_OK;
}

static void
shuffle (int32_t *perm, int32_t count, uint64_t seed, int32_t epoch)
{
  uint64_t state = seed * 0xD1B54A32D192ED03ull + (uint64_t) epoch * 0x9E3779B97F4A7C15ull;

  for (int32_t i = 0; i < count; i++)
    perm[i] = i;
  for (int32_t i = count - 1; i > 0; i--)
    {
      int32_t j = (int32_t) (_nn_splitmix64 (&state) % (uint64_t) (i + 1));
      int32_t t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
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
fill_result_end (Run *run, NnRunResult *result, double t_entry)
{
  double *sorted;
  int64_t kept = run->step_times_count < run->step_times_cap ? run->step_times_count
                                                              : run->step_times_cap;

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
  result->steps_timed = run->step_times_count;
  if (kept > 0 && (sorted = malloc (sizeof (double) * (size_t) kept)) != NULL)
    {
      memcpy (sorted, run->step_times, sizeof (double) * (size_t) kept);
      qsort (sorted, (size_t) kept, sizeof (double), compare_double);
      result->step_seconds_median = percentile (sorted, kept, 0.5);
      result->step_seconds_p10 = percentile (sorted, kept, 0.1);
      result->step_seconds_p90 = percentile (sorted, kept, 0.9);
      free (sorted);
    }
  result->loss_curve_count = run->curve_count;
  for (int32_t i = 0; i < run->curve_count; i++)
    {
      result->loss_curve[i] = run->curve[i].samples > 0
                                ? (float) (run->curve[i].sum / run->curve[i].samples)
                                : 0.0f;
      result->loss_curve_steps[i] = run->curve[i].step;
    }
  result->conditions = run->trainer->config.conditions;
  result->conditions.graph = run->graph != NULL || run->graph_many != NULL;
  if (run->timing && run->timed_steps > 0)
    {
      NnBreakdown *b = &result->breakdown;
      double steps = (double) run->timed_steps;
      b->measured = true;
      b->steps = run->timed_steps;
      b->step_seconds = run->timed_seconds / steps;
      for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
        b->part_seconds[p] = run->part_total[p] / steps;
      b->device_busy_seconds = run->device_steps > 0
                                 ? run->device_seconds / (double) run->device_steps
                                 : -1.0;
      b->copy_bytes = run->copy_bytes / steps;
      b->evaluation_seconds = run->evaluation_seconds;
    }
  result->plan = run->plan_steps;
  result->plan_count = run->plan_step_count;
  run->plan_steps = NULL;
  run->plan_step_count = 0;
  result->total_seconds = _nn_now () - t_entry;
  result->time_to_first_step_seconds = run->first_step_end > 0 ? run->first_step_end - t_entry : 0;
}

static bool
report (Run *run, NnProgress *progress)
{
  NnTrainer *trainer = run->trainer;
  if (trainer->progress == NULL)
    return true;
  return trainer->progress (progress, trainer->progress_data);
}

/* Marks the run cancelled and says where it stopped. */
static NnStatus
cancelled_at (Run *run, int64_t step, int32_t epoch, NnError *error)
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
progress_at (const Run *run, const Tally *t, NnProgressKind kind, NnProgress *p)
{
  memset (p, 0, sizeof *p);
  p->kind = kind;
  p->epoch = t->epoch;
  p->epochs = run->trainer->config.epochs;
  p->step = t->step;
  p->steps_per_epoch = run->steps_per_epoch;
  p->total_steps = run->total_steps;
  p->step_in_epoch = t->step_in_epoch;
}

/* loss_every_step: the step's loss and accuracy read back at once (the
 * download waits for the step), as Keras' progress bar read them after
 * every batch; a loss that is no longer finite stops the run at its step. */
static NnStatus
read_step_stats (Run *run, const Tally *t, NnError *error)
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
end_interval (Run *run, Tally *t, double t_entry, NnError *error)
{
  const NnTrainConfig *config = &run->trainer->config;
  int64_t interval_steps = t->step - t->interval_first;
  float stats[2];
  double now, interval_seconds;
  float loss, accuracy;
  NnProgress p;
  NnStatus status;

  if (run->async && run->timing)
    {
      int back = _nn_clock_enter (NN_BREAKDOWN_LAUNCH);
      end_span (run);
      _nn_clock_leave (back);
    }
  /* The next epoch's order, while the device still has this interval's
   * steps to run: the shuffle then costs no time of its own there. Not
   * when batches are gathered on the host: it reads this epoch's order
   * until the epoch ends. */
  if (run->async && run->data == NN_DATA_DEVICE && !run->next_perm_ready
      && t->epoch < config->epochs && !t->stop)
    {
      shuffle (run->host_perm, run->trainer->dataset->train.count, config->seed, t->epoch + 1);
      run->next_perm_ready = true;
    }
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
  if (run->async && run->timing)
    {
      _nn_clock_stop (&run->clock);
      read_device_timer (run);
    }
  now = _nn_now ();
  interval_seconds = now - t->interval_start;
  if (run->async && run->timing)
    clock_close (run, t->interval_first + 1, interval_steps);
  if (!run->step_clock)
    for (int64_t i = 0; i < interval_steps; i++)
      record_step_time (run, t->interval_first + 1 + i,
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
  curve_add (run, stats[0], t->interval_samples, t->step);

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
    clock_open (run);
  return NN_OK;
}

/* One epoch's steps (or as many as max_steps leaves), a report every
 * progress_every steps and at the end. */
static NnStatus
train_epoch (Run *run, Tally *t, double t_entry, NnError *error)
{
  NnTrainer *trainer = run->trainer;
  const NnTrainConfig *config = &trainer->config;
  const NnDataset *ds = trainer->dataset;
  NnModel *model = run->model;
  NnStatus status;

  if (!run->next_perm_ready)
    shuffle (run->host_perm, ds->train.count, config->seed, t->epoch);
  run->next_perm_ready = false;
  if (run->data == NN_DATA_DEVICE)
    {
      status = _nn_model_check (model,
                                timed_upload (run, run->perm, run->host_perm,
                                              sizeof (int32_t) * (size_t) ds->train.count),
                                "uploading the sample order", error);
      if (status != NN_OK)
        return status;
    }

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
      if (run->timing && !run->async)
        clock_open (run);
      status = timed_steps (run, n, count, t->step_in_epoch, error);
      if (status == NN_OK && run->loss_every_step)
        {
          status = read_step_stats (run, t, error);
          /* the read waited for the step: its span has ended, and reading
           * it now keeps the backend's spans from running out */
          if (run->async && run->timing)
            read_device_timer (run);
        }
      if (run->timing && !run->async)
        _nn_clock_stop (&run->clock);
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
          double seconds = run->timing && !run->async ? run->clock.window_seconds
                                                      : _nn_now () - t0;
          double each = seconds / count;
          for (int32_t i = 0; i < count; i++)
            record_step_time (run, t->step - count + 1 + i, each);
          if (run->timing && !run->async)
            clock_close (run, t->step - count + 1, count);
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
end_epoch (Run *run, Tally *t, double t_entry, NnError *error)
{
  NnTrainer *trainer = run->trainer;
  const NnTrainConfig *config = &trainer->config;
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
  run->evaluation_seconds += _nn_now () - eval_start;
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
train_loop (Run *run, double t_entry, NnError *error)
{
  Tally t = { 0 };

  for (t.epoch = 1; t.epoch <= run->trainer->config.epochs && !t.stop; t.epoch++)
    {
      NnStatus status;

      t.step_in_epoch = 0;
      t.epoch_seconds = t.epoch_loss = t.epoch_correct = t.epoch_samples = 0.0;
      t.interval_start = _nn_now ();
      t.interval_first = t.step;
      t.interval_samples = 0.0;
      if (run->async)
        clock_open (run);
      status = train_epoch (run, &t, t_entry, error);
      end_span (run); /* one a cancel or an error left open */
      clock_drop (run);
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
  Run run;
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
    uint64_t kept = (uint64_t) (steps < STEP_TIMES_MAX ? steps : STEP_TIMES_MAX);
    uint64_t test = config->skip_evaluation ? 0 : (uint64_t) ds->test.count;
    NnMemoryNeed extra[] = {
      /* on the device unless the batches come from the host, which then
       * holds one batch of floats to copy (and keeps the data set, as
       * always) */
      { "the training images",
        config->conditions.data == NN_DATA_DEVICE ? sample * (uint64_t) ds->train.count : 0,
        false, false },
      { "the batches' host buffer",
        config->conditions.data == NN_DATA_DEVICE ? 0 : (4 * sample + 68) * (uint64_t) config->batch_size,
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
      run.data = config->conditions.data;
      run.loss_every_step = config->conditions.loss_every_step;
      run.step_clock = !run.async || run.loss_every_step;
      run.model->fusion = config->conditions.fused;
      run.timing = config->breakdown;
      run.device_timer = run.timing && run.ops->timer_begin != NULL;
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
  clock_drop (&run);
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
