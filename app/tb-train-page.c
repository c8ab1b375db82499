/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-train-page.c: the Train page: the device list (asked for in a worker),
 * the optimizer and training settings laid out by tb-train-page.ui, and the
 * run it shows: progress, time left, and the live charts, redrawn at most
 * ten times a second.
 */
#define G_LOG_DOMAIN "trainbench-train-page"

#include "tb-config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "tb-application.h"
#include "tb-devices.h"
#include "tb-format.h"
#include "tb-train-page.h"

struct _TbTrainPage
{
  GtkWidget parent_instance;

  /* owned */
  GSettings *settings;
  TbSession *session;            /* the current or last run */
  GCancellable *devices_cancellable; /* the device list's worker; NULL once it answered */
  NnDeviceInfo devices[TB_MAX_DEVICES];
  int n_devices;                 /* 0 until the worker has listed them */
  int device_index;              /* index into devices[], -1 for none */
  guint loss_shown;              /* points already in the loss chart */
  guint speed_shown;
  guint epochs_shown;
  gint64 last_redraw;            /* monotonic µs of the last live-chart redraw */
  gboolean conditions_syncing;   /* the conditions' rows being set from code */
  guint redraw_source;           /* pending throttled redraw */

  /* borrowed */
  GtkWidget *device_checks[TB_MAX_DEVICES]; /* the radio button of each device's row */
  GtkWidget *device_looking_row; /* in device_group until the devices are listed */

  /* template widgets */
  GtkWidget *paned;              /* the page's one child */
  GtkWidget *device_group;       /* AdwPreferencesGroup: a radio row per device */
  GtkWidget *threads_spin;
  GtkWidget *tf32_row;
  GtkWidget *tf32_switch;
  GtkWidget *optimizer_row;      /* AdwComboRow of the optimizer ids */
  GtkWidget *lr_spin;
  GtkWidget *momentum_row;
  GtkWidget *momentum_spin;
  GtkWidget *rho_row;
  GtkWidget *rho_spin;
  GtkWidget *beta1_row;
  GtkWidget *beta1_spin;
  GtkWidget *beta2_row;
  GtkWidget *beta2_spin;
  GtkWidget *batch_spin;
  GtkWidget *epochs_spin;
  GtkWidget *seed_spin;
  GtkWidget *conditions_row;     /* AdwComboRow: Default, Article, Custom */
  GtkWidget *data_row;           /* AdwComboRow: NnDataOn's order */
  GtkWidget *graph_switch;
  GtkWidget *loss_every_step_switch;
  GtkWidget *fused_switch;
  GtkWidget *start_button;
  GtkWidget *inspect_button;
  GtkWidget *status_label;
  GtkWidget *eta_label;
  GtkWidget *progress_bar;
  TbChartView *loss_chart;
  TbChartView *accuracy_chart;
  TbChartView *epoch_time_chart;
  TbChartView *speed_chart;
};

G_DEFINE_FINAL_TYPE (TbTrainPage, tb_train_page, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_DEVICES_PENDING,
  PROP_DEVICE,
  PROP_TRAINING,
  PROP_SESSION,
  N_PROPS
};

enum
{
  SIGNAL_RUN_FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* ------------------------------------------------------------ helpers */

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

/* ------------------------------------------------------------ settings */

static void
optimizer_changed_cb (TbTrainPage *self)
{
  NnOptimizerKind kind = (NnOptimizerKind) adw_combo_row_get_selected (ADW_COMBO_ROW (self->optimizer_row));
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

/* ------------------------------------------------------------ conditions */

static const char *const data_on_keys[] = { "device", "pinned", "pageable" };

void
tb_train_page_get_conditions (TbTrainPage  *self,
                              NnConditions *conditions)
{
  guint data;

  g_return_if_fail (TB_IS_TRAIN_PAGE (self));
  g_return_if_fail (conditions != NULL);

  data = adw_combo_row_get_selected (ADW_COMBO_ROW (self->data_row));
  conditions->data = data <= NN_DATA_PAGEABLE ? (NnDataOn) data : NN_DATA_DEVICE;
  conditions->graph = gtk_switch_get_active (GTK_SWITCH (self->graph_switch));
  conditions->loss_every_step = gtk_switch_get_active (GTK_SWITCH (self->loss_every_step_switch));
  conditions->fused = gtk_switch_get_active (GTK_SWITCH (self->fused_switch));
}

/* The preset row says which the switches are: Default, Article or Custom. */
static void
show_conditions_name (TbTrainPage        *self,
                      const NnConditions *conditions)
{
  const char *name = nn_conditions_name (conditions);
  guint index = g_str_equal (name, "default") ? 0 : g_str_equal (name, "article") ? 1 : 2;

  self->conditions_syncing = TRUE;
  adw_combo_row_set_selected (ADW_COMBO_ROW (self->conditions_row), index);
  self->conditions_syncing = FALSE;
}

/* Remembered for the next run and the next start. */
static void
save_conditions (TbTrainPage        *self,
                 const NnConditions *c)
{
  g_settings_set_string (self->settings, "conditions-data", data_on_keys[c->data]);
  g_settings_set_boolean (self->settings, "conditions-graph", c->graph);
  g_settings_set_boolean (self->settings, "conditions-loss-every-step", c->loss_every_step);
  g_settings_set_boolean (self->settings, "conditions-fused", c->fused);
}

void
tb_train_page_set_conditions (TbTrainPage        *self,
                              const NnConditions *conditions)
{
  g_return_if_fail (TB_IS_TRAIN_PAGE (self));
  g_return_if_fail (conditions != NULL);

  self->conditions_syncing = TRUE;
  adw_combo_row_set_selected (ADW_COMBO_ROW (self->data_row), (guint) conditions->data);
  gtk_switch_set_active (GTK_SWITCH (self->graph_switch), conditions->graph);
  gtk_switch_set_active (GTK_SWITCH (self->loss_every_step_switch), conditions->loss_every_step);
  gtk_switch_set_active (GTK_SWITCH (self->fused_switch), conditions->fused);
  self->conditions_syncing = FALSE;
  show_conditions_name (self, conditions);
  save_conditions (self, conditions);
}

/* One of the four rows changed: the preset row follows, the settings keep it. */
static void
condition_changed_cb (TbTrainPage *self)
{
  NnConditions c;

  if (self->conditions_syncing)
    return;
  tb_train_page_get_conditions (self, &c);
  show_conditions_name (self, &c);
  save_conditions (self, &c);
}

/* Default or Article sets the four rows; Custom leaves them as they are. */
static void
conditions_preset_cb (TbTrainPage *self)
{
  guint index = adw_combo_row_get_selected (ADW_COMBO_ROW (self->conditions_row));
  NnConditions c;

  if (self->conditions_syncing || index > 1)
    return;
  c = index == 0 ? nn_conditions_default () : nn_conditions_article ();
  tb_train_page_set_conditions (self, &c);
}

static void
load_conditions (TbTrainPage *self)
{
  NnConditions c = nn_conditions_default ();
  g_autofree char *data = g_settings_get_string (self->settings, "conditions-data");

  for (guint i = 0; i < G_N_ELEMENTS (data_on_keys); i++)
    if (g_strcmp0 (data, data_on_keys[i]) == 0)
      c.data = (NnDataOn) i;
  c.graph = g_settings_get_boolean (self->settings, "conditions-graph");
  c.loss_every_step = g_settings_get_boolean (self->settings, "conditions-loss-every-step");
  c.fused = g_settings_get_boolean (self->settings, "conditions-fused");
  tb_train_page_set_conditions (self, &c);
}

void
tb_train_page_use_preset (TbTrainPage    *self,
                          const NnPreset *preset)
{
  g_return_if_fail (TB_IS_TRAIN_PAGE (self));
  g_return_if_fail (preset != NULL);

  /* the optimizer first: choosing it resets the learning rate */
  adw_combo_row_set_selected (ADW_COMBO_ROW (self->optimizer_row), preset->optimizer);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->lr_spin), preset->lr);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->batch_spin), preset->batch_size);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->epochs_spin), preset->epochs);
}

void
tb_train_page_set_epochs (TbTrainPage *self,
                          int          epochs)
{
  g_return_if_fail (TB_IS_TRAIN_PAGE (self));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->epochs_spin), epochs);
}

void
tb_train_page_fill_config (TbTrainPage     *self,
                           TbSessionConfig *config,
                           guint            device)
{
  const NnDeviceInfo *dev;
  guint opt;

  g_return_if_fail (TB_IS_TRAIN_PAGE (self));
  g_return_if_fail (config != NULL);
  g_return_if_fail (device < (guint) self->n_devices);

  dev = &self->devices[device];
  opt = adw_combo_row_get_selected (ADW_COMBO_ROW (self->optimizer_row));
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
  tb_train_page_get_conditions (self, &config->conditions);
}

/* ------------------------------------------------------------ devices */

/* The rows that only make sense for the chosen device's kind. */
static void
update_device_rows (TbTrainPage *self)
{
  const NnDeviceInfo *dev;

  if (self->device_index < 0)
    return;
  dev = &self->devices[self->device_index];
  gtk_widget_set_sensitive (self->threads_spin, dev->kind == NN_DEVICE_CPU);
  gtk_widget_set_sensitive (self->tf32_row, dev->kind == NN_DEVICE_CUDA);
}

static void
set_device_index (TbTrainPage *self,
                  int          index)
{
  if (index == self->device_index)
    return;
  self->device_index = index;
  update_device_rows (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEVICE]);
}

static void
device_toggled_cb (GtkCheckButton *check,
                   TbTrainPage    *self)
{
  if (!gtk_check_button_get_active (check))
    return;
  set_device_index (self, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (check), "device")));
}

static GtkWidget *
device_row_new (const NnDeviceInfo *dev)
{
  GtkWidget *row = adw_action_row_new ();
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
  /* a driver's names and a reason's paths are text, never markup */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  /* an unusable GPU is shown, greyed, with the reason */
  gtk_widget_set_sensitive (row, dev->usable);
  return row;
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
  TbTrainPage *self;
  GtkWidget *first = NULL;
  g_autofree char *wanted = NULL;
  int chosen;

  if (list == NULL)
    return;   /* cancelled: the page is gone or going, self with it */

  self = TB_TRAIN_PAGE (user_data);

  g_clear_object (&self->devices_cancellable);
  wanted = g_settings_get_string (self->settings, "default-device");
  chosen = tb_device_list_choose (list, wanted);
  memcpy (self->devices, list->devices, sizeof list->devices);
  self->n_devices = list->n;

  for (int i = 0; i < self->n_devices; i++)
    {
      GtkWidget *row = device_row_new (&self->devices[i]);
      GtkWidget *check = gtk_check_button_new ();

      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);
      g_object_set_data (G_OBJECT (check), "device", GINT_TO_POINTER (i));
      self->device_checks[i] = check;
      if (first == NULL)
        first = check;
      else
        gtk_check_button_set_group (GTK_CHECK_BUTTON (check), GTK_CHECK_BUTTON (first));
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->device_group), row);
      if (i == chosen)
        gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
      /* connected after the preselection, which set_device_index says */
      g_signal_connect (check, "toggled", G_CALLBACK (device_toggled_cb), self);
    }
  gtk_widget_set_visible (self->device_looking_row, FALSE);

  g_object_freeze_notify (G_OBJECT (self));
  set_device_index (self, chosen);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEVICES_PENDING]);
  g_object_thaw_notify (G_OBJECT (self));
}

gboolean
tb_train_page_get_devices_pending (TbTrainPage *self)
{
  g_return_val_if_fail (TB_IS_TRAIN_PAGE (self), FALSE);
  return self->devices_cancellable != NULL;
}

void
tb_train_page_cancel_device_list (TbTrainPage *self)
{
  g_return_if_fail (TB_IS_TRAIN_PAGE (self));

  /* still pending: the cancelled answer does not clear it */
  if (self->devices_cancellable != NULL)
    g_cancellable_cancel (self->devices_cancellable);
}

guint
tb_train_page_get_n_devices (TbTrainPage *self)
{
  g_return_val_if_fail (TB_IS_TRAIN_PAGE (self), 0);
  return (guint) self->n_devices;
}

const NnDeviceInfo *
tb_train_page_get_device_info (TbTrainPage *self,
                               guint        index)
{
  g_return_val_if_fail (TB_IS_TRAIN_PAGE (self), NULL);
  g_return_val_if_fail (index < (guint) self->n_devices, NULL);
  return &self->devices[index];
}

int
tb_train_page_get_device_index (TbTrainPage *self)
{
  g_return_val_if_fail (TB_IS_TRAIN_PAGE (self), -1);
  return self->device_index;
}

gboolean
tb_train_page_select_device (TbTrainPage *self,
                             int          kind,
                             int          index)
{
  g_return_val_if_fail (TB_IS_TRAIN_PAGE (self), FALSE);

  for (int i = 0; i < self->n_devices; i++)
    if ((int) self->devices[i].kind == kind && self->devices[i].index == index && self->devices[i].usable)
      {
        /* as a click on its radio button would */
        gtk_check_button_set_active (GTK_CHECK_BUTTON (self->device_checks[i]), TRUE);
        set_device_index (self, i);
        return TRUE;
      }
  return FALSE;
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
reset_charts (TbTrainPage *self)
{
  tb_chart_view_set_data (self->loss_chart, new_loss_data ());
  tb_chart_view_set_data (self->accuracy_chart, new_accuracy_data ());
  tb_chart_view_set_data (self->epoch_time_chart, new_epoch_time_data ());
  tb_chart_view_set_data (self->speed_chart, new_speed_data ());
  self->loss_shown = self->speed_shown = self->epochs_shown = 0;
}

TbChartView *
tb_train_page_get_chart (TbTrainPage *self,
                         const char  *name)
{
  g_return_val_if_fail (TB_IS_TRAIN_PAGE (self), NULL);

  if (g_strcmp0 (name, "loss") == 0)
    return self->loss_chart;
  if (g_strcmp0 (name, "accuracy") == 0)
    return self->accuracy_chart;
  if (g_strcmp0 (name, "epoch-time") == 0)
    return self->epoch_time_chart;
  if (g_strcmp0 (name, "speed") == 0)
    return self->speed_chart;
  return NULL;
}

/* ------------------------------------------------------------ the run */

#define REDRAW_INTERVAL_MS 100

static void
redraw_progress (TbTrainPage *self)
{
  const NnProgress *p;
  g_autofree char *eta = NULL;
  g_autofree char *text = NULL;
  g_autofree char *eta_text = NULL;
  g_autofree char *step = NULL;
  g_autofree char *total = NULL;
  g_autofree char *speed = NULL;
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
  step = tb_format_count (p->step);
  total = tb_format_count (p->total_steps);
  text = g_strdup_printf (_("Epoch %d of %d · step %s of %s · loss %.4f"),
                          p->epoch, p->epochs, step, total, p->loss);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress_bar), text);
  eta = format_duration (p->eta_seconds);
  speed = tb_format_count ((gint64) llround (p->samples_per_second));
  eta_text = g_strdup_printf (_("ETA %s · %s samples/s"), eta, speed);
  gtk_label_set_text (GTK_LABEL (self->eta_label), eta_text);
}

static gboolean
redraw_timeout_cb (gpointer user_data)
{
  TbTrainPage *self = user_data;

  self->redraw_source = 0;
  redraw_progress (self);
  return G_SOURCE_REMOVE;
}

/* Main thread, once per flush: append what is new to the charts. */
static void
session_progress_cb (TbSession   *session,
                     TbTrainPage *self)
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

static void
session_state_cb (TbSession   *session,
                  TbTrainPage *self)
{
  if (tb_session_get_state (session) == TB_SESSION_RUNNING)
    gtk_label_set_text (GTK_LABEL (self->status_label), _("Training…"));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRAINING]);
}

/* The run is over: the time left of its last report means nothing now; the
 * time it ran for takes its place. */
static void
show_final_time (TbTrainPage *self)
{
  const NnProgress *p = tb_session_get_latest (self->session);
  g_autofree char *took = NULL;
  g_autofree char *text = NULL;

  if (p->step <= 0)
    {
      /* stopped or failed before its first step: nothing to tell */
      gtk_label_set_text (GTK_LABEL (self->eta_label), "");
      return;
    }
  took = format_duration (p->elapsed_seconds);
  text = g_strdup_printf (_("Ran for %s"), took);
  gtk_label_set_text (GTK_LABEL (self->eta_label), text);
}

static void
session_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(TbTrainPage) self = user_data;
  TbSession *session = TB_SESSION (object);
  g_autoptr(GError) error = NULL;
  gboolean ok = tb_session_run_finish (session, result, &error);
  const char *path;

  /* a run the page no longer shows (it went away meanwhile) */
  if (session != self->session)
    return;

  g_clear_handle_id (&self->redraw_source, g_source_remove);
  redraw_progress (self);
  show_final_time (self);

  if (ok)
    {
      gtk_label_set_text (GTK_LABEL (self->status_label), _("Finished; the run is saved in the Runs page"));
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar), 1.0);
    }
  else if (g_error_matches (error, TB_SESSION_ERROR, NN_ERROR_CANCELLED))
    gtk_label_set_text (GTK_LABEL (self->status_label), _("Stopped; the run is kept as cancelled"));
  else
    gtk_label_set_text (GTK_LABEL (self->status_label), error->message);

  /* last: a handler may start the next run, or close the window */
  path = tb_session_get_result_path (session);
  g_signal_emit (self, signals[SIGNAL_RUN_FINISHED], 0, path, ok ? NULL : error);
}

void
tb_train_page_start (TbTrainPage           *self,
                     const TbSessionConfig *config)
{
  TbSession *previous;

  g_return_if_fail (TB_IS_TRAIN_PAGE (self));
  g_return_if_fail (config != NULL);
  g_return_if_fail (!tb_train_page_get_training (self));

  previous = g_steal_pointer (&self->session);
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

  g_clear_handle_id (&self->redraw_source, g_source_remove);
  reset_charts (self);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress_bar), 0);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress_bar),
                             config->model_name != NULL ? config->model_name : _("custom model"));
  gtk_label_set_text (GTK_LABEL (self->eta_label), "");
  gtk_label_set_text (GTK_LABEL (self->status_label), _("Loading the data set and building the model…"));

  tb_session_run_async (self->session, NULL, session_done_cb, g_object_ref (self));

  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRAINING]);
  g_object_thaw_notify (G_OBJECT (self));
}

void
tb_train_page_stop (TbTrainPage *self)
{
  g_return_if_fail (TB_IS_TRAIN_PAGE (self));

  if (!tb_train_page_get_training (self))
    return;
  tb_session_stop (self->session);
  gtk_label_set_text (GTK_LABEL (self->status_label), _("Stopping…"));
}

gboolean
tb_train_page_get_training (TbTrainPage *self)
{
  g_return_val_if_fail (TB_IS_TRAIN_PAGE (self), FALSE);
  return self->session != NULL && tb_session_get_state (self->session) != TB_SESSION_FINISHED;
}

TbSession *
tb_train_page_get_session (TbTrainPage *self)
{
  g_return_val_if_fail (TB_IS_TRAIN_PAGE (self), NULL);
  return self->session;
}

/* ------------------------------------------------------------ class */

static void
tb_train_page_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  TbTrainPage *self = TB_TRAIN_PAGE (object);

  switch (prop_id)
    {
    case PROP_DEVICES_PENDING:
      g_value_set_boolean (value, tb_train_page_get_devices_pending (self));
      break;
    case PROP_DEVICE:
      g_value_take_string (value, self->device_index >= 0 ? tb_device_id (&self->devices[self->device_index]) : NULL);
      break;
    case PROP_TRAINING:
      g_value_set_boolean (value, tb_train_page_get_training (self));
      break;
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tb_train_page_dispose (GObject *object)
{
  TbTrainPage *self = TB_TRAIN_PAGE (object);

  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      tb_session_stop (self->session);
      /* its answer, still to come, then finds the page showing none */
      g_clear_object (&self->session);
    }
  g_clear_handle_id (&self->redraw_source, g_source_remove);
  if (self->devices_cancellable != NULL)
    g_cancellable_cancel (self->devices_cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), TB_TYPE_TRAIN_PAGE);
  G_OBJECT_CLASS (tb_train_page_parent_class)->dispose (object);
}

static void
tb_train_page_finalize (GObject *object)
{
  TbTrainPage *self = TB_TRAIN_PAGE (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->devices_cancellable);
  G_OBJECT_CLASS (tb_train_page_parent_class)->finalize (object);
}

static void
tb_train_page_class_init (TbTrainPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = tb_train_page_get_property;
  object_class->dispose = tb_train_page_dispose;
  object_class->finalize = tb_train_page_finalize;

  /* TRUE until the device list is known (Train stays off until then) */
  properties[PROP_DEVICES_PENDING] =
    g_param_spec_boolean ("devices-pending", NULL, NULL, TRUE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* the chosen device's id ("cpu", "cuda:1"), NULL while none is */
  properties[PROP_DEVICE] =
    g_param_spec_string ("device", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* a run is going on: from tb_train_page_start until it is over */
  properties[PROP_TRAINING] =
    g_param_spec_boolean ("training", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* the current or last run */
  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, TB_TYPE_SESSION,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* TbTrainPage::run-finished: (path, error) the run shown is over and its
   * result file is `path` (NULL when none could be written); `error` is
   * NULL for a completed run, else why it ended (NN_ERROR_CANCELLED for a
   * stopped one). */
  signals[SIGNAL_RUN_FINISHED] =
    g_signal_new ("run-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_ERROR);

  g_type_ensure (TB_TYPE_CHART_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-train-page.ui");
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, paned);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, device_group);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, threads_spin);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, tf32_row);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, tf32_switch);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, optimizer_row);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, lr_spin);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, momentum_row);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, momentum_spin);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, rho_row);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, rho_spin);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, beta1_row);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, beta1_spin);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, beta2_row);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, beta2_spin);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, batch_spin);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, epochs_spin);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, seed_spin);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, conditions_row);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, data_row);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, graph_switch);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, loss_every_step_switch);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, fused_switch);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, start_button);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, inspect_button);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, eta_label);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, loss_chart);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, accuracy_chart);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, epoch_time_chart);
  gtk_widget_class_bind_template_child (widget_class, TbTrainPage, speed_chart);
  gtk_widget_class_bind_template_callback (widget_class, optimizer_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, condition_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, conditions_preset_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
tb_train_page_init (TbTrainPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = tb_settings_new ();
  self->device_index = -1;
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->threads_spin), g_settings_get_int (self->settings, "threads"));
  gtk_switch_set_active (GTK_SWITCH (self->tf32_switch), g_settings_get_boolean (self->settings, "tf32"));
  load_conditions (self);
  /* from the template's first one (SGD): its handler shows Adam's rows */
  adw_combo_row_set_selected (ADW_COMBO_ROW (self->optimizer_row), NN_OPT_ADAM);
  reset_charts (self);

  /* The device list can take seconds (tb-devices.h): a spinner row stands
   * in for it, and Train stays off, until the worker answers. The task does
   * not hold the page: disposing it cancels, and the answer then leaves
   * `self` alone. */
  self->device_looking_row = tb_device_looking_row_new (NULL);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->device_group), self->device_looking_row);
  self->devices_cancellable = g_cancellable_new ();
  tb_device_list_async (self->devices_cancellable, devices_listed_cb, self);
}
