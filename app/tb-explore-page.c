/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-explore-page.c: the Explore page. A sweep runs through the engine's
 * nn_sweep_run in a GTask worker that touches no widget: its progress
 * callback stores the points finished under a mutex and one low-priority
 * idle hands them to the page, which redraws its charts from its own copy
 * of the sweep (TbSweep). Sweep files are read in workers too.
 */
#define G_LOG_DOMAIN "trainbench-explore"

#include "tb-config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "tb-devices.h"
#include "tb-error.h"
#include "tb-explore-page.h"
#include "tb-file.h"
#include "tb-platform.h"

/* What the worker and the page share while a sweep runs. */
typedef struct
{
  GMutex lock;
  /* set before the worker starts, then read only */
  NnSweepRequest request;        /* its strings point at the fields below */
  char *template_text;
  char *dataset;
  char *runs_folder;
  char *dataset_label;
  /* under `lock` */
  NnSweep *engine;               /* while nn_sweep_run runs; borrowed by stop */
  gboolean stop_requested;
  TbSweep *live;                 /* made by the worker, taken by the idle */
  GArray *finished;              /* NnSweepPoint, not yet taken by the idle */
  char *current;                 /* "W 512 · batch 128 · GPU 0", the point running */
  int done, count;
  double eta_seconds;
  gboolean flush_scheduled;
  char *file;                    /* the sweep file, once made */
  char *status;                  /* the sweep's final status */
  NnField error_field;           /* the request's field nn_sweep_new refused, set by the worker
                                  * before it returns */
  TbExplorePage *page;           /* owned until the job goes */
} Job;

struct _TbExplorePage
{
  GtkWidget parent_instance;

  /* owned */
  GArray *devices;               /* NnDeviceInfo */
  char *dataset;
  int train_limit;
  char *runs_folder;
  TbSweep *sweep;                /* shown */
  GPtrArray *recent;             /* TbSweepSummary, in recent_list's order */
  GPtrArray *axis_rows;          /* AdwEntryRow, in axes_list */
  GPtrArray *device_checks;      /* GtkCheckButton, in devices_list */
  GPtrArray *marked;             /* GtkWidget (a reference each): the rows of the setting the
                                  * last start was refused for */
  GCancellable *cancellable;     /* reads; cancelled at dispose */
  Job *job;                      /* the sweep running, or NULL */
  char *message;
  char *busy;                    /* why no sweep can start now (a run trains), or NULL */

  /* template widgets */
  GtkWidget *paned;
  AdwComboRow *family_row;
  AdwEntryRow *template_row;
  GtkListBox *axes_list;
  GtkListBox *devices_list;
  GtkSpinButton *steps_spin;
  AdwActionRow *dataset_row;
  GtkWidget *start_button;
  GtkWidget *stop_button;
  GtkLabel *message_label;
  GtkListBox *recent_list;
  GtkLabel *status_label;
  GtkProgressBar *progress_bar;
  TbChartView *speed_chart;
  TbChartView *crossover_chart;
  GtkLabel *crossover_label;
  TbChartView *breakdown_chart;
  GtkWidget *csv_button;
};

G_DEFINE_FINAL_TYPE (TbExplorePage, tb_explore_page, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_RUNNING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_SWEEP_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char default_template[] = "flatten; dense {W} relu; dense 10 softmax";

/* ------------------------------------------------------------ messages */

static void
set_message (TbExplorePage *self,
             const char    *text)
{
  g_free (self->message);
  self->message = g_strdup (text != NULL ? text : "");
  gtk_label_set_text (self->message_label, self->message);
  gtk_widget_set_visible (GTK_WIDGET (self->message_label), *self->message != '\0');
}

/* ------------------------------------------------------------ charts */

static void
show_charts (TbExplorePage *self)
{
  TbChartData *breakdown;
  int x_axis, y_axis;

  g_autofree char *crossover = NULL;

  gtk_widget_set_sensitive (self->csv_button, self->sweep != NULL);
  if (self->sweep == NULL)
    {
      tb_chart_view_set_data (self->speed_chart, NULL);
      tb_chart_view_set_data (self->crossover_chart, NULL);
      gtk_widget_set_visible (GTK_WIDGET (self->crossover_label), FALSE);
      tb_chart_view_set_data (self->breakdown_chart, NULL);
      gtk_widget_set_size_request (GTK_WIDGET (self->breakdown_chart), -1, 160);
      return;
    }
  tb_sweep_default_axes (self->sweep, &x_axis, &y_axis);
  tb_chart_view_set_data (self->speed_chart, tb_sweep_speed_chart (self->sweep, x_axis));
  tb_chart_view_set_data (self->crossover_chart, tb_sweep_crossover_chart (self->sweep, x_axis, y_axis));
  /* where the GPU starts to win, in the engine's words for each row */
  crossover = tb_sweep_crossover_text (self->sweep, x_axis, y_axis);
  gtk_label_set_text (self->crossover_label, crossover);
  gtk_widget_set_visible (GTK_WIDGET (self->crossover_label), *crossover != '\0');
  breakdown = tb_sweep_breakdown_chart (self->sweep, x_axis, y_axis);
  /* a row a point, each tall enough to read its label and bar */
  gtk_widget_set_size_request (GTK_WIDGET (self->breakdown_chart), -1,
                               120 + 26 * (int) MAX (breakdown->categories->len, 1));
  tb_chart_view_set_data (self->breakdown_chart, breakdown);
}

static void
show_sweep_status (TbExplorePage *self)
{
  g_autofree char *desc = NULL;
  g_autofree char *text = NULL;
  guint done, n;

  if (self->sweep == NULL)
    return;
  done = tb_sweep_count_done (self->sweep);
  n = self->sweep->points->len;
  desc = tb_sweep_describe (self->sweep);
  if (g_strcmp0 (self->sweep->status, "cancelled") == 0)
    /* TRANSLATORS: a sweep stopped by the user; then what it is */
    text = g_strdup_printf (_("Stopped: %s"), desc);
  else if (g_strcmp0 (self->sweep->status, "failed") == 0)
    text = g_strdup_printf (_("Failed: %s"), desc);
  else
    text = g_strdup (desc);
  gtk_label_set_text (self->status_label, text);
  gtk_progress_bar_set_fraction (self->progress_bar, n > 0 ? (double) done / n : 0);
}

void
tb_explore_page_show_sweep (TbExplorePage *self,
                            TbSweep       *sweep)
{
  g_return_if_fail (TB_IS_EXPLORE_PAGE (self));
  g_return_if_fail (sweep != NULL);

  if (self->sweep != sweep)
    {
      g_clear_pointer (&self->sweep, tb_sweep_unref);
      self->sweep = tb_sweep_ref (sweep);
    }
  show_charts (self);
  show_sweep_status (self);
}

/* ------------------------------------------------------------ axes */

/* The family chosen, as the engine names it. */
static NnSweepFamily
selected_family (TbExplorePage *self)
{
  guint family = adw_combo_row_get_selected (self->family_row);

  return family == 1 ? NN_SWEEP_CNN : family == 2 ? NN_SWEEP_SPEC : NN_SWEEP_MLP;
}

/* "32,128,512,2048"; "" for an axis without values. */
static char *
values_text (const NnSweepAxis *axis)
{
  GString *text = g_string_new (NULL);

  for (int32_t k = 0; k < axis->count; k++)
    g_string_append_printf (text, "%s%d", k > 0 ? "," : "", (int) axis->values[k]);
  return g_string_free (text, FALSE);
}

/* A row for an axis, with its values and the family's default for it
 * (what a change of family or template keeps is what was written over the
 * default). */
static void
add_axis_row (TbExplorePage *self,
              const char    *name,
              const char    *values,
              const char    *default_values)
{
  GtkWidget *row = adw_entry_row_new ();
  g_autofree char *label = tb_sweep_axis_label (name);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), label);
  gtk_editable_set_text (GTK_EDITABLE (row), values);
  g_object_set_data_full (G_OBJECT (row), "axis-name", g_strdup (name), g_free);
  g_object_set_data_full (G_OBJECT (row), "axis-default", g_strdup (default_values), g_free);
  gtk_widget_set_name (row, name);
  gtk_list_box_append (self->axes_list, row);
  g_ptr_array_add (self->axis_rows, row);
}

/* The text written in an axis row over its default, to keep across a
 * change of the family or the template; NULL when there is none. */
static char *
axis_edited_text (TbExplorePage *self,
                  const char    *name)
{
  for (guint i = 0; i < self->axis_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->axis_rows, i);
      const char *text = gtk_editable_get_text (GTK_EDITABLE (row));

      if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "axis-name"), name) == 0
          && g_strcmp0 (text, g_object_get_data (G_OBJECT (row), "axis-default")) != 0)
        return g_strdup (text);
    }
  return NULL;
}

static void
clear_axes (TbExplorePage *self)
{
  for (guint i = 0; i < self->axis_rows->len; i++)
    gtk_list_box_remove (self->axes_list, g_ptr_array_index (self->axis_rows, i));
  g_ptr_array_set_size (self->axis_rows, 0);
}

/* The family's axes, each with the engine's default values (or what was
 * written over the defaults before): mlp W, D and batch; cnn F and batch;
 * a template's placeholders and batch. */
static void
rebuild_axes (TbExplorePage *self)
{
  NnSweepAxis axes[8];
  int32_t n = nn_sweep_family_axes (selected_family (self),
                                    gtk_editable_get_text (GTK_EDITABLE (self->template_row)),
                                    axes, G_N_ELEMENTS (axes));
  g_autoptr(GPtrArray) defaults = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);

  n = MIN (n, (int32_t) G_N_ELEMENTS (axes));
  for (int32_t i = 0; i < n; i++)
    {
      char *edited = axis_edited_text (self, axes[i].name);

      g_ptr_array_add (defaults, values_text (&axes[i]));
      g_ptr_array_add (texts, edited != NULL ? edited : g_strdup (g_ptr_array_index (defaults, i)));
    }
  clear_axes (self);
  for (int32_t i = 0; i < n; i++)
    add_axis_row (self, axes[i].name, g_ptr_array_index (texts, i), g_ptr_array_index (defaults, i));
}

static void
family_changed_cb (TbExplorePage *self)
{
  gboolean spec = selected_family (self) == NN_SWEEP_SPEC;

  gtk_widget_set_visible (GTK_WIDGET (self->template_row), spec);
  rebuild_axes (self);
}

static void
template_changed_cb (TbExplorePage *self)
{
  if (selected_family (self) == NN_SWEEP_SPEC)
    rebuild_axes (self);
}

/* ------------------------------------------------------------ devices */

void
tb_explore_page_set_devices (TbExplorePage      *self,
                             const NnDeviceInfo *devices,
                             guint               n_devices)
{
  GtkWidget *child;

  g_return_if_fail (TB_IS_EXPLORE_PAGE (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->devices_list))) != NULL)
    gtk_list_box_remove (self->devices_list, child);
  g_ptr_array_set_size (self->device_checks, 0);
  g_array_set_size (self->devices, 0);
  g_array_append_vals (self->devices, devices, n_devices);

  for (guint d = 0; d < n_devices; d++)
    {
      const NnDeviceInfo *dev = &devices[d];
      g_autofree char *title = tb_device_title (dev);
      g_autofree char *id = tb_device_id (dev);
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *check = gtk_check_button_new ();

      /* a driver's names and a reason's paths are text, never markup */
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
      /* every usable device is compared by default */
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), dev->usable);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      if (!dev->usable)
        {
          adw_action_row_set_subtitle (ADW_ACTION_ROW (row), dev->reason);
          gtk_widget_set_sensitive (row, FALSE);
        }
      g_object_set_data_full (G_OBJECT (check), "device-id", g_steal_pointer (&id), g_free);
      gtk_widget_set_name (row, g_object_get_data (G_OBJECT (check), "device-id"));
      gtk_list_box_append (self->devices_list, row);
      g_ptr_array_add (self->device_checks, check);
    }
  if (n_devices == 0)
    gtk_list_box_append (self->devices_list, tb_device_looking_row_new (NULL));
}

gboolean
tb_explore_page_set_device_active (TbExplorePage *self,
                                   const char    *id,
                                   gboolean       active)
{
  g_return_val_if_fail (TB_IS_EXPLORE_PAGE (self), FALSE);

  for (guint i = 0; i < self->device_checks->len; i++)
    {
      GtkWidget *check = g_ptr_array_index (self->device_checks, i);

      if (g_strcmp0 (g_object_get_data (G_OBJECT (check), "device-id"), id) == 0
          && (gtk_widget_is_sensitive (check) || !active))
        {
          gtk_check_button_set_active (GTK_CHECK_BUTTON (check), active);
          return TRUE;
        }
    }
  return FALSE;
}

/* ------------------------------------------------------------ settings */

void
tb_explore_page_set_dataset (TbExplorePage *self,
                             const char    *name_or_path,
                             int            train_limit)
{
  g_return_if_fail (TB_IS_EXPLORE_PAGE (self));

  g_free (self->dataset);
  self->dataset = g_strdup (name_or_path);
  self->train_limit = train_limit;
  if (name_or_path != NULL)
    {
      g_autofree char *base = g_path_get_basename (name_or_path);

      adw_action_row_set_subtitle (self->dataset_row, base);
    }
  else
    adw_action_row_set_subtitle (self->dataset_row, _("Choose one on the Data page"));
}

void
tb_explore_page_set_family (TbExplorePage *self,
                            const char    *family)
{
  g_return_if_fail (TB_IS_EXPLORE_PAGE (self));

  adw_combo_row_set_selected (self->family_row,
                              g_strcmp0 (family, "cnn") == 0 ? 1 : g_strcmp0 (family, "spec") == 0 ? 2 : 0);
}

gboolean
tb_explore_page_set_axis (TbExplorePage *self,
                          const char    *name,
                          const char    *values)
{
  g_return_val_if_fail (TB_IS_EXPLORE_PAGE (self), FALSE);

  for (guint i = 0; i < self->axis_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->axis_rows, i);

      if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "axis-name"), name) == 0)
        {
          gtk_editable_set_text (GTK_EDITABLE (row), values);
          return TRUE;
        }
    }
  return FALSE;
}

void
tb_explore_page_set_steps (TbExplorePage *self,
                           int            steps)
{
  g_return_if_fail (TB_IS_EXPLORE_PAGE (self));
  gtk_spin_button_set_value (self->steps_spin, steps);
}

/* ------------------------------------------------------------ the run */

static void
job_free (Job *job)
{
  g_mutex_clear (&job->lock);
  g_free (job->template_text);
  g_free (job->dataset);
  g_free (job->runs_folder);
  g_free (job->dataset_label);
  g_clear_pointer (&job->live, tb_sweep_unref);
  g_array_unref (job->finished);
  g_free (job->current);
  g_free (job->file);
  g_free (job->status);
  g_clear_object (&job->page);
  g_free (job);
}

/* Hand what the worker stored to the page: main thread. */
static gboolean
flush_cb (gpointer data)
{
  g_autoptr(GTask) task = data;
  Job *job = g_task_get_task_data (task);
  TbExplorePage *self = job->page;
  g_autoptr(TbSweep) live = NULL;
  g_autoptr(GArray) finished = NULL;
  g_autofree char *current = NULL;
  int done, count;
  double eta;

  g_mutex_lock (&job->lock);
  job->flush_scheduled = FALSE;
  live = g_steal_pointer (&job->live);
  finished = job->finished;
  job->finished = g_array_new (FALSE, FALSE, sizeof (NnSweepPoint));
  current = g_strdup (job->current);
  done = job->done;
  count = job->count;
  eta = job->eta_seconds;
  g_mutex_unlock (&job->lock);

  /* a page no longer running this job (disposed) shows nothing of it */
  if (self->job != job)
    return G_SOURCE_REMOVE;
  if (live != NULL)
    {
      g_clear_pointer (&self->sweep, tb_sweep_unref);
      self->sweep = g_steal_pointer (&live);
    }
  if (self->sweep == NULL)
    return G_SOURCE_REMOVE;
  for (guint i = 0; i < finished->len; i++)
    tb_sweep_update_point (self->sweep, &g_array_index (finished, NnSweepPoint, i));
  if (finished->len > 0 || count > 0)
    show_charts (self);
  {
    GString *text = g_string_new (NULL);

    /* TRANSLATORS: a sweep's progress, "Point 3/32" */
    g_string_append_printf (text, _("Point %d/%d"), MIN (done + 1, count), count);
    if (eta >= 0)
      {
        /* TRANSLATORS: the time a sweep has left, "about 40 s left" */
        g_string_append_printf (text, _(" · about %.0f s left"), ceil (eta));
      }
    if (current != NULL)
      g_string_append_printf (text, " · %s", current);
    gtk_label_set_text (self->status_label, text->str);
    g_string_free (text, TRUE);
  }
  gtk_progress_bar_set_fraction (self->progress_bar, count > 0 ? (double) done / count : 0);
  return G_SOURCE_REMOVE;
}

/* Under job->lock. One idle at a time, at low priority: the main loop sees
 * one event however many points finish meanwhile. */
static void
schedule_flush (GTask *task,
                Job   *job)
{
  if (job->flush_scheduled)
    return;
  job->flush_scheduled = TRUE;
  g_idle_add_full (G_PRIORITY_LOW, flush_cb, g_object_ref (task), NULL);
}

/* "W 512 · batch 128 · GPU 0" */
static char *
point_text (const NnSweepRequest *request,
            const NnSweepPoint   *point)
{
  GString *text = g_string_new (NULL);

  for (int a = 0; a < request->axis_count; a++)
    g_string_append_printf (text, "%s %d · ", strcmp (request->axes[a].name, "batch") == 0 ? _("batch") : request->axes[a].name,
                            point->values[a]);
  if (strcmp (point->device_text, "cpu") == 0)
    g_string_append (text, _("CPU"));
  else if (g_str_has_prefix (point->device_text, "cuda:"))
    g_string_append_printf (text, _("GPU %s"), point->device_text + 5);
  else
    g_string_append (text, point->device_text);
  return g_string_free (text, FALSE);
}

/* The sweep's thread. */
static bool
progress_cb (const NnSweepProgress *progress,
             void                  *user_data)
{
  GTask *task = user_data;
  Job *job = g_task_get_task_data (task);
  gboolean go_on;

  g_mutex_lock (&job->lock);
  if (progress->kind == NN_SWEEP_POINT_FINISHED)
    g_array_append_val (job->finished, *progress->point);
  else
    {
      g_free (job->current);
      job->current = point_text (&job->request, progress->point);
    }
  job->done = progress->done;
  job->count = progress->count;
  job->eta_seconds = progress->eta_seconds;
  schedule_flush (task, job);
  go_on = !job->stop_requested;
  g_mutex_unlock (&job->lock);
  return go_on;
}

static void
sweep_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  Job *job = task_data;
  NnSweep *engine = NULL;
  NnError error = { 0 };
  NnStatus status;
  gboolean stop;

  job->request.progress = progress_cb;
  job->request.progress_data = task;
  status = nn_sweep_new (&job->request, &engine, &error);
  if (status != NN_OK)
    {
      g_autofree char *translated = tb_error_message (&error);

      job->error_field = error.field;
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s", translated);
      return;
    }

  g_mutex_lock (&job->lock);
  job->engine = engine;
  job->live = tb_sweep_new_for_engine (engine, job->dataset_label);
  job->count = nn_sweep_point_count (engine);
  stop = job->stop_requested;
  schedule_flush (task, job);
  g_mutex_unlock (&job->lock);
  if (stop)
    nn_sweep_cancel (engine);

  status = nn_sweep_run (engine, &error);

  g_mutex_lock (&job->lock);
  job->engine = NULL;
  job->file = g_strdup (nn_sweep_file (engine));
  job->status = g_strdup (nn_sweep_status_name (nn_sweep_status (engine)));
  g_mutex_unlock (&job->lock);
  nn_sweep_free (engine);

  if (status != NN_OK && status != NN_ERROR_CANCELLED)
    {
      g_autofree char *translated = tb_error_message (&error);

      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", translated);
    }
  else
    g_task_return_boolean (task, TRUE);
}

/* ------------------------------------------------------------ the setting at fault */

static void
mark (TbExplorePage *self,
      GtkWidget     *row)
{
  if (row == NULL)
    return;
  gtk_widget_add_css_class (row, "tb-invalid");
  g_ptr_array_add (self->marked, g_object_ref (row));
}

static void
unmark_all (TbExplorePage *self)
{
  for (guint i = 0; i < self->marked->len; i++)
    gtk_widget_remove_css_class (g_ptr_array_index (self->marked, i), "tb-invalid");
  g_ptr_array_set_size (self->marked, 0);
}

/* Mark the rows that set the field of the request the engine refused
 * (NnError.field), until the next start. */
static void
mark_field (TbExplorePage *self,
            NnField        field)
{
  switch (field)
    {
    case NN_FIELD_FAMILY:
      mark (self, GTK_WIDGET (self->family_row));
      break;
    case NN_FIELD_TEMPLATE:
      mark (self, GTK_WIDGET (self->template_row));
      break;
    case NN_FIELD_AXES:
    case NN_FIELD_BATCH_SIZE:
      /* the axes swept; without a batch axis the batch size is the batch
       * row's to give */
      for (guint i = 0; i < self->axis_rows->len; i++)
        {
          GtkWidget *row = g_ptr_array_index (self->axis_rows, i);
          gboolean batch = g_strcmp0 (g_object_get_data (G_OBJECT (row), "axis-name"), "batch") == 0;

          if (field == NN_FIELD_AXES ? *gtk_editable_get_text (GTK_EDITABLE (row)) != '\0' : batch)
            mark (self, row);
        }
      break;
    case NN_FIELD_DEVICES:
      for (guint i = 0; i < self->device_checks->len; i++)
        {
          GtkWidget *check = g_ptr_array_index (self->device_checks, i);

          if (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)))
            mark (self, gtk_widget_get_ancestor (check, ADW_TYPE_ACTION_ROW));
        }
      break;
    case NN_FIELD_STEPS:
    case NN_FIELD_WARMUP_STEPS:
      mark (self, gtk_widget_get_ancestor (GTK_WIDGET (self->steps_spin), ADW_TYPE_ACTION_ROW));
      break;
    case NN_FIELD_DATASET:
    case NN_FIELD_LIMIT_TRAIN:
      mark (self, GTK_WIDGET (self->dataset_row));
      break;
    case NN_FIELD_RUNS_FOLDER:
    case NN_FIELD_NONE:
      break;
    }
}

static void
update_buttons (TbExplorePage *self)
{
  gboolean running = self->job != NULL;

  gtk_widget_set_sensitive (self->start_button, !running && self->busy == NULL);
  gtk_widget_set_tooltip_text (self->start_button, self->busy);
  gtk_widget_set_sensitive (self->stop_button, running);
}

void
tb_explore_page_set_busy (TbExplorePage *self,
                          const char    *reason)
{
  g_return_if_fail (TB_IS_EXPLORE_PAGE (self));

  g_free (self->busy);
  self->busy = g_strdup (reason);
  update_buttons (self);
}

static void
sweep_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  TbExplorePage *self = TB_EXPLORE_PAGE (source);
  Job *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;

  g_task_propagate_boolean (G_TASK (result), &error);
  if (self->job != job)
    return;
  /* the points the idle has not shown yet */
  flush_cb (g_object_ref (result));
  self->job = NULL;
  if (self->sweep != NULL)
    {
      g_free (self->sweep->status);
      self->sweep->status = g_strdup (job->status != NULL ? job->status : "failed");
      if (job->file != NULL && *job->file != '\0')
        {
          g_free (self->sweep->path);
          self->sweep->path = g_strdup (job->file);
        }
      show_sweep_status (self);
      show_charts (self);
    }
  set_message (self, error != NULL ? error->message : NULL);
  if (error != NULL)
    mark_field (self, job->error_field);
  update_buttons (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  tb_explore_page_reload (self);
  g_signal_emit (self, signals[SIGNAL_SWEEP_FINISHED], 0, job->file, error);
}

gboolean
tb_explore_page_start (TbExplorePage *self)
{
  g_autoptr(GTask) task = NULL;
  Job *job;

  g_return_val_if_fail (TB_IS_EXPLORE_PAGE (self), FALSE);

  if (self->job != NULL)
    return FALSE;
  if (self->busy != NULL)
    {
      set_message (self, self->busy);
      return FALSE;
    }
  if (self->dataset == NULL)
    {
      set_message (self, _("Choose a data set first (see the Data page)"));
      return FALSE;
    }

  unmark_all (self);
  job = g_new0 (Job, 1);
  g_mutex_init (&job->lock);
  job->finished = g_array_new (FALSE, FALSE, sizeof (NnSweepPoint));
  job->eta_seconds = -1;
  nn_sweep_request_init (&job->request);
  job->request.family = selected_family (self);
  if (job->request.family == NN_SWEEP_SPEC)
    {
      job->template_text = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->template_row)));
      job->request.template_text = job->template_text;
    }
  for (guint i = 0; i < self->axis_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->axis_rows, i);
      g_autofree char *values = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row))));
      g_autofree char *text = NULL;
      NnError error = { 0 };

      if (*values == '\0')
        continue;
      if (job->request.axis_count >= NN_SWEEP_AXES_MAX)
        {
          set_message (self, _("A sweep has at most 3 axes: leave one empty"));
          job_free (job);
          return FALSE;
        }
      text = g_strdup_printf ("%s=%s", (const char *) g_object_get_data (G_OBJECT (row), "axis-name"), values);
      if (nn_sweep_axis_parse (text, &job->request.axes[job->request.axis_count], &error) != NN_OK)
        {
          g_autofree char *message = tb_error_message (&error);

          set_message (self, message);
          mark (self, row);
          job_free (job);
          return FALSE;
        }
      job->request.axis_count++;
    }
  for (guint i = 0; i < self->device_checks->len; i++)
    {
      GtkWidget *check = g_ptr_array_index (self->device_checks, i);

      if (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)) && gtk_widget_is_sensitive (check)
          && job->request.device_count < NN_SWEEP_DEVICES_MAX)
        g_strlcpy (job->request.devices[job->request.device_count++],
                   g_object_get_data (G_OBJECT (check), "device-id"), sizeof job->request.devices[0]);
    }
  if (job->request.device_count == 0)
    {
      set_message (self, _("Tick a device to sweep on"));
      job_free (job);
      return FALSE;
    }
  job->request.steps = gtk_spin_button_get_value_as_int (self->steps_spin);
  job->dataset = g_strdup (self->dataset);
  job->request.dataset_name = job->dataset;
  job->request.limit_train = MAX (self->train_limit, 0);
  job->runs_folder = g_strdup (self->runs_folder);
  job->request.runs_folder = job->runs_folder;
  job->dataset_label = g_path_get_basename (self->dataset);
  job->page = g_object_ref (self);

  set_message (self, NULL);
  self->job = job;
  gtk_label_set_text (self->status_label, _("Starting the sweep…"));
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  update_buttons (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);

  task = g_task_new (self, NULL, sweep_done_cb, NULL);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, sweep_thread);
  return TRUE;
}

void
tb_explore_page_stop (TbExplorePage *self)
{
  Job *job;

  g_return_if_fail (TB_IS_EXPLORE_PAGE (self));

  job = self->job;
  if (job == NULL)
    return;
  g_mutex_lock (&job->lock);
  job->stop_requested = TRUE;
  if (job->engine != NULL)
    nn_sweep_cancel (job->engine);
  g_mutex_unlock (&job->lock);
  gtk_label_set_text (self->status_label, _("Stopping after the point running…"));
  gtk_widget_set_sensitive (self->stop_button, FALSE);
}

gboolean
tb_explore_page_get_running (TbExplorePage *self)
{
  g_return_val_if_fail (TB_IS_EXPLORE_PAGE (self), FALSE);
  return self->job != NULL;
}

static void
start_clicked_cb (TbExplorePage *self)
{
  tb_explore_page_start (self);
}

static void
stop_clicked_cb (TbExplorePage *self)
{
  tb_explore_page_stop (self);
}

/* ------------------------------------------------------------ files */

static void
load_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  TbSweep *sweep = tb_sweep_load (task_data, &error);

  if (sweep == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, sweep, (GDestroyNotify) tb_sweep_unref);
}

static void
load_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TbSweep) sweep = g_task_propagate_pointer (G_TASK (result), &error);
  TbExplorePage *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = TB_EXPLORE_PAGE (source);
  if (sweep == NULL)
    {
      set_message (self, error->message);
      return;
    }
  set_message (self, NULL);
  /* a sweep running keeps its charts */
  if (self->job == NULL)
    tb_explore_page_show_sweep (self, sweep);
}

void
tb_explore_page_open_file (TbExplorePage *self,
                           const char    *path)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (TB_IS_EXPLORE_PAGE (self));
  g_return_if_fail (path != NULL);

  task = g_task_new (self, self->cancellable, load_done_cb, NULL);
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, load_thread);
}

/* The runs folder's sweeps, each a summary (its points are read when it
 * is opened), and what was skipped. */
typedef struct
{
  char *folder;
  GPtrArray *sweeps;             /* TbSweepSummary * */
  GPtrArray *skipped;            /* GError * */
} Recent;

static void
recent_free (Recent *recent)
{
  g_free (recent->folder);
  g_clear_pointer (&recent->sweeps, g_ptr_array_unref);
  g_ptr_array_unref (recent->skipped);
  g_free (recent);
}

static void
recent_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Recent *recent = task_data;

  recent->sweeps = tb_sweep_list_folder (recent->folder, recent->skipped, cancellable);
  g_task_return_boolean (task, TRUE);
}

static void
recent_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Recent *recent = g_task_get_task_data (G_TASK (result));
  TbExplorePage *self;
  GtkWidget *child;

  if (!g_task_propagate_boolean (G_TASK (result), NULL))
    return;
  self = TB_EXPLORE_PAGE (source);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->recent_list))) != NULL)
    gtk_list_box_remove (self->recent_list, child);
  g_ptr_array_set_size (self->recent, 0);
  for (guint i = 0; i < recent->sweeps->len && i < 20; i++)
    {
      TbSweepSummary *sweep = g_ptr_array_index (recent->sweeps, i);
      GtkWidget *row = adw_action_row_new ();
      g_autofree char *title = g_strdup_printf ("%s · %s", sweep->started_at != NULL ? sweep->started_at : "?",
                                                sweep->status);

      /* what a sweep file says is text, never markup */
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), sweep->description);
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      gtk_list_box_append (self->recent_list, row);
      g_ptr_array_add (self->recent, g_steal_pointer (&recent->sweeps->pdata[i]));
    }
  if (recent->sweeps->len == 0)
    {
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("No sweeps yet"));
      gtk_widget_set_sensitive (row, FALSE);
      gtk_list_box_append (self->recent_list, row);
    }
  /* what was not listed, and why: a link (not followed), another name of a
   * file listed, a file that is no readable sweep */
  if (recent->skipped->len > 0)
    {
      GtkWidget *row = adw_action_row_new ();
      guint n = recent->skipped->len;
      g_autofree char *title = g_strdup_printf (ngettext ("%u entry of the sweeps folder skipped",
                                                          "%u entries of the sweeps folder skipped", n), n);

      /* a file's name is text, never markup */
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), ((GError *) g_ptr_array_index (recent->skipped, 0))->message);
      gtk_widget_set_name (row, "skipped");
      gtk_list_box_append (self->recent_list, row);
    }
}

void
tb_explore_page_reload (TbExplorePage *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (TB_IS_EXPLORE_PAGE (self));

  if (self->runs_folder == NULL)
    return;
  {
    Recent *recent = g_new0 (Recent, 1);

    recent->folder = g_strdup (self->runs_folder);
    recent->skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
    task = g_task_new (self, self->cancellable, recent_done_cb, NULL);
    g_task_set_task_data (task, recent, (GDestroyNotify) recent_free);
  }
  g_task_run_in_thread (task, recent_thread);
}

void
tb_explore_page_set_runs_folder (TbExplorePage *self,
                                 const char    *folder)
{
  g_return_if_fail (TB_IS_EXPLORE_PAGE (self));

  g_free (self->runs_folder);
  self->runs_folder = g_strdup (folder);
  tb_explore_page_reload (self);
}

static void
recent_activated_cb (TbExplorePage *self,
                     GtkListBoxRow *row)
{
  int index = gtk_list_box_row_get_index (row);

  /* read whole when opened: the list keeps no points */
  if (index >= 0 && (guint) index < self->recent->len && self->job == NULL)
    tb_explore_page_open_file (self, ((TbSweepSummary *) g_ptr_array_index (self->recent, index))->path);
}

static void
csv_response_cb (GtkNativeDialog *dialog,
                 int              response,
                 TbExplorePage   *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->sweep != NULL)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      const char *kind = gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (dialog), "table");
      g_autoptr(GError) error = NULL;
      int x_axis, y_axis;
      g_autofree char *csv = NULL;

      tb_sweep_default_axes (self->sweep, &x_axis, &y_axis);
      csv = tb_sweep_format_csv (self->sweep, kind, x_axis, y_axis);
      if (path == NULL || !tb_file_set_contents (path, csv, -1, &error))
        set_message (self, error != NULL ? error->message : _("The file cannot be written"));
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
csv_clicked_cb (TbExplorePage *self)
{
  const char *ids[] = { "sweep", "crossover", NULL };
  const char *labels[] = { _("A line per point"), _("A line per cell of the crossover"), NULL };
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog;

  if (self->sweep == NULL)
    return;
  dialog = gtk_file_chooser_native_new (_("Export Sweep as CSV"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (dialog), "table", _("Table"), ids, labels);
  gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (dialog), "table", "sweep");
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), "sweep.csv");
  g_signal_connect (dialog, "response", G_CALLBACK (csv_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ------------------------------------------------------------ public */

TbSweep *
tb_explore_page_get_sweep (TbExplorePage *self)
{
  g_return_val_if_fail (TB_IS_EXPLORE_PAGE (self), NULL);
  return self->sweep;
}

const char *
tb_explore_page_get_message (TbExplorePage *self)
{
  g_return_val_if_fail (TB_IS_EXPLORE_PAGE (self), NULL);
  return self->message;
}

guint
tb_explore_page_get_n_recent (TbExplorePage *self)
{
  g_return_val_if_fail (TB_IS_EXPLORE_PAGE (self), 0);
  return self->recent->len;
}

TbChartView *
tb_explore_page_get_chart (TbExplorePage *self,
                           const char    *name)
{
  g_return_val_if_fail (TB_IS_EXPLORE_PAGE (self), NULL);

  if (g_strcmp0 (name, "sweep") == 0)
    return self->speed_chart;
  if (g_strcmp0 (name, "crossover") == 0)
    return self->crossover_chart;
  if (g_strcmp0 (name, "sweep-breakdown") == 0)
    return self->breakdown_chart;
  return NULL;
}

/* ------------------------------------------------------------ class */

static void
tb_explore_page_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  TbExplorePage *self = TB_EXPLORE_PAGE (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      g_value_set_boolean (value, self->job != NULL);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tb_explore_page_dispose (GObject *object)
{
  TbExplorePage *self = TB_EXPLORE_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  /* a sweep running is stopped: its points done stay in its file; its
   * worker ends on its own and shows nothing here */
  tb_explore_page_stop (self);
  self->job = NULL;
  gtk_widget_dispose_template (GTK_WIDGET (object), TB_TYPE_EXPLORE_PAGE);
  G_OBJECT_CLASS (tb_explore_page_parent_class)->dispose (object);
}

static void
tb_explore_page_finalize (GObject *object)
{
  TbExplorePage *self = TB_EXPLORE_PAGE (object);

  g_clear_object (&self->cancellable);
  g_array_unref (self->devices);
  g_free (self->dataset);
  g_free (self->runs_folder);
  g_free (self->message);
  g_free (self->busy);
  g_clear_pointer (&self->sweep, tb_sweep_unref);
  g_ptr_array_unref (self->recent);
  g_ptr_array_unref (self->axis_rows);
  g_ptr_array_unref (self->device_checks);
  g_ptr_array_unref (self->marked);
  G_OBJECT_CLASS (tb_explore_page_parent_class)->finalize (object);
}

static void
tb_explore_page_class_init (TbExplorePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = tb_explore_page_get_property;
  object_class->dispose = tb_explore_page_dispose;
  object_class->finalize = tb_explore_page_finalize;

  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  /* (path of the sweep file or NULL, GError or NULL) */
  signals[SIGNAL_SWEEP_FINISHED] =
    g_signal_new ("sweep-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_POINTER);

  g_type_ensure (TB_TYPE_CHART_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-explore-page.ui");
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, paned);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, family_row);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, template_row);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, axes_list);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, devices_list);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, steps_spin);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, dataset_row);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, start_button);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, stop_button);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, message_label);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, recent_list);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, status_label);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, speed_chart);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, crossover_chart);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, crossover_label);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, breakdown_chart);
  gtk_widget_class_bind_template_child (widget_class, TbExplorePage, csv_button);
  gtk_widget_class_bind_template_callback (widget_class, family_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, template_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, start_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, recent_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, csv_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
tb_explore_page_init (TbExplorePage *self)
{
  self->devices = g_array_new (FALSE, FALSE, sizeof (NnDeviceInfo));
  self->recent = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_sweep_summary_free);
  self->axis_rows = g_ptr_array_new ();
  self->device_checks = g_ptr_array_new ();
  self->marked = g_ptr_array_new_with_free_func (g_object_unref);
  self->cancellable = g_cancellable_new ();
  self->message = g_strdup ("");
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_editable_set_text (GTK_EDITABLE (self->template_row), default_template);
  rebuild_axes (self);
  tb_explore_page_set_devices (self, NULL, 0);
  update_buttons (self);
}
