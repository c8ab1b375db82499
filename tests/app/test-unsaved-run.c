/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-unsaved-run.c: a run is never lost to its runs folder: a folder that
 * cannot take a result refuses Start (and Reproduce) with a message before
 * anything trains; one that stops taking it while the run trains (here:
 * taken away) leaves the result with the window, which offers to save it
 * elsewhere, offers again when that fails, and lets it go only when asked;
 * closing the window meanwhile waits for that answer.
 */
#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "tb-run.h"
#include "tb-window-private.h"
#include "test-gui-util.h"

static TbApplication *app;
static TbWindow *window;
static GSettings *settings;
static const char *root;

static gboolean
window_ready (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (window))
         && !tb_train_page_get_devices_pending (tb_window_get_train_page (window));
}

static gboolean
stepping (gpointer data)
{
  TbSession *session = tb_window_get_session (window);

  return session != NULL && tb_session_get_state (session) == TB_SESSION_RUNNING
         && tb_session_get_latest (session)->step > 0;
}

static gboolean
save_offered (gpointer data)
{
  return window != NULL && window->save_dialog != NULL;
}

static gboolean
window_gone (gpointer data)
{
  return window == NULL;
}

/* The message dialog shown over the window, other than the save offer. */
static AdwMessageDialog *
message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w) && gtk_widget_get_visible (GTK_WIDGET (w))
          && ADW_MESSAGE_DIALOG (w) != window->save_dialog)
        return ADW_MESSAGE_DIALOG (w);
    }
  return NULL;
}

static char *
runs_folder (const char *name)
{
  return g_build_filename (root, name, NULL);
}

/* Start the cnn preset for many epochs in `folder`; it trains on. */
static void
start_long_run (const char *folder)
{
  g_settings_set_string (settings, "runs-folder", folder);
  gtk_widget_activate_action (GTK_WIDGET (tb_window_get_builder (window)), "builder.preset", "s", "cnn");
  tb_window_set_epochs (window, 1000);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (tb_window_is_training (window));
  g_assert_true (tb_test_wait_until (stepping, NULL, 120));
}

/* The runs folder made a file: nothing can be written there now. */
static void
take_away (const char *folder)
{
  g_autofree char *away = g_strconcat (folder, "-away", NULL);

  g_assert_cmpint (g_rename (folder, away), ==, 0);
  g_assert_true (g_file_set_contents (folder, "not a folder", -1, NULL));
}

static void
test_open (void)
{
  g_autofree char *data = g_build_filename (root, "idx", NULL);

  g_assert_true (tb_test_write_idx (data, 600, 200, 10));
  window = tb_window_new (ADW_APPLICATION (app));
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 720);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (tb_test_wait_until (window_ready, NULL, 60));
  tb_window_set_dataset (window, data, 0, 0);
  tb_test_spin (300);
  g_assert_true (tb_window_select_device (window, NN_DEVICE_CPU, 0));
  gtk_widget_activate_action (GTK_WIDGET (tb_window_get_builder (window)), "builder.preset", "s", "mlp-small");
}

/* A runs folder that cannot be: Start and Reproduce refuse at once. */
static void
test_refused (void)
{
  g_autofree char *file = runs_folder ("plain-file");
  g_autofree char *folder = g_build_filename (file, "runs", NULL);
  AdwMessageDialog *dialog;

  g_assert_true (g_file_set_contents (file, "x", -1, NULL));
  g_settings_set_string (settings, "runs-folder", folder);
  tb_test_spin (200);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_false (tb_window_is_training (window));
  g_assert_null (tb_window_get_session (window));
  tb_test_spin (200);
  dialog = message_dialog ();
  g_assert_nonnull (dialog);
  g_test_message ("%s: %s", adw_message_dialog_get_heading (dialog), adw_message_dialog_get_body (dialog));
  g_assert_nonnull (strstr (adw_message_dialog_get_heading (dialog), "runs folder"));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "plain-file"));
  gtk_window_destroy (GTK_WINDOW (dialog));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.reproduce", NULL);
  tb_test_spin (200);
  dialog = message_dialog ();
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "run");
  gtk_window_destroy (GTK_WINDOW (dialog));
  tb_test_spin (200);
  g_assert_false (tb_window_is_training (window));
  dialog = message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_nonnull (strstr (adw_message_dialog_get_heading (dialog), "runs folder"));
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* The folder taken away while the run trains: its result is offered for
 * saving elsewhere; a place that fails too offers again. */
static void
test_save_elsewhere (void)
{
  g_autofree char *folder = runs_folder ("runs-a");
  g_autofree char *bad = g_build_filename (root, "plain-file", "run.json", NULL);
  g_autofree char *elsewhere = g_build_filename (root, "elsewhere.json", NULL);
  g_autoptr(TbRun) run = NULL;
  g_autoptr(GError) error = NULL;
  TbSession *session;

  start_long_run (folder);
  take_away (folder);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL);
  g_assert_true (tb_test_wait_until (save_offered, NULL, 60));
  session = tb_window_get_session (window);
  g_assert_true (tb_session_get_unsaved (session));
  g_assert_null (tb_session_get_result_path (session));
  g_test_message ("%s: %s", adw_message_dialog_get_heading (window->save_dialog),
                  adw_message_dialog_get_body (window->save_dialog));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (window->save_dialog), "runs-a"));
  g_assert_true (adw_message_dialog_has_response (window->save_dialog, "save"));
  g_assert_cmpstr (adw_message_dialog_get_close_response (window->save_dialog), ==, "save");

  /* Save As to a place that cannot be: offered again, with that reason */
  g_assert_false (_tb_window_save_run_as (window, bad));
  g_assert_true (save_offered (NULL));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (window->save_dialog), "plain-file"));
  g_assert_true (tb_session_get_unsaved (session));

  /* and to one that can */
  g_assert_true (_tb_window_save_run_as (window, elsewhere));
  tb_test_spin (100);
  g_assert_null (window->save_dialog);
  g_assert_false (tb_session_get_unsaved (session));
  g_assert_cmpstr (tb_session_get_result_path (session), ==, elsewhere);
  run = tb_run_load (elsewhere, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (run->status, ==, "cancelled");
  g_assert_cmpstr (run->model_name, ==, "cnn");
  g_assert_cmpint (tb_session_get_latest (session)->step, >, 0);
}

/* Closed while it trains, and the result cannot be written: the window
 * comes back with the offer, and goes once the run is let go. */
static void
test_close_waits (void)
{
  g_autofree char *folder = runs_folder ("runs-b");

  start_long_run (folder);
  take_away (folder);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (tb_test_wait_until (save_offered, NULL, 60));
  g_assert_nonnull (window);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  /* closing again asks again, and does not go */
  gtk_window_close (GTK_WINDOW (window));
  tb_test_spin (200);
  g_assert_nonnull (window);
  adw_message_dialog_response (window->save_dialog, "discard");
  g_assert_true (tb_test_wait_until (window_gone, NULL, 10));
}

int
main (int    argc,
      char **argv)
{
  int status;

  if ((status = tb_test_gui_init (&argc, &argv, &root)) >= 0)
    return status;

  app = tb_test_app_new (0);
  settings = tb_settings_new ();

  g_test_add_func ("/unsaved-run/open", test_open);
  g_test_add_func ("/unsaved-run/refused", test_refused);
  g_test_add_func ("/unsaved-run/save-elsewhere", test_save_elsewhere);
  g_test_add_func ("/unsaved-run/close-waits", test_close_waits);
  status = g_test_run ();

  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&settings);
  g_clear_object (&app);
  return status;
}
