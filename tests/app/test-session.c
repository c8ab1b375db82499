/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-session.c: a training session on a tiny data set: it completes,
 * progress arrives on the main thread coalesced (not one event per step),
 * Stop cancels within a step and the run is still recorded, the result file
 * is written and reads back, and bad input fails with a message.
 */
#include <string.h>

#include <glib/gstdio.h>

#include "tb-run.h"
#include "tb-session.h"
#include "test-gui-util.h"

static char *data_dir;
static GThread *main_thread;

typedef struct
{
  gboolean done;
  gboolean ok;
  GError *error;
  guint progress_events;
  gboolean off_main_thread;
  gboolean saw_running;
} Run;

static void
progress_cb (TbSession *session,
             Run       *run)
{
  run->progress_events++;
  if (g_thread_self () != main_thread)
    run->off_main_thread = TRUE;
}

static void
state_cb (TbSession *session,
          Run       *run)
{
  if (tb_session_get_state (session) == TB_SESSION_RUNNING)
    run->saw_running = TRUE;
}

static void
done_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Run *run = user_data;

  run->ok = tb_session_run_finish (TB_SESSION (object), result, &run->error);
  run->done = TRUE;
}

static TbSession *
new_session (int         epochs,
             const char *spec,
             const char *dataset,
             Run        *run)
{
  TbSessionConfig config;
  TbSession *session;

  tb_session_config_init (&config);
  config.spec_text = g_strdup (spec);
  config.model_name = g_strdup ("test");
  config.dataset = g_strdup (dataset);
  config.epochs = epochs;
  config.batch_size = 16;
  config.device.threads = 2;
  config.runs_dir = g_build_filename (tb_test_setup_env (), "runs", NULL);
  session = tb_session_new (&config);
  tb_session_config_clear (&config);

  g_signal_connect (session, "progress", G_CALLBACK (progress_cb), run);
  g_signal_connect (session, "state-changed", G_CALLBACK (state_cb), run);
  return session;
}

static void
test_complete (void)
{
  Run run = { 0 };
  g_autoptr(TbSession) session = new_session (3, "flatten; dense 32 relu; dense 10 softmax", data_dir, &run);
  g_autoptr(TbRun) result = NULL;
  g_autoptr(GError) error = NULL;
  GArray *epochs;

  tb_session_run_async (session, NULL, done_cb, &run);
  g_assert_true (tb_test_wait_for (&run.done, 120));
  g_assert_no_error (run.error);
  g_assert_true (run.ok);
  g_assert_true (run.saw_running);
  g_assert_cmpint (tb_session_get_state (session), ==, TB_SESSION_FINISHED);

  /* progress arrived, on the main thread */
  g_assert_cmpuint (run.progress_events, >, 0);
  g_assert_false (run.off_main_thread);
  epochs = tb_session_get_epochs (session);
  g_assert_cmpuint (epochs->len, ==, 3);
  g_assert_cmpuint (tb_session_get_loss_values (session)->len, >, 0);
  g_assert_cmpint (tb_session_get_latest (session)->epoch, ==, 3);

  /* the result file is written and reads back */
  g_assert_nonnull (tb_session_get_result_path (session));
  result = tb_run_load (tb_session_get_result_path (session), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (result->status, ==, "completed");
  g_assert_cmpuint (result->epochs->len, ==, 3);
  g_assert_cmpstr (result->device_kind, ==, "cpu");

  /* the trained model is kept for inspection */
  g_assert_nonnull (tb_session_get_model (session));
  g_assert_nonnull (tb_session_get_dataset (session));
}

/* A queue's next session takes over the data set the last one loaded: it
 * trains with the files gone, and the first keeps no copy. */
static void
test_adopt_dataset (void)
{
  g_autofree char *dir = g_build_filename (tb_test_setup_env (), "adopt-idx", NULL);
  g_autofree char *other = g_build_filename (tb_test_setup_env (), "other-idx", NULL);
  const char *spec = "flatten; dense 16 relu; dense 10 softmax";
  Run first = { 0 }, second = { 0 }, third = { 0 };
  g_autoptr(TbSession) a = NULL;
  g_autoptr(TbSession) b = NULL;
  g_autoptr(TbSession) c = NULL;
  GDir *d;
  const char *name;

  g_assert_true (tb_test_write_idx (dir, 64, 32, 10));
  a = new_session (1, spec, dir, &first);
  tb_session_run_async (a, NULL, done_cb, &first);
  g_assert_true (tb_test_wait_for (&first.done, 60));
  g_assert_true (first.ok);

  /* a different data set is not taken */
  c = new_session (1, spec, other, &third);
  g_assert_false (tb_session_adopt_dataset (c, a));
  g_assert_nonnull (tb_session_get_dataset (a));

  b = new_session (1, spec, dir, &second);
  g_assert_true (tb_session_adopt_dataset (b, a));
  g_assert_null (tb_session_get_dataset (a));
  g_assert_false (tb_session_adopt_dataset (b, a)); /* nothing left to take */

  /* the files go: only the handed-over copy can feed the second run */
  d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_assert_cmpint (g_remove (path), ==, 0);
    }
  g_dir_close (d);
  tb_session_run_async (b, NULL, done_cb, &second);
  g_assert_true (tb_test_wait_for (&second.done, 60));
  g_assert_no_error (second.error);
  g_assert_true (second.ok);
  g_assert_nonnull (tb_session_get_dataset (b));
}

static void
test_coalesced (void)
{
  Run run = { 0 };
  g_autoptr(TbSession) session = new_session (200, "flatten; dense 16 relu; dense 10 softmax", data_dir, &run);
  guint reports, flushes;

  guint reports0, flushes0, points0;

  tb_session_run_async (session, NULL, done_cb, &run);
  g_assert_true (tb_test_wait_for (&run.saw_running, 60));
  tb_test_spin (100);
  reports0 = tb_session_get_report_count (session);
  flushes0 = tb_session_get_flush_count (session);
  points0 = tb_session_get_loss_values (session)->len;

  /* let the worker report many times while the main loop is busy */
  g_usleep (G_USEC_PER_SEC);
  reports = tb_session_get_report_count (session) - reports0;
  g_assert_cmpuint (reports, >, 2);
  g_main_context_iteration (NULL, FALSE);
  g_main_context_iteration (NULL, FALSE);
  g_main_context_iteration (NULL, FALSE);
  flushes = tb_session_get_flush_count (session) - flushes0;
  g_test_message ("%u reports in 1 s were delivered by %u flushes", reports, flushes);
  /* one idle carried all of them */
  g_assert_cmpuint (flushes, <=, 2);
  g_assert_cmpuint (tb_session_get_loss_values (session)->len - points0, >=, reports / 2);

  tb_session_stop (session);
  g_assert_true (tb_test_wait_for (&run.done, 30));
  g_clear_error (&run.error);
}

static void
test_stop (void)
{
  Run run = { 0 };
  g_autoptr(TbSession) session = new_session (500, "flatten; dense 64 relu; dense 10 softmax", data_dir, &run);
  g_autoptr(TbRun) result = NULL;
  gint64 t0;
  double waited;

  tb_session_run_async (session, NULL, done_cb, &run);
  g_assert_true (tb_test_wait_for (&run.saw_running, 60));
  tb_test_spin (200);
  g_assert_false (run.done);

  t0 = g_get_monotonic_time ();
  tb_session_stop (session);
  g_assert_true (tb_test_wait_for (&run.done, 30));
  waited = (g_get_monotonic_time () - t0) / 1e6;
  g_test_message ("stopped %.3f s after Stop", waited);
  /* a step here takes well under a millisecond: stopping "within a step"
   * leaves only the result write and the thread hand-off */
  g_assert_cmpfloat (waited, <, 2.0);
  g_assert_false (run.ok);
  g_assert_error (run.error, TB_SESSION_ERROR, NN_ERROR_CANCELLED);
  g_clear_error (&run.error);
  g_assert_cmpuint (tb_session_get_epochs (session)->len, <, 500);

  /* the stopped run is recorded as cancelled */
  g_assert_nonnull (tb_session_get_result_path (session));
  result = tb_run_load (tb_session_get_result_path (session), NULL);
  g_assert_nonnull (result);
  g_assert_cmpstr (result->status, ==, "cancelled");
}

static void
test_stop_before_start (void)
{
  Run run = { 0 };
  g_autoptr(TbSession) session = new_session (500, "flatten; dense 8 relu; dense 10 softmax", data_dir, &run);

  tb_session_run_async (session, NULL, done_cb, &run);
  tb_session_stop (session);  /* while the data set still loads */
  g_assert_true (tb_test_wait_for (&run.done, 60));
  g_assert_error (run.error, TB_SESSION_ERROR, NN_ERROR_CANCELLED);
  g_clear_error (&run.error);
}

static void
test_bad_input (void)
{
  Run run = { 0 };
  g_autofree char *missing = g_build_filename (tb_test_setup_env (), "no-such-data", NULL);
  g_autoptr(TbSession) bad_data = new_session (1, "flatten; dense 10 softmax", missing, &run);
  g_autoptr(TbSession) bad_spec = NULL;

  tb_session_run_async (bad_data, NULL, done_cb, &run);
  g_assert_true (tb_test_wait_for (&run.done, 30));
  g_assert_false (run.ok);
  g_assert_nonnull (run.error);
  g_assert_true (run.error->domain == TB_SESSION_ERROR);
  g_assert_cmpstr (run.error->message, !=, "");
  g_test_message ("bad data set: %s", run.error->message);
  g_clear_error (&run.error);

  memset (&run, 0, sizeof run);
  bad_spec = new_session (1, "flatten; dense 10 softmax; conv2d 8 3 relu", data_dir, &run);
  tb_session_run_async (bad_spec, NULL, done_cb, &run);
  g_assert_true (tb_test_wait_for (&run.done, 30));
  g_assert_false (run.ok);
  g_assert_nonnull (run.error);
  g_test_message ("bad model: %s", run.error->message);
  g_assert_true (run.error->code == NN_ERROR_SHAPE || run.error->code == NN_ERROR_SPEC);
  g_clear_error (&run.error);
}

int
main (int    argc,
      char **argv)
{
  const char *root = tb_test_setup_env ();

  g_test_init (&argc, &argv, NULL);
  main_thread = g_thread_self ();
  data_dir = g_build_filename (root, "tiny-idx", NULL);
  g_assert_true (tb_test_write_idx (data_dir, 512, 128, 10));

  g_test_add_func ("/session/complete", test_complete);
  g_test_add_func ("/session/adopt-dataset", test_adopt_dataset);
  g_test_add_func ("/session/coalesced", test_coalesced);
  g_test_add_func ("/session/stop", test_stop);
  g_test_add_func ("/session/stop-before-start", test_stop_before_start);
  g_test_add_func ("/session/bad-input", test_bad_input);
  return g_test_run ();
}
