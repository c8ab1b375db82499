/* tb-window.c: the main window: its frame, the Train page (device,
 * optimizer, settings, live charts) and the training session's life cycle.
 * The other pages are widgets of their own (TbModelPage, TbDataPage,
 * TbRunsPage); the actions are in tb-window-actions.c.
 */
#define G_LOG_DOMAIN "trainbench-window"

#include "tb-config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "tb-application.h"
#include "tb-inspect.h"
#include "tb-window-private.h"

G_DEFINE_FINAL_TYPE (TbWindow, tb_window, ADW_TYPE_APPLICATION_WINDOW)

static const char *optimizer_ids[] = { "sgd", "adam", "adadelta", "rmsprop", "adagrad", NULL };

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
  g_autofree char *title = tb_window_bound_text (text, 200);
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

/* ------------------------------------------------------------ helpers */

static GtkWidget *
spin_row (GtkWidget   *group,
          const char  *title,
          const char  *subtitle,
          double       min,
          double       max,
          double       step,
          guint        digits,
          double       value,
          GtkWidget  **spin_out)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (min, max, step);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  *spin_out = spin;
  return row;
}

static char *
format_duration (double seconds)
{
  int s;

  if (!(seconds >= 0) || !isfinite (seconds))
    return g_strdup ("—");
  s = (int) round (seconds);
  if (s >= 3600)
    return g_strdup_printf ("%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60);
  return g_strdup_printf ("%d:%02d", s / 60, s % 60);
}

/* ------------------------------------------------------------ state */

gboolean
tb_window_is_training (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), FALSE);
  return self->session != NULL && tb_session_get_state (self->session) != TB_SESSION_FINISHED;
}

gboolean
tb_window_start_enabled (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), FALSE);

  return !tb_window_is_training (self) && self->builder != NULL
         && tb_model_builder_is_valid (self->builder) && tb_data_page_get_dataset (self->data_page) != NULL
         && self->device_index >= 0 && self->device_index < self->n_devices
         && self->devices[self->device_index].usable;
}

void
_tb_window_update_actions (TbWindow *self)
{
  gboolean training = tb_window_is_training (self);
  gboolean can_start = tb_window_start_enabled (self);
  gboolean can_inspect = !training && self->session != NULL
                         && tb_session_get_model (self->session) != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.start", can_start);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop", training);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reproduce",
                                 !training && !_tb_window_devices_pending (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.inspect", can_inspect);
  gtk_widget_set_visible (self->stop_button, training);
  gtk_widget_set_visible (self->start_button, !training);

  if (self->builder != NULL && !tb_model_builder_is_valid (self->builder))
    gtk_widget_set_tooltip_text (self->start_button, _("Fix the model first (see the Model page)"));
  else if (tb_data_page_get_dataset (self->data_page) == NULL)
    gtk_widget_set_tooltip_text (self->start_button, _("Choose a data set first (see the Data page)"));
  else if (_tb_window_devices_pending (self))
    gtk_widget_set_tooltip_text (self->start_button, _("Looking for devices…"));
  else
    gtk_widget_set_tooltip_text (self->start_button, _("Start training (Ctrl+Enter)"));
}

/* ------------------------------------------------------------ live charts */

static TbChartData *
new_loss_data (void)
{
  TbChartData *d = tb_chart_data_new (TB_CHART_LINES, _("Training loss per step"), _("Step"), _("Loss"));

  d->x_integer = TRUE;
  tb_chart_data_add_series (d, _("loss"), 0);
  return d;
}

static TbChartData *
new_accuracy_data (void)
{
  TbChartData *d = tb_chart_data_new (TB_CHART_LINES, _("Accuracy per epoch"), _("Epoch"), _("Accuracy"));

  d->x_integer = TRUE;
  d->y_ceiling = 1.0;
  tb_chart_data_add_series (d, _("train"), 0);
  tb_chart_data_add_series (d, _("test"), 0);
  return d;
}

static TbChartData *
new_epoch_time_data (void)
{
  TbChartData *d = tb_chart_data_new (TB_CHART_LINES, _("Seconds per epoch"), _("Epoch"), _("Seconds"));

  d->x_integer = TRUE;
  d->y_from_zero = TRUE;
  tb_chart_data_add_series (d, _("seconds"), tb_chart_palette (2));
  return d;
}

static TbChartData *
new_speed_data (void)
{
  TbChartData *d = tb_chart_data_new (TB_CHART_LINES, _("Samples per second"), _("Seconds"), _("Samples/s"));

  d->y_from_zero = TRUE;
  tb_chart_data_add_series (d, _("samples/s"), tb_chart_palette (3));
  return d;
}

static void
reset_charts (TbWindow *self)
{
  tb_chart_view_set_data (self->loss_chart, new_loss_data ());
  tb_chart_view_set_data (self->accuracy_chart, new_accuracy_data ());
  tb_chart_view_set_data (self->epoch_time_chart, new_epoch_time_data ());
  tb_chart_view_set_data (self->speed_chart, new_speed_data ());
  self->loss_shown = self->speed_shown = self->epochs_shown = 0;
}

/* Main thread, once per flush: append what is new to the charts. */
#define REDRAW_INTERVAL_MS 100

static void redraw_progress (TbWindow *self);
static gboolean redraw_timeout_cb (gpointer user_data);

static void
session_progress_cb (TbSession *session,
                     TbWindow  *self)
{
  GArray *steps = tb_session_get_loss_steps (session);
  GArray *losses = tb_session_get_loss_values (session);
  GArray *times = tb_session_get_speed_times (session);
  GArray *speeds = tb_session_get_speed_values (session);
  GArray *epochs = tb_session_get_epochs (session);
  TbChartData *loss = tb_chart_view_get_data (self->loss_chart);
  TbChartData *acc = tb_chart_view_get_data (self->accuracy_chart);
  TbChartData *secs = tb_chart_view_get_data (self->epoch_time_chart);
  TbChartData *speed = tb_chart_view_get_data (self->speed_chart);

  if (session != self->session)
    return;

  for (; self->loss_shown < steps->len; self->loss_shown++)
    tb_chart_series_append (g_ptr_array_index (loss->series, 0),
                            g_array_index (steps, double, self->loss_shown),
                            g_array_index (losses, double, self->loss_shown));
  for (; self->speed_shown < times->len; self->speed_shown++)
    tb_chart_series_append (g_ptr_array_index (speed->series, 0),
                            g_array_index (times, double, self->speed_shown),
                            g_array_index (speeds, double, self->speed_shown));
  for (; self->epochs_shown < epochs->len; self->epochs_shown++)
    {
      const NnEpochRecord *e = &g_array_index (epochs, NnEpochRecord, self->epochs_shown);

      tb_chart_series_append (g_ptr_array_index (acc->series, 0), e->epoch, e->train_accuracy);
      tb_chart_series_append (g_ptr_array_index (acc->series, 1), e->epoch, e->test_accuracy);
      tb_chart_series_append (g_ptr_array_index (secs->series, 0), e->epoch, e->seconds);
    }

  /* the data is in; drawing it ten times a second is live enough and
   * leaves the cores to the training */
  if (tb_session_get_state (session) != TB_SESSION_FINISHED
      && g_get_monotonic_time () - self->last_redraw < REDRAW_INTERVAL_MS * 1000)
    {
      if (self->redraw_source == 0)
        self->redraw_source = g_timeout_add_full (G_PRIORITY_LOW, REDRAW_INTERVAL_MS,
                                                  redraw_timeout_cb, self, NULL);
      return;
    }
  redraw_progress (self);
}

static gboolean
redraw_timeout_cb (gpointer user_data)
{
  TbWindow *self = user_data;

  self->redraw_source = 0;
  redraw_progress (self);
  return G_SOURCE_REMOVE;
}

static void
redraw_progress (TbWindow *self)
{
  const NnProgress *p;
  g_autofree char *eta = NULL;
  g_autofree char *text = NULL;
  g_autofree char *eta_text = NULL;
  double fraction;

  self->last_redraw = g_get_monotonic_time ();
  if (self->session == NULL)
    return;
  p = tb_session_get_latest (self->session);
  tb_chart_view_changed (self->loss_chart);
  tb_chart_view_changed (self->accuracy_chart);
  tb_chart_view_changed (self->epoch_time_chart);
  tb_chart_view_changed (self->speed_chart);

  fraction = p->total_steps > 0 ? (double) p->step / (double) p->total_steps : 0;
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar), CLAMP (fraction, 0, 1));
  text = g_strdup_printf (_("Epoch %d of %d · step %lld of %lld · loss %.4f"),
                          p->epoch, p->epochs, (long long) p->step, (long long) p->total_steps, p->loss);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress_bar), text);
  eta = format_duration (p->eta_seconds);
  eta_text = g_strdup_printf (_("ETA %s · %.0f samples/s"), eta, p->samples_per_second);
  gtk_label_set_text (GTK_LABEL (self->eta_label), eta_text);
}

static void
session_state_cb (TbSession *session,
                  TbWindow  *self)
{
  if (tb_session_get_state (session) == TB_SESSION_RUNNING)
    gtk_label_set_text (GTK_LABEL (self->status_label), _("Training…"));
  _tb_window_update_actions (self);
}

static void
session_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(TbWindow) self = user_data;
  TbSession *session = TB_SESSION (object);
  g_autoptr(GError) error = NULL;
  gboolean ok = tb_session_run_finish (session, result, &error);
  const char *path = tb_session_get_result_path (session);

  if (self->close_when_done)
    {
      /* closed while training: the stopped run is saved now, so go */
      gtk_window_destroy (GTK_WINDOW (self));
      return;
    }

  g_clear_handle_id (&self->redraw_source, g_source_remove);
  redraw_progress (self);

  if (ok)
    {
      gtk_label_set_text (GTK_LABEL (self->status_label), _("Finished; the run is saved in the Runs page"));
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar), 1.0);
      tb_window_toast (self, _("Training finished; the run is saved"));
    }
  else if (g_error_matches (error, TB_SESSION_ERROR, NN_ERROR_CANCELLED))
    {
      gtk_label_set_text (GTK_LABEL (self->status_label), _("Stopped; the run is kept as cancelled"));
      tb_window_toast (self, _("Training stopped"));
    }
  else
    {
      gtk_label_set_text (GTK_LABEL (self->status_label), error->message);
      tb_window_error (self, tb_session_status_headline ((NnStatus) error->code), error);
    }

  /* only the new file is read; the rest of the history has not changed;
   * a run of a batch is ticked with the others at the batch's end */
  if (path != NULL)
    tb_runs_page_add (self->runs_page, path, !tb_run_queue_is_active (self->run_queue));
  _tb_window_update_actions (self);

  tb_run_queue_run_done (self->run_queue, path, ok ? NULL : error);
}

void
_tb_window_start_session (TbWindow              *self,
                          const TbSessionConfig *config)
{
  TbSession *previous = g_steal_pointer (&self->session);

  self->session = tb_session_new (config);
  if (previous != NULL)
    {
      /* the next run of a queue reads the data set the last one loaded */
      tb_session_adopt_dataset (self->session, previous);
      g_signal_handlers_disconnect_by_data (previous, self);
      g_object_unref (previous);
    }
  g_signal_connect (self->session, "progress", G_CALLBACK (session_progress_cb), self);
  g_signal_connect (self->session, "state-changed", G_CALLBACK (session_state_cb), self);

  reset_charts (self);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar), 0);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress_bar), config->model_name ? config->model_name : _("custom model"));
  gtk_label_set_text (GTK_LABEL (self->eta_label), "");
  gtk_label_set_text (GTK_LABEL (self->status_label), _("Loading the data set and building the model…"));

  tb_session_run_async (self->session, NULL, session_done_cb, g_object_ref (self));
  _tb_window_update_actions (self);
}

static void
queue_start_run_cb (TbRunQueue      *queue,
                    TbSessionConfig *config,
                    TbWindow        *self)
{
  _tb_window_start_session (self, config);
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

void
_tb_window_collect_config (TbWindow        *self,
                           TbSessionConfig *config,
                           int              device)
{
  const NnDeviceInfo *dev = &self->devices[device];
  guint opt = adw_combo_row_get_selected (ADW_COMBO_ROW (self->optimizer_row));

  tb_session_config_init (config);
  config->spec_text = g_strdup (tb_model_builder_get_spec_text (self->builder));
  config->model_name = g_strdup (tb_model_builder_get_preset_name (self->builder));
  config->dataset = g_strdup (tb_data_page_get_dataset (self->data_page));
  config->train_limit = tb_data_page_get_train_limit (self->data_page);
  config->test_limit = tb_data_page_get_test_limit (self->data_page);
  config->optimizer = nn_optimizer_defaults ((NnOptimizerKind) opt);
  config->optimizer.lr = (float) gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->lr_spin));
  config->optimizer.momentum = (float) gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->momentum_spin));
  if (opt == NN_OPT_ADADELTA || opt == NN_OPT_RMSPROP)
    config->optimizer.rho = (float) gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->rho_spin));
  if (opt == NN_OPT_ADAM)
    {
      config->optimizer.beta1 = (float) gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->beta1_spin));
      config->optimizer.beta2 = (float) gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->beta2_spin));
    }
  config->batch_size = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->batch_spin));
  config->epochs = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->epochs_spin));
  config->seed = (guint64) gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->seed_spin));
  config->device.kind = dev->kind;
  config->device.index = dev->index;
  config->device.threads = dev->kind == NN_DEVICE_CPU
                           ? gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->threads_spin)) : 0;
  config->device.tf32 = gtk_switch_get_active (GTK_SWITCH (self->tf32_switch));
  config->runs_dir = tb_runs_page_get_folder (self->runs_page);
}

/* ------------------------------------------------------------ Train page */

static void
optimizer_changed_cb (AdwComboRow *row,
                      GParamSpec  *pspec,
                      TbWindow    *self)
{
  NnOptimizerKind kind = (NnOptimizerKind) adw_combo_row_get_selected (row);
  NnOptimizer d = nn_optimizer_defaults (kind);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->lr_spin), d.lr);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->momentum_spin), d.momentum);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->rho_spin), d.rho);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->beta1_spin), d.beta1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->beta2_spin), d.beta2);
  gtk_widget_set_visible (self->momentum_row, kind == NN_OPT_SGD);
  gtk_widget_set_visible (self->rho_row, kind == NN_OPT_ADADELTA || kind == NN_OPT_RMSPROP);
  gtk_widget_set_visible (self->beta1_row, kind == NN_OPT_ADAM);
  gtk_widget_set_visible (self->beta2_row, kind == NN_OPT_ADAM);
}

static void
preset_chosen_cb (TbModelBuilder *builder,
                  gpointer        preset_ptr,
                  TbWindow       *self)
{
  const NnPreset *preset = preset_ptr;

  if (preset == NULL)
    return;
  adw_combo_row_set_selected (ADW_COMBO_ROW (self->optimizer_row), preset->optimizer);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->lr_spin), preset->lr);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->batch_spin), preset->batch_size);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->epochs_spin), preset->epochs);
}

/* The rows that only make sense for the chosen device's kind. */
static void
update_device_rows (TbWindow *self)
{
  const NnDeviceInfo *dev;

  if (self->device_index < 0)
    return;
  dev = &self->devices[self->device_index];
  gtk_widget_set_sensitive (self->threads_spin, dev->kind == NN_DEVICE_CPU);
  gtk_widget_set_sensitive (self->tf32_row, dev->kind == NN_DEVICE_CUDA);
}

static void
device_toggled_cb (GtkCheckButton *check,
                   TbWindow       *self)
{
  if (!gtk_check_button_get_active (check))
    return;
  self->device_index = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (check), "device"));
  update_device_rows (self);
  _tb_window_update_actions (self);
}

/* Main thread: the devices are known; a radio row each takes the spinner
 * row's place, the stored default chosen. */
static void
devices_listed_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree TbDeviceList *list = tb_device_list_finish (result, &error);
  TbWindow *self;
  GtkWidget *first = NULL;
  g_autofree char *wanted = NULL;
  int chosen;

  if (list == NULL)
    return;   /* cancelled: the window is gone, self with it */

  self = TB_WINDOW (user_data);

  g_clear_object (&self->devices_cancellable);
  wanted = g_settings_get_string (self->settings, "default-device");
  chosen = tb_device_list_choose (list, wanted);
  memcpy (self->devices, list->devices, sizeof list->devices);
  self->n_devices = list->n;
  self->device_index = -1;

  for (int i = 0; i < self->n_devices; i++)
    {
      const NnDeviceInfo *dev = &self->devices[i];
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *check = gtk_check_button_new ();
      g_autofree char *title = tb_device_title (dev);
      g_autofree char *subtitle = NULL;
      g_autofree char *mem = g_format_size_full (dev->memory_bytes, G_FORMAT_SIZE_IEC_UNITS);

      if (dev->kind == NN_DEVICE_CPU)
        subtitle = g_strdup_printf (ngettext ("%d core · %s memory", "%d cores · %s memory", dev->cores),
                                    dev->cores, mem);
      else if (dev->usable)
        subtitle = g_strdup_printf (_("%s memory · compute %d.%d · driver %s"),
                                    mem, dev->compute_major, dev->compute_minor, dev->driver);
      else
        subtitle = g_strdup_printf (_("Not usable: %s"), dev->reason);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);
      g_object_set_data (G_OBJECT (check), "device", GINT_TO_POINTER (i));
      self->device_checks[i] = check;
      if (first == NULL)
        first = check;
      else
        gtk_check_button_set_group (GTK_CHECK_BUTTON (check), GTK_CHECK_BUTTON (first));
      /* an unusable GPU is shown, greyed, with the reason */
      gtk_widget_set_sensitive (row, dev->usable);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->device_group), row);
      if (i == chosen)
        {
          gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
          self->device_index = i;
        }
      /* connected after the preselection, which device_index already says */
      g_signal_connect (check, "toggled", G_CALLBACK (device_toggled_cb), self);
    }
  gtk_widget_set_visible (self->device_looking_row, FALSE);
  update_device_rows (self);
  _tb_window_update_actions (self);
}

gboolean
_tb_window_devices_pending (TbWindow *self)
{
  return self->devices_cancellable != NULL;
}

/* The device list can take seconds (tb-devices.h): a spinner row stands in
 * for it, and Train stays off, until the worker answers. */
static void
build_device_group (TbWindow  *self,
                    GtkWidget *group)
{
  self->device_group = group;
  self->device_looking_row = tb_device_looking_row_new (NULL);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), self->device_looking_row);
  self->devices_cancellable = g_cancellable_new ();
  /* the task does not hold the window: closing or disposing it cancels,
   * and the answer then leaves `self` alone */
  tb_device_list_async (self->devices_cancellable, devices_listed_cb, self);
}

static GtkWidget *
chart_frame (TbChartView **view,
             const char   *name)
{
  GtkWidget *frame = gtk_frame_new (NULL);

  *view = TB_CHART_VIEW (tb_chart_view_new ());
  tb_chart_view_set_name (*view, name);
  gtk_frame_set_child (GTK_FRAME (frame), GTK_WIDGET (*view));
  return frame;
}

static void
build_train_page (TbWindow *self)
{
  GtkWidget *scroller, *box, *device_box, *group, *grid, *right, *status_box, *button_box;
  g_autoptr(GtkStringList) optimizers = gtk_string_list_new (optimizer_ids);

  /* left: settings */
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_size_request (scroller, 300, -1);
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), box);

  /* the device rows come later, into their own group: the threads and TF32
   * rows follow in a second one, right under it */
  device_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_append (GTK_BOX (box), device_box);
  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Device"));
  gtk_box_append (GTK_BOX (device_box), group);
  build_device_group (self, group);
  group = adw_preferences_group_new ();
  gtk_box_append (GTK_BOX (device_box), group);
  spin_row (group, _("CPU _threads"), _("0 uses every core"), 0, 1024, 1, 0,
            g_settings_get_int (self->settings, "threads"), &self->threads_spin);
  self->tf32_row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->tf32_row), _("Allow _TF32"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (self->tf32_row), TRUE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->tf32_row), _("Faster convolutions and matrix products on recent GPUs"));
  self->tf32_switch = gtk_switch_new ();
  gtk_switch_set_active (GTK_SWITCH (self->tf32_switch), g_settings_get_boolean (self->settings, "tf32"));
  gtk_widget_set_valign (self->tf32_switch, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (self->tf32_row), self->tf32_switch);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (self->tf32_row), self->tf32_switch);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->tf32_switch), GTK_ACCESSIBLE_RELATION_LABELLED_BY, self->tf32_row, NULL, -1);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), self->tf32_row);

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Optimizer"));
  gtk_box_append (GTK_BOX (box), group);
  self->optimizer_row = adw_combo_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->optimizer_row), _("_Optimizer"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (self->optimizer_row), TRUE);
  adw_combo_row_set_model (ADW_COMBO_ROW (self->optimizer_row), G_LIST_MODEL (optimizers));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), self->optimizer_row);
  spin_row (group, _("_Learning rate"), NULL, 0.00001, 10, 0.0001, 5, 0.001, &self->lr_spin);
  self->momentum_row = spin_row (group, _("_Momentum"), NULL, 0, 0.999, 0.01, 3, 0, &self->momentum_spin);
  self->rho_row = spin_row (group, _("_Rho"), NULL, 0, 0.999, 0.01, 3, 0.9, &self->rho_spin);
  self->beta1_row = spin_row (group, _("Beta _1"), NULL, 0, 0.9999, 0.001, 4, 0.9, &self->beta1_spin);
  self->beta2_row = spin_row (group, _("Beta _2"), NULL, 0, 0.99999, 0.0001, 5, 0.999, &self->beta2_spin);
  g_signal_connect (self->optimizer_row, "notify::selected", G_CALLBACK (optimizer_changed_cb), self);
  adw_combo_row_set_selected (ADW_COMBO_ROW (self->optimizer_row), NN_OPT_ADAM);
  optimizer_changed_cb (ADW_COMBO_ROW (self->optimizer_row), NULL, self);

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Training"));
  gtk_box_append (GTK_BOX (box), group);
  spin_row (group, _("_Batch size"), NULL, 1, 65536, 1, 0, 32, &self->batch_spin);
  spin_row (group, _("_Epochs"), NULL, 1, 1000, 1, 0, 5, &self->epochs_spin);
  spin_row (group, _("_Seed"), _("Same seed, same run"), 0, 4294967295.0, 1, 0, 42, &self->seed_spin);

  button_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_halign (button_box, GTK_ALIGN_CENTER);
  self->train_start_button = gtk_button_new_with_mnemonic (_("_Start Training"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->train_start_button), "win.start");
  gtk_widget_add_css_class (self->train_start_button, "suggested-action");
  gtk_widget_add_css_class (self->train_start_button, "pill");
  self->inspect_button = gtk_button_new_with_mnemonic (_("_Inspect Results…"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->inspect_button), "win.inspect");
  gtk_widget_add_css_class (self->inspect_button, "pill");
  gtk_widget_set_tooltip_text (self->inspect_button, _("Confusion matrix and misclassified test images of the last run"));
  gtk_box_append (GTK_BOX (button_box), self->train_start_button);
  gtk_box_append (GTK_BOX (button_box), self->inspect_button);
  gtk_box_append (GTK_BOX (box), button_box);

  gtk_paned_set_start_child (self->train_page, scroller);

  /* right: status and the four live charts */
  right = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (right, 6);
  gtk_widget_set_margin_end (right, 12);
  gtk_widget_set_margin_top (right, 12);
  gtk_widget_set_margin_bottom (right, 12);

  status_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  self->status_label = gtk_label_new (_("Pick a model, a data set and a device, then press Train"));
  gtk_label_set_xalign (GTK_LABEL (self->status_label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->status_label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->status_label, TRUE);
  self->eta_label = gtk_label_new ("");
  gtk_widget_add_css_class (self->eta_label, "numeric");
  gtk_box_append (GTK_BOX (status_box), self->status_label);
  gtk_box_append (GTK_BOX (status_box), self->eta_label);
  gtk_box_append (GTK_BOX (right), status_box);

  self->progress_bar = gtk_progress_bar_new ();
  gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (self->progress_bar), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->progress_bar), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Training progress"), -1);
  gtk_box_append (GTK_BOX (right), self->progress_bar);

  grid = gtk_grid_new ();
  gtk_grid_set_row_homogeneous (GTK_GRID (grid), TRUE);
  gtk_grid_set_column_homogeneous (GTK_GRID (grid), TRUE);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 6);
  gtk_widget_set_vexpand (grid, TRUE);
  gtk_grid_attach (GTK_GRID (grid), chart_frame (&self->loss_chart, "loss"), 0, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), chart_frame (&self->accuracy_chart, "accuracy"), 1, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), chart_frame (&self->epoch_time_chart, "seconds-per-epoch"), 0, 1, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), chart_frame (&self->speed_chart, "samples-per-second"), 1, 1, 1, 1);
  gtk_box_append (GTK_BOX (right), grid);
  reset_charts (self);

  gtk_paned_set_end_child (self->train_page, right);
}

/* ------------------------------------------------------------ class */

static void
dataset_changed_cb (TbWindow *self)
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

static void
builder_changed_cb (TbModelBuilder *builder,
                    TbWindow       *self)
{
  _tb_window_update_actions (self);
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
  tb_runs_page_import (self->runs_page, (GFile **) array->pdata, array->len);
  return TRUE;
}

/* Closing while a run goes on stops it and waits (hidden) until the run is
 * recorded, so no run is lost. */
static gboolean
tb_window_close_request (GtkWindow *window)
{
  TbWindow *self = TB_WINDOW (window);

  /* here, not only in dispose: the history's worker holds the window, so
   * its dispose can come after the device list's answer */
  if (self->devices_cancellable != NULL)
    g_cancellable_cancel (self->devices_cancellable);
  if (tb_window_is_training (self))
    {
      self->close_when_done = TRUE;
      tb_run_queue_cancel (self->run_queue);
      tb_session_stop (self->session);
      gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
      return TRUE;
    }
  return GTK_WINDOW_CLASS (tb_window_parent_class)->close_request (window);
}

static void
tb_window_dispose (GObject *object)
{
  TbWindow *self = TB_WINDOW (object);

  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      tb_session_stop (self->session);
    }
  g_clear_handle_id (&self->redraw_source, g_source_remove);
  if (self->devices_cancellable != NULL)
    g_cancellable_cancel (self->devices_cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), TB_TYPE_WINDOW);
  G_OBJECT_CLASS (tb_window_parent_class)->dispose (object);
}

static void
tb_window_finalize (GObject *object)
{
  TbWindow *self = TB_WINDOW (object);

  g_clear_weak_pointer (&self->last_toast);
  g_clear_object (&self->session);
  g_clear_object (&self->settings);
  g_clear_object (&self->devices_cancellable);
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

  g_type_ensure (TB_TYPE_CHART_VIEW);
  g_type_ensure (TB_TYPE_MODEL_PAGE);
  g_type_ensure (TB_TYPE_DATA_PAGE);
  g_type_ensure (TB_TYPE_RUNS_PAGE);
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

  _tb_window_actions_class_init (widget_class);
}

static void
tb_window_init (TbWindow *self)
{
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = tb_settings_new ();
  self->run_queue = tb_run_queue_new ();
  g_signal_connect_object (self->run_queue, "start-run", G_CALLBACK (queue_start_run_cb), self, 0);
  g_signal_connect_object (self->run_queue, "finished", G_CALLBACK (queue_finished_cb), self, 0);
  self->device_index = -1;

  /* Model page */
  self->builder = tb_model_page_get_builder (self->model_page);
  g_signal_connect (self->builder, "changed", G_CALLBACK (builder_changed_cb), self);
  g_signal_connect (self->builder, "preset-chosen", G_CALLBACK (preset_chosen_cb), self);

  build_train_page (self);
  g_signal_connect_object (self->data_page, "notify::dataset", G_CALLBACK (dataset_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->data_page, "input-changed", G_CALLBACK (input_changed_cb), self, 0);

  tb_model_builder_load_preset (self->builder, "mlp-small");
  {
    const NnPreset *p = nn_preset_find ("mlp-small");

    if (p != NULL)
      preset_chosen_cb (self->builder, (gpointer) p, self);
  }

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

  for (int i = 0; i < self->n_devices; i++)
    if ((int) self->devices[i].kind == kind && self->devices[i].index == index && self->devices[i].usable)
      {
        /* as a click on its radio button would */
        gtk_check_button_set_active (GTK_CHECK_BUTTON (self->device_checks[i]), TRUE);
        self->device_index = i;
        _tb_window_update_actions (self);
        return TRUE;
      }
  return FALSE;
}

void
tb_window_set_epochs (TbWindow *self,
                      int       epochs)
{
  g_return_if_fail (TB_IS_WINDOW (self));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->epochs_spin), epochs);
}

gpointer
tb_window_get_session (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), NULL);
  return self->session;
}

TbChartView *
tb_window_get_chart (TbWindow   *self,
                     const char *name)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), NULL);

  if (g_strcmp0 (name, "loss") == 0)
    return self->loss_chart;
  if (g_strcmp0 (name, "accuracy") == 0)
    return self->accuracy_chart;
  if (g_strcmp0 (name, "epoch-time") == 0)
    return self->epoch_time_chart;
  if (g_strcmp0 (name, "speed") == 0)
    return self->speed_chart;
  return tb_runs_page_get_chart (self->runs_page, name);
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
  tb_runs_page_import (self->runs_page, files, n_files);
}

TbRunsPage *
tb_window_get_runs_page (TbWindow *self)
{
  g_return_val_if_fail (TB_IS_WINDOW (self), NULL);
  return self->runs_page;
}
