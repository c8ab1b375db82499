/* tb-runs-page.c: the Runs page: the history of result files (read in a
 * worker), selection for comparison (grouped bars of seconds per epoch with
 * speed-ups, overlaid curves, grouped by device or OS) and import of other
 * machines' results. Export and the dialogs are the window's actions.
 */
#define G_LOG_DOMAIN "trainbench-runs-page"

#include "tb-config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tb-application.h"
#include "tb-runs-page.h"
#include "tb-window.h"

typedef struct _TbRunsJob TbRunsJob;

struct _TbRunsPage
{
  GtkWidget parent_instance;

  /* owned */
  GSettings *settings;
  GPtrArray *runs;               /* TbRun *: the history, in tb_run_compare order, one per row */
  GQueue *runs_jobs;             /* TbRunsJob *: history loads still to start, in order; NULL once disposed */
  GHashTable *runs_want_selected; /* char * paths to tick once their rows arrive */
  GPtrArray *runs_skipped;       /* GError *: files of the runs folder that are not readable results */

  /* borrowed */
  TbRunsJob *runs_job;           /* from its GTask: the load in its worker, or NULL */

  /* template widgets */
  GtkWidget *paned;
  GtkWidget *runs_list;          /* GtkListBox */
  GtkWidget *runs_empty;
  GtkWidget *runs_skipped_button;
  GtkWidget *group_device_toggle;
  GtkWidget *group_os_toggle;
  TbChartView *compare_bars;
  TbChartView *compare_accuracy;
  TbChartView *compare_loss;
};

G_DEFINE_FINAL_TYPE (TbRunsPage, tb_runs_page, GTK_TYPE_WIDGET)

/* The window the page is in, for its toasts and dialogs (NULL before it is
 * in one). */
static TbWindow *
get_window (TbRunsPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return TB_IS_WINDOW (root) ? TB_WINDOW (root) : NULL;
}

static void
show_error (TbRunsPage   *self,
            const char   *headline,
            const GError *error)
{
  TbWindow *window = get_window (self);

  if (window != NULL)
    tb_window_error (window, headline, error);
}

static void
show_toast (TbRunsPage *self,
            AdwToast   *toast)
{
  TbWindow *window = get_window (self);

  if (window != NULL)
    tb_window_add_toast (window, toast);
  else
    g_object_unref (toast);
}

static GPtrArray *
selected_runs (TbRunsPage *self)
{
  GPtrArray *runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);

  for (GtkWidget *row = gtk_widget_get_first_child (self->runs_list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *check = g_object_get_data (G_OBJECT (row), "check");
      TbRun *run = g_object_get_data (G_OBJECT (row), "run");

      if (check != NULL && run != NULL && gtk_check_button_get_active (GTK_CHECK_BUTTON (check)))
        g_ptr_array_add (runs, tb_run_ref (run));
    }
  return runs;
}

static void
update_comparison (TbRunsPage *self)
{
  g_autoptr(GPtrArray) runs = selected_runs (self);
  TbGroupBy group_by = gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->group_os_toggle))
                       ? TB_GROUP_OS : TB_GROUP_DEVICE;

  tb_chart_view_set_data (self->compare_bars, tb_runs_compare_bars (runs, group_by));
  tb_chart_view_set_data (self->compare_accuracy, tb_runs_compare_accuracy (runs));
  tb_chart_view_set_data (self->compare_loss, tb_runs_compare_loss (runs));
}

static void
check_toggled_cb (GtkCheckButton *check,
                  TbRunsPage     *self)
{
  update_comparison (self);
}

static char *
run_title (const TbRun *run)
{
  return g_strdup_printf ("%s · %s", tb_run_model_label (run), run->dataset_name ? run->dataset_name : "?");
}

static char *
run_subtitle (const TbRun *run)
{
  g_autofree char *dev = tb_run_device_label (run);
  g_autofree char *os = tb_run_os_label (run);
  double spe = tb_run_seconds_per_epoch (run);
  double acc = tb_run_final_accuracy (run);
  g_autofree char *spe_text = isfinite (spe) ? g_strdup_printf (_("%.2f s/epoch"), spe) : g_strdup ("—");
  g_autofree char *acc_text = isfinite (acc) ? g_strdup_printf (_("%.2f %% accuracy"), acc * 100) : g_strdup ("—");

  return g_strdup_printf ("%s · %s · %s · %s · %s", dev, os, spe_text, acc_text,
                          run->started_at ? run->started_at : "");
}

static GtkWidget *
make_run_row (TbRunsPage *self,
              TbRun    *run)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *check = gtk_check_button_new ();
  g_autofree char *title = run_title (run);
  g_autofree char *subtitle = run_subtitle (run);
  g_autofree char *markup_title = g_markup_escape_text (title, -1);
  g_autofree char *markup_sub = g_markup_escape_text (subtitle, -1);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), markup_title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), markup_sub);
  /* names from other machines may be of any length: they end in "…" */
  adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 1);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 2);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);

  if (g_strcmp0 (run->status, "completed") != 0)
    {
      GtkWidget *badge = gtk_label_new (g_strcmp0 (run->status, "cancelled") == 0 ? _("cancelled") : _("failed"));

      gtk_widget_add_css_class (badge, g_strcmp0 (run->status, "cancelled") == 0 ? "warning" : "error");
      gtk_widget_set_valign (badge, GTK_ALIGN_CENTER);
      if (run->error != NULL)
        {
          g_autofree char *tip = tb_window_bound_text (run->error, 400);

          gtk_widget_set_tooltip_text (badge, tip);
        }
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), badge);
    }
  {
    g_autofree char *tip = tb_window_bound_text (run->path, 400);

    gtk_widget_set_tooltip_text (row, tip);
  }
  g_object_set_data (G_OBJECT (row), "check", check);
  g_object_set_data_full (G_OBJECT (row), "run", tb_run_ref (run), (GDestroyNotify) tb_run_unref);
  g_signal_connect (check, "toggled", G_CALLBACK (check_toggled_cb), self);
  return row;
}

/* ------------------------------------------------------------ loading */

/* The history is read in a worker, one load at a time and in the order
 * asked, so a reload, a new run and an import never race over the rows.
 * The worker only reads files (and copies imported ones); rows are made
 * here on the main thread when a load is done. */

typedef enum
{
  JOB_FOLDER,     /* the whole runs folder */
  JOB_FILES,      /* new result files: one saved run each */
  JOB_IMPORT,     /* files from elsewhere, checked and copied in */
} JobKind;

struct _TbRunsJob
{
  JobKind kind;
  char *folder;                  /* the runs folder when the job was asked */
  GPtrArray *paths;              /* char *: JOB_FILES: results; JOB_IMPORT: sources */
  GCancellable *cancellable;

  /* filled in by the worker, read on the main thread once it returned */
  GPtrArray *runs;               /* TbRun * */
  GPtrArray *errors;             /* GError *: JOB_IMPORT's refusals, in file order */
  GPtrArray *skipped;            /* GError *: unreadable files, each named with why */
  guint copied;                  /* JOB_IMPORT: files new to the folder */
};

static void
job_free (TbRunsJob *job)
{
  g_free (job->folder);
  g_clear_pointer (&job->paths, g_ptr_array_unref);
  g_clear_object (&job->cancellable);
  g_clear_pointer (&job->runs, g_ptr_array_unref);
  g_clear_pointer (&job->errors, g_ptr_array_unref);
  g_clear_pointer (&job->skipped, g_ptr_array_unref);
  g_free (job);
}

static TbRunsJob *
job_new (TbRunsPage *self,
         JobKind   kind)
{
  TbRunsJob *job = g_new0 (TbRunsJob, 1);

  job->kind = kind;
  job->folder = tb_runs_page_get_folder (self);
  job->paths = g_ptr_array_new_with_free_func (g_free);
  job->cancellable = g_cancellable_new ();
  job->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  job->errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  job->skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  return job;
}

/* Worker thread: touches the job only, never the window. */
static void
job_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  TbRunsJob *job = task_data;
  GError *error = NULL;

  if (job->kind == JOB_FOLDER)
    {
      GPtrArray *runs = tb_run_load_folder (job->folder, job->skipped, cancellable, &error);

      if (runs == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      g_ptr_array_unref (job->runs);
      job->runs = runs;
      g_task_return_boolean (task, TRUE);
      return;
    }

  for (guint i = 0; i < job->paths->len; i++)
    {
      const char *path = g_ptr_array_index (job->paths, i);
      TbRun *run;

      if (g_task_return_error_if_cancelled (task))
        return;
      if (job->kind == JOB_FILES)
        {
          run = tb_run_load (path, &error);
          if (run == NULL)
            g_ptr_array_add (job->skipped, g_steal_pointer (&error));
        }
      else
        {
          gboolean copied = FALSE;

          run = tb_run_import (path, job->folder, &copied, &error);
          if (run == NULL)
            g_ptr_array_add (job->errors, g_steal_pointer (&error));
          job->copied += copied;
        }
      if (run != NULL)
        g_ptr_array_add (job->runs, run);
    }
  g_task_return_boolean (task, TRUE);
}

static void job_done_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data);

static void
set_loading (TbRunsPage *self,
             gboolean  loading)
{
  gtk_label_set_text (GTK_LABEL (self->runs_empty),
                      loading ? _("Reading the runs…") : _("No runs yet: train a model, or import result files"));
}

static void
start_next_job (TbRunsPage *self)
{
  g_autoptr(GTask) task = NULL;
  TbRunsJob *job;

  if (self->runs_job != NULL || self->runs_jobs == NULL)
    return;
  job = g_queue_pop_head (self->runs_jobs);
  if (job == NULL)
    {
      /* every load is in: ticks asked for rows that never came are void */
      g_hash_table_remove_all (self->runs_want_selected);
      return;
    }
  if (job->kind == JOB_FOLDER && (self->runs == NULL || self->runs->len == 0))
    set_loading (self, TRUE);
  self->runs_job = job;
  task = g_task_new (self, job->cancellable, job_done_cb, NULL);
  g_task_set_source_tag (task, start_next_job);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, job_thread);
}

static void
queue_job (TbRunsPage *self,
           TbRunsJob *job)
{
  if (self->runs_jobs == NULL)
    {
      job_free (job);   /* disposed */
      return;
    }
  g_queue_push_tail (self->runs_jobs, job);
  start_next_job (self);
}

guint
tb_runs_page_get_n_pending (TbRunsPage *self)
{
  g_return_val_if_fail (TB_IS_RUNS_PAGE (self), 0);
  return (self->runs_jobs != NULL ? g_queue_get_length (self->runs_jobs) : 0)
         + (self->runs_job != NULL ? 1 : 0);
}

/* Cancel the loads: the page is going. */
static void
cancel_jobs (TbRunsPage *self)
{
  /* the worker stops at its next file; its callback then finds no queue */
  if (self->runs_job != NULL)
    g_cancellable_cancel (self->runs_job->cancellable);
  self->runs_job = NULL;
  if (self->runs_jobs != NULL)
    g_queue_free_full (g_steal_pointer (&self->runs_jobs), (GDestroyNotify) job_free);
  g_clear_pointer (&self->runs_want_selected, g_hash_table_unref);
  g_clear_pointer (&self->runs_skipped, g_ptr_array_unref);
}

/* The row of the run at `path`, or NULL. */
static GtkWidget *
find_row (TbRunsPage *self,
          const char *path)
{
  if (self->runs == NULL)
    return NULL;
  for (guint i = 0; i < self->runs->len; i++)
    if (g_strcmp0 (((TbRun *) g_ptr_array_index (self->runs, i))->path, path) == 0)
      return GTK_WIDGET (gtk_list_box_get_row_at_index (GTK_LIST_BOX (self->runs_list), (int) i));
  return NULL;
}

static void
set_row_checked (TbRunsPage *self,
                 GtkWidget *row,
                 gboolean   on)
{
  GtkWidget *check = g_object_get_data (G_OBJECT (row), "check");

  if (check == NULL)
    return;
  g_signal_handlers_block_by_func (check, check_toggled_cb, self);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), on);
  g_signal_handlers_unblock_by_func (check, check_toggled_cb, self);
}

/* Tick a new row if it was asked for before it existed. */
static void
apply_wanted (TbRunsPage *self,
              GtkWidget *row,
              TbRun     *run)
{
  if (g_hash_table_remove (self->runs_want_selected, run->path))
    set_row_checked (self, row, TRUE);
}

/* Add `run` at its place in the order, once: a run already listed keeps its
 * row. Returns the row (borrowed). */
static GtkWidget *
insert_run (TbRunsPage *self,
            TbRun    *run)
{
  GtkWidget *row = find_row (self, run->path);
  guint pos = 0;

  if (row != NULL)
    return row;
  if (self->runs == NULL)
    self->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  while (pos < self->runs->len && tb_run_compare (g_ptr_array_index (self->runs, pos), run) < 0)
    pos++;
  g_ptr_array_insert (self->runs, (int) pos, tb_run_ref (run));
  row = make_run_row (self, run);
  gtk_list_box_insert (GTK_LIST_BOX (self->runs_list), row, (int) pos);
  return row;
}

/* The files of the runs folder that could not be read, for the dialog:
 * each names its file and says why; at most SKIPPED_SHOWN of them, each
 * one bounded, so the dialog fits on a screen. */
#define SKIPPED_SHOWN 8
#define SKIPPED_MESSAGE_MAX 240

guint
tb_runs_page_get_n_skipped (TbRunsPage *self)
{
  g_return_val_if_fail (TB_IS_RUNS_PAGE (self), 0);
  return self->runs_skipped != NULL ? self->runs_skipped->len : 0;
}

char *
tb_runs_page_get_skipped_text (TbRunsPage *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  guint n = self->runs_skipped != NULL ? self->runs_skipped->len : 0;

  for (guint i = 0; i < MIN (n, SKIPPED_SHOWN); i++)
    {
      const GError *error = g_ptr_array_index (self->runs_skipped, i);
      g_autofree char *message = tb_window_bound_text (error->message, SKIPPED_MESSAGE_MAX);

      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append_printf (text, "• %s", message);
    }
  if (n > SKIPPED_SHOWN)
    {
      g_string_append_c (text, '\n');
      g_string_append_printf (text, ngettext ("… and %u more file", "… and %u more files", n - SKIPPED_SHOWN),
                              n - SKIPPED_SHOWN);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* The page's line "2 files skipped", shown while there are any. */
static void
update_skipped (TbRunsPage *self)
{
  guint n = self->runs_skipped->len;
  g_autofree char *label = NULL;

  gtk_widget_set_visible (self->runs_skipped_button, n > 0);
  if (n == 0)
    return;
  label = g_strdup_printf (ngettext ("%u file skipped", "%u files skipped", n), n);
  gtk_button_set_label (GTK_BUTTON (self->runs_skipped_button), label);
}

/* Files of the runs folder that are not results: the rows list what could
 * be read; a toast and the page's "skipped" line say that some were not,
 * and lead to which and why. */
static void
add_skipped (TbRunsPage *self,
             GPtrArray *skipped,
             gboolean   replace)
{
  g_autofree char *msg = NULL;
  AdwToast *toast;

  if (replace)
    g_ptr_array_set_size (self->runs_skipped, 0);
  for (guint i = 0; i < skipped->len; i++)
    g_ptr_array_add (self->runs_skipped, g_error_copy (g_ptr_array_index (skipped, i)));
  update_skipped (self);
  if (skipped->len == 0)
    return;
  msg = g_strdup_printf (ngettext ("%u file in the runs folder is not a readable result",
                                   "%u files in the runs folder are not readable results",
                                   skipped->len), skipped->len);
  toast = adw_toast_new (msg);
  adw_toast_set_timeout (toast, 8);
  adw_toast_set_button_label (toast, _("_Details"));
  adw_toast_set_action_name (toast, "win.skipped-runs");
  show_toast (self, toast);
}

static void
folder_loaded (TbRunsPage *self,
               TbRunsJob *job)
{
  g_autoptr(GHashTable) was_selected = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) selected = selected_runs (self);
  GtkListBoxRow *child;

  /* keep the selection as it is now, not as it was when the load began */
  for (guint i = 0; i < selected->len; i++)
    g_hash_table_add (was_selected, ((TbRun *) g_ptr_array_index (selected, i))->path);

  /* the rows only: the first child may be the placeholder, which stays */
  while ((child = gtk_list_box_get_row_at_index (GTK_LIST_BOX (self->runs_list), 0)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->runs_list), GTK_WIDGET (child));

  g_clear_pointer (&self->runs, g_ptr_array_unref);
  self->runs = g_steal_pointer (&job->runs);
  for (guint i = 0; i < self->runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (self->runs, i);
      GtkWidget *row = make_run_row (self, run);

      if (g_hash_table_contains (was_selected, run->path))
        set_row_checked (self, row, TRUE);
      apply_wanted (self, row, run);
      gtk_list_box_append (GTK_LIST_BOX (self->runs_list), row);
    }
  set_loading (self, FALSE);
  add_skipped (self, job->skipped, TRUE);
}

/* Is `path` in the runs folder shown now? (A run saved before the folder
 * was changed is not.) */
static gboolean
in_runs_folder (TbRunsPage *self,
                const char *path)
{
  g_autofree char *folder = tb_runs_page_get_folder (self);
  g_autoptr(GFile) dir = g_file_new_for_path (folder);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) parent = g_file_get_parent (file);

  return parent != NULL && g_file_equal (parent, dir);
}

static void
files_loaded (TbRunsPage *self,
              TbRunsJob *job)
{
  for (guint i = 0; i < job->runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (job->runs, i);

      if (in_runs_folder (self, run->path))
        apply_wanted (self, insert_run (self, run), run);
    }
  add_skipped (self, job->skipped, FALSE);
}

static void
import_done (TbRunsPage *self,
             TbRunsJob *job)
{
  for (guint i = 0; i < job->errors->len; i++)
    {
      const GError *error = g_ptr_array_index (job->errors, i);

      /* a bad file, or a folder that cannot take it */
      show_error (self,
                  g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA)
                  ? _("This file cannot be imported") : _("Results could not be imported"),
                  error);
    }
  if (job->runs->len == 0)
    return;

  /* each run once, ticked; one comparison for all of them (by the caller) */
  for (guint i = 0; i < job->runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (job->runs, i);

      if (in_runs_folder (self, run->path))
        set_row_checked (self, insert_run (self, run), TRUE);
      g_hash_table_remove (self->runs_want_selected, run->path);
    }
  {
    g_autofree char *msg = g_strdup_printf (ngettext ("Imported %u run", "Imported %u runs", job->copied),
                                            job->copied);

    show_toast (self, adw_toast_new (msg));
  }
  gtk_widget_activate_action (GTK_WIDGET (self), "win.page", "s", "runs");
}

static void
job_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  TbRunsPage *self = TB_RUNS_PAGE (object);
  TbRunsJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);

  if (self->runs_jobs == NULL)
    return;   /* the page is gone */
  g_assert (self->runs_job == job);
  self->runs_job = NULL;

  /* cancelled: a newer reload of the folder replaces this one */
  if (ok)
    {
      if (job->kind == JOB_FOLDER)
        folder_loaded (self, job);
      else if (job->kind == JOB_FILES)
        files_loaded (self, job);
      else
        import_done (self, job);
      update_comparison (self);
    }
  start_next_job (self);
}

void
tb_runs_page_reload (TbRunsPage *self)
{
  GList *l, *next;

  g_return_if_fail (TB_IS_RUNS_PAGE (self));

  if (self->runs_jobs == NULL)
    return;
  /* a whole-folder read supersedes the reads not yet begun (their files
   * are in the folder) and the folder read under way, which may be of a
   * folder no longer chosen; imports still copy their files */
  for (l = self->runs_jobs->head; l != NULL; l = next)
    {
      TbRunsJob *job = l->data;

      next = l->next;
      if (job->kind != JOB_IMPORT)
        {
          job_free (job);
          g_queue_delete_link (self->runs_jobs, l);
        }
    }
  if (self->runs_job != NULL && self->runs_job->kind == JOB_FOLDER)
    g_cancellable_cancel (self->runs_job->cancellable);
  queue_job (self, job_new (self, JOB_FOLDER));
}

void
tb_runs_page_add (TbRunsPage *self,
                  const char *path,
                  gboolean    select)
{
  TbRunsJob *last;

  g_return_if_fail (TB_IS_RUNS_PAGE (self));
  g_return_if_fail (path != NULL);

  if (self->runs_jobs == NULL)
    return;
  if (select)
    g_hash_table_add (self->runs_want_selected, g_strdup (path));
  /* runs finishing one after the other join one read */
  last = g_queue_peek_tail (self->runs_jobs);
  if (last != NULL && last->kind == JOB_FILES)
    {
      g_ptr_array_add (last->paths, g_strdup (path));
      return;
    }
  last = job_new (self, JOB_FILES);
  g_ptr_array_add (last->paths, g_strdup (path));
  queue_job (self, last);
}

/* Tick or untick the run at `path` without redrawing the comparison; a run
 * not listed yet is ticked when its row arrives. */
static void
set_selected (TbRunsPage *self,
              const char *path,
              gboolean    selected)
{
  GtkWidget *row = find_row (self, path);

  if (self->runs_want_selected == NULL)
    return;   /* disposed */
  if (row != NULL)
    set_row_checked (self, row, selected);
  else if (selected && tb_runs_page_get_n_pending (self) > 0)
    g_hash_table_add (self->runs_want_selected, g_strdup (path));
  else
    g_hash_table_remove (self->runs_want_selected, path);
}

void
tb_runs_page_compare (TbRunsPage         *self,
                      const char * const *paths)
{
  g_return_if_fail (TB_IS_RUNS_PAGE (self));

  if (self->runs_want_selected == NULL)
    return;   /* disposed */
  /* exactly these runs, also those whose rows are still on their way */
  g_hash_table_remove_all (self->runs_want_selected);
  for (GtkWidget *row = gtk_widget_get_first_child (self->runs_list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    set_row_checked (self, row, FALSE);
  for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
    set_selected (self, paths[i], TRUE);
  update_comparison (self);
}

/* ------------------------------------------------------------ import */

void
tb_runs_page_import (TbRunsPage  *self,
                     GFile      **files,
                     guint        n_files)
{
  TbRunsJob *job;

  g_return_if_fail (TB_IS_RUNS_PAGE (self));

  if (self->runs_jobs == NULL)
    return;
  job = job_new (self, JOB_IMPORT);
  for (guint i = 0; i < n_files; i++)
    {
      char *path = g_file_get_path (files[i]);

      if (path != NULL)
        g_ptr_array_add (job->paths, path);
    }
  if (job->paths->len == 0)
    {
      job_free (job);
      return;
    }
  queue_job (self, job);
}

/* ------------------------------------------------------------ export */

GPtrArray *
tb_runs_page_get_export_runs (TbRunsPage *self)
{
  GPtrArray *runs;

  g_return_val_if_fail (TB_IS_RUNS_PAGE (self), NULL);

  runs = selected_runs (self);
  /* nothing selected: export the whole history */
  if (runs->len == 0 && self->runs != NULL)
    for (guint i = 0; i < self->runs->len; i++)
      g_ptr_array_add (runs, tb_run_ref (g_ptr_array_index (self->runs, i)));
  return runs;
}

void
tb_runs_page_select_all (TbRunsPage *self)
{
  gboolean all_on = TRUE;

  g_return_if_fail (TB_IS_RUNS_PAGE (self));

  for (GtkWidget *row = gtk_widget_get_first_child (self->runs_list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *check = g_object_get_data (G_OBJECT (row), "check");

      if (check != NULL && !gtk_check_button_get_active (GTK_CHECK_BUTTON (check)))
        all_on = FALSE;
    }
  for (GtkWidget *row = gtk_widget_get_first_child (self->runs_list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *check = g_object_get_data (G_OBJECT (row), "check");

      if (check == NULL)
        continue;
      g_signal_handlers_block_by_func (check, check_toggled_cb, self);
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), !all_on);
      g_signal_handlers_unblock_by_func (check, check_toggled_cb, self);
    }
  update_comparison (self);
}

/* ------------------------------------------------------------ page */

GPtrArray *
tb_runs_page_get_runs (TbRunsPage *self)
{
  g_return_val_if_fail (TB_IS_RUNS_PAGE (self), NULL);
  return self->runs;
}

TbChartView *
tb_runs_page_get_chart (TbRunsPage *self,
                        const char *name)
{
  g_return_val_if_fail (TB_IS_RUNS_PAGE (self), NULL);

  if (g_strcmp0 (name, "compare") == 0)
    return self->compare_bars;
  if (g_strcmp0 (name, "compare-accuracy") == 0)
    return self->compare_accuracy;
  if (g_strcmp0 (name, "compare-loss") == 0)
    return self->compare_loss;
  return NULL;
}

char *
tb_runs_page_get_folder (TbRunsPage *self)
{
  g_autofree char *folder = NULL;
  char buf[4096];

  g_return_val_if_fail (TB_IS_RUNS_PAGE (self), NULL);

  folder = g_settings_get_string (self->settings, "runs-folder");
  if (folder != NULL && *folder)
    return g_steal_pointer (&folder);
  nn_runs_dir (buf, sizeof buf);
  return g_strdup (buf);
}

static void
group_toggled_cb (GtkToggleButton *button,
                  TbRunsPage      *self)
{
  if (gtk_toggle_button_get_active (button))
    update_comparison (self);
}

static void
runs_folder_changed_cb (GSettings  *settings,
                        const char *key,
                        TbRunsPage *self)
{
  tb_runs_page_reload (self);
}

static void
tb_runs_page_dispose (GObject *object)
{
  TbRunsPage *self = TB_RUNS_PAGE (object);

  cancel_jobs (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), TB_TYPE_RUNS_PAGE);
  G_OBJECT_CLASS (tb_runs_page_parent_class)->dispose (object);
}

static void
tb_runs_page_finalize (GObject *object)
{
  TbRunsPage *self = TB_RUNS_PAGE (object);

  g_clear_pointer (&self->runs, g_ptr_array_unref);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (tb_runs_page_parent_class)->finalize (object);
}

static void
tb_runs_page_class_init (TbRunsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tb_runs_page_dispose;
  object_class->finalize = tb_runs_page_finalize;

  g_type_ensure (TB_TYPE_CHART_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-runs-page.ui");
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, paned);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, runs_list);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, runs_empty);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, runs_skipped_button);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, group_device_toggle);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, group_os_toggle);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, compare_bars);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, compare_accuracy);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, compare_loss);
  gtk_widget_class_bind_template_callback (widget_class, group_toggled_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
tb_runs_page_init (TbRunsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = tb_settings_new ();
  self->runs_jobs = g_queue_new ();
  self->runs_want_selected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->runs_skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_signal_connect_object (self->settings, "changed::runs-folder",
                           G_CALLBACK (runs_folder_changed_cb), self, 0);
  tb_runs_page_reload (self);
}
