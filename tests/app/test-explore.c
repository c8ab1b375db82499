/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-explore.c: the Explore page in a window: a sweep file from another
 * machine opened like a run lands there with its charts and the engine's
 * words for its crossover; each family's axes start from the engine's
 * grid; a tiny CPU sweep on a small data set runs to the end, its points
 * measured, its files written and listed among the recent sweeps; Stop
 * keeps the points done; a bad axis is refused with its text, and the row
 * of the setting the engine refused is marked; closing the window
 * mid-sweep waits for its file. Writes screenshots of the page.
 */
#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>
#ifdef G_OS_UNIX
#include <unistd.h>
#endif

#include "tb-window.h"
#include "test-gui-util.h"

static TbApplication *app;
static TbWindow *window;
static char *data_dir;

#define PAGE (tb_window_get_explore_page (window))

static const char *
shot_path (const char *name)
{
  static char path[4096];

  g_snprintf (path, sizeof path, "%s/%s", SCREENSHOT_DIR, name);
  return path;
}

static void
screenshot (const char *name)
{
  g_autoptr(GError) error = NULL;

  tb_test_spin (1200);
  if (!tb_test_screenshot (GTK_WIDGET (window), shot_path (name), &error))
    g_test_message ("screenshot %s: %s", name, error->message);
  else
    g_test_message ("screenshot written: %s", shot_path (name));
}

/* A widget of the page's template, by its id. */
static GtkWidget *
page_child (const char *name)
{
  return GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (PAGE), TB_TYPE_EXPLORE_PAGE, name));
}

/* The row of axis `name`, or NULL. */
static GtkWidget *
axis_row (const char *name)
{
  for (GtkWidget *row = gtk_widget_get_first_child (page_child ("axes_list")); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (g_strcmp0 (gtk_widget_get_name (row), name) == 0)
      return row;
  return NULL;
}

/* The names of the axis rows, in order: "W D batch". */
static char *
axis_names (void)
{
  GString *names = g_string_new (NULL);

  for (GtkWidget *row = gtk_widget_get_first_child (page_child ("axes_list")); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    g_string_append_printf (names, "%s%s", names->len > 0 ? " " : "", gtk_widget_get_name (row));
  return g_string_free (names, FALSE);
}

static const char *
axis_values (const char *name)
{
  GtkWidget *row = axis_row (name);

  g_assert_nonnull (row);
  return gtk_editable_get_text (GTK_EDITABLE (row));
}

static gboolean
window_ready (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (window))
         && !tb_train_page_get_devices_pending (tb_window_get_train_page (window));
}

static gboolean
not_running (gpointer data)
{
  return !tb_explore_page_get_running (PAGE);
}

static gboolean
sweep_shown (gpointer data)
{
  TbSweep *sweep = tb_explore_page_get_sweep (PAGE);

  return sweep != NULL && g_strcmp0 (sweep->sweep_id, data) == 0;
}

static gboolean
points_done (gpointer data)
{
  TbSweep *sweep = tb_explore_page_get_sweep (PAGE);

  /* the new sweep's (16 points), not the one shown before it */
  return sweep != NULL && sweep->points->len == 16 && tb_sweep_count_done (sweep) >= GPOINTER_TO_UINT (data);
}

static gboolean
recent_listed (gpointer data)
{
  return tb_explore_page_get_n_recent (PAGE) >= GPOINTER_TO_UINT (data);
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static void
test_open (void)
{
  window = tb_window_new (ADW_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 860);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (tb_test_wait_until (window_ready, NULL, 60));
  tb_window_set_dataset (window, data_dir, 0, 0);
  tb_test_spin (300);
  /* the devices of the Train page, the CPU among them */
  g_assert_true (tb_explore_page_set_device_active (PAGE, "cpu", TRUE));
}

/* A sweep.json from the GPU machine, opened as `trainbench sweep.json`
 * would: the Explore page shows it, the crossover map with its cells. */
static void
test_open_sweep_file (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "sweep-mlp.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GFile *files[1] = { file };
  TbChartData *crossover;

  tb_window_show_page (window, "runs");
  g_application_open (G_APPLICATION (app), files, 1, "");
  g_assert_true (tb_test_wait_until (sweep_shown, "20261203-101500-mlp", 30));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (ADW_VIEW_STACK (gtk_widget_get_template_child (
                     GTK_WIDGET (window), TB_TYPE_WINDOW, "stack"))), ==, "explore");
  g_assert_cmpuint (tb_explore_page_get_sweep (PAGE)->points->len, ==, 32);
  crossover = tb_chart_view_get_data (tb_explore_page_get_chart (PAGE, "crossover"));
  g_assert_nonnull (crossover);
  g_assert_cmpint (crossover->kind, ==, TB_CHART_HEATMAP);
  g_assert_cmpuint (crossover->grid->n_x, ==, 4);
  g_assert_cmpfloat_with_epsilon (g_array_index (crossover->grid->cells, double, 0), 0.125, 1e-9);
  /* where the GPU starts to win, row by row */
  {
    GtkWidget *words = page_child ("crossover_label");

    g_assert_true (gtk_widget_get_visible (words));
    g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (words)),
                              "batch 32: GPU faster from W 512\nbatch 128: GPU faster from W 128"));
  }
  /* not imported as a run */
  g_assert_cmpstr (tb_explore_page_get_message (PAGE), ==, "");
  screenshot ("screenshot-explore-opened.png");
}

/* Each family's axes start from the engine's grid, the CLI's without
 * --axis: the Explore page once swept the cnn's batch up to 2048 where the
 * CLI stopped at 512, and listed a template's {batch} twice. What was
 * written over a default stays across a change of family. */
static void
test_default_axes (void)
{
  g_autofree char *mlp = NULL, *cnn = NULL, *spec = NULL;
  GtkWidget *template_row = page_child ("template_row");

  tb_explore_page_set_family (PAGE, "cnn");
  cnn = axis_names ();
  g_assert_cmpstr (cnn, ==, "F batch");
  g_assert_cmpstr (axis_values ("F"), ==, "8,16,32,64");
  g_assert_cmpstr (axis_values ("batch"), ==, "32,128,512");
  tb_explore_page_set_family (PAGE, "mlp");
  mlp = axis_names ();
  g_assert_cmpstr (mlp, ==, "W D batch");
  g_assert_cmpstr (axis_values ("W"), ==, "32,128,512,2048");
  g_assert_cmpstr (axis_values ("D"), ==, "");
  g_assert_cmpstr (axis_values ("batch"), ==, "32,128,512,2048");
  g_assert_true (tb_explore_page_set_axis (PAGE, "batch", "64"));
  tb_explore_page_set_family (PAGE, "cnn");
  g_assert_cmpstr (axis_values ("batch"), ==, "64");
  g_assert_true (tb_explore_page_set_axis (PAGE, "batch", "32,128,512"));

  gtk_editable_set_text (GTK_EDITABLE (template_row), "flatten; dense {U} relu; dense {batch} softmax");
  tb_explore_page_set_family (PAGE, "spec");
  spec = axis_names ();
  g_assert_cmpstr (spec, ==, "U batch");
  g_assert_cmpstr (axis_values ("U"), ==, "32,128,512,2048");
  g_assert_cmpstr (axis_values ("batch"), ==, "32,128,512,2048");
  gtk_editable_set_text (GTK_EDITABLE (template_row), "flatten; dense {W} relu; dense 10 softmax");
  tb_explore_page_set_family (PAGE, "mlp");
}

static void
set_small_sweep (const char *w,
                 const char *batch,
                 int         steps)
{
  TbExplorePage *page = PAGE;

  tb_explore_page_set_family (page, "mlp");
  g_assert_true (tb_explore_page_set_axis (page, "W", w));
  g_assert_true (tb_explore_page_set_axis (page, "D", ""));
  g_assert_true (tb_explore_page_set_axis (page, "batch", batch));
  /* the CPU only: this machine has no GPU to run on */
  tb_explore_page_set_device_active (page, "cuda:0", FALSE);
  g_assert_true (tb_explore_page_set_device_active (page, "cpu", TRUE));
  tb_explore_page_set_steps (page, steps);
}

static void
test_run (void)
{
  TbSweep *sweep;
  TbChartData *speed;
  g_autoptr(TbSweep) on_disk = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *folder = NULL;

  tb_window_show_page (window, "explore");
  set_small_sweep ("8,32", "8,32", 5);
  g_assert_true (tb_explore_page_start (PAGE));
  g_assert_true (tb_explore_page_get_running (PAGE));
  g_assert_true (tb_test_wait_until (not_running, NULL, 120));
  g_assert_cmpstr (tb_explore_page_get_message (PAGE), ==, "");

  sweep = tb_explore_page_get_sweep (PAGE);
  g_assert_nonnull (sweep);
  g_assert_cmpstr (sweep->status, ==, "completed");
  g_assert_cmpuint (sweep->points->len, ==, 4);
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const TbSweepPoint *p = &g_array_index (sweep->points, TbSweepPoint, i);

      g_assert_cmpstr (p->status, ==, "completed");
      g_assert_cmpfloat (p->samples_per_second, >, 0);
    }
  /* the charts filled in: a line per batch, two points each */
  speed = tb_chart_view_get_data (tb_explore_page_get_chart (PAGE, "sweep"));
  g_assert_cmpuint (speed->series->len, ==, 2);
  g_assert_cmpuint (tb_chart_data_count_points (speed), ==, 4);

  /* the sweep file the engine wrote reads back the same */
  g_assert_nonnull (sweep->path);
  on_disk = tb_sweep_load (sweep->path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (on_disk->status, ==, "completed");
  g_assert_cmpuint (tb_sweep_count_done (on_disk), ==, 4);
  folder = g_path_get_dirname (sweep->path);
  {
    g_autofree char *point = g_build_filename (folder, "point-0001.json", NULL);

    g_assert_true (g_file_test (point, G_FILE_TEST_IS_REGULAR));
  }
  g_assert_true (tb_test_wait_until (recent_listed, GUINT_TO_POINTER (1), 10));
  screenshot ("screenshot-explore.png");
}

static void
test_stop (void)
{
  TbSweep *sweep;
  g_autoptr(TbSweep) on_disk = NULL;
  g_autoptr(GError) error = NULL;
  guint done;

  set_small_sweep ("8,16,32,64", "8,16,32,64", 300);
  g_assert_true (tb_explore_page_start (PAGE));
  g_assert_true (tb_test_wait_until (points_done, GUINT_TO_POINTER (2), 120));
  /* the charts fill in while it runs, and the status says how far it is */
  g_assert_cmpuint (tb_chart_data_count_points (tb_chart_view_get_data (tb_explore_page_get_chart (PAGE, "sweep"))), >=, 2);
  {
    GtkLabel *status = GTK_LABEL (gtk_widget_get_template_child (GTK_WIDGET (PAGE), TB_TYPE_EXPLORE_PAGE, "status_label"));

    g_test_message ("while running: %s", gtk_label_get_text (status));
    g_assert_nonnull (strstr (gtk_label_get_text (status), "/16"));
  }
  tb_explore_page_stop (PAGE);
  g_assert_true (tb_test_wait_until (not_running, NULL, 60));

  sweep = tb_explore_page_get_sweep (PAGE);
  g_assert_cmpstr (sweep->status, ==, "cancelled");
  done = 0;
  for (guint i = 0; i < sweep->points->len; i++)
    done += g_strcmp0 (g_array_index (sweep->points, TbSweepPoint, i).status, "completed") == 0;
  g_assert_cmpuint (done, >=, 2);
  g_assert_cmpuint (done, <, 16);
  /* the points done are kept in the file */
  on_disk = tb_sweep_load (sweep->path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (on_disk->status, ==, "cancelled");
  {
    guint kept = 0;

    for (guint i = 0; i < on_disk->points->len; i++)
      kept += g_strcmp0 (g_array_index (on_disk->points, TbSweepPoint, i).status, "completed") == 0;
    g_assert_cmpuint (kept, ==, done);
  }
  g_assert_true (tb_test_wait_until (recent_listed, GUINT_TO_POINTER (2), 10));
}

/* The row that says what the sweeps folder had that was not listed. */
static GtkWidget *
skipped_row (void)
{
  GtkWidget *list = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (PAGE), TB_TYPE_EXPLORE_PAGE, "recent_list"));

  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
    if (g_strcmp0 (gtk_widget_get_name (row), "skipped") == 0)
      return row;
  return NULL;
}

static gboolean
skipped_listed (gpointer data)
{
  return skipped_row () != NULL;
}

/* Recent sweeps follow no link in the sweeps folder ("up -> .." listed
 * every sweep twice) and say what they passed over; a sweep listed is
 * read whole when it is opened. */
static void
test_recent_links (void)
{
  const char *folder = tb_run_history_get_folder (tb_window_get_history (window));
  g_autofree char *up = g_build_filename (folder, "sweeps", "up", NULL);
  guint n = tb_explore_page_get_n_recent (PAGE);
  GtkWidget *list = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (PAGE), TB_TYPE_EXPLORE_PAGE, "recent_list"));
  TbSweep *shown;

  g_assert_cmpuint (n, >=, 2);
#ifdef G_OS_UNIX
  g_assert_cmpint (symlink ("..", up), ==, 0);
  tb_explore_page_reload (PAGE);
  g_assert_true (tb_test_wait_until (skipped_listed, NULL, 10));
  g_assert_cmpuint (tb_explore_page_get_n_recent (PAGE), ==, n);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (skipped_row ())), ==,
                   "1 entry of the sweeps folder skipped");
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (skipped_row ())), "link"));
  g_unlink (up);
#endif
  /* the first listed, opened: its points read now */
  g_signal_emit_by_name (list, "row-activated", gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), 1));
  g_signal_emit_by_name (list, "row-activated", gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), 0));
  tb_test_spin (500);
  shown = tb_explore_page_get_sweep (PAGE);
  g_assert_nonnull (shown);
  g_assert_cmpuint (shown->points->len, >, 0);
}

static gboolean
marked (const char *name)
{
  GtkWidget *row = axis_row (name) != NULL ? axis_row (name) : page_child (name);

  return row != NULL && gtk_widget_has_css_class (row, "tb-invalid");
}

static void
test_bad_axis (void)
{
  set_small_sweep ("8,x", "8", 5);
  g_assert_false (tb_explore_page_start (PAGE));
  g_assert_false (tb_explore_page_get_running (PAGE));
  g_test_message ("%s", tb_explore_page_get_message (PAGE));
  g_assert_nonnull (strstr (tb_explore_page_get_message (PAGE), "x"));
  g_assert_true (marked ("W"));
  g_assert_false (marked ("batch"));

  /* what the engine refuses marks the row of the request's field it names
   * (NnError.field), until the next start */
  set_small_sweep ("8", "8", 5);
  g_assert_true (tb_explore_page_set_axis (PAGE, "D", "65"));
  g_assert_true (tb_explore_page_start (PAGE));
  g_assert_true (tb_test_wait_until (not_running, NULL, 60));
  g_test_message ("%s", tb_explore_page_get_message (PAGE));
  g_assert_nonnull (strstr (tb_explore_page_get_message (PAGE), "65"));
  /* the axes swept: the message says which */
  g_assert_true (marked ("D") && marked ("W") && marked ("batch"));
  g_assert_false (marked ("template_row"));
  gtk_editable_set_text (GTK_EDITABLE (page_child ("template_row")), "flatten; dense {W} rleu; dense 10 softmax");
  tb_explore_page_set_family (PAGE, "spec");
  tb_explore_page_set_axis (PAGE, "W", "8");
  tb_explore_page_set_axis (PAGE, "batch", "8");
  g_assert_true (tb_explore_page_start (PAGE));
  g_assert_true (tb_test_wait_until (not_running, NULL, 60));
  g_assert_nonnull (strstr (tb_explore_page_get_message (PAGE), "rleu"));
  g_assert_true (marked ("template_row"));
  g_assert_false (marked ("D"));
  gtk_editable_set_text (GTK_EDITABLE (page_child ("template_row")), "flatten; dense {W} relu; dense 10 softmax");
  tb_explore_page_set_family (PAGE, "mlp");
  set_small_sweep ("8", "8", 5);
  tb_explore_page_set_axis (PAGE, "W", "8");
  tb_explore_page_set_device_active (PAGE, "cpu", FALSE);
  g_assert_false (tb_explore_page_start (PAGE));
  g_assert_cmpstr (tb_explore_page_get_message (PAGE), !=, "");
}

/* A point of a sweep other than `data` is done. */
static gboolean
new_point_done (gpointer data)
{
  TbSweep *sweep = tb_explore_page_get_sweep (PAGE);

  return sweep != NULL && sweep != data && tb_sweep_count_done (sweep) >= 1;
}

/* Closing the window while a sweep runs stops it, waits until its file
 * says so, and goes: no point done is lost. */
static void
test_close_while_sweeping (void)
{
  g_autofree char *runs = g_build_filename (g_getenv ("XDG_DATA_HOME"), "trainbench", "runs", NULL);
  g_autoptr(GPtrArray) sweeps = NULL;
  gpointer weak = window;
  guint cancelled = 0;
  TbSweep *before;

  set_small_sweep ("8,16,32,64", "8,16,32,64", 300);
  before = tb_explore_page_get_sweep (PAGE);
  g_assert_true (tb_explore_page_start (PAGE));
  g_assert_true (tb_test_wait_until (new_point_done, before, 120));
  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (tb_test_wait_until (window_gone, &weak, 60));
  window = NULL;

  {
    g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);

    sweeps = tb_sweep_list_folder (runs, skipped, NULL);
    for (guint i = 0; i < skipped->len; i++)
      g_test_message ("skipped: %s", ((GError *) g_ptr_array_index (skipped, i))->message);
  }
  /* the one stopped by Stop, and this one */
  for (guint i = 0; i < sweeps->len; i++)
    {
      g_autoptr(TbSweep) sweep = tb_sweep_load (((TbSweepSummary *) g_ptr_array_index (sweeps, i))->path, NULL);

      g_assert_nonnull (sweep);
      g_test_message ("%s: %s, %u done", sweep->path, sweep->status, tb_sweep_count_done (sweep));
      cancelled += g_strcmp0 (sweep->status, "cancelled") == 0 && tb_sweep_count_done (sweep) >= 1;
    }
  g_assert_cmpuint (cancelled, ==, 2);
}

int
main (int    argc,
      char **argv)
{
  const char *root;
  int status;

  if ((status = tb_test_gui_init (&argc, &argv, &root)) >= 0)
    return status;

  data_dir = g_build_filename (root, "tiny-idx", NULL);
  g_assert_true (tb_test_write_idx (data_dir, 600, 200, 10));
  app = tb_test_app_new (G_APPLICATION_HANDLES_OPEN);

  g_test_add_func ("/explore/open", test_open);
  g_test_add_func ("/explore/open-sweep-file", test_open_sweep_file);
  g_test_add_func ("/explore/default-axes", test_default_axes);
  g_test_add_func ("/explore/run", test_run);
  g_test_add_func ("/explore/stop", test_stop);
  g_test_add_func ("/explore/recent-links", test_recent_links);
  g_test_add_func ("/explore/bad-axis", test_bad_axis);
  g_test_add_func ("/explore/close-while-sweeping", test_close_while_sweeping);
  status = g_test_run ();

  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  g_free (data_dir);
  return status;
}
