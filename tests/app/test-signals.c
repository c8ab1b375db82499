/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-signals.c: the app told to end by a signal (logout's SIGTERM, a
 * terminal's SIGHUP, Ctrl-C's SIGINT) while it trains does what Quit does:
 * the run stops within a step and is saved as cancelled, a sweep's file
 * says cancelled, a batch of runs (Reproduce the Articles) goes no
 * further, and then the app's windows are gone; a second signal ends it at
 * once; a SIGHUP ignored when it started (nohup) stays ignored. Each case
 * runs in a process of its own, which signals itself.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "tb-run.h"
#include "tb-sweep.h"
#include "tb-window.h"
#include "test-gui-util.h"

static TbApplication *app;
static TbWindow *window;
static const char *root;

static gboolean
window_ready (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (window))
         && !tb_train_page_get_devices_pending (tb_window_get_train_page (window));
}

static gboolean
window_gone (gpointer data)
{
  return window == NULL;
}

static gboolean
window_hidden (gpointer data)
{
  return window == NULL || !gtk_widget_get_visible (GTK_WIDGET (window));
}

/* Steps trained: the run is under way, its trainer running. */
static gboolean
stepping (gpointer data)
{
  TbSession *session = tb_window_get_session (window);

  return session != NULL && tb_session_get_state (session) == TB_SESSION_RUNNING
         && tb_session_get_latest (session)->step > 0;
}

static gboolean
point_done (gpointer data)
{
  TbSweep *sweep = tb_explore_page_get_sweep (tb_window_get_explore_page (window));

  return sweep != NULL && tb_sweep_count_done (sweep) >= 1;
}

/* A window on a small IDX data set of `train` images, on the CPU. */
static void
open_window (int train)
{
  g_autofree char *data = g_build_filename (root, "idx", NULL);

  g_assert_true (tb_test_write_idx (data, train, 200, 10));
  app = tb_test_app_new (0);
  window = tb_window_new (ADW_APPLICATION (app));
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 720);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (tb_test_wait_until (window_ready, NULL, 60));
  tb_window_set_dataset (window, data, 0, 0);
  tb_test_spin (300);
  g_assert_true (tb_window_select_device (window, NN_DEVICE_CPU, 0));
}

/* The cnn preset for as many epochs as the page takes: minutes at least,
 * so it still trains when the signal comes, on any machine. */
static void
start_long_run (void)
{
  gtk_widget_activate_action (GTK_WIDGET (tb_window_get_builder (window)), "builder.preset", "s", "cnn");
  tb_window_set_epochs (window, 1000);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (tb_window_is_training (window));
  g_assert_true (tb_test_wait_until (stepping, NULL, 120));
}

/* Signalled, the window stops what it does, saves it and goes; the app
 * has no window left, so it ends. */
static void
signal_and_wait (int signum)
{
  gint64 t0 = g_get_monotonic_time ();

  g_assert_cmpint (kill (getpid (), signum), ==, 0);
  g_assert_true (tb_test_wait_until (window_gone, NULL, 120));
  g_test_message ("%s: the window went after %.2f s", g_strsignal (signum),
                  (g_get_monotonic_time () - t0) / 1e6);
  g_assert_null (gtk_application_get_windows (GTK_APPLICATION (app)));
}

/* The result files of the runs folder, read back. */
static GPtrArray *
results (void)
{
  g_autofree char *dir = g_build_filename (root, "trainbench", "runs", NULL);
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  GPtrArray *runs = tb_run_load_folder (dir, skipped, NULL, NULL);

  g_assert_cmpuint (skipped->len, ==, 0);
  return runs;
}

static void
test_run_subprocess (void)
{
  g_autoptr(GPtrArray) runs = NULL;
  TbRun *run;

  open_window (600);
  start_long_run ();
  signal_and_wait (SIGTERM);
  runs = results ();
  g_assert_cmpuint (runs->len, ==, 1);
  run = g_ptr_array_index (runs, 0);
  g_assert_cmpstr (run->status, ==, "cancelled");
  g_assert_cmpstr (run->model_name, ==, "cnn");
}

static void
test_sweep_subprocess (void)
{
  TbExplorePage *page;
  g_autofree char *runs_dir = g_build_filename (root, "trainbench", "runs", NULL);
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_autoptr(GPtrArray) sweeps = NULL;
  g_autoptr(TbSweep) sweep = NULL;

  open_window (600);
  page = tb_window_get_explore_page (window);
  tb_window_show_page (window, "explore");
  tb_explore_page_set_family (page, "mlp");
  g_assert_true (tb_explore_page_set_axis (page, "W", "8,16,32,64"));
  g_assert_true (tb_explore_page_set_axis (page, "D", ""));
  g_assert_true (tb_explore_page_set_axis (page, "batch", "8,16,32,64"));
  tb_explore_page_set_device_active (page, "cuda:0", FALSE);
  g_assert_true (tb_explore_page_set_device_active (page, "cpu", TRUE));
  tb_explore_page_set_steps (page, 300);
  g_assert_true (tb_explore_page_start (page));
  g_assert_true (tb_test_wait_until (point_done, NULL, 120));
  signal_and_wait (SIGHUP);

  sweeps = tb_sweep_list_folder (runs_dir, skipped, NULL);
  g_assert_cmpuint (skipped->len, ==, 0);
  g_assert_cmpuint (sweeps->len, ==, 1);
  sweep = tb_sweep_load (((TbSweepSummary *) g_ptr_array_index (sweeps, 0))->path, NULL);
  g_assert_nonnull (sweep);
  g_assert_cmpstr (sweep->status, ==, "cancelled");
  g_assert_cmpuint (tb_sweep_count_done (sweep), >=, 1);
  g_assert_cmpuint (tb_sweep_count_done (sweep), <, 16);
}

static GtkWindow *
newest_dialog (void)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (ADW_IS_MESSAGE_DIALOG (l->data))
      return l->data;
  return tb_test_newest_dialog (GTK_WINDOW (window));
}

static void
test_queue_subprocess (void)
{
  g_autoptr(GPtrArray) runs = NULL;
  GtkWindow *dialog;

  /* enough images that the batch's first run is still training when the
   * signal comes */
  open_window (20000);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reproduce", NULL);
  tb_test_spin (200);
  dialog = newest_dialog ();
  g_assert_true (ADW_IS_MESSAGE_DIALOG (dialog));
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "run");
  g_assert_true (tb_test_wait_until (stepping, NULL, 120));
  signal_and_wait (SIGINT);

  /* the first run, cancelled; none after it */
  tb_test_spin (500);
  runs = results ();
  g_assert_cmpuint (runs->len, ==, 1);
  g_assert_cmpstr (((TbRun *) g_ptr_array_index (runs, 0))->status, ==, "cancelled");
}

static void
test_second_signal_subprocess (void)
{
  open_window (600);
  start_long_run ();
  g_assert_cmpint (kill (getpid (), SIGTERM), ==, 0);
  g_assert_true (tb_test_wait_until (window_hidden, NULL, 30));
  g_assert_cmpint (kill (getpid (), SIGTERM), ==, 0);
  /* not reached: the second signal ends the process */
  tb_test_spin (20000);
}

static void
test_ignored_hangup_subprocess (void)
{
  /* as nohup starts a program */
  signal (SIGHUP, SIG_IGN);
  open_window (600);
  g_assert_cmpint (kill (getpid (), SIGHUP), ==, 0);
  tb_test_spin (1000);
  g_assert_nonnull (window);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
in_subprocess (gconstpointer data)
{
  g_autofree char *path = g_strdup_printf ("%s/subprocess", (const char *) data);

  g_test_trap_subprocess (path, 300 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static void
test_second_signal (void)
{
  gint64 t0 = g_get_monotonic_time ();

  g_test_trap_subprocess ("/signals/second-signal/subprocess", 300 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  /* ended by the signal, long before its 20 s spin was over */
  g_test_trap_assert_failed ();
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 200 * G_USEC_PER_SEC);
}

int
main (int    argc,
      char **argv)
{
  int status;

  /* the test's own SIGHUP as a terminal's is, whoever started it */
  signal (SIGHUP, SIG_DFL);
  if ((status = tb_test_gui_init (&argc, &argv, &root)) >= 0)
    return status;

  g_test_add_data_func ("/signals/run", "/signals/run", in_subprocess);
  g_test_add_func ("/signals/run/subprocess", test_run_subprocess);
  g_test_add_data_func ("/signals/sweep", "/signals/sweep", in_subprocess);
  g_test_add_func ("/signals/sweep/subprocess", test_sweep_subprocess);
  g_test_add_data_func ("/signals/queue", "/signals/queue", in_subprocess);
  g_test_add_func ("/signals/queue/subprocess", test_queue_subprocess);
  g_test_add_func ("/signals/second-signal", test_second_signal);
  g_test_add_func ("/signals/second-signal/subprocess", test_second_signal_subprocess);
  g_test_add_data_func ("/signals/ignored-hangup", "/signals/ignored-hangup", in_subprocess);
  g_test_add_func ("/signals/ignored-hangup/subprocess", test_ignored_hangup_subprocess);
  status = g_test_run ();

  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
