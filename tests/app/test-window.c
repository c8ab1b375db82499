/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-window.c: the real window driven as a user would: pick a preset, a
 * small data set and the CPU, start, wait for the run, check the live chart
 * got points and the result file was written, export a chart to PNG, compare
 * two runs (one imported from "another machine"), and write screenshots of
 * the main window into the build folder for people to look at.
 */
#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "tb-application.h"
#include "tb-chart.h"
#include "tb-session.h"
#include "tb-window-private.h"
#include "test-gui-util.h"

static TbApplication *app;
static TbWindow *window;
static char *data_dir;
static char *first_result;

/* The Runs page and its widgets, by their names in its template. */
#define RUNS_PAGE (tb_window_get_runs_page (window))

static G_GNUC_UNUSED GtkWidget *
page_child (const char *name)
{
  return GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (RUNS_PAGE), TB_TYPE_RUNS_PAGE, name));
}

/* A widget of the window's own template, by its id. */
static GtkWidget *
window_child (const char *name)
{
  return GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (window), TB_TYPE_WINDOW, name));
}

/* A widget of the Train page, by its id in the page's template. */
static GtkWidget *
train_child (const char *name)
{
  return GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (tb_window_get_train_page (window)),
                                                    TB_TYPE_TRAIN_PAGE, name));
}

static const char *
label_text (const char *name)
{
  return gtk_label_get_text (GTK_LABEL (train_child (name)));
}

static const char *
visible_page (void)
{
  return adw_view_stack_get_visible_child_name (ADW_VIEW_STACK (window_child ("stack")));
}

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

  /* let a new toast finish its show animation first: libadwaita 1.2
   * crashes when a toast is dismissed in the middle of it */
  tb_test_spin (500);
  _tb_window_dismiss_toast (window);
  tb_test_spin (600);
  if (!tb_test_screenshot (GTK_WIDGET (window), shot_path (name), &error))
    g_test_message ("screenshot %s: %s", name, error->message);
  else
    g_test_message ("screenshot written: %s", shot_path (name));
}

static gboolean
window_mapped (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (window)) && gtk_widget_get_width (GTK_WIDGET (window)) > 0;
}

static gboolean
not_training (gpointer data)
{
  return !tb_window_is_training (window);
}

/* the history is read in a worker: its rows come a few iterations later */
static gboolean
runs_loaded (gpointer data)
{
  /* files opened are sorted (sweeps, runs) in a worker first */
  return tb_window_get_n_opening (window) == 0 && tb_runs_page_get_n_pending (RUNS_PAGE) == 0;
}

/* the device list comes from a worker too */
static gboolean
devices_listed (gpointer data)
{
  return !tb_train_page_get_devices_pending (tb_window_get_train_page (window));
}

static void
test_open (void)
{
  window = tb_window_new (ADW_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 720);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (tb_test_wait_until (window_mapped, NULL, 10));
  g_assert_true (tb_test_wait_until (devices_listed, NULL, 60));
  tb_test_spin (200);
}

static void
test_train (void)
{
  TbModelBuilder *builder = tb_window_get_builder (window);
  TbChartData *loss;
  gpointer session;
  g_autofree char *runs_dir = g_build_filename (g_getenv ("XDG_DATA_HOME"), "trainbench", "runs", NULL);

  /* pick a preset, a small data set and the CPU, as a user would */
  tb_window_show_page (window, "model");
  gtk_widget_activate_action (GTK_WIDGET (builder), "builder.preset", "s", "mlp-small");
  g_assert_cmpstr (tb_model_builder_get_preset_name (builder), ==, "mlp-small");
  g_assert_true (tb_model_builder_is_valid (builder));
  screenshot ("screenshot-model.png");

  tb_window_show_page (window, "data");
  tb_window_set_dataset (window, data_dir, 0, 0);
  tb_test_spin (500);
  screenshot ("screenshot-data.png");

  g_assert_true (tb_window_select_device (window, 0 /* NN_DEVICE_CPU */, 0));
  tb_window_set_epochs (window, 3);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (tb_window_is_training (window));
  session = tb_window_get_session (window);
  g_assert_nonnull (session);

  /* the run goes on in its worker while the main loop turns */
  g_assert_true (tb_test_wait_until (not_training, NULL, 300));

  loss = tb_chart_view_get_data (tb_window_get_chart (window, "loss"));
  g_assert_cmpuint (tb_chart_data_count_points (loss), >, 0);
  g_assert_cmpuint (tb_chart_data_count_points (tb_chart_view_get_data (tb_window_get_chart (window, "accuracy"))), ==, 6);
  g_assert_cmpuint (tb_chart_data_count_points (tb_chart_view_get_data (tb_window_get_chart (window, "epoch-time"))), ==, 3);

  g_assert_nonnull (tb_session_get_result_path (session));
  g_assert_true (g_str_has_prefix (tb_session_get_result_path (session), runs_dir));
  g_assert_true (g_file_test (tb_session_get_result_path (session), G_FILE_TEST_IS_REGULAR));
  first_result = g_strdup (tb_session_get_result_path (session));

  /* the run is over: no time left is shown, but how long it took */
  g_test_message ("after the run: %s", label_text ("eta_label"));
  g_assert_true (g_str_has_prefix (label_text ("eta_label"), "Ran for "));

  tb_window_show_page (window, "train");
  screenshot ("screenshot-main-window.png");
}

/* The Train page's Article Conditions: the preset row sets the four rows,
 * a row changed by hand makes them custom, GSettings keeps them, and the
 * run's result file records what the rows said. */
static void
test_conditions (void)
{
  TbTrainPage *page = tb_window_get_train_page (window);
  g_autoptr(GSettings) settings = tb_settings_new ();
  g_autoptr(TbRun) result = NULL;
  g_autoptr(GError) error = NULL;
  NnConditions c, d = nn_conditions_default ();
  gpointer session;

  tb_window_show_page (window, "train");
  adw_combo_row_set_selected (ADW_COMBO_ROW (train_child ("conditions_row")), 1);
  tb_train_page_get_conditions (page, &c);
  g_assert_cmpint (c.data, ==, NN_DATA_PAGEABLE);
  g_assert_false (c.graph);
  g_assert_true (c.loss_every_step);
  g_assert_false (c.fused);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (train_child ("fused_switch"))));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (train_child ("data_row"))), ==, 2);
  {
    g_autofree char *data = g_settings_get_string (settings, "conditions-data");
    g_assert_cmpstr (data, ==, "pageable");
  }
  g_assert_true (g_settings_get_boolean (settings, "conditions-loss-every-step"));
  g_assert_false (g_settings_get_boolean (settings, "conditions-fused"));

  /* one row by hand: the preset row says Custom */
  adw_combo_row_set_selected (ADW_COMBO_ROW (train_child ("data_row")), 1);
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (train_child ("conditions_row"))), ==, 2);
  {
    g_autofree char *data = g_settings_get_string (settings, "conditions-data");
    g_assert_cmpstr (data, ==, "pinned");
  }
  screenshot ("screenshot-conditions.png");

  tb_window_set_epochs (window, 1);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (tb_window_is_training (window));
  session = tb_window_get_session (window);
  g_assert_true (tb_test_wait_until (not_training, NULL, 300));
  g_assert_nonnull (tb_session_get_result_path (session));
  result = tb_run_load (tb_session_get_result_path (session), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (result->status, ==, "completed");
  g_assert_cmpstr (result->conditions, ==, "custom");
  g_assert_cmpstr (result->data_on, ==, "pinned");
  g_assert_false (result->graph);
  g_assert_true (result->loss_every_step);
  g_assert_false (result->fused);
  g_assert_true (tb_run_has_conditions (result));
  g_assert_cmpstr (tb_run_conditions_label (result), ==, "custom conditions");

  /* back to the defaults for the tests after this one */
  adw_combo_row_set_selected (ADW_COMBO_ROW (train_child ("conditions_row")), 0);
  tb_train_page_get_conditions (page, &c);
  g_assert_true (nn_conditions_equal (&c, &d));
  g_assert_true (g_settings_get_boolean (settings, "conditions-fused"));
  tb_window_set_epochs (window, 3);
}

static gboolean
inspect_ready (gpointer data)
{
  GtkWidget *stack = data;

  return g_strcmp0 (gtk_stack_get_visible_child_name (GTK_STACK (stack)), "result") == 0;
}

static GtkWidget *
find_stack (GtkWidget *widget)
{
  if (GTK_IS_STACK (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_stack (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Inspect: a new window over the main one. */
static GtkWidget *
open_inspect (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint before = g_list_model_get_n_items (toplevels);
  GtkWidget *inspect = NULL;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.inspect", NULL);
  g_assert_cmpuint (g_list_model_get_n_items (toplevels), ==, before + 1);
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);

      if (w != GTK_WIDGET (window) && gtk_window_get_transient_for (GTK_WINDOW (w)) == GTK_WINDOW (window))
        inspect = w;
    }
  g_assert_nonnull (inspect);
  return inspect;
}

static gboolean
is_null (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static void
test_inspect (void)
{
  GtkWidget *inspect = open_inspect ();
  GtkWidget *stack;
  g_autoptr(GError) error = NULL;

  stack = find_stack (inspect);
  g_assert_nonnull (stack);
  g_assert_true (tb_test_wait_until (inspect_ready, stack, 60));
  tb_test_spin (300);
  if (!tb_test_screenshot (inspect, shot_path ("screenshot-inspect.png"), &error))
    g_test_message ("screenshot: %s", error->message);
  gtk_window_destroy (GTK_WINDOW (inspect));

  /* closed before the predictions are in: the window waits for them, then
   * goes (a critical, or a crash under MALLOC_PERTURB_ of an answer that
   * found its widgets gone, would end the test) */
  inspect = open_inspect ();
  g_object_add_weak_pointer (G_OBJECT (inspect), (gpointer *) &inspect);
  gtk_window_destroy (GTK_WINDOW (inspect));
  g_assert_true (tb_test_wait_until (is_null, &inspect, 60));
}

static void
check_png (const char *path,
           int         width,
           int         height)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = gdk_texture_new_from_file (file, &error);

  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, width);
  g_assert_cmpint (gdk_texture_get_height (texture), ==, height);
}

static void
test_export_png (void)
{
  TbChartView *view = tb_window_get_chart (window, "loss");
  g_autofree char *stem = g_build_filename (g_getenv ("XDG_DATA_HOME"), "loss", NULL);
  g_autofree char *svg = g_build_filename (g_getenv ("XDG_DATA_HOME"), "accuracy.svg", NULL);
  g_autofree char *saved = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;

  /* the export dialog's answers: a name without extension, PNG, the chart's
   * own size ... */
  g_assert_true (tb_chart_view_save (view, stem, "png", "widget", &saved, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (saved, "loss.png"));
  check_png (saved, gtk_widget_get_width (GTK_WIDGET (view)), gtk_widget_get_height (GTK_WIDGET (view)));
  g_clear_pointer (&saved, g_free);

  /* ... or a chosen size */
  g_assert_true (tb_chart_view_save (view, stem, "png", "1920x1080", &saved, &error));
  check_png (saved, 1920, 1080);

  /* SVG by its extension */
  g_assert_true (tb_chart_view_save (tb_window_get_chart (window, "accuracy"), svg, "png", "1280x720", NULL, &error));
  g_assert_true (g_file_get_contents (svg, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "<svg"));

  /* a bad size is an error, not a crash */
  g_assert_false (tb_chart_view_save (view, stem, "png", "huge", NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

static void
test_compare (void)
{
  g_autofree char *other = g_test_build_filename (G_TEST_DIST, "data", "run-gpu.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (other);
  g_autofree char *imported = g_build_filename (g_getenv ("XDG_DATA_HOME"), "trainbench", "runs",
                                                "20261130T040000Z-mlp-small-cuda-0001.json", NULL);
  const char *paths[3] = { first_result, imported, NULL };
  TbChartData *bars;

  /* a result from another machine, opened as `trainbench run-gpu.json`
   * would: the running app imports it into the window */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.page", "s", "runs");
  {
    GFile *files[1] = { file };

    g_application_open (G_APPLICATION (app), files, 1, "");
  }
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));
  g_assert_cmpstr (visible_page (), ==, "runs");
  g_assert_true (g_file_test (imported, G_FILE_TEST_IS_REGULAR));

  tb_window_compare (window, paths);
  bars = tb_chart_view_get_data (tb_window_get_chart (window, "compare"));
  g_assert_cmpuint (bars->series->len, ==, 2);       /* CPU and GPU */
  g_assert_cmpuint (tb_chart_data_count_points (bars), ==, 2);
  /* the GPU's bar carries its speed-up against the CPU */
  g_assert_nonnull (g_ptr_array_index (((TbChartSeries *) g_ptr_array_index (bars->series, 1))->notes, 0));
  /* the curves once the two files are read again whole */
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));
  g_assert_cmpuint (tb_chart_data_count_points (tb_chart_view_get_data (tb_window_get_chart (window, "compare-accuracy"))), >, 0);
  screenshot ("screenshot-runs.png");
}

static GtkWindow *
newest_toplevel_except (GtkWindow *except)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  GtkWindow *found = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (w != except && w != GTK_WINDOW (window) && gtk_widget_get_visible (GTK_WIDGET (w)))
        found = w;
    }
  return found;
}

static void
test_bad_import (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("XDG_DATA_HOME"), "broken.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GFile *files[1] = { file };
  GtkWindow *dialog;

  /* a malformed file dropped on the window: a dialog says why, the app goes on */
  g_assert_true (g_file_set_contents (path, "{\"schema\": 1, \"run_id\": ", -1, NULL));
  tb_window_import (window, files, 1);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));
  tb_test_spin (200);
  dialog = newest_toplevel_except (NULL);
  g_assert_nonnull (dialog);
  g_assert_true (ADW_IS_MESSAGE_DIALOG (dialog));
  g_test_message ("%s: %s", adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)),
                  adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)), "broken.json"));
  gtk_window_destroy (dialog);
}

static void
test_import_stays_in_folder (void)
{
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "data", "run-cpu.json", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *evil = NULL;
  g_autofree char *path = g_build_filename (g_getenv ("XDG_DATA_HOME"), "evil.json", NULL);
  g_autofree char *escaped = g_build_filename (g_getenv ("XDG_DATA_HOME"), "trainbench", "pwned.json", NULL);
  g_autofree char *kept = g_build_filename (g_getenv ("XDG_DATA_HOME"), "trainbench", "runs", "_._pwned.json", NULL);
  g_auto(GStrv) parts = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GFile *files[1] = { file };

  /* a result whose run id is a path must not write outside the runs folder */
  g_assert_true (g_file_get_contents (src, &contents, NULL, NULL));
  parts = g_strsplit (contents, "\"20261130T030000Z-mlp-small-cpu-0002\"", -1);
  g_assert_cmpuint (g_strv_length (parts), ==, 2);
  evil = g_strjoinv ("\"../pwned\"", parts);
  g_assert_true (g_file_set_contents (path, evil, -1, NULL));
  tb_window_import (window, files, 1);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));
  g_assert_false (g_file_test (escaped, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (kept, G_FILE_TEST_IS_REGULAR));
}

static gboolean
server_up (gpointer data)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) conn = g_socket_client_connect_to_host (client, "127.0.0.1", GPOINTER_TO_UINT (data), NULL, NULL);

  return conn != NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  return ADW_IS_MESSAGE_DIALOG (newest_toplevel_except (NULL));
}

static void
test_download_ui (void)
{
  g_autofree char *www = g_build_filename (g_getenv ("XDG_DATA_HOME"), "www", NULL);
  g_autofree char *fake = g_build_filename (www, "mnist.npz", NULL);
  g_autofree char *url = NULL;
  g_autofree char *port_text = NULL;
  g_autofree char *saved = NULL;
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GError) error = NULL;
  char dir[4096];
  guint16 port;
  GtkWindow *dialog;
  GtkWidget *button = GTK_WIDGET (gtk_widget_get_template_child (window_child ("data_page"), TB_TYPE_DATA_PAGE,
                                                                  "download_button"));

  /* a local server (Python's) stands in for the Keras mirror; its file is
   * not MNIST, so the checksum check must refuse it */
  g_assert_cmpint (g_mkdir_with_parents (www, 0755), ==, 0);
  g_assert_true (g_file_set_contents (fake, "not the real mnist.npz", -1, NULL));
  port = g_socket_listener_add_any_inet_port (listener, NULL, &error);
  g_assert_no_error (error);
  g_socket_listener_close (listener);
  port_text = g_strdup_printf ("%u", port);
  server = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                             "python3", "-m", "http.server", port_text, "--bind", "127.0.0.1",
                             "--directory", www, NULL);
  g_assert_no_error (error);
  g_assert_true (tb_test_wait_until (server_up, GUINT_TO_POINTER (port), 20));
  url = g_strdup_printf ("http://127.0.0.1:%u/mnist.npz", port);
  g_setenv ("TRAINBENCH_MNIST_URL", url, TRUE);

  tb_window_show_page (window, "data");
  g_signal_emit_by_name (button, "clicked");   /* as a click does */
  g_assert_false (gtk_widget_get_visible (button));   /* Cancel shows instead */
  g_assert_true (tb_test_wait_until (dialog_shown, NULL, 30));
  dialog = newest_toplevel_except (NULL);
  g_test_message ("%s: %s", adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)),
                  adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)), "SHA-256"));
  gtk_window_destroy (dialog);
  g_assert_true (gtk_widget_get_visible (button));

  /* nothing was kept */
  nn_dataset_user_dir (dir, sizeof dir);
  saved = g_build_filename (dir, "mnist.npz", NULL);
  g_assert_false (g_file_test (saved, G_FILE_TEST_EXISTS));

  g_subprocess_force_exit (server);
  g_subprocess_wait (server, NULL, NULL);
  g_unsetenv ("TRAINBENCH_MNIST_URL");
}

static void
test_dialogs (void)
{
  GtkWindow *w;
  g_autoptr(GError) error = NULL;

  g_action_group_activate_action (G_ACTION_GROUP (app), "preferences", NULL);
  tb_test_spin (300);
  w = newest_toplevel_except (NULL);
  g_assert_true (ADW_IS_PREFERENCES_WINDOW (w));
  if (!tb_test_screenshot (GTK_WIDGET (w), shot_path ("screenshot-preferences.png"), &error))
    g_test_message ("screenshot: %s", error->message);
  gtk_window_destroy (w);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL);
  tb_test_spin (300);
  w = newest_toplevel_except (NULL);
  g_assert_true (GTK_IS_SHORTCUTS_WINDOW (w));
  gtk_window_destroy (w);

  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  tb_test_spin (300);
  w = newest_toplevel_except (NULL);
  g_assert_true (ADW_IS_ABOUT_WINDOW (w));
  gtk_window_destroy (w);
}

static gboolean
reproduce_done (gpointer data)
{
  return !tb_window_is_training (window)
         && g_strcmp0 (visible_page (), "runs") == 0
         && tb_runs_page_get_n_pending (RUNS_PAGE) == 0;
}

static void
test_reproduce (void)
{
  GtkWindow *dialog;
  TbChartData *bars;
  int presets = 0;

  nn_presets (&presets);
  tb_window_show_page (window, "train");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reproduce", NULL);
  tb_test_spin (200);
  dialog = newest_toplevel_except (NULL);
  g_assert_true (ADW_IS_MESSAGE_DIALOG (dialog));
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "run");
  g_assert_true (tb_window_is_training (window));

  /* every article model on every usable device (here the CPU), one after the
   * other, then the comparison of all of them */
  g_assert_true (tb_test_wait_until (reproduce_done, NULL, 500));
  bars = tb_chart_view_get_data (tb_window_get_chart (window, "compare"));
  g_assert_cmpuint (bars->categories->len, ==, (guint) presets);
  g_assert_cmpuint (tb_chart_data_count_points (bars), ==, (guint) presets);
  screenshot ("screenshot-reproduce.png");
}

static void
start_run_cb (TbRunQueue      *queue,
              TbSessionConfig *config,
              TbSessionConfig *seen)
{
  tb_session_config_clear (seen);
  tb_session_config_copy (seen, config);
}

static gboolean
report_ready (gpointer data)
{
  return tb_articles_page_get_report (window->articles_page) != NULL;
}

/* Measure on the Articles page queues the run the engine says measures the
 * claim: its preset on the CPU, on the whole data set under the default
 * conditions, whatever the Train page is set to (a run under the
 * articles' conditions measures no claim, and Measure once made one). */
static void
test_measure (void)
{
  TbSessionConfig seen = { 0 };
  NnConditions d = nn_conditions_default ();
  const NnReport *report;
  gulong id;

  tb_window_show_page (window, "train");
  adw_combo_row_set_selected (ADW_COMBO_ROW (train_child ("conditions_row")), 1);
  g_assert_true (tb_test_wait_until (report_ready, NULL, 60));
  report = tb_articles_page_get_report (window->articles_page);
  g_assert_cmpint (report->claims[0].claim->kind, ==, NN_CLAIM_GPU_VS_CPU);
  id = g_signal_connect (window->run_queue, "start-run", G_CALLBACK (start_run_cb), &seen);
  g_signal_emit_by_name (window->articles_page, "measure", 0u, (guint) NN_REPORT_FIRST_SIDE);
  g_signal_handler_disconnect (window->run_queue, id);
  g_assert_true (tb_window_is_training (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL);
  g_assert_true (tb_test_wait_until (not_training, NULL, 120));

  g_assert_cmpstr (seen.model_name, ==, report->claims[0].claim->preset);
  g_assert_cmpint (seen.device.kind, ==, NN_DEVICE_CPU);
  g_assert_cmpint (seen.train_limit, ==, 0);
  g_assert_true (nn_conditions_equal (&seen.conditions, &d));
  tb_session_config_clear (&seen);
  adw_combo_row_set_selected (ADW_COMBO_ROW (train_child ("conditions_row")), 0);
}

static void
test_dark (void)
{
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  tb_window_show_page (window, "runs");
  screenshot ("screenshot-dark.png");
  g_assert_true (tb_chart_view_get_data (tb_window_get_chart (window, "compare"))->dark);
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
}

static void
test_small_window (void)
{
  /* the smallest supported size still shows the pages usably */
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  gtk_window_unmaximize (GTK_WINDOW (window));
  tb_test_spin (500);
  tb_window_show_page (window, "train");
  screenshot ("screenshot-800x600.png");
  gtk_widget_activate_action (GTK_WIDGET (tb_window_get_builder (window)), "builder.preset", "s", "cnn");
  tb_window_show_page (window, "model");
  screenshot ("screenshot-800x600-model.png");
  tb_window_show_page (window, "data");
  screenshot ("screenshot-800x600-data.png");
  tb_window_show_page (window, "runs");
  screenshot ("screenshot-800x600-runs.png");
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 820);
}

static void
test_stop (void)
{
  gpointer session;
  gint64 t0;

  /* The run must still be going when Stop is pressed, about 1.25 s in (the
   * spin below and the screenshot's waits), on any machine: the cnn preset
   * and the most epochs the spin button allows take minutes even on many
   * cores, where an MLP on the tiny data set can finish first. */
  gtk_widget_activate_action (GTK_WIDGET (tb_window_get_builder (window)), "builder.preset", "s",
                              "cnn");
  tb_window_set_epochs (window, 1000);
  tb_window_show_page (window, "train");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (tb_window_is_training (window));
  session = tb_window_get_session (window);
  tb_test_spin (150);
  /* the live charts while the run goes on */
  screenshot ("screenshot-training.png");
  g_assert_true (tb_window_is_training (window));
  g_test_message ("while training: %s", label_text ("eta_label"));
  t0 = g_get_monotonic_time ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL);
  g_assert_true (tb_test_wait_until (not_training, NULL, 30));
  g_test_message ("stopped after %.3f s", (g_get_monotonic_time () - t0) / 1e6);
  /* the time left it had when stopped is gone: the page shows the final
   * state, how long it ran (nothing when it stopped before a step) */
  tb_test_spin (200);
  g_test_message ("after Stop: %s; %s", label_text ("status_label"), label_text ("eta_label"));
  g_assert_null (strstr (label_text ("eta_label"), "ETA"));
  if (tb_session_get_latest (session)->step > 0)
    g_assert_true (g_str_has_prefix (label_text ("eta_label"), "Ran for "));
  else
    g_assert_cmpstr (label_text ("eta_label"), ==, "");
  g_assert_true (g_str_has_prefix (label_text ("status_label"), "Stopped"));
  screenshot ("screenshot-stopped.png");
  /* a stopped run is kept */
  g_assert_nonnull (tb_session_get_result_path (session));
  g_assert_true (g_file_test (tb_session_get_result_path (session), G_FILE_TEST_IS_REGULAR));
}

static gboolean
window_gone (gpointer data)
{
  return window == NULL;
}

static guint
count_runs (void)
{
  g_autofree char *dir = g_build_filename (g_getenv ("XDG_DATA_HOME"), "trainbench", "runs", NULL);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (d != NULL && g_dir_read_name (d) != NULL)
    n++;
  return n;
}

static void
test_close_while_training (void)
{
  guint before = count_runs ();

  /* last: closing the window during a run stops it, saves it, then goes */
  tb_window_set_epochs (window, 200);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (tb_window_is_training (window));
  tb_test_spin (300);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (tb_test_wait_until (window_gone, NULL, 60));
  g_assert_cmpuint (count_runs (), ==, before + 1);
}

/* Ctrl+. stops a run even from a text field, which would take the key for
 * its emoji chooser: the window handles it before its widgets do (capture
 * phase), through win.stop. */
static void
test_stop_key_first (void)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  gboolean found = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (c)
          || gtk_event_controller_get_propagation_phase (c) != GTK_PHASE_CAPTURE)
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (c)); j++)
        {
          g_autoptr(GtkShortcut) sc = g_list_model_get_item (G_LIST_MODEL (c), j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (sc);
          GtkShortcutAction *action = gtk_shortcut_get_action (sc);
          g_autofree char *keys = gtk_shortcut_trigger_to_string (trigger);

          if (g_strcmp0 (keys, "<Control>period") == 0 && GTK_IS_NAMED_ACTION (action)
              && g_strcmp0 (gtk_named_action_get_action_name (GTK_NAMED_ACTION (action)), "win.stop") == 0)
            found = TRUE;
        }
    }
  g_assert_true (found);
}

/* The mnemonics of every page's labels: Alt+1 to Alt+6 switch pages
 * (tb-window-actions.c), so no label may take one of those keys (the
 * Train page's "Beta _1" did, and Alt+1 then went to its field). */
static void
collect_mnemonics (GtkWidget *widget, GString *keys)
{
  if (GTK_IS_LABEL (widget) && gtk_label_get_use_underline (GTK_LABEL (widget)))
    {
      guint key = gtk_label_get_mnemonic_keyval (GTK_LABEL (widget));

      if (key >= GDK_KEY_1 && key <= GDK_KEY_6)
        g_string_append_printf (keys, "“%s” ", gtk_label_get_label (GTK_LABEL (widget)));
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_mnemonics (child, keys);
}

static void
test_page_keys (void)
{
  g_autoptr(GString) keys = g_string_new ("");

  /* every page is in the window's tree, shown or not */
  collect_mnemonics (GTK_WIDGET (window), keys);
  g_test_message ("labels with Alt+1..6: %s", keys->str);
  g_assert_cmpstr (keys->str, ==, "");
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

  g_test_add_func ("/window/open", test_open);
  g_test_add_func ("/window/page-keys", test_page_keys);
  g_test_add_func ("/window/stop-key-first", test_stop_key_first);
  g_test_add_func ("/window/train", test_train);
  g_test_add_func ("/window/conditions", test_conditions);
  g_test_add_func ("/window/inspect", test_inspect);
  g_test_add_func ("/window/export-png", test_export_png);
  g_test_add_func ("/window/compare", test_compare);
  g_test_add_func ("/window/stop", test_stop);
  g_test_add_func ("/window/bad-import", test_bad_import);
  g_test_add_func ("/window/import-stays-in-folder", test_import_stays_in_folder);
  g_test_add_func ("/window/download-ui", test_download_ui);
  g_test_add_func ("/window/dialogs", test_dialogs);
  g_test_add_func ("/window/reproduce", test_reproduce);
  g_test_add_func ("/window/measure", test_measure);
  g_test_add_func ("/window/dark", test_dark);
  g_test_add_func ("/window/small", test_small_window);
  g_test_add_func ("/window/close-while-training", test_close_while_training);
  status = g_test_run ();

  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  g_free (first_result);
  g_free (data_dir);
  return status;
}
