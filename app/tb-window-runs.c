/* tb-window-runs.c: the Runs page: the history of result files (read in a
 * worker), selection for comparison (grouped bars of seconds per epoch with
 * speed-ups, overlaid curves, grouped by device or OS), import of other
 * machines' results, and CSV/JSON export.
 */
#include "tb-config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tb-window-private.h"

static GPtrArray *
selected_runs (TbWindow *self)
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
update_comparison (TbWindow *self)
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
                  TbWindow       *self)
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
make_run_row (TbWindow *self,
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
          g_autofree char *tip = _tb_window_bound_text (run->error, 400);

          gtk_widget_set_tooltip_text (badge, tip);
        }
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), badge);
    }
  {
    g_autofree char *tip = _tb_window_bound_text (run->path, 400);

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
job_new (TbWindow *self,
         JobKind   kind)
{
  TbRunsJob *job = g_new0 (TbRunsJob, 1);

  job->kind = kind;
  job->folder = _tb_window_runs_dir (self);
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
set_loading (TbWindow *self,
             gboolean  loading)
{
  gtk_label_set_text (GTK_LABEL (self->runs_empty),
                      loading ? _("Reading the runs…") : _("No runs yet: train a model, or import result files"));
}

static void
start_next_job (TbWindow *self)
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
queue_job (TbWindow  *self,
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
_tb_window_runs_pending (TbWindow *self)
{
  return (self->runs_jobs != NULL ? g_queue_get_length (self->runs_jobs) : 0)
         + (self->runs_job != NULL ? 1 : 0);
}

void
_tb_window_runs_dispose (TbWindow *self)
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
find_row (TbWindow   *self,
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
set_row_checked (TbWindow  *self,
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
apply_wanted (TbWindow  *self,
              GtkWidget *row,
              TbRun     *run)
{
  if (g_hash_table_remove (self->runs_want_selected, run->path))
    set_row_checked (self, row, TRUE);
}

/* Add `run` at its place in the order, once: a run already listed keeps its
 * row. Returns the row (borrowed). */
static GtkWidget *
insert_run (TbWindow *self,
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

char *
_tb_window_runs_skipped_text (TbWindow *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  guint n = self->runs_skipped != NULL ? self->runs_skipped->len : 0;

  for (guint i = 0; i < MIN (n, SKIPPED_SHOWN); i++)
    {
      const GError *error = g_ptr_array_index (self->runs_skipped, i);
      g_autofree char *message = _tb_window_bound_text (error->message, SKIPPED_MESSAGE_MAX);

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
update_skipped (TbWindow *self)
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
add_skipped (TbWindow  *self,
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
  g_set_weak_pointer (&self->last_toast, toast);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
skipped_runs_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  TbWindow *self = TB_WINDOW (widget);
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  if (self->runs_skipped == NULL || self->runs_skipped->len == 0)
    return;
  body = _tb_window_runs_skipped_text (self);
  dialog = adw_message_dialog_new (GTK_WINDOW (self),
                                   ngettext ("A file in the runs folder was skipped",
                                             "Files in the runs folder were skipped",
                                             self->runs_skipped->len),
                                   body);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
folder_loaded (TbWindow  *self,
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
in_runs_folder (TbWindow   *self,
                const char *path)
{
  g_autofree char *folder = _tb_window_runs_dir (self);
  g_autoptr(GFile) dir = g_file_new_for_path (folder);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) parent = g_file_get_parent (file);

  return parent != NULL && g_file_equal (parent, dir);
}

static void
files_loaded (TbWindow  *self,
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
import_done (TbWindow  *self,
             TbRunsJob *job)
{
  for (guint i = 0; i < job->errors->len; i++)
    {
      const GError *error = g_ptr_array_index (job->errors, i);

      /* a bad file, or a folder that cannot take it */
      _tb_window_error (self,
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

    _tb_window_toast (self, msg);
  }
  tb_window_show_page (self, "runs");
}

static void
job_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  TbWindow *self = TB_WINDOW (object);
  TbRunsJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);

  if (self->runs_jobs == NULL)
    return;   /* the window is gone */
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
_tb_window_runs_reload (TbWindow *self)
{
  GList *l, *next;

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
_tb_window_runs_add (TbWindow   *self,
                     const char *path,
                     gboolean    select)
{
  TbRunsJob *last;

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
set_selected (TbWindow   *self,
              const char *path,
              gboolean    selected)
{
  GtkWidget *row = find_row (self, path);

  if (self->runs_want_selected == NULL)
    return;   /* disposed */
  if (row != NULL)
    set_row_checked (self, row, selected);
  else if (selected && _tb_window_runs_pending (self) > 0)
    g_hash_table_add (self->runs_want_selected, g_strdup (path));
  else
    g_hash_table_remove (self->runs_want_selected, path);
}

void
tb_window_compare (TbWindow    *self,
                   const char **paths)
{
  g_return_if_fail (TB_IS_WINDOW (self));

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
_tb_window_runs_import (TbWindow  *self,
                        GFile    **files,
                        guint      n_files)
{
  TbRunsJob *job;

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
      _tb_window_runs_import (self, (GFile **) array->pdata, array->len);
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

/* ------------------------------------------------------------ export */

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
      g_autoptr(GPtrArray) runs = selected_runs (self);
      g_autoptr(GError) error = NULL;
      gboolean ok;

      /* nothing selected: export the whole history */
      if (runs->len == 0 && self->runs != NULL)
        for (guint i = 0; i < self->runs->len; i++)
          g_ptr_array_add (runs, tb_run_ref (g_ptr_array_index (self->runs, i)));
      ok = csv ? tb_runs_export_csv (runs, path, &error) : tb_runs_export_json (runs, path, &error);
      if (ok)
        {
          g_autofree char *base = g_path_get_basename (path);
          g_autofree char *msg = g_strdup_printf (ngettext ("%u run saved as “%s”", "%u runs saved as “%s”", runs->len),
                                                  runs->len, base);

          _tb_window_toast (self, msg);
        }
      else
        _tb_window_error (self, _("The runs could not be exported"), error);
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
  _tb_window_runs_reload (TB_WINDOW (widget));
}

static void
select_all_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  TbWindow *self = TB_WINDOW (widget);
  gboolean all_on = TRUE;

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

void
_tb_window_runs_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.import", NULL, import_action);
  gtk_widget_class_install_action (widget_class, "win.export-csv", NULL, export_csv_action);
  gtk_widget_class_install_action (widget_class, "win.export-json", NULL, export_json_action);
  gtk_widget_class_install_action (widget_class, "win.reload-runs", NULL, reload_action);
  gtk_widget_class_install_action (widget_class, "win.select-all-runs", NULL, select_all_action);
  gtk_widget_class_install_action (widget_class, "win.skipped-runs", NULL, skipped_runs_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.select-all-runs", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "win.reload-runs", NULL);
}

/* ------------------------------------------------------------ page */

static void
group_toggled_cb (GtkToggleButton *button,
                  TbWindow        *self)
{
  if (gtk_toggle_button_get_active (button))
    update_comparison (self);
}

static GtkWidget *
tool_button (const char *label,
             const char *action,
             const char *tooltip)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  gtk_widget_set_tooltip_text (button, tooltip);
  return button;
}

void
_tb_window_runs_init (TbWindow *self)
{
  GtkWidget *top, *bar, *scroller, *bottom, *group_box, *label, *charts, *frame;

  /* top: tool bar and history */
  top = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (top, 12);
  gtk_widget_set_margin_end (top, 12);
  gtk_widget_set_margin_top (top, 12);

  bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_box_append (GTK_BOX (bar), tool_button (_("_Import…"), "win.import", _("Add result files from other machines (Ctrl+O); you can also drop them on the window")));
  gtk_box_append (GTK_BOX (bar), tool_button (_("Select _All"), "win.select-all-runs", _("Select or unselect every run (Ctrl+Shift+A)")));
  gtk_box_append (GTK_BOX (bar), tool_button (_("_CSV…"), "win.export-csv", _("Export the selected runs (or all) as CSV")));
  gtk_box_append (GTK_BOX (bar), tool_button (_("_JSON…"), "win.export-json", _("Export the selected runs (or all) as JSON")));
  self->runs_skipped_button = gtk_button_new_with_label ("");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->runs_skipped_button), "win.skipped-runs");
  gtk_widget_set_tooltip_text (self->runs_skipped_button, _("Files in the runs folder that are not readable results: which, and why"));
  gtk_widget_add_css_class (self->runs_skipped_button, "flat");
  gtk_widget_add_css_class (self->runs_skipped_button, "warning");
  gtk_widget_set_visible (self->runs_skipped_button, FALSE);
  gtk_box_append (GTK_BOX (bar), self->runs_skipped_button);
  label = gtk_label_new (_("Group by"));
  gtk_widget_set_hexpand (label, TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_box_append (GTK_BOX (bar), label);
  group_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (group_box, "linked");
  self->group_device_toggle = gtk_toggle_button_new_with_mnemonic (_("_Device"));
  self->group_os_toggle = gtk_toggle_button_new_with_mnemonic (_("_OS"));
  gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (self->group_os_toggle), GTK_TOGGLE_BUTTON (self->group_device_toggle));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->group_device_toggle), TRUE);
  g_signal_connect (self->group_device_toggle, "toggled", G_CALLBACK (group_toggled_cb), self);
  g_signal_connect (self->group_os_toggle, "toggled", G_CALLBACK (group_toggled_cb), self);
  gtk_box_append (GTK_BOX (group_box), self->group_device_toggle);
  gtk_box_append (GTK_BOX (group_box), self->group_os_toggle);
  gtk_accessible_update_property (GTK_ACCESSIBLE (group_box), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Group by"), -1);
  gtk_box_append (GTK_BOX (bar), group_box);
  gtk_box_append (GTK_BOX (top), bar);

  self->runs_list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->runs_list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (self->runs_list, "boxed-list");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->runs_list), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Runs"), -1);
  self->runs_empty = gtk_label_new (_("No runs yet: train a model, or import result files"));
  gtk_widget_add_css_class (self->runs_empty, "dim-label");
  gtk_widget_set_margin_top (self->runs_empty, 18);
  gtk_widget_set_margin_bottom (self->runs_empty, 18);
  gtk_list_box_set_placeholder (GTK_LIST_BOX (self->runs_list), self->runs_empty);
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->runs_list);
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_widget_set_size_request (scroller, -1, 120);
  gtk_box_append (GTK_BOX (top), scroller);
  gtk_paned_set_start_child (self->runs_page, top);

  /* bottom: comparison charts */
  bottom = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (bottom, 12);
  gtk_widget_set_margin_end (bottom, 12);
  gtk_widget_set_margin_bottom (bottom, 12);
  gtk_widget_set_margin_top (bottom, 6);
  charts = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (charts), 6);
  gtk_grid_set_column_homogeneous (GTK_GRID (charts), TRUE);
  gtk_widget_set_vexpand (charts, TRUE);

  frame = gtk_frame_new (NULL);
  self->compare_bars = TB_CHART_VIEW (tb_chart_view_new ());
  tb_chart_view_set_name (self->compare_bars, "compare-seconds-per-epoch");
  gtk_frame_set_child (GTK_FRAME (frame), GTK_WIDGET (self->compare_bars));
  gtk_grid_attach (GTK_GRID (charts), frame, 0, 0, 2, 1);
  frame = gtk_frame_new (NULL);
  self->compare_accuracy = TB_CHART_VIEW (tb_chart_view_new ());
  tb_chart_view_set_name (self->compare_accuracy, "compare-accuracy");
  gtk_frame_set_child (GTK_FRAME (frame), GTK_WIDGET (self->compare_accuracy));
  gtk_grid_attach (GTK_GRID (charts), frame, 2, 0, 1, 1);
  frame = gtk_frame_new (NULL);
  self->compare_loss = TB_CHART_VIEW (tb_chart_view_new ());
  tb_chart_view_set_name (self->compare_loss, "compare-loss");
  gtk_frame_set_child (GTK_FRAME (frame), GTK_WIDGET (self->compare_loss));
  gtk_grid_attach (GTK_GRID (charts), frame, 3, 0, 1, 1);
  gtk_box_append (GTK_BOX (bottom), charts);
  gtk_paned_set_end_child (self->runs_page, bottom);

  self->runs_jobs = g_queue_new ();
  self->runs_want_selected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->runs_skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  _tb_window_runs_reload (self);
}
