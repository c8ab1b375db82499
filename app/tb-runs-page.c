/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-runs-page.c: the Runs page: the runs of the history (TbRunHistory, the
 * window's) in a list that makes rows only for what it shows, filtered by
 * a search and by status, model, data set, device and OS; runs ticked for
 * comparison (grouped bars of seconds per epoch with speed-ups, overlaid
 * curves, grouped by device or OS), moved to the trash with Undo, and
 * imports of other machines' results. Export and the dialogs are the
 * window's actions.
 */
#define G_LOG_DOMAIN "trainbench-runs-page"

#include "tb-config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "tb-application.h"
#include "tb-run-row.h"
#include "tb-runs-page.h"
#include "tb-window.h"

/* The filters that choose one value among the history's: each a drop-down
 * whose first item lets every run through; in TbRunLabel's order. */
#define N_CHOICES TB_RUN_N_LABELS

struct _TbRunsPage
{
  GtkWidget parent_instance;

  /* owned */
  GSettings *settings;
  TbRunHistory *history;         /* the window's, observed; NULL before it is given */
  GtkFilterListModel *shown;     /* the history as the filters show it */
  GtkCustomFilter *filter;
  GHashTable *ticked;            /* char * paths of the runs ticked for comparison */
  GHashTable *wanted;            /* char * paths ticked before they were listed: shown when they come */
  char **search_words;           /* the search, casefolded, one word each; NULL-ended */
  GPtrArray *compared;           /* TbRun *: what the charts show now */
  GCancellable *curves;          /* the whole read of the compared runs, or NULL */

  /* state */
  guint update_source;           /* an idle that brings the choices, the count and the comparison up to date */
  gboolean update_choices;       /* ... and the drop-downs' items: the history changed */
  gboolean updating_choices;     /* the drop-downs' items are being replaced */
  int height;                    /* the page's height at its last allocation */
  gboolean placing_handle;       /* the handle moves for the page's size, not by a drag */
  TbChartScale compare_scale;    /* the seconds per epoch's: AUTO until the log scale toggle is pressed */

  /* template widgets */
  GtkWidget *paned;
  GtkWidget *runs_stack;         /* "list" or "empty" */
  GtkWidget *runs_view;          /* GtkListView */
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

/* The share of the page above the handle is not saved beyond these: the
 * charts keep a little room, and the list too. */
#define LIST_SHARE_MIN 0.1
#define LIST_SHARE_MAX 0.95
/* Curves (accuracy, loss) come from the result files read again whole:
 * those of this many ticked runs at most, which is more than a chart of
 * lines tells apart. The bars take every ticked run. */
#define CURVES_MAX 24

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

/* ------------------------------------------------------------ filters */

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

/* The value chosen in a drop-down, or NULL when it lets every run through. */
static const char *
choice_selected (TbRunsPage *self,
                 TbRunLabel  choice)
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
  if (gtk_drop_down_get_selected (GTK_DROP_DOWN (self->status_filter)) > 0)
    return TRUE;
  for (int c = 0; c < N_CHOICES; c++)
    if (choice_selected (self, c) != NULL)
      return TRUE;
  return self->search_words != NULL && self->search_words[0] != NULL;
}

/* Do the filters let the run through? */
static gboolean
item_shown (TbRunsPage *self,
            TbRunItem  *item)
{
  const TbRun *run = tb_run_item_get_run (item);
  guint status = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->status_filter));

  /* the status drop-down's items: all, completed, failed, cancelled */
  if ((status == 1 && g_strcmp0 (run->status, "completed") != 0)
      || (status == 2 && !is_failed (run))
      || (status == 3 && !is_cancelled (run)))
    return FALSE;
  for (int c = 0; c < N_CHOICES; c++)
    {
      const char *want = choice_selected (self, c);

      if (want != NULL && g_strcmp0 (want, tb_run_item_get_label (item, c)) != 0)
        return FALSE;
    }
  for (guint i = 0; self->search_words != NULL && self->search_words[i] != NULL; i++)
    if (strstr (tb_run_item_get_search_text (item), self->search_words[i]) == NULL)
      return FALSE;
  return TRUE;
}

static gboolean
filter_match_cb (gpointer item,
                 gpointer user_data)
{
  return item_shown (user_data, item);
}

static int
compare_runs_cb (gconstpointer a,
                 gconstpointer b)
{
  return tb_run_compare (*(TbRun * const *) a, *(TbRun * const *) b);
}

/* The ticked runs the filters show, in the history's order: what is
 * compared, exported and deleted is what can be seen ticked. */
static GPtrArray *
selected_runs (TbRunsPage *self)
{
  GPtrArray *runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  GHashTableIter iter;
  gpointer key;

  if (self->history == NULL)
    return runs;
  g_hash_table_iter_init (&iter, self->ticked);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      TbRunItem *item = tb_run_history_lookup (self->history, key);

      if (item != NULL && item_shown (self, item))
        g_ptr_array_add (runs, tb_run_ref (tb_run_item_get_run (item)));
    }
  g_ptr_array_sort (runs, compare_runs_cb);
  return runs;
}

/* ------------------------------------------------------------ ticks */

/* The rows on screen show the ticks as they are now (the list makes rows
 * only for those, and binds each to its run as it scrolls). */
static void
refresh_rows (TbRunsPage *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (self->runs_view); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *row = gtk_widget_get_first_child (child);
      TbRun *run;

      if (row == NULL || !TB_IS_RUN_ROW (row) || (run = tb_run_row_get_run (TB_RUN_ROW (row))) == NULL)
        continue;
      tb_run_row_set_ticked (TB_RUN_ROW (row), g_hash_table_contains (self->ticked, run->path));
    }
}

static void
set_ticked (TbRunsPage *self,
            const char *path,
            gboolean    ticked)
{
  if (ticked)
    g_hash_table_add (self->ticked, g_strdup (path));
  else
    g_hash_table_remove (self->ticked, path);
}

static void
update_actions (TbRunsPage *self)
{
  gboolean any = FALSE;
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->ticked);
  while (!any && self->history != NULL && g_hash_table_iter_next (&iter, &key, NULL))
    {
      TbRunItem *item = tb_run_history_lookup (self->history, key);

      any = item != NULL && item_shown (self, item);
    }
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "runs.delete", any);
}

/* "12 of 30 runs", and the placeholder's text when none is shown. */
static void
update_shown (TbRunsPage *self)
{
  guint total = self->history != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->history)) : 0;
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->shown));
  g_autofree char *text = NULL;

  if (total > 0 && shown < total)
    text = g_strdup_printf (ngettext ("%u of %u run", "%u of %u runs", total), shown, total);
  else
    text = g_strdup_printf (ngettext ("%u run", "%u runs", total), total);
  gtk_label_set_text (GTK_LABEL (self->shown_label), text);
  if (total > 0 && filters_active (self))
    gtk_label_set_text (GTK_LABEL (self->runs_empty), _("No run matches the search and the filters"));
  else if (self->history == NULL || tb_run_history_get_loading (self->history))
    gtk_label_set_text (GTK_LABEL (self->runs_empty), _("Reading the runs…"));
  else
    gtk_label_set_text (GTK_LABEL (self->runs_empty), _("No runs yet: train a model, or import result files"));
  gtk_stack_set_visible_child_name (GTK_STACK (self->runs_stack), shown > 0 ? "list" : "empty");
  update_actions (self);
}

/* Curves need the runs whole: read again in the history's worker, the
 * charts drawn when they come (a newer comparison cancels the read). */
static void
curves_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) whole = tb_run_history_read_whole_finish (TB_RUN_HISTORY (object), result, &error);
  TbRunsPage *self;
  TbChartData *accuracy, *loss;
  guint asked;

  if (whole == NULL)
    return;   /* cancelled: the page has gone, or compares others now */
  self = TB_RUNS_PAGE (user_data);
  g_clear_object (&self->curves);
  accuracy = tb_runs_compare_accuracy (whole);
  loss = tb_runs_compare_loss (whole);
  asked = self->compared->len;
  if (asked > CURVES_MAX)
    {
      TbChartData *charts[] = { accuracy, loss };

      for (guint i = 0; i < G_N_ELEMENTS (charts); i++)
        {
          /* TRANSLATORS: a chart's title, and how many of the runs compared it draws */
          char *title = g_strdup_printf (_("%s (the first %u of %u runs)"), charts[i]->title,
                                         (guint) CURVES_MAX, asked);

          g_free (charts[i]->title);
          charts[i]->title = title;
        }
    }
  tb_chart_view_set_data (self->compare_accuracy, accuracy);
  tb_chart_view_set_data (self->compare_loss, loss);
}

static gboolean
same_runs (GPtrArray *a,
           GPtrArray *b)
{
  if (a == NULL || b == NULL || a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    if (g_ptr_array_index (a, i) != g_ptr_array_index (b, i))
      return FALSE;
  return TRUE;
}

static void
draw_comparison (TbRunsPage *self)
{
  TbGroupBy group_by = gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->group_os_toggle))
                       ? TB_GROUP_OS : TB_GROUP_DEVICE;
  TbChartData *bars = tb_runs_compare_bars (self->compared, group_by);

  bars->y_scale = self->compare_scale;
  tb_chart_view_set_data (self->compare_bars, bars);
  /* the toggle shows the scale drawn, also the one AUTO picked */
  g_signal_handlers_block_matched (self->log_scale_toggle, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->log_scale_toggle), tb_chart_data_is_log (bars));
  g_signal_handlers_unblock_matched (self->log_scale_toggle, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  tb_chart_view_set_data (self->compare_breakdown, tb_runs_breakdown_chart (self->compared));
}

/* The charts of the ticked runs shown, when they are other runs than
 * those drawn: the bars and the breakdown from the summaries at once, the
 * curves once their files are read again. */
static void
update_comparison (TbRunsPage *self)
{
  g_autoptr(GPtrArray) runs = selected_runs (self);
  g_autoptr(GPtrArray) first = NULL;

  if (same_runs (runs, self->compared))
    return;
  g_clear_pointer (&self->compared, g_ptr_array_unref);
  self->compared = g_steal_pointer (&runs);
  draw_comparison (self);

  if (self->curves != NULL)
    g_cancellable_cancel (self->curves);
  g_clear_object (&self->curves);
  if (self->compared->len == 0 || self->history == NULL)
    {
      tb_chart_view_set_data (self->compare_accuracy, tb_runs_compare_accuracy (self->compared));
      tb_chart_view_set_data (self->compare_loss, tb_runs_compare_loss (self->compared));
      return;
    }
  first = g_ptr_array_new ();
  for (guint i = 0; i < MIN (self->compared->len, CURVES_MAX); i++)
    g_ptr_array_add (first, g_ptr_array_index (self->compared, i));
  self->curves = g_cancellable_new ();
  tb_run_history_read_whole_async (self->history, first, self->curves, curves_read_cb, self);
}

static void
row_toggled_cb (TbRunRow   *row,
                TbRunsPage *self)
{
  TbRun *run = tb_run_row_get_run (row);

  if (run == NULL)
    return;
  set_ticked (self, run->path, tb_run_row_get_ticked (row));
  update_actions (self);
  update_comparison (self);
}

/* Enter on a row, as a click on its check box */
static void
row_activated_cb (GtkListView *view,
                  guint        position,
                  TbRunsPage  *self)
{
  g_autoptr(TbRunItem) item = g_list_model_get_item (G_LIST_MODEL (self->shown), position);
  const char *path;

  if (item == NULL)
    return;
  path = tb_run_item_get_run (item)->path;
  set_ticked (self, path, !g_hash_table_contains (self->ticked, path));
  refresh_rows (self);
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
  /* no filter at all when every run is shown: the list then passes the
   * history's changes on as they are, without looking at each run */
  if (filters_active (self))
    {
      gtk_filter_list_model_set_filter (self->shown, GTK_FILTER (self->filter));
      gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
    }
  else
    gtk_filter_list_model_set_filter (self->shown, NULL);
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

/* Show the run the app asks for (an import, a comparison). */
static void
reveal (TbRunsPage *self,
        const char *path)
{
  TbRunItem *item = self->history != NULL ? tb_run_history_lookup (self->history, path) : NULL;

  if (item != NULL && !item_shown (self, item))
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
      g_autoptr(GPtrArray) labels = tb_run_history_get_labels (self->history, c);
      guint n = g_list_model_get_n_items (G_LIST_MODEL (list));
      gboolean same, listed = FALSE;
      guint selected = 0;

      for (guint i = 0; chosen != NULL && i < labels->len; i++)
        listed = listed || g_strcmp0 (g_ptr_array_index (labels, i), chosen) == 0;
      if (chosen != NULL && !listed)
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

static gboolean
update_cb (gpointer user_data)
{
  TbRunsPage *self = TB_RUNS_PAGE (user_data);

  self->update_source = 0;
  if (self->update_choices && self->history != NULL)
    update_choices (self);
  self->update_choices = FALSE;
  update_shown (self);
  update_comparison (self);
  return G_SOURCE_REMOVE;
}

/* The choices, the count and the comparison follow the history and the
 * filters once per turn of the main loop, not once per change. */
static void
schedule_update (TbRunsPage *self,
                 gboolean    choices)
{
  self->update_choices |= choices;
  if (self->update_source != 0)
    return;
  self->update_source = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, update_cb, self, NULL);
  g_source_set_name_by_id (self->update_source, "[trainbench] runs page update");
}

static void
shown_changed_cb (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  TbRunsPage *self)
{
  schedule_update (self, FALSE);
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
    [TB_RUN_LABEL_MODEL] = _("All models"),
    [TB_RUN_LABEL_DATASET] = _("All data sets"),
    [TB_RUN_LABEL_DEVICE] = _("All devices"),
    [TB_RUN_LABEL_OS] = _("All systems"),
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
}

/* ------------------------------------------------------------ the list */

static void
row_setup_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              TbRunsPage               *self)
{
  GtkWidget *row = tb_run_row_new ();

  g_signal_connect (row, "toggled", G_CALLBACK (row_toggled_cb), self);
  gtk_list_item_set_child (item, row);
}

static void
row_bind_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             TbRunsPage               *self)
{
  TbRunItem *run_item = gtk_list_item_get_item (item);
  TbRunRow *row = TB_RUN_ROW (gtk_list_item_get_child (item));

  tb_run_row_set_item (row, run_item);
  tb_run_row_set_ticked (row, g_hash_table_contains (self->ticked, tb_run_item_get_run (run_item)->path));
}

static void
row_unbind_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               TbRunsPage               *self)
{
  tb_run_row_set_item (TB_RUN_ROW (gtk_list_item_get_child (item)), NULL);
}

static void
setup_list (TbRunsPage *self)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkNoSelection) selection = NULL;

  self->filter = gtk_custom_filter_new (filter_match_cb, self, NULL);
  self->shown = gtk_filter_list_model_new (NULL, NULL);
  g_signal_connect (self->shown, "items-changed", G_CALLBACK (shown_changed_cb), self);
  g_signal_connect (factory, "setup", G_CALLBACK (row_setup_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (row_bind_cb), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (row_unbind_cb), self);
  selection = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (self->shown)));
  gtk_list_view_set_model (GTK_LIST_VIEW (self->runs_view), GTK_SELECTION_MODEL (selection));
  gtk_list_view_set_factory (GTK_LIST_VIEW (self->runs_view), factory);
  g_signal_connect (self->runs_view, "activate", G_CALLBACK (row_activated_cb), self);
}

/* ------------------------------------------------------------ the history */

/* Runs ticked before they were listed are shown when they come; a list
 * at its top stays there as runs come above the first one shown (a list
 * view keeps the run it shows first where it is, and the newest runs
 * would come out of sight while a folder is read). */
static void
history_items_changed_cb (GListModel *history,
                          guint       position,
                          guint       removed,
                          guint       added,
                          TbRunsPage *self)
{
  GtkAdjustment *vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->runs_view));

  if (added > 0 && vadjustment != NULL && gtk_adjustment_get_value (vadjustment) <= 0
      && g_list_model_get_n_items (G_LIST_MODEL (self->shown)) > 0)
    gtk_widget_activate_action (self->runs_view, "list.scroll-to-item", "u", 0);
  for (guint i = position; g_hash_table_size (self->wanted) > 0 && i < position + added; i++)
    {
      g_autoptr(TbRunItem) item = g_list_model_get_item (history, i);
      const char *path = tb_run_item_get_run (item)->path;

      if (g_hash_table_remove (self->wanted, path))
        reveal (self, path);
    }
  schedule_update (self, TRUE);
}

/* A read, an import, a deletion or an Undo is done. Once every read is
 * in, ticks of runs that never came, or went, are void. */
static void
history_changed_cb (TbRunHistory *history,
                    TbRunsPage   *self)
{
  GHashTableIter iter;
  gpointer key;

  if (tb_run_history_get_n_pending (history) > 0)
    return;
  g_hash_table_remove_all (self->wanted);
  g_hash_table_iter_init (&iter, self->ticked);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (tb_run_history_lookup (history, key) == NULL)
      g_hash_table_iter_remove (&iter);
  schedule_update (self, FALSE);
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
  return self->history != NULL ? tb_run_history_get_skipped (self->history)->len : 0;
}

char *
tb_runs_page_get_skipped_text (TbRunsPage *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  GPtrArray *skipped;
  guint n;

  g_return_val_if_fail (TB_IS_RUNS_PAGE (self), NULL);

  skipped = self->history != NULL ? tb_run_history_get_skipped (self->history) : NULL;
  n = skipped != NULL ? skipped->len : 0;
  for (guint i = 0; i < MIN (n, SKIPPED_SHOWN); i++)
    {
      const GError *error = g_ptr_array_index (skipped, i);
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
  guint n = tb_runs_page_get_n_skipped (self);
  g_autofree char *label = NULL;

  gtk_widget_set_visible (self->runs_skipped_button, n > 0);
  if (n == 0)
    return;
  label = g_strdup_printf (ngettext ("%u file skipped", "%u files skipped", n), n);
  gtk_button_set_label (GTK_BUTTON (self->runs_skipped_button), label);
}

/* Files of the runs folder that are not results: the list has what could
 * be read; a toast and the page's "skipped" line say that some were not,
 * and lead to which and why. */
static void
files_skipped_cb (TbRunHistory *history,
                  guint         n,
                  TbRunsPage   *self)
{
  g_autofree char *msg = g_strdup_printf (ngettext ("%u file in the runs folder is not a readable result",
                                                    "%u files in the runs folder are not readable results",
                                                    n), n);
  AdwToast *toast = adw_toast_new (msg);

  update_skipped (self);
  adw_toast_set_timeout (toast, 8);
  adw_toast_set_button_label (toast, _("_Details"));
  adw_toast_set_action_name (toast, "win.skipped-runs");
  show_toast (self, toast);
}

static void
loading_changed_cb (TbRunHistory *history,
                    GParamSpec   *pspec,
                    TbRunsPage   *self)
{
  /* a read of the whole folder replaces what was skipped */
  update_skipped (self);
  update_shown (self);
}

void
tb_runs_page_set_history (TbRunsPage   *self,
                          TbRunHistory *history)
{
  g_return_if_fail (TB_IS_RUNS_PAGE (self));
  g_return_if_fail (history == NULL || TB_IS_RUN_HISTORY (history));

  if (self->history != NULL)
    g_signal_handlers_disconnect_by_data (self->history, self);
  g_set_object (&self->history, history);
  gtk_filter_list_model_set_model (self->shown, G_LIST_MODEL (history));
  if (history != NULL)
    {
      g_signal_connect (history, "items-changed", G_CALLBACK (history_items_changed_cb), self);
      g_signal_connect (history, "changed", G_CALLBACK (history_changed_cb), self);
      g_signal_connect (history, "files-skipped", G_CALLBACK (files_skipped_cb), self);
      g_signal_connect (history, "notify::loading", G_CALLBACK (loading_changed_cb), self);
    }
  update_skipped (self);
  schedule_update (self, TRUE);
  update_shown (self);
}

/* ------------------------------------------------------------ the app's asks */

void
tb_runs_page_add (TbRunsPage *self,
                  const char *path,
                  gboolean    select)
{
  g_return_if_fail (TB_IS_RUNS_PAGE (self));
  g_return_if_fail (path != NULL);

  if (self->history == NULL)
    return;
  if (select)
    {
      set_ticked (self, path, TRUE);
      g_hash_table_add (self->wanted, g_strdup (path));
    }
  tb_run_history_add (self->history, path);
}

/* Tick or untick the run at `path`; one not listed yet is ticked, and
 * shown, when it comes. */
static void
set_selected (TbRunsPage *self,
              const char *path,
              gboolean    selected)
{
  if (tb_run_history_lookup (self->history, path) != NULL)
    {
      set_ticked (self, path, selected);
      if (selected)
        reveal (self, path);
    }
  else if (selected && tb_run_history_get_n_pending (self->history) > 0)
    {
      set_ticked (self, path, TRUE);
      g_hash_table_add (self->wanted, g_strdup (path));
    }
}

void
tb_runs_page_compare (TbRunsPage         *self,
                      const char * const *paths)
{
  g_return_if_fail (TB_IS_RUNS_PAGE (self));

  if (self->history == NULL)
    return;
  /* exactly these runs, also those still on their way */
  g_hash_table_remove_all (self->wanted);
  g_hash_table_remove_all (self->ticked);
  for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
    set_selected (self, paths[i], TRUE);
  refresh_rows (self);
  update_actions (self);
  update_comparison (self);
}

gboolean
tb_runs_page_get_ticked (TbRunsPage *self,
                         const char *path)
{
  g_return_val_if_fail (TB_IS_RUNS_PAGE (self), FALSE);
  return path != NULL && g_hash_table_contains (self->ticked, path);
}

GListModel *
tb_runs_page_get_shown (TbRunsPage *self)
{
  g_return_val_if_fail (TB_IS_RUNS_PAGE (self), NULL);
  return G_LIST_MODEL (self->shown);
}

guint
tb_runs_page_get_n_pending (TbRunsPage *self)
{
  g_return_val_if_fail (TB_IS_RUNS_PAGE (self), 0);
  return (self->history != NULL ? tb_run_history_get_n_pending (self->history) : 0)
         + (self->update_source != 0 ? 1 : 0);
}

/* ------------------------------------------------------------ delete */

/* Runs moved to the trash by one Delete, for its toast's Undo. */
typedef struct
{
  GWeakRef page;
  TbDeletion *deletion;
} Undo;

static void
undo_free (gpointer  data,
           GClosure *closure)
{
  Undo *undo = data;

  g_weak_ref_clear (&undo->page);
  tb_deletion_unref (undo->deletion);
  g_free (undo);
}

static void
undone_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(TbRunsPage) self = g_weak_ref_get (user_data);
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(GPtrArray) runs = tb_run_history_undo_finish (TB_RUN_HISTORY (object), result, &errors);

  g_weak_ref_clear (user_data);
  g_free (user_data);
  if (self == NULL)
    return;
  /* listed again, ticked as they were when they went */
  for (guint i = 0; i < runs->len; i++)
    set_ticked (self, ((TbRun *) g_ptr_array_index (runs, i))->path, TRUE);
  refresh_rows (self);
  update_actions (self);
  update_comparison (self);
  if (errors->len > 0)
    show_error (self,
                ngettext ("A run could not be put back", "Runs could not be put back", errors->len),
                g_ptr_array_index (errors, 0));
}

static void
undo_cb (AdwToast *toast,
         Undo     *undo)
{
  g_autoptr(TbRunsPage) self = g_weak_ref_get (&undo->page);
  GWeakRef *page;

  if (self == NULL || self->history == NULL)
    return;
  page = g_new0 (GWeakRef, 1);
  g_weak_ref_init (page, self);
  tb_run_history_undo_async (self->history, undo->deletion, undone_cb, page);
}

/* A Delete under way: the page, and the runs it asked to go. */
typedef struct
{
  GWeakRef page;
  GPtrArray *runs;               /* TbRun * */
} Trashing;

static void
trashed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Trashing *trashing = user_data;
  g_autoptr(TbRunsPage) self = g_weak_ref_get (&trashing->page);
  g_autoptr(GPtrArray) runs = trashing->runs;
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(TbDeletion) deletion = tb_run_history_trash_finish (TB_RUN_HISTORY (object), result, &errors);

  g_weak_ref_clear (&trashing->page);
  g_free (trashing);
  if (self == NULL)
    return;
  /* those that went are ticked no more; one that stayed is, and a dialog
   * says why */
  for (guint i = 0; i < runs->len; i++)
    {
      const char *path = ((TbRun *) g_ptr_array_index (runs, i))->path;

      if (tb_run_history_lookup (self->history, path) == NULL)
        set_ticked (self, path, FALSE);
    }
  refresh_rows (self);
  update_actions (self);
  update_comparison (self);
  if (deletion != NULL)
    {
      guint n = tb_deletion_get_n_runs (deletion);
      g_autofree char *title = g_strdup_printf (ngettext ("%u run moved to the trash",
                                                          "%u runs moved to the trash", n), n);
      AdwToast *toast = adw_toast_new (title);
      Undo *undo = g_new0 (Undo, 1);

      g_weak_ref_init (&undo->page, self);
      undo->deletion = tb_deletion_ref (deletion);
      adw_toast_set_button_label (toast, _("_Undo"));
      adw_toast_set_timeout (toast, 10);
      g_signal_connect_data (toast, "button-clicked", G_CALLBACK (undo_cb), undo, undo_free, 0);
      show_toast (self, toast);
    }
  if (errors->len > 0)
    show_error (self,
                ngettext ("A run was not deleted", "Runs were not deleted", errors->len),
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
  Trashing *trashing;

  if (runs->len == 0 || self->history == NULL)
    return;
  trashing = g_new0 (Trashing, 1);
  g_weak_ref_init (&trashing->page, self);
  trashing->runs = g_ptr_array_ref (runs);
  tb_run_history_trash_async (self->history, runs, trashed_cb, trashing);
}

/* ------------------------------------------------------------ import */

static void
imported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(TbRunsPage) self = g_weak_ref_get (user_data);
  g_autoptr(GPtrArray) errors = NULL;
  guint copied = 0;
  g_autoptr(GPtrArray) runs = tb_run_history_import_finish (TB_RUN_HISTORY (object), result, &copied, &errors);

  g_weak_ref_clear (user_data);
  g_free (user_data);
  if (self == NULL)
    return;
  for (guint i = 0; i < errors->len; i++)
    {
      const GError *error = g_ptr_array_index (errors, i);

      /* a bad file, or a folder that cannot take it */
      show_error (self,
                  g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA)
                  ? _("This file cannot be imported") : _("Results could not be imported"),
                  error);
    }
  if (runs->len == 0)
    return;

  /* each run once, ticked and shown */
  for (guint i = 0; i < runs->len; i++)
    {
      const char *path = ((TbRun *) g_ptr_array_index (runs, i))->path;

      if (tb_run_history_lookup (self->history, path) != NULL)
        {
          set_ticked (self, path, TRUE);
          reveal (self, path);
        }
      g_hash_table_remove (self->wanted, path);
    }
  refresh_rows (self);
  update_actions (self);
  update_comparison (self);
  {
    g_autofree char *msg = g_strdup_printf (ngettext ("Imported %u run", "Imported %u runs", copied), copied);

    show_toast (self, adw_toast_new (msg));
  }
  gtk_widget_activate_action (GTK_WIDGET (self), "win.page", "s", "runs");
}

void
tb_runs_page_import (TbRunsPage  *self,
                     GFile      **files,
                     guint        n_files)
{
  GWeakRef *page;

  g_return_if_fail (TB_IS_RUNS_PAGE (self));

  if (self->history == NULL || n_files == 0)
    return;
  page = g_new0 (GWeakRef, 1);
  g_weak_ref_init (page, self);
  tb_run_history_import_async (self->history, files, n_files, imported_cb, page);
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
    for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->shown)); i++)
      {
        g_autoptr(TbRunItem) item = g_list_model_get_item (G_LIST_MODEL (self->shown), i);

        g_ptr_array_add (runs, tb_run_ref (tb_run_item_get_run (item)));
      }
  return runs;
}

void
tb_runs_page_select_all (TbRunsPage *self)
{
  GListModel *shown;
  gboolean all_on = TRUE;
  guint n;

  g_return_if_fail (TB_IS_RUNS_PAGE (self));

  /* the runs shown: a filter then Select All picks what it found */
  shown = G_LIST_MODEL (self->shown);
  n = g_list_model_get_n_items (shown);
  for (guint i = 0; i < n && all_on; i++)
    {
      g_autoptr(TbRunItem) item = g_list_model_get_item (shown, i);

      all_on = g_hash_table_contains (self->ticked, tb_run_item_get_run (item)->path);
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TbRunItem) item = g_list_model_get_item (shown, i);

      set_ticked (self, tb_run_item_get_run (item)->path, !all_on);
    }
  refresh_rows (self);
  update_actions (self);
  update_comparison (self);
}

/* ------------------------------------------------------------ page */

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

static void
group_toggled_cb (GtkToggleButton *button,
                  TbRunsPage      *self)
{
  if (gtk_toggle_button_get_active (button))
    draw_comparison (self);
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

  if (self->curves != NULL)
    g_cancellable_cancel (self->curves);
  g_clear_object (&self->curves);
  if (self->history != NULL)
    g_signal_handlers_disconnect_by_data (self->history, self);
  g_clear_object (&self->history);
  if (self->shown != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->shown, self);
      gtk_filter_list_model_set_model (self->shown, NULL);
    }
  g_clear_handle_id (&self->update_source, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), TB_TYPE_RUNS_PAGE);
  G_OBJECT_CLASS (tb_runs_page_parent_class)->dispose (object);
}

static void
tb_runs_page_finalize (GObject *object)
{
  TbRunsPage *self = TB_RUNS_PAGE (object);

  g_clear_object (&self->shown);
  g_clear_object (&self->filter);
  g_clear_pointer (&self->ticked, g_hash_table_unref);
  g_clear_pointer (&self->wanted, g_hash_table_unref);
  g_clear_pointer (&self->compared, g_ptr_array_unref);
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
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-runs-page.ui");
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, paned);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, runs_stack);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, runs_view);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, runs_empty);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, runs_skipped_button);
  gtk_widget_class_bind_template_child_full (widget_class, "delete_button", FALSE, 0);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, TbRunsPage, status_filter);
  gtk_widget_class_bind_template_child_full (widget_class, "model_filter", FALSE,
                                             G_STRUCT_OFFSET (TbRunsPage, choice_filters[TB_RUN_LABEL_MODEL]));
  gtk_widget_class_bind_template_child_full (widget_class, "dataset_filter", FALSE,
                                             G_STRUCT_OFFSET (TbRunsPage, choice_filters[TB_RUN_LABEL_DATASET]));
  gtk_widget_class_bind_template_child_full (widget_class, "device_filter", FALSE,
                                             G_STRUCT_OFFSET (TbRunsPage, choice_filters[TB_RUN_LABEL_DEVICE]));
  gtk_widget_class_bind_template_child_full (widget_class, "os_filter", FALSE,
                                             G_STRUCT_OFFSET (TbRunsPage, choice_filters[TB_RUN_LABEL_OS]));
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
  gtk_widget_class_bind_template_callback (widget_class, log_scale_toggled_cb);

  gtk_widget_class_install_action (widget_class, "runs.delete", NULL, delete_action);
  /* on the page only: Delete elsewhere (a layer on the Model page, a
   * text field) is not about runs */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete, 0, "runs.delete", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Delete, 0, "runs.delete", NULL);
}

static void
tb_runs_page_init (TbRunsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = tb_settings_new ();
  self->ticked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->wanted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  setup_filters (self);
  setup_list (self);
  g_signal_connect_object (self->settings, "changed::runs-list-share",
                           G_CALLBACK (list_share_changed_cb), self, 0);
  g_signal_connect (self->paned, "notify::position", G_CALLBACK (handle_moved_cb), self);
  update_shown (self);
  update_comparison (self);
}
