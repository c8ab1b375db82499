/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-runs-page.c: the Runs page: the history of result files (read in a
 * worker, and again as the runs folder changes), filtered by a search and
 * by status, model, data set, device and OS; runs moved to the trash with
 * undo; selection for comparison (grouped bars of seconds per epoch with
 * speed-ups, overlaid curves, grouped by device or OS) and import of other
 * machines' results. Export and the dialogs are the window's actions.
 */
#define G_LOG_DOMAIN "trainbench-runs-page"

#include "tb-config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "tb-application.h"
#include "tb-runs-page.h"
#include "tb-trash.h"
#include "tb-window.h"

typedef struct _TbRunsJob TbRunsJob;

/* The filters that choose one value among the history's: each a drop-down
 * whose first item lets every run through. */
typedef enum
{
  CHOICE_MODEL,
  CHOICE_DATASET,
  CHOICE_DEVICE,
  CHOICE_OS,
  N_CHOICES,
} Choice;

struct _TbRunsPage
{
  GtkWidget parent_instance;

  /* owned */
  GSettings *settings;
  GPtrArray *runs;               /* TbRun *: the history, in tb_run_compare order, one per row */
  GQueue *runs_jobs;             /* TbRunsJob *: history loads still to start, in order; NULL once disposed */
  GHashTable *runs_want_selected; /* char * paths to tick once their rows arrive */
  GPtrArray *runs_skipped;       /* GError *: files of the runs folder that are not readable results */
  GFileMonitor *monitor;         /* the runs folder's, or NULL */
  char *monitored_folder;        /* the folder `monitor` watches */
  GHashTable *watch_changed;     /* char * paths in the folder changed since they were read */
  char **search_words;           /* the search, casefolded, one word each; NULL-ended */

  /* state */
  guint watch_source;            /* the pause before `watch_changed` is read, or 0 */
  gint64 watch_first;            /* monotonic µs of the oldest change not read */
  gboolean updating_choices;     /* the drop-downs' items are being replaced */
  gboolean loading;              /* the first read of the folder is under way */
  int height;                    /* the page's height at its last allocation */
  gboolean placing_handle;       /* the handle moves for the page's size, not by a drag */
  TbChartScale compare_scale;    /* the seconds per epoch's: AUTO until the log scale toggle is pressed */

  /* borrowed */
  TbRunsJob *runs_job;           /* from its GTask: the load in its worker, or NULL */

  /* template widgets */
  GtkWidget *paned;
  GtkWidget *runs_list;          /* GtkListBox */
  GtkWidget *runs_empty;
  GtkWidget *runs_skipped_button;
  GtkWidget *search_entry;
  GtkWidget *status_filter;      /* GtkDropDown */
  GtkWidget *choice_filters[N_CHOICES]; /* GtkDropDown */
  GtkWidget *shown_label;
  GtkWidget *group_device_toggle;
  GtkWidget *group_os_toggle;
  GtkWidget *log_scale_toggle;
  TbChartView *compare_bars;
  TbChartView *compare_accuracy;
  TbChartView *compare_loss;
  TbChartView *compare_breakdown;
};

G_DEFINE_FINAL_TYPE (TbRunsPage, tb_runs_page, GTK_TYPE_WIDGET)

/* A burst of changes to the runs folder (a queue of runs ending, a copy of
 * many files) is read once it has been quiet this long, but never later
 * than WATCH_MAX_WAIT after its first change. */
#define WATCH_QUIET_MS 300
#define WATCH_MAX_WAIT (2 * G_USEC_PER_SEC)
/* The share of the page above the handle is not saved beyond these: the
 * charts keep a little room, and the list too. */
#define LIST_SHARE_MIN 0.1
#define LIST_SHARE_MAX 0.95

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

/* ------------------------------------------------------------ rows */

/* What a row shows and is filtered by, made once with the row. */
typedef struct
{
  TbRun *run;                    /* owned */
  char *labels[N_CHOICES];       /* the values the drop-downs choose among */
  char *haystack;                /* casefolded text the search looks in */
} RowInfo;

static void
row_info_free (RowInfo *info)
{
  tb_run_unref (info->run);
  for (int i = 0; i < N_CHOICES; i++)
    g_free (info->labels[i]);
  g_free (info->haystack);
  g_free (info);
}

static RowInfo *
row_info (GtkWidget *row)
{
  return g_object_get_data (G_OBJECT (row), "info");
}

static const char *
dataset_label (const TbRun *run)
{
  return run->dataset_name != NULL && *run->dataset_name ? run->dataset_name : "?";
}

static gboolean
is_cancelled (const TbRun *run)
{
  return g_strcmp0 (run->status, "cancelled") == 0;
}

/* A run that did not complete and was not cancelled failed (the engine
 * writes no other status; a file from elsewhere may). */
static gboolean
is_failed (const TbRun *run)
{
  return g_strcmp0 (run->status, "completed") != 0 && !is_cancelled (run);
}

static char *
run_title (const TbRun *run)
{
  /* a run under other conditions than the default says so first thing */
  if (tb_run_has_conditions (run))
    return g_strdup_printf ("%s · %s · %s", tb_run_model_label (run), dataset_label (run),
                            tb_run_conditions_label (run));
  return g_strdup_printf ("%s · %s", tb_run_model_label (run), dataset_label (run));
}

/* "CPU · AMD Ryzen 9 · Debian 12 · 10.88 median s/epoch · 98.00 % accuracy";
 * a run that finished no epoch has neither figure. */
static char *
run_details (const RowInfo *info)
{
  const TbRun *run = info->run;
  double spe = tb_run_seconds_per_epoch (run);
  double acc = tb_run_final_accuracy (run);
  g_autofree char *spe_text = NULL;
  g_autofree char *acc_text = NULL;

  if (!isfinite (spe) && !isfinite (acc))
    return g_strdup_printf ("%s · %s", info->labels[CHOICE_DEVICE], info->labels[CHOICE_OS]);
  /* as the CLI's table: short epochs keep three digits rather than 0.00 */
  if (isfinite (spe))
    spe_text = g_strdup_printf (spe >= 1.0 ? _("%.2f median s/epoch") : _("%.3g median s/epoch"), spe);
  else
    spe_text = g_strdup ("—");
  acc_text = isfinite (acc) ? g_strdup_printf (_("%.2f %% accuracy"), acc * 100) : g_strdup ("—");
  if (tb_run_has_conditions (run))
    {
      g_autofree char *conditions = tb_run_conditions_text (run);

      return g_strdup_printf ("%s · %s · %s · %s\n%s", info->labels[CHOICE_DEVICE],
                              info->labels[CHOICE_OS], spe_text, acc_text, conditions);
    }
  return g_strdup_printf ("%s · %s · %s · %s", info->labels[CHOICE_DEVICE], info->labels[CHOICE_OS],
                          spe_text, acc_text);
}

/* The error of a run that did not complete, on one line. */
static char *
run_error_line (const TbRun *run)
{
  g_autofree char *bounded = NULL;

  if (run->error == NULL || *run->error == '\0' || g_strcmp0 (run->status, "completed") == 0)
    return NULL;
  bounded = tb_window_bound_text (run->error, 300);
  g_strdelimit (bounded, "\r\n\t", ' ');
  return g_steal_pointer (&bounded);
}

static RowInfo *
row_info_new (TbRun *run)
{
  RowInfo *info = g_new0 (RowInfo, 1);
  g_autofree char *title = run_title (run);
  g_autofree char *details = NULL;
  g_autofree char *error = run_error_line (run);
  g_autofree char *started = tb_run_started_label (run);
  g_autofree char *base = g_path_get_basename (run->path);
  g_autofree char *text = NULL;

  info->run = tb_run_ref (run);
  info->labels[CHOICE_MODEL] = g_strdup (tb_run_model_label (run));
  info->labels[CHOICE_DATASET] = g_strdup (dataset_label (run));
  info->labels[CHOICE_DEVICE] = tb_run_device_label (run);
  info->labels[CHOICE_OS] = tb_run_os_label (run);
  details = run_details (info);
  /* what the row shows, and what it says of itself without showing it */
  text = g_strjoin ("\n", title, details, error ? error : "", started ? started : "",
                    run->started_at ? run->started_at : "", run->status ? run->status : "",
                    is_failed (run) ? _("failed") : is_cancelled (run) ? _("cancelled") : _("completed"),
                    run->run_id ? run->run_id : "", run->spec ? run->spec : "", base, NULL);
  info->haystack = g_utf8_casefold (text, -1);
  return info;
}

static void check_toggled_cb (GtkCheckButton *check,
                              TbRunsPage     *self);

static GtkWidget *
make_run_row (TbRunsPage *self,
              TbRun      *run)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *check = gtk_check_button_new ();
  RowInfo *info = row_info_new (run);
  g_autofree char *title = run_title (run);
  g_autofree char *details = run_details (info);
  g_autofree char *error = run_error_line (run);
  g_autofree char *started = tb_run_started_label (run);
  g_autofree char *markup_title = g_markup_escape_text (title, -1);
  g_autofree char *markup_sub = NULL;

  /* the failure's message under the details: why it failed, at a glance */
  if (error != NULL)
    {
      g_autofree char *d = g_markup_escape_text (details, -1);
      g_autofree char *e = g_markup_escape_text (error, -1);

      markup_sub = g_strdup_printf ("%s\n<i>%s</i>", d, e);
    }
  else
    markup_sub = g_markup_escape_text (details, -1);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), markup_title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), markup_sub);
  /* names from other machines may be of any length: they end in "…" */
  adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 1);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row),
                                     (error != NULL ? 3 : 2) + (tb_run_has_conditions (run) ? 1 : 0));
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);

  /* when it started, in local time; the file's own UTC time on hover */
  {
    GtkWidget *date = gtk_label_new (started != NULL ? started : run->started_at);

    gtk_widget_add_css_class (date, "dim-label");
    gtk_widget_add_css_class (date, "numeric");
    gtk_widget_set_valign (date, GTK_ALIGN_CENTER);
    if (run->started_at != NULL)
      {
        g_autofree char *iso = tb_window_bound_text (run->started_at, 64);

        gtk_widget_set_tooltip_text (date, iso);
      }
    g_object_set_data (G_OBJECT (row), "date", date);
    adw_action_row_add_suffix (ADW_ACTION_ROW (row), date);
  }
  /* every switch of a run's conditions on hover of its badge */
  if (tb_run_has_conditions (run))
    {
      GtkWidget *badge = gtk_label_new (tb_run_conditions_label (run));
      g_autofree char *tip = tb_run_conditions_text (run);

      gtk_widget_add_css_class (badge, "accent");
      gtk_widget_set_valign (badge, GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (badge, tip);
      g_object_set_data (G_OBJECT (row), "conditions", badge);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), badge);
    }
  if (g_strcmp0 (run->status, "completed") != 0)
    {
      GtkWidget *badge = gtk_label_new (is_cancelled (run) ? _("cancelled") : _("failed"));

      gtk_widget_add_css_class (badge, is_cancelled (run) ? "warning" : "error");
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
  g_object_set_data_full (G_OBJECT (row), "info", info, (GDestroyNotify) row_info_free);
  g_signal_connect (check, "toggled", G_CALLBACK (check_toggled_cb), self);
  return row;
}

static gboolean
row_checked (GtkWidget *row)
{
  GtkWidget *check = g_object_get_data (G_OBJECT (row), "check");

  return check != NULL && gtk_check_button_get_active (GTK_CHECK_BUTTON (check));
}

static void
set_row_checked (TbRunsPage *self,
                 GtkWidget  *row,
                 gboolean    on)
{
  GtkWidget *check = g_object_get_data (G_OBJECT (row), "check");

  if (check == NULL)
    return;
  g_signal_handlers_block_by_func (check, check_toggled_cb, self);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), on);
  g_signal_handlers_unblock_by_func (check, check_toggled_cb, self);
}

/* ------------------------------------------------------------ filters */

static GtkWidget *
status_dropdown (TbRunsPage *self)
{
  return self->status_filter;
}

/* The value chosen in a drop-down, or NULL when it lets every run through. */
static const char *
choice_selected (TbRunsPage *self,
                 Choice      choice)
{
  GtkDropDown *dd = GTK_DROP_DOWN (self->choice_filters[choice]);
  guint selected = gtk_drop_down_get_selected (dd);

  if (selected == 0 || selected == GTK_INVALID_LIST_POSITION)
    return NULL;
  return gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (dd)), selected);
}

static gboolean
filters_active (TbRunsPage *self)
{
  if (gtk_drop_down_get_selected (GTK_DROP_DOWN (status_dropdown (self))) > 0)
    return TRUE;
  for (int c = 0; c < N_CHOICES; c++)
    if (choice_selected (self, c) != NULL)
      return TRUE;
  return self->search_words != NULL && self->search_words[0] != NULL;
}

static gboolean
row_matches (TbRunsPage    *self,
             const RowInfo *info)
{
  guint status = gtk_drop_down_get_selected (GTK_DROP_DOWN (status_dropdown (self)));

  /* the status drop-down's items: all, completed, failed, cancelled */
  if ((status == 1 && g_strcmp0 (info->run->status, "completed") != 0)
      || (status == 2 && !is_failed (info->run))
      || (status == 3 && !is_cancelled (info->run)))
    return FALSE;
  for (int c = 0; c < N_CHOICES; c++)
    {
      const char *want = choice_selected (self, c);

      if (want != NULL && g_strcmp0 (want, info->labels[c]) != 0)
        return FALSE;
    }
  for (guint i = 0; self->search_words != NULL && self->search_words[i] != NULL; i++)
    if (strstr (info->haystack, self->search_words[i]) == NULL)
      return FALSE;
  return TRUE;
}

/* Is the row a run's, and shown by the filters? */
static gboolean
row_shown (TbRunsPage *self,
           GtkWidget  *row)
{
  RowInfo *info = row_info (row);

  return info != NULL && row_matches (self, info);
}

static gboolean
row_filter_cb (GtkListBoxRow *row,
               gpointer       user_data)
{
  TbRunsPage *self = user_data;

  return row_info (GTK_WIDGET (row)) == NULL || row_shown (self, GTK_WIDGET (row));
}

/* The rows' widgets, placeholder aside. */
#define FOR_EACH_ROW(self, row) \
  for (GtkWidget *row = gtk_widget_get_first_child ((self)->runs_list); row != NULL; \
       row = gtk_widget_get_next_sibling (row)) \
    if (row_info (row) != NULL)

static GPtrArray *
selected_runs (TbRunsPage *self)
{
  GPtrArray *runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);

  /* what is compared, exported and deleted is what can be seen ticked */
  FOR_EACH_ROW (self, row)
    if (row_checked (row) && row_shown (self, row))
      g_ptr_array_add (runs, tb_run_ref (row_info (row)->run));
  return runs;
}

static void
update_actions (TbRunsPage *self)
{
  gboolean any = FALSE;

  FOR_EACH_ROW (self, row)
    if (row_checked (row) && row_shown (self, row))
      {
        any = TRUE;
        break;
      }
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "runs.delete", any);
}

/* "12 of 30 runs", and the placeholder's text when none is shown. */
static void
update_shown (TbRunsPage *self)
{
  guint total = 0, shown = 0;
  g_autofree char *text = NULL;

  FOR_EACH_ROW (self, row)
    {
      total++;
      shown += row_shown (self, row);
    }
  if (total > 0 && shown < total)
    text = g_strdup_printf (ngettext ("%u of %u run", "%u of %u runs", total), shown, total);
  else
    text = g_strdup_printf (ngettext ("%u run", "%u runs", total), total);
  gtk_label_set_text (GTK_LABEL (self->shown_label), text);
  if (total > 0 && filters_active (self))
    gtk_label_set_text (GTK_LABEL (self->runs_empty), _("No run matches the search and the filters"));
  else if (!self->loading)
    gtk_label_set_text (GTK_LABEL (self->runs_empty), _("No runs yet: train a model, or import result files"));
  update_actions (self);
}

static void
update_comparison (TbRunsPage *self)
{
  g_autoptr(GPtrArray) runs = selected_runs (self);
  TbGroupBy group_by = gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->group_os_toggle))
                       ? TB_GROUP_OS : TB_GROUP_DEVICE;
  TbChartData *bars = tb_runs_compare_bars (runs, group_by);

  bars->y_scale = self->compare_scale;
  tb_chart_view_set_data (self->compare_bars, bars);
  /* the toggle shows the scale drawn, also the one AUTO picked */
  g_signal_handlers_block_matched (self->log_scale_toggle, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->log_scale_toggle), tb_chart_data_is_log (bars));
  g_signal_handlers_unblock_matched (self->log_scale_toggle, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  tb_chart_view_set_data (self->compare_accuracy, tb_runs_compare_accuracy (runs));
  tb_chart_view_set_data (self->compare_loss, tb_runs_compare_loss (runs));
  tb_chart_view_set_data (self->compare_breakdown, tb_runs_breakdown_chart (runs));
}

static void
check_toggled_cb (GtkCheckButton *check,
                  TbRunsPage     *self)
{
  update_actions (self);
  update_comparison (self);
}

static void
filter_changed_cb (TbRunsPage *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  g_autofree char *folded = g_utf8_casefold (text, -1);

  if (self->updating_choices)
    return;
  g_strfreev (self->search_words);
  self->search_words = g_strsplit_set (g_strstrip (folded), " \t", -1);
  /* "a  b" splits into an empty word between: it matches everything */
  {
    guint kept = 0;

    for (guint i = 0; self->search_words[i] != NULL; i++)
      if (*self->search_words[i] != '\0')
        self->search_words[kept++] = self->search_words[i];
      else
        g_free (self->search_words[i]);
    self->search_words[kept] = NULL;
  }
  gtk_list_box_invalidate_filter (GTK_LIST_BOX (self->runs_list));
  update_shown (self);
  update_comparison (self);
}

static void
dropdown_changed_cb (GObject    *dropdown,
                     GParamSpec *pspec,
                     TbRunsPage *self)
{
  filter_changed_cb (self);
}

/* Let every run through again: one the app asks to show is hidden. */
static void
clear_filters (TbRunsPage *self)
{
  self->updating_choices = TRUE;
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->status_filter), 0);
  for (int c = 0; c < N_CHOICES; c++)
    gtk_drop_down_set_selected (GTK_DROP_DOWN (self->choice_filters[c]), 0);
  self->updating_choices = FALSE;
  filter_changed_cb (self);
}

/* Show the row of a run the app asks for (an import, a comparison). */
static void
reveal_row (TbRunsPage *self,
            GtkWidget  *row)
{
  if (row != NULL && row_info (row) != NULL && !row_shown (self, row))
    clear_filters (self);
}

static int
compare_labels_cb (gconstpointer a,
                   gconstpointer b)
{
  return g_utf8_collate (*(const char * const *) a, *(const char * const *) b);
}

/* Each drop-down lists the values the history has, sorted, after "All …";
 * the value chosen stays chosen, listed even when no run has it any more
 * (it then shows none). */
static void
update_choices (TbRunsPage *self)
{
  for (int c = 0; c < N_CHOICES; c++)
    {
      GtkDropDown *dd = GTK_DROP_DOWN (self->choice_filters[c]);
      GtkStringList *list = GTK_STRING_LIST (gtk_drop_down_get_model (dd));
      g_autofree char *chosen = g_strdup (choice_selected (self, c));
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr(GPtrArray) labels = g_ptr_array_new ();
      guint n = g_list_model_get_n_items (G_LIST_MODEL (list));
      gboolean same;
      guint selected = 0;

      FOR_EACH_ROW (self, row)
        if (g_hash_table_add (seen, row_info (row)->labels[c]))
          g_ptr_array_add (labels, row_info (row)->labels[c]);
      if (chosen != NULL && g_hash_table_add (seen, chosen))
        g_ptr_array_add (labels, chosen);
      g_ptr_array_sort (labels, compare_labels_cb);

      same = n == labels->len + 1;
      for (guint i = 0; same && i < labels->len; i++)
        same = g_strcmp0 (gtk_string_list_get_string (list, i + 1), g_ptr_array_index (labels, i)) == 0;
      if (same)
        continue;

      for (guint i = 0; i < labels->len; i++)
        if (g_strcmp0 (g_ptr_array_index (labels, i), chosen) == 0)
          selected = i + 1;
      g_ptr_array_add (labels, NULL);
      self->updating_choices = TRUE;
      gtk_string_list_splice (list, 1, n - 1, (const char * const *) labels->pdata);
      gtk_drop_down_set_selected (dd, selected);
      self->updating_choices = FALSE;
    }
}

enum
{
  SIGNAL_HISTORY_CHANGED,
  N_RUNS_PAGE_SIGNALS
};

static guint runs_page_signals[N_RUNS_PAGE_SIGNALS];

/* The rows changed: the choices, the count and the comparison follow, and
 * whoever reads the runs folder too (the Articles page). */
static void
rows_changed (TbRunsPage *self)
{
  update_choices (self);
  update_shown (self);
  update_comparison (self);
  g_signal_emit (self, runs_page_signals[SIGNAL_HISTORY_CHANGED], 0);
}

/* Drop-down items, ellipsized in the button so long device names do not
 * widen the page, whole in the list that opens. */
static void
item_setup_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  ellipsize)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  if (GPOINTER_TO_INT (ellipsize))
    {
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 16);
      gtk_label_set_width_chars (GTK_LABEL (label), 4);
    }
  gtk_list_item_set_child (item, label);
}

static void
item_bind_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  ellipsize)
{
  GtkStringObject *string = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);

  gtk_label_set_text (GTK_LABEL (label), string != NULL ? gtk_string_object_get_string (string) : "");
  if (GPOINTER_TO_INT (ellipsize))
    gtk_widget_set_tooltip_text (label, string != NULL ? gtk_string_object_get_string (string) : NULL);
}

static GtkListItemFactory *
item_factory_new (gboolean ellipsize)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();

  g_signal_connect (factory, "setup", G_CALLBACK (item_setup_cb), GINT_TO_POINTER (ellipsize));
  g_signal_connect (factory, "bind", G_CALLBACK (item_bind_cb), GINT_TO_POINTER (ellipsize));
  return factory;
}

static void
setup_filters (TbRunsPage *self)
{
  const char *all[N_CHOICES] = {
    [CHOICE_MODEL] = _("All models"),
    [CHOICE_DATASET] = _("All data sets"),
    [CHOICE_DEVICE] = _("All devices"),
    [CHOICE_OS] = _("All systems"),
  };
  GtkWidget *dropdowns[N_CHOICES + 1];

  for (int c = 0; c < N_CHOICES; c++)
    {
      const char *first[] = { all[c], NULL };
      g_autoptr(GtkStringList) list = gtk_string_list_new (first);

      gtk_drop_down_set_model (GTK_DROP_DOWN (self->choice_filters[c]), G_LIST_MODEL (list));
      dropdowns[c] = self->choice_filters[c];
    }
  dropdowns[N_CHOICES] = self->status_filter;
  for (int i = 0; i <= N_CHOICES; i++)
    {
      g_autoptr(GtkListItemFactory) button = item_factory_new (TRUE);
      g_autoptr(GtkListItemFactory) popup = item_factory_new (FALSE);

      gtk_drop_down_set_factory (GTK_DROP_DOWN (dropdowns[i]), button);
      gtk_drop_down_set_list_factory (GTK_DROP_DOWN (dropdowns[i]), popup);
      g_signal_connect (dropdowns[i], "notify::selected", G_CALLBACK (dropdown_changed_cb), self);
    }
  gtk_list_box_set_filter_func (GTK_LIST_BOX (self->runs_list), row_filter_cb, self, NULL);
}

/* ------------------------------------------------------------ loading */

/* The history is read in a worker, one load at a time and in the order
 * asked, so a reload, a new run, an import and a change seen in the folder
 * never race over the rows. The worker only reads files (and copies
 * imported ones); rows are made here on the main thread when a load is
 * done. */

typedef enum
{
  JOB_FOLDER,     /* the whole runs folder */
  JOB_FILES,      /* new result files: one saved run each */
  JOB_IMPORT,     /* files from elsewhere, checked and copied in */
  JOB_WATCH,      /* files of the folder that changed */
} JobKind;

struct _TbRunsJob
{
  JobKind kind;
  char *folder;                  /* the runs folder when the job was asked */
  GPtrArray *paths;              /* char *: JOB_FILES, JOB_WATCH: results; JOB_IMPORT: sources */
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
         JobKind     kind)
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
      else if (job->kind == JOB_WATCH)
        {
          /* a file that is no result yet may still be being written (a
           * copy): its next change is read again, and a read of the whole
           * folder says what is wrong with it */
          run = tb_run_load (path, NULL);
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
             gboolean    loading)
{
  self->loading = loading;
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
           TbRunsJob  *job)
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
         + (self->runs_job != NULL ? 1 : 0)
         + (self->watch_source != 0 ? 1 : 0);
}

static void stop_watching (TbRunsPage *self);

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
  stop_watching (self);
  g_clear_pointer (&self->runs_want_selected, g_hash_table_unref);
  g_clear_pointer (&self->runs_skipped, g_ptr_array_unref);
}

/* The index of the run at `path` in the history (and of its row), or -1. */
static int
find_index (TbRunsPage *self,
            const char *path)
{
  if (self->runs == NULL)
    return -1;
  for (guint i = 0; i < self->runs->len; i++)
    if (g_strcmp0 (((TbRun *) g_ptr_array_index (self->runs, i))->path, path) == 0)
      return (int) i;
  return -1;
}

/* The row of the run at `path`, or NULL. */
static GtkWidget *
find_row (TbRunsPage *self,
          const char *path)
{
  int i = find_index (self, path);

  if (i < 0)
    return NULL;
  return GTK_WIDGET (gtk_list_box_get_row_at_index (GTK_LIST_BOX (self->runs_list), i));
}

/* Tick a new row if it was asked for before it existed. */
static void
apply_wanted (TbRunsPage *self,
              GtkWidget  *row,
              TbRun      *run)
{
  if (g_hash_table_remove (self->runs_want_selected, run->path))
    {
      set_row_checked (self, row, TRUE);
      reveal_row (self, row);
    }
}

/* Add `run` at its place in the order, once: a run already listed keeps its
 * row. Returns the row (borrowed). */
static GtkWidget *
insert_run (TbRunsPage *self,
            TbRun      *run)
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

/* Take the run at `path` out of the history; was its row ticked? */
static gboolean
remove_run (TbRunsPage *self,
            const char *path)
{
  int i = find_index (self, path);
  GtkWidget *row;
  gboolean ticked;

  if (i < 0)
    return FALSE;
  row = GTK_WIDGET (gtk_list_box_get_row_at_index (GTK_LIST_BOX (self->runs_list), i));
  ticked = row_checked (row);
  gtk_list_box_remove (GTK_LIST_BOX (self->runs_list), row);
  g_ptr_array_remove_index (self->runs, (guint) i);
  return ticked;
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
               TbRunsJob  *job)
{
  /* keep the ticks as they are now, not as they were when the load began
   * (those of rows the filters hide too); the paths outlive the rows */
  g_autoptr(GHashTable) was_selected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GtkListBoxRow *child;

  FOR_EACH_ROW (self, row)
    if (row_checked (row))
      g_hash_table_add (was_selected, g_strdup (row_info (row)->run->path));

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
      gtk_list_box_append (GTK_LIST_BOX (self->runs_list), row);
      apply_wanted (self, row, run);
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

/* A run read in the worker, to be listed: not when its file went meanwhile
 * (moved to the trash while it was being read, say). */
static gboolean
still_there (TbRunsPage *self,
             TbRun      *run)
{
  return in_runs_folder (self, run->path) && g_file_test (run->path, G_FILE_TEST_EXISTS);
}

static void
files_loaded (TbRunsPage *self,
              TbRunsJob  *job)
{
  for (guint i = 0; i < job->runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (job->runs, i);

      if (still_there (self, run))
        apply_wanted (self, insert_run (self, run), run);
    }
  add_skipped (self, job->skipped, FALSE);
}

/* Files of the folder that changed: new ones are listed, rewritten ones
 * listed as they are now (ticked as they were). */
static void
watch_loaded (TbRunsPage *self,
              TbRunsJob  *job)
{
  for (guint i = 0; i < job->runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (job->runs, i);
      GtkWidget *row = find_row (self, run->path);

      if (!still_there (self, run))
        continue;
      if (row != NULL)
        {
          gboolean ticked;

          if (g_bytes_equal (row_info (row)->run->contents, run->contents))
            continue;   /* the same run (written by this window, or put back) */
          ticked = remove_run (self, run->path);
          set_row_checked (self, insert_run (self, run), ticked);
          continue;
        }
      apply_wanted (self, insert_run (self, run), run);
    }
}

static void
import_done (TbRunsPage *self,
             TbRunsJob  *job)
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

  /* each run once, ticked and shown; one comparison for all of them (by
   * the caller) */
  for (guint i = 0; i < job->runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (job->runs, i);

      if (in_runs_folder (self, run->path))
        {
          GtkWidget *row = insert_run (self, run);

          set_row_checked (self, row, TRUE);
          reveal_row (self, row);
        }
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
      else if (job->kind == JOB_WATCH)
        watch_loaded (self, job);
      else
        import_done (self, job);
      rows_changed (self);
    }
  start_next_job (self);
}

/* ------------------------------------------------------------ watching */

/* Runs written by the CLI (or another window) while this one is open are
 * listed without a reload: the folder is watched, and the files that
 * changed read once the changes pause. A result comes whole (the engine
 * writes a temporary file and gives it its name when it is complete); any
 * other file is read again at its next change until it is a result. */

static void
stop_watching (TbRunsPage *self)
{
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  g_clear_pointer (&self->monitored_folder, g_free);
  g_clear_handle_id (&self->watch_source, g_source_remove);
  if (self->watch_changed != NULL)
    g_hash_table_remove_all (self->watch_changed);
}

static gboolean
watch_read_cb (gpointer user_data)
{
  TbRunsPage *self = TB_RUNS_PAGE (user_data);
  TbRunsJob *job = job_new (self, JOB_WATCH);
  gboolean removed = FALSE;
  GHashTableIter iter;
  gpointer key;

  self->watch_source = 0;
  g_hash_table_iter_init (&iter, self->watch_changed);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const char *path = key;

      /* gone (deleted, moved away, or its temporary name renamed) */
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        {
          remove_run (self, path);
          removed = TRUE;
          continue;
        }
      g_ptr_array_add (job->paths, g_strdup (path));
    }
  g_hash_table_remove_all (self->watch_changed);
  if (removed)
    rows_changed (self);
  if (job->paths->len > 0)
    queue_job (self, job);
  else
    job_free (job);
  return G_SOURCE_REMOVE;
}

static void
note_change (TbRunsPage *self,
             GFile      *file)
{
  g_autofree char *path = NULL;
  g_autofree char *base = NULL;
  gint64 now = g_get_monotonic_time ();

  if (file == NULL || (path = g_file_get_path (file)) == NULL)
    return;
  /* results only: not the engine's temporary "NAME.json.tmp-XXXXXX" */
  base = g_path_get_basename (path);
  if (!g_str_has_suffix (base, ".json") || base[0] == '.')
    return;
  g_hash_table_add (self->watch_changed, g_steal_pointer (&path));
  if (self->watch_source == 0)
    self->watch_first = now;
  else if (now - self->watch_first < WATCH_MAX_WAIT)
    g_clear_handle_id (&self->watch_source, g_source_remove);
  else
    return;   /* changes go on and on: read what there is now */
  self->watch_source = g_timeout_add (WATCH_QUIET_MS, watch_read_cb, self);
  g_source_set_name_by_id (self->watch_source, "[trainbench] runs folder changed");
}

static void
folder_changed_cb (GFileMonitor      *monitor,
                   GFile             *file,
                   GFile             *other,
                   GFileMonitorEvent  event,
                   TbRunsPage        *self)
{
  g_autoptr(GFile) folder = g_file_new_for_path (self->monitored_folder);

  /* the folder itself was made (the first run's, by the CLI, say) or went:
   * what is in it now is read whole */
  if (g_file_equal (file, folder))
    {
      if (event == G_FILE_MONITOR_EVENT_CREATED || event == G_FILE_MONITOR_EVENT_DELETED
          || event == G_FILE_MONITOR_EVENT_MOVED_IN || event == G_FILE_MONITOR_EVENT_MOVED_OUT)
        tb_runs_page_reload (self);
      return;
    }
  switch (event)
    {
    case G_FILE_MONITOR_EVENT_RENAMED:
      note_change (self, file);
      note_change (self, other);
      break;
    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_CHANGED:
    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:
    case G_FILE_MONITOR_EVENT_DELETED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
      note_change (self, file);
      break;
    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
    case G_FILE_MONITOR_EVENT_MOVED:
    default:
      break;
    }
}

/* Watch `folder` (also before it exists: GIO sees it made), instead of the
 * one watched before. */
static void
watch_folder (TbRunsPage *self,
              const char *folder)
{
  g_autoptr(GFile) dir = g_file_new_for_path (folder);
  g_autoptr(GError) error = NULL;

  stop_watching (self);
  self->monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->monitor == NULL)
    {
      /* the history is still read at start and on F5 */
      g_message ("The runs folder %s is not watched: %s", folder, error->message);
      return;
    }
  self->monitored_folder = g_strdup (folder);
  g_signal_connect (self->monitor, "changed", G_CALLBACK (folder_changed_cb), self);
}

void
tb_runs_page_reload (TbRunsPage *self)
{
  g_autofree char *folder = NULL;
  GList *l, *next;

  g_return_if_fail (TB_IS_RUNS_PAGE (self));

  if (self->runs_jobs == NULL)
    return;
  /* a whole-folder read supersedes the reads not yet begun (their files
   * are in the folder), the changes seen and not read yet, and the folder
   * read under way, which may be of a folder no longer chosen; imports
   * still copy their files */
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
  folder = tb_runs_page_get_folder (self);
  if (g_strcmp0 (folder, self->monitored_folder) != 0)
    watch_folder (self, folder);
  g_clear_handle_id (&self->watch_source, g_source_remove);
  g_hash_table_remove_all (self->watch_changed);
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
    {
      set_row_checked (self, row, selected);
      if (selected)
        reveal_row (self, row);
    }
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
  FOR_EACH_ROW (self, row)
    set_row_checked (self, row, FALSE);
  for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
    set_selected (self, paths[i], TRUE);
  update_actions (self);
  update_comparison (self);
}

/* ------------------------------------------------------------ delete */

/* Runs moved to the trash by one Delete, for its toast's Undo. */
typedef struct
{
  GWeakRef page;
  GPtrArray *trashed;            /* TbTrashed * */
  GPtrArray *runs;               /* TbRun *: the same runs, to list again */
} TbDeletion;

static void
deletion_free (gpointer  data,
               GClosure *closure)
{
  TbDeletion *deletion = data;

  g_weak_ref_clear (&deletion->page);
  g_ptr_array_unref (deletion->trashed);
  g_ptr_array_unref (deletion->runs);
  g_free (deletion);
}

static void
undo_cb (AdwToast   *toast,
         TbDeletion *deletion)
{
  g_autoptr(TbRunsPage) self = g_weak_ref_get (&deletion->page);
  g_autoptr(GPtrArray) trashed = g_ptr_array_new ();
  g_autoptr(GArray) index = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_autofree gboolean *restored = NULL;

  /* those not put back already */
  for (guint i = 0; i < deletion->trashed->len; i++)
    if (g_ptr_array_index (deletion->trashed, i) != NULL)
      {
        g_ptr_array_add (trashed, g_ptr_array_index (deletion->trashed, i));
        g_array_append_val (index, i);
      }
  /* the files come back even when the window has gone */
  restored = g_new0 (gboolean, MAX (trashed->len, 1));
  tb_trash_restore ((TbTrashed * const *) trashed->pdata, trashed->len, restored, errors);
  for (guint i = 0; i < trashed->len; i++)
    {
      guint k = g_array_index (index, guint, i);
      TbRun *run = g_ptr_array_index (deletion->runs, k);

      if (!restored[i])
        continue;
      /* listed again, ticked as it was when it went */
      if (self != NULL && self->runs_jobs != NULL && in_runs_folder (self, run->path))
        {
          GtkWidget *row = insert_run (self, run);

          set_row_checked (self, row, TRUE);
        }
      g_clear_pointer ((TbTrashed **) &deletion->trashed->pdata[k], tb_trashed_free);
    }
  if (self == NULL || self->runs_jobs == NULL)
    return;
  rows_changed (self);
  if (errors->len > 0)
    show_error (self,
                ngettext ("A run could not be put back", "Runs could not be put back", errors->len),
                g_ptr_array_index (errors, 0));
}

/* Move the ticked runs that are shown to the trash. A run whose file
 * cannot go there stays, and a dialog says why. */
static void
delete_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  TbRunsPage *self = TB_RUNS_PAGE (widget);
  g_autoptr(GPtrArray) runs = selected_runs (self);
  g_autoptr(GError) first_error = NULL;
  TbDeletion *deletion;
  guint failed = 0;

  if (runs->len == 0)
    return;
  deletion = g_new0 (TbDeletion, 1);
  g_weak_ref_init (&deletion->page, self);
  deletion->trashed = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_trashed_free);
  deletion->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);

  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);
      g_autoptr(GError) error = NULL;
      TbTrashed *trashed;

      /* gone already (deleted elsewhere; the watcher is about to see it) */
      if (!g_file_test (run->path, G_FILE_TEST_EXISTS))
        {
          remove_run (self, run->path);
          continue;
        }
      trashed = tb_trash_file (run->path, &error);
      if (trashed == NULL)
        {
          failed++;
          if (first_error == NULL)
            first_error = g_steal_pointer (&error);
          continue;
        }
      g_ptr_array_add (deletion->trashed, trashed);
      g_ptr_array_add (deletion->runs, tb_run_ref (run));
      remove_run (self, run->path);
    }

  if (deletion->trashed->len > 0)
    {
      guint n = deletion->trashed->len;
      g_autofree char *title = g_strdup_printf (ngettext ("%u run moved to the trash",
                                                          "%u runs moved to the trash", n), n);
      AdwToast *toast = adw_toast_new (title);

      adw_toast_set_button_label (toast, _("_Undo"));
      adw_toast_set_timeout (toast, 10);
      g_signal_connect_data (toast, "button-clicked", G_CALLBACK (undo_cb), deletion, deletion_free, 0);
      rows_changed (self);
      show_toast (self, toast);
    }
  else
    {
      deletion_free (deletion, NULL);
      rows_changed (self);
    }

  if (first_error != NULL)
    show_error (self,
                ngettext ("A run was not deleted", "Runs were not deleted", failed),
                first_error);
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
  /* nothing selected: export the history as the filters show it */
  if (runs->len == 0)
    FOR_EACH_ROW (self, row)
      if (row_shown (self, row))
        g_ptr_array_add (runs, tb_run_ref (row_info (row)->run));
  return runs;
}

void
tb_runs_page_select_all (TbRunsPage *self)
{
  gboolean all_on = TRUE;

  g_return_if_fail (TB_IS_RUNS_PAGE (self));

  /* the rows shown: a filter then Select All picks what it found */
  FOR_EACH_ROW (self, row)
    if (row_shown (self, row) && !row_checked (row))
      all_on = FALSE;
  FOR_EACH_ROW (self, row)
    if (row_shown (self, row))
      set_row_checked (self, row, !all_on);
  update_actions (self);
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
  if (g_strcmp0 (name, "compare-breakdown") == 0)
    return self->compare_breakdown;
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
log_scale_toggled_cb (GtkToggleButton *button,
                      TbRunsPage      *self)
{
  TbChartData *bars = tb_chart_view_get_data (self->compare_bars);

  /* pressed: the user's choice, kept for the comparisons that follow */
  self->compare_scale = gtk_toggle_button_get_active (button) ? TB_CHART_SCALE_LOG : TB_CHART_SCALE_LINEAR;
  if (bars != NULL)
    {
      bars->y_scale = self->compare_scale;
      tb_chart_view_changed (self->compare_bars);
    }
}

static void
runs_folder_changed_cb (GSettings  *settings,
                        const char *key,
                        TbRunsPage *self)
{
  tb_runs_page_reload (self);
}

/* The handle between the list and the charts keeps its share of the page
 * as the window is resized; a drag (or the keyboard) sets the share. */
static void
place_handle (TbRunsPage *self)
{
  double share = g_settings_get_double (self->settings, "runs-list-share");

  if (self->height <= 0)
    return;
  self->placing_handle = TRUE;
  gtk_paned_set_position (GTK_PANED (self->paned), (int) lround (share * self->height));
  self->placing_handle = FALSE;
}

static void
list_share_changed_cb (GSettings  *settings,
                       const char *key,
                       TbRunsPage *self)
{
  place_handle (self);
}

static void
handle_moved_cb (GtkPaned   *paned,
                 GParamSpec *pspec,
                 TbRunsPage *self)
{
  double share;

  if (self->placing_handle || self->height <= 0 || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  share = CLAMP ((double) gtk_paned_get_position (paned) / self->height, LIST_SHARE_MIN, LIST_SHARE_MAX);
  if (fabs (share - g_settings_get_double (self->settings, "runs-list-share")) < 1e-4)
    return;
  /* not placed again by its own change: the drag goes on */
  g_signal_handlers_block_by_func (self->settings, list_share_changed_cb, self);
  g_settings_set_double (self->settings, "runs-list-share", share);
  g_signal_handlers_unblock_by_func (self->settings, list_share_changed_cb, self);
}

static void
tb_runs_page_measure (GtkWidget      *widget,
                      GtkOrientation  orientation,
                      int             for_size,
                      int            *minimum,
                      int            *natural,
                      int            *minimum_baseline,
                      int            *natural_baseline)
{
  TbRunsPage *self = TB_RUNS_PAGE (widget);

  gtk_widget_measure (self->paned, orientation, for_size, minimum, natural, minimum_baseline, natural_baseline);
}

static void
tb_runs_page_size_allocate (GtkWidget *widget,
                            int        width,
                            int        height,
                            int        baseline)
{
  TbRunsPage *self = TB_RUNS_PAGE (widget);

  if (height != self->height)
    {
      self->height = height;
      place_handle (self);
    }
  /* the paned keeps the handle within its children's minimum sizes: that
   * is not the user's choice either */
  self->placing_handle = TRUE;
  gtk_widget_allocate (self->paned, width, height, baseline, NULL);
  self->placing_handle = FALSE;
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
  g_clear_pointer (&self->watch_changed, g_hash_table_unref);
  g_strfreev (self->search_words);
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
  widget_class->measure = tb_runs_page_measure;
  widget_class->size_allocate = tb_runs_page_size_allocate;

  g_type_ensure (TB_TYPE_CHART_VIEW);
  /* TbRunsPage::history-changed: rows were added, removed or read again
   * (the runs folder changed, a run was saved, imported or deleted). */
  runs_page_signals[SIGNAL_HISTORY_CHANGED] =
    g_signal_new ("history-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-runs-page.ui");
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, paned);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, runs_list);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, runs_empty);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, runs_skipped_button);
  gtk_widget_class_bind_template_child_full (widget_class, "delete_button", FALSE, 0);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, status_filter);
  gtk_widget_class_bind_template_child_full (widget_class, "model_filter", FALSE,
                                             G_STRUCT_OFFSET (TbRunsPage, choice_filters[CHOICE_MODEL]));
  gtk_widget_class_bind_template_child_full (widget_class, "dataset_filter", FALSE,
                                             G_STRUCT_OFFSET (TbRunsPage, choice_filters[CHOICE_DATASET]));
  gtk_widget_class_bind_template_child_full (widget_class, "device_filter", FALSE,
                                             G_STRUCT_OFFSET (TbRunsPage, choice_filters[CHOICE_DEVICE]));
  gtk_widget_class_bind_template_child_full (widget_class, "os_filter", FALSE,
                                             G_STRUCT_OFFSET (TbRunsPage, choice_filters[CHOICE_OS]));
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, shown_label);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, group_device_toggle);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, group_os_toggle);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, log_scale_toggle);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, compare_bars);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, compare_accuracy);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, compare_loss);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, compare_breakdown);
  gtk_widget_class_bind_template_callback (widget_class, group_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, filter_changed_cb);

  gtk_widget_class_install_action (widget_class, "runs.delete", NULL, delete_action);
  /* on the page only: Delete elsewhere (a layer on the Model page, a
   * text field) is not about runs */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete, 0, "runs.delete", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Delete, 0, "runs.delete", NULL);
  gtk_widget_class_bind_template_callback (widget_class, log_scale_toggled_cb);
}

static void
tb_runs_page_init (TbRunsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = tb_settings_new ();
  self->runs_jobs = g_queue_new ();
  self->runs_want_selected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->runs_skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  self->watch_changed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  setup_filters (self);
  g_signal_connect_object (self->settings, "changed::runs-folder",
                           G_CALLBACK (runs_folder_changed_cb), self, 0);
  g_signal_connect_object (self->settings, "changed::runs-list-share",
                           G_CALLBACK (list_share_changed_cb), self, 0);
  g_signal_connect (self->paned, "notify::position", G_CALLBACK (handle_moved_cb), self);
  update_shown (self);
  tb_runs_page_reload (self);
}
