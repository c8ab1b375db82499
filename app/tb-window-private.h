/* tb-window-private.h: the main window's instance struct, shared by
 * tb-window.c (frame, Train page, the runs' life cycle) and
 * tb-window-actions.c (the window's actions).
 */
#pragma once

#include <adwaita.h>

#include "tb-chart-view.h"
#include "tb-data-page.h"
#include "tb-devices.h"
#include "tb-model-builder.h"
#include "tb-model-page.h"
#include "tb-run.h"
#include "tb-run-queue.h"
#include "tb-runs-page.h"
#include "tb-session.h"
#include "tb-window.h"

struct _TbWindow
{
  AdwApplicationWindow parent_instance;

  /* owned */
  GSettings *settings;
  TbSession *session;            /* the current or last run */
  TbRunQueue *run_queue;         /* runs still to do (reproduce) */
  GCancellable *devices_cancellable; /* the device list's worker; NULL once it answered */
  NnDeviceInfo devices[TB_MAX_DEVICES];
  int n_devices;                 /* 0 until the worker has listed them */
  int device_index;              /* index into devices[] */
  GtkWidget *device_checks[TB_MAX_DEVICES]; /* the radio button of each device */
  guint loss_shown;              /* points already in the loss chart */
  guint speed_shown;
  guint epochs_shown;
  AdwToast *last_toast;          /* weak */
  gint64 last_redraw;            /* monotonic µs of the last live-chart redraw */
  guint redraw_source;           /* pending throttled redraw */
  gboolean close_when_done;      /* closed during a run: go once it is saved */

  /* template widgets */
  AdwToastOverlay *toast_overlay;
  AdwViewStack *stack;
  AdwViewSwitcherTitle *switcher_title;
  GtkWidget *start_button;
  GtkWidget *stop_button;
  TbModelPage *model_page;
  TbDataPage *data_page;
  GtkPaned *train_page;
  TbRunsPage *runs_page;

  /* Model page */
  TbModelBuilder *builder;        /* borrowed from model_page */

  /* Train page */
  GtkWidget *device_group;        /* AdwPreferencesGroup: a radio row per device */
  GtkWidget *device_looking_row;  /* in the group until the devices are listed */
  GtkWidget *threads_spin;
  GtkWidget *optimizer_row;       /* AdwComboRow */
  GtkWidget *lr_spin;
  GtkWidget *momentum_row;
  GtkWidget *momentum_spin;
  GtkWidget *rho_row;
  GtkWidget *rho_spin;
  GtkWidget *beta1_row;
  GtkWidget *beta1_spin;
  GtkWidget *beta2_row;
  GtkWidget *beta2_spin;
  GtkWidget *batch_spin;
  GtkWidget *epochs_spin;
  GtkWidget *seed_spin;
  GtkWidget *tf32_switch;
  GtkWidget *tf32_row;
  GtkWidget *train_start_button;
  GtkWidget *inspect_button;
  GtkWidget *progress_bar;
  GtkWidget *eta_label;
  GtkWidget *status_label;
  TbChartView *loss_chart;
  TbChartView *accuracy_chart;
  TbChartView *epoch_time_chart;
  TbChartView *speed_chart;
};

/* tb-window.c */
/* Dismiss the toast shown last (before a screenshot, say). */
void _tb_window_dismiss_toast (TbWindow *self);
/* The toast shown last, while it is shown (weak). */
AdwToast *_tb_window_get_last_toast (TbWindow *self);
void _tb_window_update_actions (TbWindow *self);
/* Is the device list still being asked for (Train disabled until then)? */
gboolean _tb_window_devices_pending (TbWindow *self);
/* The settings of the pages as a session config, on the device at
 * `device` (an index into devices[]). */
void _tb_window_collect_config (TbWindow        *self,
                                TbSessionConfig *config,
                                int              device);
/* Start a run of `config` (copied), shown on the Train page. */
void _tb_window_start_session (TbWindow              *self,
                               const TbSessionConfig *config);

/* tb-window-actions.c: installs the win.* actions and their shortcuts. */
void _tb_window_actions_class_init (GtkWidgetClass *widget_class);
