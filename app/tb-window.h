/* tb-window.h: the main window: Model, Data, Train and Runs pages. */
#pragma once

#include <adwaita.h>

#include "tb-chart-view.h"
#include "tb-model-builder.h"

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
/* Choose a device by kind and index; FALSE when there is no usable one, or
 * while the device list is still being read (tb-devices.c). */
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

G_END_DECLS
