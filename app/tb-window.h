/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-window.h: the main window: Model, Data, Train, Runs and Explore pages. */
#pragma once

#include <adwaita.h>

#include "tb-articles-page.h"
#include "tb-chart-view.h"
#include "tb-explore-page.h"
#include "tb-model-builder.h"
#include "tb-runs-page.h"
#include "tb-train-page.h"

G_BEGIN_DECLS

#define TB_TYPE_WINDOW (tb_window_get_type ())
G_DECLARE_FINAL_TYPE (TbWindow, tb_window, TB, WINDOW, AdwApplicationWindow)

TbWindow *tb_window_new (AdwApplication *application);

/* For tests and the command line: the parts a user works with. */
TbModelBuilder *tb_window_get_builder (TbWindow *self);
void tb_window_set_dataset (TbWindow   *self,
                            const char *name_or_path,
                            int         train_limit,
                            int         test_limit);
/* Choose a device by kind and index (on the Train page); FALSE when there
 * is no usable one, or while the device list is still being read. */
gboolean tb_window_select_device (TbWindow *self,
                                  int       kind,
                                  int       index);
void tb_window_set_epochs (TbWindow *self,
                           int       epochs);
/* Can a run start now (valid model, data set, usable device, none running)? */
gboolean tb_window_start_enabled (TbWindow *self);
/* Is a run going on? */
gboolean tb_window_is_training (TbWindow *self);
/* The session of the current or last run (borrowed, may be NULL). */
gpointer tb_window_get_session (TbWindow *self);
TbChartView *tb_window_get_chart (TbWindow   *self,
                                  const char *name); /* "loss", "accuracy", "epoch-time", "speed", "compare", "compare-accuracy", "compare-loss" */
/* Select the runs (by result path) shown in the comparison. */
void tb_window_compare (TbWindow    *self,
                        const char **paths);
void tb_window_show_page (TbWindow   *self,
                          const char *name);
/* Check and copy result files into the runs folder (a drop, the command
 * line), then list them, ticked, on the Runs page; sweep files ("kind":
 * "trainbench-sweep") open on the Explore page instead. */
void tb_window_import (TbWindow  *self,
                       GFile    **files,
                       guint      n_files);
/* How many opened files are still being sorted (sweeps from runs). */
guint tb_window_get_n_opening (TbWindow *self);
/* The history of the runs folder, which the pages observe. */
TbRunHistory *tb_window_get_history (TbWindow *self);
TbRunsPage *tb_window_get_runs_page (TbWindow *self);
TbTrainPage *tb_window_get_train_page (TbWindow *self);
TbExplorePage *tb_window_get_explore_page (TbWindow *self);
TbArticlesPage *tb_window_get_articles_page (TbWindow *self);

/* For the pages: a toast at the window's foot (taken), or one with this
 * text (bounded, and shown as text: never markup); a dialog for a problem the user must read, with the
 * error's message (bounded: a message can quote a file's text). */
void tb_window_add_toast (TbWindow *self,
                          AdwToast *toast);
void tb_window_toast (TbWindow   *self,
                      const char *text);
void tb_window_error (TbWindow     *self,
                      const char   *headline,
                      const GError *error);
/* `text` made valid UTF-8 and cut to at most `max_chars` characters,
 * ending in "…", so a label or a dialog with text from a file keeps a size
 * that fits a screen. */
char *tb_window_bound_text (const char *text,
                            gsize       max_chars);

G_END_DECLS
