/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-window-private.h: the main window's instance struct, shared by
 * tb-window.c (the frame, the wiring of the pages, the runs' messages) and
 * tb-window-actions.c (the window's actions).
 */
#pragma once

#include <adwaita.h>

#include "tb-articles-page.h"
#include "tb-data-page.h"
#include "tb-explore-page.h"
#include "tb-model-builder.h"
#include "tb-model-page.h"
#include "tb-run-queue.h"
#include "tb-runs-page.h"
#include "tb-session.h"
#include "tb-train-page.h"
#include "tb-window.h"

struct _TbWindow
{
  AdwApplicationWindow parent_instance;

  /* owned */
  TbRunHistory *history;         /* the runs folder's runs, which the pages observe */
  TbRunQueue *run_queue;         /* runs still to do (reproduce) */
  AdwToast *last_toast;          /* weak */
  gboolean close_when_done;      /* closed during a run: go once it is saved */
  gboolean close_when_kept;      /* closed, but the run's result was not written: go once
                                  * it is saved elsewhere or discarded */
  char *unsaved_why;             /* why the last run's result is not written, while that is
                                  * not settled (saved elsewhere, or discarded) */
  AdwMessageDialog *save_dialog; /* weak: the offer to save it elsewhere, while shown */
  guint n_opening;               /* opened files still being sorted */

  /* borrowed */
  TbModelBuilder *builder;       /* model_page's */

  /* template widgets */
  AdwToastOverlay *toast_overlay;
  AdwViewStack *stack;
  AdwViewSwitcherTitle *switcher_title;
  GtkWidget *start_button;
  GtkWidget *stop_button;
  TbModelPage *model_page;
  TbDataPage *data_page;
  TbTrainPage *train_page;
  TbRunsPage *runs_page;
  TbExplorePage *explore_page;
  TbArticlesPage *articles_page;
};

/* tb-window.c */
/* Dismiss the toast shown last (before a screenshot, say). */
void _tb_window_dismiss_toast (TbWindow *self);
/* The toast shown last, while it is shown (weak). */
AdwToast *_tb_window_get_last_toast (TbWindow *self);
void _tb_window_update_actions (TbWindow *self);
/* Whether every run of `configs` (TbSessionConfig *) can be saved in its
 * runs folder; if not, says why in a dialog. */
gboolean _tb_window_check_runs_folder (TbWindow  *self,
                                       GPtrArray *configs);
/* Save the last run's result, which its runs folder could not take, as
 * `path` (what Save As in the offer to save it does); FALSE, and the offer
 * made again with the reason, when that fails too. */
gboolean _tb_window_save_run_as (TbWindow   *self,
                                 const char *path);
/* The Train page's devices, a copy (free it), their count in *n. */
NnDeviceInfo *_tb_window_get_devices (TbWindow *self,
                                      guint    *n);
/* The settings of the pages as a session config, on the Train page's
 * device `device`. */
void _tb_window_collect_config (TbWindow        *self,
                                TbSessionConfig *config,
                                guint            device);

/* Open files (the Open dialog, a drop, the command line): sweep files go to
 * the Explore page, the others are imported as runs (sorted in a worker). */
void _tb_window_open_files (TbWindow  *self,
                            GFile    **files,
                            guint      n_files);

/* tb-window-actions.c: installs the win.* actions and their shortcuts. */
void _tb_window_actions_class_init (GtkWidgetClass *widget_class);
/* The window's own shortcuts that must come before its widgets'. */
void _tb_window_actions_init (TbWindow *self);
