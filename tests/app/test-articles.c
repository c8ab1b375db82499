/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-articles.c: the Articles page on the fixture runs of
 * tests/data/report: a card per claim with each verdict, its icon, reason
 * and the files its figures come from, runs of another laptop of the same
 * model and a run dated in the future taking no part; Measure only where
 * a claim is not measured and asking for the runs this machine can make;
 * the report made again when the runs folder changes (in the window,
 * through the Runs page's watch); the export as PNG and HTML, headless too
 * (trainbench --export-report).
 */
#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "tb-articles-page.h"
#include "tb-export.h"
#include "tb-window.h"
#include "test-gui-util.h"

static const char *root;

static char *
fixture_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "..", "data", "report", name, NULL);
}

/* The fixtures' machine: the CPU, GPU and OS of their "here" runs. */
static NnReportMachine
fixture_machine (void)
{
  g_autofree char *file = fixture_path ("runs/here-mlp-small-cuda.json");
  NnReportMachine m;
  NnError error;

  nn_error_clear (&error);
  g_assert_cmpint (nn_report_machine_from_file (file, &m, &error), ==, NN_OK);
  return m;
}

/* A copy of the fixture runs folder (its sweeps/ too) in `folder`. */
static void
copy_runs (const char *folder)
{
  g_autofree char *src = fixture_path ("runs");
  g_autofree char *cmd = g_strdup_printf ("cp -R '%s/.' '%s'", src, folder);
  int status = 0;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
}

static gboolean
report_ready (gpointer data)
{
  TbArticlesPage *page = data;

  return tb_articles_page_get_report (page) != NULL && tb_articles_page_get_n_pending (page) == 0;
}

/* The descendant of `widget` named `name`, or NULL. */
static GtkWidget *
find_named (GtkWidget  *widget,
            const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (widget), name) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_named (c, name);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static const char *
card_verdict (TbArticlesPage *page,
              guint           index)
{
  GtkWidget *label = find_named (tb_articles_page_get_card (page, index), "verdict");

  return label != NULL ? gtk_label_get_text (GTK_LABEL (label)) : NULL;
}

static const char *
card_icon (TbArticlesPage *page,
           guint           index)
{
  GtkWidget *icon = find_named (tb_articles_page_get_card (page, index), "verdict-icon");

  return icon != NULL ? gtk_image_get_icon_name (GTK_IMAGE (icon)) : NULL;
}

typedef struct
{
  guint claim;
  guint sides;
  int count;
} Measured;

static void
measure_cb (TbArticlesPage *page,
            guint           claim,
            guint           sides,
            Measured       *m)
{
  m->claim = claim;
  m->sides = sides;
  m->count++;
}

static void
test_cards (void)
{
  g_autofree char *folder = g_build_filename (root, "cards-runs", NULL);
  NnReportMachine machine = fixture_machine ();
  GtkWidget *window = gtk_window_new ();
  TbArticlesPage *page = g_object_new (TB_TYPE_ARTICLES_PAGE, NULL);
  Measured measured = { 0 };
  g_autoptr(GError) error = NULL;

  copy_runs (folder);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (page));
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 1400);
  gtk_window_present (GTK_WINDOW (window));
  g_signal_connect (page, "measure", G_CALLBACK (measure_cb), &measured);

  tb_articles_page_set_machine (page, &machine);
  tb_articles_page_set_folder (page, folder);
  g_assert_true (tb_test_wait_until (report_ready, page, 30));

  g_assert_cmpstr (card_verdict (page, 0), ==, "Holds here");
  g_assert_cmpstr (card_verdict (page, 1), ==, "Does not hold here");
  g_assert_cmpstr (card_verdict (page, 2), ==, "Not measured yet");
  g_assert_cmpstr (card_verdict (page, 3), ==, "Holds here");
  g_assert_null (tb_articles_page_get_card (page, 4));
  g_assert_cmpstr (card_icon (page, 0), ==, "emblem-ok-symbolic");
  g_assert_cmpstr (card_icon (page, 1), ==, "window-close-symbolic");
  g_assert_cmpstr (card_icon (page, 2), ==, "dialog-question-symbolic");

  GtkWidget *reason = find_named (tb_articles_page_get_card (page, 0), "reason");
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (reason)), "busy 12 %"));

  /* the files each figure comes from: by name on the card, with their
   * folders in its tooltip */
  GtkWidget *files = find_named (tb_articles_page_get_card (page, 0), "files");
  g_assert_nonnull (files);
  const char *names = gtk_label_get_text (GTK_LABEL (files));
  g_assert_nonnull (strstr (names, "CPU: here-mlp-small-cpu-3.json, here-mlp-small-cpu-2.json, "
                                   "here-mlp-small-cpu-1.json"));
  g_assert_nonnull (strstr (names, "GPU: here-mlp-small-cuda.json"));
  g_assert_null (strstr (names, "future"));
  const char *tooltip = gtk_widget_get_tooltip_text (files);
  g_autofree char *cpu_file = g_build_filename (folder, "here-mlp-small-cpu-3.json", NULL);
  g_assert_nonnull (strstr (tooltip, cpu_file));
  /* claim 3: the whole GPU run of another laptop of this model and OS is
   * no run of this machine's */
  GtkWidget *files3 = find_named (tb_articles_page_get_card (page, 2), "files");
  g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (files3)), "foreign"));

  GObject *status = gtk_widget_get_template_child (GTK_WIDGET (page), TB_TYPE_ARTICLES_PAGE,
                                                   "status_label");
  const char *said = gtk_label_get_text (GTK_LABEL (status));
  g_assert_nonnull (strstr (said, "22 result files read, 19 of them this machine's"));
  g_assert_nonnull (strstr (said, "5 runs of other machines or OSes are not counted"));
  g_assert_nonnull (strstr (said, "1 run dated in the future counts as of unknown time"));

  /* Measure only on the claim not measured, for its GPU side */
  for (guint i = 0; i < 4; i++)
    if (i != 2)
      g_assert_null (find_named (tb_articles_page_get_card (page, i), "measure"));
  GtkWidget *button = find_named (tb_articles_page_get_card (page, 2), "measure");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_sensitive (button));
  g_assert_cmpuint (tb_articles_page_measurable (page, 2), ==, 2);
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpint (measured.count, ==, 1);
  g_assert_cmpuint (measured.claim, ==, 2);
  g_assert_cmpuint (measured.sides, ==, 2);

  tb_test_spin (300);
  if (!tb_test_screenshot (window, SCREENSHOT_DIR "/screenshot-articles.png", &error))
    g_test_message ("screenshot: %s", error->message);

  /* a whole cnn GPU run arrives: claim 3 is measured when the page reads again */
  g_autofree char *cut = g_build_filename (folder, "here-cnn-cuda-cut.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (cut, &text, NULL, NULL));
  g_autoptr(GString) whole = g_string_new (text);
  g_assert_cmpuint (g_string_replace (whole, "\"count\": 10,", "\"count\": 235,", 1), ==, 1);
  g_autofree char *full = g_build_filename (folder, "here-cnn-cuda-full.json", NULL);
  g_assert_true (g_file_set_contents (full, whole->str, -1, NULL));
  tb_articles_page_refresh (page);
  g_assert_true (tb_test_wait_until (report_ready, page, 30));
  g_assert_cmpstr (card_verdict (page, 2), ==, "Holds here");
  g_assert_null (find_named (tb_articles_page_get_card (page, 2), "measure"));

  gtk_window_destroy (GTK_WINDOW (window));
  tb_test_spin (50);
}

/* On a machine without a GPU, Measure of a GPU-only gap is insensitive. */
static void
test_measure_needs_a_gpu (void)
{
  g_autofree char *folder = g_build_filename (root, "no-gpu-runs", NULL);
  NnReportMachine machine = fixture_machine ();
  TbArticlesPage *page = g_object_ref_sink (g_object_new (TB_TYPE_ARTICLES_PAGE, NULL));

  copy_runs (folder);
  /* a machine whose GPU is gone: its GPU runs with it */
  g_autoptr(GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (strstr (name, "cuda") != NULL)
      {
        g_autofree char *path = g_build_filename (folder, name, NULL);
        g_assert_cmpint (g_remove (path), ==, 0);
      }
  machine.gpu_count = 0;
  machine.gpus_known = TRUE;
  tb_articles_page_set_machine (page, &machine);
  tb_articles_page_set_folder (page, folder);
  g_assert_true (tb_test_wait_until (report_ready, page, 30));
  /* no GPU runs: claims 1 to 3 lack their GPU side */
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpstr (card_verdict (page, i), ==, "Not measured yet");
      GtkWidget *button = find_named (tb_articles_page_get_card (page, i), "measure");
      g_assert_nonnull (button);
      g_assert_false (gtk_widget_get_sensitive (button));
    }
  g_object_unref (page);
}

static void
test_export (void)
{
  g_autofree char *runs = fixture_path ("runs");
  g_autofree char *hostile = fixture_path ("hostile");
  g_autofree char *machine = fixture_path ("runs/here-mlp-small-cuda.json");
  g_autofree char *png = g_build_filename (root, "report.png", NULL);
  g_autofree char *html = g_build_filename (root, "report.html", NULL);
  g_autofree char *contents = NULL;
  gsize length = 0;

  /* headless, as `trainbench --export-report` runs it */
  char *png_argv[] = { "trainbench", "--export-report", png, "--runs", runs, hostile,
                       "--machine", machine, NULL };
  g_assert_true (tb_export_wanted (8, png_argv));
  g_assert_cmpint (tb_export_main (8, png_argv), ==, 0);
  g_assert_true (g_file_get_contents (png, &contents, &length, NULL));
  g_assert_cmpuint (length, >, 8);
  g_assert_cmpmem (contents, 8, "\x89PNG\r\n\x1a\n", 8);
  g_autoptr(GdkTexture) texture = gdk_texture_new_from_filename (png, NULL);
  g_assert_nonnull (texture);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, 1000);
  /* four cards with a chart each */
  g_assert_cmpint (gdk_texture_get_height (texture), >, 4 * 170);
  g_clear_pointer (&contents, g_free);

  char *html_argv[] = { "trainbench", "--export-report", html, "--runs", runs,
                        "--machine", machine, NULL };
  g_assert_cmpint (tb_export_main (7, html_argv), ==, 0);
  g_assert_true (g_file_get_contents (html, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (contents, "<!DOCTYPE html>"));
  g_assert_null (strstr (contents, "<script"));
  g_assert_nonnull (strstr (contents, "does not hold here"));
  g_assert_nonnull (strstr (contents, "here-mlp-small-cpu-3.json"));

  /* usage errors */
  char *bad_argv[] = { "trainbench", "--export-report", html, "--bogus", NULL };
  g_assert_cmpint (tb_export_main (4, bad_argv), ==, 2);
  g_autofree char *unwritable = g_build_filename (root, "no", "such", "r.png", NULL);
  char *fail_argv[] = { "trainbench", "--export-report", unwritable, "--runs", runs, NULL };
  g_assert_cmpint (tb_export_main (5, fail_argv), ==, 1);
}

static gboolean
window_report_has (gpointer data)
{
  TbArticlesPage *page = tb_window_get_articles_page (data);
  const NnReport *report = tb_articles_page_get_report (page);

  return report != NULL && tb_articles_page_get_n_pending (page) == 0 && report->files_read > 22;
}

static gboolean
devices_listed (gpointer data)
{
  return tb_train_page_get_n_devices (tb_window_get_train_page (data)) > 0;
}

static gboolean
measured_run_back (gpointer data)
{
  TbArticlesPage *page = tb_window_get_articles_page (data);
  const NnReport *report = tb_articles_page_get_report (page);

  return !tb_window_is_training (data) && report != NULL
         && tb_articles_page_get_n_pending (page) == 0 && report->files_read == 24;
}

/* In the window: the Articles page (win.page "articles", Alt+6) reads the
 * Runs page's folder, and again when a result file appears there (the
 * Runs page watches it). */
static void
test_window (void)
{
  g_autoptr(TbApplication) app = tb_test_app_new (G_APPLICATION_DEFAULT_FLAGS);
  g_autofree char *runs = g_build_filename (root, "trainbench", "runs", NULL);
  NnReportMachine machine = fixture_machine ();
  TbWindow *window;

  copy_runs (runs);
  window = tb_window_new (ADW_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (window));
  TbArticlesPage *page = tb_window_get_articles_page (window);
  tb_articles_page_set_machine (page, &machine);
  g_assert_true (tb_test_wait_until (report_ready, page, 30));
  g_assert_cmpint (tb_articles_page_get_report (page)->files_read, ==, 22);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.page", "s", "articles");
  GObject *stack = gtk_widget_get_template_child (GTK_WIDGET (window), TB_TYPE_WINDOW, "stack");
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (ADW_VIEW_STACK (stack)), ==, "articles");
  tb_test_spin (300);
  g_autoptr(GError) error = NULL;
  if (!tb_test_screenshot (GTK_WIDGET (window), SCREENSHOT_DIR "/screenshot-articles-window.png",
                           &error))
    g_test_message ("screenshot: %s", error->message);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.page", "s", "model");

  g_autofree char *src = g_build_filename (runs, "here-mlp-wide-cpu.json", NULL);
  g_autofree char *dst = g_build_filename (runs, "here-mlp-wide-cpu-again.json", NULL);
  g_autofree char *contents = NULL;
  g_assert_true (g_file_get_contents (src, &contents, NULL, NULL));
  g_assert_true (g_file_set_contents (dst, contents, -1, NULL));
  g_assert_true (tb_test_wait_until (window_report_has, window, 30));
  g_assert_cmpint (tb_articles_page_get_report (page)->files_read, ==, 23);

  /* Measure, as this machine (none of the fixture runs is its own): the
   * first claim's CPU run, trained with the preset's own settings on the
   * whole of the chosen data set, comes back to the page */
  g_autofree char *data_dir = g_build_filename (root, "measure-data", NULL);
  g_assert_true (tb_test_write_idx (data_dir, 64, 16, 10));
  tb_window_set_dataset (window, data_dir, 32, 8);
  g_assert_true (tb_test_wait_until (devices_listed, window, 60));
  tb_articles_page_set_machine (page, NULL);
  g_assert_true (tb_test_wait_until (report_ready, page, 30));
  g_assert_false (tb_articles_page_get_report (page)->claims[0].first.measured);
  g_assert_cmpuint (tb_articles_page_measurable (page, 0) & 1, ==, 1);
  g_signal_emit_by_name (page, "measure", 0u, 1u);
  g_assert_true (tb_window_is_training (window));
  g_assert_true (tb_test_wait_until (measured_run_back, window, 300));
  const NnReportClaim *c1 = &tb_articles_page_get_report (page)->claims[0];
  g_test_message ("after Measure: %s", c1->first.why);
  /* the tiny data set makes it no whole-data-set run, but it is this
   * machine's, of mlp-small at its batch size, every epoch whole, on all
   * 64 samples (not the Data page's 32) */
  g_assert_nonnull (strstr (c1->first.why, "1 run left out: trained on 64 samples"));

  gtk_window_destroy (GTK_WINDOW (window));
  tb_test_spin (100);
}

int
main (int    argc,
      char **argv)
{
  int status;

  if ((status = tb_test_gui_init (&argc, &argv, &root)) >= 0)
    return status;
  g_test_add_func ("/articles/cards", test_cards);
  g_test_add_func ("/articles/measure-needs-a-gpu", test_measure_needs_a_gpu);
  g_test_add_func ("/articles/export", test_export);
  g_test_add_func ("/articles/window", test_window);
  return g_test_run ();
}
