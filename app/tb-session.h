/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-session.h: one training run off the UI thread. The engine runs in a GTask
 * worker; its progress is coalesced under a mutex and flushed to the main
 * loop by one low-priority idle, then announced with the "progress" signal.
 */
#pragma once

#include <gio/gio.h>

#include "trainbench.h"

G_BEGIN_DECLS

#define TB_SESSION_ERROR (tb_session_error_quark ())
/* Error codes of TB_SESSION_ERROR are the engine's NnStatus values. */
GQuark tb_session_error_quark (void);

typedef struct
{
  char *spec_text;        /* owned */
  char *model_name;       /* owned; preset name or NULL */
  char *dataset;          /* owned; data set name or path */
  int train_limit;        /* 0 = all samples */
  int test_limit;
  NnOptimizer optimizer;
  int batch_size;
  int epochs;
  guint64 seed;
  NnDeviceOptions device;
  int max_steps;          /* 0 = no limit */
  NnConditions conditions; /* how batches reach the device and how it is driven */
  char *runs_dir;         /* owned; where the result is written */
} TbSessionConfig;

void tb_session_config_init (TbSessionConfig *config);
/* The preset's model, optimizer, learning rate, batch size and epochs, as
 * nn_train_config_use_preset sets them. */
void tb_session_config_use_preset (TbSessionConfig *config,
                                   const NnPreset  *preset);
void tb_session_config_clear (TbSessionConfig *config);
/* Clear and free a heap-allocated config. */
void tb_session_config_clear_free (TbSessionConfig *config);
void tb_session_config_copy (TbSessionConfig       *dest,
                             const TbSessionConfig *src);
/* Can the run's result be written into its runs folder (writable, with
 * room for its epochs: nn_runner_check_folder)? FALSE, with the folder's
 * trouble in `error`, refuses the run before it starts. */
gboolean tb_session_config_check_folder (const TbSessionConfig  *config,
                                         GError                **error);

typedef enum
{
  TB_SESSION_READY,
  TB_SESSION_LOADING,    /* reading the data set, building the model */
  TB_SESSION_RUNNING,
  TB_SESSION_FINISHED,
} TbSessionState;

#define TB_TYPE_SESSION (tb_session_get_type ())
G_DECLARE_FINAL_TYPE (TbSession, tb_session, TB, SESSION, GObject)

TbSession *tb_session_new (const TbSessionConfig *config);
TbSessionState tb_session_get_state (TbSession *self);

/* Load the data set, build the model, train and write the result file
 * (nn_runner_run) in a worker thread. Cancelling `cancellable` (may be
 * NULL) stops the run like tb_session_stop. */
void tb_session_run_async (TbSession           *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data);
/* TRUE when the run completed. On FALSE the error says why (code
 * NN_ERROR_CANCELLED for a stopped run). Every run leaves a result file,
 * also a failed or cancelled one, unless the file itself could not be
 * written (then that is the error). */
gboolean tb_session_run_finish (TbSession     *self,
                                GAsyncResult  *result,
                                GError       **error);

/* Ask the run to stop; safe to call at any time from the main thread. The
 * engine stops within one step. */
void tb_session_stop (TbSession *self);

/* Progress so far, as flushed to the main thread (main thread only). */
const NnProgress *tb_session_get_latest (TbSession *self);
GArray *tb_session_get_loss_steps (TbSession *self);    /* double: step */
GArray *tb_session_get_loss_values (TbSession *self);   /* double: loss */
GArray *tb_session_get_speed_times (TbSession *self);   /* double: elapsed seconds */
GArray *tb_session_get_speed_values (TbSession *self);  /* double: samples per second */
GArray *tb_session_get_epochs (TbSession *self);        /* NnEpochRecord */
/* How many idles flushed progress (for tests: far fewer than steps). */
guint tb_session_get_flush_count (TbSession *self);
guint tb_session_get_report_count (TbSession *self);

/* After the run: the result file (or NULL), and the trained model and data
 * set kept for inspection (borrowed, valid while the session lives). */
const char *tb_session_get_result_path (TbSession *self);
/* After the run: TRUE while its result could not be written into the runs
 * folder (a disk that filled up, a folder made read-only while it
 * trained): the session keeps it until tb_session_save_result writes it
 * elsewhere, or the session goes. Its run id names the file to suggest. */
gboolean tb_session_get_unsaved (TbSession *self);
const char *tb_session_get_run_id (TbSession *self);
gboolean tb_session_save_result (TbSession   *self,
                                 const char  *path,
                                 GError     **error);
NnModel *tb_session_get_model (TbSession *self);
const NnDataset *tb_session_get_dataset (TbSession *self);
/* Before the run: take over the data set `previous` (a finished session)
 * loaded, when both read the same data set with the same limits, so a queue
 * (reproduce) reads it once. TRUE when it did; `previous` then has none. */
gboolean tb_session_adopt_dataset (TbSession *self,
                                   TbSession *previous);
/* A translated headline for an engine status ("The model does not fit"). */
const char *tb_session_status_headline (NnStatus status);

G_END_DECLS
