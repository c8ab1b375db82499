/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-window-actions.c: the main window's actions (win.*) and their
 * shortcuts: start, stop and reproduce runs, inspect the last one, switch
 * pages, and import, export and reload the history of the Runs page.
 */
#define G_LOG_DOMAIN "trainbench-window"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "tb-error.h"
#include "tb-inspect.h"
#include "tb-window-private.h"

/* ------------------------------------------------------------ runs */

static void
start_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  TbWindow *self = TB_WINDOW (widget);
  TbSessionConfig config;
  NnError err = { 0 };

  if (!tb_window_start_enabled (self))
    return;

  _tb_window_collect_config (self, &config, (guint) tb_train_page_get_device_index (self->train_page));
  if (nn_optimizer_validate (&config.optimizer, &err) != NN_OK)
    {
      g_autoptr(GError) error = tb_error_new (&err);

      tb_window_error (self, _("A setting is not valid"), error);
      tb_session_config_clear (&config);
      return;
    }
  {
    /* a run whose result could not be saved is not started */
    g_autoptr(GPtrArray) one = g_ptr_array_new ();

    g_ptr_array_add (one, &config);
    if (!_tb_window_check_runs_folder (self, one))
      {
        tb_session_config_clear (&config);
        return;
      }
  }
  tb_train_page_start (self->train_page, &config);
  tb_session_config_clear (&config);
  tb_window_show_page (self, "train");
}

static void
stop_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  TbWindow *self = TB_WINDOW (widget);

  tb_run_queue_cancel (self->run_queue);
  tb_train_page_stop (self->train_page);
}

static void
reproduce_response_cb (AdwMessageDialog *dialog,
                       const char       *response,
                       TbWindow         *self)
{
  guint n_devices;
  g_autofree NnDeviceInfo *devices = NULL;
  g_autofree NnReproduceRun *runs = NULL;
  int32_t n_runs;
  GPtrArray *configs;

  if (g_strcmp0 (response, "run") != 0)
    return;

  /* every preset on every usable device: the engine's list */
  devices = _tb_window_get_devices (self, &n_devices);
  n_runs = nn_reproduce_runs (NULL, 0, devices, (int32_t) n_devices, NULL, 0);
  runs = g_new0 (NnReproduceRun, MAX (n_runs, 1));
  nn_reproduce_runs (NULL, 0, devices, (int32_t) n_devices, runs, n_runs);
  configs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_session_config_clear_free);

  for (int32_t i = 0; i < n_runs; i++)
    {
      TbSessionConfig *config = g_new0 (TbSessionConfig, 1);

      _tb_window_collect_config (self, config, (guint) runs[i].device);
      tb_session_config_use_preset (config, runs[i].preset);
      if (runs[i].kind != NN_DEVICE_CPU)
        config->device.threads = 0;
      g_ptr_array_add (configs, config);
    }
  if (!_tb_window_check_runs_folder (self, configs))
    {
      g_ptr_array_unref (configs);
      return;
    }
  tb_run_queue_start (self->run_queue, configs);
}

static void
reproduce_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  TbWindow *self = TB_WINDOW (widget);
  int usable = 0, count = 0;
  GtkWidget *dialog;
  g_autofree char *body = NULL;
  guint n_devices;
  g_autofree NnDeviceInfo *devices = _tb_window_get_devices (self, &n_devices);

  /* the engine's runs: each preset on each device it takes */
  nn_presets (&count);
  if (count > 0)
    usable = nn_reproduce_runs (NULL, 0, devices, (int32_t) n_devices, NULL, 0) / count;

  if (tb_data_page_get_dataset (self->data_page) == NULL)
    {
      tb_window_toast (self, _("Choose a data set first"));
      tb_window_show_page (self, "data");
      return;
    }
  body = g_strdup_printf (ngettext ("This trains the %d article models with their own settings on %d device, one after the other, on the chosen data set. It can take a long time.",
                                    "This trains the %d article models with their own settings on %d devices, one after the other, on the chosen data set. It can take a long time.",
                                    usable),
                          count, usable);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Reproduce the Articles?"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "run", _("_Run All"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "run", ADW_RESPONSE_SUGGESTED);
  g_signal_connect (dialog, "response", G_CALLBACK (reproduce_response_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
inspect_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  TbWindow *self = TB_WINDOW (widget);
  TbSession *session = tb_train_page_get_session (self->train_page);
  GtkWidget *window;

  if (session == NULL || tb_session_get_model (session) == NULL)
    return;
  window = tb_inspect_window_new (GTK_WINDOW (self), session);
  gtk_window_present (GTK_WINDOW (window));
}

static void
page_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  tb_window_show_page (TB_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

/* ------------------------------------------------------------ history */

static void
import_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    TbWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      guint n = g_list_model_get_n_items (files);
      g_autoptr(GPtrArray) array = g_ptr_array_new_with_free_func (g_object_unref);

      for (guint i = 0; i < n; i++)
        g_ptr_array_add (array, g_list_model_get_item (files, i));
      _tb_window_open_files (self, (GFile **) array->pdata, array->len);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
import_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  TbWindow *self = TB_WINDOW (widget);
  GtkFileChooserNative *dialog =
    gtk_file_chooser_native_new (_("Import Results"), GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_OPEN, _("_Import"), _("_Cancel"));
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Result files (.json)"));
  gtk_file_filter_add_suffix (filter, "json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_object_unref (filter);
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (dialog), TRUE);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (import_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
export_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    TbWindow        *self)
{
  gboolean csv = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dialog), "csv"));

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      g_autoptr(GPtrArray) runs = tb_runs_page_get_export_runs (self->runs_page);
      g_autoptr(GError) error = NULL;
      gboolean ok;

      ok = csv ? tb_runs_export_csv (runs, path, &error) : tb_runs_export_json (runs, path, &error);
      if (ok)
        {
          g_autofree char *base = g_path_get_basename (path);
          g_autofree char *msg = g_strdup_printf (ngettext ("%u run saved as “%s”", "%u runs saved as “%s”", runs->len),
                                                  runs->len, base);

          tb_window_toast (self, msg);
        }
      else
        tb_window_error (self, _("The runs could not be exported"), error);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
export_runs (TbWindow *self,
             gboolean  csv)
{
  GtkFileChooserNative *dialog =
    gtk_file_chooser_native_new (csv ? _("Export Runs as CSV") : _("Export Runs as JSON"),
                                 GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE,
                                 _("_Export"), _("_Cancel"));

  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), csv ? "trainbench-runs.csv" : "trainbench-runs.json");
  g_object_set_data (G_OBJECT (dialog), "csv", GINT_TO_POINTER (csv));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (export_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
export_csv_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  export_runs (TB_WINDOW (widget), TRUE);
}

static void
export_json_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  export_runs (TB_WINDOW (widget), FALSE);
}

static void
reload_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  tb_run_history_reload (TB_WINDOW (widget)->history);
}

static void
select_all_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  tb_runs_page_select_all (TB_WINDOW (widget)->runs_page);
}

static void
skipped_runs_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  TbWindow *self = TB_WINDOW (widget);
  guint n = tb_runs_page_get_n_skipped (self->runs_page);
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  if (n == 0)
    return;
  body = tb_runs_page_get_skipped_text (self->runs_page);
  dialog = adw_message_dialog_new (GTK_WINDOW (self),
                                   ngettext ("A file in the runs folder was skipped",
                                             "Files in the runs folder were skipped",
                                             n),
                                   body);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

void
_tb_window_actions_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.start", NULL, start_action);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "win.reproduce", NULL, reproduce_action);
  gtk_widget_class_install_action (widget_class, "win.inspect", NULL, inspect_action);
  gtk_widget_class_install_action (widget_class, "win.page", "s", page_action);
  gtk_widget_class_install_action (widget_class, "win.import", NULL, import_action);
  gtk_widget_class_install_action (widget_class, "win.export-csv", NULL, export_csv_action);
  gtk_widget_class_install_action (widget_class, "win.export-json", NULL, export_json_action);
  gtk_widget_class_install_action (widget_class, "win.reload-runs", NULL, reload_action);
  gtk_widget_class_install_action (widget_class, "win.select-all-runs", NULL, select_all_action);
  gtk_widget_class_install_action (widget_class, "win.skipped-runs", NULL, skipped_runs_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, GDK_CONTROL_MASK, "win.start", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1, GDK_ALT_MASK, "win.page", "s", "model");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_2, GDK_ALT_MASK, "win.page", "s", "data");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_3, GDK_ALT_MASK, "win.page", "s", "train");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_4, GDK_ALT_MASK, "win.page", "s", "runs");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_5, GDK_ALT_MASK, "win.page", "s", "explore");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_6, GDK_ALT_MASK, "win.page", "s", "articles");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_i, GDK_CONTROL_MASK, "win.inspect", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.select-all-runs", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "win.reload-runs", NULL);
}

void
_tb_window_actions_init (TbWindow *self)
{
  GtkEventController *keys = gtk_shortcut_controller_new ();

  /* Ctrl+. stops a run before the focused widget sees it: a text field
   * (the spin buttons of the Train page) takes it for its emoji chooser.
   * While no run goes on win.stop is disabled, the shortcut does not
   * apply and the field still gets the key. */
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_period,
                                                                                  GDK_CONTROL_MASK),
                                                          gtk_named_action_new ("win.stop")));
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}
