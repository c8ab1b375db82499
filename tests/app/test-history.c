/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-history.c: the history of the runs folder (TbRunHistory) is read in
 * workers, not on the main thread: result files written into a fresh runs
 * folder are listed once the main loop has turned (malformed, nested
 * 100,000 levels, a FIFO, /dev/zero: each skipped, and the page says which
 * and why), newest first; a reload keeps the ticks; a saved run is listed,
 * ticked, and watching the folder lists what else changed in it, once; an
 * imported file is listed once however often it comes; closing the window
 * in the middle of a read is safe; a folder of thousands of runs is listed
 * while the main loop keeps turning, each run kept as a summary.
 */
#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>
#ifdef G_OS_UNIX
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#endif

#include "tb-application.h"
#include "tb-run-row.h"
#include "tb-window-private.h"
#include "test-gui-util.h"

#define N_GOOD 6

static TbApplication *app;
static TbWindow *window;
static char *runs_dir;

/* The Runs page and its widgets, by their names in its template. */
#define RUNS_PAGE (tb_window_get_runs_page (window))
#define HISTORY (tb_window_get_history (window))

static G_GNUC_UNUSED GtkWidget *
page_child (const char *name)
{
  return GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (RUNS_PAGE), TB_TYPE_RUNS_PAGE, name));
}

/* The fixture run-cpu.json under another run id and start time. */
static char *
write_run (const char *name,
           const char *run_id,
           const char *started_at)
{
  g_autofree char *fixture = g_test_build_filename (G_TEST_DIST, "data", "run-cpu.json", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *path = g_build_filename (runs_dir, name, NULL);
  g_autoptr(GString) text = NULL;
  g_autofree char *id_field = g_strdup_printf ("\"%s\"", run_id);
  g_autofree char *at_field = g_strdup_printf ("\"%s\"", started_at);

  g_assert_true (g_file_get_contents (fixture, &contents, NULL, NULL));
  text = g_string_new (contents);
  g_assert_cmpuint (g_string_replace (text, "\"20261130T030000Z-mlp-small-cpu-0002\"", id_field, 1), ==, 1);
  g_assert_cmpuint (g_string_replace (text, "\"2026-11-30T03:00:00Z\"", at_field, 1), ==, 1);
  g_assert_true (g_file_set_contents (path, text->str, -1, NULL));
  return g_steal_pointer (&path);
}

/* The runs listed. */
static guint
count_rows (void)
{
  return g_list_model_get_n_items (G_LIST_MODEL (HISTORY));
}

static TbRun *
run_at (guint position)
{
  return tb_run_history_get_run (HISTORY, position);
}

/* The run listed for the file at `path`, or NULL. */
static TbRun *
row_of (const char *path)
{
  TbRunItem *item = tb_run_history_lookup (HISTORY, path);

  return item != NULL ? tb_run_item_get_run (item) : NULL;
}

static gboolean
is_ticked (TbRun *run)
{
  return tb_runs_page_get_ticked (RUNS_PAGE, run->path);
}

/* The row the list shows for `path`, once it has made one. */
static TbRunRow *
shown_row (const char *path)
{
  GtkWidget *view = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (RUNS_PAGE), TB_TYPE_RUNS_PAGE, "runs_view"));

  for (GtkWidget *child = gtk_widget_get_first_child (view); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *row = gtk_widget_get_first_child (child);

      if (row != NULL && TB_IS_RUN_ROW (row) && tb_run_row_get_run (TB_RUN_ROW (row)) != NULL
          && g_strcmp0 (tb_run_row_get_run (TB_RUN_ROW (row))->path, path) == 0 && gtk_widget_get_mapped (row))
        return TB_RUN_ROW (row);
    }
  return NULL;
}

static gboolean
runs_loaded (gpointer data)
{
  /* files opened are sorted (sweeps, runs) in a worker first */
  return tb_window_get_n_opening (window) == 0 && tb_runs_page_get_n_pending (RUNS_PAGE) == 0;
}

static gboolean
window_mapped (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (window)) && gtk_widget_get_width (GTK_WIDGET (window)) > 0;
}

/* The list the page shows is the history's, newest first, equal start
 * times by path. */
static void
check_order (void)
{
  GListModel *shown = tb_runs_page_get_shown (RUNS_PAGE);

  g_assert_cmpuint (g_list_model_get_n_items (shown), ==, count_rows ());
  for (guint i = 0; i < count_rows (); i++)
    {
      g_autoptr(TbRunItem) item = g_list_model_get_item (shown, i);

      g_assert_true (tb_run_item_get_run (item) == run_at (i));
      if (i > 0)
        g_assert_cmpint (tb_run_compare (run_at (i - 1), run_at (i)), <, 0);
    }
}

static void
test_load (void)
{
  g_autofree char *broken = g_build_filename (runs_dir, "broken.json", NULL);
  g_autofree char *notes = g_build_filename (runs_dir, "notes.txt", NULL);
  g_autofree char *deep = g_build_filename (runs_dir, "deep.json", NULL);
  g_autofree char *tie_a = NULL;
  g_autofree char *tie_b = NULL;
  g_autofree char *details = NULL;
  GString *nested = g_string_new (NULL);
  guint bad = 2;
  const char *title;

  g_assert_cmpint (g_mkdir_with_parents (runs_dir, 0755), ==, 0);
  for (int i = 0; i < N_GOOD - 2; i++)
    {
      g_autofree char *name = g_strdup_printf ("run-%d.json", i);
      g_autofree char *id = g_strdup_printf ("run-%d", i);
      g_autofree char *at = g_strdup_printf ("2026-11-2%dT10:00:00Z", i);

      g_free (write_run (name, id, at));
    }
  /* two runs that started in the same second */
  tie_b = write_run ("tie-b.json", "tie-b", "2026-11-25T10:00:00Z");
  tie_a = write_run ("tie-a.json", "tie-a", "2026-11-25T10:00:00Z");
  g_assert_true (g_file_set_contents (broken, "{\"schema\": 1, \"run_id\": ", -1, NULL));
  g_assert_true (g_file_set_contents (notes, "not a result", -1, NULL));
  /* a file from elsewhere nested 100,000 levels deep overflowed json-glib's
   * stack: the app could not start while it was there */
  for (int i = 0; i < 100000; i++)
    g_string_append_c (nested, '[');
  g_assert_true (g_file_set_contents (deep, nested->str, -1, NULL));
  g_string_free (nested, TRUE);
#ifdef G_OS_UNIX
  {
    g_autofree char *fifo = g_build_filename (runs_dir, "fifo.json", NULL);
    g_autofree char *zero = g_build_filename (runs_dir, "zero.json", NULL);

    /* a FIFO nobody writes blocked the worker forever; /dev/zero was read
     * until memory ran out */
    g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
    g_assert_cmpint (symlink ("/dev/zero", zero), ==, 0);
    bad += 2;
  }
#endif

  window = tb_window_new (ADW_APPLICATION (app));
  /* built, but the files are not read on the main thread: the rows come
   * once the worker has answered through the main loop */
  g_assert_cmpuint (tb_runs_page_get_n_pending (RUNS_PAGE), >, 0);
  g_assert_cmpuint (count_rows (), ==, 0);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (page_child ("runs_empty"))), ==, "Reading the runs…");

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  tb_window_show_page (window, "runs");
  g_assert_true (tb_test_wait_until (window_mapped, NULL, 10));
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));

  g_assert_cmpuint (count_rows (), ==, N_GOOD);
  check_order ();
  /* newest first; the tie in path order */
  g_assert_cmpstr (run_at (0)->run_id, ==, "tie-a");
  g_assert_cmpstr (run_at (1)->run_id, ==, "tie-b");
  g_assert_cmpstr (run_at (2)->run_id, ==, "run-3");
  g_assert_cmpstr (run_at (N_GOOD - 1)->run_id, ==, "run-0");
  g_assert_true (row_of (tie_a) != NULL);
  /* each listed run a summary: its epochs are read again only for a chart */
  for (guint i = 0; i < count_rows (); i++)
    {
      g_assert_false (tb_run_is_whole (run_at (i)));
      g_assert_cmpuint (run_at (i)->n_epochs, ==, 3);
    }

  /* the bad files are skipped, and a toast says so */
  g_assert_nonnull (_tb_window_get_last_toast (window));
  title = adw_toast_get_title (_tb_window_get_last_toast (window));
  g_test_message ("toast: %s", title);
  {
    g_autofree char *expect = g_strdup_printf ("%u files in the runs folder", bad);

    g_assert_nonnull (strstr (title, expect));
  }
  /* the page says so until the next read, and which files and why */
  g_assert_cmpuint (tb_runs_page_get_n_skipped (RUNS_PAGE), ==, bad);
  g_assert_true (gtk_widget_get_visible (page_child ("runs_skipped_button")));
  details = tb_runs_page_get_skipped_text (RUNS_PAGE);
  g_test_message ("%s", details);
  g_assert_nonnull (strstr (details, "broken.json"));
  g_assert_nonnull (strstr (details, "deep.json"));
  g_assert_nonnull (strstr (details, "nested more than"));
#ifdef G_OS_UNIX
  g_assert_nonnull (strstr (details, "fifo.json"));
  g_assert_nonnull (strstr (details, "zero.json"));
  g_assert_nonnull (strstr (details, "not a regular file"));
#endif
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (page_child ("runs_empty"))), ==,
                   "No runs yet: train a model, or import result files");
}

/* Tick a run as a click on its row's check box does. */
static void
tick (const char *path)
{
  TbRunRow *row = shown_row (path);
  GtkWidget *check;

  g_assert_nonnull (row);
  check = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (row), TB_TYPE_RUN_ROW, "check"));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), !gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));
}

static void
test_reload_keeps_ticks (void)
{
  g_autofree char *path = g_strdup (run_at (2)->path);
  TbChartData *bars;

  tick (path);
  g_assert_true (is_ticked (row_of (path)));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reload-runs", NULL);
  g_assert_cmpuint (tb_runs_page_get_n_pending (RUNS_PAGE), >, 0);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));

  g_assert_cmpuint (count_rows (), ==, N_GOOD);
  check_order ();
  g_assert_true (is_ticked (row_of (path)));
  for (guint i = 0; i < count_rows (); i++)
    if (g_strcmp0 (run_at (i)->path, path) != 0)
      g_assert_false (is_ticked (run_at (i)));
  bars = tb_chart_view_get_data (tb_window_get_chart (window, "compare"));
  g_assert_cmpuint (tb_chart_data_count_points (bars), ==, 1);
  /* and its row says so */
  g_assert_true (tb_run_row_get_ticked (shown_row (path)));
}

static gboolean
saved_listed (gpointer path)
{
  return row_of (path) != NULL;
}

/* The folder as the rows should show it once its changes are read. */
static gboolean
folder_followed (gpointer paths)
{
  const char *const *p = paths;

  return runs_loaded (NULL) && row_of (p[0]) == NULL && row_of (p[1]) != NULL;
}

static void
test_add_one (void)
{
  g_autofree char *gone = g_strdup (run_at (N_GOOD - 1)->path);
  g_autofree char *unannounced = NULL;
  g_autofree char *saved = NULL;
  const char *changes[2];

  /* a run was saved; meanwhile the folder changed in ways nobody told the
   * window about: the saved run's row comes from its own read, ticked,
   * the rest from watching the folder */
  g_assert_cmpint (g_unlink (gone), ==, 0);
  unannounced = write_run ("unannounced.json", "unannounced", "2026-11-29T09:00:00Z");
  saved = write_run ("saved.json", "saved", "2026-11-30T12:00:00Z");

  tb_runs_page_add (RUNS_PAGE, saved, TRUE);
  g_assert_null (row_of (saved));
  g_assert_true (tb_test_wait_until (saved_listed, saved, 30));
  g_assert_true (is_ticked (row_of (saved)));
  changes[0] = gone;
  changes[1] = unannounced;
  g_assert_true (tb_test_wait_until (folder_followed, changes, 30));

  /* the watcher saw saved.json too: still one row, still ticked */
  g_assert_cmpuint (count_rows (), ==, N_GOOD + 1);
  check_order ();
  g_assert_true (row_of (saved) == run_at (0));
  g_assert_true (is_ticked (row_of (saved)));

  /* the same file again: still one row */
  tb_runs_page_add (RUNS_PAGE, saved, FALSE);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));
  g_assert_cmpuint (count_rows (), ==, N_GOOD + 1);

  /* F5 reads the folder as it is now, as watching had it */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reload-runs", NULL);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));
  g_assert_null (row_of (gone));
  g_assert_nonnull (row_of (unannounced));
  g_assert_cmpuint (count_rows (), ==, N_GOOD + 1);
  g_assert_true (is_ticked (row_of (saved)));
  check_order ();
}

static guint
rows_with_id (const char *run_id)
{
  guint n = 0;

  for (guint i = 0; i < count_rows (); i++)
    n += g_strcmp0 (run_at (i)->run_id, run_id) == 0;
  return n;
}

static void
test_import_once (void)
{
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "data", "run-gpu.json", NULL);
  g_autofree char *dest = g_build_filename (runs_dir, "20261130T040000Z-mlp-small-cuda-0001.json", NULL);
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (source);
  GFile *twice[2] = { file, file };
  guint before = count_rows ();

  /* the same file twice in one drop, then once more */
  tb_window_import (window, twice, 2);
  tb_window_import (window, twice, 1);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));

  g_assert_cmpuint (rows_with_id ("20261130T040000Z-mlp-small-cuda-0001"), ==, 1);
  g_assert_cmpuint (count_rows (), ==, before + 1);
  check_order ();
  g_assert_true (is_ticked (row_of (dest)));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->stack), ==, "runs");
  /* copied whole */
  g_assert_true (g_file_get_contents (source, &a, NULL, NULL));
  g_assert_true (g_file_get_contents (dest, &b, NULL, NULL));
  g_assert_cmpstr (a, ==, b);

  /* a reload finds it once too */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reload-runs", NULL);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));
  g_assert_cmpuint (rows_with_id ("20261130T040000Z-mlp-small-cuda-0001"), ==, 1);

  tb_test_spin (500);
  _tb_window_dismiss_toast (window);
  tb_test_spin (600);
  {
    g_autofree char *shot = g_build_filename (SCREENSHOT_DIR, "screenshot-history.png", NULL);
    g_autoptr(GError) error = NULL;

    if (!tb_test_screenshot (GTK_WIDGET (window), shot, &error))
      g_test_message ("screenshot: %s", error->message);
    else
      g_test_message ("screenshot written: %s", shot);
  }
}

/* A result from elsewhere with a 5,000-character run id and device name is
 * imported without freezing the window; its row keeps to its lines, and a
 * dialog, if one comes, fits on the screen. */
static void
test_long_strings (void)
{
  g_autofree char *long_id = g_strnfill (5000, 'x');
  g_autofree char *long_name = g_strnfill (5000, 'N');
  g_autofree char *fixture = g_test_build_filename (G_TEST_DIST, "data", "run-gpu.json", NULL);
  g_autofree char *source = g_build_filename (g_get_tmp_dir (), "trainbench-long-strings.json", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *id_field = g_strdup_printf ("\"%s\"", long_id);
  g_autofree char *name_field = g_strdup_printf ("\"%s\"", long_name);
  g_autoptr(GString) text = NULL;
  g_autoptr(GFile) file = NULL;
  GFile *files[1];
  GtkWindow *dialog;
  TbRun *found = NULL;
  gint64 t0;

  g_assert_true (g_file_get_contents (fixture, &contents, NULL, NULL));
  text = g_string_new (contents);
  g_assert_cmpuint (g_string_replace (text, "\"20261130T040000Z-mlp-small-cuda-0001\"", id_field, 1), ==, 1);
  g_assert_cmpuint (g_string_replace (text, "\"NVIDIA GeForce RTX 4090\"", name_field, 1), ==, 1);
  g_assert_true (g_file_set_contents (source, text->str, -1, NULL));
  file = g_file_new_for_path (source);
  files[0] = file;

  t0 = g_get_monotonic_time ();
  tb_window_import (window, files, 1);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 60));
  tb_test_spin (300);
  g_test_message ("import and layout took %.1f s", (g_get_monotonic_time () - t0) / 1e6);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 10 * G_USEC_PER_SEC);

  /* imported, under a file name a file system takes */
  for (guint i = 0; i < count_rows (); i++)
    if (g_strcmp0 (run_at (i)->run_id, long_id) == 0)
      found = run_at (i);
  g_assert_nonnull (found);
  g_assert_cmpuint (strlen (found->path), <, 4096);
  {
    g_autofree char *base = g_path_get_basename (found->path);

    g_assert_cmpuint (strlen (base), <=, 255);
  }
  /* the row is no taller than a row with short names */
  {
    TbRunRow *row = shown_row (found->path);
    TbRunRow *other = shown_row (run_at (run_at (0) == found ? 1 : 0)->path);

    g_assert_nonnull (row);
    g_assert_nonnull (other);
    g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (row)), <=, gtk_widget_get_height (GTK_WIDGET (other)) + 4);
  }
  dialog = tb_test_newest_dialog (GTK_WINDOW (window));
  if (dialog != NULL)
    {
      g_test_message ("dialog: %d x %d", gtk_widget_get_width (GTK_WIDGET (dialog)), gtk_widget_get_height (GTK_WIDGET (dialog)));
      g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (dialog)), <, 700);
      gtk_window_destroy (dialog);
    }
  g_unlink (source);
}

#ifdef G_OS_UNIX
/* Files opened from the command line, dropped or picked are imported: a
 * FIFO among them blocked the import worker forever, and /dev/zero was read
 * until memory ran out. Each is refused at once with a dialog saying why. */
static void
test_import_special (void)
{
  g_autofree char *fifo = g_build_filename (g_get_tmp_dir (), "trainbench-import-fifo.json", NULL);
  g_autoptr(GFile) fifo_file = NULL;
  g_autoptr(GFile) zero_file = g_file_new_for_path ("/dev/zero");
  GFile *files[2];
  gint64 t0;
  GtkWindow *dialog;
  guint before = count_rows ();

  g_unlink (fifo);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  fifo_file = g_file_new_for_path (fifo);
  files[0] = fifo_file;
  files[1] = zero_file;
  t0 = g_get_monotonic_time ();
  tb_window_import (window, files, 2);
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 20));
  tb_test_spin (200);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 10 * G_USEC_PER_SEC);
  g_assert_cmpuint (count_rows (), ==, before);
  dialog = tb_test_newest_dialog (GTK_WINDOW (window));
  g_assert_nonnull (dialog);
  g_test_message ("%s", adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)), "not a regular file"));
  /* one dialog per file */
  while ((dialog = tb_test_newest_dialog (GTK_WINDOW (window))) != NULL)
    gtk_window_destroy (dialog);
  g_unlink (fifo);
}
#endif

/* The longest the main loop went without turning, measured by a timeout
 * of high priority every few milliseconds. */
static gint64 last_turn, longest_stall;

static gboolean
turn_cb (gpointer data)
{
  gint64 now = g_get_monotonic_time ();

  if (last_turn != 0)
    longest_stall = MAX (longest_stall, now - last_turn);
  last_turn = now;
  return G_SOURCE_CONTINUE;
}

static void
painted_cb (gint64 *painted)
{
  *painted = g_get_monotonic_time ();
}

/* Let the window draw a frame with what changed (the rows laid out) and
 * the main loop turn once more after it, so that a stall that ends there
 * is measured too: a wait that ends with the change would not see it. */
static void
settle (void)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  gint64 painted = 0;
  gulong id = g_signal_connect_swapped (clock, "after-paint", G_CALLBACK (painted_cb), &painted);

  gtk_widget_queue_draw (GTK_WIDGET (window));
  while (painted == 0 || last_turn <= painted)
    g_main_context_iteration (NULL, TRUE);
  g_signal_handler_disconnect (clock, id);
}

static gboolean
all_listed (gpointer n)
{
  return runs_loaded (NULL) && count_rows () == GPOINTER_TO_UINT (n);
}

#define MANY_RUNS 3000
/* Listing 3,000 runs stopped the main loop for 6.8 s at once (a row widget
 * each, laid out in one frame); now it turns every few milliseconds but
 * for a batch listed now and then (a tenth of a second at most here, on
 * a busy machine). */
#define STALL_BOUND (G_USEC_PER_SEC / 2)

/* A runs folder of thousands of runs is listed while the window answers:
 * read in batches in a worker and kept as summaries; showing the page
 * again later makes no row per run either. */
static void
test_many (void)
{
  const char *root = g_getenv ("XDG_DATA_HOME");
  g_autofree char *folder = g_build_filename (root, "many-runs", NULL);
  g_autofree char *fixture = g_test_build_filename (G_TEST_DIST, "data", "run-cpu.json", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GSettings) settings = tb_settings_new ();
  guint source;
  gint64 t0;

  g_assert_true (g_file_get_contents (fixture, &contents, NULL, NULL));
  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  for (guint i = 0; i < MANY_RUNS; i++)
    {
      g_autofree char *id = g_strdup_printf ("\"many-%05u\"", i);
      g_autofree char *at = g_strdup_printf ("\"2026-%02u-%02uT%02u:%02u:00Z\"", 1 + i % 12, 1 + i % 28,
                                             i / 60 % 24, i % 60);
      g_autofree char *name = g_strdup_printf ("many-%05u.json", i);
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_autoptr(GString) text = g_string_new (contents);

      g_string_replace (text, "\"20261130T030000Z-mlp-small-cpu-0002\"", id, 1);
      g_string_replace (text, "\"2026-11-30T03:00:00Z\"", at, 1);
      g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
    }

  tb_window_show_page (window, "runs");
  tb_test_spin (200);
  source = g_timeout_add_full (G_PRIORITY_HIGH, 5, turn_cb, NULL, NULL);
  t0 = last_turn = g_get_monotonic_time ();
  longest_stall = 0;
  g_settings_set_string (settings, "runs-folder", folder);
  g_assert_true (tb_test_wait_until (all_listed, GUINT_TO_POINTER (MANY_RUNS), 120));
  settle ();
  g_test_message ("%u runs listed in %.2f s; the main loop stood still %.3f s at most",
                  MANY_RUNS, (g_get_monotonic_time () - t0) / 1e6, longest_stall / 1e6);
  g_assert_cmpint (longest_stall, <, STALL_BOUND);
  check_order ();
  for (guint i = 0; i < count_rows (); i++)
    g_assert_null (run_at (i)->epochs);

  /* the page left and shown again */
  tb_window_show_page (window, "train");
  tb_test_spin (300);
  last_turn = g_get_monotonic_time ();
  longest_stall = 0;
  tb_window_show_page (window, "runs");
  settle ();
  g_test_message ("the Runs page shown again: the main loop stood still %.3f s at most", longest_stall / 1e6);
  g_assert_cmpint (longest_stall, <, STALL_BOUND);
  g_source_remove (source);

  g_settings_reset (settings, "runs-folder");
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 60));
}

static gboolean
window_gone (gpointer data)
{
  return window == NULL;
}

static void
test_close_while_loading (void)
{
  /* many files, so the worker is still reading when the window goes */
  for (int i = 0; i < 400; i++)
    {
      g_autofree char *name = g_strdup_printf ("many-%03d.json", i);
      g_autofree char *id = g_strdup_printf ("many-%03d", i);

      g_free (write_run (name, id, "2026-11-01T00:00:00Z"));
    }
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reload-runs", NULL);
  g_assert_cmpuint (tb_runs_page_get_n_pending (RUNS_PAGE), >, 0);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_destroy (GTK_WINDOW (window));
  /* the cancelled load lets the window go, and its answer touches nothing */
  g_assert_true (tb_test_wait_until (window_gone, NULL, 30));
  tb_test_spin (200);
}

int
main (int    argc,
      char **argv)
{
  const char *root;
  int status;

  if ((status = tb_test_gui_init (&argc, &argv, &root)) >= 0)
    return status;
  runs_dir = g_build_filename (root, "trainbench", "runs", NULL);

  app = tb_test_app_new (0);

  g_test_add_func ("/history/load", test_load);
  g_test_add_func ("/history/reload-keeps-ticks", test_reload_keeps_ticks);
  g_test_add_func ("/history/add-one", test_add_one);
  g_test_add_func ("/history/import-once", test_import_once);
  g_test_add_func ("/history/long-strings", test_long_strings);
#ifdef G_OS_UNIX
  g_test_add_func ("/history/import-special", test_import_special);
#endif
  g_test_add_func ("/history/many", test_many);
  g_test_add_func ("/history/close-while-loading", test_close_while_loading);
  status = g_test_run ();

  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  g_free (runs_dir);
  return status;
}
