/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-session-record.c: every run the GUI starts leaves a result file, as
 * TbSession runs it: a data set that does not exist and a model that does
 * not fit are recorded as failed with the message, and cancelling the
 * GCancellable given to tb_session_run_async stops the trainer and records
 * the run as cancelled.
 */
#include <string.h>

#include "tb-run.h"
#include "tb-session.h"
#include "test-gui-util.h"

static char *data_dir;

typedef struct
{
  gboolean done;
  gboolean ok;
  GError *error;
  gboolean saw_running;
} Run;

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
  config.model_name = g_strdup ("record-test");
  config.dataset = g_strdup (dataset);
  config.epochs = epochs;
  config.batch_size = 16;
  config.device.threads = 2;
  config.runs_dir = g_build_filename (tb_test_setup_env (), "runs", NULL);
  session = tb_session_new (&config);
  tb_session_config_clear (&config);
  g_signal_connect (session, "state-changed", G_CALLBACK (state_cb), run);
  return session;
}

/* Run to the end; returns the result file as read back (it must exist). */
static TbRun *
run_and_load (TbSession    *session,
              GCancellable *cancellable,
              Run          *run)
{
  g_autoptr(GError) error = NULL;
  const char *path;
  TbRun *result;

  tb_session_run_async (session, cancellable, done_cb, run);
  g_assert_true (tb_test_wait_for (&run->done, 60));
  path = tb_session_get_result_path (session);
  g_assert_nonnull (path);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  result = tb_run_load (path, &error);
  g_assert_no_error (error);
  return result;
}

static void
test_missing_dataset (void)
{
  Run run = { 0 };
  g_autofree char *missing = g_build_filename (tb_test_setup_env (), "no-such-data", NULL);
  g_autoptr(TbSession) session = new_session (1, "flatten; dense 10 softmax", missing, &run);
  g_autoptr(TbRun) result = run_and_load (session, NULL, &run);

  g_assert_false (run.ok);
  g_assert_nonnull (run.error);
  g_assert_cmpstr (result->status, ==, "failed");
  /* the file says what went wrong, as the error does: the path asked for */
  g_assert_nonnull (result->error);
  g_assert_nonnull (strstr (result->error, "no-such-data"));
  g_assert_cmpstr (result->error, ==, run.error->message);
  g_assert_cmpstr (result->spec, ==, "flatten; dense 10 softmax");
  g_assert_cmpstr (result->model_name, ==, "record-test");
  g_clear_error (&run.error);
}

static void
test_bad_spec (void)
{
  Run run = { 0 };
  const char *spec = "flatten; dense 10 softmax; conv2d 8 3 relu";
  g_autoptr(TbSession) session = new_session (1, spec, data_dir, &run);
  g_autoptr(TbRun) result = run_and_load (session, NULL, &run);

  g_assert_false (run.ok);
  g_assert_nonnull (run.error);
  g_assert_true (run.error->code == NN_ERROR_SHAPE || run.error->code == NN_ERROR_SPEC);
  g_assert_cmpstr (result->status, ==, "failed");
  g_assert_nonnull (result->error);
  /* the message names the layer that does not fit */
  g_assert_nonnull (strstr (result->error, "conv2d"));
  g_assert_cmpstr (result->spec, ==, spec);
  /* the data set was read: the file says which, and how big */
  g_assert_cmpint (result->train_samples, ==, 256);
  g_assert_cmpint (result->test_samples, ==, 64);
  g_clear_error (&run.error);
}

static void
test_cancellable (void)
{
  Run run = { 0 };
  g_autoptr(TbSession) session = new_session (2000, "flatten; dense 64 relu; dense 10 softmax",
                                              data_dir, &run);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(TbRun) result = NULL;
  gint64 t0;

  tb_session_run_async (session, cancellable, done_cb, &run);
  g_assert_true (tb_test_wait_for (&run.saw_running, 60));
  tb_test_spin (200);
  g_assert_false (run.done);

  t0 = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  g_assert_true (tb_test_wait_for (&run.done, 30));
  g_test_message ("stopped %.3f s after the cancel", (g_get_monotonic_time () - t0) / 1e6);
  /* the session's own error, not GIO's: the window shows its headline */
  g_assert_error (run.error, TB_SESSION_ERROR, NN_ERROR_CANCELLED);
  g_clear_error (&run.error);
  g_assert_cmpuint (tb_session_get_epochs (session)->len, <, 2000);

  g_assert_nonnull (tb_session_get_result_path (session));
  result = tb_run_load (tb_session_get_result_path (session), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (result->status, ==, "cancelled");
  g_assert_cmpint (result->step_count, >, 0);
}

static void
test_cancelled_before_start (void)
{
  Run run = { 0 };
  g_autoptr(TbSession) session = new_session (1, "flatten; dense 10 softmax", data_dir, &run);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(TbRun) result = NULL;

  g_cancellable_cancel (cancellable);
  result = run_and_load (session, cancellable, &run);
  g_assert_error (run.error, TB_SESSION_ERROR, NN_ERROR_CANCELLED);
  g_clear_error (&run.error);
  g_assert_cmpstr (result->status, ==, "cancelled");
  g_assert_cmpint (result->step_count, ==, 0);
}

int
main (int    argc,
      char **argv)
{
  const char *root = tb_test_setup_env ();

  g_test_init (&argc, &argv, NULL);
  data_dir = g_build_filename (root, "tiny-idx", NULL);
  g_assert_true (tb_test_write_idx (data_dir, 256, 64, 10));

  g_test_add_func ("/session-record/missing-dataset", test_missing_dataset);
  g_test_add_func ("/session-record/bad-spec", test_bad_spec);
  g_test_add_func ("/session-record/cancellable", test_cancellable);
  g_test_add_func ("/session-record/cancelled-before-start", test_cancelled_before_start);
  return g_test_run ();
}
