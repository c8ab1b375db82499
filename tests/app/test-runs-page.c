/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-runs-page.c: the Runs page with a history of 30 runs of mixed status
 * (completed, failed, cancelled; three presets, two data sets, four
 * devices, four systems), driven as a user would: each failed run says why
 * on its row, dates read in local time with the file's UTC time on hover,
 * seconds per epoch is the median; the search and the status, model, data
 * set, device and OS filters; failed runs moved to the trash and put back
 * with Undo, byte for byte, and nothing deleted when there is no trash;
 * runs the CLI writes while the window is open listed without F5 (and a
 * half-written file not listed half); the handle between the list and the
 * charts keeps where it was dragged. Screenshots of the page, filtered, go
 * into the build folder.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "tb-application.h"
#include "tb-run-row.h"
#include "tb-window-private.h"
#include "test-gui-util.h"

#define N_RUNS 30

static TbApplication *app;
static TbWindow *window;
static const char *root;
static char *runs_dir;

#define RUNS_PAGE (tb_window_get_runs_page (window))
#define HISTORY (tb_window_get_history (window))

static GtkWidget *
page_child (const char *name)
{
  return GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (RUNS_PAGE), TB_TYPE_RUNS_PAGE, name));
}

/* ------------------------------------------------------------ the history */

static const char *const presets[] = { "mlp-small", "mlp-wide", "cnn" };
static const char *const specs[] = {
  "flatten; dense 128 relu; dropout 0.2; dense 10 softmax",
  "flatten; dense 1000 relu; dropout 0.2; dense 1000 relu; dropout 0.2; dense 10 softmax",
  "conv2d 32 3 relu; conv2d 64 3 relu; maxpool 2; dropout 0.25; flatten; dense 128 relu; dropout 0.5; dense 10 softmax",
};
static const char *const datasets[] = { "mnist", "fashion-mnist" };
static const struct { const char *kind, *name; } devices[] = {
  { "cpu", "AMD Ryzen 9 7950X" },
  { "cuda", "NVIDIA GeForce RTX 4090" },
  { "cuda", "NVIDIA H200" },
  { "cpu", "Intel Xeon Platinum 8480+" },
};
static const struct { const char *name, *version, *emulated_by; } systems[] = {
  { "Debian GNU/Linux", "12 (bookworm)", "" },
  { "Windows", "11 (26100)", "" },
  { "Ubuntu", "24.04 LTS", "" },
  { "Windows", "10 (19045)", "wine 8.0" },
};
static const char *const errors[] = {
  "cuda:0: out of memory for activations (1.8 GiB) at batch 4096; try a smaller batch",
  "fashion-mnist: no data set of that name in /usr/share/datasets or ~/.local/share/trainbench/datasets",
  "the loss became NaN at step 212 of epoch 1; try a lower learning rate",
  "dense 10 softmax: a model must end in a layer with one output per class (10), this one has 12",
};

typedef struct
{
  char *path;
  char *status;
  const char *preset;
  const char *dataset;
  guint device;
  guint system;
  char *error;         /* or NULL */
} Made;

static Made made[N_RUNS];

static const char *
status_of (int i)
{
  if (i % 5 == 1 || i % 5 == 3 || i == 28)
    return "failed";
  if (i % 7 == 5)
    return "cancelled";
  return "completed";
}

static void
set_object (JsonObject *parent,
            const char *name,
            const char *key,
            const char *value)
{
  json_object_set_string_member (json_object_get_object_member (parent, name), key, value);
}

/* A result file as the engine writes it, from the fixture run-cpu.json
 * with run `i`'s own fields. */
static char *
result_text (int         i,
             const char *status,
             const char *error,
             int         n_epochs)
{
  g_autofree char *fixture = g_test_build_filename (G_TEST_DIST, "data", "run-cpu.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autofree char *run_id = g_strdup_printf ("202611%02dT%02d0000Z-%s-%02d", 1 + i / 2, 3 + i % 2 * 10,
                                             presets[i % 3], i);
  g_autofree char *started = g_strdup_printf ("2026-11-%02dT%02d:00:00Z", 1 + i / 2, 3 + i % 2 * 10);
  JsonObject *o, *system, *os;
  JsonArray *epochs;
  /* a slow first epoch, as a warm-up makes it: 12, 9, 10 s (median 10,
   * mean 10.33), scaled per run */
  const double seconds[] = { 12.0, 9.0, 10.0 };
  double scale = 1.0 + i * 0.25;

  g_assert_true (json_parser_load_from_file (parser, fixture, NULL));
  o = json_node_get_object (json_parser_get_root (parser));
  json_object_set_string_member (o, "run_id", run_id);
  json_object_set_string_member (o, "started_at", started);
  json_object_set_string_member (o, "status", status);
  if (error != NULL)
    json_object_set_string_member (o, "error", error);
  system = json_object_get_object_member (o, "system");
  os = json_object_get_object_member (system, "os");
  json_object_set_string_member (os, "name", systems[i % 4].name);
  json_object_set_string_member (os, "version", systems[i % 4].version);
  json_object_set_string_member (os, "emulated_by", systems[i % 4].emulated_by);
  set_object (o, "device", "kind", devices[(i / 3) % 4].kind);
  set_object (o, "device", "name", devices[(i / 3) % 4].name);
  set_object (o, "dataset", "name", datasets[(i / 6) % 2]);
  set_object (o, "model", "spec", specs[i % 3]);
  set_object (o, "model", "name", presets[i % 3]);
  epochs = json_object_get_array_member (o, "epochs");
  while ((int) json_array_get_length (epochs) > n_epochs)
    json_array_remove_element (epochs, json_array_get_length (epochs) - 1);
  for (int e = 0; e < n_epochs; e++)
    json_object_set_double_member (json_array_get_object_element (epochs, e), "seconds", seconds[e] * scale);
  /* a run that stopped before its first epoch took few steps or none */
  if (n_epochs == 0)
    {
      JsonObject *steps = json_object_get_object_member (o, "steps");

      json_object_set_int_member (steps, "count", 0);
      json_object_set_array_member (steps, "loss_curve", json_array_new ());
    }
  json_generator_set_root (gen, json_parser_get_root (parser));
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

static void
make_history (void)
{
  g_assert_cmpint (g_mkdir_with_parents (runs_dir, 0755), ==, 0);
  for (int i = 0; i < N_RUNS; i++)
    {
      const char *status = status_of (i);
      const char *error = NULL;
      g_autofree char *name = g_strdup_printf ("run-%02d.json", i);
      g_autofree char *text = NULL;
      int n_epochs = 3;

      if (g_strcmp0 (status, "failed") == 0)
        {
          error = errors[i % 4];
          n_epochs = 0;
        }
      else if (g_strcmp0 (status, "cancelled") == 0)
        {
          error = "cancelled at step 40 of epoch 2";
          n_epochs = 1;
        }
      text = result_text (i, status, error, n_epochs);
      made[i].path = g_build_filename (runs_dir, name, NULL);
      made[i].status = g_strdup (status);
      made[i].preset = presets[i % 3];
      made[i].dataset = datasets[(i / 6) % 2];
      made[i].device = (i / 3) % 4;
      made[i].system = i % 4;
      made[i].error = g_strdup (error);
      g_assert_true (g_file_set_contents (made[i].path, text, -1, NULL));
    }
}

/* ------------------------------------------------------------ helpers */

/* The run listed for the file at `path`, or NULL. */
static TbRun *
row_of (const char *path)
{
  TbRunItem *item = tb_run_history_lookup (HISTORY, path);

  return item != NULL ? tb_run_item_get_run (item) : NULL;
}

static guint
count_rows (void)
{
  return g_list_model_get_n_items (G_LIST_MODEL (HISTORY));
}

/* Runs the filters let through, as the list shows them. */
static guint
count_shown (void)
{
  return g_list_model_get_n_items (tb_runs_page_get_shown (RUNS_PAGE));
}

static gboolean
is_ticked (TbRun *run)
{
  return tb_runs_page_get_ticked (RUNS_PAGE, run->path);
}

/* The row the list shows for `path` now, or NULL. */
static TbRunRow *
shown_row (const char *path)
{
  for (GtkWidget *child = gtk_widget_get_first_child (page_child ("runs_view")); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *row = gtk_widget_get_first_child (child);

      if (row != NULL && TB_IS_RUN_ROW (row) && tb_run_row_get_run (TB_RUN_ROW (row)) != NULL
          && g_strcmp0 (tb_run_row_get_run (TB_RUN_ROW (row))->path, path) == 0 && gtk_widget_get_mapped (row))
        return TB_RUN_ROW (row);
    }
  return NULL;
}

/* Scroll the list to the run at `path`, as a user does, and give its row. */
static TbRunRow *
scroll_to (const char *path)
{
  GListModel *shown = tb_runs_page_get_shown (RUNS_PAGE);

  for (guint i = 0; i < g_list_model_get_n_items (shown); i++)
    {
      g_autoptr(TbRunItem) item = g_list_model_get_item (shown, i);

      if (g_strcmp0 (tb_run_item_get_run (item)->path, path) == 0)
        {
          gtk_widget_activate_action (page_child ("runs_view"), "list.scroll-to-item", "u", i);
          tb_test_spin (50);
          return shown_row (path);
        }
    }
  return NULL;
}

static GtkWidget *
row_part (TbRunRow   *row,
          const char *name)
{
  return GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (row), TB_TYPE_RUN_ROW, name));
}

/* Tick or untick a run with a click on its row's check box. */
static void
tick (TbRun    *run,
      gboolean  on)
{
  TbRunRow *row = scroll_to (run->path);

  g_assert_nonnull (row);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (row_part (row, "check")), on);
}

static gboolean
runs_loaded (gpointer data)
{
  return tb_runs_page_get_n_pending (RUNS_PAGE) == 0;
}

static gboolean
window_mapped (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (window)) && gtk_widget_get_width (GTK_WIDGET (window)) > 0;
}

/* Pick the item `label` of a filter's drop-down, as a click in its list. */
static void
choose (const char *dropdown,
        const char *label)
{
  GtkDropDown *dd = GTK_DROP_DOWN (page_child (dropdown));
  GListModel *model = gtk_drop_down_get_model (dd);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GtkStringObject) item = g_list_model_get_item (model, i);

      if (g_strcmp0 (gtk_string_object_get_string (item), label) == 0)
        {
          gtk_drop_down_set_selected (dd, i);
          tb_test_spin (50);
          return;
        }
    }
  g_error ("no item “%s” in %s", label, dropdown);
}

static gboolean search_done;

static void
search_changed_cb (GtkSearchEntry *entry,
                   const char     *text)
{
  /* replacing the text empties the field first, which searches at once */
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (entry)), text) == 0)
    search_done = TRUE;
}

/* Type into the search field and wait for it to search (it waits for the
 * typing to pause). */
static void
search (const char *text)
{
  GtkWidget *entry = page_child ("search_entry");
  gulong id = g_signal_connect (entry, "search-changed", G_CALLBACK (search_changed_cb), (gpointer) text);

  search_done = FALSE;
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  g_assert_true (tb_test_wait_for (&search_done, 5));
  g_signal_handler_disconnect (entry, id);
  tb_test_spin (50);
}

static void
clear_filters (void)
{
  const char *dropdowns[] = { "status_filter", "model_filter", "dataset_filter", "device_filter", "os_filter" };

  if (*gtk_editable_get_text (GTK_EDITABLE (page_child ("search_entry"))) != '\0')
    search ("");
  for (guint i = 0; i < G_N_ELEMENTS (dropdowns); i++)
    gtk_drop_down_set_selected (GTK_DROP_DOWN (page_child (dropdowns[i])), 0);
  tb_test_spin (50);
}

static guint
count_made (gboolean (*pred) (const Made *m, gconstpointer data),
            gconstpointer data)
{
  guint n = 0;

  for (int i = 0; i < N_RUNS; i++)
    n += made[i].path != NULL && pred (&made[i], data);
  return n;
}

static gboolean
has_status (const Made *m, gconstpointer status)
{
  return g_strcmp0 (m->status, status) == 0;
}

static gboolean
failed_on_h200 (const Made *m, gconstpointer data)
{
  return g_strcmp0 (m->status, "failed") == 0 && m->device == 2;
}

static gboolean
cnn_on_windows (const Made *m, gconstpointer data)
{
  return g_strcmp0 (m->preset, "cnn") == 0 && g_strcmp0 (systems[m->system].name, "Windows") == 0
         && systems[m->system].emulated_by[0] == '\0';
}

static gboolean
out_of_memory (const Made *m, gconstpointer data)
{
  return m->error != NULL && strstr (m->error, "out of memory") != NULL;
}

static void
screenshot (const char *name)
{
  g_autofree char *path = g_build_filename (SCREENSHOT_DIR, name, NULL);
  g_autoptr(GError) error = NULL;

  /* let a toast finish its show animation first: libadwaita 1.2 crashes
   * when a toast is dismissed in the middle of it */
  tb_test_spin (500);
  _tb_window_dismiss_toast (window);
  tb_test_spin (600);
  if (!tb_test_screenshot (GTK_WIDGET (window), path, &error))
    g_test_message ("screenshot %s: %s", name, error->message);
  else
    g_test_message ("screenshot written: %s", path);
}

static void
close_dialogs (void)
{
  GtkWindow *dialog;

  while ((dialog = tb_test_newest_dialog (GTK_WINDOW (window))) != NULL)
    gtk_window_destroy (dialog);
}

/* The button of that label in the window's toasts, as a user sees it. */
static GtkWidget *
find_button (GtkWidget  *widget,
             const char *label)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0
      && gtk_widget_get_mapped (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
undo_shown (gpointer data)
{
  return find_button (GTK_WIDGET (window->toast_overlay), "_Undo") != NULL;
}

static char *
read_all (const char *path)
{
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return text;
}

/* ------------------------------------------------------------ tests */

static void
test_rows (void)
{
  make_history ();
  window = tb_window_new (ADW_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 860);
  gtk_window_present (GTK_WINDOW (window));
  tb_window_show_page (window, "runs");
  g_assert_true (tb_test_wait_until (window_mapped, NULL, 10));
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));
  g_assert_cmpuint (count_rows (), ==, N_RUNS);
  g_assert_cmpuint (count_shown (), ==, N_RUNS);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (page_child ("shown_label"))), ==, "30 runs");

  /* each row, scrolled to as a user does: the list makes rows only for
   * what it shows */
  for (int i = 0; i < N_RUNS; i++)
    {
      TbRunRow *row = scroll_to (made[i].path);
      GtkWidget *error = NULL;

      g_assert_nonnull (row);
      error = row_part (row, "error");
      /* a run that did not complete says why, on its row */
      if (made[i].error != NULL)
        {
          g_assert_true (gtk_widget_get_visible (error));
          g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (error)), made[i].error));
        }
      else
        g_assert_false (gtk_widget_get_visible (error));
    }

  /* run 0 started 2026-11-01T03:00:00Z: in Shanghai (UTC+8) 11:00; the
   * file's own time is the tooltip */
  {
    TbRunRow *row = scroll_to (made[0].path);
    GtkWidget *date = row_part (row, "date");
    g_autofree char *tip = tb_run_row_dup_tooltip (row, date);
    const char *details = gtk_label_get_text (GTK_LABEL (row_part (row, "details")));

    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (date)), ==, "1 Nov 2026, 11:00");
    g_assert_cmpstr (tip, ==, "2026-11-01T03:00:00Z");
    /* seconds per epoch is the median, and says so: run 0's epochs took
     * 12, 9 and 10 s (the mean would be 10.33) */
    g_assert_nonnull (strstr (details, "10.00 median s/epoch"));
    g_assert_null (strstr (details, "10.33"));
  }
  gtk_widget_activate_action (page_child ("runs_view"), "list.scroll-to-item", "u", 0);
  screenshot ("screenshot-runs-30.png");

  /* Enter on a row ticks it, as a click on its check box; again unticks */
  {
    TbRun *first = tb_run_history_get_run (HISTORY, 0);

    g_signal_emit_by_name (page_child ("runs_view"), "activate", 0);
    g_assert_true (is_ticked (first));
    g_assert_true (tb_run_row_get_ticked (shown_row (first->path)));
    g_signal_emit_by_name (page_child ("runs_view"), "activate", 0);
    g_assert_false (is_ticked (first));
  }
  /* every run compared: the bars take them all, the curves (read again
   * from the files) the first 24, and say so */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.select-all-runs", NULL);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));
  tb_test_spin (200);
  {
    TbChartData *accuracy = tb_chart_view_get_data (tb_window_get_chart (window, "compare-accuracy"));

    g_test_message ("%s", accuracy->title);
    g_assert_nonnull (strstr (accuracy->title, "the first 24 of 30 runs"));
    g_assert_cmpuint (tb_chart_data_count_points (accuracy), >, 0);
  }
  gtk_widget_activate_action (GTK_WIDGET (window), "win.select-all-runs", NULL);
  tb_test_spin (100);
}

static void
test_filter (void)
{
  guint failed = count_made (has_status, "failed");
  guint cancelled = count_made (has_status, "cancelled");
  g_autoptr(GPtrArray) export = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *label = NULL;

  g_assert_cmpuint (failed, >, 5);
  g_assert_cmpuint (cancelled, >, 0);

  choose ("status_filter", "Failed");
  g_assert_cmpuint (count_shown (), ==, failed);
  label = g_strdup_printf ("%u of 30 runs", failed);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (page_child ("shown_label"))), ==, label);
  choose ("status_filter", "Cancelled");
  g_assert_cmpuint (count_shown (), ==, cancelled);

  /* the filters add up: failed runs on the H200 */
  choose ("status_filter", "Failed");
  choose ("device_filter", "GPU · NVIDIA H200");
  g_assert_cmpuint (count_made (failed_on_h200, NULL), >, 0);
  g_assert_cmpuint (count_shown (), ==, count_made (failed_on_h200, NULL));
  clear_filters ();
  g_assert_cmpuint (count_shown (), ==, N_RUNS);

  /* each drop-down lists what the history holds */
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (GTK_DROP_DOWN (page_child ("model_filter")))), ==, 4);
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (GTK_DROP_DOWN (page_child ("dataset_filter")))), ==, 3);
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (GTK_DROP_DOWN (page_child ("device_filter")))), ==, 5);
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (GTK_DROP_DOWN (page_child ("os_filter")))), ==, 5);

  /* a search finds the failure's message; words add up, in any case */
  search ("OUT OF MEMORY");
  g_assert_cmpuint (count_shown (), ==, count_made (out_of_memory, NULL));
  search ("memory   h200");
  g_assert_cmpuint (count_shown (), <, count_made (out_of_memory, NULL));
  search ("no such thing");
  g_assert_cmpuint (count_shown (), ==, 0);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (page_child ("runs_empty"))), ==,
                   "No run matches the search and the filters");
  search ("");

  /* the model and the OS: cnn on a real Windows (not under wine) */
  choose ("model_filter", "cnn");
  choose ("os_filter", "Windows 11 (26100)");
  g_assert_cmpuint (count_shown (), ==, count_made (cnn_on_windows, NULL));
  /* nothing ticked: export takes what is shown */
  export = tb_runs_page_get_export_runs (RUNS_PAGE);
  g_assert_cmpuint (export->len, ==, count_made (cnn_on_windows, NULL));
  csv = tb_runs_format_csv (export);
  g_assert_true (g_str_has_prefix (csv, "run_id,"));
  g_assert_nonnull (strstr (csv, ",median_seconds_per_epoch,"));

  /* the picture: 30 runs of mixed status, filtered to one model,
   * all of it ticked and compared */
  choose ("os_filter", "All systems");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.select-all-runs", NULL);
  tb_test_spin (100);
  {
    g_autoptr(GPtrArray) ticked = tb_runs_page_get_export_runs (RUNS_PAGE);

    g_assert_cmpuint (ticked->len, ==, N_RUNS / 3);
  }
  screenshot ("screenshot-runs-filtered.png");
  /* unticked again, so the next test starts from nothing ticked */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.select-all-runs", NULL);
  clear_filters ();
}

static char *
trash_path (const char *sub,
            const char *base)
{
  return g_build_filename (root, "Trash", sub, base, NULL);
}

static void
test_delete_undo (void)
{
  guint failed = count_made (has_status, "failed");
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) contents = g_ptr_array_new_with_free_func (g_free);
  GtkWidget *undo;

  g_assert_false (gtk_widget_is_sensitive (page_child ("delete_button")));

  /* the user's flow: show the failed runs, select them all, delete; a
   * completed run ticked before is not deleted: it is not shown */
  tick (row_of (made[0].path), TRUE);
  choose ("status_filter", "Failed");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.select-all-runs", NULL);
  g_assert_true (gtk_widget_is_sensitive (page_child ("delete_button")));
  for (int i = 0; i < N_RUNS; i++)
    if (g_strcmp0 (made[i].status, "failed") == 0)
      {
        g_ptr_array_add (paths, g_strdup (made[i].path));
        g_ptr_array_add (contents, read_all (made[i].path));
      }
  g_assert_cmpuint (paths->len, ==, failed);
  gtk_widget_activate (page_child ("delete_button"));
  /* a button activated from the keyboard clicks after its press shows */
  tb_test_spin (400);

  g_assert_cmpuint (count_rows (), ==, N_RUNS - failed);
  g_assert_cmpuint (count_shown (), ==, 0);
  g_assert_true (g_file_test (made[0].path, G_FILE_TEST_IS_REGULAR));
  g_assert_true (is_ticked (row_of (made[0].path)));
  for (guint i = 0; i < paths->len; i++)
    {
      g_autofree char *base = g_path_get_basename (g_ptr_array_index (paths, i));
      g_autofree char *in_trash = trash_path ("files", base);
      g_autofree char *info = g_strconcat (base, ".trashinfo", NULL);
      g_autofree char *info_path = trash_path ("info", info);
      g_autofree char *there = read_all (in_trash);

      g_assert_false (g_file_test (g_ptr_array_index (paths, i), G_FILE_TEST_EXISTS));
      g_assert_cmpstr (there, ==, g_ptr_array_index (contents, i));
      g_assert_true (g_file_test (info_path, G_FILE_TEST_IS_REGULAR));
    }
  {
    g_autofree char *title = g_strdup_printf ("%u runs moved to the trash", failed);

    g_assert_nonnull (_tb_window_get_last_toast (window));
    g_assert_cmpstr (adw_toast_get_title (_tb_window_get_last_toast (window)), ==, title);
  }

  /* the watcher sees the files go: nothing comes back by itself */
  tb_test_spin (800);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 10));
  g_assert_cmpuint (count_rows (), ==, N_RUNS - failed);

  /* the trash emptied of one of them meanwhile: that one comes back from
   * the bytes kept */
  {
    g_autofree char *base = g_path_get_basename (g_ptr_array_index (paths, 0));
    g_autofree char *in_trash = trash_path ("files", base);
    g_autofree char *info = g_strconcat (base, ".trashinfo", NULL);
    g_autofree char *info_path = trash_path ("info", info);

    g_assert_cmpint (g_unlink (in_trash), ==, 0);
    g_assert_cmpint (g_unlink (info_path), ==, 0);
  }

  /* Undo, on the toast: every file back, the same bytes, out of the trash */
  g_assert_true (tb_test_wait_until (undo_shown, NULL, 5));
  undo = find_button (GTK_WIDGET (window->toast_overlay), "_Undo");
  gtk_widget_activate (undo);
  tb_test_spin (400);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 10));
  g_assert_cmpuint (count_rows (), ==, N_RUNS);
  g_assert_cmpuint (count_shown (), ==, failed);
  for (guint i = 0; i < paths->len; i++)
    {
      g_autofree char *base = g_path_get_basename (g_ptr_array_index (paths, i));
      g_autofree char *in_trash = trash_path ("files", base);
      g_autofree char *info = g_strconcat (base, ".trashinfo", NULL);
      g_autofree char *info_path = trash_path ("info", info);
      g_autofree char *back = read_all (g_ptr_array_index (paths, i));

      g_assert_cmpstr (back, ==, g_ptr_array_index (contents, i));
      g_assert_false (g_file_test (in_trash, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (info_path, G_FILE_TEST_EXISTS));
      g_assert_true (is_ticked (row_of (g_ptr_array_index (paths, i))));
    }
  gtk_widget_activate_action (GTK_WIDGET (window), "win.select-all-runs", NULL);
  clear_filters ();
  tick (row_of (made[0].path), FALSE);
  g_assert_null (tb_test_newest_dialog (GTK_WINDOW (window)));
}

/* With no trash to take it (the trash folder cannot be made), a run is not
 * deleted, and a dialog says so. */
static void
test_no_trash (void)
{
  g_autofree char *trash = g_build_filename (root, "Trash", NULL);
  g_autofree char *aside = g_build_filename (root, "Trash.aside", NULL);
  g_autofree char *before = read_all (made[0].path);
  g_autofree char *after = NULL;
  GtkWindow *dialog;

  if (g_file_test (trash, G_FILE_TEST_EXISTS))
    g_assert_cmpint (g_rename (trash, aside), ==, 0);
  g_assert_true (g_file_set_contents (trash, "not a folder", -1, NULL));

  tick (row_of (made[0].path), TRUE);
  gtk_widget_activate (page_child ("delete_button"));
  tb_test_spin (400);

  after = read_all (made[0].path);
  g_assert_cmpstr (after, ==, before);
  g_assert_nonnull (row_of (made[0].path));
  g_assert_cmpuint (count_rows (), ==, N_RUNS);
  dialog = tb_test_newest_dialog (GTK_WINDOW (window));
  g_assert_nonnull (dialog);
  g_test_message ("%s: %s", adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)),
                  adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)));
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==, "A run was not deleted");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)), "cannot be moved to the trash"));
  close_dialogs ();
  tick (row_of (made[0].path), FALSE);

  g_assert_cmpint (g_unlink (trash), ==, 0);
  if (g_file_test (aside, G_FILE_TEST_EXISTS))
    g_assert_cmpint (g_rename (aside, trash), ==, 0);
}

static gboolean
row_listed (gpointer path)
{
  return row_of (path) != NULL;
}

static gboolean
row_gone (gpointer path)
{
  return row_of (path) == NULL;
}

static gboolean
rows_are (gpointer n)
{
  return runs_loaded (NULL) && count_rows () == GPOINTER_TO_UINT (n);
}

/* Runs written while the window is open are listed without F5: by the CLI
 * itself, in another process; a half-written copy is not listed half; a
 * file deleted or rewritten elsewhere follows. */
static void
test_watch (void)
{
  const char *cli = g_getenv ("TRAINBENCH_CLI");
  g_autofree char *data = g_build_filename (root, "tiny-idx", NULL);
  g_autofree char *copy = g_build_filename (runs_dir, "copied-in.json", NULL);
  g_autofree char *text = result_text (7, "completed", NULL, 3);
  guint skipped = tb_runs_page_get_n_skipped (RUNS_PAGE);
  guint n = count_rows ();
  FILE *f;

  /* the CLI, as a user runs it in a terminal beside the window */
  g_assert_nonnull (cli);
  g_assert_true (tb_test_write_idx (data, 200, 50, 10));
  {
    g_autoptr(GSubprocess) proc = NULL;
    g_autoptr(GError) error = NULL;

    g_autofree char *out = NULL;

    proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE, &error,
                             cli, "train", "--preset", "mlp-small", "--dataset", data, "--epochs", "1",
                             "--threads", "1", NULL);
    g_assert_no_error (error);
    g_assert_true (g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, NULL, &error));
    g_assert_no_error (error);
    g_test_message ("%s", out);
    g_assert_true (g_subprocess_get_if_exited (proc));
    g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  }
  g_assert_true (tb_test_wait_until (rows_are, GUINT_TO_POINTER (n + 1), 20));
  {
    TbRun *newest = tb_run_history_get_run (HISTORY, 0);
    const char *details = NULL;

    g_assert_cmpstr (newest->status, ==, "completed");
    g_assert_cmpstr (tb_run_model_label (newest), ==, "mlp-small");
    g_assert_cmpstr (newest->dataset_name, ==, "tiny-idx");
    /* its epoch took milliseconds: three digits, not "0.00" */
    details = gtk_label_get_text (GTK_LABEL (row_part (scroll_to (newest->path), "details")));
    g_test_message ("%s", details);
    g_assert_cmpfloat (tb_run_seconds_per_epoch (newest), <, 1.0);
    g_assert_null (strstr (details, " 0.00 median"));
    g_assert_nonnull (strstr (details, " median s/epoch"));
  }
  n++;

  /* a copy in progress: half a file is no row, and no "skipped" either */
  f = g_fopen (copy, "wb");
  g_assert_nonnull (f);
  g_assert_cmpuint (fwrite (text, 1, strlen (text) / 2, f), ==, strlen (text) / 2);
  fflush (f);
  tb_test_spin (1200);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 10));
  g_assert_null (row_of (copy));
  g_assert_cmpuint (count_rows (), ==, n);
  g_assert_cmpuint (tb_runs_page_get_n_skipped (RUNS_PAGE), ==, skipped);
  /* done: listed */
  g_assert_cmpuint (fwrite (text + strlen (text) / 2, 1, strlen (text) - strlen (text) / 2, f), ==,
                    strlen (text) - strlen (text) / 2);
  g_assert_cmpint (fclose (f), ==, 0);
  g_assert_true (tb_test_wait_until (row_listed, copy, 20));
  g_assert_cmpuint (count_rows (), ==, n + 1);
  n++;

  /* rewritten elsewhere (the same file, another status): the row follows,
   * ticked as it was */
  tick (row_of (copy), TRUE);
  {
    g_autofree char *failed = result_text (7, "failed", "device lost", 0);
    g_autofree char *tmp = g_strconcat (copy, ".tmp-0a1b2c", NULL);

    /* as the engine writes: a temporary file, then the name */
    g_assert_true (g_file_set_contents (tmp, failed, -1, NULL));
    g_assert_cmpint (g_rename (tmp, copy), ==, 0);
  }
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 10));
  tb_test_spin (600);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 10));
  {
    TbRun *run = row_of (copy);

    g_assert_cmpstr (run->status, ==, "failed");
    g_assert_true (is_ticked (run));
  }
  g_assert_cmpuint (count_rows (), ==, n);

  /* deleted elsewhere: the row goes */
  g_assert_cmpint (g_unlink (copy), ==, 0);
  g_assert_true (tb_test_wait_until (row_gone, copy, 20));
  g_assert_cmpuint (count_rows (), ==, n - 1);
}

/* A runs folder chosen in the preferences that does not exist yet is
 * watched too: the first run written there, by the CLI, creates it. */
static void
test_watch_new_folder (void)
{
  g_autoptr(GSettings) settings = tb_settings_new ();
  g_autofree char *folder = g_build_filename (root, "elsewhere", "runs", NULL);
  g_autofree char *path = g_build_filename (folder, "first.json", NULL);
  g_autofree char *text = result_text (4, "completed", NULL, 3);

  g_assert_false (g_file_test (folder, G_FILE_TEST_EXISTS));
  g_settings_set_string (settings, "runs-folder", folder);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 10));
  g_assert_cmpuint (count_rows (), ==, 0);

  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_true (tb_test_wait_until (row_listed, path, 20));
  g_assert_cmpuint (count_rows (), ==, 1);

  g_settings_reset (settings, "runs-folder");
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 10));
  g_assert_null (row_of (path));
  g_assert_nonnull (row_of (made[0].path));
}

static int
list_height (void)
{
  return gtk_paned_get_position (GTK_PANED (page_child ("paned")));
}

/* The list has the room to show the history: most of the page by default,
 * and as much as the user drags the handle to, kept as a share of the
 * page when the window is resized and in the next window. */
static void
test_split (void)
{
  GtkWidget *paned = page_child ("paned");
  g_autoptr(GSettings) settings = tb_settings_new ();
  GtkWidget *first;
  int page_h, row_h;

  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 720);
  tb_test_spin (500);
  page_h = gtk_widget_get_height (GTK_WIDGET (RUNS_PAGE));
  first = GTK_WIDGET (scroll_to (tb_run_history_get_run (HISTORY, 0)->path));
  row_h = gtk_widget_get_height (first);
  g_test_message ("page %d px, handle at %d px, a row %d px", page_h, list_height (), row_h);
  /* the list had 260 px, three and a half rows; now more than half the
   * page, five rows and more */
  g_assert_cmpint (abs (list_height () - (int) lround (0.6 * page_h)), <=, 1);
  g_assert_cmpint (gtk_widget_get_height (page_child ("runs_stack")), >=, 5 * row_h);

  /* a drag (the handle's keyboard moves set the position the same way) */
  gtk_paned_set_position (GTK_PANED (paned), (int) (0.75 * page_h));
  g_assert_cmpfloat (fabs (g_settings_get_double (settings, "runs-list-share") - 0.75), <, 0.01);

  /* a taller window: the list keeps its share */
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 900);
  tb_test_spin (500);
  page_h = gtk_widget_get_height (GTK_WIDGET (RUNS_PAGE));
  g_assert_cmpint (abs (list_height () - (int) lround (0.75 * page_h)), <=, 2);
  g_assert_cmpfloat (fabs (g_settings_get_double (settings, "runs-list-share") - 0.75), <, 0.01);

  /* and so does the next window */
  {
    TbWindow *other = tb_window_new (ADW_APPLICATION (app));
    GtkWidget *other_page = GTK_WIDGET (tb_window_get_runs_page (other));
    GtkWidget *other_paned = GTK_WIDGET (gtk_widget_get_template_child (other_page, TB_TYPE_RUNS_PAGE, "paned"));

    gtk_window_set_default_size (GTK_WINDOW (other), 1100, 720);
    gtk_window_present (GTK_WINDOW (other));
    tb_window_show_page (other, "runs");
    tb_test_spin (800);
    g_assert_cmpint (abs (gtk_paned_get_position (GTK_PANED (other_paned))
                          - (int) lround (0.75 * gtk_widget_get_height (other_page))), <=, 2);
    gtk_window_destroy (GTK_WINDOW (other));
    tb_test_spin (200);
  }
  g_settings_reset (settings, "runs-list-share");
}

int
main (int    argc,
      char **argv)
{
  int status;

  /* a zone without daylight saving, far from UTC, for the dates */
  g_setenv ("TZ", "Asia/Shanghai", TRUE);
  if ((status = tb_test_gui_init (&argc, &argv, &root)) >= 0)
    return status;
  runs_dir = g_build_filename (root, "trainbench", "runs", NULL);
  app = tb_test_app_new (0);

  g_test_add_func ("/runs-page/rows", test_rows);
  g_test_add_func ("/runs-page/filter", test_filter);
  g_test_add_func ("/runs-page/delete-undo", test_delete_undo);
  g_test_add_func ("/runs-page/no-trash", test_no_trash);
  g_test_add_func ("/runs-page/watch", test_watch);
  g_test_add_func ("/runs-page/watch-new-folder", test_watch_new_folder);
  g_test_add_func ("/runs-page/split", test_split);
  status = g_test_run ();

  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  for (int i = 0; i < N_RUNS; i++)
    {
      g_free (made[i].path);
      g_free (made[i].status);
      g_free (made[i].error);
    }
  g_free (runs_dir);
  return status;
}
