/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-explore-page.h: the Explore page: a sweep of many short runs over a
 * grid (model family, axes, devices, steps), run through the engine's
 * sweep in a worker, with its progress and live charts; sweep files opened
 * from anywhere, and the runs folder's recent sweeps.
 */
#pragma once

#include <gtk/gtk.h>

#include "tb-chart-view.h"
#include "tb-sweep.h"
#include "trainbench.h"

G_BEGIN_DECLS

#define TB_TYPE_EXPLORE_PAGE (tb_explore_page_get_type ())
G_DECLARE_FINAL_TYPE (TbExplorePage, tb_explore_page, TB, EXPLORE_PAGE, GtkWidget)

/* What the window tells the page: the devices (the Train page's list;
 * unusable ones are shown insensitive with their reason), the data set
 * (the Data page's, with its limit of training samples) and the runs
 * folder (whose sweeps/ are listed). */
void tb_explore_page_set_devices (TbExplorePage      *self,
                                  const NnDeviceInfo *devices,
                                  guint               n_devices);
void tb_explore_page_set_dataset (TbExplorePage *self,
                                  const char    *name_or_path,
                                  int            train_limit);
void tb_explore_page_set_runs_folder (TbExplorePage *self,
                                      const char    *folder);
/* Read the runs folder's sweeps again (in a worker). */
void tb_explore_page_reload (TbExplorePage *self);

/* Open a sweep file (read in a worker; an error is said on the page). */
void tb_explore_page_open_file (TbExplorePage *self,
                                const char    *path);
/* Show a sweep already read (a reference is taken). */
void tb_explore_page_show_sweep (TbExplorePage *self,
                                 TbSweep       *sweep);

/* The sweep's settings, as a user sets them (for tests and the command
 * line): the family ("mlp", "cnn", "spec"), an axis' values ("32,128"; ""
 * leaves it out), a device on or off ("cpu", "cuda:0"), the steps. */
void tb_explore_page_set_family (TbExplorePage *self,
                                 const char    *family);
gboolean tb_explore_page_set_axis (TbExplorePage *self,
                                   const char    *name,
                                   const char    *values);
gboolean tb_explore_page_set_device_active (TbExplorePage *self,
                                            const char    *id,
                                            gboolean       active);
void tb_explore_page_set_steps (TbExplorePage *self,
                                int            steps);

/* Why no sweep may start now (a run is training: both would share the
 * machine and time each other's work), or NULL when one may. */
void tb_explore_page_set_busy (TbExplorePage *self,
                               const char    *reason);

/* Start the sweep set on the page; FALSE (and the reason on the page) when
 * it cannot start. Stop keeps the points done. */
gboolean tb_explore_page_start (TbExplorePage *self);
void tb_explore_page_stop (TbExplorePage *self);
gboolean tb_explore_page_get_running (TbExplorePage *self);

/* The sweep shown (borrowed, may be NULL), the page's message ("" when
 * none), the number of recent sweeps listed, and its charts: "sweep",
 * "crossover". */
TbSweep *tb_explore_page_get_sweep (TbExplorePage *self);
const char *tb_explore_page_get_message (TbExplorePage *self);
guint tb_explore_page_get_n_recent (TbExplorePage *self);
TbChartView *tb_explore_page_get_chart (TbExplorePage *self,
                                        const char    *name);

G_END_DECLS
