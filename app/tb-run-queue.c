/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-run-queue.c: the batch of runs of Reproduce the Articles. It starts
 * nothing itself: "start-run" hands the next config to whoever runs sessions
 * (the window), which reports back with tb_run_queue_run_done.
 */
#define G_LOG_DOMAIN "trainbench-run-queue"

#include "tb-config.h"

#include "tb-run-queue.h"

struct _TbRunQueue
{
  GObject parent_instance;

  /* owned */
  GQueue *pending;       /* TbSessionConfig *: runs still to do, in order */
  GPtrArray *results;    /* char *: result files of the batch; NULL outside one */
};

G_DEFINE_FINAL_TYPE (TbRunQueue, tb_run_queue, G_TYPE_OBJECT)

enum
{
  SIGNAL_START_RUN,
  SIGNAL_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
clear_pending (TbRunQueue *self)
{
  g_queue_clear_full (self->pending, (GDestroyNotify) tb_session_config_clear_free);
}

/* Ask for the next run, or end the batch when none is left. */
static void
advance (TbRunQueue *self)
{
  TbSessionConfig *config = g_queue_pop_head (self->pending);

  if (config != NULL)
    {
      g_signal_emit (self, signals[SIGNAL_START_RUN], 0, config);
      tb_session_config_clear_free (config);
      return;
    }
  {
    g_autoptr(GPtrArray) results = g_steal_pointer (&self->results);

    g_ptr_array_add (results, NULL);
    g_signal_emit (self, signals[SIGNAL_FINISHED], 0, (const char * const *) results->pdata);
  }
}

void
tb_run_queue_start (TbRunQueue *self,
                    GPtrArray  *configs)
{
  g_return_if_fail (TB_IS_RUN_QUEUE (self));
  g_return_if_fail (configs != NULL);

  clear_pending (self);
  g_clear_pointer (&self->results, g_ptr_array_unref);
  self->results = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < configs->len; i++)
    g_queue_push_tail (self->pending, g_ptr_array_index (configs, i));
  /* the configs are the queue's now, not the array's */
  g_ptr_array_set_free_func (configs, NULL);
  g_ptr_array_unref (configs);
  advance (self);
}

void
tb_run_queue_run_done (TbRunQueue   *self,
                       const char   *result_path,
                       const GError *error)
{
  g_return_if_fail (TB_IS_RUN_QUEUE (self));

  if (self->results == NULL)
    return;
  if (result_path != NULL)
    g_ptr_array_add (self->results, g_strdup (result_path));
  /* a stopped run stops the batch; a failed one would fail the same way on
   * the next model of the same data set and device, so it stops it too */
  if (error != NULL)
    clear_pending (self);
  advance (self);
}

void
tb_run_queue_cancel (TbRunQueue *self)
{
  g_return_if_fail (TB_IS_RUN_QUEUE (self));
  clear_pending (self);
}

gboolean
tb_run_queue_is_active (TbRunQueue *self)
{
  g_return_val_if_fail (TB_IS_RUN_QUEUE (self), FALSE);
  return self->results != NULL;
}

guint
tb_run_queue_get_n_pending (TbRunQueue *self)
{
  g_return_val_if_fail (TB_IS_RUN_QUEUE (self), 0);
  return g_queue_get_length (self->pending);
}

static void
tb_run_queue_finalize (GObject *object)
{
  TbRunQueue *self = TB_RUN_QUEUE (object);

  g_queue_free_full (self->pending, (GDestroyNotify) tb_session_config_clear_free);
  g_clear_pointer (&self->results, g_ptr_array_unref);
  G_OBJECT_CLASS (tb_run_queue_parent_class)->finalize (object);
}

static void
tb_run_queue_class_init (TbRunQueueClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = tb_run_queue_finalize;

  /* TbRunQueue::start-run: (config: TbSessionConfig *, borrowed for the
   * emission) start this run now; report its end with run_done. */
  signals[SIGNAL_START_RUN] =
    g_signal_new ("start-run", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  /* TbRunQueue::finished: (paths: the batch's result files, NULL-ended) the
   * batch is over, completed or not. */
  signals[SIGNAL_FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRV);
}

static void
tb_run_queue_init (TbRunQueue *self)
{
  self->pending = g_queue_new ();
}

TbRunQueue *
tb_run_queue_new (void)
{
  return g_object_new (TB_TYPE_RUN_QUEUE, NULL);
}
