/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-runs-page.h: the Runs page: the history of result files, the runs
 * ticked for comparison and its charts, imports into the runs folder.
 */
#pragma once

#include <adwaita.h>

#include "tb-chart-view.h"
#include "tb-run.h"

G_BEGIN_DECLS

#define TB_TYPE_RUNS_PAGE (tb_runs_page_get_type ())
G_DECLARE_FINAL_TYPE (TbRunsPage, tb_runs_page, TB, RUNS_PAGE, GtkWidget)

/* The runs folder chosen in the preferences, or the default one. */
char *tb_runs_page_get_folder (TbRunsPage *self);
/* Read the whole runs folder again, in a worker; the rows follow. */
void tb_runs_page_reload (TbRunsPage *self);
/* Read one new result file (a run just saved), in a worker, and add its
 * row; `select` ticks it for the comparison. */
void tb_runs_page_add (TbRunsPage *self,
                       const char *path,
                       gboolean    select);
/* Check and copy result files into the runs folder, in a worker; they are
 * then listed once each, ticked, and the Runs page shown. */
void tb_runs_page_import (TbRunsPage  *self,
                          GFile      **files,
                          guint        n_files);
/* Tick exactly the runs at `paths` (NULL-ended), also those whose rows
 * are still on their way, and compare them. */
void tb_runs_page_compare (TbRunsPage         *self,
                           const char * const *paths);
/* Tick every run, or untick them all when all are ticked. */
void tb_runs_page_select_all (TbRunsPage *self);
/* TbRun *: the ticked runs, or the whole history when none is (owned). */
GPtrArray *tb_runs_page_get_export_runs (TbRunsPage *self);
/* The history, in tb_run_compare order, one per row (borrowed). */
GPtrArray *tb_runs_page_get_runs (TbRunsPage *self);
/* History loads queued or in their worker (0: the rows are up to date). */
guint tb_runs_page_get_n_pending (TbRunsPage *self);
/* The files of the runs folder last skipped, and the dialog text naming
 * them and why. */
guint tb_runs_page_get_n_skipped (TbRunsPage *self);
char *tb_runs_page_get_skipped_text (TbRunsPage *self);
TbChartView *tb_runs_page_get_chart (TbRunsPage *self,
                                     const char *name); /* "compare", "compare-accuracy", "compare-loss",
                                                         * "compare-breakdown" */

G_END_DECLS
