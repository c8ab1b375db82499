/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-window.c: the main window: its frame, the five pages (TbModelPage,
 * TbDataPage, TbTrainPage, TbRunsPage, TbExplorePage) wired together, and the messages of
 * the runs; the actions are in tb-window-actions.c.
 */
#define G_LOG_DOMAIN "trainbench-window"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "tb-window-private.h"

G_DEFINE_FINAL_TYPE (TbWindow, tb_window, ADW_TYPE_APPLICATION_WINDOW)

/* ------------------------------------------------------------ messages */

void
tb_window_add_toast (TbWindow *self,
                     AdwToast *toast)
{
  g_return_if_fail (TB_IS_WINDOW (self));
  g_return_if_fail (ADW_IS_TOAST (toast));

  g_set_weak_pointer (&self->last_toast, toast);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

void
tb_window_toast (TbWindow   *self,
                 const char *text)
{
  g_autofree char *bounded = tb_window_bound_text (text, 200);
  /* a toast's title is markup: a file's name with "&" or "<" in it is text */
  g_autofree char *title = g_markup_escape_text (bounded, -1);
  AdwToast *toast = adw_toast_new (title);

  adw_toast_set_timeout (toast, 5);
  tb_window_add_toast (self, toast);
}

void
_tb_window_dismiss_toast (TbWindow *self)
{
  if (self->last_toast != NULL)
    adw_toast_dismiss (self->last_toast);
}

AdwToast *
_tb_window_get_last_toast (TbWindow *self)
{
  return self->last_toast;
}

/* The most of an error's message a dialog shows: the detail of a problem
 * is a sentence or two, and a longer one (quoting a file) would make the
 * dialog taller than the screen and take GTK seconds to lay out. */
#define ERROR_BODY_MAX 600

char *
tb_window_bound_text (const char *text,
                      gsize       max_chars)
{
  g_autofree char *valid = NULL;
  const char *cut;

  if (text == NULL)
    return NULL;
  valid = g_utf8_make_valid (text, -1);
  if (max_chars == 0 || g_utf8_strlen (valid, -1) <= (glong) max_chars)
    return g_steal_pointer (&valid);
  cut = g_utf8_offset_to_pointer (valid, (glong) max_chars - 1);
  {
    GString *out = g_string_new_len (valid, cut - valid);

    g_string_append (out, "…");
    return g_string_free (out, FALSE);
  }
}

/* A problem the user must read: a dialog with a headline and the detail. */
void
tb_window_error (TbWindow     *self,
                 const char   *headline,
                 const GError *error)
{
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  g_return_if_fail (TB_IS_WINDOW (self));

  body = error != NULL ? tb_window_bound_text (error->message, ERROR_BODY_MAX) : NULL;
  dialog = adw_message_dialog_new (GTK_WINDOW (self), headline, body);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ------------------------------------------------------------ state */

gboolean
tb_window_is_training (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), FALSE);
  return tb_train_page_get_training (self->train_page);
}

gboolean
tb_window_start_enabled (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), FALSE);

  return !tb_window_is_training (self) && !tb_explore_page_get_running (self->explore_page)
         && self->builder != NULL
         && tb_model_builder_is_valid (self->builder) && tb_data_page_get_dataset (self->data_page) != NULL
         && tb_train_page_get_device_index (self->train_page) >= 0;
}

void
_tb_window_update_actions (TbWindow *self)
{
  gboolean training = tb_window_is_training (self);
  gboolean can_start = tb_window_start_enabled (self);
  TbSession *session = tb_train_page_get_session (self->train_page);
  gboolean can_inspect = !training && session != NULL && tb_session_get_model (session) != NULL;
  gboolean devices_pending = tb_train_page_get_devices_pending (self->train_page);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.start", can_start);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop", training);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reproduce", !training && !devices_pending);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.inspect", can_inspect);
  gtk_widget_set_visible (self->stop_button, training);
  gtk_widget_set_visible (self->start_button, !training);
  /* a sweep and a run would share the machine and time each other's work */
  tb_explore_page_set_busy (self->explore_page, training ? _("Training goes on: a sweep can start once it is over") : NULL);

  if (self->builder != NULL && !tb_model_builder_is_valid (self->builder))
    gtk_widget_set_tooltip_text (self->start_button, _("Fix the model first (see the Model page)"));
  else if (tb_data_page_get_dataset (self->data_page) == NULL)
    gtk_widget_set_tooltip_text (self->start_button, _("Choose a data set first (see the Data page)"));
  else if (devices_pending)
    gtk_widget_set_tooltip_text (self->start_button, _("Looking for devices…"));
  else if (tb_explore_page_get_running (self->explore_page))
    gtk_widget_set_tooltip_text (self->start_button, _("A sweep goes on (see the Explore page)"));
  else
    gtk_widget_set_tooltip_text (self->start_button, _("Start training (Ctrl+Enter)"));
}

/* ------------------------------------------------------------ runs */

gboolean
_tb_window_check_runs_folder (TbWindow  *self,
                              GPtrArray *configs)
{
  for (guint i = 0; i < configs->len; i++)
    {
      g_autoptr(GError) error = NULL;

      if (!tb_session_config_check_folder (g_ptr_array_index (configs, i), &error))
        {
          tb_window_error (self, _("The runs folder cannot take the run’s result; choose another in Preferences"),
                           error);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
destroy_idle_cb (gpointer data)
{
  gtk_window_destroy (GTK_WINDOW (data));
  return G_SOURCE_REMOVE;
}

/* The user has answered the offer to save a run: the window goes if it was
 * closed meanwhile, once the answer's dialog is done with. */
static void
unsaved_settled (TbWindow *self)
{
  g_clear_pointer (&self->unsaved_why, g_free);
  if (self->close_when_kept && !tb_explore_page_get_running (self->explore_page))
    g_idle_add_full (G_PRIORITY_DEFAULT, destroy_idle_cb, g_object_ref (self), g_object_unref);
}

static void offer_save (TbWindow *self);

static void
save_as_response_cb (GtkNativeDialog *dialog,
                     int              response,
                     TbWindow        *self)
{
  g_autofree char *path = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      path = file != NULL ? g_file_get_path (file) : NULL;
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  /* nothing chosen: the offer again, so the run is never dropped unasked */
  if (path == NULL)
    offer_save (self);
  else
    _tb_window_save_run_as (self, path);
  g_object_unref (self);
}

static void
save_response_cb (AdwMessageDialog *dialog,
                  const char       *response,
                  TbWindow         *self)
{
  TbSession *session = tb_train_page_get_session (self->train_page);
  GtkFileChooserNative *chooser;
  g_autofree char *name = NULL;
  g_autoptr(GFile) home = NULL;

  if (g_strcmp0 (response, "save") != 0 || session == NULL || !tb_session_get_unsaved (session))
    {
      unsaved_settled (self);
      return;
    }
  chooser = gtk_file_chooser_native_new (_("Save the Run"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  name = g_strconcat (tb_session_get_run_id (session), ".json", NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  home = g_file_new_for_path (g_get_home_dir ());
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), home, NULL);
  g_signal_connect (chooser, "response", G_CALLBACK (save_as_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* The run's result could not be written into the runs folder: the session
 * keeps it; say why, and offer to save it elsewhere or, asked for, to let
 * it go. Closing the offer is Save As, never a loss. */
static void
offer_save (TbWindow *self)
{
  g_autofree char *why = tb_window_bound_text (self->unsaved_why != NULL ? self->unsaved_why : "",
                                               ERROR_BODY_MAX);
  g_autofree char *body = g_strdup_printf ("%s\n\n%s", why,
                                           _("The run is kept until you save it elsewhere or discard it."));
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), _("The Run Could Not Be Saved"), body);

  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "discard", _("_Discard Run"),
                                    "save", _("_Save As…"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "save");
  g_signal_connect (dialog, "response", G_CALLBACK (save_response_cb), self);
  g_set_weak_pointer (&self->save_dialog, ADW_MESSAGE_DIALOG (dialog));
  gtk_window_present (GTK_WINDOW (dialog));
}

gboolean
_tb_window_save_run_as (TbWindow   *self,
                        const char *path)
{
  TbSession *session = tb_train_page_get_session (self->train_page);
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (TB_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (session != NULL && tb_session_get_unsaved (session), FALSE);

  if (self->save_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->save_dialog));
  if (!tb_session_save_result (session, path, &error))
    {
      g_free (self->unsaved_why);
      self->unsaved_why = g_strdup (error->message);
      offer_save (self);
      return FALSE;
    }
  {
    g_autofree char *base = g_path_get_basename (path);
    g_autofree char *msg = g_strdup_printf (_("The run is saved as “%s”"), base);

    tb_window_toast (self, msg);
  }
  unsaved_settled (self);
  return TRUE;
}

/* A run of the Train page is over: say so, list it on the Runs page, and
 * let a batch go on. */
static void
run_finished_cb (TbTrainPage  *page,
                 const char   *path,
                 const GError *error,
                 TbWindow     *self)
{
  TbSession *session = tb_train_page_get_session (page);

  if (session != NULL && tb_session_get_unsaved (session))
    {
      /* trained, but not written: never dropped unasked, not even when
       * the window was closed (or the app told to quit) meanwhile */
      if (self->close_when_done)
        {
          self->close_when_done = FALSE;
          self->close_when_kept = TRUE;
          gtk_window_present (GTK_WINDOW (self));
        }
      g_free (self->unsaved_why);
      self->unsaved_why = g_strdup (error != NULL ? error->message : "");
      offer_save (self);
      _tb_window_update_actions (self);
      tb_run_queue_run_done (self->run_queue, NULL, error);
      return;
    }
  if (self->close_when_done)
    {
      /* closed while training: the stopped run is saved now, so go
       * (once a sweep stopped with it has its file written too) */
      if (!tb_explore_page_get_running (self->explore_page))
        gtk_window_destroy (GTK_WINDOW (self));
      return;
    }

  if (error == NULL)
    tb_window_toast (self, _("Training finished; the run is saved"));
  else if (g_error_matches (error, TB_SESSION_ERROR, NN_ERROR_CANCELLED))
    tb_window_toast (self, _("Training stopped"));
  else
    tb_window_error (self, tb_session_status_headline ((NnStatus) error->code), error);

  /* only the new file is read; the rest of the history has not changed;
   * a run of a batch is ticked with the others at the batch's end */
  if (path != NULL)
    tb_runs_page_add (self->runs_page, path, !tb_run_queue_is_active (self->run_queue));
  _tb_window_update_actions (self);

  tb_run_queue_run_done (self->run_queue, path, error);
}

static void
queue_start_run_cb (TbRunQueue      *queue,
                    TbSessionConfig *config,
                    TbWindow        *self)
{
  tb_train_page_start (self->train_page, config);
}

/* Reproduce finished: all its runs side by side. */
static void
queue_finished_cb (TbRunQueue         *queue,
                   const char * const *paths,
                   TbWindow           *self)
{
  tb_runs_page_compare (self->runs_page, paths);
  tb_window_show_page (self, "runs");
}

/* The runs folder changed (or is another one now): the report follows. */
static void
history_changed_cb (TbRunHistory *history,
                    TbWindow     *self)
{
  tb_articles_page_set_folder (self->articles_page, tb_run_history_get_folder (history));
}

NnDeviceInfo *
_tb_window_get_devices (TbWindow *self,
                        guint    *n)
{
  NnDeviceInfo *devices;

  *n = tb_train_page_get_n_devices (self->train_page);
  devices = g_new0 (NnDeviceInfo, MAX (*n, 1));
  for (guint d = 0; d < *n; d++)
    devices[d] = *tb_train_page_get_device_info (self->train_page, d);
  return devices;
}

/* Measure on the Articles page: the claim's missing runs (the engine's,
 * nn_report_claim_runs), with the preset's own settings on the whole data
 * set under the default conditions (a run on part of it, or under other
 * conditions, does not measure a claim), one after the other as Reproduce
 * runs them. */
static void
measure_cb (TbArticlesPage *page,
            guint           index,
            guint           sides,
            TbWindow       *self)
{
  const NnReport *report = tb_articles_page_get_report (page);
  GPtrArray *configs;

  if (report == NULL || index >= (guint) report->claim_count || sides == 0)
    return;
  if (tb_data_page_get_dataset (self->data_page) == NULL)
    {
      tb_window_toast (self, _("Choose a data set first"));
      tb_window_show_page (self, "data");
      return;
    }
  if (tb_window_is_training (self))
    {
      tb_window_toast (self, _("Wait for the run going on to end"));
      return;
    }
  guint n_devices;
  g_autofree NnDeviceInfo *devices = _tb_window_get_devices (self, &n_devices);
  NnReproduceRun runs[2];
  int32_t n_runs = nn_report_claim_runs (report, (int32_t) index, sides, devices, (int32_t) n_devices,
                                         runs, G_N_ELEMENTS (runs));

  configs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_session_config_clear_free);
  for (int32_t i = 0; i < n_runs && i < (int32_t) G_N_ELEMENTS (runs); i++)
    {
      TbSessionConfig *config = g_new0 (TbSessionConfig, 1);

      _tb_window_collect_config (self, config, (guint) runs[i].device);
      tb_session_config_use_preset (config, runs[i].preset);
      config->train_limit = 0;
      config->test_limit = 0;
      config->max_steps = 0;
      config->conditions = nn_conditions_default ();
      if (runs[i].kind != NN_DEVICE_CPU)
        config->device.threads = 0;
      g_ptr_array_add (configs, config);
    }
  if (configs->len == 0)
    {
      g_ptr_array_unref (configs);
      tb_window_toast (self, _("This machine has no device for the missing runs"));
      return;
    }
  if (!_tb_window_check_runs_folder (self, configs))
    {
      g_ptr_array_unref (configs);
      return;
    }
  tb_run_queue_start (self->run_queue, configs);
}

void
_tb_window_collect_config (TbWindow        *self,
                           TbSessionConfig *config,
                           guint            device)
{
  tb_session_config_init (config);
  config->spec_text = g_strdup (tb_model_builder_get_spec_text (self->builder));
  config->model_name = g_strdup (tb_model_builder_get_preset_name (self->builder));
  config->dataset = g_strdup (tb_data_page_get_dataset (self->data_page));
  config->train_limit = tb_data_page_get_train_limit (self->data_page);
  config->test_limit = tb_data_page_get_test_limit (self->data_page);
  tb_train_page_fill_config (self->train_page, config, device);
  config->runs_dir = g_strdup (tb_run_history_get_folder (self->history));
}

/* A preset picked on the Model page brings its own training settings. */
static void
preset_chosen_cb (TbModelBuilder *builder,
                  gpointer        preset,
                  TbWindow       *self)
{
  if (preset != NULL)
    tb_train_page_use_preset (self->train_page, preset);
}

/* ------------------------------------------------------------ class */

/* The model, the data set, the device or the run changed: what can be
 * done now. */
static void
update_actions_cb (TbWindow *self)
{
  _tb_window_update_actions (self);
}

/* The model's input and classes follow the data set chosen. */
static void
input_changed_cb (TbDataPage *page,
                  int         channels,
                  int         height,
                  int         width,
                  int         classes,
                  TbWindow   *self)
{
  tb_model_builder_set_input (self->builder, (NnInputShape) { channels, height, width }, classes);
}

static gboolean
drop_cb (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         TbWindow      *self)
{
  GSList *files;
  g_autoptr(GPtrArray) array = g_ptr_array_new ();

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = g_value_get_boxed (value);
  for (GSList *l = files; l != NULL; l = l->next)
    g_ptr_array_add (array, l->data);
  _tb_window_open_files (self, (GFile **) array->pdata, array->len);
  return TRUE;
}

static void
files_sorted_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(TbWindow) self = user_data;
  g_autoptr(GPtrArray) sweeps = NULL;
  g_autoptr(GPtrArray) others = NULL;

  self->n_opening--;
  if (!tb_sweep_sort_files_finish (result, &sweeps, &others, NULL))
    return;
  if (others->len > 0)
    tb_runs_page_import (self->runs_page, (GFile **) others->pdata, others->len);
  for (guint i = 0; i < sweeps->len; i++)
    {
      g_autofree char *path = g_file_get_path (g_ptr_array_index (sweeps, i));

      if (path != NULL)
        tb_explore_page_open_file (self->explore_page, path);
    }
  if (sweeps->len > 0)
    tb_window_show_page (self, "explore");
}

void
_tb_window_open_files (TbWindow  *self,
                       GFile    **files,
                       guint      n_files)
{
  if (n_files == 0)
    return;
  self->n_opening++;
  tb_sweep_sort_files_async (files, n_files, NULL, files_sorted_cb, g_object_ref (self));
}

/* The Explore page compares the devices the Train page lists, on the Data
 * page's data set. */
static void
devices_changed_cb (TbWindow *self)
{
  g_autoptr(GArray) devices = g_array_new (FALSE, FALSE, sizeof (NnDeviceInfo));

  if (tb_train_page_get_devices_pending (self->train_page))
    return;
  for (guint d = 0; d < tb_train_page_get_n_devices (self->train_page); d++)
    g_array_append_vals (devices, tb_train_page_get_device_info (self->train_page, d), 1);
  tb_explore_page_set_devices (self->explore_page, (const NnDeviceInfo *) devices->data, devices->len);
}

static void
dataset_changed_cb (TbWindow *self)
{
  tb_explore_page_set_dataset (self->explore_page, tb_data_page_get_dataset (self->data_page),
                               tb_data_page_get_train_limit (self->data_page));
}

static void
sweep_finished_cb (TbExplorePage *page,
                   const char    *path,
                   const GError  *error,
                   TbWindow      *self)
{
  if (self->close_when_kept)
    {
      /* closed, and a run waits to be saved: go once that is settled */
      if (self->unsaved_why == NULL)
        gtk_window_destroy (GTK_WINDOW (self));
      return;
    }
  if (self->close_when_done)
    {
      /* closed while sweeping: the stopped sweep's file is written now */
      if (!tb_window_is_training (self))
        gtk_window_destroy (GTK_WINDOW (self));
      return;
    }
  if (error == NULL)
    tb_window_toast (self, _("The sweep is saved"));
  _tb_window_update_actions (self);
}

/* Closing while a run goes on stops it and waits (hidden) until the run is
 * recorded, so no run is lost. */
static gboolean
tb_window_close_request (GtkWindow *window)
{
  TbWindow *self = TB_WINDOW (window);

  /* here, not only in the page's dispose, which can come after the device
   * list's answer */
  tb_train_page_cancel_device_list (self->train_page);
  if (!tb_window_is_training (self) && self->unsaved_why != NULL)
    {
      /* a run whose result is not written yet is not dropped by a close */
      self->close_when_kept = TRUE;
      if (tb_explore_page_get_running (self->explore_page))
        tb_explore_page_stop (self->explore_page);
      if (self->save_dialog == NULL)
        offer_save (self);
      return TRUE;
    }
  if (tb_window_is_training (self) || tb_explore_page_get_running (self->explore_page))
    {
      self->close_when_done = TRUE;
      tb_run_queue_cancel (self->run_queue);
      tb_train_page_stop (self->train_page);
      tb_explore_page_stop (self->explore_page);
      gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
      return TRUE;
    }
  return GTK_WINDOW_CLASS (tb_window_parent_class)->close_request (window);
}

static void
tb_window_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), TB_TYPE_WINDOW);
  /* after the pages, which let it go: a read under way stops */
  g_clear_object (&TB_WINDOW (object)->history);
  G_OBJECT_CLASS (tb_window_parent_class)->dispose (object);
}

static void
tb_window_finalize (GObject *object)
{
  TbWindow *self = TB_WINDOW (object);

  g_clear_weak_pointer (&self->last_toast);
  g_clear_weak_pointer (&self->save_dialog);
  g_clear_pointer (&self->unsaved_why, g_free);
  g_clear_object (&self->run_queue);
  G_OBJECT_CLASS (tb_window_parent_class)->finalize (object);
}

static void
tb_window_class_init (TbWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tb_window_dispose;
  object_class->finalize = tb_window_finalize;
  GTK_WINDOW_CLASS (klass)->close_request = tb_window_close_request;

  g_type_ensure (TB_TYPE_MODEL_PAGE);
  g_type_ensure (TB_TYPE_DATA_PAGE);
  g_type_ensure (TB_TYPE_TRAIN_PAGE);
  g_type_ensure (TB_TYPE_RUNS_PAGE);
  g_type_ensure (TB_TYPE_EXPLORE_PAGE);
  g_type_ensure (TB_TYPE_ARTICLES_PAGE);
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-window.ui");
  gtk_widget_class_bind_template_child (widget_class, TbWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, TbWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, TbWindow, switcher_title);
  gtk_widget_class_bind_template_child (widget_class, TbWindow, start_button);
  gtk_widget_class_bind_template_child (widget_class, TbWindow, stop_button);
  gtk_widget_class_bind_template_child (widget_class, TbWindow, model_page);
  gtk_widget_class_bind_template_child (widget_class, TbWindow, data_page);
  gtk_widget_class_bind_template_child (widget_class, TbWindow, train_page);
  gtk_widget_class_bind_template_child (widget_class, TbWindow, runs_page);
  gtk_widget_class_bind_template_child (widget_class, TbWindow, explore_page);
  gtk_widget_class_bind_template_child (widget_class, TbWindow, articles_page);

  _tb_window_actions_class_init (widget_class);
}

static void
tb_window_init (TbWindow *self)
{
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));
  _tb_window_actions_init (self);

  /* the runs folder's history, read from now on in a worker; the pages
   * observe it */
  self->history = tb_run_history_new ();
  tb_runs_page_set_history (self->runs_page, self->history);

  self->run_queue = tb_run_queue_new ();
  g_signal_connect_object (self->run_queue, "start-run", G_CALLBACK (queue_start_run_cb), self, 0);
  g_signal_connect_object (self->run_queue, "finished", G_CALLBACK (queue_finished_cb), self, 0);

  self->builder = tb_model_page_get_builder (self->model_page);
  g_signal_connect_object (self->builder, "changed", G_CALLBACK (update_actions_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->builder, "preset-chosen", G_CALLBACK (preset_chosen_cb), self, 0);
  g_signal_connect_object (self->data_page, "notify::dataset", G_CALLBACK (update_actions_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->data_page, "input-changed", G_CALLBACK (input_changed_cb), self, 0);
  g_signal_connect_object (self->train_page, "notify::devices-pending", G_CALLBACK (update_actions_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->train_page, "notify::device", G_CALLBACK (update_actions_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->train_page, "notify::training", G_CALLBACK (update_actions_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->train_page, "run-finished", G_CALLBACK (run_finished_cb), self, 0);
  g_signal_connect_object (self->train_page, "notify::devices-pending", G_CALLBACK (devices_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->data_page, "notify::dataset", G_CALLBACK (dataset_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->explore_page, "sweep-finished", G_CALLBACK (sweep_finished_cb), self, 0);
  g_signal_connect_object (self->explore_page, "notify::running", G_CALLBACK (update_actions_cb), self, G_CONNECT_SWAPPED);
  tb_explore_page_set_runs_folder (self->explore_page, tb_run_history_get_folder (self->history));
  devices_changed_cb (self);
  dataset_changed_cb (self);

  /* the Articles page reads the runs folder, again whenever the history
   * changes (the history watches the folder) */
  tb_articles_page_set_folder (self->articles_page, tb_run_history_get_folder (self->history));
  g_signal_connect_object (self->history, "changed", G_CALLBACK (history_changed_cb), self, 0);
  g_signal_connect_object (self->articles_page, "measure", G_CALLBACK (measure_cb), self, 0);

  /* the app opens with the articles' first model and its settings */
  tb_model_builder_load_preset (self->builder, "mlp-small");
  preset_chosen_cb (self->builder, (gpointer) nn_preset_find ("mlp-small"), self);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  _tb_window_update_actions (self);
}

TbWindow *
tb_window_new (AdwApplication *application)
{
  return g_object_new (TB_TYPE_WINDOW, "application", application, NULL);
}

/* ------------------------------------------------------------ public */

TbModelBuilder *
tb_window_get_builder (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), NULL);
  return self->builder;
}

void
tb_window_set_dataset (TbWindow   *self,
                       const char *name_or_path,
                       int         train_limit,
                       int         test_limit)
{
  g_return_if_fail (TB_IS_WINDOW (self));

  tb_data_page_set_limits (self->data_page, train_limit, test_limit);
  tb_data_page_set_dataset (self->data_page, name_or_path);
}

gboolean
tb_window_select_device (TbWindow *self,
                         int       kind,
                         int       index)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), FALSE);
  return tb_train_page_select_device (self->train_page, kind, index);
}

void
tb_window_set_epochs (TbWindow *self,
                      int       epochs)
{
  g_return_if_fail (TB_IS_WINDOW (self));
  tb_train_page_set_epochs (self->train_page, epochs);
}

gpointer
tb_window_get_session (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), NULL);
  return tb_train_page_get_session (self->train_page);
}

TbChartView *
tb_window_get_chart (TbWindow   *self,
                     const char *name)
{
  TbChartView *view;

  g_return_val_if_fail (TB_IS_WINDOW (self), NULL);

  view = tb_train_page_get_chart (self->train_page, name);
  return view != NULL ? view : tb_runs_page_get_chart (self->runs_page, name);
}

void
tb_window_show_page (TbWindow   *self,
                     const char *name)
{
  g_return_if_fail (TB_IS_WINDOW (self));
  adw_view_stack_set_visible_child_name (self->stack, name);
}

void
tb_window_compare (TbWindow    *self,
                   const char **paths)
{
  g_return_if_fail (TB_IS_WINDOW (self));
  tb_runs_page_compare (self->runs_page, paths);
}

void
tb_window_import (TbWindow  *self,
                  GFile    **files,
                  guint      n_files)
{
  g_return_if_fail (TB_IS_WINDOW (self));
  _tb_window_open_files (self, files, n_files);
}

TbRunHistory *
tb_window_get_history (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), NULL);
  return self->history;
}

TbRunsPage *
tb_window_get_runs_page (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), NULL);
  return self->runs_page;
}

guint
tb_window_get_n_opening (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), 0);
  return self->n_opening;
}

TbExplorePage *
tb_window_get_explore_page (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), NULL);
  return self->explore_page;
}

TbArticlesPage *
tb_window_get_articles_page (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), NULL);
  return self->articles_page;
}

TbTrainPage *
tb_window_get_train_page (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), NULL);
  return self->train_page;
}
