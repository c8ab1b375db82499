/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-run-queue.c: the batch of Reproduce the Articles: runs are asked for
 * one after the other, each when the last is over; a stopped or failed run
 * ends the batch; cancelling drops the runs not started; the end of a batch
 * gives every result file it wrote, in order.
 */
#include <gio/gio.h>

#include "tb-run-queue.h"

typedef struct
{
  GPtrArray *started;   /* char *: model_name of each "start-run", in order */
  char **finished;      /* the last "finished" paths */
  guint n_finished;
} Record;

static void
start_run_cb (TbRunQueue      *queue,
              TbSessionConfig *config,
              Record          *record)
{
  g_ptr_array_add (record->started, g_strdup (config->model_name));
}

static void
finished_cb (TbRunQueue         *queue,
             const char * const *paths,
             Record             *record)
{
  g_strfreev (record->finished);
  record->finished = g_strdupv ((char **) paths);
  record->n_finished++;
}

static TbRunQueue *
queue_new (Record *record)
{
  TbRunQueue *queue = tb_run_queue_new ();

  record->started = g_ptr_array_new_with_free_func (g_free);
  record->finished = NULL;
  record->n_finished = 0;
  g_signal_connect (queue, "start-run", G_CALLBACK (start_run_cb), record);
  g_signal_connect (queue, "finished", G_CALLBACK (finished_cb), record);
  return queue;
}

static void
record_clear (Record *record)
{
  g_ptr_array_unref (record->started);
  g_strfreev (record->finished);
}

static GPtrArray *
configs_new (guint n)
{
  GPtrArray *configs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_session_config_clear_free);

  for (guint i = 0; i < n; i++)
    {
      TbSessionConfig *config = g_new0 (TbSessionConfig, 1);

      tb_session_config_init (config);
      config->model_name = g_strdup_printf ("model-%u", i);
      g_ptr_array_add (configs, config);
    }
  return configs;
}

static void
test_in_order (void)
{
  Record record;
  TbRunQueue *queue = queue_new (&record);
  const char *expected[] = { "a.json", "c.json", NULL };

  g_assert_false (tb_run_queue_is_active (queue));
  tb_run_queue_start (queue, configs_new (3));
  /* the first at once, the others waiting */
  g_assert_true (tb_run_queue_is_active (queue));
  g_assert_cmpuint (record.started->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (record.started, 0), ==, "model-0");
  g_assert_cmpuint (tb_run_queue_get_n_pending (queue), ==, 2);

  /* the next when one is over, also when that one wrote no file */
  tb_run_queue_run_done (queue, "a.json", NULL);
  g_assert_cmpuint (record.started->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (record.started, 1), ==, "model-1");
  tb_run_queue_run_done (queue, NULL, NULL);
  g_assert_cmpuint (record.started->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (record.started, 2), ==, "model-2");
  g_assert_cmpuint (record.n_finished, ==, 0);

  tb_run_queue_run_done (queue, "c.json", NULL);
  g_assert_cmpuint (record.started->len, ==, 3);
  g_assert_cmpuint (record.n_finished, ==, 1);
  g_assert_cmpstrv (record.finished, expected);
  g_assert_false (tb_run_queue_is_active (queue));

  /* a run outside a batch (Train pressed) is none of its business */
  tb_run_queue_run_done (queue, "single.json", NULL);
  g_assert_cmpuint (record.n_finished, ==, 1);
  g_assert_cmpuint (record.started->len, ==, 3);

  g_assert_finalize_object (queue);
  record_clear (&record);
}

static void
test_failure_ends_batch (void)
{
  Record record;
  TbRunQueue *queue = queue_new (&record);
  g_autoptr(GError) error = g_error_new_literal (TB_SESSION_ERROR, NN_ERROR_DEVICE_MEMORY, "cpu: out of memory");
  const char *expected[] = { "a.json", "b.json", NULL };

  tb_run_queue_start (queue, configs_new (4));
  tb_run_queue_run_done (queue, "a.json", NULL);
  /* the failed run's file is kept (it records the failure), the rest is not run */
  tb_run_queue_run_done (queue, "b.json", error);
  g_assert_cmpuint (record.started->len, ==, 2);
  g_assert_cmpuint (record.n_finished, ==, 1);
  g_assert_cmpstrv (record.finished, expected);
  g_assert_false (tb_run_queue_is_active (queue));
  g_assert_cmpuint (tb_run_queue_get_n_pending (queue), ==, 0);

  g_assert_finalize_object (queue);
  record_clear (&record);
}

static void
test_cancel (void)
{
  Record record;
  TbRunQueue *queue = queue_new (&record);
  g_autoptr(GError) error = g_error_new_literal (TB_SESSION_ERROR, NN_ERROR_CANCELLED, "cancelled");
  const char *expected[] = { "a.json", "b.json", NULL };

  tb_run_queue_start (queue, configs_new (5));
  tb_run_queue_run_done (queue, "a.json", NULL);
  /* Stop: the runs not started are dropped; the one going on ends as
   * stopped, and the batch with it, its files so far given */
  tb_run_queue_cancel (queue);
  g_assert_cmpuint (tb_run_queue_get_n_pending (queue), ==, 0);
  g_assert_true (tb_run_queue_is_active (queue));
  g_assert_cmpuint (record.n_finished, ==, 0);
  tb_run_queue_run_done (queue, "b.json", error);
  g_assert_cmpuint (record.started->len, ==, 2);
  g_assert_cmpuint (record.n_finished, ==, 1);
  g_assert_cmpstrv (record.finished, expected);
  g_assert_false (tb_run_queue_is_active (queue));

  g_assert_finalize_object (queue);
  record_clear (&record);
}

static void
test_restart_and_empty (void)
{
  Record record;
  TbRunQueue *queue = queue_new (&record);
  const char *none[] = { NULL };
  const char *only_new[] = { "new.json", NULL };

  /* an empty batch is over at once, with no files */
  tb_run_queue_start (queue, configs_new (0));
  g_assert_cmpuint (record.started->len, ==, 0);
  g_assert_cmpuint (record.n_finished, ==, 1);
  g_assert_cmpstrv (record.finished, none);

  /* a new batch replaces one not done: the old runs and files are dropped
   * (freed: finalizing the queue with them checks no leak of configs under
   * a leak checker) */
  tb_run_queue_start (queue, configs_new (3));
  tb_run_queue_run_done (queue, "old.json", NULL);
  tb_run_queue_start (queue, configs_new (1));
  g_assert_cmpuint (record.started->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (record.started, 2), ==, "model-0");
  g_assert_cmpuint (tb_run_queue_get_n_pending (queue), ==, 0);
  tb_run_queue_run_done (queue, "new.json", NULL);
  g_assert_cmpuint (record.n_finished, ==, 2);
  g_assert_cmpstrv (record.finished, only_new);

  /* finalized in the middle of a batch */
  tb_run_queue_start (queue, configs_new (2));
  g_assert_finalize_object (queue);
  record_clear (&record);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/run-queue/in-order", test_in_order);
  g_test_add_func ("/run-queue/failure-ends-batch", test_failure_ends_batch);
  g_test_add_func ("/run-queue/cancel", test_cancel);
  g_test_add_func ("/run-queue/restart-and-empty", test_restart_and_empty);
  return g_test_run ();
}
