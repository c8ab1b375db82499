/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-run-history.h: the runs folder as a list model of its runs, each a
 * summary of its result file: read in the background in batches, kept up
 * to date by watching the folder, with imports into it, the trash and
 * Undo. The window owns it and gives it to the pages, which observe it;
 * it is the one place in the app that reads the folder's result files.
 */
#pragma once

#include <gio/gio.h>

#include "tb-run.h"

G_BEGIN_DECLS

/* What the Runs page's filters choose among, one value per run. */
typedef enum
{
  TB_RUN_LABEL_MODEL,
  TB_RUN_LABEL_DATASET,
  TB_RUN_LABEL_DEVICE,
  TB_RUN_LABEL_OS,
  TB_RUN_N_LABELS,
} TbRunLabel;

/* A run of the history, as an item of its list model: the summary and
 * what the rows are filtered and searched by, made with it off the main
 * thread. Items do not change; a run read again is a new item. */
#define TB_TYPE_RUN_ITEM (tb_run_item_get_type ())
G_DECLARE_FINAL_TYPE (TbRunItem, tb_run_item, TB, RUN_ITEM, GObject)

/* The summary (tb_run_load_summary), borrowed from the item. */
TbRun *tb_run_item_get_run (TbRunItem *self);
/* "mlp-small", "fashion-mnist", "CPU · AMD Ryzen 9", "Debian GNU/Linux 12". */
const char *tb_run_item_get_label (TbRunItem  *self,
                                   TbRunLabel  label);
/* What a row shows: tb_run_title, tb_run_details, tb_run_error_line (NULL
 * for none) and tb_run_started_label (NULL for no readable time). */
const char *tb_run_item_get_title (TbRunItem *self);
const char *tb_run_item_get_details (TbRunItem *self);
const char *tb_run_item_get_error_line (TbRunItem *self);
const char *tb_run_item_get_started (TbRunItem *self);
/* The text a search looks in (casefolded): what the row shows and says of
 * itself (status, run id, spec, file name). */
const char *tb_run_item_get_search_text (TbRunItem *self);

/* GListModel of TbRunItem, in tb_run_compare order (newest first). */
#define TB_TYPE_RUN_HISTORY (tb_run_history_get_type ())
G_DECLARE_FINAL_TYPE (TbRunHistory, tb_run_history, TB, RUN_HISTORY, GObject)

/* The history of the runs folder chosen in the preferences (or the
 * default one), whose first read starts at once, in a worker. */
TbRunHistory *tb_run_history_new (void);

/* The runs folder it lists. */
const char *tb_run_history_get_folder (TbRunHistory *self);
/* Read the whole runs folder again, in a worker; the list follows in
 * batches, and loses the runs whose files went once the read is done. */
void tb_run_history_reload (TbRunHistory *self);
/* Read one new result file (a run just saved), in a worker, and list it. */
void tb_run_history_add (TbRunHistory *self,
                         const char   *path);
/* The item of the result file at `path`, or NULL (borrowed: valid while
 * it is listed). */
TbRunItem *tb_run_history_lookup (TbRunHistory *self,
                                  const char   *path);
/* The run at `position` (borrowed, as above). */
TbRun *tb_run_history_get_run (TbRunHistory *self,
                               guint         position);
/* The values of a label that the runs listed have, each once, in no order
 * (an array of strings borrowed from the history: valid until it changes). */
GPtrArray *tb_run_history_get_labels (TbRunHistory *self,
                                      TbRunLabel    label);
/* Reads, imports, deletions and Undos queued or in their workers, and a
 * change of the folder seen but not read yet (0: the list is up to date). */
guint tb_run_history_get_n_pending (TbRunHistory *self);
/* Is the first read of the folder under way (nothing listed yet)? */
gboolean tb_run_history_get_loading (TbRunHistory *self);
/* GError *: the files of the runs folder last found unreadable, each named
 * with why (borrowed). */
GPtrArray *tb_run_history_get_skipped (TbRunHistory *self);

/* Check and copy result files into the runs folder, in a worker, and list
 * them. */
void tb_run_history_import_async (TbRunHistory         *self,
                                  GFile               **files,
                                  guint                 n_files,
                                  GAsyncReadyCallback   callback,
                                  gpointer              user_data);
/* TbRun *: the runs imported or already there, listed (owned array);
 * `n_copied`: how many were new to the folder; `errors` (owned array of
 * GError *): the files refused, each named with why. */
GPtrArray *tb_run_history_import_finish (TbRunHistory  *self,
                                         GAsyncResult  *result,
                                         guint         *n_copied,
                                         GPtrArray    **errors);

/* Runs moved to the trash together, for Undo. */
typedef struct _TbDeletion TbDeletion;

TbDeletion *tb_deletion_ref (TbDeletion *deletion);
void tb_deletion_unref (TbDeletion *deletion);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TbDeletion, tb_deletion_unref)
/* How many runs went (and have not been put back). */
guint tb_deletion_get_n_runs (TbDeletion *deletion);

/* Move the files of `runs` (TbRun *) to the trash, in a worker, and take
 * them out of the list; a file gone already is only taken out. A file that
 * cannot go to the trash stays where it is, listed. */
void tb_run_history_trash_async (TbRunHistory        *self,
                                 GPtrArray           *runs,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data);
/* The deletion, for Undo; `errors` (owned array of GError *): the files
 * that stayed, each named with why. */
TbDeletion *tb_run_history_trash_finish (TbRunHistory  *self,
                                         GAsyncResult  *result,
                                         GPtrArray    **errors);
/* Put the runs of a deletion back, in a worker (tb_trash_restore), and
 * list them again. */
void tb_run_history_undo_async (TbRunHistory        *self,
                                TbDeletion          *deletion,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data);
/* TbRun *: the runs put back (owned array); `errors` as above. */
GPtrArray *tb_run_history_undo_finish (TbRunHistory  *self,
                                       GAsyncResult  *result,
                                       GPtrArray    **errors);

/* Read `runs` (TbRun *) whole again, in a worker, for their curves. */
void tb_run_history_read_whole_async (TbRunHistory        *self,
                                      GPtrArray           *runs,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
/* TbRun *: the whole runs in the order asked (owned array); a run whose
 * file no longer reads is left out. NULL when cancelled. */
GPtrArray *tb_run_history_read_whole_finish (TbRunHistory  *self,
                                             GAsyncResult  *result,
                                             GError       **error);

G_END_DECLS
