/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-run-queue.h: runs to do one after the other (Reproduce the Articles):
 * the next one is asked for when one finishes, a stopped or failed run ends
 * the batch, and the batch's result files come out together at its end.
 */
#pragma once

#include <glib-object.h>

#include "tb-session.h"

G_BEGIN_DECLS

#define TB_TYPE_RUN_QUEUE (tb_run_queue_get_type ())
G_DECLARE_FINAL_TYPE (TbRunQueue, tb_run_queue, TB, RUN_QUEUE, GObject)

TbRunQueue *tb_run_queue_new (void);

/* Begin a batch of `configs` (TbSessionConfig *, each heap-allocated, taken
 * with the array), replacing any batch not done; "start-run" asks for the
 * first. An empty batch finishes at once. */
void tb_run_queue_start (TbRunQueue *self,
                         GPtrArray  *configs);
/* The run last asked for is over: `result_path` is its file (or NULL), and
 * `error` NULL when it completed. A stopped or failed run ends the batch;
 * otherwise "start-run" asks for the next. When none is left, "finished"
 * gives every result file of the batch. Outside a batch it does nothing. */
void tb_run_queue_run_done (TbRunQueue   *self,
                            const char   *result_path,
                            const GError *error);
/* Drop the runs not started yet; the one going on still ends with
 * tb_run_queue_run_done, which then finishes the batch. */
void tb_run_queue_cancel (TbRunQueue *self);
/* Is a batch going on (started, not finished)? */
gboolean tb_run_queue_is_active (TbRunQueue *self);
/* Runs of the batch not started yet. */
guint tb_run_queue_get_n_pending (TbRunQueue *self);

G_END_DECLS
