/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-train-page.h: the Train page: the device, the optimizer and training
 * settings, a run's progress and its four live charts.
 */
#pragma once

#include <gtk/gtk.h>

#include "tb-chart-view.h"
#include "tb-session.h"
#include "trainbench.h"

G_BEGIN_DECLS

#define TB_TYPE_TRAIN_PAGE (tb_train_page_get_type ())
G_DECLARE_FINAL_TYPE (TbTrainPage, tb_train_page, TB, TRAIN_PAGE, GtkWidget)

/* The devices, listed in a worker (tb-devices.h): pending until it answers
 * ("devices-pending" property). */
gboolean tb_train_page_get_devices_pending (TbTrainPage *self);
/* Stop waiting for the device list (the window closes): its answer then
 * leaves the page alone. */
void tb_train_page_cancel_device_list (TbTrainPage *self);
guint tb_train_page_get_n_devices (TbTrainPage *self);
const NnDeviceInfo *tb_train_page_get_device_info (TbTrainPage *self,
                                                   guint        index);
/* The chosen device, an index for tb_train_page_get_device_info, or -1
 * while none is ("device" property: its id, "cpu" or "cuda:N", or NULL). */
int tb_train_page_get_device_index (TbTrainPage *self);
/* Choose a device by kind and index, as a click on its row does; FALSE
 * when there is no usable one, or while the list is pending. */
gboolean tb_train_page_select_device (TbTrainPage *self,
                                      int          kind,
                                      int          index);

void tb_train_page_set_epochs (TbTrainPage *self,
                               int          epochs);
/* A preset's own optimizer, learning rate, batch size and epochs. */
void tb_train_page_use_preset (TbTrainPage    *self,
                               const NnPreset *preset);
/* Fill the optimizer, batch size, epochs, seed and device (the one at
 * `device`, an index for tb_train_page_get_device_info) of `config`; the
 * model, the data set and the runs folder are the other pages'. */
/* The Article Conditions rows: what the next run gets (fill_config), and
 * setting them (remembered in GSettings, as a change by hand is). */
void tb_train_page_get_conditions (TbTrainPage  *self,
                                   NnConditions *conditions);
void tb_train_page_set_conditions (TbTrainPage        *self,
                                   const NnConditions *conditions);
void tb_train_page_fill_config (TbTrainPage     *self,
                                TbSessionConfig *config,
                                guint            device);

/* Start a run of `config` (copied) and show it. When it is over, however
 * it ended, "run-finished" (result path or NULL, GError or NULL) says so. */
void tb_train_page_start (TbTrainPage           *self,
                          const TbSessionConfig *config);
/* Ask the run to stop (it ends within a step, saved as cancelled). */
void tb_train_page_stop (TbTrainPage *self);
/* Is a run going on ("training" property)? */
gboolean tb_train_page_get_training (TbTrainPage *self);
/* The current or last run (borrowed, may be NULL; "session" property). */
TbSession *tb_train_page_get_session (TbTrainPage *self);

/* "loss", "accuracy", "epoch-time" or "speed"; NULL for another name. */
TbChartView *tb_train_page_get_chart (TbTrainPage *self,
                                      const char  *name);

G_END_DECLS
