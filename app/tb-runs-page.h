/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-runs-page.h: the Runs page: the runs of the history (the window's
 * TbRunHistory) filtered, ticked for comparison and its charts, imports
 * into the runs folder, the trash with Undo.
 */
#pragma once

#include <adwaita.h>

#include "tb-chart-view.h"
#include "tb-run-history.h"

G_BEGIN_DECLS

#define TB_TYPE_RUNS_PAGE (tb_runs_page_get_type ())
G_DECLARE_FINAL_TYPE (TbRunsPage, tb_runs_page, TB, RUNS_PAGE, GtkWidget)

/* The history the page shows (a reference is kept). */
void tb_runs_page_set_history (TbRunsPage   *self,
                               TbRunHistory *history);
/* List one new result file (a run just saved); `select` ticks it for the
 * comparison. */
void tb_runs_page_add (TbRunsPage *self,
                       const char *path,
                       gboolean    select);
/* Check and copy result files into the runs folder, in a worker; they are
 * then listed once each, ticked, and the Runs page shown. */
void tb_runs_page_import (TbRunsPage  *self,
                          GFile      **files,
                          guint        n_files);
/* Tick exactly the runs at `paths` (NULL-ended), also those still on
 * their way, and compare them. */
void tb_runs_page_compare (TbRunsPage         *self,
                           const char * const *paths);
/* Tick every run shown, or untick them all when all are ticked. */
void tb_runs_page_select_all (TbRunsPage *self);
/* Is the run at `path` ticked for comparison? */
gboolean tb_runs_page_get_ticked (TbRunsPage *self,
                                  const char *path);
/* TbRunItem: the history as the search and the filters show it. */
GListModel *tb_runs_page_get_shown (TbRunsPage *self);
/* TbRun *: the ticked runs shown, or all those shown when none is (owned). */
GPtrArray *tb_runs_page_get_export_runs (TbRunsPage *self);
/* The history's work still to do, and the page's (0: the list and the
 * charts are up to date but for the curves being read). */
guint tb_runs_page_get_n_pending (TbRunsPage *self);
/* The files of the runs folder last skipped, and the dialog text naming
 * them and why. */
guint tb_runs_page_get_n_skipped (TbRunsPage *self);
char *tb_runs_page_get_skipped_text (TbRunsPage *self);
TbChartView *tb_runs_page_get_chart (TbRunsPage *self,
                                     const char *name); /* "compare", "compare-accuracy", "compare-loss",
                                                         * "compare-breakdown" */

G_END_DECLS
