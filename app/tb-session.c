/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-session.c: runs the engine's recorded run (nn_runner_run: load, build,
 * train, write the result file) in a GTask worker that touches no widget,
 * coalesces its progress under a mutex and flushes it with one low-priority
 * idle, and keeps the model for later.
 */
#define G_LOG_DOMAIN "trainbench-session"

#include "tb-config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "tb-error.h"
#include "tb-session.h"

struct _TbSession
{
  GObject parent_instance;

  /* owned */
  TbSessionConfig config;
  NnDataset *preloaded;     /* handed over before the run (tb_session_adopt_dataset);
                             * lent to the runner instead of loading */
  NnRunner *runner;         /* made by tb_session_run_async; the worker runs it,
                             * the main thread reads it after the run */
  char *result_path;
  TbSessionState state;
  gboolean stop_requested;  /* tb_session_stop before the run started */
  gboolean dataset_handed_on; /* the next session adopted the data set */
  GCancellable *cancellable; /* the run's, connected to the runner until it ends */
  gulong cancelled_id;

  /* shared with the worker, under `lock` */
  GMutex lock;
  gboolean flush_scheduled;
  gboolean state_loading_done;
  NnProgress pending_latest;
  gboolean pending_has_latest;
  GArray *pending_steps;     /* double pairs: step, loss */
  GArray *pending_speed;     /* double pairs: seconds, samples per second */
  GArray *pending_epochs;    /* NnEpochRecord */
  guint report_count;

  /* main thread only */
  NnProgress latest;
  GArray *loss_steps;
  GArray *loss_values;
  GArray *speed_times;
  GArray *speed_values;
  GArray *epochs;
  guint flush_count;
};

G_DEFINE_FINAL_TYPE (TbSession, tb_session, G_TYPE_OBJECT)

enum
{
  SIGNAL_PROGRESS,
  SIGNAL_STATE_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_QUARK (tb-session-error-quark, tb_session_error)

void
tb_session_config_init (TbSessionConfig *config)
{
  NnTrainConfig defaults;

  g_return_if_fail (config != NULL);

  nn_train_config_init (&defaults);
  memset (config, 0, sizeof *config);
  config->optimizer = defaults.optimizer;
  config->batch_size = defaults.batch_size;
  config->epochs = defaults.epochs;
  config->seed = defaults.seed;
  config->device = defaults.device;
  config->conditions = defaults.conditions;
}

void
tb_session_config_use_preset (TbSessionConfig *config,
                              const NnPreset  *preset)
{
  NnTrainConfig settings;

  g_return_if_fail (config != NULL && preset != NULL);

  /* the engine says what a preset sets; this config owns its strings */
  nn_train_config_init (&settings);
  nn_train_config_use_preset (&settings, preset);
  g_free (config->spec_text);
  g_free (config->model_name);
  config->spec_text = g_strdup (settings.spec_text);
  config->model_name = g_strdup (settings.model_name);
  config->optimizer = settings.optimizer;
  config->batch_size = settings.batch_size;
  config->epochs = settings.epochs;
}

void
tb_session_config_clear (TbSessionConfig *config)
{
  g_clear_pointer (&config->spec_text, g_free);
  g_clear_pointer (&config->model_name, g_free);
  g_clear_pointer (&config->dataset, g_free);
  g_clear_pointer (&config->runs_dir, g_free);
}

void
tb_session_config_clear_free (TbSessionConfig *config)
{
  if (config == NULL)
    return;
  tb_session_config_clear (config);
  g_free (config);
}

void
tb_session_config_copy (TbSessionConfig       *dest,
                        const TbSessionConfig *src)
{
  *dest = *src;
  dest->spec_text = g_strdup (src->spec_text);
  dest->model_name = g_strdup (src->model_name);
  dest->dataset = g_strdup (src->dataset);
  dest->runs_dir = g_strdup (src->runs_dir);
}

const char *
tb_session_status_headline (NnStatus status)
{
  switch (status)
    {
    case NN_OK:
      return _("Done");
    case NN_ERROR_INVALID_ARGUMENT:
      return _("A setting is not valid");
    case NN_ERROR_IO:
      return _("A file could not be read or written");
    case NN_ERROR_FORMAT:
      return _("The file is not in a format Trainbench reads");
    case NN_ERROR_SPEC:
      return _("The model description has an error");
    case NN_ERROR_SHAPE:
      return _("A layer does not fit its input");
    case NN_ERROR_NO_MEMORY:
      return _("Not enough memory");
    case NN_ERROR_DEVICE:
      return _("The device failed");
    case NN_ERROR_DEVICE_MEMORY:
      return _("The device ran out of memory");
    case NN_ERROR_DEVICE_LOST:
      return _("The device is no longer usable");
    case NN_ERROR_UNAVAILABLE:
      return _("Not available on this computer");
    case NN_ERROR_CANCELLED:
      return _("Training was stopped");
    case NN_ERROR_DIVERGED:
      return _("Training diverged (the loss is not a number)");
    default:
      return _("Training failed");
    }
}

static void
disconnect_cancellable (TbSession *self)
{
  if (self->cancellable == NULL)
    return;
  g_cancellable_disconnect (self->cancellable, self->cancelled_id);
  self->cancelled_id = 0;
  g_clear_object (&self->cancellable);
}

static void
tb_session_finalize (GObject *object)
{
  TbSession *self = TB_SESSION (object);

  disconnect_cancellable (self);
  g_clear_pointer (&self->runner, nn_runner_free);
  g_clear_pointer (&self->preloaded, nn_dataset_free);
  tb_session_config_clear (&self->config);
  g_free (self->result_path);
  g_array_unref (self->pending_steps);
  g_array_unref (self->pending_speed);
  g_array_unref (self->pending_epochs);
  g_array_unref (self->loss_steps);
  g_array_unref (self->loss_values);
  g_array_unref (self->speed_times);
  g_array_unref (self->speed_values);
  g_array_unref (self->epochs);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (tb_session_parent_class)->finalize (object);
}

static void
tb_session_class_init (TbSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = tb_session_finalize;

  /* Emitted on the main thread after new progress was flushed. */
  signals[SIGNAL_PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_STATE_CHANGED] =
    g_signal_new ("state-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
tb_session_init (TbSession *self)
{
  g_mutex_init (&self->lock);
  self->pending_steps = g_array_new (FALSE, FALSE, sizeof (double));
  self->pending_speed = g_array_new (FALSE, FALSE, sizeof (double));
  self->pending_epochs = g_array_new (FALSE, FALSE, sizeof (NnEpochRecord));
  self->loss_steps = g_array_new (FALSE, FALSE, sizeof (double));
  self->loss_values = g_array_new (FALSE, FALSE, sizeof (double));
  self->speed_times = g_array_new (FALSE, FALSE, sizeof (double));
  self->speed_values = g_array_new (FALSE, FALSE, sizeof (double));
  self->epochs = g_array_new (FALSE, FALSE, sizeof (NnEpochRecord));
  self->latest.eta_seconds = -1;
}

TbSession *
tb_session_new (const TbSessionConfig *config)
{
  TbSession *self;

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (config->spec_text != NULL, NULL);
  g_return_val_if_fail (config->dataset != NULL, NULL);

  self = g_object_new (TB_TYPE_SESSION, NULL);
  tb_session_config_copy (&self->config, config);
  return self;
}

TbSessionState
tb_session_get_state (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), TB_SESSION_READY);
  return self->state;
}

static void
set_state (TbSession      *self,
           TbSessionState  state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_signal_emit (self, signals[SIGNAL_STATE_CHANGED], 0);
}

/* Main thread: move what the worker collected into the public arrays. */
static void
flush_pending (TbSession *self)
{
  gboolean changed, loading_done;

  g_mutex_lock (&self->lock);
  self->flush_scheduled = FALSE;
  loading_done = self->state_loading_done;
  changed = self->pending_has_latest || self->pending_epochs->len > 0;
  if (self->pending_has_latest)
    self->latest = self->pending_latest;
  self->pending_has_latest = FALSE;
  for (guint i = 0; i + 1 < self->pending_steps->len; i += 2)
    {
      g_array_append_val (self->loss_steps, g_array_index (self->pending_steps, double, i));
      g_array_append_val (self->loss_values, g_array_index (self->pending_steps, double, i + 1));
    }
  for (guint i = 0; i + 1 < self->pending_speed->len; i += 2)
    {
      g_array_append_val (self->speed_times, g_array_index (self->pending_speed, double, i));
      g_array_append_val (self->speed_values, g_array_index (self->pending_speed, double, i + 1));
    }
  g_array_append_vals (self->epochs, self->pending_epochs->data, self->pending_epochs->len);
  g_array_set_size (self->pending_steps, 0);
  g_array_set_size (self->pending_speed, 0);
  g_array_set_size (self->pending_epochs, 0);
  g_mutex_unlock (&self->lock);

  if (loading_done && self->state == TB_SESSION_LOADING)
    set_state (self, TB_SESSION_RUNNING);
  if (changed)
    {
      self->flush_count++;
      g_signal_emit (self, signals[SIGNAL_PROGRESS], 0);
    }
}

static gboolean
flush_idle_cb (gpointer user_data)
{
  flush_pending (TB_SESSION (user_data));
  return G_SOURCE_REMOVE;
}

/* Worker thread, with the lock held: make sure one flush is on its way. */
static void
schedule_flush_locked (TbSession *self)
{
  if (self->flush_scheduled)
    return;
  self->flush_scheduled = TRUE;
  g_idle_add_full (G_PRIORITY_LOW, flush_idle_cb, g_object_ref (self), g_object_unref);
}

/* Worker thread: called by the engine every few steps. */
static bool
progress_cb (const NnProgress *progress,
             void             *user_data)
{
  TbSession *self = user_data;

  g_mutex_lock (&self->lock);
  self->report_count++;
  self->pending_latest = *progress;
  self->pending_has_latest = TRUE;
  if (progress->kind == NN_PROGRESS_STEP)
    {
      double pair[2] = { (double) progress->step, progress->loss };
      double speed[2] = { progress->elapsed_seconds, progress->samples_per_second };

      g_array_append_vals (self->pending_steps, pair, 2);
      if (progress->samples_per_second > 0)
        g_array_append_vals (self->pending_speed, speed, 2);
    }
  else
    {
      NnEpochRecord record = {
        .epoch = progress->epoch,
        .seconds = progress->epoch_seconds,
        .train_loss = progress->train_loss,
        .train_accuracy = progress->train_accuracy,
        .test_loss = progress->test_loss,
        .test_accuracy = progress->test_accuracy,
        .samples_per_second = progress->samples_per_second,
      };

      g_array_append_val (self->pending_epochs, record);
    }
  schedule_flush_locked (self);
  g_mutex_unlock (&self->lock);

  /* a stop reaches the trainer through nn_runner_cancel */
  return true;
}

/* The request of the run `cfg` describes (strings borrowed from it). */
static void
request_from_config (const TbSessionConfig *cfg,
                     NnRunRequest          *request)
{
  nn_run_request_init (request);
  request->config.spec_text = cfg->spec_text;
  request->config.model_name = cfg->model_name;
  request->config.optimizer = cfg->optimizer;
  request->config.batch_size = cfg->batch_size;
  request->config.epochs = cfg->epochs;
  request->config.seed = cfg->seed;
  request->config.device = cfg->device;
  request->config.max_steps = cfg->max_steps;
  request->config.conditions = cfg->conditions;
  request->dataset_name = cfg->dataset;
  request->limit_train = cfg->train_limit;
  request->limit_test = cfg->test_limit;
  request->result_folder = cfg->runs_dir;
}

gboolean
tb_session_config_check_folder (const TbSessionConfig  *config,
                                GError                **error)
{
  NnRunRequest request;
  NnError err;

  g_return_val_if_fail (config != NULL, FALSE);

  request_from_config (config, &request);
  nn_error_clear (&err);
  if (nn_runner_check_folder (&request, &err) != NN_OK)
    {
      g_propagate_error (error, tb_error_new (&err));
      return FALSE;
    }
  return TRUE;
}

static void
run_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  TbSession *self = source_object;
  NnError err = { 0 };
  NnError werr = { 0 };
  NnStatus status;

  /* Load, build, train and record in one: every run that starts leaves a
   * result file, also one whose data set or model fails. */
  status = nn_runner_prepare (self->runner, &err);
  if (status == NN_OK)
    {
      g_mutex_lock (&self->lock);
      self->state_loading_done = TRUE;
      schedule_flush_locked (self);
      g_mutex_unlock (&self->lock);
    }
  status = nn_runner_run (self->runner, &err);
  g_task_set_task_data (task, g_strdup (nn_runner_result_path (self->runner)), g_free);

  if (nn_runner_write_status (self->runner, &werr) != NN_OK)
    g_task_return_error (task, tb_error_new (&werr));
  else if (status != NN_OK)
    {
      if (err.code == NN_OK)
        err.code = status;
      g_task_return_error (task, tb_error_new (&err));
    }
  else
    g_task_return_boolean (task, TRUE);
}

/* Any thread: the GCancellable given to tb_session_run_async was cancelled. */
static void
cancelled_cb (GCancellable *cancellable,
              gpointer      user_data)
{
  nn_runner_cancel (user_data);
}

void
tb_session_run_async (TbSession           *self,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  const TbSessionConfig *cfg = &self->config;
  g_autoptr(GTask) task = NULL;
  NnRunRequest request;
  NnError err = { 0 };

  g_return_if_fail (TB_IS_SESSION (self));
  g_return_if_fail (self->state == TB_SESSION_READY);

  request_from_config (cfg, &request);
  /* the main thread no longer touches `preloaded` while the run goes on */
  request.dataset = self->preloaded;
  request.progress = progress_cb;
  request.progress_data = self;

  set_state (self, TB_SESSION_LOADING);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, tb_session_run_async);
  /* a cancelled run returns its own error (NN_ERROR_CANCELLED), after its
   * result file is written, not GIO's at once */
  g_task_set_check_cancellable (task, FALSE);
  if (nn_runner_new (&request, &self->runner, &err) != NN_OK)
    {
      g_task_return_error (task, tb_error_new (&err));
      return;
    }
  /* A cancel of the caller's GCancellable stops the trainer within a step,
   * or the run before it starts; the run is recorded as cancelled. */
  if (cancellable != NULL)
    {
      self->cancellable = g_object_ref (cancellable);
      self->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (cancelled_cb),
                                                  self->runner, NULL);
    }
  if (self->stop_requested)
    nn_runner_cancel (self->runner);
  g_task_run_in_thread (task, run_thread);
}

gboolean
tb_session_run_finish (TbSession     *self,
                       GAsyncResult  *result,
                       GError       **error)
{
  gboolean ok;

  g_return_val_if_fail (TB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  /* the worker is done: take what it reported last, even if its idle has
   * not run yet */
  flush_pending (self);
  disconnect_cancellable (self);
  g_free (self->result_path);
  self->result_path = g_strdup (g_task_get_task_data (G_TASK (result)));
  ok = g_task_propagate_boolean (G_TASK (result), error);
  set_state (self, TB_SESSION_FINISHED);
  return ok;
}

void
tb_session_stop (TbSession *self)
{
  g_return_if_fail (TB_IS_SESSION (self));

  self->stop_requested = TRUE;
  if (self->runner != NULL)
    nn_runner_cancel (self->runner);
}

const NnProgress *
tb_session_get_latest (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), NULL);
  return &self->latest;
}

GArray *
tb_session_get_loss_steps (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), NULL);
  return self->loss_steps;
}

GArray *
tb_session_get_loss_values (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), NULL);
  return self->loss_values;
}

GArray *
tb_session_get_speed_times (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), NULL);
  return self->speed_times;
}

GArray *
tb_session_get_speed_values (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), NULL);
  return self->speed_values;
}

GArray *
tb_session_get_epochs (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), NULL);
  return self->epochs;
}

guint
tb_session_get_flush_count (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), 0);
  return self->flush_count;
}

guint
tb_session_get_report_count (TbSession *self)
{
  guint n;

  g_return_val_if_fail (TB_IS_SESSION (self), 0);
  g_mutex_lock (&self->lock);
  n = self->report_count;
  g_mutex_unlock (&self->lock);
  return n;
}

const char *
tb_session_get_result_path (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), NULL);
  return self->result_path;
}

gboolean
tb_session_get_unsaved (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), FALSE);
  return self->state == TB_SESSION_FINISHED && self->runner != NULL
         && nn_runner_result_unwritten (self->runner);
}

const char *
tb_session_get_run_id (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), NULL);
  if (self->state != TB_SESSION_FINISHED || self->runner == NULL)
    return NULL;
  return nn_runner_result (self->runner)->run_id;
}

gboolean
tb_session_save_result (TbSession   *self,
                        const char  *path,
                        GError     **error)
{
  NnError err;

  g_return_val_if_fail (TB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (self->state == TB_SESSION_FINISHED && self->runner != NULL, FALSE);

  nn_error_clear (&err);
  if (nn_runner_write_result (self->runner, path, &err) != NN_OK)
    {
      g_propagate_error (error, tb_error_new (&err));
      return FALSE;
    }
  g_free (self->result_path);
  self->result_path = g_strdup (nn_runner_result_path (self->runner));
  return TRUE;
}

NnModel *
tb_session_get_model (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), NULL);
  if (self->state != TB_SESSION_FINISHED || self->runner == NULL)
    return NULL;
  return nn_runner_model (self->runner);
}

/* The data set the finished run used: the one it was lent or the one it
 * loaded, until the next session adopts it. */
static const NnDataset *
session_dataset (TbSession *self)
{
  if (self->dataset_handed_on || self->runner == NULL)
    return NULL;
  return nn_runner_dataset (self->runner);
}

gboolean
tb_session_adopt_dataset (TbSession *self,
                          TbSession *previous)
{
  g_return_val_if_fail (TB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (TB_IS_SESSION (previous), FALSE);
  if (self->state != TB_SESSION_READY || self->preloaded != NULL
      || previous->state != TB_SESSION_FINISHED || session_dataset (previous) == NULL
      || g_strcmp0 (self->config.dataset, previous->config.dataset) != 0
      || self->config.train_limit != previous->config.train_limit
      || self->config.test_limit != previous->config.test_limit)
    return FALSE;
  if (previous->preloaded != NULL)
    self->preloaded = g_steal_pointer (&previous->preloaded);
  else
    self->preloaded = nn_runner_take_dataset (previous->runner);
  previous->dataset_handed_on = TRUE;
  return self->preloaded != NULL;
}

const NnDataset *
tb_session_get_dataset (TbSession *self)
{
  g_return_val_if_fail (TB_IS_SESSION (self), NULL);
  if (self->state != TB_SESSION_FINISHED)
    return NULL;
  return session_dataset (self);
}
