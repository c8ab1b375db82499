/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-run.c: one recorded run, as the CLI and the GUI both start it: load the
 * data set, build the model, train, write the result file. Whatever stops
 * it after the start (data set, spec, device, training, a cancel), the run
 * leaves a result file that says so.
 */

#include "nn-private.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct NnRunner
{
  NnRunRequest request;           /* strings and dataset borrowed */
  atomic_int cancel;              /* set by nn_runner_cancel, from any thread */
  _Atomic (NnTrainer *) trainer;  /* owned; published for nn_runner_cancel */
  NnDataset *loaded;              /* owned; what prepare loaded, when request.dataset is NULL */
  const NnDataset *dataset;       /* the data set the run uses (request's or loaded) */
  bool prepared;
  bool refused;                   /* its runs folder could not take the result: not started */
  bool ran;
  NnStatus prepare_status;
  NnError prepare_error;
  NnRunResult result;
  char result_path[4096 + 128];   /* a folder plus "/<run id>.json" */
  NnStatus write_status;
  NnError write_error;
};

void
nn_run_request_init (NnRunRequest *request)
{
  memset (request, 0, sizeof *request);
  nn_train_config_init (&request->config);
}

NnStatus
nn_runner_new (const NnRunRequest *request, NnRunner **out, NnError *error)
{
  NnRunner *runner;

  *out = NULL;
  if (request->config.spec_text == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "a run needs a model spec");
  if (request->dataset == NULL && request->dataset_name == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "a run needs a data set");
  runner = calloc (1, sizeof *runner);
  if (runner == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for a run");
  runner->request = *request;
  atomic_init (&runner->cancel, 0);
  atomic_init (&runner->trainer, NULL);
  nn_error_clear (&runner->prepare_error);
  nn_error_clear (&runner->write_error);
  *out = runner;
  return NN_OK;
}

void
nn_runner_free (NnRunner *runner)
{
  NnTrainer *trainer;

  if (runner == NULL)
    return;
  trainer = atomic_exchange (&runner->trainer, NULL);
  nn_trainer_free (trainer);
  nn_dataset_free (runner->loaded);
  nn_run_result_clear (&runner->result);
  free (runner);
}

void
nn_runner_cancel (NnRunner *runner)
{
  NnTrainer *trainer;

  if (runner == NULL)
    return;
  /* The flag first, then the trainer: prepare publishes the trainer, then
   * reads the flag, so one of the two sides always sees the other. Both are
   * lock-free atomics, so a signal handler may call this. */
  atomic_store (&runner->cancel, 1);
  trainer = atomic_load (&runner->trainer);
  if (trainer != NULL)
    nn_trainer_cancel (trainer);
}

static bool
cancelled (NnRunner *runner)
{
  return atomic_load (&runner->cancel) != 0;
}

/* The progress callback the trainer calls: the caller's, and a stop when a
 * cancel came in between two steps' checks. */
static bool
progress_cb (const NnProgress *progress, void *user_data)
{
  NnRunner *runner = user_data;
  bool keep_going = true;

  if (runner->request.progress != NULL)
    keep_going = runner->request.progress (progress, runner->request.progress_data);
  return keep_going && !cancelled (runner);
}

/* The folder a new result file goes into. */
static void
result_folder (const NnRunRequest *request, char *out, size_t size)
{
  if (request->result_folder != NULL)
    snprintf (out, size, "%s", request->result_folder);
  else
    nn_runs_dir (out, size);
}

/* Room for a result file: its fixed part (the system, the plan, the loss
 * curve; 20 KB in practice) many times over, and 512 bytes an epoch (each
 * takes about 250). */
#define RESULT_ROOM_FIXED (1024 * 1024)
#define RESULT_ROOM_EPOCH 512

NnStatus
nn_runner_check_folder (const NnRunRequest *request, NnError *error)
{
  char folder[4096];
  NnError local;

  if (error == NULL)
    error = &local;
  if (request->result_path != NULL)
    return NN_OK;
  result_folder (request, folder, sizeof folder);
  uint64_t epochs = request->config.epochs > 0 ? (uint64_t) request->config.epochs : 1;
  return nn_folder_check_writable (folder, RESULT_ROOM_FIXED + RESULT_ROOM_EPOCH * epochs, error);
}

NnStatus
nn_runner_prepare (NnRunner *runner, NnError *error)
{
  const NnRunRequest *request = &runner->request;
  NnTrainer *trainer = NULL;
  NnError local;

  if (error == NULL)
    error = &local;
  if (runner->prepared)
    {
      *error = runner->prepare_error;
      return runner->prepare_status;
    }
  runner->prepared = true;
  nn_error_clear (&runner->prepare_error);

  /* First of all: a run whose result could not be saved is not started,
   * rather than trained for nothing. */
  runner->prepare_status = nn_runner_check_folder (request, &runner->prepare_error);
  if (runner->prepare_status != NN_OK)
    {
      runner->refused = true;
      *error = runner->prepare_error;
      return runner->prepare_status;
    }

  runner->dataset = request->dataset;
  if (runner->dataset == NULL)
    {
      runner->prepare_status = nn_dataset_load (request->dataset_name, &runner->loaded,
                                                &runner->prepare_error);
      if (runner->prepare_status == NN_OK)
        {
          if (request->limit_train > 0 || request->limit_test > 0)
            nn_dataset_truncate (runner->loaded, request->limit_train, request->limit_test);
          runner->dataset = runner->loaded;
        }
    }
  else
    runner->prepare_status = NN_OK;

  if (runner->prepare_status == NN_OK)
    runner->prepare_status = nn_trainer_new (&request->config, runner->dataset, &trainer,
                                             &runner->prepare_error);
  if (runner->prepare_status == NN_OK)
    {
      nn_trainer_set_progress (trainer, progress_cb, runner);
      atomic_store (&runner->trainer, trainer);
      if (cancelled (runner))
        nn_trainer_cancel (trainer);
    }
  *error = runner->prepare_error;
  return runner->prepare_status;
}

/* The device a run asked for, as the device list names it; for a device
 * that is not there, its kind and index under the name "cuda:N". */
static void
device_lookup (const NnDeviceOptions *options, NnDeviceInfo *out)
{
  NnDeviceInfo devices[32];
  int n;

  /* A CPU run never loads the CUDA module, not even to list devices. */
  if (options->kind == NN_DEVICE_CPU)
    {
      nn_device_cpu (out);
      return;
    }
  n = nn_device_list (devices, (int) (sizeof devices / sizeof devices[0]));
  for (int i = 0; i < n; i++)
    if (devices[i].kind == options->kind && devices[i].index == options->index)
      {
        *out = devices[i];
        return;
      }
  memset (out, 0, sizeof *out);
  out->kind = options->kind;
  out->index = options->index;
  snprintf (out->name, sizeof out->name, "cuda:%d", (int) options->index);
}

/* The result of a run that ended before the trainer could fill one in: what
 * was asked for, what is known of the data set and the model, and why. */
static void
result_fill_early (NnRunner *runner, NnRunStatus status, const char *message)
{
  NnRunResult *r = &runner->result;
  const NnTrainConfig *c = &runner->request.config;
  const NnDataset *dataset = runner->dataset;

  memset (r, 0, sizeof *r);
  r->status = status;
  snprintf (r->error, sizeof r->error, "%s", message != NULL ? message : "");
  r->config = *c;
  snprintf (r->spec_text, sizeof r->spec_text, "%s", c->spec_text);
  snprintf (r->model_name, sizeof r->model_name, "%s", c->model_name ? c->model_name : "");
  r->config.spec_text = r->spec_text;
  r->config.model_name = c->model_name ? r->model_name : NULL;
  r->conditions = c->conditions;
  r->conditions.graph = false; /* nothing was captured */
  device_lookup (&c->device, &r->device);
  r->threads = c->device.threads;
  nn_run_id_new (c->model_name ? c->model_name : "custom", &r->device, r->run_id,
                 sizeof r->run_id, r->started_at, sizeof r->started_at);

  if (dataset == NULL)
    {
      snprintf (r->dataset_name, sizeof r->dataset_name, "%s",
                runner->request.dataset_name ? runner->request.dataset_name : "");
      return;
    }
  snprintf (r->dataset_name, sizeof r->dataset_name, "%s", dataset->name);
  snprintf (r->dataset_path, sizeof r->dataset_path, "%s", dataset->path);
  r->train_samples = dataset->train.count;
  r->test_samples = dataset->test.count;

  /* the model's size, where its spec fits the data */
  NnSpec *spec = NULL;
  NnError ignored;
  NnInputShape input = { dataset->train.channels, dataset->train.height, dataset->train.width };
  if (nn_spec_parse (r->spec_text, &spec, &ignored) == NN_OK)
    {
      if (nn_spec_infer (spec, input, NULL, &r->params, &ignored) != NN_OK)
        r->params = 0;
      nn_spec_free (spec);
    }
}

/* The result file: the one the request names, or a new one in the runs
 * folder that never replaces another run's. */
static void
record (NnRunner *runner)
{
  const NnRunRequest *request = &runner->request;
  char folder[4096];

  nn_error_clear (&runner->write_error);
  runner->result_path[0] = '\0';
  snprintf (runner->result.sweep_id, sizeof runner->result.sweep_id, "%s",
            request->sweep_id != NULL ? request->sweep_id : "");
  if (request->result_path != NULL)
    {
      snprintf (runner->result_path, sizeof runner->result_path, "%s", request->result_path);
      runner->write_status = nn_result_write (&runner->result, request->system,
                                              runner->result_path, &runner->write_error);
    }
  else
    {
      result_folder (request, folder, sizeof folder);
      runner->write_status = nn_folder_create (folder, &runner->write_error);
      if (runner->write_status == NN_OK)
        runner->write_status = nn_result_write_new (&runner->result, request->system, folder,
                                                    runner->result_path,
                                                    sizeof runner->result_path,
                                                    &runner->write_error);
    }
  if (runner->write_status != NN_OK)
    runner->result_path[0] = '\0';
}

NnStatus
nn_runner_run (NnRunner *runner, NnError *error)
{
  NnTrainer *trainer;
  NnError local;
  NnStatus status;

  if (error == NULL)
    error = &local;
  nn_error_clear (error);
  if (runner->ran)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "this run has already run");
  runner->ran = true;

  status = nn_runner_prepare (runner, error);
  trainer = atomic_load (&runner->trainer);
  if (runner->refused)
    {
      /* nothing ran, nothing is recorded: the folder could not take it */
      result_fill_early (runner, NN_RUN_FAILED, error->message);
      runner->write_status = status;
      runner->write_error = *error;
      return status;
    }
  /* a cancel that came while the data set loaded wins over what failed */
  if (cancelled (runner))
    {
      status = _nn_error_set (error, NN_ERROR_CANCELLED, "cancelled before the first step");
      result_fill_early (runner, NN_RUN_CANCELLED, error->message);
    }
  else if (status != NN_OK)
    result_fill_early (runner, NN_RUN_FAILED, error->message);
  else
    {
      status = nn_trainer_run (trainer, &runner->result, error);
      /* The trainer reports why it stopped in the result as well; keep the
       * status and the file in agreement even if it did not. */
      if (status == NN_ERROR_CANCELLED)
        runner->result.status = NN_RUN_CANCELLED;
      else if (status != NN_OK && runner->result.status == NN_RUN_COMPLETED)
        {
          runner->result.status = NN_RUN_FAILED;
          if (runner->result.error[0] == '\0')
            snprintf (runner->result.error, sizeof runner->result.error, "%s", error->message);
        }
      if (status != NN_OK && error->code == NN_OK)
        error->code = status;
    }
  record (runner);
  return status;
}

const NnRunResult *
nn_runner_result (const NnRunner *runner)
{
  return &runner->result;
}

const char *
nn_runner_result_path (const NnRunner *runner)
{
  return runner->result_path[0] != '\0' ? runner->result_path : NULL;
}

NnStatus
nn_runner_write_status (const NnRunner *runner, NnError *error)
{
  if (error != NULL)
    *error = runner->write_error;
  return runner->ran ? runner->write_status : NN_OK;
}

bool
nn_runner_result_unwritten (const NnRunner *runner)
{
  return runner->ran && !runner->refused && runner->write_status != NN_OK;
}

NnStatus
nn_runner_write_result (NnRunner *runner, const char *path, NnError *error)
{
  NnError local;

  if (error == NULL)
    error = &local;
  if (!runner->ran || runner->refused)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "this run has no result to write");
  NnStatus status = nn_result_write (&runner->result, runner->request.system, path, error);
  if (status != NN_OK)
    return status;
  snprintf (runner->result_path, sizeof runner->result_path, "%s", path);
  runner->write_status = NN_OK;
  nn_error_clear (&runner->write_error);
  return NN_OK;
}

const NnDataset *
nn_runner_dataset (const NnRunner *runner)
{
  return runner->dataset;
}

NnDataset *
nn_runner_take_dataset (NnRunner *runner)
{
  NnDataset *dataset = runner->loaded;

  runner->loaded = NULL;
  if (dataset != NULL)
    runner->dataset = NULL;
  return dataset;
}

NnModel *
nn_runner_model (NnRunner *runner)
{
  NnTrainer *trainer = atomic_load (&runner->trainer);

  return trainer != NULL ? nn_trainer_model (trainer) : NULL;
}
